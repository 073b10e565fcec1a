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
mapfile -d '' files < <(git ls-files -z | grep -zv -e '\.md$' -e '^LICENSE$' -e '^LICENSES/' \
	-e '^tests/fuzz/corpus/')
# One grep for all files (a process per file took a minute on a loaded
# machine): FILE:SPDX-License-Identifier: ID for each file that has one.
declare -A ids=()
while IFS= read -r line; do
	f=${line%%:SPDX-License-Identifier: *}
	id=${line#*:SPDX-License-Identifier: }
	id=${id%"${id##*[![:space:]]}"}
	[[ -v ids[$f] ]] || ids[$f]=$id
done < <(printf '%s\0' "${files[@]}" | xargs -0 grep -m1 -H -o 'SPDX-License-Identifier: [^*]*' || true)
for f in "${files[@]}"; do
	id=${ids[$f]-}
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
done
[[ $status -eq 0 ]] && echo "every file names MIT or GPL-2.0 OR MIT"
exit $status
