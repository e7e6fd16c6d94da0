/*
 * internal.h: what the files of lib/ share among themselves and no tool
 * calls: the pieces the engines are built of.  Every file of lib/ includes
 * it (it includes splice.h); a tool, bench/ and fuzz/ include splice.h
 * alone.  Its sections follow splice.h's map of lib/, one banner per file.
 */
#ifndef SPLICE_TOOLS_INTERNAL_H
#define SPLICE_TOOLS_INTERNAL_H

#include "splice.h"

/* ---- messages: lib/msg.c ------------------------------------------------ */

/* "prog (splice-tools) X.Y.Z" on stdout, exit 0. */
noreturn void print_version(void);

/* ---- descriptors and pipes: lib/fd.c ------------------------------------ */

bool fd_is_regular(int fd);
/*
 * A socket, a terminal or another character device: what may block a
 * splice(2) on its side whatever SPLICE_F_NONBLOCK says, so it is polled
 * first.  Not a pipe, a regular file or a block device.
 */
bool fd_may_wait(int fd);
/* pipe2(O_CLOEXEC) then pipe_grow(); -1 with errno on failure. */
int pipe_open(int fds[2], const struct engine_opts *o);

/* Waits with poll(2) until fd is ready for events; retries EINTR. */
int wait_fd(int fd, short events);
/*
 * The timeout to give poll(2) to wait until deadline, a now_seconds() time
 * (< 0: for ever), in pieces that fit its int; poll again while not there.
 */
int poll_timeout_ms(double deadline);

/*
 * err came from a call on fd.  EINVAL from a descriptor opened O_DIRECT is
 * its alignment rule (an unaligned length, buffer or offset: a file's
 * tail), not "this pair can't": clears O_DIRECT, as dd does for its last
 * block, and returns true, so that the same call, made again, goes through
 * the page cache.  The bytes are the same either way.  errno is kept.
 */
bool direct_io_dropped(int fd, int err);
/*
 * The one buffer the read/write paths copy through, and its size: page
 * aligned, a whole number of pages, as O_DIRECT asks.
 */
void *copy_buffer(size_t *bytes);
/*
 * read_retry() of at most max bytes from in into copy_buffer(), then
 * write_all() to out.  The bytes copied, 0 at end of input, or -1 with
 * errno and *side saying which side failed.
 */
ssize_t copy_once(int in, int out, size_t max, enum xfer_side *side);
/*
 * Opens /dev/null on each of descriptors 0, 1 and 2 that is closed, so that
 * no pipe, file or socket the tool opens later lands there and no message
 * goes into one.  Each closed descriptor in needed (STD_FD bits) is an
 * error: "prog: standard input: Bad file descriptor".  Call it once the
 * options are parsed, before anything is opened; exit_status() then says
 * whether to go on.  Returns the descriptors that were closed.
 */
unsigned int std_fds_fill(unsigned int needed);

/* ---- an engine's failure: lib/failure.c --------------------------------- */

/* Records err from call on side in e (not a refusal, yet); returns -1. */
int xfer_error_set(struct xfer_error *e, enum xfer_side side, const char *call, int err);
/* The kernel's "this pair can't do that", as opposed to an I/O error. */
bool err_is_refusal(int err);
/*
 * The --strict rule, the one place an engine decides to get around the
 * kernel by read(2)/write(2) (or a copy).  e records what failed after
 * moved bytes; it is a refusal when nothing moved yet and e->err is one
 * (err_is_refusal(): after the first byte, the same errno is an I/O
 * error), or when the caller said so (e->refused: no pipe to be
 * had, no tee(2) for a file).  A refusal may be got around unless
 * o->strict: then e is cleared and true returned.  Otherwise false, and e
 * is the failure to return, e->refused saying that --strict stopped it.
 */
bool fallback_allowed(const struct engine_opts *o, uint64_t moved, struct xfer_error *e);

/* ---- one transfer as a stream; what the engines share: lib/xfer.c ------- */

/* An engine's method returns DONE, FAILED (x->error set) or REFUSED (try the next). */
enum { DONE = 0, FAILED = -1, REFUSED = 1 };

