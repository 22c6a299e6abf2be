#!/usr/bin/env bash
# Starts pksd on embedded defaults: local asset directory, SQLite user database and the bundled sample wiki,
# all under .cache/dev/ in this checkout; with Java, also Neo4j (sample wiki and sample scholarly snapshot loaded),
# building the Neo4j launcher with Maven on the first start (scripts/lib/neo4j.sh).
# Sign-in goes through a local identity-provider stand-in (any name signs in); paper access is on, against local
# stand-ins of arXiv, OpenAlex, MinerU, Qdrant and the embed server (scripts/dev-upstreams.mjs); the sample papers
# (assets/sample-papers) are stored at start. PKS_DEV_UPSTREAMS=0 leaves paper access to the env file's settings
# (real upstreams); an env file with IDP_CLIENT_ID, or PKS_DEV_IDP=0, leaves sign-in to it.
# Installs Node 24 and the npm dependencies and builds when needed (not with PKS_DEV_PREPARED=1). Ctrl-C stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dev=${PKS_DEV_DIR:-$root/.cache/dev}
say() { printf '%s\n' "$*" >&2; }

# Node 24 (the machine's, or .cache/node24 from the npm registry) and the npm dependencies built for it.
# shellcheck source=lib/node.sh
. scripts/lib/node.sh
# shellcheck source=lib/neo4j.sh
. scripts/lib/neo4j.sh
pks_use_node "$root"
# PKS_DEV_PREPARED=1: the caller has installed and built (the test suite), so this run never touches node_modules
# or dist/ under tests running beside it.
if [ "${PKS_DEV_PREPARED:-0}" != 1 ]; then
  pks_npm_install
  if [ ! -f dist/server/main.js ] || [ ! -f web/dist/index.html ] ||
    [ -n "$(find src web package.json -path web/dist -prune -o -newer dist/server/main.js -print -quit)" ]; then
    say "==> building (npm run build)"
    # Its output (the bundle's file list) only when it fails.
    if ! build_log=$(npm run --silent build 2>&1); then
      printf '%s\n' "$build_log" >&2
      say "    the build failed"
      exit 1
    fi
  fi
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
  # An empty paper index for the empty asset directory, so the first start does not warn that none was found.
  node bin/pksd papers sync --full --from-objects --env-file "$env_file" >/dev/null 2>&1 ||
    say "    the paper index could not be created; pksd starts with an empty one"
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

# A real graph: Neo4j 5.26 through the launcher the tests use (test/support/neo4j), its data under $dev/neo4j. The
# launcher exits when its stdin closes: that pipe is fd 3, which the exec'd pksd below holds until it exits. It
# applies CONTRACT §14.1's hardening itself: no file URLs in LOAD CSV, an empty import directory, and Cypher's IP
# blocklist over loopback, private and link-local ranges (README, "Neo4j for pksd").
launcher=test/support/neo4j/target/neo4j-launcher.jar
if ! command -v java >/dev/null 2>&1; then
  graph_note="Graph:        none (no Java: install a Java 17+ runtime and Maven for the graph)"
elif ! pks_neo4j_launcher "$root"; then
  graph_note="Graph:        none (the Neo4j launcher could not be built, see above)"
