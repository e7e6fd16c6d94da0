/*
 * util.c: splice-probe's answers, setup steps, identities and children;
 * see probe.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"

/* ---- answers ----------------------------------------------------------------- */

static const struct {
	int err;
	const char *name;
} errno_names[] = {
	{ EBADF, "EBADF" }, { EINVAL, "EINVAL" }, { ESPIPE, "ESPIPE" }, { EAGAIN, "EAGAIN" },
	{ EPERM, "EPERM" }, { EBUSY, "EBUSY" }, { EPIPE, "EPIPE" }, { EINTR, "EINTR" },
	{ EFAULT, "EFAULT" }, { ENOMEM, "ENOMEM" }, { ENOSYS, "ENOSYS" },
	{ EOPNOTSUPP, "EOPNOTSUPP" }, { ENOTCONN, "ENOTCONN" }, { EISDIR, "EISDIR" },
	{ EACCES, "EACCES" }, { EXDEV, "EXDEV" }, { ENXIO, "ENXIO" }, { EIO, "EIO" },
	{ ETXTBSY, "ETXTBSY" }, { EOVERFLOW, "EOVERFLOW" }, { EFBIG, "EFBIG" },
	{ ENOENT, "ENOENT" }, { ENODEV, "ENODEV" }, { ENOTTY, "ENOTTY" }, { EROFS, "EROFS" },
	{ EMFILE, "EMFILE" }, { ENFILE, "ENFILE" }, { ENOTDIR, "ENOTDIR" },
	{ ENOTSOCK, "ENOTSOCK" }, { ECONNRESET, "ECONNRESET" },
};

const char *
errno_name(int err)
{
	static char other[16];

	for (size_t i = 0; i < sizeof(errno_names) / sizeof(errno_names[0]); i++)
		if (errno_names[i].err == err)
			return errno_names[i].name;
	snprintf(other, sizeof(other), "E%d", err);
	return other;
}

void
result(long ret, int err)
{
	if (ret < 0)
		printf("%s", errno_name(err));
	else
		printf("ok %ld", ret);
}

void
result_line(long ret, int err)
{
	result(ret, err);
	putchar('\n');
}

void
answer(long ret)
{
	result(ret, errno);
}

void
answer_line(long ret)
{
	result_line(ret, errno);
}

void
result_close(long ret, int err, const int fds[], size_t count)
{
	result(ret, err);
	for (size_t i = 0; i < count; i++)
		close(fds[i]);
}

void
die(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "splice-probe: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err));
	exit(1);
}

void
bad_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "splice-probe: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* ---- setup steps ------------------------------------------------------------ */

void
make_pipe(int p[2])
{
	if (pipe2(p, O_CLOEXEC) < 0)
		die("pipe");
}

pid_t
fork_or_die(void)
{
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) < 0)
		die("fork");
	return pid;
}

int
open_or_die(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0644);

	if (fd < 0)
		die("%s", path);
	return fd;
}

void
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

void
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

char *
pages(size_t len)
{
	void *p = mmap(NULL, len ? len : 1, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	return p;
}

char *
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

void
spit(const char *path, const void *buf, size_t len)
{
	int fd = open_or_die(path, O_WRONLY | O_CREAT | O_TRUNC);

	write_or_die(fd, buf, len);
	if (close(fd) < 0)
		die("%s", path);
}

void
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

size_t
page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

void
fill_ramp(char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)(i & 0xff);
}

/* ---- arguments ------------------------------------------------------------------- */

unsigned long long
number_arg(const char *s, unsigned long long max)
{
	char *end;
	unsigned long long n;

	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || *end || end == s || *s == '-' || n > max)
		bad_usage("bad number: '%s' (0 to %llu)", s, max);
	return n;
}

int
pick(const char *scenario, const char *kind, const char *const names[], int count)
{
	for (int i = 0; i < count; i++)
		if (strcmp(kind, names[i]) == 0)
			return i;
	bad_usage("%s: unknown kind '%s'", scenario, kind);
}

/* ---- calls ----------------------------------------------------------------------------- */

void
each_arg(char *argv[], void (*one)(const char *arg))
{
	for (int i = 0; argv[i] != NULL; i++) {
		if (i > 0)
			putchar(' ');
		one(argv[i]);
	}
	putchar('\n');
}

