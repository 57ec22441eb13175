#!/usr/bin/env bash
# fake_engine.sh -- stands in for 'sleighsweep' to test jobs/sweep.sbatch.
#
#   fake_engine.sh run [--resume] CONFIG
#   fake_engine.sh run --print-output CONFIG   (the output's absolute path)
#
# Mimics the engine's contract: SIGUSR1/SIGTERM -> mark the output unfinished
# and exit 3 (interrupted, resumable); completion -> exit 0; bad input -> 2;
# failure -> 1.  The "output" is a text file at [output] file (default: the
# config path with .h5) holding "unfinished" or "finished".  Every rank appends
# a line to FAKE_ENGINE_RECORD (default: <output>.record) so a test can check
# which runs happened.
# Knobs (environment): FAKE_ENGINE_SECONDS (fresh run length, default 3),
# FAKE_ENGINE_RESUME_SECONDS (resumed run length, default 1),
# FAKE_ENGINE_FAIL (exit with this status right after starting).
set -u

rank=${SLURM_PROCID:-${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-0}}}
[ "${1:-}" = run ] || { echo "fake_engine: usage: $0 run [--resume] CONFIG" >&2; exit 2; }
shift
mode=fresh
if [ "${1:-}" = --print-output ]; then mode=print; shift; fi
if [ "${1:-}" = --resume ]; then mode=resume; shift; fi
config=${1:-}
[ -r "$config" ] || { echo "fake_engine: cannot read config '$config'" >&2; exit 2; }

out=$(awk '/^[ \t]*[;#]/{next} /^[ \t]*\[/{s=$0; sub(/^[ \t]*\[/,"",s); sub(/\].*$/,"",s); sec=s; next}
           sec=="output" && /^[ \t]*file[ \t]*[=:]/{v=$0; sub(/^[^=:]*[=:][ \t]*/,"",v); sub(/[ \t]+;.*$/,"",v); sub(/[ \t\r]+$/,"",v); print v; exit}' "$config")
base=${config##*/}
case "$base" in ?*.*) def=${config%.*}.h5 ;; *) def=$config.h5 ;; esac
out=${out:-$def}
if [ "$mode" = print ]; then
  # As the engine: a relative [output] file is taken from the config's
  # directory (the default is derived from the config path itself).
  case "$out" in
    /*) ;;
    *) if [ "$out" = "$def" ]; then out=$(pwd)/$out; else out=$(cd "$(dirname "$config")" && pwd)/$out; fi ;;
  esac
  echo "$out"
  exit 0
fi
record=${FAKE_ENGINE_RECORD:-$out.record}

rec() { echo "$* rank=$rank mode=$mode job=${SLURM_JOB_ID:-none} restart=${SLURM_RESTART_COUNT:-0} omp=${OMP_NUM_THREADS:-unset}" >>"$record"; }
log() { echo "fake_engine[rank $rank]: $*" >&2; }

rec start
log "start ($mode), output $out"
if [ -n "${FAKE_ENGINE_FAIL:-}" ]; then
  rec "fail=$FAKE_ENGINE_FAIL"
  log "failing with status $FAKE_ENGINE_FAIL"
  exit "$FAKE_ENGINE_FAIL"
fi

# Only rank 0 looks at the output (the others would race with its writes).
state=""
[ "$rank" = 0 ] && state=$(cat "$out" 2>/dev/null || true)
if [ "$mode" = fresh ] && [ -n "$state" ]; then
  log "output $out exists; use --resume"; rec refused; exit 2
fi
if [ "$mode" = resume ] && [ "$state" = finished ]; then
  log "output already complete"; rec complete; exit 0
fi

interrupted() {
  trap '' USR1 TERM                     # one checkpoint is enough
  log "SIG$1: checkpointing"
  sleep 1                               # "make everything durable"
  [ "$rank" = 0 ] && echo unfinished >"$out"
  rec "interrupted=$1"
  log "interrupted, resumable (status 3)"
  exit 3
}
trap 'interrupted USR1' USR1
trap 'interrupted TERM' TERM

[ "$rank" = 0 ] && echo unfinished >"$out"
if [ "$mode" = fresh ]; then secs=${FAKE_ENGINE_SECONDS:-3}; else secs=${FAKE_ENGINE_RESUME_SECONDS:-1}; fi
for i in $(seq 1 "$secs"); do
  sleep 1 & wait $!
  log "progress $i/$secs"
done
[ "$rank" = 0 ] && echo finished >"$out"
rec complete
log "complete"
exit 0