/* Bytes x still has to move (TO_EOF: no end). */
uint64_t xfer_left(const struct xfer *x);
/* The bytes to ask one call for: chunk, x->chunk and xfer_left() at most. */
size_t xfer_call_bytes(const struct xfer *x, size_t chunk);
/* Records err from call on side in x->error; returns FAILED. */
int xfer_fail(struct xfer *x, enum xfer_side side, const char *call, int err);
/* Errors that only writing produces. */
bool err_is_output(int err);
/*
 * Splices exactly n bytes, which pipe `from` holds, into `to`: EINTR
 * retried, an inherited O_NONBLOCK waited out with poll(2), every byte
 * added to *moved and counted under m.  Returns 0, or -1 with errno (EIO
 * if the pipe came up short) after *moved says how far it got.
 */
int splice_held(int from, int to, size_t n, unsigned int flags, enum xfer_method m,
    uint64_t *moved);

/* Clears what a transfer reports (moved, error), before it starts. */
void xfer_begin(struct xfer *x);
/*
 * Moves x as a stream, after move_fd() has ruled out a clone and a sparse
 * copy: splice(2) when a side is a pipe, copy_file_range(2) between regular
 * files, else splice(2) through a pipe of the engine's; read(2)/write(2)
 * when the kernel refuses before the first byte moved, unless x->opts.strict
 * (then x->error.refused).  Same contract as move_fd().
 */
int xfer_stream(struct xfer *x);

/* ---- accounting, -v totals and -L: lib/account.c ------------------------ */

/*
 * Zeroes the counters and starts the clock for rates: totals per method at
 * the end under verbose, and at most rate bytes a second (0: no limit),
 * counted as count says; total (TO_EOF: none) is the user's --size, which
 * account_set_total() does not change.  account_start() calls it.
 */
void account_reset(int verbose, enum progress_count count, uint64_t rate, uint64_t total);
/*
 * n bytes of a hole that a sparse copy kept as a hole: --progress counts
 * them (they are in the output, as dd conv=sparse counts them); -L and the
 * methods do not, since nothing moved.
 */
void account_holes(uint64_t n);
/* The bytes counted so far, as --progress shows them. */
uint64_t account_bytes(void);
/* What account_set_total() or --size said: the bytes to expect, or TO_EOF. */
uint64_t account_total(void);
/*
 * With -v: "prog: N bytes by METHOD in T s (R MiB/s)" for each method used;
 * counted by the input (COUNT_INPUT: splice-tee's outputs, a socket's
 * replies), "prog: N bytes read in T s (R MiB/s)" once, then "prog: N
 * bytes written by METHOD" for each.
 */
void report_methods(void);
/* Seconds since account_reset() or restart_rate_clock(). */
double elapsed_seconds(void);

/* ---- the text of a --progress status line: lib/status_line.c ------------ */

/* The groups a tool may add to its status line (status_group_add()). */
#define STATUS_GROUPS_MAX 4

/* What a status line shows beside the counts: lib/progress.c's settings. */
struct status_look {
	const char *name;	/* --name: what starts the line, or NULL */
	int fill_in, fill_out;	/* pipes whose fill level shows, or -1 */
	int *seen;		/* [2]: their levels last seen, in and out, or -1 */
	const struct status_group *groups;	/* the tool's own groups */
	size_t ngroups;
};

/* The counts a status line tells. */
struct status_count {
	uint64_t bytes, total;	/* total: TO_EOF when not known */
	uint64_t widest_total;	/* the largest total so far, 0 none: the count's width */
	double secs;		/* since the start */
	double rate_now;	/* since the line before */
	double rate_recent;	/* over the ETA's window */
	bool last;		/* the tool's last line: no ETA */
};

/* A name is right-aligned in this many columns at least, as pv -N does. */
#define STATUS_NAME_WIDTH 9

/*
 * What the lines at one width left out, kept so that the next lines leave
 * it out too and the fields keep their columns: zeroed when the width
 * changes.
 */
