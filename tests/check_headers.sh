#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CANN headers (include/acl, and the operator headers include/aclnn and
# include/aclnnop) compile warning-free as C11 and as C++17
# with the flags of CANN's samples, and carry upstream's struct layouts and
# enum values: header_abi.c, compiled once per language, asserts them.
#   check_headers.sh INCLUDE_DIR [CC] [CXX]
set -euo pipefail
if [[ $# -lt 1 ]]; then
	echo "usage: $0 INCLUDE_DIR [CC] [CXX]" >&2
	exit 2
fi
inc=$1
cc=${2:-${CC:-cc}}
cxx=${3:-${CXX:-c++}}
src=$(dirname "${BASH_SOURCE[0]}")/header_abi.c

echo "C11: $cc -std=c11 -Wall -Wextra -Werror"
"$cc" -std=c11 -Wall -Wextra -Werror -I"$inc" -c "$src" -o /dev/null
echo "C++17 (CANN samples): $cxx -O2 -std=c++17 -D_GLIBCXX_USE_CXX11_ABI=0 -Wall -Werror"
"$cxx" -x c++ -O2 -std=c++17 -D_GLIBCXX_USE_CXX11_ABI=0 -Wall -Werror -I"$inc" -c "$src" \
	-o /dev/null
echo "C++17 with -Wextra: $cxx -std=c++17 -Wall -Wextra -Werror"
"$cxx" -x c++ -std=c++17 -Wall -Wextra -Werror -I"$inc" -c "$src" -o /dev/null
echo "the headers compile as C and C++ with upstream's layouts and values"
