#!/bin/sh
# Installs what is missing, builds, and runs the whole test suite (CTest).
# Usage: scripts/test.sh [ctest options, e.g. -R extract]
# Without options every test runs: the SLURM tests (label slurm, one at a
# time: they start their own scheduler and wait on its 1-minute time
# limits, using little CPU) beside the others (ctest -j 2), their output
# kept in $BUILD_DIR/slurm-tests.log and printed at the end.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
"$ROOT/scripts/setup.sh"
# -Werror: a warning fails the README's test command and CI (the main-job
# command builds without it, so a newer compiler's new warning never stops
# a researcher's run).
"$ROOT/scripts/build.sh" -DSSW_WERROR=ON
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
cd "$BUILD_DIR"
if [ $# -gt 0 ]; then
  exec ctest --output-on-failure -j 2 "$@"
fi
start=$(date +%s)
ctest --output-on-failure -L slurm >slurm-tests.log 2>&1 &
slurm=$!
status=0
ctest --output-on-failure -j 2 -LE slurm || status=$?
slurm_status=0
wait "$slurm" || slurm_status=$?
echo "---- SLURM tests (run beside the others; $BUILD_DIR/slurm-tests.log)"
cat slurm-tests.log
echo "test.sh: every test in $(( $(date +%s) - start )) s; status" \
  "$status, SLURM tests $slurm_status" >&2
[ "$status" -eq 0 ] && [ "$slurm_status" -eq 0 ]
