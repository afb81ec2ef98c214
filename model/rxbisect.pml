/* SPDX-License-Identifier: BSD-3-Clause
 *
 * rxbisect.pml -- a SPIN/Promela model of the rxBisect protocol as implemented
 * by lib/rxbisect.c (docs/interfaces.md §5). docs/model.md has the full write-up;
 * model/check.sh runs every configuration and property.
 *
 * WHAT IS MODELLED, AND WHERE IT IS IN THE C CODE
 *
 *   proctype Nic     the NIC thread: rxb_bisect_nic_deliver(),
 *                    rxb_bisect_nic_deliver_from() and rxb_bisect_nic_tick(),
 *                    one packet at a time. Every step (a d_step) makes at
 *                    most one access to memory a core also touches; phase nph:
 *     N_IDLE  BR_DROP/BR_LINK   rxb_bisect_nic_deliver(): steer to any Bx b
 *                               (traffic is nondeterministic), the first
 *                               rxb_cr_nic_has_room() (drop: no Bx slot),
 *                               choose_linked_ax(), and when it finds one,
 *                               bisect_consume() -> take_write()
 *     N_FOREIGN BR_FOREIGN      choose_foreign_ax() (drop: no Ax buffer): any
 *                               non-empty candidate, which covers the random,
 *                               round-robin and most-available policies; then
 *                               bx_foreign_room() (the budget |Bx| - R(b),
 *                               counted with BX_FOREIGN) and take_write()
 *     N_FLUSH                   bx_flush_notices(b, all) before a consumption
 *                               of b's own Ax (coalescing), one entry a step
 *     N_TAKE  take_write()      rest of bisect_consume(): rxb_cr_nic_has_room(),
 *                               rxb_descring_nic_take(), deliver_linked()
 *                               (packet + consumption in one entry) or
 *                               deliver_foreign() (packet entry, with a held
 *                               notice of b merged in when coalescing, then
 *                               bisect_notify() -> bx_hold_notice())
 *     N_NOTIFY                  bisect_notify() -> bx_flush_notices(link, all)
 *                               (coalescing off: the notice is written now)
 *     N_TICK                    rxb_bisect_nic_tick() -> bx_flush_notices(b,
 *                               before): any FIFO prefix may be due
 *   proctype Core(c) the core owning Bx c and the Ax rings linked to it:
 *                    rxb_bisect_rx() then rxb_bisect_free(); phase cph[c]:
 *     C_SCAN   scan()           bisect_rx_scan(): in-order read of the ready
 *                               Bx entries by done bit (sense reversal)
 *     C_ALLOC  alloc_refill()   alloc->get() of one buffer per notice (all or
 *                               nothing), bisect_rx_cut() on failure, the fast
 *                               refill path (one linked Ax, notices in order)
 *                               or bisect_rx_refill_checked(); ax_post()
 *              (one step with C_SCAN and free_app() unless SMALL_POOL)
 *     C_PUB    bisect_rx_publish(): rxb_cr_sw_publish() (Bx consumer index)
 *     C_PUBF            ...         foreign_cons_pub
 *     C_DB              ...         ax_doorbells(): one doorbell a step
 *     C_FREE   free_app()       rxb_bisect_free()
 *     STALL    core STALLER may stop for ever between any two of its steps
 *   init             rxb_bisect_create() (links, association sets, R(b),
 *                    budgets) and rxb_bisect_prime() of every core
 *   census()         rxb_bisect_census() and docs/interfaces.md §8 with ghost state, then
 *                    the symmetry reduction (C, in c_code; see below)
 *
 *   C field                          model variable
 *   ax[a].ring.desc[]                desc[]       (buffer ids; NONE when free)
 *   ax[a].ring.nic.head              ax_head[a]
 *   ax[a].ring.db.tail (doorbell)    ax_db[a]     (== ax[a].sw.rung)
 *   ax[a].sw.tail / sw.reclaimed     ax_tail[a] / ax_recl[a]
 *   ax[a].link                       link[a]
 *   bx[b].assoc / assoc_bits         assoc[b]     (bit mask)
 *   bx[b].reserved = R(b)            reserved[b]
 *   bx[b].foreign_budget             budget[b]
 *   Bx entry flags/buf/ax_ring/ax_index  bx_done[] (RXB_CR_DONE), bx_fl[]
 *                                    (BX_HAS_PKT/HAS_CONS/FOREIGN), bx_buf[],
 *                                    bx_ax[], bx_idx[]
 *   bx[b].cr.nic.prod                bx_prod[b]
 *   bx[b].cr.sw.cons == cons_pub     bx_cons[b]
 *   bx[b].nic.foreign_written        fw[b]
 *   bx[b].sw.foreign_cons(_pub)      fc[b]
 *   bx[b].pend FIFO (coalescing)     pend_n[b], pend_ax[], pend_idx[]
 *   allocator (pool.c)               pool_n + ghost own[]
 *
 * ABSTRACTIONS (each argued in docs/model.md)
 *   - buffers are small integers 0..NBUF-1 from one shared pool (the
 *     per-core caches of the two-level allocator are not modelled);
 *   - free-running uint32 indices are kept modulo 2*size: the C code only
 *     uses index & mask, the generation bit (bit log2(size)) and differences
 *     <= size, all of which are preserved;
 *   - time is nondeterminism: a tick may find any prefix of a held-notice FIFO
 *     due; fairness of time is an assumption of the liveness formulas;
 *   - NIC caches (cons_seen, tail_seen, foreign_cons_seen) are not modelled:
 *     the C code re-reads the shared value whenever the cached one would
 *     change the decision, so every decision equals one taken on a fresh read;
 *     the descriptor prefetch (nic.fetched) only counts PCIe reads;
 *   - memory is sequentially consistent; each step makes at most one access
 *     to memory another thread writes or reads (the release/acquire pairs of
 *     docs/library.md are what makes the C code behave like this);
 *   - a Bx entry's payload is cleared once the core has consumed it and a
 *     descriptor is cleared once the NIC took it (state canonicalisation; the
 *     done bits keep their stale values, so sense reversal is checked);
 *   - steps are merged only where the merge is exact: a check that decides
 *     "drop or go on" and can only turn from failing to passing by the other
 *     threads' actions is read when the NIC next touches shared memory; with
 *     an allocator that cannot fail, taking and returning buffers is private;
 *   - symmetry: buffer ids renumbered, Ax rings rotated to reclaimed = 0,
 *     foreign counters shifted, and with CANON_BX Bx rings rotated to
 *     consumer index 0 (relies on the unrotated runs; docs/model.md).
 *
 * PROPERTIES
 *   safety (assertions, checked after every step by census()):
 *   (a) per Ax slot ghost state EMPTY -> POSTED -> INNIC -> NOTICED -> EMPTY:
 *       every consumed, unrefilled slot has exactly one notice on its way
 *       (held by the NIC or in a Bx entry), a notice is written once and
 *       applied once, in ring order, by the Ax's owner;
 *   (b) ghost own[] per buffer (POOL, CORE, AX, NIC, BX, APP) agrees with
 *       every reference to it: no buffer in two places, none lost;
 *   plus the notification invariant (entries carrying a consumption + held
 *   notices <= R(b), foreign entries <= |Bx| - R(b)), "a notice always finds
 *   a Bx slot", sense reversal, and no invalid end state.
 *   liveness (ltl, pan -a -f: weak fairness):
 *   (c) refill:   every Ax ring of a healthy core is non-empty again and
 *                 again (replenishment never deadlocks);
 *   (d) progress: once core STALLER has stalled, if packets keep arriving
 *                 for the healthy core WATCH, it keeps receiving.
 *
 * SWITCHES (-D...)
 *   CFG_ALL (default)  NCORE cores (2 or 3), all-to-all association
 *   CFG_OVERLAP        3 cores, sets {0,1} {1,2} {2,0}
 *   CFG_MULTILINK      2 Bx, 3 Ax, links 0->0, 1->1, 2->1 (checked refill
 *                      path), overlapping sets {0,2} {0,1,2}
 *   COALESCE           coalescing of consumption-only notices
 *   STALL              core STALLER (0) may stall for ever
 *   DELIVER_FROM       also rxb_bisect_nic_deliver_from(): any associated Ax
 *   SMALL_POOL         few buffers: allocation fails, bisect_rx_cut() runs
 *   AXSZ BXSZ BURST BURSTMAX NBUF  sizes: |Ax|, |Bx|, n per rx call,
 *                      RXB_BURST_MAX, buffers
 *   CANON_BX NO_CANON NO_CENSUS EV_TICK EV_PROGRESS REFILL_ALL  see check.sh
 *   Seeded bugs (the check must FAIL): BUG_NO_RESERVATION (foreign entries
 *   may take every Bx slot), BUG_DOORBELL_FIRST (Ax doorbell rung before the
 *   Bx consumer index is published), BUG_DOUBLE_APPLY (the checked refill path
 *   also runs after the fast one: notices applied twice),
 *   BUG_COALESCE_ORDER (held notices not flushed before a linked delivery).
 *   HOLD_OK: when a notice finds no slot, hold it as the C code does instead
 *   of failing the "a notice always finds a slot" assertion (to show what the
 *   liveness properties say about a seeded bug).
 */

