/*
 * move.c: the transfer engine: move_fd().  See splice.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "splice.h"

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

int
xfer_fail(struct xfer *x, enum xfer_side side, const char *call, int err)
{
	x->err = err;
	x->side = side;
	x->call = call;
	return FAILED;
}

/* The kernel's "this pair can't do that", as opposed to an I/O error. */
bool
err_is_refusal(int err)
{
	return err == EINVAL || err == ENOSYS || err == EOPNOTSUPP ||
	    err == EXDEV;
}

/* Errors that only writing produces. */
bool
err_is_output(int err)
{
	return err == EPIPE || err == ENOSPC || err == EDQUOT || err == EFBIG;
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

/*
 * One side is a pipe: splice(2) straight across.  With more_when_full (pipe
 * to socket): within one call the kernel already sends every buffer but the
 * last with MSG_MORE; SPLICE_F_MORE covers the last one too, but only when
 * the pipe is full: a writer that pauses must not leave its last bytes
 * corked in the socket.
 */
int
splice_across(struct xfer *x, bool in_pipe, bool out_pipe, bool more_when_full)
{
	/*
	 * A call moves at most what the pipe holds or has room for, so ask
	 * for plenty: the capacity seen now may grow (a writer that starts
	 * after us, a reader with --pipe-size).
	 */
	const size_t chunk = 1 << 30;
	long cap = more_when_full ? pipe_capacity(x->in) : 0;

	while (xfer_left(x) > 0) {
		unsigned int flags = x->flags;
		int queued = 0;
		ssize_t n;

		if (more_when_full && ioctl(x->in, FIONREAD, &queued) == 0 && cap > 0 &&
		    queued >= cap && xfer_left(x) > (uint64_t)queued)
			flags |= SPLICE_F_MORE;
		n = splice(x->in, NULL, x->out, NULL, xfer_call_bytes(x, chunk), flags);

		if (n > 0) {
			x->moved += (uint64_t)n;
			account(M_SPLICE, (uint64_t)n);
			continue;
		}
		if (n == 0)
			break;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN) {
			/* An inherited O_NONBLOCK on either side. */
			if (wait_fd(x->in, POLLIN) < 0 || wait_fd(x->out, POLLOUT) < 0)
				return xfer_fail(x, SIDE_NONE, "poll", errno);
			continue;
		}
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

static int
by_copy_range(struct xfer *x)
{
	/* Big calls: the kernel loops inside; 64 MiB keeps --progress alive. */
	const size_t chunk = 64 << 20;

	while (xfer_left(x) > 0) {
		ssize_t n = copy_file_range(x->in, NULL, x->out, NULL,
		    xfer_call_bytes(x, chunk), 0);

		if (n > 0) {
			x->moved += (uint64_t)n;
			account(M_COPY_RANGE, (uint64_t)n);
			continue;
		}
		if (n == 0) {
			/*
			 * procfs and sysfs files claim size 0 and may
			 * report EOF here that read(2) would not.
			 */
			if (x->moved == 0)
				return REFUSED;
			break;
		}
		if (errno == EINTR)
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
		else if (errno == EINTR)
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
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				if (wait_fd(x->in, POLLIN) < 0)
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

			if (x->moved == 0 && err_is_refusal(err) && x->opts.strict) {
				/* Not one byte by read/write: what the pipe holds is dropped. */
				internal_pipe_drop();
				return xfer_fail(x, SIDE_OUTPUT, "splice", err), REFUSED;
			}
			if (x->moved == 0 && err_is_refusal(err)) {
				/* Input already gave these bytes: deliver them. */
				if (internal_pipe_drain(x, (size_t)n) != DONE) {
					internal_pipe_drop();
					return FAILED;
				}
				return xfer_fail(x, SIDE_OUTPUT, "splice", err), REFUSED;
			}
			internal_pipe_drop();
			return xfer_fail(x, SIDE_OUTPUT, "splice", err);
		}
	}
	return DONE;
}

int
move_fd(struct xfer *x)
{
	bool in_pipe = fd_is_pipe(x->in), out_pipe = fd_is_pipe(x->out);
	int r;

	x->moved = 0;
	x->err = 0;
	x->side = SIDE_NONE;
	x->call = NULL;
	x->refused = false;
	if (in_pipe || out_pipe)
		r = splice_across(x, in_pipe, out_pipe, false);
	else {
		r = REFUSED;
		if (fd_is_regular(x->in) && fd_is_regular(x->out))
			r = by_copy_range(x);
		if (r == REFUSED)
			r = by_internal_pipe(x);
	}
	if (r != REFUSED)
		return r;
	if (x->opts.strict) {
		if (x->call == NULL)
			x->call = "copy_file_range";
		x->refused = true;
		return FAILED;
	}
	if (x->opts.verbose > 1)
		note("%s refused (%s), using read/write", x->call,
		    strerror(x->err));
	x->err = 0;
	x->call = NULL;
	x->side = SIDE_NONE;
	return by_read_write(x);
}

void
xfer_warn(const struct xfer *x, const char *in_name, const char *out_name)
{
	const char *name = x->side == SIDE_OUTPUT ? out_name : in_name;

	if (x->refused)
		warn_msg("%s -> %s: %s: %s (--strict: no fallback to read/write)",
		    in_name, out_name, x->call, strerror(x->err));
	else if (x->side == SIDE_NONE)
		warn_msg("%s -> %s: %s: %s", in_name, out_name, x->call,
		    strerror(x->err));
	else
		warn_msg("%s: %s", name, strerror(x->err));
}
