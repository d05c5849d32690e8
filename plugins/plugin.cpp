/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cudastreams plugin: registers the elements and the tracer. */
#include "config.h"

#include <gst/gst.h>

#include "batch/gstcsbatch.h"
#include "gstcsconvertscale.h"
#include "gstcscrop.h"
#include "gstcsdownload.h"
#include "gstcsupload.h"
#include "ipc/gstcsipcsink.h"
#include "ipc/gstcsipcsrc.h"
#include "tracer/gstcstracer.h"

GST_DEBUG_CATEGORY_STATIC (gst_cs_plugin_debug);
#define GST_CAT_DEFAULT gst_cs_plugin_debug

/* GStreamer's nvcodec registers cudaupload and cudadownload too (and
 * cudaconvertscale from 1.24). Of two
 * features with one name, the one registered last replaces the other in the
 * registry, also when a plugin is loaded while an element of the other
 * already exists (whose factory is then freed under it), so the name would
 * mean whichever plugin loaded last in the process. A name another plugin
 * holds is therefore left to it; ours are always reachable under the
 * cudastreams* names. */
static gboolean
register_shared_name (GstPlugin * plugin, const gchar * name, GType type)
{
  if (GstPluginFeature * held = gst_registry_lookup_feature (gst_registry_get (), name)) {
    const gchar * owner = gst_plugin_feature_get_plugin_name (held);
    const gboolean other = owner && g_strcmp0 (owner, gst_plugin_get_name (plugin)) != 0;
    if (other)
      GST_INFO ("%s is %s's: ours is cudastreams%s only", name, owner, name + 4);
    gst_object_unref (held);
    if (other)
      return TRUE;
  }
  return gst_element_register (plugin, name, GST_RANK_NONE, type);
}

static gboolean
plugin_init (GstPlugin * plugin)
{
  GST_DEBUG_CATEGORY_INIT (gst_cs_plugin_debug, "csplugin", 0, "gst-cudastreams plugin");
  /* Registration touches no CUDA API, so the elements are inspectable on a
   * machine without a GPU; they fail to start there with a clear error. */
  gboolean ok = TRUE;
  ok &= gst_element_register (
      plugin, "cudastreamsupload", GST_RANK_NONE, GST_TYPE_CS_UPLOAD);
  ok &= gst_element_register (plugin, "cudastreamscrop", GST_RANK_NONE, GST_TYPE_CS_CROP);
  ok &= gst_element_register (
      plugin, "cudastreamsdownload", GST_RANK_NONE, GST_TYPE_CS_DOWNLOAD);
  ok &= gst_element_register (
      plugin, "cudastreamsconvertscale", GST_RANK_NONE, GST_TYPE_CS_CONVERT_SCALE);
  ok &=
      gst_element_register (plugin, "cudastreamsbatch", GST_RANK_NONE, GST_TYPE_CS_BATCH);
  ok &= register_shared_name (plugin, "cudabatch", GST_TYPE_CS_BATCH);
  /* Processes sharing frames on the GPU: names of our own only (nvcodec
   * has cudaipcsink and cudaipcsrc). */
  ok &= gst_element_register (
      plugin, "cudastreamsipcsink", GST_RANK_NONE, GST_TYPE_CS_IPC_SINK);
  ok &= gst_element_register (
      plugin, "cudastreamsipcsrc", GST_RANK_NONE, GST_TYPE_CS_IPC_SRC);
  ok &= register_shared_name (plugin, "cudaupload", GST_TYPE_CS_UPLOAD);
  ok &= register_shared_name (plugin, "cudacrop", GST_TYPE_CS_CROP);
  ok &= register_shared_name (plugin, "cudadownload", GST_TYPE_CS_DOWNLOAD);
  ok &= register_shared_name (plugin, "cudaconvertscale", GST_TYPE_CS_CONVERT_SCALE);
  /* GST_TRACERS=cudastreamstrace: GPU time per element (plugins/tracer/).
   * Not the plugin's name: gst-inspect-1.0 shows the feature of a name
   * before the plugin of that name. */
  ok &= gst_tracer_register (plugin, "cudastreamstrace", GST_TYPE_CS_TRACER);
  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, cudastreams,
    "CUDA elements that order their GPU work with events across streams", plugin_init,
    VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
