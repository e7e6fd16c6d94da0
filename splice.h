/*
 * splice.h: what the splice-tools share, the one header a tool includes.
 * The tools move their bytes with move_fd(), cat_format_fd(), tee_fd(),
 * duplex_run(), ring_run(), vmsplice_all() and vmsplice_read();
 * splice-bench alone makes its own calls (bench/), to measure them.  Every
 * tool parses the same sizes and options the same way.
 *
 * lib/ is built once as a static library, so a tool links only the files
 * it calls into.  This header declares what the tools call, one section
 * per file of lib/, in the order of the map below; lib/internal.h declares
 * what only lib/ calls, in the same order.  Who calls whom inside lib/:
 * each arrow names every file whose functions the file calls, and no file
 * calls back into one that calls it (tests/static.sh checks both).
 *
 *   msg.c         messages and the exit status they imply   -> term
 *   options.c     common options, sizes, seconds             -> fd, msg
 *   optspec.c     a tool's options as text: getopt, --help   -> msg
 *   fd.c          descriptors and pipes, retrying I/O        -> clock, msg
 *   failure.c     an engine's error record, --strict, words  -> msg
 *   xfer.c        a stream: splice, copy_file_range, r/w     -> failure, account, fd, msg
 *   move.c        move_fd(): a clone, a sparse copy, a stream -> xfer, failure, account, fd,
 *                                                               msg
 *   skip.c        skip_input(): --skip by offset or by read  -> xfer, fd
 *   catfmt.c      cat's -n -b -s -E -T -v, through user space -> xfer, account, fd
 *   account.c     bytes per method, -v totals, rate limit    -> clock, msg
 *   progress.c    tool_start(), --progress, the signals      -> status_line, account, term, fd,
 *                                                               clock, msg
 *   status_line.c a status line's text, fitted to the width  -> fd
 *   term.c        stderr: bounded waits, a terminal's rows   -> clock
 *   addr.c        HOST:PORT, ports, --allow nets, -4 -6 -n   (libc only)
 *   tcp.c         connect, listen, accept, reset             -> addr, progress, term, fd,
 *                                                               clock, msg
 *   duplex.c      duplex_run(): to a socket and back at once -> failure, xfer, account, fd,
 *                                                               clock, msg
 *   ring.c        ring_open(): a buffer of pipes and a memfd -> failure, xfer, status_line,
 *                                                               account, fd, msg, mem
 *   ring_step.c   one call in or out of the ring             -> ring, failure, xfer, fd, msg, mem
 *   ring_run.c    ring_run(): the loop of poll(2) and steps  -> ring_step, ring, xfer, fd, clock
 *   tee_pipes.c   tee_open(): the tee engine's pipes         -> failure, fd, msg
 *   tee_copy.c    the tee engine's read/write rounds         -> failure, account, fd
 *   tee.c         tee_fd(): tee(2) to many outputs           -> tee_copy, tee_pipes, failure,
 *                                                               xfer, account, fd, msg
 *   pattern.c     the patterns vmsplice writes               -> msg
 *   vmsplice_io.c vmsplice(2) in and out of a pipe           -> account, fd
 *   clock.c       monotonic seconds, sleeping, timed locks   (libc only)
 *   mem.c         aligned anonymous memory, rounding to pages (libc only)
 */
#ifndef SPLICE_TOOLS_SPLICE_H
#define SPLICE_TOOLS_SPLICE_H

#include <getopt.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>
#include <sys/types.h>

#ifndef SPLICE_TOOLS_VERSION
#define SPLICE_TOOLS_VERSION "0.0.0"
#endif

enum {
	EXIT_ERROR = 1,		/* I/O, open, verify mismatch */
	EXIT_USAGE = 2,		/* bad option or operand */
};

/* Length that means "until end of input". */
#define TO_EOF UINT64_MAX

/*
 * Pipe capacity a tool asks for when the user says nothing: 16 times the
 * kernel's 64 KiB default, so 16 times fewer wake-ups of the other side for
 * as many bytes; pipe-max-size may grant less (pipe_grow()).
 */
#define DEFAULT_PIPE_BYTES (1024L * 1024)

/* ---- messages: lib/msg.c ------------------------------------------------ */

extern const char *progname;

/* Sets progname, and argv[0] for getopt's messages, to argv[0]'s basename. */
void set_progname(char *argv[]);
/*
 * "prog: MSG: strerror(errno)" on stderr, in one write(2).  A warning is an
 * error: exit_status() returns EXIT_ERROR from then on.
 */
void warn_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "prog: MSG" on stderr; an error, as warn_errno(). */
void warn_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "prog: MSG" on stderr, and not an error: -v notes, the listener's port. */
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* 0, or EXIT_ERROR once warn_errno() or warn_msg() was called. */
int exit_status(void);
/* "s", or "" when n is 1: "%llu second%s". */
const char *plural_s(uint64_t n);
/* "prog: MSG" and "Try 'prog --help'." on stderr, exit 2. */
noreturn void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * Exits with exit_status() once what stdio holds for stdout is written, or
 * with EXIT_ERROR after "prog: standard output: strerror" when it cannot be.
 */
noreturn void exit_flushing_stdout(void);

/* ---- the options every tool takes, sizes, seconds: lib/options.c -------- */

