#!/usr/bin/env bash
# Install what a fresh Debian 12 machine lacks to build, run and test rxbisect.
# Idempotent and quiet when everything is present. Runs as root or via sudo.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(build-essential cmake ninja-build pkg-config clang clang-format libclang-rt-14-dev
              llvm dpdk dpdk-dev libdpdk-dev libpcap-dev libjansson-dev
              python3 python3-venv python3-pip spin
              git        # scripts/lint.sh lists the tracked C files; test_provenance.py commits
              valgrind   # make bench's instructions per packet (callgrind: bench/*.sh)
              chromium)  # headless rendering test of `rxb report` (tests/python/test_report_html.py)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# Python front end in a project-local virtualenv (PEP 668: never pip into the system).
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "deps: creating .venv"
  "$PY" -m venv .venv
fi
# The stamp holds the checkout's path: the editable install and the scripts' shebangs name
# it, so a checkout moved or copied with its .venv (a restored CI cache) installs again
# rather than importing the old tree.
stamp=.venv/.rxb-deps-stamp
if [ ! -f "$stamp" ] || [ python/pyproject.toml -nt "$stamp" ] || [ "$(cat "$stamp")" != "$PWD" ]; then
  echo "deps: installing Python packages"
  .venv/bin/pip install -q --upgrade pip
  .venv/bin/pip install -q -e "python[test]"
  echo "$PWD" >"$stamp"
fi
