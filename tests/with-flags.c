/*
 * with-flags SPEC... -- COMMAND [ARG]...: hands COMMAND descriptors with
 * flags it did not choose, as a shell or another program might, then runs
 * it.  SPEC is FD:FLAGS (fcntl(F_SETFL) on the inherited FD) or
 * FD=PATH:FLAGS (PATH opened onto FD: read-only for 0, else write-only,
 * created, and truncated unless FLAGS has append).  FLAGS is a comma list
 * of nonblock, direct, append, sync, or none.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct {
	const char *name;
	int flag;
} flag_names[] = {
	{ "nonblock", O_NONBLOCK },
	{ "direct", O_DIRECT },
	{ "append", O_APPEND },
	{ "sync", O_SYNC },
	{ "none", 0 },
};

static int
parse_flags(const char *list)
{
	char *copy = strdup(list), *save = NULL;
	int flags = 0;

	if (copy == NULL)
		return -1;
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++)
			if (strcmp(w, flag_names[i].name) == 0)
				break;
		if (i == sizeof(flag_names) / sizeof(flag_names[0])) {
			fprintf(stderr, "with-flags: unknown flag '%s'\n", w);
			free(copy);
			return -1;
		}
		flags |= flag_names[i].flag;
	}
	free(copy);
	return flags;
}

/* One SPEC; 0, or 2 for a usage error, 1 when the kernel refused. */
static int
apply(char *spec)
{
	char *colon = strrchr(spec, ':'), *eq = strchr(spec, '=');
	int fd, flags, got_flags;

	if (colon == NULL || (flags = parse_flags(colon + 1)) < 0)
		return 2;
	*colon = '\0';
	fd = atoi(spec);
	if (eq != NULL) {
		int mode = fd == 0 ? O_RDONLY :
		    O_WRONLY | O_CREAT | ((flags & O_APPEND) ? 0 : O_TRUNC);
		int got = open(eq + 1, mode | flags, 0666);

		if (got < 0) {
			fprintf(stderr, "with-flags: %s: %s\n", eq + 1, strerror(errno));
			return 1;
		}
		if (got != fd && (dup2(got, fd) < 0 || close(got) < 0)) {
			perror("with-flags: dup2");
			return 1;
		}
		return 0;
	}
	if ((got_flags = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, got_flags | flags) < 0) {
		fprintf(stderr, "with-flags: descriptor %d: %s\n", fd, strerror(errno));
		return 1;
	}
	return 0;
}

int
main(int argc, char *argv[])
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		int r = apply(argv[i]);

		if (r != 0)
			return r;
	}
	if (i + 1 >= argc) {
		fprintf(stderr, "usage: with-flags FD[=PATH]:FLAGS... -- COMMAND [ARG]...\n");
		return 2;
	}
	execvp(argv[i + 1], argv + i + 1);
	perror("with-flags: exec");
	return 1;
}
