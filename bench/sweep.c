/*
 * bench/sweep.c: --sweep, the pipe, request and socket settings that move a
 * case fastest.  A grid of configurations per case, each checked, then timed
 * in rounds, one run of each configuration per round.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "splice.h"
#include "bench.h"

#define MAX_TUNINGS 32

/* A request of req_limit or more is the case's own, 0; t joins tu unless it is there. */
static int
add_tuning(struct tuning *tu, int n, struct tuning t, size_t req_limit)
{
	if (t.req_bytes >= req_limit)
		t.req_bytes = 0;
	if ((t.req_bytes && t.req_bytes < 4096) || n == MAX_TUNINGS)
		return n;
	for (int i = 0; i < n; i++)
		if (tu[i].pipe_bytes == t.pipe_bytes && tu[i].req_bytes == t.req_bytes &&
		    tu[i].sock_bytes == t.sock_bytes && tu[i].more == t.more)
			return n;
	tu[n] = t;
	return n + 1;
}

static int
compare_tunings(const void *a, const void *b)
{
	const struct tuning *x = a, *y = b;
	size_t rx = x->req_bytes ? x->req_bytes : SIZE_MAX;
	size_t ry = y->req_bytes ? y->req_bytes : SIZE_MAX;

	if (x->pipe_bytes != y->pipe_bytes)
		return x->pipe_bytes < y->pipe_bytes ? -1 : 1;
	if (rx != ry)
		return rx < ry ? -1 : 1;
	if (x->sock_bytes != y->sock_bytes)
		return x->sock_bytes < y->sock_bytes ? -1 : 1;
	return (x->more > y->more) - (x->more < y->more);
}

/*
 * TCP: the case's own configuration (kernel autotuning, SPLICE_F_MORE when
 * the pipe is full, the whole pipe or 16 MiB of sendfile(2) per call), then
 * one setting changed at a time: SO_SNDBUF and SO_RCVBUF of 256 KiB to
 * 4 MiB, SPLICE_F_MORE never or always, smaller requests, other pipes; and
 * the larger buffers with the requests that overlap best.
 */
static int
sweep_tcp(const struct bench_case *bc, struct tuning *tu, size_t own, size_t max)
{
	const size_t socks[] = { 256 << 10, 1 << 20, 4 << 20 };
	const size_t splice_reqs[] = { 64 << 10, 128 << 10, 256 << 10, 512 << 10 };
	const size_t sendfile_reqs[] = { 64 << 10, 256 << 10, 1 << 20, 4 << 20 };
	const size_t pipes[] = { 64 << 10, 256 << 10, max };
	const bool from_pipe = bc->flags & SPLICES_TO_TCP;
	const size_t *reqs = from_pipe ? splice_reqs : sendfile_reqs;
	const size_t limit = from_pipe ? own : SENDFILE_CALL_BYTES;
	const size_t pipe = bc->pipe == NO_PIPE ? 0 : own;
	int n = add_tuning(tu, 0, (struct tuning){ .pipe_bytes = pipe }, limit);

	for (size_t i = 0; i < 3; i++)
		n = add_tuning(tu, n, (struct tuning){ .pipe_bytes = pipe, .sock_bytes = socks[i] },
		    limit);
	if (from_pipe) {
		n = add_tuning(tu, n, (struct tuning){ .pipe_bytes = pipe, .more = MORE_OFF },
		    limit);
		n = add_tuning(tu, n, (struct tuning){ .pipe_bytes = pipe, .more = MORE_ALWAYS },
		    limit);
	}
	for (size_t i = 0; i < 4; i++)
		n = add_tuning(tu, n, (struct tuning){ .pipe_bytes = pipe, .req_bytes = reqs[i] },
		    limit);
	for (size_t i = 0; i < 3 && pipe; i++) {
		if (pipes[i] > max)
			continue;
		n = add_tuning(tu, n, (struct tuning){ .pipe_bytes = pipes[i] },
		    from_pipe ? pipes[i] : limit);
		if (from_pipe)
			n = add_tuning(tu, n, (struct tuning){ .pipe_bytes = pipes[i],
			    .req_bytes = pipes[i] / 2 }, pipes[i]);
	}
	for (size_t i = 1; i < 3; i++)
		for (size_t j = 2; j < 4; j++)
			n = add_tuning(tu, n, (struct tuning){ .pipe_bytes = pipe,
			    .req_bytes = reqs[j], .sock_bytes = socks[i] }, limit);
	return n;
}

/*
 * The grid: pipes of 64 KiB, 256 KiB, 1 MiB and pipe-max-size, each read
 * 64 to 512 KiB at a time, a quarter, a half and all of it per call; and
 * the case's own configuration (the pipe of --pipe-size or 1 MiB, read
 * whole), which *fixed indexes.  TCP cases: sweep_tcp().
 */
