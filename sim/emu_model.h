/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/emu_model.h — the state of the simulator's model of the emulator
 * (arch.emulated, sim/emu_model.c, docs/simulator.md §2.4); the emulator
 * itself is emu/. Included by engine.h inside struct sim's definitions
 * (it uses enum core_state); its functions are declared in engine_int.h.
 */
#ifndef SIM_EMU_MODEL_H
#define SIM_EMU_MODEL_H

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

/* The simulator's model of the emulator (arch.emulated, sim/emu_model.c;
 * the emulator itself is emu/): its physical queues and its core, which
 * visits them round-robin. */
struct emumodel {
	struct emumodel_pkt *fifo; /* every queue's packet slots (pq[q].pkt) */
	uint32_t n;                /* packets held now, in all queues */
	uint64_t t;
	enum core_state state;
	uint32_t npq;
	struct emumodel_pq *pq;
	uint32_t rr;       /* the queue the core visits next */
	uint32_t in_burst; /* packets taken in the visit of pq[rr] so far */
	uint64_t loop_ps;  /* one idle pass over the queues: the retry interval */
	/* after warm-up: */
	uint64_t busy, pkts;
	uint64_t retries;  /* polls that found the head's virtual ring full */
	uint32_t occ_max;  /* most packets one physical queue held */
};

#endif /* SIM_EMU_MODEL_H */
