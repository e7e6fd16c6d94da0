/*
 * cow.c: the copy-on-write leak through vmsplice(2), CVE-2020-29374, as
 * the kernel's tools/testing/selftests/mm/cow.c asks it.  A page shared
 * copy-on-write by a parent and a child is vmspliced into a pipe by one of
 * them, which then unmaps it; the other writes its copy.  The pipe's reader
 * must see the old bytes: the write went to a copy of its own.  On a kernel
 * with the bug the write lands in the page the pipe holds, and the reader
 * sees the new bytes.  MAP_SHARED memory is the control: there the write is
 * meant to be seen, so a probe that answers "new" for it can see a leak.
 * cow.c asks it of a base page, of a transparent huge page in five shapes
 * and of a hugetlb page; so does this file.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe.h"

enum shape { BASE, THP, THP_PTE, THP_SINGLE, THP_MREMAP, THP_SHARED, HUGETLB, SHARED };
enum way { CHILD_UNMAP, CHILD_UNMAP_MPROTECT, BEFORE_FORK, PARENT_AFTER_FORK };

/* The AnonHugePages of the mapping that holds addr, from /proc/self/smaps (kB). */
static long
anon_huge_kb(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[256];
	bool in = false;
	long kb = -1;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned long lo, hi;

		/* A mapping's first line; its fields ("AnonHugePages:") do not parse so. */
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			in = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
			continue;
		}
		if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

/* The size of a PMD-mapped transparent huge page: 2 MiB unless sysfs says. */
static size_t
thp_bytes(void)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "r");
	unsigned long bytes = 0;

	if (f != NULL) {
		if (fscanf(f, "%lu", &bytes) != 1)
			bytes = 0;
		fclose(f);
	}
	return bytes > 0 ? bytes : 2UL << 20;
}

/* A field of /proc/meminfo ("HugePages_Free", "Hugepagesize"); -1 when absent. */
static long
meminfo(const char *field)
{
	FILE *f = fopen("/proc/meminfo", "r");
	size_t flen = strlen(field);
	char line[256];
	long value = -1;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, field, flen) == 0 && line[flen] == ':') {
			value = strtol(line + flen + 1, NULL, 10);
			break;
		}
	fclose(f);
	return value;
}

/*
 * A hugetlb page, private, filled with 'A'; NULL unless two are free: the
 * write after fork() takes a second one for its copy (without it, SIGBUS).
 */
