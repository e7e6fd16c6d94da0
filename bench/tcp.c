/*
 * bench/tcp.c: the TCP methods, the 2006 splice-test4c question: a cached
 * file (or a pipe that a producer fills) into loopback TCP by read/write,
 * sendfile(2), splice(2) or mmap(2); the receiver reads and checks, or
 * splices into a pipe of its own and on to /dev/null as splice-fromnet does.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#include "splice.h"
#include "bench.h"

#define ACCEPT_TIMEOUT_MS 10000

/* SO_SNDBUF or SO_RCVBUF; setting either turns the kernel's autotuning off. */
int
set_sock_bytes(int fd, int opt, size_t bytes)
{
	int val = bytes > INT_MAX ? INT_MAX : (int)bytes;

	return bytes ? setsockopt(fd, SOL_SOCKET, opt, &val, sizeof(val)) : 0;
}

static int
tcp_dial(const struct stage *s)
{
	const struct sockaddr_in addr = {
		.sin_family = AF_INET, .sin_port = s->port,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || set_sock_bytes(fd, SO_SNDBUF, s->sock_bytes) < 0 ||
	    connect(fd, (const struct sockaddr *)&addr, sizeof(addr)) < 0)
		return fail_call(s, "connect");
	return fd;
}

/*
 * SPLICE_F_MORE for a splice of n bytes out of a pipe holding queued, with
 * left still to send: the kernel corks the socket until the next call.
 */
static unsigned int
more_flag(const struct stage *s, size_t n, size_t queued, uint64_t left)
{
	switch (s->more) {
	case MORE_OFF:
		return 0;
	case MORE_ALWAYS:
		return left > n ? SPLICE_F_MORE : 0;
	case MORE_WHEN_FULL:
	default:
		return queued >= s->cap && left > queued ? SPLICE_F_MORE : 0;
	}
}

int
put_tcp_rw(struct stage *s)
{
	if ((s->out = tcp_dial(s)) < 0)
		return -1;
	return put_file_rw(s);
}

static ssize_t
sendfile_piece(struct stage *s, int fd, loff_t *off, size_t len, void *unused)
{
	(void)unused;
	return sendfile(s->out, fd, off, len);
}

int
put_tcp_sendfile(struct stage *s)
{
	if ((s->out = tcp_dial(s)) < 0)
		return -1;
	return file_pieces(s, s->d->file_fd, s->req ? s->req : SENDFILE_CALL_BYTES,
	    sendfile_piece, NULL, "sendfile");
}

/* Splices n bytes, which pipe `from` holds, into sock, request_bytes() a call. */
static int
splice_to_socket(struct stage *s, int from, int sock, size_t n, uint64_t *sent)
{
	while (n > 0) {
		size_t want = min_size(n, request_bytes(s));
		ssize_t m = splice(from, NULL, sock, NULL, want,
		    more_flag(s, want, n, s->bytes - *sent));

		if (m < 0 && errno == EINTR)
			continue;
		if (m <= 0)
			return fail_call(s, "splice to the socket");
		n -= (size_t)m;
		*sent += (uint64_t)m;
	}
	return 0;
}

int
put_tcp_splice(struct stage *s)
{
	int p[2], sock = tcp_dial(s);
	uint64_t sent = 0;
	loff_t off = 0;

	if (sock < 0)
		return -1;
	if (stage_pipe(s, p) < 0)
		return -1;
	while (sent < s->bytes) {
		size_t len = file_piece(s, sent, &off, s->cap);
		ssize_t n = splice(s->d->file_fd, &off, p[1], NULL, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail_call(s, "splice from the file");
		if (splice_to_socket(s, p[0], sock, (size_t)n, &sent) < 0)
			return -1;
	}
	return 0;
}

/* The middle of vmsplice -> pipe -> TCP: what splice-tonet does with a pipe. */
int
mid_tcp_splice(struct stage *s)
{
	int sock = tcp_dial(s);
	uint64_t sent = 0;

	if (sock < 0)
		return -1;
	for (;;) {
		int queued = 0;
		size_t want = request_bytes(s);
		ssize_t n;

		if (ioctl(s->in, FIONREAD, &queued) < 0)
			queued = 0;
		n = splice(s->in, NULL, sock, NULL, want,
		    more_flag(s, want, (size_t)queued, s->bytes - sent));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail_call(s, "splice to the socket");
		if (n == 0)
			return 0;
		sent += (uint64_t)n;
	}
}

/* write(2) from the file's mapping, map. */
static ssize_t
write_piece(struct stage *s, int fd, loff_t *off, size_t len, void *map)
{
	ssize_t n = write(s->out, (unsigned char *)map + *off, len);

	(void)fd;
	if (n > 0)
		*off += n;
	return n;
}

int
put_tcp_mmap(struct stage *s)
{
	void *map;

	if ((s->out = tcp_dial(s)) < 0)
		return -1;
	map = mmap(NULL, (size_t)s->d->file_bytes, PROT_READ, MAP_SHARED, s->d->file_fd, 0);
	if (map == MAP_FAILED)
		return fail_call(s, "mmap");
	return file_pieces(s, s->d->file_fd, 1 << 20, write_piece, map, "write");
}

/* The sender's connection, accepted on s->in; the listener is closed. */
static int
tcp_take(struct stage *s)
{
	struct pollfd pfd = { .fd = s->in, .events = POLLIN };
	int sock, ready;

	/* A sender that died before it connected must not leave us waiting. */
	while ((ready = poll(&pfd, 1, ACCEPT_TIMEOUT_MS)) < 0 && errno == EINTR)
		;
	if (ready == 0) {
		warn_msg("%s: no connection within %d s", s->bc->name, ACCEPT_TIMEOUT_MS / 1000);
		return -1;
	}
	while ((sock = accept(s->in, NULL, NULL)) < 0)
		if (errno != EINTR)
			return fail_call(s, "accept");
	close(s->in);
	s->in = sock;
	return 0;
}

int
get_tcp(struct stage *s)
{
	if (tcp_take(s) < 0)
		return -1;
	s->cap = RW_BUFFER_BYTES;
	return get_read_check(s);
}

/*
 * What splice-fromnet does with an output that is not a pipe: socket ->
 * pipe of its own -> output, each splice(2) asking for the whole pipe.
 * The checked run reads the pipe and compares instead of splicing it on.
 */
int
get_tcp_pipe(struct stage *s)
{
	unsigned char *buf = s->check ? malloc(s->cap) : NULL;
	uint64_t got = 0;
	int p[2];

	if (tcp_take(s) < 0)
		return -1;
	if (s->check && buf == NULL)
		return fail_call(s, "pipe");
	if (stage_pipe(s, p) < 0)
		return -1;
	for (;;) {
		ssize_t n = splice(s->in, NULL, p[1], NULL, s->cap, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail_call(s, "splice from the socket");
		if (n == 0)
			break;
		if (!s->check) {
			if (pass_held(s, p[0], s->d->devnull, NULL, (size_t)n,
			    "splice to /dev/null", &got) < 0)
				return -1;
			continue;
		}
		while (n > 0) {
			ssize_t m = read_retry(p[0], buf, (size_t)n);

			if (m <= 0)
				return fail_call(s, "read");
			if (check_bytes(s, &got, buf, (size_t)m) < 0)
				return -1;
			n -= m;
		}
	}
	free(buf);
	return check_count(s, got);
}
