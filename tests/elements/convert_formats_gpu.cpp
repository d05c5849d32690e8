/* SPDX-License-Identifier: LGPL-2.1-or-later */
// On a GPU: cudaconvertscale reads and writes every raw format GStreamer's
// video library lists (gst_video_format_get_info, not a list of ours) that
// the converter takes (gst_cs_convert_formats): each to and from one
// format of each family, unscaled, on random codes of an odd size. Its
// frames are, bit for bit, those of the kernel's CPU twin, and within a
// code of the exact colour arithmetic computed here in double (each side's
// matrix and range from its caps, chroma reconstructed bilinearly where
// its siting puts it, rounded once): mean error <= 0.5 code, max <= 1.
// Scaled, each is bit for bit the twin, and, within itself on smooth
// codes, at least 40 dB from videoconvertscale.
//
// Frames are written and read with GStreamer's own pack and unpack
// functions, so that the test knows every code without the converter's
// description of the format.
#include <gst/check/gstcheck.h>

#include <cmath>
#include <string>
#include <vector>

#include "convert/gstcsconvertcaps.h"
#include "convert/gstcsconvertdesc.hpp"
#include "convert_scale.h"
#include "gstcsbufferpool-private.h"
#include "gstcudastreams.h"
#include "testutil.h"

namespace gpu = gst_cs::gpu;

/* Partial blocks of 4:1:1 and 4:1:0 across, of every vertical
 * subsampling down. An even width: GStreamer 1.22 packs and unpacks the
 * last chroma of an odd VYUY row as UYVY's. */
constexpr gint kWidth = 14, kHeight = 9;

/* One format of each family. */
static const char * const families[] = { "I420", "NV12", "YUY2", "RGB", "RGBA64_LE",
  "BGR10A2_LE", "GRAY8", "GBR" };

/* A frame's codes, per component on its own grid. */
struct Codes {
  guint n = 0;
  gint w[4] = {}, h[4] = {};
  std::vector<guint> c[4];
  guint at (guint k, gint x, gint y) const { return c[k][y * w[k] + x]; }
};

/* A format's components as its codes are read and written here: a
 * palette format's (RGB8P, which GStreamer describes as an index and a
 * palette) are its entries' R, G, B and A, 8 bits each. */
static guint
comps (const GstVideoFormatInfo * f)
{
  return GST_VIDEO_FORMAT_INFO_HAS_PALETTE (f) ? 4
                                               : GST_VIDEO_FORMAT_INFO_N_COMPONENTS (f);
}

static guint
comp_depth (const GstVideoFormatInfo * f, guint k)
{
  return GST_VIDEO_FORMAT_INFO_HAS_PALETTE (f) ? 8 : GST_VIDEO_FORMAT_INFO_DEPTH (f, k);
}

/* The format whose ranges `info`'s codes follow: a palette's entries are
 * ARGB. */
static const GstVideoFormatInfo *
colour_format (const GstVideoInfo * info)
{
  return GST_VIDEO_FORMAT_INFO_HAS_PALETTE (info->finfo)
             ? gst_video_format_get_info (info->finfo->unpack_format)
             : info->finfo;
}

static gint
unpacked_bits (const GstVideoFormatInfo * f)
{
  return GST_VIDEO_FORMAT_INFO_DEPTH (gst_video_format_get_info (f->unpack_format), 0);
}

static Codes read (const GstVideoFrame * frame);

/* Writes random codes (or, `smooth`, two waves of random direction and
 * phase a component: what a scaler must reproduce) into `frame` with the
 * format's pack function. A palette frame (RGB8P) gets random colours, or
 * (smooth) a ramp of colours, and its first component's codes as indices;
 * its codes are then read back. */
