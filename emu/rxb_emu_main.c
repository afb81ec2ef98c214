/* SPDX-License-Identifier: BSD-3-Clause
 *
 * rxb-emu — the emulator's front door.
 *
 *   rxb-emu [--set key=value]... [--eal "EAL options"] [--bench [--bench-ms N]]
 *           [--quiet-keys]
 *
 * Prints one JSON result record on stdout (docs/emulator.md), progress and
 * messages on stderr ("warning: ...", "error: ..."). Exit status: 0 success,
 * 2 rejected configuration (one line naming the key and what is allowed),
 * 1 any other failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "emu.h"
#include "hugepages.h"
#include "rundir.h"

void emu_telemetry_register(void);

#define MAX_EAL_ARGS 128
#define MAX_SET_KEYS 256

static void usage(FILE *f)
{
	fprintf(f, "usage: rxb-emu [--set key=value]... [--eal \"EAL options\"] [--bench "
		   "[--bench-ms N]]\n"
		   "               [--quiet-keys]\n"
		   "       rxb-emu --help | --keys\n\n"
		   "Runs the DPDK software NIC of rxbisect and prints one JSON result record.\n"
		   "Without --eal it picks options that run here: 4 KiB pages unless 1 GiB of\n"
		   "hugepages is free, no PCI, virtual devices, and --lcores mapping the lcores\n"
		   "it needs onto the CPUs it may use. With --eal, missing --lcores /\n"
		   "--file-prefix are added.\n"
		   "A key set with --set that changes nothing for the chosen design and traffic\n"
		   "pattern gets a one-line warning; --quiet-keys leaves that to a caller that\n"
		   "warned already (rxb emu).\n\n"
		   "Keys (--set):\n");
	rxb_emu_cfg_print_keys(f);
}

static int fail_cfg(const char *msg)
{
	fprintf(stderr, "error: %s\n", msg);
	return RXB_EXIT_REJECTED;
}

/* Split a string on blanks (no quoting: EAL options have none). */
static int split_args(char *s, char **argv, int max)
{
	int n = 0;

	for (char *tok = strtok(s, " \t"); tok != NULL && n < max; tok = strtok(NULL, " \t"))
		argv[n++] = tok;
	return n;
}

static bool has_opt(char **argv, int argc, const char *const *names)
{
	for (int i = 0; i < argc; i++)
		for (int k = 0; names[k] != NULL; k++) {
			size_t l = strlen(names[k]);

			if (strncmp(argv[i], names[k], l) == 0 &&
			    (argv[i][l] == '\0' || argv[i][l] == '='))
				return true;
		}
	return false;
}

/* lcore 0 = main, 1..cores = workers, then the n_nic NIC lcores from
 * nic_first, then the generator. The NIC lcores get the last CPUs, one each,
 * when that leaves at least one CPU for the rest; everything else goes
 * round-robin over the other CPUs (all of them when the NIC lcores cannot
 * have their own). Read from the CPUs this process may use, so the same
 * command maps a 2-CPU laptop and a 64-CPU server. */
static void lcore_map(char *out, size_t cap, unsigned lcores, unsigned nic_first, unsigned n_nic)
{
	cpu_set_t set;
	int cpus[CPU_SETSIZE], n = 0, shared;
	bool own;
	size_t off = 0;

	if (sched_getaffinity(0, sizeof(set), &set) == 0) {
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set))
				cpus[n++] = c;
	}
	if (n == 0)
		cpus[n++] = 0;
	own = n_nic != 0 && n > (int)n_nic;
	shared = own ? n - (int)n_nic : n;
	off += (size_t)snprintf(out + off, cap - off, "--lcores=");
	for (unsigned l = 0, k = 0; l < lcores && off < cap; l++) {
		bool nic = l >= nic_first && l < nic_first + n_nic;
		int cpu = own && nic ? cpus[shared + (int)(l - nic_first)]
				     : cpus[k++ % (unsigned)shared];

		off += (size_t)snprintf(out + off, cap - off, "%s%u@%d", l ? "," : "", l, cpu);
	}
	if ((int)lcores > n)
		fprintf(stderr,
			"warning: %u lcores on %d CPUs: threads share CPUs (busy-polling "
			"threads time-slice), so counts and correctness hold but rates and "
			"latencies are not meaningful\n",
			lcores, n);
}

