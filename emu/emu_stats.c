/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Per-destination views of a run's counters, read the same way by the
 * result (emu_run.c) and the live telemetry (emu_telemetry.c). Dependencies
 * go one way: emu_run.c uses emu_telemetry.c and this file, emu_telemetry.c
 * uses this file, and this file calls neither. Any thread: the counters are
 * relaxed, one-writer reads.
 */
#include "emu_int.h"

uint64_t emu_lib_nic(struct emu *e, uint32_t d, int counter)
{
	/* both ring sets of dynamic shRing; spool: per port */
	return e->iface != NULL ? rxb_iface_nic_counter(e->iface, d, (enum rxb_nic_counter)counter)
				: 0;
}

uint64_t emu_dest_drops(struct emu *e, uint32_t d, int cause)
{
	uint64_t v = rxb_counter_read(&e->d[d].drops[cause]);

	if (e->cfg->scn.arch.emulated)
		v += emu_lib_nic(e, d, RXB_NIC_DROP_FIRST + cause);
	return v;
}

uint64_t emu_dest_offered(struct emu *e, uint32_t d)
{
	uint64_t v;

	if (!e->cfg->scn.arch.emulated)
		return rxb_counter_read(&e->d[d].offered);
	/* the library's, and what the physical side dropped before it */
	v = emu_lib_nic(e, d, RXB_NIC_OFFERED);
	for (int k = 0; k < RXB_DROP_CAUSES; k++)
		v += rxb_counter_read(&e->d[d].drops[k]);
	return v;
}

uint64_t emu_dest_occupancy(struct emu *e, uint32_t d)
{
	if (e->cfg->scn.arch.emulated)
		return rxb_iface_occupancy(e->iface, d);
	return e->pq[d].wire != NULL ? rte_ring_count(e->pq[d].wire) : 0;
}

uint64_t emu_recycled(struct emu *e)
{
	uint64_t n = 0;

	for (uint32_t c = 0; e->iface != NULL && c < e->cores; c++)
		n += rxb_iface_sw_counter(e->iface, c, RXB_SW_RECYCLED);
	return n;
}
