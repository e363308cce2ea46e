#!/usr/bin/env bash
# A three-node MariaDB Galera cluster on loopback, for trying and testing the gateway on Galera.
#
#   scripts/galera.sh up [DIR]      start it (or reuse a healthy one) and print the three URLs
#   scripts/galera.sh down [DIR]    stop the nodes this script started and delete DIR
#   scripts/galera.sh status [DIR]  wsrep status of each node
#   scripts/galera.sh urls [DIR]    print the URLs only (GALERA_URLS=a,b,c)
#   scripts/galera.sh kill N [DIR]  SIGKILL node N (1-3), as a crashed host: no shutdown, no goodbye
#   scripts/galera.sh start N [DIR] start node N again; it rejoins (IST from a donor's gcache, else
#                                   rsync SST) and this returns once it is Synced
#
# Debian's mariadbd + galera-4 (the provider is found with `dpkg -L galera-4`). Each node has
# its own datadir, socket and config file under DIR (default $GALERA_DIR or /tmp/pgw-galera);
# `--defaults-file` keeps /etc/mysql out, so the machine's own MariaDB (3306) is not touched.
# Ports (loopback only): SQL GALERA_PORT..+2 (3311-3313), group communication
# GALERA_GCOMM_PORT..+2 (4611-4613), IST +10 (4621-4623), rsync SST +20 (4631-4633).
# Node 1 bootstraps the cluster (--wsrep-new-cluster); nodes 2 and 3 join it and receive its
# state by rsync. `up` returns once every node reports wsrep_cluster_size=3, wsrep_ready=ON
# and Synced, and creates database GALERA_DATABASE (default pgw) as utf8mb4.
# The nodes run as the `mysql` user (GALERA_USER) with DIR owned by it: the joiner's rsync daemon,
# started as root, would drop to `nobody` and could not write the datadir.
# root@127.0.0.1 has no password: a throw-away cluster for development and CI, not production.
set -euo pipefail

cmd=${1:-up}
case "$cmd" in kill | start) NODE=${2:-}; shift ;; esac
DIR=${2:-${GALERA_DIR:-${TMPDIR:-/tmp}/pgw-galera}}
SQL_PORT=${GALERA_PORT:-3311}
GCOMM_PORT=${GALERA_GCOMM_PORT:-4611}
DATABASE=${GALERA_DATABASE:-pgw}
NODES=(1 2 3)
MARIADBD=${MARIADBD:-/usr/sbin/mariadbd}
RUN_AS=${GALERA_USER:-mysql}

log() { printf '[galera +%ss] %s\n' "$SECONDS" "$*" >&2; }
die() { log "error: $*"; exit 1; }

sql_port() { echo $((SQL_PORT + $1 - 1)); }
gcomm_port() { echo $((GCOMM_PORT + $1 - 1)); }
sock() { echo "$DIR/node$1/mysqld.sock"; }
pidfile() { echo "$DIR/node$1/mysqld.pid"; }
q() { local n=$1; shift; mariadb --no-defaults -uroot -S "$(sock "$n")" -N -B -e "$*"; }
status_of() { q "$1" "SHOW GLOBAL STATUS LIKE '$2'" 2>/dev/null | cut -f2; }
urls() {
  local list=()
  for n in "${NODES[@]}"; do list+=("mysql://root@127.0.0.1:$(sql_port "$n")/$DATABASE"); done
  (IFS=,; echo "GALERA_URLS=${list[*]}")
  for n in "${NODES[@]}"; do echo "DATABASE_URL=${list[$((n - 1))]}"; done
}

provider() {
  local lib
  lib=$(dpkg -L galera-4 2>/dev/null | grep -m1 '/libgalera_smm\.so$' || true)
  [ -n "$lib" ] && [ -f "$lib" ] || die "galera-4 is not installed (apt-get install galera-4 mariadb-server rsync)"
  echo "$lib"
}

running() { # node answers on its socket
  [ -S "$(sock "$1")" ] && mariadb-admin --no-defaults -uroot -S "$(sock "$1")" ping >/dev/null 2>&1
}

