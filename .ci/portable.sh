#!/usr/bin/env bash
# The portable build (`cargo build-portable`, x86-64-v2) runs on an old CPU and
# gives the same results as the native build: both play the same games, the
# portable binary under qemu's user-mode emulation of an Intel Nehalem (2008:
# SSE4.2 and POPCNT, no AVX, no BMI1/BMI2), and their outputs must be equal
# except the timing line. Installs qemu-user with apt-get when missing.
# Usage: .ci/portable.sh
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "portable.sh: $*" >&2; }
fail() { say "FAILED: $*"; exit 1; }

if ! command -v qemu-x86_64 >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo -n"; fi
    say "installing qemu-user with apt-get"
    $sudo apt-get update -qq || fail "apt-get update"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq qemu-user >/dev/null ||
        fail "apt-get install qemu-user"
fi
cargo build-portable --quiet || fail "cargo build-portable"
cargo build --release --quiet || fail "cargo build --release"
portable=target/portable/release/unolab
native=target/release/unolab

# A run with every built-in kind of work: rotation, house rules, match mode.
check() {
    local a b
    a=$(qemu-x86_64 -cpu Nehalem "$portable" "$@" --quiet --threads 1) ||
        fail "the portable build failed on a Nehalem CPU: unolab $*"
    b=$("$native" "$@" --quiet --threads 1) || fail "the native build failed: unolab $*"
    [ "$(grep -v '^elapsed ' <<<"$a")" = "$(grep -v '^elapsed ' <<<"$b")" ] ||
        fail "portable and native builds differ: unolab $*"
}
check run -g 3000 --seed 11 -p 4 -s random,points,color,cautious
check run -g 300 --seed 12 -p 3 -s points,cautious,color --mode match --house stacking=cross,jump_in
check run -g 2000 --seed 13 --rules h2o -p 5 -s color,points
say "OK: the portable build runs on an emulated Nehalem and equals the native build"
