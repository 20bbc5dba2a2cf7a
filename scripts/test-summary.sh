#!/usr/bin/env bash
# Prints "N passed, N failed" (", N skipped", ", N todo" when any) from the closing summary that
# tap writes at the end of a run, e.g. "# { total: 5, pass: 2, fail: 1, todo: 1, skip: 1 }".
set -uo pipefail
summary="$(grep -a -E '^# \{ total: [0-9]+' "$1" | tail -n 1)"
if [ -z "$summary" ]; then
  echo "no test summary found (the test run stopped before tap reported)"
  exit 0
fi
count () { # key -> its number in the summary, 0 when absent
  local n
  n="$(printf '%s' "$summary" | grep -oE "[{ ,]$1: [0-9]+" | grep -oE '[0-9]+$')"
  echo "${n:-0}"
}
line="$(count pass) passed, $(count fail) failed"
skip="$(count skip)"; todo="$(count todo)"
[ "$skip" -gt 0 ] && line="$line, $skip skipped"
[ "$todo" -gt 0 ] && line="$line, $todo todo"
echo "$line"
