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
file_pieces(struct stage *s, int fd, size_t limit, piece_fn *fn, void *arg, const char *call)
{
	uint64_t done = 0;
	loff_t off = 0;

	while (done < s->bytes) {
		size_t len = file_piece(s, done, &off, limit);
		ssize_t n = fn(s, fd, &off, len, arg);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail_call(s, call);
		done += (uint64_t)n;
	}
	return 0;
}

static ssize_t
splice_piece(struct stage *s, int fd, loff_t *off, size_t len, void *unused)
{
	(void)unused;
	return splice(fd, off, s->out, NULL, len, 0);
}

int
put_file_splice(struct stage *s)
{
	return file_pieces(s, s->d->file_fd, s->cap, splice_piece, NULL, "splice");
}

/* pwrite(2) of all n bytes at off; 0, or -1 with errno. */
static int
pwrite_all(int fd, const unsigned char *buf, size_t n, loff_t off)
{
	while (n > 0) {
		ssize_t m = pwrite(fd, buf, n, off);

		if (m < 0 && errno == EINTR)
			continue;
		if (m <= 0)
			return -1;
		buf += m;
		n -= (size_t)m;
		off += m;
	}
	return 0;
}

/*
 * The file in, a piece a call, into s->out by read(2) and write(2): at the
 * same offset with in_place (a copy rewrites its output each pass), else
 * where s->out is (a pipe, a socket).
 */
static int
rw_pieces(struct stage *s, int in, bool in_place)
{
	static unsigned char buf[RW_BUFFER_BYTES];
	uint64_t done = 0;
	loff_t off = 0;

	while (done < s->bytes) {
		size_t len = file_piece(s, done, &off, sizeof(buf));
		ssize_t n = pread(in, buf, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail_call(s, "read");
		if ((in_place ? pwrite_all(s->out, buf, (size_t)n, off) :
		    write_all(s->out, buf, (size_t)n)) < 0)
			return fail_call(s, "write");
		done += (uint64_t)n;
		off += n;
	}
	return 0;
}

int
put_file_rw(struct stage *s)
{
	return rw_pieces(s, s->d->file_fd, false);
}

int
copy_splice(struct stage *s)
{
	int p[2];
	uint64_t done = 0;
	loff_t in_off = 0, out_off;

	if (stage_pipe(s, p) < 0)
		return -1;
	while (done < s->bytes) {
		size_t len = file_piece(s, done, &in_off, s->cap);
		ssize_t n;

		out_off = in_off;	/* each pass over the input rewrites the copy */
		n = splice(s->in, &in_off, p[1], NULL, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail_call(s, "splice from the file");
		if (pass_held(s, p[0], s->out, &out_off, (size_t)n, "splice to the file",
		    &done) < 0)
			return -1;
	}
	return 0;
}

static ssize_t
copy_range_piece(struct stage *s, int fd, loff_t *off, size_t len, void *unused)
{
	loff_t out_off = *off;	/* each pass over the input rewrites the copy */

	(void)unused;
	return copy_file_range(fd, off, s->out, &out_off, len, 0);
}

int
copy_range(struct stage *s)
{
	return file_pieces(s, s->in, SIZE_MAX, copy_range_piece, NULL, "copy_file_range");
}

int
copy_rw(struct stage *s)
{
	return rw_pieces(s, s->in, true);
}
