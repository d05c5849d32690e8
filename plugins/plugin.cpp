/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cudastreams plugin: registers the elements. */
#include "config.h"

#include <gst/gst.h>

#include "gstcscrop.h"
#include "gstcsdownload.h"
#include "gstcsupload.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  /* Registration touches no CUDA API, so the elements are inspectable on a
   * machine without a GPU; they fail to start there with a clear error. */
  gboolean ok = FALSE;
  ok |= GST_ELEMENT_REGISTER (cudaupload, plugin);
  ok |= GST_ELEMENT_REGISTER (cudacrop, plugin);
  ok |= GST_ELEMENT_REGISTER (cudadownload, plugin);
  /* GStreamer's nvcodec plugin registers cudaupload and cudadownload too,
   * and of two features with one name the plugin scanned last wins. The
   * same elements under names nobody else uses pick ours for certain. */
  ok |= gst_element_register (
      plugin, "cudastreamsupload", GST_RANK_NONE, GST_TYPE_CS_UPLOAD);
  ok |= gst_element_register (plugin, "cudastreamscrop", GST_RANK_NONE, GST_TYPE_CS_CROP);
  ok |= gst_element_register (
      plugin, "cudastreamsdownload", GST_RANK_NONE, GST_TYPE_CS_DOWNLOAD);
  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, cudastreams,
    "CUDA elements that order their GPU work with events across streams", plugin_init,
    VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
