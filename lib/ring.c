/*
 * ring.c: the buffer engine: ring_open() and ring_run(), a buffer of any
 * size between two descriptors that copies nothing.  See splice.h.
 *
 * splice(2) between two pipes moves page references, so a ring of pipes
 * is a buffer through which no byte is copied: input is spliced into the
 * pipe at the tail, output spliced out of the pipe at the head, each pipe
 * filled before the next.  Pipes are scarce: 2 descriptors each, and an
 * unprivileged user past /proc/sys/fs/pipe-user-pages-soft gets 2-page
 * pipes.  What the pipes cannot hold goes into a memfd: spliced into it
 * (one copy, in the kernel) and out of it by reference, so the pipe
 * downstream holds the memfd's own pages; each region is punched out
 * (FALLOC_FL_PUNCH_HOLE) once spliced, so that the next bytes written
 * there land in new pages instead of under a reader that still holds the
 * old ones (the hazard of vmsplice --reuse).
 *
 * While nothing is buffered and the reader keeps up, an input pipe is
 * spliced straight into an output pipe: one call instead of two.
 *
 * The tool's thread moves every byte in one poll(2) loop: every call is
 * non-blocking on the ring's side (SPLICE_F_NONBLOCK, O_NONBLOCK on the
 * ring's pipes), and a socket or terminal, which SPLICE_F_NONBLOCK does
 * not cover, is polled first; the loop sleeps in poll(2) only when neither
 * side moved.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "internal.h"

/*
 * The memfd is punched in whole 2 MiB units, 2 MiB-aligned: where shmem
 * uses huge pages, punching part of one would zero it in place, under the
 * reader that holds it.
 */
#define PUNCH_UNIT HUGE_PAGE_BYTES
/* The memfd part in at most this many regions (what a region wastes). */
#define MEMFD_SLOTS_MAX 256

/* One stage of the ring: a pipe, or a region of the memfd. */
struct slot {
	int rd, wr;		/* the pipe's ends; -1: a region of the memfd */
	size_t cap;		/* bytes it holds at most */
	size_t held;		/* bytes in it now */
	bool full;		/* it took no more: a pipe counts buffers, not bytes */
	off_t base;		/* memfd: where the region starts */
	size_t filled;		/* memfd: bytes written from base on */
	size_t drained;		/* memfd: bytes spliced out from base on */
	size_t punched;		/* memfd: bytes from base on that are holes again */
};

/* A pipe of the engine's between a side that is not a pipe and the ring. */
struct stage {
	int fd[2];		/* -1 when that side is a pipe */
	size_t cap;
	size_t held;
};

struct ring {
	struct slot *slots;
	size_t nslots, npipes;
	size_t head, tail;	/* output drains slots[head], input fills slots[tail] */
	int memfd;
	uint64_t pipe_bytes, memfd_bytes, capacity;
	struct stage in_stage;	/* a side that is not a pipe to the memfd, or read(2) */
	struct stage out_stage;	/* the memfd to a side that is not a pipe, or write(2) */
	bool in_pipe, out_pipe;
	bool in_waits, out_waits;	/* polled before each call: a socket, a terminal */
	bool in_ready, out_ready;	/* poll(2) said so, and no call since */
	bool in_by_read, out_by_write;	/* splice(2) refused: the copying path */
	bool in_eof;
	bool in_held;		/* -p: input waits for the buffer to drain */
	bool out_held;		/* -P: output waits for the buffer to fill */
	long in_capacity;	/* of an input pipe, read again every 16 calls */
	unsigned int in_calls;
	double rate_origin;	/* -L: when output started, < 0 before */
};

/* What --progress reads from the watcher thread. */
static _Atomic uint64_t taken_bytes, delivered_bytes, capacity_bytes;

/* What one step of a side came to. */
enum step { ST_MOVED, ST_WAIT, ST_BLOCKED, ST_END, ST_FAILED };

static size_t
round_up(size_t n, size_t unit)
{
	return (n + unit - 1) / unit * unit;
}

static size_t
next_slot(const struct ring *r, size_t i)
{
	return i + 1 == r->nslots ? 0 : i + 1;
}

static bool
is_memfd_slot(const struct slot *s)
{
	return s->rd < 0;
}

