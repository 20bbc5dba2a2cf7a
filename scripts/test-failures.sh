#!/usr/bin/env bash
# Prints each failed assertion of a tap log under its test file, with tap's diagnostic block (the
# YAML between "---" and "..."), so the end of a long CI log names what failed and why. Of a failed
# file's own block, only how its process ended: a file killed or timed out has no failed assertion.
set -uo pipefail
awk '
  /^# Subtest: / { file = substr($0, 12) }
  /^not ok / { print "FAILED: " $0; inend = 1; want = 0; indiag = 0; next }
  inend && /^  (exitCode|signal|expired):/ { print; next }
  inend && /^  \.\.\.$/ { inend = 0; next }
  /^ +not ok / { print "FAILED in " file ":" $0; inend = 0; indiag = 0; want = 1; next }
  want && /^ *---$/ { indiag = 1; want = 0; print; next }
  indiag { print; if ($0 ~ /^ *\.\.\.$/) indiag = 0; next }
  { want = 0 }
' "$1"
