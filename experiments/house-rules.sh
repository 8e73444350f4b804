#!/usr/bin/env bash
# What stacking, seven-o, jump-in and draw-to-match do to game length, to who
# wins and to the score distribution: one run per house rule on classic UNO,
# same seed and line-up, results in results/house-rules/<rule>/.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=target/release/unolab
[ -x "$bin" ] || cargo build --release
for rule in none stacking=same stacking=cross seven_o jump_in draw_to_match bluff_challenge; do
  house=()
  [ "$rule" = none ] || house=(--house "$rule")
  "$bin" run --rules classic --players 4 --strategies points,color,random,cautious \
    --mode match --games 20000 --seed 2026 --quiet "${house[@]}" \
    --out "results/house-rules/${rule//=/-}"
done
