/*
 * splice-probe SCENARIO [ARG]...: performs one named splice(2), tee(2),
 * vmsplice(2) or pipe-capacity scenario and prints on stdout, on one line,
 * what the kernel said: "ok N" for a call that returned N, or the errno's
 * name (EINVAL, EBADF, ...).  A few scenarios print more than one word; see
 * usage().  Data scenarios write what came out of the kernel to a file the
 * caller names, so the caller checks every byte with cmp(1).
 *
 * Exit status: 0 the scenario ran (whatever the kernel answered), 1 the
 * scenario could not be set up (the message says which step), 2 usage.
 * The checks themselves live in tests/kernel.sh: this program only asks.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <time.h>
#include <unistd.h>

/* ---- reporting ------------------------------------------------------------ */

static const char *
errno_name(int err)
{
	static char other[16];

	switch (err) {
	case EBADF: return "EBADF";
	case EINVAL: return "EINVAL";
	case ESPIPE: return "ESPIPE";
	case EAGAIN: return "EAGAIN";
	case EPERM: return "EPERM";
	case EBUSY: return "EBUSY";
	case EPIPE: return "EPIPE";
	case EINTR: return "EINTR";
	case EFAULT: return "EFAULT";
	case ENOMEM: return "ENOMEM";
	case ENOSYS: return "ENOSYS";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENOTCONN: return "ENOTCONN";
	case EISDIR: return "EISDIR";
	case EACCES: return "EACCES";
	case EXDEV: return "EXDEV";
	case ENXIO: return "ENXIO";
	case EIO: return "EIO";
	default:
		snprintf(other, sizeof(other), "E%d", err);
		return other;
	}
}

/* One word of the result line: "ok N" or the errno name of a failed call. */
static void
result(long ret, int err)
{
	if (ret < 0)
		printf("%s", errno_name(err));
	else
		printf("ok %ld", ret);
}

static void
result_line(long ret, int err)
{
	result(ret, err);
	putchar('\n');
}

/* A setup step failed: not what the scenario asks the kernel, so exit 1. */
static void
die(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	fprintf(stderr, "splice-probe: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err));
	exit(1);
}

/* ---- setup helpers ---------------------------------------------------------- */

static void
make_pipe(int p[2])
{
	if (pipe(p) < 0)
		die("pipe");
}

static int
open_or_die(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0644);

	if (fd < 0)
		die("%s", path);
	return fd;
}

static void
write_or_die(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("write");
		p += n;
		len -= (size_t)n;
	}
}

static void
read_exactly(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len > 0) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("read");
		if (n == 0) {
			errno = EIO;
			die("read: early end of data");
		}
		p += n;
		len -= (size_t)n;
	}
}

/* Page-aligned, so vmsplice(2) hands the kernel whole pages. */
static char *
pages(size_t len)
{
	void *p = mmap(NULL, len ? len : 1, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	return p;
}

/* The whole of a (small) file, in page-aligned memory. */
static char *
slurp(const char *path, size_t *len)
{
	int fd = open_or_die(path, O_RDONLY);
	struct stat st;
	char *buf;

	if (fstat(fd, &st) < 0)
		die("%s", path);
	*len = (size_t)st.st_size;
	buf = pages(*len);
	read_exactly(fd, buf, *len);
	close(fd);
	return buf;
}

static void
spit(const char *path, const void *buf, size_t len)
{
	int fd = open_or_die(path, O_WRONLY | O_CREAT | O_TRUNC);

	write_or_die(fd, buf, len);
	if (close(fd) < 0)
		die("%s", path);
}

/* Reads whatever the pipe holds (FIONREAD) into path. */
static void
drain_to(int pipe_rd, const char *path)
{
	int queued = 0;
	char *buf;

	if (ioctl(pipe_rd, FIONREAD, &queued) < 0)
		die("FIONREAD");
	buf = pages((size_t)queued);
	read_exactly(pipe_rd, buf, (size_t)queued);
	spit(path, buf, (size_t)queued);
}

static size_t
size_arg(const char *s)
{
	char *end;
	unsigned long long n;

	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || *end || end == s || *s == '-' || n > INT_MAX) {
		fprintf(stderr, "splice-probe: bad size: '%s'\n", s);
		exit(2);
	}
	return (size_t)n;
}

