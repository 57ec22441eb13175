#!/bin/sh
# Installs what is missing, builds, and runs the whole test suite (CTest).
# Usage: scripts/test.sh [ctest options, e.g. -R extract]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
"$ROOT/scripts/setup.sh"
"$ROOT/scripts/build.sh"
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
cd "$BUILD_DIR"
ctest --output-on-failure -j 2 "$@"