/* ------------------------------------------------------------ sizes */
#ifndef AXSZ
#define AXSZ 2
#endif
#ifndef BXSZ
#define BXSZ 4
#endif
#ifndef BURST
#define BURST 1            /* n, the packet budget of each rxb_bisect_rx() call */
#endif
#ifndef BURSTMAX
#define BURSTMAX BURST     /* RXB_BURST_MAX, scaled down (>= n) */
#endif
#define SCANMAX (2*BURSTMAX) /* RX_SCAN_MAX = 2 * RXB_BURST_MAX */
#define AXM (2*AXSZ)      /* Ax indices are kept modulo 2|Ax| */
#define BXM (2*BXSZ)      /* Bx indices and foreign counters modulo 2|Bx| */

#if defined(CFG_OVERLAP)
#define NAX 3
#define NBX 3
#elif defined(CFG_MULTILINK)
#define NAX 3
#define NBX 2
#else
#ifndef NCORE
#define NCORE 2
#endif
#define NAX NCORE
#define NBX NCORE
#endif

#define PENDCAP (NAX*AXSZ) /* >= R(b): capacity of a held-notice FIFO */
#ifndef NBUF
#ifdef SMALL_POOL
#define NBUF (NAX*AXSZ + 2)
#else
#define NBUF (NAX*AXSZ + NBX*BXSZ + NBX*BURST) /* never runs dry */
#endif
#endif
#define STALLER 0
#ifndef WATCH
#define WATCH 1
#endif

#define NONE 255
/* Bx entry flags (BX_HAS_PKT, BX_HAS_CONS, BX_FOREIGN of lib/rxbisect.c) */
#define F_PKT 2
#define F_CONS 4
#define F_FOREIGN 8
/* ghost state of an Ax slot */
#define S_EMPTY 0   /* no buffer: free for the owner to post */
#define S_POSTED 1  /* holds a posted buffer (doorbell rung or not) */
#define S_INNIC 2   /* consumed by the NIC; its notice is held by the NIC */
#define S_NOTICED 3 /* consumed; its notice is in a Bx entry */
/* ghost place of a buffer */
#define O_POOL 0
#define O_CORE 1    /* taken from the allocator, not yet posted */
#define O_AX 2
#define O_NIC 3
#define O_BX 4
#define O_APP 5
/* NIC phases */
#define N_IDLE 0
#define N_FOREIGN 2
#define N_FLUSH 4
#define N_TAKE 5
#define N_NOTIFY 6
#define N_TICK 7
/* core phases */
#define C_SCAN 0
#define C_ALLOC 1
#define C_PUB 2
#define C_PUBF 3
#define C_DB 4
#define C_FREE 5
#define C_DEAD 6

#define AXI(a, s) ((a) * AXSZ + (s))
#define BXI(b, s) ((b) * BXSZ + (s))
#define AXD(x, y) (((x) + AXM - (y)) % AXM)
#define BXD(x, y) (((x) + BXM - (y)) % BXM)
#define GEN(i) ((((i) / BXSZ) & 1) ^ 1)   /* rxb_cr_gen() */
#define ROOM(b) (BXD(bx_prod[b], bx_cons[b]) < BXSZ) /* rxb_cr_nic_has_room() */
#define NE(a) (ax_db[a] != ax_head[a])     /* Ax a non-empty in the NIC's view */
#define ASSOC(b, a) ((assoc[b] >> (a)) & 1)
#define LNE(a) (link[a] == nb && NE(a))
#define FNE(a) (ASSOC(nb, a) && link[a] != nb && NE(a))
#if NAX == 1
#define ANY(P) (P(0))
#elif NAX == 2
#define ANY(P) (P(0) || P(1))
#else
#define ANY(P) (P(0) || P(1) || P(2))
#endif

/* Coverage probes (no effect on the state): with pan compiled -DPRINTF each
 * probe prints "COVER n" the first time the search reaches it; check.sh
 * requires every probe to be reached by some run (so no check is vacuous)
 * and probe 3 by none. A hidden variable is not restored on backtracking,
 * so each probe prints once per run.
 *  1 drop: Bx full when the packet arrives      8 bisect_rx_refill_checked()
 *  2 drop: foreign budget |Bx|-R(b) used        9 drop: no Ax buffer at all
 *  3 drop: Bx full after the flush (never)     10 a core stalls
 *  4 held notice carried by a foreign packet   11 a packet in a foreign buffer
 *  5 consumption-only entry written            12 notice acted on beyond n packets
 *  6 rxb_bisect_nic_tick() writes a notice     13 Bx wraps: done bit sense reversed
 *  7 allocator fails: bisect_rx_cut() */
