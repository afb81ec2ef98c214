/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The flows a worker's flow-state NF (lb, nat) meets under the generator
 * source: how many of them the run can steer to it (which sizes its LB's
 * table), and, with emu.learn_flows, learning them before the clock starts.
 *
 * Why learn. Under the study's generator ranges every packet opens a new
 * flow until the ranges wrap: 8,256,508 flows a port, about a second of
 * 100 Gbps of 1518 B frames. A run of the emulator's default length would
 * therefore measure one table insertion per packet, while the study's runs
 * (minutes of T-Rex traffic) and rxb sim (sim/engine/nf.c: lookups of known
 * flows) are in the regime where every flow is known. Learning passes one
 * packet of each flow through the worker's own NF, on the worker's own
 * lcore, in the order the generator first offers them: the tables end as
 * one pass of the traffic would leave them (the LB's round-robin backends,
 * the NAT's ports, a full table's refusals), and the run's packets look up.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "emu_int.h"

/* Learning more flows than this takes a noticeable while: say so. */
#define EMU_LEARN_NOTE_FLOWS (1u << 20)

/* The source stops this long after the run's end at most (the control
 * loop's sleep, a preempted main lcore), the pacer's catch-up included. */
#define EMU_STOP_MARGIN_MS 100.0

/* Flows of port p the run can reach. Under the generator's ranges packet i
 * of a port is flow i mod the flows, so no more than the packets the port
 * offers: its share of emu.packets, else its rate over the run, a tenth
 * more and the stop's margin (a flow beyond would find its LB table full).
 * Drawn flows may each come at any time: all of them. */
static uint64_t flows_reached(const struct emu *e, uint32_t p)
{
	const struct rxb_scn *s = &e->cfg->scn;
	uint64_t n = rxb_gen_n_flows(e->wire[p].gen[0]), pkts;

	if (!rxb_scn_generator_ranges(s))
		return n;
	pkts = s->emu.packets != 0
		       ? s->emu.packets / e->n_wire + (p < s->emu.packets % e->n_wire)
		       : (uint64_t)(e->wire[p].pps *
				    (s->run.duration_ms * 1.1 + EMU_STOP_MARGIN_MS) / 1e3);
	return RTE_MIN(n, pkts);
}

/* Port p's flows as the run first meets them: under the ranges, the cycle
 * from the pattern's first flow on; drawn flows, in any order, by number.
 * The run reaches the first `reach` of them. */
struct port_flows {
	const struct emu_wire *w;
	uint64_t first, all, reach;
};

static struct port_flows port_flows(const struct emu *e, uint32_t p)
{
	const struct emu_wire *w = &e->wire[p];

	return (struct port_flows){ .w = w,
				    .first = rxb_gen_first_flow(w->gen[0]),
				    .all = rxb_gen_n_flows(w->gen[0]),
				    .reach = flows_reached(e, p) };
}

/* The j-th of them (j < reach). */
static inline uint32_t nth_flow(const struct port_flows *pf, uint64_t j)
{
	uint64_t f = pf->first + j;

	return (uint32_t)(f >= pf->all ? f - pf->all : f);
}

/* Does worker-steered flow state apply: a flow-state NF fed by the
 * generator, each of whose flows the port steers to one worker (not KV
 * requests, steered per request; not spool, whose destinations are
 * ports)? */
static bool steered_flows_known(const struct emu *e)
{
	return e->wire != NULL && e->wire[0].flow_steer != NULL &&
	       e->cfg->scn.arch.name != RXB_ARCH_SPOOL;
}

uint32_t *emu_flows_per_worker(const struct emu *e)
{
	uint32_t *n;

	if (!steered_flows_known(e))
		return NULL;
	n = calloc(e->n_dest, sizeof(*n));
	for (uint32_t p = 0; n != NULL && p < e->n_wire; p++) {
		struct port_flows pf = port_flows(e, p);

		for (uint64_t j = 0; j < pf.reach; j++)
			n[pf.w->flow_steer[nth_flow(&pf, j)].core]++;
	}
	return n;
}

