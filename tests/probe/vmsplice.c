/*
 * vmsplice.c: tee(2) and vmsplice(2) scenarios: LTP's tee01-02 and
 * vmsplice01-04, and the page sharing the tools must respect.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "probe.h"

/*
 * tee01: IN -> pipe 1, tee(2) pipe 1 -> pipe 2, pipe 2 -> OUT; what pipe 1
 * still holds afterwards (tee does not consume it) goes to COPY.
 */
void
tee_file(char *argv[])
{
	int in = open_or_die(argv[0], O_RDONLY);
	int out = open_or_die(argv[1], O_WRONLY | O_CREAT | O_TRUNC);
	int p1[2], p2[2];
	struct stat st;
	long n;

	make_pipe(p1);
	make_pipe(p2);
	if (fstat(in, &st) < 0)
		die("%s", argv[0]);
	if (splice_all(in, NULL, p1[1], NULL, (size_t)st.st_size) != st.st_size)
		die("splice %s into the pipe", argv[0]);
	n = tee(p1[0], p2[1], (size_t)st.st_size, SPLICE_F_NONBLOCK);
	if (n >= 0)
		n = splice_all(p2[0], NULL, out, NULL, (size_t)n);
	result_line(n, errno);
	drain_to(p1[0], argv[2]);
}

/* tee02: a file as input, a file as output, one pipe as both. */
void
tee_error(const char *kind)
{
	static const char *const kinds[] = { "file-in", "file-out", "same-pipe" };
	int k = pick("tee-error", kind, kinds, 3);
	int fd = open_or_die("probe-file", O_RDWR | O_CREAT);
	int p[2];
	long n;

	make_pipe(p);
	write_or_die(p[1], "abcdefghijklmnopqrstuvwxyz", 26);
	if (k == 0)
		n = tee(fd, p[1], 10, 0);
	else if (k == 1)
		n = tee(p[0], fd, 10, 0);
	else
		n = tee(p[0], p[1], 10, 0);
	result_closing(n, errno, fd, p[0], p[1]);
}

/* LEN bytes of the ramp pattern to stdout, with write(2). */
void
ramp(char *argv[])
{
	size_t len = (size_t)number_arg(argv[0], INT_MAX);
	char *buf = pages(len);

	fill_ramp(buf, len);
	write_or_die(STDOUT_FILENO, buf, len);
}

/*
 * vmsplice01: LEN bytes of ramp vmspliced into a pipe, waiting for room
 * with poll(2), each piece spliced on into OUT at an explicit offset.
 */
void
vmsplice_file(char *argv[])
{
	int out = open_or_die(argv[0], O_WRONLY | O_CREAT | O_TRUNC);
	size_t len = (size_t)number_arg(argv[1], INT_MAX);
	char *buf = pages(len);
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct pollfd pfd;
	loff_t off = 0;
	int p[2];

	fill_ramp(buf, len);
	make_pipe(p);
	pfd.fd = p[1];
	pfd.events = POLLOUT;
	while (iov.iov_len > 0) {
		ssize_t n;

		if (poll(&pfd, 1, -1) < 0)
			die("poll");
		n = vmsplice(p[1], &iov, 1, 0);
		if (n <= 0) {
			result_line(-1, n < 0 ? errno : EIO);
			return;
		}
		iov.iov_base = (char *)iov.iov_base + n;
		iov.iov_len -= (size_t)n;
		if (splice_all(p[0], NULL, out, &off, (size_t)n) != n) {
			result_line(-1, errno);
			return;
		}
	}
	result_line((long)off, 0);
}

/* vmsplice02: a bad descriptor, a file, more than IOV_MAX iovecs. */
void
vmsplice_error(const char *kind)
{
	static const char *const kinds[] = { "bad-fd", "file", "file-read", "too-many-iovecs" };
	static char block[128];
	static struct iovec iov[IOV_MAX + 1];
	int k = pick("vmsplice-error", kind, kinds, 4);
	int file = open_or_die("probe-file", O_WRONLY | O_CREAT);
	int p[2];
	long n;

	for (int i = 0; i <= IOV_MAX; i++) {
		iov[i].iov_base = block;
		iov[i].iov_len = sizeof(block);
	}
	make_pipe(p);
	if (k == 0)
		n = vmsplice(-1, iov, 1, 0);
	else if (k == 1)
		n = vmsplice(file, iov, 1, 0);
	else if (k == 2) {
		/* Read-only: the other way, from the file into user memory. */
		close(file);
		file = open_or_die("probe-file", O_RDONLY);
		n = vmsplice(file, iov, 1, 0);
	} else
		n = vmsplice(p[1], iov, IOV_MAX + 1, 0);
	result_closing(n, errno, file, p[0], p[1]);
}