/*
 * Parses "123", "4K", "4KiB", "4KB", "1.5M" is rejected (no fractions).
 * K/M/G/T/P/E and KiB.. are powers of 1024, KB/MB/GB.. powers of 1000;
 * as dd's, b is 512 bytes, w 2 and c 1, and "256x4K" a product ("0x10",
 * hex to the eye, is refused).
 * Returns 0, or -1 with errno EINVAL (malformed, negative) or ERANGE.
 */
int parse_size(const char *s, uint64_t *bytes);
/* parse_size() for option OPT; a bad value is a usage error naming OPT. */
uint64_t option_size(const char *opt, const char *arg);

struct common_opts {
	int verbose;		/* -v: methods, bytes, rate on stderr */
	bool strict;		/* --strict: a fallback is an error */
	bool progress;		/* --progress: status line once a second */
	const char *name;	/* --name: what starts the status line, or NULL */
	double interval_secs;	/* --interval: between status lines, 0 = 1 s */
	double window_secs;	/* --average-rate-window: the ETA's rate over, 0 = 10 s */
	bool numeric;		/* --numeric: bare numbers, one a line */
	bool size_given;	/* --size: the total to expect is size_bytes */
	uint64_t size_bytes;
	size_t pipe_bytes;	/* --pipe-size, 0 = DEFAULT_PIPE_BYTES */
	uint64_t rate_limit;	/* -L: bytes a second, 0 = no limit */
};

/* Set by common_option(); read by the tools, never by lib/'s engines. */
extern struct common_opts common;

/* What an engine needs of the common options, handed to it by the tool. */
struct engine_opts {
	bool strict;		/* a fallback from zero-copy is an error */
	int verbose;		/* 1: notes about pipes; 2: about fallbacks too */
	size_t pipe_bytes;	/* capacity to ask for; 0 = DEFAULT_PIPE_BYTES */
	/*
	 * Most bytes one call may move, 0 = no bound: under -L a call moves
	 * about a sixteenth of a second's worth, so that the sleeps between
	 * calls keep the rate smooth.
	 */
	size_t call_bytes_max;
};

/* The engine settings that the common options chose. */
struct engine_opts engine_opts(void);

/*
 * Long-option codes of the options every tool takes, above every short
 * option: in the order of the letterless entries of lib/optspec.c.
 */
enum {
	OPT_COMMON_FIRST = 0x100,
	OPT_PV_RATE = OPT_COMMON_FIRST,	/* --rate, pv's rate display: a usage error */
	OPT_SIZE,		/* --size, for the tools that take it */
	OPT_VERBOSE,		/* --verbose, for a tool whose -v means something else */
	OPT_STRICT,
	OPT_PROGRESS,
	OPT_NAME,
	OPT_INTERVAL,
	OPT_RATE_WINDOW,	/* --average-rate-window, pv's -m */
	OPT_NUMERIC,
	OPT_PIPE_SIZE,
	OPT_TOOL_FIRST = 0x120,	/* first code free for a tool's own options */
};

/*
 * Handles a getopt_long() result that is none of the tool's own options: a
 * common option, -h (help() and exit), -V, or a usage error.
 */
void common_option(int opt, const char *arg, void (*help)(void));
/* For a tool that takes no operands: one is a usage error. */
void no_operands(int argc, char *argv[]);

/*
 * Parses a number of seconds for option OPT: "3", "0.5"; negative, NaN,
 * infinite or malformed values are usage errors naming OPT.
 */
double option_seconds(const char *opt, const char *arg);

/* ---- a tool's options, written once: lib/optspec.c ----------------------- */

/*
 * A tool writes its options as text, one entry a line, in --help's order:
 *	"LETTERS LONG ARG\tHELP\n", then "\tMORE HELP\n" for each further line
 * LETTERS: the short options ("bs": -b and -s), or "-" for none; LONG: the
 * long name, or "-" for none; ARG: " NAME" for a required argument,
 * "[=NAME]" for an optional one; HELP: what --help says, as wrapped there;
 * an entry without it is left out of --help.  getopt_long() returns the
 * first letter, or for an entry without one OPT_TOOL_FIRST, OPT_TOOL_FIRST
 * + 1, ... in their order in the text.  The options every tool takes
 * follow the tool's own, with those of `with` (OPTS_ bits).  A tool's own
 * entry of a common option's long name (--pipe-size) words its --help line
 * in the common one's place: getopt_long() finds the tool's first, whose
 * code the tool hands to common_option() as the common code.
 */
enum {
	OPTS_RATE_LIMIT = 1,	/* -L, --rate-limit RATE; pv's --rate refused */
	OPTS_PV_RATE = 2,	/* pv's --rate refused; the tool words its own -L */
	OPTS_SIZE = 4,		/* --size SIZE|@FILE */
	OPTS_NO_V = 8,		/* -v is the tool's own; --verbose stays */
};

/*
 * getopt_long() over the tables of spec and `with`, made at the first call:
 * the next option's letter or code, -1 at the end.
 */
int options_next(int argc, char *argv[], const char *spec, unsigned int with);
/* Prints the option lines of --help: spec's, then those of `with`. */
void options_help(const char *spec, unsigned int with);

/* ---- descriptors and pipes: lib/fd.c ------------------------------------ */

bool fd_is_pipe(int fd);
/* F_GETPIPE_SZ, or -1 when fd is not a pipe. */
long pipe_capacity(int fd);
/* /proc/sys/fs/pipe-max-size, or 1 MiB when it cannot be read. */
long pipe_max_bytes(void);
/*
 * What one splice(2), tee(2) or vmsplice(2) call asks of a pipe it reads,
 * of capacity bytes (-1: not known): half of it, so that the writer refills
 * the pipe while this call drains it; never less than 64 KiB, nor more than
 * the pipe.  A call that writes into a pipe asks for all it has.
 */
