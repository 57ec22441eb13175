#!/usr/bin/env bash
# slurm_up.sh DIR -- start a private single-node SLURM (plus munged) in DIR.
#
# Everything this instance needs lives under DIR: slurm.conf, state and spool
# directories, logs, pid files, the munge socket.  It listens on its own ports
# (SSW_SLURMCTLD_PORT / SSW_SLURMD_PORT, default 16817/16818) so it does not
# collide with a system SLURM.  Clients must use it through
#     export SLURM_CONF=DIR/slurm.conf
# which this script prints as its last line of stdout.
#
# Exit status: 0 up and node idle; 77 SLURM missing and cannot be installed
# (not root or no apt-get); 1 anything else (log tails are printed).
# Stop it with tests/slurm/slurm_down.sh DIR.
set -euo pipefail

die()  { echo "slurm_up: ERROR: $*" >&2; exit 1; }
note() { echo "slurm_up: $*" >&2; }

[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
mkdir -p "$1"
DIR=$(cd "$1" && pwd -P)
CONF=$DIR/slurm.conf
UP_TIMEOUT=${SSW_SLURM_UP_TIMEOUT:-60}

# ---------------------------------------------------------------- packages --
need_install=0
for c in slurmctld slurmd sbatch srun scontrol sinfo munged munge; do
  command -v "$c" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin
  command -v "$c" >/dev/null 2>&1 || need_install=1
done
if [ "$need_install" = 1 ]; then
  if [ "$(id -u)" != 0 ]; then
    note "SKIP: slurm-wlm/munge not installed and not root, cannot install"
    exit 77
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    note "SKIP: slurm-wlm/munge not installed and no apt-get"
    exit 77
  fi
  note "installing slurm-wlm and munge with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y slurm-wlm munge >"$DIR/apt.log" 2>&1 || {
    apt-get update >>"$DIR/apt.log" 2>&1 &&
      apt-get install -y slurm-wlm munge >>"$DIR/apt.log" 2>&1
  } || { tail -n 30 "$DIR/apt.log" >&2; die "apt-get install slurm-wlm munge failed"; }
  for c in slurmctld slurmd sbatch srun scontrol sinfo munged munge; do
    command -v "$c" >/dev/null 2>&1 || die "$c still missing after install"
  done
fi
[ "$(id -u)" = 0 ] || { note "SKIP: the daemons must be started as root"; exit 77; }

# ----------------------------------------------------------------- helpers --
alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }
pidof_file() { [ -s "$1" ] && tr -dc '0-9' <"$1" || true; }

dump_logs() {
  local f
  for f in "$DIR/log/slurmctld.log" "$DIR/log/slurmd.log" "$DIR/munge/munged.log"; do
    [ -f "$f" ] || continue
    echo "----- tail of $f -----" >&2
    tail -n 40 "$f" >&2
  done
}

mkdir -p "$DIR/state" "$DIR/spool/slurmd-$(hostname -s)" "$DIR/log" "$DIR/run" "$DIR/tmp"
chmod 0755 "$DIR"              # the munge user must reach DIR/munge
chmod 1777 "$DIR/tmp"           # TmpFS (pmix server dirs) for job users
touch "$DIR/run/started"        # names of the daemons *we* started

# ------------------------------------------------------------------- munge --
# Reuse a system munged if one runs; otherwise run our own as the munge user
# with socket, pid, log and seed under DIR/munge.
MUNGE_SOCKET=""
our_munged=$(pidof_file "$DIR/munge/munged.pid")
if alive "$our_munged"; then
  MUNGE_SOCKET=$DIR/munge/munge.socket
  note "munged already running from this DIR (pid $our_munged)"
