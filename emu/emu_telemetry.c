/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Live counters through DPDK telemetry (read with dpdk-telemetry.py):
 *   /rxb/emulator   the software NIC: dispatched, rate, idle share, buffer
 *                   hand-off (fetched, mismatches, swaps, holes), source drops
 *   /rxb/rings      per destination ring (CR / Bx): offered, delivered,
 *                   drops by cause, occupancy; optional parameter: a ring id
 *   /rxb/workers    per worker: packets, cycles per packet split receive /
 *                   allocator / application, idle share; optional: a worker id
 * The callbacks run on the telemetry thread and read relaxed counters; a
 * reader lock keeps the run's state alive while they do.
 *
 * Dependencies: emu_run.c attaches a run here (emu_telemetry_attach/detach);
 * this file reads it through emu_stats.c and calls nothing of emu_run.c.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_rwlock.h>
#include <rte_telemetry.h>

#include "emu_int.h"

static struct emu *tel_emu;
static rte_rwlock_t tel_lock = RTE_RWLOCK_INITIALIZER;

static int tel_emulator(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct emu *e;
	uint64_t drops[RXB_DROP_CAUSES] = { 0 };

	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	rte_rwlock_read_lock(&tel_lock);
	e = tel_emu;
	if (e == NULL) {
		rte_tel_data_add_dict_string(d, "state", "idle");
		rte_rwlock_read_unlock(&tel_lock);
		return 0;
	}
	/* relaxed: numbers for display, nothing read through them */
	rte_tel_data_add_dict_string(
		d, "state",
		atomic_load_explicit(&e->drain, memory_order_relaxed) ? "draining" : "running");
	rte_tel_data_add_dict_string(d, "arch", rxb_arch_name[e->cfg->scn.arch.name]);
	rte_tel_data_add_dict_int(d, "emulated", e->cfg->scn.arch.emulated);
	rte_tel_data_add_dict_u64(d, "workers", e->cores);
	rte_tel_data_add_dict_u64(d, "phys_queues", e->n_pq);
	rte_tel_data_add_dict_u64(d, "nic_lcores", e->n_nic);
	rte_tel_data_add_dict_u64(d, "dispatched", EMU_NS(e, dispatched));
	rte_tel_data_add_dict_u64(d, "dispatch_kpps",
				  atomic_load_explicit(&e->tel_mpps_milli, memory_order_relaxed));
	rte_tel_data_add_dict_u64(
		d, "idle_permille",
		atomic_load_explicit(&e->tel_idle_permille, memory_order_relaxed));
	rte_tel_data_add_dict_u64(d, "fetched", EMU_NS(e, fetched));
	rte_tel_data_add_dict_u64(d, "buffer_mismatch", EMU_NS(e, mismatch));
	rte_tel_data_add_dict_u64(d, "swaps", EMU_NS(e, swaps));
	rte_tel_data_add_dict_u64(d, "hole_returns", EMU_NS(e, hole_returns));
	rte_tel_data_add_dict_u64(d, "sw_hash", EMU_NS(e, sw_hash));
	rte_tel_data_add_dict_u64(d, "port_hash", EMU_NS(e, port_hash));
	rte_tel_data_add_dict_u64(d, "dma_bytes", EMU_NS(e, dma_bytes));
	for (uint32_t c = 0; c < e->n_dest; c++) {
		for (int k = 0; k < RXB_DROP_CAUSES; k++)
			drops[k] += rxb_counter_read(&e->d[c].drops[k]);
	}
	for (int k = 0; k < RXB_DROP_CAUSES; k++) {
		char name[48];

		snprintf(name, sizeof(name), "source_drop_%s", rxb_drop_cause_name[k]);
		rte_tel_data_add_dict_u64(d, name, drops[k]);
	}
	rte_rwlock_read_unlock(&tel_lock);
	return 0;
}

static int one_id(const char *params, uint32_t n, uint32_t *first, uint32_t *end)
{
	char *p;
	unsigned long v;

	*first = 0;
	*end = n;
	if (params == NULL || *params == '\0')
		return 0;
	v = strtoul(params, &p, 10);
	if (*p != '\0' || v >= n)
		return -1;
	*first = (uint32_t)v;
	*end = (uint32_t)v + 1;
	return 0;
}

/* Start a per-ring / per-worker answer: the run (read-locked) and the ids
 * asked for, or NULL (lock released) with an "error" entry. */
static struct emu *tel_begin(struct rte_tel_data *d, const char *params, const char *what,
			     uint32_t *first, uint32_t *end)
{
	struct emu *e;

	rte_tel_data_start_dict(d);
	rte_rwlock_read_lock(&tel_lock);
	e = tel_emu;
	/* rings are destinations (spool: ports), workers are workers */
	if (e == NULL || one_id(params, strcmp(what, "no such ring") == 0 ? e->n_dest : e->cores,
				first, end) != 0) {
		rte_tel_data_add_dict_string(d, "error", e ? what : "idle");
		rte_rwlock_read_unlock(&tel_lock);
		return NULL;
	}
	return e;
}