static Codes
fill (GstVideoFrame * frame, GRand * rand, bool smooth = false)
{
  const GstVideoFormatInfo * f = frame->info.finfo;
  const gint width = GST_VIDEO_FRAME_WIDTH (frame),
             height = GST_VIDEO_FRAME_HEIGHT (frame);
  const bool palette = GST_VIDEO_FORMAT_INFO_HAS_PALETTE (f);
  if (palette)
    testutil::fill_palette (frame, smooth, rand);
  Codes codes;
  codes.n = comps (f);
  for (guint k = 0; k < codes.n; k++) {
    codes.w[k] = GST_VIDEO_FRAME_COMP_WIDTH (frame, k);
    codes.h[k] = GST_VIDEO_FRAME_COMP_HEIGHT (frame, k);
    const guint max = (1u << comp_depth (f, k)) - 1;
    double wave[2][3] = {};
    for (auto & w : wave)
      for (double & v : w)
        if (smooth) /* random codes keep the draws they had */
          v = g_rand_double_range (rand, 0.5, 3.0);
    for (gint y = 0; y < codes.h[k]; y++)
      for (gint x = 0; x < codes.w[k]; x++) {
        if (!smooth) {
          codes.c[k].push_back ((guint)g_rand_int_range (rand, 0, (gint32)max + 1));
          continue;
        }
        const double u = 6.2832 * x / codes.w[k], v = 6.2832 * y / codes.h[k];
        const double a = std::sin (wave[0][0] * u + wave[0][1] * v + wave[0][2]) +
                         std::sin (wave[1][0] * u - wave[1][1] * v + 2.0 * wave[1][2]);
        codes.c[k].push_back ((guint)std::lround ((0.5 + 0.22 * a) * max));
      }
  }
  if (palette) {
    for (gint y = 0; y < height; y++)
      for (gint x = 0; x < width; x++)
        ((guint8 *)GST_VIDEO_FRAME_PLANE_DATA (
            frame, 0))[y * GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0) + x] =
            (guint8)codes.at (0, x, y);
    return read (frame);
  }
  const gint ub = unpacked_bits (f);
  std::vector<guint16> wide (width * 4);
  std::vector<guint8> narrow (width * 4);
  for (gint y = 0; y < height; y++) {
    for (gint x = 0; x < width; x++)
      for (guint k = 0; k < 4; k++) {
        const gint ui = k == 3 ? 0 : (gint)k + 1; /* AYUV / ARGB order */
        guint v = (1u << ub) - 1;                 /* opaque where no alpha */
        if (k < codes.n)
          v = codes.at (k, x >> GST_VIDEO_FORMAT_INFO_W_SUB (f, k),
                  y >> GST_VIDEO_FORMAT_INFO_H_SUB (f, k))
              << (ub - comp_depth (f, k));
        else if (k < 3)
          v = 1u << (ub - 1);
        wide[x * 4 + ui] = (guint16)v;
        narrow[x * 4 + ui] = (guint8)v;
      }
    f->pack_func (f, GST_VIDEO_PACK_FLAG_NONE,
        ub > 8 ? (gpointer)wide.data () : (gpointer)narrow.data (), 0, frame->data,
        frame->info.stride, frame->info.chroma_site, y, width);
  }
  return codes;
}

/* The codes of `frame`, read with the format's unpack function. */
static Codes
read (const GstVideoFrame * frame)
{
  const GstVideoFormatInfo * f = frame->info.finfo;
  Codes codes;
  codes.n = comps (f);
  const gint ub = unpacked_bits (f);
  const gint width = GST_VIDEO_FRAME_WIDTH (frame),
             height = GST_VIDEO_FRAME_HEIGHT (frame);
  std::vector<guint16> wide (width * 4);
  std::vector<guint8> narrow (width * 4);
  for (guint k = 0; k < codes.n; k++) {
    codes.w[k] = GST_VIDEO_FRAME_COMP_WIDTH (frame, k);
    codes.h[k] = GST_VIDEO_FRAME_COMP_HEIGHT (frame, k);
    codes.c[k].resize (codes.w[k] * codes.h[k]);
  }
  for (gint y = 0; y < height; y++) {
    f->unpack_func (f, GST_VIDEO_PACK_FLAG_NONE,
        ub > 8 ? (gpointer)wide.data () : (gpointer)narrow.data (), frame->data,
        frame->info.stride, 0, y, width);
    for (guint k = 0; k < codes.n; k++) {
      const gint ws = GST_VIDEO_FORMAT_INFO_W_SUB (f, k),
                 hs = GST_VIDEO_FORMAT_INFO_H_SUB (f, k);
      if (y & ((1 << hs) - 1))
        continue;
      const gint ui = k == 3 ? 0 : (gint)k + 1;
      for (gint x = 0; x < codes.w[k]; x++) {
        const guint v = ub > 8 ? wide[(x << ws) * 4 + ui] : narrow[(x << ws) * 4 + ui];
        codes.c[k][(y >> hs) * codes.w[k] + x] = v >> (ub - comp_depth (f, k));
      }
    }
  }
  return codes;
}

/* --- the exact colour arithmetic --------------------------------------- */

typedef double Affine[3][4];

static void
weights (const GstVideoInfo * info, double * kr, double * kb)
{
  if (!gst_video_color_matrix_get_Kr_Kb (info->colorimetry.matrix, kr, kb))
    gst_video_color_matrix_get_Kr_Kb (GST_VIDEO_COLOR_MATRIX_BT709, kr, kb);
}

/* Codes of `info` to R'G'B' in 0..1 (rows R, G, B; columns the codes of
 * components 0..2 and 1). */
static void
to_rgb (const GstVideoInfo * info, Affine a)
{
  gint off[4], scale[4];
  gst_video_color_range_offsets (
      info->colorimetry.range, colour_format (info), off, scale);
  double n[3][4] = {};
  for (int i = 0; i < 3; i++) /* gray: no chroma (scale 0) */
    if (scale[i])
      n[i][i] = 1.0 / scale[i], n[i][3] = -(double)off[i] / scale[i];
  double m[3][3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
  if (GST_VIDEO_INFO_IS_GRAY (info)) {
    for (int i = 0; i < 3; i++)
      m[i][0] = 1.0, m[i][1] = m[i][2] = 0.0;
  } else if (GST_VIDEO_INFO_IS_YUV (info)) {
    double kr, kb;
    weights (info, &kr, &kb);
    const double kg = 1.0 - kr - kb;
    const double y2r[3][3] = { { 1.0, 0.0, 2.0 * (1.0 - kr) },
      { 1.0, -2.0 * kb * (1.0 - kb) / kg, -2.0 * kr * (1.0 - kr) / kg },
      { 1.0, 2.0 * (1.0 - kb), 0.0 } };
    memcpy (m, y2r, sizeof m);
  }
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++) {
      a[i][j] = 0.0;
      for (int k = 0; k < 3; k++)
        a[i][j] += m[i][k] * n[k][j];
    }
}

