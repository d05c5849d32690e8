/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* An application of the installed library: built by check.sh with nothing but
 * `pkg-config --cflags --libs gstreamer-cudastreams-1.0`, as C. It needs no
 * GPU: it checks what the public API says without one. */
#include <stdio.h>
#include <string.h>

#include <gst/cudastreams/gstcudastreams.h>

#define CHECK(cond) \
  do { \
    if (!(cond)) { \
      fprintf (stderr, "app: %s failed\n", #cond); \
      return 1; \
    } \
  } while (0)

int
main (int argc, char ** argv)
{
  gst_init (&argc, &argv);
  CHECK (strcmp (g_quark_to_string (GST_CS_ERROR), "gst-cs-error-quark") == 0);
  CHECK (strcmp (GST_CAPS_FEATURE_MEMORY_CS, "memory:" GST_CS_MEMORY_TYPE) == 0);
  /* the sync meta describes the memory's pixels */
  CHECK (gst_meta_api_type_has_tag (
      GST_CS_SYNC_META_API_TYPE, g_quark_from_static_string (GST_META_TAG_MEMORY_STR)));
  CHECK (GST_CS_SYNC_META_INFO != NULL);
  CHECK (g_type_is_a (GST_TYPE_CS_STREAM_POOL, GST_TYPE_OBJECT));
  CHECK (g_type_is_a (GST_TYPE_CS_ALLOCATOR, GST_TYPE_ALLOCATOR));
  GstBuffer * buf = gst_buffer_new ();
  CHECK (gst_buffer_get_cs_sync_meta (buf) == NULL);
  CHECK (!gst_is_cs_memory (NULL));
  gst_buffer_unref (buf);
  CHECK (gst_cs_host_waits_total () == 0);
  printf ("app: the installed gst-cudastreams API works\n");
  return 0;
}
