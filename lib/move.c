/*
 * move.c: move_fd(), one transfer from start to end: a whole file cloned,
 * a sparse file by its extents, anything else as a stream (xfer.c).  See
 * splice.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/*
 * A whole regular file from offset 0 into an empty regular output at offset
 * 0, as cp(1) copies: FICLONE shares the file's extents (holes stay holes)
 * where the file system can; elsewhere it fails at once (EOPNOTSUPP, EXDEV,
 * EINVAL) and the usual path copies.  Only to the end of the input (not
 * --count, nor one extent of a sparse copy), and not with --chunk, which
 * asks for small calls.  Both offsets end past what was cloned, as a copy
 * leaves them.
 */
static int
by_clone(struct xfer *x)
{
	struct stat in_st, out_st;
	int out_flags = fcntl(x->out, F_GETFL);

	if (x->len != TO_EOF || x->chunk || out_flags < 0 || (out_flags & O_APPEND) ||
	    fstat(x->in, &in_st) < 0 || !S_ISREG(in_st.st_mode) || in_st.st_size == 0 ||
	    fstat(x->out, &out_st) < 0 || !S_ISREG(out_st.st_mode) || out_st.st_size != 0 ||
	    lseek(x->in, 0, SEEK_CUR) != 0 || lseek(x->out, 0, SEEK_CUR) != 0)
		return REFUSED;
	if (ioctl(x->out, FICLONE, x->in) < 0)
		return REFUSED;
	/* The file may have grown since: what the output holds is what moved. */
	if (fstat(x->out, &out_st) < 0 || lseek(x->out, out_st.st_size, SEEK_SET) < 0)
		return xfer_fail(x, SIDE_OUTPUT, "lseek", errno);
	if (lseek(x->in, out_st.st_size, SEEK_SET) < 0)
		return xfer_fail(x, SIDE_INPUT, "lseek", errno);
	x->moved = (uint64_t)out_st.st_size;
	account(M_CLONE, x->moved);
	return DONE;
}

/*
 * x->sparse: the holes of a regular file can stay holes in a regular output
 * that is written at or past its end (where the file reads as zeros
 * anyway), and that is not O_APPEND (which would ignore the offsets).
 */
static bool
xfer_holes_can_stay(const struct xfer *x)
{
	struct stat in_st, out_st;
	int out_flags = fcntl(x->out, F_GETFL);

	/* procfs files claim size 0 and have bytes: the usual path reads them. */
	return x->sparse && out_flags >= 0 && !(out_flags & O_APPEND) &&
	    fstat(x->in, &in_st) == 0 && S_ISREG(in_st.st_mode) && in_st.st_size > 0 &&
	    fstat(x->out, &out_st) == 0 && S_ISREG(out_st.st_mode) &&
	    lseek(x->out, 0, SEEK_CUR) >= out_st.st_size;
}

/* Moves one data extent (sparse off) with the usual methods; adds to x. */
static int
move_extent(struct xfer *x, off_t in_pos, off_t out_pos, uint64_t len)
{
	struct xfer part = *x;

	if (lseek(x->in, in_pos, SEEK_SET) < 0)
		return xfer_fail(x, SIDE_INPUT, "lseek", errno);
	if (lseek(x->out, out_pos, SEEK_SET) < 0)
		return xfer_fail(x, SIDE_OUTPUT, "lseek", errno);
	part.sparse = false;
	part.len = len;
	if (move_fd(&part) < 0) {
		x->moved += part.moved;
		x->error = part.error;
		return FAILED;
	}
	x->moved += part.moved;
	return part.moved < len ? REFUSED : DONE;	/* REFUSED: the file shrank */
}

/*
 * After the holes and extents, at in_pos: what the file grew by meanwhile,
 * to its end.  Nothing is tried (no pipe made) when it did not grow.
 */
static int
move_rest(struct xfer *x, off_t in_pos)
{
	struct xfer rest = *x;
	struct stat st;

	if (fstat(x->in, &st) == 0 && st.st_size <= in_pos)
		return DONE;
	rest.sparse = false;
	rest.len = x->len == TO_EOF ? TO_EOF : x->len - x->moved;
	if (move_fd(&rest) < 0) {
		x->moved += rest.moved;
		x->error = rest.error;
		return FAILED;
	}
	x->moved += rest.moved;
	return DONE;
}

/*
 * Copies a sparse regular file: SEEK_DATA and SEEK_HOLE find the data,
 * which moves as any file does (copy_file_range, ...); a hole only moves
 * the output's offset, and ftruncate(2) extends the output over a hole at
 * the end.  Nothing is punched: the output is known to read as zeros there.
 */