/* R'G'B' to codes of `info`. */
static void
from_rgb (const GstVideoInfo * info, Affine a)
{
  gint off[4], scale[4];
  gst_video_color_range_offsets (
      info->colorimetry.range, colour_format (info), off, scale);
  double m[3][3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
  if (!GST_VIDEO_INFO_IS_RGB (info)) {
    double kr, kb;
    weights (info, &kr, &kb);
    const double kg = 1.0 - kr - kb;
    const double r2y[3][3] = { { kr, kg, kb },
      { -kr / (2.0 * (1.0 - kb)), -kg / (2.0 * (1.0 - kb)), 0.5 },
      { 0.5, -kg / (2.0 * (1.0 - kr)), -kb / (2.0 * (1.0 - kr)) } };
    memcpy (m, r2y, sizeof m);
  }
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++)
      a[i][j] = scale[i] * m[i][j];
    a[i][3] = off[i];
  }
}

struct Reference {
  const GstVideoInfo *in, *out;
  const Codes & codes;
  Affine m;
  double alpha_in, alpha_out; /* largest alpha codes; opaque where none */

  Reference (const GstVideoInfo * i, const GstVideoInfo * o, const Codes & c)
      : in (i), out (o), codes (c)
  {
    Affine t, f;
    to_rgb (in, t);
    from_rgb (out, f);
    for (int r = 0; r < 3; r++)
      for (int j = 0; j < 4; j++) {
        m[r][j] = j == 3 ? f[r][3] : 0.0;
        for (int k = 0; k < 3; k++)
          m[r][j] += f[r][k] * t[k][j];
      }
    alpha_in = alpha_max (in), alpha_out = alpha_max (out);
  }
  static double alpha_max (const GstVideoInfo * info)
  {
    const guint n = comps (info->finfo);
    return (double)((1u << comp_depth (info->finfo, n > 3 ? 3 : 0)) - 1);
  }

  /* Input component k at luma position (x, y): its samples interpolated
   * bilinearly where its siting puts them, the edges repeated. */
  double sample (guint k, double x, double y) const
  {
    const gint ws = GST_VIDEO_FORMAT_INFO_W_SUB ((in)->finfo, k),
               hs = GST_VIDEO_FORMAT_INFO_H_SUB ((in)->finfo, k);
    const bool hc = (in->chroma_site & GST_VIDEO_CHROMA_SITE_H_COSITED) != 0;
    const bool vc = (in->chroma_site & GST_VIDEO_CHROMA_SITE_V_COSITED) != 0;
    const double nx = 1 << ws, ny = 1 << hs;
    const double px = (ws && hc) ? x / nx : (x + 0.5) / nx - 0.5;
    const double py = (hs && vc) ? y / ny : (y + 0.5) / ny - 0.5;
    const double fx = std::floor (px), fy = std::floor (py);
    const double tx = px - fx, ty = py - fy;
    auto at = [&] (gint sx, gint sy) {
      return (double)codes.at (
          k, CLAMP (sx, 0, codes.w[k] - 1), CLAMP (sy, 0, codes.h[k] - 1));
    };
    const gint ix = (gint)fx, iy = (gint)fy;
    return (1 - ty) * ((1 - tx) * at (ix, iy) + tx * at (ix + 1, iy)) +
           ty * ((1 - tx) * at (ix, iy + 1) + tx * at (ix + 1, iy + 1));
  }

  /* Output codes (unrounded) of the input at luma position (x, y); with
   * `chroma` >= 0, the input's chroma is sample `chroma` of its plane (an
   * output chroma sample on the input's grid: converted where it is). */
  void pixel (double x, double y, double o[4], gint cx = -1, gint cy = -1) const
  {
    double i[4] = { 0.0, 0.0, 0.0, alpha_in };
    for (guint k = 0; k < codes.n && k < 4; k++)
      i[k] = (cx >= 0 && (k == 1 || k == 2)) ? (double)codes.at (k, cx, cy)
                                             : sample (k, x, y);
    for (int r = 0; r < 3; r++)
      o[r] = m[r][0] * i[0] + m[r][1] * i[1] + m[r][2] * i[2] + m[r][3];
    o[3] = i[3] * alpha_out / alpha_in;
  }

