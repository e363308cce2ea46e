#!/usr/bin/env bash
# npm run bench:cluster: a fresh three-node Galera cluster on ports 3331-3333 (never the test
# cluster's 3321-3323 nor cluster:up's 3311-3313; scripts/cluster-lib.sh), bench/cluster.ts on it
# (multi-writer against one writer with reads on the others; bench/README.md), and the cluster
# removed. Writes bench/results/cluster.json (BENCH_CLUSTER_OUT).
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/cluster-lib.sh
cluster_start bench "${GALERA_BENCH_PORT:-3331}" "${GALERA_BENCH_GCOMM_PORT:-4671}" || exit 1
node dist/bench/cluster.js
