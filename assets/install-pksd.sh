#!/bin/sh
# Installer for pksd, the paper knowledge service server (version __VERSION__ served this script).
# Usage: curl -fsSL <server>/install-pksd.sh | sh -s -- [--version V] [--dir D] [--tarball FILE]
# By default it installs the package the serving server offers for its own version (<server>/dist/pks-<version>.tgz);
# another --version comes from the npm registry; --tarball installs a local `npm pack` file.
set -eu

PACKAGE="pks"
SERVED_VERSION="__VERSION__"
SERVER_URL='__SERVER_URL__'
VERSION="${PKSD_VERSION:-__VERSION__}"
DIR="${PKSD_INSTALL_DIR:-$HOME/.local}"
TARBALL=""

say() { printf '%s\n' "$*" >&2; }
die() { say "install-pksd: $*"; exit 1; }

while [ $# -gt 0 ]; do
  case "$1" in
    --version) [ $# -ge 2 ] || die "--version needs a value"; VERSION="$2"; shift 2 ;;
    --version=*) VERSION="${1#--version=}"; shift ;;
    --dir) [ $# -ge 2 ] || die "--dir needs a value"; DIR="$2"; shift 2 ;;
    --dir=*) DIR="${1#--dir=}"; shift ;;
    --tarball) [ $# -ge 2 ] || die "--tarball needs a value"; TARBALL="$2"; shift 2 ;;
    --tarball=*) TARBALL="${1#--tarball=}"; shift ;;
    -h|--help) sed -n '2,3p' "$0" 2>/dev/null || true; exit 0 ;;
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

mkdir -p "$DIR"
if [ -n "$TARBALL" ]; then
  [ -f "$TARBALL" ] || die "tarball not found: $TARBALL"
  SOURCE="$TARBALL"
else
  # The server's own tarball when it served this script (its URL was filled in) and its version is wanted.
  case "$SERVER_URL" in
    http://*|https://*) SOURCE="${SERVER_URL%/}/dist/$PACKAGE-$VERSION.tgz" ;;
    *) SOURCE="" ;;
  esac
  [ "$VERSION" = "$SERVED_VERSION" ] || SOURCE=""
  [ -n "$SOURCE" ] || SOURCE="$PACKAGE@$VERSION"
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
