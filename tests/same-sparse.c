/*
 * same-sparse A B: cmp(1) for files with holes.  Exit 0 when A and B hold
 * the same bytes, 1 (naming the first byte that differs, 1-based, as cmp
 * does) when they do not, 2 on trouble.  Only the ranges where either file
 * holds data (SEEK_DATA, SEEK_HOLE) are read: a hole reads as zeros in
 * both, and reading a 1 GiB hole costs the kernel a zeroed page a page.
 * Where the file system keeps no holes, everything is data and read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK (1 << 20)

static char buf_a[CHUNK], buf_b[CHUNK];

/* Where the data at or after OFF starts, or SIZE when none does. */
static off_t
data_from(int fd, off_t off, off_t size)
{
	off_t at = lseek(fd, off, SEEK_DATA);

	if (at < 0)
		return errno == ENXIO ? size : off;
	return at;
}

/* Where the hole at or after OFF starts (SIZE at the latest). */
static off_t
hole_from(int fd, off_t off, off_t size)
{
	off_t at = lseek(fd, off, SEEK_HOLE);

	return at < 0 || at > size ? size : at;
}

/* Reads LEN bytes at OFF of FD into BUF: 0, or -1 with a message. */
static int
read_at(int fd, const char *name, char *buf, size_t len, off_t off)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = pread(fd, buf + got, len - got, off + (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "same-sparse: %s: %s\n", name,
			    n < 0 ? strerror(errno) : "shorter than its size");
			return -1;
		}
		got += (size_t)n;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct stat st_a, st_b;
	off_t size, off = 0;
	int a, b;

	if (argc != 3) {
		fprintf(stderr, "usage: same-sparse A B\n");
		return 2;
	}
	a = open(argv[1], O_RDONLY);
	b = open(argv[2], O_RDONLY);
	if (a < 0 || b < 0 || fstat(a, &st_a) < 0 || fstat(b, &st_b) < 0) {
		fprintf(stderr, "same-sparse: %s: %s\n", argv[a < 0 ? 1 : 2], strerror(errno));
		return 2;
	}
	if (st_a.st_size != st_b.st_size) {
		printf("%s %s differ: sizes %lld and %lld\n", argv[1], argv[2],
		    (long long)st_a.st_size, (long long)st_b.st_size);
		return 1;
	}
	size = st_a.st_size;
	while (off < size) {
		off_t da = data_from(a, off, size), db = data_from(b, off, size);
		off_t ha, hb, end;

		off = da < db ? da : db;
		if (off >= size)
			break;
		/* One of them holds data at OFF: read to where both are holes. */
		ha = hole_from(a, off, size);
		hb = hole_from(b, off, size);
		end = ha > hb ? ha : hb;
		while (off < end) {
			size_t len = end - off < CHUNK ? (size_t)(end - off) : CHUNK;

			if (read_at(a, argv[1], buf_a, len, off) < 0 ||
			    read_at(b, argv[2], buf_b, len, off) < 0)
				return 2;
			if (memcmp(buf_a, buf_b, len) != 0) {
				size_t i = 0;

				while (buf_a[i] == buf_b[i])
					i++;
				printf("%s %s differ: byte %lld\n", argv[1], argv[2],
				    (long long)(off + (off_t)i + 1));
				return 1;
			}
			off += (off_t)len;
		}
	}
	return 0;
}