size_t pipe_request_bytes(long capacity);
/*
 * Grows (or sets) fd's capacity to o->pipe_bytes (default 1 MiB, capped at
 * /proc/sys/fs/pipe-max-size) and returns what the kernel granted, which
 * may be less: that is kept, with a note under o->verbose.  -1 when fd is
 * not a pipe.
 */
long pipe_grow(int fd, const struct engine_opts *o);

/*
 * Bytes from fd's offset to its end: a regular file or a block device;
 * TO_EOF for anything else (a pipe, a socket, a terminal).
 */
uint64_t fd_size_left(int fd);
/*
 * fd_size_left() of every named input ("-": standard input, counted once:
 * a second "-" finds it at its end), summed, for a percentage; TO_EOF when
 * one has no size or cannot be opened.
 */
uint64_t inputs_size(char *const *names);
/* wait_fd() for at most timeout_secs (< 0: for ever); -1 with ETIMEDOUT then. */
int wait_fd_timeout(int fd, short events, double timeout_secs);
/*
 * Writes all of buf, waiting out EAGAIN and an O_DIRECT that refuses it
 * (direct_io_dropped()); -1 with errno on error.
 */
int write_all(int fd, const void *buf, size_t len);
/*
 * printf(3) to standard output in one write_all(): an interrupted write(2)
 * is made again, where stdio would fail for good.  The first error is
 * said ("standard output: ...", an error: exit_status()); nothing more is
 * written after it.
 */
void out_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * read(2) of at most len bytes: EINTR retried, EAGAIN (an inherited
 * O_NONBLOCK) waited out with poll(2), an O_DIRECT that refuses it dropped
 * (direct_io_dropped()).  The bytes read, 0 at end of input, -1 with errno.
 */
ssize_t read_retry(int fd, void *buf, size_t len);

/* Bit of descriptor fd (0, 1 or 2) in std_fds_fill()'s argument and result. */
#define STD_FD(fd) (1u << (fd))

/* ---- an engine's failure: lib/failure.c --------------------------------- */

/* Whose an error of a transfer is. */
enum xfer_side {
	SIDE_NONE,		/* the engine's own (its pipes, poll), or not known */
	SIDE_INPUT,
	SIDE_OUTPUT,
	SIDE_PEER,		/* the connection, both ways at once (duplex_run()) */
	SIDE_COUNT
};

/* What every engine records when it fails, for its caller to word. */
struct xfer_error {
	enum xfer_side side;	/* whose error */
	int err;		/* errno of the failure, 0 if none */
	const char *call;	/* the syscall that failed or was refused */
	bool refused;		/* a refusal read/write could get around: --strict stopped it */
};

/*
 * "prog: NAME: reason", NAME being names[e->side], whoever's error it was;
 * "prog: CALL: reason" when that is not known; a refusal that --strict
 * stopped names the call and ends "(--strict: no fallback to read/write)".
 * With pair, a refusal or an error of no known side starts "IN -> OUT"
 * (names[SIDE_INPUT], names[SIDE_OUTPUT]) instead.
 */
void xfer_error_warn(const struct xfer_error *e, const char *const names[SIDE_COUNT], bool pair);

/* ---- moving bytes: lib/move.c ------------------------------------------- */

enum xfer_method {
	M_SPLICE,		/* splice(2), one side a pipe */
	M_SPLICE_PIPE,		/* splice(2) through an internal pipe */
	M_COPY_RANGE,		/* copy_file_range(2) */
	M_CLONE,		/* ioctl(FICLONE): the whole file's extents shared */
	M_SENDFILE,		/* sendfile(2) */
	M_TEE,			/* tee(2) */
	M_VMSPLICE,		/* vmsplice(2) */
	M_READ_WRITE,		/* read(2) and write(2), the portable path */
	M_COUNT
};

struct xfer {
	int in, out;
	uint64_t len;		/* bytes to move, or TO_EOF */
	size_t chunk;		/* most bytes per call; 0 = pipe capacity */
	unsigned int flags;	/* extra SPLICE_F_* flags (MOVE, NONBLOCK) */
	double idle_secs;	/* > 0: input idle this long fails, ETIMEDOUT */
	struct engine_opts opts;	/* strict, verbose, pipe size */
	bool sparse;		/* keep a regular file's holes, see move_fd() */
	bool zero_holes;	/* blocks of zeros as holes (dd conv=sparse), move_fd() */
	/* results */
	uint64_t moved;		/* bytes that reached out */
	struct xfer_error error;	/* whose (input, output or none), errno, call */
};

