/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "rxb/common.h"

const char *const rxb_drop_cause_name[RXB_DROP_CAUSES] = {
	[RXB_DROP_NO_RX_DESC] = "no_rx_desc", [RXB_DROP_NO_AX_BUF] = "no_ax_buf",
	[RXB_DROP_NO_BX_SLOT] = "no_bx_slot", [RXB_DROP_CR_FULL] = "cr_full",
	[RXB_DROP_PIPELINE] = "pipeline",
};

static void err_vset(struct rxb_err *err, int code, const char *fmt, va_list ap)
{
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	err->code = code;
}

void rxb_err_set(struct rxb_err *err, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return;
	va_start(ap, fmt);
	err_vset(err, -EINVAL, fmt, ap);
	va_end(ap);
}

int rxb_err_fail(struct rxb_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return code;
	va_start(ap, fmt);
	err_vset(err, code, fmt, ap);
	va_end(ap);
	return code;
}

int rxb_check_ring_size(const char *field, uint32_t size, struct rxb_err *err)
{
	if (size < RXB_RING_MIN || size > RXB_RING_MAX || !rxb_is_pow2(size)) {
		rxb_err_set(err, "%s = %u: must be a power of two in [%u, %u]", field, size,
			    RXB_RING_MIN, RXB_RING_MAX);
		return -EINVAL;
	}
	return 0;
}

int rxb_check_desc_prefetch(const char *field, uint32_t prefetch, struct rxb_err *err)
{
	if (prefetch > RXB_DESC_PREFETCH_MAX) {
		rxb_err_set(err, "%s = %u: must be in [0, %u] (0 = the default)", field, prefetch,
			    RXB_DESC_PREFETCH_MAX);
		return -EINVAL;
	}
	return 0;
}

const char *const rxb_nic_counter_name[RXB_NIC_COUNTERS] = {
	[RXB_NIC_OFFERED] = "offered",
	[RXB_NIC_DELIVERED] = "delivered",
	[RXB_NIC_DROP_FIRST + RXB_DROP_NO_RX_DESC] = "drop_no_rx_desc",
	[RXB_NIC_DROP_FIRST + RXB_DROP_NO_AX_BUF] = "drop_no_ax_buf",
	[RXB_NIC_DROP_FIRST + RXB_DROP_NO_BX_SLOT] = "drop_no_bx_slot",
	[RXB_NIC_DROP_FIRST + RXB_DROP_CR_FULL] = "drop_cr_full",
	[RXB_NIC_DROP_FIRST + RXB_DROP_PIPELINE] = "drop_pipeline",
	[RXB_NIC_DESC_READS] = "desc_reads",
	[RXB_NIC_DESC_FETCHED] = "desc_fetched",
	[RXB_NIC_CMPL_WRITES] = "cmpl_writes",
	[RXB_NIC_NOTICES] = "notices",
	[RXB_NIC_NOTICES_COALESCED] = "notices_coalesced",
};

const char *const rxb_sw_counter_name[RXB_SW_COUNTERS] = {
	[RXB_SW_POLLS] = "polls",
	[RXB_SW_EMPTY_POLLS] = "empty_polls",
	[RXB_SW_RECEIVED] = "received",
	[RXB_SW_POSTED] = "posted",
	[RXB_SW_DOORBELLS] = "doorbells",
	[RXB_SW_NOTICES] = "notices",
	[RXB_SW_ALLOC_FAIL] = "alloc_fail",
	[RXB_SW_FREED] = "freed",
	[RXB_SW_LOCK_ACQUIRES] = "lock_acquires",
	[RXB_SW_BITMAP_ORS] = "bitmap_ors",
	[RXB_SW_RETURNED] = "returned",
	[RXB_SW_ORDER_ERRORS] = "order_errors",
	[RXB_SW_RECYCLED] = "recycled",
	[RXB_SW_DEFERRED] = "deferred",
	[RXB_SW_BX_ENTRIES] = "bx_entries",
};
