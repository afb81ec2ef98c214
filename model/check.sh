#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# model/check.sh [bounded|long] -- model-check the rxBisect protocol
# (model/rxbisect.pml, a model of lib/rxbisect.c) with SPIN.
#
#   bounded  (default; ctest model_rxbisect) 2 cores / 3 Ax rings, |Ax| = 2,
#            |Bx| = 4: every property, every switch, the seeded bugs and the
#            coverage probes. About a minute on 2 cores, < 4 GiB.
#   long     bounded plus 3 cores, |Bx| = 8, |Ax| = 4, 2 packets per rx call,
#            every run on the unrotated Bx rings, and the canonicalisation
#            cross-checks. See docs/model.md for times and memory.
#
# Prints one line per check and finally "N passed, M failed"; exits non-zero
# when a check fails, 77 (ctest: skipped) when spin is not installed.
# Build products go to a temporary directory (kept, and named, on failure;
# KEEP=1 keeps it always). JOBS=n runs n checks at a time (default: nproc).
set -u
mode=${1:-bounded}
case $mode in bounded|long) ;; *) echo "usage: $0 [bounded|long]" >&2; exit 2 ;; esac

here=$(cd "$(dirname "$0")" && pwd)
model=$here/rxbisect.pml
if ! command -v spin >/dev/null 2>&1; then
	echo "model/check.sh: SKIPPED: spin is not installed (apt-get install spin)"
	exit 77
fi
CC=${CC:-cc}
if ! command -v "$CC" >/dev/null 2>&1; then
	echo "model/check.sh: no C compiler ($CC) to build the SPIN verifier" >&2
	echo "0 passed, 1 failed"
	exit 1
fi
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
work=$(mktemp -d "${TMPDIR:-/tmp}/rxb-model.XXXXXX")

if [ "$mode" = bounded ]; then
	memlim=1500      # MB per verifier run; at most $jobs run at once
	depth=3000000
	store=""         # plain state storage: fastest, fits in memlim
else
	memlim=${MEMLIM:-12000}
	depth=20000000
	store=-DCOLLAPSE # compressed state storage
fi

# ---------------------------------------------------------------- checks
# add NAME KIND EXPECT "MODEL FLAGS" [OPT] [EXTRA CC FLAGS]
#   KIND   safety (assertions + invalid end states), refill (c), progress (d)
#   EXPECT pass, or fail:PATTERN (a seeded bug: the run must report a
#          violation whose message matches PATTERN)
#   OPT    0: build the verifier with -O0 (compiles in half a second), 1: with
#          -O2 (2 s more to compile, runs 2-3 times faster)
names=() kinds=() expects=() flags=() opts=() extras=()
add() {
	names+=("$1"); kinds+=("$2"); expects+=("$3"); flags+=("$4")
	opts+=("${5:-0}"); extras+=("${6:-}")
}

C=-DCANON_BX   # Bx rings rotated to index 0 (needs the unrotated runs to pass)
ST="-DSTALL"
CO="-DCOALESCE"

# safety: (a) notices, (b) buffers, the notification invariant, sense
# reversal, no invalid end state. A STALL run also explores every run in
# which the staller never stalls, so it subsumes the run without STALL.
add "all-to-all, 2 cores, stall, unrotated Bx"       safety pass "$ST" 1
add "all-to-all, 2 cores, stall"                     safety pass "$C $ST"
add "all-to-all, 2 cores, coalescing, stall"         safety pass "$C $CO $ST"
add "all-to-all, deliver_from, coalescing, stall"    safety pass "$C -DDELIVER_FROM $CO $ST"
add "two Ax linked to one Bx, overlapping sets"     safety pass "$C -DCFG_MULTILINK"
add "two Ax linked to one Bx, overlapping, coalescing, stall" safety pass "$C -DCFG_MULTILINK $CO $ST" 1
add "small pool (allocation fails)"                  safety pass "$C -DSMALL_POOL"
add "small pool, coalescing, stall"                  safety pass "$C -DSMALL_POOL $CO $ST" 1
# liveness under weak fairness
add "(c) refill, all-to-all, stall"                  refill pass "$C $ST" 1
add "(c) refill, all-to-all, coalescing, stall"      refill pass "$C $CO $ST" 1
add "(c) refill, two Ax linked to one Bx, coalescing, stall" refill pass "$C -DCFG_MULTILINK $CO $ST" 1
add "(d) progress, all-to-all, stall"                progress pass "$C $ST" 1
add "(d) progress, all-to-all, coalescing, stall"    progress pass "$C $CO $ST" 1
add "(d) progress, two Ax linked to one Bx, stall"   progress pass "$C -DCFG_MULTILINK $ST" 1
# seeded bugs: each must be found
add "BUG_NO_RESERVATION"                  safety "fail:notice_found_no_bx_slot" "$C -DBUG_NO_RESERVATION $ST"
add "BUG_NO_RESERVATION, coalescing"      safety "fail:notice_found_no_bx_slot" "$C -DBUG_NO_RESERVATION $CO $ST"
add "BUG_NO_RESERVATION, C's hold: (c)"   refill "fail:acceptance cycle" "$C -DBUG_NO_RESERVATION -DHOLD_OK $ST" 1
add "BUG_DOORBELL_FIRST"                  safety "fail:notice_found_no_bx_slot" "$C -DBUG_DOORBELL_FIRST $ST"
add "BUG_DOUBLE_APPLY"                    safety "fail:notice_" "$C -DBUG_DOUBLE_APPLY"
add "BUG_COALESCE_ORDER"                  safety "fail:notice_out_of_ring_order" "$C -DBUG_COALESCE_ORDER $CO"

