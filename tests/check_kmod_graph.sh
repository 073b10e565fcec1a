#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The driver's file graph is what docs/driver-files.md says it is, and it
# has no cycle that the document does not name with a reason.
#   check_kmod_graph.sh [--print] DRIVER_LIB KMOD_DIR DOC
# The graph: "a.c -> b.c" when a.c refers to a function or object defined
# in b.c. It is read from the symbols of the mock build's driver archive
# (nm: what each object defines and what it leaves undefined), so only
# real references count, not comments or inline helpers of a header. A
# kmod/*.c that the mock build does not compile (the io_uring glue) is
# read from its source: every symbol of the archive it names before "(".
# --print writes the graph block for the document and exits.
set -euo pipefail
print=0
if [[ ${1:-} == --print ]]; then
	print=1
	shift
fi
if [[ $# -ne 3 ]]; then
	echo "usage: $0 [--print] DRIVER_LIB KMOD_DIR DOC" >&2
	exit 2
fi
lib=$1
kmod=$2
doc=$3
for tool in nm awk sort comm tsort; do
	if ! command -v "$tool" >/dev/null; then
		echo "$0: needs $tool" >&2
		exit 77
	fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "reading the symbols of $lib"
# "file kind symbol" for every symbol, file as kmod/ names it (npu_x.c).
nm "$lib" | awk '
	/^$/ { next }
	/:$/ { f = $0; sub(/:$/, "", f); sub(/\.o$/, "", f); sub(/.*\//, "", f); next }
	NF == 2 && $1 == "U" { print f, "U", $2; next }
	NF == 3 && $2 ~ /^[A-TV-Z]$/ { print f, "D", $3 }
' >"$tmp/syms"
awk '$2 == "D" { print $3, $1 }' "$tmp/syms" | sort -u >"$tmp/defs"
if [[ ! -s $tmp/defs ]]; then
	echo "no symbols defined in $lib" >&2
	exit 1
fi
awk '$2 == "U" { print $3, $1 }' "$tmp/syms" | sort -u >"$tmp/uses"

# Files of kmod/ that the archive does not hold: read from their source.
awk '{ print $2 }' "$tmp/defs" | sort -u >"$tmp/built"
for src in "$kmod"/*.c; do
	f=$(basename "$src")
	[[ $f == *.mod.c ]] && continue
	if ! grep -qx "$f" "$tmp/built"; then
		echo "$f is not in the archive: reading its calls from the source"
		grep -oE '\b[a-z_][a-z0-9_]*[[:space:]]*\(' "$src" | tr -d ' \t(' | sort -u |
			awk -v f="$f" '{ print $1, f }' >>"$tmp/uses"
	fi
done
sort -u -o "$tmp/uses" "$tmp/uses"

# Edges between different files.
join "$tmp/uses" "$tmp/defs" | awk '$2 != $3 { print $2, $3 }' | sort -u >"$tmp/edges"

# The graph block, one line per file that calls another.
awk '
	{ out[$1] = out[$1] " " $2 }
	END { for (f in out) print f " ->" out[f] }
' "$tmp/edges" | sort >"$tmp/graph"
if [[ $print -eq 1 ]]; then
	cat "$tmp/graph"
	exit 0
fi

status=0
# fail TITLE LINES: a failure and its list, indented, on stderr.
fail() {
	{ echo "$1"; [[ -z $2 ]] || sed 's/^/  /' <<<"$2"; } >&2
	status=1
}

echo "comparing with the graph in $doc"
# The block between the graph markers, normalised to "a -> b c" lines.
awk '/<!-- graph:begin -->/ { on = 1; next } /<!-- graph:end -->/ { on = 0 } on && / -> / {
	sub(/^[[:space:]]+/, ""); gsub(/[[:space:]]+/, " "); sub(/ $/, ""); print }' "$doc" |
	sort >"$tmp/doc_graph"
if [[ ! -s $tmp/doc_graph ]]; then
	fail "no graph between <!-- graph:begin --> and <!-- graph:end --> in $doc" ""
fi
if ! diff -u "$tmp/doc_graph" "$tmp/graph" >"$tmp/graph.diff"; then
	fail "the graph in $doc is not the driver's (- document, + derived; --print gives it):" \
		"$(tail -n +3 "$tmp/graph.diff" | grep '^[-+]')"
fi

# Named cycles: "- `a.c` -> `b.c`: reason" lines, each an edge that closes
# a cycle. With those edges taken out, the graph must be acyclic.
grep -oE '^- `npu_[a-z0-9_]+\.c` -> `npu_[a-z0-9_]+\.c`: *.*' "$doc" >"$tmp/named_lines" || true
sed -E 's/^- `([^`]+)` -> `([^`]+)`:.*/\1 \2/' "$tmp/named_lines" | sort -u >"$tmp/named"
noreason=$(grep -E '`: *$' "$tmp/named_lines" || true)
if [[ -n $noreason ]]; then
	fail "named without a reason:" "$noreason"
fi
stale=$(comm -23 "$tmp/named" "$tmp/edges")
if [[ -n $stale ]]; then
	fail "named in $doc but no longer in the graph:" "$stale"
fi
comm -23 "$tmp/edges" "$tmp/named" >"$tmp/dag"
# tsort names the files of every cycle it meets on stderr, one a line.
if ! tsort <"$tmp/dag" >/dev/null 2>"$tmp/tsort.err"; then
	fail "cycles not named in $doc (each: the files on it):" \
		"$(sed -e 's/^tsort: -: input contains a loop:$/a cycle through/' \
			-e 's/^tsort: /  /' "$tmp/tsort.err")"
fi
if [[ $status -eq 0 ]]; then
	echo "$(wc -l <"$tmp/edges") edges between $(cut -d' ' -f1 "$tmp/graph" | wc -l) files;" \
		"$(wc -l <"$tmp/named") edge(s) named as closing a cycle; no other cycle"
fi
exit $status
