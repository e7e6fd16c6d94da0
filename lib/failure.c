/*
 * failure.c: what an engine records when it fails (struct xfer_error), the
 * kernel's refusals, the one --strict rule, and the words a tool says for a
 * failure.  See splice.h, internal.h.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

int
xfer_error_set(struct xfer_error *e, enum xfer_side side, const char *call, int err)
{
	*e = (struct xfer_error){ .side = side, .err = err, .call = call };
	return -1;
}

/*
 * The one list of what "this pair can't" looks like: a file system, a file
 * kind or a kernel without the call (coreutils' cat decides "unsupported"
 * by one such list too).
 */
bool
err_is_refusal(int err)
{
	return err == EINVAL || err == ENOSYS || err == EOPNOTSUPP ||
	    err == EXDEV;
}

bool
fallback_allowed(const struct engine_opts *o, uint64_t moved, struct xfer_error *e)
{
	e->refused = moved == 0 && (e->refused || err_is_refusal(e->err));
	if (!e->refused || o->strict)
		return false;
	*e = (struct xfer_error){ .side = SIDE_NONE };
	return true;
}

void
xfer_error_warn(const struct xfer_error *e, const char *const names[SIDE_COUNT], bool pair)
{
	const char *why = strerror(e->err);
	const char *strict = e->refused ? " (--strict: no fallback to read/write)" : "";

	if (!e->refused && e->side != SIDE_NONE)
		warn_msg("%s: %s", names[e->side], why);
	else if (pair)
		warn_msg("%s -> %s: %s: %s%s", names[SIDE_INPUT], names[SIDE_OUTPUT], e->call,
		    why, strict);
	else if (e->side != SIDE_NONE)
		warn_msg("%s: %s: %s%s", names[e->side], e->call, why, strict);
	else
		warn_msg("%s: %s%s", e->call, why, strict);
}
