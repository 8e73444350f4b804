#!/bin/bash
# Submits a job array of N shards of `unolab run RUN_ARGS` (or of `unolab
# experiment run FILE OPTIONS` when RUN_ARGS starts with a .toml file) and a
# merge job that starts when every shard succeeded (--dependency=afterok).
#   experiments/slurm/submit.sh N SHARD_DIR OUT_DIR RUN_ARGS...
#   experiments/slurm/submit.sh N SHARD_DIR OUT_DIR EXPERIMENT.toml [OPTIONS...]
# The unolab binary is $UNOLAB (default: unolab on the PATH); options for the
# merge go in $MERGE_OPTS (for example "--force" to replace the results
# already in OUT_DIR, which the merge refuses without it); extra sbatch
# options for both jobs go in $SBATCH_OPTS (for example "--partition=short
# --time=02:00:00"). Prints the two job ids. SHARD_DIR and OUT_DIR must be on a
# file system every node sees.
set -euo pipefail
if [ $# -lt 3 ]; then
    echo "usage: $0 N SHARD_DIR OUT_DIR RUN_ARGS..." >&2
    exit 2
fi
n=$1 shards=$2 out=$3
shift 3
case $n in
    '' | *[!0-9]* | 0) echo "$0: N must be a positive integer, not '$n'" >&2; exit 2 ;;
esac
# Decimal, whatever zeros lead it (bash reads 010 as octal 8, and 08 not at all).
given=$n
n=$((10#$n))
if [ "$n" -eq 0 ]; then
    echo "$0: N must be a positive integer, not '$given'" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$shards"
# shellcheck disable=SC2086
array=$(sbatch --parsable ${SBATCH_OPTS:-} --array=0-$((n - 1)) \
    "$here/shards.sbatch" "$shards" "$@")
array=${array%%;*}
# shellcheck disable=SC2086
merge=$(sbatch --parsable ${SBATCH_OPTS:-} --dependency=afterok:"$array" \
    "$here/merge.sbatch" "$shards" "$out" ${MERGE_OPTS:-})
merge=${merge%%;*}
echo "array $array merge $merge"