static uint64_t
buffered(void)
{
	return atomic_load_explicit(&taken_bytes, memory_order_relaxed) -
	    atomic_load_explicit(&delivered_bytes, memory_order_relaxed);
}

static void
took(uint64_t n)
{
	atomic_fetch_add_explicit(&taken_bytes, n, memory_order_relaxed);
}

static void
delivered(struct ring_job *j, uint64_t n, enum xfer_method m)
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
		if (j->x.opts.strict) {
			j->memfd_refused = true;
			return xfer_fail(&j->x, SIDE_NONE, j->short_call, j->short_err);
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

/* ---- the memfd's regions ----------------------------------------------- */

/* Makes the region's bytes below upto (a multiple of PUNCH_UNIT) holes again. */
static int
punch_to(struct ring_job *j, struct slot *s, size_t upto)
{
	struct ring *r = j->ring;

	if (upto <= s->punched)
		return 0;
	if (fallocate(r->memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
	    s->base + (off_t)s->punched, (off_t)(upto - s->punched)) < 0)
		return xfer_fail(&j->x, SIDE_NONE, "fallocate", errno);
	s->punched = upto;
	return 0;
}

/* An empty slot starts over: a region once all of it is a hole again. */
static int
slot_restart(struct ring_job *j, struct slot *s)
{
	if (is_memfd_slot(s)) {
		if (punch_to(j, s, round_up(s->filled, PUNCH_UNIT)) < 0)
			return -1;
		s->filled = s->drained = s->punched = 0;
	}
	s->full = false;
	return 0;
}

/*
 * The head slot gave n bytes to the output side: a region gives back the
 * whole units below what it gave; a slot that is empty and done with
 * starts over, and the next one is the head.  A pipe that input still
 * fills may have room again: the kernel will say.
 */
static int
head_gave(struct ring_job *j, struct slot *s, size_t n)
{
	struct ring *r = j->ring;

	s->held -= n;
	if (is_memfd_slot(s)) {
		s->drained += n;
		if (punch_to(j, s, s->drained / PUNCH_UNIT * PUNCH_UNIT) < 0)
			return -1;
	} else if (r->head == r->tail)
		s->full = false;
	if (s->held > 0 || (r->head == r->tail && !s->full))
		return 0;
	if (slot_restart(j, s) < 0)
		return -1;
	if (r->head != r->tail)
		r->head = next_slot(r, r->head);
	return 0;
}

/* ---- input: into the tail slot ----------------------------------------- */

/* The tail takes more, or the slot after it is free: input has somewhere to go. */
static bool
ring_has_room(const struct ring *r)
{
	return !r->slots[r->tail].full || next_slot(r, r->tail) != r->head;
}

/* True when poll(2) says fd is ready now (an input or output that waits). */
static bool
ready_now(int fd, short events)
{
	struct pollfd p = { .fd = fd, .events = events };

	return poll(&p, 1, 0) > 0;
}

/* What one splice(2) asks of an input pipe: half of it (pipe_request_bytes()). */
static size_t
input_request(struct ring_job *j)
{
	struct ring *r = j->ring;

	if (!r->in_pipe)
		return (size_t)1 << 30;
	/* The writer may grow or shrink its pipe: read the capacity again now and then. */
	if (r->in_calls++ % 16 == 0)
		r->in_capacity = pipe_capacity(j->x.in);
	return pipe_request_bytes(r->in_capacity);
}

/* The room that a splice(2) into the slot may ask for. */
static size_t
slot_room(const struct slot *s)
{
	if (is_memfd_slot(s))
		return s->cap - s->filled;
	return s->held < s->cap ? s->cap - s->held : 0;
}

/* splice(2) from fd (a pipe, or the input) into the tail slot. */
static ssize_t
splice_into(struct ring *r, struct slot *s, int fd, size_t len)
{
	off_t at = s->base + (off_t)s->filled;
	ssize_t n;

	if (len > slot_room(s))
		len = slot_room(s);
	if (is_memfd_slot(s))
		n = splice(fd, NULL, r->memfd, &at, len, SPLICE_F_NONBLOCK);
	else
		n = splice(fd, NULL, s->wr, NULL, len, SPLICE_F_NONBLOCK);
	if (n > 0) {
		s->held += (size_t)n;
		if (is_memfd_slot(s))
			s->filled += (size_t)n;
	}
	return n;
}

/*
 * EAGAIN from a splice into a pipe slot: that pipe is full (it may be, by
 * its buffers, with fewer bytes than its capacity) or the source is empty.
 * True for the first, which poll(2) tells.
 */
static bool
slot_refused(const struct slot *s)
{
	return !is_memfd_slot(s) && !ready_now(s->wr, POLLOUT);
}

/*
 * splice(2) refused a side before its first byte: read(2) or write(2) on
 * that side from now on (*copying set), unless --strict.
 */
static enum step
side_refused(struct ring_job *j, enum xfer_side side, int err, bool *copying)
{
	if (j->x.opts.strict) {
		j->x.refused = true;
		return xfer_fail(&j->x, side, "splice", err), ST_FAILED;
	}
	if (j->x.opts.verbose > 1)
		note("standard %s: splice refused (%s), using read/write",
		    side == SIDE_INPUT ? "input" : "output", strerror(err));
	*copying = true;
	return ST_MOVED;
}

/* The input is a pipe, or goes into a pipe slot: splice(2) straight across. */
static enum step
input_to_slot(struct ring_job *j, struct slot *s)
{
	struct ring *r = j->ring;
	ssize_t n;

	if (r->in_waits && !r->in_ready && !ready_now(j->x.in, POLLIN))
		return ST_WAIT;
	r->in_ready = false;
	n = splice_into(r, s, j->x.in, input_request(j));
	if (n > 0) {
		took((uint64_t)n);
		return ST_MOVED;
	}
	if (n == 0)
		return ST_END;
	if (errno == EINTR)
		return ST_MOVED;
	if (errno == EAGAIN) {
		if (!slot_refused(s))
			return ST_WAIT;
		s->full = true;
		return ST_MOVED;
	}
	if (direct_io_dropped(j->x.in, errno))
		return ST_MOVED;
	if (atomic_load_explicit(&taken_bytes, memory_order_relaxed) == 0 && !r->in_pipe &&
	    err_is_refusal(errno))
		return side_refused(j, SIDE_INPUT, errno, &r->in_by_read);
	if (is_memfd_slot(s) && (errno == ENOMEM || errno == ENOSPC))
		return xfer_fail(&j->x, SIDE_NONE, "splice into the memfd", errno), ST_FAILED;
	return xfer_fail(&j->x, SIDE_INPUT, "splice", errno), ST_FAILED;
}

/* Refills the empty input stage from the input: splice(2), or read(2) and write(2). */
static enum step
input_to_stage(struct ring_job *j)
{
	struct ring *r = j->ring;
	struct stage *st = &r->in_stage;
	ssize_t n;

	if (r->in_waits && !r->in_ready && !ready_now(j->x.in, POLLIN))
		return ST_WAIT;
	r->in_ready = false;
	if (!r->in_by_read) {
		n = splice(j->x.in, NULL, st->fd[1], NULL, (size_t)1 << 30, SPLICE_F_NONBLOCK);
		if (n < 0 && direct_io_dropped(j->x.in, errno))
			return ST_MOVED;
		if (n < 0 && errno != EINTR && errno != EAGAIN &&
		    atomic_load_explicit(&taken_bytes, memory_order_relaxed) == 0 &&
		    err_is_refusal(errno))
			return side_refused(j, SIDE_INPUT, errno, &r->in_by_read);
	} else {
		size_t room;
		char *buf = copy_buffer(&room);

		/* Into an empty pipe, no more than it holds: the write cannot block. */
		n = read(j->x.in, buf, room < st->cap ? room : st->cap);
		if (n < 0 && direct_io_dropped(j->x.in, errno))
			return ST_MOVED;
		if (n > 0 && write_all(st->fd[1], buf, (size_t)n) < 0)
			return xfer_fail(&j->x, SIDE_NONE, "write", errno), ST_FAILED;
	}
	if (n > 0) {
		st->held += (size_t)n;
		took((uint64_t)n);
		return ST_MOVED;
	}
	if (n == 0)
		return ST_END;
	if (errno == EINTR)
		return ST_MOVED;
	if (errno == EAGAIN)
		return ST_WAIT;
	return xfer_fail(&j->x, SIDE_INPUT, r->in_by_read ? "read" : "splice", errno), ST_FAILED;
}

/* What the input stage holds, into the tail slot. */
static enum step
stage_to_slot(struct ring_job *j, struct slot *s)
{
	struct stage *st = &j->ring->in_stage;
	ssize_t n = splice_into(j->ring, s, st->fd[0], st->held);

	if (n > 0) {
		st->held -= (size_t)n;
		return ST_MOVED;
	}
	if (n < 0 && errno == EINTR)
		return ST_MOVED;
	if (n < 0 && errno == EAGAIN && slot_refused(s)) {
		s->full = true;
		return ST_MOVED;
	}
	return xfer_fail(&j->x, SIDE_NONE, is_memfd_slot(s) ? "splice into the memfd" :
	    "splice", n < 0 ? errno : EIO), ST_FAILED;
}

/* One call's worth of input into the ring. */
static enum step
fill_step(struct ring_job *j)
{
	struct ring *r = j->ring;
	struct slot *s = &r->slots[r->tail];

	if (s->full || slot_room(s) == 0) {
		s->full = true;
		if (s->held == 0 && r->head == r->tail) {
			/* All it took went out already: fill it again. */
			if (slot_restart(j, s) < 0)
				return ST_FAILED;
		} else if (next_slot(r, r->tail) == r->head)
			return ST_BLOCKED;
		else {
			r->tail = next_slot(r, r->tail);
			s = &r->slots[r->tail];
		}
	}
	if (r->in_stage.held > 0)
		return stage_to_slot(j, s);
	if (r->in_pipe || (!is_memfd_slot(s) && !r->in_by_read))
		return input_to_slot(j, s);
	/* Into the stage first; on into the slot at the next step. */
	return input_to_stage(j);
}

/* ---- output: out of the head slot -------------------------------------- */

/* What one call may give the output: all there is, less under -L. */
static size_t
output_request(const struct ring_job *j, size_t held)
{
	size_t max = j->x.opts.call_bytes_max;

	return max && max < held ? max : held;
}


/* An output error, after a call that moved nothing; refusals handled by the caller. */
static enum step
output_failed(struct ring_job *j, const char *call)
{
	if (errno == EINTR)
		return ST_MOVED;
	if (errno == EAGAIN) {
		j->ring->out_ready = false;
		return ST_WAIT;
	}
	return xfer_fail(&j->x, SIDE_OUTPUT, call, errno), ST_FAILED;
}

/* What the output stage holds, to the output: splice(2), or read(2) and write(2). */
static enum step
stage_to_output(struct ring_job *j)
{
	struct ring *r = j->ring;
	struct stage *st = &r->out_stage;
	size_t len = output_request(j, st->held);
	enum xfer_side side;
	ssize_t n;

	if (r->out_waits && !r->out_ready && !ready_now(j->x.out, POLLOUT))
		return ST_WAIT;
	r->out_ready = false;
	if (!r->out_by_write) {
		n = splice(st->fd[0], NULL, j->x.out, NULL, len, SPLICE_F_NONBLOCK);
		if (n > 0) {
			st->held -= (size_t)n;
			delivered(j, (uint64_t)n, M_SPLICE);
			return ST_MOVED;
		}
		if (n < 0 && direct_io_dropped(j->x.out, errno))
			return ST_MOVED;
		if (n < 0 && j->x.moved == 0 && err_is_refusal(errno))
			return side_refused(j, SIDE_OUTPUT, errno, &r->out_by_write);
		if (n == 0)
			errno = EIO;
		return output_failed(j, "splice");
	}
	n = copy_once(st->fd[0], j->x.out, len, &side);
	if (n > 0) {
		st->held -= (size_t)n;
		delivered(j, (uint64_t)n, M_READ_WRITE);
		return ST_MOVED;
	}
	if (n == 0 || side == SIDE_INPUT)
		return xfer_fail(&j->x, SIDE_NONE, "read", n == 0 ? EIO : errno), ST_FAILED;
	return output_failed(j, "write");
}

/* splice(2) out of the head slot into fd: the output, or the output stage. */
static ssize_t
splice_out_of(struct ring_job *j, struct slot *s, int fd, size_t len)
{
	struct ring *r = j->ring;
	off_t at = s->base + (off_t)s->drained;

	if (is_memfd_slot(s))
		return splice(r->memfd, &at, fd, NULL, len, SPLICE_F_NONBLOCK);
	return splice(s->rd, NULL, fd, NULL, len, SPLICE_F_NONBLOCK);
}

/* One call's worth of output from the ring. */
static enum step
drain_step(struct ring_job *j)
{
	struct ring *r = j->ring;
	struct slot *s = &r->slots[r->head];
	ssize_t n;

	if (r->out_stage.held > 0)
		return stage_to_output(j);
	if (s->held == 0)
		return ST_BLOCKED;
	if (!r->out_pipe && (is_memfd_slot(s) || r->out_by_write)) {
		/* Into the stage, which is empty: as much as it takes. */
		n = splice_out_of(j, s, r->out_stage.fd[1], s->held);
		if (n <= 0)
			return xfer_fail(&j->x, SIDE_NONE, is_memfd_slot(s) ?
			    "splice out of the memfd" : "splice", n < 0 ? errno : EIO), ST_FAILED;
		r->out_stage.held += (size_t)n;
		if (head_gave(j, s, (size_t)n) < 0)
			return ST_FAILED;
		return stage_to_output(j);
	}
	if (r->out_waits && !r->out_ready && !ready_now(j->x.out, POLLOUT))
		return ST_WAIT;
	r->out_ready = false;
	n = splice_out_of(j, s, j->x.out, output_request(j, s->held));
	if (n > 0) {
		delivered(j, (uint64_t)n, M_SPLICE);
		return head_gave(j, s, (size_t)n) < 0 ? ST_FAILED : ST_MOVED;
	}
	/* An O_DIRECT output refuses an unaligned tail: the page cache takes it. */
	if (n < 0 && direct_io_dropped(j->x.out, errno))
		return ST_MOVED;
	if (n < 0 && j->x.moved == 0 && !r->out_pipe && err_is_refusal(errno))
		return side_refused(j, SIDE_OUTPUT, errno, &r->out_by_write);
	if (n == 0)
		errno = EIO;
	return output_failed(j, "splice");
}

/* ---- the loop ---------------------------------------------------------- */

/*
 * Nothing is buffered and the reader keeps up: the input pipe straight
 * into the output pipe, one splice(2) instead of two through the ring.
 * ST_BLOCKED when that cannot be: a side is not a pipe, -P or -L holds
 * output, the buffer holds bytes, or the output pipe is full (then the
 * ring takes the input).
 */
static enum step
cut_through(struct ring_job *j)
{
	struct ring *r = j->ring;
	ssize_t n;

	if (!r->in_pipe || !r->out_pipe || r->out_held || j->rate || buffered() > 0)
		return ST_BLOCKED;
	n = splice(j->x.in, NULL, j->x.out, NULL, input_request(j), SPLICE_F_NONBLOCK);
	if (n > 0) {
		took((uint64_t)n);
		delivered(j, (uint64_t)n, M_SPLICE);
		return ST_MOVED;
	}
	if (n == 0)
		return ST_END;
	if (errno == EINTR)
		return ST_MOVED;
	if (errno == EAGAIN)
		return ready_now(j->x.out, POLLOUT) ? ST_WAIT : ST_BLOCKED;
	/* Between two pipes only a reader that left fails a splice. */
	return xfer_fail(&j->x, SIDE_OUTPUT, "splice", errno), ST_FAILED;
}

/* -P and -p: whether each side may go on, by the fill level. */
static void
update_gates(struct ring_job *j)
{
	struct ring *r = j->ring;
	uint64_t fill = buffered(), cap = r->capacity;
	bool room = ring_has_room(r);

	if (!room && j->resume_percent < 100)
		r->in_held = true;
	/* Bytes in the input stage alone cannot drain: they wait for input. */
	if (r->in_held && (fill * 100 <= (uint64_t)j->resume_percent * cap ||
	    (r->out_stage.held == 0 && r->slots[r->head].held == 0)))
		r->in_held = false;
	if (r->out_held && (fill * 100 >= (uint64_t)j->start_percent * cap || !room || r->in_eof))
		r->out_held = false;
	if (!r->out_held && fill == 0 && !r->in_eof && j->start_percent > 0)
		r->out_held = true;
}

/*
 * Output has bytes, is not held by -P, and -L lets it go now; when -L
 * holds it, *due says until when.
 */
static bool
output_wanted(struct ring_job *j, double *due)
{
	struct ring *r = j->ring;
	double now, at;

	if (r->out_held || (r->out_stage.held == 0 && r->slots[r->head].held == 0))
		return false;
	if (j->rate == 0)
		return true;
	now = now_seconds();
	if (r->rate_origin < 0)
		r->rate_origin = now;
	at = r->rate_origin + (double)j->x.moved / (double)j->rate;
	if (now >= at)
		return true;
	*due = at;
	return false;
}

/*
 * Nothing moved: sleeps in poll(2) until a side that said EAGAIN is ready,
 * or until due (-L).  An output pipe is watched even when nothing is to
 * go out: a reader that leaves ends the tool now, as a write would.
 */
static int
wait_sides(struct ring_job *j, bool in_waits, bool out_waits, double due)
{
	struct ring *r = j->ring;
	struct pollfd p[2];
	nfds_t n = 0, in_at = 2, out_at = 2;

	if (in_waits) {
		in_at = n;
		p[n++] = (struct pollfd){ .fd = j->x.in, .events = POLLIN };
	}
	if (out_waits || r->out_pipe) {
		out_at = n;
		p[n++] = (struct pollfd){ .fd = j->x.out, .events = out_waits ? POLLOUT : 0 };
	}
	if (n == 0 && due < 0)
		return xfer_fail(&j->x, SIDE_NONE, "poll", EDEADLK);
	if (poll(p, n, poll_timeout_ms(due)) < 0)
		return errno == EINTR ? 0 : xfer_fail(&j->x, SIDE_NONE, "poll", errno);
	if (in_at < n && p[in_at].revents)
		r->in_ready = true;
	if (out_at < n && p[out_at].revents) {
		r->out_ready = true;
		if (!out_waits && (p[out_at].revents & POLLERR)) {
			/* No reader: what a write(2) would get, SIGPIPE first. */
			raise(SIGPIPE);
			return xfer_fail(&j->x, SIDE_OUTPUT, "poll", EPIPE);
		}
	}
	return 0;
}

int
ring_run(struct ring_job *j)
{
	struct ring *r = j->ring;

	for (;;) {
		enum step in = ST_BLOCKED, out = ST_BLOCKED;
		double due = -1;

		update_gates(j);
		if (!r->in_eof && !r->in_held && ring_has_room(r)) {
			if ((in = cut_through(j)) == ST_BLOCKED)
				in = fill_step(j);
			if (in == ST_FAILED)
				return -1;
			if (in == ST_END)
				r->in_eof = true;
		}
		if (output_wanted(j, &due)) {
			out = drain_step(j);
			if (out == ST_FAILED)
				return -1;
		}
		if (r->in_eof && buffered() == 0)
			return 0;
		if (in == ST_MOVED || in == ST_END || out == ST_MOVED)
			continue;
		if (wait_sides(j, in == ST_WAIT, out == ST_WAIT, due) < 0)
			return -1;
	}
}

/* ---- what --progress shows --------------------------------------------- */

size_t
ring_status_text(char *buf, size_t size, void *arg)
{
	static uint64_t prev_in, prev_out;
	static double prev_secs;
	uint64_t in = atomic_load_explicit(&taken_bytes, memory_order_relaxed);
	uint64_t out = atomic_load_explicit(&delivered_bytes, memory_order_relaxed);
	uint64_t cap = atomic_load_explicit(&capacity_bytes, memory_order_relaxed);
	double secs = elapsed_seconds(), span;
	char in_text[16], out_text[16];
	int n;

	(void)arg;
	if (secs < prev_secs || in < prev_in)
		prev_secs = 0, prev_in = prev_out = 0;
	span = secs - prev_secs;
	progress_size_text(in_text, sizeof(in_text), span > 0 ? (double)(in - prev_in) / span : 0);
	progress_size_text(out_text, sizeof(out_text),
	    span > 0 ? (double)(out - prev_out) / span : 0);
	prev_secs = secs;
	prev_in = in;
	prev_out = out;
	n = snprintf(buf, size, "in @ %s/s, out @ %s/s, %d%% full", in_text, out_text,
	    cap == 0 ? 0 : (int)((double)(in - out) * 100 / (double)cap));
	return n > 0 ? (size_t)n : 0;
}
