#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs what it needs (idempotent), builds, checks, tests on Node 24, runs a
# smoke subset on Node 22, and ends with the line `N passed, N failed`. Exit status is non-zero when anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
export NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false
# shellcheck source=lib/node.sh
. scripts/lib/node.sh

step() { printf '\n==> %s\n' "$*" >&2; }
passed=0
failed=0
check() { # check NAME CMD...: a named static check counts as one test
  local name=$1; shift
  step "$name"
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: $name" >&2; fi
}
count_vitest() { # add a vitest JSON report's counts (a missing report counts as one failure)
  local report=$1
  if [ -f "$report" ]; then
    read -r p f < <(node -e 'const r=require(process.argv[1]);console.log(r.numPassedTests, r.numFailedTests + (r.numTotalTestSuites>0 && r.numTotalTests===0 ? 1 : 0) + r.testResults.filter(t=>t.status==="failed"&&t.assertionResults.length===0).length)' "$PWD/$report")
    passed=$((passed + p)); failed=$((failed + f))
  else
    failed=$((failed + 1))
  fi
}

step "node $PKS_NODE_MAJOR"
pks_use_node "$PWD" || { echo "0 passed, 1 failed"; exit 1; }

step "install test prerequisites"
bash scripts/install-test-deps.sh || { echo "0 passed, 1 failed"; exit 1; }

check "build" npm run --silent build
check "typecheck" npm run --silent typecheck
check "lint" npx eslint --max-warnings=0 .
check "format" npx prettier --check --log-level warn .

mkdir -p .cache/test-results
rm -f .cache/test-results/vitest.json .cache/test-results/vitest-node22.json
step "tests (node $(node --version))"
npx vitest run
count_vitest .cache/test-results/vitest.json

# The identity and route files a second time with the user database on PostgreSQL (CONTRACT §21): every test server
# and auth harness then gets a fresh database of the run's throwaway cluster as SVC_DB_URL (test/support/user-db.ts).
step "identity and route tests on PostgreSQL"
rm -f .cache/test-results/vitest-postgres.json
PKS_TEST_USER_DB=postgres npx vitest run test/server/auth test/server/http test/server/app.test.ts \
  test/server/papers/routes.test.ts test/server/papers/claim-routes.test.ts test/server/wiki/routes.test.ts \
  test/server/wiki/sync-routes.test.ts test/server/wiki/rate-limit.test.ts test/server/graph/routes.test.ts \
  test/server/access/limiter.test.ts \
  --outputFile.json=.cache/test-results/vitest-postgres.json
count_vitest .cache/test-results/vitest-postgres.json

# Node 22 (maintenance LTS) from the npm `node` package: pksd --version and a smoke subset, on the same node_modules
# (better-sqlite3 ships Node-API binaries, which load on every Node from 22 on).
step "smoke tests under Node 22"
if node22="$(pks_install_node 22 .cache/node22)/node"; then
  check "node 22: pksd --version" "$node22" bin/pksd --version
  "$node22" node_modules/vitest/vitest.mjs run test/server/config test/server/commands test/server/db test/server/wiki \
    test/wiki test/shared test/property --outputFile.json=.cache/test-results/vitest-node22.json
  count_vitest .cache/test-results/vitest-node22.json
else
  echo "FAILED: could not install node@22 from the npm registry" >&2
  failed=$((failed + 1))
fi

echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
