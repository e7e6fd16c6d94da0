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

/* "in 3% out 100%": how full the pipes next to the tool are. */
static size_t
fill_text(const struct status_look *look, char *buf, size_t size)
{
	const int fds[2] = { look->fill_in, look->fill_out };
	const char *const names[2] = { "in", "out" };
	size_t n = 0;

	for (int i = 0; i < 2; i++) {
		long cap = fds[i] >= 0 ? pipe_capacity(fds[i]) : -1;
		int queued;

		if (cap <= 0 || ioctl(fds[i], FIONREAD, &queued) < 0 || n >= size)
			continue;
		n += (size_t)snprintf(buf + n, size - n, "%s%s %d%%", n ? " " : "", names[i],
		    queued >= cap ? 100 : (int)((long)queued * 100 / cap));
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
 * the SI/IEC units, the average, the seconds, the fill levels, the rate,
 * the word "copied", a finished transfer's ETA; never the bytes, the
 * percent or a running ETA.  Then, if it must, "bytes" becomes "B", and
 * last the name is shortened.  Returns the columns left over (0 when it
 * fits).  parts[1] is the bytes, short its text as "N B".
 */
static size_t
parts_fit(struct part *parts, size_t n, size_t width, const char *name, const char *short_bytes)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++)
		len += parts[i].len;
	while (len > width) {
		struct part *least = NULL;

		for (size_t i = 0; i < n; i++)
			if (parts[i].shown && parts[i].keep < KEEP_ALWAYS &&
			    (least == NULL || parts[i].keep <= least->keep))
				least = &parts[i];
		if (least == NULL)
			break;
		least->shown = false;
		len -= least->len;
	}
	if (len > width && strlen(short_bytes) < parts[1].len) {
		len -= parts[1].len;
		parts[1].len = (size_t)snprintf(parts[1].text, sizeof(parts[1].text), "%s",
		    short_bytes);
		len += parts[1].len;
	}
	if (len > width && name && parts[0].len > 2) {
		size_t cut = len - width < parts[0].len - 2 ? len - width : parts[0].len - 2;

		parts[0].len -= cut;
		memcpy(parts[0].text + parts[0].len - 2, ": ", 2);
		len -= cut;
	}
	return len > width ? len - width : 0;
}

size_t
status_line_format(char *line, size_t size, const struct status_look *look, uint64_t bytes,
    uint64_t total, double secs, double rate_now, double rate_recent, size_t width)
{
	struct part parts[12 + STATUS_GROUPS_MAX];
	char si[16], iec[16], now_text[16], avg_text[16], short_bytes[32];
	double avg = secs > 0 ? (double)bytes / secs : 0;
	size_t n = 0, len = 0;

	part_add(parts, &n, KEEP_ALWAYS, "%s%s", look->name ? look->name : "",
	    look->name ? ": " : "");
	part_add(parts, &n, KEEP_ALWAYS, "%llu byte%s", (unsigned long long)bytes,
	    bytes == 1 ? "" : "s");
	if (bytes >= 1000) {
		human(si, sizeof(si), (double)bytes, false);
		human(iec, sizeof(iec), (double)bytes, true);
		part_add(parts, &n, KEEP_UNITS, " (%s, %s)", si, iec);
	}
	snprintf(short_bytes, sizeof(short_bytes), "%llu B", (unsigned long long)bytes);
	part_add(parts, &n, KEEP_WORDS, " copied");
	part_add(parts, &n, KEEP_SECS, ", %.2f s", secs);
	human(now_text, sizeof(now_text), rate_now, true);
	part_add(parts, &n, KEEP_RATE, ", %s/s", now_text);
	human(avg_text, sizeof(avg_text), avg, true);
	part_add(parts, &n, KEEP_AVG, ", avg %s/s", avg_text);
	if (look->fill_in >= 0 || look->fill_out >= 0) {
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
	if (total != TO_EOF) {
		double part = total ? (double)bytes / (double)total : 1;
		char eta[32];

		part_add(parts, &n, KEEP_ALWAYS, ", %d%%", part >= 1 ? 100 : (int)(part * 100));
		clock_text(eta, sizeof(eta), part >= 1 ? 0 :
		    rate_recent > 0 ? (double)(total - bytes) / rate_recent : -1);
		part_add(parts, &n, part >= 1 ? KEEP_DONE_ETA : KEEP_ALWAYS, ", ETA %s", eta);
	}
	if (width > 0)
		(void)parts_fit(parts, n, width, look->name, short_bytes);
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
