#!/usr/bin/env bash
# Runs every test file under test/. Node 20's --test does not expand ** and silently runs nothing
# when given no files, so the list is built here and its size checked.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(find test -name '*.test.ts' | sort)
if [ "${#files[@]}" -eq 0 ]; then
  echo "no test files found under test/" >&2
  exit 1
fi
echo "running ${#files[@]} test files"
exec node --import tsx --test --test-concurrency=1 "${files[@]}"