/*
 * Moves x->len bytes (or to EOF) from x->in to x->out, zero-copy where the
 * kernel allows: a whole regular file into an empty one is cloned (FICLONE)
 * where the file system shares extents; else splice(2) when a side is a
 * pipe, copy_file_range(2) between regular files, else splice(2) through an
 * internal pipe; read(2)/write(2) when the kernel refuses before the first
 * byte moved (unless x->opts.strict: then x->error.refused).
 * Short transfers are completed, EINTR retried, EAGAIN waited out with
 * poll(2).  An input that may wait (a socket, a terminal) is polled before
 * each splice into a pipe, so what arrived reaches the pipe's reader at once.
 * Returns 0, or -1 with x->error set; nothing is printed but -v notes:
 * the caller reports, see xfer_warn().  Returns 0 at EOF even when fewer
 * than x->len bytes came.
 * With x->sparse, a regular file copied to a regular file written at or
 * past its end keeps its holes: SEEK_DATA/SEEK_HOLE find the data, a hole
 * moves only the output's offset (ftruncate(2) at the end); x->moved and
 * --progress count the holes (account_holes()), the methods do not.
 * With x->zero_holes, into a regular file (not O_APPEND) that the cloning
 * above did not copy: through user space, read(2) and write(2), each
 * block of zeros (the output's st_blksize) at or past the output's end
 * left a hole instead of written, as dd conv=sparse; inside what the file
 * held, zeros are written, so that no old byte stays.
 */
int move_fd(struct xfer *x);
/*
 * x->error as xfer_error_warn() words it: "prog: NAME: strerror", NAME
 * being in_name or out_name by its side, else "prog: IN -> OUT: CALL: ...".
 */
void xfer_warn(const struct xfer *x, const char *in_name, const char *out_name);

/* ---- discarding input: lib/skip.c --------------------------------------- */

/*
 * Discards x->len bytes of x->in (fewer at end of input) without moving
 * them anywhere: lseek(2) on a regular file or a block device, read(2)
 * from anything else (a pipe, a socket).  x->moved says
 * how many were skipped; nothing is counted by account().  Returns 0, or
 * -1 with x->error set.
 */
int skip_input(struct xfer *x);

/* ---- cat's formatting options: lib/catfmt.c ----------------------------- */

/* What to show, and where the output stands: one per run, over all operands. */
struct cat_format {
	bool number;		/* -n: number every output line */
	bool number_nonblank;	/* -b: number the lines that are not empty; beats -n */
	bool squeeze;		/* -s: one empty line for each run of them */
	bool show_ends;		/* -E: '$' before each newline, CR LF as "^M$" */
	bool show_tabs;		/* -T: a tab as ^I */
	bool show_nonprinting;	/* -v: ^X, ^? and M- for all but tab and newline */
	/* carried from one operand to the next, as if they were one stream */
	uint64_t line;		/* the last line number printed */
	bool mid_line;		/* the last byte was not a newline */
	bool last_blank;	/* the last line was empty (for -s) */
	bool cr_held;		/* a CR waits to see whether LF follows (for -E) */
};

/* True when f asks for any formatting at all. */
bool cat_format_any(const struct cat_format *f);
/*
 * Copies x->len bytes (or to EOF) from x->in to x->out with read(2) and
 * write(2), formatted as f says; x->chunk bounds each read.  x->moved counts
 * the input bytes taken, as account(M_READ_WRITE) does.  Returns 0, or -1
 * with x->error set; prints nothing.
 */
int cat_format_fd(struct cat_format *f, struct xfer *x);
/* After the last operand: writes a CR still held.  0, or -1 with errno. */
int cat_format_end(struct cat_format *f, int out);

/* ---- accounting, -v totals and -L: lib/account.c ------------------------ */

/* What --progress counts. */
enum progress_count {
	COUNT_MOVED,		/* every byte account() is told of */
	COUNT_INPUT,		/* bytes taken from the input, or one way of
				 * duplex_run(): account_input() */
};
/*
 * Counts n bytes moved by method m.  Under a rate limit, sleeps until the
 * bytes counted so far are due (COUNT_MOVED).  Safe beside the progress
 * thread: the counters are atomic.
 */
void account(enum xfer_method m, uint64_t n);
/*
 * For a tool that copies its input to several outputs, or a connection
 * counted one way (COUNT_INPUT): n bytes were taken from the input, or
 * moved the way that counts (the rate limit holds here); account() still
 * counts each method.
 */
void account_input(uint64_t n);
/*
 * The bytes the whole transfer will move, TO_EOF (the default) when
 * unknown; 0 says nothing either (procfs's sizes).  A --size wins.
 */
void account_set_total(uint64_t bytes);
/* The same for a size the user gave (vmsplice -s): there 0 bytes is a total. */
void account_set_exact_total(uint64_t bytes);
/*
 * Rates and --progress count from the tool's start; a tool that first waits
 * (a listener for its peer) calls this when the transfer begins.
 */
void restart_rate_clock(void);

/* ---- --progress and the signals that end or query a tool: lib/progress.c -- */

/*
 * Once a tool's options are parsed: std_fds_fill(needed), term_start(),
 * then its transfer's start as the common options say: the counters and
 * the rate clock (account_reset()), -L, and (once per process) the watcher
 * thread, which prints a status line every interval (--progress) and on
 * SIGUSR1, and on SIGINT, SIGTERM or SIGHUP calls the hook set by
 * on_ending_signal(), then report_totals(), then dies of the signal;
 * signals ignored when the tool started stay ignored.  Returns the
 * descriptors that were closed; exit_status() says whether to go on.
 */
unsigned int tool_start(unsigned int needed, enum progress_count count);
/*
 * Called on the watcher thread when an ending signal arrives, before the
 * totals are printed (splice-bench ends its workers there); it may not call
 * report_totals() or account_start().
 */
void on_ending_signal(void (*hook)(void));
/*
 * At the end of a tool, once: ends the --progress output with a final line
 * and prints the -v totals (report_methods()).  A tool that ends without an
 * error (exit_status()) moved the whole: its last line says 100%, whatever
 * a size promised.
 */
