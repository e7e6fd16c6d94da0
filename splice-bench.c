/*
 * splice-bench: measure each way of moving bytes through a pipe, a file and
 * loopback TCP on this machine, and check every byte that moved.
 *
 * The loops below are the methods being measured, written out one by one
 * as the 2006 splice-bench did; the tools move their bytes with move_fd().
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "splice.h"

/*
 * Every stream is one block of pseudo-random bytes repeated.  A block is a
 * huge page, so the vmsplice rows hand the same pages to the pipe again and
 * again and never write to a page the kernel may still hold.
 */
#define PATTERN_BYTES (2UL << 20)
#define SMALL_PIPE_BYTES 65536
#define RW_BUFFER_BYTES ((size_t)128 * 1024)	/* what cat(1) and cp(1) use */
#define CHECK_RUN_BYTES (32ULL << 20)
#define FILE_BYTES (64ULL << 20)
#define MIN_RUN_BYTES (4ULL << 20)
#define MAX_RUN_BYTES (1ULL << 40)
#define ACCEPT_TIMEOUT_MS 10000
/* What splice-tonet asks of sendfile(2) per call. */
#define SENDFILE_CALL_BYTES ((size_t)16 << 20)

enum pipe_kind { NO_PIPE, SMALL_PIPE, BIG_PIPE };
/* Where the bytes end up decides how a run checks them (see the man page). */
enum sink { TO_MEMORY, TO_NULL, TO_FILE };

/* How a case's processes are connected; the runner wires each the same way. */
enum topology {
	TOPO_PIPE,		/* put -> pipe -> get */
	TOPO_PIPE_MIDDLE,	/* put -> pipe -> mid -> pipe -> get */
	TOPO_TCP,		/* put -> loopback TCP -> get */
	TOPO_TCP_MIDDLE,	/* put -> pipe -> mid -> loopback TCP -> get */
	TOPO_FILE,		/* put alone: the input file -> the output file */
};

/* What the runner, the sweep and the report need to know of a case. */
enum case_flag {
	READS_FILE = 1 << 0,		/* it needs the input file */
	HUGE_PAGES = 1 << 1,		/* the producer sends from a 2 MiB huge page */
	BUSY_LOOP = 1 << 2,		/* SPLICE_F_NONBLOCK loops instead of sleeping */
	SWEEPABLE = 1 << 3,		/* its consumer chooses its request size: --sweep */
	SPLICES_TO_TCP = 1 << 4,	/* its TCP sender splices out of a pipe */
	SENDFILE_REQUESTS = 1 << 5,	/* its TCP sender's requests are sendfile(2)'s */
	BASELINE = 1 << 6,		/* the row the ratios compare with */
};

struct stage;
typedef int stage_fn(struct stage *s);

struct bench_case {
	const char *name;
	const char *what;
	enum topology topology;
	enum pipe_kind pipe;
	enum sink sink;
	stage_fn *put, *mid, *get;	/* producer, middle (the *_MIDDLE topologies), consumer */
	unsigned int flags;		/* enum case_flag */
};

static bool
over_tcp(const struct bench_case *bc)
{
	return bc->topology == TOPO_TCP || bc->topology == TOPO_TCP_MIDDLE;
}

/* When a sender into TCP passes SPLICE_F_MORE. */
enum more_mode {
	MORE_WHEN_FULL,		/* the pipe is full and more is to come, as the tools do */
	MORE_OFF,
	MORE_ALWAYS,		/* every call but the last */
};

struct stage {
	stage_fn *fn;
	const struct bench_case *bc;
	int in, out;
	uint64_t bytes;		/* what the run moves */
	bool check;		/* a consumer that would discard checks instead */
	size_t cap;		/* capacity of the pipe it uses */
	size_t req;		/* what a consumer (a TCP sender) asks for per call; 0: cap */
	size_t sock_bytes;	/* SO_SNDBUF of a TCP sender; 0: the kernel's autotuning */
	enum more_mode more;	/* a TCP sender's SPLICE_F_MORE */
	pid_t pid;
	int status;		/* from wait4() */
};

/* A configuration the sweep tries; zeros are the case's own settings. */
struct tuning {
	size_t pipe_bytes;	/* capacity to ask for; 0: --pipe-size or 1 MiB */
	size_t req_bytes;	/* what the consumer asks for per call; 0: capacity */
	size_t sock_bytes;	/* SO_SNDBUF and SO_RCVBUF; 0: the kernel's autotuning */
	enum more_mode more;	/* TCP from a pipe: when to pass SPLICE_F_MORE */
};

struct result {
	double *gib_s, *cpu_s_gib;
	int runs;
	size_t cap;
	uint64_t run_bytes;
	bool failed;
};

static unsigned char *pattern;	/* the reference the checks compare with */
static unsigned char *data;	/* what the producers send */
static unsigned char *huge_data;	/* the same, on a 2 MiB aligned huge page */
static int devnull = -1;
static int file_fd = -1, out_fd = -1;
static uint64_t file_bytes = FILE_BYTES;
static struct sockaddr_in tcp_addr;
static int tracked[8];
static int n_tracked;

static stage_fn put_write, put_vmsplice, put_file_splice, put_file_rw;
static stage_fn put_tcp_rw, put_tcp_sendfile, put_tcp_splice, put_tcp_mmap;
static stage_fn get_read_check, get_read_null, get_splice_null, get_tcp, get_tcp_pipe;
static stage_fn mid_tee, mid_copy, mid_tcp_splice;
static stage_fn copy_splice, copy_range, copy_rw;

