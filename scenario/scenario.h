/* SPDX-License-Identifier: BSD-3-Clause
 *
 * scenario.h — the scenario vocabulary as the C engines read it.
 *
 * Every key is defined once, in scenario/tables/scenario_keys.toml; the build
 * generates scenario_gen.h (struct rxb_scn, the scenario's own enums) and the
 * key table rxb_scn_keys[] from it (scripts/gen_scenario.py). This library is
 * the one place the simulator, the emulator, the driver and (through
 * librxb_scenario.so) the Python front end check a value against that table,
 * check the rules across keys (scn_rules.c), fill in defaults, resolve "auto"
 * and map a scenario onto the ring library's rxb_iface_config.
 * docs/scenario-keys.md tells the whole story.
 *
 * Errors have one shape, the front end's: "key = value: why; allowed: what".
 */
#ifndef RXB_SCENARIO_H
#define RXB_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "rxb/common.h"
#include "rxb/iface.h"

/* The engines a key may be honoured by. */
enum rxb_engine { RXB_ENGINE_SIM = 0, RXB_ENGINE_EMU, RXB_ENGINES };
#define RXB_ENGINE_BIT(e) (1u << (e))
extern const char *const rxb_engine_name[RXB_ENGINES];

enum rxb_scn_kind {
	RXB_SCN_BOOL,
	RXB_SCN_U32,
	RXB_SCN_U64,
	RXB_SCN_F64,
	RXB_SCN_STR,
	RXB_SCN_ENUM, /* stored as unsigned: the index in `names` */
	RXB_SCN_LIST, /* struct rxb_scn_list of unsigned integers */
};

/* What one engine accepts for a key, and its default there. */
struct rxb_scn_limits {
	double lo, hi;     /* numbers and list elements; +-HUGE_VAL = none */
	const char *dflt;  /* the default, in --set syntax */
	const char *why;   /* why this engine differs from the key ("" = it does not) */
	unsigned archs;    /* bit (1 << enum rxb_arch) of each design the key affects */
	unsigned patterns; /* bit (1 << enum rxb_pattern) of each pattern it affects */
	unsigned sources;  /* bit (1 << enum rxb_emu_source) of each emu.source it affects */
	unsigned nfs;      /* bit (1 << enum rxb_nf_kind) of each workload.nf it affects */
};

struct rxb_scn_key {
	const char *full, *section, *name;
	enum rxb_scn_kind kind;
	size_t offset;            /* of the value in struct rxb_scn */
	size_t size;              /* string capacity; list: most elements */
	const char *const *names; /* enum: the names the parser accepts */
	unsigned n_names;
	const char *const *listed; /* enum: the names scenario_keys.toml lists */
	bool auto_ok, lo_open, pow2, path;
	unsigned engines; /* RXB_ENGINE_BIT()s that honour the key */
	struct rxb_scn_limits lim[RXB_ENGINES];
	const char *unit, *doc, *auto_doc;
};

#include "scenario_gen.h"

/* One result metric (result_metrics.toml, generated): an object's fields
 * follow it as "object.field" entries. kind: count, number, fraction, bool,
 * object or counts. */
struct rxb_metric {
	const char *name, *kind;
	bool null;     /* null allowed */
	bool required; /* every run of every engine writes it */
	bool record;   /* every stored record keeps it */
};
extern const unsigned rxb_n_metrics; /* RXB_N_METRICS, for bindings */
extern const struct rxb_metric rxb_metrics[RXB_N_METRICS];

/* One key of the hardware profile (profile_keys.toml, generated); type: int,
 * float, bool or string. */
struct rxb_profile_key {
	const char *section, *name, *type;
	double lo, hi; /* numbers; +-HUGE_VAL = none */
	bool lo_open, pow2;
	const char *unit;
};
extern const unsigned rxb_n_profile_keys; /* RXB_N_PROFILE_KEYS, for bindings */
extern const struct rxb_profile_key rxb_profile_keys[RXB_N_PROFILE_KEYS];
/* 0 when number x is a value profile key k (int or float) allows, else
 * -EINVAL with "profile.pcie.mrrs_bytes = 0: out of range; allowed: ...". */
int rxb_profile_check(const struct rxb_profile_key *k, double x, struct rxb_err *err);

extern const struct rxb_scn_key rxb_scn_keys[RXB_SCN_N_KEYS];

/* A value as read from a file or a command line, before it is checked. */
enum rxb_scn_val_type { RXB_VAL_BOOL, RXB_VAL_INT, RXB_VAL_NUM, RXB_VAL_STR, RXB_VAL_LIST };