healthy() {
  for n in "${NODES[@]}"; do
    running "$n" || return 1
    [ "$(status_of "$n" wsrep_cluster_size)" = 3 ] || return 1
    [ "$(status_of "$n" wsrep_ready)" = ON ] || return 1
    [ "$(status_of "$n" wsrep_local_state_comment)" = Synced ] || return 1
  done
}

write_config() {
  local n=$1 lib=$2 peers=()
  for m in "${NODES[@]}"; do peers+=("127.0.0.1:$(gcomm_port "$m")"); done
  local gp; gp=$(gcomm_port "$n")
  mkdir -p "$DIR/node$n/data" "$DIR/node$n/tmp"
  cat >"$DIR/node$n/my.cnf" <<EOF
[mariadbd]
user=$RUN_AS
datadir=$DIR/node$n/data
tmpdir=$DIR/node$n/tmp
socket=$(sock "$n")
pid-file=$(pidfile "$n")
log-error=$DIR/node$n/error.log
port=$(sql_port "$n")
bind-address=127.0.0.1
character-set-server=utf8mb4
collation-server=utf8mb4_unicode_ci
default_storage_engine=InnoDB
# Galera needs row-based replication and interleaved auto-increment locks.
binlog_format=ROW
innodb_autoinc_lock_mode=2
# Small and quick: a loopback cluster for tests. Durability comes from the other two nodes.
innodb_buffer_pool_size=64M
innodb_log_file_size=32M
innodb_flush_log_at_trx_commit=2
performance_schema=OFF
skip-name-resolve
wsrep_on=ON
wsrep_provider=$lib
wsrep_cluster_name=pgw_galera
wsrep_node_name=node$n
wsrep_node_address=127.0.0.1:$gp
wsrep_cluster_address=gcomm://$(IFS=,; echo "${peers[*]}")
wsrep_provider_options="gmcast.listen_addr=tcp://127.0.0.1:$gp;ist.recv_addr=127.0.0.1:$((gp + 10));gcache.size=64M"
wsrep_sst_method=rsync
wsrep_sst_receive_address=127.0.0.1:$((gp + 20))
EOF
}

start_node() { # n [extra mariadbd args]
  local n=$1; shift
  # setsid: the node outlives this script and is not in its process group.
  setsid "$MARIADBD" --defaults-file="$DIR/node$n/my.cnf" "$@" >>"$DIR/node$n/console.log" 2>&1 </dev/null &
}

wait_for() { # seconds description command...
  local limit=$1 what=$2; shift 2
  local until=$((SECONDS + limit))
  while ! "$@"; do
    [ "$SECONDS" -lt "$until" ] || die "timed out after ${limit}s waiting for $what (logs: $DIR/node*/error.log)"
    sleep 0.5
  done
}

synced() { running "$1" && [ "$(status_of "$1" wsrep_ready)" = ON ] && [ "$(status_of "$1" wsrep_local_state_comment)" = Synced ]; }

