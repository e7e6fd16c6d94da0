/*
 * Fuzz target for parse_size(): whatever the text, it returns a value or a
 * clean error, and a value it returns reads back as itself.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splice.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
noreturn void fuzz_exit(int status);

/* splice.c is built with exit() renamed; parsing a size must never exit. */
noreturn void
fuzz_exit(int status)
{
	(void)status;
	abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char text[64], again[32];
	uint64_t bytes, reread;

	if (size >= sizeof(text))
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (parse_size(text, &bytes) < 0) {
		if (errno != EINVAL && errno != ERANGE)
			abort();
		return 0;
	}
	/* A number with no suffix is exactly itself. */
	if (strspn(text, "0123456789") == size &&
	    bytes != strtoull(text, NULL, 10))
		abort();
	snprintf(again, sizeof(again), "%" PRIu64, bytes);
	if (parse_size(again, &reread) < 0 || reread != bytes)
		abort();
	return 0;
}
