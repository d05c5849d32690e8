/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one place where the CPU blocks on the GPU (private: the library and
 * the plugin, not installed). */
#pragma once

#include <gst/gst.h>
#include <cuda_runtime_api.h>

#include "gstcshostwait.h"

G_BEGIN_DECLS

/* Called right before a thread blocks on the GPU (see
 * gst_cs_host_wait_set_hook()). */
typedef void (*GstCsHostWaitHook) (void);

/* clang-format off */
GST_CS_API
void     gst_cs_wait_counter_reset (GstCsWaitCounter * counter);

GST_CS_API
gboolean gst_cs_host_wait_event    (cudaEvent_t        event,
                                    GstCsWaitCounter * counter,
                                    GError          ** error);

GST_CS_API
gboolean gst_cs_host_poll_event    (cudaEvent_t        event,
                                    GstCsWaitCounter * counter,
                                    GError          ** error);

GST_CS_API
gboolean gst_cs_host_wait_stream   (cudaStream_t       stream,
                                    GstCsWaitCounter * counter,
                                    GError          ** error);

GST_CS_API
void     gst_cs_host_wait_count    (GstCsWaitCounter * counter);

GST_CS_API
void     gst_cs_host_wait_set_hook (GstCsHostWaitHook  hook);

/* clang-format on */

G_END_DECLS
