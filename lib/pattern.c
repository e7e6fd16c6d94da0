/*
 * pattern.c: the byte patterns vmsplice writes and vmsplice-touser checks.  See splice.h.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splice.h"

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

/* Decimal, or hexadecimal after 0x: a leading 0 is not octal. */
static int
number_base(const char *digits)
{
	return digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X') ? 16 : 10;
}

void
pattern_parse(const char *opt, const char *arg, struct pattern *p)
{
	const char *colon = strchr(arg, ':');
	size_t name_len = colon ? (size_t)(colon - arg) : strlen(arg);
	char *end;

	memset(p, 0, sizeof(*p));
	if (strcmp(arg, "zero") == 0)
		p->kind = PAT_ZERO;
	else if (strcmp(arg, "ramp") == 0)
		p->kind = PAT_RAMP;
	else if (strcmp(arg, "seq") == 0)
		p->kind = PAT_SEQ;
	else if (strcmp(arg, "random") == 0)
		p->kind = PAT_RANDOM;
	else if (colon && name_len == 4 && strncmp(arg, "fill", 4) == 0) {
		unsigned long byte;

		errno = 0;
		byte = strtoul(colon + 1, &end, number_base(colon + 1));
		if (colon[1] < '0' || colon[1] > '9' || *end != '\0' || errno || byte > 255)
			usage_error("%s: fill needs a byte from 0 to 255: '%s'", opt, arg);
		p->kind = PAT_FILL;
		p->byte = (unsigned char)byte;
	} else if (colon && name_len == 6 && strncmp(arg, "random", 6) == 0) {
		unsigned long long seed;

		errno = 0;
		seed = strtoull(colon + 1, &end, number_base(colon + 1));
		if (colon[1] < '0' || colon[1] > '9' || *end != '\0' || errno)
			usage_error("%s: random needs a seed from 0 to 2^64-1: '%s'", opt, arg);
		p->kind = PAT_RANDOM;
		p->seed = seed;
	} else
		usage_error("%s: unknown pattern '%s' (one of %s)", opt, arg, PATTERN_NAMES);
}

const char *
pattern_label(const struct pattern *p)
{
	static char label[40];

	switch (p->kind) {
	case PAT_ZERO:
		return "zero";
	case PAT_RAMP:
		return "ramp";
	case PAT_SEQ:
		return "seq";
	case PAT_FILL:
		snprintf(label, sizeof(label), "fill:0x%02x", p->byte);
		return label;
	case PAT_RANDOM:
		snprintf(label, sizeof(label), "random:%llu", (unsigned long long)p->seed);
		return label;
	}
	return "?";
}

/*
 * The word at stream offset 8 * index, as a number whose little-endian
 * bytes are the stream's.  random is SplitMix64's output function applied
 * to seed + (index + 1) * golden gamma: a counter, so any block can be made
 * on its own, at a few cycles per word.
 */
