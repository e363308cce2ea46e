#!/usr/bin/env bash
# npm run test:cluster [-- jest options]: starts a fresh three-node Galera cluster (its own
# directory and ports, so a cluster started with `npm run cluster:up` is left alone), runs
# test/cluster/galera.test.ts on it with GALERA_URLS, and always removes the cluster.
# The build runs while the cluster starts (GALERA_SKIP_BUILD=1 skips it when dist/ is fresh).
# Exit status: jest's, or 1 when the cluster did not start.
set -uo pipefail
cd "$(dirname "$0")/.."
t0=$SECONDS
export GALERA_DIR=${GALERA_TEST_DIR:-$(mktemp -u "${TMPDIR:-/tmp}/pgw-galera-test-XXXXXX")}
export GALERA_PORT=${GALERA_TEST_PORT:-3321} GALERA_GCOMM_PORT=${GALERA_TEST_GCOMM_PORT:-4641}
out=$(mktemp)
trap 'bash scripts/galera.sh down "$GALERA_DIR" >/dev/null 2>&1; rm -f "$out"' EXIT

bash scripts/galera.sh up "$GALERA_DIR" >"$out" &
up_pid=$!
if [ -z "${GALERA_SKIP_BUILD:-}" ]; then
  npm run --silent build || { echo "build failed"; exit 1; }
fi
if ! wait "$up_pid"; then echo "the Galera cluster did not start (see above)"; exit 1; fi
if [ -n "${GALERA_SKIP_BUILD:-}" ]; then built="build skipped"; else built="the build ran meanwhile"; fi
echo "cluster up after $((SECONDS - t0)) s ($built)"
GALERA_URLS=$(sed -n 's/^GALERA_URLS=//p' "$out")
export GALERA_URLS

GALERA_URLS=$GALERA_URLS npx jest dist/test/cluster/galera.test.js "$@"
rc=$?
echo "test:cluster took $((SECONDS - t0)) s in all (cluster start, build, tests; removal follows)"
exit $rc
