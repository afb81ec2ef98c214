#!/bin/bash
# Regenerates the golden test's configurations (sim/tests/golden/*.json)
# from the front end: each a short run (a few ms) of one mechanism. The
# engine's outputs for them (*.out) are written by the test's script:
#   for c in sim/tests/golden/*.json; do
#     cmake -DUPDATE=1 -DSIM=build/sim/rxb-sim -DTRACEGEN=build/sim/rxb-tracegen \
#           -DCONFIG=$c -DWORK=/tmp -P sim/tests/golden/golden.cmake; done
# Run from the repository root, TRACE naming any pcap (the front end checks
# that it exists; the config keeps "@TRACE@", which the test replaces by the
# trace it writes): TRACE=t.pcap bash sim/tests/golden/make_configs.sh
set -euo pipefail
dir=sim/tests/golden
rxb=.venv/bin/rxb
short="--set run.duration_ms=4 --set run.warmup_ms=1 --set run.sample_ms=0.5"

gen() { # NAME SCENARIO [--set ...]: the config, with no path of this machine in it
	name=$1 scn=$2
	shift 2
	# shellcheck disable=SC2086
	$rxb scenario show --json "$scn" $short "$@" |
		sed -e 's|"source": "[^"]*/|"source": "|' -e 's|"pcap": "/[^"]*"|"pcap": "@TRACE@"|' \
		> "$dir/$name.json"
}

gen privring_lb reference --set arch.name=privring
gen small_privring_bursts bursts --set arch.name=small_privring
gen shring_kvs reference --set arch.name=shring --set workload.nf=kvs --set traffic.pattern=poisson \
	--set system.ddio_ways=0
gen shring_list_synth reference --set arch.name=shring_list --set arch.rxlist_batch=4 \
	--set workload.nf=synthetic --set workload.payload=read --set run.check_invariants=true
gen dyn_shring_switch traffic-var --set arch.name=dyn_shring --set arch.dyn_sample_ms=0.25 \
	--set arch.dyn_window=4 --set arch.dyn_tput_gbps=50
gen rxbisect_counter_hog reference --set arch.name=rxbisect --set arch.coalesce=true \
	--set workload.nf=counter --set system.hog=stream --set system.hog_instances=2 --set system.cores=12
gen rxbisect_nat_stall reference --set arch.name=rxbisect --set workload.nf=nat \
	--set system.stalled_cores=[3] --set system.stall_at_ms=1.5 --set system.stall_for_ms=1 \
	--set system.cat_ways=2 --set run.llc_sample_shift=0 --set arch.association=per_nic
gen spool_l3fwd reference --set arch.name=spool --set arch.spool_ports=64 --set workload.nf=l3fwd
gen emulated_privring reference --set arch.name=privring --set arch.emulated=true \
	--set traffic.rate_gbps=40
gen proc_var_shring proc-var --set system.hog=pagerank --set system.hog_instances=1 --set system.cores=14
gen trace_rxbisect reference --set arch.name=rxbisect --set traffic.pattern=trace \
	--set "traffic.pcap=$TRACE" --set traffic.pcap_loop=true --set system.slow_cores=[1] \
	--set system.slow_extra_ns=300
