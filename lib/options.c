/*
 * options.c: the options every tool takes, and the size and seconds parsers.  See splice.h.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

struct common_opts common;

/*
 * Under -L, a sixteenth of a second's worth per call (whole pages where
 * that is a page or more): lib/account.c sleeps after each call until its
 * bytes are due, so a smaller call is a smoother rate, at the price of a
 * few more calls a second.
 */
static size_t
rate_call_bytes(uint64_t rate)
{
	uint64_t n = rate / 16;

	if (rate == 0 || n > SIZE_MAX)
		return 0;
	if (n >= 4096)
		n &= ~(uint64_t)4095;
	return n ? (size_t)n : 1;
}

struct engine_opts
engine_opts(void)
{
	return (struct engine_opts){
		.strict = common.strict,
		.verbose = common.verbose,
		.pipe_bytes = common.pipe_bytes,
		.call_bytes_max = rate_call_bytes(common.rate_limit),
	};
}

/* One factor of a size: digits, then a unit or none. */
static int
parse_factor(const char *s, uint64_t *bytes)
{
	static const char units[] = "KMGTPE";
	uint64_t value = 0, base = 1024, scale = 1;
	const char *unit;

	if (*s < '0' || *s > '9') {	/* also rejects "", "-1", " 1" */
		errno = EINVAL;
		return -1;
	}
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned digit = (unsigned)(*s - '0');

		if (value > (UINT64_MAX - digit) / 10) {
			errno = ERANGE;
			return -1;
		}
		value = value * 10 + digit;
	}
	if (*s == '\0' || strcmp(s, "B") == 0 || strcmp(s, "c") == 0) {
		*bytes = value;
		return 0;
	}
	/* dd's blocks of 512 bytes and words of 2. */
	if (strcmp(s, "b") == 0 || strcmp(s, "w") == 0) {
		scale = *s == 'b' ? 512 : 2;
		if (value > UINT64_MAX / scale) {
			errno = ERANGE;
			return -1;
		}
		*bytes = value * scale;
		return 0;
	}
	unit = strchr(units, *s >= 'a' && *s <= 'z' ? *s - 'a' + 'A' : *s);
	if (unit == NULL) {
		errno = EINVAL;
		return -1;
	}
	s++;
	if (strcmp(s, "B") == 0)
		base = 1000;
	else if (*s != '\0' && strcmp(s, "iB") != 0) {
		errno = EINVAL;
		return -1;
	}
	for (const char *u = units; u <= unit; u++) {
		if (scale > UINT64_MAX / base) {
			errno = ERANGE;
			return -1;
		}
		scale *= base;
	}
	if (value != 0 && value > UINT64_MAX / scale) {
		errno = ERANGE;
		return -1;
	}
	*bytes = value * scale;
	return 0;
}

int
parse_size(const char *s, uint64_t *bytes)
{
	uint64_t product = 1, factor;
	char part[32];
	size_t len;

	/* dd's products, "256x4K": each factor a size; "0x10" is no hex. */
	for (;;) {
		len = strcspn(s, "x");
		if (len >= sizeof(part) || (s[len] == 'x' && len == 1 && s[0] == '0')) {
			errno = EINVAL;
			return -1;
		}
		memcpy(part, s, len);
		part[len] = '\0';
		if (parse_factor(part, &factor) < 0)
			return -1;
		if (factor != 0 && product > UINT64_MAX / factor) {
			errno = ERANGE;
			return -1;
		}
		product *= factor;
		if (s[len] == '\0')
			break;
		s += len + 1;
	}
	*bytes = product;
	return 0;
}

uint64_t
option_size(const char *opt, const char *arg)
{
	uint64_t bytes;

	if (parse_size(arg, &bytes) == 0)
		return bytes;
	if (errno == ERANGE)
		usage_error("%s: size too large: '%s'", opt, arg);
	usage_error("%s: invalid size: '%s'", opt, arg);
}

/* ---- common options ---------------------------------------------------- */

/*
 * --size SIZE or @FILE: the total to expect.  FILE's size is read now, as
 * pv -s @FILE does: that of a regular file or a block device.
 */
static void
size_option(const char *arg)
{
	char *names[2] = { NULL, NULL };
	struct stat st;

	common.size_given = true;
	if (*arg != '@') {
		common.size_bytes = option_size("--size", arg);
		return;
	}
	names[0] = (char *)arg + 1;
	if (stat(names[0], &st) < 0)
		usage_error("--size: %s: %s", names[0], strerror(errno));
	common.size_bytes = inputs_size(names);
	if (common.size_bytes == TO_EOF)
		usage_error("--size: %s: not a regular file or a block device", names[0]);
}

/* --progress, and the options that shape its lines and imply it. */
static void
progress_option(int opt, const char *arg)
{
	common.progress = true;
	if (opt == OPT_NAME)
		common.name = arg;
	else if (opt == OPT_NUMERIC)
		common.numeric = true;
	else if (opt == OPT_INTERVAL) {
		common.interval_secs = option_seconds("--interval", arg);
		if (common.interval_secs < 0.01 || common.interval_secs > 86400)
			usage_error("--interval: must be 0.01 to 86400 seconds: '%s'", arg);
	} else if (opt == OPT_RATE_WINDOW) {
		common.window_secs = option_seconds("--average-rate-window", arg);
		if (common.window_secs < 0.5 || common.window_secs > 86400)
			usage_error("--average-rate-window: must be 0.5 to 86400 seconds: '%s'",
			    arg);
	}
}

void
common_option(int opt, const char *arg, void (*help)(void))
{
	switch (opt) {
	case 'v':
	case OPT_VERBOSE:
		common.verbose++;
		return;
	case OPT_STRICT:
		common.strict = true;
		return;
	case OPT_PROGRESS:
	case OPT_NAME:
	case OPT_INTERVAL:
	case OPT_RATE_WINDOW:
	case OPT_NUMERIC:
		progress_option(opt, arg);
		return;
	case 'L':
		common.rate_limit = option_size("--rate-limit", arg);
		if (common.rate_limit == 0)
			usage_error("--rate-limit: must be at least 1 byte a second: '%s'", arg);
		return;
	case OPT_PV_RATE:
		usage_error("--rate: no such option (pv's shows the rate); the limit is"
		    " -L, --rate-limit");
	case OPT_SIZE:
		size_option(arg);
		return;
	case OPT_PIPE_SIZE: {
		uint64_t bytes = option_size("--pipe-size", arg);

		/* F_SETPIPE_SZ takes an int. */
		if (bytes == 0 || bytes > INT_MAX / 2 + 1)
			usage_error("--pipe-size: out of range: '%s'", arg);
		common.pipe_bytes = (size_t)bytes;
		return;
	}
	case 'h':
		help();
		exit_flushing_stdout();
	case 'V':
		print_version();
	case '?':
	case ':':
		/* getopt_long() has said what was wrong. */
		fprintf(stderr, "Try '%s --help'.\n", progname);
		exit(EXIT_USAGE);
	default:
		usage_error("unknown option");
	}
}

void
no_operands(int argc, char *argv[])
{
	if (optind < argc)
		usage_error("extra operand '%s'", argv[optind]);
}

double
option_seconds(const char *opt, const char *arg)
{
	char *end;
	double secs;

	errno = 0;
	secs = strtod(arg, &end);
	if (end == arg || *end != '\0' || errno == ERANGE || !isfinite(secs) || secs < 0 ||
	    *arg == '-' || *arg == '+' || *arg == ' ')
		usage_error("%s: invalid number of seconds: '%s'", opt, arg);
	return secs;
}
