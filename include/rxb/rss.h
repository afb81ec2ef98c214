/* SPDX-License-Identifier: BSD-3-Clause
 *
 * rxb/rss.h — receive-side scaling: the Toeplitz hash a NIC computes over a
 * packet's addresses and ports, and the indirection table (RETA) that maps
 * the hash's low bits to a destination ring (docs/interfaces.md §2 "RSS").
 *
 * Hash input byte order is the one NICs and the Microsoft RSS specification
 * use: source address, destination address, source port, destination port,
 * every field in network byte order. With the default key the results
 * reproduce Microsoft's "Verifying the RSS Hash Calculation" vectors.
 *
 * Threads: a struct rxb_rss and a struct rxb_reta are read-only once
 * initialised (except rxb_reta_set), so any number of threads may hash and
 * look up concurrently. Changing a RETA while another thread looks it up is
 * the caller's business to order.
 */
#ifndef RXB_RSS_H
#define RXB_RSS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rxb/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RXB_RSS_KEY_LEN 40 /* bytes; what every NIC we model takes */

/* Longest input the table hash accepts: IPv6 addresses plus L4 ports.
 * A 40-byte key covers exactly this: the last input bit needs key bits
 * 287..318 and the key has 320. */
#define RXB_RSS_MAX_INPUT 36

/* The Microsoft/Intel verification key (also the default of many drivers). */
extern const uint8_t rxb_rss_default_key[RXB_RSS_KEY_LEN];

/* Toeplitz hash computed bit by bit, as the specification states it: for
 * every set input bit j (most significant bit of data[0] first), XOR in the
 * 32 key bits starting at key bit j. Key bits past key_len read as zero. Slow;
 * it is the oracle the table implementation is tested against. */
uint32_t rxb_toeplitz_ref(const uint8_t *key, size_t key_len, const uint8_t *data, size_t len);

/* The ways rxb_rss_hash() computes the hash; each equals rxb_toeplitz_ref().
 * The hash is linear in its input bits, so all precompute per key:
 *  TABLE  the contribution of byte value v at input position i, a 1 KiB
 *         row per position: one load and one XOR per input byte. Any CPU.
 *  GFNI   an 8x8 bit matrix per byte position, applied to 8 bytes at once
 *         by x86's GF2P8AFFINEQB on 512-bit registers: 320 bytes of state,
 *         a handful of instructions per hash. CPUs with GFNI and AVX-512
 *         F, BW and VBMI (Intel Ice Lake and later, AMD Zen 4 and later).
 *  CLMUL  one carry-less multiplication (x86's PCLMULQDQ) of each 4 input
 *         bytes by a 64-bit window of the key: 72 bytes of state. Every
 *         x86-64 CPU since 2010 (Intel Westmere, AMD Bulldozer). */
enum rxb_rss_impl { RXB_RSS_TABLE, RXB_RSS_GFNI, RXB_RSS_CLMUL };

/* Matrices of the GFNI hash: one per input position plus the three a
 * result byte reaches past the input, a whole number of registers. */
#define RXB_RSS_GFNI_LANES 40

/* Key windows of the CLMUL hash: one per 4 input bytes. */
#define RXB_RSS_CLMUL_WORDS ((RXB_RSS_MAX_INPUT + 3) / 4)

/* Precomputed hash state for one key, every implementation's (37 KiB);
 * build once, share read-only. */
struct rxb_rss {
	uint32_t table[RXB_RSS_MAX_INPUT][256];
	uint64_t gfni[RXB_RSS_GFNI_LANES];
	uint64_t clmul[RXB_RSS_CLMUL_WORDS];
	enum rxb_rss_impl impl; /* what rxb_rss_hash() uses */
};

/* sizeof(struct rxb_rss), for bindings that allocate one without this
 * header (ctypes). */
extern const size_t rxb_rss_state_bytes;

/* Build the state from a key of exactly RXB_RSS_KEY_LEN bytes and pick
 * the fastest implementation this CPU runs: GFNI where it can, else CLMUL,
 * else TABLE.
 * Returns 0, or -EINVAL with a message naming rss.key. */
int rxb_rss_init(struct rxb_rss *rss, const uint8_t *key, size_t key_len, struct rxb_err *err);

/* Whether this CPU runs impl (TABLE always). */
bool rxb_rss_impl_available(enum rxb_rss_impl impl);

/* Make rxb_rss_hash() use impl (tests, benchmarks, comparing them).
 * Returns 0, or -ENOTSUP with a message naming rss.impl when this CPU
 * lacks it (the choice is then unchanged). */
int rxb_rss_select(struct rxb_rss *rss, enum rxb_rss_impl impl, struct rxb_err *err);

/* Hash len bytes (len <= RXB_RSS_MAX_INPUT). Equals rxb_toeplitz_ref() with
 * the key rss was built from. */
uint32_t rxb_rss_hash(const struct rxb_rss *rss, const uint8_t *data, size_t len);

/* Convenience wrappers on host-order addresses and ports: they lay the
 * values out in the standard input order (network byte order) and hash. */
uint32_t rxb_rss_ipv4(const struct rxb_rss *rss, uint32_t sip, uint32_t dip);
uint32_t rxb_rss_ipv4_l4(const struct rxb_rss *rss, uint32_t sip, uint32_t dip, uint16_t sport,
			 uint16_t dport);