void report_totals(void);
/*
 * summary runs after the -v totals, once, however the tool ends (an
 * ending signal too, on the watcher thread, under the status lines' lock).
 */
void on_totals(void (*summary)(void));
/*
 * The pipes whose fill level the status line shows, "in   3% full, out
 * 100% full": a full output pipe means the stage after is slow, an empty
 * input pipe the stage before.  Either may be a descriptor that is not a pipe (not
 * shown), or -1: the pipe is about to be closed, and its level now shows
 * to the end.  The tool calls it again before it closes one of them.
 */
void status_pipes(int in, int out);

/* When the terminal is narrow, the groups of the status line go lowest first. */
enum status_keep {
	KEEP_UNITS = 10,	/* "(210 MB, 200 MiB)" */
	KEEP_AVG = 20,		/* "avg 200 MiB/s" */
	KEEP_SECS = 30,		/* "1.00 s" */
	KEEP_WORDS = 35,	/* " copied" */
	KEEP_FILL = 40,		/* "in   3% full, out 100% full" */
	KEEP_FLOW = 45,		/* splice-buffer's "in 1.1 GiB @ R/s, out @ R/s" */
	KEEP_RATE = 50,		/* "200 MiB/s" */
	KEEP_PAD = 75,		/* the blanks that right-align a --name */
	KEEP_DONE_ETA = 90,	/* "ETA 0:00:00" of a finished transfer */
	KEEP_SHORT_BYTES = 95,	/* "bytes" (else "B"): no group of this rank */
	KEEP_TOOL = 97,		/* a tool's group that goes only before the name's end */
	KEEP_ALWAYS = 100,	/* the bytes, the percent and the ETA */
};
/* A group a tool adds to its status line (splice-buffer: its fill level). */
struct status_group {
	/*
	 * Writes the group's text into buf ("ring 40%"), without separators,
	 * and returns its length; 0 shows nothing this time.  Runs on the
	 * watcher thread too, under the status lines' lock: it may read only
	 * what is safe to read there (atomics).
	 */
	size_t (*text)(char *buf, size_t size, void *arg);
	void *arg;
	int keep;		/* a KEEP_* rank: when the line must shrink */
};
/*
 * After tool_start(): g's group goes after the rates and fill levels,
 * before the percent.  0, or -1 when there are too many.
 */
int status_group_add(const struct status_group *g);

/* ---- addresses, ports and nets: lib/addr.c ------------------------------ */

/* A socket address as a script reads it: "127.0.0.1" or "::1", and a port. */
struct tcp_name {
	char host[46];		/* INET6_ADDRSTRLEN */
	unsigned int port;
};

/* How to reach or listen on an address, nc's options. */
struct tcp_opts {
	int family;		/* -4, -6: AF_INET or AF_INET6; else AF_UNSPEC */
	bool numeric;		/* -n: numeric addresses and ports, no DNS */
	const char *source;	/* -s ADDR: connect from this address, or NULL */
	double timeout_secs;	/* -w: > 0 bounds each connect(2), and unsent data */
	double retry_secs;	/* --retry: keep trying to connect this long */
	const char *name;	/* the peer in messages as written, or NULL: "HOST PORT" */
};

/* The address and port of sa, as a script reads them (v4-mapped as IPv4). */
struct sockaddr;
void tcp_name_of(const struct sockaddr *sa, struct tcp_name *name);

/* Handles -4, -6, -n and -N (accepted, as nc's) into *o; false for others. */
bool net_option(int opt, struct tcp_opts *o);
/*
 * Splits "HOST:PORT" or "[V6ADDR]:PORT" in place.  Returns 0, or -1 when
 * spec has no port or an unbracketed IPv6 address; see port_valid().
 */
int tcp_split(char *spec, char **host, char **port);
/*
 * A port that looks numeric to getaddrinfo() (strtoul(3): " 80", "+80")
 * must be 0 (where allow_zero) to 65535, which getaddrinfo() does not check
 * (70000 would be 4464), and nothing may follow the digits ("80x").  A
 * service name ("http") is left to getaddrinfo().
 */
bool port_valid(const char *port, bool allow_zero);

/* An address and a prefix length: --allow 192.0.2.0/24. */
struct tcp_net {
	int family;		/* AF_INET or AF_INET6 */
	unsigned char addr[16];
	unsigned int prefix_bits;
};
/*
 * Parses a numeric "ADDR" or "ADDR/PREFIX" (a v4-mapped IPv6 one becomes
 * IPv4, as tcp_name does).  Returns 0, or -1 when malformed.
 */
int tcp_net_parse(const char *spec, struct tcp_net *net);
/* True when peer's address lies in one of the n nets. */
bool tcp_net_match(const struct tcp_net *nets, size_t n, const struct tcp_name *peer);

/* ---- TCP and Unix-domain streams: lib/tcp.c ----------------------------- */

/*
 * Connects to HOST PORT over TCP: every address getaddrinfo() gives for
 * o->family is tried in turn, and the whole round is repeated until
 * o->retry_secs have passed (0: one round).  With o->timeout_secs, data
 * the peer leaves unacknowledged that long (TCP_USER_TIMEOUT: a peer that
 * stopped reading) fails the connection with ETIMEDOUT.  Returns a blocking,
 * close-on-exec socket, or -1 after "prog: HOST PORT: reason".
 */
