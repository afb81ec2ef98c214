#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# pmd-install.sh [BUILD_DIR] [DEST] — install net_rxbisect where DPDK loads it.
#
# DPDK's EAL refuses a -d driver when the file or any directory above it is
# world-writable (a checkout or build under /tmp), so the driver is copied
# to DEST (default /usr/local/lib/rxbisect): created 0755, the driver 0644,
# owned by whoever runs this (root for the default). The driver carries the
# ring library inside it and needs only the system's DPDK libraries, which
# are checked to resolve. Prints the -d argument to give the application.
# `make pmd-install` runs it on build/ (docs/pmd.md).
set -euo pipefail

die() { echo "pmd-install: error: $*" >&2; exit 1; }

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-build}
dest=${2:-/usr/local/lib/rxbisect}
name=librte_net_rxbisect.so
case $build in /*) ;; *) build=$root/$build ;; esac
src=$build/pmd/$name

[ -f "$src" ] || die "$src: no driver there (build it: make build, or cmake --build $build --target rte_net_rxbisect)"
case $dest in /*) ;; *) die "DEST $dest: must be an absolute path (the -d argument names it)" ;; esac

# The directory DPDK will check, up to /: none may be world-writable
# (those still missing are made 0755 below).
check_not_world_writable() {
	local d=$1
	while :; do
		if [ -e "$d" ] && [ -n "$(find "$d" -maxdepth 0 -perm -0002)" ]; then
			die "DEST $dest: $d is world-writable, and DPDK refuses a driver below it; allowed: a directory no user but its owner can write to, e.g. /usr/local/lib/rxbisect (the default)"
		fi
		[ "$d" = / ] && return 0
		d=$(dirname "$d")
	done
}
check_not_world_writable "$dest"

missing=$(ldd "$src" | awk '/not found/ { print $1 }')
[ -z "$missing" ] || die "$src needs libraries this system lacks: $missing (install libdpdk-dev's runtime, the DPDK it was built against)"

(umask 022 && mkdir -p "$dest") 2>/dev/null || die "DEST $dest: cannot create it (run as root for the default, or give a DEST you own)"
# DPDK checks the path with its links resolved.
check_not_world_writable "$(realpath "$dest")"
tmp=$(mktemp "$dest/.$name.XXXXXX" 2>/dev/null) || die "DEST $dest: not writable (run as root for the default, or give a DEST you own)"
# A new file, then a rename: an application that has the old driver open
# keeps its copy.
cp "$src" "$tmp" && chmod 0644 "$tmp" && mv -f "$tmp" "$dest/$name" || { rm -f "$tmp"; die "copying $src to $dest failed"; }
echo "-d $dest/$name"
