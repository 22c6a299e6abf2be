#!/usr/bin/env bash
# Starts pksd on embedded defaults: local asset directory, SQLite user database and the bundled sample wiki,
# all under .cache/dev/ in this checkout. Installs npm dependencies and builds when needed. Ctrl-C stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dev=${PKS_DEV_DIR:-$root/.cache/dev}
say() { printf '%s\n' "$*" >&2; }

# Reinstall only when the lockfile's content changed (the same stamp as scripts/install-test-deps.sh).
stamp=node_modules/.pks-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  say "==> installing npm dependencies"
  npm ci --no-audit --no-fund
  echo "$want" >"$stamp"
fi
if [ ! -f dist/server/main.js ] || [ -n "$(find src package.json -newer dist/server/main.js -print -quit)" ]; then
  say "==> building"
  npm run --silent build
fi

mkdir -p "$dev"
env_file=$dev/.env
if [ ! -f "$env_file" ]; then
  # A random system PAT, so the corpus endpoints can be called before anyone has signed in.
  pat=$(node -e 'console.log("dev-" + require("crypto").randomBytes(24).toString("base64url"))')
  umask 077
  cat > "$env_file" <<ENV
# Development settings written by scripts/dev-server.sh; relative paths resolve against this directory.
SVC_RAW_DIR=raw
SVC_DATA_DIR=data
SVC_DB_DATA_DIR=pb_data
SVC_WIKI_DIR=pks-wiki
SVC_SYSTEM_PAT=$pat
ENV
fi

wiki=$dev/pks-wiki
if [ ! -d "$wiki/.git" ]; then
  say "==> creating the sample wiki at $wiki (a git repository)"
  mkdir -p "$wiki"
  cp -R sample-wiki/. "$wiki/"
  git -C "$wiki" init --quiet --initial-branch=main
  git -C "$wiki" add -A
  git -C "$wiki" -c user.name=pks -c user.email=pks@localhost commit --quiet -m "Sample wiki"
fi

pat=$(sed -n 's/^SVC_SYSTEM_PAT=//p' "$env_file")
addr=${SVC_HTTP_ADDR:-127.0.0.1:4200}
cat >&2 <<MSG

pksd is starting at http://$addr   (settings: $env_file)
  Health:       curl http://$addr/api/health
  API docs:     http://$addr/swagger/index.html
  Token:        the development system PAT is in $env_file:
                curl -H 'Authorization: Bearer $pat' http://$addr/api/health
  Settings:     ./bin/pksd config show --env-file $env_file

MSG
exec node bin/pksd serve --env-file "$env_file" --http "$addr"
