# Sourced by scripts/test-cluster.sh and scripts/bench-cluster.sh: a fresh three-node Galera
# cluster of the caller's own (its directory and ports, so a cluster of `npm run cluster:up`
# or of the other script is left alone), started by scripts/galera.sh while the build runs,
# and always removed when the caller exits.
#
#   cluster_start NAME SQL_PORT GCOMM_PORT   start it in the background, build meanwhile
#                                             (GALERA_SKIP_BUILD=1: dist/ is fresh); returns 1
#                                             if the build or the cluster fails; then exports
#                                             GALERA_DIR, GALERA_PORT, GALERA_GCOMM_PORT (what
#                                             `galera.sh kill|start N` needs) and GALERA_URLS
cluster_start() {
  local name=$1 t0=$SECONDS
  GALERA_DIR=$(mktemp -u "${TMPDIR:-/tmp}/pgw-galera-$name-XXXXXX")
  export GALERA_DIR GALERA_PORT=$2 GALERA_GCOMM_PORT=$3
  CLUSTER_OUT=$(mktemp)
  trap 'bash scripts/galera.sh down "$GALERA_DIR" >/dev/null 2>&1; rm -f "$CLUSTER_OUT"' EXIT
  bash scripts/galera.sh up "$GALERA_DIR" >"$CLUSTER_OUT" &
  local up_pid=$! built="build skipped"
  if [ -z "${GALERA_SKIP_BUILD:-}" ]; then
    npm run --silent build || { echo "build failed"; return 1; }
    built="the build ran meanwhile"
  fi
  if ! wait "$up_pid"; then echo "the Galera cluster did not start (see above)"; return 1; fi
  echo "cluster up on ports $2-$(($2 + 2)) after $((SECONDS - t0)) s ($built)"
  GALERA_URLS=$(sed -n 's/^GALERA_URLS=//p' "$CLUSTER_OUT")
  export GALERA_URLS
}
