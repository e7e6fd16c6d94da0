/*
 * duplex.c: both directions of a socket at once, as nc does: standard
 * input to the peer while the peer's replies go to standard output.  See
 * splice.h.
 *
 * One poll(2) loop, and no call that can wait: a peer that echoes what it
 * gets stops reading once nobody reads its replies, so a sender that only
 * sends (or only waits for its input) deadlocks against it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#include "internal.h"

/* One direction: from -> to, straight, or through a pipe of its own. */
struct way {
	int from, to;
	enum xfer_side from_side, to_side;
	enum xfer_method how;	/* M_SPLICE, M_SENDFILE, M_SPLICE_PIPE or M_READ_WRITE (drop) */
	bool to_is_socket;
	long cap;		/* capacity of the pipe from: requests, SPLICE_F_MORE */
	unsigned int calls;	/* splices out of from, to read cap again now and then */
	int stage[2];		/* M_SPLICE_PIPE: from -> stage -> to */
	size_t stage_cap, staged;
	bool copy_in, copy_out;	/* splice(2) refused on that side: read/write */
	bool done;
	uint64_t moved;
	int wait_fd;		/* what the way waits for */
	short wait_events;
};

/* Errors of a connection: the peer's, not the other side's. */
static bool
err_is_socket(int err)
{
	return err == EPIPE || err == ECONNRESET || err == ENOTCONN || err == ETIMEDOUT ||
	    err == ECONNABORTED || err == EHOSTUNREACH || err == ENETUNREACH ||
	    err == ENETDOWN || err == ENOBUFS;
}

/*
 * The kernel refused splice(2) or sendfile(2) before the first byte, on
 * side: through a pipe of ours, or by read/write.
 */
static int
way_refused(struct duplex *d, struct way *w, const char *call, int err, enum xfer_side side)
{
	if (w->how == M_SPLICE || w->how == M_SENDFILE) {
		/* Through a pipe of ours, which both ends can splice with. */
		if (d->opts.verbose > 1)
			note("%s refused, trying splice via pipe", call);
		w->how = M_SPLICE_PIPE;
		w->wait_fd = w->from;
		w->wait_events = POLLIN;
		return 0;
	}
	xfer_error_set(&d->error, side, call, err);
	if (!fallback_allowed(&d->opts, w->moved, &d->error))
		return -1;
	if (d->opts.verbose > 1)
		note("%s refused, using read/write", call);
	return 0;
}

/* At most want bytes per call, and at most what -L allows at once. */
static size_t
way_request(const struct duplex *d, size_t want)
{
	return d->opts.call_bytes_max && d->opts.call_bytes_max < want ?
	    d->opts.call_bytes_max : want;
}

static void
way_account(struct duplex *d, struct way *w, enum xfer_method m, size_t n)
{
	w->moved += n;
	account(m, n);
	if (w->to_is_socket)
		d->sent += n;
	else
		d->received += n;
	/* The one way --progress and -L are about. */
	if (w->to_is_socket != d->count_received)
		account_input(n);
}

static void
way_wait(struct way *w, int fd, short events)
{
	w->wait_fd = fd;
	w->wait_events = events;
}

