#!/bin/sh
# Static checks CI runs (.ci/run), a few seconds in all:
#   clang-format on the C sources (scripts/format-check.sh, .clang-format)
#   sizes: no C file over 800 lines, no function over 80 (scripts/size-check.py)
#   tiers: no file includes a header of a later tier (scripts/tier-check.sh)
#   flake8 on analysis/ and tests/ (configuration and check list: .flake8)
#   cppcheck on src/ (check list and the reasons: docs/static-analysis.md;
#   known findings still to fix: scripts/cppcheck-baseline.txt)
#   no comment or doc cites a tracker's issue numbers (a reader has no
#   tracker: say what the code does and why)
# Exit status 0 when both are clean, 1 otherwise; each prints its findings
# and their count. Installs flake8 and cppcheck if missing (scripts/setup.sh).
# Usage: scripts/lint.sh [--no-setup]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
[ "${1:-}" = --no-setup ] || "$ROOT/scripts/setup.sh"
status=0

if ./scripts/format-check.sh >/dev/null 2>&1; then
  echo "lint: clang-format: 0 files differ from .clang-format"
else
  ./scripts/format-check.sh >&2 || true
  status=1
fi

if /usr/bin/python3 scripts/size-check.py --top 0 >/dev/null 2>&1; then
  echo "lint: sizes: no C file over 800 lines, no function over 80"
else
  /usr/bin/python3 scripts/size-check.py >&2 || true
  status=1
fi

out=$(mktemp)
trap 'rm -f "$out"' EXIT
if ./scripts/tier-check.sh >"$out" 2>&1; then
  echo "lint: tiers: no file includes a header of a later tier"
else
  cat "$out" >&2
  echo "lint: tiers: $(grep -c ': ' "$out") finding(s) (scripts/tier-check.sh)" >&2
  status=1
fi

if git grep -n -i -E '\bissues? [0-9]+|\(issue [0-9]' -- src include tests \
  analysis scripts docs jobs README.md CMakeLists.txt cmake \
  ':!tests/fuzz/corpus' ':!scripts/lint.sh' >"$out" 2>&1; then
  cat "$out" >&2
  echo "lint: tracker references: $(wc -l <"$out") (say what, not which issue)" >&2
  status=1
else
  echo "lint: tracker references: none"
fi

if flake8 analysis python tests scripts/size-check.py >"$out" 2>&1; then
  echo "lint: flake8 analysis/ tests/: 0 findings"
else
  cat "$out" >&2
  echo "lint: flake8 analysis/ tests/: $(wc -l <"$out") finding(s)" >&2
  status=1
fi

# warning, style, performance, portability (--enable=style implies all
# four); not unusedFunction (needs the whole program: the library's API is
# called from tests/ and tests/bench/, outside src/); information only for
# unmatchedSuppression (a baseline entry that can go). Without the system,
# MPI and HDF5 include paths (missingIncludeSystem suppressed): their
# headers are not ours to check, and reading them costs seconds.
cppcheck --quiet --std=c11 -Iinclude -Isrc -D_GNU_SOURCE \
  --enable=style,information --inline-suppr \
  --suppress=missingIncludeSystem --suppress=unmatchedSuppression:nofile \
  --suppressions-list=scripts/cppcheck-baseline.txt \
  --template='{file}:{line}: {severity}/{id}: {message}' src 2>"$out" || true
n=$(grep -c ': ' "$out" || true)
base=$(grep -c '^[a-zA-Z]' scripts/cppcheck-baseline.txt || true)
if [ "$n" -eq 0 ]; then
  echo "lint: cppcheck src/: 0 findings ($base known ones listed in scripts/cppcheck-baseline.txt)"
else
  cat "$out" >&2
  echo "lint: cppcheck src/: $n finding(s) ($base more known ones listed in scripts/cppcheck-baseline.txt)" >&2
  status=1
fi
exit $status