static int
move_sparse(struct xfer *x)
{
	off_t in_pos = lseek(x->in, 0, SEEK_CUR), out_pos = lseek(x->out, 0, SEEK_CUR);
	off_t in_end = lseek(x->in, 0, SEEK_END), out_start = out_pos;
	uint64_t holes = 0;
	struct stat out_st;
	int r = DONE;

	/* A file that will not say where its data ends (procfs: EINVAL) is read as it comes. */
	if (in_pos < 0 || in_end < 0)
		return xfer_stream(x);
	if (out_pos < 0)
		return xfer_fail(x, SIDE_OUTPUT, "lseek", errno);
	if (in_end < in_pos)
		in_end = in_pos;
	if (x->len != TO_EOF && x->len < (uint64_t)(in_end - in_pos))
		in_end = in_pos + (off_t)x->len;
	while (in_pos < in_end && r == DONE) {
		off_t data = lseek(x->in, in_pos, SEEK_DATA), hole;
		uint64_t before;

		/* Nor where its data is: before the first byte, read it as it comes. */
		if (data < 0 && errno != ENXIO && x->moved == 0 &&
		    lseek(x->in, in_pos, SEEK_SET) == in_pos)
			return xfer_stream(x);
		if (data < 0 && errno != ENXIO)
			return xfer_fail(x, SIDE_INPUT, "lseek", errno);
		/* ENXIO: nothing but a hole up to the end of the file. */
		if (data < 0 || data > in_end)
			data = in_end;
		holes += (uint64_t)(data - in_pos);
		x->moved += (uint64_t)(data - in_pos);
		account_holes((uint64_t)(data - in_pos));
		out_pos += data - in_pos;
		in_pos = data;
		if (in_pos == in_end)
			break;
		if ((hole = lseek(x->in, data, SEEK_HOLE)) < 0)
			return xfer_fail(x, SIDE_INPUT, "lseek", errno);
		if (hole > in_end)
			hole = in_end;
		before = x->moved;
		r = move_extent(x, data, out_pos, (uint64_t)(hole - data));
		if (r == FAILED)
			return FAILED;
		in_pos += (off_t)(x->moved - before);
		out_pos += (off_t)(x->moved - before);
	}
	if (x->opts.verbose && holes > 0)
		note("%llu bytes of holes left as holes", (unsigned long long)holes);
	if (lseek(x->in, in_pos, SEEK_SET) < 0)
		return xfer_fail(x, SIDE_INPUT, "lseek", errno);
	if (lseek(x->out, out_pos, SEEK_SET) < 0 || fstat(x->out, &out_st) < 0 ||
	    (out_pos > out_start && out_st.st_size < out_pos && ftruncate(x->out, out_pos) < 0))
		return xfer_fail(x, SIDE_OUTPUT, "ftruncate", errno);
	/* The size was where the file ended when we looked: what came since follows. */
	if (r == DONE && (x->len == TO_EOF || x->moved < x->len))
		return move_rest(x, in_pos);
	return DONE;
}

/* Whether len bytes are all zero. */
static bool
all_zero(const char *p, size_t len)
{
	return len == 0 || (p[0] == 0 && memcmp(p, p + 1, len - 1) == 0);
}

/*
 * x->zero_holes: a copy through user space in blocks of the output's
 * st_blksize, each block of zeros at or past the output's end a hole (the
 * offset moved, ftruncate(2) at the end), every other block written.
 */
static int
move_zero_holes(struct xfer *x)
{
	size_t bytes, block = 4096, off, len;
	char *buf = copy_buffer(&bytes);
	uint64_t holes = 0;
	bool tail_hole = false;
	struct stat st;
	off_t pos, end;
	ssize_t n;

	if (fstat(x->out, &st) < 0 || (pos = lseek(x->out, 0, SEEK_CUR)) < 0)
		return xfer_fail(x, SIDE_OUTPUT, "lseek", errno);
	if (st.st_blksize > 0 && (size_t)st.st_blksize <= bytes)
		block = (size_t)st.st_blksize;
	end = st.st_size;
	while (xfer_left(x) > 0) {
		n = read_retry(x->in, buf, xfer_call_bytes(x, bytes));
		if (n < 0)
			return xfer_fail(x, SIDE_INPUT, "read", errno);
		if (n == 0)
			break;
		for (off = 0; off < (size_t)n; off += len, pos += (off_t)len) {
			len = (size_t)n - off < block ? (size_t)n - off : block;
			if (pos >= end && all_zero(buf + off, len)) {
				if (lseek(x->out, (off_t)len, SEEK_CUR) < 0)
					return xfer_fail(x, SIDE_OUTPUT, "lseek", errno);
				holes += len;
				tail_hole = true;
				account_holes(len);
			} else {
				if (write_all(x->out, buf + off, len) < 0)
					return xfer_fail(x, SIDE_OUTPUT, "write", errno);
				account(M_READ_WRITE, len);
				tail_hole = false;
			}
			x->moved += len;
		}
	}
	/* A hole at the end: the size says it. */
	if (tail_hole && pos > end && fstat(x->out, &st) == 0 && st.st_size < pos &&
	    ftruncate(x->out, pos) < 0)
		return xfer_fail(x, SIDE_OUTPUT, "ftruncate", errno);
	if (x->opts.verbose && holes > 0)
		note("%llu bytes of zeros left as holes", (unsigned long long)holes);
	return DONE;
}

/* Whether x->zero_holes applies: a regular output, not O_APPEND. */
static bool
zeros_can_be_holes(const struct xfer *x)
{
	struct stat st;
	int flags = fcntl(x->out, F_GETFL);

	return x->zero_holes && flags >= 0 && !(flags & O_APPEND) &&
	    fstat(x->out, &st) == 0 && S_ISREG(st.st_mode);
}

int
move_fd(struct xfer *x)
{
	int r;

	xfer_begin(x);
	if ((r = by_clone(x)) != REFUSED)
		return r;
	if (zeros_can_be_holes(x))
		return move_zero_holes(x);
	if (xfer_holes_can_stay(x))
		return move_sparse(x);
	return xfer_stream(x);
}

void
xfer_warn(const struct xfer *x, const char *in_name, const char *out_name)
{
	const char *const names[SIDE_COUNT] = {
		[SIDE_INPUT] = in_name, [SIDE_OUTPUT] = out_name,
	};

	xfer_error_warn(&x->error, names, true);
}