static const struct bench_case cases[] = {
	{
		.name = "pipe-rw-64k",
		.what = "write(2) -> pipe -> read(2), 64 KiB pipe",
		.topology = TOPO_PIPE, .pipe = SMALL_PIPE, .sink = TO_MEMORY,
		.put = put_write, .get = get_read_check,
		.flags = BASELINE,
	},
	{
		.name = "pipe-rw-1m",
		.what = "write(2) -> pipe -> read(2), 1 MiB pipe",
		.topology = TOPO_PIPE, .pipe = BIG_PIPE, .sink = TO_MEMORY,
		.put = put_write, .get = get_read_check,
	},
	{
		.name = "vmsplice-splice",
		.what = "vmsplice(2) -> pipe -> splice(2) to /dev/null (pipe limit)",
		.topology = TOPO_PIPE, .pipe = BIG_PIPE, .sink = TO_NULL,
		.put = put_vmsplice, .get = get_splice_null,
		.flags = SWEEPABLE,
	},
	{
		.name = "vmsplice-huge",
		.what = "the same from 2 MiB huge pages",
		.topology = TOPO_PIPE, .pipe = BIG_PIPE, .sink = TO_NULL,
		.put = put_vmsplice, .get = get_splice_null,
		.flags = HUGE_PAGES | SWEEPABLE,
	},
	{
		.name = "vmsplice-busy",
		.what = "the same, huge pages, non-blocking busy loops",
		.topology = TOPO_PIPE, .pipe = BIG_PIPE, .sink = TO_NULL,
		.put = put_vmsplice, .get = get_splice_null,
		.flags = HUGE_PAGES | BUSY_LOOP | SWEEPABLE,
	},
	{
		.name = "vmsplice-read",
		.what = "vmsplice(2) -> pipe -> read(2)",
		.topology = TOPO_PIPE, .pipe = BIG_PIPE, .sink = TO_MEMORY,
		.put = put_vmsplice, .get = get_read_check,
	},
	{
		.name = "file-pipe-splice",
		.what = "cached file -> splice(2) -> pipe -> splice(2) to /dev/null",
		.topology = TOPO_PIPE, .pipe = BIG_PIPE, .sink = TO_NULL,
		.put = put_file_splice, .get = get_splice_null,
		.flags = READS_FILE | SWEEPABLE,
	},
	{
		.name = "file-pipe-rw",
		.what = "cached file -> read/write -> pipe -> read/write to /dev/null",
		.topology = TOPO_PIPE, .pipe = BIG_PIPE, .sink = TO_NULL,
		.put = put_file_rw, .get = get_read_null,
		.flags = READS_FILE,
	},
	{
		.name = "file-file-splice",
		.what = "file -> file by splice(2) through a pipe",
		.topology = TOPO_FILE, .pipe = BIG_PIPE, .sink = TO_FILE,
		.put = copy_splice,
		.flags = READS_FILE,
	},
	{
		.name = "file-file-cfr",
		.what = "file -> file by copy_file_range(2)",
		.topology = TOPO_FILE, .pipe = NO_PIPE, .sink = TO_FILE,
		.put = copy_range,
		.flags = READS_FILE,
	},
	{
		.name = "file-file-rw",
		.what = "file -> file by read(2)/write(2)",
		.topology = TOPO_FILE, .pipe = NO_PIPE, .sink = TO_FILE,
		.put = copy_rw,
		.flags = READS_FILE,
	},
	{
		.name = "tcp-rw",
		.what = "file -> loopback TCP by read(2)/write(2)",
		.topology = TOPO_TCP, .pipe = NO_PIPE, .sink = TO_MEMORY,
		.put = put_tcp_rw, .get = get_tcp,
		.flags = READS_FILE,
	},
	{
		.name = "tcp-sendfile",
		.what = "file -> loopback TCP by sendfile(2)",
		.topology = TOPO_TCP, .pipe = NO_PIPE, .sink = TO_MEMORY,
		.put = put_tcp_sendfile, .get = get_tcp,
		.flags = READS_FILE | SWEEPABLE | SENDFILE_REQUESTS,
	},
	{
		.name = "tcp-splice",
		.what = "file -> loopback TCP by splice(2) through a pipe",
		.topology = TOPO_TCP, .pipe = BIG_PIPE, .sink = TO_MEMORY,
		.put = put_tcp_splice, .get = get_tcp,
		.flags = READS_FILE | SWEEPABLE | SPLICES_TO_TCP,
	},
	{
		.name = "tcp-mmap",
		.what = "file -> loopback TCP by mmap(2) and write(2)",
		.topology = TOPO_TCP, .pipe = NO_PIPE, .sink = TO_MEMORY,
		.put = put_tcp_mmap, .get = get_tcp,
		.flags = READS_FILE,
	},
	{
		.name = "tcp-sendfile-pipe",
		.what = "file -> sendfile(2) -> loopback TCP -> splice(2) -> pipe -> "
		    "/dev/null",
		.topology = TOPO_TCP, .pipe = BIG_PIPE, .sink = TO_NULL,
		.put = put_tcp_sendfile, .get = get_tcp_pipe,
		.flags = READS_FILE | SWEEPABLE | SENDFILE_REQUESTS,
	},
	{
		.name = "tcp-splice-pipe",
		.what = "file -> pipe -> splice(2) -> loopback TCP -> pipe -> /dev/null",
		.topology = TOPO_TCP, .pipe = BIG_PIPE, .sink = TO_NULL,
		.put = put_tcp_splice, .get = get_tcp_pipe,
		.flags = READS_FILE | SWEEPABLE | SPLICES_TO_TCP,
	},
	{
		.name = "tcp-vmsplice-pipe",
		.what = "vmsplice(2) -> pipe -> splice(2) -> loopback TCP -> pipe -> "
		    "/dev/null",
		.topology = TOPO_TCP_MIDDLE, .pipe = BIG_PIPE, .sink = TO_NULL,
		.put = put_vmsplice, .mid = mid_tcp_splice, .get = get_tcp_pipe,
		.flags = SWEEPABLE | SPLICES_TO_TCP,
	},
	{
		.name = "tee-tee",
		.what = "pipe -> tee(2) into a second pipe, splice(2) to /dev/null",
		.topology = TOPO_PIPE_MIDDLE, .pipe = BIG_PIPE, .sink = TO_MEMORY,
		.put = put_vmsplice, .mid = mid_tee, .get = get_read_check,
		.flags = SWEEPABLE,
	},
	{
		.name = "tee-copy",
		.what = "pipe -> read(2), write(2) to a second pipe and /dev/null",
		.topology = TOPO_PIPE_MIDDLE, .pipe = BIG_PIPE, .sink = TO_MEMORY,
		.put = put_vmsplice, .mid = mid_copy, .get = get_read_check,
	},
};
#define N_CASES (sizeof(cases) / sizeof(cases[0]))

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
	    "\n"
	    "  -l, --list          list the cases and exit\n"
	    "  -c, --case NAME     run only case NAME (repeatable)\n"
	    "  -t, --time SECS     time to spend on the runs of each case (default 0.3)\n"
	    "  -s, --size SIZE     bytes per run (default: what fills the time)\n"
	    "  -r, --runs N        runs per case, 3 or more (default 3)\n"
	    "  -d, --dir DIR       where the test files go (default $TMPDIR or /tmp)\n"
	    "      --file-size SIZE  the input file of the file and TCP cases (default\n"
	    "                      64M; rounded up to 2M)\n"
	    "      --csv           print comma-separated values for machines\n"
	    "      --corrupt       change one byte of the data the producers send, to show\n"
	    "                      that the checks catch it (every case fails, exit 1)\n"
	    "      --sweep         time the cases that splice or tee out of a pipe with\n"
	    "                      pipes of 64K to pipe-max-size and requests of 16K to\n"
	    "                      the whole pipe, the TCP senders with socket buffers\n"
	    "                      and SPLICE_F_MORE too, and mark the fixed and the best\n"
	    COMMON_HELP, progname);
}

/* ---- the data and its check ------------------------------------------------ */

/*
 * The reference stream, and the data the producers send: the same bytes,
 * but with corrupt, one byte changed where every checked run of run_bytes
 * (0: the default sizes) still carries it.
 */
static int
make_pattern(bool corrupt, uint64_t run_bytes)
{
	/* A fresh stream every time the tool runs. */
	const struct pattern stream = {
		.kind = PAT_RANDOM, .seed = (uint64_t)getpid() ^ (uint64_t)time(NULL),
	};

	pattern = map_region(PATTERN_BYTES, false);
	data = map_region(PATTERN_BYTES, false);
	huge_data = map_region(PATTERN_BYTES, true);
	if (pattern == NULL || data == NULL || huge_data == NULL) {
		warn_errno("mmap");
		return -1;
	}
	pattern_fill(&stream, 0, pattern, PATTERN_BYTES);
	memcpy(data, pattern, PATTERN_BYTES);
	if (corrupt) {
		uint64_t at = PATTERN_BYTES / 2 + 1;

		if (run_bytes > 0 && run_bytes / 2 < at)
			at = run_bytes / 2;
		data[at] ^= 0x40;
	}
	memcpy(huge_data, data, PATTERN_BYTES);
	return 0;
}

