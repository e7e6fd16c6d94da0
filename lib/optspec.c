/*
 * optspec.c: a tool's options written once, as text, and turned into
 * getopt_long()'s tables and the option lines of --help.  See splice.h.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* What --verbose does. */
#define VERBOSE_HELP "say which method moved how many bytes, and the rate\n"

/* Column where the help text of an option starts, as in GNU's --help. */
#define HELP_COLUMN 22

/*
 * The options every tool takes, in the order --help lists them; each part
 * is in when its condition holds.  A long-only option's code counts from
 * OPT_COMMON_FIRST over every part, in or not: the order of the OPT_ enum
 * in splice.h.
 */
static const struct {
	unsigned int when;	/* OPTS_ bits, one of which puts the part in; 0: all */
	bool unless_no_v;	/* in unless OPTS_NO_V */
	const char *spec;
} common_parts[] = {
	{ OPTS_RATE_LIMIT, false,
	  "L rate-limit RATE\tmove at most RATE bytes a second (4M, 500KB)\n" },
	/* pv's --rate shows the rate: no abbreviation of --rate-limit. */
	{ OPTS_RATE_LIMIT | OPTS_PV_RATE, false, "- rate\n" },
	{ OPTS_SIZE, false,
	  "- size SIZE\texpect SIZE bytes, for --progress's percent and ETA;\n"
	  "\t@FILE: as many as FILE holds\n" },
	{ 0, true, "v verbose\t" VERBOSE_HELP },
	{ OPTS_NO_V, false, "- verbose\t" VERBOSE_HELP },
	{ 0, false,
	  "- strict\tfail instead of falling back from zero-copy\n"
	  "- progress\tprint a status line on stderr about once a second\n"
	  "- name NAME\tstart the status line with NAME (implies --progress)\n"
	  "- interval SECS\tstatus every SECS s (default 1; implies --progress)\n"
	  "- average-rate-window SECS\tthe ETA's rate is that of the last SECS s\n"
	  "\t(default 10, as pv -m; implies --progress)\n"
	  "- numeric\tstatus as numbers, one a line: percent when the total\n"
	  "\tis known, else bytes (implies --progress)\n"
	  "- pipe-size SIZE\tpipe capacity to ask for (default 1M)\n"
	  "h help\tprint this help and exit\n"
	  "V version\tprint the version and exit\n" },
};

#define OPTS_MAX 48

/* getopt_long()'s tables, made by build(). */
struct opt_table {
	char shorts[128];
	struct option longs[OPTS_MAX];
	char names[OPTS_MAX][24];
	size_t n_shorts, n_longs;
};

/* One entry of a spec, as read by next_entry(). */
struct entry {
	const char *letters;	/* the short letters, n_letters of them */
	size_t n_letters;
	const char *name;	/* the long name, name_len bytes; 0 = none */
	size_t name_len;
	const char *arg;	/* " NAME" or "[=NAME]", arg_len bytes; 0 = none */
	size_t arg_len;
	const char *help;	/* the help, lines to "\n" not followed by "\t" */
	size_t help_len;	/* 0: an option --help does not list */
};

/* Reads the entry at *s into *e and moves *s past it; false at the end. */
static bool
next_entry(const char **s, struct entry *e)
{
	const char *p = *s;

	if (*p == '\0')
		return false;
	memset(e, 0, sizeof(*e));
	e->letters = p;
	e->n_letters = strcspn(p, " ");
	if (*p == '-')
		e->n_letters = 0;
	p += strcspn(p, " ") + 1;
	e->name = p;
	e->name_len = strcspn(p, " [\t\n");
	if (*p == '-')
		e->name_len = 0;
	p += strcspn(p, " [\t\n");
	if (*p == ' ' || *p == '[') {
		e->arg = p;
		e->arg_len = strcspn(p, "\t\n");
		p += e->arg_len;
	}
	if (*p == '\t') {
		e->help = ++p;
		do
			p += strcspn(p, "\n") + 1;
		while (*p == '\t');
		e->help_len = (size_t)(p - e->help);
	} else
		p++;
	*s = p;
	return true;
}

static bool spec_names(const char *spec, const char *name, size_t len);

/*
 * Adds the entries of spec to *t, the letterless ones coded from *code on;
 * but an entry whose long name own (the tool's spec) has too keeps only its
 * code: one entry a name, so that an abbreviation is not ambiguous.
 */
