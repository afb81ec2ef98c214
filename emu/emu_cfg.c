/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The emulator's configuration: the scenario vocabulary (every key defined
 * once in scenario/tables/scenario_keys.toml, checked by the scenario
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
		rxb_err_set(err, "emu.out = %s: unknown output; allowed: null, port, pcap:<file>",
			    v);
		return -EINVAL;
	}
	return 0;
}

int rxb_emu_cfg_set(struct rxb_emu_cfg *c, const char *key, const char *value, struct rxb_err *err)
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
	uint32_t share = c->scn.arch.share_degree != RXB_SCN_AUTO
				 ? c->scn.arch.share_degree
				 : c->scn.system.cores / c->scn.system.nics;

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
		return c->scn.arch.spool_mode == RXB_SPOOL_BASIC ? c->scn.system.nics
								 : c->scn.arch.spool_ports;
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
		return CFG_FAIL(err,
				"emu.nic_lcores = %u with arch.emulated = false: no emulator "
				"lcore runs (the port's queues feed the workers); allowed: 1",
				n);
	if (c->scn.arch.name == RXB_ARCH_DYN_SHRING)
		return CFG_FAIL(err,
				"emu.nic_lcores = %u with arch.name = dyn_shring: a core's "
				"private and shared rings switch at one point in one NIC's order; "
				"allowed: 1",
				n);
	if (c->scn.arch.name == RXB_ARCH_RXBISECT && c->scn.arch.coalesce)
		return CFG_FAIL(err,
				"emu.nic_lcores = %u with arch.coalesce = true: held notices "
				"are flushed by one timer over every Bx; allowed: 1, or "
				"arch.coalesce = false",
				n);
	if (n > q)
		return CFG_FAIL(err,
				"emu.nic_lcores = %u: %s has %u physical queue%s here (%s), "
				"and each is served by one NIC lcore so that no source or "
				"destination has two writers; allowed: 1..%u",
				n, arch, q, q == 1 ? "" : "s", what[c->scn.arch.name], q);
	return 0;
}

/* What only the emulator limits for spool: the representor ports it drives
 * and the physical queues its input vdev offers. */
static int check_spool_ports(const struct rxb_emu_cfg *c, struct rxb_err *err)
{
	uint32_t q = rxb_emu_phys_queues(c);
	enum rxb_emu_source src = c->scn.emu.source;
	uint32_t vmax = src == RXB_EMU_SOURCE_GEN    ? RTE_PMD_RING_MAX_RX_RINGS
			: src == RXB_EMU_SOURCE_PCAP ? 64
						     : RXB_EMU_MAX_WORKERS;

	if (c->scn.arch.spool_ports > RXB_EMU_MAX_WORKERS)
		return CFG_FAIL(err,
				"arch.spool_ports = %u: the emulator drives at most %u "
				"representor ports (one result row each); simulate more with "
				"`rxb sim`; allowed: 1..%u",
				c->scn.arch.spool_ports, RXB_EMU_MAX_WORKERS, RXB_EMU_MAX_WORKERS);
	if (q > vmax)
		return CFG_FAIL(err,
				"arch.spool_ports = %u: spool_mode = %s needs %u physical "
				"Rx queues and the %s vdev has at most %u; allowed: "
				"arch.spool_ports <= %u (or spool_mode = basic)",
				c->scn.arch.spool_ports,
				rxb_spool_mode_name[c->scn.arch.spool_mode], q,
				src == RXB_EMU_SOURCE_GEN    ? "generator's net_ring"
				: src == RXB_EMU_SOURCE_PCAP ? "net_pcap"
							     : "input",
				vmax, vmax);
	return 0;
}

/* The scenario library's rules (the same rules and messages as the front
 * end and the simulator), then what only the emulator limits: spool's
 * ports and queues, the output port and its NIC lcores. */
int rxb_emu_cfg_check(struct rxb_emu_cfg *c, struct rxb_err *err)
{
	rxb_scn_split_cores(&c->scn.system);
	rxb_scn_resolve_arch(&c->scn, c->scn.system.cores / c->scn.system.nics);
	if (rxb_scn_check(&c->scn, NULL, RXB_ENGINE_EMU, err) != 0)
		return -EINVAL;
	if (c->scn.arch.name == RXB_ARCH_SPOOL && check_spool_ports(c, err) != 0)
		return -EINVAL;
	if (c->out == RXB_EMU_OUT_PORT && c->scn.emu.source != RXB_EMU_SOURCE_PORT)
		return CFG_FAIL(err,
				"emu.out = port with emu.source = %s: only a real port can "
				"send back; allowed: null, pcap:<file>",
				rxb_emu_source_name[c->scn.emu.source]);
	return check_nic_lcores(c, err);
}

void rxb_emu_cfg_print_keys(FILE *f)
{
	rxb_scn_print_keys(f, RXB_ENGINE_EMU);
}
