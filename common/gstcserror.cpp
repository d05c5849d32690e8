/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcserror-private.h"

#include <string>

/**
 * gst_cs_error_quark:
 *
 * Returns: the quark of the #GST_CS_ERROR domain
 *
 * Since: 0.1
 */
GQuark
gst_cs_error_quark (void)
{
  /* Spelled out rather than G_DEFINE_QUARK, whose first argument becomes the
   * string: a formatter that spaces it ("gst - cs - ...") changes it. */
  return g_quark_from_static_string ("gst-cs-error-quark");
}

/**
 * gst_cs_cuda_check:
 * @err: the result of a CUDA runtime call
 * @call: the text of the call (its function name is used)
 * @error: (out) (optional): set when @err is not cudaSuccess
 *
 * Returns: %TRUE when @err is cudaSuccess. Otherwise sets @error to a message
 * naming the call, the CUDA error name and its description, and clears the
 * runtime's last-error state.
 */
gboolean
gst_cs_cuda_check (cudaError_t err, const gchar * call, GError ** error)
{
  if (G_LIKELY (err == cudaSuccess))
    return TRUE;

  /* "cudaMemcpy2DAsync (dst, ...)" -> "cudaMemcpy2DAsync" */
  std::string name = call ? call : "CUDA call";
  auto paren = name.find ('(');
  if (paren != std::string::npos)
    name.erase (paren);
  while (!name.empty () && name.back () == ' ')
    name.pop_back ();

  gint code = GST_CS_ERROR_CUDA;
  if (err == cudaErrorMemoryAllocation)
    code = GST_CS_ERROR_OUT_OF_MEMORY;
  else if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver ||
           err == cudaErrorInvalidDevice)
    code = GST_CS_ERROR_NO_DEVICE;

  g_set_error (error, GST_CS_ERROR, code, "%s failed: %s (%s)", name.c_str (),
      cudaGetErrorName (err), cudaGetErrorString (err));
  /* A non-sticky error stays in the runtime's last-error slot; clear it so a
   * later cudaGetLastError() after a kernel launch reports that launch. */
  (void)cudaGetLastError ();
  return FALSE;
}

/**
 * gst_cs_element_post_error:
 * @element: the element posting the error
 * @error: (transfer full): the error
 * @what: what the element was doing, for the user ("uploading a frame")
 * @file: the source file
 * @function: the function
 * @line: the line
 *
 * Posts @error as a GST_MESSAGE_ERROR of @element and frees it.
 */
void
gst_cs_element_post_error (GstElement * element, GError * error, const gchar * what,
    const gchar * file, const gchar * function, gint line)
{
  g_return_if_fail (error != NULL);

  GQuark domain = GST_RESOURCE_ERROR;
  gint code = GST_RESOURCE_ERROR_FAILED;
  if (error->domain == GST_CS_ERROR) {
    switch (error->code) {
      case GST_CS_ERROR_NO_DEVICE:
        code = GST_RESOURCE_ERROR_NOT_FOUND;
        break;
      case GST_CS_ERROR_OUT_OF_MEMORY:
        code = GST_RESOURCE_ERROR_NO_SPACE_LEFT;
        break;
      case GST_CS_ERROR_INVALID:
        domain = GST_STREAM_ERROR;
        code = GST_STREAM_ERROR_FORMAT;
        break;
      default:
        break;
    }
  } else {
    domain = error->domain;
    code = error->code;
  }

  gchar * text =
      g_strdup_printf ("%s%s%s", what ? what : "", what ? ": " : "", error->message);
  gst_element_message_full (element, GST_MESSAGE_ERROR, domain, code, text,
      g_strdup (error->message), file, function, line);
  g_error_free (error);
}
