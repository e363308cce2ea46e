#!/usr/bin/env bash
# A throwaway MySQL 8.0 server for the test suite, on a machine that only has MariaDB.
#
#   scripts/mysql8.sh start [PORT]   fetch (once), start on 127.0.0.1:PORT (3307), print DATABASE_URL
#   scripts/mysql8.sh stop [PORT]    stop it and remove its data directory
#
# Debian 12 ships no MySQL, and Oracle's downloads and Docker Hub are not reachable here, so
# the server is Ubuntu 22.04's (jammy) mysql-server-core-8.0, whose glibc (2.35) Debian 12
# satisfies. Nothing is installed: the packages are unpacked under $MYSQL8_HOME
# (~/.cache/gateway-mysql8), with the four libraries Debian 12 lacks in jammy's versions
# (ICU 70, protobuf-lite 23, libevent-pthreads, MeCab), found through LD_LIBRARY_PATH.
#
# Every file is checked before it is used, from keys already on the machine: Debian trixie's
# InRelease is verified with debian-archive-keyring; it vouches for the ubuntu-keyring
# package, whose Ubuntu archive key verifies jammy's InRelease, which vouches for the
# Packages indexes, which give the SHA-256 of each .deb. The newest build of each package in
# jammy-updates, jammy-security or jammy is taken (superseded files leave Ubuntu's pool).
#
# Each start initializes a fresh data directory (root, empty password, database `test`,
# binary log off); MySQL 8's defaults otherwise (utf8mb4_0900_ai_ci, REPEATABLE READ).
set -euo pipefail

cmd=${1:-}
port=${2:-3307}
home=${MYSQL8_HOME:-$HOME/.cache/gateway-mysql8}
root=$home/root
run=$home/run-$port
debian=http://deb.debian.org/debian
ubuntu=http://archive.ubuntu.com/ubuntu
packages=(mysql-server-core-8.0 libicu70 libprotobuf-lite23 libevent-pthreads-2.1-7 libmecab2)

die() { echo "mysql8: $*" >&2; exit 1; }
fetch() { curl -fsS --retry 3 --max-time 300 -o "$2" "$1" || die "cannot fetch $1"; }
sha256_is() { [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ] || die "$1: SHA-256 mismatch"; }

# The SHA-256 that a verified InRelease ($1) gives for $2 (a path below dists/<suite>/).
release_sha256() { awk -v f="$2" '/^SHA256:/{s=1;next} /^[^ ]/{s=0} s&&$3==f{print $1; exit}' "$1"; }

# Fetches dists/$2/InRelease of archive $1, verified with keyring $3, then its amd64 Packages.xz (checked) into $4.
verified_packages() {
  local archive=$1 suite=$2 keyring=$3 out=$4 tmp
  tmp=$(mktemp -d)
  fetch "$archive/dists/$suite/InRelease" "$tmp/InRelease"
  gpgv --keyring "$keyring" --output "$tmp/Release" "$tmp/InRelease" 2>/dev/null || die "$suite: InRelease signature does not verify"
  fetch "$archive/dists/$suite/main/binary-amd64/Packages.xz" "$tmp/Packages.xz"
  local want
  want=$(release_sha256 "$tmp/Release" main/binary-amd64/Packages.xz)
  [ -n "$want" ] || die "$suite: Packages.xz not in Release"
  sha256_is "$tmp/Packages.xz" "$want"
  xz -dc "$tmp/Packages.xz" > "$out"
  rm -rf "$tmp"
}

# "Filename SHA256" of package $1 in the Packages files $2...
locate() {
  local name=$1; shift
  awk -v p="$name" '$0=="Package: "p{f=1} f&&/^Filename:/{fn=$2} f&&/^SHA256:/{h=$2} f&&/^$/{if(fn){print fn, h; exit} f=0}' "$@" | head -1
}

