/*
 * status_line.c: the text of a --progress status line, built from parts
 * (the bytes, the units, the seconds, the rates, the fill levels, the
 * tool's own groups, the percent and the ETA) that drop out, least useful
 * first, to fit a terminal's width, as pv builds its line.  lib/progress.c
 * decides when a line is due and what it counts.  See internal.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "internal.h"

/* A size as dd prints it: "1.1 GB", "977 KiB", "512 B". */
static void
human(char *buf, size_t size, double v, bool iec)
{
	static const char *const si[] = { "B", "kB", "MB", "GB", "TB", "PB", "EB" };
	static const char *const bin[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double base = iec ? 1024 : 1000;
	int u = 0;

	while (u < 6 && v >= base - 0.5) {	/* "1000 kB" is "1.0 MB" */
		v /= base;
		u++;
	}
	if (u > 0 && v < 9.95)
		snprintf(buf, size, "%.1f %s", v, iec ? bin[u] : si[u]);
	else
		snprintf(buf, size, "%.0f %s", v, iec ? bin[u] : si[u]);
}

/* Whole seconds as H:MM:SS; "-:--:--" when there is no telling. */
static void
clock_text(char *buf, size_t size, double secs)
{
	unsigned long long s;

	if (!(secs >= 0 && secs < 1e9)) {
		snprintf(buf, size, "-:--:--");
		return;
	}
	s = (unsigned long long)(secs + 0.5);
	snprintf(buf, size, "%llu:%02llu:%02llu", s / 3600, s / 60 % 60, s % 60);
}

int
pipe_fill(int fd)
{
	long cap = fd >= 0 ? pipe_capacity(fd) : -1;
	int queued;

	if (cap <= 0 || ioctl(fd, FIONREAD, &queued) < 0)
		return -1;
	return queued >= cap ? 100 : (int)((long)queued * 100 / cap);
}

/*
 * "in   3% full, out 100% full": how full the pipes next to the tool are.
 * A pipe the tool has closed shows its level when it was closed
 * (look->seen), so that the last line has the fields of the others.
 */
static size_t
fill_text(const struct status_look *look, char *buf, size_t size)
{
	const int fds[2] = { look->fill_in, look->fill_out };
	const char *const names[2] = { "in", "out" };
	size_t n = 0;

	for (int i = 0; i < 2; i++) {
		int pct = pipe_fill(fds[i]);

		if (pct >= 0)
			look->seen[i] = pct;
		else
			pct = look->seen[i];
		if (pct < 0 || n >= size)
			continue;
		n += (size_t)snprintf(buf + n, size - n, "%s%s %3d%% full", n ? ", " : "", names[i],
		    pct);
	}
	return n < size ? n : size - 1;
}

/* One group of the status line, with the ", " or " " before it. */
struct part {
	char text[256];
	size_t len;
	int keep;		/* KEEP_*: the lowest goes first when the line is too wide */
	bool shown;
};

static struct part *
part_add(struct part *parts, size_t *n, int keep, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static struct part *
part_add(struct part *parts, size_t *n, int keep, const char *fmt, ...)
{
	struct part *p = &parts[(*n)++];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(p->text, sizeof(p->text), fmt, ap);
	va_end(ap);
	p->len = len < 0 ? 0 : (size_t)len < sizeof(p->text) ? (size_t)len : sizeof(p->text) - 1;
	p->keep = keep;
	p->shown = true;
	return p;
}

/*
 * Drops the groups that matter least until the line fits width columns:
 * the SI/IEC units, the average, the seconds, the word "copied", the fill
 * levels, the rate, a short name's padding, a finished transfer's ETA;
 * then "bytes" becomes "B"; then a tool's own group that is kept past
 * those (splice-buffer's fill); never the bytes, the percent or a running
 * ETA.  Groups whose rank is fit->dropped or lower are gone already: a
 * group that went once stays gone at this width, so the columns do not
 * move from one line to the next.  fit->dropped becomes the highest rank
 * gone.  Last the name loses its end, as far as a line before cut it.
 * parts[0] is the name's padding, parts[1] the name, parts[2] the bytes,
 * short its text as "N B".
 */
static void
parts_fit(struct part *parts, size_t n, size_t width, struct status_fit *fit,
    const char *short_bytes)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		if (parts[i].keep < KEEP_ALWAYS && parts[i].keep <= fit->dropped)
			parts[i].shown = false;
		else
			len += parts[i].len;
	}
	for (;;) {
		struct part *least = NULL;
		int rank;

		for (size_t i = 0; i < n; i++)
			if (parts[i].shown && parts[i].keep < KEEP_ALWAYS &&
			    (least == NULL || parts[i].keep <= least->keep))
				least = &parts[i];
		/* "B" for "bytes" has a rank of its own among the groups. */
		rank = least && least->keep < KEEP_SHORT_BYTES ? least->keep : KEEP_SHORT_BYTES;
		if (rank == KEEP_SHORT_BYTES && strlen(short_bytes) < parts[2].len &&
		    (len > width || fit->dropped >= KEEP_SHORT_BYTES)) {
			len -= parts[2].len;
			parts[2].len = (size_t)snprintf(parts[2].text, sizeof(parts[2].text), "%s",
			    short_bytes);
			len += parts[2].len;
			if (fit->dropped < KEEP_SHORT_BYTES)
				fit->dropped = KEEP_SHORT_BYTES;	/* and "B" it stays */
			continue;
		}
		if (len <= width || least == NULL)
			break;
		least->shown = false;
		len -= least->len;
		if (least->keep > fit->dropped)
			fit->dropped = least->keep;
	}
	/* The name cut as short as a line before had it, or shorter. */
	if (parts[1].len > 2) {
		size_t keep = parts[1].len;

		if (len > width)
			keep = len - width < keep - 2 ? keep - (len - width) : 2;
		if (fit->name_len && fit->name_len < keep)
			keep = fit->name_len;
		if (keep < parts[1].len) {
			parts[1].len = keep;
			memcpy(parts[1].text + keep - 2, ": ", 2);
			fit->name_len = keep;
		}
	}
}

