/*
 * bench/pipe.c: the pipe methods.  Producers send the data, s->bytes of it,
 * into s->out by write(2) or vmsplice(2); consumers read all of s->in, count
 * it and check it, or splice it to /dev/null; a middle passes its input on
 * to s->out and keeps a copy for /dev/null by tee(2) or read/write.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>

#include "splice.h"
#include "bench.h"

/*
 * A busy loop gives its CPU away when the pipe is not ready: alone on a CPU
 * that costs one system call, but where the peer waits for the same CPU a
 * pure spin would burn its whole time slice before the peer could move.
 */
static void
busy_wait(void)
{
	sched_yield();
}

/* After a call returned n: true when it is to be made again (EINTR, a busy loop's EAGAIN). */
static bool
call_again(ssize_t n, unsigned int flags)
{
	if (n < 0 && errno == EAGAIN && flags) {
		busy_wait();
		return true;
	}
	return n < 0 && errno == EINTR;
}

/*
 * The data into s->out, by vmsplice(2) of buf or by write(2) of the data,
 * a piece of at most s->cap a call, from where the stream is in the block.
 */
static int
put_pieces(struct stage *s, const unsigned char *buf, bool by_vmsplice)
{
	unsigned int flags = by_vmsplice && s->bc->flags & BUSY_LOOP ? SPLICE_F_NONBLOCK : 0;
	uint64_t sent = 0;

	while (sent < s->bytes) {
		size_t pos = (size_t)(sent % PATTERN_BYTES);
		struct iovec iov = {
			.iov_base = (void *)(buf + pos),
			.iov_len = min_size(s->bytes - sent, min_size(s->cap, PATTERN_BYTES - pos)),
		};
		ssize_t n = by_vmsplice ? vmsplice(s->out, &iov, 1, flags) :
		    write(s->out, iov.iov_base, iov.iov_len);

		if (call_again(n, flags))
			continue;
		if (n < 0)
			return fail_call(s, by_vmsplice ? "vmsplice" : "write");
		sent += (uint64_t)n;
	}
	return 0;
}

int
put_write(struct stage *s)
{
	return put_pieces(s, s->d->data, false);
}

/*
 * The 2006 double buffer: two halves of one pipe capacity each, spliced in
 * turn.  The bytes never change, so no half is ever rewritten.
 */
int
put_vmsplice(struct stage *s)
{
	return put_pieces(s, s->bc->flags & HUGE_PAGES ? s->d->huge_data : s->d->data, true);
}

/*
 * One call of a consumer: read(2) of s->in into buf, or with buf NULL
 * splice(2) of s->in to /dev/null.  The bytes, 0 at the end of the input,
 * or -1 said.
 */
static ssize_t
pull(struct stage *s, unsigned char *buf, size_t len, unsigned int flags)
{
	for (;;) {
		ssize_t n = buf ? read(s->in, buf, len) :
		    splice(s->in, NULL, s->d->devnull, NULL, len, flags);

		if (call_again(n, flags))
			continue;
		return n < 0 ? fail_call(s, buf ? "read" : "splice") : n;
	}
}

int
get_read_check(struct stage *s)
{
	size_t req = request_bytes(s);
	unsigned char *buf = malloc(req);
	uint64_t got = 0;
	ssize_t n;

	if (buf == NULL)
		return fail_call(s, "malloc");
	while ((n = pull(s, buf, req, 0)) > 0)
		if (check_bytes(s, &got, buf, (size_t)n) < 0)
			return -1;
	free(buf);
	return n < 0 ? -1 : check_count(s, got);
}

/* read(2) then write(2) to /dev/null, as `cat > /dev/null` does. */
int
get_read_null(struct stage *s)
{
	static unsigned char buf[RW_BUFFER_BYTES];
	uint64_t got = 0;
	ssize_t n;

	if (s->check)
		return get_read_check(s);
	while ((n = pull(s, buf, sizeof(buf), 0)) > 0) {
		if (write_all(s->d->devnull, buf, (size_t)n) < 0)
			return fail_call(s, "write");
		got += (uint64_t)n;
	}
	return n < 0 ? -1 : check_count(s, got);
}

int
get_splice_null(struct stage *s)
{
	unsigned int flags = s->bc->flags & BUSY_LOOP ? SPLICE_F_NONBLOCK : 0;
	uint64_t got = 0;
	ssize_t n;

	if (s->check)
		return get_read_check(s);
	while ((n = pull(s, NULL, request_bytes(s), flags)) > 0)
		got += (uint64_t)n;
	return n < 0 ? -1 : check_count(s, got);
}

int
stage_pipe(const struct stage *s, int p[2])
{
	if (pipe(p) < 0 || fcntl(p[1], F_SETPIPE_SZ, (int)s->cap) < 0)
		return fail_call(s, "pipe");
	return 0;
}

int
pass_held(const struct stage *s, int from, int to, loff_t *off, size_t n, const char *call,
    uint64_t *moved)
{
	while (n > 0) {
		ssize_t m = splice(from, NULL, to, off, n, 0);

		if (m < 0 && errno == EINTR)
			continue;
		if (m <= 0)
			return fail_call(s, call);
		n -= (size_t)m;
		if (moved)
			*moved += (uint64_t)m;
	}
	return 0;
}

int
mid_tee(struct stage *s)
{
	for (;;) {
		ssize_t n = tee(s->in, s->out, request_bytes(s), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail_call(s, "tee");
		if (n == 0)
			return 0;
		/* tee(2) left the bytes in the input pipe: consume what it copied. */
		if (pass_held(s, s->in, s->d->devnull, NULL, (size_t)n, "splice", NULL) < 0)
			return -1;
	}
}

int
mid_copy(struct stage *s)
{
	unsigned char *buf = malloc(s->cap);
	ssize_t n;

	if (buf == NULL)
		return fail_call(s, "malloc");
	while ((n = pull(s, buf, s->cap, 0)) > 0)
		if (write_all(s->out, buf, (size_t)n) < 0 ||
		    write_all(s->d->devnull, buf, (size_t)n) < 0)
			return fail_call(s, "write");
	free(buf);
	return n < 0 ? -1 : 0;
}