hidden byte cov[16];
#define COVER(n) if :: cov[n] == 0 -> cov[n] = 1; printf("COVER %d\n", n) :: else fi
/* Named failures, so that a counterexample says what went wrong. */
hidden byte notice_found_no_bx_slot; /* the notification invariant says never */
hidden byte notice_for_unlinked_ax; /* bisect_rx_refill_checked()'s error case */
hidden byte pool_ran_dry; /* the pool is sized so that it cannot */
hidden byte notice_out_of_ring_order; /* a notice that is not the next slot */
hidden byte notice_not_outstanding; /* applied twice, or never written */
#define FAIL_IF(cond, flag) if :: (cond) -> flag = 1; assert(!flag) :: else fi
#ifdef HOLD_OK
#define NOTICE_NO_ROOM skip /* keep it held, as bx_flush_notices() does */
#else
#define NOTICE_NO_ROOM notice_found_no_bx_slot = 1; assert(!notice_found_no_bx_slot)
#endif

/* ------------------------------------------------------------ state */
byte link[NAX];
byte assoc[NBX];
byte reserved[NBX];
byte budget[NBX];

byte desc[NAX * AXSZ];
byte ast[NAX * AXSZ];          /* ghost */
byte ax_head[NAX];
byte ax_db[NAX];
byte ax_tail[NAX];
byte ax_recl[NAX];

byte bx_done[NBX * BXSZ];
byte bx_fl[NBX * BXSZ];
byte bx_buf[NBX * BXSZ];
byte bx_ax[NBX * BXSZ];
byte bx_idx[NBX * BXSZ];
byte bx_prod[NBX];
byte bx_cons[NBX];
byte fw[NBX];
byte fc[NBX];

byte pend_n[NBX];
byte pend_old[NBX];            /* held across a whole tick: due at the next */
byte pend_ax[NBX * PENDCAP];
byte pend_idx[NBX * PENDCAP];

byte own[NBUF];                /* ghost */
byte pool_n;

byte nph;                      /* NIC phase and registers */
byte nb;
byte na;
byte nL;
bit  nlate;

byte cph[NBX];                 /* core phase */
byte sc_e[NBX];                /* entries found by the scan */
byte rd_e[NBX];                /* entries consumed, consumer index not yet published */
byte rd_f[NBX];                /* foreign ones among them, foreign count not yet published */
byte app[NBX * BURST];         /* buffers the application holds */
byte app_n[NBX];

/* ghost events of the liveness formulas, compiled in only when a formula
 * needs them (they would multiply the states of every other run) */
#ifdef EV_PROGRESS
bit ev_arr;                    /* a packet for WATCH just arrived */
bit ev_recv;                   /* WATCH just received packets */
#define SET_ARR(v) ev_arr = (v)
#define SET_RECV(v) ev_recv = (v)
#else
#define SET_ARR(v) skip
#define SET_RECV(v) skip
#endif
#if defined(COALESCE) && defined(EV_TICK)
bit ev_tick;                   /* a timely tick just ran */
#define SET_TICK(v) ev_tick = (v)
#else
#define SET_TICK(v) skip
#endif

/* scratch of d_steps: not part of the state */
hidden byte t_slot, t_buf, t_fl, t_ax, t_idx, t_i, t_j;
hidden byte w_i, a_i;
hidden byte s_e, s_p, s_idx, s_i;
hidden byte r_e, r_k, r_p, r_f, r_u, r_j, r_x, r_a, r_lax, r_n, r_b;
hidden byte r_odd;
hidden byte fresh[PENDCAP];

/* ------------------------------------------------------------ census */
/* census() ends every step: rxb_bisect_census() and docs/interfaces.md §8, strengthened
 * with the ghost state, then the canonicalisation of the state. Both are C
 * (c_code), compiled once into the verifier instead of being expanded into
 * every step; they only read the model's state, except the canonicalisation,
 * which renames it (below). A violation is reported with uerror(): "pan:1:
 * <what> (at depth n)". NO_CENSUS (liveness runs, after the safety runs have
 * passed) keeps only the canonicalisation; NO_CANON turns that off too.
 *
 * Canonicalisation (symmetry reduction; docs/model.md argues each part):
 *  - buffers are interchangeable (nothing looks at a buffer id but to copy
 *    it or index own[]): renumber them in the order a fixed walk meets them
 *    (Ax slots, Bx entries, application, pool);
 *  - only differences of ring indices and the cyclic order of slots matter:
 *    rotate every Ax ring so that its reclaim index is 0 (renaming the slot
 *    numbers that notices carry), and shift the foreign counters so fc = 0;
 *  - CANON_BX: rotate every Bx ring so that its consumer index is 0, done
 *    bits rewritten to what the reader sees. A bisimulation because, in every
 *    reachable state, the done bit of each slot is fixed by the ring indices
 *    -- exactly what the census checks on unrotated rings, so the runs with
 *    CANON_BX rely on the runs without it. */
