/*
 * ring.c: the buffer engine's ring: ring_open() builds it, ring_close()
 * takes it apart, and the counters of what it took and delivered say how
 * full it is (ring_status_text()).  See splice.h, internal.h.
 *
 * splice(2) between two pipes moves page references, so a ring of pipes
 * is a buffer through which no byte is copied: input is spliced into the
 * pipe at the tail, output spliced out of the pipe at the head, each pipe
 * filled before the next (lib/ring_step.c, driven by lib/ring_run.c's
 * loop).  Pipes are scarce: 2 descriptors each, and an unprivileged user
 * past /proc/sys/fs/pipe-user-pages-soft gets 2-page pipes.  What the
 * pipes cannot hold goes into a memfd: spliced into it (one copy, in the
 * kernel) and out of it by reference, so the pipe downstream holds the
 * memfd's own pages.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "internal.h"

/* The memfd part in at most this many regions (what a region wastes). */
#define MEMFD_SLOTS_MAX 256

/* What --progress reads from the watcher thread. */
static _Atomic uint64_t taken_bytes, delivered_bytes, capacity_bytes, peak_bytes;

uint64_t
ring_buffered(void)
{
	return atomic_load_explicit(&taken_bytes, memory_order_relaxed) -
	    atomic_load_explicit(&delivered_bytes, memory_order_relaxed);
}

uint64_t
ring_taken(void)
{
	return atomic_load_explicit(&taken_bytes, memory_order_relaxed);
}

static uint64_t
ring_peak(void)
{
	return atomic_load_explicit(&peak_bytes, memory_order_relaxed);
}

static uint64_t
ring_capacity(void)
{
	return atomic_load_explicit(&capacity_bytes, memory_order_relaxed);
}

void
ring_took(uint64_t n)
{
	uint64_t held;

	atomic_fetch_add_explicit(&taken_bytes, n, memory_order_relaxed);
	/* Only the ring's thread takes in: a plain maximum. */
	held = ring_buffered();
	if (held > atomic_load_explicit(&peak_bytes, memory_order_relaxed))
		atomic_store_explicit(&peak_bytes, held, memory_order_relaxed);
}

void
ring_passed(struct ring_job *j, uint64_t n)
{
	atomic_fetch_add_explicit(&taken_bytes, n, memory_order_relaxed);
	ring_delivered(j, n, M_SPLICE);
}

void
ring_delivered(struct ring_job *j, uint64_t n, enum xfer_method m)
{
	j->x.moved += n;
	atomic_fetch_add_explicit(&delivered_bytes, n, memory_order_relaxed);
	account(m, n);
}

/* ---- building the ring ------------------------------------------------- */

static void
stage_close(struct stage *st)
{
	for (int i = 0; i < 2; i++)
		if (st->fd[i] >= 0)
			close(st->fd[i]);
	st->fd[0] = st->fd[1] = -1;
}

/* A pipe of the engine's own: non-blocking, grown as o says; its capacity or -1. */
static long
ring_pipe(int fds[2], const struct engine_opts *o)
{
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	return pipe_grow(fds[0], o);
}

/* A stage for a side that is not a pipe; 0 or -1. */
static int
stage_open(struct stage *st, const struct engine_opts *o)
{
	struct engine_opts quiet = *o;
	long cap;

	quiet.verbose = 0;
	cap = ring_pipe(st->fd, &quiet);

	st->cap = cap > 0 ? (size_t)cap : 4096;
	return cap < 0 ? -1 : 0;
}

/*
 * Each pipe is two descriptors: where the soft RLIMIT_NOFILE (often 1024)
 * is below what the ring needs and the hard one allows more, take more,
 * rather than copy through the memfd.  A low hard limit (ulimit -n) stays.
 */
static void
raise_fd_limit(size_t pipes)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)pipes * 2 + 16;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= need)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need ? need : rl.rlim_max;
	(void)setrlimit(RLIMIT_NOFILE, &rl);
}

/*
 * What one pipe of the ring is counted at before any is made: --pipe-size,
 * but no more than pipe-max-size, which is all an unprivileged user gets
 * (the kernel may grant a privileged one more: then fewer pipes are made
 * than counted).  Counted at what was asked, a --pipe-size past
 * pipe-max-size would make too few pipes and leave the rest to the memfd.
 */
static size_t
ring_pipe_bytes(const struct engine_opts *o)
{
	size_t max = (size_t)pipe_max_bytes();

	return o->pipe_bytes && o->pipe_bytes < max ? o->pipe_bytes : max;
}