struct rxb_scn_val {
	enum rxb_scn_val_type type;
	bool b;
	bool negative;        /* RXB_VAL_INT below zero (always out of range) */
	uint64_t u;           /* RXB_VAL_INT magnitude */
	double f;             /* RXB_VAL_NUM */
	const char *s;        /* RXB_VAL_STR */
	const uint64_t *list; /* RXB_VAL_LIST */
	size_t n;
	const char *as_text; /* the value as the user wrote it, for messages */
};

/* The key named "section.name", or NULL. */
const struct rxb_scn_key *rxb_scn_key_find(const char *full);
bool rxb_scn_honours(const struct rxb_scn_key *k, enum rxb_engine e);

/* Whether key k, given explicitly, changes anything in scenario s (its
 * arch.name and traffic.pattern chosen) on engine e: NULL when it does, else
 * buf holding the one warning both front ends print, e.g. "arch.ax_size has
 * no effect for arch privring (it applies to rxbisect)" (the same text as
 * python/rxbisect/scenario.py no_effect). */
const char *rxb_scn_no_effect(const struct rxb_scn *s, enum rxb_engine e,
			      const struct rxb_scn_key *k, char *buf, size_t cap);

/* Check v against k's type and engine e's limits and store it. 0, or
 * -EINVAL with "key = value: why; allowed: what" in err. */
int rxb_scn_set(struct rxb_scn *s, enum rxb_engine e, const struct rxb_scn_key *k,
		const struct rxb_scn_val *v, struct rxb_err *err);

/* Parse `text` in --set syntax for key `full` (true/false, integers, numbers,
 * names, "[1,2]", "auto") and store it. 0; 1 when the key exists but engine e
 * does not honour it (stored; the caller warns); -EINVAL with a message
 * (unknown key, bad value). */
int rxb_scn_set_text(struct rxb_scn *s, enum rxb_engine e, const char *full, const char *text,
		     struct rxb_err *err);

/* Every key at engine e's default. */
void rxb_scn_defaults(struct rxb_scn *s, enum rxb_engine e);

/* "an integer from 1 to 64 (packets)": what engine e accepts for k. */
void rxb_scn_allowed(const struct rxb_scn_key *k, enum rxb_engine e, char *buf, size_t cap);

/* Replace every "auto" of the arch section by its value (the rules of the
 * table's `auto` texts, the same as python/rxbisect/scenario.py resolve()):
 * rx_size, cr_size, share_degree, buffer_bytes, association (an emulated run
 * with emu.nic_lcores > 1 or emu.gen_lcores > 1 gets shared rings and
 * association sets of its own for each of those lcores, within NIC ports
 * for generator lcores; otherwise all). pool_buffers, ddio_ways and
 * mlp depend on the engine's machine and stay RXB_SCN_AUTO for it to fill.
 * `min_cores_per_nic` is the fewest cores any NIC has: the cap of the share
 * degree's "auto" (rxb_share_degree_up_to over the NICs' core counts). */
void rxb_scn_resolve_arch(struct rxb_scn *s, uint32_t min_cores_per_nic);

/* The one mapping from a scenario to the ring library's configuration, for
 * both engines: `desc_prefetch` is the NIC's (0 = the library's default) and
 * `ticks_per_ns` the caller's time unit (simulated ps: 1000; TSC: GHz). */
void rxb_scn_iface_config(const struct rxb_scn *s, uint32_t desc_prefetch, double ticks_per_ns,
			  struct rxb_iface_config *ic);

/* What the rules need to know of the machine a scenario runs on (the
 * hardware profile). A field left 0 is unknown and the rules about it are
 * skipped; a NULL machine skips them all (an engine checks its own). */
struct rxb_scn_machine {
	const char *name;          /* the profile, for messages */
	uint32_t cores_per_socket; /* applications run on one socket */
	uint32_t nics;
	uint32_t llc_ways;
	double link_gbps; /* per NIC */
	double llc_mib;   /* LLC capacity per socket */
	uint32_t llc_line_bytes;
};

/* Sets per group of the simulator's LLC set sampling (run.llc_sample_shift
 * keeps 1 in 2^shift groups): sim/models/llc.h SIM_LLC_CHUNK_LINES, which a
 * static assertion in sim/engine/engine.c holds equal. */
#define RXB_SCN_LLC_GROUP_SETS 32u

/* Every rule that involves several keys (scn_rules.c: one function each, one
 * message each) that binds engine e, in a fixed order: 0, or -EINVAL with the
 * first broken rule's "key = value: why; allowed: what". Expects the arch
 * section resolved (rxb_scn_resolve_arch) and system.cores_per_nic filled. */
int rxb_scn_check(const struct rxb_scn *s, const struct rxb_scn_machine *m, enum rxb_engine e,
		  struct rxb_err *err);