c_code {
extern void (*uerror)(char *);

#define CHECK(cond, what) do { if (!(cond)) { uerror(what); return; } } while (0)

void rxb_census(void)
{
	unsigned char cnt[NAX * AXSZ], nown[6];
	int a, b, j, x, y;

	memset(cnt, 0, sizeof(cnt));
	memset(nown, 0, sizeof(nown));
	for (a = 0; a < NAX; a++) {
		int post = AXD(now.ax_tail[a], now.ax_head[a]);
		int fly = AXD(now.ax_head[a], now.ax_recl[a]);

		/* primed full, and every notice answered by exactly one post */
		CHECK(post + fly == AXSZ, "census: an Ax slot is neither posted nor consumed");
		CHECK(AXD(now.ax_db[a], now.ax_head[a]) <= post, "census: Ax doorbell beyond the posted tail");
		for (j = 0; j < AXSZ; j++) {
			x = AXI(a, (now.ax_recl[a] + j) % AXSZ);
			if (j < fly) {
				CHECK(now.ast[x] == S_INNIC || now.ast[x] == S_NOTICED,
				      "census (a): a consumed Ax slot is not waiting for its notice");
				CHECK(now.desc[x] == NONE, "census (b): a consumed Ax slot still holds a buffer");
			} else {
				CHECK(now.ast[x] == S_POSTED, "census (a): a posted Ax slot is not in state POSTED");
				CHECK(now.desc[x] < NBUF && now.own[now.desc[x]] == O_AX,
				      "census (b): a posted buffer is not owned by its Ax ring");
				nown[O_AX]++;
			}
		}
	}
	for (b = 0; b < NBX; b++) {
		int occ = BXD(now.bx_prod[b], now.bx_cons[b]), f = 0, c = 0;

		CHECK(occ <= BXSZ, "census: Bx holds more entries than it has slots");
		CHECK(now.rd_e[b] <= occ, "census: Bx entries consumed beyond the producer");
		for (j = 0; j < BXSZ; j++) {
			int idx = (now.bx_cons[b] + j) % BXM;

			x = BXI(b, idx % BXSZ);
			if (j < now.rd_e[b]) {
				CHECK(now.bx_fl[x] == 0, "census: a consumed Bx entry is still live");
			} else if (j < occ) {
				CHECK(now.bx_fl[x] != 0 && now.bx_done[x] == GEN(idx),
				      "census: an unread Bx entry is not done for its reader");
				CHECK((now.bx_fl[x] & F_FOREIGN) || (now.bx_fl[x] & F_CONS),
				      "census: a non-foreign Bx entry without a consumption");
				f += (now.bx_fl[x] & F_FOREIGN) != 0;
				if (now.bx_fl[x] & F_CONS) {
					c++;
					CHECK(now.bx_ax[x] < NAX && now.link[now.bx_ax[x]] == b,
					      "census (a): a notice in the Bx of a core that does not own its Ax");
					y = AXI(now.bx_ax[x], now.bx_idx[x]);
					CHECK(now.ast[y] == S_NOTICED, "census (a): a notice in a Bx names a slot not in state NOTICED");
					cnt[y]++;
				}
				if (now.bx_fl[x] & F_PKT) {
					CHECK(now.bx_buf[x] < NBUF && now.own[now.bx_buf[x]] == O_BX,
					      "census (b): a packet's buffer is not owned by its Bx entry");
					nown[O_BX]++;
				} else {
					CHECK(now.bx_buf[x] == NONE, "census: a notice entry carries a buffer");
				}
			} else {
				/* a free slot: its stale done bit must read "not done" */
				CHECK(now.bx_fl[x] == 0 && now.bx_done[x] != GEN(idx),
				      "census: sense reversal broken: a free Bx slot reads as done");
			}
		}
		CHECK(f + now.rd_f[b] == BXD(now.fw[b], now.fc[b]),
		      "census: foreign entries in the Bx differ from the NIC's count");
#ifndef BUG_NO_RESERVATION
		CHECK(BXD(now.fw[b], now.fc[b]) <= now.budget[b],
		      "census: foreign entries above the budget |Bx| - R(b)");
#endif
		for (j = 0; j < PENDCAP; j++) {
			x = b * PENDCAP + j;
			if (j < now.pend_n[b]) {
				CHECK(now.pend_ax[x] < NAX && now.link[now.pend_ax[x]] == b,
				      "census (a): a notice held for a Bx that does not own its Ax");
				y = AXI(now.pend_ax[x], now.pend_idx[x]);
				CHECK(now.ast[y] == S_INNIC, "census (a): a held notice names a slot not in state INNIC");
				cnt[y]++;
			} else {
				CHECK(now.pend_ax[x] == 0 && now.pend_idx[x] == 0, "census: stale held notice");
			}
		}
		/* THE NOTIFICATION INVARIANT: consumptions for b (written or held) <= R(b) */
		CHECK(c + now.pend_n[b] <= now.reserved[b],
		      "census: the notification invariant: consumptions for a Bx exceed R(b)");
		CHECK(now.pend_old[b] <= now.pend_n[b], "census: pend_old");
		for (j = 0; j < now.app_n[b]; j++) {
			CHECK(now.own[now.app[b * BURST + j]] == O_APP,
			      "census (b): a buffer the application holds is not owned by it");
			nown[O_APP]++;
		}
	}
	/* (a) every consumed, unrefilled slot has exactly one notice on its way */
	for (j = 0; j < NAX * AXSZ; j++) {
		if (now.ast[j] == S_INNIC || now.ast[j] == S_NOTICED) {
			CHECK(cnt[j] != 0, "census (a): a consumption notice was lost");
			CHECK(cnt[j] == 1, "census (a): a consumption notice was duplicated");
		} else {
			CHECK(cnt[j] == 0, "census (a): a notice names a slot that is not consumed");
		}
	}
	/* (b) every buffer is where exactly one reference says it is */
	nown[O_POOL] = now.pool_n;
	for (j = 0; j < NBUF; j++)
		nown[now.own[j]]--;
	for (j = 0; j < 6; j++)
		CHECK(nown[j] == 0, "census (b): a buffer is in two places, or lost");
}

#ifndef NO_CANON
static void rxb_rotate_ax(int a)
{
	int k = now.ax_recl[a] % AXSZ, r = now.ax_recl[a], j;
	unsigned char d[AXSZ], st[AXSZ];

	now.ax_head[a] = AXD(now.ax_head[a], r);
	now.ax_tail[a] = AXD(now.ax_tail[a], r);
	now.ax_db[a] = AXD(now.ax_db[a], r);
	now.ax_recl[a] = 0;
	if (k == 0)
		return;
	for (j = 0; j < AXSZ; j++) {
		d[j] = now.desc[AXI(a, (j + k) % AXSZ)];
		st[j] = now.ast[AXI(a, (j + k) % AXSZ)];
	}
	for (j = 0; j < AXSZ; j++) {
		now.desc[AXI(a, j)] = d[j];
		now.ast[AXI(a, j)] = st[j];
	}
	for (j = 0; j < NBX * BXSZ; j++)
		if ((now.bx_fl[j] & F_CONS) && now.bx_ax[j] == a)
			now.bx_idx[j] = (now.bx_idx[j] + AXSZ - k) % AXSZ;
	for (j = 0; j < NBX * PENDCAP; j++)
		if (j % PENDCAP < now.pend_n[j / PENDCAP] && now.pend_ax[j] == a)
			now.pend_idx[j] = (now.pend_idx[j] + AXSZ - k) % AXSZ;
}

#ifdef CANON_BX
static void rxb_rotate_bx(int b)
{
	int k = now.bx_cons[b] % BXSZ, occ = BXD(now.bx_prod[b], now.bx_cons[b]), j, x;
	unsigned char fl[BXSZ], buf[BXSZ], ax[BXSZ], idx[BXSZ];

	for (j = 0; j < BXSZ; j++) {
		x = BXI(b, (j + k) % BXSZ);
		fl[j] = now.bx_fl[x];
		buf[j] = now.bx_buf[x];
		ax[j] = now.bx_ax[x];
		idx[j] = now.bx_idx[x];
	}
	for (j = 0; j < BXSZ; j++) {
		x = BXI(b, j);
		now.bx_fl[x] = fl[j];
		now.bx_buf[x] = buf[j];
		now.bx_ax[x] = ax[j];
		now.bx_idx[x] = idx[j];
		now.bx_done[x] = j < occ; /* == GEN(j) when live, != when free */
	}
	now.bx_cons[b] = 0;
	now.bx_prod[b] = occ;
}
#endif

static void rxb_relabel(void)
{
	unsigned char map[NBUF], nown[NBUF];
	int n = 0, j;

#define MAPREF(x) do { \
		if ((x) < NBUF) { \
			if (map[x] == NONE) { map[x] = n; nown[n] = now.own[x]; n++; } \
			(x) = map[x]; \
		} } while (0)
	memset(map, NONE, sizeof(map));
	for (j = 0; j < NAX * AXSZ; j++)
		MAPREF(now.desc[j]);
	for (j = 0; j < NBX * BXSZ; j++)
		if (now.bx_fl[j] & F_PKT)
			MAPREF(now.bx_buf[j]);
	for (j = 0; j < NBX * BURST; j++)
		if (j % BURST < now.app_n[j / BURST])
			MAPREF(now.app[j]);
	for (j = 0; j < NBUF; j++)
		if (map[j] == NONE) {
			map[j] = n;
			nown[n] = now.own[j];
			n++;
		}
	memcpy(now.own, nown, sizeof(nown));
#undef MAPREF
}
#endif

