/*
 * move_socket.c: into a socket: sendfile(2), or splice(2) with SPLICE_F_MORE.  See splice.h.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/sendfile.h>

#include "splice.h"

bool
err_is_socket(int err)
{
	return err == EPIPE || err == ECONNRESET || err == ENOTCONN || err == ETIMEDOUT ||
	    err == ECONNABORTED || err == EHOSTUNREACH || err == ENETUNREACH ||
	    err == ENETDOWN || err == ENOBUFS;
}

static int
by_sendfile(struct xfer *x)
{
	/* The kernel loops inside; 16 MiB keeps --progress alive. */
	const size_t chunk = 16 << 20;

	while (xfer_left(x) > 0) {
		ssize_t n = sendfile(x->out, x->in, NULL, xfer_call_bytes(x, chunk));
		enum xfer_step step = xfer_step(x, n, M_SENDFILE);

		if (step == STEP_END)
			break;
		if (step != STEP_ERROR)
			continue;
		if (errno == EAGAIN) {
			if (wait_fd(x->out, POLLOUT) < 0)
				return xfer_fail(x, SIDE_OUTPUT, "poll", errno);
			continue;
		}
		if (x->moved == 0 && err_is_refusal(errno))
			return xfer_fail(x, SIDE_NONE, "sendfile", errno), REFUSED;
		return xfer_fail(x, err_is_socket(errno) ? SIDE_OUTPUT : SIDE_INPUT, "sendfile",
		    errno);
	}
	return DONE;
}

int
move_to_socket(struct xfer *x)
{
	int r;

	x->moved = 0;
	x->err = 0;
	x->side = SIDE_NONE;
	x->call = NULL;
	x->refused = false;
	if (fd_is_regular(x->in))
		r = by_sendfile(x);
	else if (fd_is_pipe(x->in))
		r = splice_across(x, true, false, true);
	else
		return move_fd(x);
	if (r != REFUSED)
		return r;
	if (x->opts.verbose > 1)
		note("%s refused (%s), trying splice", x->call, strerror(x->err));
	/* Nothing moved yet: move_fd() starts over with the same offsets. */
	return move_fd(x);
}
