/*
 * splice-bench: measure each way of moving bytes through a pipe, a file and
 * loopback TCP on this machine, and check every byte that moved.
 *
 * The methods being measured are written out one by one, as the 2006
 * splice-bench did, in bench/ by family; bench/bench.h draws the map.  This
 * file holds the table of cases: a case is a row, and the runner knows no
 * method by name.  The tools move their bytes with move_fd().
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "splice.h"
#include "bench/bench.h"

static const struct bench_case cases[] = {
	{ .name = "pipe-rw-64k",
	  .what = "write(2) -> pipe -> read(2), 64 KiB pipe",
	  .topology = TOPO_PIPE, .pipe = SMALL_PIPE, .sink = TO_MEMORY,
	  .put = put_write, .get = get_read_check, .flags = BASELINE },
	{ .name = "pipe-rw-1m",
	  .what = "write(2) -> pipe -> read(2), 1 MiB pipe",
	  .topology = TOPO_PIPE, .pipe = BIG_PIPE, .sink = TO_MEMORY,
	  .put = put_write, .get = get_read_check },
	{ .name = "vmsplice-splice",
	  .what = "vmsplice(2) -> pipe -> splice(2) to /dev/null (pipe limit)",
	  .topology = TOPO_PIPE, .pipe = BIG_PIPE, .sink = TO_NULL,
	  .put = put_vmsplice, .get = get_splice_null, .flags = SWEEPABLE },
	{ .name = "vmsplice-huge",
	  .what = "the same from 2 MiB huge pages",
	  .topology = TOPO_PIPE, .pipe = BIG_PIPE, .sink = TO_NULL,
	  .put = put_vmsplice, .get = get_splice_null, .flags = HUGE_PAGES | SWEEPABLE },
	{ .name = "vmsplice-busy",
	  .what = "the same, huge pages, non-blocking busy loops",
	  .topology = TOPO_PIPE, .pipe = BIG_PIPE, .sink = TO_NULL,
	  .put = put_vmsplice, .get = get_splice_null,
	  .flags = HUGE_PAGES | BUSY_LOOP | SWEEPABLE },
	{ .name = "vmsplice-read",
	  .what = "vmsplice(2) -> pipe -> read(2)",
	  .topology = TOPO_PIPE, .pipe = BIG_PIPE, .sink = TO_MEMORY,
	  .put = put_vmsplice, .get = get_read_check },
	{ .name = "file-pipe-splice",
	  .what = "cached file -> splice(2) -> pipe -> splice(2) to /dev/null",
	  .topology = TOPO_PIPE, .pipe = BIG_PIPE, .sink = TO_NULL,
	  .put = put_file_splice, .get = get_splice_null, .flags = READS_FILE | SWEEPABLE },
	{ .name = "file-pipe-rw",
	  .what = "cached file -> read/write -> pipe -> read/write to /dev/null",
	  .topology = TOPO_PIPE, .pipe = BIG_PIPE, .sink = TO_NULL,
	  .put = put_file_rw, .get = get_read_null, .flags = READS_FILE },
	{ .name = "file-file-splice",
	  .what = "file -> file by splice(2) through a pipe",
	  .topology = TOPO_FILE, .pipe = BIG_PIPE, .sink = TO_FILE,
	  .put = copy_splice, .flags = READS_FILE },
	{ .name = "file-file-cfr",
	  .what = "file -> file by copy_file_range(2)",
	  .topology = TOPO_FILE, .pipe = NO_PIPE, .sink = TO_FILE,
	  .put = copy_range, .flags = READS_FILE },
	{ .name = "file-file-rw",
	  .what = "file -> file by read(2)/write(2)",
	  .topology = TOPO_FILE, .pipe = NO_PIPE, .sink = TO_FILE,
	  .put = copy_rw, .flags = READS_FILE },
	{ .name = "tcp-rw",
	  .what = "file -> loopback TCP by read(2)/write(2)",
	  .topology = TOPO_TCP, .pipe = NO_PIPE, .sink = TO_MEMORY,
	  .put = put_tcp_rw, .get = get_tcp, .flags = READS_FILE },
	{ .name = "tcp-sendfile",
	  .what = "file -> loopback TCP by sendfile(2)",
	  .topology = TOPO_TCP, .pipe = NO_PIPE, .sink = TO_MEMORY,
	  .put = put_tcp_sendfile, .get = get_tcp,
	  .flags = READS_FILE | SWEEPABLE | SENDFILE_REQUESTS },
	{ .name = "tcp-splice",
	  .what = "file -> loopback TCP by splice(2) through a pipe",
	  .topology = TOPO_TCP, .pipe = BIG_PIPE, .sink = TO_MEMORY,
	  .put = put_tcp_splice, .get = get_tcp,
	  .flags = READS_FILE | SWEEPABLE | SPLICES_TO_TCP },
	{ .name = "tcp-mmap",
	  .what = "file -> loopback TCP by mmap(2) and write(2)",
	  .topology = TOPO_TCP, .pipe = NO_PIPE, .sink = TO_MEMORY,
	  .put = put_tcp_mmap, .get = get_tcp, .flags = READS_FILE },
	{ .name = "tcp-sendfile-pipe",
	  .what = "file -> sendfile(2) -> loopback TCP -> splice(2) -> pipe -> /dev/null",
	  .topology = TOPO_TCP, .pipe = BIG_PIPE, .sink = TO_NULL,
	  .put = put_tcp_sendfile, .get = get_tcp_pipe,
	  .flags = READS_FILE | SWEEPABLE | SENDFILE_REQUESTS },
	{ .name = "tcp-splice-pipe",
	  .what = "file -> pipe -> splice(2) -> loopback TCP -> pipe -> /dev/null",
	  .topology = TOPO_TCP, .pipe = BIG_PIPE, .sink = TO_NULL,
	  .put = put_tcp_splice, .get = get_tcp_pipe,
	  .flags = READS_FILE | SWEEPABLE | SPLICES_TO_TCP },
	{ .name = "tcp-vmsplice-pipe",
	  .what = "vmsplice(2) -> pipe -> splice(2) -> loopback TCP -> pipe -> /dev/null",
	  .topology = TOPO_TCP_MIDDLE, .pipe = BIG_PIPE, .sink = TO_NULL,
	  .put = put_vmsplice, .mid = mid_tcp_splice, .get = get_tcp_pipe,
	  .flags = SWEEPABLE | SPLICES_TO_TCP },
	{ .name = "tee-tee",
	  .what = "pipe -> tee(2) into a second pipe, splice(2) to /dev/null",
	  .topology = TOPO_PIPE_MIDDLE, .pipe = BIG_PIPE, .sink = TO_MEMORY,
	  .put = put_vmsplice, .mid = mid_tee, .get = get_read_check, .flags = SWEEPABLE },
	{ .name = "tee-copy",
	  .what = "pipe -> read(2), write(2) to a second pipe and /dev/null",
	  .topology = TOPO_PIPE_MIDDLE, .pipe = BIG_PIPE, .sink = TO_MEMORY,
	  .put = put_vmsplice, .mid = mid_copy, .get = get_read_check },
};
#define N_CASES (sizeof(cases) / sizeof(cases[0]))

/* What the options asked for. */
struct options {
	bool selected[N_CASES], any_selected;
	bool list, corrupt, sweep;
	const char *dir;		/* where the test files go */
	struct bench_opts run;		/* what every case is asked */
};

