/*
 * bench/data.c: the reference stream every case sends, the files made of it,
 * the pieces of the input file a method asks for, and the checks of what
 * arrived against the reference.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "splice.h"
#include "bench.h"

/*
 * The reference stream, and the data the producers send: the same bytes,
 * but with corrupt, one byte changed where every checked run of run_bytes
 * (0: the default sizes) still carries it.  And /dev/null, for the
 * consumers that discard.
 */
int
data_make(struct bench_data *d, bool corrupt, uint64_t run_bytes)
{
	/* A fresh stream every time the tool runs. */
	const struct pattern stream = {
		.kind = PAT_RANDOM, .seed = (uint64_t)getpid() ^ (uint64_t)time(NULL),
	};

	d->pattern = map_region(PATTERN_BYTES, false);
	d->data = map_region(PATTERN_BYTES, false);
	d->huge_data = map_region(PATTERN_BYTES, true);
	if (d->pattern == NULL || d->data == NULL || d->huge_data == NULL) {
		warn_errno("mmap");
		return -1;
	}
	pattern_fill(&stream, 0, d->pattern, PATTERN_BYTES);
	memcpy(d->data, d->pattern, PATTERN_BYTES);
	if (corrupt) {
		uint64_t at = PATTERN_BYTES / 2 + 1;

		if (run_bytes > 0 && run_bytes / 2 < at)
			at = run_bytes / 2;
		d->data[at] ^= 0x40;
	}
	memcpy(d->huge_data, d->data, PATTERN_BYTES);
	if ((d->devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0) {
		warn_errno("/dev/null");
		return -1;
	}
	return 0;
}

/* The input file of d->file_bytes and the copy's file, both in dir, unlinked. */
int
files_make(struct bench_data *d, const char *dir)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/splice-bench.XXXXXX", dir);
	if ((d->file_fd = mkstemp(path)) < 0) {
		warn_errno("%s", path);
		return -1;
	}
	unlink(path);
	/* The input: the data repeated, written once, read from the page cache. */
	for (uint64_t off = 0; off < d->file_bytes; off += PATTERN_BYTES)
		if (write_all(d->file_fd, d->data, PATTERN_BYTES) < 0) {
			warn_errno("%s: writing the test file", dir);
			return -1;
		}
	snprintf(path, sizeof(path), "%s/splice-bench.XXXXXX", dir);
	if ((d->out_fd = mkstemp(path)) < 0) {
		warn_errno("%s", path);
		return -1;
	}
	unlink(path);
	return 0;
}

int
fail_call(const struct stage *s, const char *call)
{
	warn_errno("%s: %s", s->bc->name, call);
	return -1;
}

/*
 * The length of the next piece of the input file for a stage that has moved
 * done of its s->bytes: at most limit bytes from *off, which wraps to the
 * start at the end of the file (a run longer than the file passes over it
 * again).
 */
size_t
file_piece(const struct stage *s, uint64_t done, loff_t *off, size_t limit)
{
	uint64_t file_bytes = s->d->file_bytes;

	if ((uint64_t)*off == file_bytes)
		*off = 0;
	return min_size(s->bytes - done, min_size(limit, file_bytes - (uint64_t)*off));
}

/* Compares n bytes at stream offset *offset with the pattern; says where it differs. */
int
check_bytes(const struct stage *s, uint64_t *offset, const unsigned char *buf, size_t n)
{
	const unsigned char *pattern = s->d->pattern;

	while (n > 0) {
		size_t pos = (size_t)(*offset % PATTERN_BYTES), len = PATTERN_BYTES - pos;

		if (len > n)
			len = n;
		if (memcmp(buf, pattern + pos, len) != 0) {
			size_t i = 0;

			while (buf[i] == pattern[pos + i])
				i++;
			warn_msg("%s: wrong byte at offset %llu: 0x%02x, expected 0x%02x",
			    s->bc->name, (unsigned long long)*offset + i, buf[i],
			    pattern[pos + i]);
			return -1;
		}
		buf += len;
		n -= len;
		*offset += len;
	}
	return 0;
}

int
check_count(const struct stage *s, uint64_t got)
{
	if (got == s->bytes)
		return 0;
	warn_msg("%s: %llu bytes arrived, %llu were sent", s->bc->name,
	    (unsigned long long)got, (unsigned long long)s->bytes);
	return -1;
}

/* The output file holds the input's first min(run, file) bytes, no more. */
int
check_output_file(const struct stage *s)
{
	static unsigned char buf[RW_BUFFER_BYTES];
	uint64_t file_bytes = s->d->file_bytes, off = 0;
	uint64_t want = s->bytes < file_bytes ? s->bytes : file_bytes;
	off_t end = lseek(s->d->out_fd, 0, SEEK_END);

	if (end < 0 || (uint64_t)end != want) {
		warn_msg("%s: the copy has %lld bytes, expected %llu", s->bc->name,
		    (long long)end, (unsigned long long)want);
		return -1;
	}
	while (off < want) {
		ssize_t n = pread(s->d->out_fd, buf, min_size(sizeof(buf), want - off),
		    (off_t)off);

		if (n <= 0) {
			warn_errno("%s: reading the copy back", s->bc->name);
			return -1;
		}
		if (check_bytes(s, &off, buf, (size_t)n) < 0)
			return -1;
	}
	return 0;
}
