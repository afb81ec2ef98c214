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
#include <sys/stat.h>
#include <unistd.h>

#include <rte_config.h>

#include "emu.h"
#include "nf/nf.h"
#include "nf/wire.h"
#include "rxb/shape.h"

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

/* The design's shape (rxb_iface_shape), also before rxb_emu_cfg_check()
 * resolved "auto": an "auto" share degree is then every core of a NIC. */
static int design_shape(const struct rxb_emu_cfg *c, struct rxb_iface_shape *shape,
			struct rxb_iface_config *ic)
{
	struct rxb_err err = { 0 };

	rxb_scn_iface_config(&c->scn, 0, 1.0, ic);
	if (ic->share_degree == RXB_SCN_AUTO)
		ic->share_degree = c->scn.system.cores / c->scn.system.nics;
	return rxb_iface_shape(ic, shape, &err);
}

uint32_t rxb_emu_phys_queues(const struct rxb_emu_cfg *c)
{
	struct rxb_iface_shape shape;
	struct rxb_iface_config ic;

	struct rxb_src_range r;
	struct rxb_err err = { 0 };
	uint32_t n = 0;

	if (design_shape(c, &shape, &ic) != 0)
		return 0;
	/* One physical queue per range of sources that serve a destination
	 * (shape.h): per source, except rxBisect's, whose association set's Ax
	 * rings feed one queue, so that a packet may land in a buffer of any Ax
	 * of its set. */
	for (uint32_t set = 0; set < RTE_MAX(shape.queues_per_core, 1u); set++)
		for (uint32_t d = 0; d < shape.n_dests; d++)
			if (rxb_iface_shape_srcs_of(&ic, d, set, &r, &err) == 0)
				n = RTE_MAX(n, r.group + 1);
	return n;
}

/* What a physical queue is in this design, for messages. */
static const char *phys_queues_what(const struct rxb_emu_cfg *c, char *buf, size_t cap)
{
	struct rxb_iface_shape shape;
	struct rxb_iface_config ic;

	if (design_shape(c, &shape, &ic) != 0)
		return "one per destination";
	/* rxBisect's queues are its association sets, of one core or more */
	if (ic.arch == RXB_ARCH_RXBISECT)
		return "one per association set: arch.association = per_nic or groups makes more";
	if (shape.n_srcs >= shape.n_dests)
		return "one per destination";
	snprintf(buf, cap, "one per shared ring, %u of the %u destinations on each",
		 shape.n_dests / shape.n_srcs, shape.n_dests);
	return buf;
}

uint32_t rxb_emu_lcores_needed(const struct rxb_emu_cfg *c)
{
	return c->scn.system.cores + (c->scn.arch.emulated ? c->scn.emu.nic_lcores : 0) +
	       (c->scn.emu.source == RXB_EMU_SOURCE_GEN ? c->scn.emu.gen_lcores : 0);
}

uint32_t rxb_emu_gen_slices(const struct rxb_emu_cfg *c)
{
	uint32_t g = c->scn.emu.gen_lcores, nics = c->scn.system.nics;

	return g > nics ? g / nics : 1;
}

/* Set the message and return -EINVAL, in one expression. */
#define CFG_FAIL(err, ...) (rxb_err_set((err), __VA_ARGS__), -EINVAL)

/* Several NIC lcores split the physical queues; each queue's sources and
 * destinations must then be its own (docs/emulator.md "Several NIC
 * lcores"). */
static int check_nic_lcores(const struct rxb_emu_cfg *c, struct rxb_err *err)
{
	uint32_t n = c->scn.emu.nic_lcores, q = rxb_emu_phys_queues(c);
	const char *arch = rxb_arch_name[c->scn.arch.name];
	char what[80];

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
				n, arch, q, q == 1 ? "" : "s",
				phys_queues_what(c, what, sizeof(what)), q);
	return 0;
}

