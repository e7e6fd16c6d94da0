/*
 * ring_step.c: one call's worth of the buffer engine's sides: input into
 * the ring's tail slot, output out of its head slot, and, while nothing is
 * buffered and the reader keeps up, an input pipe spliced straight into an
 * output pipe (one call instead of two).  Each region of the memfd is
 * punched out (FALLOC_FL_PUNCH_HOLE) once spliced, so that the next bytes
 * written there land in new pages instead of under a reader that still
 * holds the old ones (the hazard of vmsplice --reuse).  Every call is
 * non-blocking on the ring's side (SPLICE_F_NONBLOCK, O_NONBLOCK on the
 * ring's pipes), and a socket or terminal, which SPLICE_F_NONBLOCK does
 * not cover, is polled first: a step that cannot move says so, and
 * lib/ring_run.c's loop sleeps.  See internal.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

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

bool
ring_has_room(const struct ring *r)
{
	return !r->slots[r->tail].full || next_slot(r, r->tail) != r->head;
}

/*
 * True when poll(2) says fd is ready now (an input or output that waits).
 * EINTR is asked again: taken for "not ready", it marked a slot full that
 * was not, or left a side waiting for what had come.  Another error says
 * ready, so that the call it was asked for meets the error itself.
 */
static bool
ready_now(int fd, short events)
{
	struct pollfd p = { .fd = fd, .events = events };
	int r;

	while ((r = poll(&p, 1, 0)) < 0 && errno == EINTR)
		;
	return r != 0;
}

/*
 * Before a call on fd: true unless fd waits (a socket, a terminal) and
 * neither the loop's poll(2) said it is ready (*ready, used up now) nor
 * poll(2) says so now, when the step waits.
 */
static bool
side_ready(int fd, short events, bool waits, bool *ready)
{
	bool said = *ready;

	*ready = false;
	return !waits || said || ready_now(fd, events);
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
 * splice(2) refused a side before its first byte (the callers' test): read(2)
 * or write(2) on that side from now on (*copying set), unless --strict.
 */
static enum step
side_refused(struct ring_job *j, enum xfer_side side, int err, bool *copying)
{
	xfer_fail(&j->x, side, "splice", err);
	if (!fallback_allowed(&j->x.opts, 0, &j->x.error))
		return ST_FAILED;
	if (j->x.opts.verbose > 1)
		note("standard %s: splice refused (%s), using read/write",
		    side == SIDE_INPUT ? "input" : "output", strerror(err));
	*copying = true;
	return ST_MOVED;
}

/*
 * What a call that took n bytes from the input comes to, once the caller has
 * put them where they went and decided EAGAIN: the bytes counted, the end, a
 * call to make again (EINTR, O_DIRECT dropped), or the failure of call.  A
 * refusal before the first byte falls back to read(2) (*copying), where the
 * call was a splice(2) that may be refused (copying not NULL).
 */
static enum step
input_took(struct ring_job *j, ssize_t n, const char *call, bool *copying)
{
	if (n > 0) {
		ring_took((uint64_t)n);
		return ST_MOVED;
	}
	if (n == 0)
		return ST_END;
	if (errno == EINTR || direct_io_dropped(j->x.in, errno))
		return ST_MOVED;
	if (copying && ring_taken() == 0 && err_is_refusal(errno))
		return side_refused(j, SIDE_INPUT, errno, copying);
	return xfer_fail(&j->x, SIDE_INPUT, call, errno), ST_FAILED;
}

/* The input is a pipe, or goes into a pipe slot: splice(2) straight across. */
static enum step
input_to_slot(struct ring_job *j, struct slot *s)
{
	struct ring *r = j->ring;
	ssize_t n;

	if (!side_ready(j->x.in, POLLIN, r->in_waits, &r->in_ready))
		return ST_WAIT;
	n = splice_into(r, s, j->x.in, input_request(j));
	if (n < 0 && errno == EAGAIN) {
		if (!slot_refused(s))
			return ST_WAIT;
		s->full = true;
		return ST_MOVED;
	}
	if (n < 0 && is_memfd_slot(s) && (errno == ENOMEM || errno == ENOSPC))
		return xfer_fail(&j->x, SIDE_NONE, "splice into the memfd", errno), ST_FAILED;
	/* An input pipe has no read(2) way (ring_fill_step()): its refusal is a failure. */
	return input_took(j, n, "splice", r->in_pipe ? NULL : &r->in_by_read);
}

/* Refills the empty input stage from the input: splice(2), or read(2) and write(2). */
static enum step
input_to_stage(struct ring_job *j)
{
	struct ring *r = j->ring;
	struct stage *st = &r->in_stage;
	ssize_t n;

	if (!side_ready(j->x.in, POLLIN, r->in_waits, &r->in_ready))
		return ST_WAIT;
	if (!r->in_by_read)
		n = splice(j->x.in, NULL, st->fd[1], NULL, (size_t)1 << 30, SPLICE_F_NONBLOCK);
	else {
		size_t room;
		char *buf = copy_buffer(&room);

		/* Into an empty pipe, no more than it holds: the write cannot block. */
		n = read(j->x.in, buf, room < st->cap ? room : st->cap);
		if (n > 0 && write_all(st->fd[1], buf, (size_t)n) < 0)
			return xfer_fail(&j->x, SIDE_NONE, "write", errno), ST_FAILED;
	}
	if (n > 0)
		st->held += (size_t)n;
	if (n < 0 && errno == EAGAIN)
		return ST_WAIT;
	if (r->in_by_read)
		return input_took(j, n, "read", NULL);
	return input_took(j, n, "splice", &r->in_by_read);
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

enum step
ring_fill_step(struct ring_job *j)
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

	if (!side_ready(j->x.out, POLLOUT, r->out_waits, &r->out_ready))
		return ST_WAIT;
	if (!r->out_by_write) {
		n = splice(st->fd[0], NULL, j->x.out, NULL, len, SPLICE_F_NONBLOCK);
		if (n > 0) {
			st->held -= (size_t)n;
			ring_delivered(j, (uint64_t)n, M_SPLICE);
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
		ring_delivered(j, (uint64_t)n, M_READ_WRITE);
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

enum step
ring_drain_step(struct ring_job *j)
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
	if (!side_ready(j->x.out, POLLOUT, r->out_waits, &r->out_ready))
		return ST_WAIT;
	n = splice_out_of(j, s, j->x.out, output_request(j, s->held));
	if (n > 0) {
		ring_delivered(j, (uint64_t)n, M_SPLICE);
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

/* ---- input straight to output ------------------------------------------ */

enum step
ring_cut_through(struct ring_job *j)
{
	struct ring *r = j->ring;
	ssize_t n;

	if (!r->in_pipe || !r->out_pipe || r->out_held || j->rate || ring_buffered() > 0)
		return ST_BLOCKED;
	n = splice(j->x.in, NULL, j->x.out, NULL, input_request(j), SPLICE_F_NONBLOCK);
	if (n > 0) {
		/* Passed on, never held: no part of the buffer's peak. */
		ring_passed(j, (uint64_t)n);
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
