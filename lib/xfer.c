/*
 * xfer.c: how one transfer moves a stream of bytes: splice(2) when a side
 * is a pipe, copy_file_range(2) between regular files, splice(2) through a
 * pipe of the engine's, read(2)/write(2) when the kernel refuses; and what
 * the engines share about a struct xfer.  See internal.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

uint64_t
xfer_left(const struct xfer *x)
{
	return x->len == TO_EOF ? TO_EOF : x->len - x->moved;
}

size_t
xfer_call_bytes(const struct xfer *x, size_t chunk)
{
	uint64_t n = xfer_left(x);

	if (x->chunk && x->chunk < chunk)
		chunk = x->chunk;
	if (x->opts.call_bytes_max && x->opts.call_bytes_max < chunk)
		chunk = x->opts.call_bytes_max;
	return n < chunk ? (size_t)n : chunk;
}

/* What one call of an engine's loop came to, by xfer_step(). */
enum xfer_step { STEP_MOVED, STEP_END, STEP_AGAIN, STEP_ERROR };

/*
 * After a call returned n: n > 0 bytes are added to x->moved and counted
 * under m (STEP_MOVED), 0 is the end (STEP_END), EINTR is STEP_AGAIN, any
 * other error STEP_ERROR with errno kept for the caller to sort out.
 */
static enum xfer_step
xfer_step(struct xfer *x, ssize_t n, enum xfer_method m)
{
	if (n > 0) {
		x->moved += (uint64_t)n;
		account(m, (uint64_t)n);
		return STEP_MOVED;
	}
	if (n == 0)
		return STEP_END;
	return errno == EINTR ? STEP_AGAIN : STEP_ERROR;
}

int
xfer_fail(struct xfer *x, enum xfer_side side, const char *call, int err)
{
	return xfer_error_set(&x->error, side, call, err);
}

/* Errors that only writing produces. */
bool
err_is_output(int err)
{
	return err == EPIPE || err == ENOSPC || err == EDQUOT || err == EFBIG;
}

/* An O_DIRECT side refused an unaligned call: dropped, try again. */
static bool
direct_dropped(const struct xfer *x, int err)
{
	bool in = direct_io_dropped(x->in, err), out = direct_io_dropped(x->out, err);

	return in || out;
}

static int
by_read_write(struct xfer *x)
{
	while (xfer_left(x) > 0) {
		enum xfer_side side;
		ssize_t n = copy_once(x->in, x->out, xfer_call_bytes(x, SIZE_MAX), &side);

		if (n < 0)
			return xfer_fail(x, side, side == SIDE_INPUT ? "read" : "write", errno);
		if (n == 0)
			break;
		x->moved += (uint64_t)n;
		account(M_READ_WRITE, (uint64_t)n);
	}
	return DONE;
}

/* Waits until x->in is readable, at most x->idle_secs when that is set. */
static int
wait_input(const struct xfer *x)
{
	return wait_fd_timeout(x->in, POLLIN, x->idle_secs > 0 ? x->idle_secs : -1);
}