static char *
hugetlb_memory(size_t *maplen)
{
	long kb = meminfo("Hugepagesize");
	char *mem;

	if (kb <= 0 || meminfo("HugePages_Free") < 2)
		return NULL;
	*maplen = (size_t)kb * 1024;
	mem = mmap(NULL, *maplen, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (mem == MAP_FAILED)
		return NULL;
	memset(mem, 'A', *maplen);
	return mem;
}

/*
 * The memory of SHAPE, filled with 'A': a base page; the first base page
 * of a transparent huge page mapped by a PMD, by PTEs, by that one PTE
 * alone, with its second half mremap()ed away, or with that page alone
 * once shared with a child that left (NULL when none could be had); a
 * hugetlb page (NULL when none is free); or a shared page.
 */
static char *
cow_memory(enum shape shape, size_t *maplen)
{
	const size_t page = page_size(), thp = thp_bytes();
	char *mem, *away;
	pid_t pid;

	if (shape == HUGETLB)
		return hugetlb_memory(maplen);
	if (shape == BASE || shape == SHARED) {
		*maplen = page;
		mem = mmap(NULL, page, PROT_READ | PROT_WRITE,
		    (shape == SHARED ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS, -1, 0);
		if (mem == MAP_FAILED)
			die("mmap");
		memset(mem, 'A', page);
		return mem;
	}
	/* 512 MiB with 64 KiB pages: more than a small guest should fill. */
	if (thp > (32UL << 20))
		return NULL;
	/* Twice the size, then the aligned half: a PMD can map it. */
	*maplen = 2 * thp;
	mem = mmap(NULL, *maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		die("mmap");
	mem = (char *)(((uintptr_t)mem + thp - 1) & ~(thp - 1));
	if (madvise(mem, thp, MADV_HUGEPAGE) < 0)
		return NULL;
	memset(mem, 'A', thp);
	if (anon_huge_kb(mem) < (long)(thp / 1024))
		return NULL;
	/* PTE-mapped: a protection change on one subpage splits the PMD mapping. */
	if (shape == THP_PTE && (mprotect(mem + page, page, PROT_READ) < 0 ||
	    mprotect(mem + page, page, PROT_READ | PROT_WRITE) < 0))
		die("mprotect");
	/* A single PTE: every other subpage zapped; the huge page stays behind it. */
	if (shape == THP_SINGLE && madvise(mem + page, thp - page, MADV_DONTNEED) < 0)
		die("MADV_DONTNEED");
	/* The second half moved to a place of its own: the PMD splits, the page stays. */
	if (shape == THP_MREMAP) {
		away = mmap(NULL, thp / 2, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (away == MAP_FAILED ||
		    mremap(mem + thp / 2, thp / 2, thp / 2, MREMAP_MAYMOVE | MREMAP_FIXED,
		    away) == MAP_FAILED)
			die("mremap");
	}
	/* The first page shared with a child that left; the rest never was. */
	if (shape == THP_SHARED) {
		if (madvise(mem + page, thp - page, MADV_DONTFORK) < 0)
			die("MADV_DONTFORK");
		if ((pid = fork_or_die()) == 0)
			_exit(0);
		if (waitpid(pid, NULL, 0) < 0 || madvise(mem + page, thp - page, MADV_DOFORK) < 0)
			die("MADV_DOFORK");
	}
	return mem;
}

/* What len bytes read from fd hold: "old" (all 'A'), "new" (all 'B'), else "mixed". */
static const char *
verdict(int fd, size_t len)
{
	char *got = pages(len);
	size_t old = 0, new = 0;

	read_exactly(fd, got, len);
	for (size_t i = 0; i < len; i++) {
		old += got[i] == 'A';
		new += got[i] == 'B';
	}
	return old == len ? "old" : new == len ? "new" : "mixed";
}

/* One byte on fd, or die: the other process's step is done. */
static void
step_done(int fd)
{
	write_or_die(fd, "x", 1);
}

static void
step_wait(int fd)
{
	char c;

	read_exactly(fd, &c, 1);
}

/*
 * cow-vmsplice SHAPE WAY: SHAPE base, thp (PMD-mapped), thp-pte (PTE-mapped),
 * thp-single (one PTE left of it), thp-mremap (half of it moved),
 * thp-shared (one page of it shared), hugetlb or shared (the control); WAY
 * child-unmap (the child vmsplices and unmaps, the parent writes),
 * child-unmap-mprotect (the same, the parent's mapping made read-only and
 * writable again first: the mprotect() optimisation), before-fork (the
 * parent vmsplices before fork(), unmaps after it; the child writes),
 * parent-after-fork (the parent vmsplices after fork() and unmaps; the
 * child writes).  Prints what the pipe's reader saw: old, new or mixed;
 * "nothp" when no transparent huge page could be had, "nohugetlb" when
 * two hugetlb pages were not free.
 */
void
cow_vmsplice(char *argv[])
{
	static const char *const shapes[] = { "base", "thp", "thp-pte", "thp-single",
		"thp-mremap", "thp-shared", "hugetlb", "shared" };
	static const char *const ways[] = { "child-unmap", "child-unmap-mprotect", "before-fork",
		"parent-after-fork" };
	enum shape shape = (enum shape)pick("cow-vmsplice", argv[0], shapes, 8);
	enum way way = (enum way)pick("cow-vmsplice", argv[1], ways, 4);
	const size_t len = page_size();
	size_t maplen, span;
	char *mem = cow_memory(shape, &maplen);
	struct iovec iov;
	int p[2], to_child[2], to_parent[2], verdicts[2];
	char said[16] = "";
	pid_t pid;
	int status;

	if (mem == NULL) {
		printf(shape == HUGETLB ? "nohugetlb\n" : "nothp\n");
		return;
	}
	/* A hugetlb mapping is unmapped and protected whole. */
	span = shape == HUGETLB ? maplen : len;
	iov = (struct iovec){ .iov_base = mem, .iov_len = len };
	make_pipe(p);
	make_pipe(to_child);
	make_pipe(to_parent);
	make_pipe(verdicts);
	if (way == BEFORE_FORK && vmsplice(p[1], &iov, 1, 0) != (ssize_t)len)
		die("vmsplice");
	pid = fork_or_die();
	if (pid == 0) {
		if (way == CHILD_UNMAP || way == CHILD_UNMAP_MPROTECT) {
			/* The child pins, unmaps, then reads what the parent's write left. */
			if (vmsplice(p[1], &iov, 1, 0) != (ssize_t)len)
				_exit(1);
			if (munmap(mem, span) < 0)
				_exit(1);
			step_done(to_parent[1]);
			step_wait(to_child[0]);
			snprintf(said, sizeof(said), "%s", verdict(p[0], len));
			write_or_die(verdicts[1], said, strlen(said));
			_exit(0);
		}
		/* The parent pins and unmaps; then this child writes its copy. */
		step_wait(to_child[0]);
		memset(mem, 'B', len);
		step_done(to_parent[1]);
		_exit(0);
	}
	if (way == CHILD_UNMAP || way == CHILD_UNMAP_MPROTECT) {
		step_wait(to_parent[0]);
		if (way == CHILD_UNMAP_MPROTECT &&
		    (mprotect(mem, span, PROT_READ) < 0 ||
		    mprotect(mem, span, PROT_READ | PROT_WRITE) < 0))
			die("mprotect");
		memset(mem, 'B', len);
		step_done(to_child[1]);
		close(verdicts[1]);
		if (read(verdicts[0], said, sizeof(said) - 1) <= 0)
			die("the child said nothing");
	} else {
		if (way == PARENT_AFTER_FORK && vmsplice(p[1], &iov, 1, 0) != (ssize_t)len)
			die("vmsplice");
		if (munmap(mem, span) < 0)
			die("munmap");
		step_done(to_child[1]);
		step_wait(to_parent[0]);
		snprintf(said, sizeof(said), "%s", verdict(p[0], len));
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		die("the child failed");
	printf("%s\n", said);
}