void rxb_canon(void)
{
#ifndef NO_CANON
	int a, b;

	for (a = 0; a < NAX; a++)
		rxb_rotate_ax(a);
	for (b = 0; b < NBX; b++) {
		now.fw[b] = BXD(now.fw[b], now.fc[b]);
		now.fc[b] = 0;
#ifdef CANON_BX
		rxb_rotate_bx(b);
#endif
	}
	rxb_relabel();
#endif
}
}

#ifdef NO_CENSUS
inline census() {
	c_code { rxb_canon(); }
}
#else
inline census() {
	c_code { rxb_census(); rxb_canon(); }
}
#endif

/* ------------------------------------------------------------ NIC */
inline nic_done() {
	nph = N_IDLE;
	nb = 0;
	na = 0;
	nL = 0
}

/* bx_write(): one entry, published with its done bit */
inline write_entry(b, buf, fl, ax, idx) {
	w_i = BXI(b, bx_prod[b] % BXSZ);
	assert(ROOM(b));
	assert(bx_fl[w_i] == 0); /* never overwrites an entry not consumed yet */
	bx_done[w_i] = GEN(bx_prod[b]);
	if
	:: bx_done[w_i] == 0 -> COVER(13) /* second pass: sense reversed */
	:: else
	fi;
	bx_fl[w_i] = fl;
	bx_buf[w_i] = buf;
	bx_ax[w_i] = ax;
	bx_idx[w_i] = idx;
	if
	:: buf != NONE -> assert(own[buf] == O_NIC); own[buf] = O_BX
	:: else
	fi;
	bx_prod[b] = (bx_prod[b] + 1) % BXM
}

/* take the oldest held notice of Bx b into t_ax/t_idx (FIFO, kept left-aligned) */
inline pop_pend(b) {
	t_ax = pend_ax[b * PENDCAP];
	t_idx = pend_idx[b * PENDCAP];
	t_j = 0;
	do
	:: t_j + 1 < pend_n[b] ->
		pend_ax[b * PENDCAP + t_j] = pend_ax[b * PENDCAP + t_j + 1];
		pend_idx[b * PENDCAP + t_j] = pend_idx[b * PENDCAP + t_j + 1];
		t_j++
	:: else -> break
	od;
	pend_ax[b * PENDCAP + pend_n[b] - 1] = 0;
	pend_idx[b * PENDCAP + pend_n[b] - 1] = 0;
	pend_n[b]--;
	if
	:: pend_old[b] > 0 -> pend_old[b]--
	:: else
	fi;
	assert(ast[AXI(t_ax, t_idx)] == S_INNIC);
	ast[AXI(t_ax, t_idx)] = S_NOTICED
}

/* bx_hold_notice() */
inline push_pend(b, ax, idx) {
	assert(pend_n[b] < PENDCAP);
	pend_ax[b * PENDCAP + pend_n[b]] = ax;
	pend_idx[b * PENDCAP + pend_n[b]] = idx;
	pend_n[b]++
}

/* one iteration of bx_flush_notices(): a consumption-only entry */
inline write_notice(b) {
	pop_pend(b);
	COVER(5);
	write_entry(b, NONE, F_CONS, t_ax, t_idx)
}

/* bisect_consume() for Ax na and Bx nb, from rxb_cr_nic_has_room() on: take
 * the buffer at the Ax head and write the packet's entry */
inline take_write() {
	if
	:: !ROOM(nb) -> COVER(3); nic_done() /* drop: no Bx slot */
	:: else ->
		assert(NE(na)); /* rxb_descring_nic_ready(): only the NIC consumes */
		t_slot = ax_head[na] % AXSZ;
		assert(ast[AXI(na, t_slot)] == S_POSTED);
		t_buf = desc[AXI(na, t_slot)];
		assert(t_buf < NBUF && own[t_buf] == O_AX);
		own[t_buf] = O_NIC;
		desc[AXI(na, t_slot)] = NONE;
		ast[AXI(na, t_slot)] = S_INNIC;
		ax_head[na] = (ax_head[na] + 1) % AXM;
		if
		:: link[na] == nb -> /* deliver_linked(): the entry carries the consumption */
			ast[AXI(na, t_slot)] = S_NOTICED;
			write_entry(nb, t_buf, F_PKT | F_CONS, na, t_slot);
			nic_done()
		:: else -> /* deliver_foreign() */
			COVER(11);
			t_fl = F_PKT | F_FOREIGN;
			t_ax = NONE;
			t_idx = NONE;
#ifdef COALESCE
			if
			:: pend_n[nb] > 0 -> COVER(4); t_fl = t_fl | F_CONS; pop_pend(nb)
			:: else
			fi;
#endif
			write_entry(nb, t_buf, t_fl, t_ax, t_idx);
			fw[nb] = (fw[nb] + 1) % BXM;
			nL = link[na];
			push_pend(nL, na, t_slot); /* bisect_notify() -> bx_hold_notice() */
#ifdef COALESCE
			nic_done()
#else
			nph = N_NOTIFY /* then bx_flush_notices(link, all) */
#endif
		fi
	fi
}

/* a linked Ax was chosen: held notices of nb go first (bx_flush_notices) */
inline linked_go() {
#ifndef BUG_COALESCE_ORDER
	if
	:: pend_n[nb] > 0 -> nph = N_FLUSH
	:: else -> take_write()
	fi
#else
	take_write()
#endif
}

/* a foreign Ax was chosen: bx_foreign_room(), then as above */
inline foreign_go() {
	if
	:: BXD(fw[nb], fc[nb]) < budget[nb] -> take_write()
	:: else -> COVER(2); nic_done() /* drop: no Bx slot (foreign budget used) */
	fi
}

/* one iteration of bx_flush_notices(nb, all) before a linked delivery */
inline flush_one() {
	if
	:: ROOM(nb) ->
		write_notice(nb);
		if
		:: pend_n[nb] == 0 -> nph = N_TAKE
		:: else
		fi
	:: else -> NOTICE_NO_ROOM; nph = N_TAKE
	fi
}

/* one iteration of bx_flush_notices(link, all) in bisect_notify() */
inline notify_one() {
	if
	:: ROOM(nL) ->
		write_notice(nL);
		if
		:: pend_n[nL] == 0 -> nic_done()
		:: else
		fi
	:: else -> NOTICE_NO_ROOM; nic_done()
	fi
}