/* Who feeds each physical queue with g generator lcores (port p on lcore
 * p % g; with slices, g > nics, each port apart): whether every queue
 * serves the cores of one such lcore's ports, so that one lcore alone
 * takes its buffers and enqueues its packets, and in *fewest the fewest
 * queues one port's cores are served by (what a port's slices split). */
static bool gen_queue_owners(const struct rxb_emu_cfg *c, uint32_t g, uint32_t *fewest)
{
	uint32_t nics = c->scn.system.nics, cpn = c->scn.system.cores / nics;
	struct rxb_iface_shape shape;
	struct rxb_iface_config ic;
	struct rxb_err err = { 0 };
	struct rxb_src_range r;
	uint32_t *owner, *per_port;
	bool ok = true;

	*fewest = cpn;
	if (!c->scn.arch.emulated) /* a queue per core */
		return true;
	*fewest = 0;
	if (design_shape(c, &shape, &ic) != 0)
		return false;
	/* a queue per group of sources: never more groups than sources */
	owner = malloc(sizeof(*owner) * shape.n_srcs);
	per_port = calloc(nics, sizeof(*per_port));
	ok = owner != NULL && per_port != NULL;
	for (uint32_t k = 0; ok && k < shape.n_srcs; k++)
		owner[k] = UINT32_MAX;
	for (uint32_t d = 0; ok && d < shape.n_dests; d++) {
		uint32_t lcore = d / cpn % RTE_MIN(g, nics);

		ok = rxb_iface_shape_srcs_of(&ic, d, 0, &r, &err) == 0 && r.group < shape.n_srcs &&
		     (owner[r.group] == UINT32_MAX || owner[r.group] == lcore);
		if (ok && owner[r.group] == UINT32_MAX)
			per_port[d / cpn]++;
		if (ok)
			owner[r.group] = lcore;
	}
	for (uint32_t p = 0; ok && p < nics; p++)
		*fewest = p == 0 ? per_port[0] : RTE_MIN(*fewest, per_port[p]);
	free(owner);
	free(per_port);
	return ok;
}

/* Lcores per port (g > nics) split each port's physical queues: at most
 * as many lcores per port as it has queues (the fewest any port has: q). */
static int check_gen_slices(const struct rxb_emu_cfg *c, uint32_t q, struct rxb_err *err)
{
	uint32_t g = c->scn.emu.gen_lcores, nics = c->scn.system.nics;
	uint32_t slices = rxb_emu_gen_slices(c);
	char what[80];

	if (slices <= q)
		return 0;
	return CFG_FAIL(err,
			"emu.gen_lcores = %u: %u generator lcores per NIC port split its "
			"physical queues, and %s has %u per port here (%s); allowed: 1..%u",
			g, slices, rxb_arch_name[c->scn.arch.name], q,
			phys_queues_what(c, what, sizeof(what)), RTE_MAX(q, 1u) * nics);
}

/* Several generator lcores each play their own NIC ports, or their own
 * slice of a port's queues, so each must alone feed its physical queues
 * and the destinations behind them. */
