/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The emulator's configuration: the scenario vocabulary (every key defined
 * once in python/rxbisect/scenario_keys.toml, checked by the scenario
 * library at the emulator's limits), then the rules that involve several
 * keys or what this emulator can run. Every rejection names the key, the
 * value, why, and what is allowed.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <rte_config.h>

#include "emu.h"
#include "nf/nf.h"
#include "nf/wire.h"

/* The table's emulator bounds that mirror this emulator's own constants. */
RXB_SCN_EMU_STATIC_CHECKS;

void rxb_emu_cfg_defaults(struct rxb_emu_cfg *c)
{
	memset(c, 0, sizeof(*c));
	rxb_scn_defaults(&c->scn, RXB_ENGINE_EMU);
	c->out = RXB_EMU_OUT_NULL;
}

/* emu.out: null, port or pcap:<file>. */
static int parse_out(struct rxb_emu_cfg *c, const char *v, struct rxb_err *err)
{
	if (strcmp(v, "null") == 0) {
		c->out = RXB_EMU_OUT_NULL;
	} else if (strcmp(v, "port") == 0) {
		c->out = RXB_EMU_OUT_PORT;
	} else if (strncmp(v, "pcap:", 5) == 0 && v[5] != '\0' &&
		   strlen(v + 5) < sizeof(c->out_pcap)) {
		c->out = RXB_EMU_OUT_PCAP;
		snprintf(c->out_pcap, sizeof(c->out_pcap), "%s", v + 5);
	} else {
		rxb_err_set(err, "emu.out = %s: unknown output; allowed: null, port, pcap:<file>", v);
		return -EINVAL;
	}
	return 0;
}

int rxb_emu_cfg_set(struct rxb_emu_cfg *c, const char *key, const char *value,
		    struct rxb_err *err)
{
	int rc = rxb_scn_set_text(&c->scn, RXB_ENGINE_EMU, key, value, err);

	if (rc == 0 && strcmp(key, "emu.out") == 0)
		return parse_out(c, value, err);
	return rc;
}

/* ------------------------------------------------------------- checks */

uint32_t rxb_emu_phys_queues(const struct rxb_emu_cfg *c)
{
	/* may be asked before rxb_emu_cfg_check() resolved "auto" */
	uint32_t share = c->scn.arch.share_degree != RXB_SCN_AUTO ? c->scn.arch.share_degree :
				c->scn.system.cores / c->scn.system.nics;

	switch (c->scn.arch.name) {
	case RXB_ARCH_PRIVRING:
	case RXB_ARCH_SMALL_PRIVRING:
		return c->scn.system.cores;
	case RXB_ARCH_SHRING:
	case RXB_ARCH_SHRING_LIST:
		return c->scn.system.cores / share;
	case RXB_ARCH_DYN_SHRING:
		return c->scn.system.cores + c->scn.system.cores / share;
	case RXB_ARCH_RXBISECT:
		return rxb_scn_assoc_groups(&c->scn); /* a queue per association set */
	case RXB_ARCH_SPOOL: /* rxb_spool_n_queues: basic's PF queues = system.nics */
		return c->scn.arch.spool_mode == RXB_SPOOL_BASIC ? c->scn.system.nics : c->scn.arch.spool_ports;
	default:
		return 1;
	}
}

uint32_t rxb_emu_lcores_needed(const struct rxb_emu_cfg *c)
{
	return c->scn.system.cores + (c->scn.arch.emulated ? c->scn.emu.nic_lcores : 0) +
	       (c->scn.emu.source == RXB_EMU_SOURCE_GEN ? 1 : 0);
}

/* Set the message and return -EINVAL, in one expression. */
#define CFG_FAIL(err, ...) (rxb_err_set((err), __VA_ARGS__), -EINVAL)

/* Several NIC lcores split the physical queues; each queue's sources and
 * destinations must then be its own (docs/emulator.md "Several NIC
 * lcores"). */
