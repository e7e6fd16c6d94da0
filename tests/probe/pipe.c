/*
 * pipe.c: pipe capacity scenarios: F_SETPIPE_SZ and F_GETPIPE_SZ (LTP's
 * fcntl30, fcntl35, fcntl37), writes into a full pipe (pipe2_04, pipe12) and
 * the per-user soft limit (pipe15).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe.h"

#define PIPE_MAX_SIZE "/proc/sys/fs/pipe-max-size"

static long
read_number(const char *path)
{
	char buf[32] = "";
	int fd = open_or_die(path, O_RDONLY);
	ssize_t n = read(fd, buf, sizeof(buf) - 1);

	if (n <= 0)
		die("reading %s", path);
	close(fd);
	return strtol(buf, NULL, 10);
}

/* F_SETPIPE_SZ (an unsigned int, as the kernel reads it) on the pipe's end fd. */
static long
set_size(int fd, unsigned int bytes)
{
	return fcntl(fd, F_SETPIPE_SZ, (unsigned long)bytes);
}

/* F_SETPIPE_SZ N on a fresh pipe: its answer, and F_GETPIPE_SZ if it differs. */
void
pipe_set_size(const char *bytes)
{
	unsigned int want = (unsigned int)number_arg(bytes, UINT_MAX);
	int p[2], err;
	long got, now;

	make_pipe(p);
	got = set_size(p[1], want);
	err = errno;
	now = fcntl(p[0], F_GETPIPE_SZ);
	result_closing(got, err, p[0], p[1]);
	if (got >= 0 && now != got)
		printf(" but F_GETPIPE_SZ says %ld", now);
}

/* The same as an unprivileged user (become_unprivileged's WHO). */
void
pipe_set_size_as(char *argv[])
{
	become_unprivileged(argv[0]);
	each_arg(argv + 1, pipe_set_size);
}

/*
 * 8 pages queued in a default pipe: shrinking it to one page must fail
 * with EBUSY and lose nothing; shrinking to 8 pages must work.  Prints both
 * answers and "intact N" when all N queued bytes read back unchanged.
 */
void
pipe_shrink_busy(char *argv[])
{
	const size_t page = page_size(), len = 8 * page;
	char *data = pages(len), *got = pages(len);
	int p[2];
	long n;

	(void)argv;
	fill_ramp(data, len);
	make_pipe(p);
	write_or_die(p[1], data, len);
	n = set_size(p[1], (unsigned int)page);
	result(n, errno);
	putchar(' ');
	n = set_size(p[1], (unsigned int)len);
	result(n, errno);
	read_exactly(p[0], got, len);
	printf(" %s %zu\n", memcmp(data, got, len) == 0 ? "intact" : "corrupt", len);
}

/*
 * page-size: the page size, from the auxiliary vector the kernel gave
 * (AT_PAGESZ): what a pipe's slot holds.
 */
void
page_bytes(char *argv[])
{
	(void)argv;
	printf("%ld\n", sysconf(_SC_PAGESIZE));
}

/*
 * fcntl30: F_GETPIPE_SZ of a fresh pipe, F_SETPIPE_SZ to pipe-max-size,
 * F_GETPIPE_SZ again: "ANSWER ANSWER ANSWER".
 */
void
fcntl30(char *argv[])
{
	unsigned int max = (unsigned int)read_number(PIPE_MAX_SIZE);
	int p[2];

	(void)argv;
	make_pipe(p);
	answer(fcntl(p[1], F_GETPIPE_SZ));
	putchar(' ');
	answer(set_size(p[1], max));
	putchar(' ');
	answer_line(fcntl(p[1], F_GETPIPE_SZ));
}

/*
 * fcntl35 (root only): with pipe-max-size lowered to one page, a new pipe
 * of user NAME starts at that page, and one of a process holding
 * CAP_SYS_RESOURCE at the default 16 pages.  The limit is lowered for as
 * short a time as can be (the child is ready and waiting first) and
 * restored before anything is printed: "unprivileged ANSWER privileged
 * ANSWER cap_sys_resource yes|no".
 */
