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
awk -v h="$section" '$0 == h { on = 1; next } on && /^## / { on = 0 } on' "$doc" |
	grep -oE '`[A-Za-z_][A-Za-z0-9_]*(\(\))?`' | tr -d '`()' | sort -u >"$tmp/listed"

mapfile -t mock_objs <"$mock_list"
mapfile -t user_objs <"$user_list"
echo "reading ${#mock_objs[@]} mock objects and ${#user_objs[@]} objects of the driver, npud and the runtime"
# name and defining object, for every external function of the mock
for o in "${mock_objs[@]}"; do
	nm --defined-only "$o" | awk -v o="$o" '$2 == "T" || $2 == "W" { print $3, o }'
done | sort >"$tmp/defined"
# name and referencing object, for every undefined symbol of the mock
for o in "${mock_objs[@]}"; do
	nm --undefined-only "$o" | awk -v o="$o" '{ print $NF, o }'
done | sort >"$tmp/mock_refs"
for o in "${user_objs[@]}"; do
	nm --undefined-only "$o" | awk '{ print $NF }'
done | sort -u >"$tmp/user_refs"

status=0
unused=()
while read -r name obj; do
	grep -qxF "$name" "$tmp/user_refs" && continue
	# another file of the mock calls it
	awk -v n="$name" -v o="$obj" '$1 == n && $2 != o { found = 1 } END { exit !found }' \
		"$tmp/mock_refs" && continue
	grep -qxF "$name" "$tmp/listed" && continue
	unused+=("$name ($(basename "$obj" .o))")
done <"$tmp/defined"
if ((${#unused[@]})); then
	echo "the mock kernel defines functions that neither the driver, npud, the runtime nor" >&2
	echo "another mock file calls, and that $doc does not list under \"$section\":" >&2
	printf '  %s\n' "${unused[@]}" >&2
	echo "delete them, or list the ones a test calls on purpose" >&2
	status=1
fi
# A listed name the mock no longer defines is a stale line of the doc.
stale=$(comm -23 "$tmp/listed" <(awk '{ print $1 }' "$tmp/defined" | sort -u))
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