/* The index of kind in names[count]; an unknown kind is a usage error. */
static int
pick(const char *scenario, const char *kind, const char *const names[], int count)
{
	for (int i = 0; i < count; i++)
		if (strcmp(kind, names[i]) == 0)
			return i;
	fprintf(stderr, "splice-probe: %s: unknown kind '%s'\n", scenario, kind);
	exit(2);
}

/* ---- splice(2) ------------------------------------------------------------ */

/* Calls splice(2) until len bytes moved or it fails; -1 on failure. */
static long
splice_all(int in, loff_t *off_in, int out, loff_t *off_out, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = splice(in, off_in, out, off_out, len - done, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (long)done;
}

/* file -> pipe -> file, then the caller compares IN and OUT. */
static void
file_pipe_file(const char *in_path, const char *out_path)
{
	int in = open_or_die(in_path, O_RDONLY);
	int out = open_or_die(out_path, O_WRONLY | O_CREAT | O_TRUNC);
	struct stat st;
	int p[2];
	long n;

	make_pipe(p);
	if (fstat(in, &st) < 0)
		die("%s", in_path);
	n = splice_all(in, NULL, p[1], NULL, (size_t)st.st_size);
	if (n >= 0)
		n = splice_all(p[0], NULL, out, NULL, (size_t)n);
	result_line(n, errno);
}

/* Standard input (a pipe, given by the caller) -> file, to its end. */
static void
stdin_file(const char *out_path)
{
	int out = open_or_die(out_path, O_WRONLY | O_CREAT | O_TRUNC);
	long total = 0;

	for (;;) {
		ssize_t n = splice(STDIN_FILENO, NULL, out, NULL, 1 << 20, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			result_line(n < 0 ? -1 : total, errno);
			return;
		}
		total += n;
	}
}

/* The error cases: each names the one wrong thing about the call. */
enum splice_fault {
	F_BAD_FD_IN, F_BAD_FD_OUT, F_WRITE_ONLY_IN, F_READ_ONLY_OUT, F_APPEND_OUT,
	F_NO_PIPE, F_OFFSET_IN_PIPE, F_OFFSET_OUT_PIPE, F_COUNT
};

static const char *const fault_names[F_COUNT] = {
	[F_BAD_FD_IN] = "bad-fd-in", [F_BAD_FD_OUT] = "bad-fd-out",
	[F_WRITE_ONLY_IN] = "write-only-in", [F_READ_ONLY_OUT] = "read-only-out",
	[F_APPEND_OUT] = "append-out", [F_NO_PIPE] = "no-pipe",
	[F_OFFSET_IN_PIPE] = "offset-in-pipe", [F_OFFSET_OUT_PIPE] = "offset-out-pipe",
};

static void
splice_error(const char *kind)
{
	static const char text[] = "abcdefghijklmnopqrstuvwxyz";
	int f = pick("splice-error", kind, fault_names, F_COUNT);
	int rd, wr, app, p[2], bad = -1;
	loff_t off = 0;
	long n = -1;

	spit("probe-file", text, sizeof(text) - 1);
	rd = open_or_die("probe-file", O_RDONLY);
	wr = open_or_die("probe-file2", O_WRONLY | O_CREAT);
	app = open_or_die("probe-file3", O_RDWR | O_CREAT | O_APPEND);
	make_pipe(p);
	write_or_die(p[1], text, sizeof(text) - 1);

	switch ((enum splice_fault)f) {
	case F_BAD_FD_IN:
		n = splice(bad, NULL, p[1], NULL, 10, 0);
		break;
	case F_BAD_FD_OUT:
		n = splice(p[0], NULL, bad, NULL, 10, 0);
		break;
	case F_WRITE_ONLY_IN:
		n = splice(wr, NULL, p[1], NULL, 10, 0);
		break;
	case F_READ_ONLY_OUT:
		n = splice(p[0], NULL, rd, NULL, 10, 0);
		break;
	case F_APPEND_OUT:
		n = splice(p[0], NULL, app, NULL, 10, 0);
		break;
	case F_NO_PIPE:
		n = splice(rd, NULL, wr, NULL, 10, 0);
		break;
	case F_OFFSET_IN_PIPE:
		n = splice(p[0], &off, wr, NULL, 10, 0);
		break;
	case F_OFFSET_OUT_PIPE:
		n = splice(rd, NULL, p[1], &off, 10, 0);
		break;
	case F_COUNT:
		break;
	}
	result_line(n, errno);
}

/* IN -> pipe 1 -> splice -> pipe 2 -> OUT; IN must fit in a pipe. */
static void
pipe_pipe(const char *in_path, const char *out_path)
{
	size_t len, done = 0;
	char *data = slurp(in_path, &len);
	char *got = pages(len);
	int p1[2], p2[2];

	make_pipe(p1);
	make_pipe(p2);
	write_or_die(p1[1], data, len);
	while (done < len) {
		ssize_t n = splice(p1[0], NULL, p2[1], NULL, len - done, 0);

		if (n <= 0) {
			result_line(-1, n < 0 ? errno : EIO);
			return;
		}
		read_exactly(p2[0], got + done, (size_t)n);
		done += (size_t)n;
	}
	spit(out_path, got, len);
	result_line((long)done, 0);
}

/* IN -> pipe -> AF_UNIX stream socket pair -> pipe -> OUT. */
static void
pipe_unix_pipe(const char *in_path, const char *out_path)
{
	size_t len, done;
	char *data = slurp(in_path, &len);
	char *got = pages(len);
	int p1[2], p2[2], sv[2];
	ssize_t n;

	make_pipe(p1);
	make_pipe(p2);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		die("socketpair");
	write_or_die(p1[1], data, len);
	for (done = 0; done < len; done += (size_t)n) {
		n = splice(p1[0], NULL, sv[0], NULL, len - done, 0);
		if (n <= 0) {
			result_line(-1, n < 0 ? errno : EIO);
			return;
		}
	}
	for (done = 0; done < len; done += (size_t)n) {
		n = splice(sv[1], NULL, p2[1], NULL, len - done, 0);
		if (n <= 0) {
			result_line(-1, n < 0 ? errno : EIO);
			return;
		}
		read_exactly(p2[0], got + done, (size_t)n);
	}
	spit(out_path, got, len);
	result_line((long)done, 0);
}

/* One splice of LEN bytes from a device into a pipe; the bytes go to OUT. */
static void
dev_source(const char *dev, size_t len, const char *out_path)
{
	int fd = open_or_die(dev, O_RDONLY);
	int p[2];
	ssize_t n;

	make_pipe(p);
	n = splice(fd, NULL, p[1], NULL, len, 0);
	result_line(n, errno);
	if (n > 0)
		drain_to(p[0], out_path);
}

/* The bytes of IN, queued in a pipe, spliced once into a device. */
static void
dev_sink(const char *dev, const char *in_path)
{
	size_t len;
	char *data = slurp(in_path, &len);
	int fd = open_or_die(dev, O_WRONLY);
	int p[2];
	ssize_t n;

	make_pipe(p);
	write_or_die(p[1], data, len);
	n = splice(p[0], NULL, fd, NULL, len, 0);
	result_line(n, errno);
}

/*
 * Every pair of descriptor kinds where at least one side cannot take part
 * in a splice: the kernel must answer EBADF or EINVAL, never succeed, hang
 * or fail otherwise.  One line per pair: "IN -> OUT: RESULT".
 */
enum fd_kind {
	K_FILE, K_PATH, K_DIR, K_DEV_ZERO, K_PROC_MAPS, K_PIPE_READ, K_PIPE_WRITE,
	K_UNIX_SOCK, K_INET_SOCK, K_EPOLL, K_EVENTFD, K_SIGNALFD, K_TIMERFD,
	K_PIDFD, K_INOTIFY, K_MEMFD, K_COUNT
};

static const char *const kind_names[K_COUNT] = {
	[K_FILE] = "file", [K_PATH] = "O_PATH file", [K_DIR] = "directory",
	[K_DEV_ZERO] = "/dev/zero", [K_PROC_MAPS] = "/proc/self/maps",
	[K_PIPE_READ] = "pipe read end", [K_PIPE_WRITE] = "pipe write end",
	[K_UNIX_SOCK] = "unix socket", [K_INET_SOCK] = "inet socket",
	[K_EPOLL] = "epoll", [K_EVENTFD] = "eventfd", [K_SIGNALFD] = "signalfd",
	[K_TIMERFD] = "timerfd", [K_PIDFD] = "pidfd", [K_INOTIFY] = "inotify",
	[K_MEMFD] = "memfd",
};

/* Opens a descriptor of kind k; *other is the pipe's other end, or -1. */
static int
open_kind(enum fd_kind k, int *other)
{
	sigset_t none;
	int p[2], fd = -1;

	*other = -1;
	switch (k) {
	case K_FILE:
		fd = open("probe-fd-file", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		unlink("probe-fd-file");
		break;
	case K_PATH:
		close(open_or_die("probe-fd-path", O_WRONLY | O_CREAT));
		fd = open("probe-fd-path", O_PATH | O_CLOEXEC);
		unlink("probe-fd-path");
		break;
	case K_DIR:
		if (mkdir("probe-fd-dir", 0700) < 0 && errno != EEXIST)
			die("mkdir");
		fd = open("probe-fd-dir", O_DIRECTORY | O_CLOEXEC);
		break;
	case K_DEV_ZERO:
		fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
		break;
	case K_PROC_MAPS:
		fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
		break;
	case K_PIPE_READ:
	case K_PIPE_WRITE:
		make_pipe(p);
		fd = p[k == K_PIPE_READ ? 0 : 1];
		*other = p[k == K_PIPE_READ ? 1 : 0];
		break;
	case K_UNIX_SOCK:
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		break;
	case K_INET_SOCK:
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		break;
	case K_EPOLL:
		fd = epoll_create1(EPOLL_CLOEXEC);
		break;
	case K_EVENTFD:
		fd = eventfd(0, EFD_CLOEXEC);
		break;
	case K_SIGNALFD:
		sigemptyset(&none);
		fd = signalfd(-1, &none, SFD_CLOEXEC);
		break;
	case K_TIMERFD:
		fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
		break;
	case K_PIDFD:
#ifdef SYS_pidfd_open
		fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
#endif
		break;
	case K_INOTIFY:
		fd = inotify_init1(IN_CLOEXEC);
		break;
	case K_MEMFD:
		fd = memfd_create("splice-probe", MFD_CLOEXEC);
		break;
	case K_COUNT:
		break;
	}
	return fd;
}

/* Pairs where splice legitimately succeeds or waits for data (an empty pipe). */
static bool
pair_can_work(enum fd_kind in, enum fd_kind out)
{
	if (in == K_PIPE_READ)
		return out == K_FILE || out == K_PIPE_WRITE || out == K_UNIX_SOCK ||
		    out == K_INET_SOCK || out == K_MEMFD;
	/* An unconnected TCP socket says ENOTCONN, a fair answer too. */
	if (out == K_PIPE_WRITE)
		return in == K_FILE || in == K_DEV_ZERO || in == K_PROC_MAPS ||
		    in == K_MEMFD || in == K_INET_SOCK;
	return false;
}

static void
on_alarm(int sig)
{
	(void)sig;
}

static void
fd_pairs(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	int tested = 0;

	/* No SA_RESTART: a call that hangs comes back with EINTR, and says so. */
	sigaction(SIGALRM, &sa, NULL);
	for (int in = 0; in < K_COUNT; in++) {
		for (int out = 0; out < K_COUNT; out++) {
			int in_other, out_other, in_fd, out_fd;
			ssize_t n;

			if (pair_can_work((enum fd_kind)in, (enum fd_kind)out))
				continue;
			in_fd = open_kind((enum fd_kind)in, &in_other);
			out_fd = open_kind((enum fd_kind)out, &out_other);
			if (in_fd < 0 || out_fd < 0) {
				printf("%s -> %s: not available here\n", kind_names[in],
				    kind_names[out]);
			} else {
				alarm(5);
				n = splice(in_fd, NULL, out_fd, NULL, 1, 0);
				alarm(0);
				printf("%s -> %s: ", kind_names[in], kind_names[out]);
				result(n, errno);
				putchar('\n');
				tested++;
			}
			close(in_fd);
			close(out_fd);
			close(in_other);
			close(out_other);
		}
	}
	rmdir("probe-fd-dir");
	printf("%d pairs\n", tested);
}

/* ---- tee(2) ------------------------------------------------------------- */

/*
 * IN -> pipe 1, tee(2) pipe 1 -> pipe 2, pipe 2 -> OUT; what pipe 1 still
 * holds afterwards (tee does not consume it) goes to COPY.
 */
static void
tee_file(const char *in_path, const char *out_path, const char *copy_path)
{
	int in = open_or_die(in_path, O_RDONLY);
	int out = open_or_die(out_path, O_WRONLY | O_CREAT | O_TRUNC);
	int p1[2], p2[2];
	struct stat st;
	long n;

	make_pipe(p1);
	make_pipe(p2);
	if (fstat(in, &st) < 0)
		die("%s", in_path);
	if (splice_all(in, NULL, p1[1], NULL, (size_t)st.st_size) != st.st_size)
		die("splice %s into the pipe", in_path);
	n = tee(p1[0], p2[1], (size_t)st.st_size, SPLICE_F_NONBLOCK);
	if (n >= 0)
		n = splice_all(p2[0], NULL, out, NULL, (size_t)n);
	result_line(n, errno);
	drain_to(p1[0], copy_path);
}

static void
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
	result_line(n, errno);
}

/* ---- vmsplice(2) ------------------------------------------------------- */

static void
fill_ramp(char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)(i & 0xff);
}