else
  # A system munged (default socket) that works is reused; the munged of
  # another slurm_up.sh DIR is not (it goes away with that DIR).
  sys_socket=""
  for s in /run/munge/munge.socket.2 /var/run/munge/munge.socket.2; do
    if [ -S "$s" ] && munge -n -S "$s" 2>/dev/null | unmunge -S "$s" >/dev/null 2>&1; then
      sys_socket=$s
      break
    fi
  done
  if [ -n "$sys_socket" ]; then
    MUNGE_SOCKET=$sys_socket
    note "reusing the running system munged (socket $MUNGE_SOCKET)"
  else
    id munge >/dev/null 2>&1 || die "no 'munge' user (is the munge package installed?)"
    mkdir -p "$DIR/munge"
    chown munge:munge "$DIR/munge"
    chmod 0755 "$DIR/munge"
    KEY=/etc/munge/munge.key
    if [ ! -s "$KEY" ]; then
      KEY=$DIR/munge/munge.key
      if [ ! -s "$KEY" ]; then
        note "no /etc/munge/munge.key: creating a private key in $KEY"
        if command -v mungekey >/dev/null 2>&1; then
          mungekey --create --keyfile="$KEY"
        else
          dd if=/dev/urandom of="$KEY" bs=1 count=1024 status=none
        fi
        chown munge:munge "$KEY"
        chmod 0600 "$KEY"
      fi
    fi
    MUNGE_SOCKET=$DIR/munge/munge.socket
    rm -f "$MUNGE_SOCKET" "$MUNGE_SOCKET.lock"
    if command -v runuser >/dev/null 2>&1; then
      as_munge=(runuser -u munge --)
    else
      as_munge=(setpriv --reuid=munge --regid=munge --init-groups)
    fi
    "${as_munge[@]}" "$(command -v munged)" \
      --socket="$MUNGE_SOCKET" --pid-file="$DIR/munge/munged.pid" \
      --log-file="$DIR/munge/munged.log" --seed-file="$DIR/munge/munged.seed" \
      --key-file="$KEY" ||
      { dump_logs; die "munged failed to start"; }
    echo munged >>"$DIR/run/started"
    note "started munged (pid $(pidof_file "$DIR/munge/munged.pid"), socket $MUNGE_SOCKET)"
  fi
fi
for _ in $(seq 1 20); do
  munge -n -S "$MUNGE_SOCKET" 2>/dev/null | unmunge -S "$MUNGE_SOCKET" >/dev/null 2>&1 && break
  sleep 0.5
done
munge -n -S "$MUNGE_SOCKET" | unmunge -S "$MUNGE_SOCKET" >/dev/null ||
  { dump_logs; die "munge credential round trip failed on $MUNGE_SOCKET"; }

# ------------------------------------------------------------------- ports --
# SSW_SLURMCTLD_PORT/SSW_SLURMD_PORT if given; else the first free pair from
# 16817/16818 on (so concurrent test runs do not collide).  A rerun on the same
# DIR keeps the ports of its slurm.conf.
listening() {  # listening PORT: some socket listens on it (IPv4 or IPv6)
  local hex
  hex=$(printf ':%04X' "$1")
  cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk -v p="$hex" '$2 ~ p"$" && $4 == "0A" {f=1} END {exit !f}'
}
if [ -n "${SSW_SLURMCTLD_PORT:-}" ]; then
  CTLD_PORT=$SSW_SLURMCTLD_PORT
  SLURMD_PORT=${SSW_SLURMD_PORT:-$((CTLD_PORT + 1))}
elif [ -f "$CONF" ] && alive "$(pidof_file "$DIR/run/slurmctld.pid")"; then
  CTLD_PORT=$(sed -n 's/^SlurmctldPort=//p' "$CONF")
  SLURMD_PORT=$(sed -n 's/^SlurmdPort=//p' "$CONF")
else
  CTLD_PORT=16817
  while listening "$CTLD_PORT" || listening "$((CTLD_PORT + 1))"; do
    CTLD_PORT=$((CTLD_PORT + 2))
    [ "$CTLD_PORT" -lt 16917 ] || die "no free port pair in 16817..16916"
  done
  SLURMD_PORT=$((CTLD_PORT + 1))
fi

# -------------------------------------------------------------- slurm.conf --
HOST=$(hostname -s)
CPUS=$(nproc)
MEM_MB=$(awk '/^MemTotal:/{printf "%d", $2/1024}' /proc/meminfo)
REALMEM=$(( MEM_MB / 2 ))             # well under what slurmd detects
[ "$REALMEM" -ge 256 ] || REALMEM=256
ADDR=127.0.0.1                        # single node: loopback only

