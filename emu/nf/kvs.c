/* SPDX-License-Identifier: BSD-3-Clause
 * KV store in the style of MICA: exclusive-read exclusive-write (EREW)
 * partitions, one per core, requests and responses in UDP (wire format in
 * nf/wire.h). Each instance owns a partition: an rte_hash over the 128-byte
 * keys whose key position indexes a value array, so the key is compared in
 * the table and the value read or written in one slot with no pointer in
 * between. Requests for another partition's keys are dropped ("partition"):
 * under EREW only the owner may touch a key, and serving them here would let
 * a GET miss the owner's last PUT.
 *
 * The request is turned into its response in place: MACs, addresses and
 * ports swapped, op | RXB_KV_RESP, status set, the value appended for a GET
 * hit, lengths and both checksums recomputed (the server is the sender of
 * the response, so the UDP checksum is always computed).
 */
#include <errno.h>

#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_malloc.h>

#include "nf_impl.h"

_Static_assert(sizeof(struct rxb_kv_hdr) == RXB_KV_HDR_LEN, "KV header is 16 bytes on the wire");

struct kv_val {
	uint16_t len;
	uint8_t data[RXB_KV_VAL_MAX];
} __rte_cache_aligned;

struct kvs {
	struct rxb_nf base;
	struct rte_hash *h;
	struct kv_val *vals;
	uint32_t partition, n_partitions;
};

/* A request's header and key, or NULL if the payload is not a well-formed
 * request (then the packet is dropped as "request"). */
static inline struct rxb_kv_hdr *kv_request(const struct rxb_pkt_view *v)
{
	struct rxb_kv_hdr *h;
	uint16_t val_len;

	if (v->proto != IPPROTO_UDP || v->payload_len < RXB_KV_MSG_LEN(0))
		return NULL;
	h = (struct rxb_kv_hdr *)(v->payload + RXB_KV_OFF);
	if (h->magic != RXB_KV_MAGIC || h->key_len != rte_cpu_to_be_16(RXB_KV_KEY_LEN))
		return NULL;
	val_len = rte_be_to_cpu_16(h->val_len);
	if (h->op == RXB_KV_GET)
		return h;
	if (h->op == RXB_KV_PUT && val_len <= RXB_KV_VAL_MAX &&
	    v->payload_len >= RXB_KV_MSG_LEN(val_len))
		return h;
	return NULL;
}

static inline uint16_t kv_resp_ip_len(const struct rxb_pkt_view *v, uint16_t val_len)
{
	return (uint16_t)(rte_ipv4_hdr_len(v->ip) + sizeof(struct rte_udp_hdr) +
			  RXB_KV_MSG_LEN(val_len));
}

/* Whether m's buffer can hold a response with val_len bytes of value. A
 * response without value is never longer than its request. */
static inline bool kv_resp_fits(const struct rte_mbuf *m, const struct rxb_pkt_view *v,
				uint16_t val_len)
{
	return sizeof(struct rte_ether_hdr) + kv_resp_ip_len(v, val_len) <=
	       (uint32_t)(m->buf_len - m->data_off);
}

/* Turn the request in m into its response carrying val_len bytes of value
 * (already in place; the caller checked kv_resp_fits). */
static void kv_respond(struct rte_mbuf *m, struct rxb_pkt_view *v, struct rxb_kv_hdr *h,
		       uint8_t status, uint16_t val_len)
{
	struct rte_udp_hdr *udp = v->l4;
	struct rte_ether_addr mac;
	rte_be32_t ip;
	rte_be16_t port;

	h->op |= RXB_KV_RESP;
	h->status = status;
	h->val_len = rte_cpu_to_be_16(val_len);
	rte_ether_addr_copy(&v->eth->src_addr, &mac);
	rte_ether_addr_copy(&v->eth->dst_addr, &v->eth->src_addr);
	rte_ether_addr_copy(&mac, &v->eth->dst_addr);
	ip = v->ip->src_addr;
	v->ip->src_addr = v->ip->dst_addr;
	v->ip->dst_addr = ip;
	v->ip->time_to_live = 64; /* a new packet from the server */
	port = udp->src_port;
	udp->src_port = udp->dst_port;
	udp->dst_port = port;
	rxb_pkt_set_l3_len(m, v, kv_resp_ip_len(v, val_len));
	rxb_pkt_ip_csum(v);
	rxb_pkt_l4_csum_full(v, true);
}

static void kvs_chunk(struct rxb_nf *nf, struct rte_mbuf **pkts, unsigned n, uint8_t *verdict,
		      struct rxb_nf_tally *t)
{
	struct kvs *kv = (struct kvs *)nf;
	struct rxb_pkt_view v[RXB_NF_CHUNK];
	struct rxb_kv_hdr *req[RXB_NF_CHUNK];
	const void *keys[RXB_NF_CHUNK];
	int32_t pos[RXB_NF_CHUNK];
	uint8_t idx[RXB_NF_CHUNK];
	bool inserted = false;
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		struct rxb_kv_hdr *h;

