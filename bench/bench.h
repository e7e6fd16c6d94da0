/*
 * bench/bench.h: splice-bench's cases, the stages that measure them and the
 * runner that connects them, laid out as fio lays out its engines.  A case is
 * one row of the table in splice-bench.c; a method is a stage_fn in the file
 * of its family; the runner knows no method by name, only a row's topology
 * and flags.  Adding a method: its stage_fn here and in its family's file,
 * its row in the table, its entry in man/splice-bench.1.
 *
 *   splice-bench.c   --help, the table, main()
 *   bench/pipe.c     write(2) or vmsplice(2) into a pipe; read(2) or splice(2)
 *                    out of it; the middles that tee(2) or copy; a stage's pipe
 *   bench/file.c     the input file into a pipe; file to file
 *   bench/tcp.c      into loopback TCP from the file or a pipe; the receivers
 *   bench/runner.c   wire() by topology, one run, one case, the default table
 *   bench/workers.c  the processes of a run: forked, started, reaped, ended
 *   bench/sweep.c    --sweep: the grid of configurations, timed in rounds
 *   bench/report.c   medians and the rows, as text or CSV
 *   bench/data.c     the reference stream, the files, the checks against them
 *
 * Everything else (messages, sizes, pipe capacity, the progress line) is
 * lib/'s, through splice.h.
 */
#ifndef SPLICE_BENCH_H
#define SPLICE_BENCH_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

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
/* What splice-tonet asks of sendfile(2) per call. */
#define SENDFILE_CALL_BYTES ((size_t)16 << 20)

/* ---- a case: one row of the table ------------------------------------------- */

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
/* A method: moves s->bytes (a producer), or all it gets (a consumer); 0 or -1, said. */
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

static inline bool
over_tcp(const struct bench_case *bc)
{
	return bc->topology == TOPO_TCP || bc->topology == TOPO_TCP_MIDDLE;
}

/* ---- what every run reads: bench/data.c ------------------------------------- */

struct bench_data {
	unsigned char *pattern;		/* the reference the checks compare with */
	unsigned char *data;		/* what the producers send (--corrupt: one byte off) */
	unsigned char *huge_data;	/* the same, on a 2 MiB aligned huge page */
	int devnull;			/* where the discarding consumers write */
	int file_fd, out_fd;		/* the input file, data repeated; the copy */
	uint64_t file_bytes;		/* the input file's size, a whole number of blocks */
};

int data_make(struct bench_data *d, bool corrupt, uint64_t run_bytes);
int files_make(struct bench_data *d, const char *dir);

/* ---- a stage: one process of a run ------------------------------------------ */

/* When a sender into TCP passes SPLICE_F_MORE. */
enum more_mode {
	MORE_WHEN_FULL,		/* the pipe is full and more is to come, as the tools do */
	MORE_OFF,
	MORE_ALWAYS,		/* every call but the last */
};

struct stage {
	stage_fn *fn;
	const struct bench_case *bc;
	const struct bench_data *d;
	int in, out;
	uint64_t bytes;		/* what the run moves */
	bool check;		/* a consumer that would discard checks instead */
	size_t cap;		/* capacity of the pipe it uses */
	size_t req;		/* what a consumer (a TCP sender) asks for per call; 0: cap */
	size_t sock_bytes;	/* SO_SNDBUF of a TCP sender; 0: the kernel's autotuning */
	enum more_mode more;	/* a TCP sender's SPLICE_F_MORE */
	in_port_t port;		/* the receiver's port on 127.0.0.1, network order */
	pid_t pid;
	int status;		/* from wait4() */
};

static inline size_t
min_size(uint64_t a, uint64_t b)
{
	return (size_t)(a < b ? a : b);
}

/* What a consumer asks of read(2), splice(2) or tee(2) per call. */
static inline size_t
request_bytes(const struct stage *s)
{
	return s->req && s->req < s->cap ? s->req : s->cap;
}

/* The stage's call failed: says so, with errno; returns -1. */
int fail_call(const struct stage *s, const char *call);
size_t file_piece(const struct stage *s, uint64_t done, loff_t *off, size_t limit);
int check_bytes(const struct stage *s, uint64_t *offset, const unsigned char *buf, size_t n);
int check_count(const struct stage *s, uint64_t got);
int check_output_file(const struct stage *s);

