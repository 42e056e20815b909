#!/usr/bin/env bash
# The MCP/OAuth end-to-end suites and a booking smoke test under Node 24 LTS (the runtime
# production should use), from the npm registry, on PostgreSQL only: better-sqlite3 in
# node_modules is built for this machine's Node, so TEST_DATABASES=postgres keeps every suite
# off SQLite (test/support/databases.ts) and nothing loads the driver.
#
#   scripts/test-node24.sh                  # the default set below
#   scripts/test-node24.sh test/x.test.ts   # these files instead
#
# Needs TEST_DATABASE_URL (defaults to the local server). Non-interactive (npx -y), so it runs
# in CI without stdin. NODE24 overrides the npm spec of the runtime (default node@24).
set -euo pipefail
cd "$(dirname "$0")/.."
shopt -s nullglob

export TEST_DATABASES=postgres
export TEST_DATABASE_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
runtime="${NODE24:-node@24}"

if [ "$#" -gt 0 ]; then
  files=("$@")
else
  # By glob, so suites added to these folders (test/e2e/mcp-*.test.ts) are picked up.
  files=(test/oauth/*.test.ts test/mcp/*.test.ts test/e2e/mcp-*.test.ts test/booking/initiate.test.ts test/e2e/booking-site.test.ts)
fi

version=$(npx -y -p "$runtime" -- node --version)
echo "node24: running ${#files[@]} test files under Node ${version} on PostgreSQL only"
case "$version" in v24.*) ;; *) echo "node24: expected Node 24, got ${version}" >&2; exit 1 ;; esac

exec npx -y -p "$runtime" -- node --import tsx --test --test-reporter=spec --test-concurrency=2 --test-timeout=300000 "${files[@]}"
