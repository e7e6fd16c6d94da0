/*
 * fdkinds.c: splice07, splice(2) between every pair of descriptor kinds
 * where at least one side cannot take part: the kernel must answer EBADF
 * or EINVAL, never succeed, hang or fail otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/fanotify.h>
#include <linux/io_uring.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"

/* Numbers an older libc does not know: syscall(-1) says ENOSYS. */
#ifndef SYS_pidfd_open
#define SYS_pidfd_open -1
#endif
#ifndef SYS_fsopen
#define SYS_fsopen -1
#endif
#ifndef SYS_fspick
#define SYS_fspick -1
#endif
#ifndef SYS_open_tree
#define SYS_open_tree -1
#endif
#ifndef SYS_memfd_secret
#define SYS_memfd_secret -1
#endif

/* The kinds LTP's splice07 walks through, in its order. */
enum fd_kind {
	K_FILE, K_PATH, K_DIR, K_DEV_ZERO, K_PROC_MAPS, K_PIPE_READ, K_PIPE_WRITE,
	K_UNIX_SOCK, K_INET_SOCK, K_EPOLL, K_EVENTFD, K_SIGNALFD, K_TIMERFD,
	K_PIDFD, K_FANOTIFY, K_INOTIFY, K_USERFAULTFD, K_PERF_EVENT, K_IO_URING,
	K_BPF_MAP, K_FSOPEN, K_FSPICK, K_OPEN_TREE, K_MEMFD, K_MEMFD_SECRET, K_COUNT
};

static const char *const kind_names[K_COUNT] = {
	[K_FILE] = "file", [K_PATH] = "O_PATH file", [K_DIR] = "directory",
	[K_DEV_ZERO] = "/dev/zero", [K_PROC_MAPS] = "/proc/self/maps",
	[K_PIPE_READ] = "pipe read end", [K_PIPE_WRITE] = "pipe write end",
	[K_UNIX_SOCK] = "unix socket", [K_INET_SOCK] = "inet socket",
	[K_EPOLL] = "epoll", [K_EVENTFD] = "eventfd", [K_SIGNALFD] = "signalfd",
	[K_TIMERFD] = "timerfd", [K_PIDFD] = "pidfd", [K_FANOTIFY] = "fanotify",
	[K_INOTIFY] = "inotify", [K_USERFAULTFD] = "userfaultfd",
	[K_PERF_EVENT] = "perf event", [K_IO_URING] = "io_uring", [K_BPF_MAP] = "bpf map",
	[K_FSOPEN] = "fsopen", [K_FSPICK] = "fspick", [K_OPEN_TREE] = "open_tree",
	[K_MEMFD] = "memfd", [K_MEMFD_SECRET] = "memfd_secret",
};

static int
perf_event_fd(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};

	return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static int
io_uring_fd(void)
{
	struct io_uring_params params;

	memset(&params, 0, sizeof(params));
	return (int)syscall(SYS_io_uring_setup, 1, &params);
}

static int
bpf_map_fd(void)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 8;
	attr.max_entries = 1;
	attr.map_flags = 0;
	return (int)syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof(attr));
}

/* A descriptor of kind k; *other is a pipe's other end, or -1. */
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
		rmdir("probe-fd-dir");
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
		fd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC);
		break;
	case K_PIDFD:
		fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
		break;
	case K_FANOTIFY:
		fd = (int)syscall(SYS_fanotify_init, FAN_CLASS_NOTIF | FAN_CLOEXEC, O_RDONLY);
		break;
	case K_INOTIFY:
		fd = inotify_init1(IN_CLOEXEC);
		break;
	case K_USERFAULTFD:
		fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
		break;
	case K_PERF_EVENT:
		fd = perf_event_fd();
		break;
	case K_IO_URING:
		fd = io_uring_fd();
		break;
	case K_BPF_MAP:
		fd = bpf_map_fd();
		break;
	case K_FSOPEN:
		fd = (int)syscall(SYS_fsopen, "tmpfs", 1 /* FSOPEN_CLOEXEC */);
		break;
	case K_FSPICK:
		fd = (int)syscall(SYS_fspick, AT_FDCWD, "/", 1 /* FSPICK_CLOEXEC */);
		break;
	case K_OPEN_TREE:
		fd = (int)syscall(SYS_open_tree, AT_FDCWD, "/", O_CLOEXEC);
		break;
	case K_MEMFD:
		fd = memfd_create("splice-probe", MFD_CLOEXEC);
		break;
	case K_MEMFD_SECRET:
		fd = (int)syscall(SYS_memfd_secret, O_CLOEXEC);
		break;
	case K_COUNT:
		break;
	}
	return fd;
}

/*
 * The pairs LTP leaves out: splice legitimately succeeds, waits for data
 * (an empty pipe), or says an unconnected TCP socket is not connected.
 */
static bool
pair_can_work(enum fd_kind in, enum fd_kind out)
{
	if (in == K_PIPE_READ)
		return out == K_FILE || out == K_PIPE_WRITE || out == K_UNIX_SOCK ||
		    out == K_INET_SOCK || out == K_MEMFD || out == K_MEMFD_SECRET;
	if (out == K_PIPE_WRITE)
		return in == K_FILE || in == K_DEV_ZERO || in == K_PROC_MAPS ||
		    in == K_MEMFD || in == K_MEMFD_SECRET || in == K_INET_SOCK;
	return false;
}

/*
 * One line per pair, "IN -> OUT: ANSWER"; one per kind this system cannot
 * make, "KIND: not available here (ERRNO)"; last, "N pairs".
 */
void
fd_pairs(char *argv[])
{
	bool available[K_COUNT];
	int tested = 0;

	(void)argv;
	/* A call that hangs comes back with EINTR, and says so. */
	alarm_interrupts();
	for (int k = 0; k < K_COUNT; k++) {
		int other, fd = open_kind((enum fd_kind)k, &other);

		available[k] = fd >= 0;
		if (fd < 0)
			printf("%s: not available here (%s)\n", kind_names[k], errno_name(errno));
		close(fd);
		close(other);
	}
	for (int in = 0; in < K_COUNT; in++) {
		for (int out = 0; out < K_COUNT; out++) {
			int in_other, out_other, in_fd, out_fd;
			ssize_t n;

			if (!available[in] || !available[out] ||
			    pair_can_work((enum fd_kind)in, (enum fd_kind)out))
				continue;
			in_fd = open_kind((enum fd_kind)in, &in_other);
			out_fd = open_kind((enum fd_kind)out, &out_other);
			if (in_fd < 0 || out_fd < 0)
				die("%s -> %s: opening again", kind_names[in], kind_names[out]);
			alarm(5);
			n = splice(in_fd, NULL, out_fd, NULL, 1, 0);
			alarm(0);
			printf("%s -> %s: ", kind_names[in], kind_names[out]);
			result_line(n, errno);
			tested++;
			close(in_fd);
			close(out_fd);
			close(in_other);
			close(out_other);
		}
	}
	printf("%d pairs\n", tested);
}
