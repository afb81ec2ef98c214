/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The devargs of net_rxbisect: one table names each, says what it sets,
 * what it accepts and which designs read it. The design's parameters are
 * scenario keys: their values are checked by the scenario library
 * (scenario/, the same ranges and names as `rxb sim` and `rxb-emu`), and an
 * error names the devarg. A devarg given twice is refused (which one would
 * hold is not obvious from the line); one the chosen design does not read
 * is warned about, as `rxb` does, and kept (a devargs line is often reused
 * across designs).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_kvargs.h>

#include "pmd.h"

struct pmd_arg {
	const char *name;
	const char *key;  /* the scenario key it sets, or NULL: parsed here */
	const char *help; /* for those parsed here: what is allowed */
};

/* Which designs read a keyed devarg is the vocabulary's (archs of its key,
 * rxb_scn_no_effect), not this table's. */
static const struct pmd_arg pmd_args[] = {
	{ "port", NULL,
	  "the underlying ethdev's name (net_null0, net_ring0, net_pcap0, a PCI "
	  "address ...); net_null<N> and net_ring<N> are created if absent" },
	{ "iface", "arch.name", NULL },
	{ "rx", "arch.rx_size", NULL },
	{ "cr", "arch.cr_size", NULL },
	{ "ax", "arch.ax_size", NULL },
	{ "bx", "arch.bx_size", NULL },
	{ "share", "arch.share_degree", NULL },
	{ "assoc", "arch.association", NULL },
	{ "groups", "arch.groups", NULL },
	{ "ax_policy", "arch.ax_policy", NULL },
	{ "coalesce", "arch.coalesce", NULL },
	{ "coalesce_ns", "arch.coalesce_timeout_ns", NULL },
	{ "dyn_sample_ms", "arch.dyn_sample_ms", NULL },
	{ "rss_key", NULL, "40 bytes as 80 hex digits" },
	{ "reta", NULL, "the RETA size, a power of two from 64 to 4096" },
	{ "flows", NULL, "0 to 1048576: UDP flows a net_null wire carries, in turn" },
	{ "nic_cpu", NULL,
	  "a CPU id: run the NIC on a thread of its own pinned there, "
	  "instead of as a service" },
	{ "nic_threads", NULL,
	  "1 to 8: NIC threads (services) sharing the port, each with wire "
	  "queues and Rx queues of its own" },
	{ "fault_stall", NULL,
	  "Q@MS or Q@MS+MS: Rx queue Q receives nothing from MS ms "
	  "after start (for MS ms), as if its lcore stopped polling" },
	{ "fault_link_down", NULL,
	  "MS or MS+MS: the wire is set down MS ms after start "
	  "(and up again after MS ms)" },
};
#define PMD_N_ARGS (sizeof(pmd_args) / sizeof(pmd_args[0]))
_Static_assert(PMD_N_ARGS <= 32, "pmd_cfg.given has a bit per devarg");

struct parse_ctx {
	const char *devname;
	struct pmd_cfg *cfg;
	struct rxb_err *err;
	const struct rte_kvargs *kv;
	int rc;
};

static int fail(struct parse_ctx *x, const char *arg, const char *val, const char *why,
		const char *allowed)
{
	rxb_err_set(x->err, "%s: devarg %s=%s: %s; allowed: %s", x->devname, arg, val, why,
		    allowed);
	x->rc = -EINVAL;
	return -EINVAL;
}

static const struct pmd_arg *find_arg(const char *name)
{
	for (size_t i = 0; i < PMD_N_ARGS; i++)
		if (strcmp(pmd_args[i].name, name) == 0)
			return &pmd_args[i];
	return NULL;
}

static uint32_t arg_bit(const struct pmd_arg *a)
{
	return 1u << (a - pmd_args);
}

bool pmd_arg_given(const struct pmd_cfg *cfg, const char *name)
{
	const struct pmd_arg *a = find_arg(name);

	return a != NULL && (cfg->given & arg_bit(a)) != 0;
}

static bool parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	/* decimal only: base 0 would read "0200" as octal 128 */
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v > max)
		return false;
	*out = v;
	return true;
}

/* A finite number of milliseconds at s, *end past it (NaN, infinity and
 * overflow are none: a fault at such a time would never happen). */
static bool parse_ms(const char *s, double *ms, char **end)
{
	errno = 0;
	*ms = strtod(s, end);
	return *end != s && errno == 0 && isfinite(*ms);
}

/* "MS" or "MS+MS": non-negative milliseconds, the second part optional
 * (a negative *len = for ever). */
static bool parse_window(const char *s, double *at, double *len)
{
	char *end;

	if (!parse_ms(s, at, &end) || *at < 0)
		return false;
	*len = -1;
	if (*end == '+' && (!parse_ms(end + 1, len, &end) || *len <= 0))
		return false;
	return *end == '\0';
}

