#!/usr/bin/env bash
# Paired speed comparison: the work tree against a git revision, in one process.
#
#   benches/compare.sh REV [SAMPLES]     e.g. benches/compare.sh HEAD~3 400
#   UNOLAB_COMPARE_HOUSE=stacking=cross,jump_in benches/compare.sh REV
#                                        (both sides with those house rules)
#
# Builds both versions of the library into one harness (benches/compare/
# harness.rs), alternates samples of 2,000 four-player classic rounds between
# them and prints each side's best and median rate and the median speed-up.
# On a shared, noisy host this ratio is steady to about 1%, where separate runs
# of two binaries differ by a third. REV must have the same runner API
# (sim::RunConfig::new, sim::play_games).
set -euo pipefail
rev=${1:?usage: benches/compare.sh REV [SAMPLES]}
samples=${2:-400}
root=$(git rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/base" "$work/harness/src" "$work/harness/.cargo"
git -C "$root" archive "$rev" | tar -x -C "$work/base"
# The base copy becomes the crate unolab_base (package and library name).
sed -i '0,/^name = "unolab"/s//name = "unolab_base"/' "$work/base/Cargo.toml"
sed -i '/^\[lib\]/,/^\[/ s/^name = "unolab"/name = "unolab_base"/' "$work/base/Cargo.toml"
cp "$root/benches/compare/harness.rs" "$work/harness/src/main.rs"
cp "$root/benches/compare/paired.rs" "$work/harness/src/paired.rs"
cp "$root/.cargo/config.toml" "$work/harness/.cargo/config.toml"
cat > "$work/harness/Cargo.toml" <<TOML
[package]
name = "unolab-compare"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
unolab = { path = "$root" }
unolab_base = { path = "$work/base" }

[profile.release]
lto = true
codegen-units = 1

[workspace]
TOML
cd "$work/harness"
CARGO_TARGET_DIR="$root/target/compare" cargo build --release --quiet
"$root/target/compare/release/unolab-compare" "$samples"