/* LEN bytes of the ramp pattern (offset & 0xff) to stdout, with write(2). */
static void
ramp(size_t len)
{
	char *buf = pages(len);

	fill_ramp(buf, len);
	write_or_die(STDOUT_FILENO, buf, len);
}

/*
 * LEN bytes of ramp vmspliced into a pipe, waiting for room with poll(2),
 * each piece spliced on into OUT at an explicit offset.
 */
static void
vmsplice_file(const char *out_path, size_t len)
{
	int out = open_or_die(out_path, O_WRONLY | O_CREAT | O_TRUNC);
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

static void
vmsplice_error(const char *kind)
{
	static const char *const kinds[] = { "bad-fd", "file", "too-many-iovecs" };
	static char block[128];
	static struct iovec iov[IOV_MAX + 1];
	int k = pick("vmsplice-error", kind, kinds, 3);
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
	else
		n = vmsplice(p[1], iov, IOV_MAX + 1, 0);
	result_line(n, errno);
}

/* IN written into a pipe, vmspliced from its read end into user memory. */
static void
vmsplice_touser(const char *in_path, const char *out_path)
{
	size_t len;
	char *data = slurp(in_path, &len);
	char *got = pages(len);
	struct iovec iov = { .iov_base = got, .iov_len = len };
	int p[2];
	ssize_t n;

	make_pipe(p);
	write_or_die(p[1], data, len);
	n = vmsplice(p[0], &iov, 1, 0);
	result_line(n, errno);
	if (n > 0)
		spit(out_path, got, (size_t)n);
}

/* 'S' (sleeping) when pid waits in the kernel; '?' if it is gone. */
static char
process_state(pid_t pid)
{
	char path[64], line[256], *close_paren;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (f == NULL)
		return '?';
	if (fgets(line, sizeof(line), f) == NULL)
		line[0] = '\0';
	fclose(f);
	close_paren = strrchr(line, ')');
	return close_paren && close_paren[1] == ' ' ? close_paren[2] : '?';
}

/*
 * A full pipe: vmsplice with SPLICE_F_NONBLOCK must say EAGAIN, and without
 * it must wait.  Prints the first answer, then "blocked" or "returned".
 */
static void
vmsplice_full(void)
{
	int p[2], status;
	long cap;
	char *buf;
	struct iovec iov;
	ssize_t n;
	pid_t pid;

	make_pipe(p);
	if ((cap = fcntl(p[1], F_GETPIPE_SZ)) < 0)
		die("F_GETPIPE_SZ");
	buf = pages((size_t)cap);
	memset(buf, 'x', (size_t)cap);
	iov.iov_base = buf;
	iov.iov_len = (size_t)cap;
	if (vmsplice(p[1], &iov, 1, 0) != cap)
		die("filling the pipe with vmsplice");
	iov.iov_len = 4096;
	n = vmsplice(p[1], &iov, 1, SPLICE_F_NONBLOCK);
	result(n, errno);

	fflush(stdout);
	if ((pid = fork()) < 0)
		die("fork");
	if (pid == 0) {
		vmsplice(p[1], &iov, 1, 0);
		_exit(0);
	}
	/* Up to 2 s for the child to reach the wait; a return means it did not. */
	for (int i = 0; i < 200; i++) {
		struct timespec tick = { 0, 10 * 1000 * 1000 };

		if (waitpid(pid, &status, WNOHANG) == pid) {
			printf(" returned\n");
			return;
		}
		if (process_state(pid) == 'S')
			break;
		nanosleep(&tick, NULL);
	}
	printf(" %s\n", process_state(pid) == 'S' ? "blocked" : "running");
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}

/*
 * The double-buffer hazard: vmsplice a page into pipe 1, splice it on into
 * pipe 2 (pipe 1 is now empty, the page looks free), rewrite the page, read
 * pipe 2.  "shared" when the rewrite shows downstream (the pipe held the
 * user's page, as documented), "copied" when it does not, "mixed" else.
 */
static void
vmsplice_reuse(void)
{
	const size_t len = 4096;
	char *buf = pages(len), *got = pages(len);
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	int p1[2], p2[2], queued = -1;
	size_t old = 0, new = 0;

	make_pipe(p1);
	make_pipe(p2);
	memset(buf, 'A', len);
	if (vmsplice(p1[1], &iov, 1, 0) != (ssize_t)len)
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

/* ---- pipe capacity ------------------------------------------------------ */

/* F_SETPIPE_SZ on a fresh pipe: its answer, and F_GETPIPE_SZ if it differs. */
static void
pipe_set_size(size_t want)
{
	int p[2];
	long got, now;

	make_pipe(p);
	got = fcntl(p[1], F_SETPIPE_SZ, (int)want);
	result(got, errno);
	now = fcntl(p[0], F_GETPIPE_SZ);
	if (got >= 0 && now != got)
		printf(" but F_GETPIPE_SZ says %ld", now);
	putchar('\n');
}

static bool
has_cap(int cap)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data) < 0)
		die("capget");
	return data[cap / 32].effective & (1U << (cap % 32));
}

