#!/usr/bin/env bash
# `make test`: every suite in turn, each to the end even when an earlier one failed, then one
# summary — which suites passed, how long each took, and the failing tests' own lines — so a
# failure is not buried hundreds of lines up in the log. Exit status: 0 only if all passed.
# Each suite's full output is also kept in build/test-logs/SUITE.log.
# A suite that runs longer than RXB_SUITE_TIMEOUT seconds (default 2400) is stopped, with
# everything it started, and reported as timed out, so one hang cannot use up a CI job's time
# before the summary prints.
set -uo pipefail
cd "$(dirname "$0")/.."

SUITES=(lint test-c test-asan test-tsan test-fuzz test-py)
SUITE_TIMEOUT=${RXB_SUITE_TIMEOUT:-2400}
LOGS=build/test-logs
mkdir -p "$LOGS"

declare -A status seconds
for suite in "${SUITES[@]}"; do
  start=$SECONDS
  # --no-print-directory: the suite's output reads the same as when run on its own
  # timeout runs make in a process group of its own and signals all of it (not --foreground,
  # which would leave ctest and pytest running); -k: SIGKILL what ignores SIGTERM
  timeout -k 30 "$SUITE_TIMEOUT" make --no-print-directory "$suite" 2>&1 | tee "$LOGS/$suite.log"
  rc=${PIPESTATUS[0]}
  seconds[$suite]=$((SECONDS - start))
  if [ "$rc" -eq 0 ]; then
    status[$suite]=passed
  elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    status[$suite]="FAILED (timed out after $SUITE_TIMEOUT s)"
    echo "test-all: $suite stopped after $SUITE_TIMEOUT s (RXB_SUITE_TIMEOUT)" | tee -a "$LOGS/$suite.log"
  else
    status[$suite]="FAILED (exit $rc)"
  fi
done

# The lines that name a failing test in each tool's own words: ctest's "***Failed"/"(Failed)"
# lines, pytest's short summary "FAILED path::test", a fuzz target's "crash", make's "Error".
failure_lines() {
  grep -E '^test-all: |^lint: |^[^ ]+\.py:[0-9]+:[0-9]+: |\*\*\*Failed|\(Failed\)|\(Timeout\)|\(Subprocess aborted\)|^FAILED |^ERROR |crash-|make(\[[0-9]+\])?: \*\*\*' "$1" | head -20
}

echo
echo "== make test summary =="
failed=0
for suite in "${SUITES[@]}"; do
  printf '  %-12s %-16s %5d s\n' "$suite" "${status[$suite]}" "${seconds[$suite]}"
  if [ "${status[$suite]}" != passed ]; then
    failed=1
    failure_lines "$LOGS/$suite.log" | sed 's/^/      /'
    echo "      full output: $LOGS/$suite.log"
  fi
done
[ "$failed" -eq 0 ] && echo "all suites passed" || echo "some suites FAILED"
exit "$failed"
