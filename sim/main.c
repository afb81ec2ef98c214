/* SPDX-License-Identifier: BSD-3-Clause
 *
 * rxb-sim --config FILE.json — the simulator engine behind `rxb sim`.
 * The whole contract (input keys, output object, progress lines, exit
 * codes) is docs/engine-contract.md; the mechanisms are docs/simulator.md.
 *
 * Exit status: 0 success (one JSON object on stdout); 2 the configuration
 * was rejected ("error: ..." on stderr); 1 any other failure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

static int usage(void)
{
	fprintf(stderr, "usage: rxb-sim --config FILE.json (docs/engine-contract.md)\n");
	return 2;
}

int main(int argc, char **argv)
{
	static struct sim_cfg cfg;
	static struct sim s;
	struct rxb_err err = { 0 };
	int rc;

	if (argc == 2 && strcmp(argv[1], "--keys") == 0) {
		rxb_scn_dump_json(stdout);
		return 0;
	}
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		fprintf(stdout, "usage: rxb-sim --config FILE.json | --keys\n"
				"Simulates the scenario in FILE.json (written by `rxb sim`, see "
				"docs/engine-contract.md) and prints one JSON result object; "
				"--keys prints the "
				"scenario key table it was built with.\n");
		return 0;
	}
	if (argc != 3 || strcmp(argv[1], "--config") != 0)
		return usage();
	rc = simcfg_load(&cfg, argv[2], &err);
	if (rc != 0) {
		fprintf(stderr, "error: %s\n", err.msg);
		return rxb_engine_exit_code(rc);
	}
	rc = sim_init(&s, &cfg, &err);
	if (rc == 0)
		rc = sim_run(&s, 1, &err);
	if (rc != 0) {
		fprintf(stderr, "error: %s\n", err.msg[0] ? err.msg : strerror(-rc));
		sim_free(&s);
		return rxb_engine_exit_code(rc);
	}
	if (!s.packets_ok || !s.buffers_ok)
		fprintf(stderr, "warning: conservation check failed: %s\n", s.inv_msg);
	rc = sim_report(&s, stdout);
	fflush(stdout);
	sim_free(&s);
	return rc == 0 ? 0 : RXB_EXIT_FAILED;
}