/* Compares n bytes at stream offset *offset with the pattern; says where it differs. */
static int
check_bytes(const struct stage *s, uint64_t *offset, const unsigned char *buf, size_t n)
{
	while (n > 0) {
		size_t pos = (size_t)(*offset % PATTERN_BYTES), len = PATTERN_BYTES - pos;

		if (len > n)
			len = n;
		if (memcmp(buf, pattern + pos, len) != 0) {
			size_t i = 0;

			while (buf[i] == pattern[pos + i])
				i++;
			warn_msg("%s: wrong byte at offset %llu: 0x%02x, expected 0x%02x",
			    s->bc->name, (unsigned long long)*offset + i, buf[i],
			    pattern[pos + i]);
			return -1;
		}
		buf += len;
		n -= len;
		*offset += len;
	}
	return 0;
}

static int
check_count(const struct stage *s, uint64_t got)
{
	if (got == s->bytes)
		return 0;
	warn_msg("%s: %llu bytes arrived, %llu were sent", s->bc->name,
	    (unsigned long long)got, (unsigned long long)s->bytes);
	return -1;
}

static size_t
min_size(uint64_t a, uint64_t b)
{
	return (size_t)(a < b ? a : b);
}

/* What a consumer asks of read(2), splice(2) or tee(2) per call. */
static size_t
request_bytes(const struct stage *s)
{
	return s->req && s->req < s->cap ? s->req : s->cap;
}

/*
 * The length of the next piece of the input file for a stage that has moved
 * done of its s->bytes: at most limit bytes from *off, which wraps to the
 * start at the end of the file (a run longer than the file passes over it
 * again).
 */
static size_t
file_piece(const struct stage *s, uint64_t done, loff_t *off, size_t limit)
{
	if ((uint64_t)*off == file_bytes)
		*off = 0;
	return min_size(s->bytes - done, min_size(limit, file_bytes - (uint64_t)*off));
}

static int
fail_call(const struct stage *s, const char *call)
{
	warn_errno("%s: %s", s->bc->name, call);
	return -1;
}

/*
 * A busy loop gives its CPU away when the pipe is not ready: alone on a CPU
 * that costs one system call, but where the peer waits for the same CPU a
 * pure spin would burn its whole time slice before the peer could move.
 */
static void
busy_wait(void)
{
	sched_yield();
}

/* ---- producers: PATTERN repeated, s->bytes of it, into s->out ---------------- */

static int
put_write(struct stage *s)
{
	uint64_t sent = 0;

	while (sent < s->bytes) {
		size_t pos = (size_t)(sent % PATTERN_BYTES);
		ssize_t n = write(s->out, data + pos,
		    min_size(s->bytes - sent, min_size(s->cap, PATTERN_BYTES - pos)));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail_call(s, "write");
		sent += (uint64_t)n;
	}
	return 0;
}

/*
 * The 2006 double buffer: two halves of one pipe capacity each, spliced in
 * turn.  The bytes never change, so no half is ever rewritten.
 */