/* Takes cap out of this process's effective, permitted and inheritable sets. */
static void
drop_cap(int cap)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	unsigned int bit = 1U << (cap % 32);

	if (syscall(SYS_capget, &hdr, data) < 0)
		die("capget");
	data[cap / 32].effective &= ~bit;
	data[cap / 32].permitted &= ~bit;
	data[cap / 32].inheritable &= ~bit;
	if (syscall(SYS_capset, &hdr, data) < 0)
		die("capset");
	if (has_cap(cap)) {
		errno = EPERM;
		die("capability %d still effective", cap);
	}
}

/* Becomes user name (root only): groups, then gid, then uid. */
static void
become(const char *name)
{
	struct passwd *pw = getpwnam(name);

	if (pw == NULL) {
		errno = ENOENT;
		die("no user '%s'", name);
	}
	if (setgroups(0, NULL) < 0 || setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0)
		die("becoming %s", name);
	if (has_cap(CAP_SYS_RESOURCE)) {
		errno = EPERM;
		die("still CAP_SYS_RESOURCE as %s", name);
	}
}

/*
 * Without CAP_SYS_RESOURCE: "user:NAME" (setuid to NAME, needs root) or
 * "nocap" (keep the uid, drop the capability), then F_SETPIPE_SZ WANT.
 */
