# ktap-check.awk: a strict checker of KTAP version 1 (the kernel's
# Documentation/dev-tools/ktap.rst), as tests/run.sh --ktap writes it.
#
#   awk -f tests/ktap-check.awk FILE
#
# Every line is a version line, a plan, a result or a "#" diagnostic, at
# the indentation of its level (4 spaces a level); a level begins with
# "KTAP version 1" and its plan "1..N"; its results are numbered 1 to N in
# order, each with a description and at most one directive (SKIP, TODO,
# XFAIL, TIMEOUT, ERROR); a subtest ends at its parent's next result, with
# all N of its results.  Prints each leaf result "STATUS PATH" (ok, not ok,
# skip, timeout; PATH the descriptions from the top, "/" between), then
# "ktap: N results"; exits 1 with "ktap: line N: what is wrong" on stderr
# at the first fault.

function bad(what) {
	printf "ktap: line %d: %s: %s\n", NR, what, $0 > "/dev/stderr"
	failed = 1
	exit 1
}

# close_level: the deepest level is done; all its results were there.
function close_level() {
	if (plan[depth] == "")
		bad("a level without a plan")
	if (next_n[depth] - 1 != plan[depth])
		bad(sprintf("the plan said %d results, %d came", plan[depth], next_n[depth] - 1))
	depth--
}

BEGIN { depth = -1; results = 0 }

{
	line = $0
	match(line, /^ */)
	indent = RLENGTH
	body = substr(line, indent + 1)
	if (indent % 4 != 0)
		bad("indented by a number of spaces not a multiple of 4")
	level = indent / 4

	if (body == "KTAP version 1") {
		if (NR == 1 && level == 0) {
			depth = 0
		} else if (depth >= 0 && level == depth + 1 && plan[depth] != "") {
			depth++
		} else {
			bad("a version line out of place")
		}
		plan[depth] = ""
		next_n[depth] = 1
		buf[depth] = ""
		next
	}
	if (NR == 1)
		bad("the first line is not \"KTAP version 1\"")
	if (body ~ /^#/) {
		if (level > depth)
			bad("a diagnostic deeper than any open level")
		next
	}
	if (body ~ /^1\.\.[0-9]+$/) {
		if (level != depth || plan[depth] != "" || next_n[depth] != 1)
			bad("a plan out of place (it comes after the version line)")
		plan[depth] = substr(body, 4) + 0
		next
	}
	if (body ~ /^(ok|not ok) [0-9]+( |$)/) {
		if (level > depth)
			bad("a result deeper than any open level")
		status = body ~ /^ok / ? "ok" : "not ok"
		rest = substr(body, length(status) + 2)
		n = rest
		sub(/ .*/, "", n)
		rest = substr(rest, length(n) + 2)
		desc = rest
		word = ""
		if (index(rest, " # ") > 0 || rest ~ /^# /) {
			sub(/ ?# .*/, "", desc)
			word = rest
			sub(/^[^#]*# /, "", word)
			sub(/ .*/, "", word)
			if (word !~ /^(SKIP|TODO|XFAIL|TIMEOUT|ERROR)$/)
				bad("an unknown directive '" word "'")
		}
		if (desc == "" || desc ~ /#/)
			bad("a result without a description")
		# A result closes the levels below it: they were its subtest.
		had_sub = depth > level
		while (depth > level)
			close_level()
		if (plan[depth] == "")
			bad("a result before its level's plan")
		if (n + 0 != next_n[depth])
			bad(sprintf("result %d where %d was next", n, next_n[depth]))
		next_n[depth]++
		if (had_sub) {
			# Its subtest's results, named under it.
			count = split(buf[depth + 1], lines, "\n")
			for (i = 1; i < count; i++) {
				split(lines[i], f, "\t")
				buf[depth] = buf[depth] f[1] "\t" desc "/" f[2] "\n"
			}
			buf[depth + 1] = ""
		} else {
			kind = status
			if (word == "SKIP")
				kind = "skip"
			if (word == "TIMEOUT")
				kind = "timeout"
			buf[depth] = buf[depth] kind "\t" desc "\n"
			results++
		}
		next
	}
	bad("not a KTAP line")
}

END {
	if (failed)
		exit 1
	if (depth < 0)
		bad("no \"KTAP version 1\" line")
	while (depth > 0) {
		bad("a subtest without its parent's result")
	}
	close_level()
	count = split(buf[0], lines, "\n")
	for (i = 1; i < count; i++) {
		split(lines[i], f, "\t")
		print f[1], f[2]
	}
	printf "ktap: %d results\n", results
}
