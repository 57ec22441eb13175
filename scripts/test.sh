#!/bin/sh
# Installs what is missing, builds, and runs the whole test suite (CTest).
# Usage: scripts/test.sh [ctest options, e.g. -R extract]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
"$ROOT/scripts/setup.sh"
# -Werror: a warning fails the README's test command and CI (the main-job
# command builds without it, so a newer compiler's new warning never stops
# a researcher's run).
"$ROOT/scripts/build.sh" -DSSW_WERROR=ON
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
cd "$BUILD_DIR"
ctest --output-on-failure -j 2 "$@"
