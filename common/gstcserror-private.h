/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Turning CUDA failures into GErrors and element errors that name the call
 * (private: the library and the plugin, not installed). */
#pragma once

#include <gst/gst.h>
#include <cuda_runtime_api.h>

#include "gstcserror.h"

G_BEGIN_DECLS

/* clang-format off */
GST_CS_API
gboolean gst_cs_cuda_check        (cudaError_t   err,
                                   const gchar * call,
                                   GError     ** error);

GST_CS_API
void     gst_cs_element_post_error (GstElement  * element,
                                    GError      * error,
                                    const gchar * what,
                                    const gchar * file,
                                    const gchar * function,
                                    gint          line);

/* Evaluates a CUDA call; on failure sets *error and evaluates to FALSE. */
#define GST_CS_CHECK(call, error) gst_cs_cuda_check ((call), #call, (error))

/* Posts @err (a GError*) as an element error with the caller's location. */
#define GST_CS_POST_ERROR(element, err, what) \
  gst_cs_element_post_error (GST_ELEMENT_CAST (element), (err), (what), \
      __FILE__, GST_FUNCTION, __LINE__)

/* clang-format on */

G_END_DECLS
