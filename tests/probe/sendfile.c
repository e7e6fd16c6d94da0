/*
 * sendfile.c: sendfile(2) scenarios, LTP's sendfile02-09.  splice-tonet
 * sends files with sendfile(2): its offsets, errors and positions are
 * what these check.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probe.h"

/*
 * sendfile02, 06, 09: sendfile(OUT, IN, &OFFSET, COUNT) ("null": no offset,
 * from IN's position).  "ANSWER offset NEW pos POS": the offset it left,
 * and IN's position afterwards, which an offset must leave where it was.
 */
void
sendfile_at(char *argv[])
{
	int in = open_or_die(argv[0], O_RDONLY);
	int out = open_or_die(argv[1], O_WRONLY);
	size_t count = (size_t)number_arg(argv[3], INT64_MAX);
	bool null_offset = strcmp(argv[2], "null") == 0;
	off_t off = null_offset ? 0 : (off_t)number_arg(argv[2], INT64_MAX);
	ssize_t n;

	n = sendfile(out, in, null_offset ? NULL : &off, count);
	result(n, errno);
	if (!null_offset)
		printf(" offset %lld", (long long)off);
	printf(" pos %lld\n", (long long)lseek(in, 0, SEEK_CUR));
}

/*
 * sendfile09's input: a sparse FILE of MIB mebibytes whose every mebibyte
 * ends in a 'C'.
 */
void
sendfile_sparse(char *argv[])
{
	int fd = open_or_die(argv[0], O_WRONLY | O_CREAT | O_TRUNC);
	uint64_t mib = number_arg(argv[1], 1 << 20);

	for (uint64_t i = 1; i <= mib; i++)
		if (pwrite(fd, "C", 1, (off_t)(i << 20) - 1) != 1)
			die("pwrite at %llu MiB", (unsigned long long)i);
	if (close(fd) < 0)
		die("%s", argv[0]);
}

/* sendfile03: EBADF for a bad or read-only output, a bad or write-only input. */
void
sendfile03(const char *kind)
{
	static const char *const kinds[] = { "out-bad", "out-rdonly", "in-bad", "in-wronly" };
	int k = pick("sendfile03", kind, kinds, 4);
	int in = open_or_die("in_file", O_RDONLY | O_CREAT);
	int out = open_or_die("out_file", O_WRONLY | O_CREAT | O_TRUNC);
	static const int bad = -1;
	const int ins[] = { in, in, bad, out }, outs[] = { bad, in, out, out };

	answer(sendfile(outs[k], ins[k], NULL, 1));
	close(in);
	close(out);
}

/* sendfile04: EFAULT for an offset in memory that cannot be written. */
void
sendfile04(const char *kind)
{
	static const char *const kinds[] = { "none", "read", "exec", "read-exec", "unmapped" };
	static const int prots[] = {
		PROT_NONE, PROT_READ, PROT_EXEC, PROT_EXEC | PROT_READ, PROT_READ | PROT_WRITE
	};
	int k = pick("sendfile04", kind, kinds, 5);
	int in = open_or_die("in_file", O_RDWR | O_CREAT);
	int out = open_or_die("out_file", O_WRONLY | O_CREAT | O_TRUNC);
	off_t *off = mmap(NULL, sizeof(*off), prots[k], MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (off == MAP_FAILED)
		die("mmap");
	if (k == 4 && munmap(off, sizeof(*off)) < 0)
		die("munmap");
	answer(sendfile(out, in, off, 1));
	close(in);
	close(out);
}

/* sendfile05: EINVAL for an offset of -1. */
void
sendfile05(char *argv[])
{
	int in = open_or_die("in_file", O_RDWR | O_CREAT);
	int out = open_or_die("out_file", O_WRONLY | O_CREAT | O_TRUNC);
	off_t off = -1;

	(void)argv;
	answer_line(sendfile(out, in, &off, 1));
}

/*
 * sendfile07: EAGAIN into a full non-blocking socket (a datagram socket
 * pair, filled with one-byte datagrams until it says EAGAIN).
 */
void
sendfile07(char *argv[])
{
	int in, sv[2];
	long sent = 0;

	(void)argv;
	spit("in_file", "aaaaaaaaaa", 10);
	in = open_or_die("in_file", O_RDONLY);
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0)
		die("socketpair");
	while (write(sv[1], "a", 1) == 1)
		if (++sent > 0xfffffff)
			die("no EAGAIN after %ld datagrams", sent);
	if (errno != EAGAIN)
		die("filling the socket");
	answer_line(sendfile(sv[1], in, NULL, 1));
}

/*
 * sendfile08: OUT holds "hello" and its position is past it; sendfile
 * without an offset from IN (which holds "world") must write at OUT's
 * position, not at IN's: the caller then finds "helloworld".
 */
void
sendfile08(char *argv[])
{
	int in = open_or_die(argv[0], O_RDONLY);
	int out = open_or_die(argv[1], O_RDWR | O_CREAT | O_TRUNC);

	write_or_die(out, "hello", 5);
	answer_line(sendfile(out, in, NULL, 5));
}