static void
add_spec(struct opt_table *t, const char *spec, int *code, const char *own)
{
	struct entry e;

	while (next_entry(&spec, &e)) {
		int val = e.n_letters ? e.letters[0] : (*code)++;

		if (e.name_len && spec_names(own, e.name, e.name_len))
			continue;
		if (t->n_shorts + 2 * e.n_letters >= sizeof(t->shorts) ||
		    t->n_longs + 1 >= OPTS_MAX || e.name_len >= sizeof(t->names[0])) {
			warn_msg("internal error: no room in the option table for '%.*s'",
			    (int)strcspn(e.letters, "\n"), e.letters);
			abort();
		}

		for (size_t i = 0; i < e.n_letters; i++) {
			t->shorts[t->n_shorts++] = e.letters[i];
			if (e.arg_len)
				t->shorts[t->n_shorts++] = ':';
		}
		if (e.name_len == 0)
			continue;
		memcpy(t->names[t->n_longs], e.name, e.name_len);
		t->longs[t->n_longs] = (struct option){
			.name = t->names[t->n_longs],
			.has_arg = e.arg_len == 0 ? no_argument :
			    *e.arg == '[' ? optional_argument : required_argument,
			.val = val,
		};
		t->n_longs++;
	}
}

/* Calls fn with each part of the common options that `with` takes. */
static void
each_common_part(unsigned int with, void (*fn)(const char *spec, bool in, void *arg),
    void *arg)
{
	for (size_t i = 0; i < sizeof(common_parts) / sizeof(common_parts[0]); i++) {
		bool in = common_parts[i].unless_no_v ? !(with & OPTS_NO_V) :
		    common_parts[i].when == 0 || (common_parts[i].when & with) != 0;

		fn(common_parts[i].spec, in, arg);
	}
}

struct building {
	struct opt_table *t;
	int code;
	const char *own;	/* the tool's spec: its long names win */
};

static void
add_common_part(const char *spec, bool in, void *arg)
{
	struct building *b = arg;
	struct entry e;

	if (in) {
		add_spec(b->t, spec, &b->code, b->own);
		return;
	}
	/* Left out, its long-only options keep their codes. */
	while (next_entry(&spec, &e))
		if (e.n_letters == 0)
			b->code++;
}

/* Makes *t of spec and the common options that `with` takes. */
static void
build(struct opt_table *t, const char *spec, unsigned int with)
{
	struct building b = { t, OPT_COMMON_FIRST, spec };
	int code = OPT_TOOL_FIRST;

	memset(t, 0, sizeof(*t));
	add_spec(t, spec, &code, NULL);
	each_common_part(with, add_common_part, &b);
}

int
options_next(int argc, char *argv[], const char *spec, unsigned int with)
{
	static struct opt_table t;
	static const char *built;

	if (built != spec) {
		build(&t, spec, with);
		built = spec;
	}
	return getopt_long(argc, argv, t.shorts, t.longs, NULL);
}

/* Whether spec has an entry of the long name name (len bytes). */
static bool
spec_names(const char *spec, const char *name, size_t len)
{
	struct entry e;

	while (spec && next_entry(&spec, &e))
		if (e.name_len == len && strncmp(e.name, name, len) == 0)
			return true;
	return false;
}

/*
 * Prints the --help lines of the entries of spec, but those that own (the
 * tool's spec, when spec is a common part) names too: the tool words them.
 */
static void
print_spec(const char *spec, const char *own)
{
	struct entry e;

	while (next_entry(&spec, &e)) {
		int len = 2;
		const char *h = e.help;

		if (e.help_len == 0 || (e.name_len && spec_names(own, e.name, e.name_len)))
			continue;
		fputs("  ", stdout);
		for (size_t i = 0; i < e.n_letters; i++)
			len += printf("%s-%c", i ? ", " : "", e.letters[i]);
		if (e.name_len)
			len += printf("%s--%.*s", e.n_letters ? ", " : "    ", (int)e.name_len,
			    e.name);
		len += printf("%.*s", (int)e.arg_len, e.arg);
		printf("%*s", len + 2 > HELP_COLUMN ? 2 : HELP_COLUMN - len, "");
		for (;;) {
			size_t n = strcspn(h, "\n") + 1;

			fwrite(h, 1, n, stdout);
			h += n;
			if (h >= e.help + e.help_len)
				break;
			printf("%*s", HELP_COLUMN, "");
			h++;		/* the continuation's tab */
		}
	}
}

static void
print_common_part(const char *spec, bool in, void *arg)
{
	if (in)
		print_spec(spec, arg);
}

void
options_help(const char *spec, unsigned int with)
{
	print_spec(spec, NULL);
	each_common_part(with, print_common_part, (void *)(uintptr_t)spec);
}