/* Decimal digits of v. */
static int
digits(uint64_t v)
{
	int d = 1;

	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

size_t
status_line_format(char *line, size_t size, const struct status_look *look,
    const struct status_count *c, size_t width, struct status_fit *fit)
{
	struct part parts[12 + STATUS_GROUPS_MAX];
	char si[16], iec[16], now_text[16], avg_text[16], short_bytes[32];
	double avg = c->secs > 0 ? (double)c->bytes / c->secs : 0;
	/* Known total: the count as wide as the largest, so nothing after it moves. */
	int wide = c->widest_total ? digits(c->widest_total) : 0;
	struct status_fit no_fit = { 0, 0 };
	size_t n = 0, len = 0, name_cols = 0;

	if (c->total != TO_EOF && c->total >= c->bytes && digits(c->total) > wide)
		wide = digits(c->total);
	/*
	 * The name right-aligned, as pv -N: names of lines one above another
	 * line up.  Columns, not bytes: a UTF-8 character's bytes after its
	 * first take none.
	 */
	for (const char *p = look->name ? look->name : ""; *p; p++)
		name_cols += ((unsigned char)*p & 0xc0) != 0x80;
	part_add(parts, &n, KEEP_PAD, "%*s", look->name && name_cols < STATUS_NAME_WIDTH ?
	    (int)(STATUS_NAME_WIDTH - name_cols) : 0, "");
	part_add(parts, &n, KEEP_ALWAYS, "%s%s", look->name ? look->name : "",
	    look->name ? ": " : "");
	part_add(parts, &n, KEEP_ALWAYS, "%*llu byte%s", wide, (unsigned long long)c->bytes,
	    c->bytes == 1 ? "" : "s");
	if (c->bytes >= 1000) {
		human(si, sizeof(si), (double)c->bytes, false);
		human(iec, sizeof(iec), (double)c->bytes, true);
		part_add(parts, &n, KEEP_UNITS, " (%6s, %8s)", si, iec);
	}
	snprintf(short_bytes, sizeof(short_bytes), "%*llu B", wide, (unsigned long long)c->bytes);
	part_add(parts, &n, KEEP_WORDS, " copied");
	part_add(parts, &n, KEEP_SECS, ", %6.2f s", c->secs);
	human(now_text, sizeof(now_text), c->rate_now, true);
	part_add(parts, &n, KEEP_RATE, ", %8s/s", now_text);
	human(avg_text, sizeof(avg_text), avg, true);
	part_add(parts, &n, KEEP_AVG, ", avg %8s/s", avg_text);
	if (look->fill_in >= 0 || look->fill_out >= 0 || look->seen[0] >= 0 || look->seen[1] >= 0) {
		struct part *p = part_add(parts, &n, KEEP_FILL, ", ");

		p->len += fill_text(look, p->text + p->len, sizeof(p->text) - p->len);
		if (p->len == 2)
			n--;
	}
	for (size_t g = 0; g < look->ngroups; g++) {
		struct part *p = part_add(parts, &n, look->groups[g].keep, ", ");

		p->len += look->groups[g].text(p->text + p->len, sizeof(p->text) - p->len,
		    look->groups[g].arg);
		if (p->len == 2)
			n--;
		else if (p->len >= sizeof(p->text))
			p->len = sizeof(p->text) - 1;
	}
	if (c->total != TO_EOF) {
		double part = c->total ? (double)c->bytes / (double)c->total : 1;
		char eta[32];

		part_add(parts, &n, KEEP_ALWAYS, ", done %3d%%",
		    part >= 1 ? 100 : (int)(part * 100));
		/* The last line is the same but for the ETA: there is nothing left. */
		if (!c->last) {
			clock_text(eta, sizeof(eta), part >= 1 ? 0 : c->rate_recent > 0 ?
			    (double)(c->total - c->bytes) / c->rate_recent : -1);
			part_add(parts, &n, part >= 1 ? KEEP_DONE_ETA : KEEP_ALWAYS, ", ETA %s",
			    eta);
		}
	}
	if (width > 0)
		parts_fit(parts, n, width, fit ? fit : &no_fit, short_bytes);
	for (size_t i = 0; i < n; i++) {
		size_t take;

		if (!parts[i].shown)
			continue;
		take = parts[i].len < size - 1 - len ? parts[i].len : size - 1 - len;
		memcpy(line + len, parts[i].text, take);
		len += take;
	}
	if (width > 0 && len > width)
		len = width;	/* a line that wraps could not be redrawn */
	line[len] = '\0';
	return len;
}

void
progress_size_text(char *buf, size_t size, double bytes)
{
	human(buf, size, bytes, true);
}
