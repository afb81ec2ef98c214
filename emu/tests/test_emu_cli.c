/* SPDX-License-Identifier: BSD-3-Clause
 * rxb-emu from the outside: a bad --set gives one clear error line naming
 * the key and exit status 2; a pcap in gives the expected pcap out (count,
 * rewritten fields, untouched payload); DPDK telemetry answers while it
 * runs (a small AF_UNIX SEQPACKET client, as dpdk-telemetry.py is). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "emu_test.h"
#include "emu_run_test.h"

#ifndef RXB_EMU_BIN
#error "RXB_EMU_BIN must name the rxb-emu executable"
#endif

static char out_txt[1 << 16], err_txt[1 << 16];

static void slurp(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f != NULL) {
		n = fread(buf, 1, cap - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

/* Start rxb-emu with args (NULL-terminated); stdout and stderr to files. */
static pid_t spawn(const char *const *args, const char *tag)
{
	char out[128], err[128];
	pid_t pid;

	snprintf(out, sizeof(out), "/tmp/rxb_test_emu_cli_%d_%s.out", (int)getpid(), tag);
	snprintf(err, sizeof(err), "/tmp/rxb_test_emu_cli_%d_%s.err", (int)getpid(), tag);
	fflush(stdout); /* or the child's freopen() writes our buffer out again */
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		const char *argv[64];
		int n = 0;

		argv[n++] = RXB_EMU_BIN;
		for (int i = 0; args[i] != NULL && n < 62; i++)
			argv[n++] = args[i];
		argv[n] = NULL;
		if (freopen(out, "w", stdout) == NULL || freopen(err, "w", stderr) == NULL)
			_exit(127);
		execv(RXB_EMU_BIN, (char *const *)argv);
		_exit(127);
	}
	return pid;
}

