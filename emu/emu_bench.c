/* SPDX-License-Identifier: BSD-3-Clause
 *
 * `rxb-emu --bench`: two measurements per interface, one JSON object.
 *
 *  dispatch  the emulator lcore alone on a CPU, fed by emu.source=null (endless
 *            frames, prefilled with packets of the pattern so software RSS
 *            spreads them), software Toeplitz RSS, workers that free what
 *            they receive (emu.sink). Reported: dispatched Mpps achieved,
 *            emulator cycles per dispatched packet over its busy loops, and
 *            the capacity that implies (TSC Hz / cycles × NIC lcores),
 *            which does not depend on whether the workers kept up, and
 *            the latency the NIC lcores add. With emu.nic_lcores = N,
 *            "auto" gives shRing a shared ring and rxBisect an association
 *            set per NIC lcore (rxb_scn_resolve_arch: what sharding needs).
 *  rx_cost   the workers' receive call on one core, hot caches: the bench
 *            plays the NIC (fetch + deliver 32 packets to core 0 with the
 *            design's verbs), then times rxb_iface_rx() (refills from a DPDK
 *            mempool with a per-lcore cache included) and rxb_iface_free().
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "emu.h"
#include "emu_jw.h"
#include "handoff.h"
#include "line_transfer.h"
#include "rxb/privring.h"
#include "rxb/rxbisect.h"
#include "rxb/shring.h"

static const enum rxb_arch bench_archs[] = {
	RXB_ARCH_PRIVRING,    RXB_ARCH_SMALL_PRIVRING, RXB_ARCH_SHRING,
	RXB_ARCH_SHRING_LIST, RXB_ARCH_RXBISECT,
};

static unsigned raw_get(void *ctx, rxb_buf_t *bufs, unsigned n)
{
	return rte_mempool_get_bulk(ctx, (void **)bufs, n) == 0 ? n : 0;
}

static void raw_put(void *ctx, const rxb_buf_t *bufs, unsigned n)
{
	rte_mempool_put_bulk(ctx, (void *const *)bufs, n);
}

struct rx_cost {
	double rx_cyc, free_cyc;
	uint64_t pkts;
};

static int measure_rx(enum rxb_arch arch, double ms, struct rx_cost *out, struct rxb_err *err)
{
	static unsigned seq;
	char name[RTE_MEMPOOL_NAMESIZE];
	struct rte_mempool *mp;
	struct rxb_allocator al[2];
	struct rxb_iface_config ic;
	struct rxb_iface *i;
	struct rxb_pkt pkts[RXB_BURST_MAX];
	rxb_buf_t bufs[RXB_BURST_MAX];
	uint64_t rx = 0, fr = 0, n_pkts = 0, hz = rte_get_tsc_hz(), end;

	snprintf(name, sizeof(name), "rxbbench%u", seq++);
	mp = rte_pktmbuf_pool_create(name, 16384, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				     (int)rte_socket_id());
	if (mp == NULL) {
		rxb_err_set(err, "bench: mempool: %s", rte_strerror(rte_errno));
		return -ENOMEM;
	}
	for (int k = 0; k < 2; k++)
		al[k] = (struct rxb_allocator){ raw_get, raw_put, mp };
	memset(&ic, 0, sizeof(ic));
	ic.arch = arch;
	ic.n_cores = 2;
	i = rxb_iface_create(&ic, al, err);
	if (i == NULL) {
		rte_mempool_free(mp);
		return -EINVAL;
	}
	end = rte_rdtsc() + (uint64_t)(ms * 1e-3 * (double)hz);
	while (rte_rdtsc() < end) {
		for (int round = 0; round < 64; round++) {
			struct rxb_delivery d;
			struct rxb_rx_meta meta = { .len = 64 };
			unsigned got, n;
			uint64_t t0, t1, t2;

			/* the NIC's side, through the generic verbs: source 0
			 * serves destination 0 in every design */
			got = rxb_iface_nic_fetch(i, 0, bufs, 32);
			for (unsigned k = 0; k < got; k++) {
				meta.hash = k;
				rxb_iface_deliver_from(i, 0, &meta, &d);
			}
			t0 = rte_rdtsc();
			n = rxb_iface_rx(i, 0, pkts, 32, t0);
			t1 = rte_rdtsc();
			for (unsigned k = 0; k < n; k++)
				bufs[k] = pkts[k].buf;
			rxb_iface_free(i, 0, bufs, n);
			t2 = rte_rdtsc();
			rx += t1 - t0;
			fr += t2 - t1;
			n_pkts += n;
		}
	}
	out->pkts = n_pkts;
	out->rx_cyc = n_pkts ? (double)rx / (double)n_pkts : NAN;
	out->free_cyc = n_pkts ? (double)fr / (double)n_pkts : NAN;
	rxb_iface_destroy(i);
	rte_mempool_free(mp); /* the buffers still posted go with it */
	return 0;
}

static void cpu_model(char *out, size_t cap)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(out, cap, "unknown");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *p = strchr(line, ':');

		if (strncmp(line, "model name", 10) == 0 && p != NULL) {
			p += 2;
			p[strcspn(p, "\n\"\\")] = '\0';
			snprintf(out, cap, "%s", p);
			break;
		}
	}
	fclose(f);
}

