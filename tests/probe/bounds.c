/*
 * bounds.c: the edges of the splice family that other suites check: bad
 * addresses for vmsplice(2) (the 2008 holes, CVE-2008-0009/0010/0600),
 * zero-length calls (liburing's test/splice.c), offsets past the end
 * (xfstests generic/434), short splices from /proc and kernfs (kselftests
 * splice/short_splice_read.sh), and pipes that splice into themselves or
 * into each other (fs/splice.c's loop checks, syzkaller's class).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"

static int
queued(int fd)
{
	int n = -1;

	if (ioctl(fd, FIONREAD, &n) < 0)
		die("FIONREAD");
	return n;
}

/*
 * vmsplice-efault in|out KIND: one vmsplice(2) whose iovec (or the iovec
 * array, bad-iovec) points where the caller may not go: null, unmapped,
 * prot-none, top (the last 64 KiB of the address space: the kernel's),
 * wrap (a base and length past the end of the address space), bad-iovec.
 * in: from memory into an empty pipe; out: from a pipe holding a page into
 * memory.  Prints the answer, then "moved N" when any byte moved.
 */
void
vmsplice_efault(const char *arg)
{
	static const char *const kinds[] = { "null", "unmapped", "prot-none", "top", "wrap",
		"bad-iovec" };
	const size_t page = page_size();
	char dir[8], kind[16];
	int k, p[2];
	struct iovec iov = { .iov_len = page }, *iovp = &iov;
	char *hole;
	long n;
	bool in;

	if (sscanf(arg, "%7[a-z]:%15[a-z-]", dir, kind) != 2 ||
	    (strcmp(dir, "in") != 0 && strcmp(dir, "out") != 0))
		bad_usage("vmsplice-efault: not in:KIND or out:KIND: '%s'", arg);
	in = strcmp(dir, "in") == 0;
	k = pick("vmsplice-efault", kind, kinds, 6);
	/* Every mapping made before the hole: none may land where it was. */
	make_pipe(p);
	if (!in) {
		char *full = pages(page);

		memset(full, 'x', page);
		write_or_die(p[1], full, page);
	}
	hole = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (hole == MAP_FAILED)
		die("mmap");
	switch (k) {
	case 0:
		iov.iov_base = NULL;
		break;
	case 1:
		if (munmap(hole, page) < 0)
			die("munmap");
		iov.iov_base = hole;
		break;
	case 2:
		iov.iov_base = hole;
		break;
	case 3:
		iov.iov_base = (void *)(UINTPTR_MAX - 65535);
		iov.iov_len = 4096;
		break;
	case 4:
		iov.iov_base = (void *)(UINTPTR_MAX - 100);
		break;
	default:
		iov.iov_base = hole;
		if (munmap(hole, page) < 0)
			die("munmap");
		iovp = (struct iovec *)hole;
	}
	n = vmsplice(in ? p[1] : p[0], iovp, 1, 0);
	result(n, errno);
	if (in && queued(p[0]) != 0)
		printf(" moved %d", queued(p[0]));
	if (!in && queued(p[0]) != (int)page)
		printf(" moved %d", (int)page - queued(p[0]));
	close(p[0]);
	close(p[1]);
}

/*
 * zero-length FILE: each call asked for 0 bytes, on an empty pipe where one
 * takes a pipe: splice file->pipe, pipe->pipe, pipe->file, tee, vmsplice
 * of no iovec and of an empty one, sendfile and copy_file_range.  Each must
 * return 0 at once; one that blocks is ended by SIGALRM after 2 s (EINTR).
 */
void
zero_length(char *argv[])
{
	int f = open_or_die(argv[0], O_RDWR | O_CREAT);
	int g = open_or_die("probe-zero-out", O_RDWR | O_CREAT | O_TRUNC);
	int p[2], q[2];
	char byte = 'z';
	struct iovec none = { .iov_base = &byte, .iov_len = 0 };
	long n;

	write_or_die(f, "data", 4);
	make_pipe(p);
	make_pipe(q);
	alarm_interrupts();
	alarm(2);
	n = splice(f, &(loff_t){ 0 }, p[1], NULL, 0, 0);
	result(n, errno);
	n = splice(p[0], NULL, q[1], NULL, 0, 0);
	putchar(' ');
	result(n, errno);
	n = splice(p[0], NULL, g, &(loff_t){ 0 }, 0, 0);
	putchar(' ');
	result(n, errno);
	n = tee(p[0], q[1], 0, 0);
	putchar(' ');
	result(n, errno);
	n = vmsplice(p[1], &none, 0, 0);
	putchar(' ');
	result(n, errno);
	n = vmsplice(p[1], &none, 1, 0);
	putchar(' ');
	result(n, errno);
	n = sendfile(g, f, &(off_t){ 0 }, 0);
	putchar(' ');
	result(n, errno);
	n = copy_file_range(f, &(loff_t){ 0 }, g, &(loff_t){ 0 }, 0, 0);
	putchar(' ');
	result(n, errno);
	alarm(0);
	putchar('\n');
}

