#!/bin/sh
# Installs the Debian 12 packages sleighsweep needs, only those missing.
# Usage: scripts/setup.sh [extra-package ...]   (apt needs root)
# Then registers this checkout's Python package (python/sleighsweep) with
# Debian's /usr/bin/python3 (a .pth file in its site directory), so that
# `import sleighsweep` works from anywhere.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PKGS="cmake make gcc pkg-config git libopenmpi-dev openmpi-bin
libhdf5-openmpi-dev hdf5-tools netcdf-bin udunits-bin libinih-dev libgsl-dev
g++ libboost-dev
python3-numpy python3-h5py python3-matplotlib python3-xarray
python3-h5netcdf cdo nco flake8 cppcheck clang-format strace $*"
missing=""
for p in $PKGS; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"
  then missing="$missing $p"; fi
done
SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO=sudo; fi
if [ -n "$missing" ]; then
  echo "setup: installing$missing" >&2
  if [ "$(id -u)" -ne 0 ] && [ -z "$SUDO" ]; then
    echo "setup: need root to install:$missing" >&2; exit 1; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  # shellcheck disable=SC2086
  $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
# import sleighsweep: this checkout's python/ on /usr/bin/python3's path
site=$(/usr/bin/python3 -c 'import site; print(site.getsitepackages()[0])')
pth="$site/sleighsweep.pth"
if [ "$(cat "$pth" 2>/dev/null)" != "$ROOT/python" ]; then
  if [ "$(id -u)" -eq 0 ] || [ -n "$SUDO" ]; then
    $SUDO mkdir -p "$site"
    echo "$ROOT/python" | $SUDO tee "$pth" >/dev/null
    echo "setup: import sleighsweep now finds $ROOT/python ($pth)" >&2
  else
    echo "setup: to import sleighsweep, export PYTHONPATH=$ROOT/python" >&2
  fi
fi
