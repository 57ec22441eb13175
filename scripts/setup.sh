#!/bin/sh
# Installs the Debian 12 packages sleighsweep needs, only those missing.
# Usage: scripts/setup.sh [extra-package ...]   (apt needs root)
set -eu
PKGS="cmake make gcc pkg-config git libopenmpi-dev openmpi-bin
libhdf5-openmpi-dev hdf5-tools netcdf-bin udunits-bin libinih-dev libgsl-dev
g++ libboost-dev
python3-numpy python3-h5py python3-matplotlib python3-xarray
python3-h5netcdf flake8 cppcheck clang-format strace $*"
missing=""
for p in $PKGS; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"
  then missing="$missing $p"; fi
done
[ -z "$missing" ] && exit 0
echo "setup: installing$missing" >&2
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
    echo "setup: need root to install:$missing" >&2; exit 1; fi
else SUDO=""; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
