#!/usr/bin/env bash
# test_sbatch_flow.sh -- jobs/sweep.sbatch's control flow on a private SLURM,
# with tests/slurm/fake_engine.sh standing in for the engine.
#
#  normal    -n 2 -c 1, srun --mpi=pmix: COMPLETED 0:0, log beside the output
#  threads   -n 1 -c 2, SSW_LAUNCHER=mpirun: COMPLETED 0:0, OMP_NUM_THREADS=2
#  timelimit --time=1 --signal=B:USR1@58: USR1 -> engine exits 3 -> scontrol
#            requeue -> rerun with --resume -> COMPLETED 0:0, Restarts=1
#  followup  the same with --no-requeue: requeue refused -> follow-up job
#            (afterany) resumes and completes; the first ends FAILED 3:0
#  failing   engine exits 1: FAILED, ExitCode 1:0
#  badinput  missing config: FAILED, ExitCode 2:0
#  cancel    scancel of a running job: the engine checkpoints (exit 3) and the
#            job is NOT requeued (CANCELLED, Restarts=0)
# Exit: 0 pass, 77 skip (not root, or SLURM missing without apt), 1 fail.
# Takes about a minute and a half (the signal comes with slurmctld's 30 s tick).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

SBATCH_SCRIPT=$(cd "$SSW_SLURM_DIR/../../jobs" && pwd -P)/sweep.sbatch
[ -f "$SBATCH_SCRIPT" ] || { echo "FAIL: $SBATCH_SCRIPT missing"; exit 1; }

slurm_test_setup flow
need_packages mpirun openmpi-bin
W=$SSW_T/jobs
mkdir -p "$W/out"
export SLEIGHSWEEP=$SSW_SLURM_DIR/fake_engine.sh
cd "$W" || fail "cd $W"

mkconfig() {  # mkconfig NAME -> NAME.ini writing out/NAME.h5
  printf '[body]\nm = 1\nI0 = 0.5\nrho = 1\n\n[output]\nfile = out/%s.h5 ; fake engine output\n' \
    "$1" >"$W/$1.ini"
}
for c in normal threads timelimit followup failing cancel; do mkconfig "$c"; done

sub() {  # sub NAME [sbatch options...] -- submits jobs/sweep.sbatch NAME.ini
  local name=$1
  shift
  submit -J "flow-$name" -o "$W/$name-%j.out" "$@" "$SBATCH_SCRIPT" "$name.ini"
}

# The long ones first: the time-limit warning comes at slurmctld's next 30 s
# tick, meanwhile the short jobs run on the other core.
jt=$(sub timelimit -n 1 -c 1 --time=1 --signal=B:USR1@58 \
      --export=ALL,FAKE_ENGINE_SECONDS=150) || fail "submit timelimit"
jf=$(sub followup -n 1 -c 1 --time=1 --signal=B:USR1@58 --no-requeue \
      --export=ALL,FAKE_ENGINE_SECONDS=150,SSW_LAUNCHER=mpirun) || fail "submit followup"
jn=$(sub normal -n 2 -c 1 --export=ALL,FAKE_ENGINE_SECONDS=3) || fail "submit normal"
jh=$(sub threads -n 1 -c 2 --export=ALL,FAKE_ENGINE_SECONDS=2,SSW_LAUNCHER=mpirun) ||
  fail "submit threads"
jx=$(sub failing -n 1 -c 1 --export=ALL,FAKE_ENGINE_FAIL=1) || fail "submit failing"
jb=$(submit -J flow-badinput -o "$W/badinput-%j.out" -n 1 -c 1 "$SBATCH_SCRIPT" no-such.ini) ||
  fail "submit badinput"
jc=$(sub cancel -n 1 -c 1 --export=ALL,FAKE_ENGINE_SECONDS=150) || fail "submit cancel"
msg "submitted: timelimit=$jt followup=$jf normal=$jn threads=$jh failing=$jx badinput=$jb cancel=$jc"

PASSED=0
expect_job() {  # expect_job NAME ID STATE EXITCODE [RESTARTS]
  local name=$1 id=$2 st ec rs
  st=$(wait_job "$id" 240) || fail "$name: job $id not finished after 240 s (state $st)"
  ec=$(job_field "$id" ExitCode)
  rs=$(job_field "$id" Restarts)
  [ "$st" = "$3" ] && { [ "$4" = - ] || [ "$ec" = "$4" ]; } ||
    fail "$name: job $id JobState=$st ExitCode=$ec (expected $3 $4)"
  if [ -n "${5:-}" ] && [ "$rs" != "$5" ]; then
    fail "$name: job $id Restarts=$rs (expected $5)"
  fi
  msg "$name: job $id $st ExitCode=$ec Restarts=$rs"
}
has() {  # has FILE PATTERN WHAT
  grep -qE -- "$2" "$1" 2>/dev/null || fail "$3 ($1 has no line matching '$2')"
}
lines() { grep -cE -- "$2" "$1" 2>/dev/null || true; }