/*
 * The pipes of the ring, until they hold j->size, or pipe2(2) fails
 * (EMFILE: ulimit -n), or a pipe gets less than it asked for (the user's
 * pipe-user-pages-soft is spent); why they stopped short goes into
 * j->short_call and j->short_err.  The first pipe finds the capacity the
 * kernel grants at most (pipe-max-size, unless privileged); the others
 * ask for that.
 */
static void
make_pipes(struct ring_job *j, struct ring *r, size_t want_pipes)
{
	struct engine_opts quiet = j->x.opts;
	size_t pipe_bytes = j->x.opts.pipe_bytes ? j->x.opts.pipe_bytes :
	    (size_t)pipe_max_bytes();

	quiet.verbose = 0;
	for (size_t i = 0; i < want_pipes && r->pipe_bytes < j->size; i++) {
		struct slot *s = &r->slots[r->npipes];
		uint64_t left = j->size - r->pipe_bytes;
		int fds[2];
		long got;

		quiet.pipe_bytes = left < pipe_bytes ? (size_t)left : pipe_bytes;
		if ((got = ring_pipe(fds, &quiet)) < 0) {
			j->short_call = "pipe2";
			j->short_err = errno;
			return;
		}
		*s = (struct slot){ .rd = fds[0], .wr = fds[1], .cap = (size_t)got };
		r->npipes++;
		r->pipe_bytes += (uint64_t)got;
		if ((size_t)got >= quiet.pipe_bytes)
			continue;
		/* Only pipe-max-size said no: that is the size of a pipe here. */
		if (r->npipes == 1 && got >= pipe_max_bytes()) {
			pipe_bytes = (size_t)got;
			continue;
		}
		j->short_call = "F_SETPIPE_SZ";
		j->short_err = EPERM;
		j->short_granted = (size_t)got;
		return;
	}
}

/* The regions of the memfd, after the pipes: what they could not hold. */
static void
make_memfd_slots(struct ring *r, uint64_t part)
{
	uint64_t region = round_up((size_t)(part / MEMFD_SLOTS_MAX), PUNCH_UNIT);
	off_t base = 0;

	if (region < PUNCH_UNIT)
		region = PUNCH_UNIT;
	part = round_up((size_t)part, PUNCH_UNIT);
	r->memfd_bytes = part;
	while (part > 0) {
		uint64_t cap = part < region ? part : region;

		r->slots[r->nslots++] = (struct slot){
			.rd = -1, .wr = -1, .cap = (size_t)cap, .base = base,
		};
		base += (off_t)cap;
		part -= cap;
	}
}

int
ring_open(struct ring_job *j)
{
	struct ring *r = calloc(1, sizeof(*r));
	size_t pipe_bytes = ring_pipe_bytes(&j->x.opts);
	size_t want_pipes = (size_t)((j->size + pipe_bytes - 1) / pipe_bytes);
	struct rlimit rl;
	int memfd_err = 0;

	xfer_begin(&j->x);
	j->ring = r;
	if (r == NULL)
		return xfer_fail(&j->x, SIDE_NONE, "calloc", errno);
	r->memfd = -1;
	r->in_stage.fd[0] = r->in_stage.fd[1] = -1;
	r->out_stage.fd[0] = r->out_stage.fd[1] = -1;
	r->rate_origin = -1;
	r->in_pipe = fd_is_pipe(j->x.in);
	r->out_pipe = fd_is_pipe(j->x.out);
	r->in_waits = !r->in_pipe && fd_may_wait(j->x.in);
	r->out_waits = !r->out_pipe && fd_may_wait(j->x.out);
	r->in_capacity = r->in_pipe ? pipe_capacity(j->x.in) : -1;
	r->out_held = j->start_percent > 0;
	atomic_store_explicit(&taken_bytes, 0, memory_order_relaxed);
	atomic_store_explicit(&peak_bytes, 0, memory_order_relaxed);
	atomic_store_explicit(&delivered_bytes, 0, memory_order_relaxed);

	/* A side that is not a pipe reaches the memfd, or read/write, through a stage. */
	if ((!r->in_pipe && stage_open(&r->in_stage, &j->x.opts) < 0) ||
	    (!r->out_pipe && stage_open(&r->out_stage, &j->x.opts) < 0))
		return xfer_fail(&j->x, SIDE_NONE, "pipe2", errno);
	/* Made first, while there is a descriptor for it: the pipes may take the rest. */
	if ((r->memfd = memfd_create("splice-buffer", MFD_CLOEXEC)) < 0)
		memfd_err = errno;

	raise_fd_limit(want_pipes);
	/* No more pipes than descriptors allow: that bounds the slots' memory too. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    want_pipes > rl.rlim_cur / 2)
		want_pipes = (size_t)(rl.rlim_cur / 2);
	r->slots = calloc(want_pipes + MEMFD_SLOTS_MAX + 1, sizeof(*r->slots));
	if (r->slots == NULL)
		return xfer_fail(&j->x, SIDE_NONE, "calloc", errno);
	make_pipes(j, r, want_pipes);
	r->nslots = r->npipes;
	j->pipes = r->npipes;
	j->pipe_bytes = r->pipe_bytes;
	if (r->pipe_bytes < j->size) {
		if (j->short_call == NULL) {
			j->short_call = "pipe2";
			j->short_err = EMFILE;
		}
		/* The memfd part copies (once, in the kernel): a fallback, as read/write. */
		xfer_fail(&j->x, SIDE_NONE, j->short_call, j->short_err);
		j->x.error.refused = true;
		if (!fallback_allowed(&j->x.opts, 0, &j->x.error)) {
			j->memfd_refused = true;
			return FAILED;
		}
		if (r->memfd < 0)
			return xfer_fail(&j->x, SIDE_NONE, "memfd_create", memfd_err);
		make_memfd_slots(r, j->size - r->pipe_bytes);
	} else if (r->memfd >= 0) {
		close(r->memfd);
		r->memfd = -1;
	}
	if (r->nslots == 0)
		return xfer_fail(&j->x, SIDE_NONE, j->short_call, j->short_err);
	r->capacity = r->pipe_bytes + r->memfd_bytes;
	j->memfd_bytes = r->memfd_bytes;
	atomic_store_explicit(&capacity_bytes, r->capacity, memory_order_relaxed);
	return 0;
}