int tcp_connect(const char *host, const char *port, const struct tcp_opts *o);
/* The same for a Unix-domain stream socket at path ("prog: PATH: reason"). */
int unix_connect(const char *path, const struct tcp_opts *o);
/*
 * Listens on ADDR PORT (ADDR NULL: every address, IPv6 and IPv4 where the
 * machine has both; PORT "0": one the kernel picks; a v4-mapped ADDR is
 * IPv4) and stores the address and port it got in *bound.  Returns the
 * socket, or -1 after "prog: ADDR PORT: reason".
 */
int tcp_listen(const char *addr, const char *port, const struct tcp_opts *o,
    struct tcp_name *bound);
/*
 * Listens on a Unix-domain stream socket at path, replacing a socket file
 * that nobody listens on (never another file); -1 after "prog: PATH: reason".
 */
int unix_listen(const char *path);
/*
 * Accepts one connection, waiting at most timeout_secs (< 0: for ever);
 * stores the peer in *peer (may be NULL).  Returns the socket, non-blocking
 * and close-on-exec, or -1 with errno (ETIMEDOUT when the time ran out);
 * prints nothing.
 */
int tcp_accept(int listen_fd, double timeout_secs, struct tcp_name *peer);
/*
 * The sender's end of a stream, as nc -N does it: shutdown(SHUT_WR) so the
 * peer sees EOF, then read (and drop) until the peer closes, so that the
 * caller knows the bytes arrived; waiting at most idle_secs at a time when
 * that is > 0 (ETIMEDOUT).  Returns 0, or -1 with errno (ECONNRESET: the
 * peer went away without reading everything).
 */
int tcp_finish(int fd, double idle_secs);
/*
 * Gives up on a connection: closes fd with a reset (SO_LINGER 0) instead of
 * an end of stream, so the peer knows that what it got is not everything.
 */
void tcp_abort(int fd);
/*
 * From now on SIGINT, SIGTERM, SIGHUP and SIGPIPE (those not ignored)
 * reset the connections of the nfds sockets in fds (-1: none) before they
 * end the tool; fds must stay valid.
 */
void tcp_abort_on_signals(const int *fds, size_t nfds);
/*
 * The hook tcp_abort_on_signals() gives on_ending_signal(): the registered
 * sockets end with a reset when the process ends.  For a tool whose own
 * hook must do more.
 */
void tcp_reset_registered(void);
/*
 * Ends the tool by sig's default action (128+sig), after resetting the
 * connections registered with tcp_abort_on_signals(): what a signal the
 * tool had to ignore would have done (splice-tee's vanished pipe reader,
 * once SIGPIPE is ignored for its TCP peers' sake).
 */
void tcp_abort_and_die(int sig);

/* ---- both ways at once: lib/duplex.c ------------------------------------ */

struct duplex {
	int in, sock, out;	/* standard input, the connection, standard output */
	bool no_reply;		/* drop what the peer sends instead of copying it to out */
	/*
	 * What --progress and -L count (account_input(), COUNT_INPUT): what
	 * the peer sends, else (splice-tonet) what is sent to it.
	 */
	bool count_received;
	double idle_secs;	/* > 0: nothing moving either way this long fails */
	bool no_send;		/* nc -d: in is not read, nor the sending side shut */
	double quit_secs;	/* nc -q: >= 0, once in ended, end this much later */
	struct engine_opts opts;	/* strict, verbose, pipe size */
	/* results */
	uint64_t sent, received;
	/*
	 * Whose error: SIDE_INPUT (d->in), SIDE_PEER, SIDE_OUTPUT (d->out);
	 * ETIMEDOUT: idle.
	 */
	struct xfer_error error;
};

/*
 * Sends d->in to the socket d->sock while it copies what the peer sends to
 * d->out, as nc does, until d->in ends (then shutdown(SHUT_WR)) and the
 * peer has closed.  Zero-copy where the kernel allows: splice(2) from or
 * to a pipe, sendfile(2) from a regular file, else splice(2) through a
 * pipe of its own; read/write where the kernel refuses (not with
 * d->opts.strict).  With d->no_send, only the peer's bytes move; with
 * d->quit_secs >= 0, the run ends that long after d->in ended, whether
 * the peer closed or not, as nc -q.  No call waits: one poll(2) loop for both directions, so
 * a peer that echoes cannot deadlock it and a reply reaches d->out as it
 * comes.  Makes d->sock non-blocking.  Returns 0, or -1 with d->error
 * set; prints nothing but -v notes.
 */
int duplex_run(struct duplex *d);
/*
 * After duplex_run() failed: "prog: NAME: reason", NAME being standard
 * input, standard output or peer, whoever's error it was.
 */
void duplex_warn(const struct duplex *d, const char *peer);

/* ---- a big buffer that copies nothing: lib/ring.c ---------------------- */

struct ring;

struct ring_job {
	/*
	 * x.in, x.out and x.opts (strict, verbose, pipe size, -L's call
	 * size); the results in x: moved (bytes delivered), error (refused:
	 * --strict stopped a fallback to read/write).
	 */
	struct xfer x;
	uint64_t size;		/* bytes the buffer holds at least */
	unsigned int start_percent;	/* -P: output waits until this full; 0: at once */
	unsigned int resume_percent;	/* -p: after full, input waits until this; 100: at once */
	uint64_t rate;		/* -L: output bytes a second, 0 = no limit */
	/* what ring_open() got */
	size_t pipes;		/* pipes in the ring */
	uint64_t pipe_bytes;	/* their capacity, together */
	uint64_t memfd_bytes;	/* the memfd part: what the pipes could not hold */
	const char *short_call;	/* why the pipes hold less than size: "pipe2", ... */
	int short_err;		/* and its errno */
	size_t short_granted;	/* F_SETPIPE_SZ: what the last pipe got */
	bool memfd_refused;	/* --strict refused the memfd part, which copies */
	struct ring *ring;	/* the engine's own */
};

