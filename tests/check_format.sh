#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The runtime's C++ (runtime/src) follows the root
# .clang-format; kmod/ and mockdev/ follow the kernel's style instead, and
# runtime/include keeps the layout of the CANN headers it mirrors.
#   check_format.sh SOURCE_DIR [CLANG_FORMAT]
# Exit 77 (skipped) outside a git checkout or without clang-format.
set -euo pipefail
cd "$1"
cf=${2:-clang-format}
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || exit 77
if ! command -v "$cf" >/dev/null; then
	echo "$cf not found: install clang-format (scripts/test.sh does)" >&2
	exit 77
fi
mapfile -d '' files < <(git ls-files -z -- 'runtime/src/*.cpp' 'runtime/src/*.h')
[[ ${#files[@]} -gt 0 ]] || exit 77
# One clang-format for all of them (a process per file took minutes on a
# loaded machine); each misformatted spot is reported as FILE:LINE:COL.
out=$("$cf" --style=file --dry-run --Werror "${files[@]}" 2>&1 >/dev/null) || true
mapfile -t bad < <(sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: .*clang-format.*/\1/p' <<<"$out" | sort -u)
if [[ ${#bad[@]} -eq 0 && -n $out ]]; then
	printf '%s\n' "$out" >&2
	echo "$cf failed" >&2
	exit 1
fi
if [[ ${#bad[@]} -gt 0 ]]; then
	printf '%s\n' "${bad[@]}" >&2
	echo "${#bad[@]} of ${#files[@]} files differ from .clang-format;" \
		"fix them with: $cf -i FILE..." >&2
	exit 1
fi
echo "${#files[@]} runtime files follow .clang-format ($("$cf" --version))"