/* rxb_bisect_nic_tick(), Bx by Bx. Any prefix of a FIFO may be due; a notice
 * already held at the previous tick is due, and a tick that leaves one
 * behind is "late" (ev_tick stays 0): "time is fair" = timely ticks happen
 * again and again, the antecedent of the liveness formulas. */
inline tick_next() {
	if
	:: pend_old[nb] > 0 -> nlate = 1
	:: else
	fi;
	nb++;
	do
	:: nb < NBX && pend_n[nb] == 0 -> nb++
	:: else -> break
	od;
	if
	:: nb == NBX ->
		t_j = 0;
		do
		:: t_j < NBX -> pend_old[t_j] = pend_n[t_j]; t_j++
		:: else -> break
		od;
		SET_TICK(!nlate);
		nlate = 0;
		nb = 0;
		nph = N_IDLE
	:: else
	fi
}

inline tick_start() {
	t_j = 0;
	do
	:: t_j < NBX && pend_n[t_j] == 0 -> t_j++
	:: else -> break
	od;
	if
	:: t_j == NBX -> SET_TICK(1) /* nothing held */
	:: else -> nb = t_j; nlate = 0; nph = N_TICK
	fi
}

#define NIC_STEP SET_ARR(0); SET_TICK(0)
#define LNEB(b, a) (link[a] == (b) && NE(a))
#define FNEB(b, a) (ASSOC(b, a) && link[a] != (b) && NE(a))
#define LNE0(a) LNEB(0, a)
#define LNE1(a) LNEB(1, a)
#define LNE2(a) LNEB(2, a)
#define ARRIVE(b) SET_TICK(0); nb = b; SET_ARR((b) == WATCH)

/* A packet for Bx b. The first rxb_cr_nic_has_room() and the doorbell reads
 * of choose_linked_ax() are one step: a passing room check stays true until
 * the NIC itself writes, so reading it at the time of the doorbell read
 * gives the same outcome (docs/model.md, "granularity"). */
#define BR_DROP(b, ANYL) \
	:: d_step { nph == N_IDLE && !ROOM(b) -> ARRIVE(b); COVER(1); nic_done(); census() } \
	:: d_step { nph == N_IDLE && ROOM(b) && !ANYL -> ARRIVE(b); nph = N_FOREIGN; census() }
#define BR_LINK(b, a) \
	:: d_step { nph == N_IDLE && ROOM(b) && LNEB(b, a) -> ARRIVE(b); na = a; linked_go(); census() }
/* rxb_bisect_nic_deliver_from(): a buffer of any associated Ax */
#define BR_FROM(b, a) \
	:: d_step { nph == N_IDLE && ROOM(b) && FNEB(b, a) -> ARRIVE(b); na = a; foreign_go(); census() }
/* choose_foreign_ax() and the rest of bisect_consume(): the choice (any
 * non-empty candidate, which covers every policy) stays valid until the NIC
 * consumes, the budget check passes stably */
#define BR_FOREIGN(a) \
	:: d_step { nph == N_FOREIGN && FNE(a) -> NIC_STEP; na = a; foreign_go(); census() }

proctype Nic() {
	do
	BR_DROP(0, ANY(LNE0))
	BR_LINK(0, 0)
#if NAX > 1
	BR_LINK(0, 1)
#endif
#if NAX > 2
	BR_LINK(0, 2)
#endif
#if NBX > 1
	BR_DROP(1, ANY(LNE1))
	BR_LINK(1, 0)
#if NAX > 1
	BR_LINK(1, 1)
#endif
#if NAX > 2
	BR_LINK(1, 2)
#endif
#endif
#if NBX > 2
	BR_DROP(2, ANY(LNE2))
	BR_LINK(2, 0)
	BR_LINK(2, 1)
	BR_LINK(2, 2)
#endif
#ifdef DELIVER_FROM
	BR_FROM(0, 0)
	BR_FROM(0, 1)
#if NAX > 2
	BR_FROM(0, 2)
#endif
	BR_FROM(1, 0)
	BR_FROM(1, 1)
#if NAX > 2
	BR_FROM(1, 2)
#endif
#if NBX > 2
	BR_FROM(2, 0)
	BR_FROM(2, 1)
	BR_FROM(2, 2)
#endif
#endif
	BR_FOREIGN(0)
#if NAX > 1
	BR_FOREIGN(1)
#endif
#if NAX > 2
	BR_FOREIGN(2)
#endif
	:: d_step { nph == N_FOREIGN && !ANY(FNE) -> NIC_STEP; COVER(9); nic_done(); census() }
	:: d_step { nph == N_FLUSH -> NIC_STEP; flush_one(); census() }
	:: d_step { nph == N_TAKE -> NIC_STEP; take_write(); census() }
	:: d_step { nph == N_NOTIFY -> NIC_STEP; notify_one(); census() }
#ifdef COALESCE
	:: d_step { nph == N_IDLE -> NIC_STEP; tick_start(); census() }
	:: d_step { nph == N_TICK && pend_n[nb] > 0 -> NIC_STEP;
		if
		:: ROOM(nb) ->
			COVER(6);
			write_notice(nb);
			if
			:: pend_n[nb] == 0 -> tick_next()
			:: else
			fi
		:: else -> NOTICE_NO_ROOM; tick_next()
		fi;
		census() }
	:: d_step { nph == N_TICK -> NIC_STEP; tick_next(); census() }
#endif
	od
}

/* ------------------------------------------------------------ cores */
/* the allocator: one buffer, lowest id first (buffers are interchangeable) */
inline alloc_one(dst) {
	assert(pool_n > 0);
	a_i = 0;
	do
	:: own[a_i] == O_POOL -> break
	:: else -> a_i++
	od;
	own[a_i] = O_CORE;
	pool_n--;
	dst = a_i
}

/* ax_post(): a fresh buffer at the Ax tail */
inline post(a, buf) {
	t_slot = ax_tail[a] % AXSZ;
	assert(ast[AXI(a, t_slot)] == S_EMPTY && desc[AXI(a, t_slot)] == NONE);
	assert(buf < NBUF && own[buf] == O_CORE);
	own[buf] = O_AX;
	desc[AXI(a, t_slot)] = buf;
	ast[AXI(a, t_slot)] = S_POSTED;
	ax_tail[a] = (ax_tail[a] + 1) % AXM
}

/* a notice acted on (ghost): the slot it names goes from NOTICED to EMPTY */
inline apply(a, idx) {
	/* written once, applied once */
	FAIL_IF(ast[AXI(a, idx)] != S_NOTICED, notice_not_outstanding);
	ast[AXI(a, idx)] = S_EMPTY
}

/* bisect_rx_scan(): ready entries in order, up to BURST packets, notices not
 * capped, at most SCANMAX entries */