void
fcntl35(char *argv[])
{
	char saved[32] = "", page_text[32];
	int go[2], reply[2], sysctl, status;
	long mine, theirs = -1;
	int mine_err, theirs_err = 0, fds[2];
	char ready;
	pid_t pid;
	ssize_t n;

	sysctl = open_or_die(PIPE_MAX_SIZE, O_RDWR);
	if ((n = pread(sysctl, saved, sizeof(saved) - 1, 0)) <= 0)
		die("reading " PIPE_MAX_SIZE);
	snprintf(page_text, sizeof(page_text), "%zu\n", page_size());
	make_pipe(go);
	make_pipe(reply);
	if ((pid = fork_or_die()) == 0) {
		long got[2];

		become(argv[0]);
		write_or_die(reply[1], "r", 1);
		read_exactly(go[0], &ready, 1);
		got[0] = pipe2(fds, O_CLOEXEC) < 0 ? -1 : fcntl(fds[1], F_GETPIPE_SZ);
		got[1] = errno;
		write_or_die(reply[1], got, sizeof(got));
		_exit(0);
	}
	read_exactly(reply[0], &ready, 1);

	if (pwrite(sysctl, page_text, strlen(page_text), 0) < 0)
		die("lowering " PIPE_MAX_SIZE);
	write_or_die(go[1], "g", 1);
	mine = pipe2(fds, O_CLOEXEC) < 0 ? -1 : fcntl(fds[1], F_GETPIPE_SZ);
	mine_err = errno;
	{
		long got[2];

		read_exactly(reply[0], got, sizeof(got));
		theirs = got[0];
		theirs_err = (int)got[1];
	}
	if (pwrite(sysctl, saved, (size_t)n, 0) < 0)
		die("restoring " PIPE_MAX_SIZE " to %s", saved);
	waitpid(pid, &status, 0);

	printf("unprivileged ");
	result(theirs, theirs_err);
	printf(" privileged ");
	result(mine, mine_err);
	printf(" cap_sys_resource %s\n", has_cap(CAP_SYS_RESOURCE) ? "yes" : "no");
}

/*
 * fcntl37, without CAP_SYS_RESOURCE: a default pipe filled up, then
 * F_SETPIPE_SZ of 2^31 + 1 (EINVAL), of half the pipe (EBUSY) and of
 * pipe-max-size + 1 (EPERM): "ANSWER ANSWER ANSWER".
 */
void
fcntl37(char *argv[])
{
	unsigned int max = (unsigned int)read_number(PIPE_MAX_SIZE);
	long cap;
	char *fill;
	int p[2];

	(void)argv;
	drop_cap(CAP_SYS_RESOURCE);
	make_pipe(p);
	if ((cap = fcntl(p[1], F_GETPIPE_SZ)) < 0)
		die("F_GETPIPE_SZ");
	fill = pages((size_t)cap);
	memset(fill, 'x', (size_t)cap);
	write_or_die(p[1], fill, (size_t)cap);
	answer(set_size(p[1], (1U << 31) + 1));
	putchar(' ');
	answer(set_size(p[1], (unsigned int)cap / 2));
	putchar(' ');
	answer_line(set_size(p[1], max + 1));
}

/* What pipe2_04's child writes into: the pipe's write end and its flags. */
struct blocking_write {
	int fd, flags;
};

/* One byte into the full pipe, O_NONBLOCK cleared: it waits. */
static long
write_blocking(void *arg)
{
	const struct blocking_write *w = arg;

	if (fcntl(w->fd, F_SETFL, w->flags & ~O_NONBLOCK) < 0)
		die("F_SETFL");
	return write(w->fd, "x", 1);
}