/*
 * past-eof FILE: FILE's size plus 100 as the source offset of splice,
 * sendfile and copy_file_range: each returns 0 (nothing there), no error.
 */
void
past_eof(char *argv[])
{
	int f = open_or_die(argv[0], O_RDONLY);
	int g = open_or_die("probe-past-out", O_RDWR | O_CREAT | O_TRUNC);
	off_t end = lseek(f, 0, SEEK_END);
	int p[2];
	long n;

	if (end < 0)
		die("lseek %s", argv[0]);
	make_pipe(p);
	n = splice(f, &(loff_t){ end + 100 }, p[1], NULL, 4096, SPLICE_F_NONBLOCK);
	result(n, errno);
	n = sendfile(g, f, &(off_t){ end + 100 }, 4096);
	putchar(' ');
	result(n, errno);
	n = copy_file_range(f, &(loff_t){ end + 100 }, g, NULL, 4096, 0);
	putchar(' ');
	result(n, errno);
	putchar('\n');
}

/*
 * splice-head FILE LEN OUT: one splice(2) of at most LEN bytes from the
 * start of FILE into a pipe; what came goes to OUT.  Prints the answer.
 */
void
splice_head(char *argv[])
{
	int f = open_or_die(argv[0], O_RDONLY);
	size_t len = (size_t)number_arg(argv[1], 1 << 20);
	int p[2];
	long n;

	make_pipe(p);
	alarm(10);
	n = splice(f, NULL, p[1], NULL, len, 0);
	alarm(0);
	result_line(n, errno);
	close(p[1]);
	drain_to(p[0], argv[2]);
}

/*
 * pipe-self: a pipe holding 3 bytes spliced, then teed, into itself: each
 * EINVAL, and the 3 bytes still there ("kept 3").
 */
void
pipe_self(char *argv[])
{
	int p[2];
	long n;

	(void)argv;
	make_pipe(p);
	write_or_die(p[1], "abc", 3);
	n = splice(p[0], NULL, p[1], NULL, 3, SPLICE_F_NONBLOCK);
	result(n, errno);
	n = tee(p[0], p[1], 3, SPLICE_F_NONBLOCK);
	putchar(' ');
	result(n, errno);
	printf(" kept %d\n", queued(p[0]));
}

/* ---- two pipes that feed each other ------------------------------------------ */

#define CROSS_THREADS 4

struct cross {
	int from, to;
	bool by_tee;
	atomic_bool *stop;
	long calls, errors;
};

static void *
cross_run(void *arg)
{
	struct cross *c = arg;

	while (!atomic_load(c->stop)) {
		long n = c->by_tee ? tee(c->from, c->to, 4096, SPLICE_F_NONBLOCK) :
		    splice(c->from, NULL, c->to, NULL, 4096, SPLICE_F_NONBLOCK);

		c->calls++;
		if (n < 0 && errno != EAGAIN)
			c->errors++;
	}
	return NULL;
}

/*
 * pipe-cross splice|tee: 8 pages in each pipe (bytes 0-255 in turn, each
 * value 256 times in all); CROSS_THREADS threads move pipe 1 -> pipe 2, as
 * many pipe 2 -> pipe 1, for a second.  Data on both sides: the threads get
 * past the checks of an empty input and a full output, and lock the two
 * pipes at the same moment, the one moment a lock order matters (with one
 * page in all, only the thread holding it ever locked both).  More threads
 * than CPUs: one is also rescheduled between its two locks (mutex_lock's
 * might_sleep), and one of the other way runs then, even on one CPU.  splice: then
 * the pipes hold the 65536 bytes between them, each value 256 times ("ok
 * 65536 exact"); tee copies, so only no hang and no error count ("ok N" of
 * what the pipes hold).  Errors other than EAGAIN: "errors N".
 */
