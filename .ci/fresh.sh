#!/usr/bin/env bash
# A second build with nothing changed must be a no-op, also in a checkout
# without .git/packed-refs (one made with `git init` and never packed): cargo
# treats a watched path that does not exist as changed on every build.
#   .ci/fresh.sh unpack   turn the packed refs into loose ones, remove packed-refs
#   .ci/fresh.sh check    build twice; the second must print "Fresh unolab"
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
unpack)
    common=$(git rev-parse --path-format=absolute --git-common-dir)
    if [ -f "$common/packed-refs" ]; then
        grep -E '^[0-9a-f]{40} refs/' "$common/packed-refs" | while read -r sha ref; do
            [ -f "$common/$ref" ] && continue
            mkdir -p "$(dirname "$common/$ref")"
            echo "$sha" >"$common/$ref"
        done
        rm "$common/packed-refs"
    fi
    git rev-parse HEAD >/dev/null
    echo "fresh.sh: no packed-refs in $common"
    ;;
check)
    cargo build --release
    out=$(cargo build --release -v 2>&1)
    if ! grep -q 'Fresh unolab' <<<"$out"; then
        echo "fresh.sh: a second cargo build --release rebuilt the crate:" >&2
        echo "$out" >&2
        exit 1
    fi
    echo "fresh.sh: the second build is a no-op (Fresh unolab)"
    ;;
*)
    echo "usage: .ci/fresh.sh unpack|check" >&2
    exit 2
    ;;
esac