/* The one-line warning of rxb_scn_no_effect() for each key the user set
 * that changes nothing for the chosen design and pattern, once per key. */
static void warn_no_effect(const struct rxb_emu_cfg *cfg, const char *const *keys, unsigned n)
{
	char buf[512];

	for (unsigned i = 0; i < n; i++) {
		const struct rxb_scn_key *k = rxb_scn_key_find(keys[i]);
		bool seen = false;

		for (unsigned j = 0; j < i; j++)
			seen = seen || strcmp(keys[j], keys[i]) == 0;
		if (!seen && k != NULL &&
		    rxb_scn_no_effect(&cfg->scn, RXB_ENGINE_EMU, k, buf, sizeof(buf)) != NULL)
			fprintf(stderr, "warning: %s\n", buf);
	}
}

/* What the command line asked for, and the EAL argument vector built from
 * it. Static in main(): the buffers are large and eal_argv points into them
 * until rte_eal_cleanup(). */
struct cli {
	bool bench, user_eal, cores_set, warn_keys;
	double bench_ms;
	char eal_buf[4096], lcores[1024], prefix[64];
	char set_keys[MAX_SET_KEYS][128];
	const char *given[MAX_SET_KEYS];
	unsigned n_given;
	char *eal_argv[MAX_EAL_ARGS + 16];
	int eal_argc;
};

/* parse_args() result meaning "go on and run" (any other value is the exit status). */
#define CLI_RUN      (-1)
/* parse_flag() result for an argument that is not one of its flags. */
#define CLI_NOT_FLAG (-2)

/* One --set key=value. A key that is not the emulator's is warned about at
 * once; the others wait until the whole configuration (the design) is known. */
static int parse_set(struct cli *o, struct rxb_emu_cfg *cfg, const char *kv)
{
	struct rxb_err err = { 0 };
	char key[128];
	const char *eq = strchr(kv, '=');
	int rc;

	if (eq == NULL || eq == kv || (size_t)(eq - kv) >= sizeof(key)) {
		fprintf(stderr,
			"error: --set %s: expected key=value; allowed: the keys "
			"`rxb-emu --keys` lists, e.g. --set arch.name=rxbisect\n",
			kv);
		return RXB_EXIT_REJECTED;
	}
	memcpy(key, kv, (size_t)(eq - kv));
	key[eq - kv] = '\0';
	o->cores_set = o->cores_set || strcmp(key, "system.cores") == 0;
	rc = rxb_emu_cfg_set(cfg, key, eq + 1, &err);
	if (rc < 0)
		return fail_cfg(err.msg);
	if (rc == 1 && o->warn_keys)
		warn_no_effect(cfg, (const char *[]){ key }, 1);
	else if (o->n_given < MAX_SET_KEYS) {
		o->given[o->n_given] = strcpy(o->set_keys[o->n_given], key);
		o->n_given++;
	}
	return CLI_RUN;
}

/* --bench-ms: milliseconds each design dispatches, the whole argument a
 * number (no trailing text), in run.duration_ms's range (the run it sets). */
#define BENCH_MS_MAX 1e6

static int parse_bench_ms(struct cli *o, const char *s)
{
	char *end;

	errno = 0;
	o->bench_ms = strtod(s, &end);
	if (end == s || *end != '\0' || errno != 0 || !(o->bench_ms > 0) ||
	    o->bench_ms > BENCH_MS_MAX) {
		fprintf(stderr,
			"error: --bench-ms %s: must be a number of milliseconds; allowed: "
			"> 0 and <= %g\n",
			s, BENCH_MS_MAX);
		return RXB_EXIT_REJECTED;
	}
	return CLI_RUN;
}