static int wait_done(pid_t pid, const char *tag)
{
	char path[128];
	int st = 0;

	waitpid(pid, &st, 0);
	snprintf(path, sizeof(path), "/tmp/rxb_test_emu_cli_%d_%s.out", (int)getpid(), tag);
	slurp(path, out_txt, sizeof(out_txt));
	remove(path);
	snprintf(path, sizeof(path), "/tmp/rxb_test_emu_cli_%d_%s.err", (int)getpid(), tag);
	slurp(path, err_txt, sizeof(err_txt));
	remove(path);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int run_emu(const char *const *args, const char *tag)
{
	return wait_done(spawn(args, tag), tag);
}

/* EAL options for a child: a file prefix of its own, removed afterwards. */
static const char *child_eal(const char *name, char *prefix_dir, size_t cap)
{
	static char eal[256];
	const char *xdg = getenv("XDG_RUNTIME_DIR");

	snprintf(eal, sizeof(eal),
		 "--no-huge -m 512 --no-pci --log-level=*:error "
		 "--file-prefix=%s_%d",
		 name, (int)getpid());
	snprintf(prefix_dir, cap, "%s/dpdk/%s_%d",
		 getuid() == 0 || xdg == NULL ? (getuid() == 0 ? "/var/run" : "/tmp") : xdg, name,
		 (int)getpid());
	return eal;
}

/* ------------------------------------------------------- bad options */

static void test_bad_options(void)
{
	static const struct {
		const char *args[8];
		const char *key;
	} cases[] = {
		{ { "--set", "arch.name=foo" }, "arch.name" },
		{ { "--set", "arch.name=spool", "--set", "arch.emulated=false" },
		  "representor queues" },
		{ { "--set", "arch.name=spool", "--set", "arch.spool_ports=32" },
		  "arch.spool_ports" },
		{ { "--set", "arch.spool_mode=shared" }, "arch.spool_mode" },
		{ { "--set", "traffic.rate_gbps=fast" }, "traffic.rate_gbps" },
		{ { "--set", "arch.rx_size=1000" }, "arch.rx_size" },
		{ { "--set", "system.cores=0" }, "system.cores" },
		{ { "--set", "no.such.key=1" }, "no.such.key" },
		{ { "--set", "arch.emulated=maybe" }, "arch.emulated" },
		{ { "--set", "arch.name=rxbisect", "--set", "arch.emulated=false" },
		  "arch.emulated" },
		{ { "--set", "emu.out=tcp:1" }, "emu.out" },
		{ { "--set", "workload.nf=router" }, "workload.nf" },
		{ { "--set", "traffic.pattern=trace" }, "traffic.pcap" },
		{ { "--set", "system.stalled_cores=[7]" }, "system.stalled_cores" },
		/* an empty item was skipped: [0,,1] stalled cores 0 and 1 */
		{ { "--set", "system.stalled_cores=[0,,1]" }, "system.stalled_cores" },
		{ { "--set", "arch.name=dyn_shring", "--set", "emu.source=pcap", "--set",
		    "traffic.pcap=/tmp/x.pcap" },
		  "emu.source" },
		{ { "--set", "traffic.packet_bytes=4000" }, "traffic.packet_bytes" },
		{ { "--set", "novalue" }, "--set" },
		{ { "--frobnicate" }, "--frobnicate" },
	};

	for (size_t i = 0; i < RTE_DIM(cases); i++) {
		int rc = run_emu(cases[i].args, "bad");
		int lines = 0;

		for (const char *p = err_txt; (p = strstr(p, "error:")) != NULL; p++)
			lines++;
		if (rc != 2 || lines != 1 || strstr(err_txt, cases[i].key) == NULL)
			fprintf(stderr, "case %zu (%s): exit %d, stderr: %s", i, cases[i].key, rc,
				err_txt);
		CHECK_EQ(rc, 2);
		CHECK_EQ(lines, 1);
		CHECK(strstr(err_txt, cases[i].key) != NULL);
		CHECK(strstr(err_txt, "allowed") != NULL || strstr(err_txt, "must") != NULL);
		CHECK_EQ(out_txt[0], '\0'); /* nothing on stdout */
	}
}

/* ------------------------------------------------------- pcap in, pcap out */

struct pkt_rec {
	uint32_t len;
	uint8_t data[1600];
};

static int read_pcap(const char *path, struct pkt_rec *recs, unsigned max)
{
	struct rxb_pcap_rd rd;
	struct rxb_pcap_rec rec;
	char msg[256];
	int n = 0, got;

	if (rxb_pcap_open_read(&rd, path, msg, sizeof(msg)) != 0) {
		fprintf(stderr, "%s\n", msg);
		return -1;
	}
	while (n < (int)max &&
	       (got = rxb_pcap_next(&rd, &rec, recs[n].data, sizeof(recs[n].data))) == 1)
		recs[n++].len = rec.caplen;
	rxb_pcap_close_read(&rd);
	return n;
}

static uint64_t json_u64(const char *json, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	p = strstr(json, pat);
	return p ? strtoull(p + strlen(pat), NULL, 10) : UINT64_MAX;
}

#define N_IN 2000u

static void test_pcap_in_pcap_out(void)
{
	static struct pkt_rec in[N_IN], out[N_IN + 1];
	static const char *archs[] = { "privring", "rxbisect" };
	char in_path[64], out_path[64], dir[128];
	const char *eal = child_eal("emu_cli_pcap", dir, sizeof(dir));
	struct rte_mempool *mp = rte_pktmbuf_pool_create("cli_pkts", 255, 0, 0,
							 RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	struct rxb_gen_cfg g;
	int n_in;

	snprintf(in_path, sizeof(in_path), "/tmp/rxb_test_emu_cli_%d_in.pcap", (int)getpid());
	snprintf(out_path, sizeof(out_path), "/tmp/rxb_test_emu_cli_%d_out.pcap", (int)getpid());
	rxb_gen_cfg_defaults(&g);
	g.seed = 11;
	g.n_flows = 200;
	g.frame_size = 500;
	CHECK(mp != NULL);
	CHECK(emu_rt_make_pcap(in_path, &g, N_IN) == 0);
	n_in = read_pcap(in_path, in, N_IN);
	CHECK_EQ(n_in, N_IN);
	for (size_t a = 0; mp != NULL && a < RTE_DIM(archs); a++) {
		char arch[64], pcap[128], outp[128];
		const char *args[] = { "--set",           arch,    "--set",
				       "emu.source=pcap", "--set", pcap,
				       "--set",           outp,    "--set",
				       "workload.nf=lb",  "--set", "run.duration_ms=30000",
				       "--eal",           eal,     NULL };
		struct emu_rt_map *flows = calloc(1, sizeof(*flows));
		uint64_t tx, bad = 0, payload_diff = 0, unmatched = 0;
		int rc, n_out;

		snprintf(arch, sizeof(arch), "arch.name=%s", archs[a]);
		snprintf(pcap, sizeof(pcap), "traffic.pcap=%s", in_path);
		snprintf(outp, sizeof(outp), "emu.out=pcap:%s", out_path);
		rc = run_emu(args, "pcap");
		if (rc != 0)
			fprintf(stderr, "rxb-emu %s: exit %d: %s\n", archs[a], rc, err_txt);
		CHECK_EQ(rc, 0);
		CHECK(strstr(out_txt, "\"packets_ok\": true") != NULL);
		CHECK(strstr(out_txt, "\"buffers_ok\": true") != NULL);
		tx = json_u64(out_txt, "tx_packets");
		n_out = read_pcap(out_path, out, N_IN + 1);
		printf("  %s: %d packets in, %d out (tx_packets %llu)\n", archs[a], n_in, n_out,
		       (unsigned long long)tx);
		CHECK_EQ((uint64_t)n_out, tx);
		if (strcmp(archs[a], "privring") == 0)
			CHECK_EQ(n_out, N_IN); /* flow-controlled trace: nothing lost */
		for (int i = 0; i < n_out; i++) {
			struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
			struct emu_tuple t;
			struct rxb_pkt_view v;
			int k;

			if (m == NULL || out[i].len > rte_pktmbuf_tailroom(m)) {
				bad++;
				rte_pktmbuf_free(m);
				continue;
			}
			memcpy(rte_pktmbuf_append(m, (uint16_t)out[i].len), out[i].data,
			       out[i].len);
			v = emu_view(m);
			t = emu_tuple_of(m);
			if (!emu_pkt_ok(m) || t.dst_ip < RXB_IPV4(10, 10, 0, 1) ||
			    t.dst_ip >= RXB_IPV4(10, 10, 0, 33) ||
			    emu_rt_map_put(flows, (uint64_t)t.src_ip << 16 | t.src_port, t.dst_ip) <
				    0)
				bad++;
			/* The same packet in the input (IP ids are unique): only the
			 * destination address, MACs and checksums may differ. */
			for (k = 0; k < n_in; k++)
				if (in[k].len == out[i].len &&
				    memcmp(in[k].data + 18, out[i].data + 18, 2) == 0 &&
				    memcmp(in[k].data + 26, out[i].data + 26, 4) == 0)
					break;
			if (k == n_in)
				unmatched++;
			else if (v.payload != NULL &&
				 memcmp(in[k].data + (v.payload - rte_pktmbuf_mtod(m, uint8_t *)),
					v.payload, v.payload_len) != 0)
				payload_diff++;
			rte_pktmbuf_free(m);
		}
		CHECK_EQ(bad, 0);
		CHECK_EQ(unmatched, 0);
		CHECK_EQ(payload_diff, 0);
		free(flows);
		remove(out_path);
		rxb_remove_run_dir(dir);
	}
	remove(in_path);
	rte_mempool_free(mp);
}

/* ------------------------------------------------------- telemetry */

static int tel_query(int fd, const char *cmd, char *buf, size_t cap)
{
	ssize_t n;

	if (send(fd, cmd, strlen(cmd), 0) < 0)
		return -1;
	n = recv(fd, buf, cap - 1, 0);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

static void test_telemetry_answers_while_running(void)
{
	char dir[80], path[100], buf[1 << 14];
	const char *eal = child_eal("emu_cli_tel", dir, sizeof(dir));
	const char *args[] = { "--set", "run.duration_ms=4000",
			       "--set", "traffic.rate_gbps=0.05",
			       "--eal", eal,
			       NULL };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = -1, rc, running = 0;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/dpdk_telemetry.v2", dir);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	pid = spawn(args, "tel");
	/* Connect once the socket is there, then wait for the run to start. */
	for (int tries = 0; tries < 300 && !running; tries++) {
		usleep(20000);
		if (fd < 0) {
			fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
			if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
			    recv(fd, buf, sizeof(buf) - 1, 0) <= 0) { /* the greeting */
				close(fd);
				fd = -1;
				continue;
			}
		}
		/* running, and the first packets dispatched */
		if (tel_query(fd, "/rxb/emulator", buf, sizeof(buf)) == 0 &&
		    strstr(buf, "\"running\"") != NULL && strstr(buf, "\"dispatched\":0,") == NULL)
			running = 1;
	}
	CHECK(running);
	if (running) {
		printf("  %s\n", buf);
		CHECK(strstr(buf, "\"dispatched\"") != NULL);
		CHECK(tel_query(fd, "/rxb/rings", buf, sizeof(buf)) == 0);
		printf("  %.300s\n", buf);
		CHECK(strstr(buf, "\"no_ax_buf\"") != NULL && strstr(buf, "\"occupancy\"") != NULL);
		CHECK(tel_query(fd, "/rxb/workers,1", buf, sizeof(buf)) == 0);
		printf("  %.300s\n", buf);
		CHECK(strstr(buf, "\"cycles_rx_per_pkt\"") != NULL && strstr(buf, "\"1\"") != NULL);
		CHECK(tel_query(fd, "/", buf, sizeof(buf)) == 0);
		CHECK(strstr(buf, "/rxb/rings") != NULL);
	}
	if (fd >= 0)
		close(fd);
	rc = wait_done(pid, "tel");
	if (rc != 0)
		fprintf(stderr, "rxb-emu: exit %d: %s\n", rc, err_txt);
	CHECK_EQ(rc, 0);
	CHECK(strstr(out_txt, "\"experiment\": \"emu\"") != NULL);
	rxb_remove_run_dir(dir);
}

int main(void)
{
	emu_rt_init("emu_cli");
	RUN(test_bad_options);
	RUN(test_pcap_in_pcap_out);
	RUN(test_telemetry_answers_while_running);
	emu_rt_fini();
	return check_summary();
}