		verdict[i] = rxb_nf_parse(nf, pkts[i], &v[i], true);
		if (verdict[i] != RXB_NF_KEEP)
			continue;
		h = kv_request(&v[i]);
		if (h == NULL) {
			verdict[i] = RXB_NF_VERDICT(RXB_NF_DROP_REQUEST);
			continue;
		}
		keys[k] = (const uint8_t *)h + RXB_KV_HDR_LEN; /* hashed in place */
		if (rxb_kv_partition(keys[k], kv->n_partitions) != kv->partition) {
			verdict[i] = RXB_NF_VERDICT(RXB_NF_DROP_PARTITION);
			continue;
		}
		req[k] = h;
		idx[k++] = (uint8_t)i;
	}
	if (k > 0)
		rte_hash_lookup_bulk(kv->h, keys, k, pos);
	t->lookups += k;
	for (unsigned j = 0; j < k; j++) {
		unsigned i = idx[j];
		struct rxb_kv_hdr *h = req[j];
		uint8_t *val = (uint8_t *)h + RXB_KV_HDR_LEN + RXB_KV_KEY_LEN;
		uint8_t status = RXB_KV_OK;
		uint16_t resp_len = 0;
		int32_t p = pos[j];

		/* Requests run in order: a PUT earlier in this chunk may have
		 * added the key after the bulk lookup. */
		if (p < 0 && inserted) {
			t->lookups++;
			p = rte_hash_lookup(kv->h, keys[j]);
		}
		if (p < 0)
			t->misses++;
		if (h->op == RXB_KV_PUT) {
			uint16_t len = rte_be_to_cpu_16(h->val_len);

			if (p < 0) {
				p = rte_hash_add_key(kv->h, keys[j]);
				if (p >= 0) {
					t->inserts++;
					inserted = true;
				}
			}
			if (p >= 0) {
				kv->vals[p].len = len;
				memcpy(kv->vals[p].data, val, len);
			} else {
				status = RXB_KV_FULL;
			}
		} else if (p >= 0) {
			struct kv_val *sv = &kv->vals[p];

			/* A response that does not fit the mbuf is dropped
			 * before any byte moves. */
			if (!kv_resp_fits(pkts[i], &v[i], sv->len)) {
				verdict[i] = RXB_NF_VERDICT(RXB_NF_DROP_FULL);
				continue;
			}
			memcpy(val, sv->data, sv->len);
			resp_len = sv->len;
		} else {
			status = RXB_KV_NOT_FOUND;
		}
		kv_respond(pkts[i], &v[i], h, status, resp_len);
	}
}

static uint16_t kvs_process(struct rxb_nf *nf, struct rte_mbuf **pkts, uint16_t n)
{
	return rxb_nf_run(nf, pkts, n, kvs_chunk);
}

static void kvs_destroy(struct rxb_nf *nf)
{
	struct kvs *kv = (struct kvs *)nf;

	rte_hash_free(kv->h);
	rte_free(kv->vals);
	rte_free(kv);
}

static int kvs_init(const struct rxb_nf_cfg *cfg, int socket, struct rxb_nf **out,
		    struct rxb_err *err)
{
	uint32_t part = cfg->kvs.partition == UINT32_MAX ? cfg->instance : cfg->kvs.partition;
	struct rte_hash_parameters hp;
	char name[RTE_HASH_NAMESIZE];
	struct kvs *kv;

	if (cfg->kvs.capacity == 0 || cfg->kvs.capacity > RXB_NF_MAX_FLOWS) {
		rxb_err_set(err, "kvs.capacity = %u: must be in [1, %u] keys", cfg->kvs.capacity,
			    RXB_NF_MAX_FLOWS);
		return -EINVAL;
	}
	if (cfg->kvs.n_partitions == 0 || part >= cfg->kvs.n_partitions) {
		rxb_err_set(err,
			    "kvs.partition = %u (default: instance): must be below "
			    "kvs.n_partitions = %u",
			    part, cfg->kvs.n_partitions);
		return -EINVAL;
	}
	kv = rxb_nf_alloc(&rxb_nf_kvs_ops, sizeof(*kv), cfg, socket);
	if (kv == NULL) {
		rxb_err_set(err, "kvs: out of DPDK memory for the instance");
		return -ENOMEM;
	}
	kv->partition = part;
	kv->n_partitions = cfg->kvs.n_partitions;
	kv->vals = rte_malloc_socket("rxb_kvs_vals",
				     (size_t)cfg->kvs.capacity * sizeof(struct kv_val),
				     RTE_CACHE_LINE_SIZE, socket);
	rxb_nf_hash_params(&hp, name, "kvs", cfg->kvs.capacity, RXB_KV_KEY_LEN, socket);
	kv->h = kv->vals != NULL ? rte_hash_create(&hp) : NULL;
	if (kv->h == NULL) {
		rxb_err_set(err,
			    "kvs.capacity = %u: cannot allocate %zu MiB of values and the key "
			    "table (%s; is the EAL's -m large enough?)",
			    cfg->kvs.capacity,
			    (size_t)cfg->kvs.capacity * sizeof(struct kv_val) >> 20,
			    rte_strerror(rte_errno));
		rte_free(kv->vals);
		rte_free(kv);
		return -ENOMEM;
	}
	*out = &kv->base;
	return 0;
}

const struct rxb_nf_ops rxb_nf_kvs_ops = {
	.name = "kvs",
	.summary = "MICA-style EREW key-value store: 128 B keys, values up to 1 KiB",
	.init = kvs_init,
	.process = kvs_process,
	.destroy = kvs_destroy,
};
