/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* describe IN_CAPS OUT_CAPS FILTER BODY: the resolved description of a
 * conversion (as cudaconvertscale makes it, frames in host memory) as a C
 * array, DESCRIPTION_BYTES; the launch of kernels.cu's BODY as the build
 * launches that family (NBX, NBY, ROWS); the frames' sizes and where they
 * lay (IN_SIZE, IN_BASE, OUT_SIZE, OUT_BASE) for bench.cu; the kernel
 * path on stderr. */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <gst/gst.h>
#include <gst/video/video.h>

#include "convert/gstcsconvertdesc.hpp"
#include "convert_scale.h"
#include "convert_scale_tap_tile.h"
#include "convert_scale_two_tap.h"

namespace gpu = gst_cs::gpu;

int
main (int argc, char ** argv)
{
  if (argc < 5) {
    std::fprintf (stderr, "describe IN_CAPS OUT_CAPS FILTER(0-3) BODY(1-4)\n");
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
  const int body = std::atoi (argv[4]);
  const int nbx = gpu::pixels::blocks_x (resolved.out);
  const int nby = gpu::pixels::blocks_y (resolved.out);
  int rows = gpu::two_tap::kTileY;
  if (body == 3)
    rows = gpu::two_tap::tile_rows (
        nbx, nby, gpu::two_tap::tall_tiles<gpu::two_tap::AnyMembers> (resolved));
  else if (body == 4)
    rows = gpu::tap_tile::tile_rows (nbx, nby);
  std::printf ("#define NBX %d\n#define NBY %d\n#define ROWS %d\n", nbx, nby, rows);
  std::printf ("#define IN_SIZE %zuu\n#define IN_BASE %zuull\n",
      (size_t)GST_VIDEO_INFO_SIZE (&vi[0]), (size_t)data[0]);
  std::printf ("#define OUT_SIZE %zuu\n#define OUT_BASE %zuull\n",
      (size_t)GST_VIDEO_INFO_SIZE (&vi[1]), (size_t)data[1]);
  return 0;
}
