/*
 * tee.c: the tee engine: one input, many outputs, by tee(2) and splice(2);
 * the copies without them are in tee_copy.c.  See splice.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

enum { TEE_OK = 0, TEE_OUT_FAILED = -1, TEE_SRC_FAILED = -2 };

/* Reads and drops the n bytes a failed output left in pipe fd. */
static int
tee_discard(int fd, size_t n)
{
	size_t buf_bytes;
	char *buf = copy_buffer(&buf_bytes);

	while (n > 0) {
		ssize_t r = read_retry(fd, buf, n < buf_bytes ? n : buf_bytes);

		if (r <= 0) {
			if (r == 0)
				errno = EIO;
			return -1;
		}
		n -= (size_t)r;
	}
	return 0;
}

/*
 * splice(2) to o failed with err: read/write from now on when the kernel
 * refused o before its first byte and that may be got around
 * (fallback_allowed()); otherwise false, o's failure recorded for the
 * caller to drop it.
 */
static bool
tee_out_falls_back(const struct tee_job *t, struct tee_out *o, int err)
{
	xfer_error_set(&o->error, SIDE_OUTPUT, "splice", err);
	if (!fallback_allowed(&t->opts, o->moved, &o->error))
		return false;
	if (t->opts.verbose > 1)
		note("%s: splice refused (%s), using read/write", o->name, strerror(err));
	o->by_copy = true;
	return true;
}

/*
 * Moves exactly n bytes, which pipe `from` holds, to o: splice(2), or
 * read/write once the kernel refused o before its first byte.  When o
 * fails, the rest of the n bytes is read and dropped, so that `from` is
 * where the other outputs expect it.
 */
static int
tee_deliver(const struct tee_job *t, int from, struct tee_out *o, size_t n,
    enum xfer_method m)
{
	size_t buf_bytes;
	char *buf = copy_buffer(&buf_bytes);

	while (n > 0) {
		uint64_t before;
		ssize_t r;
		int err;

		if (o->by_copy) {
			r = read_retry(from, buf, n < buf_bytes ? n : buf_bytes);
			if (r <= 0) {
				if (r == 0)
					errno = EIO;
				return TEE_SRC_FAILED;
			}
			n -= (size_t)r;
			if (write_all(o->fd, buf, (size_t)r) < 0) {
				err = errno;
				if (tee_discard(from, n) < 0)
					return TEE_SRC_FAILED;
				tee_out_fail(o, "write", err);
				return TEE_OUT_FAILED;
			}
			o->moved += (uint64_t)r;
			account(M_READ_WRITE, (uint64_t)r);
			continue;
		}
		before = o->moved;
		if (splice_held(from, o->fd, n, t->flags, m, &o->moved) == 0)
			break;
		err = errno;
		n -= (size_t)(o->moved - before);
		if (tee_out_falls_back(t, o, err))
			continue;
		if (tee_discard(from, n) < 0)
			return TEE_SRC_FAILED;
		o->gone = true;
		return TEE_OUT_FAILED;
	}
	return TEE_OK;
}

/*
 * tee(2) of up to len bytes from pipe in to pipe out, waiting out EINTR
 * and an inherited O_NONBLOCK.  0 at end of input.
 */
static ssize_t
tee_some(int in, int out, size_t len)
{
	for (;;) {
		ssize_t n = tee(in, out, len, 0);

		if (n >= 0)
			return n;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -1;
		if (wait_fd(in, POLLIN) < 0 || wait_fd(out, POLLOUT) < 0)
			return -1;
	}
}

/*
 * Fills the empty internal pipe from an input that is not a pipe: splice(2),
 * or read(2) and write(2) once that was refused before the first byte.
 * Returns the bytes queued, 0 at end of input, -1 recorded in t.
 */