/* IPv6 addresses are taken as their 16 wire bytes (already network order). */
uint32_t rxb_rss_ipv6(const struct rxb_rss *rss, const uint8_t sip[16], const uint8_t dip[16]);
uint32_t rxb_rss_ipv6_l4(const struct rxb_rss *rss, const uint8_t sip[16], const uint8_t dip[16],
			 uint16_t sport, uint16_t dport);

/* Ethernet framing, parsed here once for every C consumer (this file's
 * NIC hash, the simulator's trace reader, the emulator and the driver
 * through rxb_rss_frame): 14 bytes of header, then up to RXB_ETH_MAX_TAGS
 * VLAN tags of 4 bytes — 802.1Q (0x8100), 802.1ad/QinQ (0x88a8) and the
 * pre-standard QinQ 0x9100 — before the EtherType of the payload.
 * Returns the offset of the L3 header with its EtherType in *type, or 0
 * with *type = 0 when the frame ends inside the header or a tag. A frame
 * with more tags than that is not parsed further: *type is the next tag's. */
#define RXB_ETH_MAX_TAGS 3
uint32_t rxb_eth_l3(const uint8_t *frame, uint32_t len, uint16_t *type);

/* The hash a NIC computes for an Ethernet frame (`len` bytes from the
 * destination MAC, VLAN tags skipped by rxb_eth_l3): IPv4 and IPv6 over their
 * addresses, plus the ports for TCP and UDP (not for IPv4 fragments nor for
 * IPv6 with extension headers, as NICs do); 0 for anything else. *dport is
 * the L4 destination port in host order (0 without one). */
uint32_t rxb_rss_frame(const struct rxb_rss *rss, const uint8_t *frame, uint32_t len,
		       uint16_t *dport);
/* The same over the addresses only (RSS configured for IP, not TCP/UDP). */
uint32_t rxb_rss_frame_l3(const struct rxb_rss *rss, const uint8_t *frame, uint32_t len);

/* Indirection table sizes: a power of two in [64, 4096], 128 by default, as
 * DPDK drivers commonly expose it. A ConnectX NIC under DPDK's mlx5 driver
 * has 512 entries (the driver caps its table at RTE_ETH_RSS_RETA_SIZE_512
 * and fills it round-robin): the NIC the simulator's reference profile
 * describes (nic.reta_size), and so the one the emulator steers with. */
#define RXB_RETA_MIN          64u
#define RXB_RETA_MAX          4096u
#define RXB_RETA_DEFAULT_SIZE 128u
#define RXB_RETA_MLX5_SIZE    512u
/* Queue ids are stored in 16 bits. */
#define RXB_RETA_MAX_QUEUES   65536u

struct rxb_reta {
	uint32_t size;   /* entries, a power of two */
	uint32_t mask;   /* size - 1 */
	uint16_t *queue; /* queue[entry] = destination ring */
};

/* Allocate a table of `size` entries filled round-robin (entry i → queue
 * i % n_queues), the default of Linux and DPDK drivers. n_queues may exceed
 * size; the queues past size then receive nothing until rxb_reta_set().
 * Returns 0, -EINVAL (message names reta.size or reta.n_queues) or -ENOMEM.
 * On failure the table is left empty, so rxb_reta_free() is still safe. */
int rxb_reta_init(struct rxb_reta *reta, uint32_t size, uint32_t n_queues, struct rxb_err *err);

/* Point one entry at another queue. n_queues is the number of destination
 * rings the caller has; queue must be below it. Returns 0 or -EINVAL
 * (message names reta.entry, reta.queue or reta.n_queues); on error the
 * table is unchanged. */
int rxb_reta_set(struct rxb_reta *reta, uint32_t entry, uint32_t queue, uint32_t n_queues,
		 struct rxb_err *err);

/* Release the table; safe on an empty or already freed table. */
void rxb_reta_free(struct rxb_reta *reta);

/* The destination ring for a hash. NICs index the table with the hash's low
 * bits, so that is what we do too: flows whose hashes differ only in high
 * bits share a ring, exactly as on hardware. */
static inline uint32_t rxb_reta_lookup(const struct rxb_reta *reta, uint32_t hash)
{
	return reta->queue[hash & reta->mask];
}

/* h spread evenly over n values without a table: the top bits of h * n
 * (multiply-shift). How spool's representor ports share a NIC's traffic. */
static inline uint32_t rxb_hash_spread(uint32_t h, uint32_t n)
{
	return (uint32_t)(((uint64_t)h * n) >> 32);
}

/* The port, of n, an upstream switch's ECMP sends a packet of RSS hash h to
 * when one stream (a trace, one input port) feeds several NICs. The switch
 * hashes the flow too, but not with the NIC's key: a mix of h (murmur3's
 * finaliser) stands for that hash, so a flow always takes the same port and
 * the port is independent of the RETA entry the low bits of h pick. */
static inline uint32_t rxb_ecmp_port(uint32_t h, uint32_t n)
{
	if (n == 1)
		return 0; /* what the spread gives, without the mix: one port is common */
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return rxb_hash_spread(h, n);
}

#ifdef __cplusplus
}
#endif
#endif /* RXB_RSS_H */
