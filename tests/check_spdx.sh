#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every tracked file but prose (*.md), the licence texts and fuzz inputs
# names its licence in an SPDX-License-Identifier line, and only the
# licences LICENSE lists are used.
#   check_spdx.sh SOURCE_DIR     (exit 77, skipped, outside a git checkout)
set -euo pipefail
cd "$1"
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || exit 77
status=0
while IFS= read -r -d '' f; do
	case $f in
	*.md | LICENSE | LICENSES/* | tests/fuzz/corpus/*) continue ;;
	esac
	line=$(grep -m1 -o 'SPDX-License-Identifier: [^*]*' "$f" || true)
	id=${line#SPDX-License-Identifier: }
	id=${id%"${id##*[![:space:]]}"}
	case $id in
	MIT | "GPL-2.0 OR MIT") ;;
	"")
		echo "$f: no SPDX-License-Identifier line" >&2
		status=1
		;;
	*)
		echo "$f: licence '$id' is not one LICENSE lists" >&2
		status=1
		;;
	esac
done < <(git ls-files -z)
[[ $status -eq 0 ]] && echo "every file names MIT or GPL-2.0 OR MIT"
exit $status
