/*
 * splice.c: splice(2) scenarios: LTP's splice01-06 and 08-09, dirtypipe,
 * and the behaviours the tools rely on that LTP does not check.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "probe.h"

/* splice01: IN -> pipe -> OUT, the caller compares IN and OUT. */
void
file_pipe_file(char *argv[])
{
	int in = open_or_die(argv[0], O_RDONLY);
	int out = open_or_die(argv[1], O_WRONLY | O_CREAT | O_TRUNC);
	struct stat st;
	int p[2];
	long n;

	make_pipe(p);
	if (fstat(in, &st) < 0)
		die("%s", argv[0]);
	n = splice_all(in, NULL, p[1], NULL, (size_t)st.st_size);
	if (n >= 0)
		n = splice_all(p[0], NULL, out, NULL, (size_t)n);
	result_line(n, errno);
}

/* Byte i of splice02's data: the alphabet, over and over. */
static char
letter(size_t i)
{
	return (char)('a' + i % 26);
}

/* N bytes of splice02's letters to stdout, with write(2). */
void
letters(char *argv[])
{
	size_t len = (size_t)number_arg(argv[0], SIZE_MAX / 2);
	char *buf = pages(len);

	for (size_t i = 0; i < len; i++)
		buf[i] = letter(i);
	write_or_die(STDOUT_FILENO, buf, len);
}

/*
 * splice02: a child writes 16 pipes' worth of letters in 512-byte writes
 * while this process splices the pipe into OUT 1024 bytes a call, to the
 * end.  "ok MOVED of WRITTEN"; the caller compares OUT with `letters`.
 */