static int check_nic_lcores(const struct rxb_emu_cfg *c, struct rxb_err *err)
{
	static const char *const what[RXB_ARCHS] = {
		[RXB_ARCH_PRIVRING] = "one per core",
		[RXB_ARCH_SMALL_PRIVRING] = "one per core",
		[RXB_ARCH_SHRING] = "one per shared ring: system.cores / arch.share_degree",
		[RXB_ARCH_SHRING_LIST] = "one per shared ring: system.cores / arch.share_degree",
		[RXB_ARCH_RXBISECT] = "one per association set: arch.association = per_nic "
				      "or groups makes more",
		[RXB_ARCH_SPOOL] = "one per spool queue",
	};
	uint32_t n = c->scn.emu.nic_lcores, q = rxb_emu_phys_queues(c);
	const char *arch = rxb_arch_name[c->scn.arch.name];

	if (n == 1)
		return 0;
	if (!c->scn.arch.emulated)
		return CFG_FAIL(err, "emu.nic_lcores = %u with arch.emulated = false: no emulator "
				"lcore runs (the port's queues feed the workers); allowed: 1", n);
	if (c->scn.arch.name == RXB_ARCH_DYN_SHRING)
		return CFG_FAIL(err, "emu.nic_lcores = %u with arch.name = dyn_shring: a core's "
				"private and shared rings switch at one point in one NIC's order; "
				"allowed: 1", n);
	if (c->scn.arch.name == RXB_ARCH_RXBISECT && c->scn.arch.coalesce)
		return CFG_FAIL(err, "emu.nic_lcores = %u with arch.coalesce = true: held notices "
				"are flushed by one timer over every Bx; allowed: 1, or "
				"arch.coalesce = false", n);
	if (n > q)
		return CFG_FAIL(err, "emu.nic_lcores = %u: %s has %u physical queue%s here (%s), "
				"and each is served by one NIC lcore so that no source or "
				"destination has two writers; allowed: 1..%u", n, arch, q,
				q == 1 ? "" : "s", what[c->scn.arch.name], q);
	return 0;
}