/* Drawn flows (or a trace): traffic.flows. The generator's ranges: every
 * packet opens a new flow until they wrap, so every flow steered to it
 * within the run's reach, at most FastClick's per-thread table of
 * next_pow2(workload.flow_capacity / the port's cores) entries, which the
 * study's LB and NAT both keep their flows in: beyond that, new flows are
 * dropped ("full"), as there. */
uint32_t emu_flow_table(const struct emu *e, uint64_t steered)
{
	const struct rxb_scn *s = &e->cfg->scn;
	uint64_t flows;

	if (s->emu.source == RXB_EMU_SOURCE_GEN && rxb_scn_generator_ranges(s)) {
		/* FastClick's table, at least a bucket (rte_hash holds no
		 * fewer entries: rxb_scn_flow_table_for), sized down to the
		 * flows steered here and some room (what the table can be
		 * asked to keep); the room once also raised a small
		 * workload.flow_capacity to 1024 */
		uint64_t table = rxb_scn_flow_table_for((s->workload.flow_capacity + e->cpn - 1) /
							e->cpn);

		flows = RTE_MIN(table, RTE_MAX(steered, 1024u));
	} else { /* drawn flows: room for them all, and some */
		flows = RTE_MAX(s->traffic.flows, 1024u);
	}
	return (uint32_t)RTE_MIN(flows, (uint64_t)RXB_NF_MAX_FLOWS);
}

void emu_note_nat_room(const struct emu *e)
{
	uint64_t most = 0;
	uint32_t table;

	if (e->cfg->scn.workload.nf != RXB_NF_KIND_NAT)
		return;
	for (uint32_t w = 0; w < e->cores; w++)
		most = RTE_MAX(most, e->w[w].steered);
	table = emu_flow_table(e, most);
	if (most == 0 || table <= e->cfg->scn.workload.nat_flows)
		return;
	fprintf(stderr,
		"note: workload.nat_flows = %u holds fewer flows than the generator can steer to "
		"a worker in this run (up to %u, within FastClick's table): the NAT drops the "
		"others as \"full\" (nf_drops); raise workload.nat_flows (at most %u) for a "
		"table that holds them\n",
		e->cfg->scn.workload.nat_flows, table, RXB_NF_MAX_FLOWS);
}

/* A learning packet's frame bytes, at most: lb and nat read the headers
 * only, and a full-size frame would cost a payload's zeroing per flow. */
#define EMU_LEARN_FRAME 128u

/* What one worker's lcore learns with: its worker, and a burst of buffers
 * taken for it beforehand (all workers' at once: a pool short of them
 * fails before any lcore starts, not by which lcore was quicker). */
struct learn_job {
	struct emu_worker *w;
	struct rte_mbuf *m[EMU_BURST];
	_Atomic bool done;
};

/* Worker w's lcore: one packet of each flow steered to it, port by port in
 * the generator's order, through its NF a burst at a time, made in the
 * job's buffers over and over (an NF frees nothing). What the NF drops (a
 * full table) it drops again in the run. */
static int learn_main(void *arg)
{
	struct learn_job *job = arg;
	struct emu_worker *w = job->w;
	struct emu *e = w->e;
	struct rxb_gen_pkt_info pi = { 0 };
	unsigned n = 0;

	for (uint32_t p = 0; p < e->n_wire; p++) {
		struct port_flows pf = port_flows(e, p);

		pi.len = RTE_MIN(rxb_gen_max_frame(pf.w->gen[0]), EMU_LEARN_FRAME);
		for (uint64_t j = 0; j < pf.reach; j++) {
			pi.flow = nth_flow(&pf, j);
			if (pf.w->flow_steer[pi.flow].core != w->id)
				continue;
			rxb_gen_write(pf.w->gen[0], job->m[n], 0, &pi);
			if (++n == EMU_BURST) {
				rxb_nf_process(w->nf, job->m, (uint16_t)n);
				n = 0;
			}
		}
	}
	if (n != 0)
		rxb_nf_process(w->nf, job->m, (uint16_t)n);
	w->learned = rxb_counter_read(&w->nf->stats.inserts);
	/* release: pairs with the acquire in run_jobs(); the NF's tables,
	 * w->learned and the buffers are the main lcore's again */
	atomic_store_explicit(&job->done, true, memory_order_release);
	return 0;
}

