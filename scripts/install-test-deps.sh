#!/usr/bin/env bash
# Installs what the test suite needs: Node 24 (scripts/lib/node.sh), a Python virtual environment (moto, Schemathesis,
# qiskit), the original service's two published clients, Debian's Chromium, tmux and PostgreSQL, the embedded Neo4j
# launcher (test/support/neo4j) and the npm dependencies.
# Idempotent: each step runs only when its result is missing or stale, so a second run does nothing and takes about a
# second.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# shellcheck source=lib/node.sh
. "$root/scripts/lib/node.sh"
# shellcheck source=lib/neo4j.sh
. "$root/scripts/lib/neo4j.sh"

log() { echo "install-test-deps: $*" >&2; }

sudo=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null; then sudo="sudo"; fi

# --- Python tools in a project-local virtual environment: moto (S3 server), Schemathesis (API fuzzing), ---
# --- qiskit + qiskit-aer + qiskit-qasm3-import (the quantum tools' oracle), mpmath (high-precision references), mcp (the
# --- official Python MCP client, a second client of /mcp). Reinstalled when the list changes. ---------------------
venv="$root/.cache/venv"
py_reqs="moto[server]>=5.1 schemathesis>=4.0 qiskit>=2.0 qiskit-aer>=0.17 qiskit-qasm3-import>=0.5 mcp>=1.20 mpmath>=1.3"
py_stamp="$venv/.pks-requirements"
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$py_stamp" 2>/dev/null)" != "$py_reqs" ]; then
  log "creating the Python virtual environment $venv ($py_reqs)"
  python3 -m venv "$venv"
  # shellcheck disable=SC2086 # the list is word-split on purpose
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check $py_reqs >&2
  "$venv/bin/python" -c 'import moto.server, qiskit, qiskit_aer, qiskit_qasm3_import' ||
    { log "the Python virtual environment is incomplete"; exit 1; }
  echo "$py_reqs" >"$py_stamp"
fi

# --- The original service's published clients (CONTRACT §19), pinned, each in a venv of its own: both install the
# --- `qatlas` package files, so one venv would mix them. test/support/qatlas-clients.ts reads the marker. ------
for client_req in quantum-atlas==0.20.0 qatlas-cli==0.34.0; do
  client_venv="$root/.cache/qatlas-venv/${client_req%%==*}"
  if [ "$(cat "$client_venv/.pks-installed" 2>/dev/null)" != "$client_req" ] || [ ! -x "$client_venv/bin/qatlas" ]; then
    log "installing $client_req into $client_venv"
    rm -rf "$client_venv"
    python3 -m venv "$client_venv"
    "$client_venv/bin/python" -m pip install --quiet --disable-pip-version-check "$client_req" >&2
    echo "$client_req" >"$client_venv/.pks-installed"
  fi
done

# --- Debian packages: Chromium (browser tests), tmux (terminal tests) ---------------------------
apt_install() { # apt_install PACKAGE: installs it unless /usr/bin/PACKAGE exists
  [ -x "/usr/bin/$1" ] && return 0
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-cache show "$1" >/dev/null 2>&1; then
    log "apt-get update"
    $sudo apt-get update -qq >/dev/null
  fi
  log "installing $1"
  $sudo apt-get install -y -qq "$1" >/dev/null # errors still reach stderr
}
apt_install chromium
apt_install tmux

# --- PostgreSQL (user database in cluster mode, CONTRACT §21): Debian's server binaries (its service is unused) ---
# test/support/postgres.ts starts throwaway clusters from /usr/lib/postgresql/<major>/bin (initdb, pg_ctl).
if ! compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-cache show postgresql >/dev/null 2>&1; then
    log "apt-get update"
    $sudo apt-get update -qq >/dev/null
  fi
  log "installing postgresql"
  $sudo apt-get install -y -qq postgresql >/dev/null
fi

# --- Neo4j launcher: jar + runtime classpath, then an AppCDS archive for a faster JVM start (scripts/lib/neo4j.sh) ---
pks_neo4j_launcher "$root" || { log "the Neo4j launcher could not be built"; exit 1; }

# --- Node 24 and the npm dependencies ---------------------------------------------------------
# `npm ci` only when the lockfile's content changed (an edit to package.json scripts changes nothing); a rebuild of
# the native modules when the Node ABI changed.
pks_use_node "$root"
pks_npm_install

log "all test dependencies present"