  /* Output chroma sample (k, j) of component c. */
  double chroma (guint c, gint k, gint j) const
  {
    const gint ws = GST_VIDEO_FORMAT_INFO_W_SUB ((out)->finfo, c),
               hs = GST_VIDEO_FORMAT_INFO_H_SUB ((out)->finfo, c);
    const bool hc = (out->chroma_site & GST_VIDEO_CHROMA_SITE_H_COSITED) != 0;
    const bool vc = (out->chroma_site & GST_VIDEO_CHROMA_SITE_V_COSITED) != 0;
    const gint nx = 1 << ws, ny = 1 << hs, x0 = k * nx, y0 = j * ny;
    double o[4];
    if (GST_VIDEO_INFO_IS_YUV (in) &&
        (gint)GST_VIDEO_FORMAT_INFO_W_SUB (in->finfo, 1) == ws &&
        (gint)GST_VIDEO_FORMAT_INFO_H_SUB (in->finfo, 1) == hs &&
        in->chroma_site == out->chroma_site) {
      /* On one grid: the input's sample, luma where it sits. */
      pixel (x0 + (hc ? 0.0 : (nx - 1) / 2.0), y0 + (vc ? 0.0 : (ny - 1) / 2.0), o, k, j);
      return o[c];
    }
    /* The input's chroma plane, bilinearly where the sample sits
     * (pixels::chroma_resampled_from_plane, at the default method):
     * subsampled alike, or (into 4:2:x) along each axis as finely or more,
     * or twice as coarsely with the sample between two of the input's
     * (their mean). */
    const gint iws = GST_VIDEO_FORMAT_INFO_W_SUB (in->finfo, 1),
               ihs = GST_VIDEO_FORMAT_INFO_H_SUB (in->finfo, 1);
    auto from_plane = [] (gint n, gint m, bool cosited) {
      return n <= m || (n == m + 1 && !cosited);
    };
    if (GST_VIDEO_INFO_IS_YUV (in) &&
        GST_VIDEO_FORMAT_INFO_N_COMPONENTS (in->finfo) >= 3 &&
        ((iws == ws && ihs == hs) ||
            ((iws | ihs) && ws <= 1 && hs <= 1 && from_plane (ws, iws, hc) &&
                from_plane (hs, ihs, vc)))) {
      pixel (x0 + (hc ? 0.0 : (nx - 1) / 2.0), y0 + (vc ? 0.0 : (ny - 1) / 2.0), o);
      return o[c];
    }
    /* Filtered down from the converted pixels: the block's mean, or
     * cosited a triangle over 2n - 1 pixels centred on its first. */
    double sum = 0.0;
    for (gint dy = vc ? 1 - ny : 0; dy < ny; dy++)
      for (gint dx = hc ? 1 - nx : 0; dx < nx; dx++) {
        const double wy = vc ? (double)(ny - ABS (dy)) / (ny * ny) : 1.0 / ny;
        const double wx = hc ? (double)(nx - ABS (dx)) / (nx * nx) : 1.0 / nx;
        pixel (CLAMP (x0 + dx, 0, kWidth - 1), CLAMP (y0 + dy, 0, kHeight - 1), o);
        sum += wx * wy * o[c];
      }
    return sum;
  }

  double code (guint c, gint x, gint y) const
  {
    if (GST_VIDEO_FORMAT_INFO_W_SUB ((out)->finfo, c) ||
        GST_VIDEO_FORMAT_INFO_H_SUB ((out)->finfo, c))
      return chroma (c, x, y);
    double o[4];
    pixel (x, y, o);
    return o[c];
  }
};

/* --- through the element ----------------------------------------------- */

static gchar *
device_caps (const char * format, gint width = kWidth, gint height = kHeight)
{
  return g_strdup_printf ("video/x-raw(" GST_CAPS_FEATURE_MEMORY_CS
                          "),format=%s,width=%d,height=%d,framerate=30/1",
      format, width, height);
}

/* A scale after the conversion: the output's size (kWidth x kHeight
 * where unscaled) and the method. */
struct Scale {
  gint width = kWidth, height = kHeight;
  gpu::Filter filter = gpu::Filter::BILINEAR;
};

static const char * const method_nicks[] = { "nearest-neighbour", "bilinear", "bicubic",
  "area" };

/* A device frame of `info` with random codes (returned in *codes). */
static GstBuffer *
device_frame (
    GstBufferPool * pool, const GstVideoInfo * info, guint32 seed, Codes * codes)
{
  GstBuffer * buf = NULL;
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL), GST_FLOW_OK);
  GstVideoFrame f;
  fail_unless (
      gst_video_frame_map (&f, const_cast<GstVideoInfo *> (info), buf, GST_MAP_WRITE));
  GRand * rand = g_rand_new_with_seed (seed);
  fill (&f, rand);
  /* The codes as unpacked: 1.22's pack_NV61 swaps the last chroma pair of
   * an odd width, its unpack does not. */
  *codes = read (&f);
  g_rand_free (rand);
  gst_video_frame_unmap (&f);
  return buf;
}

