/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* describe IN_CAPS OUT_CAPS FILTER: the resolved description of a
 * conversion (as cudaconvertscale makes it, frames in host memory) as a C
 * array, DESCRIPTION_BYTES; its kernel path on stderr. */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <gst/gst.h>
#include <gst/video/video.h>

#include "convert/gstcsconvertdesc.hpp"
#include "convert_scale.h"

namespace gpu = gst_cs::gpu;

int
main (int argc, char ** argv)
{
  if (argc < 4) {
    std::fprintf (stderr, "describe IN_CAPS OUT_CAPS FILTER(0-3)\n");
    return 2;
  }
  gst_init (NULL, NULL);
  GstVideoInfo vi[2];
  guint8 * data[2];
  for (int k = 0; k < 2; k++) {
    GstCaps * caps = gst_caps_from_string (argv[1 + k]);
    if (!caps || !gst_video_info_from_caps (&vi[k], caps)) {
      std::fprintf (stderr, "not video caps: %s\n", argv[1 + k]);
      return 1;
    }
    gst_caps_unref (caps);
    data[k] = (guint8 *)g_malloc (GST_VIDEO_INFO_SIZE (&vi[k]));
  }
  gst_cs::ConvertSettings s;
  s.filter = (gpu::Filter)std::atoi (argv[3]);
  gpu::ConvertScale op, resolved;
  gst_cs::describe_convert (&vi[0], &vi[1], 0, 0, vi[0].width, vi[0].height, s, &op);
  op.in = gst_cs::convert_image (&vi[0], &vi[0], data[0], false);
  op.out = gst_cs::convert_image (&vi[1], &vi[1], data[1], true);
  if (!gpu::convert_scale_resolve (op, &resolved)) {
    std::fprintf (stderr, "refused\n");
    return 1;
  }
  std::fprintf (stderr, "%s\n", gpu::convert_scale_path (resolved));
  unsigned char bytes[sizeof resolved];
  std::memcpy (bytes, &resolved, sizeof resolved);
  std::printf ("#define DESCRIPTION_BYTES {");
  for (size_t i = 0; i < sizeof bytes; i++)
    std::printf ("%s%u", i ? "," : "", bytes[i]);
  std::printf ("}\n");
  return 0;
}