static ssize_t
tee_fill(struct tee_job *t, struct tee_pipes *p, size_t cap)
{
	for (;;) {
		enum xfer_side side;
		ssize_t n;
		int err;

		if (!p->fill_by_read) {
			n = splice(t->in, NULL, p->fill[1], NULL, cap, t->flags);
			if (n >= 0) {
				account(M_SPLICE_PIPE, (uint64_t)n);
				return n;
			}
			if (errno == EINTR || direct_io_dropped(t->in, errno))
				continue;
			if (errno == EAGAIN) {
				if (wait_fd(t->in, POLLIN) < 0)
					return xfer_error_set(&t->error, SIDE_INPUT, "poll", errno);
				continue;
			}
			err = errno;
			xfer_error_set(&t->error, SIDE_INPUT, "splice", err);
			if (!fallback_allowed(&t->opts, t->taken, &t->error))
				return -1;
			if (t->opts.verbose > 1)
				note("%s: splice refused (%s), using read/write",
				    t->in_name, strerror(err));
			p->fill_by_read = true;
		}
		/* An empty pipe of cap bytes takes cap bytes without blocking. */
		n = copy_once(t->in, p->fill[1], cap, &side);
		if (n < 0 && side == SIDE_INPUT)
			return xfer_error_set(&t->error, SIDE_INPUT, "read", errno);
		if (n < 0)
			return xfer_error_set(&t->error, SIDE_NONE, "write", errno);
		if (n > 0)
			account(M_READ_WRITE, (uint64_t)n);
		return n;
	}
}

/*
 * The only output left: splice(2) (or read/write) up to len bytes straight
 * from the source, no tee(2) needed.  Returns the bytes taken, 0 at end of
 * input, ROUND_AGAIN when the output was dropped, ROUND_FAILED.
 */
static ssize_t
tee_single(struct tee_job *t, int src, struct tee_out *o, size_t len)
{
	for (;;) {
		ssize_t n;

		if (o->by_copy) {
			enum xfer_side side;

			n = copy_once(src, o->fd, len, &side);
			if (n < 0 && side == SIDE_INPUT)
				return xfer_error_set(&t->error, SIDE_INPUT, "read", errno);
			if (n < 0) {
				tee_out_fail(o, "write", errno);
				return tee_dropped(t, o) ? ROUND_AGAIN : ROUND_FAILED;
			}
			o->moved += (uint64_t)n;
			account(M_READ_WRITE, (uint64_t)n);
			return n;
		}
		n = splice(src, NULL, o->fd, NULL, len, t->flags);
		if (n > 0) {
			o->moved += (uint64_t)n;
			account(M_SPLICE, (uint64_t)n);
			return n;
		}
		if (n == 0)
			return 0;
		if (errno == EINTR || direct_io_dropped(o->fd, errno))
			continue;
		if (errno == EAGAIN) {
			if (wait_fd(src, POLLIN) < 0 || wait_fd(o->fd, POLLOUT) < 0)
				return xfer_error_set(&t->error, SIDE_NONE, "poll", errno);
			continue;
		}
		/* splice(2) does not say which side failed; a pipe input only ends. */
		if (tee_out_falls_back(t, o, errno))
			continue;
		o->gone = true;
		return tee_dropped(t, o) ? ROUND_AGAIN : ROUND_FAILED;
	}
}

/* tee(2) failed: refused before the first byte means read/write from now on. */
static ssize_t
tee_refused(struct tee_job *t, struct tee_pipes *p, int err)
{
	xfer_error_set(&t->error, SIDE_NONE, "tee", err);
	if (!fallback_allowed(&t->opts, t->taken, &t->error))
		return ROUND_FAILED;
	if (t->opts.verbose > 1)
		note("tee refused (%s), using read/write", strerror(err));
	p->copy_all = true;
	return ROUND_AGAIN;
}

/*
 * The internal pipe cannot follow the source (errno from F_SETPIPE_SZ):
 * --strict stops here, or the round goes on by read(2) and write(2).  The
 * source still holds every byte of the round: nothing of it moved yet.
 */