/* The twin's frame of `in` (device buffer) into an `out_info` frame. */
static Codes
twin_codes (GstBuffer * in, const GstVideoInfo * in_info, const GstVideoInfo * out_info,
    const Scale & scale)
{
  GstBuffer * out = gst_buffer_new_allocate (NULL, out_info->size, NULL);
  gst_buffer_memset (out, 0, 0, out_info->size);
  GstVideoFrame fi, fo;
  fail_unless (
      gst_video_frame_map (&fi, const_cast<GstVideoInfo *> (in_info), in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (
      &fo, const_cast<GstVideoInfo *> (out_info), out, GST_MAP_WRITE));
  gpu::ConvertScale op;
  gst_cs::ConvertSettings settings;
  settings.filter = scale.filter;
  gst_cs::describe_convert (in_info, out_info, 0, 0, kWidth, kHeight, settings, &op);
  op.in = gst_cs::convert_image (in_info, &fi.info, (guint8 *)fi.map[0].data, false);
  op.out = gst_cs::convert_image (out_info, &fo.info, (guint8 *)fo.map[0].data, true);
  fail_unless (gpu::convert_scale_on_host (op), "the twin refuses %s -> %s",
      GST_VIDEO_INFO_NAME (in_info), GST_VIDEO_INFO_NAME (out_info));
  gst_video_frame_unmap (&fo);
  fail_unless (gst_video_frame_map (
      &fo, const_cast<GstVideoInfo *> (out_info), out, GST_MAP_READ));
  Codes codes = read (&fo);
  gst_video_frame_unmap (&fo);
  gst_video_frame_unmap (&fi);
  gst_buffer_unref (out);
  return codes;
}

struct Errors {
  double sum = 0.0, n = 0.0, max = 0.0;
  std::string where;
};

/* Whether pixel (x, y) of a palette output (RGB8P) holds what GStreamer
 * packs for codes within one of the exact ones: each colour code's level
 * of the cube (code / 47, in steps of 0x33), or the transparent entry
 * where alpha falls below half. A code within one of exact may lie on
 * either side of a level's edge. */
static bool
palette_pixel_near (const Codes & got, const Reference & ref, gint x, gint y)
{
  auto code = [] (double v, int d) {
    return (guint)CLAMP ((gint)std::floor (v + 0.5) + d, 0, 255);
  };
  bool clear = false, opaque = false;
  for (int d = -1; d <= 1; d++)
    (code (ref.code (3, x, y), d) < 0x80 ? clear : opaque) = true;
  if (clear && got.at (0, x, y) == 0 && got.at (1, x, y) == 0 && got.at (2, x, y) == 0 &&
      got.at (3, x, y) == 0)
    return true;
  bool near = opaque && got.at (3, x, y) == 0xff;
  for (guint c = 0; c < 3 && near; c++) {
    bool level = false;
    for (int d = -1; d <= 1; d++)
      level = level || got.at (c, x, y) == code (ref.code (c, x, y), d) / 47 * 0x33;
    near = level;
  }
  return near;
}

/* `got` equals `twin`, code for code; unscaled (`ref` given) each code is
 * within one of the exact one, and on average within half of one (a
 * palette output: palette_pixel_near). */
static void
compare (const Codes & got, const Codes & twin, const Reference * ref,
    const GstVideoInfo * out_info, const std::string & what, Errors * all)
{
  if (ref && GST_VIDEO_FORMAT_INFO_HAS_PALETTE (out_info->finfo)) {
    for (gint y = 0; y < got.h[0]; y++)
      for (gint x = 0; x < got.w[0]; x++)
        if (!palette_pixel_near (got, *ref, x, y))
          fail ("%s: pixel %d,%d is ARGB %u %u %u %u, exactly %.1f %.1f %.1f %.1f",
              what.c_str (), x, y, got.at (3, x, y), got.at (0, x, y), got.at (1, x, y),
              got.at (2, x, y), ref->code (3, x, y), ref->code (0, x, y),
              ref->code (1, x, y), ref->code (2, x, y));
    ref = NULL; /* the codes are the twin's, below */
  }
  Errors e;
  for (guint c = 0; c < got.n; c++)
    for (gint y = 0; y < got.h[c]; y++)
      for (gint x = 0; x < got.w[c]; x++) {
        /* fail () on a mismatch only: fail_unless marks a point per code. */
        if (got.at (c, x, y) != twin.at (c, x, y))
          fail ("%s: component %u at %d,%d is %u, the twin's %u", what.c_str (), c, x, y,
              got.at (c, x, y), twin.at (c, x, y));
        if (!ref)
          continue;
        const double max = (double)((1u << comp_depth (out_info->finfo, c)) - 1);
        const double want = CLAMP (std::floor (ref->code (c, x, y) + 0.5), 0.0, max);
        const double d = std::fabs ((double)got.at (c, x, y) - want);
        e.sum += d, e.n += 1.0;
        if (d > e.max) {
          e.max = d;
          e.where = what + ": component " + std::to_string (c) + " at " +
                    std::to_string (x) + "," + std::to_string (y) + " is " +
                    std::to_string (got.at (c, x, y)) + ", exactly " +
                    std::to_string (want);
        }
      }
  if (e.n == 0)
    return;
  fail_unless (e.max <= 1.0 && e.sum <= 0.5 * e.n,
      "%s: mean %.3f, max %.0f codes off (%s)", what.c_str (), e.sum / e.n, e.max,
      e.where.c_str ());
  all->sum += e.sum, all->n += e.n;
  if (e.max > all->max)
    all->max = e.max, all->where = e.where;
}

/* The next frame out of `h`, read with its format's unpack function
 * (`out_info`: the frame's info, from the harness's caps). */
static Codes
pull_codes (GstHarness * h, const std::string & what, GstVideoInfo * out_info)
{
  GstBuffer * out = gst_harness_pull (h);
  fail_unless (out != NULL, "%s: no frame", what.c_str ());
  GstCaps * got_caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_video_info_from_caps (out_info, got_caps));
  gst_caps_unref (got_caps);
  GstVideoFrame fo;
  fail_unless (gst_video_frame_map (&fo, out_info, out, GST_MAP_READ),
      "%s: a frame of %" G_GSIZE_FORMAT " bytes for %" G_GSIZE_FORMAT, what.c_str (),
      gst_buffer_get_size (out), out_info->size);
  const Codes got = read (&fo);
  gst_video_frame_unmap (&fo);
  gst_buffer_unref (out);
  return got;
}