else
  port=${PKS_DEV_NEO4J_PORT:-$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')}
  log=$dev/neo4j.log
  say "==> starting Neo4j on 127.0.0.1:$port (log: $log)"
  mkdir -p "$dev/neo4j"
  : >"$log"
  jsa=test/support/neo4j/target/neo4j.jsa
  cds=()
  [ -f "$jsa" ] && cds=("-XX:SharedArchiveFile=$jsa")
  # The JVM flags match test/support/neo4j.ts (and so the class-data archive scripts/lib/neo4j.sh made).
  exec 3> >(exec java ${cds[@]+"${cds[@]}"} "${PKS_NEO4J_JVM_FLAGS[@]}" -jar "$launcher" "$port" "$dev/neo4j" >>"$log" 2>&1)
  neo4j_pid=$!
  ready=
  for _ in $(seq 1 600); do
    if grep -q '^NEO4J_READY ' "$log"; then ready=1; break; fi
    kill -0 "$neo4j_pid" 2>/dev/null || break
    sleep 0.2
  done
  if [ -n "$ready" ]; then
    export GRAPHDB_URI=bolt://127.0.0.1:$port
    graph_note="Graph:        $GRAPHDB_URI (Neo4j 5.26 with the sample wiki and scholarly snapshot)"
    say "==> syncing the sample wiki into the graph"
    if ! node bin/pksd wiki sync --full --from-repo --env-file "$env_file" >/dev/null; then
      say "    the wiki sync failed (see above); the graph is incomplete"
    fi
    say "==> loading the sample scholarly snapshot (assets/sample-snapshot) into the graph"
    if ! node bin/pksd scholarly bootstrap --source assets/sample-snapshot --env-file "$env_file" \
      >"$dev/bootstrap.log" 2>&1; then
      say "    the bootstrap failed (see $dev/bootstrap.log); the graph is incomplete"
    fi
  else
    exec 3>&-
    say "Neo4j did not start (see $log); starting without a graph"
    graph_note="Graph:        none (Neo4j did not start, see $log)"
  fi
fi

# Stand-ins of the upstreams, on fixed loopback ports: the paper-access ones and the identity provider. Like Neo4j
# they exit when the pipe on fd 4, held by the exec'd pksd, closes.
addr=${SVC_HTTP_ADDR:-127.0.0.1:4200}
stand_ins=()
access_note="Papers:       paper access as the env file says (PKS_DEV_UPSTREAMS=0)"
[ "${PKS_DEV_UPSTREAMS:-1}" != 0 ] || stand_ins+=(--no-papers)
sign_in_note="Sign in: http://$addr/login (the identity provider the env file configures)"
if [ "${PKS_DEV_IDP:-1}" = 0 ] || grep -q '^IDP_CLIENT_ID=' "$env_file"; then
  stand_ins+=(--no-idp)
  grep -q '^IDP_CLIENT_ID=' "$env_file" || sign_in_note="Sign in: not configured (PKS_DEV_IDP=0); the system PAT below works"
fi
if [ ${#stand_ins[@]} -lt 2 ]; then
  upstreams_env=$dev/upstreams.env
  : >"$upstreams_env"
  case "${stand_ins[*]-}" in
  --no-papers) what="the identity provider" ;;
  --no-idp) what="arXiv, OpenAlex, MinerU, Qdrant and the embed server" ;;
  *) what="the identity provider and of arXiv, OpenAlex, MinerU, Qdrant and the embed server" ;;
  esac
  say "==> starting local stand-ins of $what"
  exec 4> >(exec node scripts/dev-upstreams.mjs --base-port "${PKS_DEV_UPSTREAMS_PORT:-4310}" ${stand_ins[@]+"${stand_ins[@]}"} \
    --exit-with-stdin >"$upstreams_env" 2>"$dev/upstreams.log")
  for _ in $(seq 1 300); do
    grep -q '^PKS_DEV_UPSTREAMS_READY=1' "$upstreams_env" && break
    sleep 0.2
  done
  if grep -q '^PKS_DEV_UPSTREAMS_READY=1' "$upstreams_env"; then
    set -a
    # shellcheck source=/dev/null
    . "$upstreams_env"
    set +a
    if [ -n "${IDP_AUTH_URL:-}" ] && ! grep -q '^IDP_CLIENT_ID=' "$env_file"; then
      sign_in_note="Sign in: http://$addr/login (development identity provider: any name)"
    fi
    if [ -n "${SVC_RAG_EMBED_URL:-}" ]; then
      access_note="Papers:       paper access on, against local stand-ins; sample papers stored at start: http://$addr/papers
                convert 2501.00010 or 0811.3171 there (Open a paper), or
                curl -H 'Authorization: Bearer $(sed -n 's/^SVC_SYSTEM_PAT=//p' "$env_file")' http://$addr/api/papers/2501.00010/markdown   (202, then 200)"
    fi
  else
    exec 4>&-
    say "    the stand-ins did not start (see $dev/upstreams.log); paper access and sign-in as the env file says"
  fi
fi

# The sample papers, stored through the API once pksd answers (in the background; it ends by itself, and does not
# hold the pipes that stop Neo4j and the stand-ins).
node scripts/dev-sample-papers.mjs "http://$addr" "$env_file" >"$dev/sample-papers.log" 2>&1 3>&- 4>&- &

pat=$(sed -n 's/^SVC_SYSTEM_PAT=//p' "$env_file")
cat >&2 <<MSG

pksd is starting at http://$addr   (settings: $env_file)

  $sign_in_note

  Health:       curl http://$addr/api/health
  API docs:     http://$addr/swagger/index.html
  Token:        the development system PAT is in $env_file:
                curl -H 'Authorization: Bearer $pat' http://$addr/api/health
  Settings:     ./bin/pksd config show --env-file $env_file
  $graph_note
  $access_note

MSG
exec node bin/pksd serve --env-file "$env_file" --http "$addr"