static int check_gen_lcores(const struct rxb_emu_cfg *c, struct rxb_err *err)
{
	uint32_t g = c->scn.emu.gen_lcores, nics = c->scn.system.nics;
	const char *arch = rxb_arch_name[c->scn.arch.name];
	struct rxb_iface_shape shape;
	struct rxb_iface_config ic;
	uint32_t fewest;

	if (g == 1)
		return 0;
	if (c->scn.emu.source != RXB_EMU_SOURCE_GEN)
		return CFG_FAIL(err,
				"emu.gen_lcores = %u with emu.source = %s: only the generator "
				"source has lcores of its own; allowed: 1",
				g, rxb_emu_source_name[c->scn.emu.source]);
	if (g > nics && g % nics != 0)
		return CFG_FAIL(err,
				"emu.gen_lcores = %u: more lcores than NIC ports split each port "
				"between the same number of lcores, and there are system.nics = "
				"%u; allowed: 1..%u or a multiple of %u",
				g, nics, nics, nics);
	if (design_shape(c, &shape, &ic) != 0 || shape.queues_per_core > 1)
		return CFG_FAIL(err,
				"emu.gen_lcores = %u with arch.name = %s: its ring sets switch "
				"at run time, a switch one generator lcore hands to the NIC; "
				"allowed: 1",
				g, arch);
	if (c->scn.arch.name == RXB_ARCH_SPOOL)
		return CFG_FAIL(err,
				"emu.gen_lcores = %u with arch.name = %s: its destinations are "
				"ports every NIC port shares; allowed: 1",
				g, arch);
	if (!gen_queue_owners(c, g, &fewest))
		return CFG_FAIL(err,
				"emu.gen_lcores = %u: a physical queue of %s here serves cores "
				"of NIC ports different generator lcores play (port p on lcore p "
				"mod %u); allowed: 1, or queues within one NIC (e.g. "
				"arch.association = per_nic)",
				g, arch, RTE_MIN(g, nics));
	return check_gen_slices(c, fewest, err);
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

/* A file net_pcap opens by name: its devargs are "key=value,key=value",
 * so a ',' or '=' in the name would cut it (a rejected vdev, with a
 * message about the device, not the file). */
static int check_pcap_name(const char *setting, const char *path, struct rxb_err *err)
{
	const char *bad = strpbrk(path, ",=");

	if (bad == NULL)
		return 0;
	return CFG_FAIL(err,
			"%s%s: net_pcap's devargs cannot hold '%c' in a file name; allowed: "
			"a path without ',' or '=' (rename or link the file)",
			setting, path, *bad);
}

/* The output capture can be written: an existing file we may write, or a
 * new one in a directory we may write. Checked before the EAL starts, so
 * the run is refused as emu.out's (net_pcap's failure came late, exit 1,
 * with the errno of rte_vdev_init). */
static int check_writable(const char *setting, const char *path, struct rxb_err *err)
{
	char dir[sizeof(((struct rxb_emu_cfg *)0)->out_pcap)];
	const char *slash = strrchr(path, '/');
	struct stat st;
	int rc;

	if (stat(path, &st) == 0) {
		errno = EISDIR;
		rc = S_ISDIR(st.st_mode) ? -1 : access(path, W_OK);
	} else if (errno != ENOENT) {
		rc = -1;
	} else { /* a new file: its directory */
		if (slash == NULL)
			snprintf(dir, sizeof(dir), ".");
		else
			snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path),
				 path);
		rc = access(dir, W_OK);
	}
	if (rc == 0)
		return 0;
	return CFG_FAIL(err,
			"%s%s: cannot be written (%s); allowed: a file in a directory you can "
			"write",
			setting, path, strerror(errno));
}

/* The pcap files the run hands to net_pcap by name: the trace (unless it
 * is split into files of the emulator's own naming, one per queue) and the
 * output. */
static int check_pcap_names(const struct rxb_emu_cfg *c, struct rxb_err *err)
{
	if (c->scn.emu.source == RXB_EMU_SOURCE_PCAP && rxb_emu_phys_queues(c) == 1 &&
	    check_pcap_name("traffic.pcap = ", c->scn.traffic.pcap, err) != 0)
		return -EINVAL;
	if (c->out == RXB_EMU_OUT_PCAP &&
	    (check_pcap_name("emu.out = pcap:", c->out_pcap, err) != 0 ||
	     check_writable("emu.out = pcap:", c->out_pcap, err) != 0))
		return -EINVAL;
	return 0;
}

/* The scenario library's rules (the same rules and messages as the front
 * end and the simulator), then what only the emulator limits: spool's
 * ports and queues, the output port, pcap names, its generator and NIC
 * lcores. */
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
	if (check_pcap_names(c, err) != 0 || check_gen_lcores(c, err) != 0)
		return -EINVAL;
	return check_nic_lcores(c, err);
}

void rxb_emu_cfg_print_keys(FILE *f)
{
	rxb_scn_print_keys(f, RXB_ENGINE_EMU);
}
