/*
 * bench/runner.c: runs the cases.  wire() connects a case's stages as its
 * topology says, a run starts them as workers (bench/workers.c) and checks
 * what they moved; a case is one checked run, which also sizes the timed
 * runs, then the timed runs; the default table is every case in turn.
 */
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "splice.h"
#include "bench.h"

static int
make_pipe(enum pipe_kind kind, size_t pipe_bytes, int p[2], size_t *cap)
{
	long got;

	if (pipe(p) < 0) {
		warn_errno("pipe");
		return -1;
	}
	track(p[0]);
	track(p[1]);
	if (kind == SMALL_PIPE)
		fcntl(p[0], F_SETPIPE_SZ, SMALL_PIPE_BYTES);
	else {
		/* The table states every case's pipe; -v need not say it per run. */
		struct engine_opts quiet = engine_opts();

		quiet.verbose = 0;
		if (pipe_bytes)
			quiet.pipe_bytes = pipe_bytes;
		pipe_grow(p[0], &quiet);
	}
	got = pipe_capacity(p[0]);
	*cap = got > 0 ? (size_t)got : SMALL_PIPE_BYTES;
	return 0;
}

/*
 * A listener on 127.0.0.1, port 0, its port in *port; SO_RCVBUF is set
 * before listen(2): the window scale is agreed in the handshake.
 */