struct status_fit {
	int dropped;		/* groups of this rank or lower are gone */
	size_t name_len;	/* the name was cut to this many bytes; 0: whole */
};

/*
 * The status line, every number in a field of its own width:
 * "[NAME: ]N bytes (SI, IEC) copied, T s, R/s, avg A/s" then, where they
 * apply, ", in N% full, out N% full", the tool's own groups, and when the
 * total is known ", done P%, ETA H:MM:SS" (the last line without the
 * ETA): dd's first part, pv's rates and estimate.  Rates in powers of 1024
 * (KiB/s, MiB/s), the units of -L and -v.  Fitted to width columns when
 * width > 0, leaving out what *fit says the lines before left out, and
 * adding to it (NULL: nothing kept).  Returns its length.
 */
size_t status_line_format(char *line, size_t size, const struct status_look *look,
    const struct status_count *c, size_t width, struct status_fit *fit);
/* How full pipe fd is, 0 to 100; -1 when it is not a pipe, or closed. */
int pipe_fill(int fd);
/* A size or rate as the status line prints it: "1.1 GiB", "977 KiB", "512 B". */
void progress_size_text(char *buf, size_t size, double bytes);

/* ---- standard error and the terminal: lib/term.c ------------------------ */

/*
 * Once the descriptors 0-2 are in place (tool_start()): stderr gets an open
 * file of its own that never blocks, where it can, so that a write waits
 * for room in poll(2) and never past the thread's deadline; on a terminal,
 * the status lines get their row.  Before it, messages go straight to fd 2.
 */
void term_start(void);
/*
 * Every write to stderr by the calling thread waits for room no later than
 * deadline, a now_seconds() time (< 0: for ever, the default), and what it
 * could not write is dropped.
 */
void term_deadline(double deadline);
/* Whole lines of text, one write(2): a message, a --numeric line. */
void term_print(const char *text, size_t len);
/* Columns of the terminal for a status line; 0 when stderr is not one. */
size_t term_columns(void);
/*
 * A status line, without a newline: on a terminal it is redrawn in its
 * row (or after \r) until one comes with keep; elsewhere, a line.
 */
void term_status(const char *line, size_t len, bool keep);
/* Leaves the terminal as a shell expects it: the \r line ended, the row given up. */
void term_end(void);
/*
 * term_end() for a signal handler about to end the tool (SIGPIPE), best
 * effort: no lock, one write(2).  term_start() installs such a handler for
 * SIGPIPE where it is not ignored or handled; lib/tcp.c's calls it too.
 */
void term_dying(void);

/* ---- the buffer engine's ring, how full it is: lib/ring.c --------------- */

/*
 * The memfd is punched in whole 2 MiB units, 2 MiB-aligned: where shmem
 * uses huge pages, punching part of one would zero it in place, under the
 * reader that holds it.
 */
#define PUNCH_UNIT HUGE_PAGE_BYTES

/* One stage of the ring: a pipe, or a region of the memfd. */
struct slot {
	int rd, wr;		/* the pipe's ends; -1: a region of the memfd */
	size_t cap;		/* bytes it holds at most */
	size_t held;		/* bytes in it now */
	bool full;		/* it took no more: a pipe counts buffers, not bytes */
	off_t base;		/* memfd: where the region starts */
	size_t filled;		/* memfd: bytes written from base on */
	size_t drained;		/* memfd: bytes spliced out from base on */
	size_t punched;		/* memfd: bytes from base on that are holes again */
};

/* A pipe of the engine's between a side that is not a pipe and the ring. */
struct stage {
	int fd[2];		/* -1 when that side is a pipe */
	size_t cap;
	size_t held;
};