/* splice-bench's options, as --help lists them (the format: splice.h, lib/optspec.c). */
static const char options[] =
	"l list\tlist the cases and exit\n"
	"c case NAME\trun only case NAME (repeatable)\n"
	"t time SECS\ttime to spend on the runs of each case (default 0.3)\n"
	"s size SIZE\tbytes per run (default: what fills the time)\n"
	"r runs N\truns per case, 3 or more (default 3)\n"
	"d dir DIR\twhere the test files go (default $TMPDIR or /tmp)\n"
	"- file-size SIZE\tthe input file of the file and TCP cases (default\n"
	"\t64M; rounded up to 2M)\n"
	"- csv\tprint comma-separated values for machines\n"
	"- corrupt\tchange one byte of the data the producers send, to show\n"
	"\tthat the checks catch it (every case fails, exit 1)\n"
	"- sweep\ttime the cases that splice or tee out of a pipe with\n"
	"\tpipes of 64K to pipe-max-size and requests of 16K to\n"
	"\tthe whole pipe, the TCP senders with socket buffers\n"
	"\tand SPLICE_F_MORE too, and mark the fixed and the best\n";
#define WITH 0
/* The codes of the options without a letter, in their order in options[]. */
enum { OPT_FILE_SIZE = OPT_TOOL_FIRST, OPT_CSV, OPT_CORRUPT, OPT_SWEEP };

static void
help(void)
{
	printf("Usage: %s [-l] [-c NAME]... [-t SECS] [-s SIZE] [-r RUNS] [-d DIR]\n"
	    "       [--file-size SIZE] [--csv] [--corrupt] [--sweep] [-v] [--strict]\n"
	    "       [--progress] [--name NAME] [--interval SECS] [--numeric]\n"
	    "       [--pipe-size SIZE]\n"
	    "Measure each way of moving bytes through pipes, files and loopback TCP on\n"
	    "this machine, checking every byte, and print GiB/s (median, min, max), CPU\n"
	    "seconds per GiB and the ratio to write/read through a 64 KiB pipe.\n"
	    "\n", progname);
	options_help(options, WITH);
}

static const struct bench_case *
find_case(const char *name)
{
	for (size_t i = 0; i < N_CASES; i++)
		if (strcmp(cases[i].name, name) == 0)
			return &cases[i];
	return NULL;
}

