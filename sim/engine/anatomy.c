/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The stall anatomy of the result record (anatomy.h): per core class —
 * main, target, slow — the time a packet costs, by component.
 */
#include <jansson.h>

#include "core.h"
#include "engine.h"

const struct an_info an_info[AN_COMPS] = {
	[AN_RX_CALL] = { "rx_call", AN_KIND_CPU },
	[AN_DOORBELL] = { "rx_doorbell", AN_KIND_CPU },
	[AN_CQE] = { "cqe", AN_KIND_ACCESS },
	[AN_MBUF_RX] = { "mbuf_rx", AN_KIND_ACCESS },
	[AN_MBUF_ALLOC] = { "mbuf_refill", AN_KIND_ACCESS },
	[AN_SYNC] = { "sync", AN_KIND_SYNC },
	[AN_ALLOC] = { "alloc", AN_KIND_CPU },
	[AN_ALLOC_RETRY] = { "alloc_retry_wait", AN_KIND_WAIT },
	[AN_DMA_WAIT] = { "dma_visible_wait", AN_KIND_WAIT },
	[AN_PAUSE] = { "pause", AN_KIND_WAIT },
	[AN_HDR] = { "header_line1", AN_KIND_ACCESS },
	[AN_HDR2] = { "header_line2", AN_KIND_ACCESS },
	[AN_ANNOT] = { "annotations", AN_KIND_ACCESS },
	[AN_FLOW_BUCKET] = { "flow_bucket", AN_KIND_ACCESS },
	[AN_FLOW_KEY] = { "flow_key", AN_KIND_ACCESS },
	[AN_FLOW_FCB] = { "flow_block", AN_KIND_ACCESS },
	[AN_LB_LOAD] = { "lb_backend_load", AN_KIND_SYNC },
	[AN_NAT_PORT] = { "nat_port", AN_KIND_ACCESS },
	[AN_ROUTE] = { "route", AN_KIND_ACCESS },
	[AN_NF_TABLE] = { "nf_table", AN_KIND_ACCESS },
	[AN_NF_ITEM] = { "kvs_item", AN_KIND_ACCESS },
	[AN_PAYLOAD] = { "payload", AN_KIND_ACCESS },
	[AN_COUNTER] = { "counter", AN_KIND_ACCESS },
	[AN_TARGET_READ] = { "target_reads", AN_KIND_ACCESS },
	[AN_COMPUTE] = { "compute", AN_KIND_CPU },
	[AN_TX_FULL_WAIT] = { "tx_full_wait", AN_KIND_WAIT },
	[AN_TX_POST] = { "tx_post", AN_KIND_CPU },
	[AN_TX_WQE] = { "tx_wqe", AN_KIND_ACCESS },
	[AN_MBUF_FREE] = { "mbuf_free", AN_KIND_ACCESS },
	[AN_EMPTY_POLL] = { "empty_poll", AN_KIND_CPU },
};

static const char *const KIND[] = { "cpu", "access", "wait", "sync" };

enum { CLASS_MAIN = 0, CLASS_TARGET, CLASS_SLOW, CLASSES };
static const char *const CLASS[CLASSES] = { "main", "target", "slow" };

static unsigned class_of(const struct core *k)
{
	return k->target ? CLASS_TARGET : k->slow ? CLASS_SLOW : CLASS_MAIN;
}

static json_t *component(const struct anat *a, unsigned c, double pkts)
{
	json_t *o = json_pack("{s:s,s:s,s:f}", "name", an_info[c].name, "kind",
			      KIND[an_info[c].kind], "ns", (double)a->ps[c] / 1e3 / pkts);
	double n = (double)a->n[c];

	if (a->n[c]) {
		json_object_set_new(o, "count", json_real(n / pkts));
		json_object_set_new(o, "l2", json_real((double)a->lvl[c][AN_L2] / n));
		json_object_set_new(o, "llc", json_real((double)a->lvl[c][AN_LLC] / n));
		json_object_set_new(o, "dram", json_real((double)a->lvl[c][AN_DRAM] / n));
		json_object_set_new(o, "latency_ns", json_real((double)a->lat_ps[c] / 1e3 / n));
	}
	return o;
}

/* One class's totals as the record's object; NULL for a class without
 * packets. */
static json_t *class_obj(const struct anat *a, uint32_t cores, uint64_t pkts, uint64_t busy)
{
	json_t *o, *comps;
	uint64_t total = 0;

	if (pkts == 0)
		return NULL;
	comps = json_array();
	for (unsigned c = 0; c < AN_COMPS; c++) {
		total += a->ps[c];
		if (a->ps[c] || a->n[c])
			json_array_append_new(comps, component(a, c, (double)pkts));
	}
	o = json_pack("{s:I,s:I,s:f,s:f}", "cores", (json_int_t)cores, "packets", (json_int_t)pkts,
		      "service_ns", (double)total / 1e3 / (double)pkts, "busy_ns",
		      (double)busy / 1e3 / (double)pkts);
	json_object_set_new(o, "components", comps);
	return o;
}

json_t *anatomy_json(const struct sim *s)
{
	struct anat sum[CLASSES] = { 0 };
	uint64_t pkts[CLASSES] = { 0 }, busy[CLASSES] = { 0 };
	uint32_t cores[CLASSES] = { 0 };
	json_t *o = json_object();

	for (uint32_t c = 0; c < s->ncores; c++) {
		const struct core *k = &s->core[c];
		unsigned cl = class_of(k);

		an_sum(&sum[cl], &k->an);
		pkts[cl] += k->pkts;
		busy[cl] += k->busy;
		cores[cl]++;
	}
	for (unsigned cl = 0; cl < CLASSES; cl++) {
		json_t *c = class_obj(&sum[cl], cores[cl], pkts[cl], busy[cl]);

		if (c)
			json_object_set_new(o, CLASS[cl], c);
	}
	return o;
}
