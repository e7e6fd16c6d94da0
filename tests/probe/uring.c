/*
 * uring.c: splice and tee through io_uring (IORING_OP_SPLICE, IORING_OP_TEE),
 * as liburing's test/splice.c asks them, by raw system calls: one ring, one
 * request at a time.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "probe.h"

struct ring {
	int fd;
	unsigned int *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

/* A ring of 4 entries; false (errno set) when io_uring cannot be had here. */
static bool
ring_open(struct ring *r)
{
	struct io_uring_params p;
	char *sq, *cq;

	memset(&p, 0, sizeof(p));
	r->fd = (int)syscall(__NR_io_uring_setup, 4, &p);
	if (r->fd < 0)
		return false;
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned int),
	    PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
	    PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || r->sqes == MAP_FAILED)
		die("mmap the io_uring rings");
	r->sq_tail = (unsigned int *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned int *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)(sq + p.sq_off.array);
	r->cq_head = (unsigned int *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned int *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned int *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	return true;
}

/* Submits sqe, waits for its completion: its res (a count, or -errno). */
static int
ring_run(struct ring *r, const struct io_uring_sqe *sqe)
{
	unsigned int tail = *r->sq_tail, head;
	unsigned int slot = tail & *r->sq_mask;
	int res;

	r->sqes[slot] = *sqe;
	r->sq_array[slot] = slot;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, r->fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		die("io_uring_enter");
	head = *r->cq_head;
	if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
		die("io_uring: no completion");
	res = r->cqes[head & *r->cq_mask].res;
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return res;
}

static void
say(int res)
{
	if (res < 0)
		printf("%s", errno_name(-res));
	else
		printf("ok %d", res);
}

/* The bytes a pipe holds now, read out, as text (up to 15). */
static void
say_pipe(int rd)
{
	char buf[16] = "";
	int n = 0;

	if (ioctl(rd, FIONREAD, &n) < 0 || n <= 0 || n >= (int)sizeof(buf))
		return;
	read_exactly(rd, buf, (size_t)n);
	printf(" %s", buf);
}

/*
 * uring-splice CASE: one IORING_OP_SPLICE or IORING_OP_TEE of 3 bytes.
 * file-pos: from "abcdef" at its file position 2 (offset -1): "ok 3 cde";
 * file-off: at offset 1: "ok 3 bcd"; pipe-file: a pipe's "xyz" to a file
 * at 0 (then the file's text); pipe-pipe; tee: "ok 3", the source still
 * holding its bytes ("kept xyz"); pipe-offset: an offset on a pipe
 * (ESPIPE); tee-file: tee from a file (EINVAL); fixed: file-off with the
 * file registered (SPLICE_F_FD_IN_FIXED).  "nouring" when io_uring cannot
 * be had (not built, or disabled).
 */
void
uring_splice(const char *arg)
{
	static const char *const cases[] = { "file-pos", "file-off", "pipe-file", "pipe-pipe",
		"tee", "pipe-offset", "tee-file", "fixed" };
	int c = pick("uring-splice", arg, cases, 8);
	struct io_uring_sqe sqe;
	struct ring r;
	int f, p[2], q[2], res;

	if (!ring_open(&r)) {
		printf("nouring");
		return;
	}
	f = open_or_die("probe-uring", O_RDWR | O_CREAT | O_TRUNC);
	write_or_die(f, "abcdef", 6);
	make_pipe(p);
	make_pipe(q);
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_SPLICE;
	sqe.len = 3;
	switch (c) {
	case 0:
	case 1:
	case 7:
		if (lseek(f, 2, SEEK_SET) < 0)
			die("lseek");
		sqe.splice_fd_in = f;
		sqe.splice_off_in = c == 0 ? (uint64_t)-1 : 1;
		sqe.fd = p[1];
		sqe.off = (uint64_t)-1;
		if (c == 7) {
			if (syscall(__NR_io_uring_register, r.fd, IORING_REGISTER_FILES, &f, 1) < 0)
				die("IORING_REGISTER_FILES");
			sqe.splice_fd_in = 0;
			sqe.splice_flags = SPLICE_F_FD_IN_FIXED;
		}
		res = ring_run(&r, &sqe);
		say(res);
		say_pipe(p[0]);
		break;
	case 2:
		write_or_die(p[1], "xyz", 3);
		sqe.splice_fd_in = p[0];
		sqe.splice_off_in = (uint64_t)-1;
		sqe.fd = f;
		sqe.off = 0;
		res = ring_run(&r, &sqe);
		say(res);
		{
			char buf[8] = "";

			if (pread(f, buf, 6, 0) == 6)
				printf(" %s", buf);
		}
		break;
	case 3:
	case 4:
		write_or_die(p[1], "xyz", 3);
		if (c == 4)
			sqe.opcode = IORING_OP_TEE;
		sqe.splice_fd_in = p[0];
		sqe.splice_off_in = c == 4 ? 0 : (uint64_t)-1;
		sqe.fd = q[1];
		sqe.off = c == 4 ? 0 : (uint64_t)-1;
		res = ring_run(&r, &sqe);
		say(res);
		say_pipe(q[0]);
		if (c == 4) {
			printf(" kept");
			say_pipe(p[0]);
		}
		break;
	case 5:
		write_or_die(p[1], "xyz", 3);
		sqe.splice_fd_in = p[0];
		sqe.splice_off_in = 1;
		sqe.fd = q[1];
		sqe.off = (uint64_t)-1;
		say(ring_run(&r, &sqe));
		break;
	default:
		sqe.opcode = IORING_OP_TEE;
		sqe.splice_fd_in = f;
		sqe.fd = q[1];
		say(ring_run(&r, &sqe));
	}
	close(r.fd);
}