/*
 * pipe2_04: pipe2(O_NONBLOCK), F_SETPIPE_SZ 0 on the read end, then
 * F_GETPIPE_SZ on the write end (one page: the two ends are one pipe); the
 * pipe filled, a one-byte write says EAGAIN, and a child that clears
 * O_NONBLOCK waits in write(2): "ANSWER ANSWER ANSWER blocked".
 */
void
pipe2_04(char *argv[])
{
	int p[2], flags;
	long size;
	char *fill;

	(void)argv;
	if (pipe2(p, O_NONBLOCK | O_CLOEXEC) < 0)
		die("pipe2");
	if ((flags = fcntl(p[1], F_GETFL)) < 0 || !(flags & O_NONBLOCK))
		die("pipe2 gave no O_NONBLOCK");
	answer(set_size(p[0], 0));
	putchar(' ');
	size = fcntl(p[1], F_GETPIPE_SZ);
	result(size, errno);
	if (size <= 0) {
		putchar('\n');
		return;
	}
	fill = pages((size_t)size);
	memset(fill, 'x', (size_t)size);
	write_or_die(p[1], fill, (size_t)size);
	putchar(' ');
	answer(write(p[1], "x", 1));

	call_in_child(write_blocking, &(struct blocking_write){ p[1], flags }, SYS_write,
	    " returned ", " blocked");
}

static int
queued(int fd)
{
	int n = -1;

	if (ioctl(fd, FIONREAD, &n) < 0)
		die("FIONREAD");
	return n;
}

/* Empties a non-blocking pipe. */
static void
drain(int fd, char *buf, size_t len)
{
	while (read(fd, buf, len) > 0)
		;
}

/*
 * pipe12, both ends O_NONBLOCK: into a full pipe a one-byte write says
 * EAGAIN; into one holding a byte, a write of the capacity plus a page
 * writes part; into an empty one, exactly the capacity.  Each answer with
 * what FIONREAD says the pipe then holds: "full ANSWER QUEUED non-empty
 * ANSWER QUEUED empty ANSWER QUEUED capacity N".
 */
void
pipe12(char *argv[])
{
	long max;
	char *buf;
	int p[2];

	(void)argv;
	make_pipe(p);
	if ((max = fcntl(p[1], F_GETPIPE_SZ)) < 0)
		die("F_GETPIPE_SZ");
	buf = pages((size_t)max + 4096);
	memset(buf, 'x', (size_t)max + 4096);
	if (fcntl(p[1], F_SETFL, O_NONBLOCK) < 0 || fcntl(p[0], F_SETFL, O_NONBLOCK) < 0)
		die("F_SETFL O_NONBLOCK");

	write_or_die(p[1], buf, (size_t)max);
	printf("full ");
	answer(write(p[1], "x", 1));
	printf(" %d", queued(p[0]));
	drain(p[0], buf, (size_t)max);

	write_or_die(p[1], "x", 1);
	printf(" non-empty ");
	answer(write(p[1], buf, (size_t)max + 4096));
	printf(" %d", queued(p[0]));
	drain(p[0], buf, (size_t)max);

	printf(" empty ");
	answer(write(p[1], buf, (size_t)max + 4096));
	printf(" %d capacity %ld\n", queued(p[0]), max);
}

/*
 * pipe15, as WHO (become_unprivileged's, or "self"): pipes are made until
 * one comes back smaller than the first (the user passed
 * pipe-user-pages-soft); that one is filled, read but for one byte, and
 * written one byte more, which must not wait (the kernel once gave such
 * pipes a single slot, and that write hung).  "limited SIZE after N pipes
 * ANSWER", where a write that waited 10 s says EINTR; "never limited after
 * N pipes" when no pipe came back smaller.
 */
