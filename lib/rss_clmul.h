/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Toeplitz hashing with carry-less multiplication (x86's PCLMULQDQ), the
 * library's fast path for rxb_rss_hash() on CPUs without GFNI (rss.c
 * picks it at rxb_rss_init()). Internal: consumers see only enum
 * rxb_rss_impl.
 */
#ifndef RXB_RSS_CLMUL_H
#define RXB_RSS_CLMUL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether this CPU runs rxb_rss_clmul_hash(): PCLMULQDQ. */
bool rxb_rss_clmul_usable(void);

/* The RXB_RSS_CLMUL_WORDS key windows of a key of RXB_RSS_KEY_LEN bytes. */
void rxb_rss_clmul_windows(uint64_t *win, const uint8_t *key);

/* The hash of len bytes (len <= RXB_RSS_MAX_INPUT) with the windows made
 * by rxb_rss_clmul_windows(); only where rxb_rss_clmul_usable(). */
uint32_t rxb_rss_clmul_hash(const uint64_t *win, const uint8_t *data, size_t len);

/* The same over n 32-bit words given as values (word i holds input bytes
 * 4i..4i+3, the first in its most significant byte): the IPv4 wrappers'
 * input, which never goes through memory. */
uint32_t rxb_rss_clmul_words(const uint64_t *win, const uint32_t *word, size_t n);

#endif