struct ring {
	struct slot *slots;
	size_t nslots, npipes;
	size_t head, tail;	/* output drains slots[head], input fills slots[tail] */
	int memfd;
	uint64_t pipe_bytes, memfd_bytes, capacity;
	struct stage in_stage;	/* a side that is not a pipe to the memfd, or read(2) */
	struct stage out_stage;	/* the memfd to a side that is not a pipe, or write(2) */
	bool in_pipe, out_pipe;
	bool in_waits, out_waits;	/* polled before each call: a socket, a terminal */
	bool in_ready, out_ready;	/* poll(2) said so, and no call since */
	bool in_by_read, out_by_write;	/* splice(2) refused: the copying path */
	bool in_eof;
	bool in_held;		/* -p: input waits for the buffer to drain */
	bool out_held;		/* -P: output waits for the buffer to fill */
	long in_capacity;	/* of an input pipe, read again every 16 calls */
	unsigned int in_calls;
	double rate_origin;	/* -L: when output started, < 0 before */
};


/* What one step of a side came to. */
enum step { ST_MOVED, ST_WAIT, ST_BLOCKED, ST_END, ST_FAILED };

/* Bytes the ring holds now: taken from the input and not yet delivered. */
uint64_t ring_buffered(void);
/* Bytes taken from the input since ring_open(). */
uint64_t ring_taken(void);
/* n bytes came in from the input. */
void ring_took(uint64_t n);
/* n bytes went from the input straight to the output by splice(2), through no slot. */
void ring_passed(struct ring_job *j, uint64_t n);
/* n bytes went out to the output, moved by m: j->x.moved and the -v totals count them. */
void ring_delivered(struct ring_job *j, uint64_t n, enum xfer_method m);

/* ---- one step of the buffer engine's sides: lib/ring_step.c ------------- */

/* The tail takes more, or the slot after it is free: input has somewhere to go. */
bool ring_has_room(const struct ring *r);
/* One call's worth of input into the ring. */
enum step ring_fill_step(struct ring_job *j);
/* One call's worth of output from the ring. */
enum step ring_drain_step(struct ring_job *j);
/*
 * Nothing is buffered and the reader keeps up: the input pipe straight
 * into the output pipe, one splice(2) instead of two through the ring.
 * ST_BLOCKED when that cannot be: a side is not a pipe, -P or -L holds
 * output, the buffer holds bytes, or the output pipe is full (then the
 * ring takes the input).
 */
enum step ring_cut_through(struct ring_job *j);

/* ---- the tee engine's pipes: lib/tee_pipes.c ---------------------------- */

/*
 * True when the empty internal pipe q has at least the capacity of the
 * source (grown to it if need be); false with errno when it cannot have.
 */
bool tee_q_holds_source(struct tee_job *t, struct tee_pipes *p);
/* Closes the tee engine's pipes. */
void tee_close(struct tee_pipes *p);

/* ---- the tee engine without tee(2): lib/tee_copy.c ---------------------- */

/* What a round of the tee engine returns besides a byte count. */
enum { ROUND_FAILED = -1, ROUND_AGAIN = -2 };

/* Records o's failure (SIDE_OUTPUT) and drops it. */
void tee_out_fail(struct tee_out *o, const char *call, int err);
/* o was dropped: tells t->output_failed(); false (t->stopped) when it says stop. */
bool tee_dropped(struct tee_job *t, struct tee_out *o);
/*
 * The portable round, once tee(2) was refused: read(2) up to len bytes
 * from src and write(2) them to every output.  Returns the bytes, 0 at end
 * of input, or ROUND_FAILED (t->error set, or t->stopped).
 */
ssize_t tee_copy_round(struct tee_job *t, int src, size_t len);
/*
 * The rest of a round once the internal pipe could not follow the source:
 * outputs from..last get the round's n bytes by read(2) and write(2), and
 * the source gives them up.  Returns n or ROUND_FAILED.
 */
ssize_t tee_copy_rest(struct tee_job *t, struct tee_pipes *p, struct tee_out *from,
    const struct tee_out *last, size_t n);

/* ---- clock: lib/clock.c ------------------------------------------------- */

/* Sleeps secs seconds (nothing when secs <= 0), through EINTR. */
void sleep_seconds(double secs);
/* Locks m, waiting no later than deadline (now_seconds(); < 0: for ever); false if not. */
bool lock_until(pthread_mutex_t *m, double deadline);

#endif
