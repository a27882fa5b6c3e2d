#!/usr/bin/env bash
# Stops a PostgreSQL started by scripts/start-postgres.sh and deletes its directory.
# Usage: scripts/stop-postgres.sh DIR [--keep]   (--keep: stop but leave DIR, e.g. to read postgres.log)
set -euo pipefail

log() { echo "stop-postgres: $*" >&2; }

DIR=${1:-}
KEEP=${2:-}
[[ -n "$DIR" ]] || { log "usage: $0 DIR [--keep]"; exit 2; }
[[ -d "$DIR" ]] || { log "$DIR does not exist; nothing to stop"; exit 0; }
# Refuse to delete anything that is not a cluster we made.
[[ -f "$DIR/data/PG_VERSION" ]] || { log "$DIR holds no cluster (no data/PG_VERSION); refusing to touch it"; exit 2; }

BIN=""
if [[ -n "${PG_BIN:-}" && -x "$PG_BIN/pg_ctl" ]]; then BIN=$PG_BIN; fi
if [[ -z "$BIN" ]]; then
  version=$(cat "$DIR/data/PG_VERSION")
  [[ -x "/usr/lib/postgresql/$version/bin/pg_ctl" ]] && BIN="/usr/lib/postgresql/$version/bin"
fi
if [[ -z "$BIN" ]] && command -v pg_ctl >/dev/null 2>&1; then BIN=$(dirname "$(command -v pg_ctl)"); fi
[[ -n "$BIN" ]] || { log "pg_ctl not found"; exit 3; }

OWNER=$(stat -c %U "$DIR/data")
if [[ $(id -u) -eq 0 && "$OWNER" != root ]]; then
  runuser -u "$OWNER" -- "$BIN/pg_ctl" -D "$DIR/data" -m immediate -w stop >&2 || log "pg_ctl stop failed (already stopped?)"
else
  "$BIN/pg_ctl" -D "$DIR/data" -m immediate -w stop >&2 || log "pg_ctl stop failed (already stopped?)"
fi

if [[ "$KEEP" != --keep ]]; then rm -rf "$DIR"; fi
log "stopped"
