/*
 * ring_run.c: ring_run(), the buffer engine's loop.  The tool's thread
 * moves every byte in one poll(2) loop: a step of input (lib/ring_step.c)
 * while the ring has room and -p does not hold it, a step of output while
 * it has bytes and neither -P nor -L holds it; the loop sleeps in poll(2)
 * only when neither side moved.  See splice.h.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>

#include "internal.h"

/* -P and -p: whether each side may go on, by the fill level. */
static void
update_gates(struct ring_job *j)
{
	struct ring *r = j->ring;
	uint64_t fill = ring_buffered(), cap = r->capacity;
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
			if ((in = ring_cut_through(j)) == ST_BLOCKED)
				in = ring_fill_step(j);
			if (in == ST_FAILED)
				return -1;
			if (in == ST_END)
				r->in_eof = true;
		}
		if (output_wanted(j, &due)) {
			out = ring_drain_step(j);
			if (out == ST_FAILED)
				return -1;
		}
		if (r->in_eof && ring_buffered() == 0)
			return 0;
		if (in == ST_MOVED || in == ST_END || out == ST_MOVED)
			continue;
		if (wait_sides(j, in == ST_WAIT, out == ST_WAIT, due) < 0)
			return -1;
	}
}