/* The end of from: the peer hears of it, or the replies are all out. */
static int
way_end(struct duplex *d, struct way *w)
{
	int null;

	w->done = true;
	if (w->to_is_socket && shutdown(w->to, SHUT_WR) < 0)
		return xfer_error_set(&d->error, w->to_side, "shutdown", errno);
	if (w->to_is_socket)
		return 0;
	/*
	 * The replies are all out: their reader hears of the end now, as nc's
	 * does, not when the other way ends too.  A relay or an echo loop
	 * through a FIFO waits for it: the other way ends only after.  The
	 * descriptor stays taken, by /dev/null.
	 */
	if ((null = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		return 0;
	if (dup2(null, w->to) < 0) {
		close(null);
		return xfer_error_set(&d->error, w->to_side, "dup2", errno);
	}
	close(null);
	return 0;
}

/* M_SPLICE_PIPE: what the stage holds, to w->to. */
static int
way_drain(struct duplex *d, struct way *w)
{
	enum xfer_side side = SIDE_OUTPUT;
	ssize_t n;

	if (w->copy_out)
		n = copy_once(w->stage[0], w->to, w->staged, &side);
	else
		n = splice(w->stage[0], NULL, w->to, NULL, w->staged, SPLICE_F_NONBLOCK);
	if (n > 0) {
		w->staged -= (size_t)n;
		way_account(d, w, w->copy_out ? M_READ_WRITE : M_SPLICE_PIPE, (size_t)n);
		if (w->staged == 0)
			way_wait(w, w->from, POLLIN);
		return 0;
	}
	if (n == 0)
		return xfer_error_set(&d->error, SIDE_NONE, "read", EIO);
	if (errno == EINTR)
		return 0;
	if (errno == EAGAIN) {
		way_wait(w, w->to, POLLOUT);
		return 0;
	}
	if (!w->copy_out && w->moved == 0 && err_is_refusal(errno)) {
		/* The stage still holds the bytes: try again at once. */
		w->copy_out = true;
		way_wait(w, w->to, POLLOUT);
		return way_refused(d, w, "splice", errno, w->to_side);
	}
	return xfer_error_set(&d->error, side == SIDE_INPUT ? SIDE_NONE : w->to_side,
	    w->copy_out ? "write" : "splice", errno);
}

/* One call that moves what is there now; 0, or -1 with d's error set. */
static int
way_step(struct duplex *d, struct way *w)
{
	size_t drop_bytes;
	char *buf = copy_buffer(&drop_bytes);
	unsigned int flags = SPLICE_F_NONBLOCK;
	const char *call = "splice";
	int queued = 0;
	ssize_t n;

	if (w->staged > 0)
		return way_drain(d, w);
	switch (w->how) {
	case M_SENDFILE:
		call = "sendfile";
		n = sendfile(w->to, w->from, NULL, way_request(d, 16 << 20));
		break;
	case M_SPLICE_PIPE:
		if (w->stage[0] < 0) {
			long cap;

			if (pipe_open(w->stage, &d->opts) < 0)
				return xfer_error_set(&d->error, SIDE_NONE, "pipe2", errno);
			cap = pipe_capacity(w->stage[0]);
			w->stage_cap = cap > 0 ? (size_t)cap : 65536;
		}
		if (w->copy_in) {
			call = "read";
			n = read(w->from, buf, way_request(d, w->stage_cap < drop_bytes ?
			    w->stage_cap : drop_bytes));
			/* The stage is empty: this fits without waiting. */
			if (n > 0 && write_all(w->stage[1], buf, (size_t)n) < 0)
				return xfer_error_set(&d->error, SIDE_NONE, "write", errno);
		} else
			n = splice(w->from, NULL, w->stage[1], NULL, way_request(d, w->stage_cap),
			    flags);
		if (n > 0) {
			w->staged = (size_t)n;
			return way_drain(d, w);
		}
		break;
	case M_READ_WRITE:
		/* The replies nobody wants (--no-reply): dropped. */
		call = "read";
		n = read(w->from, buf, drop_bytes);
		if (n > 0) {
			d->received += (uint64_t)n;
			return 0;
		}
		break;
	default:
		if (w->cap <= 0) {
			/* Into a pipe: plenty, as a call stops at the room there is. */
			n = splice(w->from, NULL, w->to, NULL, way_request(d, 1 << 30), flags);
			break;
		}
		/*
		 * Out of a pipe into the socket: half the pipe per call, the
		 * rule of every engine (pipe_request_bytes()), so that the
		 * writer refills one half while the other goes out: 1.7-1.8 x
		 * the whole pipe per call in splice-bench's tcp-vmsplice-pipe,
		 * and no slower in the tool (bench/README.md, TCP).  The
		 * socket buffers stay autotuned: fixed ones were a little
		 * faster on loopback only, and would cap the window of a long
		 * link.  The capacity is read again now and then: a writer
		 * that starts after us may grow the pipe.
		 */
		if (w->calls++ % 16 == 0) {
			long cap = pipe_capacity(w->from);

			if (cap > 0)
				w->cap = cap;
		}
		/* Full pipe, more to come: let TCP fill its segments. */
		if (ioctl(w->from, FIONREAD, &queued) == 0 && queued >= w->cap)
			flags |= SPLICE_F_MORE;
		n = splice(w->from, NULL, w->to, NULL,
		    way_request(d, pipe_request_bytes(w->cap)), flags);
		break;
	}
	if (n > 0) {
		way_account(d, w, w->how, (size_t)n);
		return 0;
	}
	if (n == 0)
		return way_end(d, w);
	if (errno == EINTR)
		return 0;
	if (errno == EAGAIN) {
		/* Nothing to read, or no room on the other side? */
		if (w->how == M_SENDFILE ||
		    (w->how == M_SPLICE && ioctl(w->from, FIONREAD, &queued) == 0 && queued > 0))
			way_wait(w, w->to, POLLOUT);
		else
			way_wait(w, w->from, POLLIN);
		return 0;
	}
	if (w->moved == 0 && w->how != M_READ_WRITE && !w->copy_in && err_is_refusal(errno)) {
		if (w->how == M_SPLICE_PIPE)
			w->copy_in = true;
		return way_refused(d, w, call, errno, w->from_side);
	}
	/* splice(2) does not say which side failed: a socket's errors are the peer's. */
	if (err_is_output(errno) || (w->to_is_socket && err_is_socket(errno)))
		return xfer_error_set(&d->error, w->to_side, call, errno);
	return xfer_error_set(&d->error, w->from_side, call, errno);
}

static void
way_init(struct way *w, int from, int to, bool to_is_socket)
{
	*w = (struct way){
		.from = from, .to = to, .to_is_socket = to_is_socket,
		.from_side = to_is_socket ? SIDE_INPUT : SIDE_PEER,
		.to_side = to_is_socket ? SIDE_PEER : SIDE_OUTPUT,
		.stage = { -1, -1 }, .wait_fd = from, .wait_events = POLLIN,
	};
	if (fd_is_pipe(from) || fd_is_pipe(to)) {
		w->how = M_SPLICE;
		w->cap = to_is_socket ? pipe_capacity(from) : 0;
	} else if (to_is_socket && fd_is_regular(from))
		w->how = M_SENDFILE;
	else
		w->how = M_SPLICE_PIPE;
	/* A regular file is always readable: wait for room in the socket. */
	if (w->how == M_SENDFILE)
		way_wait(w, to, POLLOUT);
}

static void
way_close(struct way *w)
{
	if (w->stage[0] >= 0) {
		close(w->stage[0]);
		close(w->stage[1]);
	}
}

/*
 * nc -q's end: what the peer's way can move without waiting (bytes the
 * socket holds, or that its stage pipe holds for the output) still moves;
 * then the run ends.  0, or -1 with d->error set.
 */
static int
way_drain_now(struct duplex *d, struct way *w)
{
	struct pollfd p;

	for (int rounds = 0; !w->done && rounds < 1024; rounds++) {
		p = (struct pollfd){ .fd = w->wait_fd, .events = w->wait_events };
		if (poll(&p, 1, 0) <= 0)
			break;
		if (way_step(d, w) < 0)
			return -1;
	}
	return 0;
}

static int
duplex_loop(struct duplex *d, struct way *ways)
{
	double deadline = d->idle_secs > 0 ? now_seconds() + d->idle_secs : -1, quit_at = -1;

	while (!ways[0].done || !ways[1].done) {
		struct pollfd pfds[2];
		double until;
		nfds_t n = 0;
		int r;

		/* nc -q: the input ended; the peer gets quit_secs more, then no more. */
		if (d->quit_secs >= 0 && ways[0].done && !d->no_send && quit_at < 0)
			quit_at = now_seconds() + d->quit_secs;
		if (quit_at >= 0 && now_seconds() >= quit_at)
			return way_drain_now(d, &ways[1]);

		for (int i = 0; i < 2; i++)
			if (!ways[i].done)
				pfds[n++] = (struct pollfd){
					.fd = ways[i].wait_fd, .events = ways[i].wait_events,
				};
		until = quit_at >= 0 && (deadline < 0 || quit_at < deadline) ? quit_at : deadline;
		r = poll(pfds, n, poll_timeout_ms(until));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return xfer_error_set(&d->error, SIDE_NONE, "poll", errno);
		if (r == 0) {
			if (deadline >= 0 && now_seconds() >= deadline)
				return xfer_error_set(&d->error, SIDE_PEER, "poll", ETIMEDOUT);
			continue;
		}
		if (d->idle_secs > 0)
			deadline = now_seconds() + d->idle_secs;
		n = 0;
		for (int i = 0; i < 2; i++) {
			if (ways[i].done)
				continue;
			if (pfds[n++].revents != 0 && way_step(d, &ways[i]) < 0)
				return -1;
		}
	}
	return 0;
}

int
duplex_run(struct duplex *d)
{
	struct way ways[2];
	int flags = fcntl(d->sock, F_GETFL), r;

	d->sent = d->received = 0;
	d->error = (struct xfer_error){ .side = SIDE_NONE };
	if (flags < 0 || fcntl(d->sock, F_SETFL, flags | O_NONBLOCK) < 0)
		return xfer_error_set(&d->error, SIDE_PEER, "fcntl", errno);
	way_init(&ways[0], d->in, d->sock, true);
	way_init(&ways[1], d->sock, d->out, false);
	ways[0].done = d->no_send;
	if (d->no_reply)
		ways[1].how = M_READ_WRITE;
	r = duplex_loop(d, ways);
	way_close(&ways[0]);
	way_close(&ways[1]);
	return r;
}

void
duplex_warn(const struct duplex *d, const char *peer)
{
	const char *const names[SIDE_COUNT] = {
		[SIDE_INPUT] = "standard input", [SIDE_OUTPUT] = "standard output",
		[SIDE_PEER] = peer,
	};

	xfer_error_warn(&d->error, names, false);
}
