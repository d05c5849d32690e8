/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Ordering our stream after a stream the library knows nothing else of
 * (nvcodec's, another framework's), on the GPU (private: the library and
 * the plugin, not installed). */
#pragma once

#include <gst/gst.h>
#include <cuda_runtime_api.h>

#include "cudastreams-prelude.h"

G_BEGIN_DECLS

/* clang-format off */
GST_CS_API
gboolean gst_cs_stream_wait_stream (gint           device,
                                    cudaStream_t   waiter,
                                    cudaStream_t   producer,
                                    GError      ** error);
/* clang-format on */

G_END_DECLS