static bool
copy_refused(struct tee_job *t)
{
	xfer_error_set(&t->error, SIDE_NONE, "F_SETPIPE_SZ", errno);
	t->error.refused = true;
	return !fallback_allowed(&t->opts, 0, &t->error);
}

/*
 * One round with two or more outputs: the first gets up to len bytes by
 * tee(2), which fixes n; the others get the same n bytes by tee(2) into the
 * internal pipe and splice(2) out of it; the last consumes them from the
 * source with splice(2).  Returns n, 0 at end of input, ROUND_AGAIN when
 * outs[0] was dropped before anything was taken, or ROUND_FAILED.
 */
static ssize_t
tee_round(struct tee_job *t, struct tee_pipes *p, size_t len)
{
	struct tee_out *first = NULL, *last = NULL;
	ssize_t n;
	int r;

	for (size_t i = 0; i < t->nouts; i++) {
		if (t->outs[i].gone)
			continue;
		if (!first)
			first = &t->outs[i];
		last = &t->outs[i];
	}
	if (p->direct && first == &t->outs[0]) {
		n = tee_some(p->src, first->fd, len);
		if (n < 0 && errno == EPIPE) {
			tee_out_fail(first, "tee", EPIPE);
			return tee_dropped(t, first) ? ROUND_AGAIN : ROUND_FAILED;
		}
		if (n < 0)
			return tee_refused(t, p, errno);
		first->moved += (uint64_t)n;
		account(M_TEE, (uint64_t)n);
	} else {
		if (!tee_q_holds_source(t, p))
			return copy_refused(t) ? ROUND_FAILED : tee_copy_round(t, p->src, len);
		n = tee_some(p->src, p->q[1], len);
		if (n < 0)
			return tee_refused(t, p, errno);
		if (n > 0) {
			r = tee_deliver(t, p->q[0], first, (size_t)n, M_TEE);
			if (r == TEE_SRC_FAILED)
				return xfer_error_set(&t->error, SIDE_NONE, "read", errno);
			if (r == TEE_OUT_FAILED && !tee_dropped(t, first))
				return ROUND_FAILED;
		}
	}
	if (n == 0)
		return 0;
	for (struct tee_out *o = first + 1; o < last; o++) {
		ssize_t m;

		if (o->gone)
			continue;
		/*
		 * The tee(2) above may have blocked while the writer grew the
		 * source: the rest of the round is copied if the internal pipe
		 * cannot follow.
		 */
		if (!tee_q_holds_source(t, p))
			return copy_refused(t) ? ROUND_FAILED :
			    tee_copy_rest(t, p, o, last, (size_t)n);
		/*
		 * tee(2) always starts at the front of the source: the same n
		 * bytes, linked again into an empty pipe with as many slots as
		 * the source has, cannot come up short.
		 */
		m = tee_some(p->src, p->q[1], (size_t)n);
		if (m != n)
			return xfer_error_set(&t->error, SIDE_NONE, "tee", m < 0 ? errno : EIO);
		r = tee_deliver(t, p->q[0], o, (size_t)n, M_TEE);
		if (r == TEE_SRC_FAILED)
			return xfer_error_set(&t->error, SIDE_NONE, "read", errno);
		if (r == TEE_OUT_FAILED && !tee_dropped(t, o))
			return ROUND_FAILED;
	}
	r = tee_deliver(t, p->src, last, (size_t)n, M_SPLICE);
	if (r == TEE_SRC_FAILED)
		return xfer_error_set(&t->error, SIDE_INPUT, "read", errno);
	if (r == TEE_OUT_FAILED && !tee_dropped(t, last))
		return ROUND_FAILED;
	return n;
}

/*
 * t->watch_pipes: waits until the input has something (or its end) or an
 * output pipe in watched has lost its reader, which poll(2) reports as
 * POLLERR on the write end.  Such outputs are dropped with EPIPE.  Returns
 * how many were, or -1 when t must stop (failed, or output_failed() said so).
 */