/* Parses the options into *op, and the input file's size into d. */
static void
parse_options(int argc, char *argv[], struct options *op, struct bench_data *d)
{
	const struct bench_case *bc;
	char *end;
	long n;
	int opt;

	op->dir = getenv("TMPDIR");
	if (op->dir == NULL || *op->dir == '\0')
		op->dir = "/tmp";
	while ((opt = options_next(argc, argv, options, WITH)) != -1) {
		switch (opt) {
		case 'l':
			op->list = true;
			break;
		case 'c':
			if ((bc = find_case(optarg)) == NULL)
				usage_error("--case: no such case: '%s' (see --list)", optarg);
			op->selected[bc - cases] = op->any_selected = true;
			break;
		case 't':
			errno = 0;
			op->run.secs = strtod(optarg, &end);
			if (errno || end == optarg || *end != '\0' ||
			    !(op->run.secs > 0 && op->run.secs <= 3600))
				usage_error("--time: must be more than 0 and at most 3600 seconds:"
				    " '%s'", optarg);
			break;
		case 's':
			op->run.size = option_size("--size", optarg);
			if (op->run.size == 0 || op->run.size > MAX_RUN_BYTES)
				usage_error("--size: must be 1 byte to 1T: '%s'", optarg);
			break;
		case 'r':
			errno = 0;
			n = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end != '\0' || n < 3 || n > 1000)
				usage_error("--runs: must be 3 to 1000: '%s'", optarg);
			op->run.runs = (int)n;
			break;
		case 'd':
			op->dir = optarg;
			break;
		case OPT_FILE_SIZE:
			/*
			 * A 64 MiB file and its page structures stay in the
			 * cache; a tool's 2 GiB file does not: measure its size.
			 */
			d->file_bytes = option_size("--file-size", optarg);
			if (d->file_bytes == 0 || d->file_bytes > MAX_RUN_BYTES)
				usage_error("--file-size: must be 1 byte to 1T: '%s'", optarg);
			d->file_bytes = (d->file_bytes + PATTERN_BYTES - 1) / PATTERN_BYTES *
			    PATTERN_BYTES;
			break;
		case OPT_CSV:
			op->run.csv = true;
			break;
		case OPT_CORRUPT:
			op->corrupt = true;
			break;
		case OPT_SWEEP:
			op->sweep = true;
			break;
		default:
			common_option(opt, optarg, help);
		}
	}
	no_operands(argc, argv);
}

static int
list_cases(void)
{
	for (size_t i = 0; i < N_CASES; i++)
		out_printf("%-17s %s\n", cases[i].name, cases[i].what);
	return exit_status();
}

/*
 * The cases to run, in the table's order, into bcs (without -c, every case,
 * or every case with a sweep); says whether one reads the input file.
 */
static size_t
select_cases(struct options *op, const struct bench_case **bcs, bool *need_file)
{
	size_t n = 0;

	*need_file = false;
	for (size_t i = 0; i < N_CASES; i++) {
		if (!op->any_selected)
			op->selected[i] = !op->sweep || cases[i].flags & SWEEPABLE;
		if (!op->selected[i])
			continue;
		if (op->sweep && !(cases[i].flags & SWEEPABLE))
			usage_error("--sweep: case '%s' has no request size to sweep",
			    cases[i].name);
		if (cases[i].flags & READS_FILE)
			*need_file = true;
		bcs[n++] = &cases[i];
	}
	return n;
}

int
main(int argc, char *argv[])
{
	static struct bench_data data = {
		.devnull = -1, .file_fd = -1, .out_fd = -1, .file_bytes = FILE_BYTES,
	};
	struct options op = { .run = { .secs = 0.3, .runs = 3, .d = &data } };
	const struct bench_case *bcs[N_CASES];
	bool need_file, any_failed;
	size_t n;

	set_progname(argv);
	parse_options(argc, argv, &op, &data);
	if (op.list)
		return list_cases();
	n = select_cases(&op, bcs, &need_file);

	(void)tool_start(STD_FD(STDOUT_FILENO), COUNT_INPUT);
	if (exit_status() != 0)
		return exit_status();
	on_ending_signal(end_workers);
	if (op.run.size)
		account_set_total((uint64_t)n * (min_size(op.run.size, CHECK_RUN_BYTES) +
		    (uint64_t)op.run.runs * op.run.size));
	if (data_make(&data, op.corrupt, op.run.size) < 0 ||
	    (need_file && files_make(&data, op.dir) < 0))
		return EXIT_ERROR;

	any_failed = op.sweep ? run_sweep(bcs, n, &op.run) : run_table(bcs, n, &op.run);
	if (any_failed)
		warn_msg("a case failed: its data or its system calls were wrong (see above)");
	report_totals();
	exit_flushing_stdout();
}
