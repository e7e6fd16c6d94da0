/*
 * probe.h: what the scenarios of splice-probe share.  Each scenario asks
 * the kernel one thing and prints its answers on stdout, one line: "ok N"
 * for a call that returned N, or the errno's name; the checks live in
 * tests/kernel.sh.  A setup step that fails is not an answer: die() says
 * which step and exits 1.
 *
 *   util.c       answers, setup steps, identities, waiting for a child
 *   splice.c     splice(2): LTP's splice01-06 and 08-09, dirtypipe, the
 *                behaviours the tools rely on
 *   fdkinds.c    splice(2) between every kind of descriptor (splice07)
 *   vmsplice.c   tee(2) and vmsplice(2): tee01-02, vmsplice01-04
 *   pipe.c       pipe capacity: fcntl30/35/37, pipe2_04, pipe12, pipe15, the user limits
 *   sendfile.c   sendfile(2): sendfile02-09
 *   copy_range.c copy_file_range(2): copy_file_range01-03
 *   kmsg.c       the kernel log: where it is, what came after
 */
#ifndef SPLICE_PROBE_H
#define SPLICE_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdnoreturn.h>
#include <sys/types.h>

/* ---- answers: util.c ------------------------------------------------------ */

/* EINVAL, EBADF, ...; "E<number>" for one without a name here. */
const char *errno_name(int err);
/* "ok RET", or the errno's name when ret < 0; no newline. */
void result(long ret, int err);
/* result(), then a newline. */
void result_line(long ret, int err);
/*
 * result() of a call made as the argument, with the errno it left:
 * answer(write(fd, buf, 1)), where result(write(...), errno) could read
 * errno before the call.
 */
void answer(long ret);
void answer_line(long ret);
/*
 * result(), then close(2) on each descriptor named after err, the scenario's
 * files and pipes: result_closing(n, errno, fd, p[0], p[1]).
 */
#define result_closing(ret, err, ...) \
	result_close((ret), (err), (const int[]){ __VA_ARGS__ }, \
	    sizeof((const int[]){ __VA_ARGS__ }) / sizeof(int))
void result_close(long ret, int err, const int fds[], size_t count);
/* "splice-probe: WHAT: strerror(errno)" on stderr, exit 1. */
noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A bad argument: the message on stderr, exit 2. */
noreturn void bad_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- setup steps: util.c (each dies on failure) ------------------------------ */

void make_pipe(int p[2]);
/* fork(2), stdout flushed first: the child must not print what the parent buffered. */
pid_t fork_or_die(void);
/* open(2) with O_CLOEXEC, mode 0644 for a file it creates. */
int open_or_die(const char *path, int flags);
void write_or_die(int fd, const void *buf, size_t len);
void read_exactly(int fd, void *buf, size_t len);
/* Page-aligned anonymous memory, so vmsplice(2) hands the kernel whole pages. */
char *pages(size_t len);
/* The whole of a (small) file, in page-aligned memory. */
char *slurp(const char *path, size_t *len);
/* Creates or truncates path with len bytes of buf. */
void spit(const char *path, const void *buf, size_t len);
/* Whatever the pipe holds (FIONREAD), read into the file path. */
void drain_to(int pipe_rd, const char *path);
size_t page_size(void);
/* Byte i of the ramp pattern is i & 0xff, as in LTP and vmsplice -p ramp. */
void fill_ramp(char *buf, size_t len);

/* ---- arguments: util.c ------------------------------------------------------------ */

/* A decimal number from 0 to max; anything else is a usage error. */
unsigned long long number_arg(const char *s, unsigned long long max);
/* The index of kind in names[count]; an unknown kind is a usage error. */
int pick(const char *scenario, const char *kind, const char *const names[], int count);

/* ---- calls: util.c ------------------------------------------------------------------- */

/*
 * one(ARG) for each argument, answers on one line, a space apart: one()
 * prints its answer without a newline.
 */
void each_arg(char *argv[], void (*one)(const char *arg));
/* splice(2) until len bytes moved, the input ended, or it failed (-1). */
long splice_all(int in, loff_t *off_in, int out, loff_t *off_out, size_t len);
/* SIGALRM interrupts a blocking call (no SA_RESTART): it returns EINTR. */
void alarm_interrupts(void);

/* ---- children: util.c ----------------------------------------------------------------- */

/*
 * Waits, at most 10 s, until child pid sleeps inside system call number
 * nr (where /proc/PID/syscall says which; elsewhere any interruptible
 * sleep counts): true.  False when the child returned, or never slept.
 */
bool child_blocks_in(pid_t pid, long nr);
/* SIGKILL, then reaps it. */
void kill_child(pid_t pid);
/* A call a child makes: what it returned, errno set when < 0. */
typedef long child_call(void *arg);
/*
 * call(arg) in a child, which prints returned and the call's answer on a
 * line; when the child sleeps in system call nr instead (child_blocks_in()),
 * prints blocked on a line and kills it.
 */
void call_in_child(child_call *call, void *arg, long nr, const char *returned,
    const char *blocked);

/* ---- identities: util.c ------------------------------------------------------------------ */

bool has_cap(int cap);
/* Takes cap out of the effective, permitted and inheritable sets. */
void drop_cap(int cap);
/* Becomes user name (root only): groups, gid, uid; no capability stays. */
void become(const char *name);
/*
 * "user:NAME" (setuid to NAME, needs root) or "nocap" (the same uid,
 * without CAP_SYS_RESOURCE and CAP_SYS_ADMIN): the unprivileged user of
 * the pipe limits.
 */
void become_unprivileged(const char *who);

/* ---- scenarios: one function each, given its arguments ------------------------------------ */

typedef void scenario_fn(char *argv[]);
/*
 * A scenario that runs once per argument (each_arg()): given one, it prints
 * its answer without a newline.
 */
typedef void arg_scenario_fn(const char *arg);

scenario_fn file_pipe_file, splice02, letters, pipe_pipe, pipe_unix_pipe, dev_source,
    dev_sink, dirtypipe, splice_offsets, proc_files, pty_splice, nonblock_socket, tee_empty,
    epipe, file_by_reference, linked_writes;
arg_scenario_fn splice_error;
scenario_fn fd_pairs;
scenario_fn tee_file, ramp, vmsplice_file, vmsplice_touser, vmsplice_full, vmsplice_reuse;
arg_scenario_fn tee_error, vmsplice_error;
scenario_fn page_bytes, pipe_set_size_as, pipe_shrink_busy, fcntl30, fcntl35, fcntl37, pipe2_04,
    pipe12, pipe15, pipe_user_pages;
arg_scenario_fn pipe_set_size;
scenario_fn sendfile_at, sendfile_sparse, sendfile05, sendfile07, sendfile08;
arg_scenario_fn sendfile03, sendfile04;
scenario_fn cfr01, cfr_once, cfr02, cfr03, with_tmpfs;
scenario_fn kmsg_last, kmsg_since;
scenario_fn cow_vmsplice;
scenario_fn splice_direct, fsize_limit, tee_socket;
scenario_fn zero_length, past_eof, splice_head, pipe_self, pipe_cross, pipe_cross_block;
arg_scenario_fn vmsplice_efault, uring_splice;

#endif
