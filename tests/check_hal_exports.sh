#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# libascend_hal.so exports exactly the driver API its header declares: every
# DLLEXPORT function of include/driver/ascend_hal.h (read with the C
# preprocessor) and nothing else. The header compiles on its own as C11 and
# as C++17, warnings as errors, by either include path.
#   check_hal_exports.sh LIBASCEND_HAL INCLUDE_DIR [CC]
set -euo pipefail
if [[ $# -lt 2 ]]; then
	echo "usage: $0 LIBASCEND_HAL INCLUDE_DIR [CC]" >&2
	exit 2
fi
lib=$1
inc=$2
cc=${3:-${CC:-cc}}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '#include "ascend_hal.h"\n#include "driver/ascend_hal.h"\nint main(void) { return 0; }\n' >"$tmp/use.c"
"$cc" -std=c11 -pedantic-errors -Wall -Wextra -Werror -fsyntax-only -I"$inc" -I"$inc/driver" \
	"$tmp/use.c"
"$cc" -x c++ -std=c++17 -pedantic-errors -Wall -Wextra -Werror -fsyntax-only -I"$inc" \
	-I"$inc/driver" "$tmp/use.c"
echo "ascend_hal.h compiles as C11 and C++17"

echo '#include "driver/ascend_hal.h"' >"$tmp/all.c"
"$cc" -E -P -DDLLEXPORT=__npu_exported_api__ -I"$inc" "$tmp/all.c" | tr '\n' ' ' >"$tmp/all.i"
grep -oE '__npu_exported_api__[^;(]*\(' "$tmp/all.i" |
	grep -oE '[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\($' | tr -d ' (' | sort >"$tmp/declared"
if [[ ! -s $tmp/declared ]]; then
	echo "no DLLEXPORT declaration found in $inc/driver/ascend_hal.h" >&2
	exit 1
fi
nm -D --defined-only "$lib" | awk '{print $NF}' | sort -u >"$tmp/exported"
status=0
extra=$(comm -23 "$tmp/exported" <(sort -u "$tmp/declared"))
missing=$(comm -13 "$tmp/exported" <(sort -u "$tmp/declared"))
dups=$(uniq -d "$tmp/declared")
if [[ -n $extra ]]; then
	echo "exported but not declared in ascend_hal.h:" >&2
	echo "$extra" | sed 's/^/  /' >&2
	status=1
fi
if [[ -n $missing ]]; then
	echo "declared in ascend_hal.h but not exported:" >&2
	echo "$missing" | sed 's/^/  /' >&2
	status=1
fi
if [[ -n $dups ]]; then
	echo "declared more than once:" >&2
	echo "$dups" | sed 's/^/  /' >&2
	status=1
fi
echo "$(wc -l <"$tmp/declared") functions declared, $(wc -l <"$tmp/exported") exported"
exit $status
