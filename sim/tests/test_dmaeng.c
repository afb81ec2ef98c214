/* SPDX-License-Identifier: BSD-3-Clause
 * DMA read engines (dmaeng.h): below saturation a read takes its latency;
 * with more demand than slots / latency the reads queue and throughput is
 * slots per latency (Little's law); the link serialises the data. */
#include <errno.h>
#include <stdio.h>

#include "check.h"
#include "dmaeng.h"

static const uint64_t LAT = 1000000; /* 1 µs */

static void test_below_saturation(void)
{
	struct sim_dmaeng e;
	struct rxb_err err;

	CHECK_EQ(sim_dmaeng_init(&e, 8, 0, &err), 0);
	/* a request every 200 ns, 1 µs each: 5 in flight of 8 */
	for (uint64_t i = 0; i < 1000; i++)
		CHECK_EQ(sim_dmaeng_request(&e, i * 200000, LAT, 0), i * 200000 + LAT);
	CHECK_EQ(e.wait_ps, 0);
	sim_dmaeng_free(&e);
}

static void test_saturated_throughput_is_slots_over_latency(void)
{
	struct sim_dmaeng e;
	struct rxb_err err;
	uint64_t done = 0;

	CHECK_EQ(sim_dmaeng_init(&e, 8, 0, &err), 0);
	/* all 8000 at once: 8 per µs come back, the last at 1000 µs */
	for (int i = 0; i < 8000; i++)
		done = sim_dmaeng_request(&e, 0, LAT, 0);
	CHECK_EQ(done, 1000 * LAT);
	CHECK(e.wait_ps > 0);
	sim_dmaeng_free(&e);
}

static void test_the_link_serialises_data(void)
{
	struct sim_dmaeng e;
	struct rxb_err err;

	/* 100 ps per byte: 512 B take 51.2 ns on the link, after the latency */
	CHECK_EQ(sim_dmaeng_init(&e, 64, 100, &err), 0);
	CHECK_EQ(sim_dmaeng_request(&e, 0, LAT, 512), LAT);
	CHECK_EQ(sim_dmaeng_request(&e, 0, LAT, 512), LAT + 51200);
	CHECK_EQ(sim_dmaeng_request(&e, 0, LAT, 512), LAT + 2 * 51200);
	sim_dmaeng_free(&e);
}

/* A request issued before an earlier one (its caller's clock behind) is
 * counted: it waits behind the later one's link time, so the engine's
 * callers must issue in time order (dmaeng.h). Equal times are in order. */
static void test_a_request_out_of_time_order_is_counted(void)
{
	struct sim_dmaeng e;
	struct rxb_err err;

	CHECK_EQ(sim_dmaeng_init(&e, 8, 0, &err), 0);
	sim_dmaeng_request(&e, 5 * LAT, LAT, 0);
	sim_dmaeng_request(&e, 5 * LAT, LAT, 0);
	CHECK_EQ(e.late, 0);
	/* it cannot complete before the one issued at 5 µs: the link's order */
	CHECK_EQ(sim_dmaeng_request(&e, 2 * LAT, LAT, 0), 6 * LAT);
	CHECK_EQ(e.late, 1);
	sim_dmaeng_request(&e, 7 * LAT, LAT, 0);
	CHECK_EQ(e.late, 1);
	sim_dmaeng_free(&e);
}

static void test_errors(void)
{
	struct sim_dmaeng e;
	struct rxb_err err;

	CHECK_EQ(sim_dmaeng_init(&e, 0, 0, &err), -EINVAL);
	CHECK(err.msg[0] != '\0');
}

int main(void)
{
	RUN(test_below_saturation);
	RUN(test_saturated_throughput_is_slots_over_latency);
	RUN(test_the_link_serialises_data);
	RUN(test_a_request_out_of_time_order_is_counted);
	RUN(test_errors);
	return check_summary();
}