static int
tee_wait_input(struct tee_job *t, struct pollfd *pfds, const bool *watched)
{
	nfds_t n = 1;
	int r, dropped = 0;

	pfds[0] = (struct pollfd){ .fd = t->in, .events = POLLIN };
	for (size_t i = 0; i < t->nouts; i++)
		if (watched[i] && !t->outs[i].gone)
			pfds[n++] = (struct pollfd){ .fd = t->outs[i].fd, .events = 0 };
	if (n == 1)
		return 0;
	while ((r = poll(pfds, n, -1)) < 0 && errno == EINTR)
		;
	if (r < 0)
		return xfer_error_set(&t->error, SIDE_NONE, "poll", errno);
	n = 1;
	for (size_t i = 0; i < t->nouts; i++) {
		struct tee_out *o = &t->outs[i];

		if (!watched[i] || o->gone)
			continue;
		if ((pfds[n++].revents & POLLERR) == 0)
			continue;
		tee_out_fail(o, "write", EPIPE);
		if (!tee_dropped(t, o))
			return -1;
		dropped++;
	}
	return dropped;
}

int
tee_fd(struct tee_job *t)
{
	struct tee_pipes *p = &t->pipes;
	/* The input goes through the fill pipe: each round takes what it holds. */
	bool filled = p->fill[0] >= 0;
	size_t queued = 0, len;
	int rval = 0;
	long cap;
	/* The output pipes that t->watch_pipes watches, and poll(2)'s array. */
	bool *watched = NULL;
	struct pollfd *pfds = NULL;

	if (t->watch_pipes && !fd_is_regular(t->in)) {
		watched = calloc(t->nouts, sizeof(*watched));
		pfds = calloc(t->nouts + 1, sizeof(*pfds));
		if (watched == NULL || pfds == NULL) {
			free(watched);
			free(pfds);
			tee_close(p);
			return xfer_error_set(&t->error, SIDE_NONE, "calloc", errno);
		}
		for (size_t i = 0; i < t->nouts; i++)
			watched[i] = fd_is_pipe(t->outs[i].fd);
	}

	/* The fill pipe: each round takes what it holds. */
	cap = pipe_capacity(p->src);
	len = cap > 0 ? (size_t)cap : 65536;

	for (;;) {
		struct tee_out *only = NULL;
		size_t alive = 0;
		ssize_t n;

		/*
		 * A pipe input: half of it per round, so that its writer
		 * refills it while the round runs (pipe_request_bytes()); read
		 * each round, as a writer that starts after us may grow it.
		 */
		if (!filled)
			len = pipe_request_bytes(pipe_capacity(p->src));
		/* -L: each round at most what the rate allows at once. */
		if (t->opts.call_bytes_max && t->opts.call_bytes_max < len)
			len = t->opts.call_bytes_max;

		for (size_t i = 0; i < t->nouts; i++) {
			if (!t->outs[i].gone) {
				alive++;
				only = &t->outs[i];
			}
		}
		if (alive == 0)
			break;
		if (watched && queued == 0) {
			int dropped = tee_wait_input(t, pfds, watched);

			if (dropped < 0) {
				rval = -1;
				break;
			}
			if (dropped > 0)
				continue;
		}
		if (filled && queued == 0) {
			n = tee_fill(t, p, len);
			if (n <= 0) {
				rval = n < 0 ? -1 : 0;
				break;
			}
			queued = (size_t)n;
		}
		if (p->copy_all)
			n = tee_copy_round(t, p->src, filled ? queued : len);
		else if (alive == 1)
			n = tee_single(t, p->src, only, filled ? queued : len);
		else
			n = tee_round(t, p, filled ? queued : len);
		if (n == ROUND_AGAIN)
			continue;
		if (n < 0) {
			rval = -1;
			break;
		}
		if (n == 0)
			break;
		t->taken += (uint64_t)n;
		account_input((uint64_t)n);
		if (filled)
			queued -= (size_t)n;
	}
	free(watched);
	free(pfds);
	tee_close(p);
	return rval;
}