static int parse_hex_key(const char *s, uint8_t *key)
{
	if (strlen(s) != 2 * RXB_RSS_KEY_LEN)
		return -1;
	for (unsigned i = 0; i < RXB_RSS_KEY_LEN; i++) {
		char byte[3] = { s[2 * i], s[2 * i + 1], 0 };

		/* (strtoul alone would take a sign or a blank in a pair) */
		if (!isxdigit((unsigned char)byte[0]) || !isxdigit((unsigned char)byte[1]))
			return -1;
		key[i] = (uint8_t)strtoul(byte, NULL, 16);
	}
	return 0;
}

/* A CPU this machine has: pinning to any other would fail at start, and
 * the NIC would run unpinned. */
static int set_nic_cpu(struct parse_ctx *x, const struct pmd_arg *a, const char *v)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	uint64_t max = n > 0 ? (uint64_t)RTE_MIN(n, CPU_SETSIZE) - 1 : CPU_SETSIZE - 1;
	uint64_t u;
	char allowed[192];

	if (!parse_u64(v, max, &u)) {
		snprintf(allowed, sizeof(allowed), "%s; this machine's CPUs are 0 to %" PRIu64,
			 a->help, max);
		return fail(x, a->name, v, "not a CPU of this machine", allowed);
	}
	x->cfg->nic_cpu = (int)u;
	return 0;
}

static int set_own(struct parse_ctx *x, const struct pmd_arg *a, const char *v)
{
	struct pmd_cfg *c = x->cfg;
	uint64_t u;

	if (strcmp(a->name, "port") == 0) {
		if (*v == '\0' || strlen(v) >= sizeof(c->port))
			return fail(x, a->name, v, "empty or too long", a->help);
		snprintf(c->port, sizeof(c->port), "%s", v);
	} else if (strcmp(a->name, "rss_key") == 0) {
		if (parse_hex_key(v, c->rss_key) != 0)
			return fail(x, a->name, v, "not 80 hex digits", a->help);
	} else if (strcmp(a->name, "reta") == 0) {
		if (!parse_u64(v, RXB_RETA_MAX, &u) || u < RXB_RETA_MIN || (u & (u - 1)) != 0)
			return fail(x, a->name, v, "not a RETA size", a->help);
		c->reta_size = (uint32_t)u;
	} else if (strcmp(a->name, "flows") == 0) {
		if (!parse_u64(v, 1u << 20, &u))
			return fail(x, a->name, v, "not a flow count", a->help);
		c->flows = (uint32_t)u;
	} else if (strcmp(a->name, "nic_cpu") == 0) {
		return set_nic_cpu(x, a, v);
	} else if (strcmp(a->name, "nic_threads") == 0) {
		if (!parse_u64(v, PMD_MAX_NICS, &u) || u == 0)
			return fail(x, a->name, v, "not a thread count", a->help);
		c->nic_threads = (uint16_t)u;
	} else if (strcmp(a->name, "fault_stall") == 0) {
		const char *at = strchr(v, '@');
		char q[16];

		if (at == NULL || (size_t)(at - v) >= sizeof(q))
			return fail(x, a->name, v, "no queue before '@'", a->help);
		memcpy(q, v, (size_t)(at - v));
		q[at - v] = '\0';
		if (!parse_u64(q, PMD_MAX_QUEUES - 1, &u) ||
		    !parse_window(at + 1, &c->stall_at_ms, &c->stall_for_ms))
			return fail(x, a->name, v, "not Q@MS[+MS]", a->help);
		c->stall_queue = (int)u;
	} else if (!parse_window(v, &c->link_down_at_ms, &c->link_down_for_ms)) {
		return fail(x, a->name, v, "not MS[+MS]", a->help);
	}
	return 0;
}

static int fail_repeated(struct parse_ctx *x, const struct pmd_arg *a, const char *v)
{
	const char *first = rte_kvargs_get(x->kv, a->name); /* the first occurrence */
	char why[160];

	snprintf(why, sizeof(why), "given twice (%s=%s came first)", a->name,
		 first != NULL ? first : "");
	return fail(x, a->name, v, why, "each devarg at most once");
}

static int one_arg(const char *name, const char *value, void *opaque)
{
	struct parse_ctx *x = opaque;
	const struct pmd_arg *a = find_arg(name);
	const char *v = value != NULL ? value : "";
	struct rxb_err e = { 0 };

	if (x->rc != 0)
		return x->rc; /* report the first error only */
	if (a != NULL && (x->cfg->given & arg_bit(a)) != 0)
		return fail_repeated(x, a, v);
	if (a != NULL)
		x->cfg->given |= arg_bit(a);
	if (a == NULL) {
		char allowed[512];
		size_t k = 0;

		for (size_t i = 0; i < PMD_N_ARGS && k < sizeof(allowed); i++)
			k += (size_t)snprintf(allowed + k, sizeof(allowed) - k, "%s%s",
					      i ? ", " : "", pmd_args[i].name);
		return fail(x, name, v, "unknown devarg", allowed);
	}
	if (a->key == NULL)
		return set_own(x, a, v);
	/* The PMD honours every key it maps, including those the emulator
	 * does not (rc 1: arch.ax_policy, the NIC picks the Ax here). */
	if (rxb_scn_set_text(&x->cfg->scn, RXB_ENGINE_EMU, a->key, v, &e) < 0) {
		rxb_err_set(x->err, "%s: devarg %s=%s: %s", x->devname, a->name, v, e.msg);
		x->rc = -EINVAL;
	}
	return x->rc;
}