void
pipe_cross(char *argv[])
{
	bool by_tee = strcmp(argv[0], "tee") == 0;
	int p1[2], p2[2];
	unsigned char buf[4096];
	unsigned int count[256] = { 0 };
	atomic_bool stop = false;
	struct cross cross[2 * CROSS_THREADS];
	pthread_t thread[2 * CROSS_THREADS];
	long errors = 0;
	struct timespec second = { .tv_sec = 1 };
	int total = 0;
	bool exact = true;

	if (!by_tee && strcmp(argv[0], "splice") != 0)
		bad_usage("pipe-cross: splice or tee, not '%s'", argv[0]);
	make_pipe(p1);
	make_pipe(p2);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)i;
	for (int i = 0; i < 8; i++) {
		write_or_die(p1[1], buf, sizeof(buf));
		write_or_die(p2[1], buf, sizeof(buf));
	}
	for (int i = 0; i < 2 * CROSS_THREADS; i++) {
		/* Even: pipe 1 -> pipe 2; odd: pipe 2 -> pipe 1. */
		cross[i] = (struct cross){ .from = i % 2 ? p2[0] : p1[0],
			.to = i % 2 ? p1[1] : p2[1], .by_tee = by_tee, .stop = &stop };
		if (pthread_create(&thread[i], NULL, cross_run, &cross[i]) != 0)
			die("pthread_create");
	}
	nanosleep(&second, NULL);
	atomic_store(&stop, true);
	for (int i = 0; i < 2 * CROSS_THREADS; i++) {
		pthread_join(thread[i], NULL);
		errors += cross[i].errors;
	}
	for (int *rd = (int[]){ p1[0], p2[0] }, i = 0; i < 2; i++) {
		int n = queued(rd[i]);

		for (int left = n; left > 0;) {
			int part = left < (int)sizeof(buf) ? left : (int)sizeof(buf);

			read_exactly(rd[i], buf, (size_t)part);
			for (int j = 0; j < part; j++)
				count[buf[j]]++;
			left -= part;
		}
		total += n;
	}
	for (int v = 0; v < 256; v++)
		exact = exact && count[v] == 256;
	printf("ok %d", total);
	if (!by_tee)
		printf(" %s", total == 65536 && exact ? "exact" : "changed");
	if (errors > 0)
		printf(" errors %ld", errors);
	putchar('\n');
}

/*
 * pipe-cross-block: two full pipes; one child splices pipe 1 -> pipe 2,
 * another pipe 2 -> pipe 1, each blocking.  Once both sleep in splice(2),
 * SIGALRM (no SA_RESTART) to each: both answer EINTR.  "blocked" for one
 * that never slept (it answered instead).
 */
void
pipe_cross_block(char *argv[])
{
	int p1[2], p2[2], said[2];
	pid_t kid[2];
	char *full;
	size_t cap;

	(void)argv;
	make_pipe(p1);
	make_pipe(p2);
	make_pipe(said);
	cap = (size_t)fcntl(p1[1], F_GETPIPE_SZ);
	full = pages(cap);
	memset(full, 'f', cap);
	write_or_die(p1[1], full, cap);
	write_or_die(p2[1], full, cap);
	for (int i = 0; i < 2; i++) {
		kid[i] = fork_or_die();
		if (kid[i] == 0) {
			char line[32];
			long n;
			int len;

			alarm_interrupts();
			n = i == 0 ? splice(p1[0], NULL, p2[1], NULL, 4096, 0) :
			    splice(p2[0], NULL, p1[1], NULL, 4096, 0);
			len = snprintf(line, sizeof(line), "%d %s\n", i,
			    n < 0 ? errno_name(errno) : "ok");
			write_or_die(said[1], line, (size_t)len);
			_exit(0);
		}
	}
	for (int i = 0; i < 2; i++)
		if (!child_blocks_in(kid[i], SYS_splice))
			printf("%d did not block; ", i);
	for (int i = 0; i < 2; i++)
		kill(kid[i], SIGALRM);
	for (int i = 0; i < 2; i++) {
		int status;

		if (waitpid(kid[i], &status, 0) < 0)
			die("waitpid");
	}
	close(said[1]);
	{
		char text[64] = "", *says[2] = { "none", "none" };
		size_t have = 0;
		ssize_t got;

		while (have < sizeof(text) - 1 &&
		    (got = read(said[0], text + have, sizeof(text) - 1 - have)) > 0)
			have += (size_t)got;
		for (char *line = text; *line != '\0';) {
			char *nl = strchr(line, '\n');
			int who = line[0] - '0';

			if (nl == NULL)
				break;
			*nl = '\0';
			if (who == 0 || who == 1)
				says[who] = line + 2;
			line = nl + 1;
		}
		printf("%s %s\n", says[0], says[1]);
	}
}
