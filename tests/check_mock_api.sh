#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The mock kernel (mockdev/kernel) defines no function that nothing uses:
# every external function of its objects is called by the driver, npud or
# the runtime (their objects' undefined symbols), or by another file of the
# mock, or docs/kernel-api.md lists it among the functions kept on purpose
# for the tests (or as an interposed libc function), so that the mock
# cannot grow dead again.
#   check_mock_api.sh DOC MOCK_OBJECTS_LIST USER_OBJECTS_LIST
# Each *_LIST is a file naming one object file a line (CMake writes them).
set -euo pipefail
if [[ $# -ne 3 ]]; then
	echo "usage: $0 DOC MOCK_OBJECTS_LIST USER_OBJECTS_LIST" >&2
	exit 2
fi
doc=$1
mock_list=$2
user_list=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The section of the doc that names the functions kept on purpose: every
# `name` in backquotes from its heading to the next "## " heading.
section='## Mock functions that only tests call'
if ! grep -qxF "$section" "$doc"; then
	echo "$doc has no section \"$section\"" >&2
	exit 1
fi
awk -v h="$section" '$0 == h { on = 1; next } on && /^## / { on = 0 } on' "$doc" >"$tmp/section"
grep -oE '`[A-Za-z_][A-Za-z0-9_]*(\(\))?`' "$tmp/section" | tr -d '`()' | sort -u >"$tmp/listed"
# Rows that say "absent from sanitizer and static builds" (the interposed
# libc functions) may be missing from the mock of such a build.
grep -F 'absent from sanitizer and static builds' "$tmp/section" |
	grep -oE '`[A-Za-z_][A-Za-z0-9_]*(\(\))?`' | tr -d '`()' | sort -u >"$tmp/optional" || true

mapfile -t mock_objs <"$mock_list"
mapfile -t user_objs <"$user_list"
echo "reading ${#mock_objs[@]} mock objects and ${#user_objs[@]} objects of the driver, npud and the runtime"
# One nm run per list; -A puts "object:" before each symbol.
# name and defining object, for every external function of the mock
nm -A --defined-only "${mock_objs[@]}" |
	awk '$2 == "T" || $2 == "W" { sub(/:[^:]*$/, "", $1); print $3, $1 }' | sort >"$tmp/defined"
# name and referencing object, for every undefined symbol of the mock
nm -A --undefined-only "${mock_objs[@]}" |
	awk '{ sub(/:[^:]*$/, "", $1); print $NF, $1 }' | sort >"$tmp/mock_refs"
nm --undefined-only "${user_objs[@]}" | awk 'NF >= 2 { print $NF }' | sort -u >"$tmp/user_refs"

status=0
# Used: referenced by the driver, npud or the runtime, or by a mock file
# other than the one defining it; else it must be listed.
mapfile -t unused < <(awk '
	FILENAME == ARGV[1] { user[$1] = 1; next }
	FILENAME == ARGV[2] { listed[$1] = 1; next }
	FILENAME == ARGV[3] { refs[$1] = refs[$1] " " $2; next }
	{
		name = $1; obj = $2
		if (name in user || name in listed)
			next
		n = split(refs[name], r, " ")
		for (i = 1; i <= n; i++)
			if (r[i] != obj)
				next
		sub(/.*\//, "", obj)
		sub(/\.o$/, "", obj)
		print name " (" obj ")"
	}' "$tmp/user_refs" "$tmp/listed" "$tmp/mock_refs" "$tmp/defined")
if ((${#unused[@]})); then
	echo "the mock kernel defines functions that neither the driver, npud, the runtime nor" >&2
	echo "another mock file calls, and that $doc does not list under \"$section\":" >&2
	printf '  %s\n' "${unused[@]}" >&2
	echo "delete them, or list the ones a test calls on purpose" >&2
	status=1
fi
# A listed name the mock no longer defines is a stale line of the doc.
stale=$(comm -23 "$tmp/listed" <(awk '{ print $1 }' "$tmp/defined" | sort -u) |
	comm -23 - "$tmp/optional")
if [[ -n $stale ]]; then
	echo "$doc lists functions the mock does not define:" >&2
	sed 's/^/  /' <<<"$stale" >&2
	status=1
fi
if [[ $status -eq 0 ]]; then
	echo "$(wc -l <"$tmp/defined") mock functions: each is used, or listed as kept on purpose" \
		"($(wc -l <"$tmp/listed") listed)"
fi
exit $status
