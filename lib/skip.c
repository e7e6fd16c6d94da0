/*
 * skip.c: skip_input(), --skip: input discarded by offset where it can be,
 * else read and dropped.  See splice.h.
 */
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/*
 * A regular file or a block device: move the offset, read nothing.  A
 * file's size can lie (a sysfs attribute says 4096 whatever it holds): the
 * last byte skipped must read back, else the file is read instead.  What the
 * size did not count (a file that grew) is left to skip_by_read().
 */
static int
skip_by_seek(struct xfer *x)
{
	struct stat st;
	off_t pos, end;
	char last;

	/* procfs files claim size 0 and have bytes: those are read. */
	if (fstat(x->in, &st) < 0 || !(S_ISBLK(st.st_mode) ||
	    (S_ISREG(st.st_mode) && st.st_size > 0)))
		return REFUSED;
	if ((pos = lseek(x->in, 0, SEEK_CUR)) < 0)
		return REFUSED;
	end = S_ISREG(st.st_mode) ? st.st_size : lseek(x->in, 0, SEEK_END);
	if (end < 0)
		return xfer_fail(x, SIDE_INPUT, "lseek", errno);
	if (end < pos)
		end = pos;
	if ((uint64_t)(end - pos) > x->len)
		end = pos + (off_t)x->len;
	/* 0: shorter than it says.  An error (O_DIRECT refuses one byte): trust it. */
	if (end > pos && pread(x->in, &last, 1, end - 1) == 0)
		return REFUSED;
	if (lseek(x->in, end, SEEK_SET) < 0)
		return xfer_fail(x, SIDE_INPUT, "lseek", errno);
	x->moved = (uint64_t)(end - pos);
	return DONE;
}

/* Anything else (a pipe, a socket, a terminal, a character device): read and drop. */
static int
skip_by_read(struct xfer *x)
{
	size_t bytes;
	void *buf = copy_buffer(&bytes);

	while (xfer_left(x) > 0) {
		ssize_t n = read_retry(x->in, buf, xfer_call_bytes(x, bytes));

		if (n < 0)
			return xfer_fail(x, SIDE_INPUT, "read", errno);
		if (n == 0)
			break;
		x->moved += (uint64_t)n;
	}
	return DONE;
}

int
skip_input(struct xfer *x)
{
	int r;

	xfer_begin(x);
	r = skip_by_seek(x);
	if (r == REFUSED || (r == DONE && xfer_left(x) > 0))
		r = skip_by_read(x);
	return r;
}