/*
 * vmsplice03: IN written into a pipe, vmspliced from its read end into user
 * memory that ends right at an inaccessible page, so a byte written past
 * the buffer is a fault, not a silent overrun.  What arrived goes to OUT.
 */
void
vmsplice_touser(char *argv[])
{
	size_t len, page = page_size();
	char *data = slurp(argv[0], &len);
	size_t span = (len + page - 1) / page * page;
	char *area = pages(span + page), *got = area + span - len;
	struct iovec iov = { .iov_base = got, .iov_len = len };
	int p[2];
	ssize_t n;

	if (mprotect(area + span, page, PROT_NONE) < 0)
		die("mprotect");
	make_pipe(p);
	write_or_die(p[1], data, len);
	n = vmsplice(p[0], &iov, 1, 0);
	result_line(n, errno);
	if (n > 0)
		spit(argv[1], got, (size_t)n);
}

/* What vmsplice04's child splices: into fd, one iovec. */
struct vmsplice_call {
	int fd;
	const struct iovec *iov;
};

/* The iovec into the full pipe, without SPLICE_F_NONBLOCK: it waits. */
static long
vmsplice_blocking(void *arg)
{
	const struct vmsplice_call *c = arg;

	return vmsplice(c->fd, c->iov, 1, 0);
}

/*
 * vmsplice04: a pipe filled by vmsplice; one pipe's worth more must say
 * EAGAIN with SPLICE_F_NONBLOCK, and without it must wait.  Prints the
 * first answer, then "blocked" or what the waiting call did instead.
 */
void
vmsplice_full(char *argv[])
{
	struct iovec iov;
	long cap;
	char *buf;
	ssize_t n;
	int p[2];

	(void)argv;
	make_pipe(p);
	if ((cap = fcntl(p[1], F_GETPIPE_SZ)) < 0)
		die("F_GETPIPE_SZ");
	buf = pages((size_t)cap);
	memset(buf, 'x', (size_t)cap);
	iov.iov_base = buf;
	iov.iov_len = (size_t)cap;
	if (vmsplice(p[1], &iov, 1, 0) != cap)
		die("filling the pipe with vmsplice");
	n = vmsplice(p[1], &iov, 1, SPLICE_F_NONBLOCK);
	result(n, errno);

	call_in_child(vmsplice_blocking, &(struct vmsplice_call){ p[1], &iov }, SYS_vmsplice,
	    " returned ", " blocked");
}

/*
 * The double-buffer hazard: vmsplice a page into pipe 1 (with
 * SPLICE_F_GIFT when asked), splice it on into pipe 2 (pipe 1 is now empty,
 * the page looks free), rewrite the page, read pipe 2.  "shared" when the
 * rewrite shows downstream (the pipe held the user's page), "copied" when
 * it does not, "mixed" else.
 */
void
vmsplice_reuse(char *argv[])
{
	const size_t len = page_size();
	char *buf = pages(len), *got = pages(len);
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	unsigned int flags = 0;
	int p1[2], p2[2], queued = -1;
	size_t old = 0, new = 0;

	if (argv[0] != NULL) {
		if (strcmp(argv[0], "gift") != 0)
			bad_usage("vmsplice-reuse: unknown flag '%s' (gift)", argv[0]);
		flags = SPLICE_F_GIFT;
	}
	make_pipe(p1);
	make_pipe(p2);
	memset(buf, 'A', len);
	if (vmsplice(p1[1], &iov, 1, flags) != (ssize_t)len)
		die("vmsplice");
	if (splice_all(p1[0], NULL, p2[1], NULL, len) != (long)len)
		die("splice pipe to pipe");
	if (ioctl(p1[0], FIONREAD, &queued) < 0 || queued != 0)
		die("pipe 1 not empty after the splice (%d bytes)", queued);
	memset(buf, 'B', len);
	read_exactly(p2[0], got, len);
	for (size_t i = 0; i < len; i++) {
		old += got[i] == 'A';
		new += got[i] == 'B';
	}
	printf("%s\n", new == len ? "shared" : old == len ? "copied" : "mixed");
}
