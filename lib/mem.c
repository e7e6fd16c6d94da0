/*
 * mem.c: fresh anonymous memory, 2 MiB-aligned for huge pages on request,
 * and sizes rounded up to whole pages or units.  See splice.h.
 */
#include <stdint.h>
#include <sys/mman.h>

#include "internal.h"

void *
map_region(size_t size, bool huge)
{
	size_t extra = huge ? HUGE_PAGE_BYTES : 0;
	char *base = mmap(NULL, size + extra, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *start;

	if (base == MAP_FAILED)
		return NULL;
	if (!huge)
		return base;
	start = (char *)(((uintptr_t)base + HUGE_PAGE_BYTES - 1) & ~(HUGE_PAGE_BYTES - 1));
	if (start > base)
		munmap(base, (size_t)(start - base));
	if (start + size < base + size + extra)
		munmap(start + size, (size_t)(base + size + extra - (start + size)));
	/* Where THP is off, 4 KiB pages: slower, the same bytes. */
	(void)madvise(start, size, MADV_HUGEPAGE);
	return start;
}

size_t
round_up(size_t n, size_t unit)
{
	return (n + unit - 1) / unit * unit;
}