/* A pool of device frames of `caps` (one frame). */
static GstBufferPool *
device_pool (GstCaps * caps, const GstVideoInfo * info)
{
  GstBufferPool * pool = gst_cs_buffer_pool_new (0);
  GstStructure * config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, info->size, 1, 1);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  return pool;
}

/* Converts a random `from` frame into `to` through the element (scaled as
 * `scale` says); compare()s its frame with the twin's and, unscaled, with
 * the exact arithmetic. */
static void
check_pair (const char * from, const char * to, guint32 seed, Errors * all,
    const Scale & scale = {})
{
  const bool scaled = scale.width != kWidth || scale.height != kHeight;
  const std::string what =
      std::string (from) + " -> " + to + " " + std::to_string (scale.width) + "x" +
      std::to_string (scale.height) + " " + method_nicks[(int)scale.filter];
  gchar * in_caps = device_caps (from);
  gchar * out_caps = device_caps (to, scale.width, scale.height);
  GstHarness * h = testutil::harness_ours ("cudastreamsconvertscale");
  gst_util_set_object_arg (
      G_OBJECT (h->element), "method", method_nicks[(int)scale.filter]);
  gst_harness_set_src_caps_str (h, in_caps);
  gst_harness_set_sink_caps_str (h, out_caps);
  GstCaps * caps = gst_caps_from_string (in_caps);
  GstVideoInfo in_info;
  fail_unless (gst_video_info_from_caps (&in_info, caps), "%s", in_caps);
  GstBufferPool * pool = device_pool (caps, &in_info);
  gst_caps_unref (caps);

  Codes in_codes;
  GstBuffer * in = device_frame (pool, &in_info, seed, &in_codes);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)), GST_FLOW_OK);
  GstVideoInfo out_info;
  const Codes got = pull_codes (h, what, &out_info);
  const Reference ref (&in_info, &out_info, in_codes);
  compare (got, twin_codes (in, &in_info, &out_info, scale), scaled ? NULL : &ref,
      &out_info, what, all);

  gst_buffer_unref (in);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_harness_teardown (h);
  g_free (in_caps);
  g_free (out_caps);
}

/* Every format the converter takes, to and from one of each family. */
GST_START_TEST (test_every_format_to_and_from_each_family)
{
  const GValue * formats = gst_cs_convert_formats ();
  Errors all;
  guint32 seed = 1;
  for (guint i = 0; i < gst_value_list_get_size (formats); i++) {
    const char * f = g_value_get_string (gst_value_list_get_value (formats, i));
    for (const char * family : families) {
      check_pair (f, family, seed++, &all);
      check_pair (family, f, seed++, &all);
    }
  }
  g_print ("%u formats, each to and from %zu: mean %.4f, max %.0f codes off exact (%s)\n",
      gst_value_list_get_size (formats), G_N_ELEMENTS (families), all.sum / all.n,
      all.max, all.where.c_str ());
}
GST_END_TEST;

/* Every format scaled (the resampling paths: two taps, planes, tap tiles,
 * fixed point, each where it applies, and the generic one), to and from
 * NV12 and RGBA, the four methods in turn: bit for bit the twin's. */
GST_START_TEST (test_every_format_scaled_as_twin)
{
  const GValue * formats = gst_cs_convert_formats ();
  Errors unused;
  guint32 seed = 1;
  for (guint i = 0; i < gst_value_list_get_size (formats); i++) {
    const char * f = g_value_get_string (gst_value_list_get_value (formats, i));
    for (const char * other : { "NV12", "RGBA" }) {
      Scale down{ 9, 5, static_cast<gpu::Filter> (seed % 4) };
      check_pair (f, other, seed++, &unused, down);
      Scale up{ 19, 14, static_cast<gpu::Filter> (seed % 4) };
      check_pair (other, f, seed++, &unused, up);
    }
  }
}
GST_END_TEST;

