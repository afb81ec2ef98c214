/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The rules that involve several keys (or a key and the machine): each one
 * function, stated once, with the one message every consumer gives for it
 * (the simulator, the emulator, the driver's devargs and, through the
 * shared library, the Python front end). The table says which engines a
 * rule binds; rxb_scn_check runs them in order and reports the first broken
 * one. Messages keep the vocabulary's shape: "key = value: why; allowed: what".
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rxb/shape.h"
#include "scenario.h"

struct rules_ctx {
	const struct rxb_scn *s;
	const struct rxb_scn_machine *m; /* never NULL; a field 0 is unknown */
	enum rxb_engine e;
	uint32_t min_cpn; /* fewest cores any NIC has */
};

typedef int (*rule_fn)(const struct rules_ctx *x, struct rxb_err *err);

/* A number as the user writes it: an integer without a fraction, else the
 * shortest text that reads back as the same double. */
void rxb_scn_num_text(double v, char *buf, size_t cap)
{
	if (v == floor(v) && fabs(v) < 0x1p63) {
		snprintf(buf, cap, "%.0f", v);
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, cap, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

static int broken(void)
{
	return -EINVAL;
}

/* ------------------------------------------------------------ system */

static int cores_fit_socket(const struct rules_ctx *x, struct rxb_err *err)
{
	uint32_t cores = x->s->system.cores, per = x->m->cores_per_socket;

	if (per == 0 || cores <= per)
		return 0;
	rxb_err_set(err,
		    "system.cores = %u: profile '%s' has %u cores per socket and "
		    "applications run on one socket; allowed: 1 to %u",
		    cores, x->m->name, per, per);
	return broken();
}

static int nics_fit_machine(const struct rules_ctx *x, struct rxb_err *err)
{
	uint32_t nics = x->s->system.nics, have = x->m->nics;

	if (have == 0 || nics <= have)
		return 0;
	rxb_err_set(err, "system.nics = %u: profile '%s' has %u NICs; allowed: 1 to %u", nics,
		    x->m->name, have, have);
	return broken();
}

static int cores_cover_nics(const struct rules_ctx *x, struct rxb_err *err)
{
	const struct rxb_scn_system *sy = &x->s->system;

	if (sy->cores >= sy->nics)
		return 0;
	rxb_err_set(err,
		    "system.cores = %u: fewer cores than NICs (system.nics = %u); allowed: "
		    "at least %u",
		    sy->cores, sy->nics, sy->nics);
	return broken();
}

/* The emulator gives every NIC an equal share of the workers. */
static int nics_divide_cores(const struct rules_ctx *x, struct rxb_err *err)
{
	const struct rxb_scn_system *sy = &x->s->system;

	if (x->s->arch.name == RXB_ARCH_SPOOL || sy->cores % sy->nics == 0)
		return 0;
	rxb_err_set(err,
		    "system.nics = %u: must divide system.cores = %u (each NIC serves an "
		    "equal share of the workers); allowed: a divisor of system.cores",
		    sy->nics, sy->cores);
	return broken();
}

static int split_adds_up(const struct rules_ctx *x, struct rxb_err *err)
{
	const struct rxb_scn_system *sy = &x->s->system;
	uint64_t sum = 0;
	char text[512];

	for (uint32_t n = 0; n < sy->cores_per_nic.n; n++)
		sum += sy->cores_per_nic.v[n];
	if (sy->cores_per_nic.n == sy->nics && sum == sy->cores)
		return 0;
	rxb_err_set(err,
		    "system.cores_per_nic = %s: needs %u entries (one per NIC) adding up to "
		    "system.cores = %u; allowed: such a list, or [] to split evenly",
		    rxb_scn_list_text(&sy->cores_per_nic, text, sizeof(text)), sy->nics, sy->cores);
	return broken();
}

/* The lists that name cores by id. */
struct core_list {
	const char *key;
	const struct rxb_scn_list *l;
};

enum { N_CORE_LISTS = 2 };

static void core_id_lists(const struct rxb_scn_system *sy, struct core_list out[N_CORE_LISTS])
{
	out[0] = (struct core_list){ "system.stalled_cores", &sy->stalled_cores };
	out[1] = (struct core_list){ "system.slow_cores", &sy->slow_cores };
}

static int core_ids_exist(const struct rules_ctx *x, struct rxb_err *err)
{
	const struct rxb_scn_system *sy = &x->s->system;
	struct core_list lists[N_CORE_LISTS];
	char text[512];

	core_id_lists(sy, lists);
	for (size_t k = 0; k < N_CORE_LISTS; k++) {
		for (uint32_t i = 0; i < lists[k].l->n; i++) {
			if (lists[k].l->v[i] < sy->cores)
				continue;
			rxb_err_set(err,
				    "%s = %s: core %u does not exist (system.cores = %u); "
				    "allowed: core ids 0 to %u",
				    lists[k].key, rxb_scn_list_text(lists[k].l, text, sizeof(text)),
				    lists[k].l->v[i], sy->cores, sy->cores - 1);
			return broken();
		}
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The list's ids ascending, each once. */
static void as_set(const struct rxb_scn_list *l, struct rxb_scn_list *set)
{
	uint32_t n = 0;

	*set = *l;
	qsort(set->v, set->n, sizeof(set->v[0]), cmp_u32);
	for (uint32_t i = 0; i < set->n; i++)
		if (n == 0 || set->v[i] != set->v[n - 1])
			set->v[n++] = set->v[i];
	set->n = n;
}

/* A core list names a set of cores, so it has one spelling: [1, 0] or
 * [0, 0, 1] would be a second sweep point, and a second run, of the set
 * [0, 1]. */
static int core_ids_ascend(const struct rules_ctx *x, struct rxb_err *err)
{
	struct core_list lists[N_CORE_LISTS];
	struct rxb_scn_list set;
	char text[512], want[512];

	core_id_lists(&x->s->system, lists);
	for (size_t k = 0; k < N_CORE_LISTS; k++) {
		const struct rxb_scn_list *l = lists[k].l;
		uint32_t i = 1;

		while (i < l->n && l->v[i] > l->v[i - 1])
			i++;
		if (i >= l->n)
			continue;
		as_set(l, &set);
		rxb_err_set(err,
			    "%s = %s: core %u %s (the list names a set of cores); allowed: each "
			    "core once, in ascending order: %s",
			    lists[k].key, rxb_scn_list_text(l, text, sizeof(text)), l->v[i],
			    l->v[i] == l->v[i - 1] ? "is listed twice" : "is out of order",
			    rxb_scn_list_text(&set, want, sizeof(want)));
		return broken();
	}
	return 0;
}

static int ddio_fits_llc(const struct rules_ctx *x, struct rxb_err *err)
{
	uint32_t ddio = x->s->system.ddio_ways, ways = x->m->llc_ways;

	if (ways == 0 || ddio == RXB_SCN_AUTO || ddio <= ways)
		return 0;
	rxb_err_set(err, "system.ddio_ways = %u: profile '%s' LLC has %u ways; allowed: 0 to %u",
		    ddio, x->m->name, ways, ways);
	return broken();
}

static int cat_leaves_a_way(const struct rules_ctx *x, struct rxb_err *err)
{
	uint32_t cat = x->s->system.cat_ways, ways = x->m->llc_ways;

	if (ways == 0 || cat < ways)
		return 0;
	rxb_err_set(err,
		    "system.cat_ways = %u: must leave at least one of the %u LLC ways of "
		    "profile '%s' unreserved; allowed: 0 to %u",
		    cat, ways, x->m->name, ways - 1);
	return broken();
}

static int hogs_fit_socket(const struct rules_ctx *x, struct rxb_err *err)
{
	const struct rxb_scn_system *sy = &x->s->system;
	uint32_t per = x->m->cores_per_socket;

	if (per == 0 || sy->hog == RXB_HOG_NONE || (uint64_t)sy->hog_instances + sy->cores <= per)
		return 0;
	rxb_err_set(err,
		    "system.hog_instances = %u: with %u worker cores the socket of profile "
		    "'%s' has %u cores left; allowed: 0 to %u",
		    sy->hog_instances, sy->cores, x->m->name, per - sy->cores, per - sy->cores);
	return broken();
}

/* ----------------------------------------------------------- traffic */

static int rate_fits_link(const struct rules_ctx *x, struct rxb_err *err)
{
	double rate = x->s->traffic.rate_gbps, link = x->m->link_gbps;
	char v[32];

	if (link == 0 || rate <= link)
		return 0;
	rxb_scn_num_text(rate, v, sizeof(v));
	rxb_err_set(err,
		    "traffic.rate_gbps = %s: exceeds the %g Gbps link of profile '%s'; "
		    "allowed: a number > 0 and <= %g",
		    v, link, x->m->name, link);
	return broken();
}

static int bursts_fit_link(const struct rules_ctx *x, struct rxb_err *err)
{
	const struct rxb_scn_traffic *t = &x->s->traffic;
	double link = x->m->link_gbps, peak = t->rate_gbps / t->burst_duty;
	char v[32], p[32];

	/* the traffic model's own bound (sim/models/traffic.c check_stream): a
	 * peak it would refuse must not pass here */
	if (link == 0 || t->pattern != RXB_PATTERN_ONOFF || peak <= link * (1 + 1e-12))
		return 0;
	rxb_scn_num_text(t->burst_duty, v, sizeof(v));
	rxb_scn_num_text(peak, p, sizeof(p)); /* all its digits: it may be just above */
	rxb_err_set(err,
		    "traffic.burst_duty = %s: bursts would arrive at rate_gbps / burst_duty "
		    "= %s Gbps, above the %g Gbps link; allowed: %g to 1",
		    v, p, link, t->rate_gbps / link);
	return broken();
}

/* A trace to replay, or the emulator's pcap source, reads traffic.pcap. */
static int trace_has_file(const struct rules_ctx *x, struct rxb_err *err)
{
	bool trace = x->s->traffic.pattern == RXB_PATTERN_TRACE;
	bool source = x->e == RXB_ENGINE_EMU && x->s->emu.source == RXB_EMU_SOURCE_PCAP;

	if ((!trace && !source) || x->s->traffic.pcap[0] != '\0')
		return 0;
	rxb_err_set(err,
		    "traffic.pcap = '': required when %s; allowed: a path to a readable pcap "
		    "file",
		    trace ? "traffic.pattern = 'trace'" : "emu.source = 'pcap'");
	return broken();
}

static int change_has_target(const struct rules_ctx *x, struct rxb_err *err)
{
	const struct rxb_scn_traffic *t = &x->s->traffic;

	if (!(t->change_at_ms > 0) || t->target_core < x->min_cpn)
		return 0;
	rxb_err_set(err,
		    "traffic.target_core = %u: traffic.change_at_ms needs a target core and "
		    "a NIC has only %u cores; allowed: 0 to %d",
		    t->target_core, x->min_cpn, (int)x->min_cpn - 1);
	return broken();
}

static int target_has_load(const struct rules_ctx *x, struct rxb_err *err)
{
	const struct rxb_scn_traffic *t = &x->s->traffic;
	char v[32];

	if (t->pattern != RXB_PATTERN_TARGET || t->target_share != 0 || t->target_rate_gbps != 0)
		return 0;
	rxb_scn_num_text(t->target_share, v, sizeof(v));
	rxb_err_set(err,
		    "traffic.target_share = %s: pattern 'target' needs a share or "
		    "traffic.target_rate_gbps; allowed: a number > 0 and <= 1",
		    v);
	return broken();
}

static int target_rate_fits(const struct rules_ctx *x, struct rxb_err *err)
{
	const struct rxb_scn_traffic *t = &x->s->traffic;
	char v[32];

	if (t->pattern != RXB_PATTERN_TARGET || t->target_rate_gbps <= t->rate_gbps)
		return 0;
	rxb_scn_num_text(t->target_rate_gbps, v, sizeof(v));
	rxb_err_set(err,
		    "traffic.target_rate_gbps = %s: more than the NIC's traffic.rate_gbps = "
		    "%g; allowed: 0 to %g",
		    v, t->rate_gbps, t->rate_gbps);
	return broken();
}

/* On the emulator, spool's target is a representor port, not a core. */
static int target_core_exists(const struct rules_ctx *x, struct rxb_err *err)
{
	const struct rxb_scn_traffic *t = &x->s->traffic;
	bool port = x->e == RXB_ENGINE_EMU && x->s->arch.name == RXB_ARCH_SPOOL;
	uint32_t n = port ? x->s->arch.spool_ports : x->min_cpn;

	if (t->pattern != RXB_PATTERN_TARGET || t->target_core < n)
		return 0;
	rxb_err_set(err, "traffic.target_core = %u: %s %u %s; allowed: 0 to %d", t->target_core,
		    port ? "with arch.name = 'spool' the target is one of the" : "a NIC has only",
		    n, port ? "representor ports" : "cores", (int)n - 1);
	return broken();
}

/* The emulator replays a trace through net_pcap. */
static int trace_through_pcap(const struct rules_ctx *x, struct rxb_err *err)
{
	enum rxb_emu_source src = x->s->emu.source;

	if (x->s->traffic.pattern != RXB_PATTERN_TRACE || src == RXB_EMU_SOURCE_PCAP)
		return 0;
	rxb_err_set(err,
		    "emu.source = '%s': traffic.pattern = 'trace' is replayed by net_pcap; "
		    "allowed: emu.source = 'pcap'",
		    rxb_emu_source_name[src]);
	return broken();
}

static int target_leaves_others(const struct rules_ctx *x, struct rxb_err *err)
{
	char text[512];

	if (x->s->traffic.pattern != RXB_PATTERN_TARGET || x->min_cpn >= 2)
		return 0;
	rxb_err_set(err,
		    "system.cores_per_nic = %s: pattern 'target' needs at least 2 cores per "
		    "NIC (the target and the others); allowed: 2 or more cores on every NIC",
		    rxb_scn_list_text(&x->s->system.cores_per_nic, text, sizeof(text)));
	return broken();
}

static int target_frames_are_frames(const struct rules_ctx *x, struct rxb_err *err)
{
	uint32_t tpb = x->s->traffic.target_packet_bytes;

	if (tpb == 0 || tpb >= 64)
		return 0;
	rxb_err_set(err,
		    "traffic.target_packet_bytes = %u: below the 64 B minimum frame; "
		    "allowed: 0 (as traffic.packet_bytes) or 64 and more",
		    tpb);
	return broken();
}

/* -------------------------------------------------------------- arch */

static int frames_fit_buffers(const struct rules_ctx *x, struct rxb_err *err)
{
	const struct rxb_scn_arch *a = &x->s->arch;
	const struct rxb_scn_traffic *t = &x->s->traffic;
	bool target = t->target_packet_bytes > t->packet_bytes;
	uint32_t biggest = target ? t->target_packet_bytes : t->packet_bytes;
	/* the emulator keeps DPDK's headroom outside buffer_bytes and ignores
	 * the key (with a warning): no headroom to take from the buffer there */
	uint32_t headroom = rxb_scn_honours(rxb_scn_key_find("arch.headroom_bytes"), x->e)
				    ? a->headroom_bytes
				    : 0;
	int64_t room = (int64_t)a->buffer_bytes - headroom;
	/* the smallest frame: traffic.packet_bytes's own lower bound */
	const uint32_t least = (uint32_t)rxb_scn_key_find("traffic.packet_bytes")->lim[x->e].lo;

	if (biggest <= room)
		return 0;
	if (room < least) { /* no frame fits: the headroom is what is wrong */
		rxb_err_set(err,
			    "arch.headroom_bytes = %u: leaves less than a %u-byte frame of "
			    "arch.buffer_bytes = %u; allowed: 0 to %u",
			    headroom, least, a->buffer_bytes, a->buffer_bytes - least);
		return broken();
	}
	rxb_err_set(err,
		    "%s = %u: does not fit a buffer of arch.buffer_bytes = %u minus "
		    "arch.headroom_bytes = %u; allowed: %u to %lld",
		    target ? "traffic.target_packet_bytes" : "traffic.packet_bytes", biggest,
		    a->buffer_bytes, headroom, least, (long long)room);
	return broken();
}

static bool shares_rings(enum rxb_arch arch)
{
	return arch == RXB_ARCH_SHRING || arch == RXB_ARCH_SHRING_LIST ||
	       arch == RXB_ARCH_DYN_SHRING;
}

static int share_divides_nics(const struct rules_ctx *x, struct rxb_err *err)
{
	const struct rxb_scn *s = x->s;
	const struct rxb_scn_list *cpn = &s->system.cores_per_nic;
	uint32_t share = s->arch.share_degree;
	char text[512];

	if (!shares_rings(s->arch.name))
		return 0;
	for (uint32_t n = 0; share != 0 && n < cpn->n; n++)
		if (cpn->v[n] % share != 0)
			share = 0;
	if (share != 0)
		return 0;
	rxb_err_set(err,
		    "arch.share_degree = %u: must divide the cores of every NIC %s; "
		    "allowed: a common divisor of the per-NIC core counts, or \"auto\"",
		    s->arch.share_degree, rxb_scn_list_text(cpn, text, sizeof(text)));
	return broken();
}

static int groups_divide_cores(const struct rules_ctx *x, struct rxb_err *err)
{
	const struct rxb_scn *s = x->s;

	if (s->arch.association != RXB_ASSOC_GROUPS ||
	    (s->arch.groups != 0 && s->system.cores % s->arch.groups == 0))
		return 0;
	rxb_err_set(err,
		    "arch.groups = %u: must divide system.cores = %u; allowed: a divisor of "
		    "system.cores",
		    s->arch.groups, s->system.cores);
	return broken();
}

/* The library's association sets are equal blocks of cores, one per NIC. */
static int per_nic_sets_even(const struct rules_ctx *x, struct rxb_err *err)
{
	const struct rxb_scn *s = x->s;
	const struct rxb_scn_list *cpn = &s->system.cores_per_nic;
	char text[512];

	if (s->arch.name != RXB_ARCH_RXBISECT || s->arch.association != RXB_ASSOC_PER_NIC)
		return 0;
	for (uint32_t n = 1; n < cpn->n; n++) {
		if (cpn->v[n] == cpn->v[0])
			continue;
		rxb_err_set(err,
			    "arch.association = 'per_nic': system.cores_per_nic = %s is "
			    "uneven and association sets are equal blocks of cores; allowed: "
			    "an even split, or association = 'groups' / 'all'",
			    rxb_scn_list_text(cpn, text, sizeof(text)));
		return broken();
	}
	return 0;
}

static int rxlist_slots_fit(const struct rules_ctx *x, struct rxb_err *err)
{
	const struct rxb_scn_arch *a = &x->s->arch;
	uint64_t slots = (uint64_t)a->rx_size * a->rxlist_batch;

	if (a->name != RXB_ARCH_SHRING_LIST || slots <= RXB_RING_MAX)
		return 0;
	rxb_err_set(err,
		    "arch.rxlist_batch = %u: arch.rx_size x arch.rxlist_batch = %llu buffer "
		    "slots, more than the library's %u; allowed: 1 to %u (a power of two)",
		    a->rxlist_batch, (unsigned long long)slots, RXB_RING_MAX,
		    RXB_RING_MAX / a->rx_size);
	return broken();
}

/* Batched RxList: each core of a shared ring keeps its current descriptor
 * until every slot of it is filled (for a core without traffic, never),
 * and the list hands out rx_size - 1 descriptors (lib/shring.c). */
static int rxlist_batches_leave_one(const struct rules_ctx *x, struct rxb_err *err)
{
	const struct rxb_scn_arch *a = &x->s->arch;

	if (a->name != RXB_ARCH_SHRING_LIST || a->rxlist_batch <= 1 || a->rx_size > a->share_degree)
		return 0;
	rxb_err_set(err,
		    "arch.rx_size = %u: batched RxList (arch.rxlist_batch = %u) needs more "
		    "descriptors than arch.share_degree = %u, as each core holds one until it is "
		    "full; allowed: a power of two above %u",
		    a->rx_size, a->rxlist_batch, a->share_degree, a->share_degree);
	return broken();
}

/* Every buffer of a core's Ax ring may end up in its Bx (the library
 * reserves a Bx slot for each: rxb_bisect_create), and each Bx has its own
 * core's Ax linked to it. */
static int bx_holds_its_ax(const struct rules_ctx *x, struct rxb_err *err)
{
	const struct rxb_scn_arch *a = &x->s->arch;

	if (a->name != RXB_ARCH_RXBISECT || a->bx_size >= a->ax_size)
		return 0;
	rxb_err_set(err,
		    "arch.bx_size = %u: smaller than arch.ax_size = %u, whose buffers the Bx must "
		    "all be able to take; allowed: %u or more (a power of two), or a smaller "
		    "arch.ax_size",
		    a->bx_size, a->ax_size, a->ax_size);
	return broken();
}

static int spool_queues_fit(const struct rules_ctx *x, struct rxb_err *err)
{
	const struct rxb_scn_arch *a = &x->s->arch;

	if (a->name != RXB_ARCH_SPOOL || a->spool_mode == RXB_SPOOL_BASIC ||
	    a->spool_ports <= RXB_MAX_QUEUES)
		return 0;
	rxb_err_set(err,
		    "arch.spool_ports = %u: spool_mode = '%s' gives every port a queue of its "
		    "own and the library has at most %u; allowed: 1 to %u, or spool_mode = 'basic'",
		    a->spool_ports, rxb_spool_mode_name[a->spool_mode], RXB_MAX_QUEUES,
		    RXB_MAX_QUEUES);
	return broken();
}

static int spool_low_below_high(const struct rules_ctx *x, struct rxb_err *err)
{
	const struct rxb_scn_arch *a = &x->s->arch;

	if (a->spool_low <= a->spool_high)
		return 0;
	rxb_err_set(err, "arch.spool_low = %u: above arch.spool_high = %u; allowed: 1 to %u",
		    a->spool_low, a->spool_high, a->spool_high);
	return broken();
}

/* Without its software NIC the emulator runs a standard PMD's queues. */
static int native_is_privring(const struct rules_ctx *x, struct rxb_err *err)
{
	enum rxb_arch arch = x->s->arch.name;

	if (x->s->arch.emulated || arch == RXB_ARCH_PRIVRING || arch == RXB_ARCH_SMALL_PRIVRING)
		return 0;
	rxb_err_set(err,
		    "arch.emulated = false with arch.name = '%s': %s; allowed with emulated "
		    "= false: privring, small_privring",
		    rxb_arch_name[arch],
		    arch == RXB_ARCH_RXBISECT ? "rxBisect needs split Ax/Bx rings that no NIC "
						"implements"
		    : arch == RXB_ARCH_SPOOL
			    ? "no PMD exposes representor queues fed from one "
			      "shared page pool"
			    : "shRing needs one Rx ring whose descriptors several "
			      "cores re-arm out of order, which no standard PMD exposes");
	return broken();
}

/* spool basic: one shared PF queue per NIC (the library's basic_queues). */
static int basic_queues_fit_ports(const struct rules_ctx *x, struct rxb_err *err)
{
	const struct rxb_scn_arch *a = &x->s->arch;
	uint32_t nics = x->s->system.nics;

	if (a->name != RXB_ARCH_SPOOL || a->spool_mode != RXB_SPOOL_BASIC || nics <= a->spool_ports)
		return 0;
	rxb_err_set(err,
		    "system.nics = %u: spool_mode = 'basic' uses one shared PF queue per "
		    "NIC, at most arch.spool_ports = %u; allowed: 1 to %u",
		    nics, a->spool_ports, a->spool_ports);
	return broken();
}

/* The switch re-steers traffic between two sets of physical queues. */
static int dyn_needs_generator(const struct rules_ctx *x, struct rxb_err *err)
{
	enum rxb_emu_source src = x->s->emu.source;

	if (x->s->arch.name != RXB_ARCH_DYN_SHRING || src == RXB_EMU_SOURCE_GEN)
		return 0;
	rxb_err_set(err,
		    "emu.source = '%s': arch.name = 'dyn_shring' re-steers traffic between "
		    "two sets of physical queues, which only the built-in generator can; allowed: "
		    "emu.source = 'gen'",
		    rxb_emu_source_name[src]);
	return broken();
}

/* A DPDK mempool needs 1.5 x its per-lcore cache; the simulator models the
 * same application (and its own pool, rxb_pool_create, needs no more than
 * the cache). */
static int cache_fits_pool(const struct rules_ctx *x, struct rxb_err *err)
{
	const struct rxb_scn_arch *a = &x->s->arch;

	if (a->pool_buffers == RXB_SCN_AUTO || (uint64_t)a->alloc_cache * 3 / 2 <= a->pool_buffers)
		return 0;
	rxb_err_set(err,
		    "arch.alloc_cache = %u: too large for arch.pool_buffers = %u (a mempool "
		    "needs 1.5 x its cache); allowed: 0 to %u",
		    a->alloc_cache, a->pool_buffers, (uint32_t)((uint64_t)a->pool_buffers * 2 / 3));
	return broken();
}

/* The simulator's pool must hold what the rings start with: below that the
 * engine failed at creation ("could post only"). A bound that never refuses
 * a pool the engine takes: the caches the priming cores fill on the way
 * (a refill takes the shortfall plus a cache's worth while the pool has it,
 * as rte_mempool does) need up to a cache more per priming core, and how
 * many cores prime depends on the design; a pool in between still fails
 * with the engine's message. The emulator's mempool primes from one lcore:
 * not bound. The spool fills its queues by policy, as far as the pool goes. */
static int pool_primes_rings(const struct rules_ctx *x, struct rxb_err *err)
{
	const struct rxb_scn_arch *a = &x->s->arch;
	struct rxb_iface_shape shape;
	struct rxb_err ignored;

	if (a->pool_buffers == RXB_SCN_AUTO || a->name == RXB_ARCH_SPOOL ||
	    rxb_scn_shape(x->s, &shape, &ignored) != 0 || a->pool_buffers >= shape.posted)
		return 0; /* "auto" fills every ring; a shape the library refuses is its rule's */
	rxb_err_set(err,
		    "arch.pool_buffers = %u: fewer than the %llu buffers the rings start with; "
		    "allowed: at least %llu and a cache's worth (arch.alloc_cache = %u) more per "
		    "core, or \"auto\"",
		    a->pool_buffers, (unsigned long long)shape.posted,
		    (unsigned long long)shape.posted, a->alloc_cache);
	return broken();
}

/* The simulator's model of the emulator has no representor ports. */
static int emulated_models_design(const struct rules_ctx *x, struct rxb_err *err)
{
	if (x->s->arch.name != RXB_ARCH_SPOOL || !x->s->arch.emulated)
		return 0;
	rxb_err_set(err,
		    "arch.emulated = true: the simulator models the emulator for privring, "
		    "small_privring, shring, shring_list, dyn_shring and rxbisect; allowed: false "
		    "with arch.name = 'spool'");
	return broken();
}

/* ----------------------------------------------------------- workload */

static int kvs_has_requests(const struct rules_ctx *x, struct rxb_err *err)
{
	const struct rxb_scn *s = x->s;

	if (s->workload.nf != RXB_NF_KIND_KVS)
		return 0;
	if (s->arch.name == RXB_ARCH_SPOOL) {
		rxb_err_set(err,
			    "workload.nf = 'kvs' with arch.name = 'spool': KV requests are "
			    "steered to their partition's core, spool steers to ports; allowed: "
			    "l3fwd, nat, lb, synthetic, counter");
		return broken();
	}
	if (s->emu.source != RXB_EMU_SOURCE_NULL)
		return 0;
	rxb_err_set(err, "workload.nf = 'kvs' with emu.source = 'null': KV requests come from the "
			 "generator or a trace; allowed: emu.source = 'gen', 'pcap' or 'port'");
	return broken();
}

/* --------------------------------------------------------------- run */

static int warmup_before_end(const struct rules_ctx *x, struct rxb_err *err)
{
	const struct rxb_scn_run *r = &x->s->run;
	char v[32];

	if (r->warmup_ms < r->duration_ms)
		return 0;
	rxb_scn_num_text(r->warmup_ms, v, sizeof(v));
	rxb_err_set(err,
		    "run.warmup_ms = %s: not shorter than run.duration_ms = %g; allowed: 0 "
		    "to below %g",
		    v, r->duration_ms, r->duration_ms);
	return broken();
}

/* The simulator's flow tables (lb, nat) hold every flow their core sees
 * under the generator's ranges: it places such a flow at its order of
 * arrival, and one past the table took another flow's entry, as no flow
 * manager does (rte_hash refuses the insert). The generator's flows spread
 * evenly over a NIC's cores. (Drawn flows are placed by a hash, sharing an
 * entry at any capacity; a trace's flows are not known here.) The
 * emulator runs the real tables: it counts a flow that does not fit. */
static int flow_tables_hold_flows(const struct rules_ctx *x, struct rxb_err *err)
{
	const struct rxb_scn *s = x->s;
	uint64_t flows = rxb_scn_flows_per_nic(s), entries = rxb_scn_flow_table_entries(s);
	uint32_t fewest = x->min_cpn;
	uint64_t per_core = (flows + fewest - 1) / fewest;
	uint64_t fits = rxb_scn_flow_table_for(per_core);

	if (!rxb_nf_keeps_flows(s->workload.nf) || !rxb_scn_generator_ranges(s) ||
	    per_core <= entries)
		return 0;
	/* the least capacity whose tables round up to `fits` entries */
	rxb_err_set(err,
		    "workload.flow_capacity = %llu: each core's flow table has %llu entries "
		    "(the capacity over the %u cores of a NIC, to a power of two), fewer than the "
		    "%llu flows a core sees (%llu a NIC); allowed: at least %llu",
		    (unsigned long long)s->workload.flow_capacity, (unsigned long long)entries,
		    fewest, (unsigned long long)per_core, (unsigned long long)flows,
		    (unsigned long long)(fits / 2 * fewest + 1));
	return broken();
}

/* Set sampling keeps 1 in 2^shift groups of the profile's LLC sets: a shift
 * past its groups leaves none (the LLC model refused it at creation). The
 * sets as the engine builds them: the capacity rounded to bytes over ways x
 * line. */
static int llc_sampling_leaves_sets(const struct rules_ctx *x, struct rxb_err *err)
{
	const struct rxb_scn_machine *m = x->m;
	uint32_t shift = x->s->run.llc_sample_shift;
	uint64_t groups;

	if (m->llc_mib <= 0 || m->llc_ways == 0 || m->llc_line_bytes == 0)
		return 0;
	groups = (uint64_t)llround(m->llc_mib * 1048576.0) /
		 ((uint64_t)m->llc_ways * m->llc_line_bytes) / RXB_SCN_LLC_GROUP_SETS;
	if (shift < 64 && groups >> shift != 0)
		return 0;
	rxb_err_set(err,
		    "run.llc_sample_shift = %u: profile '%s' LLC has %llu groups of %u sets, and "
		    "sampling 1 in 2^%u of them leaves none; allowed: 0 to %u",
		    shift, m->name, (unsigned long long)groups, RXB_SCN_LLC_GROUP_SETS, shift,
		    groups ? 63u - (unsigned)__builtin_clzll(groups) : 0u); /* floor(log2) */
	return broken();
}

static int samples_fit(const struct rules_ctx *x, struct rxb_err *err)
{
	const struct rxb_scn_run *r = &x->s->run;
	double n = r->duration_ms / r->sample_ms;
	char v[32];

	if (n <= RXB_SCN_MAX_SAMPLES)
		return 0;
	rxb_scn_num_text(r->sample_ms, v, sizeof(v));
	rxb_err_set(err,
		    "run.sample_ms = %s: run.duration_ms = %g would take %.0f samples, more "
		    "than the simulator's %u; allowed: at least %g (or a shorter run.duration_ms)",
		    v, r->duration_ms, n, RXB_SCN_MAX_SAMPLES,
		    r->duration_ms / RXB_SCN_MAX_SAMPLES);
	return broken();
}

/* The dynamic controller samples as the run samples its series: a period
 * so short that a run takes more samples than that never finishes. */
static int dyn_samples_fit(const struct rules_ctx *x, struct rxb_err *err)
{
	const struct rxb_scn_arch *a = &x->s->arch;
	double n = x->s->run.duration_ms / a->dyn_sample_ms;
	char v[32];

	if (a->name != RXB_ARCH_DYN_SHRING || n <= RXB_SCN_MAX_SAMPLES)
		return 0;
	rxb_scn_num_text(a->dyn_sample_ms, v, sizeof(v));
	rxb_err_set(err,
		    "arch.dyn_sample_ms = %s: run.duration_ms = %g would take %.0f controller "
		    "samples, more than the simulator's %u; allowed: at least %g (or a shorter "
		    "run.duration_ms)",
		    v, x->s->run.duration_ms, n, RXB_SCN_MAX_SAMPLES,
		    x->s->run.duration_ms / RXB_SCN_MAX_SAMPLES);
	return broken();
}

/* A timer interrupt takes the core for system.tick_us every 1/tick_hz: one
 * that lasts its whole period leaves the core no time, and the run no
 * progress. */
static int ticks_leave_time(const struct rules_ctx *x, struct rxb_err *err)
{
	const struct rxb_scn_system *sy = &x->s->system;
	double period_us = 1e6 / sy->tick_hz;
	char v[32];

	if (sy->tick_hz == 0 || sy->tick_us < period_us)
		return 0;
	rxb_scn_num_text(sy->tick_us, v, sizeof(v));
	rxb_err_set(err,
		    "system.tick_us = %s: a tick every %g us (system.tick_hz = %g) that lasts "
		    "this long leaves the core no time; allowed: less than %g",
		    v, period_us, sy->tick_hz, period_us);
	return broken();
}

/* ------------------------------------------------------------- table */

#define SIM RXB_ENGINE_BIT(RXB_ENGINE_SIM)
#define EMU RXB_ENGINE_BIT(RXB_ENGINE_EMU)

static const struct rxb_scn_rule {
	const char *name;
	rule_fn fn;
	unsigned engines;
} rules[] = {
	{ "cores fit one socket", cores_fit_socket, SIM | EMU },
	{ "NICs exist", nics_fit_machine, SIM | EMU },
	{ "a core per NIC", cores_cover_nics, SIM | EMU },
	{ "NICs share the cores equally", nics_divide_cores, EMU },
	{ "the split adds up", split_adds_up, SIM | EMU },
	{ "core ids exist", core_ids_exist, SIM | EMU },
	{ "core ids ascend", core_ids_ascend, SIM | EMU },
	{ "DDIO ways exist", ddio_fits_llc, SIM | EMU },
	{ "CAT leaves a way", cat_leaves_a_way, SIM | EMU },
	{ "hogs fit the socket", hogs_fit_socket, SIM | EMU },
	{ "rate fits the link", rate_fits_link, SIM | EMU },
	{ "bursts fit the link", bursts_fit_link, SIM | EMU },
	{ "a trace names its file", trace_has_file, SIM | EMU },
	{ "a trace is replayed from pcap", trace_through_pcap, EMU },
	{ "a load change has its target", change_has_target, SIM | EMU },
	{ "targeting has a load", target_has_load, SIM | EMU },
	{ "the target rate fits", target_rate_fits, SIM | EMU },
	{ "the target core exists", target_core_exists, SIM | EMU },
	{ "targeting leaves other cores", target_leaves_others, SIM },
	{ "target frames are frames", target_frames_are_frames, SIM | EMU },
	{ "frames fit buffers", frames_fit_buffers, SIM | EMU },
	{ "share degree divides each NIC", share_divides_nics, SIM | EMU },
	{ "groups divide the cores", groups_divide_cores, SIM | EMU },
	{ "per-NIC sets are even", per_nic_sets_even, SIM | EMU },
	{ "RxList slots fit a ring", rxlist_slots_fit, SIM | EMU },
	{ "RxList batches leave each core one", rxlist_batches_leave_one, SIM | EMU },
	{ "a Bx holds its Ax", bx_holds_its_ax, SIM | EMU },
	{ "spool queues fit", spool_queues_fit, SIM | EMU },
	{ "spool low below high", spool_low_below_high, SIM | EMU },
	{ "native runs are privRing", native_is_privring, EMU },
	{ "basic queues fit the ports", basic_queues_fit_ports, SIM | EMU },
	{ "dynamic shRing needs the generator", dyn_needs_generator, EMU },
	{ "the cache fits the pool", cache_fits_pool, SIM | EMU },
	{ "the pool primes the rings", pool_primes_rings, SIM },
	{ "the emulator model has the design", emulated_models_design, SIM },
	{ "KV requests have a source", kvs_has_requests, EMU },
	{ "warm-up ends before the run", warmup_before_end, SIM | EMU },
	{ "LLC sampling leaves sets", llc_sampling_leaves_sets, SIM },
	{ "flow tables hold the flows", flow_tables_hold_flows, SIM },
	{ "samples fit", samples_fit, SIM },
	{ "controller samples fit", dyn_samples_fit, SIM },
	{ "ticks leave the core time", ticks_leave_time, SIM },
};

unsigned rxb_scn_n_rules(void)
{
	return sizeof(rules) / sizeof(rules[0]);
}

const char *rxb_scn_rule_name(unsigned i)
{
	return i < rxb_scn_n_rules() ? rules[i].name : NULL;
}

int rxb_scn_check(const struct rxb_scn *s, const struct rxb_scn_machine *m, enum rxb_engine e,
		  struct rxb_err *err)
{
	static const struct rxb_scn_machine unknown = { "?", 0, 0, 0, 0, 0, 0 };
	struct rules_ctx x = {
		.s = s,
		.m = m != NULL ? m : &unknown,
		.e = e,
		.min_cpn = rxb_scn_fewest_cores(s),
	};

	for (unsigned i = 0; i < rxb_scn_n_rules(); i++) {
		if (!(rules[i].engines & RXB_ENGINE_BIT(e)))
			continue;
		if (rules[i].fn(&x, err) != 0)
			return -EINVAL;
	}
	return 0;
}
