#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# docs/runtime-locks.md stays the list of the runtime's locks: every
# std::mutex, std::shared_mutex, std::recursive_mutex, std::timed_mutex and
# pthread_mutex_t declared under runtime/src must
#   - say what it protects at its declaration: a "Protects:" comment on the
#     declaration's line, or a GUARDED_BY(name) / PT_GUARDED_BY(name) in the
#     same file (base/thread_annotations.h), and
#   - have one row in the document's tables, "| `Owner::name` | `path` |",
#     path relative to runtime/src;
# and every such row must name a declaration that exists.
#   check_locks.sh SOURCE_DIR
set -euo pipefail
if [[ $# -ne 1 ]]; then
	echo "usage: $0 SOURCE_DIR" >&2
	exit 2
fi
root=$1
src=$root/runtime/src
doc=$root/docs/runtime-locks.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

echo "listing the lock declarations under runtime/src"
decl_re='^[[:space:]]*(mutable[[:space:]]+)?(static[[:space:]]+)?(std::(recursive_|timed_|shared_)?mutex|pthread_mutex_t)[[:space:]]+[A-Za-z_][A-Za-z0-9_]*[[:space:]]*(;|=|\{)'
(cd "$src" && grep -rnE "$decl_re" --include='*.h' --include='*.cpp' --include='*.c' .) |
	sed 's|^\./||' >"$tmp/decls"
: >"$tmp/found"
while IFS= read -r line; do
	file=${line%%:*}
	rest=${line#*:}
	lineno=${rest%%:*}
	text=${rest#*:}
	name=$(sed -E 's/^[[:space:]]*(mutable[[:space:]]+)?(static[[:space:]]+)?[A-Za-z_:]+[[:space:]]+([A-Za-z_][A-Za-z0-9_]*).*/\3/' <<<"$text")
	echo "$file $name" >>"$tmp/found"
	if ! grep -q 'Protects:' <<<"$text" &&
		! grep -qE "(PT_)?GUARDED_BY\(${name}\)" "$src/$file"; then
		echo "FAIL: $file:$lineno: $name says not what it protects (\"Protects:\" or GUARDED_BY($name))"
		fail=1
	fi
done <"$tmp/decls"
echo "$(wc -l <"$tmp/found") locks"

echo "reading the lock rows of docs/runtime-locks.md"
grep -oE '^\| `[A-Za-z_:<>, ]*::[A-Za-z_][A-Za-z0-9_]*` \| `[A-Za-z0-9_/.]+` \|' "$doc" |
	sed -E 's/^\| `[^`]*::([A-Za-z0-9_]+)` \| `([^`]+)` \|/\2 \1/' >"$tmp/rows" || true

sort "$tmp/found" >"$tmp/found.sorted"
sort "$tmp/rows" >"$tmp/rows.sorted"
while read -r file name; do
	echo "FAIL: $file: lock $name is not in docs/runtime-locks.md (a row \"| \`Owner::$name\` | \`$file\` |\")"
	fail=1
done < <(comm -23 "$tmp/found.sorted" "$tmp/rows.sorted")
while read -r file name; do
	echo "FAIL: docs/runtime-locks.md names $name in $file, which declares no such lock (or fewer)"
	fail=1
done < <(comm -13 "$tmp/found.sorted" "$tmp/rows.sorted")

if [[ $fail -ne 0 ]]; then
	echo "docs/runtime-locks.md and the code disagree (see above)"
	exit 1
fi
echo "every lock is documented and says what it protects"
