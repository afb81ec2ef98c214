/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The least a software NIC pays per packet on this machine: one CPU hands
 * packets to another through a completion ring and gets the buffers back
 * through a descriptor ring, touching per packet only what any such NIC
 * must — the buffer's first line (a receive's reset of the mbuf), a 16-byte
 * completion entry and a 4-byte descriptor — with no classification, no
 * design and no DPDK in between. A NIC lcore's cycles per packet can come
 * near this figure and not below it; what it spends beyond is the
 * emulator's own work (emulator.cost.nic_stage_cycles_per_packet says
 * where).
 */
#ifndef RXB_EMU_HANDOFF_H
#define RXB_EMU_HANDOFF_H

/* TSC cycles per packet of the hand-off pipeline (the main lcore writes,
 * the last lcore on another CPU reads and posts back), over 2 million
 * packets or at most 100 ms; NAN when every lcore shares the main lcore's
 * CPU or the rings cannot be allocated. Call from the main lcore with the
 * other lcores idle. */
double emu_handoff_cycles_per_packet(void);

#endif
