#!/usr/bin/env bash
# Installs what `npm test` needs (it runs as the `pretest` script), each part only when it
# is missing, and says what it installs; with everything present it prints nothing:
#   - PostgreSQL's server binaries (the PostgreSQL store tests, `gate stack`) and Chromium
#     at /usr/bin/chromium (the reviewer page's browser test), from Debian's packages, with
#     apt-get as root, else `sudo -n apt-get`; GATE_SKIP_PG=1 / GATE_SKIP_BROWSER=1 skip them,
#     as they skip their tests;
#   - the Temporal CLI with its dev server (scripts/install-temporal.sh);
#   - the real Temporal server for the production suite (scripts/install-temporal-server.sh:
#     built with Go on a machine's first run, about 5 minutes, copied from its cache after).
# Usage: scripts/install-test-deps.sh
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
log() { echo "test-deps: $*" >&2; }

# What start-postgres.sh looks for: $PG_BIN, Debian's /usr/lib/postgresql/*/bin, or initdb on PATH.
have_postgres() {
  [[ -n "${PG_BIN:-}" && -x "$PG_BIN/initdb" ]] && return 0
  compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null && return 0
  command -v initdb >/dev/null 2>&1
}

# Where test/e2e/browser.ts launches it.
have_chromium() { [[ -x /usr/bin/chromium ]]; }

# apt-get install of Debian packages, as root or through passwordless sudo.
apt_install() {
  if [[ $(id -u) -eq 0 ]]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo -n env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  else
    log "cannot install $* (not root, and no passwordless sudo): run apt-get install $* yourself, or set GATE_SKIP_PG=1 / GATE_SKIP_BROWSER=1 to skip their tests"
    return 1
  fi
}

install_temporal_cli() { bash "$root/scripts/install-temporal.sh" --quiet; }
# Its stdout is the install directory, which the tests find by themselves.
install_temporal_server() { bash "$root/scripts/install-temporal-server.sh" >/dev/null; }

main() {
  local packages=()
  if [[ "${GATE_SKIP_PG:-}" != 1 ]] && ! have_postgres; then packages+=(postgresql); fi
  if [[ "${GATE_SKIP_BROWSER:-}" != 1 ]] && ! have_chromium; then packages+=(chromium); fi
  if [[ ${#packages[@]} -gt 0 ]]; then
    log "installing ${packages[*]} from Debian's packages"
    apt_install "${packages[@]}"
  fi
  install_temporal_cli
  install_temporal_server
}

# Sourced (the unit test replaces the checks and installers), nothing runs.
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then main "$@"; fi
