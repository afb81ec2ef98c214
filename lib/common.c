/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "rxb/common.h"

const char *const rxb_drop_cause_name[RXB_DROP_CAUSES] = {
	[RXB_DROP_NO_RX_DESC] = "no_rx_desc",
	[RXB_DROP_NO_AX_BUF] = "no_ax_buf",
	[RXB_DROP_NO_BX_SLOT] = "no_bx_slot",
	[RXB_DROP_CR_FULL] = "cr_full",
	[RXB_DROP_PIPELINE] = "pipeline",
};

void rxb_err_set(struct rxb_err *err, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

int rxb_check_ring_size(const char *field, uint32_t size, struct rxb_err *err)
{
	if (size < RXB_RING_MIN || size > RXB_RING_MAX || !rxb_is_pow2(size)) {
		rxb_err_set(err, "%s = %u: must be a power of two in [%u, %u]", field,
			    size, RXB_RING_MIN, RXB_RING_MAX);
		return -EINVAL;
	}
	return 0;
}
