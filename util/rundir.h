/* SPDX-License-Identifier: BSD-3-Clause
 *
 * util/rundir.h — removing a DPDK EAL runtime directory
 * (/var/run/dpdk/<file-prefix>, or under $XDG_RUNTIME_DIR) after
 * rte_eal_cleanup(), which leaves it and its files (the config, the
 * fbarrays: ~6.5 MB with --no-huge, on a tmpfs). rxb-emu and every DPDK
 * test run with a file prefix of their own, so each run would otherwise
 * leave one. The directory holds files only.
 */
#ifndef RXB_UTIL_RUNDIR_H
#define RXB_UTIL_RUNDIR_H

/* Remove the files of dir, then dir; what cannot be removed is left. */
void rxb_remove_run_dir(const char *dir);

#endif