void
splice02(char *argv[])
{
	int out = open_or_die(argv[0], O_WRONLY | O_CREAT | O_TRUNC);
	int p[2], status;
	long cap, total, moved = 0;
	pid_t pid;

	make_pipe(p);
	if ((cap = fcntl(p[1], F_GETPIPE_SZ)) < 0)
		die("F_GETPIPE_SZ");
	total = 16 * cap;
	if ((pid = fork_or_die()) == 0) {
		char block[512];

		close(p[0]);
		for (long off = 0; off < total; off += (long)sizeof(block)) {
			size_t len = total - off < (long)sizeof(block) ?
			    (size_t)(total - off) : sizeof(block);

			for (size_t i = 0; i < len; i++)
				block[i] = letter((size_t)off + i);
			write_or_die(p[1], block, len);
		}
		_exit(0);
	}
	close(p[1]);
	for (;;) {
		ssize_t n = splice(p[0], NULL, out, NULL, 1024, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			result_line(-1, errno);
			kill_child(pid);
			return;
		}
		if (n == 0)
			break;
		moved += n;
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		die("the writing child failed");
	printf("ok %ld of %ld\n", moved, total);
}

/* splice03: each kind names the one wrong thing about the call; an answer a kind. */
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

/* The call that fault f names, on the scenario's files and pipe. */
static long
splice_fault(int f, int rd, int wr, int app, const int p[2])
{
	loff_t off = 0;
	const struct {
		int in, out;
		loff_t *off_in, *off_out;
	} calls[F_COUNT] = {
		[F_BAD_FD_IN] = { .in = -1, .out = p[1] },
		[F_BAD_FD_OUT] = { .in = p[0], .out = -1 },
		[F_WRITE_ONLY_IN] = { .in = wr, .out = p[1] },
		[F_READ_ONLY_OUT] = { .in = p[0], .out = rd },
		[F_APPEND_OUT] = { .in = p[0], .out = app },
		[F_NO_PIPE] = { .in = rd, .out = wr },
		[F_OFFSET_IN_PIPE] = { .in = p[0], .off_in = &off, .out = wr },
		[F_OFFSET_OUT_PIPE] = { .in = rd, .out = p[1], .off_out = &off },
	};

	return splice(calls[f].in, calls[f].off_in, calls[f].out, calls[f].off_out, 10, 0);
}

void
splice_error(const char *kind)
{
	static const char text[] = "abcdefghijklmnopqrstuvwxyz";
	int f = pick("splice-error", kind, fault_names, F_COUNT);
	int rd, wr, app, p[2];
	long n;

	spit("probe-file", text, sizeof(text) - 1);
	rd = open_or_die("probe-file", O_RDONLY);
	wr = open_or_die("probe-file2", O_WRONLY | O_CREAT);
	app = open_or_die("probe-file3", O_RDWR | O_CREAT | O_APPEND);
	make_pipe(p);
	write_or_die(p[1], text, sizeof(text) - 1);
	n = splice_fault(f, rd, wr, app, p);
	result_closing(n, errno, rd, wr, app, p[0], p[1]);
}

/* splice04: IN -> pipe 1 -> splice -> pipe 2 -> OUT; IN must fit in a pipe. */
void
pipe_pipe(char *argv[])
{
	size_t len, done = 0;
	char *data = slurp(argv[0], &len);
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
	spit(argv[1], got, len);
	result_line((long)done, 0);
}

/* splice05: IN -> pipe -> AF_UNIX stream socket pair -> pipe -> OUT. */
void
pipe_unix_pipe(char *argv[])
{
	size_t len, done;
	char *data = slurp(argv[0], &len);
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
	spit(argv[1], got, len);
	result_line((long)done, 0);
}

/*
 * splice08: one splice of 1009 * i bytes from DEV into a pipe, for i = 0 to
 * 8, a fresh pipe each: "ANSWER [zeros|not-zeros]..." (the bytes all zero?).
 */
void
dev_source(char *argv[])
{
	int fd = open_or_die(argv[0], O_RDONLY);
	char got[8 * 1009];

	for (size_t i = 0; i <= 8; i++) {
		size_t len = 1009 * i, zeros = 0;
		int p[2];
		ssize_t n;

		make_pipe(p);
		memset(got, 0xff, sizeof(got));
		n = splice(fd, NULL, p[1], NULL, len, 0);
		printf("%s", i ? " " : "");
		result(n, errno);
		if (n > 0) {
			read_exactly(p[0], got, (size_t)n);
			for (ssize_t j = 0; j < n; j++)
				zeros += got[j] == 0;
			printf(" %s", zeros == (size_t)n ? "zeros" : "not-zeros");
		}
		close(p[0]);
		close(p[1]);
	}
	putchar('\n');
}

/* splice09: the bytes of IN, queued in a pipe, spliced once into DEV. */
void
dev_sink(char *argv[])
{
	size_t len;
	char *data = slurp(argv[1], &len);
	int fd = open_or_die(argv[0], O_WRONLY);
	int p[2];
	ssize_t n;

	make_pipe(p);
	write_or_die(p[1], data, len);
	n = splice(p[0], NULL, fd, NULL, len, 0);
	result_line(n, errno);
}

/*
 * dirtypipe (CVE-2022-0847): every slot of a pipe is used once (filled,
 * drained), one byte of the read-only FILE is spliced in, then 16 bytes
 * are written into the pipe.  A kernel that leaves the slot's "can merge"
 * flag set writes them into FILE's page cache.  Prints the splice's and
 * the write's answers, then "intact" or "changed N bytes from OFFSET".
 */
void
dirtypipe(char *argv[])
{
	static const char text[] = "AAAAAAAABBBBBBBB";
	const size_t len = 4096;
	char *data = pages(len), *got = pages(len), block[4096];
	long cap, left;
	size_t changed = 0, first = 0;
	int fd, p[2];
	ssize_t n;

	memset(data, 0xff, len);
	spit(argv[0], data, len);
	if (chmod(argv[0], 0444) < 0)
		die("chmod %s", argv[0]);
	fd = open_or_die(argv[0], O_RDONLY);
	make_pipe(p);
	if ((cap = fcntl(p[1], F_GETPIPE_SZ)) < 0)
		die("F_GETPIPE_SZ");
	memset(block, 'x', sizeof(block));
	for (left = cap; left > 0; left -= (long)sizeof(block))
		write_or_die(p[1], block,
		    left < (long)sizeof(block) ? (size_t)left : sizeof(block));
	for (left = cap; left > 0; left -= (long)sizeof(block))
		read_exactly(p[0], block,
		    left < (long)sizeof(block) ? (size_t)left : sizeof(block));

	n = splice(fd, NULL, p[1], NULL, 1, 0);
	result(n, errno);
	putchar(' ');
	n = write(p[1], text, sizeof(text) - 1);
	result(n, errno);

	if (pread(fd, got, len, 0) != (ssize_t)len)
		die("reading %s back", argv[0]);
	for (size_t i = len; i-- > 0;) {
		if (got[i] != data[i]) {
			changed++;
			first = i;
		}
	}
	if (changed == 0)
		printf(" intact\n");
	else
		printf(" changed %zu bytes from offset %zu\n", changed, first);
}

/* len bytes read from fd, as a string in buf (size len + 1). */
static const char *
read_text(int fd, char *buf, size_t len)
{
	read_exactly(fd, buf, len);
	buf[len] = '\0';
	return buf;
}

/*
 * linked-writes WAY: two pipes made to share a page, then a write into
 * each; each write must stay in its own pipe ("splice: don't merge into
 * linked buffers", 2019; the class of the 2016 tee fix and of Dirty Pipe).
 * WAY tee: "abc" written into A, teed to B; partial: "abcdef" written into
 * A, 3 bytes of it spliced to B (A keeps the rest of that page); vmsplice:
 * "abc" of a user buffer vmspliced into A, which has no B (the user's page
 * must not take the write).  Then "XYZ" into A, "123" into B; prints what A
 * and B hold ("abcXYZ abc123" for tee, "defXYZ abc123" for partial), and for
 * vmsplice what A holds and what the user's buffer holds after "abc".
 */
void
linked_writes(char *argv[])
{
	static const char *const ways[] = { "tee", "partial", "vmsplice" };
	int way = pick("linked-writes", argv[0], ways, 3);
	char *user = pages(page_size()), a_got[8], b_got[8];
	struct iovec iov = { user, 3 };
	int a[2], b[2];
	ssize_t n;

	make_pipe(a);
	make_pipe(b);
	if (way == 0) {
		write_or_die(a[1], "abc", 3);
		if ((n = tee(a[0], b[1], 3, 0)) != 3)
			die("tee gave %zd", n);
	} else if (way == 1) {
		write_or_die(a[1], "abcdef", 6);
		if ((n = splice(a[0], NULL, b[1], NULL, 3, 0)) != 3)
			die("splice gave %zd", n);
	} else {
		memcpy(user, "abc...", 6);
		if ((n = vmsplice(a[1], &iov, 1, 0)) != 3)
			die("vmsplice gave %zd", n);
	}
	write_or_die(a[1], "XYZ", 3);
	if (way == 2) {
		printf("%s ", read_text(a[0], a_got, 6));
		printf("%.3s\n", user + 3);
		return;
	}
	write_or_die(b[1], "123", 3);
	printf("%s ", read_text(a[0], a_got, 6));
	printf("%s\n", read_text(b[0], b_got, 6));
}

/*
 * Offsets past 2^31 and 2^32 in a sparse FILE: 8 KiB from 4 KiB below each
 * boundary spliced into a pipe, and 8 KiB from a pipe spliced in 2 KiB
 * below it.  The offsets must advance by what moved, the file position stay
 * at 0 and the bytes be exact: the tools keep 64-bit totals and offsets.
 * Per boundary: "2^B in ANSWER CHECK out ANSWER CHECK".
 */
static const char *
offset_check(const char *want, const char *got, size_t len, loff_t off, loff_t off_want, int fd)
{
	if (memcmp(want, got, len) != 0)
		return "differs";
	if (off != off_want)
		return "offset-wrong";
	if (lseek(fd, 0, SEEK_CUR) != 0)
		return "position-moved";
	return "same";
}

void
splice_offsets(char *argv[])
{
	const size_t len = 8192;
	char *forth = pages(len), *back = pages(len), *got = pages(len);
	int fd = open_or_die(argv[0], O_RDWR | O_CREAT | O_TRUNC);
	static const int bits[] = { 31, 32 };

	fill_ramp(forth, len);
	for (size_t i = 0; i < len; i++)
		back[i] = (char)~forth[i];
	for (size_t b = 0; b < sizeof(bits) / sizeof(bits[0]); b++) {
		loff_t edge = (loff_t)1 << bits[b], off;
		int p[2];
		long n;

		make_pipe(p);
		if (pwrite(fd, forth, len, edge - 4096) != (ssize_t)len)
			die("pwrite at 2^%d - 4096", bits[b]);
		printf("%s2^%d in ", b ? " " : "", bits[b]);
		off = edge - 4096;
		n = splice_all(fd, &off, p[1], NULL, len);
		result(n, errno);
		if (n == (long)len) {
			read_exactly(p[0], got, len);
			printf(" %s", offset_check(forth, got, len, off, edge + 4096, fd));
		}
		printf(" out ");
		write_or_die(p[1], back, len);
		off = edge - 2048;
		n = splice_all(p[0], NULL, fd, &off, len);
		result(n, errno);
		if (n == (long)len) {
			if (pread(fd, got, len, edge - 2048) != (ssize_t)len)
				die("pread at 2^%d - 2048", bits[b]);
			printf(" %s", offset_check(back, got, len, off, edge + 6144, fd));
		}
		close(p[0]);
		close(p[1]);
	}
	putchar('\n');
}

/*
 * Which /proc and /sys files splice into a pipe: "PATH: ANSWER" a line.  For
 * files whose bytes do not change between two reads, " same" or " differs"
 * compares what splice delivered with what read(2) gives.
 */
static const struct {
	const char *path;
	bool stable;
} proc_list[] = {
	{ .path = "/proc/version", .stable = true },
	{ .path = "/proc/sys/kernel/ostype", .stable = true },
	{ .path = "/proc/filesystems", .stable = true },
	{ .path = "/proc/self/cmdline", .stable = true },
	{ .path = "/proc/self/environ", .stable = true },
	{ .path = "/proc/cpuinfo" },
	{ .path = "/proc/meminfo" },
	{ .path = "/proc/stat" },
	{ .path = "/proc/uptime" },
	{ .path = "/proc/loadavg" },
	{ .path = "/proc/mounts" },
	{ .path = "/proc/self/maps" },
	{ .path = "/proc/self/smaps" },
	{ .path = "/proc/self/status" },
	{ .path = "/proc/self/stat" },
	{ .path = "/proc/self/mountinfo" },
	{ .path = "/proc/self/limits" },
	{ .path = "/sys/kernel/mm/transparent_hugepage/enabled" },
	{ .path = "/sys/devices/system/cpu/online" },
};

void
proc_files(char *argv[])
{
	(void)argv;
	for (size_t i = 0; i < sizeof(proc_list) / sizeof(proc_list[0]); i++) {
		const size_t len = 65536;
		char *spliced = pages(len), *read_back = pages(len);
		int fd = open(proc_list[i].path, O_RDONLY | O_CLOEXEC), p[2];
		ssize_t n, r;

		if (fd < 0) {
			printf("%s: not here (%s)\n", proc_list[i].path, errno_name(errno));
			continue;
		}
		make_pipe(p);
		n = splice(fd, NULL, p[1], NULL, len, 0);
		printf("%s: ", proc_list[i].path);
		result(n, errno);
		if (n > 0 && proc_list[i].stable) {
			read_exactly(p[0], spliced, (size_t)n);
			r = pread(fd, read_back, len, 0);
			printf(" %s", r == n && memcmp(spliced, read_back, (size_t)n) == 0 ?
			    "same" : "differs");
		}
		putchar('\n');
		close(fd);
		close(p[0]);
		close(p[1]);
		munmap(spliced, len);
		munmap(read_back, len);
	}
}

/* One splice of what fd holds into a pipe, compared with want. */
static void
splice_compare(int fd, const char *want)
{
	size_t len = strlen(want);
	char got[64];
	int p[2];
	ssize_t n;

	make_pipe(p);
	alarm(10);
	n = splice(fd, NULL, p[1], NULL, sizeof(got), 0);
	alarm(0);
	result(n, errno);
	if (n > 0) {
		read_exactly(p[0], got, (size_t)n);
		printf(" %s", (size_t)n == len && memcmp(got, want, len) == 0 ? "same" : "differs");
	}
	close(p[0]);
	close(p[1]);
}

/*
 * splice(2) from a pseudo-terminal, both ends, raw mode: "slave ANSWER
 * CHECK master ANSWER CHECK", CHECK comparing the bytes with what the
 * other end wrote.  A call that would wait longer than 10 s says EINTR.
 */
void
pty_splice(char *argv[])
{
	struct termios tio;
	int master, slave;
	char *name;

	(void)argv;
	alarm_interrupts();
	master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0)
		die("posix_openpt");
	if (grantpt(master) < 0 || unlockpt(master) < 0 || (name = ptsname(master)) == NULL)
		die("setting the pty up");
	slave = open_or_die(name, O_RDWR | O_NOCTTY);
	if (tcgetattr(slave, &tio) < 0)
		die("tcgetattr");
	cfmakeraw(&tio);
	if (tcsetattr(slave, TCSANOW, &tio) < 0)
		die("tcsetattr");

	write_or_die(master, "to the slave\n", 13);
	printf("slave ");
	splice_compare(slave, "to the slave\n");
	write_or_die(slave, "to the master\n", 14);
	printf(" master ");
	splice_compare(master, "to the master\n");
	putchar('\n');
}