/* The one --eal string, split into eal_argv, whose entries point into
 * eal_buf until rte_eal_cleanup(): a second --eal would overwrite the
 * first's text, so it is refused, as is one longer than the buffers. */
static int parse_eal(struct cli *o, const char *s)
{
	int n;

	if (o->user_eal)
		return fail_cfg("--eal is given twice; put every EAL option in one --eal \"...\"");
	if (strlen(s) >= sizeof(o->eal_buf)) {
		fprintf(stderr, "error: --eal: %zu characters; allowed: at most %zu\n", strlen(s),
			sizeof(o->eal_buf) - 1);
		return RXB_EXIT_REJECTED;
	}
	strcpy(o->eal_buf, s);
	n = split_args(o->eal_buf, o->eal_argv + o->eal_argc, MAX_EAL_ARGS + 1);
	if (n > MAX_EAL_ARGS) {
		fprintf(stderr, "error: --eal: more than %d options; allowed: at most %d\n",
			MAX_EAL_ARGS, MAX_EAL_ARGS);
		return RXB_EXIT_REJECTED;
	}
	o->eal_argc += n;
	o->user_eal = true;
	return CLI_RUN;
}

/* The options that take no value or a value of their own (not --set);
 * *i moves past a value. Returns CLI_RUN, an exit status, or CLI_NOT_FLAG. */
static int parse_flag(struct cli *o, int argc, char **argv, int *i)
{
	const char *a = argv[*i];

	if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(a, "--keys") == 0) {
		rxb_emu_cfg_print_keys(stdout);
		return 0;
	}
	if (strcmp(a, "--quiet-keys") == 0) {
		o->warn_keys = false;
	} else if (strcmp(a, "--bench") == 0) {
		o->bench = true;
	} else if (strcmp(a, "--bench-ms") == 0 && *i + 1 < argc) {
		return parse_bench_ms(o, argv[++*i]);
	} else if (strcmp(a, "--eal") == 0 && *i + 1 < argc) {
		return parse_eal(o, argv[++*i]);
	} else {
		return CLI_NOT_FLAG;
	}
	return CLI_RUN;
}

/* What follows an option that takes a value, or NULL for any other
 * argument: said when the value is missing (the option came last). */
static const char *needs_value(const char *a)
{
	if (strcmp(a, "--set") == 0)
		return "--set key=value";
	if (strcmp(a, "--eal") == 0)
		return "--eal \"EAL arguments\"";
	if (strcmp(a, "--bench-ms") == 0)
		return "--bench-ms N";
	return NULL;
}

/* Read the command line into o and cfg, then warn about the keys set that
 * change nothing for the design chosen. */
static int parse_args(struct cli *o, struct rxb_emu_cfg *cfg, int argc, char **argv)
{
	o->warn_keys = true;
	o->bench_ms = 300;
	o->eal_argv[o->eal_argc++] = argv[0];
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int rc = parse_flag(o, argc, argv, &i);

		if (rc == CLI_NOT_FLAG && strcmp(a, "--set") == 0 && i + 1 < argc)
			rc = parse_set(o, cfg, argv[++i]);
		else if (rc == CLI_NOT_FLAG && strncmp(a, "--set=", 6) == 0)
			rc = parse_set(o, cfg, a + 6);
		if (rc == CLI_NOT_FLAG && i + 1 == argc && needs_value(a)) {
			fprintf(stderr, "error: %s needs a value; allowed: %s\n", a,
				needs_value(a));
			return RXB_EXIT_REJECTED;
		}
		if (rc == CLI_NOT_FLAG) {
			fprintf(stderr,
				"error: unknown argument '%s'; allowed: --set key=value, "
				"--eal \"...\", --bench, --bench-ms N, --quiet-keys, --keys, "
				"--help\n",
				a);
			return RXB_EXIT_REJECTED;
		}
		if (rc != CLI_RUN)
			return rc;
	}
	if (o->warn_keys)
		warn_no_effect(cfg, o->given, o->n_given);
	return CLI_RUN;
}