static int
put_vmsplice(struct stage *s)
{
	const unsigned char *buf = s->bc->flags & HUGE_PAGES ? huge_data : data;
	unsigned int flags = s->bc->flags & BUSY_LOOP ? SPLICE_F_NONBLOCK : 0;
	uint64_t sent = 0;

	while (sent < s->bytes) {
		size_t pos = (size_t)(sent % PATTERN_BYTES);
		struct iovec iov = {
			.iov_base = (void *)(buf + pos),
			.iov_len = min_size(s->bytes - sent, min_size(s->cap, PATTERN_BYTES - pos)),
		};
		ssize_t n = vmsplice(s->out, &iov, 1, flags);

		if (n < 0 && errno == EAGAIN && flags) {
			busy_wait();
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail_call(s, "vmsplice");
		sent += (uint64_t)n;
	}
	return 0;
}

static int
put_file_splice(struct stage *s)
{
	uint64_t sent = 0;
	loff_t off = 0;

	while (sent < s->bytes) {
		size_t len = file_piece(s, sent, &off, s->cap);
		ssize_t n = splice(file_fd, &off, s->out, NULL, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail_call(s, "splice");
		sent += (uint64_t)n;
	}
	return 0;
}

static int
put_file_rw(struct stage *s)
{
	static unsigned char buf[RW_BUFFER_BYTES];
	uint64_t sent = 0;
	loff_t off = 0;

	while (sent < s->bytes) {
		size_t len = file_piece(s, sent, &off, sizeof(buf));
		ssize_t n = pread(file_fd, buf, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail_call(s, "read");
		if (write_all(s->out, buf, (size_t)n) < 0)
			return fail_call(s, "write");
		sent += (uint64_t)n;
		off += n;
	}
	return 0;
}

/* ---- consumers: read everything from s->in, count it, check it ------------- */

static int
get_read_check(struct stage *s)
{
	size_t req = request_bytes(s);
	unsigned char *buf = malloc(req);
	uint64_t got = 0;

	if (buf == NULL)
		return fail_call(s, "malloc");
	for (;;) {
		ssize_t n = read(s->in, buf, req);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail_call(s, "read");
		if (n == 0)
			break;
		if (check_bytes(s, &got, buf, (size_t)n) < 0)
			return -1;
	}
	free(buf);
	return check_count(s, got);
}

/* read(2) then write(2) to /dev/null, as `cat > /dev/null` does. */
static int
get_read_null(struct stage *s)
{
	static unsigned char buf[RW_BUFFER_BYTES];
	uint64_t got = 0;

	if (s->check)
		return get_read_check(s);
	for (;;) {
		ssize_t n = read(s->in, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail_call(s, "read");
		if (n == 0)
			break;
		if (write_all(devnull, buf, (size_t)n) < 0)
			return fail_call(s, "write");
		got += (uint64_t)n;
	}
	return check_count(s, got);
}

static int
get_splice_null(struct stage *s)
{
	unsigned int flags = s->bc->flags & BUSY_LOOP ? SPLICE_F_NONBLOCK : 0;
	size_t req = request_bytes(s);
	uint64_t got = 0;

	if (s->check)
		return get_read_check(s);
	for (;;) {
		ssize_t n = splice(s->in, NULL, devnull, NULL, req, flags);

		if (n < 0 && errno == EAGAIN && flags) {
			busy_wait();
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail_call(s, "splice");
		if (n == 0)
			break;
		got += (uint64_t)n;
	}
	return check_count(s, got);
}

/* ---- the middle of a three-process pipeline: a tee to /dev/null ------------ */

static int
mid_tee(struct stage *s)
{
	for (;;) {
		ssize_t n = tee(s->in, s->out, request_bytes(s), 0), left;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail_call(s, "tee");
		if (n == 0)
			return 0;
		/* tee(2) left the bytes in the input pipe: consume what it copied. */
		for (left = n; left > 0; ) {
			ssize_t m = splice(s->in, NULL, devnull, NULL, (size_t)left, 0);

			if (m < 0 && errno == EINTR)
				continue;
			if (m <= 0)
				return fail_call(s, "splice");
			left -= m;
		}
	}
}

static int
mid_copy(struct stage *s)
{
	unsigned char *buf = malloc(s->cap);

	if (buf == NULL)
		return fail_call(s, "malloc");
	for (;;) {
		ssize_t n = read(s->in, buf, s->cap);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail_call(s, "read");
		if (n == 0)
			break;
		if (write_all(s->out, buf, (size_t)n) < 0 ||
		    write_all(devnull, buf, (size_t)n) < 0)
			return fail_call(s, "write");
	}
	free(buf);
	return 0;
}

/* ---- file to file: one process, s->bytes in passes over the input file ------- */

static int
copy_splice(struct stage *s)
{
	int p[2];
	uint64_t done = 0;
	loff_t in_off = 0, out_off = 0;

	if (pipe(p) < 0 || fcntl(p[1], F_SETPIPE_SZ, (int)s->cap) < 0)
		return fail_call(s, "pipe");
	while (done < s->bytes) {
		size_t len = file_piece(s, done, &in_off, s->cap);
		ssize_t n;

		out_off = in_off;	/* each pass over the input rewrites the copy */
		n = splice(file_fd, &in_off, p[1], NULL, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail_call(s, "splice from the file");
		while (n > 0) {
			ssize_t m = splice(p[0], NULL, out_fd, &out_off, (size_t)n, 0);

			if (m < 0 && errno == EINTR)
				continue;
			if (m <= 0)
				return fail_call(s, "splice to the file");
			n -= m;
			done += (uint64_t)m;
		}
	}
	return 0;
}

static int
copy_range(struct stage *s)
{
	uint64_t done = 0;
	loff_t in_off = 0, out_off = 0;

	while (done < s->bytes) {
		size_t len = file_piece(s, done, &in_off, SIZE_MAX);
		ssize_t n;

		out_off = in_off;	/* each pass over the input rewrites the copy */
		n = copy_file_range(file_fd, &in_off, out_fd, &out_off, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail_call(s, "copy_file_range");
		done += (uint64_t)n;
	}
	return 0;
}

static int
copy_rw(struct stage *s)
{
	static unsigned char buf[RW_BUFFER_BYTES];
	uint64_t done = 0;
	loff_t off = 0;

	while (done < s->bytes) {
		size_t len = file_piece(s, done, &off, sizeof(buf));
		ssize_t n = pread(file_fd, buf, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail_call(s, "read");
		for (ssize_t w = 0; w < n; ) {
			ssize_t m = pwrite(out_fd, buf + w, (size_t)(n - w), off + w);

			if (m < 0 && errno == EINTR)
				continue;
			if (m <= 0)
				return fail_call(s, "write");
			w += m;
		}
		done += (uint64_t)n;
		off += n;
	}
	return 0;
}

/* The output file holds the input's first min(run, file) bytes, no more. */
static int
check_output_file(const struct stage *s)
{
	static unsigned char buf[RW_BUFFER_BYTES];
	uint64_t want = s->bytes < file_bytes ? s->bytes : file_bytes, off = 0;
	off_t end = lseek(out_fd, 0, SEEK_END);

	if (end < 0 || (uint64_t)end != want) {
		warn_msg("%s: the copy has %lld bytes, expected %llu", s->bc->name,
		    (long long)end, (unsigned long long)want);
		return -1;
	}
	while (off < want) {
		ssize_t n = pread(out_fd, buf, min_size(sizeof(buf), want - off), (off_t)off);

		if (n <= 0) {
			warn_errno("%s: reading the copy back", s->bc->name);
			return -1;
		}
		if (check_bytes(s, &off, buf, (size_t)n) < 0)
			return -1;
	}
	return 0;
}

/* ---- file to loopback TCP: the 2006 splice-test4c question ------------------ */

/* SO_SNDBUF or SO_RCVBUF; setting either turns the kernel's autotuning off. */
static int
set_sock_bytes(int fd, int opt, size_t bytes)
{
	int val = bytes > INT_MAX ? INT_MAX : (int)bytes;

	return bytes ? setsockopt(fd, SOL_SOCKET, opt, &val, sizeof(val)) : 0;
}

static int
tcp_dial(const struct stage *s)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || set_sock_bytes(fd, SO_SNDBUF, s->sock_bytes) < 0 ||
	    connect(fd, (const struct sockaddr *)&tcp_addr, sizeof(tcp_addr)) < 0)
		return fail_call(s, "connect");
	return fd;
}

/*
 * SPLICE_F_MORE for a splice of n bytes out of a pipe holding queued, with
 * left still to send: the kernel corks the socket until the next call.
 */
static unsigned int
more_flag(const struct stage *s, size_t n, size_t queued, uint64_t left)
{
	switch (s->more) {
	case MORE_OFF:
		return 0;
	case MORE_ALWAYS:
		return left > n ? SPLICE_F_MORE : 0;
	case MORE_WHEN_FULL:
	default:
		return queued >= s->cap && left > queued ? SPLICE_F_MORE : 0;
	}
}

static int
put_tcp_rw(struct stage *s)
{
	if ((s->out = tcp_dial(s)) < 0)
		return -1;
	return put_file_rw(s);
}

static int
put_tcp_sendfile(struct stage *s)
{
	size_t call_bytes = s->req ? s->req : SENDFILE_CALL_BYTES;
	uint64_t sent = 0;
	loff_t off = 0;
	int sock = tcp_dial(s);

	if (sock < 0)
		return -1;
	while (sent < s->bytes) {
		size_t len = file_piece(s, sent, &off, call_bytes);
		ssize_t n = sendfile(sock, file_fd, &off, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail_call(s, "sendfile");
		sent += (uint64_t)n;
	}
	return 0;
}

/* Splices n bytes, which pipe `from` holds, into sock, request_bytes() a call. */
static int
splice_to_socket(struct stage *s, int from, int sock, size_t n, uint64_t *sent)
{
	while (n > 0) {
		size_t want = min_size(n, request_bytes(s));
		ssize_t m = splice(from, NULL, sock, NULL, want,
		    more_flag(s, want, n, s->bytes - *sent));

		if (m < 0 && errno == EINTR)
			continue;
		if (m <= 0)
			return fail_call(s, "splice to the socket");
		n -= (size_t)m;
		*sent += (uint64_t)m;
	}
	return 0;
}

static int
put_tcp_splice(struct stage *s)
{
	int p[2], sock = tcp_dial(s);
	uint64_t sent = 0;
	loff_t off = 0;

	if (sock < 0)
		return -1;
	if (pipe(p) < 0 || fcntl(p[1], F_SETPIPE_SZ, (int)s->cap) < 0)
		return fail_call(s, "pipe");
	while (sent < s->bytes) {
		size_t len = file_piece(s, sent, &off, s->cap);
		ssize_t n = splice(file_fd, &off, p[1], NULL, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail_call(s, "splice from the file");
		if (splice_to_socket(s, p[0], sock, (size_t)n, &sent) < 0)
			return -1;
	}
	return 0;
}

/* The middle of vmsplice -> pipe -> TCP: what splice-tonet does with a pipe. */
static int
mid_tcp_splice(struct stage *s)
{
	int sock = tcp_dial(s);
	uint64_t sent = 0;

	if (sock < 0)
		return -1;
	for (;;) {
		int queued = 0;
		size_t want = request_bytes(s);
		ssize_t n;

		if (ioctl(s->in, FIONREAD, &queued) < 0)
			queued = 0;
		n = splice(s->in, NULL, sock, NULL, want,
		    more_flag(s, want, (size_t)queued, s->bytes - sent));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail_call(s, "splice to the socket");
		if (n == 0)
			return 0;
		sent += (uint64_t)n;
	}
}

static int
put_tcp_mmap(struct stage *s)
{
	unsigned char *map;
	uint64_t sent = 0;
	loff_t off = 0;
	int sock = tcp_dial(s);

	if (sock < 0)
		return -1;
	map = mmap(NULL, (size_t)file_bytes, PROT_READ, MAP_SHARED, file_fd, 0);
	if (map == MAP_FAILED)
		return fail_call(s, "mmap");
	while (sent < s->bytes) {
		size_t len = file_piece(s, sent, &off, 1 << 20);
		ssize_t n = write(sock, map + off, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail_call(s, "write");
		sent += (uint64_t)n;
		off += n;
	}
	return 0;
}

/* The sender's connection, accepted on s->in; the listener is closed. */
static int
tcp_take(struct stage *s)
{
	struct pollfd pfd = { .fd = s->in, .events = POLLIN };
	int sock, ready;

	/* A sender that died before it connected must not leave us waiting. */
	while ((ready = poll(&pfd, 1, ACCEPT_TIMEOUT_MS)) < 0 && errno == EINTR)
		;
	if (ready == 0) {
		warn_msg("%s: no connection within %d s", s->bc->name, ACCEPT_TIMEOUT_MS / 1000);
		return -1;
	}
	while ((sock = accept(s->in, NULL, NULL)) < 0)
		if (errno != EINTR)
			return fail_call(s, "accept");
	close(s->in);
	s->in = sock;
	return 0;
}

static int
get_tcp(struct stage *s)
{
	if (tcp_take(s) < 0)
		return -1;
	s->cap = RW_BUFFER_BYTES;
	return get_read_check(s);
}

/* Reads exactly n bytes of pipe fd into buf. */
static int
read_held(int fd, unsigned char *buf, size_t n)
{
	while (n > 0) {
		ssize_t m = read(fd, buf, n);

		if (m < 0 && errno == EINTR)
			continue;
		if (m <= 0)
			return -1;
		buf += m;
		n -= (size_t)m;
	}
	return 0;
}

/*
 * What splice-fromnet does with an output that is not a pipe: socket ->
 * pipe of its own -> output, each splice(2) asking for the whole pipe.
 * The checked run reads the pipe and compares instead of splicing it on.
 */
static int
get_tcp_pipe(struct stage *s)
{
	unsigned char *buf = s->check ? malloc(s->cap) : NULL;
	uint64_t got = 0;
	int p[2];

	if (tcp_take(s) < 0)
		return -1;
	if ((s->check && buf == NULL) || pipe(p) < 0 ||
	    fcntl(p[1], F_SETPIPE_SZ, (int)s->cap) < 0)
		return fail_call(s, "pipe");
	for (;;) {
		ssize_t n = splice(s->in, NULL, p[1], NULL, s->cap, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail_call(s, "splice from the socket");
		if (n == 0)
			break;
		if (s->check) {
			if (read_held(p[0], buf, (size_t)n) < 0)
				return fail_call(s, "read");
			if (check_bytes(s, &got, buf, (size_t)n) < 0)
				return -1;
			continue;
		}
		while (n > 0) {
			ssize_t m = splice(p[0], NULL, devnull, NULL, (size_t)n, 0);

			if (m < 0 && errno == EINTR)
				continue;
			if (m <= 0)
				return fail_call(s, "splice to /dev/null");
			n -= m;
			got += (uint64_t)m;
		}
	}
	free(buf);
	return check_count(s, got);
}

/* ---- running a case --------------------------------------------------------- */

static void
track(int fd)
{
	tracked[n_tracked++] = fd;
}

static void
close_tracked(void)
{
	while (n_tracked > 0)
		close(tracked[--n_tracked]);
}

/* The workers of the run in progress, for end_workers(). */
static pid_t workers[3];
/* Held while a worker is forked and recorded, and for good once they end. */
static pthread_mutex_t workers_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * SIGINT, SIGTERM or SIGHUP (lib/progress.c calls this on its thread, then
 * prints the totals and dies of the signal): no worker may outlive us, so
 * kill them and wait until they are dead.  They are left for run_once() to
 * reap, which then stops at the lock, kept for good: no worker is forked,
 * and no failure reported, after this.
 */
static void
end_workers(void)
{
	const size_t n = sizeof(workers) / sizeof(workers[0]);

	pthread_mutex_lock(&workers_lock);
	/*
	 * Every worker is killed before any is waited for: one may sleep
	 * uninterruptibly until another, which holds a lock it wants, is gone.
	 */
	for (size_t i = 0; i < n; i++)
		if (workers[i] > 0)
			kill(workers[i], SIGKILL);
	for (size_t i = 0; i < n; i++) {
		siginfo_t info;

		while (workers[i] > 0 &&
		    waitid(P_PID, (id_t)workers[i], &info, WEXITED | WNOWAIT) < 0 && errno == EINTR)
			;
	}
}

/*
 * The start of a run.  Each worker closes the descriptors it does not use,
 * says so on ready, and waits until go reads end of file: no worker starts
 * before every one holds only its own.  Otherwise a worker that still had
 * another's pipe open could sleep in close(2) on that pipe's lock while the
 * other sits in splice(2) holding it, waiting for it (a TCP receiver that
 * never gets to accept).
 */
struct gate {
	int ready[2], go[2];
};

static int
gate_make(struct gate *g)
{
	if (pipe2(g->ready, O_CLOEXEC) < 0) {
		warn_errno("pipe");
		return -1;
	}
	if (pipe2(g->go, O_CLOEXEC) < 0) {
		warn_errno("pipe");
		close(g->ready[0]);
		close(g->ready[1]);
		return -1;
	}
	return 0;
}

/* In a worker: its descriptors closed, wait for the others. */
static int
gate_pass(const struct gate *g)
{
	char c = 0;
	ssize_t r;

	close(g->ready[0]);
	close(g->go[1]);
	if (write_all(g->ready[1], &c, 1) < 0)
		return -1;
	close(g->ready[1]);
	while ((r = read(g->go[0], &c, 1)) < 0 && errno == EINTR)
		;
	close(g->go[0]);
	return r == 0 ? 0 : -1;
}

/* In the tool: once n workers are ready (or gone), let them all start, now. */
static double
gate_open(struct gate *g, int n)
{
	double start;
	char c[8];
	int ready = 0;

	close(g->ready[1]);
	while (ready < n) {
		ssize_t r = read(g->ready[0], c, sizeof(c));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;	/* a worker died before it was ready: the run fails */
		ready += (int)r;
	}
	close(g->ready[0]);
	start = now_seconds();
	close(g->go[1]);
	close(g->go[0]);
	return start;
}

static int
spawn(struct stage *s, int slot, const struct gate *g)
{
	pid_t tool = getpid();

	fflush(stdout);
	fflush(stderr);
	/* The pid is recorded before end_workers() can ask for it. */
	pthread_mutex_lock(&workers_lock);
	s->pid = fork();
	if (s->pid > 0)
		workers[slot] = s->pid;
	if (s->pid != 0)
		pthread_mutex_unlock(&workers_lock);
	if (s->pid < 0) {
		warn_errno("fork");
		return -1;
	}
	if (s->pid == 0) {
		/*
		 * A worker dies with the tool, whatever kills the tool.  The
		 * ending signals stay blocked, as in the tool's thread: the
		 * tool ends its workers itself.
		 */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != tool)
			_exit(EXIT_ERROR);
		for (int i = 0; i < n_tracked; i++)
			if (tracked[i] != s->in && tracked[i] != s->out)
				close(tracked[i]);
		if (gate_pass(g) < 0)
			_exit(EXIT_ERROR);
		_exit(s->fn(s) == 0 ? 0 : EXIT_ERROR);
	}
	return 0;
}

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

/* SO_RCVBUF is set before listen(2): the window scale is agreed in the handshake. */
static int
tcp_listener(size_t sock_bytes)
{
	socklen_t len = sizeof(tcp_addr);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&tcp_addr, 0, sizeof(tcp_addr));
	tcp_addr.sin_family = AF_INET;
	tcp_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || set_sock_bytes(fd, SO_RCVBUF, sock_bytes) < 0 ||
	    bind(fd, (struct sockaddr *)&tcp_addr, sizeof(tcp_addr)) < 0 ||
	    listen(fd, 1) < 0 || getsockname(fd, (struct sockaddr *)&tcp_addr, &len) < 0) {
		warn_errno("127.0.0.1 port 0");
		if (fd >= 0)
			close(fd);
		return -1;
	}
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
 * *cap; returns how many stages, or -1.  Every pipe and listener made here
 * is tracked, so that each stage keeps only its own.
 */
static int
wire(const struct bench_case *bc, const struct tuning *tu, struct stage *st, size_t *cap)
{
	int a[2], b[2], lfd;
	size_t pipe_cap = 0, own_cap, cap_b;

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
		if (bc->topology == TOPO_TCP)
			close_tracked();
		if ((lfd = tcp_listener(tu->sock_bytes)) < 0) {
			close_tracked();
			return -1;
		}
		track(lfd);
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
		close_tracked();
		if (ftruncate(out_fd, 0) < 0) {
			warn_errno("%s: truncating the copy", bc->name);
			return -1;
		}
		set_stage(&st[0], bc->put, file_fd, out_fd, own_cap);
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
run_once(const struct bench_case *bc, const struct tuning *tu, uint64_t bytes, bool check,
    double *wall, double *cpu, size_t *cap)
{
	struct stage st[3];
	struct gate gate;
	int n, rval = 0;
	bool signalled = true;
	double start;

	for (int i = 0; i < 3; i++)
		st[i] = (struct stage){ .bc = bc, .in = -1, .out = -1, .bytes = bytes,
		    .check = check, .cap = RW_BUFFER_BYTES, .req = tu->req_bytes,
		    .sock_bytes = tu->sock_bytes, .more = tu->more };
	if ((n = wire(bc, tu, st, cap)) < 0)
		return -1;

	if (gate_make(&gate) < 0) {
		close_tracked();
		return -1;
	}
	for (int i = 0; i < n; i++)
		if (spawn(&st[i], i, &gate) < 0) {
			n = i;
			rval = -1;
			break;
		}
	close_tracked();
	start = gate_open(&gate, n);
	*cpu = 0;
	for (int i = 0; i < n; i++) {
		struct rusage ru;


		while (wait4(st[i].pid, &st[i].status, 0, &ru) < 0)
			if (errno != EINTR) {
				warn_errno("wait4");
				return -1;
			}
		pthread_mutex_lock(&workers_lock);
		workers[i] = 0;
		pthread_mutex_unlock(&workers_lock);
		*cpu += (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		    (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
		if (!WIFEXITED(st[i].status) || WEXITSTATUS(st[i].status) != 0)
			rval = -1;
	}
	*wall = now_seconds() - start;
	/* A process that failed has said why; the others may have died of SIGPIPE. */
	for (int i = 0; i < n; i++)
		if (WIFEXITED(st[i].status) && WEXITSTATUS(st[i].status) != 0)
			signalled = false;
	for (int i = 0; i < n && signalled; i++)
		if (WIFSIGNALED(st[i].status)) {
			warn_msg("%s: a process was killed by signal %d", bc->name,
			    WTERMSIG(st[i].status));
			break;
		}
	if (rval == 0 && bc->sink == TO_FILE)
		rval = check_output_file(&st[0]);
	account_input(bytes);
	return rval;
}

static int
compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), compare_doubles);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * The checked run of configuration tu: every byte compared, and the warm-up
 * the rates need.  Without -s (*size 0), then sets *size to the bytes one of
 * runs timed runs moves in about secs / runs seconds.
 */
static int
check_and_size(const struct bench_case *bc, const struct tuning *tu, double secs, int runs,
    uint64_t *size, size_t *cap)
{
	uint64_t check_bytes_n = *size && *size < CHECK_RUN_BYTES ? *size : CHECK_RUN_BYTES;
	double wall, cpu, rate;

	if (run_once(bc, tu, check_bytes_n, true, &wall, &cpu, cap) < 0)
		return -1;
	if (*size)
		return 0;
	/* Where the checked run read what the case discards, time the case itself. */
	if (bc->sink == TO_NULL && run_once(bc, tu, check_bytes_n, false, &wall, &cpu, cap) < 0)
		return -1;
	rate = (double)check_bytes_n / (wall > 1e-6 ? wall : 1e-6);
	*size = (uint64_t)(rate * secs / runs) & ~((1ULL << 20) - 1);
	if (*size < MIN_RUN_BYTES)
		*size = MIN_RUN_BYTES;
	if (*size > MAX_RUN_BYTES)
		*size = MAX_RUN_BYTES;
	return 0;
}

/* Timed run i of r->run_bytes bytes, into r's rates. */
static int
time_run(const struct bench_case *bc, const struct tuning *tu, struct result *r, int i)
{
	double wall, cpu, gib = (double)r->run_bytes / (1 << 30);

	if (run_once(bc, tu, r->run_bytes, false, &wall, &cpu, &r->cap) < 0)
		return -1;
	r->gib_s[i] = gib / (wall > 1e-9 ? wall : 1e-9);
	r->cpu_s_gib[i] = cpu / gib;
	if (common.verbose)
		note("%s: run %d: %llu bytes in %.4f s, %.2f GiB/s, %.3f CPU s", bc->name, i + 1,
		    (unsigned long long)r->run_bytes, wall, r->gib_s[i], cpu);
	return 0;
}

static int
run_case(const struct bench_case *bc, double secs, uint64_t size, struct result *r)
{
	static const struct tuning own;

	if (check_and_size(bc, &own, secs, r->runs, &size, &r->cap) < 0)
		return -1;
	r->run_bytes = size;
	for (int i = 0; i < r->runs; i++)
		if (time_run(bc, &own, r, i) < 0)
			return -1;
	return 0;
}

/* ---- setup -------------------------------------------------------------------- */

static int
make_files(const char *dir)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/splice-bench.XXXXXX", dir);
	if ((file_fd = mkstemp(path)) < 0) {
		warn_errno("%s", path);
		return -1;
	}
	unlink(path);
	/* The input: PATTERN repeated, written once, read from the page cache. */
	for (uint64_t off = 0; off < file_bytes; off += PATTERN_BYTES)
		if (write_all(file_fd, data, PATTERN_BYTES) < 0) {
			warn_errno("%s: writing the test file", dir);
			return -1;
		}
	snprintf(path, sizeof(path), "%s/splice-bench.XXXXXX", dir);
	if ((out_fd = mkstemp(path)) < 0) {
		warn_errno("%s", path);
		return -1;
	}
	unlink(path);
	return 0;
}

static const struct bench_case *
find_case(const char *name)
{
	for (size_t i = 0; i < N_CASES; i++)
		if (strcmp(cases[i].name, name) == 0)
			return &cases[i];
	return NULL;
}

/* The median GiB/s, its range and the median CPU seconds per GiB of r's runs. */
struct summary {
	double med, lo, hi, cpu;
};

static struct summary
summarize(const struct result *r)
{
	struct summary m = { 0, 0, 0, 0 };

	if (r->failed)
		return m;
	m.lo = m.hi = r->gib_s[0];
	for (int i = 1; i < r->runs; i++) {
		m.lo = r->gib_s[i] < m.lo ? r->gib_s[i] : m.lo;
		m.hi = r->gib_s[i] > m.hi ? r->gib_s[i] : m.hi;
	}
	m.med = median(r->gib_s, r->runs);
	m.cpu = median(r->cpu_s_gib, r->runs);
	return m;
}

static void
print_row(const struct bench_case *bc, const struct result *r, double baseline, bool csv)
{
	struct summary m = summarize(r);
	double med = m.med, lo = m.lo, hi = m.hi, cpu = m.cpu;
	char pipe[24] = "-", ratio[24] = "-";

	if (bc->pipe != NO_PIPE && r->cap)
		snprintf(pipe, sizeof(pipe), "%zuK", r->cap / 1024);
	if (baseline > 0 && !r->failed)
		snprintf(ratio, sizeof(ratio), "%.2f", med / baseline);
	if (csv) {
		printf("%s,%zu,%llu,%d,%.3f,%.3f,%.3f,%.3f,%s,%s\n", bc->name,
		    bc->pipe != NO_PIPE ? r->cap : 0, (unsigned long long)r->run_bytes,
		    r->runs, med, lo, hi, cpu, baseline > 0 && !r->failed ? ratio : "",
		    r->failed ? "FAIL" : "yes");
	} else if (r->failed) {
		printf("%-17s %6s %8s %7s %7s %9s %6s  %-8s %s\n", bc->name, pipe, "-", "-",
		    "-", "-", "-", "FAIL", bc->what);
	} else {
		printf("%-17s %6s %8.2f %7.2f %7.2f %9.3f %6s  %-8s %s\n", bc->name, pipe, med,
		    lo, hi, cpu, ratio, "yes", bc->what);
	}
	fflush(stdout);
}

/* The default table: every selected case, its row as soon as it is done. */
static bool
run_table(const bool *selected, double secs, uint64_t size, int runs, bool csv)
{
	double baseline = 0;
	bool any_failed = false;

	if (csv)
		printf("case,pipe_bytes,bytes_per_run,runs,gib_s,gib_s_min,gib_s_max,"
		    "cpu_s_per_gib,ratio_rw,verified\n");
	else
		printf("%-17s %6s %8s %7s %7s %9s %6s  %-8s %s\n", "case", "pipe", "GiB/s",
		    "min", "max", "CPU s/GiB", "x rw", "data", "method");
	for (size_t i = 0; i < N_CASES; i++) {
		double gib_s[1000], cpu_s_gib[1000];
		struct result r = { .gib_s = gib_s, .cpu_s_gib = cpu_s_gib, .runs = runs };

		if (!selected[i])
			continue;
		/* A worker process said what went wrong. */
		if (run_case(&cases[i], secs, size, &r) < 0)
			r.failed = any_failed = true;
		/* The plain write/read with the default pipe is what the ratios compare with. */
		if (cases[i].flags & BASELINE && !r.failed) {
			double copy[1000];

			memcpy(copy, gib_s, sizeof(double) * (size_t)runs);
			baseline = median(copy, runs);
		}
		print_row(&cases[i], &r, baseline, csv);
		if (common.progress)
			note("%s: done", cases[i].name);
	}
	return any_failed;
}

/* ---- --sweep: the pipe, request and socket settings that move a case fastest -- */

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

/* What tu's runs asked for per call, its socket buffers and SPLICE_F_MORE, as text. */
static void
tuning_words(const struct bench_case *bc, const struct tuning *tu, size_t cap, size_t *req,
    char sock[24], const char **more)
{
	static const char *const mores[] = { "full", "off", "always" };

	if (bc->flags & SENDFILE_REQUESTS)
		*req = tu->req_bytes ? tu->req_bytes : SENDFILE_CALL_BYTES;
	else
		*req = tu->req_bytes && tu->req_bytes < cap ? tu->req_bytes : cap;
	if (!over_tcp(bc))
		snprintf(sock, 24, "-");
	else if (tu->sock_bytes)
		snprintf(sock, 24, "%zuK", tu->sock_bytes / 1024);
	else
		snprintf(sock, 24, "auto");
	*more = bc->flags & SPLICES_TO_TCP ? mores[tu->more] : "-";
}

static void
print_sweep_row(const struct bench_case *bc, const struct tuning *tu, const struct result *r,
    double fixed_med, const char *mark, bool csv)
{
	struct summary m = summarize(r);
	size_t req;
	char ratio[24] = "", sock[24];
	const char *more;

	tuning_words(bc, tu, r->cap, &req, sock, &more);
	if (fixed_med > 0 && !r->failed)
		snprintf(ratio, sizeof(ratio), "%.2f", m.med / fixed_med);
	if (csv)
		printf("%s,%zu,%zu,%llu,%d,%.3f,%.3f,%.3f,%.3f,%s,%s,%s,%zu,%s\n", bc->name,
		    r->cap, req, (unsigned long long)r->run_bytes, r->runs, m.med, m.lo, m.hi,
		    m.cpu, ratio, r->failed ? "FAIL" : "yes", mark, tu->sock_bytes, more);
	else if (r->failed)
		printf("%-17s %6zuK %7zuK %6s %6s %8s %7s %7s %9s %7s  %-4s %s\n", bc->name,
		    r->cap / 1024, req / 1024, sock, more, "-", "-", "-", "-", "-", "FAIL", mark);
	else
		printf("%-17s %6zuK %7zuK %6s %6s %8.2f %7.2f %7.2f %9.3f %7s  %-4s %s\n",
		    bc->name, r->cap / 1024, req / 1024, sock, more, m.med, m.lo, m.hi, m.cpu,
		    ratio, "yes", mark);
}

/*
 * Every configuration of the grid: its own checked run, then its timed runs
 * in rounds, one run of each configuration per round, so that a change in
 * the machine's load falls on all of them alike.  The runs of every
 * configuration move the same bytes, sized from the case's own.
 */
static bool
sweep_case(const struct bench_case *bc, double secs, uint64_t size, int runs, bool csv)
{
	struct tuning tu[MAX_TUNINGS];
	struct result r[MAX_TUNINGS];
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
	if (check_and_size(bc, &tu[fixed], secs, runs, &size, &r[fixed].cap) < 0)
		r[fixed].failed = true;
	if (size == 0)
		size = MIN_RUN_BYTES;
	for (int i = 0; i < n; i++) {
		r[i].run_bytes = size;
		if (i != fixed && check_and_size(bc, &tu[i], secs, runs, &size, &r[i].cap) < 0)
			r[i].failed = true;
	}
	for (int k = 0; k < runs; k++)
		for (int i = 0; i < n; i++)
			if (!r[i].failed && time_run(bc, &tu[i], &r[i], k) < 0)
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
		print_sweep_row(bc, &tu[i], &r[i], fixed_med, marks[i == fixed][i == best], csv);
	fflush(stdout);
	free(rates);
	return any_failed;
}

static bool
run_sweep(const bool *selected, double secs, uint64_t size, int runs, bool csv)
{
	bool any_failed = false;

	if (csv)
		printf("case,pipe_bytes,request_bytes,bytes_per_run,runs,gib_s,gib_s_min,"
		    "gib_s_max,cpu_s_per_gib,ratio_fixed,verified,note,socket_bytes,more\n");
	else
		printf("%-17s %7s %8s %6s %6s %8s %7s %7s %9s %7s  %-4s %s\n", "case", "pipe",
		    "request", "socket", "more", "GiB/s", "min", "max", "CPU s/GiB", "x fixed",
		    "data", "note");
	for (size_t i = 0; i < N_CASES; i++) {
		if (!selected[i])
			continue;
		any_failed |= sweep_case(&cases[i], secs, size, runs, csv);
		if (common.progress)
			note("%s: done", cases[i].name);
	}
	return any_failed;
}

int
main(int argc, char *argv[])
{
	enum { OPT_CSV = OPT_TOOL_FIRST, OPT_CORRUPT, OPT_SWEEP, OPT_FILE_SIZE };
	static const struct option longopts[] = {
		{ "list", no_argument, NULL, 'l' },
		{ "case", required_argument, NULL, 'c' },
		{ "time", required_argument, NULL, 't' },
		{ "size", required_argument, NULL, 's' },
		{ "runs", required_argument, NULL, 'r' },
		{ "dir", required_argument, NULL, 'd' },
		{ "file-size", required_argument, NULL, OPT_FILE_SIZE },
		{ "csv", no_argument, NULL, OPT_CSV },
		{ "corrupt", no_argument, NULL, OPT_CORRUPT },
		{ "sweep", no_argument, NULL, OPT_SWEEP },
		COMMON_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	bool selected[N_CASES] = { false }, any_selected = false, list = false, csv = false;
	bool corrupt = false, need_file = false, sweep = false;
	uint64_t n_selected = 0;
	const char *dir = getenv("TMPDIR");
	double secs = 0.3;
	uint64_t size = 0;
	int opt, runs = 3;
	bool any_failed = false;
	char *end;

	set_progname(argv);
	if (dir == NULL || *dir == '\0')
		dir = "/tmp";
	while ((opt = getopt_long(argc, argv, "lc:t:s:r:d:" COMMON_SHORT_OPTIONS, longopts,
	    NULL)) != -1) {
		const struct bench_case *bc;

		switch (opt) {
		case 'l':
			list = true;
			break;
		case 'c':
			if ((bc = find_case(optarg)) == NULL)
				usage_error("--case: no such case: '%s' (see --list)", optarg);
			selected[bc - cases] = any_selected = true;
			break;
		case 't':
			errno = 0;
			secs = strtod(optarg, &end);
			if (errno || end == optarg || *end != '\0' || !(secs > 0 && secs <= 3600))
				usage_error("--time: must be more than 0 and at most 3600 seconds:"
				    " '%s'", optarg);
			break;
		case 's':
			size = option_size("--size", optarg);
			if (size == 0 || size > MAX_RUN_BYTES)
				usage_error("--size: must be 1 byte to 1T: '%s'", optarg);
			break;
		case 'r': {
			long n;

			errno = 0;
			n = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end != '\0' || n < 3 || n > 1000)
				usage_error("--runs: must be 3 to 1000: '%s'", optarg);
			runs = (int)n;
			break;
		}
		case 'd':
			dir = optarg;
			break;
		case OPT_FILE_SIZE:
			/*
			 * A 64 MiB file and its page structures stay in the
			 * cache; a tool's 2 GiB file does not: measure its size.
			 */
			file_bytes = option_size("--file-size", optarg);
			if (file_bytes == 0 || file_bytes > MAX_RUN_BYTES)
				usage_error("--file-size: must be 1 byte to 1T: '%s'", optarg);
			file_bytes = (file_bytes + PATTERN_BYTES - 1) / PATTERN_BYTES * PATTERN_BYTES;
			break;
		case OPT_CSV:
			csv = true;
			break;
		case OPT_CORRUPT:
			corrupt = true;
			break;
		case OPT_SWEEP:
			sweep = true;
			break;
		default:
			common_option(opt, optarg, help);
		}
	}
	no_operands(argc, argv);
	if (list) {
		for (size_t i = 0; i < N_CASES; i++)
			printf("%-17s %s\n", cases[i].name, cases[i].what);
		return fflush(stdout) == 0 ? 0 : EXIT_ERROR;
	}
	for (size_t i = 0; i < N_CASES; i++) {
		if (!any_selected)
			selected[i] = !sweep || cases[i].flags & SWEEPABLE;
		if (selected[i] && sweep && !(cases[i].flags & SWEEPABLE))
			usage_error("--sweep: case '%s' has no request size to sweep", cases[i].name);
		if (selected[i] && cases[i].flags & READS_FILE)
			need_file = true;
		n_selected += selected[i];
	}

	(void)tool_start(STD_FD(STDOUT_FILENO), COUNT_INPUT);
	if (exit_status() != 0)
		return exit_status();
	on_ending_signal(end_workers);
	if (size)
		account_set_total(n_selected * (min_size(size, CHECK_RUN_BYTES) +
		    (uint64_t)runs * size));
	if (make_pattern(corrupt, size) < 0)
		return EXIT_ERROR;
	if ((devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0) {
		warn_errno("/dev/null");
		return EXIT_ERROR;
	}
	if (need_file && make_files(dir) < 0)
		return EXIT_ERROR;

	any_failed = sweep ? run_sweep(selected, secs, size, runs, csv) :
	    run_table(selected, secs, size, runs, csv);
	if (any_failed)
		warn_msg("a case failed: its data or its system calls were wrong (see above)");
	report_totals();
	exit_flushing_stdout();
}