static inline uint64_t
random_word(uint64_t seed, uint64_t index)
{
	uint64_t z = seed + (index + 1) * UINT64_C(0x9e3779b97f4a7c15);

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static inline uint64_t
pattern_word(const struct pattern *p, uint64_t index)
{
	switch (p->kind) {
	case PAT_ZERO:
		return 0;
	case PAT_FILL:
		return p->byte * UINT64_C(0x0101010101010101);
	case PAT_RAMP:
		/* Bytes 8i..8i+7 mod 256 never wrap inside a word. */
		return UINT64_C(0x0706050403020100) +
		    ((index * 8) & 0xff) * UINT64_C(0x0101010101010101);
	case PAT_SEQ:
		return index * 8;
	case PAT_RANDOM:
		return random_word(p->seed, index);
	}
	return 0;
}

unsigned char
pattern_byte(const struct pattern *p, uint64_t offset)
{
	return (unsigned char)(pattern_word(p, offset / 8) >> (8 * (offset % 8)));
}

bool
pattern_repeats(const struct pattern *p, uint64_t period)
{
	return p->kind == PAT_ZERO || p->kind == PAT_FILL ||
	    (p->kind == PAT_RAMP && period % 256 == 0);
}

void
pattern_fill(const struct pattern *p, uint64_t offset, void *buf, size_t len)
{
	unsigned char *b = buf;

	if (p->kind == PAT_ZERO || p->kind == PAT_FILL) {
		memset(b, p->byte, len);
		return;
	}
	for (; len > 0 && offset % 8 != 0; len--)
		*b++ = pattern_byte(p, offset++);
	/* seq and random on their own: no switch per word. */
	if (p->kind == PAT_SEQ) {
		for (; len >= 8; len -= 8, b += 8, offset += 8) {
			uint64_t word = htole64(offset);

			memcpy(b, &word, 8);
		}
	} else if (p->kind == PAT_RANDOM) {
		for (; len >= 8; len -= 8, b += 8, offset += 8) {
			uint64_t word = htole64(random_word(p->seed, offset / 8));

			memcpy(b, &word, 8);
		}
	}
	for (uint64_t index = offset / 8; len >= 8; len -= 8, b += 8, offset += 8) {
		uint64_t word = htole64(pattern_word(p, index++));

		memcpy(b, &word, 8);
	}
	for (; len > 0; len--)
		*b++ = pattern_byte(p, offset++);
}

/*
 * Fresh memory is not in the cache: an ordinary store reads each line
 * before it writes it.  Non-temporal stores write whole lines and skip the
 * read (measured 7-8 against 21-23 GiB/s into cold memory), at the price of
 * leaving nothing in the cache, which the pipe's reader does not need.  Into
 * a huge page the kernel has just zeroed, and so still cached, they lose
 * (vmsplice --refill stream: 1.3-2.7 x slower than ordinary stores here).
 */
void
pattern_fill_stream(const struct pattern *p, uint64_t offset, void *buf, size_t len)
{
#if defined(__x86_64__)
	unsigned char *b = buf;
	size_t head = (16 - (uintptr_t)b % 16) % 16;

	if ((p->kind != PAT_SEQ && p->kind != PAT_RANDOM) || len < head + 16 ||
	    (offset + head) % 8 != 0) {
		pattern_fill(p, offset, buf, len);
		return;
	}
	pattern_fill(p, offset, b, head);
	b += head, offset += head, len -= head;
	for (; len >= 16; len -= 16, b += 16, offset += 16) {
		uint64_t lo = offset, hi = offset + 8;

		if (p->kind == PAT_RANDOM) {
			lo = random_word(p->seed, offset / 8);
			hi = random_word(p->seed, offset / 8 + 1);
		}
		_mm_stream_si128((__m128i *)(void *)b, _mm_set_epi64x((long long)hi, (long long)lo));
	}
	/* The stores are weakly ordered: done before the pages are handed on. */
	_mm_sfence();
	pattern_fill(p, offset, b, len);
#else
	pattern_fill(p, offset, buf, len);
#endif
}

size_t
pattern_check(const struct pattern *p, uint64_t offset, const void *buf, size_t len)
{
	const unsigned char *b = buf;
	size_t i = 0;

	for (; i < len && (offset + i) % 8 != 0; i++)
		if (b[i] != pattern_byte(p, offset + i))
			return i;
	if (p->kind == PAT_SEQ) {
		for (; len - i >= 8; i += 8) {
			uint64_t word;

			memcpy(&word, b + i, 8);
			if (word != htole64(offset + i))
				break;
		}
	} else if (p->kind == PAT_RANDOM) {
		for (; len - i >= 8; i += 8) {
			uint64_t word;

			memcpy(&word, b + i, 8);
			if (word != htole64(random_word(p->seed, (offset + i) / 8)))
				break;
		}
	}
	for (uint64_t index = (offset + i) / 8; len - i >= 8; i += 8) {
		uint64_t word;

		memcpy(&word, b + i, 8);
		if (word != htole64(pattern_word(p, index++)))
			break;
	}
	for (; i < len; i++)
		if (b[i] != pattern_byte(p, offset + i))
			return i;
	return len;
}
