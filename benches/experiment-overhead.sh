#!/usr/bin/env bash
# Cost of the lockstep runner: experiments/house-rules.toml (10 arms) against
# the same 10 configurations as separate `unolab run`s, same seed, same games,
# one thread, alternating, REPS times. Prints each pair and the ratio of sums,
# for the whole processes (wall clock, including writing the results folder)
# for the games alone (the elapsed time each command reports), and in CPU
# time (user + system seconds of each process, from bash's `times`), which a
# busy host disturbs far less than wall time.
# Usage: benches/experiment-overhead.sh [GAMES] [REPS]
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-20000}
reps=${2:-3}
bin=target/release/unolab
[ -x "$bin" ] || cargo build --release
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
exp_total=0
sep_total=0
exp_in=0
sep_in=0
exp_cpu=0
sep_cpu=0
# CPU seconds (user + system) of the children finished so far.
# (`times` must run in this shell, not in a $(...) subshell.)
cpu_of() { tail -1 "$1" | awk '{ split($1, u, /[ms]/); split($2, v, /[ms]/); printf "%.3f", u[1] * 60 + u[2] + v[1] * 60 + v[2] }'; }
for r in $(seq "$reps"); do
  times > "$tmp/times"; c0=$(cpu_of "$tmp/times")
  t0=$(now)
  "$bin" experiment run experiments/house-rules.toml --games "$games" --threads 1 \
    --quiet --force --out "$tmp/exp" > /dev/null
  t1=$(now)
  times > "$tmp/times"; c1=$(cpu_of "$tmp/times")
  for rule in none stacking=same stacking=cross seven_o jump_in draw_to_match \
              force_play bluff_challenge stacking=cross,draw_to_match seven_o,jump_in; do
    house=()
    [ "$rule" = none ] || house=(--house "$rule")
    "$bin" run --rules classic --players 4 --strategies points,color,random,cautious \
      --games "$games" --seed 2026 --threads 1 --quiet --json "${house[@]}" > "$tmp/run.json"
    sep_in=$(echo "$sep_in + $(jq .elapsed_s "$tmp/run.json")" | bc -l)
  done
  t2=$(now)
  times > "$tmp/times"; c2=$(cpu_of "$tmp/times")
  exp_cpu=$(echo "$exp_cpu + $c1 - $c0" | bc -l)
  sep_cpu=$(echo "$sep_cpu + $c2 - $c1" | bc -l)
  exp_in=$(echo "$exp_in + $(jq .elapsed_s "$tmp/exp/manifest.json")" | bc -l)
  e=$(echo "$t1 - $t0" | bc -l); s=$(echo "$t2 - $t1" | bc -l)
  printf 'rep %d: experiment %.3f s, separate runs %.3f s, ratio %.4f\n' "$r" "$e" "$s" "$(echo "$e / $s" | bc -l)"
  exp_total=$(echo "$exp_total + $e" | bc -l)
  sep_total=$(echo "$sep_total + $s" | bc -l)
done
printf 'total wall clock: experiment %.3f s, separate %.3f s, ratio %.4f\n' "$exp_total" "$sep_total" "$(echo "$exp_total / $sep_total" | bc -l)"
printf 'total games only: experiment %.3f s, separate %.3f s, ratio %.4f\n' "$exp_in" "$sep_in" "$(echo "$exp_in / $sep_in" | bc -l)"
printf 'total CPU time: experiment %.3f s, separate %.3f s, ratio %.4f\n' "$exp_cpu" "$sep_cpu" "$(echo "$exp_cpu / $sep_cpu" | bc -l)"