void
pipe15(char *argv[])
{
	long soft = read_number("/proc/sys/fs/pipe-user-pages-soft");
	long first = -1, size = -1, most;
	struct rlimit nofile;
	int count = 0, p[2];
	char *buf;
	ssize_t n;

	if (soft <= 0) {
		printf("no soft limit\n");
		return;
	}
	/* Enough descriptors for the limit in default (16-page) pipes, and some over. */
	most = soft / 16 + 64;
	if (getrlimit(RLIMIT_NOFILE, &nofile) < 0)
		die("getrlimit");
	if (nofile.rlim_cur < (rlim_t)(2 * most + 16)) {
		nofile.rlim_cur = (rlim_t)(2 * most + 16);
		if (nofile.rlim_max < nofile.rlim_cur)
			nofile.rlim_max = nofile.rlim_cur;
		if (setrlimit(RLIMIT_NOFILE, &nofile) < 0) {
			printf("too few descriptors: %ld needed (%s)\n", 2 * most + 16,
			    errno_name(errno));
			return;
		}
	}
	if (strcmp(argv[0], "self") != 0)
		become_unprivileged(argv[0]);

	while (count < most) {
		if (pipe2(p, O_CLOEXEC) < 0)
			die("pipe number %d", count + 1);
		count++;
		size = fcntl(p[1], F_GETPIPE_SZ);
		if (first < 0)
			first = size;
		if (size < first)
			break;
	}
	if (size >= first) {
		printf("never limited after %d pipes\n", count);
		return;
	}
	buf = pages((size_t)size);
	alarm_interrupts();
	alarm(10);
	n = write(p[1], buf, (size_t)size);
	if (n == size) {
		read_exactly(p[0], buf, (size_t)size - 1);
		n = write(p[1], buf, 1);
	}
	alarm(0);
	printf("limited %ld after %d pipes ", size, count);
	result_line(n, errno);
}

/*
 * pipe-user-pages UID (root): as UID, a user with no pipes yet, pipes are
 * made until pipe(2) refuses one (or 512 are made), and each one's slots
 * counted: "16x4 2x3 ENFILE" is four pipes of 16 slots, three of 2, then
 * ENFILE.  pipe(7): past pipe-user-pages-soft a new pipe gets the least
 * (2 slots), past pipe-user-pages-hard none; each counts the pages after
 * the new pipe's, so a total equal to a limit is within it (the 4.16 fix).
 * Then "grow" F_SETPIPE_SZ of the last small pipe to 4 pages (EPERM past
 * a limit) and "shrink" of the first to one page (allowed).
 */
void
pipe_user_pages(char *argv[])
{
	const long page = (long)page_size();
	long uid = strtol(argv[0], NULL, 10);
	struct rlimit nofile = { 1100, 1100 };
	int fds[512][2], count = 0, run = 0, err = 0;
	long slots, run_slots = -1;

	if (uid <= 0)
		bad_usage("UID must be above 0: '%s'", argv[0]);
	if (setrlimit(RLIMIT_NOFILE, &nofile) < 0)
		die("setrlimit");
	if (setgroups(0, NULL) < 0 || setgid((gid_t)uid) < 0 || setuid((uid_t)uid) < 0)
		die("becoming uid %ld", uid);
	while (count < 512) {
		if (pipe2(fds[count], O_CLOEXEC) < 0) {
			err = errno;
			break;
		}
		slots = fcntl(fds[count][1], F_GETPIPE_SZ) / page;
		count++;
		if (slots != run_slots && run > 0) {
			printf("%ldx%d ", run_slots, run);
			run = 0;
		}
		run_slots = slots;
		run++;
	}
	if (run > 0)
		printf("%ldx%d ", run_slots, run);
	printf("%s grow ", err != 0 ? errno_name(err) : "none");
	answer(count > 0 ? fcntl(fds[count - 1][1], F_SETPIPE_SZ, 4 * page) : -1);
	printf(" shrink ");
	answer(count > 0 ? fcntl(fds[0][1], F_SETPIPE_SZ, page) : -1);
	printf("\n");
}
