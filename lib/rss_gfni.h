/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Toeplitz hashing with x86's Galois-field affine instruction (GFNI), the
 * library's fast path for rxb_rss_hash() (rss.c picks it at rxb_rss_init()
 * when the CPU has it). Internal: consumers see only enum rxb_rss_impl.
 */
#ifndef RXB_RSS_GFNI_H
#define RXB_RSS_GFNI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether this CPU runs rxb_rss_gfni_hash(): GFNI with AVX-512 F, BW and
 * VBMI (the byte permute that lays the input out). */
bool rxb_rss_gfni_usable(void);

/* The RXB_RSS_GFNI_LANES bit matrices of a key of RXB_RSS_KEY_LEN bytes. */
void rxb_rss_gfni_matrices(uint64_t *mat, const uint8_t *key);

/* Hash len <= RXB_RSS_MAX_INPUT bytes with matrices from
 * rxb_rss_gfni_matrices(); only where rxb_rss_gfni_usable(). */
uint32_t rxb_rss_gfni_hash(const uint64_t *mat, const uint8_t *data, size_t len);

/* The same for len <= 16 bytes held in registers: byte i of the input is
 * byte i of lo (i < 8) or of hi, little-endian, the rest zero. For inputs
 * built from values just computed: a vector load of bytes stored one by
 * one a moment before waits for the stores to retire (no forwarding). */
uint32_t rxb_rss_gfni_hash16(const uint64_t *mat, uint64_t lo, uint64_t hi, size_t len);

#endif