if [ "$mode" = long ]; then
	B=-DBITSTATE   # supertrace (pan -w32): approximate, reported with its hash factor
	# every 2-core configuration on unrotated Bx rings (sense reversal on the
	# real wrap-around), and the runs bounded leaves to its STALL supersets
	add "all-to-all, 2 cores, coalescing, stall, unrotated Bx"  safety pass "$CO $ST" 1
	add "two Ax linked to one Bx, coalescing, stall, unrotated" safety pass "-DCFG_MULTILINK $CO $ST" 1
	add "small pool, stall, unrotated Bx"                       safety pass "-DSMALL_POOL $ST" 1
	add "deliver_from, coalescing, stall, unrotated Bx"         safety pass "-DDELIVER_FROM $CO $ST" 1
	add "(c) refill, all-to-all, no stall (both Ax rings)"      refill pass "$C -DREFILL_ALL" 1
	add "(c) refill, all-to-all, coalescing, no stall"          refill pass "$C $CO -DREFILL_ALL" 1
	add "(c) refill, two Ax linked to one Bx, stall"            refill pass "$C -DCFG_MULTILINK $ST" 1
	add "(d) progress, two Ax linked, coalescing, stall"        progress pass "$C -DCFG_MULTILINK $CO $ST" 1
	# bigger rings, bigger bursts
	add "|Bx| = 8, coalescing, stall"                safety pass "$C -DBXSZ=8 $CO $ST" 1
	add "|Ax| = 4, |Bx| = 8, stall"                  safety pass "$C -DAXSZ=4 -DBXSZ=8 $ST" 1
	add "2 packets per rx call, coalescing, stall"   safety pass "$C -DBURST=2 $CO $ST" 1
	add "n = 1 < RXB_BURST_MAX = 2, coalescing, stall" safety pass "$C -DBURSTMAX=2 $CO $ST" 1
	add "(c) refill, |Bx| = 8, coalescing, stall"    refill pass "$C -DBXSZ=8 $CO $ST" 1
	add "(d) progress, |Bx| = 8, coalescing, stall"  progress pass "$C -DBXSZ=8 $CO $ST" 1
	# three cores: exhaustive without coalescing, supertrace beyond
	add "all-to-all, 3 cores, stall"                 safety pass "$C -DNCORE=3 $ST" 1
	add "overlapping sets {0,1} {1,2} {2,0}, 3 cores, stall" safety pass "$C -DCFG_OVERLAP $ST" 1
	add "all-to-all, 3 cores, coalescing, stall (bitstate)" safety pass "$C -DNCORE=3 $CO $ST" 1 $B
	add "overlapping sets, 3 cores, coalescing, stall (bitstate)" safety pass "$C -DCFG_OVERLAP $CO $ST" 1 $B
	add "(c) refill, overlapping sets, 3 cores, stall (bitstate)" refill pass "$C -DCFG_OVERLAP $ST" 1 $B
	add "(d) progress, overlapping sets, 3 cores, stall (bitstate)" progress pass "$C -DCFG_OVERLAP $ST" 1 $B
	# seeded bugs without any canonicalisation (it must not hide them)
	add "BUG_NO_RESERVATION, no canonicalisation"    safety "fail:notice_found_no_bx_slot" "-DNO_CANON -DBUG_NO_RESERVATION $ST"
	add "BUG_DOORBELL_FIRST, no canonicalisation"    safety "fail:notice_found_no_bx_slot" "-DNO_CANON -DBUG_DOORBELL_FIRST $ST"
	add "BUG_DOORBELL_FIRST, C's hold: (c)"          refill "fail:acceptance cycle" "$C -DBUG_DOORBELL_FIRST -DHOLD_OK" 1
	add "BUG_NO_RESERVATION, C's hold, no stall: (c)" refill "fail:acceptance cycle" "$C -DBUG_NO_RESERVATION -DHOLD_OK" 1
	# (d) needs the stall: two healthy cores can be starved by the scheduler
	add "(d) without a stall is false (see docs/model.md)" progress "fail:acceptance cycle" "$C" 1
fi

