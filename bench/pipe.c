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

int
put_write(struct stage *s)
{
	const unsigned char *data = s->d->data;
	uint64_t sent = 0;

	while (sent < s->bytes) {
		size_t pos = (size_t)(sent % PATTERN_BYTES);
		ssize_t n = write(s->out, data + pos,
		    min_size(s->bytes - sent, min_size(s->cap, PATTERN_BYTES - pos)));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail_call(s, "write");
		sent += (uint64_t)n;
	}
	return 0;
}

/*
 * The 2006 double buffer: two halves of one pipe capacity each, spliced in
 * turn.  The bytes never change, so no half is ever rewritten.
 */
int
put_vmsplice(struct stage *s)
{
	const unsigned char *buf = s->bc->flags & HUGE_PAGES ? s->d->huge_data : s->d->data;
	unsigned int flags = s->bc->flags & BUSY_LOOP ? SPLICE_F_NONBLOCK : 0;
	uint64_t sent = 0;

	while (sent < s->bytes) {
		size_t pos = (size_t)(sent % PATTERN_BYTES);
		struct iovec iov = {
			.iov_base = (void *)(buf + pos),
			.iov_len = min_size(s->bytes - sent, min_size(s->cap, PATTERN_BYTES - pos)),
		};
		ssize_t n = vmsplice(s->out, &iov, 1, flags);

		if (n < 0 && errno == EAGAIN && flags) {
			busy_wait();
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail_call(s, "vmsplice");
		sent += (uint64_t)n;
	}
	return 0;
}

int
get_read_check(struct stage *s)
{
	size_t req = request_bytes(s);
	unsigned char *buf = malloc(req);
	uint64_t got = 0;

	if (buf == NULL)
		return fail_call(s, "malloc");
	for (;;) {
		ssize_t n = read(s->in, buf, req);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail_call(s, "read");
		if (n == 0)
			break;
		if (check_bytes(s, &got, buf, (size_t)n) < 0)
			return -1;
	}
	free(buf);
	return check_count(s, got);
}

/* read(2) then write(2) to /dev/null, as `cat > /dev/null` does. */
int
get_read_null(struct stage *s)
{
	static unsigned char buf[RW_BUFFER_BYTES];
	int devnull = s->d->devnull;
	uint64_t got = 0;

	if (s->check)
		return get_read_check(s);
	for (;;) {
		ssize_t n = read(s->in, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail_call(s, "read");
		if (n == 0)
			break;
		if (write_all(devnull, buf, (size_t)n) < 0)
			return fail_call(s, "write");
		got += (uint64_t)n;
	}
	return check_count(s, got);
}

int
get_splice_null(struct stage *s)
{
	unsigned int flags = s->bc->flags & BUSY_LOOP ? SPLICE_F_NONBLOCK : 0;
	size_t req = request_bytes(s);
	int devnull = s->d->devnull;
	uint64_t got = 0;

	if (s->check)
		return get_read_check(s);
	for (;;) {
		ssize_t n = splice(s->in, NULL, devnull, NULL, req, flags);

		if (n < 0 && errno == EAGAIN && flags) {
			busy_wait();
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail_call(s, "splice");
		if (n == 0)
			break;
		got += (uint64_t)n;
	}
	return check_count(s, got);
}

int
mid_tee(struct stage *s)
{
	int devnull = s->d->devnull;

	for (;;) {
		ssize_t n = tee(s->in, s->out, request_bytes(s), 0), left;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail_call(s, "tee");
		if (n == 0)
			return 0;
		/* tee(2) left the bytes in the input pipe: consume what it copied. */
		for (left = n; left > 0; ) {
			ssize_t m = splice(s->in, NULL, devnull, NULL, (size_t)left, 0);

			if (m < 0 && errno == EINTR)
				continue;
			if (m <= 0)
				return fail_call(s, "splice");
			left -= m;
		}
	}
}

int
mid_copy(struct stage *s)
{
	unsigned char *buf = malloc(s->cap);
	int devnull = s->d->devnull;

	if (buf == NULL)
		return fail_call(s, "malloc");
	for (;;) {
		ssize_t n = read(s->in, buf, s->cap);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail_call(s, "read");
		if (n == 0)
			break;
		if (write_all(s->out, buf, (size_t)n) < 0 ||
		    write_all(devnull, buf, (size_t)n) < 0)
			return fail_call(s, "write");
	}
	free(buf);
	return 0;
}