/* fds[0], an idle socket, into pipe fds[1] with SPLICE_F_NONBLOCK. */
static long
splice_nonblock(void *arg)
{
	const int *fds = arg;

	return splice(fds[0], NULL, fds[1], NULL, 4096, SPLICE_F_NONBLOCK);
}

/*
 * SPLICE_F_NONBLOCK makes the pipe side non-blocking; does it make an idle
 * blocking TCP socket so?  A child splices from a loopback connection that
 * has no data: "blocks" when it sleeps in splice(2), else its answer.
 */
void
nonblock_socket(char *argv[])
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t addr_len = sizeof(addr);
	int listener, client, server, p[2];

	(void)argv;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	client = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (listener < 0 || client < 0 ||
	    bind(listener, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    listen(listener, 1) < 0 ||
	    getsockname(listener, (struct sockaddr *)&addr, &addr_len) < 0 ||
	    connect(client, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    (server = accept4(listener, NULL, NULL, SOCK_CLOEXEC)) < 0)
		die("a loopback TCP connection");
	make_pipe(p);
	call_in_child(splice_nonblock, (int [2]){ server, p[1] }, SYS_splice, "", "blocks");
}

/*
 * tee(2) from an empty pipe with SPLICE_F_NONBLOCK: EAGAIN while a writer
 * is open (data may come), 0 once none is (the end).  A tool that took a 0
 * for the end while a writer is open would lose what comes after.
 */
void
tee_empty(char *argv[])
{
	int p1[2], p2[2];
	ssize_t n;

	(void)argv;
	make_pipe(p1);
	make_pipe(p2);
	n = tee(p1[0], p2[1], 4096, SPLICE_F_NONBLOCK);
	result(n, errno);
	close(p1[1]);
	n = tee(p1[0], p2[1], 4096, SPLICE_F_NONBLOCK);
	putchar(' ');
	result_line(n, errno);
}

static volatile sig_atomic_t sigpipes;

static void
on_sigpipe(int sig)
{
	(void)sig;
	sigpipes++;
}

/*
 * Into a pipe nobody reads: splice(2), vmsplice(2) and tee(2) must say
 * EPIPE and raise SIGPIPE, as write(2) does, or a tool whose reader left
 * would go on.  "splice ANSWER SIGPIPE vmsplice ... tee ...".
 */
void
epipe(char *argv[])
{
	struct sigaction sa = { .sa_handler = on_sigpipe };
	char *page = pages(4096);
	struct iovec iov = { .iov_base = page, .iov_len = 4096 };
	int fd, p[2], src[2];
	ssize_t n;

	(void)argv;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPIPE, &sa, NULL) < 0)
		die("sigaction");
	spit("probe-epipe", "data", 4);
	fd = open_or_die("probe-epipe", O_RDONLY);
	make_pipe(p);
	close(p[0]);
	make_pipe(src);
	write_or_die(src[1], "data", 4);

	n = splice(fd, NULL, p[1], NULL, 4, 0);
	printf("splice ");
	result(n, errno);
	printf(" %s", sigpipes == 1 ? "SIGPIPE" : "no-SIGPIPE");
	n = vmsplice(p[1], &iov, 1, 0);
	printf(" vmsplice ");
	result(n, errno);
	printf(" %s", sigpipes == 2 ? "SIGPIPE" : "no-SIGPIPE");
	n = tee(src[0], p[1], 4, 0);
	printf(" tee ");
	result(n, errno);
	printf(" %s\n", sigpipes == 3 ? "SIGPIPE" : "no-SIGPIPE");
}

/*
 * A regular file's page spliced into a pipe, then the file rewritten before
 * the pipe is read: "reference" when the reader gets the new bytes (the
 * pipe held the page cache's page), "copy" when the old, else "mixed".
 */
void
file_by_reference(char *argv[])
{
	const size_t len = 4096;
	char *old = pages(len), *new = pages(len), *got = pages(len);
	int fd = open_or_die(argv[0], O_RDWR | O_CREAT | O_TRUNC), p[2];

	memset(old, 'A', len);
	memset(new, 'B', len);
	write_or_die(fd, old, len);
	make_pipe(p);
	if (splice_all(fd, &(loff_t){ 0 }, p[1], NULL, len) != (long)len)
		die("splice %s into the pipe", argv[0]);
	if (pwrite(fd, new, len, 0) != (ssize_t)len)
		die("rewriting %s", argv[0]);
	read_exactly(p[0], got, len);
	printf("%s\n", memcmp(got, new, len) == 0 ? "reference" :
	    memcmp(got, old, len) == 0 ? "copy" : "mixed");
}
