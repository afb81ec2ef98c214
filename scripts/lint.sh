#!/usr/bin/env bash
# `make lint` (part of `make test`): the house style, checked by tools rather than by review.
#   C       clang-format (.clang-format) on every tracked .c/.h: a file that would change fails;
#           `clang-format -i FILE` fixes it.
#   Python  ruff (ruff.toml: pyflakes, pycodestyle, import order, bugbear, pyupgrade) over the
#           package, tests, scripts and benchmarks; mypy (python/mypy.ini) over the package.
# Each tool runs to the end; the exit status is 0 only when all three are clean.
set -uo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin

mapfile -t c_files < <(git ls-files '*.c' '*.h' 2>/dev/null || find . -name '*.[ch]' -not -path './build*')
rc=0
if ! clang-format --dry-run -Werror "${c_files[@]}" 2>/tmp/rxb-clang-format.$$; then
  n=$(grep -c 'error:' /tmp/rxb-clang-format.$$ || true)
  echo "lint: clang-format: $n lines to reformat in:" >&2
  grep -o '^[^:]*\.[ch]' /tmp/rxb-clang-format.$$ | sort -u | sed 's/^/  /' >&2
  rc=1
fi
rm -f /tmp/rxb-clang-format.$$
"$PY/ruff" check --quiet . || rc=1
"$PY/mypy" --config-file python/mypy.ini python/rxbisect || rc=1
[ "$rc" -eq 0 ] && echo "lint: clang-format, ruff and mypy clean"
exit "$rc"
