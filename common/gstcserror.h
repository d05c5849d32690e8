/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The error domain of the library. */
#pragma once

#include <gst/gst.h>

#include "cudastreams-prelude.h"

G_BEGIN_DECLS

/**
 * GST_CS_ERROR:
 *
 * Error domain of the gst-cudastreams library ("gst-cs-error-quark").
 *
 * Since: 0.1
 */
#define GST_CS_ERROR (gst_cs_error_quark ())

/**
 * GstCsError:
 * @GST_CS_ERROR_CUDA: a CUDA runtime call failed
 * @GST_CS_ERROR_NO_DEVICE: no usable CUDA device
 * @GST_CS_ERROR_OUT_OF_MEMORY: device or pinned host memory is exhausted
 * @GST_CS_ERROR_INVALID: invalid input (layout, size, arguments)
 *
 * Since: 0.1
 */
typedef enum {
  GST_CS_ERROR_CUDA,
  GST_CS_ERROR_NO_DEVICE,
  GST_CS_ERROR_OUT_OF_MEMORY,
  GST_CS_ERROR_INVALID,
} GstCsError;

/* clang-format off */
GST_CS_API
GQuark   gst_cs_error_quark (void);

/* clang-format on */

G_END_DECLS