unsigned rxb_scn_n_rules(void);
const char *rxb_scn_rule_name(unsigned i); /* NULL past the last */

/* An empty system.cores_per_nic split evenly over the NICs (the first NICs
 * take one more core each when the cores do not divide); a given list stays. */
void rxb_scn_split_cores(struct rxb_scn_system *sy);

/* The front end's whole resolution for engine e: an empty
 * system.cores_per_nic split evenly, every "auto" of the arch section
 * resolved (pool_buffers included: rxb_scn_pool_auto), then rxb_scn_check.
 * 0 or -EINVAL with its message. ddio_ways and mlp stay the machine's. */
int rxb_scn_resolve(struct rxb_scn *s, const struct rxb_scn_machine *m, enum rxb_engine e,
		    struct rxb_err *err);

/* arch.pool_buffers "auto" of a resolved arch section: every ring full at
 * once plus each core's allocator cache at its flush threshold (2x) and its
 * transmit ring. */
uint64_t rxb_scn_pool_auto(const struct rxb_scn *s);

/* Does NF kind `nf` keep state per flow (a table entry a flow: lb, nat)?
 * Both engines ask. */
bool rxb_nf_keeps_flows(enum rxb_nf_kind nf);

/* Does the generator offer the study's address ranges (traffic.gen_src_addrs
 * / gen_dst_addrs) rather than drawn flows? flow_model generator or random
 * says so; auto: for the flow-state NFs (lb, nat) under a plain arrival
 * process (constant, poisson, onoff) with no load change. Both engines ask. */
bool rxb_scn_generator_ranges(const struct rxb_scn *s);

/* The fewest cores any NIC of s has (system.cores_per_nic resolved). */
uint32_t rxb_scn_fewest_cores(const struct rxb_scn *s);

/* Entries of each core's flow table (lb, nat): workload.flow_capacity over
 * the fewest cores a NIC has, so every core's table is the same size,
 * rounded up to a power of two of at least a bucket (RXB_SCN_FLOW_BUCKET
 * entries), as rte_hash_create sizes it. */
#define RXB_SCN_FLOW_BUCKET 8u
uint64_t rxb_scn_flow_table_entries(const struct rxb_scn *s);
/* The entries a table sized for `keys` keys gets: the power of two at or
 * above it, at least a bucket. */
uint64_t rxb_scn_flow_table_for(uint64_t keys);

/* The flows one NIC's traffic holds: the generator's ranges, incremented
 * together, repeat after lcm(gen_src_addrs, gen_dst_addrs) packets; drawn
 * flows are traffic.flows; a trace's are unknown here (0). */
uint64_t rxb_scn_flows_per_nic(const struct rxb_scn *s);

/* The shape of the interface s builds (rxb_iface_shape over
 * rxb_scn_iface_config): 0, or -EINVAL with the library's message. */
struct rxb_iface_shape;
int rxb_scn_shape(const struct rxb_scn *s, struct rxb_iface_shape *shape, struct rxb_err *err);

/* Key `full`'s value in --set syntax ("auto", "true", "[1, 2]", a name, a
 * number) into buf: 0, or -EINVAL for an unknown key. */
int rxb_scn_get_text(const struct rxb_scn *s, const char *full, char *buf, size_t cap);
/* A number as a user writes it: no fraction for integers, else the shortest
 * text that reads back as v. */
void rxb_scn_num_text(double v, char *buf, size_t cap);
/* sizeof(struct rxb_scn), for bindings that hold one as opaque memory. */
size_t rxb_scn_size(void);

/* Association sets rxBisect is built with (1 = all-to-all). */
uint32_t rxb_scn_assoc_groups(const struct rxb_scn *s);

bool rxb_scn_list_has(const struct rxb_scn_list *l, uint32_t v);
/* "[1, 2]": the list as messages show it (and --set reads it). Returns buf. */
const char *rxb_scn_list_text(const struct rxb_scn_list *l, char *buf, size_t cap);

/* Exit codes of both engines (docs/engine-contract.md §5), from the negative
 * errno a run failed with: what the front end tells the user. */
#define RXB_EXIT_FAILED   1 /* anything else: a bug, an I/O error */
#define RXB_EXIT_REJECTED 2 /* the configuration, or a file it names */
#define RXB_EXIT_NOMEM    3 /* valid, but this machine has not the memory */
int rxb_engine_exit_code(int rc);

/* Every key for engine e, with its default and allowed values (--help). */
void rxb_scn_print_keys(FILE *f, enum rxb_engine e);
/* The compiled table as one JSON object (--keys; the drift test reads it). */
void rxb_scn_dump_json(FILE *f);

#endif /* RXB_SCENARIO_H */
