/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A stand-in for GStreamer's nvcodec in the tests of `import cudastreams`
 * (test_doctor.py): a plugin that registers the names nvcodec shares with
 * ours (cudaupload, cudadownload, cudaconvertscale) as plain pass-through
 * elements, so that which plugin holds a name after the import is checked
 * where no GPU lets nvcodec register its own. */
#include <gst/base/gstbasetransform.h>
#include <gst/gst.h>

#define PACKAGE "gst-cudastreams-tests"

typedef struct {
  GstBaseTransform parent;
} PeerElement;

typedef struct {
  GstBaseTransformClass parent_class;
} PeerElementClass;

G_DEFINE_TYPE (PeerElement, peer_element, GST_TYPE_BASE_TRANSFORM);

static GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE ("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

static void
peer_element_class_init (PeerElementClass * klass)
{
  GstElementClass * element_class = GST_ELEMENT_CLASS (klass);
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "nvcodec stand-in", "Filter",
      "Holds a name nvcodec shares with gst-cudastreams", "gst-cudastreams tests");
  GST_BASE_TRANSFORM_CLASS (klass)->passthrough_on_same_caps = TRUE;
}

static void
peer_element_init (PeerElement * self)
{
  (void)self;
}

static gboolean
plugin_init (GstPlugin * plugin)
{
  static const char * const names[] = { "cudaupload", "cudadownload",
    "cudaconvertscale" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (!gst_element_register (plugin, names[i], GST_RANK_NONE, peer_element_get_type ()))
      return FALSE;
  return TRUE;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, nvcodecpeer,
    "Stand-in for nvcodec's elements of shared names", plugin_init, "1.0", "LGPL",
    "gst-cudastreams-tests", "https://gstreamer.freedesktop.org")
