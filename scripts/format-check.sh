#!/bin/sh
# Checks that the C sources follow .clang-format, changing nothing:
# clang-format --dry-run -Werror on src/, include/ and tests/ (*.c, *.h).
# Lists the files that would change and their count; exit status 1 if any.
# Run by CI through scripts/lint.sh. To fix one file: clang-format -i FILE.  Needs Debian's clang-format (14).
# Usage: scripts/format-check.sh [-v]   (-v: show every diagnostic)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
CLANG_FORMAT=${CLANG_FORMAT:-clang-format}
command -v "$CLANG_FORMAT" >/dev/null 2>&1 ||
  { echo "format-check: $CLANG_FORMAT not found (apt-get install clang-format)" >&2; exit 2; }
files=$(git ls-files 'src/*.c' 'src/*.h' 'include/*.h' 'tests/*.c' 'tests/*.h')
total=0 bad=0
for f in $files; do
  total=$((total + 1))
  if ! "$CLANG_FORMAT" --dry-run -Werror "$f" >/dev/null 2>&1; then
    bad=$((bad + 1))
    echo "format-check: $f"
    [ "${1:-}" = -v ] && "$CLANG_FORMAT" --dry-run "$f" 2>&1 | head -n 20
  fi
done
echo "format-check: $bad of $total C files differ from .clang-format"
[ "$bad" -eq 0 ]
