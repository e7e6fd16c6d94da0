/*
 * copy_range.c: copy_file_range(2) scenarios, LTP's copy_file_range01-03,
 * each through glibc's wrapper ("libc") or the raw system call ("syscall"),
 * as LTP's two variants; and a private tmpfs for the cross-filesystem ones.
 * splice-cat copies file to file with copy_file_range(2).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"

/* LTP's line of content: the source files repeat it. */
static const char content[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ12345\n";
#define CONTENT_BYTES (sizeof(content) - 1)

static bool use_syscall;

static void
set_variant(const char *name)
{
	static const char *const variants[] = { "libc", "syscall" };

	use_syscall = pick("copy_file_range", name, variants, 2) == 1;
}

static ssize_t
copy_range(int in, loff_t *off_in, int out, loff_t *off_out, size_t len, unsigned int flags)
{
	if (use_syscall)
		return syscall(SYS_copy_file_range, in, off_in, out, off_out, len, flags);
	return copy_file_range(in, off_in, out, off_out, len, flags);
}

/* The source of copy_file_range01: the line of content, 4 pages' times. */
static void
make_source(const char *path)
{
	size_t count = 4 * page_size(), len = count * CONTENT_BYTES;
	char *buf = pages(len);

	for (size_t i = 0; i < count; i++)
		memcpy(buf + i * CONTENT_BYTES, content, CONTENT_BYTES);
	spit(path, buf, len);
}

/* ---- copy_file_range01 ------------------------------------------------------- */

/* len bytes of file a at off_a and of file b at off_b (0 for no offset) agree. */
static bool
same_bytes(const char *a, const loff_t *off_a, const char *b, const loff_t *off_b, size_t len)
{
	char *x = pages(len), *y = pages(len);
	int fa = open_or_die(a, O_RDONLY), fb = open_or_die(b, O_RDONLY);
	bool same = pread(fa, x, len, off_a ? *off_a : 0) == (ssize_t)len &&
	    pread(fb, y, len, off_b ? *off_b : 0) == (ssize_t)len && memcmp(x, y, len) == 0;

	close(fa);
	close(fb);
	munmap(x, len);
	munmap(y, len);
	return same;
}

/*
 * A given offset must advance by len and leave the descriptor's position
 * at 0; without one, the position must advance by len.  NULL when right.
 */
static const char *
offset_wrong(int fd, const loff_t *before, const loff_t *after, size_t len)
{
	off_t pos = lseek(fd, 0, SEEK_CUR);

	if (before != NULL) {
		if (pos != 0)
			return "moved the position";
		if (*after != *before + (loff_t)len)
			return "left the offset wrong";
	} else if (pos != (off_t)len)
		return "left the position wrong";
	return NULL;
}

/* One copy of copy_file_range01: NULL when right, else what went wrong. */
static const char *
copy_one(const char *src, const char *dest, size_t len, const loff_t *off_in,
    const loff_t *off_out)
{
	int in = open_or_die(src, O_RDONLY);
	int out = open_or_die(dest, O_CREAT | O_WRONLY | O_TRUNC);
	loff_t in_now = off_in ? *off_in : 0, out_now = off_out ? *off_out : 0;
	const char *wrong = NULL;
	size_t left = len;

	while (left > 0) {
		ssize_t n = copy_range(in, off_in ? &in_now : NULL, out,
		    off_out ? &out_now : NULL, left, 0);

		if (n < 0) {
			wrong = errno_name(errno);
			break;
		}
		if (n == 0) {
			wrong = "stopped short";
			break;
		}
		left -= (size_t)n;
	}
	if (wrong == NULL && !same_bytes(src, off_in, dest, off_out, len))
		wrong = "copied other bytes";
	if (wrong == NULL)
		wrong = offset_wrong(in, off_in, &in_now, len);
	if (wrong == NULL)
		wrong = offset_wrong(out, off_out, &out_now, len);
	close(in);
	close(out);
	return wrong;
}

/*
 * copy_file_range01: every length of {11, a page - 1, a page, a page + 1}
 * with every input and output offset of {none, 0, 17, a page - 1, a page,
 * a page + 1}, from file_src here to DIR/file_dest: bytes, offsets and
 * positions.  A line per wrong copy (at most 5), then "N copies, N wrong".
 */
void
cfr01(char *argv[])
{
	const loff_t page = (loff_t)page_size();
	const size_t lens[] = { 11, page - 1, page, page + 1 };
	const loff_t offs[] = { 0, 17, page - 1, page, page + 1 };
	const size_t n_offs = sizeof(offs) / sizeof(offs[0]) + 1;
	char dest[4096];
	int copies = 0, wrong = 0;

	set_variant(argv[1]);
	snprintf(dest, sizeof(dest), "%s/file_dest", argv[0]);
	make_source("file_src");
	for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
		for (size_t i = 0; i < n_offs; i++) {
			for (size_t o = 0; o < n_offs; o++) {
				const loff_t *off_in = i ? &offs[i - 1] : NULL;
				const loff_t *off_out = o ? &offs[o - 1] : NULL;
				const char *what =
				    copy_one("file_src", dest, lens[l], off_in, off_out);

				copies++;
				if (what == NULL)
					continue;
				if (++wrong <= 5)
					printf("len %zu, in offset %lld, out offset %lld: %s\n",
					    lens[l], off_in ? (long long)*off_in : -1LL,
					    off_out ? (long long)*off_out : -1LL, what);
			}
		}
	}
	printf("%d copies, %d wrong\n", copies, wrong);
}

