/* SPDX-License-Identifier: BSD-3-Clause
 * The shared ring parts: sense reversal over many wraps and across the 2^32
 * wrap of free-running indices, doorbell-limited prefetch and its read
 * transactions. */
#include <string.h>

#include "check.h"
#include "ring.h"

/* Push `rounds` batches through a CR whose indices start at `start`, checking
 * that software sees exactly the entries written, in order, never a stale one. */
static void cr_roundtrip(uint32_t size, uint32_t start, uint32_t rounds)
{
	struct rxb_cr cr;
	uint32_t written = 0, read = 0;

	CHECK_EQ(rxb_cr_init(&cr, size, sizeof(struct rxb_cr_entry), "test CR", NULL), 0);
	cr.nic.prod = start;
	cr.nic.cons_seen = start;
	cr.sw.cons = start;
	cr.sw.cons_pub = start;
	/* Entries of a previous pass would carry the opposite generation. */
	for (uint32_t i = 0; i < size; i++)
		((struct rxb_cr_entry *)cr.ent)[(start + i) & cr.mask].flags =
			rxb_cr_gen(&cr, start + i) ^ 1u;
	for (uint32_t r = 0; r < rounds; r++) {
		uint32_t burst = 1 + (r * 7) % size;

		for (uint32_t k = 0; k < burst && rxb_cr_nic_has_room(&cr); k++, written++)
			rxb_cr_nic_write(&cr, written & cr.mask, 64, written);
		CHECK(!rxb_cr_nic_has_room(&cr) || written - read < size);
		uint32_t n = 0;
		const struct rxb_cr_entry *e;

		while ((e = rxb_cr_sw_peek(&cr, n)) != NULL && n < size) {
			if (e->hash != read + n) {
				CHECK_EQ(e->hash, read + n);
				break;
			}
			n++;
		}
		CHECK_EQ(n, written - read); /* everything written, nothing stale */
		rxb_cr_sw_publish(&cr, n);
		read += n;
	}
	CHECK_EQ(read, written);
	rxb_cr_fini(&cr);
}

static void test_sense_reversal_many_wraps(void)
{
	cr_roundtrip(8, 0, 100000); /* ~90k wraps of an 8-entry ring */
	cr_roundtrip(1024, 0, 20000);
}

static void test_sense_reversal_across_u32_wrap(void)
{
	cr_roundtrip(8, UINT32_MAX - 37, 1000);
	cr_roundtrip(64, UINT32_MAX - 5, 1000);
}

static void test_cr_full_then_room_after_publish(void)
{
	struct rxb_cr cr;

	rxb_cr_init(&cr, 4, sizeof(struct rxb_cr_entry), "test CR", NULL);
	for (int i = 0; i < 4; i++) {
		CHECK(rxb_cr_nic_has_room(&cr));
		rxb_cr_nic_write(&cr, i, 1, i);
	}
	CHECK(!rxb_cr_nic_has_room(&cr));
	CHECK_EQ(rxb_cr_occupancy(&cr), 4);
	CHECK(rxb_cr_sw_peek(&cr, 3) != NULL);
	rxb_cr_sw_publish(&cr, 1);
	CHECK(rxb_cr_nic_has_room(&cr));
	rxb_cr_fini(&cr);
}

/* What a reader racing the consumer may load: a consumer index past the
 * producer index it loaded first (software released entries written after
 * that load). The ring is nearly empty then: it reads 0, not "full". */
static void test_cr_occupancy_of_a_racing_reader(void)
{
	struct rxb_cr cr;

	rxb_cr_init(&cr, 4, sizeof(struct rxb_cr_entry), "test CR", NULL);
	for (int i = 0; i < 3; i++)
		rxb_cr_nic_write(&cr, i, 1, i);
	CHECK_EQ(rxb_cr_occupancy(&cr), 3);
	atomic_store(&cr.sw.cons_pub, 2);
	CHECK_EQ(rxb_cr_occupancy(&cr), 1);
	atomic_store(&cr.sw.cons_pub, 4); /* one past the producer index */
	CHECK_EQ(rxb_cr_occupancy(&cr), 0);
	rxb_cr_fini(&cr);
}

/* One iface config's prefetch serves rings of every size: a ring smaller
 * than it is read whole, and 0 reads one descriptor at a time. */
static void test_prefetch_beyond_the_ring_reads_it_whole(void)
{
	struct rxb_descring r;

	CHECK_EQ(rxb_descring_init(&r, 4, 16, "test ring", NULL), 0);
	CHECK_EQ(r.nic.prefetch, 4);
	rxb_descring_fini(&r);
	CHECK_EQ(rxb_descring_init(&r, 64, 16, "test ring", NULL), 0);
	CHECK_EQ(r.nic.prefetch, 16);
	rxb_descring_fini(&r);
	CHECK_EQ(rxb_descring_init(&r, 64, 0, "test ring", NULL), 0);
	CHECK_EQ(r.nic.prefetch, 1);
	rxb_descring_fini(&r);
}

static void test_prefetch_reads_split_at_wrap(void)
{
	struct rxb_descring r;
	uint16_t reads = 0;

	rxb_descring_init(&r, 16, 8, "test ring", NULL);
	rxb_descring_doorbell(&r, 16);
	CHECK_EQ(rxb_descring_nic_fetch(&r, 12, &reads), 12);
	CHECK_EQ(reads, 1);
	for (int i = 0; i < 12; i++) {
		rxb_buf_t b;

		CHECK(rxb_descring_nic_ready(&r, &reads));
		rxb_descring_nic_take(&r, &b);
	}
	CHECK_EQ(reads, 1); /* all served from the prefetch */
	/* Post 10 more (slots 0..9): fetching slots 12..15 + 0..3 is two runs. */
	rxb_descring_doorbell(&r, 26);
	reads = 0;
	CHECK_EQ(rxb_descring_nic_fetch(&r, 8, &reads), 8);
	CHECK_EQ(reads, 2);
	/* The NIC sees exactly what the doorbell published. */
	CHECK_EQ(rxb_descring_nic_avail(&r, true), 14);
	CHECK_EQ(rxb_descring_nic_fetch(&r, 100, &reads), 6);
	CHECK_EQ(rxb_descring_nic_fetch(&r, 100, &reads), 0);
	rxb_descring_fini(&r);
}

static void test_buflist_unique(void)
{
	struct rxb_buflist l = { 0 };
	struct rxb_err err;

	for (rxb_buf_t b = 0; b < 5000; b++)
		rxb_buflist_push(&l, b * 3, NULL);
	CHECK_EQ(rxb_buflist_check_unique(&l, "t", &err), 0);
	rxb_buflist_push(&l, 300, NULL);
	CHECK(rxb_buflist_check_unique(&l, "t", &err) != 0);
	CHECK(strstr(err.msg, "0x12c") != NULL);
	rxb_buflist_fini(&l);
}

int main(void)
{
	RUN(test_sense_reversal_many_wraps);
	RUN(test_sense_reversal_across_u32_wrap);
	RUN(test_cr_full_then_room_after_publish);
	RUN(test_cr_occupancy_of_a_racing_reader);
	RUN(test_prefetch_beyond_the_ring_reads_it_whole);
	RUN(test_prefetch_reads_split_at_wrap);
	RUN(test_buflist_unique);
	return check_summary();
}