static void
pipe_set_size_as(const char *who, size_t want)
{
	if (strncmp(who, "user:", 5) == 0)
		become(who + 5);
	else if (strcmp(who, "nocap") == 0)
		drop_cap(CAP_SYS_RESOURCE);
	else {
		fprintf(stderr, "splice-probe: unknown identity '%s'\n", who);
		exit(2);
	}
	pipe_set_size(want);
}

/*
 * 8 pages queued in a default pipe: shrinking it to one page must fail
 * with EBUSY and lose nothing; shrinking to 8 pages must work.  Prints both
 * answers and "intact N" when all N queued bytes read back unchanged.
 */
static void
pipe_shrink_busy(void)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE), len = 8 * page;
	char *data = pages(len), *got = pages(len);
	int p[2];
	long n;

	fill_ramp(data, len);
	make_pipe(p);
	write_or_die(p[1], data, len);
	n = fcntl(p[1], F_SETPIPE_SZ, (int)page);
	result(n, errno);
	putchar(' ');
	n = fcntl(p[1], F_SETPIPE_SZ, (int)len);
	result(n, errno);
	read_exactly(p[0], got, len);
	printf(" %s %zu\n", memcmp(data, got, len) == 0 ? "intact" : "corrupt", len);
}

/* ---- main --------------------------------------------------------------- */