int rxb_emu_cfg_check(struct rxb_emu_cfg *c, struct rxb_err *err)
{
	const char *arch = rxb_arch_name[c->scn.arch.name];
	uint32_t cpn = c->scn.system.cores / c->scn.system.nics;
	uint32_t share, groups;

	rxb_scn_resolve_arch(&c->scn, cpn);
	share = c->scn.arch.share_degree;
	groups = rxb_emu_phys_queues(c);

	if (c->scn.arch.name == RXB_ARCH_SPOOL) {
		uint32_t q = rxb_emu_phys_queues(c);
		uint32_t vmax = c->scn.emu.source == RXB_EMU_SOURCE_GEN ? RTE_PMD_RING_MAX_RX_RINGS :
				c->scn.emu.source == RXB_EMU_SOURCE_PCAP ? 64 : RXB_EMU_MAX_WORKERS;

		if (!c->scn.arch.emulated)
			return CFG_FAIL(err, "arch.emulated = false with arch.name = spool: no PMD "
					"exposes representor queues fed from one shared page pool; "
					"allowed with emulated = false: privring, small_privring");
		if (c->scn.arch.spool_ports > RXB_EMU_MAX_WORKERS)
			return CFG_FAIL(err, "arch.spool_ports = %u: the emulator drives at most %u "
					"representor ports (one result row each); simulate more with "
					"`rxb sim`; allowed: 1..%u", c->scn.arch.spool_ports,
					RXB_EMU_MAX_WORKERS, RXB_EMU_MAX_WORKERS);
		if (q > vmax)
			return CFG_FAIL(err, "arch.spool_ports = %u: spool_mode = %s needs %u physical "
					"Rx queues and the %s vdev has at most %u; allowed: "
					"arch.spool_ports <= %u (or spool_mode = basic)", c->scn.arch.spool_ports,
					rxb_spool_mode_name[c->scn.arch.spool_mode], q,
					c->scn.emu.source == RXB_EMU_SOURCE_GEN ? "generator's net_ring" :
					c->scn.emu.source == RXB_EMU_SOURCE_PCAP ? "net_pcap" : "input",
					vmax, vmax);
		if (c->scn.arch.spool_mode == RXB_SPOOL_BASIC && c->scn.system.nics > c->scn.arch.spool_ports)
			return CFG_FAIL(err, "system.nics = %u: spool_mode = basic uses one shared PF "
					"queue per NIC, at most arch.spool_ports = %u", c->scn.system.nics,
					c->scn.arch.spool_ports);
		if (c->scn.arch.spool_mode == RXB_SPOOL_SPP && c->scn.arch.spool_low > c->scn.arch.spool_high)
			return CFG_FAIL(err, "arch.spool_low = %u: must not exceed arch.spool_high = "
					"%u", c->scn.arch.spool_low, c->scn.arch.spool_high);
		if (c->scn.traffic.target_core >= c->scn.arch.spool_ports)
			return CFG_FAIL(err, "traffic.target_core = %u: with arch.name = spool the "
					"target is a representor port; allowed: 0..%u",
					c->scn.traffic.target_core, c->scn.arch.spool_ports - 1);
		if (c->scn.workload.nf == RXB_NF_KIND_KVS)
			return CFG_FAIL(err, "workload.nf = kvs with arch.name = spool: KV requests are "
					"steered to their partition's core, spool steers to ports; "
					"allowed: l3fwd, nat, lb, synthetic, counter");
	} else if (c->scn.system.cores % c->scn.system.nics != 0) {
		rxb_err_set(err, "system.nics = %u: must divide system.cores = %u (each NIC "
			    "serves an equal share of the workers)", c->scn.system.nics, c->scn.system.cores);
		return -EINVAL;
	}
	if (!c->scn.arch.emulated && c->scn.arch.name != RXB_ARCH_PRIVRING && c->scn.arch.name != RXB_ARCH_SMALL_PRIVRING)
		return CFG_FAIL(err, "arch.emulated = false with arch.name = %s: %s; allowed "
				"with emulated = false: privring, small_privring", arch,
				c->scn.arch.name == RXB_ARCH_RXBISECT ?
				"rxBisect needs split Ax/Bx rings that no NIC implements" :
				"shRing needs one Rx ring whose descriptors several cores "
				"re-arm out of order, which no standard PMD exposes");
	if ((c->scn.arch.name == RXB_ARCH_SHRING || c->scn.arch.name == RXB_ARCH_SHRING_LIST ||
	     c->scn.arch.name == RXB_ARCH_DYN_SHRING) &&
	    (cpn % share != 0 || c->scn.system.cores % share != 0)) {
		rxb_err_set(err, "arch.share_degree = %u: must divide the %u cores of each NIC",
			    share, cpn);
		return -EINVAL;
	}
	if (c->scn.arch.name == RXB_ARCH_RXBISECT && (groups == 0 || c->scn.system.cores % groups != 0)) {
		rxb_err_set(err, "arch.groups = %u: must divide system.cores = %u", groups,
			    c->scn.system.cores);
		return -EINVAL;
	}
	if (c->scn.arch.name == RXB_ARCH_DYN_SHRING && c->scn.emu.source != RXB_EMU_SOURCE_GEN)
		return CFG_FAIL(err, "arch.name = %s with emu.source = %s: the switch re-steers "
				"traffic between two sets of physical queues, which only the "
				"built-in generator can do here; allowed: emu.source = gen", arch,
				rxb_emu_source_name[c->scn.emu.source]);
	for (uint32_t i = 0; i < c->scn.system.stalled_cores.n; i++)
		if (c->scn.system.stalled_cores.v[i] >= c->scn.system.cores)
			return CFG_FAIL(err, "system.stalled_cores contains %u: core ids must be "
					"below system.cores = %u", c->scn.system.stalled_cores.v[i],
					c->scn.system.cores);
	for (uint32_t i = 0; i < c->scn.system.slow_cores.n; i++)
		if (c->scn.system.slow_cores.v[i] >= c->scn.system.cores)
			return CFG_FAIL(err, "system.slow_cores contains %u: core ids must be below "
					"system.cores = %u", c->scn.system.slow_cores.v[i],
					c->scn.system.cores);
	if (c->scn.arch.name != RXB_ARCH_SPOOL && c->scn.traffic.target_core >= cpn) {
		rxb_err_set(err, "traffic.target_core = %u: must be below the %u cores of a NIC",
			    c->scn.traffic.target_core, cpn);
		return -EINVAL;
	}
	if (c->scn.run.warmup_ms >= c->scn.run.duration_ms) {
		rxb_err_set(err, "run.warmup_ms = %g: must be below run.duration_ms = %g",
			    c->scn.run.warmup_ms, c->scn.run.duration_ms);
		return -EINVAL;
	}
	if (c->scn.traffic.packet_bytes - 4 > c->scn.arch.buffer_bytes) {
		rxb_err_set(err, "traffic.packet_bytes = %u: the frame (without FCS) must fit "
			    "arch.buffer_bytes = %u", c->scn.traffic.packet_bytes, c->scn.arch.buffer_bytes);
		return -EINVAL;
	}
	if (c->scn.traffic.pattern == RXB_PATTERN_TARGET && c->scn.traffic.target_share <= 0 && c->scn.traffic.target_rate_gbps <= 0)
		return CFG_FAIL(err, "traffic.pattern = target: needs traffic.target_share > 0 or "
				"traffic.target_rate_gbps > 0");
	if (c->scn.traffic.target_rate_gbps > c->scn.traffic.rate_gbps) {
		rxb_err_set(err, "traffic.target_rate_gbps = %g: must not exceed "
			    "traffic.rate_gbps = %g", c->scn.traffic.target_rate_gbps, c->scn.traffic.rate_gbps);
		return -EINVAL;
	}
	if ((c->scn.emu.source == RXB_EMU_SOURCE_PCAP || c->scn.traffic.pattern == RXB_PATTERN_TRACE) &&
	    c->scn.traffic.pcap[0] == '\0')
		return CFG_FAIL(err, "traffic.pcap = '': a trace is needed (emu.source = pcap or "
				"traffic.pattern = trace); allowed: the path of a pcap file");
	if (c->scn.traffic.pattern == RXB_PATTERN_TRACE && c->scn.emu.source != RXB_EMU_SOURCE_PCAP)
		return CFG_FAIL(err, "traffic.pattern = trace with emu.source = %s: traces are "
				"replayed by net_pcap; allowed: emu.source = pcap",
				rxb_emu_source_name[c->scn.emu.source]);
	if (c->out == RXB_EMU_OUT_PORT && c->scn.emu.source != RXB_EMU_SOURCE_PORT)
		return CFG_FAIL(err, "emu.out = port with emu.source = %s: only a real port can "
				"send back; allowed: null, pcap:<file>", rxb_emu_source_name[c->scn.emu.source]);
	if (c->scn.workload.nf == RXB_NF_KIND_KVS && c->scn.emu.source == RXB_EMU_SOURCE_NULL)
		return CFG_FAIL(err, "workload.nf = kvs with emu.source = null: KV requests come "
				"from the generator or a trace; allowed: emu.source = gen, pcap, port");
	if (check_nic_lcores(c, err) != 0)
		return -EINVAL;
	if (c->scn.arch.alloc_cache > 0 && c->scn.arch.pool_buffers != RXB_SCN_AUTO &&
	    c->scn.arch.alloc_cache * 3 / 2 > c->scn.arch.pool_buffers) {
		rxb_err_set(err, "arch.alloc_cache = %u: too large for arch.pool_buffers = %u "
			    "(DPDK needs pool >= 1.5 x cache)", c->scn.arch.alloc_cache, c->scn.arch.pool_buffers);
		return -EINVAL;
	}
	return 0;
}

void rxb_emu_cfg_print_keys(FILE *f)
{
	rxb_scn_print_keys(f, RXB_ENGINE_EMU);
}
