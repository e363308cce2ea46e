#!/usr/bin/env bash
# npm run test:cluster [-- jest options]: starts a fresh three-node Galera cluster on ports
# 3321-3323 (scripts/cluster-lib.sh), runs every test file in test/cluster/ on it, one after the
# other (--runInBand: they share the cluster, and one of them kills a node), with GALERA_URLS,
# and always removes the cluster. Exit status: jest's, or 1 when the build or the cluster failed.
set -uo pipefail
cd "$(dirname "$0")/.."
t0=$SECONDS
. scripts/cluster-lib.sh
cluster_start test "${GALERA_TEST_PORT:-3321}" "${GALERA_TEST_GCOMM_PORT:-4641}" || exit 1
npx jest --runInBand dist/test/cluster/ "$@"
rc=$?
echo "test:cluster took $((SECONDS - t0)) s in all (cluster start, build, tests; removal follows)"
exit $rc