/*
 * One line of content from a fresh file_src here to DEST, once: LTP's test
 * of whether the kernel copies across file systems.  "ANSWER".
 */
void
cfr_once(char *argv[])
{
	int in, out;

	set_variant(argv[1]);
	make_source("file_src");
	in = open_or_die("file_src", O_RDONLY);
	out = open_or_die(argv[0], O_RDWR | O_CREAT | O_TRUNC);
	answer_line(copy_range(in, NULL, out, NULL, CONTENT_BYTES, 0));
}

/*
 * with-tmpfs DIR CMD [ARG]...: runs CMD in a mount namespace of its own
 * where a fresh tmpfs is mounted on DIR (made if missing): another file
 * system, which the rest of the machine never sees.  Says "no tmpfs: ERRNO"
 * and exits 0 where this process cannot (no CAP_SYS_ADMIN).
 */
void
with_tmpfs(char *argv[])
{
	if (mkdir(argv[0], 0755) < 0 && errno != EEXIST)
		die("mkdir %s", argv[0]);
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("splice-probe", argv[0], "tmpfs", 0, "size=64m") < 0) {
		printf("no tmpfs: %s\n", errno_name(errno));
		return;
	}
	fflush(stdout);
	execvp(argv[1], argv + 1);
	die("%s", argv[1]);
}

/* ---- copy_file_range02 ------------------------------------------------------- */

enum cfr_fault {
	C_RDONLY, C_DIR, C_APPEND, C_CLOSED, C_FLAGS, C_IMMUTABLE, C_SWAPFILE, C_OVERLAP,
	C_BLKDEV, C_CHRDEV, C_FIFO, C_PIPE, C_MAX_LENGTH, C_MAX_FILE_SIZE, C_COUNT
};

static const char *const cfr_fault_names[C_COUNT] = {
	[C_RDONLY] = "rdonly", [C_DIR] = "dir", [C_APPEND] = "append", [C_CLOSED] = "closed",
	[C_FLAGS] = "flags", [C_IMMUTABLE] = "immutable", [C_SWAPFILE] = "swapfile",
	[C_OVERLAP] = "overlap", [C_BLKDEV] = "blkdev", [C_CHRDEV] = "chrdev",
	[C_FIFO] = "fifo", [C_PIPE] = "pipe", [C_MAX_LENGTH] = "max-length",
	[C_MAX_FILE_SIZE] = "max-file-size",
};

/* FS_IMMUTABLE_FL on or off; false where the file system or the caller cannot. */
static bool
set_immutable(int fd, bool on)
{
	int attr = 0;

	if (ioctl(fd, FS_IOC_GETFLAGS, &attr) < 0)
		return false;
	attr = on ? attr | FS_IMMUTABLE_FL : attr & ~FS_IMMUTABLE_FL;
	return ioctl(fd, FS_IOC_SETFLAGS, &attr) == 0;
}

/*
 * A 10-page swap file at path, swapped on: what mkswap(8) writes (version
 * 1, its last page, the signature at the end of the first page), by hand.
 */
static bool
swap_on(const char *path)
{
	const size_t page = page_size(), len = 10 * page;
	char *buf = pages(len);
	uint32_t header[3] = { 1, 10 - 1, 0 };
	int fd;

	memcpy(buf + 1024, header, sizeof(header));
	memcpy(buf + page - 10, "SWAPSPACE2", 10);
	fd = open_or_die(path, O_RDWR | O_CREAT | O_TRUNC);
	if (fchmod(fd, 0600) < 0)
		die("chmod %s", path);
	write_or_die(fd, buf, len);
	if (fsync(fd) < 0)
		die("fsync %s", path);
	close(fd);
	return swapon(path, 0) == 0;
}

/* A free loop device, opened for writing; -1 where there is none. */
static int
free_loop_device(void)
{
	char path[64];
	int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC), nr, fd;

	if (ctl < 0)
		return -1;
	nr = ioctl(ctl, LOOP_CTL_GET_FREE);
	close(ctl);
	if (nr < 0)
		return -1;
	snprintf(path, sizeof(path), "/dev/loop%d", nr);
	fd = open(path, O_RDWR | O_CLOEXEC);
	return fd;
}

/*
 * One of copy_file_range02's refusals, from a file holding the line of
 * content: "ANSWER", or "unsupported: WHY" where this system cannot make
 * the descriptor (no chattr +i, no swap file, no loop device here).
 */
