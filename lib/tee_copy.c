/*
 * tee_copy.c: the tee engine without tee(2): a round read(2) once and
 * written to every output, and an output dropped when it fails.  See
 * internal.h.
 */
#include <errno.h>

#include "internal.h"

void
tee_out_fail(struct tee_out *o, const char *call, int err)
{
	o->gone = true;
	xfer_error_set(&o->error, SIDE_OUTPUT, call, err);
}

bool
tee_dropped(struct tee_job *t, struct tee_out *o)
{
	if (t->output_failed && !t->output_failed(o)) {
		t->stopped = true;
		return false;
	}
	return true;
}

/*
 * write(2)s the n bytes at buf to every output of from..last that is not
 * gone; one that fails is dropped.  False when t must stop.
 */
static bool
write_outs(struct tee_job *t, struct tee_out *from, const struct tee_out *last,
    const char *buf, size_t n)
{
	for (struct tee_out *o = from; o <= last; o++) {
		if (o->gone)
			continue;
		if (write_all(o->fd, buf, n) < 0) {
			tee_out_fail(o, "write", errno);
			if (!tee_dropped(t, o))
				return false;
			continue;
		}
		o->moved += (uint64_t)n;
		account(M_READ_WRITE, (uint64_t)n);
	}
	return true;
}

ssize_t
tee_copy_round(struct tee_job *t, int src, size_t len)
{
	size_t buf_bytes;
	char *buf = copy_buffer(&buf_bytes);
	ssize_t n = read_retry(src, buf, len < buf_bytes ? len : buf_bytes);

	if (n < 0)
		return xfer_error_set(&t->error, SIDE_INPUT, "read", errno);
	if (n > 0 && t->nouts > 0 && !write_outs(t, t->outs, t->outs + t->nouts - 1, buf,
	    (size_t)n))
		return ROUND_FAILED;
	return n;
}

ssize_t
tee_copy_rest(struct tee_job *t, struct tee_pipes *p, struct tee_out *from,
    const struct tee_out *last, size_t n)
{
	size_t buf_bytes, done = 0;
	char *buf = copy_buffer(&buf_bytes);

	while (done < n) {
		ssize_t r = read_retry(p->src, buf, n - done < buf_bytes ? n - done : buf_bytes);

		if (r <= 0)
			return xfer_error_set(&t->error, SIDE_INPUT, "read", r < 0 ? errno : EIO);
		if (!write_outs(t, from, last, buf, (size_t)r))
			return ROUND_FAILED;
		done += (size_t)r;
	}
	return (ssize_t)n;
}