inline scan(c) {
	s_e = 0;
	s_p = 0;
	do
	:: s_e < SCANMAX ->
		s_idx = (bx_cons[c] + s_e) % BXM;
		s_i = BXI(c, s_idx % BXSZ);
		if
		:: bx_done[s_i] != GEN(s_idx) -> break /* not ready */
		:: else
		fi;
		assert(bx_fl[s_i] != 0); /* sense reversal: a done entry is a live one */
		if
		:: (bx_fl[s_i] & F_PKT) && s_p == BURST -> break /* packet budget used */
		:: else
		fi;
		if
		:: bx_fl[s_i] & F_PKT -> s_p++
		:: (bx_fl[s_i] & F_CONS) && s_p == BURST -> COVER(12) /* notice beyond n */
		:: else
		fi;
		s_e++
	:: else -> break
	od;
	sc_e[c] = s_e;
	if
	:: s_e > 0 -> cph[c] = C_ALLOC
	:: else
	fi
}

#define ENTRY(c, e) BXI(c, ((bx_cons[c] + (e)) % BXM) % BXSZ)

/* bisect_rx_refill_checked() */
inline refill_checked(c) {
	r_u = 0;
	r_j = 0;
	do
	:: r_j < r_e ->
		r_x = ENTRY(c, r_j);
		if
		:: bx_fl[r_x] & F_CONS ->
			r_a = bx_ax[r_x];
			if
			:: r_a >= NAX || link[r_a] != c ->
				notice_for_unlinked_ax = 1;
				assert(!notice_for_unlinked_ax);
				own[fresh[r_u]] = O_POOL; pool_n++; r_u++
			:: else ->
				/* a notice names the next unreclaimed slot (order check) */
				FAIL_IF(bx_idx[r_x] != ax_recl[r_a] % AXSZ, notice_out_of_ring_order);
				apply(r_a, bx_idx[r_x]);
				ax_recl[r_a] = (ax_recl[r_a] + 1) % AXM;
				post(r_a, fresh[r_u]);
				r_u++
			fi
		:: else
		fi;
		r_j++
	:: else -> break
	od
}

inline alloc_refill(c) {
	r_e = sc_e[c];
	sc_e[c] = 0;
	/* notices among the scanned entries; the first one's position */
	r_k = 0;
	r_n = NONE;
	r_j = 0;
	do
	:: r_j < r_e ->
		if
		:: bx_fl[ENTRY(c, r_j)] & F_CONS ->
			r_k++;
			if
			:: r_n == NONE -> r_n = r_j
			:: else
			fi
		:: else
		fi;
		r_j++
	:: else -> break
	od;
	if
	:: r_k > 0 && pool_n < r_k -> /* alloc->get() failed: bisect_rx_cut() */
#ifndef SMALL_POOL
		pool_ran_dry = 1;
		assert(!pool_ran_dry);
#endif
		COVER(7);
		r_e = r_n;
		r_k = 0
	:: r_k > 0 && pool_n >= r_k ->
		r_j = 0;
		do
		:: r_j < r_k -> alloc_one(fresh[r_j]); r_j++
		:: else -> break
		od
	:: else
	fi;
	/* the one linked Ax, and the fast path's check that every notice is its
	 * next slot (s->odd) */
	r_lax = NONE;
	r_j = 0;
	r_a = 0;
	do
	:: r_j < NAX ->
		if
		:: link[r_j] == c -> r_lax = r_j; r_a++
		:: else
		fi;
		r_j++
	:: else -> break
	od;
	r_odd = (r_a != 1);
	r_u = 0;
	r_j = 0;
	do
	:: !r_odd && r_j < r_e ->
		r_x = ENTRY(c, r_j);
		if
		:: bx_fl[r_x] & F_CONS ->
			r_odd = (bx_ax[r_x] != r_lax || bx_idx[r_x] != (ax_recl[r_lax] + r_u) % AXSZ);
			r_u++
		:: else
		fi;
		r_j++
	:: else -> break
	od;
	r_u = 0;
	if
	:: r_k > 0 && !r_odd -> /* fast path: lax->sw.reclaimed += notices; ax_post() */
		r_j = 0;
		do
		:: r_j < r_e ->
			r_x = ENTRY(c, r_j);
			if
			:: bx_fl[r_x] & F_CONS -> apply(bx_ax[r_x], bx_idx[r_x])
			:: else
			fi;
			r_j++
		:: else -> break
		od;
		ax_recl[r_lax] = (ax_recl[r_lax] + r_k) % AXM;
		do
		:: r_u < r_k -> post(r_lax, fresh[r_u]); r_u++
		:: else -> break
		od
#ifdef BUG_DOUBLE_APPLY
	:: else
	fi;
	if
	:: r_k > 0 ->
#else
	:: r_k > 0 && r_odd ->
#endif
		COVER(8);
		refill_checked(c)
	:: else
	fi;
	assert(r_u == r_k); /* every buffer taken was posted or returned */
	/* packets to the application, foreign entries counted, payloads consumed */
	r_p = 0;
	r_f = 0;
	r_j = 0;
	do
	:: r_j < r_e ->
		r_x = ENTRY(c, r_j);
		if
		:: bx_fl[r_x] & F_PKT ->
			assert(own[bx_buf[r_x]] == O_BX);
			own[bx_buf[r_x]] = O_APP;
			assert(app_n[c] < BURST);
			app[c * BURST + app_n[c]] = bx_buf[r_x];
			app_n[c]++;
			r_p++
		:: else
		fi;
		if
		:: bx_fl[r_x] & F_FOREIGN -> r_f++
		:: else
		fi;
		bx_fl[r_x] = 0;
		bx_buf[r_x] = 0;
		bx_ax[r_x] = 0;
		bx_idx[r_x] = 0;
		r_j++
	:: else -> break
	od;
	if
	:: c == WATCH && r_p > 0 -> SET_RECV(1)
	:: else
	fi;
	rd_e[c] = r_e;
	rd_f[c] = r_f;
	if
	:: r_e == 0 -> cph[c] = C_SCAN
#ifdef BUG_DOORBELL_FIRST
	:: else -> cph[c] = C_DB
#else
	:: else -> cph[c] = C_PUB
#endif
	fi
}

#define UNRUNG(c, a) (link[a] == (c) && ax_db[a] != ax_tail[a])
#if NAX == 1
#define ANY_UNRUNG(c) (UNRUNG(c, 0))
#elif NAX == 2
#define ANY_UNRUNG(c) (UNRUNG(c, 0) || UNRUNG(c, 1))
#else
#define ANY_UNRUNG(c) (UNRUNG(c, 0) || UNRUNG(c, 1) || UNRUNG(c, 2))
#endif

inline after_publish(c) {
	if
	:: app_n[c] > 0 -> cph[c] = C_FREE
	:: else -> cph[c] = C_SCAN
	fi
}

/* ax_doorbells(): the first Ax of this core whose tail is not rung yet */
inline doorbell(c) {
	r_j = 0;
	do
	:: UNRUNG(c, r_j) -> break
	:: else -> r_j++
	od;
	ax_db[r_j] = ax_tail[r_j];
	if
	:: ANY_UNRUNG(c) -> skip
#ifdef BUG_DOORBELL_FIRST
	:: else -> cph[c] = C_PUB
#else
	:: else -> after_publish(c)
#endif
	fi
}

