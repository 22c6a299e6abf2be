#!/bin/sh
# Installer for pksd, the paper knowledge service server (version __VERSION__ served this script).
# Usage: curl -fsSL <server>/install-pksd.sh | sh -s -- [--version V] [--dir D] [--server URL] [--tarball FILE]
# By default it installs the package the serving server offers for its own version (<server>/dist/pks-<version>.tgz)
# once it matches <server>/dist/pks-<version>.tgz.sha256; another --version comes from the npm registry; --server
# names the server to download from; --tarball installs a local `npm pack` file.
set -eu

PACKAGE="pks"
SERVED_VERSION="__VERSION__"
SERVER_URL='__SERVER_URL__'
VERSION="${PKSD_VERSION:-__VERSION__}"
DIR="${PKSD_INSTALL_DIR:-$HOME/.local}"
TARBALL=""
SERVER_GIVEN=""

say() { printf '%s\n' "$*" >&2; }
die() { say "install-pksd: $*"; exit 1; }

while [ $# -gt 0 ]; do
  case "$1" in
    --version) [ $# -ge 2 ] || die "--version needs a value"; VERSION="$2"; shift 2 ;;
    --version=*) VERSION="${1#--version=}"; shift ;;
    --dir) [ $# -ge 2 ] || die "--dir needs a value"; DIR="$2"; shift 2 ;;
    --dir=*) DIR="${1#--dir=}"; shift ;;
    --server) [ $# -ge 2 ] || die "--server needs a value"; SERVER_URL="$2"; SERVER_GIVEN=1; shift 2 ;;
    --server=*) SERVER_URL="${1#--server=}"; SERVER_GIVEN=1; shift ;;
    --tarball) [ $# -ge 2 ] || die "--tarball needs a value"; TARBALL="$2"; shift 2 ;;
    --tarball=*) TARBALL="${1#--tarball=}"; shift ;;
    -h|--help) sed -n '2,6p' "$0" 2>/dev/null || true; exit 0 ;;
    *) die "unknown option: $1" ;;
  esac
done

os=$(uname -s 2>/dev/null || echo unknown)
arch=$(uname -m 2>/dev/null || echo unknown)
case "$os" in
  Linux|Darwin) ;;
  *) say "install-pksd: warning: untested platform $os/$arch; continuing" ;;
esac

command -v node >/dev/null 2>&1 || die "Node.js >= 20 is required (https://nodejs.org); not found on PATH"
command -v npm >/dev/null 2>&1 || die "npm is required; not found on PATH"
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
[ "$major" -ge 20 ] 2>/dev/null || die "Node.js >= 20 is required; found $(node --version 2>/dev/null)"

# Downloads URL to FILE only if its bytes match the digest in URL.sha256 (`<hex>  <name>`, sha256sum format); Node
# does the work, so neither curl/wget nor sha256sum/shasum is needed.
VERIFY='
const { createHash } = require("node:crypto");
const { writeFileSync } = require("node:fs");
const [url, file] = process.argv.slice(1);
const get = async (u) => {
  const res = await fetch(u);
  if (!res.ok) throw new Error(`${u} answered HTTP ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
};
(async () => {
  const expected = (await get(`${url}.sha256`)).toString("utf8").trim().split(/\s+/)[0].toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(expected)) throw new Error(`${url}.sha256 holds no SHA-256 digest`);
  const bytes = await get(url);
  const actual = createHash("sha256").update(bytes).digest("hex");
  if (actual !== expected) {
    throw new Error(`${url} does not match its published SHA-256 (expected ${expected}, got ${actual}); nothing installed`);
  }
  writeFileSync(file, bytes);
  console.error(`SHA-256 ${actual} verified`);
})().catch((err) => {
  console.error(`install-pksd: ${err.message}`);
  process.exit(1);
});
'

mkdir -p "$DIR"
if [ -n "$TARBALL" ]; then
  [ -f "$TARBALL" ] || die "tarball not found: $TARBALL"
  SOURCE="$TARBALL"
else
  case "$SERVER_URL" in
    http://*|https://*) ;;
    __SERVER_URL_"_") SERVER_URL="" ;; # the template itself, not served (quoted so that serving keeps it): the registry
    "") [ "$VERSION" != "$SERVED_VERSION" ] ||
          die "the server that served this script does not know its public URL (its operator can set SVC_PUBLIC_URL); pass --server URL (the address you downloaded this script from), or --version V (the npm registry)" ;;
    *) die "--server needs an http:// or https:// URL, not: $SERVER_URL" ;;
  esac
  # The server's own tarball when its version is wanted (or a server was named), kept where the install records it.
  if [ -n "$SERVER_URL" ] && { [ "$VERSION" = "$SERVED_VERSION" ] || [ -n "$SERVER_GIVEN" ]; }; then
    URL="${SERVER_URL%/}/dist/$PACKAGE-$VERSION.tgz"
    mkdir -p "$DIR/share/pksd"
    SOURCE="$DIR/share/pksd/$PACKAGE-$VERSION.tgz"
    say "Downloading $URL"
    node -e "$VERIFY" "$URL" "$SOURCE" ||
      die "could not download a verified $URL (see above). Other sources: --tarball FILE (an npm pack file), or --version V (the npm registry)"
  else
    SOURCE="$PACKAGE@$VERSION"
  fi
fi

say "Installing $SOURCE into $DIR ($os/$arch, node $(node --version))"
npm install --prefix "$DIR" --no-fund --no-audit "$SOURCE" ||
  die "npm install of $SOURCE failed (see npm's messages above). Other sources: --tarball FILE (an npm pack file), or --version V (the npm registry)"

BIN="$DIR/node_modules/.bin"
say ""
say "pksd is installed: $BIN/pksd"
say "Next steps:"
say "  1. Add it to your PATH:        export PATH=\"$BIN:\$PATH\""
say "  2. Write a settings template:  pksd config init   (then edit ./.env)"
say "  3. Check the settings:         pksd config show"
say "  4. Start the server:           pksd serve"
say "  5. Check it:                   curl http://127.0.0.1:4200/api/health"
