#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 600), PARALLEL at a time
# (default 2), each with its corpus, and prints each target's last status
# line (executions, coverage, corpus) and any crash written to artifacts/.
# Logs go to fuzz/logs/NAME.log.
#
# usage: fuzz/run-all.sh [SECONDS] [PARALLEL]   (needs cargo-fuzz and nightly)
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-600}
par=${2:-2}
targets=(rules strategy experiment run_shard experiment_shard lockstep_state protocol play_input)
cargo +nightly fuzz build -O
mkdir -p logs
run() {
  local t=$1
  # The state inputs are large (a histogram bin per turn): longer inputs.
  local len=8192
  case $t in run_shard|experiment_shard|lockstep_state) len=400000 ;; esac
  cargo +nightly fuzz run -O "$t" -- -max_total_time="$secs" -rss_limit_mb=2048 \
    -timeout=20 -max_len="$len" -print_final_stats=1 > "logs/$t.log" 2>&1 || true
}
export -f run
export secs
printf '%s\n' "${targets[@]}" | xargs -P "$par" -I{} bash -c 'run {}'
for t in "${targets[@]}"; do
  printf '%-17s ' "$t"
  grep -E '^#[0-9]+' "logs/$t.log" | tail -1 || true
  grep -E 'stat::number_of_executed_units|SUMMARY|panicked' "logs/$t.log" | head -3 || true
done
ls artifacts/*/ 2>/dev/null || echo "no artifacts"
