/*
 * tee_pipes.c: the tee engine's pipes: made before any output is truncated,
 * kept as large as the source, or given up for read/write.  See splice.h,
 * internal.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/*
 * Room in a pipe is counted in buffers (slots), not bytes, and n bytes of
 * the source may span every slot it has: tee(2) of them into the empty
 * internal pipe cannot come up short only while that pipe has at least the
 * source's capacity.  The other end may grow the source at any time, so
 * this is asked again before every tee(2) into the internal pipe; false
 * when it grew past what the internal pipe can be given.
 */
bool
tee_q_holds_source(struct tee_job *t, struct tee_pipes *p)
{
	long src_cap = pipe_capacity(p->src);
	int err = 0;

	if (src_cap <= p->q_cap)
		return true;
	if (fcntl(p->q[1], F_SETPIPE_SZ, (int)src_cap) >= 0)
		p->q_cap = pipe_capacity(p->q[0]);
	else
		err = errno;
	if (t->opts.verbose)
		note("%s grew to %ld bytes: internal pipe %ld bytes", t->in_name, src_cap,
		    p->q_cap);
	errno = err ? err : EPERM;
	return src_cap <= p->q_cap;
}

/* Closes the engine's pipes. */
void
tee_close(struct tee_pipes *p)
{
	for (int i = 0; i < 2; i++) {
		if (p->fill[i] >= 0)
			close(p->fill[i]);
		if (p->q[i] >= 0)
			close(p->q[i]);
		p->fill[i] = p->q[i] = -1;
	}
}

/*
 * The internal pipes could not be made (EMFILE, ENFILE, ENOMEM): read(2)
 * and write(2) copy everything instead, as tee(1) would; --strict stops.
 */
static int
tee_no_pipe(struct tee_job *t, struct tee_pipes *p)
{
	int err = errno;

	tee_close(p);
	xfer_error_set(&t->error, SIDE_NONE, "pipe2", err);
	t->error.refused = true;
	if (!fallback_allowed(&t->opts, 0, &t->error))
		return -1;
	if (t->opts.verbose)
		note("pipe2: %s: using read/write", strerror(err));
	p->src = t->in;
	p->copy_all = true;
	return 0;
}

int
tee_open(struct tee_job *t)
{
	struct tee_pipes *p = &t->pipes;
	bool in_pipe = fd_is_pipe(t->in);

	*p = (struct tee_pipes){
		.src = t->in, .fill = { -1, -1 }, .q = { -1, -1 },
		.direct = t->nouts > 0 && fd_is_pipe(t->outs[0].fd),
	};
	t->taken = 0;
	t->error = (struct xfer_error){ .side = SIDE_NONE };
	t->stopped = false;
	/* tee(2) takes pipes: anything else goes through one of ours, or is refused. */
	if (!in_pipe || !p->direct) {
		xfer_error_set(&t->error, in_pipe ? SIDE_OUTPUT : SIDE_INPUT, "tee", EINVAL);
		t->error.refused = true;
		if (!fallback_allowed(&t->opts, 0, &t->error))
			return -1;
	}
	if (p->direct)
		pipe_grow(t->outs[0].fd, &t->opts);
	if (!in_pipe) {
		if (pipe_open(p->fill, &t->opts) < 0)
			return tee_no_pipe(t, p);
		p->src = p->fill[0];
		if (t->opts.verbose)
			note("%s is not a pipe: spliced into an internal pipe for tee(2)",
			    t->in_name);
	}
	if (t->nouts > 1) {
		if (pipe_open(p->q, &t->opts) < 0)
			return tee_no_pipe(t, p);
		p->q_cap = pipe_capacity(p->q[0]);
		/* Asked again before every round: the source may grow. */
		(void)tee_q_holds_source(t, p);
	}
	if (t->opts.verbose && t->nouts > 0 && !p->direct)
		note("%s is not a pipe: fed by tee(2) through an internal pipe",
		    t->outs[0].name);
	return 0;
}