# ---------------------------------------------------------------- runner
run_one() {
	local i=$1 d="$work/$i" g p f="${flags[$1]}"
	mkdir -p "$d" && cp "$model" "$d/rxbisect.pml" && cd "$d" || return
	case ${kinds[$i]} in
	safety)   g="-DSAFETY -DNOCLAIM -DPRINTF"; p="" ;;
	refill)   f="$f -DNO_CENSUS -DEV_TICK"; g="-DNFAIR=3"; p="-a -f -N refill" ;;
	progress) f="$f -DNO_CENSUS -DEV_TICK -DEV_PROGRESS"; g="-DNFAIR=3"; p="-a -f -N progress" ;;
	esac
	local width=-w24 st=$store
	case " ${extras[$i]} " in *" -DBITSTATE "*) width=-w32; st="" ;; esac
	local t0=$(date +%s%N)
	{
		spin $f -a rxbisect.pml >spin.log 2>&1 &&
		$CC $([ "${opts[$i]}" = 1 ] && echo -O2 || echo -O0) -w -DMEMLIM=$memlim $st $g ${extras[$i]} \
			-o pan pan.c >cc.log 2>&1 &&
		./pan -m$depth $width $p >pan.log 2>&1
	}
	echo $? >rc
	echo $((($(date +%s%N) - t0) / 1000000)) >ms
}

n=${#names[@]}
printf 'model/check.sh %s: %d checks, %d at a time, in %s\n' "$mode" "$n" "$jobs" "$work"
running=0
for ((i = 0; i < n; i++)); do
	( run_one $i ) &
	running=$((running + 1))
	if [ $running -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait

passed=0 failed=0
verdict() { # prints the line for check $1, returns 0 when it passed
	local i=$1 d="$work/$1" log="$work/$1/pan.log" e=${expects[$1]}
	local states secs errs ok=1 why=""
	secs=$(awk '{printf "%.1f", $1 / 1000}' "$d/ms" 2>/dev/null)
	if [ ! -s "$log" ]; then
		why="verifier not built: $(tail -3 "$d/spin.log" "$d/cc.log" 2>/dev/null | tr '\n' ' ')"
		printf 'FAIL  %-8s %-52s %s\n' "${kinds[$i]}" "${names[$i]}" "$why"
		return 1
	fi
	states=$(awk '/states, stored/ {print $1; exit}' "$log")
	errs=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$log" | head -1)
	local incomplete=""
	grep -qE 'max search depth too small|reached -DMEMLIM|Search not completed' "$log" &&
		incomplete=1
	case $e in
	pass)
		if [ "$errs" != 0 ]; then
			ok=0; why="$(grep -m1 -E 'pan:1:|pan: ' "$log")"
		elif [ -n "$incomplete" ]; then
			ok=0; why="search incomplete ($(grep -m1 -E 'max search depth|MEMLIM' "$log"))"
		else
			why="${states} states, ${secs} s"
			grep -q 'hash factor' "$log" &&
				why="$why, bitstate hash factor $(awk '/hash factor/ {print $3; exit}' "$log")"
		fi ;;
	fail:*)
		local pat=${e#fail:}
		if [ "${errs:-0}" -ge 1 ] && grep -m1 'pan:1:' "$log" | grep -q "$pat"; then
			why="violation found as expected: $(grep -m1 'pan:1:' "$log" | sed 's/^pan:1: //; s/ (at depth.*//'), ${secs} s"
		else
			ok=0; why="expected a violation ($pat), got: errors: ${errs:-?}"
		fi ;;
	esac
	if [ $ok = 1 ]; then
		printf 'PASS  %-8s %-52s %s\n' "${kinds[$i]}" "${names[$i]}" "$why"
	else
		printf 'FAIL  %-8s %-52s %s [%s]\n' "${kinds[$i]}" "${names[$i]}" "$why" "$d"
	fi
	[ $ok = 1 ]
}
for ((i = 0; i < n; i++)); do
	if verdict $i; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done

# coverage: every probe reached by some passing safety run, probe 3 by none
covered=$(for ((i = 0; i < n; i++)); do
	[ "${kinds[$i]}" = safety ] && [ "${expects[$i]}" = pass ] &&
		sed -n 's/^COVER \([0-9]*\)$/\1/p' "$work/$i/pan.log" 2>/dev/null
done | sort -nu | tr '\n' ' ')
want="1 2 4 5 6 7 8 9 10 11 12 13"
missing=""
for p in $want; do
	case " $covered " in *" $p "*) ;; *) missing="$missing $p" ;; esac
done
if [ -z "$missing" ]; then
	printf 'PASS  %-8s %-52s %s\n' cover "every coverage probe reached" "probes reached: $covered"
	passed=$((passed + 1))
else
	printf 'FAIL  %-8s %-52s %s\n' cover "every coverage probe reached" "never reached:$missing"
	failed=$((failed + 1))
fi
case " $covered " in
*" 3 "*)
	printf 'FAIL  %-8s %-52s %s\n' cover "Bx never full after the flush (probe 3)" "reached"
	failed=$((failed + 1)) ;;
*)
	printf 'PASS  %-8s %-52s %s\n' cover "Bx never full after the flush (probe 3)" "unreachable, as the invariant implies"
	passed=$((passed + 1)) ;;
esac

if [ "$failed" -eq 0 ] && [ -z "${KEEP:-}" ]; then rm -rf "$work"; else echo "work directory kept: $work"; fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
