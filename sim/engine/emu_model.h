/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/engine/emu_model.h — the state of the simulator's model of the emulator
 * (arch.emulated, sim/engine/emu_model.c, docs/simulator.md §2.4) and what the
 * NIC hands it; the emulator itself is emu/.
 */
#ifndef SIM_EMU_MODEL_H
#define SIM_EMU_MODEL_H

#include <stdbool.h>
#include <stdint.h>

/* A packet the physical NIC wrote into a physical buffer, waiting for the
 * emulator core. */
struct emumodel_pkt {
	uint64_t arr, vis, paddr;
	uint32_t flow, order, key, hash, dest;
	uint16_t len;
	uint8_t nic, cls;
};

/* One physical queue (an Rx ring of the physical NIC): its free buffers, a
 * FIFO of addresses the NIC fills next (a[], head, n), and the packets it
 * holds in arrival order (pkt[], pkt_head, pkts; a slice of
 * emumodel.fifo). A held packet keeps its buffer, so n + pkts = cap: the
 * ring is full — the NIC drops — exactly when n = 0. */
struct emumodel_pq {
	uint64_t *a;
	uint32_t cap, head, n;
	struct emumodel_pkt *pkt;
	uint32_t pkt_head, pkts;
};

/* The simulator's model of the emulator (arch.emulated, sim/engine/emu_model.c;
 * the emulator itself is emu/): its physical queues and its core, which
 * visits them round-robin. */
struct emumodel {
	struct emumodel_pkt *fifo; /* every queue's packet slots (pq[q].pkt) */
	uint32_t n;                /* packets held now, in all queues */
	uint64_t t;
	bool sleeping; /* waits for a physical completion (emumodel_wake) */
	uint32_t npq;
	struct emumodel_pq *pq;
	uint32_t *pq_of_dest; /* the queue each destination's packets land in */
	uint32_t rr;          /* the queue the core visits next */
	uint32_t in_burst;    /* packets taken in the visit of pq[rr] so far */
	uint64_t loop_ps;     /* one idle pass over the queues: the retry interval */
	/* after warm-up: */
	uint64_t busy, pkts;
	uint64_t retries; /* polls that found the head's virtual ring full */
	uint32_t occ_max; /* most packets one physical queue held */
};

struct sim;
struct nic;
struct sim_pkt;

/* The physical queues and their buffers, from extra_base: returns how
 * many buffers they hold beyond the pool's. */
uint64_t emumodel_setup(struct sim *s, uint64_t extra_base);
/* NIC n hands the emulator's physical queue a packet (hash h, flow id fid
 * and order, steered to dest) at t. */
void emumodel_packet(struct sim *s, struct nic *n, const struct sim_pkt *p, uint64_t t, uint32_t h,
		     uint32_t fid, uint32_t order, uint32_t dest, bool cohort);
/* The emulator core runs at now. */
void ev_emucore(struct sim *s, uint64_t now);

/* Stats: "emulator" (arch.emulated); buffers its physical queues hold. */
struct json_t;
void emumodel_stats(const struct sim *s, struct json_t *m, double T);
uint64_t emumodel_posted(const struct sim *s);

#endif /* SIM_EMU_MODEL_H */