install_binaries() {
  [ -x "$root/usr/sbin/mysqld" ] && return
  command -v gpgv >/dev/null && command -v dpkg-deb >/dev/null && command -v xz >/dev/null || die "needs gpgv, dpkg-deb and xz"
  local tmp keyring
  tmp=$(mktemp -d)
  echo "mysql8: fetching Ubuntu 22.04's MySQL 8.0 into $home (verified; about 31 MB)" >&2
  verified_packages "$debian" trixie /usr/share/keyrings/debian-archive-keyring.gpg "$tmp/debian.Packages"
  read -r file sha < <(locate ubuntu-keyring "$tmp/debian.Packages")
  [ -n "${file:-}" ] || die "ubuntu-keyring not in Debian trixie"
  fetch "$debian/$file" "$tmp/ubuntu-keyring.deb" && sha256_is "$tmp/ubuntu-keyring.deb" "$sha"
  dpkg-deb -x "$tmp/ubuntu-keyring.deb" "$tmp/keyring"
  keyring=$tmp/keyring/usr/share/keyrings/ubuntu-archive-keyring.gpg
  [ -f "$keyring" ] || die "ubuntu-keyring holds no ubuntu-archive-keyring.gpg"
  for suite in jammy-updates jammy-security jammy; do
    verified_packages "$ubuntu" "$suite" "$keyring" "$tmp/$suite.Packages"
  done
  mkdir -p "$tmp/root"
  for p in "${packages[@]}"; do
    read -r file sha < <(locate "$p" "$tmp/jammy-updates.Packages" "$tmp/jammy-security.Packages" "$tmp/jammy.Packages")
    [ -n "${file:-}" ] || die "$p not in jammy"
    fetch "$ubuntu/$file" "$tmp/$p.deb" && sha256_is "$tmp/$p.deb" "$sha"
    dpkg-deb -x "$tmp/$p.deb" "$tmp/root"
    echo "mysql8:   ${file##*/}" >&2
  done
  mkdir -p "$home" && rm -rf "$root" && mv "$tmp/root" "$root"
  rm -rf "$tmp"
}

mysqld=(env LD_LIBRARY_PATH="$root/usr/lib/x86_64-linux-gnu" "$root/usr/sbin/mysqld" --no-defaults --user=root
  --basedir="$root/usr" --lc-messages-dir="$root/usr/share/mysql" --datadir="$run/data")
ping() { mariadb-admin -uroot --protocol=tcp -h127.0.0.1 -P"$port" ping >/dev/null 2>&1; }

stop() {
  if [ -f "$run/mysqld.pid" ]; then
    local pid
    pid=$(cat "$run/mysqld.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  fi
  rm -rf "$run"
}

case "$cmd" in
  start)
    if ping; then
      mariadb -uroot --protocol=tcp -h127.0.0.1 -P"$port" -N -e 'SELECT VERSION()' | grep -qi mariadb && die "port $port is a MariaDB, not MySQL 8"
    else
      install_binaries
      stop
      mkdir -p "$run"
      "${mysqld[@]}" --initialize-insecure --log-error="$run/init.log" || die "initialize failed: $(tail -3 "$run/init.log")"
      (setsid "${mysqld[@]}" --port="$port" --bind-address=127.0.0.1 --socket="$run/mysqld.sock" --pid-file="$run/mysqld.pid" \
        --mysqlx=OFF --secure-file-priv='' --disable-log-bin --log-error="$run/error.log" </dev/null >/dev/null 2>&1 &)
      for _ in $(seq 1 120); do ping && break; sleep 0.5; done
      ping || die "did not start: $(tail -5 "$run/error.log")"
    fi
    mariadb -uroot --protocol=tcp -h127.0.0.1 -P"$port" -e 'CREATE DATABASE IF NOT EXISTS test'
    echo "mysql8: $(mariadb -uroot --protocol=tcp -h127.0.0.1 -P"$port" -N -e 'SELECT VERSION()') on 127.0.0.1:$port" >&2
    echo "DATABASE_URL=mysql://root@127.0.0.1:$port/test"
    ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop [PORT]" >&2; exit 2 ;;
esac