inline free_app(c) {
	r_j = 0;
	do
	:: r_j < app_n[c] ->
		r_b = app[c * BURST + r_j];
		assert(own[r_b] == O_APP);
		own[r_b] = O_POOL;
		pool_n++;
		app[c * BURST + r_j] = 0;
		r_j++
	:: else -> break
	od;
	app_n[c] = 0
}

#define CORE_STEP if :: c == WATCH -> SET_RECV(0) :: else fi

proctype Core(byte c) {
	do
#ifdef SMALL_POOL
	:: d_step { cph[c] == C_SCAN -> CORE_STEP; scan(c); census() }
	:: d_step { cph[c] == C_ALLOC -> CORE_STEP; alloc_refill(c); census() }
	:: d_step { cph[c] == C_FREE -> CORE_STEP; free_app(c); cph[c] = C_SCAN; census() }
#else
	/* The allocator never fails here, so taking and returning buffers has
	 * no effect on any thread's control flow: the scan, the refill from the
	 * allocator and the application's rxb_bisect_free() are one step. */
	:: d_step { cph[c] == C_SCAN -> CORE_STEP;
		scan(c);
		if
		:: cph[c] == C_ALLOC -> alloc_refill(c); free_app(c)
		:: else
		fi;
		census() }
#endif
	:: d_step { cph[c] == C_PUB -> CORE_STEP;
		/* rxb_cr_sw_publish(): the Bx consumer index */
		bx_cons[c] = (bx_cons[c] + rd_e[c]) % BXM;
		rd_e[c] = 0;
		if
		:: rd_f[c] > 0 -> cph[c] = C_PUBF
		:: else -> /* the foreign count's store would not change it: no step */
#ifdef BUG_DOORBELL_FIRST
			after_publish(c)
#else
			if
			:: ANY_UNRUNG(c) -> cph[c] = C_DB
			:: else -> after_publish(c)
			fi
#endif
		fi;
		census() }
	:: d_step { cph[c] == C_PUBF -> CORE_STEP;
		/* foreign_cons_pub */
		fc[c] = (fc[c] + rd_f[c]) % BXM;
		rd_f[c] = 0;
#ifdef BUG_DOORBELL_FIRST
		after_publish(c);
#else
		if
		:: ANY_UNRUNG(c) -> cph[c] = C_DB
		:: else -> after_publish(c)
		fi;
#endif
		census() }
	:: d_step { cph[c] == C_DB -> CORE_STEP;
#ifdef BUG_DOORBELL_FIRST
		if
		:: ANY_UNRUNG(c) -> doorbell(c)
		:: else -> cph[c] = C_PUB
		fi;
#else
		doorbell(c);
#endif
		census() }
#ifdef STALL
	:: d_step { c == STALLER -> COVER(10); cph[c] = C_DEAD }; break
#endif
	od
}

/* ------------------------------------------------------------ setup */
init {
	d_step {
		/* rxb_bisect_create(): links and association sets */
		t_j = 0;
		do
		:: t_j < NAX -> link[t_j] = t_j; t_j++
		:: else -> break
		od;
#if defined(CFG_MULTILINK)
		link[2] = 1;
		assoc[0] = 5;  /* {0,2}: Bx 0 may use Ax 2 (linked to Bx 1), not Ax 1 */
		assoc[1] = 7;  /* {0,1,2}; R(1) = |Bx|: Bx 1 has no foreign budget */
#elif defined(CFG_OVERLAP)
		assoc[0] = 3;  /* {0,1} */
		assoc[1] = 6;  /* {1,2} */
		assoc[2] = 5;  /* {0,2} */
#else
		t_j = 0;
		do
		:: t_j < NBX -> assoc[t_j] = (1 << NAX) - 1; t_j++
		:: else -> break
		od;
#endif
		/* bisect_build_sets(): R(b) and the foreign budget */
		t_j = 0;
		do
		:: t_j < NAX ->
			assert(ASSOC(link[t_j], t_j)); /* an Ax is in its Bx's set */
			reserved[link[t_j]] = reserved[link[t_j]] + AXSZ;
			t_j++
		:: else -> break
		od;
		t_j = 0;
		do
		:: t_j < NBX ->
			assert(reserved[t_j] <= BXSZ); /* create rejects |Bx| < R(b) */
#ifdef BUG_NO_RESERVATION
			budget[t_j] = BXSZ;
#else
			budget[t_j] = BXSZ - reserved[t_j];
#endif
			t_j++
		:: else -> break
		od;
		/* entries start zeroed */
		t_j = 0;
		do
		:: t_j < NAX * AXSZ -> desc[t_j] = NONE; t_j++
		:: else -> break
		od;
		/* rxb_bisect_prime() of every core: fill, then one doorbell */
		assert(NBUF >= NAX * AXSZ);
		pool_n = NBUF;
		t_j = 0;
		do
		:: t_j < NAX ->
			t_i = 0;
			do
			:: t_i < AXSZ ->
				alloc_one(t_buf);
				post(t_j, t_buf);
				t_i++
			:: else -> break
			od;
			ax_db[t_j] = ax_tail[t_j];
			t_j++
		:: else -> break
		od;
		census()
	}
	atomic {
		run Nic();
		run Core(0);
#if NBX > 1
		run Core(1);
#endif
#if NBX > 2
		run Core(2);
#endif
	}
}

/* ------------------------------------------------------------ liveness */
#if defined(COALESCE) && defined(EV_TICK)
#define TICKOK (ev_tick == 1)
#else
#define TICKOK (1 == 1)
#endif
#define AXNE(a) (ax_db[a] != ax_head[a])

/* (c) every Ax ring of a healthy core is refilled again and again */
#if NAX == 3 && defined(STALL) && defined(CFG_MULTILINK)
#define REFILL ([]<> AXNE(1) && []<> AXNE(2))
#elif NAX == 3 && defined(STALL)
#define REFILL ([]<> AXNE(1) && []<> AXNE(2))
#elif NAX == 3
#define REFILL ([]<> AXNE(0) && []<> AXNE(1) && []<> AXNE(2))
#elif defined(STALL) || !defined(REFILL_ALL)
#define REFILL ([]<> AXNE(1))  /* without a stall, core 0 is core 1's mirror */
#else
#define REFILL ([]<> AXNE(0) && []<> AXNE(1))
#endif

#ifdef EV_PROGRESS
/* (d) once core STALLER has stalled, the healthy core WATCH keeps receiving
 * while packets for it keep coming. (Without the stall the property is false
 * for a reason outside the protocol: with two healthy cores a scheduler can
 * offer WATCH's packets only at instants when every Ax it may use is empty;
 * see docs/model.md.) */
#ifdef STALL
#define STALLED (cph[STALLER] == C_DEAD)
#else
#define STALLED (1 == 1)
#endif
ltl progress { (<> STALLED && []<> TICKOK && []<> (ev_arr == 1)) -> []<> (ev_recv == 1) }
#else
ltl refill { ([]<> TICKOK) -> REFILL }
#endif