/*
 * Builds the buffer before any byte moves: pipes of o->pipe_bytes (default
 * pipe-max-size), until they hold j->size, or the descriptors run out
 * (EMFILE; the soft RLIMIT_NOFILE is raised toward the hard one first), or
 * the kernel grants a pipe less (pipe-user-pages-soft); the rest a memfd,
 * unless j->x.opts.strict (j->memfd_refused).  A side that is not a pipe
 * gets a pipe of the engine's between it and the ring.  Returns 0, or -1
 * with j->x.error set; prints nothing.  ring_close() frees it either
 * way.
 */
int ring_open(struct ring_job *j);
/* Closes the ring's pipes and memfd, frees it. */
void ring_close(struct ring_job *j);
/*
 * The status line's groups (status_group_add()), arg unused: the fill,
 * "buffer  40% full", and the flows, "in 1.1 GiB @ R/s, out @ R/s": what
 * was taken in, and both rates since the last line.
 */
size_t ring_fill_text(char *buf, size_t size, void *arg);
size_t ring_flow_text(char *buf, size_t size, void *arg);
/*
 * The line splice-buffer ends with, as mbuffer does, and what to size -m
 * by: "splice-buffer: 1073741824 bytes (1.0 GiB) in 0.91 s, avg 1.1 GiB/s,
 * buffer at most 40% full (13 MiB of 32 MiB)".  For on_totals().
 */
void ring_summary(void);

/* ---- the buffer engine's loop: lib/ring_run.c --------------------------- */

/*
 * After ring_open(): moves j->x.in to j->x.out through the buffer until
 * end of input and every byte delivered; input as fast as it comes while
 * the buffer has room, output as fast as the reader takes it while it has
 * bytes, each side held back only by -P, -p and -L.  splice(2) only: pipe
 * to pipe by reference, into the memfd by one copy in the kernel, out of
 * it by reference, each region punched out once spliced.  A side that
 * refuses splice(2) before its first byte gets read(2) or write(2), unless
 * strict.  One poll(2) loop, no call that blocks on a pipe.  Returns 0, or
 * -1 with j->x.error set; prints nothing but -v notes.
 */
int ring_run(struct ring_job *j);

/* ---- the tee engine's pipes: lib/tee_pipes.c ---------------------------- */

/*
 * The pipes of tee_open() and tee_fd(): the engine's own, declared here
 * because struct tee_job holds them.
 */
struct tee_pipes {
	int src;		/* the input, or fill[0] */
	int fill[2];		/* an input that is not a pipe goes in here first */
	int q[2];		/* tee(2) into here, splice(2) out to an output */
	long q_cap;		/* kept at least the source's capacity */
	bool direct;		/* outs[0] is fed by tee(2) itself */
	bool fill_by_read;	/* splice(2) into fill was refused */
	bool copy_all;		/* no tee(2): read once, write to each */
};

/* Of tee.c: the job tee_open() prepares. */
struct tee_job;

/*
 * Makes the pipes tee_fd() needs, before any output is truncated: when
 * they cannot be made, tee_fd() copies with read(2) and write(2) instead,
 * unless t->opts.strict, which refuses here (and refuses an input or outs[0]
 * that is not a pipe).  Returns 0, or -1 with t->error set.
 */
int tee_open(struct tee_job *t);

/* ---- tee, one input to many outputs: lib/tee.c -------------------------- */

/* One output of tee_fd(). */
struct tee_out {
	int fd;
	const char *name;	/* for messages */
	/* set by tee_fd() */
	bool gone;		/* dropped after a failure (a caller may set it too) */
	bool by_copy;		/* splice(2) refused: read/write from then on */
	uint64_t moved;		/* bytes delivered */
	struct xfer_error error;	/* the failure that dropped it: SIDE_OUTPUT */
};

struct tee_job {
	int in;
	const char *in_name;
	struct tee_out *outs;	/* outs[0] is fed by tee(2) directly when it is a pipe */
	size_t nouts;
	/*
	 * Called once for each output as it is dropped, with o->error set;
	 * returns false to stop at once (tee's "exit" modes).
	 */
	bool (*output_failed)(struct tee_out *o);
	/*
	 * While the input is idle, an output pipe whose reader left is
	 * dropped at once (EPIPE), so that with none left the job ends
	 * without waiting for input: GNU tee -p.
	 */
	bool watch_pipes;
	unsigned int flags;	/* extra SPLICE_F_* flags for splice(2) (MOVE) */
	struct engine_opts opts;	/* strict, verbose, pipe size */
	/* results */
	uint64_t taken;		/* bytes consumed from in */
	/*
	 * A failure of the input (SIDE_INPUT), of the engine's pipes
	 * (SIDE_NONE), or refused: --strict and in (SIDE_INPUT) or outs[0]
	 * (SIDE_OUTPUT) is not a pipe.
	 */
	struct xfer_error error;
	bool stopped;		/* output_failed() said stop */
	struct tee_pipes pipes;	/* set up by tee_open() */
};

