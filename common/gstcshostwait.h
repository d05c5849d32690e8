/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Counting the times the CPU blocks on the GPU. */
#pragma once

#include <gst/gst.h>

#include "cudastreams-prelude.h"

G_BEGIN_DECLS

/**
 * GstCsWaitCounter:
 *
 * A count of host waits made for one owner (an element, a pool, an
 * application). Every host-blocking CUDA call of the library is counted in
 * its owner's counter, when it has one, and in a process-wide total, so
 * tests and benchmarks can tell who waited and how often. Zero-initialise
 * it; read it with gst_cs_wait_counter_get().
 *
 * Since: 0.1
 */
typedef struct {
  /*< private >*/
  guint64 waits;
  gpointer _gst_reserved[GST_PADDING];
} GstCsWaitCounter;

/* clang-format off */
GST_CS_API
guint64 gst_cs_wait_counter_get (const GstCsWaitCounter * counter);

GST_CS_API
guint64 gst_cs_host_waits_total (void);

/* clang-format on */

G_END_DECLS