/* One side is a pipe: splice(2) straight across. */
static int
splice_across(struct xfer *x, bool in_pipe, bool out_pipe)
{
	/*
	 * Out of a pipe: part of it per call, so that its writer runs while
	 * this call does (pipe_request_bytes()); the capacity is read again
	 * every few calls, as a writer that starts after us may grow the
	 * pipe.  Into a pipe: plenty, as a call stops at the room there is.
	 */
	size_t chunk = (size_t)1 << 30;
	unsigned int calls = 0;
	bool in_waits = !in_pipe && fd_may_wait(x->in);

	while (xfer_left(x) > 0) {
		unsigned int flags = x->flags;
		enum xfer_step step;
		ssize_t n;

		if (in_pipe && calls++ % 16 == 0)
			chunk = pipe_request_bytes(pipe_capacity(x->in));
		/*
		 * A socket or terminal with nothing to read waits inside
		 * splice(2) holding the output pipe's lock: its reader gets
		 * none of what is already there, and cannot even be killed.
		 * Splice only what has arrived.
		 */
		if (in_waits) {
			if (wait_input(x) < 0)
				return xfer_fail(x, SIDE_INPUT, "poll", errno);
			flags |= SPLICE_F_NONBLOCK;
		}

		n = splice(x->in, NULL, x->out, NULL, xfer_call_bytes(x, chunk), flags);
		step = xfer_step(x, n, M_SPLICE);
		if (step == STEP_END)
			break;
		if (step != STEP_ERROR)
			continue;
		if (errno == EAGAIN) {
			/* An inherited O_NONBLOCK on either side. */
			if (wait_input(x) < 0)
				return xfer_fail(x, SIDE_INPUT, "poll", errno);
			if (wait_fd(x->out, POLLOUT) < 0)
				return xfer_fail(x, SIDE_NONE, "poll", errno);
			continue;
		}
		if (direct_dropped(x, errno))
			continue;
		if (x->moved == 0 && err_is_refusal(errno))
			return xfer_fail(x, SIDE_NONE, "splice", errno), REFUSED;
		/*
		 * splice(2) does not say which side failed.  A pipe fails
		 * only by losing its reader; otherwise blame the other side,
		 * and name both when both are pipes.
		 */
		if (err_is_output(errno) || (in_pipe && !out_pipe))
			return xfer_fail(x, SIDE_OUTPUT, "splice", errno);
		if (in_pipe && out_pipe)
			return xfer_fail(x, SIDE_NONE, "splice", errno);
		return xfer_fail(x, SIDE_INPUT, "splice", errno);
	}
	return DONE;
}

/*
 * What is left of regular file fd from its offset: one copy_file_range(2)
 * asks for all of it, as cp(1) does (the kernel loops inside and may stop
 * short, at 2 GiB or a signal).  Asking for more could wrap the offset,
 * which is EOVERFLOW; a file that claims no size (procfs, sysfs) gets 64 MiB
 * calls.
 */
static size_t
copy_range_bytes(int fd)
{
	struct stat st;
	off_t pos = lseek(fd, 0, SEEK_CUR);

	if (pos >= 0 && fstat(fd, &st) == 0 && st.st_size > pos)
		return (size_t)(st.st_size - pos);
	return 64 << 20;
}

static int
by_copy_range(struct xfer *x)
{
	while (xfer_left(x) > 0) {
		ssize_t n = copy_file_range(x->in, NULL, x->out, NULL,
		    xfer_call_bytes(x, copy_range_bytes(x->in)), 0);
		enum xfer_step step = xfer_step(x, n, M_COPY_RANGE);

		/*
		 * procfs and sysfs files claim size 0 and may report EOF
		 * here that read(2) would not.
		 */
		if (step == STEP_END)
			return x->moved == 0 ? REFUSED : DONE;
		if (step != STEP_ERROR || direct_dropped(x, errno))
			continue;
		/* EBADF: an O_APPEND output, which splice refuses too. */
		if (x->moved == 0 && (err_is_refusal(errno) || errno == EBADF))
			return xfer_fail(x, SIDE_NONE, "copy_file_range", errno), REFUSED;
		/* Two files: only a full or closed output says which side it was. */
		return xfer_fail(x, err_is_output(errno) ? SIDE_OUTPUT : SIDE_NONE,
		    "copy_file_range", errno);
	}
	return DONE;
}

/*
 * Splices exactly n bytes, which pipe `from` holds, into `to`: EINTR
 * retried, an inherited O_NONBLOCK waited out with poll(2), every byte
 * added to *moved and counted under m.  Returns 0, or -1 with errno (EIO
 * if the pipe came up short) after *moved says how far it got.
 */
int
splice_held(int from, int to, size_t n, unsigned int flags, enum xfer_method m,
    uint64_t *moved)
{
	while (n > 0) {
		ssize_t r = splice(from, NULL, to, NULL, n, flags);

		if (r > 0) {
			n -= (size_t)r;
			*moved += (uint64_t)r;
			account(m, (uint64_t)r);
			continue;
		}
		if (r == 0)
			errno = EIO;
		else if (errno == EINTR || direct_io_dropped(to, errno))
			continue;
		else if (errno == EAGAIN) {
			if (wait_fd(to, POLLOUT) < 0)
				return -1;
			continue;
		}
		return -1;
	}
	return 0;
}