/* ---- the methods ------------------------------------------------------------- */

/* bench/pipe.c */
stage_fn put_write, put_vmsplice, get_read_check, get_read_null, get_splice_null;
stage_fn mid_tee, mid_copy;
/* A pipe of s->cap bytes of the stage's own, as the tools make; 0, or -1 said. */
int stage_pipe(const struct stage *s, int p[2]);
/*
 * Splices the n bytes that pipe `from` holds on to `to` (at *off unless off
 * is NULL), EINTR retried, adding each call's bytes to *moved unless moved
 * is NULL; 0, or -1 said as call.
 */
int pass_held(const struct stage *s, int from, int to, loff_t *off, size_t n, const char *call,
    uint64_t *moved);
/* bench/file.c */
stage_fn put_file_splice, put_file_rw, copy_splice, copy_range, copy_rw;
/* One call of a file method: at most len bytes of file fd from *off on, which it advances. */
typedef ssize_t piece_fn(struct stage *s, int fd, loff_t *off, size_t len, void *arg);
/*
 * Moves s->bytes of file fd by fn (given arg), at most limit bytes a call,
 * passing over the file again from its start when a run is longer
 * (file_piece()); EINTR retried; 0, or -1 said as call.
 */
int file_pieces(struct stage *s, int fd, size_t limit, piece_fn *fn, void *arg,
    const char *call);
/* bench/tcp.c */
stage_fn put_tcp_rw, put_tcp_sendfile, put_tcp_splice, put_tcp_mmap, mid_tcp_splice;
stage_fn get_tcp, get_tcp_pipe;
int set_sock_bytes(int fd, int opt, size_t bytes);

/* ---- running the cases: bench/runner.c, bench/workers.c, bench/sweep.c ------- */

/* What the options asked of every case. */
struct bench_opts {
	double secs;		/* -t: the time of a case's timed runs */
	uint64_t size;		/* -s: bytes per run; 0: sized from secs */
	int runs;		/* -r */
	bool csv;
	const struct bench_data *d;
};

/* A configuration the sweep tries; zeros are the case's own settings. */
struct tuning {
	size_t pipe_bytes;	/* capacity to ask for; 0: --pipe-size or 1 MiB */
	size_t req_bytes;	/* what the consumer asks for per call; 0: capacity */
	size_t sock_bytes;	/* SO_SNDBUF and SO_RCVBUF; 0: the kernel's autotuning */
	enum more_mode more;	/* TCP from a pipe: when to pass SPLICE_F_MORE */
};

/* The timed runs of one configuration of a case. */
struct result {
	double *gib_s, *cpu_s_gib;
	int runs;
	size_t cap;
	uint64_t run_bytes;
	bool failed;
};

int check_and_size(const struct bench_case *bc, const struct tuning *tu,
    const struct bench_opts *o, uint64_t *size, size_t *cap);
int time_run(const struct bench_case *bc, const struct tuning *tu, const struct bench_opts *o,
    struct result *r, int i);
/* Each runs the cases given, prints their rows; true when one failed. */
bool run_table(const struct bench_case *const *bcs, size_t n, const struct bench_opts *o);
bool run_sweep(const struct bench_case *const *bcs, size_t n, const struct bench_opts *o);

void track(int fd);
void close_tracked(void);
int run_workers(struct stage *st, int n, double *wall, double *cpu);
void end_workers(void);

/* ---- the rows: bench/report.c ------------------------------------------------ */

/* The median GiB/s, its range and the median CPU seconds per GiB of r's runs. */
struct summary {
	double med, lo, hi, cpu;
};

double median(double *v, int n);
struct summary summarize(const struct result *r);
void print_table_header(bool csv);
void print_row(const struct bench_case *bc, const struct result *r, double baseline, bool csv);
void print_sweep_header(bool csv);
void print_sweep_row(const struct bench_case *bc, const struct tuning *tu,
    const struct result *r, double fixed_med, const char *mark, bool csv);

#endif