static void
cfr02_one(enum cfr_fault k)
{
	size_t len = CONTENT_BYTES;
	unsigned int flags = 0;
	loff_t dst = 0;
	int src, to = -1, p[2] = { -1, -1 };
	long n;

	spit("file_src", content, CONTENT_BYTES);
	src = open_or_die("file_src", O_RDONLY);
	switch (k) {
	case C_RDONLY:
		to = open_or_die("file_rdonly", O_RDONLY | O_CREAT);
		break;
	case C_DIR:
		if (mkdir("file_dir", 0755) < 0 && errno != EEXIST)
			die("mkdir file_dir");
		to = open_or_die("file_dir", O_DIRECTORY | O_RDONLY);
		break;
	case C_APPEND:
		to = open_or_die("file_dest", O_RDWR | O_CREAT | O_APPEND);
		break;
	case C_CLOSED:
		to = -1;
		break;
	case C_FLAGS:
		to = open_or_die("file_dest", O_RDWR | O_CREAT);
		flags = (unsigned int)-1;
		break;
	case C_IMMUTABLE:
		to = open_or_die("file_immutable", O_RDWR | O_CREAT);
		if (!set_immutable(to, true)) {
			printf("unsupported: chattr +i: %s", errno_name(errno));
			close(to);
			close(src);
			return;
		}
		break;
	case C_SWAPFILE:
		if (!swap_on("file_swap")) {
			printf("unsupported: swapon: %s", errno_name(errno));
			close(src);
			return;
		}
		to = open_or_die("file_swap", O_RDWR);
		break;
	case C_OVERLAP:
		to = open_or_die("file_src", O_WRONLY);
		len = CONTENT_BYTES / 2;
		break;
	case C_BLKDEV:
		if ((to = free_loop_device()) < 0) {
			printf("unsupported: no free loop device: %s", errno_name(errno));
			close(src);
			return;
		}
		break;
	case C_CHRDEV:
		to = open_or_die("/dev/null", O_RDWR);
		break;
	case C_FIFO:
		if (mkfifo("file_fifo", 0644) < 0 && errno != EEXIST)
			die("mkfifo");
		to = open_or_die("file_fifo", O_RDWR);
		break;
	case C_PIPE:
		make_pipe(p);
		to = p[0];
		break;
	case C_MAX_LENGTH:
	case C_MAX_FILE_SIZE:
		to = open_or_die("file_copy", O_RDWR | O_CREAT | O_TRUNC);
		dst = LLONG_MAX;
		len = k == C_MAX_LENGTH ? SIZE_MAX : 65537;
		break;
	case C_COUNT:
		break;
	}
	n = copy_range(src, NULL, to, &dst, len, flags);
	result(n, errno);
	if (k == C_IMMUTABLE && !set_immutable(to, false))
		die("chattr -i file_immutable");
	if (k == C_SWAPFILE && swapoff("file_swap") < 0)
		die("swapoff file_swap");
	close(src);
	close(to);
	close(p[1]);
}

/* copy_file_range02: each refusal, a line each: "KIND: ANSWER". */
void
cfr02(char *argv[])
{
	set_variant(argv[0]);
	for (int k = 0; k < C_COUNT; k++) {
		printf("%s: ", cfr_fault_names[k]);
		cfr02_one((enum cfr_fault)k);
		putchar('\n');
	}
}

/* ---- copy_file_range03 ------------------------------------------------------- */

/*
 * copy_file_range03: a copy updates the output's modification time.  Its
 * time is set an hour back first (no sleeping), then a line is copied:
 * "ANSWER mtime updated", or how far from now the time was left.
 */
void
cfr03(char *argv[])
{
	struct timespec before, after, hour_ago[2];
	struct stat st;
	loff_t off = 0;
	int in, out;
	long n;

	set_variant(argv[0]);
	spit("file_src", content, CONTENT_BYTES);
	in = open_or_die("file_src", O_RDONLY);
	out = open_or_die("file_dest", O_RDWR | O_CREAT | O_TRUNC);
	if (clock_gettime(CLOCK_REALTIME, &before) < 0)
		die("clock_gettime");
	hour_ago[0] = hour_ago[1] = (struct timespec){ .tv_sec = before.tv_sec - 3600 };
	if (futimens(out, hour_ago) < 0)
		die("futimens");
	n = copy_range(in, &off, out, NULL, CONTENT_BYTES, 0);
	result(n, errno);
	if (fstat(out, &st) < 0 || clock_gettime(CLOCK_REALTIME, &after) < 0)
		die("fstat");
	/* File times come from a coarse clock: up to a tick behind "before". */
	if (st.st_mtim.tv_sec >= before.tv_sec - 1 && st.st_mtim.tv_sec <= after.tv_sec)
		printf(" mtime updated\n");
	else
		printf(" mtime %+lld s from now\n", (long long)(st.st_mtim.tv_sec - after.tv_sec));
}