static int
sweep_tunings(const struct bench_case *bc, struct tuning *tu, int *fixed)
{
	const size_t max = (size_t)pipe_max_bytes();
	const size_t pipes[] = { 64 << 10, 256 << 10, 1 << 20, max };
	const size_t reqs[] = { 64 << 10, 128 << 10, 256 << 10, 512 << 10 };
	size_t own = common.pipe_bytes ? common.pipe_bytes :
	    max < DEFAULT_PIPE_BYTES ? max : DEFAULT_PIPE_BYTES;
	int n;

	if (over_tcp(bc))
		n = sweep_tcp(bc, tu, own, max);
	else {
		n = add_tuning(tu, 0, (struct tuning){ .pipe_bytes = own }, own);
		for (size_t i = 0; i < sizeof(pipes) / sizeof(pipes[0]); i++) {
			if (pipes[i] > max)
				continue;
			for (size_t j = 0; j < sizeof(reqs) / sizeof(reqs[0]); j++)
				n = add_tuning(tu, n, (struct tuning){ .pipe_bytes = pipes[i],
				    .req_bytes = reqs[j] }, pipes[i]);
			n = add_tuning(tu, n, (struct tuning){ .pipe_bytes = pipes[i],
			    .req_bytes = pipes[i] / 4 }, pipes[i]);
			n = add_tuning(tu, n, (struct tuning){ .pipe_bytes = pipes[i],
			    .req_bytes = pipes[i] / 2 }, pipes[i]);
			n = add_tuning(tu, n, (struct tuning){ .pipe_bytes = pipes[i] }, pipes[i]);
		}
	}
	/* The first one added is the case's own. */
	{
		struct tuning first = tu[0];

		qsort(tu, (size_t)n, sizeof(*tu), compare_tunings);
		for (*fixed = 0; compare_tunings(&tu[*fixed], &first) != 0; ++*fixed)
			;
	}
	return n;
}

/*
 * Every configuration of the grid: its own checked run, then its timed runs
 * in rounds, one run of each configuration per round, so that a change in
 * the machine's load falls on all of them alike.  The runs of every
 * configuration move the same bytes, sized from the case's own.
 */
static bool
sweep_case(const struct bench_case *bc, const struct bench_opts *o)
{
	struct tuning tu[MAX_TUNINGS];
	struct result r[MAX_TUNINGS];
	const int runs = o->runs;
	uint64_t size = o->size;
	int fixed, best = -1, n = sweep_tunings(bc, tu, &fixed);
	double *rates = calloc((size_t)2 * (size_t)n * (size_t)runs, sizeof(double));
	double fixed_med = 0, best_med = 0;
	bool any_failed = false;
	static const char *const marks[2][2] = { { "", "best" }, { "fixed", "fixed best" } };

	if (rates == NULL) {
		warn_errno("%s: malloc", bc->name);
		return true;
	}
	for (int i = 0; i < n; i++)
		r[i] = (struct result){ .gib_s = rates + (size_t)(2 * i) * (size_t)runs,
		    .cpu_s_gib = rates + (size_t)(2 * i + 1) * (size_t)runs, .runs = runs };
	if (check_and_size(bc, &tu[fixed], o, &size, &r[fixed].cap) < 0)
		r[fixed].failed = true;
	if (size == 0)
		size = MIN_RUN_BYTES;
	for (int i = 0; i < n; i++) {
		r[i].run_bytes = size;
		if (i != fixed && check_and_size(bc, &tu[i], o, &size, &r[i].cap) < 0)
			r[i].failed = true;
	}
	for (int k = 0; k < runs; k++)
		for (int i = 0; i < n; i++)
			if (!r[i].failed && time_run(bc, &tu[i], o, &r[i], k) < 0)
				r[i].failed = true;
	for (int i = 0; i < n; i++) {
		double med = summarize(&r[i]).med;

		any_failed |= r[i].failed;
		if (i == fixed)
			fixed_med = med;
		if (med > best_med) {
			best_med = med;
			best = i;
		}
	}
	for (int i = 0; i < n; i++)
		print_sweep_row(bc, &tu[i], &r[i], fixed_med, marks[i == fixed][i == best], o->csv);
	free(rates);
	return any_failed;
}

bool
run_sweep(const struct bench_case *const *bcs, size_t n, const struct bench_opts *o)
{
	bool any_failed = false;

	print_sweep_header(o->csv);
	for (size_t i = 0; i < n; i++) {
		any_failed |= sweep_case(bcs[i], o);
		if (common.progress)
			note("%s: done", bcs[i]->name);
	}
	return any_failed;
}
