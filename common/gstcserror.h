/* Turning CUDA failures into GErrors and element errors that name the call. */
#pragma once

#include <gst/gst.h>
#include <cuda_runtime_api.h>

#include "gstcsapi.h"

G_BEGIN_DECLS

/**
 * GST_CS_ERROR:
 *
 * Error domain of the gst-cudastreams library.
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

GST_CS_API GQuark   gst_cs_error_quark   (void);

/**
 * gst_cs_cuda_check:
 * @err: the result of a CUDA runtime call
 * @call: the text of the call (its function name is used)
 * @error: (out) (optional): set when @err is not cudaSuccess
 *
 * Returns: %TRUE when @err is cudaSuccess. Otherwise sets @error to a message
 * naming the call, the CUDA error name and its description, and clears the
 * sticky last-error state of the runtime.
 *
 * Since: 0.1
 */
GST_CS_API gboolean gst_cs_cuda_check    (cudaError_t   err,
                                          const gchar * call,
                                          GError     ** error);

/**
 * gst_cs_element_post_error:
 * @element: the element posting the error
 * @error: (transfer full): the error
 * @what: what the element was doing, for the user ("uploading a frame")
 * @file, @function, @line: the source location
 *
 * Posts @error as a GST_MESSAGE_ERROR of @element and frees it.
 *
 * Since: 0.1
 */
GST_CS_API void     gst_cs_element_post_error (GstElement  * element,
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

G_END_DECLS
