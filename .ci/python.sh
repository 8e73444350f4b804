#!/usr/bin/env bash
# The Python package (python/, docs/python.md): installed from this clone into
# a fresh virtual environment the way the README says (pip install ./python),
# then its test suite. Prints how long each part took.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
# The binding crate has a workspace of its own: the top-level cargo fmt does not see it.
(cd python && cargo fmt -- --check)
venv=$(mktemp -d)/venv
if ! python3 -m venv "$venv" 2>/dev/null; then
  # Debian and Ubuntu ship venv apart; wait for the lock other checks may hold.
  apt-get update -qq -o DPkg::Lock::Timeout=600
  apt-get install -y -qq -o DPkg::Lock::Timeout=600 python3-venv python3-pip
  rm -rf "$venv"
  python3 -m venv "$venv"
fi
# As if activated: the build backend runs the venv's maturin by name.
export VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH"
# The tools and test dependencies first; then the package itself without
# build isolation, so pip builds it with the maturin just installed instead
# of fetching another into a temporary environment.
"$venv/bin/pip" install --quiet --disable-pip-version-check maturin numpy pettingzoo gymnasium pandas pytest pytest-timeout rlcard
deps=$SECONDS
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-build-isolation ./python
built=$SECONDS
# From python/, so that tests/conftest.py finds the repository; the package
# comes from the virtual environment (python/py_src is not on the path).
# A test that hangs fails after 10 minutes, with its stack, instead of
# holding CI until its own time runs out.
(cd python && OPENBLAS_NUM_THREADS=1 "$venv/bin/python" -m pytest -q --timeout 600 tests)
echo "python.sh: dependencies $((deps - start)) s, build and install $((built - deps)) s, tests $((SECONDS - built)) s"