/* Writes smooth codes from `seed` into `buf`, a frame of `info` (its own
 * plane layout where it has a video meta: a device pool's rows are
 * aligned). */
static void
fill_smooth (GstBuffer * buf, const GstVideoInfo * info, guint32 seed)
{
  GstVideoFrame f;
  fail_unless (
      gst_video_frame_map (&f, const_cast<GstVideoInfo *> (info), buf, GST_MAP_WRITE));
  GRand * rand = g_rand_new_with_seed (seed);
  fill (&f, rand, true);
  g_rand_free (rand);
  gst_video_frame_unmap (&f);
}

/* `in` through the harness `h` into caps `out_caps`: the codes out, and
 * the frame's info in `out_info`. */
static Codes
through (GstHarness * h, const char * in_caps, const char * out_caps, GstBuffer * in,
    const std::string & what, GstVideoInfo * out_info)
{
  gst_harness_set_src_caps_str (h, in_caps);
  gst_harness_set_sink_caps_str (h, out_caps);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  const Codes got = pull_codes (h, what, out_info);
  gst_harness_teardown (h);
  return got;
}

/* How far `b` is from `a`: the PSNR (dB) over the components of 8 bits or
 * more, each one's error a fraction of its largest code, and the largest
 * difference in the narrower ones' codes (RGB16's 5 bits, RGB10A2's 2 bits
 * of alpha), where videoconvertscale truncates what we round. */
struct Apart {
  double psnr = INFINITY;
  guint narrow_max = 0;
};

static Apart
apart (const Codes & a, const Codes & b, const GstVideoInfo * info)
{
  Apart d;
  double sq = 0.0, n = 0.0;
  for (guint c = 0; c < a.n; c++) {
    const guint depth = comp_depth (info->finfo, c);
    const double max = (double)((1u << depth) - 1);
    for (gint y = 0; y < a.h[c]; y++)
      for (gint x = 0; x < a.w[c]; x++) {
        const double e = (double)a.at (c, x, y) - (double)b.at (c, x, y);
        if (depth < 8) {
          d.narrow_max = MAX (d.narrow_max, (guint)std::fabs (e));
          continue;
        }
        sq += (e / max) * (e / max), n += 1.0;
      }
  }
  d.psnr = sq > 0.0 ? 10.0 * std::log10 (n / sq) : INFINITY;
  return d;
}

/* Every format the converter takes, scaled within itself on smooth codes
 * (a shrink, bilinear; an enlargement, our bicubic beside catrom; the
 * shape kept, so no borders): at least 40 dB PSNR against
 * "videoconvertscale dither=none", which takes them all, and components
 * narrower than 8 bits within a code of it. The worst of each method is
 * printed. Frames of a few hundred pixels: on 96x64 frames a wave's chroma
 * samples are far apart, and the two ways of resampling chroma (its planes
 * here, 4:4:4 after upsampling there) part by 27 to 40 dB. */
