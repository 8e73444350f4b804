#!/usr/bin/env bash
# A real single-node Slurm on this machine: installs slurm-wlm and munge with
# apt-get when missing, starts munged, slurmctld and slurmd on localhost (own
# ports, files in a temporary folder), submits a job array of 4 shards of a run
# and the dependent merge with experiments/slurm/submit.sh, then 3 shards of an
# experiment and their merge, waits (bounded), and checks that each merged
# result equals one single-process run byte for byte.
# The daemons are stopped at the end, also on failure. Any step that does not
# work (install, a daemon that does not start, a job that fails or does not
# finish in time, a difference) fails the script with its logs.
# Needs root (or passwordless sudo) to install packages; the daemons run as
# the calling user. Usage: .ci/slurm.sh [path/to/unolab]
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
say() { echo "slurm.sh: $*" >&2; }
fail() { say "FAILED: $*"; exit 1; }

if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo -n"; fi
need=()
for b in slurmctld slurmd sbatch squeue sinfo munged; do
    command -v "$b" >/dev/null 2>&1 || need=(slurm-wlm munge)
done
if [ ${#need[@]} -gt 0 ]; then
    say "installing ${need[*]} with apt-get"
    $sudo apt-get update -qq || fail "apt-get update"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null ||
        fail "apt-get install ${need[*]}"
fi
# The packages may start system daemons with the default configuration; this
# script uses its own, on other ports and sockets, so they do not interfere.

bin=${1:-}
if [ -z "$bin" ]; then
    cargo build --release --quiet || fail "cargo build --release"
    bin=$repo/target/release/unolab
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
[ -x "$bin" ] || fail "no unolab binary at $bin"

work=$(mktemp -d /tmp/unolab-slurm.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
    local rc=$?
    if [ -n "${SLURM_CONF:-}" ] && [ -f "$SLURM_CONF" ]; then
        scancel --quiet --user="$(id -un)" 2>/dev/null || true
    fi
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$p" 2>/dev/null || true
    done
    if [ $rc -ne 0 ]; then
        for f in "$work"/*.log "$work"/out/*.out; do
            [ -f "$f" ] && { echo "----- $f"; tail -n 30 "$f"; } >&2
        done
    fi
    rm -rf "$work"
    exit $rc
}
trap cleanup EXIT
trap 'exit 1' INT TERM

user=$(id -un)
cpus=$(nproc)
# munge: its own key, socket and files.
mkdir -m 700 "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
munged --foreground --force --key-file="$work/munge/munge.key" \
    --socket="$work/munge/munge.socket" --pid-file="$work/munge/munged.pid" \
    --log-file="$work/munged.log" --seed-file="$work/munge/munged.seed" \
    >"$work/munged.stderr.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$work/munge/munge.socket" ] && break; sleep 0.1; done
[ -S "$work/munge/munge.socket" ] || fail "munged did not start"

mkdir -p "$work/state" "$work/spool" "$work/out"
export SLURM_CONF=$work/slurm.conf
cat >"$SLURM_CONF" <<CONF
ClusterName=unolabci
SlurmctldHost=localhost
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/munge.socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
SwitchType=switch/none
MinJobAge=600
DependencyParameters=kill_invalid_depend
NodeName=localhost NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=ci Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld -D -i -f "$SLURM_CONF" >"$work/slurmctld.stderr.log" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N localhost >"$work/slurmd.stderr.log" 2>&1 &
pids+=($!)
up=""
for _ in $(seq 60); do
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null || fail "a Slurm daemon exited"; done
    state=$(sinfo -h -n localhost -o %T 2>/dev/null || true)
    case $state in idle*) up=1; break ;; esac
    sleep 1
done
[ -n "$up" ] || fail "the node is not idle after 60 s (sinfo: '${state:-no answer}')"
say "single-node Slurm up ($cpus CPUs)"

# Submits N shards of ARGS... and the merge with submit.sh, waits for both
# jobs and checks that they completed and left N shard states.
#   submit_and_wait N SHARD_DIR OUT_DIR ARGS...
submit_and_wait() {
    local n=$1 shards=$2 out=$3
    shift 3
    local ids array merge finished="" st j
    ids=$(UNOLAB=$bin "$repo/experiments/slurm/submit.sh" "$n" "$shards" "$out" "$@") ||
        fail "submit.sh"
    say "submitted: $ids"
    read -r _ array _ merge <<<"$ids"
    for _ in $(seq 240); do
        if [ -z "$(squeue -h -j "$array,$merge" -o %i 2>/dev/null)" ]; then finished=1; break; fi
        case $(squeue -h -j "$merge" -o %r 2>/dev/null) in
            *DependencyNeverSatisfied*) fail "a shard task failed: the merge job can never start" ;;
        esac
        sleep 1
    done
    [ -n "$finished" ] || fail "the jobs did not finish in 240 s: $(squeue -h 2>&1)"
    for j in "$array" "$merge"; do
        st=$(scontrol -o show job "$j" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | sort -u | tr '\n' ' ')
        say "job $j: $st"
        case $st in *COMPLETED*) ;; *) fail "job $j did not complete ($st)" ;; esac
        case $st in *FAILED* | *CANCELLED* | *TIMEOUT*) fail "job $j: $st" ;; esac
    done
    local count
    count=$(find "$shards" -name "shard-*-of-$(printf %04d "$n").json" | wc -l)
    [ "$count" = "$n" ] || fail "$count shard states instead of $n"
}

args=(-g 40000 --seed 7 -p 4 -s random,points,color)
cd "$work/out"
submit_and_wait 4 "$work/shards" "$work/merged" "${args[@]}"

"$bin" run "${args[@]}" --quiet --threads 2 --out "$work/single" >/dev/null
for f in summary.csv distributions.csv; do
    [ -s "$work/merged/$f" ] || fail "the merge job wrote no $f"
    cmp "$work/merged/$f" "$work/single/$f" || fail "$f differs from the single-process run"
done
say "OK: 4 shards on Slurm merged equal one single-process run (summary.csv, distributions.csv)"

# An experiment: 3 shards of experiments/editions.toml, merged by the job.
exp=("$repo/experiments/editions.toml" --games 3000 --seed 7)
submit_and_wait 3 "$work/eshards" "$work/emerged" "${exp[@]}"
"$bin" experiment run "${exp[@]}" --quiet --threads 2 --out "$work/esingle" >/dev/null
for f in arms.csv comparisons.csv distributions.csv state.json differences.svg; do
    [ -s "$work/emerged/$f" ] || fail "the experiment's merge job wrote no $f"
    cmp "$work/emerged/$f" "$work/esingle/$f" >/dev/null && continue
    # The states record the commands that played them and their seconds
    # (provenance): equal but for those.
    [ "$f" = state.json ] || fail "$f differs from the single-process experiment"
    strip() { sed 's/,"commands":\[\[[^]]*\]\(,\[[^]]*\]\)*\]//; s/,"elapsed_s":[-0-9.eE+]*//' "$1"; }
    [ "$(strip "$work/emerged/$f")" != "$(cat "$work/emerged/$f")" ] \
        || fail "the merged state.json records no commands"
    cmp <(strip "$work/emerged/$f") <(strip "$work/esingle/$f") \
        || fail "$f differs from the single-process experiment (but for the commands and seconds)"
done
say "OK: 3 experiment shards on Slurm merged equal one single-process experiment (arms.csv, comparisons.csv, distributions.csv, state.json, differences.svg)"
