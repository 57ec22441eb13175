#!/usr/bin/env bash
# test_slurm_smoke.sh -- a private single-node SLURM runs MPI jobs and delivers
# the time-limit signal that jobs/sweep.sbatch relies on.
#
#  1. batch job: srun --mpi=pmix -n 2 hostname (and an MPI hello through PMIx
#     when mpicc is there: checks that both ranks see size 2)
#  2. batch job: mpirun -np 2 hostname (+ the MPI hello) as root
#  3. batch job with --time=1 --signal=B:USR1@58: the script traps USR1,
#     writes a marker and requeues itself with 'scontrol requeue'; the rerun
#     (SLURM_RESTART_COUNT=1) sees the marker and exits 0.
# Exit: 0 pass, 77 skip (not root, or SLURM missing without apt), 1 fail.
# Takes about a minute (the signal comes with slurmctld's 30 s time-limit tick).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

slurm_test_setup smoke
need_packages mpirun openmpi-bin
J=$SSW_T/jobs
HOST=$(hostname -s)

# MPI hello world: proves PMIx wire-up, not just process launch.
HELLO=""
if command -v mpicc >/dev/null 2>&1; then
  cat >"$J/hello.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  printf("hello rank %d of %d\n", rank, size);
  MPI_Finalize();
  return 0;
}
EOF
  mpicc -o "$J/hello" "$J/hello.c" || fail "mpicc hello.c failed"
  HELLO=$J/hello
else
  msg "mpicc not found: checking process launch only (hostname)"
fi

# ---------------------------------------------------------- job scripts --
cat >"$J/srun.sh" <<EOF
#!/bin/bash
set -e
srun --mpi=pmix -n 2 hostname
[ -z "$HELLO" ] || srun --mpi=pmix -n 2 "$HELLO"
EOF
cat >"$J/mpirun.sh" <<EOF
#!/bin/bash
set -e
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun -np 2 hostname
[ -z "$HELLO" ] || mpirun -np 2 "$HELLO"
EOF
cat >"$J/signal.sh" <<EOF
#!/bin/bash
marker=$J/signal.marker
echo "run start=\$(date +%s) restart=\${SLURM_RESTART_COUNT:-0}"
if [ -f "\$marker" ]; then
  echo "marker found: second run finishes"
  exit 0
fi
on_usr1() {
  echo "USR1 at \$(date +%s)"
  echo "\$SLURM_JOB_ID" >"\$marker"
  scontrol requeue "\$SLURM_JOB_ID" || { echo "requeue failed"; exit 1; }
  echo "requeued"
  exit 0
}
trap on_usr1 USR1
sleep 300 &
wait
echo "no USR1 came"
exit 1
EOF
chmod +x "$J"/*.sh

check_hosts() {  # check_hosts FILE: two lines with our hostname
  local n
  n=$(grep -cx "$HOST" "$1" || true)
  [ "$n" = 2 ] || fail "$1: expected 2 lines '$HOST', got $n"
  if [ -n "$HELLO" ]; then
    grep -qx 'hello rank 0 of 2' "$1" && grep -qx 'hello rank 1 of 2' "$1" ||
      fail "$1: MPI hello did not report ranks 0 and 1 of 2"
  fi
}

# ---------------------------------------------------------------- 1 + 2 --
t1=$(date +%s)
j1=$(submit -n 2 -J smoke-srun -o "$J/srun-%j.out" "$J/srun.sh") || fail "submit srun job"
j2=$(submit -n 2 -J smoke-mpirun -o "$J/mpirun-%j.out" "$J/mpirun.sh") || fail "submit mpirun job"
for j in "$j1" "$j2"; do
  st=$(wait_job "$j" 120) || fail "job $j not finished after 120 s (state $st)"
  ec=$(job_field "$j" ExitCode)
  [ "$st" = COMPLETED ] && [ "$ec" = 0:0 ] ||
    fail "job $j: JobState=$st ExitCode=$ec (expected COMPLETED 0:0)"
done
check_hosts "$J/srun-$j1.out"
check_hosts "$J/mpirun-$j2.out"
msg "srun --mpi=pmix job $j1 and mpirun job $j2 COMPLETED 0:0 in $(( $(date +%s) - t1 ))s"
sed 's/^/    srun:   /' "$J/srun-$j1.out"
sed 's/^/    mpirun: /' "$J/mpirun-$j2.out"

# -------------------------------------------------------------------- 3 --
# --time is in whole minutes (1 is the least); @58 makes the warning due 2 s
# after the start, and slurmctld sends it at its next 30 s time-limit tick.
t3=$(date +%s)
j3=$(submit -n 1 -J smoke-signal --time=1 --signal=B:USR1@58 --open-mode=append \
      -o "$J/signal-%j.out" "$J/signal.sh") || fail "submit signal job"
st=$(wait_job "$j3" 170) || fail "signal job $j3 not finished after 170 s (state $st)"
out=$J/signal-$j3.out
ec=$(job_field "$j3" ExitCode)
restarts=$(job_field "$j3" Restarts)
[ "$st" = COMPLETED ] && [ "$ec" = 0:0 ] ||
  fail "signal job $j3: JobState=$st ExitCode=$ec (expected COMPLETED 0:0)"
[ "$restarts" = 1 ] || fail "signal job $j3: Restarts=$restarts (expected 1)"
grep -q '^USR1 at' "$out" || fail "signal job $j3: first run got no USR1"
grep -q '^requeued' "$out" || fail "signal job $j3: first run did not requeue"
grep -q 'restart=1' "$out" || fail "signal job $j3: no run with SLURM_RESTART_COUNT=1"
grep -q '^marker found' "$out" || fail "signal job $j3: second run did not see the marker"
s1=$(awk -F'[= ]' '/^run start=/{print $3; exit}' "$out")
u1=$(awk '/^USR1 at/{print $3; exit}' "$out")
s2=$(awk -F'[= ]' '/^run start=/{v=$3} END{print v}' "$out")
msg "signal job $j3: USR1 $((u1 - s1))s after start, rerun $((s2 - u1))s after requeue, total $(( $(date +%s) - t3 ))s"
sed 's/^/    signal: /' "$out"

msg "PASS in $(elapsed)s"
echo "3 passed, 0 failed"