cat >"$CONF" <<EOF
# Generated by tests/slurm/slurm_up.sh -- private single-node test cluster.
ClusterName=sswtest
SlurmctldHost=$HOST($ADDR)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# cred_expire also delays the restart of a requeued job (default 120 s).
AuthInfo=socket=$MUNGE_SOCKET,cred_expire=${SSW_CRED_EXPIRE:-10}
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool/slurmd-%n
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
TmpFS=$DIR/tmp
MailProg=/bin/true
PlugStackConfig=$DIR/plugstack.conf
# No cgroups: works in containers/sandboxes.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
# A rank that dies takes its step down (no hanging MPI jobs in tests).
KillOnBadExit=1
# Batch jobs may requeue themselves (scontrol requeue / --requeue).
JobRequeue=1
# --signal=B:USR1@N needs no setting; slurmctld checks time limits (and sends
# these warnings) every 30 s, so a signal arrives up to 30 s after it is due.
OverTimeLimit=0
KillWait=10
UnkillableStepTimeout=120
# Start jobs fast; also re-run the scheduler often so requeued jobs restart.
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2,bf_interval=2,batch_sched_delay=0,sched_min_interval=0,default_queue_depth=100
# Keep finished jobs visible to 'scontrol show job' (no accounting here).
MinJobAge=3600
InactiveLimit=0
SlurmctldTimeout=300
SlurmdTimeout=300
MessageTimeout=60
BatchStartTimeout=60
TCPTimeout=10
NodeName=$HOST NodeAddr=$ADDR NodeHostname=$HOST CPUs=$CPUS RealMemory=$REALMEM State=UNKNOWN
PartitionName=debug Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
: >"$DIR/plugstack.conf"   # keep /etc/slurm/plugstack.conf out of our cluster
export SLURM_CONF=$CONF

# ------------------------------------------------------------ the daemons --
for d in slurmctld slurmd; do
  pid=$(pidof_file "$DIR/run/$d.pid")
  if alive "$pid"; then
    note "$d already running from this DIR (pid $pid)"
    continue
  fi
  rm -f "$DIR/run/$d.pid"
  if [ "$d" = slurmctld ]; then
    listening "$CTLD_PORT" && die "port $CTLD_PORT already in use (set SSW_SLURMCTLD_PORT)"
    SSW_SLURM_INSTANCE=$DIR "$(command -v slurmctld)" -f "$CONF" || { dump_logs; die "slurmctld failed to start"; }
  else
    SSW_SLURM_INSTANCE=$DIR "$(command -v slurmd)" -f "$CONF" || { dump_logs; die "slurmd failed to start"; }
  fi
  for _ in $(seq 1 50); do
    [ -s "$DIR/run/$d.pid" ] && break
    sleep 0.2
  done
  pid=$(pidof_file "$DIR/run/$d.pid")
  alive "$pid" || { dump_logs; die "$d did not stay up"; }
  echo "$d" >>"$DIR/run/started"
  note "started $d (pid $pid)"
done

# ------------------------------------------------------ wait for idle node --
state=""
deadline=$(( $(date +%s) + UP_TIMEOUT ))
while [ "$(date +%s)" -lt "$deadline" ]; do
  state=$(sinfo -h -N -n "$HOST" -o '%T' 2>/dev/null | head -n 1 || true)
  case "$state" in
    idle|mixed|allocated) break ;;
    down*|drain*)
      # ReturnToService=2 normally avoids this; nudge it once.
      scontrol update NodeName="$HOST" State=RESUME >/dev/null 2>&1 || true ;;
  esac
  sleep 1
done
case "$state" in
  idle|mixed|allocated) ;;
  *) dump_logs; die "node $HOST not idle after ${UP_TIMEOUT}s (state: '${state:-no answer}')" ;;
esac
note "node $HOST is $state; controller on port $CTLD_PORT"
echo "export SLURM_CONF=$CONF"