static json_t *bench_head(const struct rxb_emu_cfg *base, double ms, double hz)
{
	json_t *root = json_object(), *machine = json_object(), *p = json_object();
	char model[256];

	cpu_model(model, sizeof(model));
	jw_str(root, "experiment", "emu-bench");
	jw_str(machine, "cpu", model);
	jw_u64(machine, "lcores", rte_lcore_count());
	jw_u64(machine, "tsc_hz", (uint64_t)hz);
	/* 4 KiB pages put a TLB miss on most buffers the NIC lcore touches:
	 * the figure depends on it as much as on the design */
	jw_str(machine, "pages", rte_eal_has_hugepages() ? "hugepages" : "4 KiB");
	/* the price of each line a packet moves between NIC lcore and worker */
	jw_num(machine, "line_transfer_cycles", emu_line_transfer_cycles());
	/* the least a NIC lcore can pay per packet here */
	jw_num(machine, "handoff_cycles_per_packet", emu_handoff_cycles_per_packet());
	jw_set(root, "machine", machine);
	jw_u64(p, "system.cores", base->scn.system.cores);
	jw_u64(p, "traffic.packet_bytes", base->scn.traffic.packet_bytes);
	jw_u64(p, "traffic.flows", base->scn.traffic.flows);
	jw_num(p, "bench_ms", ms);
	jw_str(p, "emu.source", "null");
	jw_str(p, "emu.rss", "sw");
	jw_u64(p, "emu.nic_lcores", base->scn.emu.nic_lcores);
	jw_set(root, "params", p);
	return root;
}

/* One design's dispatch figures from its run. */
static json_t *dispatch_row(enum rxb_arch arch, const struct rxb_emu_result *r, double hz)
{
	json_t *o = json_object();
	double loaded = r->emu_loaded_cycles_per_pkt;

	jw_str(o, "arch", rxb_arch_name[arch]);
	jw_num(o, "achieved_mpps", r->emu_mpps);
	jw_num(o, "cycles_per_packet", r->emu_cycles_per_pkt);
	jw_num(o, "ns_per_packet", r->emu_cycles_per_pkt / hz * 1e9);
	jw_num(o, "loaded_cycles_per_packet", loaded);
	jw_set(o, "stage_cycles_per_packet", rxb_emu_stages_json(r->emu_stage_cyc_per_pkt));
	jw_num(o, "loaded_share",
	       r->emu_dispatched ? (double)r->emu_loaded_pkts / (double)r->emu_dispatched : NAN);
	jw_num(o, "capacity_mpps", loaded > 0 ? hz / loaded * r->emu_nic_lcores / 1e6 : NAN);
	jw_num(o, "added_latency_ns", r->emu_held_ns);
	jw_num(o, "idle_share", r->emu_idle_share);
	jw_num(o, "workers_mpps", r->throughput_mpps);
	jw_u64(o, "dispatched", r->emu_dispatched);
	jw_u64(o, "swaps", r->emu_swaps);
	jw_u64(o, "virt_slots", r->virt_slots); /* the design's own ring sizes */
	jw_set(o, "conservation_ok", json_boolean(r->packets_ok && r->buffers_ok));
	return o;
}

static json_t *rx_cost_row(enum rxb_arch arch, const struct rx_cost *x, double hz)
{
	json_t *o = json_object();

	jw_str(o, "arch", rxb_arch_name[arch]);
	jw_num(o, "rx_cycles", x->rx_cyc);
	jw_num(o, "rx_ns", x->rx_cyc / hz * 1e9);
	jw_num(o, "free_cycles", x->free_cyc);
	jw_num(o, "free_ns", x->free_cyc / hz * 1e9);
	jw_u64(o, "packets", x->pkts);
	return o;
}

/* Each design's full run with the bench's settings, one row each. */
static int dispatch_all(const struct rxb_emu_cfg *base, double ms, json_t *rows,
			struct rxb_emu_result *r, struct rxb_err *err)
{
	double hz = (double)rte_get_tsc_hz();

	for (size_t k = 0; k < RTE_DIM(bench_archs); k++) {
		struct rxb_emu_cfg c = *base;
		int rc;

		c.scn.arch.name = bench_archs[k];
		c.scn.arch.emulated = true;
		c.scn.run.duration_ms = ms;
		c.scn.run.warmup_ms = ms / 10;
		c.scn.emu.telemetry = false;
		c.scn.emu.progress = false;
		rc = rxb_emu_run(&c, r, err);
		if (rc != 0)
			return rc;
		json_array_append_new(rows, dispatch_row(c.scn.arch.name, r, hz));
	}
	return 0;
}

static int rx_cost_all(double ms, json_t *rows, struct rxb_err *err)
{
	double hz = (double)rte_get_tsc_hz();

	for (size_t k = 0; k < RTE_DIM(bench_archs); k++) {
		struct rx_cost x;
		int rc = measure_rx(bench_archs[k], ms, &x, err);

		if (rc != 0)
			return rc;
		json_array_append_new(rows, rx_cost_row(bench_archs[k], &x, hz));
	}
	return 0;
}

int rxb_emu_bench(const struct rxb_emu_cfg *base, double ms, FILE *f, struct rxb_err *err)
{
	struct rxb_emu_result *r = calloc(1, sizeof(*r));
	json_t *root, *dispatch = json_array(), *rx_cost = json_array();
	int rc;

	if (r == NULL)
		return -ENOMEM;
	root = bench_head(base, ms, (double)rte_get_tsc_hz());
	rc = dispatch_all(base, ms, dispatch, r, err);
	if (rc == 0)
		rc = rx_cost_all(ms, rx_cost, err);
	free(r);
	jw_set(root, "dispatch", dispatch);
	jw_set(root, "rx_cost", rx_cost);
	/* written even after a failure: what was measured is kept */
	if (jw_write(f, root, 4, "bench record") != 0 && rc == 0)
		rc = -ENOMEM;
	return rc;
}