/* --bench measures the emulator core alone: null source, software RSS,
 * sink workers. Each NIC lcore gets a CPU of its own; the sink workers share
 * the others (one each when there are enough), and are at least as many as
 * the NIC lcores, which each serve their own: "auto" then gives every NIC
 * lcore shared rings and association sets of its own (rxb_scn_resolve_arch). */
static void bench_defaults(struct rxb_emu_cfg *cfg, bool cores_set)
{
	if (!cores_set) {
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN), nic = cfg->scn.emu.nic_lcores;

		cfg->scn.system.cores = (uint32_t)RTE_MAX(nic, RTE_MIN(ncpu - nic, 8L));
	}
	cfg->scn.emu.source = RXB_EMU_SOURCE_NULL;
	cfg->scn.emu.rss = RXB_EMU_RSS_SW;
	cfg->scn.emu.sink = true;
}

/* Hugepages when 1 GiB of them is free (what a run's mempools and rings
 * take, as the -m of the 4 KiB case) and mounted where we may write, else
 * 4 KiB pages: without usable hugepages the EAL cannot start unless told
 * to use them. */
#define HUGE_MIN_MIB 1024

static void add_memory_opts(struct cli *o)
{
	struct rxb_huge_probe hp;

	rxb_huge_probe("/proc/meminfo", "/proc/mounts", &hp);
	if (hp.free_mib >= HUGE_MIN_MIB && hp.mounted) {
		/* Unlinked once mapped: the pages go back to the pool when we
		 * exit, however we exit (else each run leaves its files in
		 * hugetlbfs, holding pages no one can use). */
		o->eal_argv[o->eal_argc++] = "--huge-unlink";
		return;
	}
	if (!o->user_eal) {
		if (hp.free_mib >= HUGE_MIN_MIB)
			fprintf(stderr,
				"note: this machine's %ld MiB of free hugepages have no hugetlbfs "
				"mount of their size that this user can write (mount -t hugetlbfs "
				"nodev /dev/hugepages)",
				hp.free_mib);
		else
			fprintf(stderr, "note: this machine has less than 1 GiB of free hugepages");
		fprintf(stderr, ": running with --no-huge -m 2048 (4 KiB pages: more TLB misses "
				"than a tuned server; reserve hugepages for measurements)\n");
	}
	o->eal_argv[o->eal_argc++] = "--no-huge";
	o->eal_argv[o->eal_argc++] = "-m";
	o->eal_argv[o->eal_argc++] = "2048";
}

/* EAL options: what the user gave, plus what this machine needs. */
static void add_eal_defaults(struct cli *o, const struct rxb_emu_cfg *cfg)
{
	static const char *const lcore_opts[] = { "-l", "-c", "--lcores", NULL };
	static const char *const prefix_opts[] = { "--file-prefix", NULL };
	static const char *const mem_opts[] = { "-m",         "--socket-mem", "--no-huge",
						"--huge-dir", "--in-memory",  NULL };
	static const char *const pci_opts[] = { "-a", "--allow", "-b", "--block", "--no-pci", NULL };

	if (!has_opt(o->eal_argv, o->eal_argc, lcore_opts)) {
		unsigned need = 1 + rxb_emu_lcores_needed(cfg);

		lcore_map(o->lcores, sizeof(o->lcores), need, cfg->scn.system.cores + 1,
			  cfg->scn.arch.emulated ? cfg->scn.emu.nic_lcores : 0);
		o->eal_argv[o->eal_argc++] = o->lcores;
	}
	if (!has_opt(o->eal_argv, o->eal_argc, prefix_opts)) {
		snprintf(o->prefix, sizeof(o->prefix), "--file-prefix=rxb-emu-%d", (int)getpid());
		o->eal_argv[o->eal_argc++] = o->prefix;
	}
	if (!has_opt(o->eal_argv, o->eal_argc, mem_opts))
		add_memory_opts(o);
	if (!has_opt(o->eal_argv, o->eal_argc, pci_opts) &&
	    cfg->scn.emu.source != RXB_EMU_SOURCE_PORT)
		o->eal_argv[o->eal_argc++] = "--no-pci";
	if (!o->user_eal)
		o->eal_argv[o->eal_argc++] = "--log-level=*:warning";
	o->eal_argv[o->eal_argc] = NULL;
}

