/*
 * pattern.c: the byte patterns vmsplice writes and vmsplice-touser checks.  See splice.h.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

/* Decimal, or hexadecimal after 0x: a leading 0 is not octal. */
static int
number_base(const char *digits)
{
	return digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X') ? 16 : 10;
}

/* C's one-letter escapes, after the backslash, and the bytes they stand for. */
static const char escape_letters[] = "abtnvfre\\'\"?";
static const char escape_bytes[] = "\a\b\t\n\v\f\r\033\\'\"?";

/* Value of hexadecimal digit c, or -1. */
static int
hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * text:STRING with C's escapes decoded into memory that lives as long as
 * the tool: \a \b \t \n \v \f \r \e \\ \' \" \?, \ooo (1 to 3 octal
 * digits, at most \377) and \xHH (1 or 2 hex digits).
 */
static void
text_parse(const char *opt, const char *arg, const char *text, struct pattern *p)
{
	unsigned char *out = malloc(strlen(text) + 1);
	size_t n = 0;

	if (out == NULL) {
		warn_errno("malloc");
		exit(EXIT_ERROR);
	}
	/* Held by *p from the start: a usage error below leaks nothing. */
	p->text = out;
	while (*text) {
		const char *letter;
		unsigned int value = 0;
		int digits = 0;

		if (*text != '\\') {
			out[n++] = (unsigned char)*text++;
			continue;
		}
		text++;
		if (*text >= '0' && *text <= '7') {
			for (; digits < 3 && *text >= '0' && *text <= '7'; digits++)
				value = value * 8 + (unsigned int)(*text++ - '0');
			if (value > 255)
				usage_error("%s: text: octal escape past \\377: '%s'", opt, arg);
		} else if (*text == 'x') {
			for (text++; digits < 2 && hex_digit(*text) >= 0; digits++)
				value = value * 16 + (unsigned int)hex_digit(*text++);
			if (digits == 0)
				usage_error("%s: text: \\x needs a hex digit: '%s'", opt, arg);
		} else if (*text && (letter = strchr(escape_letters, *text)) != NULL) {
			value = (unsigned char)escape_bytes[letter - escape_letters];
			text++;
		} else
			usage_error("%s: text: unknown escape '\\%.1s' (C's: \\n \\t \\\\ \\0"
			    " \\x41 ...): '%s'", opt, text, arg);
		out[n++] = (unsigned char)value;
	}
	if (n == 0)
		usage_error("%s: text needs at least one byte: '%s'", opt, arg);
	p->kind = PAT_TEXT;
	p->text = out;
	p->text_bytes = n;
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
	} else if (colon && name_len == 4 && strncmp(arg, "text", 4) == 0)
		text_parse(opt, arg, colon + 1, p);
	else
		usage_error("%s: unknown pattern '%s' (one of %s)", opt, arg, PATTERN_NAMES);
}

/* "text:" and the text with its escapes, cut short past about 60 bytes. */
static const char *
text_label(const struct pattern *p, char *label, size_t size)
{
	size_t n = (size_t)snprintf(label, size, "text:");

	for (size_t i = 0; i < p->text_bytes; i++) {
		unsigned char c = p->text[i];
		const char *e = c ? memchr(escape_bytes, c, sizeof(escape_bytes) - 1) : NULL;

		if (n + 8 >= size) {
			snprintf(label + n, size - n, "...");
			break;
		}
		if (e && c != '?' && c != '\'')
			n += (size_t)snprintf(label + n, size - n, "\\%c",
			    escape_letters[e - escape_bytes]);
		else if (c < 0x20 || c >= 0x7f)
			n += (size_t)snprintf(label + n, size - n, "\\x%02x", c);
		else {
			label[n++] = (char)c;
			label[n] = '\0';
		}
	}
	return label;
}

const char *
pattern_label(const struct pattern *p)
{
	static char label[72];

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
	case PAT_TEXT:
		return text_label(p, label, sizeof(label));
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
	case PAT_TEXT:
		break;		/* byte by byte: see pattern_byte() */
	}
	return 0;
}

unsigned char
pattern_byte(const struct pattern *p, uint64_t offset)
{
	if (p->kind == PAT_TEXT)
		return p->text[offset % p->text_bytes];
	return (unsigned char)(pattern_word(p, offset / 8) >> (8 * (offset % 8)));
}

uint64_t
pattern_period(const struct pattern *p)
{
	switch (p->kind) {
	case PAT_ZERO:
	case PAT_FILL:
		return 1;
	case PAT_RAMP:
		return 256;
	case PAT_TEXT:
		return p->text_bytes;
	case PAT_SEQ:
	case PAT_RANDOM:
		break;
	}
	return 0;
}

/* The text from stream offset on, len bytes: whole copies of it at a time. */
static void
text_fill(const struct pattern *p, uint64_t offset, unsigned char *b, size_t len)
{
	size_t at = (size_t)(offset % p->text_bytes);

	while (len > 0) {
		size_t n = p->text_bytes - at < len ? p->text_bytes - at : len;

		memcpy(b, p->text + at, n);
		b += n, len -= n, at = 0;
	}
}

/* Index of the first byte of b that is not the text from offset on, or len. */
static size_t
text_check(const struct pattern *p, uint64_t offset, const unsigned char *b, size_t len)
{
	size_t at = (size_t)(offset % p->text_bytes), i = 0;

	while (i < len) {
		size_t n = p->text_bytes - at < len - i ? p->text_bytes - at : len - i;

		if (memcmp(b + i, p->text + at, n) != 0) {
			while (b[i] == p->text[at])
				i++, at++;
			return i;
		}
		i += n, at = 0;
	}
	return len;
}

void
pattern_fill(const struct pattern *p, uint64_t offset, void *buf, size_t len)
{
	unsigned char *b = buf;

	if (p->kind == PAT_ZERO || p->kind == PAT_FILL) {
		memset(b, p->byte, len);
		return;
	}
	if (p->kind == PAT_TEXT) {
		text_fill(p, offset, b, len);
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
		_mm_stream_si128((__m128i *)(void *)b,
		    _mm_set_epi64x((long long)hi, (long long)lo));
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

	if (p->kind == PAT_TEXT)
		return text_check(p, offset, b, len);
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