# ---------------------------------------------------------------- normal --
expect_job normal "$jn" COMPLETED 0:0 0
has out/normal.h5 '^finished$' "normal: output not finished"
[ "$(lines out/normal.h5.record '^complete .*mode=fresh')" = 2 ] ||
  fail "normal: expected both ranks to complete a fresh run"
has out/normal.h5.log 'launcher=srun' "normal: srun --mpi=pmix was not chosen"
has out/normal.h5.log 'sweep complete' "normal: log beside the output lacks the summary"
has "normal-$jn.out" 'sweep complete' "normal: job stdout lacks the summary"
PASSED=$((PASSED + 1))

# --------------------------------------------------------------- threads --
expect_job threads "$jh" COMPLETED 0:0 0
has out/threads.h5.record '^complete .*omp=2' "threads: OMP_NUM_THREADS=2 did not reach the engine"
has out/threads.h5.log 'launcher=mpirun' "threads: mpirun was not used"
PASSED=$((PASSED + 1))

# --------------------------------------------------------------- failing --
expect_job failing "$jx" FAILED 1:0
has out/failing.h5.log 'sweep FAILED \(status 1\)' "failing: log lacks the failure"
PASSED=$((PASSED + 1))

# -------------------------------------------------------------- badinput --
expect_job badinput "$jb" FAILED 2:0
has "badinput-$jb.out" "config 'no-such.ini' is not readable" "badinput: no message"
PASSED=$((PASSED + 1))

# ---------------------------------------------------------------- cancel --
deadline=$(( $(date +%s) + 240 ))
until grep -q '^start ' out/cancel.h5.record 2>/dev/null; do
  [ "$(date +%s)" -lt "$deadline" ] || fail "cancel: job $jc did not start its engine in 240 s"
  sleep 1
done
scancel "$jc" || fail "cancel: scancel $jc failed"
expect_job cancel "$jc" CANCELLED - 0
sleep 3   # the script's last lines
has out/cancel.h5.log 'not requeued' "cancel: the script did not decline to requeue"
has out/cancel.h5.record '^interrupted=' "cancel: the engine was not asked to checkpoint"
[ "$(job_field "$jc" JobState)" = CANCELLED ] || fail "cancel: job $jc came back"
PASSED=$((PASSED + 1))

# ------------------------------------------------------------- timelimit --
expect_job timelimit "$jt" COMPLETED 0:0 1
r=out/timelimit.h5.record
has "$r" '^interrupted=USR1 .*mode=fresh .*restart=0' "timelimit: first run was not interrupted by USR1"
has "$r" '^start .*mode=resume .*restart=1' "timelimit: no --resume run after the requeue"
has "$r" '^complete .*mode=resume' "timelimit: resumed run did not complete"
has out/timelimit.h5 '^finished$' "timelimit: output not finished"
has out/timelimit.h5.log "requeued job $jt" "timelimit: log does not show the requeue"
# Timings from the log: start, signal, end of the first run; start of the rerun.
tl=out/timelimit.h5.log
ts() { date -d "$(grep -m1 -E "$1" "$tl" | sed -E 's/^\[sweep.sbatch ([0-9-]+ [0-9:]+)\].*/\1/')" +%s 2>/dev/null || echo 0; }
a=$(ts 'restart 0'); b=$(ts 'received SIGUSR1'); c=$(ts 'restart 1'); d=$(ts 'sweep complete')
msg "timelimit: USR1 $((b - a))s after start, rerun started $((c - b))s after it, done $((d - a))s after the first start"
PASSED=$((PASSED + 1))

# -------------------------------------------------------------- followup --
expect_job followup "$jf" FAILED 3:0 0
next=$(sed -n 's/.*submitted follow-up job \([0-9]*\).*/\1/p' out/followup.h5.log | head -n 1)
[ -n "$next" ] || fail "followup: no follow-up job was submitted"
expect_job followup-next "$next" COMPLETED 0:0 0
r=out/followup.h5.record
has out/followup.h5.log 'scontrol requeue refused' "followup: requeue was not refused"
has "$r" "^interrupted=USR1 .*mode=fresh .*job=$jf" "followup: first job not interrupted by USR1"
has "$r" "^complete .*mode=resume .*job=$next" "followup: follow-up job did not resume and complete"
has out/followup.h5 '^finished$' "followup: output not finished"
PASSED=$((PASSED + 1))

msg "PASS in $(elapsed)s"
echo "$PASSED passed, 0 failed"
