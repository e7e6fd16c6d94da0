/*
 * ranges.c: parts of a file: sparse copies that keep holes (SEEK_DATA,
 * SEEK_HOLE) and skipping input by offset.  See splice.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "splice.h"

/*
 * x->sparse: the holes of a regular file can stay holes in a regular output
 * that is written at or past its end (where the file reads as zeros
 * anyway), and that is not O_APPEND (which would ignore the offsets).
 */
bool
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
		x->refused = part.refused;
		return xfer_fail(x, part.side, part.call, part.err);
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
		x->refused = rest.refused;
		return xfer_fail(x, rest.side, rest.call, rest.err);
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
int
move_sparse(struct xfer *x)
{
	off_t in_pos = lseek(x->in, 0, SEEK_CUR), out_pos = lseek(x->out, 0, SEEK_CUR);
	off_t in_end = lseek(x->in, 0, SEEK_END);
	uint64_t holes = 0;
	struct stat out_st;
	int r = DONE;

	if (in_pos < 0 || in_end < 0)
		return xfer_fail(x, SIDE_INPUT, "lseek", errno);
	if (out_pos < 0)
		return xfer_fail(x, SIDE_OUTPUT, "lseek", errno);
	if (in_end < in_pos)
		in_end = in_pos;
	if (x->len != TO_EOF && x->len < (uint64_t)(in_end - in_pos))
		in_end = in_pos + (off_t)x->len;
	while (in_pos < in_end && r == DONE) {
		off_t data = lseek(x->in, in_pos, SEEK_DATA), hole;
		uint64_t before;

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
	    (out_st.st_size < out_pos && ftruncate(x->out, out_pos) < 0))
		return xfer_fail(x, SIDE_OUTPUT, "ftruncate", errno);
	/* The size was where the file ended when we looked: what came since follows. */
	if (r == DONE && (x->len == TO_EOF || x->moved < x->len))
		return move_rest(x, in_pos);
	return DONE;
}

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