# The pid of node n's mariadbd, if it runs: only one that this script started with this node's config file.
node_pid() {
  local pf; pf=$(pidfile "$1")
  [ -f "$pf" ] || return 1
  local pid; pid=$(cat "$pf")
  [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "--defaults-file=$DIR/node$1/my.cnf" && echo "$pid"
}

stop_nodes() {
  local pids=()
  for n in "${NODES[@]}"; do
    local pid; pid=$(node_pid "$n") || continue
    kill -TERM "$pid" 2>/dev/null && pids+=("$pid")
  done
  for pid in "${pids[@]}"; do
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$pid" 2>/dev/null; then log "node pid $pid did not stop in 30 s; killing it"; kill -KILL "$pid" 2>/dev/null || true; fi
  done
}

up() {
  command -v "$MARIADBD" >/dev/null || die "no $MARIADBD (apt-get install mariadb-server)"
  command -v rsync >/dev/null || die "rsync is needed for state transfer (apt-get install rsync)"
  if healthy; then
    log "cluster in $DIR is already up"
  else
    [ -e "$DIR" ] && { log "clearing a stale cluster in $DIR"; stop_nodes; rm -rf "$DIR"; }
    for n in "${NODES[@]}"; do
      local p; p=$(sql_port "$n")
      ! ss -Hltn "sport = :$p" | grep -q . || die "port $p is in use"
    done
    local lib; lib=$(provider)
    id "$RUN_AS" >/dev/null 2>&1 || die "no user $RUN_AS to run the nodes as (set GALERA_USER)"
    for n in "${NODES[@]}"; do write_config "$n" "$lib"; done
    chown -R "$RUN_AS:" "$DIR"
    log "installing the system tables"
    mariadb-install-db --defaults-file="$DIR/node1/my.cnf" --user="$RUN_AS" --auth-root-authentication-method=normal \
      --skip-test-db >"$DIR/node1/install.log" 2>&1 || die "mariadb-install-db failed (see $DIR/node1/install.log)"
    log "bootstrapping node 1 (port $(sql_port 1))"
    start_node 1 --wsrep-new-cluster
    wait_for 60 "node 1 to bootstrap" synced 1
    # TCP logins from 127.0.0.1 (skip-name-resolve: 'localhost' only matches the socket).
    q 1 "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY ''; GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION"
    log "starting nodes 2 and 3 (state transfer from node 1)"
    # Both at once: the second joiner waits for a free donor (Galera retries every second).
    start_node 2
    start_node 3
    wait_for 120 "node 2 to join" synced 2
    wait_for 120 "node 3 to join" synced 3
    wait_for 30 "wsrep_cluster_size=3 on every node" healthy
  fi
  q 1 "CREATE DATABASE IF NOT EXISTS \`$DATABASE\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"
  log "up: 3 nodes, wsrep_cluster_size=3, wsrep_ready=ON, database $DATABASE (utf8mb4)"
  urls
}

down() {
  if [ ! -e "$DIR" ]; then log "nothing in $DIR"; return 0; fi
  stop_nodes
  rm -rf "$DIR"
  log "down: nodes stopped, $DIR removed"
}

status() {
  for n in "${NODES[@]}"; do
    if running "$n"; then
      echo "node$n :$(sql_port "$n") size=$(status_of "$n" wsrep_cluster_size) ready=$(status_of "$n" wsrep_ready) state=$(status_of "$n" wsrep_local_state_comment) conflicts=$(status_of "$n" wsrep_local_cert_failures)/$(status_of "$n" wsrep_local_bf_aborts)"
    else
      echo "node$n :$(sql_port "$n") not running"
    fi
  done
}

valid_node() { case "$NODE" in 1 | 2 | 3) ;; *) die "which node? $cmd 1|2|3" ;; esac; }

kill_node() {
  valid_node
  local pid; pid=$(node_pid "$NODE") || die "node $NODE is not running (in $DIR)"
  kill -KILL "$pid"
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  log "node $NODE (pid $pid) killed with SIGKILL"
}

restart_node() {
  valid_node
  ! node_pid "$NODE" >/dev/null || die "node $NODE is already running"
  [ -f "$DIR/node$NODE/my.cnf" ] || die "no node $NODE in $DIR (run up first)"
  # A killed node leaves its socket and pid file behind; mariadbd replaces them.
  start_node "$NODE"
  wait_for 120 "node $NODE to rejoin" synced "$NODE"
  local how=SST; grep -q "IST received" "$DIR/node$NODE/error.log" 2>/dev/null && how=IST
  log "node $NODE is back: Synced (last state transfer seen in its log: $how)"
}

case "$cmd" in
  up) up ;;
  kill) kill_node ;;
  start) restart_node ;;
  down) down ;;
  status) status ;;
  urls) urls ;;
  *) echo "usage: $0 up|down|status|urls [DIR], $0 kill|start N [DIR]" >&2; exit 2 ;;
esac
