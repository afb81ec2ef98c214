/* SPDX-License-Identifier: BSD-3-Clause
 *
 * nf/wire.h — what the emulator's packets carry beyond the standard
 * Ethernet/IPv4/UDP/TCP headers. docs/emulator-nfs.md draws the layouts.
 *
 * Every generated packet's L4 payload starts with the 8-byte timestamp
 * stamp (TSC of the generator when it made or re-stamped the packet), so a
 * worker can measure latency after its NF has run. Placing it first in the
 * payload keeps it inside the shortest frames (see RXB_STAMP_MIN_FRAME_*)
 * and at an even offset of the L4 segment, which the incremental checksum
 * update needs.
 *
 * The payload after the stamp belongs to the workload: the KV store puts its
 * request there, the counter NF writes its value there.
 */
#ifndef RXB_EMU_WIRE_H
#define RXB_EMU_WIRE_H

#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_hash_crc.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- timestamp stamp ---------------------------------------------------- */

#define RXB_STAMP_OFF 0u /* offset in the L4 payload */
#define RXB_STAMP_LEN 8u /* little-endian TSC; 0 = not stamped */

/* Shortest frame (bytes in the mbuf, FCS excluded) that holds the stamp:
 * Ethernet 14 + IPv4 20 + UDP 8 + 8 = 50, with TCP's 20-byte header 62. The
 * Ethernet minimum (60 without FCS) covers UDP; a TCP frame needs 62. */
#define RXB_STAMP_MIN_FRAME_UDP 50u
#define RXB_STAMP_MIN_FRAME_TCP 62u

/* ---- atomic counter NF -------------------------------------------------- */

/* The counter NF writes the counter's new value here, big-endian. */
#define RXB_COUNTER_OFF 8u
#define RXB_COUNTER_LEN 8u

/* ---- key-value requests (MICA-style, UDP only) -------------------------- */

#define RXB_KV_OFF      8u    /* offset of struct rxb_kv_hdr in the UDP payload */
#define RXB_KV_MAGIC    0x4bu /* 'K' */
#define RXB_KV_KEY_LEN  128u  /* fixed, as in the MICA evaluation */
#define RXB_KV_VAL_MAX  1024u
#define RXB_KV_UDP_PORT 7000u /* request dst port = RXB_KV_UDP_PORT + partition */

enum rxb_kv_op {
	RXB_KV_GET = 1,
	RXB_KV_PUT = 2,
	RXB_KV_RESP = 0x80, /* or-ed into op by the server */
};

enum rxb_kv_status {
	RXB_KV_OK = 0,
	RXB_KV_NOT_FOUND = 1, /* GET of a key never PUT */
	RXB_KV_FULL = 2,      /* PUT of a new key into a full partition */
};

/* Request and response header. Multi-byte fields are big-endian. A request
 * is header + key [+ value of val_len bytes for PUT]; the response keeps the
 * stamp, header (op | RXB_KV_RESP, status, same req_id) and key, and carries
 * the value for a GET that found it (val_len set), nothing after the key
 * otherwise. */
struct rxb_kv_hdr {
	uint8_t magic;  /* RXB_KV_MAGIC */
	uint8_t op;     /* enum rxb_kv_op */
	uint8_t status; /* enum rxb_kv_status; 0 in requests */
	uint8_t reserved;
	rte_be16_t val_len; /* bytes of value after the key */
	rte_be16_t key_len; /* RXB_KV_KEY_LEN */
	rte_be64_t req_id;  /* chosen by the client, echoed */
} __rte_packed;

#define RXB_KV_HDR_LEN      16u
/* UDP payload lengths: GET request / PUT response, and with a full value. */
#define RXB_KV_MSG_LEN(val) (RXB_KV_OFF + RXB_KV_HDR_LEN + RXB_KV_KEY_LEN + (val))

/* CRC32-C of len bytes at any alignment. rte_hash_crc() loads uint64_t
 * through a cast, undefined for the unaligned keys that sit in packets
 * (UBSan reports it in DPDK 22.11's header); memcpy compiles to the same
 * load. Also the hash function of the NFs' rte_hash tables, which hash
 * packet bytes in place. */
static inline uint32_t rxb_hash_crc(const void *data, uint32_t len, uint32_t init)
{
	const uint8_t *p = (const uint8_t *)data;
	uint64_t w8;
	uint32_t w4;
	uint16_t w2;

	for (; len >= 8; len -= 8, p += 8) {
		memcpy(&w8, p, 8);
		init = rte_hash_crc_8byte(w8, init);
	}
	if (len >= 4) {
		memcpy(&w4, p, 4);
		init = rte_hash_crc_4byte(w4, init);
		len -= 4;
		p += 4;
	}
	if (len >= 2) {
		memcpy(&w2, p, 2);
		init = rte_hash_crc_2byte(w2, init);
		len -= 2;
		p += 2;
	}
	if (len)
		init = rte_hash_crc_1byte(*p, init);
	return init;
}

/* Which EREW partition (core) owns a key. Client (generator) and server
 * (KV NF) must agree, so it lives here. CRC32-C of the whole key: the
 * generator's keys start with their index, and a hash of all bytes keeps
 * partitions balanced whatever the key layout. */
static inline uint32_t rxb_kv_partition(const void *key, uint32_t n_partitions)
{
	if (n_partitions <= 1)
		return 0;
	return rxb_hash_crc(key, RXB_KV_KEY_LEN, 0x5eed) % n_partitions;
}

#ifdef __cplusplus
}
#endif
#endif /* RXB_EMU_WIRE_H */