static int
loopback_listener(size_t sock_bytes, in_port_t *port)
{
	struct sockaddr_in addr = {
		.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	socklen_t len = sizeof(addr);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || set_sock_bytes(fd, SO_RCVBUF, sock_bytes) < 0 ||
	    bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    listen(fd, 1) < 0 || getsockname(fd, (struct sockaddr *)&addr, &len) < 0) {
		warn_errno("127.0.0.1 port 0");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*port = addr.sin_port;
	return fd;
}

/* The stage of st that runs fn, in from and out to, with a capacity of cap. */
static void
set_stage(struct stage *st, stage_fn *fn, int in, int out, size_t cap)
{
	st->fn = fn;
	st->in = in;
	st->out = out;
	st->cap = cap;
}

/*
 * Connects bc's stages as its topology says, into st in the order they
 * start (a receiver before its sender), and stores the pipe's capacity in
 * *cap; returns how many stages, or -1.  The runner makes what joins two
 * stages, tracked so that each keeps only its own; a stage makes what it
 * uses alone (a sender's pipe into TCP, a receiver's out of it).
 */
static int
wire(const struct bench_case *bc, const struct tuning *tu, const struct bench_data *d,
    struct stage *st, size_t *cap)
{
	int a[2], b[2], lfd;
	size_t pipe_cap = 0, own_cap, cap_b;
	in_port_t port;

	if (bc->pipe != NO_PIPE && make_pipe(bc->pipe, tu->pipe_bytes, a, &pipe_cap) < 0)
		return -1;
	if (pipe_cap)
		*cap = pipe_cap;
	/* A stage that splices through a pipe of its own makes it as large as this one. */
	own_cap = pipe_cap ? pipe_cap : RW_BUFFER_BYTES;
	switch (bc->topology) {
	case TOPO_PIPE:
		set_stage(&st[0], bc->put, -1, a[1], pipe_cap);
		set_stage(&st[1], bc->get, a[0], -1, pipe_cap);
		return 2;
	case TOPO_PIPE_MIDDLE:
		if (make_pipe(bc->pipe, tu->pipe_bytes, b, &cap_b) < 0) {
			close_tracked();
			return -1;
		}
		set_stage(&st[0], bc->put, -1, a[1], pipe_cap);
		set_stage(&st[1], bc->mid, a[0], b[1], pipe_cap);
		set_stage(&st[2], bc->get, b[0], -1, pipe_cap);
		return 3;
	case TOPO_TCP:
	case TOPO_TCP_MIDDLE:
		/* Without a middle, the pipe was made only to learn its capacity. */
		if (bc->topology == TOPO_TCP)
			close_tracked();
		if ((lfd = loopback_listener(tu->sock_bytes, &port)) < 0) {
			close_tracked();
			return -1;
		}
		track(lfd);
		for (int i = 0; i < 3; i++)
			st[i].port = port;
		/* The receiver's pipe is as large as the sender's; its requests are its own. */
		set_stage(&st[0], bc->get, lfd, -1, own_cap);
		st[0].req = 0;
		if (bc->topology == TOPO_TCP) {
			set_stage(&st[1], bc->put, -1, -1, own_cap);
			return 2;
		}
		set_stage(&st[1], bc->mid, a[0], -1, pipe_cap);
		set_stage(&st[2], bc->put, -1, a[1], pipe_cap);
		return 3;
	case TOPO_FILE:
		close_tracked();	/* the same */
		if (ftruncate(d->out_fd, 0) < 0) {
			warn_errno("%s: truncating the copy", bc->name);
			return -1;
		}
		set_stage(&st[0], bc->put, d->file_fd, d->out_fd, own_cap);
		return 1;
	}
	return -1;
}

/*
 * One run: the case's processes, started together, waited for together.
 * Stores wall seconds and the CPU seconds of every process; -1 when any
 * process failed or a byte was wrong (the process has said which).
 */
static int
run_once(const struct bench_case *bc, const struct tuning *tu, const struct bench_data *d,
    uint64_t bytes, bool check, double *wall, double *cpu, size_t *cap)
{
	struct stage st[3];
	int n, rval;

	for (int i = 0; i < 3; i++)
		st[i] = (struct stage){ .bc = bc, .d = d, .in = -1, .out = -1, .bytes = bytes,
		    .check = check, .cap = RW_BUFFER_BYTES, .req = tu->req_bytes,
		    .sock_bytes = tu->sock_bytes, .more = tu->more };
	if ((n = wire(bc, tu, d, st, cap)) < 0)
		return -1;
	rval = run_workers(st, n, wall, cpu);
	if (rval == 0 && bc->sink == TO_FILE)
		rval = check_output_file(&st[0]);
	account_input(bytes);
	return rval;
}

/*
 * The checked run of configuration tu: every byte compared, and the warm-up
 * the rates need.  Without -s (*size 0), then sets *size to the bytes one of
 * o->runs timed runs moves in about o->secs / o->runs seconds.
 */
int
check_and_size(const struct bench_case *bc, const struct tuning *tu, const struct bench_opts *o,
    uint64_t *size, size_t *cap)
{
	uint64_t check_bytes_n = *size && *size < CHECK_RUN_BYTES ? *size : CHECK_RUN_BYTES;
	double wall, cpu, rate;

	if (run_once(bc, tu, o->d, check_bytes_n, true, &wall, &cpu, cap) < 0)
		return -1;
	if (*size)
		return 0;
	/* Where the checked run read what the case discards, time the case itself. */
	if (bc->sink == TO_NULL &&
	    run_once(bc, tu, o->d, check_bytes_n, false, &wall, &cpu, cap) < 0)
		return -1;
	rate = (double)check_bytes_n / (wall > 1e-6 ? wall : 1e-6);
	*size = (uint64_t)(rate * o->secs / o->runs) & ~((1ULL << 20) - 1);
	if (*size < MIN_RUN_BYTES)
		*size = MIN_RUN_BYTES;
	if (*size > MAX_RUN_BYTES)
		*size = MAX_RUN_BYTES;
	return 0;
}

/* Timed run i of r->run_bytes bytes, into r's rates. */
int
time_run(const struct bench_case *bc, const struct tuning *tu, const struct bench_opts *o,
    struct result *r, int i)
{
	double wall, cpu, gib = (double)r->run_bytes / (1 << 30);

	if (run_once(bc, tu, o->d, r->run_bytes, false, &wall, &cpu, &r->cap) < 0)
		return -1;
	r->gib_s[i] = gib / (wall > 1e-9 ? wall : 1e-9);
	r->cpu_s_gib[i] = cpu / gib;
	if (common.verbose)
		note("%s: run %d: %llu bytes in %.4f s, %.2f GiB/s, %.3f CPU s", bc->name, i + 1,
		    (unsigned long long)r->run_bytes, wall, r->gib_s[i], cpu);
	return 0;
}

/* The checked run of bc, then its timed runs, into r. */
static int
run_case(const struct bench_case *bc, const struct bench_opts *o, struct result *r)
{
	static const struct tuning own;
	uint64_t size = o->size;

	if (check_and_size(bc, &own, o, &size, &r->cap) < 0)
		return -1;
	r->run_bytes = size;
	for (int i = 0; i < r->runs; i++)
		if (time_run(bc, &own, o, r, i) < 0)
			return -1;
	return 0;
}

/* The default table: every selected case, its row as soon as it is done. */
bool
run_table(const struct bench_case *const *bcs, size_t n, const struct bench_opts *o)
{
	double baseline = 0;
	bool any_failed = false;

	print_table_header(o->csv);
	for (size_t i = 0; i < n; i++) {
		double gib_s[1000], cpu_s_gib[1000];
		struct result r = { .gib_s = gib_s, .cpu_s_gib = cpu_s_gib, .runs = o->runs };

		/* A worker process said what went wrong. */
		if (run_case(bcs[i], o, &r) < 0)
			r.failed = any_failed = true;
		/* The plain write/read with the default pipe is what the ratios compare with. */
		if (bcs[i]->flags & BASELINE && !r.failed) {
			double copy[1000];

			memcpy(copy, gib_s, sizeof(double) * (size_t)o->runs);
			baseline = median(copy, o->runs);
		}
		print_row(bcs[i], &r, baseline, o->csv);
		if (common.progress)
			note("%s: done", bcs[i]->name);
	}
	return any_failed;
}
