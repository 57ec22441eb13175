#!/bin/sh
# The search for chaos in the driven sleigh (docs/chaos.md): runs the
# search sweeps of jobs/chaos/ (or the configs given), draws each one's
# Lyapunov chart (OUT/NAME.png) and confirms its candidates (no exponent
# stored, or one not negative beyond 3x its error) with `sleighsweep
# point` at rtol 1e-8 and 4e6 base steps, printing the report.
#
# Usage: analysis/chaos_search.sh [OUT [CONFIG...]]  (OUT: build/chaos)
# Environment: SSW_EXE (build/sleighsweep), MPIEXEC (mpirun), NP (1),
#              PYTHON (/usr/bin/python3).
# A sweep already complete in OUT is kept (resumed, not rerun): remove
# OUT/NAME.h5 to run it again. Each sweep takes a few CPU minutes
# (docs/chaos.md lists them).
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
case "${1:-}" in
  -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
OUT=${1:-$ROOT/build/chaos}
[ $# -gt 0 ] && shift
EXE=${SSW_EXE:-$ROOT/build/sleighsweep}
MPIEXEC=${MPIEXEC:-mpirun}
NP=${NP:-1}
PYTHON=${PYTHON:-/usr/bin/python3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMP_NUM_THREADS=1
if [ ! -x "$EXE" ]; then
  echo "chaos_search.sh: no engine at $EXE (build it, or set SSW_EXE)" >&2
  exit 2
fi
if [ $# -eq 0 ]; then
  set -- "$ROOT"/jobs/chaos/*.ini
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
files=""
for ini in "$@"; do
  name=$(basename "$ini" .ini)
  # a complete file is found complete; a killed one resumes
  "$MPIEXEC" -np "$NP" "$EXE" run --quiet --output "$OUT/$name.h5" \
    "$ini" >/dev/null
  files="$files $OUT/$name.h5"
done
# shellcheck disable=SC2086
"$PYTHON" -c 'import sys; sys.path.insert(0, sys.argv[1]); import _bootstrap
from sleighsweep import gallery_chaos
sys.exit(gallery_chaos.main(sys.argv[2:]))' "$ROOT/analysis" \
  --exe "$EXE" --out "$OUT" $files
