#!/bin/sh
# Installs what is missing, builds, and runs sleighsweep on the built-in
# example: the 2025 paper's seed case, one trajectory, measured vs closed form.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
"$ROOT/scripts/setup.sh"
"$ROOT/scripts/build.sh"
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
"$BUILD_DIR/sleighsweep" point --trajectory "$BUILD_DIR/seed_trajectory.csv"
echo "quickstart: trajectory written to $BUILD_DIR/seed_trajectory.csv" >&2