static int tel_rings(const char *cmd, const char *params, struct rte_tel_data *d)
{
	uint32_t first, end;
	struct emu *e = tel_begin(d, params, "no such ring", &first, &end);

	(void)cmd;
	if (e == NULL)
		return 0;
	for (uint32_t r = first; r < end; r++) {
		struct rte_tel_data *c = rte_tel_data_alloc();
		char name[16];

		if (c == NULL)
			break;
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_u64(c, "offered", emu_dest_offered(e, r));
		rte_tel_data_add_dict_u64(c, "delivered",
					  e->cfg->scn.arch.emulated
						  ? emu_lib_nic(e, r, RXB_NIC_DELIVERED)
						  : rxb_counter_read(&e->w[r].st.received));
		rte_tel_data_add_dict_u64(c, "occupancy", emu_dest_occupancy(e, r));
		for (int k = 0; k < RXB_DROP_CAUSES; k++)
			rte_tel_data_add_dict_u64(c, rxb_drop_cause_name[k],
						  emu_dest_drops(e, r, k));
		rte_tel_data_add_dict_u64(c, "source_offered", rxb_counter_read(&e->d[r].offered));
		snprintf(name, sizeof(name), "%u", r);
		rte_tel_data_add_dict_container(d, name, c, 0);
	}
	rte_rwlock_read_unlock(&tel_lock);
	return 0;
}

static int tel_workers(const char *cmd, const char *params, struct rte_tel_data *d)
{
	uint32_t first, end;
	struct emu *e = tel_begin(d, params, "no such worker", &first, &end);

	(void)cmd;
	if (e == NULL)
		return 0;
	for (uint32_t w = first; w < end; w++) {
		const struct emu_wstats *s = &e->w[w].st;
		struct rte_tel_data *c = rte_tel_data_alloc();
		uint64_t p = rxb_counter_read(&s->processed), rx = rxb_counter_read(&s->cyc_rx);
		uint64_t al = rxb_counter_read(&s->cyc_alloc), app = rxb_counter_read(&s->cyc_app);
		uint64_t idle = rxb_counter_read(&s->cyc_idle);
		char name[16];

		if (c == NULL)
			break;
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_u64(c, "lcore", e->w[w].lcore);
		rte_tel_data_add_dict_u64(c, "received", rxb_counter_read(&s->received));
		rte_tel_data_add_dict_u64(c, "processed", p);
		rte_tel_data_add_dict_u64(c, "tx", rxb_counter_read(&s->tx));
		rte_tel_data_add_dict_u64(c, "nf_drops", rxb_counter_read(&s->nf_drops));
		rte_tel_data_add_dict_u64(c, "polls", rxb_counter_read(&s->polls));
		rte_tel_data_add_dict_u64(c, "empty_polls", rxb_counter_read(&s->empty_polls));
		rte_tel_data_add_dict_u64(c, "cycles_rx_per_pkt", p ? rx / p : 0);
		rte_tel_data_add_dict_u64(c, "cycles_alloc_per_pkt", p ? al / p : 0);
		rte_tel_data_add_dict_u64(c, "cycles_app_per_pkt", p ? app / p : 0);
		rte_tel_data_add_dict_u64(c, "idle_permille",
					  idle * 1000 / (idle + rx + al + app + 1));
		snprintf(name, sizeof(name), "%u", w);
		rte_tel_data_add_dict_container(d, name, c, 0);
	}
	rte_rwlock_read_unlock(&tel_lock);
	return 0;
}

void emu_telemetry_register(void)
{
	static int done;

	if (done)
		return;
	done = 1;
	rte_telemetry_register_cmd("/rxb/emulator", tel_emulator,
				   "rxbisect emulator: dispatch counters and rates. No parameters");
	rte_telemetry_register_cmd("/rxb/rings", tel_rings,
				   "rxbisect rings: per ring offered, delivered, drops by cause, "
				   "occupancy. Parameter: optional ring id");
	rte_telemetry_register_cmd("/rxb/workers", tel_workers,
				   "rxbisect workers: packets and cycles per packet. Parameter: "
				   "optional worker id");
}

void emu_telemetry_attach(struct emu *e)
{
	emu_telemetry_register();
	rte_rwlock_write_lock(&tel_lock);
	tel_emu = e;
	rte_rwlock_write_unlock(&tel_lock);
}

void emu_telemetry_detach(void)
{
	rte_rwlock_write_lock(&tel_lock);
	tel_emu = NULL;
	rte_rwlock_write_unlock(&tel_lock);
}
