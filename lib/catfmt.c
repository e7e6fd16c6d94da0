/*
 * catfmt.c: cat's formatting options, -n -b -s -E -T -v, with the output
 * GNU cat gives.  See splice.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "internal.h"

/*
 * Formatted bytes wait here until the input chunk that made them is done.
 * One input byte adds at most a line number (20 digits and a tab) and
 * "^M$\n": keep that much room before each byte.
 */
static char out_buf[64 * 1024];
enum { ROOM_PER_BYTE = 32 };

bool
cat_format_any(const struct cat_format *f)
{
	return f->number || f->number_nonblank || f->squeeze || f->show_ends ||
	    f->show_tabs || f->show_nonprinting;
}

/* A line's number, as GNU cat prints it: right-aligned in 6 columns, a tab. */
static size_t
put_number(struct cat_format *f, char *o)
{
	int n = snprintf(o, ROOM_PER_BYTE, "%6" PRIu64 "\t", ++f->line);

	return n > 0 ? (size_t)n : 0;
}

/* A byte inside a line: as it is, or in ^X, ^? and M- notation. */
static size_t
put_visible(const struct cat_format *f, unsigned char c, char *o)
{
	size_t n = 0;

	if (c == '\t' && f->show_tabs) {
		o[n++] = '^';
		o[n++] = 'I';
		return n;
	}
	if (!f->show_nonprinting || c == '\t') {
		o[n++] = (char)c;
		return n;
	}
	if (c >= 128) {
		o[n++] = 'M';
		o[n++] = '-';
		c -= 128;
	}
	if (c < 32 || c == 127) {
		o[n++] = '^';
		o[n++] = (char)(c == 127 ? '?' : c + 64);
	} else
		o[n++] = (char)c;
	return n;
}

/* Formats one input byte into o; returns how many bytes it put there. */
static size_t
format_byte(struct cat_format *f, unsigned char c, char *o)
{
	size_t n = 0;

	if (f->cr_held) {
		/* -E shows CR LF as "^M$"; a CR before anything else stays a CR. */
		f->cr_held = false;
		if (c == '\n') {
			o[n++] = '^';
			o[n++] = 'M';
		} else
			o[n++] = '\r';
	}
	if (c == '\n') {
		if (!f->mid_line) {
			if (f->squeeze && f->last_blank)
				return n;
			f->last_blank = true;
			if (f->number && !f->number_nonblank)
				n += put_number(f, o + n);
		}
		if (f->show_ends)
			o[n++] = '$';
		o[n++] = '\n';
		f->mid_line = false;
		return n;
	}
	if (!f->mid_line) {
		if (f->number || f->number_nonblank)
			n += put_number(f, o + n);
		f->mid_line = true;
		f->last_blank = false;
	}
	if (c == '\r' && f->show_ends && !f->show_nonprinting) {
		f->cr_held = true;
		return n;
	}
	return n + put_visible(f, c, o + n);
}

int
cat_format_fd(struct cat_format *f, struct xfer *x)
{
	size_t in_bytes;
	unsigned char *in_buf = copy_buffer(&in_bytes);

	x->moved = 0;
	while (xfer_left(x) > 0) {
		ssize_t got = read_retry(x->in, in_buf, xfer_call_bytes(x, in_bytes));
		size_t used = 0;

		if (got < 0)
			return xfer_fail(x, SIDE_INPUT, "read", errno);
		if (got == 0)
			break;
		for (ssize_t i = 0; i < got; i++) {
			if (sizeof(out_buf) - used < ROOM_PER_BYTE) {
				if (write_all(x->out, out_buf, used) < 0)
					return xfer_fail(x, SIDE_OUTPUT, "write", errno);
				used = 0;
			}
			used += format_byte(f, in_buf[i], out_buf + used);
		}
		/* Each chunk goes out at once: cat -n on a terminal shows each line. */
		if (write_all(x->out, out_buf, used) < 0)
			return xfer_fail(x, SIDE_OUTPUT, "write", errno);
		x->moved += (uint64_t)got;
		account(M_READ_WRITE, (uint64_t)got);
	}
	return DONE;
}

int
cat_format_end(struct cat_format *f, int out)
{
	if (!f->cr_held)
		return 0;
	f->cr_held = false;
	return write_all(out, "\r", 1);
}