/*
 * After tee_open(): copies everything from t->in to every output that is
 * not gone, until end of input or until every output is gone.  When t->in
 * and outs[0] are pipes: tee(2) into outs[0], tee(2) into an internal pipe
 * and splice(2) from there for each other output, and the last output
 * consumes the input with splice(2); at most one pipe capacity is in flight
 * per output, and the internal pipe follows the source's capacity
 * (read/write for the rest of a round when it cannot follow a pipe the
 * other end grew).  An input that is not a pipe is spliced (or read) into an
 * internal pipe first; an output that refuses splice(2) before its first
 * byte gets read/write.  t->opts.strict refuses every read/write fallback.
 * A failing output is dropped and output_failed() called; the others go
 * on.  Closes the pipes.  Returns 0, or -1 with t->error (an input or
 * internal failure) or t->stopped; prints nothing but -v notes.
 */
int tee_fd(struct tee_job *t);

/* ---- the patterns vmsplice writes: lib/pattern.c ------------------------ */

/*
 * The byte streams vmsplice writes and vmsplice-touser checks.  Any byte
 * is a function of its stream offset alone, so a block can be made or
 * checked without replaying what came before it.
 */
enum pattern_kind {
	PAT_ZERO,		/* 0x00 */
	PAT_FILL,		/* one byte */
	PAT_RAMP,		/* offset & 0xff, the 2006 tool's */
	PAT_SEQ,		/* each 8-byte little-endian word is its own offset */
	PAT_RANDOM,		/* a counter-based PRNG of the word index and a seed */
	PAT_TEXT,		/* a string, over and over: yes(1) */
};

struct pattern {
	enum pattern_kind kind;
	unsigned char byte;	/* PAT_FILL */
	uint64_t seed;		/* PAT_RANDOM */
	const unsigned char *text;	/* PAT_TEXT, its escapes decoded */
	size_t text_bytes;	/* PAT_TEXT: at least 1 */
};

/* The names --help prints. */
#define PATTERN_NAMES "zero, fill:BYTE, ramp, seq, random[:SEED], text:STRING"

/*
 * Parses "zero", "fill:BYTE" (0 to 255, decimal or 0x..), "ramp", "seq",
 * "random", "random:SEED" (0 to 2^64-1) or "text:STRING" (C's escapes:
 * \n, \t, \\, \0, \x41, \101, ...; not empty); anything else is a usage
 * error naming OPT.
 */
void pattern_parse(const char *opt, const char *arg, struct pattern *p);
/*
 * "seq", "fill:0x41", "random:7", "text:y\n": what pattern_parse() would
 * take back (a long text is cut short, "...").
 */
const char *pattern_label(const struct pattern *p);
/* Writes the pattern's bytes for stream offsets offset..offset+len-1. */
void pattern_fill(const struct pattern *p, uint64_t offset, void *buf, size_t len);
/*
 * pattern_fill() with non-temporal stores where the CPU has them, for
 * memory that is not in the cache and will not be read back here.
 */
void pattern_fill_stream(const struct pattern *p, uint64_t offset, void *buf, size_t len);
/* Index of the first byte of buf that differs from the pattern, or len. */
size_t pattern_check(const struct pattern *p, uint64_t offset, const void *buf, size_t len);
/* The pattern's byte at one offset. */
unsigned char pattern_byte(const struct pattern *p, uint64_t offset);
/*
 * The smallest period of the pattern (the bytes at o and o + period are
 * equal for every o): 1 for zero and fill, 256 for ramp, the text's length;
 * 0 for a pattern that never repeats (seq, random).
 */
uint64_t pattern_period(const struct pattern *p);

/* ---- vmsplice(2) in and out of a pipe: lib/vmsplice_io.c ---------------- */

/*
 * Puts len bytes at buf into pipe fd with vmsplice(2): the pipe takes
 * references to the pages, it does not copy them.  Short calls are
 * completed and EINTR retried; a full pipe is waited out with poll(2), or
 * with busy by calling again at once (SPLICE_F_NONBLOCK either way, since
 * vmsplice ignores the fd's O_NONBLOCK).  flags adds SPLICE_F_GIFT.
 * Counts the bytes with account(M_VMSPLICE).  Returns 0, or -1 with errno.
 */
int vmsplice_all(int fd, const void *buf, size_t len, unsigned int flags, bool busy);
/*
 * Copies at most len bytes out of pipe fd into buf with vmsplice(2) (from
 * a pipe, vmsplice copies).  With nonblock, SPLICE_F_NONBLOCK and poll(2)
 * for POLLIN.  Returns the bytes copied, 0 at end of input, -1 with errno.
 */
ssize_t vmsplice_read(int fd, void *buf, size_t len, bool nonblock);

/* ---- clock: lib/clock.c ------------------------------------------------- */

/* CLOCK_MONOTONIC in seconds. */
double now_seconds(void);

/* ---- memory: lib/mem.c -------------------------------------------------- */

#define HUGE_PAGE_BYTES ((size_t)2 << 20)

/*
 * size bytes of fresh anonymous memory, or NULL with errno; with huge,
 * 2 MiB-aligned and MADV_HUGEPAGE (where THP is off: 4 KiB pages, the same
 * bytes).  munmap(2) gives it back.
 */
void *map_region(size_t size, bool huge);
/* n rounded up to a whole number of units: pages, huge pages, punched regions. */
size_t round_up(size_t n, size_t unit);

#endif
