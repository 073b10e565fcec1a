#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# libascendcl.so exports exactly its C API: every function the CANN headers
# (include/acl, include/aclnn and include/aclnnop for the operators,
# include/runtime for CANN's rt* functions, include/mstx and
# include/profiling for the profiling tools' functions) and npu/hal.h
# declare, and nothing else (not the driver or the mock kernel linked in for
# the in-process device).
#   check_exports.sh LIBASCENDCL INCLUDE_DIR [CC]
# The acl* functions are read from the preprocessed headers, so that line
# breaks, comments, deprecation attributes and macros do not matter: every
# acl* function the headers declare must carry ACL_FUNC_VISIBILITY.
set -euo pipefail
if [[ $# -lt 2 ]]; then
	echo "usage: $0 LIBASCENDCL INCLUDE_DIR [CC]" >&2
	exit 2
fi
lib=$1
inc=$2
cc=${3:-${CC:-cc}}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "reading the functions of $inc/acl/*.h, acl/ops/*.h, aclnn/*.h and aclnnop/*.h with $cc -E"
for h in "$inc"/acl/*.h "$inc"/acl/ops/*.h "$inc"/aclnn/*.h "$inc"/aclnnop/*.h; do
	echo "#include \"${h#"$inc"/}\""
done >"$tmp/all.c"
# ACL_FUNC_VISIBILITY (defined only if not defined yet) becomes a marker.
"$cc" -E -P -DACL_FUNC_VISIBILITY=__npu_exported_api__ -I"$inc" "$tmp/all.c" |
	tr '\n' ' ' >"$tmp/all.i"
# Marked declarations: the identifier before the first "(" after the marker.
grep -oE '__npu_exported_api__[^;(]*\(' "$tmp/all.i" |
	grep -oE 'acl[A-Za-z0-9_]*[[:space:]]*\($' | tr -d ' (' | sort >"$tmp/marked"
# Every acl* identifier followed by "(" in the preprocessed headers is a
# function declaration, except the return type of a function-pointer
# typedef ("typedef aclError (*name)(...)").
grep -oE '\bacl[A-Za-z0-9_]*[[:space:]]*\([^*]' "$tmp/all.i" | grep -oE '^acl[A-Za-z0-9_]*' |
	sort >"$tmp/named"

status=0
# report TITLE LINES: a failure and its list, on stderr.
report() {
	echo "$1" >&2
	local line
	while IFS= read -r line; do
		echo "  $line" >&2
	done <<<"$2"
	status=1
}
if [[ ! -s $tmp/marked ]]; then
	echo "no ACL_FUNC_VISIBILITY declaration found in $inc/acl" >&2
	exit 1
fi
dups=$(uniq -d "$tmp/marked")
if [[ -n $dups ]]; then
	report "declared more than once:" "$dups"
fi
unmarked=$(comm -13 <(sort -u "$tmp/marked") <(sort -u "$tmp/named"))
if [[ -n $unmarked ]]; then
	report "declared without ACL_FUNC_VISIBILITY:" "$unmarked"
fi

# The rt* functions of runtime/rt.h: every declaration carries RTS_API.
echo '#include "runtime/rt.h"' >"$tmp/rt.c"
"$cc" -E -P -DRTS_API=__npu_exported_rt__ -I"$inc" "$tmp/rt.c" | tr '\n' ' ' >"$tmp/rt.i"
grep -oE '__npu_exported_rt__[^;(]*\(' "$tmp/rt.i" |
	grep -oE 'rt[A-Za-z0-9_]*[[:space:]]*\($' | tr -d ' (' | sort >"$tmp/rt_marked"
grep -oE '\brt[A-Z][A-Za-z0-9_]*[[:space:]]*\(' "$tmp/rt.i" | tr -d ' (' | sort >"$tmp/rt_named"
if [[ ! -s $tmp/rt_marked ]]; then
	echo "no RTS_API declaration found in $inc/runtime/rt.h" >&2
	exit 1
fi
rt_unmarked=$(comm -13 <(sort -u "$tmp/rt_marked") <(sort -u "$tmp/rt_named"))
if [[ -n $rt_unmarked ]]; then
	report "declared in runtime/rt.h without RTS_API:" "$rt_unmarked"
fi

# The tools extension (mstx/ms_tools_ext.h) and the model registration of
# profiling/aprof_pub.h: their functions carry ACL_FUNC_VISIBILITY too.
printf '#include "mstx/ms_tools_ext.h"\n#include "profiling/aprof_pub.h"\n' >"$tmp/prof.c"
"$cc" -E -P -DACL_FUNC_VISIBILITY=__npu_exported_api__ -I"$inc" "$tmp/prof.c" |
	tr '\n' ' ' >"$tmp/prof.i"
grep -oE '__npu_exported_api__[^;(]*\(' "$tmp/prof.i" |
	grep -oE '(mstx|Msprof)[A-Za-z0-9_]*[[:space:]]*\($' | tr -d ' (' | sort >"$tmp/prof_marked"
if [[ ! -s $tmp/prof_marked ]]; then
	echo "no function found in $inc/mstx/ms_tools_ext.h or profiling/aprof_pub.h" >&2
	exit 1
fi

echo "comparing with the dynamic symbols of $lib"
exported=$(nm -D --defined-only "$lib" | awk '{print $NF}' | sort -u)
# Besides, the C library's signal-handler functions that the mock kernel
# wraps to notice a replaced SIGSEGV handler (mockdev/kernel/sigwatch.c):
# all of them, or none in a sanitizer build.
wrapped=$(printf '%s\n' sigaction __sigaction signal bsd_signal ssignal sysv_signal \
	__sysv_signal sigset | sort)
exported_wrapped=$(comm -12 <(echo "$exported") <(echo "$wrapped"))
if [[ -n $exported_wrapped && $exported_wrapped != "$wrapped" ]]; then
	report "only some of the wrapped libc functions are exported:" "$exported_wrapped"
fi
exported=$(comm -23 <(echo "$exported") <(echo "$wrapped"))
declared=$( (sort -u "$tmp/marked" "$tmp/rt_marked" "$tmp/prof_marked"
	grep -hoE '^[a-z][a-z0-9_ *]*\bnpuHal[A-Za-z0-9_]*\(' "$inc"/npu/hal.h |
		grep -oE 'npuHal[A-Za-z0-9_]*\($' | tr -d '(') | sort -u)
extra=$(comm -23 <(echo "$exported") <(echo "$declared"))
missing=$(comm -13 <(echo "$exported") <(echo "$declared"))
if [[ -n $extra ]]; then
	report "exported but not declared in the headers:" "$extra"
fi
if [[ -n $missing ]]; then
	report "declared but not exported:" "$missing"
fi
if [[ $status -eq 0 ]]; then
	echo "$(echo "$exported" | wc -l) symbols exported, each declared in include/acl" \
		"($(wc -l <"$tmp/marked") acl* functions), include/runtime" \
		"($(wc -l <"$tmp/rt_marked") rt* functions) or npu/hal.h," \
		"and $(echo "$exported_wrapped" | grep -c .) wrapped libc functions"
fi
exit $status
