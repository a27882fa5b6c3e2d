#!/usr/bin/env bash
# Starts a throwaway PostgreSQL for tests and prints its URL on stdout's last line:
#   postgresql://postgres@127.0.0.1:PORT/gate_test
# Usage: scripts/start-postgres.sh [DIR] [PORT]
#   DIR   where the cluster lives (created if missing; default: a new temp dir)
#   PORT  TCP port on 127.0.0.1 (default: a free one)
# Stdout also carries GATE_PG_DIR=<dir> before the URL; stop with scripts/stop-postgres.sh <dir>.
# Env: GATE_PG_DB names the database (default gate_test); GATE_PG_DURABLE=1 keeps fsync and
# synchronous commits on (the production stack, whose chaos test stops PostgreSQL mid-write);
# GATE_PG_SETTINGS adds server settings, space-separated name=value pairs (gate stack's
# PG_SERVER_SETTINGS in src/stack/settings.ts), applied at every start.
# Binaries: $PG_BIN, else the newest /usr/lib/postgresql/<version>/bin, else initdb on PATH.
# As root, the cluster runs as the `postgres` user (initdb refuses to run as root).
# Exit codes: 0 ok, 2 bad usage, 3 no PostgreSQL binaries, 1 anything else.
set -euo pipefail

log() { echo "start-postgres: $*" >&2; }

find_bin() {
  if [[ -n "${PG_BIN:-}" && -x "$PG_BIN/initdb" ]]; then echo "$PG_BIN"; return; fi
  local newest
  newest=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [[ -n "$newest" && -x "$newest/initdb" ]]; then echo "$newest"; return; fi
  if command -v initdb >/dev/null 2>&1; then dirname "$(command -v initdb)"; return; fi
  if command -v pg_config >/dev/null 2>&1 && [[ -x "$(pg_config --bindir)/initdb" ]]; then pg_config --bindir; return; fi
  return 1
}

free_port() {
  node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})" 2>/dev/null ||
    python3 -c "import socket;s=socket.socket();s.bind(('127.0.0.1',0));print(s.getsockname()[1]);s.close()"
}

[[ $# -le 2 ]] || { log "usage: $0 [DIR] [PORT]"; exit 2; }
BIN=$(find_bin) || {
  log "no PostgreSQL binaries found (looked at \$PG_BIN, /usr/lib/postgresql/*/bin and PATH); install postgresql (Debian: apt-get install postgresql) or set PG_BIN"
  exit 3
}
DIR=${1:-$(mktemp -d "${TMPDIR:-/tmp}/gate-pg.XXXXXX")}
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
PORT=${2:-$(free_port)}
[[ "$PORT" =~ ^[0-9]+$ ]] || { log "bad port: $PORT"; exit 2; }

# initdb and postgres refuse root: run them as an unprivileged owner of DIR.
as_owner() { "$@"; }
if [[ $(id -u) -eq 0 ]]; then
  OWNER=postgres
  id -u "$OWNER" >/dev/null 2>&1 || OWNER=nobody
  chown -R "$OWNER" "$DIR"
  if command -v runuser >/dev/null 2>&1; then
    as_owner() { runuser -u "$OWNER" -- "$@"; }
  else
    as_owner() { su -s /bin/sh "$OWNER" -c "$(printf '%q ' "$@")"; }
  fi
  # The owner must reach DIR through its parents; a root-only parent (mode 700) would stop it.
  as_owner test -w "$DIR" || { log "user $OWNER cannot write $DIR (a parent directory is not traversable); pass a DIR under /tmp"; exit 1; }
fi

DATA="$DIR/data"
if [[ ! -f "$DATA/PG_VERSION" ]]; then
  log "initdb $DATA ($BIN)"
  as_owner "$BIN/initdb" -D "$DATA" -U postgres --auth=trust --encoding=UTF8 --no-locale --no-sync >"$DIR/initdb.log" 2>&1 ||
    { log "initdb failed:"; cat "$DIR/initdb.log" >&2; exit 1; }
fi

log "starting on 127.0.0.1:$PORT"
# Unless GATE_PG_DURABLE=1, fsync off: throwaway data, faster tests. Unix socket in DIR, so nothing touches /var/run.
OPTS="-p $PORT -k $DIR -c listen_addresses=127.0.0.1"
[[ "${GATE_PG_DURABLE:-}" == 1 ]] || OPTS="$OPTS -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
for setting in ${GATE_PG_SETTINGS:-}; do
  [[ "$setting" =~ ^[a-z_]+=[A-Za-z0-9._]+$ ]] || { log "bad GATE_PG_SETTINGS entry: $setting (want name=value)"; exit 2; }
  OPTS="$OPTS -c $setting"
done
as_owner "$BIN/pg_ctl" -D "$DATA" -l "$DIR/postgres.log" -w -t 60 -o "$OPTS" start >&2 ||
  { log "postgres did not start:"; tail -n 30 "$DIR/postgres.log" >&2; exit 1; }

DB=${GATE_PG_DB:-gate_test}
[[ "$DB" =~ ^[a-z_][a-z0-9_]*$ ]] || { log "bad GATE_PG_DB: $DB"; exit 2; }
exists=$("$BIN/psql" -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$DB'")
[[ "$exists" == 1 ]] || "$BIN/createdb" -h 127.0.0.1 -p "$PORT" -U postgres "$DB"

echo "$PORT" >"$DIR/port"
echo "GATE_PG_DIR=$DIR"
echo "postgresql://postgres@127.0.0.1:$PORT/$DB"