/* Start the EAL and say where to watch the run; the EAL options go into
 * the error so that a rejected --eal can be fixed. */
static int start_eal(struct cli *o, const struct rxb_emu_cfg *cfg)
{
	if (rte_eal_init(o->eal_argc, o->eal_argv) < 0) {
		fprintf(stderr,
			"error: rte_eal_init failed (%s); EAL options were:", strerror(rte_errno));
		for (int i = 1; i < o->eal_argc; i++)
			fprintf(stderr, " %s", o->eal_argv[i]);
		fprintf(stderr, "\n");
		return RXB_EXIT_FAILED;
	}
	emu_telemetry_register();
	if (cfg->scn.emu.telemetry && !o->bench) {
		const char *dir = rte_eal_get_runtime_dir(), *p = strrchr(dir, '/');

		fprintf(stderr, "telemetry: %s/dpdk_telemetry.v2 (dpdk-telemetry.py -f %s)\n", dir,
			p ? p + 1 : dir);
	}
	if (cfg->scn.emu.source == RXB_EMU_SOURCE_PORT && rte_eth_dev_count_avail() == 0)
		fprintf(stderr, "warning: no ethdev port was probed: this machine has no NIC DPDK "
				"can drive (or --eal lacks its PCI address)\n");
	return 0;
}

/* One run: the JSON record on stdout, failed conservation checks on stderr. */
static int run_and_print(struct rxb_emu_cfg *cfg, struct rxb_err *err)
{
	struct rxb_emu_result *res = calloc(1, sizeof(*res));
	int rc = res ? rxb_emu_run(cfg, res, err) : -ENOMEM;

	if (rc == 0) {
		rxb_emu_print_json(stdout, cfg, res);
		if (!res->packets_ok)
			fprintf(stderr, "warning: packet conservation failed: %s\n",
				res->packets_msg);
		if (!res->buffers_ok)
			fprintf(stderr, "warning: buffer conservation failed: %s\n",
				res->buffers_msg);
	}
	free(res);
	return rc;
}

int main(int argc, char **argv)
{
	static struct cli o;
	struct rxb_emu_cfg cfg, checked;
	struct rxb_err err = { 0 };
	int rc;

	rxb_emu_cfg_defaults(&cfg);
	rc = parse_args(&o, &cfg, argc, argv);
	if (rc != CLI_RUN)
		return rc;
	if (o.bench)
		bench_defaults(&cfg, o.cores_set);
	/* Checked as given; the benchmark hands each design the unresolved
	 * configuration, so each resolves its own "auto" sizes (small privRing
	 * its small rings) rather than those of arch.name's design. */
	checked = cfg;
	if (rxb_emu_cfg_check(&checked, &err) != 0)
		return fail_cfg(err.msg);
	add_eal_defaults(&o, &checked);
	rc = start_eal(&o, &checked);
	if (rc != 0)
		return rc;

	if (o.bench)
		rc = rxb_emu_bench(&cfg, o.bench_ms, stdout, &err);
	else
		rc = run_and_print(&checked, &err);
	if (rc != 0)
		fprintf(stderr, "error: %s\n", err.msg[0] ? err.msg : strerror(-rc));
	/* eal_argv no longer needs eal_buf: it keeps the directory to remove */
	snprintf(o.eal_buf, sizeof(o.eal_buf), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	if (o.prefix[0] != '\0') /* a prefix of our own: leave no directory behind */
		rxb_remove_run_dir(o.eal_buf);
	return rxb_engine_exit_code(rc);
}
