/*
 * kmsg.c: the kernel log, read from /dev/kmsg by sequence number, so that
 * a case sees exactly the records logged while it ran, whoever else logs.
 * Each record reads as "PRIO,SEQ,USEC,FLAGS[,...];TEXT" then "\n KEY=VALUE"
 * lines (Documentation/ABI/testing/dev-kmsg).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe.h"

struct kmsg_record {
	unsigned int level;
	unsigned long long seq;
	const char *text;
	size_t text_len;
};

/* The next record; false at the end of the log (or where it cannot be read). */
static bool
next_record(int fd, char *buf, size_t size, struct kmsg_record *r, unsigned long long *lost)
{
	for (;;) {
		ssize_t n = read(fd, buf, size - 1);
		char *semi, *end;
		unsigned int prio;

		if (n < 0 && errno == EINTR)
			continue;
		/* Overwritten while we read: reading goes on at the oldest left. */
		if (n < 0 && errno == EPIPE) {
			(*lost)++;
			continue;
		}
		if (n <= 0)
			return false;
		buf[n] = '\0';
		semi = strchr(buf, ';');
		if (semi == NULL || sscanf(buf, "%u,%llu,", &prio, &r->seq) != 2)
			continue;
		r->level = prio & 7;
		r->text = semi + 1;
		end = strchr(semi + 1, '\n');
		r->text_len = end ? (size_t)(end - (semi + 1)) : strlen(semi + 1);
		return true;
	}
}

/* /dev/kmsg, from its oldest record; -1 with errno where it cannot be read. */
static int
open_kmsg(void)
{
	return open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
}

/* The sequence number of the newest record: "seq N", or why not: the errno. */
void
kmsg_last(char *argv[])
{
	static char buf[8192];
	struct kmsg_record r = { .seq = 0 };
	unsigned long long lost = 0, last = 0;
	bool any = false;
	int fd = open_kmsg();

	(void)argv;
	if (fd < 0) {
		result_line(-1, errno);
		return;
	}
	while (next_record(fd, buf, sizeof(buf), &r, &lost)) {
		last = r.seq;
		any = true;
	}
	if (!any && errno != EAGAIN) {
		result_line(-1, errno);
		return;
	}
	printf("seq %llu\n", last);
}

/*
 * Every record after number SEQ, one a line: "LEVEL TEXT" (0 emergency ...
 * 7 debug).  When records after SEQ are gone (the log wrapped), a first
 * line "- records lost" says so.
 */
void
kmsg_since(char *argv[])
{
	static char buf[8192];
	unsigned long long since = number_arg(argv[0], ~0ULL), lost = 0;
	struct kmsg_record r;
	bool first = true;
	int fd = open_kmsg();

	if (fd < 0)
		die("/dev/kmsg");
	while (next_record(fd, buf, sizeof(buf), &r, &lost)) {
		if (first && r.seq > since + 1)
			printf("- records lost\n");
		first = false;
		if (r.seq > since)
			printf("%u %.*s\n", r.level, (int)r.text_len, r.text);
	}
	if (lost)
		printf("- records lost\n");
}
