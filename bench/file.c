/*
 * bench/file.c: the file methods.  The cached input file into a pipe by
 * splice(2) or read/write; and file to file (s->in to s->out, one process),
 * by splice(2) through a pipe, copy_file_range(2) or read/write.  A run
 * longer than the file passes over it again (file_piece()), and a copy
 * rewrites its output from the start.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "splice.h"
#include "bench.h"

int
put_file_splice(struct stage *s)
{
	uint64_t sent = 0;
	loff_t off = 0;

	while (sent < s->bytes) {
		size_t len = file_piece(s, sent, &off, s->cap);
		ssize_t n = splice(s->d->file_fd, &off, s->out, NULL, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail_call(s, "splice");
		sent += (uint64_t)n;
	}
	return 0;
}

int
put_file_rw(struct stage *s)
{
	static unsigned char buf[RW_BUFFER_BYTES];
	uint64_t sent = 0;
	loff_t off = 0;

	while (sent < s->bytes) {
		size_t len = file_piece(s, sent, &off, sizeof(buf));
		ssize_t n = pread(s->d->file_fd, buf, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail_call(s, "read");
		if (write_all(s->out, buf, (size_t)n) < 0)
			return fail_call(s, "write");
		sent += (uint64_t)n;
		off += n;
	}
	return 0;
}

int
copy_splice(struct stage *s)
{
	int p[2];
	uint64_t done = 0;
	loff_t in_off = 0, out_off;

	if (pipe(p) < 0 || fcntl(p[1], F_SETPIPE_SZ, (int)s->cap) < 0)
		return fail_call(s, "pipe");
	while (done < s->bytes) {
		size_t len = file_piece(s, done, &in_off, s->cap);
		ssize_t n;

		out_off = in_off;	/* each pass over the input rewrites the copy */
		n = splice(s->in, &in_off, p[1], NULL, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail_call(s, "splice from the file");
		while (n > 0) {
			ssize_t m = splice(p[0], NULL, s->out, &out_off, (size_t)n, 0);

			if (m < 0 && errno == EINTR)
				continue;
			if (m <= 0)
				return fail_call(s, "splice to the file");
			n -= m;
			done += (uint64_t)m;
		}
	}
	return 0;
}

int
copy_range(struct stage *s)
{
	uint64_t done = 0;
	loff_t in_off = 0, out_off;

	while (done < s->bytes) {
		size_t len = file_piece(s, done, &in_off, SIZE_MAX);
		ssize_t n;

		out_off = in_off;	/* each pass over the input rewrites the copy */
		n = copy_file_range(s->in, &in_off, s->out, &out_off, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail_call(s, "copy_file_range");
		done += (uint64_t)n;
	}
	return 0;
}

int
copy_rw(struct stage *s)
{
	static unsigned char buf[RW_BUFFER_BYTES];
	uint64_t done = 0;
	loff_t off = 0;

	while (done < s->bytes) {
		size_t len = file_piece(s, done, &off, sizeof(buf));
		ssize_t n = pread(s->in, buf, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail_call(s, "read");
		for (ssize_t w = 0; w < n; ) {
			ssize_t m = pwrite(s->out, buf + w, (size_t)(n - w), off + w);

			if (m < 0 && errno == EINTR)
				continue;
			if (m <= 0)
				return fail_call(s, "write");
			w += m;
		}
		done += (uint64_t)n;
		off += n;
	}
	return 0;
}
