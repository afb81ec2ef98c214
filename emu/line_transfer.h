/* SPDX-License-Identifier: BSD-3-Clause
 *
 * What one cache line costs to move from one CPU to another here: the unit
 * of the NIC lcore's price per packet. Every line a packet's handling
 * shares between a NIC lcore and a worker (a completion entry, a
 * descriptor, a ring index) moves at this cost, where a hardware NIC writes
 * through PCIe into the LLC; machines differ in it by several times (a
 * 2-vCPU VM sharing a core's caches, a server's mesh, two sockets), and so
 * do the emulator's figures.
 */
#ifndef RXB_EMU_LINE_TRANSFER_H
#define RXB_EMU_LINE_TRANSFER_H

/* TSC cycles of one transfer (half a round trip), measured by bouncing a
 * line between the main lcore and the last lcore on another CPU; NAN when
 * every lcore shares the main lcore's CPU. Call from the main lcore with
 * the other lcores idle. */
double emu_line_transfer_cycles(void);

/* The last lcore whose CPUs the main lcore's do not include, or
 * RTE_MAX_LCORE when every lcore shares the main lcore's CPU. */
unsigned emu_other_cpu_lcore(void);

#endif
