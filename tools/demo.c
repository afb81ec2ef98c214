/* SPDX-License-Identifier: BSD-3-Clause
 *
 * rxb-demo: drive every receive interface of the ring library through the
 * same two situations and print what each delivered and dropped:
 *   burst      — 1024 back-to-back packets to one core of 16, no software
 *                processing in between (can the design absorb it?);
 *   imbalance  — 200k packets spread evenly over 16 cores by a round-robin
 *                steering, while core 0 is stalled (it never polls). Healthy
 *                cores poll after every 16 packets.
 * Everything comes from the library's mechanisms; no timing is modelled
 * (that is the simulator's job). Ring sizes are the reference defaults.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rxb/iface.h"
#include "rxb/pool.h"

#define CORES 16u

struct result {
	uint64_t offered, delivered, drops[RXB_DROP_CAUSES];
	uint64_t healthy_offered, healthy_dropped;
};

static struct rxb_pool *make_pool(struct rxb_allocator *allocs)
{
	struct rxb_pool_config pc = rxb_pool_config_default();
	struct rxb_err err;
	struct rxb_pool *pool;

	pc.n_bufs = 1u << 17;
	pc.n_cores = CORES;
	pc.cache_size = 256;
	pool = rxb_pool_create(&pc, &err);
	if (pool == NULL) {
		fprintf(stderr, "rxb-demo: %s\n", err.msg);
		exit(1);
	}
	for (uint32_t c = 0; c < CORES; c++)
		allocs[c] = rxb_pool_allocator(pool, c);
	return pool;
}

static struct rxb_iface_config config_for(enum rxb_arch arch)
{
	struct rxb_iface_config cfg = { .arch = arch, .n_cores = CORES };

	cfg.spool = (struct rxb_spool_config){
		.n_ports = CORES, .mode = RXB_SPOOL_SPP, .low = 128, .high = 1024
	};
	return cfg;
}

static void poll_core(struct rxb_iface *i, uint32_t core)
{
	struct rxb_pkt pk[32];
	rxb_buf_t bufs[32];
	unsigned n;

	while ((n = rxb_iface_rx(i, core, pk, 32, 0)) != 0) {
		for (unsigned k = 0; k < n; k++)
			bufs[k] = pk[k].buf;
		rxb_iface_free(i, core, bufs, n);
	}
}

static void tally(struct result *r, const struct rxb_delivery *d, uint32_t dest)
{
	r->offered++;
	if (d->drop < 0) {
		r->delivered++;
		return;
	}
	r->drops[d->drop]++;
	if (dest != 0)
		r->healthy_dropped++;
}

static void run_burst(struct rxb_iface *i, struct result *r)
{
	struct rxb_delivery d;

	for (uint32_t k = 0; k < 1024; k++) {
		struct rxb_rx_meta m = { .len = 1500, .hash = k, .dest = 3 };

		rxb_iface_deliver(i, &m, &d);
		tally(r, &d, 3);
	}
	for (uint32_t c = 0; c < rxb_iface_n_cores(i); c++)
		poll_core(i, c);
}

static void run_imbalance(struct rxb_iface *i, struct result *r)
{
	struct rxb_delivery d;

	for (uint32_t k = 0; k < 200000; k++) {
		uint32_t dest = k % CORES;
		struct rxb_rx_meta m = { .len = 1500, .hash = k, .dest = dest };

		rxb_iface_deliver(i, &m, &d);
		tally(r, &d, dest);
		r->healthy_offered += dest != 0;
		if (k % CORES == CORES - 1)
			for (uint32_t c = 1; c < rxb_iface_n_cores(i); c++)
				poll_core(i, c); /* core 0 is stalled */
	}
}

static int run(enum rxb_arch arch, void (*scenario)(struct rxb_iface *, struct result *),
	       struct result *r, uint64_t *posted)
{
	struct rxb_allocator allocs[CORES];
	struct rxb_pool *pool = make_pool(allocs);
	struct rxb_iface_config cfg = config_for(arch);
	struct rxb_err err;
	struct rxb_iface *i = rxb_iface_create(&cfg, allocs, &err);
	int rc;

	memset(r, 0, sizeof(*r));
	if (i == NULL) {
		fprintf(stderr, "rxb-demo: %s: %s\n", rxb_arch_name[arch], err.msg);
		rxb_pool_destroy(pool);
		return -1;
	}
	*posted = rxb_iface_posted(i);
	scenario(i, r);
	rc = rxb_iface_check(i, pool, &err);
	if (rc != 0)
		fprintf(stderr, "rxb-demo: %s: invariant violated: %s\n", rxb_arch_name[arch],
			err.msg);
	rxb_iface_destroy(i);
	rxb_pool_destroy(pool);
	return rc;
}

static void print_row(const char *arch, const struct result *r, uint64_t posted, int healthy)
{
	printf("  %-15s %8llu %9llu %9llu %9llu %9llu", arch, (unsigned long long)posted,
	       (unsigned long long)r->offered, (unsigned long long)r->delivered,
	       (unsigned long long)(r->drops[RXB_DROP_NO_RX_DESC] + r->drops[RXB_DROP_NO_AX_BUF]),
	       (unsigned long long)(r->drops[RXB_DROP_NO_BX_SLOT] + r->drops[RXB_DROP_CR_FULL]));
	if (healthy)
		printf(" %9llu", (unsigned long long)r->healthy_dropped);
	printf("\n");
}

static int scenario_table(const char *title, void (*scenario)(struct rxb_iface *, struct result *),
			  int healthy)
{
	int rc = 0;

	printf("\n%s\n", title);
	printf("  %-15s %8s %9s %9s %9s %9s%s\n", "arch", "posted", "offered", "delivered",
	       "no_buffer", "no_slot", healthy ? "  dropped@healthy" : "");
	for (int a = 0; a < RXB_ARCHS; a++) {
		struct result r;
		uint64_t posted;

		if (a == RXB_ARCH_SPOOL)
			continue; /* representor ports: a different workload */
		if (run((enum rxb_arch)a, scenario, &r, &posted) != 0) {
			rc = 1;
			continue;
		}
		print_row(rxb_arch_name[a], &r, posted, healthy);
	}
	return rc;
}

int main(void)
{
	int rc = 0;

	printf("rxb-demo: 16 cores, reference ring sizes (privRing 1024, small 128, shRing 1024 "
	       "per 8 cores, rxBisect Ax 128 / Bx 1024).\n"
	       "posted = buffers the NIC can write into (the I/O working set in buffers).\n"
	       "no_buffer = no Rx descriptor / no Ax buffer; no_slot = no Bx slot / CR full.\n");
	rc |= scenario_table("Burst: 1024 packets to core 3, no processing in between", run_burst,
			     0);
	rc |= scenario_table("Imbalance: 200000 packets spread over 16 cores, core 0 stalled",
			     run_imbalance, 1);
	printf("\nAll buffer and packet conservation checks passed.\n");
	return rc;
}
