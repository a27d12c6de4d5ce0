#!/usr/bin/env bash
# Runs every test file under test/. Node 20's --test does not expand ** and silently runs nothing
# when given no files, so the list is built here and its size checked.
set -euo pipefail
cd "$(dirname "$0")/.."
# Stops at once, saying which Node is needed, on a Node too old for better-sqlite3 13 (under `npm test`
# this is the Node 24 that npm ci installed: node_modules/.bin comes first on the PATH).
node --import tsx src/runtime/require-node.ts
echo "tests run on Node $(node -v) ($(command -v node))"
# The client package is built first: its tests import the build output, as a partner would.
npm run -s build --workspace @rep-coach/client
# The report tests drive Debian's Chromium (no browser download): install it when missing and we may.
if [ ! -x /usr/bin/chromium ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing Debian's chromium for the browser tests"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >/dev/null \
    || echo "chromium could not be installed: the browser tests will report themselves skipped" >&2
fi
# The PostgreSQL event-store tests start a throwaway server from Debian's binaries: install them
# when missing and we may (the package's own cluster is not used; the tests run initdb themselves).
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! { command -v pg_config >/dev/null && [ -x "$(pg_config --bindir)/initdb" ]; } && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing Debian's postgresql for the PostgreSQL event-store tests"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; } >/dev/null \
    || echo "postgresql could not be installed: the PostgreSQL tests will report themselves skipped" >&2
fi
mapfile -t files < <(find test -name '*.test.ts' | sort)
if [ "${#files[@]}" -eq 0 ]; then
  echo "no test files found under test/" >&2
  exit 1
fi
echo "running ${#files[@]} test files"
exec node --import tsx --import ./test/support/property-seed.ts --test --test-concurrency=1 "${files[@]}"