GST_START_TEST (test_every_format_scaled_near_videoconvertscale)
{
  GstElementFactory * vcs = gst_element_factory_find ("videoconvertscale");
  if (!vcs) {
    g_print ("no videoconvertscale (GStreamer before 1.22): not compared\n");
    return;
  }
  gst_object_unref (vcs);
  struct Shape {
    gint in_w, in_h, out_w, out_h;
    gpu::Filter filter;
    const char * theirs;
  };
  const Shape shapes[] = { { 384, 256, 252, 168, gpu::Filter::BILINEAR, "bilinear" },
    { 192, 128, 324, 216, gpu::Filter::BICUBIC, "catrom" } };
  double worst[2] = { INFINITY, INFINITY };
  std::string worst_what[2];
  const GValue * formats = gst_cs_convert_formats ();
  guint32 seed = 1;
  for (guint i = 0; i < gst_value_list_get_size (formats); i++) {
    const char * f = g_value_get_string (gst_value_list_get_value (formats, i));
    /* A palette's picture is scaled into RGBA: packed into GStreamer's
     * palette again, a code on the edge of one of its levels (51 codes
     * apart) could land on either side in either converter. */
    const char * to = GST_VIDEO_FORMAT_INFO_HAS_PALETTE (
                          gst_video_format_get_info (gst_video_format_from_string (f)))
                          ? "RGBA"
                          : f;
    for (guint k = 0; k < G_N_ELEMENTS (shapes); k++) {
      const Shape & sh = shapes[k];
      const std::string what =
          std::string (f) + " " + std::to_string (sh.in_w) + "x" +
          std::to_string (sh.in_h) + " -> " + to + " " + std::to_string (sh.out_w) + "x" +
          std::to_string (sh.out_h) + " " + method_nicks[(int)sh.filter];
      gchar * sys_in = g_strdup_printf (
          "video/x-raw,format=%s,width=%d,height=%d,framerate=30/1", f, sh.in_w, sh.in_h);
      gchar * sys_out =
          g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,framerate=30/1", to,
              sh.out_w, sh.out_h);
      gchar * dev_in = device_caps (f, sh.in_w, sh.in_h);
      gchar * dev_out = device_caps (to, sh.out_w, sh.out_h);
      const GstVideoInfo info = testutil::video_info (f, sh.in_w, sh.in_h);

      gchar * line =
          g_strdup_printf ("videoconvertscale dither=none method=%s", sh.theirs);
      GstBuffer * sys = gst_buffer_new_allocate (NULL, info.size, NULL);
      gst_buffer_memset (sys, 0, 0, info.size);
      fill_smooth (sys, &info, seed);
      GstVideoInfo out_info;
      const Codes ref = through (gst_harness_new_parse (line), sys_in, sys_out, sys,
          what + " (videoconvertscale)", &out_info);
      g_free (line);

      GstHarness * h = testutil::harness_ours ("cudastreamsconvertscale");
      gst_util_set_object_arg (
          G_OBJECT (h->element), "method", method_nicks[(int)sh.filter]);
      GstCaps * caps = gst_caps_from_string (dev_in);
      GstBufferPool * pool = device_pool (caps, &info);
      gst_caps_unref (caps);
      GstBuffer * in = NULL;
      fail_unless_equals_int (
          gst_buffer_pool_acquire_buffer (pool, &in, NULL), GST_FLOW_OK);
      fill_smooth (in, &info, seed);
      GstVideoInfo ours_info;
      const Codes ours = through (h, dev_in, dev_out, in, what, &ours_info);
      gst_buffer_pool_set_active (pool, FALSE);
      gst_object_unref (pool);
      seed++;

      const Apart d = apart (ref, ours, &out_info);
      fail_unless (d.psnr >= 40.0 && d.narrow_max <= 1,
          "%s: PSNR %.1f dB against videoconvertscale, %u codes apart in components "
          "narrower than 8 bits",
          what.c_str (), d.psnr, d.narrow_max);
      if (d.psnr < worst[k])
        worst[k] = d.psnr, worst_what[k] = what;
      g_free (sys_in);
      g_free (sys_out);
      g_free (dev_in);
      g_free (dev_out);
    }
  }
  for (guint k = 0; k < G_N_ELEMENTS (shapes); k++)
    g_print ("%u formats scaled beside videoconvertscale (%s): worst %s, PSNR %.1f dB\n",
        gst_value_list_get_size (formats), shapes[k].theirs, worst_what[k].c_str (),
        worst[k]);
}
GST_END_TEST;

/* Formats GStreamer describes that the converter does not make are
 * refused at negotiation with a warning naming them. */
GST_START_TEST (test_refused_formats_named)
{
  guint refused = 0;
  guint n_raw = 0;
  const GstVideoFormat * raw = gst_video_formats_raw (&n_raw);
  for (guint i = 0; i < n_raw; i++) {
    const GstVideoFormat f = raw[i];
    const gchar * name = gst_video_format_to_string (f);
    const GstVideoFormatInfo * info = gst_video_format_get_info (f);
    if (!gst_cs_convert_format_refusal (f) || f == GST_VIDEO_FORMAT_ENCODED ||
        GST_VIDEO_FORMAT_INFO_N_COMPONENTS (info) == 0)
      continue;
    GError * err = NULL;
    GstElement * pipeline = gst_parse_launch (
        "videotestsrc num-buffers=1 ! video/x-raw,format=NV12,width=16,height=8 ! "
        "cudastreamsupload ! cudastreamsconvertscale name=cs ! capsfilter name=f ! "
        "fakesink",
        &err);
    fail_unless (pipeline != NULL && err == NULL, "%s", err ? err->message : "");
    gchar * wanted = device_caps (name);
    GstCaps * caps = gst_caps_from_string (wanted);
    GstElement * filter = testutil::by_name (pipeline, "f");
    g_object_set (filter, "caps", caps, NULL);
    gst_object_unref (filter);
    gst_caps_unref (caps);
    const testutil::Outcome o = testutil::run_to_end (pipeline);
    const std::string said = std::string ("format ") + name + " ";
    fail_unless (!o.eos && o.warnings.find ("cs: ") != std::string::npos &&
                     o.warnings.find (said) != std::string::npos,
        "%s: no warning of cs saying \"%s\"; warnings: %s", wanted, said.c_str (),
        o.warnings.c_str ());
    gst_object_unref (pipeline);
    g_free (wanted);
    refused++;
  }
  fail_unless (refused > 0);
}
GST_END_TEST;

static Suite *
convert_formats_gpu_suite (void)
{
  Suite * s = suite_create ("convert_formats_gpu");
  TCase * tc = tcase_create ("general");
  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_every_format_to_and_from_each_family);
  tcase_add_test (tc, test_every_format_scaled_as_twin);
  tcase_add_test (tc, test_every_format_scaled_near_videoconvertscale);
  tcase_add_test (tc, test_refused_formats_named);
  return s;
}

TESTUTIL_GPU_CHECK_MAIN (convert_formats_gpu);
