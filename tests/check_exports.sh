#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# libascendcl.so exports exactly its C API: every function the CANN headers
# (include/acl) and npu/hal.h declare, and nothing else (not the driver or
# the mock kernel linked in for the in-process device).
#   check_exports.sh LIBASCENDCL INCLUDE_DIR
set -euo pipefail
lib=$1
inc=$2
exported=$(nm -D --defined-only "$lib" | awk '{print $NF}' | sort -u)
# Declared functions: an identifier followed by "(" on a line that declares
# a function of the C API (ACL_FUNC_VISIBILITY, or hal.h's prototypes).
declared=$( (grep -ho 'ACL_FUNC_VISIBILITY[^(]*\b\(acl[A-Za-z0-9_]*\)(' "$inc"/acl/*.h |
	grep -o 'acl[A-Za-z0-9_]*($' | tr -d '('
	grep -hoE '^[a-z][a-z0-9_ *]*\bhal[A-Za-z0-9_]*\(' "$inc"/npu/hal.h |
		grep -oE 'hal[A-Za-z0-9_]*\($' | tr -d '(') | sort -u)
status=0
extra=$(comm -23 <(echo "$exported") <(echo "$declared"))
missing=$(comm -13 <(echo "$exported") <(echo "$declared"))
if [[ -n $extra ]]; then
	echo "exported but not declared in the headers:" >&2
	echo "$extra" | sed 's/^/  /' >&2
	status=1
fi
if [[ -n $missing ]]; then
	echo "declared but not exported:" >&2
	echo "$missing" | sed 's/^/  /' >&2
	status=1
fi
[[ $status -eq 0 ]] && echo "$(echo "$exported" | wc -l) symbols exported, each declared in include/acl or npu/hal.h"
exit $status
