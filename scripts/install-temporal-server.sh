#!/usr/bin/env bash
# Builds the real Temporal server (not the dev server) and its SQL schema tool from the Go
# module proxy into .tools/temporal-server-<version>, with the module's schema and config
# files beside them. Only the first run on a machine builds (about 5 minutes on 2 cores):
# a finished build is also kept in a machine-wide cache, so a fresh clone (CI) copies it
# instead of building again. Prints the install directory on stdout's last line.
#   Usage: scripts/install-temporal-server.sh
#   Env:   TEMPORAL_SERVER_VERSION (default 1.32.2), TEMPORAL_SERVER_GOTOOLCHAIN (default go1.27.3),
#          TEMPORAL_SERVER_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/approval-gate; "none" for no cache)
# Exit codes: 0 ok, 3 no Go toolchain, 1 anything else.
set -euo pipefail

VERSION="${TEMPORAL_SERVER_VERSION:-1.32.2}"
TOOLCHAIN="${TEMPORAL_SERVER_GOTOOLCHAIN:-go1.27.3}"
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/.tools/temporal-server-$VERSION"
log() { echo "install-temporal-server: $*" >&2; }

done_marker="$dest/.complete"
if [[ -f "$done_marker" ]]; then echo "$dest"; exit 0; fi
cache_root="${TEMPORAL_SERVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/approval-gate}"
cached="$cache_root/temporal-server-$VERSION"
if [[ "$cache_root" != none && -f "$cached/.complete" ]]; then
  mkdir -p "$root/.tools"
  tmp="$(mktemp -d "$root/.tools/.temporal-server-copy.XXXXXX")" && chmod 755 "$tmp"
  cp -R "$cached/." "$tmp/"
  rm -rf "$dest" && mv "$tmp" "$dest"
  log "copied the build cached in $cached"
  echo "$dest"
  exit 0
fi
command -v go >/dev/null 2>&1 || { log "no go on PATH; install Go (Debian: apt-get install golang) and retry"; exit 3; }

mkdir -p "$root/.tools"
# Two callers at once (CI steps, parallel shells) would build twice and race on the rename.
exec 9>"$root/.tools/.temporal-server-$VERSION.lock"
flock 9
if [[ -f "$done_marker" ]]; then echo "$dest"; exit 0; fi

tmp="$(mktemp -d "$root/.tools/.temporal-server-build.XXXXXX")"
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
log "building go.temporal.io/server@v$VERSION (cmd/server, cmd/tools/sql) with $TOOLCHAIN; about 5 minutes on 2 cores"
started=$(date +%s)
GOTOOLCHAIN="$TOOLCHAIN" CGO_ENABLED=0 GOBIN="$tmp/bin" GOFLAGS="${GOFLAGS:--buildvcs=false}" \
  go install "go.temporal.io/server/cmd/server@v$VERSION" "go.temporal.io/server/cmd/tools/sql@v$VERSION"
mv "$tmp/bin/server" "$tmp/bin/temporal-server"
mv "$tmp/bin/sql" "$tmp/bin/temporal-sql-tool"

modcache="$(GOTOOLCHAIN="$TOOLCHAIN" go env GOMODCACHE)"
src="$modcache/go.temporal.io/server@v$VERSION"
[[ -d "$src/schema/postgresql" ]] || { log "module source not found at $src"; exit 1; }
mkdir -p "$tmp/schema" "$tmp/config"
cp -R "$src/schema/postgresql" "$tmp/schema/"
cp "$src/config/development-postgres12.yaml" "$tmp/config/"
[[ -d "$src/config/dynamicconfig" ]] && cp -R "$src/config/dynamicconfig" "$tmp/config/"
chmod -R u+w "$tmp"
rm -rf "$dest"
mv "$tmp" "$dest"
trap - EXIT
echo "$VERSION" >"$dest/.complete"
if [[ "$cache_root" != none ]] && mkdir -p "$cache_root" 2>/dev/null; then
  ctmp="$(mktemp -d "$cache_root/.build.XXXXXX")" && cp -R "$dest/." "$ctmp/" && rm -rf "$cached" && mv "$ctmp" "$cached" ||
    log "could not keep a copy in $cache_root (the next fresh clone builds again)"
fi
log "built in $(($(date +%s) - started))s: $dest"
echo "$dest"
