#!/usr/bin/env bash
# `make lint` (part of `make test`): the house style, checked by tools rather than by review.
#   C       clang-format (.clang-format) on every tracked .c/.h: a file that would change fails;
#           `clang-format -i FILE` fixes it.
#   Python  ruff (ruff.toml: pyflakes, pycodestyle, import order, bugbear, pyupgrade) over the
#           package, tests, scripts and benchmarks; mypy (python/mypy.ini) over the package.
# Each tool runs to the end; the exit status is 0 only when all three are clean.
# `lint.sh --list-c` prints the C files it would check (git's tracked files in a checkout, the
# project's C folders in an export without .git).
set -uo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin

# The project's own C: git's list in a checkout; elsewhere (a tarball, `git archive`) the
# project's C folders, so that third-party sources (.venv's numpy headers, build trees) are not
# checked.
C_DIRS=(bench emu include lib model pmd python scenario scripts sim tests tools util)
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t c_files < <(git ls-files '*.c' '*.h')
else
  mapfile -t c_files < <(for d in "${C_DIRS[@]}"; do [ -d "$d" ] && find "$d" -name '*.[ch]'; done | sort)
fi
if [ "${#c_files[@]}" -eq 0 ]; then
  echo "lint: no C files found" >&2
  exit 1
fi
if [ "${1:-}" = --list-c ]; then  # the C files it checks, and nothing else
  printf '%s\n' "${c_files[@]}"
  exit 0
fi
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