void
ring_close(struct ring_job *j)
{
	struct ring *r = j->ring;

	if (r == NULL)
		return;
	for (size_t i = 0; r->slots && i < r->npipes; i++) {
		close(r->slots[i].rd);
		close(r->slots[i].wr);
	}
	if (r->memfd >= 0)
		close(r->memfd);
	stage_close(&r->in_stage);
	stage_close(&r->out_stage);
	free(r->slots);
	free(r);
	j->ring = NULL;
}

/* ---- what --progress shows --------------------------------------------- */

/* Percent of cap that held is. */
static int
percent_of(uint64_t held, uint64_t cap)
{
	return cap == 0 ? 0 : held >= cap ? 100 : (int)((double)held * 100 / (double)cap);
}

size_t
ring_fill_text(char *buf, size_t size, void *arg)
{
	int n;

	(void)arg;
	n = snprintf(buf, size, "buffer %3d%% full", percent_of(ring_buffered(), ring_capacity()));
	return n > 0 ? (size_t)n : 0;
}

size_t
ring_flow_text(char *buf, size_t size, void *arg)
{
	static uint64_t prev_in, prev_out;
	static double prev_secs;
	uint64_t in = ring_taken();
	uint64_t out = atomic_load_explicit(&delivered_bytes, memory_order_relaxed);
	double secs = elapsed_seconds(), span;
	char total_text[16], in_text[16], out_text[16];
	int n;

	(void)arg;
	if (secs < prev_secs || in < prev_in)
		prev_secs = 0, prev_in = prev_out = 0;
	span = secs - prev_secs;
	progress_size_text(total_text, sizeof(total_text), (double)in);
	progress_size_text(in_text, sizeof(in_text), span > 0 ? (double)(in - prev_in) / span : 0);
	progress_size_text(out_text, sizeof(out_text),
	    span > 0 ? (double)(out - prev_out) / span : 0);
	prev_secs = secs;
	prev_in = in;
	prev_out = out;
	n = snprintf(buf, size, "in %8s @ %8s/s, out @ %8s/s", total_text, in_text, out_text);
	return n > 0 ? (size_t)n : 0;
}

void
ring_summary(void)
{
	uint64_t bytes = account_bytes(), peak = ring_peak(), cap = ring_capacity();
	double secs = elapsed_seconds();
	char size[16], avg[16], peak_text[16], cap_text[16];

	progress_size_text(size, sizeof(size), (double)bytes);
	progress_size_text(avg, sizeof(avg), secs > 0 ? (double)bytes / secs : 0);
	progress_size_text(peak_text, sizeof(peak_text), (double)peak);
	progress_size_text(cap_text, sizeof(cap_text), (double)cap);
	note("%llu bytes (%s) in %.2f s, avg %s/s, buffer at most %d%% full (%s of %s)",
	    (unsigned long long)bytes, size, secs, avg, percent_of(peak, cap), peak_text, cap_text);
}
