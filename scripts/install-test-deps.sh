#!/usr/bin/env bash
# Installs what the test suite needs: Node 24 (scripts/lib/node.sh), a Python virtual environment (moto, Schemathesis,
# qiskit), the original service's two published clients, Debian's Chromium and tmux, the embedded Neo4j launcher
# (test/support/neo4j) and the npm dependencies.
# Idempotent: each step runs only when its result is missing or stale, so a second run does nothing and takes about a
# second.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# shellcheck source=lib/node.sh
. "$root/scripts/lib/node.sh"

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

# --- Neo4j launcher: jar + runtime classpath, then an AppCDS archive for a faster JVM start ---
n4j="$root/test/support/neo4j"
jar="$n4j/target/neo4j-launcher.jar"
jsa="$n4j/target/neo4j.jsa"
if [ ! -f "$jar" ] || [ ! -d "$n4j/target/lib" ] || [ -n "$(find "$n4j/pom.xml" "$n4j/src" -newer "$jar" -print -quit)" ]; then
  log "building the Neo4j launcher (mvn package)"
  # (sed drops the stray colour resets Debian's Maven 3.8 prints even in batch mode)
  mvn -q -B -f "$n4j/pom.xml" package 2>&1 | sed 's/\x1b\[0m//g' >&2
  touch "$jar"
fi
if [ ! -f "$jsa" ] || [ "$jar" -nt "$jsa" ]; then
  # Train the archive on one real start-up; the flags must match test/support/neo4j.ts.
  log "creating the Neo4j AppCDS archive (one start-up)"
  rm -f "$jsa"
  port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  home="$(mktemp -d)"
  if ! java -XX:ArchiveClassesAtExit="$jsa" -Xlog:disable -Xlog:all=error:stderr \
      -Xms512m -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 --add-opens=java.base/java.nio=ALL-UNNAMED \
      -jar "$jar" "$port" "$home" --exit-when-ready </dev/null >"$home/out.log" 2>&1; then
    log "warning: AppCDS training run failed; Neo4j will start without it"
    cat "$home/out.log" >&2
    rm -f "$jsa"
  fi
  rm -rf "$home"
fi

# --- Node 24 and the npm dependencies ---------------------------------------------------------
# `npm ci` only when the lockfile's content changed (an edit to package.json scripts changes nothing); a rebuild of
# the native modules when the Node ABI changed.
pks_use_node "$root"
pks_npm_install

log "all test dependencies present"
