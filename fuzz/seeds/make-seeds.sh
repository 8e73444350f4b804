#!/usr/bin/env bash
# Writes the seed inputs of every fuzz target into fuzz/corpus/NAME/ (next to
# what is there): the shipped rule sets, presets and experiments, shard state
# files and saved states made by a unolab binary, and protocol and play input
# lines. The committed corpora grew from these (cargo fuzz run, then
# cargo fuzz cmin); rerun this after a change of a file format.
#
# usage: fuzz/seeds/make-seeds.sh [UNOLAB_BINARY]   (default: target/release/unolab)
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$(realpath "${1:-target/release/unolab}")
c=fuzz/corpus
mkdir -p $c/{rules,strategy,experiment,run_shard,experiment_shard,lockstep_state,protocol,play_input}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Rule sets: the built-ins, one with --set and --house lines, a small deck.
for f in src/engine/rulesets/*.toml; do cp "$f" "$c/rules/seed-$(basename "$f")"; done
{ cat src/engine/rulesets/classic.toml
  printf '# set hand_size=20\n# set scoring=penalty\n# set dealer=1\n# house stacking=cross,seven_o,jump_in,bluff_challenge\n'
} > $c/rules/seed-set-house.toml
cat > $c/rules/seed-small.toml <<'TOML'
name = "small"
[points]
red-7 = 40
skip = 25
[settings]
hand_size = 2
quick = true
ohana_fill_to = 6
[[deck]]
faces = ["7", "skip"]
count = 2
colors = ["red", "blue"]
[[deck]]
faces = ["wild-ohana", "wild-swap"]
count = 1
[[deck]]
faces = ["draw2"]
count = 1
effect = "skip"
TOML

# Strategies: the shipped presets, names as --strategies takes them.
for f in strategies/*.toml; do cp "$f" "$c/strategy/seed-$(basename "$f")"; done
printf '# load points,color,random,first\n# load ext:true\n# load ext:me=true --flag\n' > $c/strategy/seed-load.toml
printf 'name = "pimc-small"\nbase = "pimc"\n[search]\niterations = 2\nrollout = "points"\nhalving = true\nobjective = "points"\n' > $c/strategy/seed-pimc-small.toml

# Experiments: the shipped ones and a grid.
for f in experiments/*.toml fuzz/seeds/state-experiment.toml; do cp "$f" "$c/experiment/seed-$(basename "$f")"; done
cat > $c/experiment/seed-grid.toml <<'TOML'
name = "grid"
baseline = "none, 2 players"
[base]
strategies = "points,random"
set = ["max_turns=500"]
mode = "match"
games = 100
duplicate = true
[grid]
house = ["", "stacking=same", "seven_o"]
players = [2, 4]
[stop]
precision = 0.05
max_games = 1000
metrics = ["win_rate"]
TOML

# Run shards: two halves of a run in one input (one state per line), and
# single states of other modes.
run_shards() { # name, args...
  local name=$1; shift
  rm -rf "$tmp/r"
  "$bin" run "$@" --shard 0/2 -o "$tmp/r" -q >/dev/null
  "$bin" run "$@" --shard 1/2 -o "$tmp/r" -q >/dev/null
  cat "$tmp"/r/shard-*.json > "$c/run_shard/seed-$name.jsonl"
}
# (Short rounds and few strategies: a state's histograms have a bin per turn.)
short=(--set max_turns=150 --set max_rounds=8)
run_shards round -g 30 -p 3 -s points,random --seed 3 "${short[@]}"
run_shards match -m match -g 4 -p 2 -s points --seed 4 --set target=100 "${short[@]}"
run_shards duplicate --duplicate -g 12 -p 2 -s cautious,random --seed 5 --rules h2o "${short[@]}"
run_shards custom -g 10 -p 2 -s random --seed 6 --rules lilo-stitch --house seven_o,jump_in "${short[@]}"

# Experiment shards and saved states.
exp_shards() { # name, file
  rm -rf "$tmp/e"
  "$bin" experiment run "$2" --shard 0/2 --games 20 -o "$tmp/e" -q >/dev/null
  "$bin" experiment run "$2" --shard 1/2 --games 20 -o "$tmp/e" -q >/dev/null
  cat "$tmp"/e/shard-*.json > "$c/experiment_shard/seed-$1.jsonl"
}
exp_shards state fuzz/seeds/state-experiment.toml
exp_shards grid fuzz/seeds/grid-experiment.toml
rm -rf "$tmp/s"
"$bin" experiment run fuzz/seeds/state-experiment.toml -o "$tmp/s" -q >/dev/null
cp "$tmp/s/state.json" $c/lockstep_state/seed-complete.json
rm -rf "$tmp/s"
"$bin" experiment run fuzz/seeds/state-experiment.toml --games 20 -o "$tmp/s" -q >/dev/null
cp "$tmp/s/state.json" $c/lockstep_state/seed-partial.json

# Protocol and play input: a header (rule set byte, card masks), then lines.
python3 - "$c" <<'PY'
import sys
c = sys.argv[1]
def head(ruleset, *masks):
    return bytes([ruleset]) + b"".join(m.to_bytes(16, "little") for m in masks)
lines = [
    b'{"type": "hello", "version": 1}',
    b'{"answer": "red-7"}',
    b'{"answer": "draw"}',
    b'{"answer": "wild-draw4", "id": 3}',
    b'{"answer": true}',
    b'{"answer": "blue"}',
    b'{"answer": 2}',
    b'{"version": 2}',
    b'not json',
]
open(f"{c}/protocol/seed-answers", "wb").write(head(0, (1 << 108) - 1) + b"\n".join(lines) + b"\n")
open(f"{c}/protocol/seed-crlf", "wb").write(head(2, 0xFFFF0000FFFF) + b"\r\n".join(lines[:4]))
typed = [b"1", b"red-7", b"d", b"draw", b"Quit", b"y", b"no", b"g", b"purple", b"3", b"0", b"wild", b" Blue-Skip \r"]
open(f"{c}/play_input/seed-lines", "wb").write(head(4, (1 << 40) - 1, 0xF0F0F0F0F0) + b"\n".join(typed) + b"\n")
open(f"{c}/play_input/seed-few", "wb").write(head(1, 0b1011 << 60, 0b11 << 60) + b"2\n1\nr\n")
PY
ls $c/* | head -100