static void
usage(void)
{
	fprintf(stderr,
	    "usage: splice-probe SCENARIO [ARG]...\n"
	    "  file-pipe-file IN OUT         splice file -> pipe -> file\n"
	    "  stdin-file OUT                splice stdin (a pipe) -> file, to its end\n"
	    "  splice-error KIND             bad-fd-in bad-fd-out write-only-in read-only-out\n"
	    "                                append-out no-pipe offset-in-pipe offset-out-pipe\n"
	    "  pipe-pipe IN OUT              pipe -> splice -> pipe (IN fits a pipe)\n"
	    "  pipe-unix-pipe IN OUT         pipe -> AF_UNIX stream -> pipe\n"
	    "  dev-source DEV LEN OUT        one splice of LEN bytes from DEV into a pipe\n"
	    "  dev-sink DEV IN               IN queued in a pipe, one splice into DEV\n"
	    "  fd-pairs                      every pair with a side that cannot splice\n"
	    "  tee-file IN OUT COPY          file -> pipe -> tee -> pipe -> file\n"
	    "  tee-error KIND                file-in file-out same-pipe\n"
	    "  ramp LEN                      the ramp pattern to stdout, with write(2)\n"
	    "  vmsplice-file OUT LEN         vmsplice ramp with poll, splice into OUT\n"
	    "  vmsplice-error KIND           bad-fd file too-many-iovecs\n"
	    "  vmsplice-touser IN OUT        pipe -> vmsplice -> user memory\n"
	    "  vmsplice-full                 full pipe: SPLICE_F_NONBLOCK, then blocking\n"
	    "  vmsplice-reuse                rewrite a page after it left the first pipe\n"
	    "  pipe-set-size N               F_SETPIPE_SZ N on a fresh pipe\n"
	    "  pipe-set-size-as WHO N        the same as user:NAME or without\n"
	    "                                CAP_SYS_RESOURCE (nocap)\n"
	    "  pipe-shrink-busy              shrink below what is queued\n"
	    "Prints \"ok N\" or the errno name; exit 1 when setup failed.\n");
	exit(2);
}

