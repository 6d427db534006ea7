#!/usr/bin/env bash
# Starts a real single-node Slurm cluster on this machine, as root, for `bench ... --slurm` and its tests
# (apps/bench/src/slurm): Debian's slurm-wlm (22.05) and munge, a generated slurm.conf with one node on
# loopback (the machine's CPUs, at most 2, and its memory), and the daemons started directly — no systemd
# in CI: munged, slurmctld and slurmd, each detached from this shell so they outlive it.
# No accounting database (no slurmdbd): `sacct` is not available; bench reads task states from `squeue`
# and from the files the tasks write on the shared --out (see apps/bench/README.md, "Running on a cluster").
# Idempotent: every step is skipped when already done. Safe to run before every test run.
#
#   bash .ci/slurm-setup.sh      # then: sinfo; pnpm --filter @graphplan/bench exec vitest run src/slurm
#
# Environment (all optional):
#   GRAPHPLAN_SLURM_PARTITION  the partition's name (default debug)
#   GRAPHPLAN_SLURM_CPUS       CPUs of the node (default: the machine's, at most 2)
set -euo pipefail

PARTITION="${GRAPHPLAN_SLURM_PARTITION:-debug}"
CPUS="${GRAPHPLAN_SLURM_CPUS:-$(( $(nproc) < 2 ? $(nproc) : 2 ))}"
CONF=/etc/slurm/slurm.conf
CGROUP_CONF=/etc/slurm/cgroup.conf
LOGDIR=/var/log/slurm
SPOOL=/var/spool/slurmctld
SLURMD_SPOOL=/var/spool/slurmd
NODE=localhost

say() { echo "slurm-setup: $*"; }
die() { echo "slurm-setup: ERROR: $*" >&2; exit 1; }
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

[ "$(id -u)" = 0 ] || die "run as root (it installs packages, writes ${CONF} and starts the daemons)"

# 1. Packages: the controller, the node daemon, the client commands and munge (authentication).
missing=()
for pkg in slurmctld slurmd slurm-client munge; do
  installed "$pkg" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  say "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  say "packages already installed"
fi

# 2. munge: a key (the package makes one; made here if it is missing) and the daemon.
if [ ! -s /etc/munge/munge.key ]; then
  say "creating /etc/munge/munge.key"
  dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key status=none
fi
chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
mkdir -p /run/munge /var/log/munge /var/lib/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge
chmod 755 /run/munge
if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  say "munged already answers"
else
  say "starting munged"
  su -s /bin/sh munge -c "/usr/sbin/munged --force" || die "munged did not start (see /var/log/munge/munged.log)"
  for _ in $(seq 1 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
  munge -n | unmunge >/dev/null 2>&1 || die "munged does not answer (see /var/log/munge/munged.log)"
fi

# 3. slurm.conf: one node (this machine, on loopback) in one partition; cgroups off (no systemd, and a
#    container may not own its cgroup tree); finished jobs stay visible to squeue for an hour (no sacct).
MEM_MB=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 1024 ))
desired_conf="# Written by .ci/slurm-setup.sh (GraphPlan): a single-node cluster on loopback.
ClusterName=graphplan
SlurmctldHost=${NODE}(127.0.0.1)
AuthType=auth/munge
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=${SPOOL}
SlurmdSpoolDir=${SLURMD_SPOOL}
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=${LOGDIR}/slurmctld.log
SlurmdLogFile=${LOGDIR}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MinJobAge=3600
SchedulerParameters=sched_interval=1
MessageTimeout=30
SlurmdTimeout=300
KillWait=10
MpiDefault=none
NodeName=${NODE} NodeAddr=127.0.0.1 CPUs=${CPUS} RealMemory=${MEM_MB} State=UNKNOWN
PartitionName=${PARTITION} Nodes=${NODE} Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
"
desired_cgroup="# Written by .ci/slurm-setup.sh (GraphPlan): cgroups without systemd (the job tasks use proctrack/linuxproc and task/none).
IgnoreSystemd=yes
"
conf_changed=0
mkdir -p /etc/slurm "$LOGDIR" "$SPOOL" "$SLURMD_SPOOL"
if [ ! -f "$CONF" ] || [ "$(cat "$CONF")" != "$(printf '%s' "$desired_conf")" ]; then
  if [ -f "$CONF" ] && [ ! -f "${CONF}.before-graphplan" ] && ! grep -q "slurm-setup.sh (GraphPlan)" "$CONF"; then cp "$CONF" "${CONF}.before-graphplan"; fi
  printf '%s' "$desired_conf" >"$CONF"
  conf_changed=1
  say "wrote ${CONF} (node ${NODE}: ${CPUS} CPUs, ${MEM_MB} MB; partition ${PARTITION})"
fi
if [ ! -f "$CGROUP_CONF" ] || [ "$(cat "$CGROUP_CONF")" != "$(printf '%s' "$desired_cgroup")" ]; then
  printf '%s' "$desired_cgroup" >"$CGROUP_CONF"
  conf_changed=1
fi

running() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
stop() {
  local pid
  pid="$(cat "$1" 2>/dev/null || true)"
  [ -n "$pid" ] || return 0
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}

# 4. The daemons, started from / (they outlive this script); restarted when the configuration changed.
if [ "$conf_changed" = 1 ]; then
  running /run/slurmd.pid && { say "configuration changed: restarting slurmd"; stop /run/slurmd.pid; }
  running /run/slurmctld.pid && { say "configuration changed: restarting slurmctld"; stop /run/slurmctld.pid; }
fi
if running /run/slurmctld.pid; then
  say "slurmctld already runs"
else
  say "starting slurmctld (log ${LOGDIR}/slurmctld.log)"
  (cd / && slurmctld -i) || die "slurmctld did not start (see ${LOGDIR}/slurmctld.log)"
fi
if running /run/slurmd.pid; then
  say "slurmd already runs"
else
  say "starting slurmd (log ${LOGDIR}/slurmd.log)"
  (cd / && slurmd) || die "slurmd did not start (see ${LOGDIR}/slurmd.log)"
fi

# 5. The node must be idle (it is DOWN after an unclean stop: resume it).
state=""
for _ in $(seq 1 100); do
  state="$(sinfo -h -n "$NODE" -o '%T' 2>/dev/null | head -n1 || true)"
  case "$state" in
    idle | mixed | allocated | completing) break ;;
    down* | drain* | fail*) scontrol update NodeName="$NODE" State=RESUME >/dev/null 2>&1 || true ;;
  esac
  sleep 0.2
done
case "$state" in
  idle | mixed | allocated | completing) ;;
  *) tail -n 20 "${LOGDIR}/slurmctld.log" >&2 || true; die "node ${NODE} is '${state:-unknown}', not idle (see ${LOGDIR}/slurmctld.log and slurmd.log)" ;;
esac

say "ready: partition ${PARTITION}, node ${NODE} (${state}), $(sbatch --version)"