long
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

static void
on_alarm(int sig)
{
	(void)sig;
}

void
alarm_interrupts(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) < 0)
		die("sigaction");
}

/* ---- children ---------------------------------------------------------------------------- */

/* The state letter of /proc/PID/stat ('S' sleeping, ...), '?' when gone. */
static char
process_state(pid_t pid)
{
	char path[64], line[512], *close_paren;
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
 * The system call pid sleeps in, from /proc/PID/syscall ("running" and
 * unreadable files give -1; a kernel without the file, -2).
 */
static long
current_syscall(pid_t pid)
{
	char path[64], line[256];
	FILE *f;
	long nr = -1;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	f = fopen(path, "re");
	if (f == NULL)
		return errno == ENOENT ? -2 : -1;
	if (fgets(line, sizeof(line), f) == NULL || sscanf(line, "%ld", &nr) != 1)
		nr = -1;
	fclose(f);
	return nr;
}

bool
child_blocks_in(pid_t pid, long nr)
{
	/* A condition, polled: 1000 x 10 ms at most, on a loaded or emulated CPU. */
	for (int i = 0; i < 1000; i++) {
		struct timespec tick = { 0, 10 * 1000 * 1000 };
		int status;
		long now;

		if (waitpid(pid, &status, WNOHANG) == pid)
			return false;
		if (process_state(pid) == 'S') {
			now = current_syscall(pid);
			if (now == nr || now == -2)
				return true;
		}
		nanosleep(&tick, NULL);
	}
	return false;
}

void
kill_child(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

void
call_in_child(child_call *call, void *arg, long nr, const char *returned, const char *blocked)
{
	pid_t pid;

	if ((pid = fork_or_die()) == 0) {
		long n = call(arg);
		int err = errno;

		printf("%s", returned);
		result_line(n, err);
		fflush(stdout);
		_exit(0);
	}
	if (child_blocks_in(pid, nr)) {
		printf("%s\n", blocked);
		kill_child(pid);
	} else {
		int status;

		waitpid(pid, &status, 0);
	}
}

/* ---- identities ---------------------------------------------------------------------------- */

bool
has_cap(int cap)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data) < 0)
		die("capget");
	return data[cap / 32].effective & (1U << (cap % 32));
}

void
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

/*
 * NAME's ids from /etc/passwd read by hand: a static build's getpwnam(3)
 * needs the C library's NSS modules, which a small guest does not have.
 */
static bool
passwd_ids(const char *name, uid_t *uid, gid_t *gid)
{
	FILE *f = fopen("/etc/passwd", "r");
	char line[512];
	size_t len = strlen(name);
	bool found = false;

	if (f == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), f) != NULL) {
		unsigned long u, g;

		if (strncmp(line, name, len) == 0 && line[len] == ':' &&
		    sscanf(line + len, ":%*[^:]:%lu:%lu:", &u, &g) == 2) {
			*uid = (uid_t)u;
			*gid = (gid_t)g;
			found = true;
		}
	}
	fclose(f);
	return found;
}

void
become(const char *name)
{
	struct passwd *pw = getpwnam(name);
	uid_t uid;
	gid_t gid;

	if (pw != NULL) {
		uid = pw->pw_uid;
		gid = pw->pw_gid;
	} else if (!passwd_ids(name, &uid, &gid)) {
		errno = ENOENT;
		die("no user '%s'", name);
	}
	if (setgroups(0, NULL) < 0 || setgid(gid) < 0 || setuid(uid) < 0)
		die("becoming %s", name);
	if (has_cap(CAP_SYS_RESOURCE) || has_cap(CAP_SYS_ADMIN)) {
		errno = EPERM;
		die("still privileged as %s", name);
	}
}

void
become_unprivileged(const char *who)
{
	if (strncmp(who, "user:", 5) == 0)
		become(who + 5);
	else if (strcmp(who, "nocap") == 0) {
		drop_cap(CAP_SYS_RESOURCE);
		drop_cap(CAP_SYS_ADMIN);
	} else
		bad_usage("unknown identity '%s' (user:NAME or nocap)", who);
}