int
main(int argc, char *argv[])
{
	const char *s = argc > 1 ? argv[1] : "";
	int nargs = argc - 2;

	/* A scenario that dies of SIGPIPE would hide what the kernel said. */
	signal(SIGPIPE, SIG_IGN);
	if (strcmp(s, "file-pipe-file") == 0 && nargs == 2)
		file_pipe_file(argv[2], argv[3]);
	else if (strcmp(s, "stdin-file") == 0 && nargs == 1)
		stdin_file(argv[2]);
	else if (strcmp(s, "splice-error") == 0 && nargs == 1)
		splice_error(argv[2]);
	else if (strcmp(s, "pipe-pipe") == 0 && nargs == 2)
		pipe_pipe(argv[2], argv[3]);
	else if (strcmp(s, "pipe-unix-pipe") == 0 && nargs == 2)
		pipe_unix_pipe(argv[2], argv[3]);
	else if (strcmp(s, "dev-source") == 0 && nargs == 3)
		dev_source(argv[2], size_arg(argv[3]), argv[4]);
	else if (strcmp(s, "dev-sink") == 0 && nargs == 2)
		dev_sink(argv[2], argv[3]);
	else if (strcmp(s, "fd-pairs") == 0 && nargs == 0)
		fd_pairs();
	else if (strcmp(s, "tee-file") == 0 && nargs == 3)
		tee_file(argv[2], argv[3], argv[4]);
	else if (strcmp(s, "tee-error") == 0 && nargs == 1)
		tee_error(argv[2]);
	else if (strcmp(s, "ramp") == 0 && nargs == 1)
		ramp(size_arg(argv[2]));
	else if (strcmp(s, "vmsplice-file") == 0 && nargs == 2)
		vmsplice_file(argv[2], size_arg(argv[3]));
	else if (strcmp(s, "vmsplice-error") == 0 && nargs == 1)
		vmsplice_error(argv[2]);
	else if (strcmp(s, "vmsplice-touser") == 0 && nargs == 2)
		vmsplice_touser(argv[2], argv[3]);
	else if (strcmp(s, "vmsplice-full") == 0 && nargs == 0)
		vmsplice_full();
	else if (strcmp(s, "vmsplice-reuse") == 0 && nargs == 0)
		vmsplice_reuse();
	else if (strcmp(s, "pipe-set-size") == 0 && nargs == 1)
		pipe_set_size(size_arg(argv[2]));
	else if (strcmp(s, "pipe-set-size-as") == 0 && nargs == 2)
		pipe_set_size_as(argv[2], size_arg(argv[3]));
	else if (strcmp(s, "pipe-shrink-busy") == 0 && nargs == 0)
		pipe_shrink_busy();
	else
		usage();
	return fflush(stdout) != 0 || ferror(stdout);
}
