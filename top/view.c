/*
 * view.c: a sample as chains, writer to reader: each stage (pid, command,
 * state, CPU, bytes read and written a second) with the files it holds,
 * each pipe between two stages a fill bar, a stage of several outputs
 * (tee) its readers as branches; then the verdict, the stage that holds
 * the pipeline back.  On a screen or in batch lines, fitted to the width;
 * or as key=value records, one a line, numbers exact.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "splice.h"
#include "top/top.h"

/* A stage without pipes is named only when it uses this much of a CPU. */
#define BUSY_CPU 90.0
/* Samples full with an idle reader before a pipe is called stalled. */
#define STALLED_SAMPLES 2

/* Where the lines of a frame go, and how many are left. */
struct frame {
	FILE *out;
	struct top_sample *s;
	enum top_view view;
	int width, rows_left;
};

/* One line, cut to the width; nothing once the rows are used up. */
static void
line(struct frame *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
line(struct frame *f, const char *fmt, ...)
{
	char buf[512], *p;
	va_list ap;
	int n;

	if (f->rows_left == 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	/* A name may hold anything: no control byte reaches the terminal. */
	for (p = buf; *p; p++)
		if ((unsigned char)*p < ' ' || *p == 0x7f)
			*p = '?';
	/* A screen's last column is left alone: a terminal may erase it (ESC [ K). */
	if (f->width > 0 && (size_t)f->width < sizeof(buf))
		buf[f->view == VIEW_SCREEN ? f->width - 1 : f->width] = '\0';
	fprintf(f->out, "%s\n", buf);
	if (f->rows_left > 0)
		f->rows_left--;
}

/* bytes as "812", "64K", "1.5M": at most 5 characters. */
static const char *
human(char *buf, size_t size, double bytes)
{
	static const char units[] = "KMGTPE";
	int u = -1;

	if (bytes < 0) {
		snprintf(buf, size, "-");
		return buf;
	}
	while (bytes >= 1000 && u < 5) {
		bytes /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, size, "%.0f", bytes);
	else if (bytes < 10)
		snprintf(buf, size, "%.1f%c", bytes, units[u]);
	else
		snprintf(buf, size, "%.0f%c", bytes, units[u]);
	return buf;
}

/* The pipes process i writes (out) or reads, indexes into f->s->pipes, up to max. */
static size_t
pipes_of(const struct top_sample *s, size_t i, bool out, size_t *idx, size_t max)
{
	size_t n = 0, k;

	for (k = 0; k < s->npipes && n < max; k++)
		if ((out ? s->pipes[k].writer : s->pipes[k].reader) == i)
			idx[n++] = k;
	return n;
}

/* A pipe's fill now, in percent, or -1 when it could not be read. */
static int
fill_percent(const struct top_pipe *pp)
{
	if (pp->capacity <= 0 || pp->bytes < 0)
		return -1;
	/* A resize between the two calls may leave more bytes than capacity. */
	return pp->bytes >= pp->capacity ? 100 : (int)(100 * pp->bytes / pp->capacity);
}

/* The stage's line: pid, command, state, CPU, bytes read and written a second. */
static void
stage_line(struct frame *f, const struct top_proc *p, int indent)
{
	char cpu[16] = "-", rd[16], wr[16];
	int comm_w;

	if (p->cpu >= 0)
		snprintf(cpu, sizeof(cpu), "%.0f%%", p->cpu);
	comm_w = f->width > 0 && f->width < 48 ? f->width - 20 - indent : 15;
	if (comm_w < 4)
		comm_w = 4;
	if (f->width > 0 && f->width < 48)
		line(f, "%7d %*s%-*.*s %c %5s", (int)p->pid, indent, "", comm_w, comm_w, p->comm,
		    p->state, cpu);
	else
		line(f, "%7d %*s%-*.*s %c %5s %7s %7s", (int)p->pid, indent, "", comm_w, comm_w,
		    p->comm, p->state, cpu, human(rd, sizeof(rd), p->read_rate),
		    human(wr, sizeof(wr), p->write_rate));
}

/* A file's line: "< /dev/urandom", a reading file's percent, rate and ETA. */
static void
file_line(struct frame *f, const struct top_file *fl, int indent)
{
	char extra[96] = "", rate[16];
	double left;

	if (fl->kind == 'f' && fl->mode == 'r' && fl->size > 0) {
		snprintf(extra, sizeof(extra), " %.0f%%", 100.0 * (double)fl->pos /
		    (double)fl->size);
		if (fl->rate > 0) {
			left = (double)(fl->size - (fl->pos < fl->size ? fl->pos : fl->size)) /
			    fl->rate;
			snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
			    " %s/s ETA %d:%02d", human(rate, sizeof(rate), fl->rate),
			    (int)(left / 60), (int)left % 60);
		}
	} else if (fl->kind == 'f')
		snprintf(extra, sizeof(extra), " %s", human(rate, sizeof(rate), (double)fl->size));
	line(f, "%*s%s %s%s", 10 + indent, "", fl->mode == 'r' ? "<" : fl->mode == 'w' ? ">" :
	    "<>", fl->name, extra);
}

/* A pipe's line: a fill bar, bytes of capacity, percent. */
static void
pipe_line(struct frame *f, const struct top_pipe *pp, int indent)
{
	char bar[64], bytes[16], cap[16];
	int pct = fill_percent(pp), w, filled;

	if (pct < 0) {
		line(f, "%*s| (%s)", 8 + indent, "", pp->reader == NO_PROC ?
		    "no reader watched" : "fill not readable");
		return;
	}
	w = f->width > 0 ? f->width - indent - 30 : 20;
	if (w > 20)
		w = 20;
	if (w < 4)
		w = 4;
	filled = pct * w / 100;
	memset(bar, '#', (size_t)filled);
	memset(bar + filled, ' ', (size_t)(w - filled));
	bar[w] = '\0';
	line(f, "%*s|=[%s] %s/%s %3d%%%s%s", 8 + indent, "", bar,
	    human(bytes, sizeof(bytes), (double)pp->bytes),
	    human(cap, sizeof(cap), (double)pp->capacity), pct,
	    pp->full_idle >= STALLED_SAMPLES ? " stalled" : "",
	    pp->writer == NO_PROC ? " no writer" : "");
}

/* Stage i, its files, then each pipe it writes and the stage that reads it. */
static void
chain(struct frame *f, size_t i, int indent, bool *shown)
{
	struct top_proc *p = &f->s->procs[i];
	size_t outs[32], n, k, j, r;

	shown[i] = true;
	n = pipes_of(f->s, i, false, outs, 32);
	for (k = 0; k < n; k++)
		if (f->s->pipes[outs[k]].writer == NO_PROC)
			pipe_line(f, &f->s->pipes[outs[k]], indent);
	stage_line(f, p, indent);
	for (j = 0; j < p->nfiles; j++)
		file_line(f, &p->files[j], indent);
	n = pipes_of(f->s, i, true, outs, 32);
	for (k = 0; k < n; k++) {
		const struct top_pipe *pp = &f->s->pipes[outs[k]];

		pipe_line(f, pp, indent + (n > 1 ? 2 : 0));
		r = pp->reader;
		if (r == NO_PROC)
			continue;
		if (shown[r])
			line(f, "%*s-> pid %d, above", 8 + indent + (n > 1 ? 2 : 0), "",
			    (int)f->s->procs[r].pid);
		else
			chain(f, r, indent + (n > 1 ? 2 : 0), shown);
	}
}

/* Whether stage i reads a pipe that another watched stage writes. */
static bool
has_writer(const struct top_sample *s, size_t i)
{
	size_t k;

	for (k = 0; k < s->npipes; k++)
		if (s->pipes[k].reader == i && s->pipes[k].writer != NO_PROC &&
		    s->pipes[k].writer != i)
			return true;
	return false;
}

/*
 * The stage that holds the others back: the one whose fill drops most from
 * its input pipes to its output pipes (each averaged over the refreshes;
 * a first stage's input counts as full, a last stage's output as empty),
 * its share of a CPU added: input full and output empty, or a whole CPU,
 * score 1 or more.  *in and *out: its lowest input and highest output
 * fill, -1 where it has none.
 */
static size_t
slowest(const struct top_sample *s, double *in, double *out)
{
	size_t best = NO_PROC, idx[32], n, i, k;
	double best_score = -2, lo, hi, avg, score;
	bool ins, outs;

	for (i = 0; i < s->nprocs; i++) {
		const struct top_proc *p = &s->procs[i];

		if (!p->stage)
			continue;
		lo = 1;
		hi = 0;
		ins = false;
		outs = false;
		n = pipes_of(s, i, false, idx, 32);
		for (k = 0; k < n; k++)
			if (s->pipes[idx[k]].capacity > 0) {
				avg = s->pipes[idx[k]].fill_avg;
				lo = avg < lo ? avg : lo;
				ins = true;
			}
		n = pipes_of(s, i, true, idx, 32);
		for (k = 0; k < n; k++)
			if (s->pipes[idx[k]].capacity > 0) {
				avg = s->pipes[idx[k]].fill_avg;
				hi = avg > hi ? avg : hi;
				outs = true;
			}
		if (!ins && !outs && p->cpu < BUSY_CPU)
			continue;
		score = lo - hi + (p->cpu > 0 ? p->cpu / 100 : 0);
		if (score > best_score) {
			best = i;
			best_score = score;
			*in = ins ? lo : -1;
			*out = outs ? hi : -1;
		}
	}
	return best;
}

/*
 * The stalled pipe to name: full, its reader idle for a while, and that
 * reader not itself held up by a stalled pipe it writes (the stall's
 * cause is downstream, the last stalled pipe of the chain).
 */
static const struct top_pipe *
stalled(const struct top_sample *s)
{
	const struct top_pipe *found = NULL;
	size_t k, j;

	for (k = 0; k < s->npipes; k++) {
		if (s->pipes[k].full_idle < STALLED_SAMPLES)
			continue;
		found = &s->pipes[k];
		for (j = 0; j < s->npipes; j++)
			if (s->pipes[j].writer == found->reader &&
			    s->pipes[j].full_idle >= STALLED_SAMPLES)
				break;
		if (j == s->npipes)
			return found;
	}
	return found;
}

/* The verdict line: the stalled pipe, else the slowest stage. */
static void
verdict(struct frame *f)
{
	const struct top_sample *s = f->s;
	const struct top_pipe *st = stalled(s);
	const struct top_proc *p;
	char what[96] = "";
	double in = -1, out = -1;
	size_t i;

	if (st) {
		p = &s->procs[st->reader];
		line(f, "stalled: %s (pid %d) reads nothing of a full pipe (%ld bytes)%s%s%s",
		    p->comm, (int)p->pid, st->bytes, st->writer == NO_PROC ? "" : "; ",
		    st->writer == NO_PROC ? "" : s->procs[st->writer].comm,
		    st->writer == NO_PROC ? "" : " waits");
		return;
	}
	i = slowest(s, &in, &out);
	if (i == NO_PROC) {
		line(f, "slowest: not known yet: no pipe stays full, no stage uses a whole CPU");
		return;
	}
	p = &s->procs[i];
	if (in >= 0)
		snprintf(what + strlen(what), sizeof(what) - strlen(what), ", input %.0f%% full",
		    100 * in);
	if (out >= 0)
		snprintf(what + strlen(what), sizeof(what) - strlen(what), ", output %.0f%%",
		    100 * out);
	if (p->cpu >= 0)
		snprintf(what + strlen(what), sizeof(what) - strlen(what), ", %.0f%% CPU", p->cpu);
	line(f, "slowest: %s (pid %d):%s", p->comm, (int)p->pid, what[0] ? what + 1 : " -");
}

/* A name as a record's last field: whitespace and controls as '?'. */
static void
plain_name(char *dst, size_t size, const char *src)
{
	size_t i;

	for (i = 0; i + 1 < size && src[i]; i++) {
		dst[i] = src[i];
		if ((unsigned char)src[i] <= ' ' || src[i] == 0x7f)
			dst[i] = '?';
	}
	dst[i] = '\0';
}

/* The key=value records of a sample: frame, stage, file, pipe, verdict, end. */
static void
records(FILE *out, const struct top_sample *s)
{
	const struct top_pipe *st = stalled(s);
	char name[128];
	double in = -1, hi = -1;
	size_t i, j;

	fprintf(out, "frame time=%.3f stages=%zu pipes=%zu\n", s->wall, s->stages, s->npipes);
	for (i = 0; i < s->nprocs; i++) {
		const struct top_proc *p = &s->procs[i];

		if (!p->stage)
			continue;
		plain_name(name, sizeof(name), p->comm);
		fprintf(out, "stage pid=%d ppid=%d pgid=%d sid=%d state=%c cpu=%.1f"
		    " read_bps=%.0f write_bps=%.0f comm=%s\n", (int)p->pid, (int)p->ppid,
		    (int)p->pgrp, (int)p->sid, p->state, p->cpu, p->read_rate, p->write_rate, name);
		for (j = 0; j < p->nfiles; j++) {
			const struct top_file *fl = &p->files[j];

			plain_name(name, sizeof(name), fl->name);
			fprintf(out, "file pid=%d fd=%d kind=%c mode=%c pos=%llu size=%llu"
			    " rate=%.0f name=%s\n", (int)p->pid, fl->fd, fl->kind, fl->mode,
			    (unsigned long long)fl->pos, (unsigned long long)fl->size, fl->rate,
			    name);
		}
	}
	for (i = 0; i < s->npipes; i++) {
		const struct top_pipe *pp = &s->pipes[i];

		fprintf(out, "pipe inode=%llu writer=%d reader=%d bytes=%ld capacity=%ld fill=%d"
		    " average=%.0f stalled=%d\n", (unsigned long long)pp->inode,
		    pp->writer == NO_PROC ? 0 : (int)s->procs[pp->writer].pid,
		    pp->reader == NO_PROC ? 0 : (int)s->procs[pp->reader].pid, pp->bytes,
		    pp->capacity, fill_percent(pp), pp->capacity > 0 ? 100 * pp->fill_avg : -1,
		    pp->full_idle >= STALLED_SAMPLES);
	}
	if (st)
		fprintf(out, "verdict kind=stalled pid=%d\n", (int)s->procs[st->reader].pid);
	else if ((i = slowest(s, &in, &hi)) != NO_PROC)
		fprintf(out, "verdict kind=slowest pid=%d input=%.0f output=%.0f cpu=%.1f\n",
		    (int)s->procs[i].pid, in < 0 ? -1 : 100 * in, hi < 0 ? -1 : 100 * hi,
		    s->procs[i].cpu);
	else
		fprintf(out, "verdict kind=none\n");
	fprintf(out, "end\n");
}

void
top_render(FILE *out, struct top_sample *s, enum top_view view, int width, int rows,
    double delay)
{
	struct frame f = { out, s, view, width, rows > 0 ? rows : -1 };
	char clock[16] = "";
	struct tm tm;
	time_t t = time(NULL);
	bool *shown;
	size_t i;

	if (view == VIEW_RECORDS) {
		records(out, s);
		return;
	}
	shown = calloc(s->nprocs ? s->nprocs : 1, sizeof(*shown));
	if (!shown)
		return;
	if (localtime_r(&t, &tm))
		strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
	line(&f, "splice-top %s: %zu stage%s, %zu pipe%s, every %g s%s", clock, s->stages,
	    plural_s(s->stages), s->npipes, plural_s(s->npipes), delay,
	    view == VIEW_SCREEN ? " (q quits)" : "");
	if (f.width > 0 && f.width < 48)
		line(&f, "    PID %-*s S   CPU", f.width - 20 > 4 ? f.width - 20 : 4, "COMMAND");
	else
		line(&f, "    PID COMMAND         S   CPU  READ/s WRITE/s");
	/* The verdict's row is kept: on a short screen the chains give way. */
	if (f.rows_left > 0 && s->stages)
		f.rows_left--;
	for (i = 0; i < s->nprocs; i++)
		if (s->procs[i].stage && !shown[i] && !has_writer(s, i))
			chain(&f, i, 0, shown);
	/* What a loop of pipes left: every stage has a writer. */
	for (i = 0; i < s->nprocs; i++)
		if (s->procs[i].stage && !shown[i])
			chain(&f, i, 0, shown);
	free(shown);
	if (f.rows_left >= 0)
		f.rows_left++;
	if (s->stages)
		verdict(&f);
}
