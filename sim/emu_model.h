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

/* The simulator's model of the emulator (arch.emulated, sim/emu_model.c;
 * the emulator itself is emu/): physical queues of buffer addresses and
 * the emulator core's input FIFO. */
struct emumodel_pkt {
	uint64_t arr, vis, paddr;
	uint32_t flow, key, hash, dest, pq;
	uint16_t len;
	uint8_t nic, cls;
};

struct addr_fifo {
	uint64_t *a;
	uint32_t cap, head, n;
};

struct emumodel {
	struct emumodel_pkt *fifo;
	uint32_t cap, head, n;
	uint64_t t;
	enum core_state state;
	uint32_t npq;
	struct addr_fifo *pq;
	uint64_t busy, pkts, batches; /* after warm-up */
	uint32_t in_batch;
};

#endif /* SIM_EMU_MODEL_H */
