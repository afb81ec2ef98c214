#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# dpdk-sdk.sh OUTDIR — the DPDK driver SDK headers for the installed DPDK.
#
# Debian's libdpdk-dev installs the application API only; a poll-mode driver
# also needs the driver SDK (ethdev_driver.h, ethdev_vdev.h,
# bus_vdev_driver.h, dev_driver.h, bus_driver.h), which DPDK installs only
# when built with enable_driver_sdk. This script takes them from Debian's
# `dpdk` source package of exactly the installed libdpdk-dev version (apt
# verifies it against the signed archive), checks that the source's VERSION
# is the one pkg-config reports and that no Debian patch touches them, and
# copies them to OUTDIR/include. It prints that directory. A second run with
# the same version reuses it (OUTDIR/version records it).
#
# Nothing of DPDK is kept in the repository: OUTDIR is a build or cache
# directory. Needs apt-get (no root: a private apt state under OUTDIR) and
# network access to the Debian archive the binary package came from.
set -euo pipefail

die() { echo "dpdk-sdk: error: $*" >&2; exit 1; }

out=${1:?usage: dpdk-sdk.sh OUTDIR}
headers=(lib/ethdev/ethdev_driver.h lib/ethdev/ethdev_vdev.h
	drivers/bus/vdev/bus_vdev_driver.h lib/eal/include/dev_driver.h
	lib/eal/include/bus_driver.h)

deb_ver=$(dpkg-query -W -f='${Version}' libdpdk-dev 2>/dev/null) ||
	die "libdpdk-dev is not installed (apt-get install libdpdk-dev)"
pc_ver=$(pkg-config --modversion libdpdk 2>/dev/null) ||
	die "pkg-config does not know libdpdk (is libdpdk-dev broken?)"

# Two configures at once (make -j over build trees) share OUTDIR: the second waits for the
# first, then reuses what it made, rather than racing on removing and copying the headers.
mkdir -p "$out"
exec 9>"$out/.lock"
flock 9

if [ -f "$out/version" ] && [ "$(cat "$out/version")" = "$deb_ver" ]; then
	echo "$out/include"
	exit 0
fi

# The archives the installed version came from, as deb-src lines: the
# version table of `apt-cache policy` lists them under the "***" entry.
src_lines=$(apt-cache policy libdpdk-dev | awk '
	/^ \*\*\* / { mine = 1; next }
	/^     [^ ]/ && !/^        / { mine = 0 }
	mine && $2 ~ /^https?:/ { split($3, sc, "/"); print "deb-src " $2 " " sc[1] " " sc[2] }' |
	sort -u)
if [ -z "$src_lines" ]; then
	# Installed from a file: ask the distribution's own archive.
	. /etc/os-release
	src_lines="deb-src http://deb.debian.org/debian ${VERSION_CODENAME} main
deb-src http://deb.debian.org/debian ${VERSION_CODENAME}-updates main
deb-src http://deb.debian.org/debian-security ${VERSION_CODENAME}-security main"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/dpdk-sdk.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/src"
printf '%s\n' "$src_lines" >"$work/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o APT::Sandbox::User=root)

echo "dpdk-sdk: fetching Debian source package dpdk=$deb_ver for the driver SDK headers" >&2
apt-get "${apt_opts[@]}" -q update >"$work/update.log" 2>&1 ||
	die "apt-get update of the source indexes failed ($(tail -1 "$work/update.log")); sources tried:
$src_lines"
(cd "$work/src" && apt-get "${apt_opts[@]}" -q source --download-only "dpdk=$deb_ver") \
	>"$work/source.log" 2>&1 ||
	die "the archive has no source package dpdk=$deb_ver matching the installed libdpdk-dev ($(tail -1 "$work/source.log"))"

orig=$(ls "$work"/src/dpdk_*.orig.tar.* 2>/dev/null | head -1)
[ -n "$orig" ] || die "no upstream tarball in the downloaded source package"
# (tar is cut short by head: not a failure)
top=$(tar tf "$orig" 2>/dev/null | head -1 | cut -d/ -f1 || true)
[ -n "$top" ] || die "cannot list $orig"
tar xf "$orig" -C "$work/src" "$top/VERSION" "${headers[@]/#/$top/}" ||
	die "$orig lacks one of: ${headers[*]}"
src_ver=$(cat "$work/src/$top/VERSION")
[ "$src_ver" = "$pc_ver" ] ||
	die "version mismatch: source package dpdk=$deb_ver is DPDK $src_ver, pkg-config libdpdk says $pc_ver"

# The headers are used as upstream ships them: refuse if Debian patches them.
deb_tar=$(ls "$work"/src/dpdk_*.debian.tar.* 2>/dev/null | head -1)
if [ -n "$deb_tar" ]; then
	mkdir -p "$work/debian" && tar xf "$deb_tar" -C "$work/debian"
	for h in "${headers[@]}"; do
		if grep -rqs -- "^+++ .*/$h" "$work/debian/debian/patches"; then
			die "a Debian patch of dpdk=$deb_ver changes $h: applying patches is not supported"
		fi
	done
fi

rm -rf "$out/include" && mkdir -p "$out/include"
for h in "${headers[@]}"; do cp "$work/src/$top/$h" "$out/include/"; done
echo "$deb_ver" >"$out/version"
echo "$out/include"