static void defaults(struct pmd_cfg *c)
{
	memset(c, 0, sizeof(*c));
	rxb_scn_defaults(&c->scn, RXB_ENGINE_EMU);
	c->scn.arch.name = RXB_ARCH_RXBISECT;
	memcpy(c->rss_key, rxb_rss_default_key, RXB_RSS_KEY_LEN);
	c->reta_size = RXB_RETA_DEFAULT_SIZE;
	c->flows = 1024;
	c->nic_cpu = -1;
	c->nic_threads = 1;
	c->stall_queue = -1;
	c->link_down_at_ms = -1;
}

/* A devarg whose scenario key the chosen design does not read: the
 * scenario library's one warning (rxb_scn_no_effect), as rxb and rxb-emu
 * give it, e.g. "arch.ax_size has no effect for arch privring (it applies
 * to rxbisect)". */
static void warn_other_design(const struct parse_ctx *x, const struct pmd_arg *a)
{
	const struct rxb_scn_key *k = rxb_scn_key_find(a->key);
	/* The driver honours every key it maps, some the emulator does not
	 * (arch.ax_policy): for those it reads as the simulator does. */
	enum rxb_engine as = rxb_scn_honours(k, RXB_ENGINE_EMU) ? RXB_ENGINE_EMU : RXB_ENGINE_SIM;
	char why[256];
	const char *said = rxb_scn_no_effect(&x->cfg->scn, as, k, why, sizeof(why));

	if (said != NULL)
		PMD_LOG(WARNING, "%s: devarg %s=%s: %s", x->devname, a->name,
			rte_kvargs_get(x->kv, a->name), said);
}

/* Devargs that another devarg switches off. */
static void warn_switched_off(const struct parse_ctx *x)
{
	const struct rxb_scn_arch *a = &x->cfg->scn.arch;

	if (a->name != RXB_ARCH_RXBISECT)
		return; /* warn_other_design said it */
	if (pmd_arg_given(x->cfg, "groups") && a->association != RXB_ASSOC_GROUPS)
		PMD_LOG(WARNING,
			"%s: devarg groups=%s: arch.groups has no effect unless "
			"assoc=groups",
			x->devname, rte_kvargs_get(x->kv, "groups"));
	if (pmd_arg_given(x->cfg, "coalesce_ns") && !a->coalesce)
		PMD_LOG(WARNING,
			"%s: devarg coalesce_ns=%s: arch.coalesce_timeout_ns has no "
			"effect unless coalesce=true",
			x->devname, rte_kvargs_get(x->kv, "coalesce_ns"));
}

static void warn_no_effect(const struct parse_ctx *x)
{
	for (size_t i = 0; i < PMD_N_ARGS; i++)
		if ((x->cfg->given & arg_bit(&pmd_args[i])) != 0 && pmd_args[i].key != NULL)
			warn_other_design(x, &pmd_args[i]);
	warn_switched_off(x);
}

int pmd_args_parse(const char *devname, const char *params, struct pmd_cfg *cfg,
		   struct rxb_err *err)
{
	struct parse_ctx x = { devname, cfg, err, NULL, 0 };
	struct rte_kvargs *kv;

	defaults(cfg);
	kv = rte_kvargs_parse(params != NULL ? params : "", NULL);
	if (kv == NULL) {
		rxb_err_set(err, "%s: devargs '%s': not a list of key=value", devname,
			    params ? params : "");
		return -EINVAL;
	}
	x.kv = kv;
	rte_kvargs_process(kv, NULL, one_arg, &x);
	if (x.rc == 0 && cfg->scn.arch.name != RXB_ARCH_SPOOL)
		warn_no_effect(&x);
	rte_kvargs_free(kv);
	if (x.rc == 0 && cfg->port[0] == '\0')
		return fail(&x, "port", "", "missing: the underlying port must be named",
			    pmd_args[0].help);
	if (x.rc == 0 && cfg->scn.arch.name == RXB_ARCH_SPOOL)
		return fail(&x, "iface", "spool", "representor ports are not ethdev Rx queues",
			    "privring, small_privring, shring, shring_list, dyn_shring, rxbisect");
	if (x.rc == 0 && cfg->nic_cpu >= 0 && cfg->nic_threads > 1) {
		char v[8];

		snprintf(v, sizeof(v), "%u", cfg->nic_threads);
		return fail(&x, "nic_threads", v, "nic_cpu pins a single NIC thread",
			    "1 with nic_cpu; without it, 1 to 8 services on the EAL's service "
			    "lcores (-S)");
	}
	return x.rc;
}