/* Neither side is a pipe: splice in, splice out, through a pipe of ours. */
static int internal_pipe[2] = { -1, -1 };
static size_t internal_cap;

static void
internal_pipe_drop(void)
{
	close(internal_pipe[0]);
	close(internal_pipe[1]);
	internal_pipe[0] = internal_pipe[1] = -1;
}

/* Moves what the internal pipe holds to out with read/write. */
static int
internal_pipe_drain(struct xfer *x, size_t queued)
{
	while (queued > 0) {
		enum xfer_side side;
		ssize_t n = copy_once(internal_pipe[0], x->out, queued, &side);

		if (n <= 0)
			return xfer_fail(x, n < 0 ? side : SIDE_INPUT,
			    n < 0 && side == SIDE_OUTPUT ? "write" : "read", n < 0 ? errno : EIO);
		queued -= (size_t)n;
		x->moved += (uint64_t)n;
		account(M_READ_WRITE, (uint64_t)n);
	}
	return DONE;
}

static int
by_internal_pipe(struct xfer *x)
{
	if (internal_pipe[0] < 0) {
		long cap;

		if (pipe_open(internal_pipe, &x->opts) < 0)
			return xfer_fail(x, SIDE_NONE, "pipe2", errno), REFUSED;
		cap = pipe_capacity(internal_pipe[0]);
		internal_cap = cap > 0 ? (size_t)cap : 65536;
	}
	while (xfer_left(x) > 0) {
		ssize_t n = splice(x->in, NULL, internal_pipe[1], NULL,
		    xfer_call_bytes(x, internal_cap), x->flags);

		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EINTR || direct_io_dropped(x->in, errno))
				continue;
			if (errno == EAGAIN) {
				if (wait_input(x) < 0)
					return xfer_fail(x, SIDE_INPUT, "poll", errno);
				continue;
			}
			if (x->moved == 0 && err_is_refusal(errno))
				return xfer_fail(x, SIDE_INPUT, "splice", errno), REFUSED;
			return xfer_fail(x, SIDE_INPUT, "splice", errno);
		}
		if (splice_held(internal_pipe[0], x->out, (size_t)n, x->flags, M_SPLICE_PIPE,
		    &x->moved) < 0) {
			int err = errno;

			xfer_fail(x, SIDE_OUTPUT, "splice", err);
			if (!fallback_allowed(&x->opts, x->moved, &x->error)) {
				/* Not one byte by read/write: what the pipe holds is dropped. */
				internal_pipe_drop();
				return FAILED;
			}
			/* Input already gave these bytes: deliver them. */
			if (internal_pipe_drain(x, (size_t)n) != DONE) {
				internal_pipe_drop();
				return FAILED;
			}
			return xfer_fail(x, SIDE_OUTPUT, "splice", err), REFUSED;
		}
	}
	return DONE;
}

void
xfer_begin(struct xfer *x)
{
	x->moved = 0;
	x->error = (struct xfer_error){ .side = SIDE_NONE };
}

int
xfer_stream(struct xfer *x)
{
	bool in_pipe = fd_is_pipe(x->in), out_pipe = fd_is_pipe(x->out);
	const char *call;
	int r, err;

	if (in_pipe || out_pipe)
		r = splice_across(x, in_pipe, out_pipe);
	else {
		r = REFUSED;
		if (fd_is_regular(x->in) && fd_is_regular(x->out))
			r = by_copy_range(x);
		if (r == REFUSED)
			r = by_internal_pipe(x);
	}
	if (r != REFUSED)
		return r;
	/*
	 * REFUSED: the kernel refused before the first byte (by_internal_pipe()
	 * has delivered what its pipe held since), or no pipe to be had.
	 */
	call = x->error.call;
	err = x->error.err;
	x->error.refused = true;
	if (!fallback_allowed(&x->opts, 0, &x->error)) {
		if (x->error.call == NULL)
			x->error.call = "copy_file_range";
		return FAILED;
	}
	if (x->opts.verbose > 1)
		note("%s refused (%s), using read/write", call, strerror(err));
	return by_read_write(x);
}