/* Whether this run learns: emu.learn_flows, for lb and nat. */
static bool learns(const struct emu *e)
{
	return e->cfg->scn.emu.learn_flows && !e->cfg->scn.emu.sink &&
	       rxb_nf_keeps_flows(e->cfg->scn.workload.nf) && steered_flows_known(e);
}

/* Launch learn_main for every job, worker k on the k-th worker lcore
 * (where launch() places it), and wait for them asleep, not spinning in
 * rte_eal_wait_lcore: on a small machine this lcore's CPU is also a
 * worker's. */
static int run_jobs(struct emu *e, struct learn_job *jobs, struct rxb_err *err)
{
	unsigned lcore, k = 0;
	int rc = 0;

	RTE_LCORE_FOREACH_WORKER(lcore)
	{
		if (k == e->cores)
			break;
		e->w[k].lcore = lcore;
		if (rte_eal_remote_launch(learn_main, &jobs[k], lcore) != 0) {
			rc = rxb_err_fail(err, -EBUSY, "lcore %u is busy: cannot learn flows",
					  lcore);
			break;
		}
		k++;
	}
	for (uint32_t w = 0; w < k; w++) {
		/* acquire: pairs with the release at the end of learn_main() */
		while (!atomic_load_explicit(&jobs[w].done, memory_order_acquire))
			usleep(1000);
		rte_eal_wait_lcore(e->w[w].lcore);
	}
	return rc;
}

int emu_learn_flows(struct emu *e, struct rxb_err *err)
{
	uint64_t total = 0, t0 = rte_get_timer_cycles();
	struct learn_job *jobs;
	int rc;

	if (!learns(e))
		return 0;
	jobs = calloc(e->cores, sizeof(*jobs));
	if (jobs == NULL)
		return rxb_err_fail(err, -ENOMEM, "out of memory: %u workers' learning", e->cores);
	for (uint32_t w = 0; w < e->cores; w++) {
		jobs[w].w = &e->w[w];
		total += e->w[w].steered;
		if (rte_pktmbuf_alloc_bulk(e->wpool, jobs[w].m, EMU_BURST) != 0) {
			for (uint32_t k = 0; k < w; k++)
				rte_pktmbuf_free_bulk(jobs[k].m, EMU_BURST);
			free(jobs);
			return rxb_err_fail(
				err, -ENOBUFS,
				"emu.learn_flows: the pool has no %u buffers for each of "
				"the %u workers to learn its flows with (raise "
				"arch.pool_buffers, or set emu.learn_flows = false)",
				EMU_BURST, e->cores);
		}
	}
	if (total >= EMU_LEARN_NOTE_FLOWS)
		fprintf(stderr,
			"rxb-emu: the workers learn %llu flows before the clock starts "
			"(emu.learn_flows)\n",
			(unsigned long long)total);
	rc = run_jobs(e, jobs, err);
	for (uint32_t w = 0; w < e->cores; w++)
		rte_pktmbuf_free_bulk(jobs[w].m, EMU_BURST);
	free(jobs);
	if (rc == 0 && total >= EMU_LEARN_NOTE_FLOWS)
		fprintf(stderr, "rxb-emu: learned in %.1f s\n",
			(double)(rte_get_timer_cycles() - t0) / (double)rte_get_timer_hz());
	return rc;
}
