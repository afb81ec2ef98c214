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

/* The requests of one chunk this partition serves, in packet order. */
struct kv_batch {
	struct rxb_kv_hdr *req[RXB_NF_CHUNK];
	const void *keys[RXB_NF_CHUNK]; /* in the packets: hashed in place */
	int32_t pos[RXB_NF_CHUNK];      /* the bulk lookup's answers */
	uint8_t idx[RXB_NF_CHUNK];      /* packet index in the chunk */
	unsigned n;
	bool inserted; /* a PUT of this chunk added a key after the bulk lookup */
};

/* Parse the chunk and keep the well-formed requests for this partition;
 * every other packet gets its drop verdict here. */
static void kv_gather(struct kvs *kv, struct rte_mbuf **pkts, unsigned n, struct rxb_pkt_view *v,
		      uint8_t *verdict, struct kv_batch *b)
{
	b->n = 0;
	b->inserted = false;
	for (unsigned i = 0; i < n; i++) {
		struct rxb_kv_hdr *h;

		verdict[i] = rxb_nf_parse(&kv->base, pkts[i], &v[i], true);
		if (verdict[i] != RXB_NF_KEEP)
			continue;
		h = kv_request(&v[i]);
		if (h == NULL) {
			verdict[i] = RXB_NF_VERDICT(RXB_NF_DROP_REQUEST);
			continue;
		}
		b->keys[b->n] = (const uint8_t *)h + RXB_KV_HDR_LEN;
		if (rxb_kv_partition(b->keys[b->n], kv->n_partitions) != kv->partition) {
			verdict[i] = RXB_NF_VERDICT(RXB_NF_DROP_PARTITION);
			continue;
		}
		b->req[b->n] = h;
		b->idx[b->n++] = (uint8_t)i;
	}
}

/* The value bytes that follow a request's key (a PUT's, or a GET
 * response's once copied in). */
static inline uint8_t *kv_value(struct rxb_kv_hdr *h)
{
	return (uint8_t *)h + RXB_KV_HDR_LEN + RXB_KV_KEY_LEN;
}

/* PUT: store the value in the key's slot (p, or a new one); the status of
 * the response. */
static uint8_t kv_put(struct kvs *kv, struct kv_batch *b, unsigned j, int32_t p,
		      struct rxb_nf_tally *t)
{
	uint16_t len = rte_be_to_cpu_16(b->req[j]->val_len);

	if (p < 0) {
		p = rte_hash_add_key(kv->h, b->keys[j]);
		if (p < 0)
			return RXB_KV_FULL;
		t->inserts++;
		b->inserted = true;
	}
	kv->vals[p].len = len;
	memcpy(kv->vals[p].data, kv_value(b->req[j]), len);
	return RXB_KV_OK;
}

/* Request j of the batch, in packet m (view v), turned into its response;
 * a GET hit whose value does not fit m is dropped before any byte moves. */
static void kv_serve(struct kvs *kv, struct kv_batch *b, unsigned j, struct rte_mbuf *m,
		     struct rxb_pkt_view *v, uint8_t *verdict, struct rxb_nf_tally *t)
{
	struct rxb_kv_hdr *h = b->req[j];
	const struct kv_val *sv;
	int32_t p = b->pos[j];

	/* Requests run in order: a PUT earlier in this chunk may have added
	 * the key after the bulk lookup. */
	if (p < 0 && b->inserted) {
		t->lookups++;
		p = rte_hash_lookup(kv->h, b->keys[j]);
	}
	if (p < 0)
		t->misses++;
	if (h->op == RXB_KV_PUT) {
		kv_respond(m, v, h, kv_put(kv, b, j, p, t), 0);
		return;
	}
	if (p < 0) {
		kv_respond(m, v, h, RXB_KV_NOT_FOUND, 0);
		return;
	}
	sv = &kv->vals[p];
	if (!kv_resp_fits(m, v, sv->len)) {
		*verdict = RXB_NF_VERDICT(RXB_NF_DROP_FULL);
		return;
	}
	memcpy(kv_value(h), sv->data, sv->len);
	kv_respond(m, v, h, RXB_KV_OK, sv->len);
}

static void kvs_chunk(struct rxb_nf *nf, struct rte_mbuf **pkts, unsigned n, uint8_t *verdict,
		      struct rxb_nf_tally *t)
{
	struct kvs *kv = (struct kvs *)nf;
	struct rxb_pkt_view v[RXB_NF_CHUNK];
	struct kv_batch b;

	kv_gather(kv, pkts, n, v, verdict, &b);
	if (b.n > 0)
		rte_hash_lookup_bulk(kv->h, b.keys, b.n, b.pos);
	t->lookups += b.n;
	for (unsigned j = 0; j < b.n; j++) {
		unsigned i = b.idx[j];

		kv_serve(kv, &b, j, pkts[i], &v[i], &verdict[i], t);
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
