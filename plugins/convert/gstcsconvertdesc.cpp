/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "convert/gstcsconvertdesc.hpp"

#include "convert/gstcsconvertlayout.h"

#include <cmath>
#include <cstring>

namespace gst_cs {
namespace {

/* Each side as 3 rows of 4 (3 coefficients and a constant). */
typedef double Affine[3][4];

gboolean
is_rgb (const GstVideoInfo * info)
{
  return GST_VIDEO_INFO_IS_RGB (info);
}

/* The luma/chroma weights of `info`'s matrix; BT.709's where it names none
 * a YUV conversion can use. */
void
kr_kb (const GstVideoInfo * info, double * kr, double * kb)
{
  gdouble r, b;
  if (!gst_video_color_matrix_get_Kr_Kb (info->colorimetry.matrix, &r, &b))
    gst_video_color_matrix_get_Kr_Kb (GST_VIDEO_COLOR_MATRIX_BT709, &r, &b);
  *kr = r, *kb = b;
}

/* The format whose components stand for `info`'s codes: its own, or for a
 * palette (RGB8P, described as an index and a palette of 32 bits) the
 * ARGB of its entries. */
const GstVideoFormatInfo *
colour_format (const GstVideoInfo * info)
{
  return GST_VIDEO_FORMAT_INFO_HAS_PALETTE (info->finfo)
             ? gst_video_format_get_info (info->finfo->unpack_format)
             : info->finfo;
}

/* Codes of `info` to normalised R'G'B' (0..1). */
void
codes_to_rgb (const GstVideoInfo * info, Affine a)
{
  gint off[GST_VIDEO_MAX_COMPONENTS], scale[GST_VIDEO_MAX_COMPONENTS];
  gst_video_color_range_offsets (
      info->colorimetry.range, colour_format (info), off, scale);
  double n[3][4] = {}; /* codes to normalised components */
  for (int i = 0; i < 3; i++) {
    n[i][i] = 1.0 / scale[i];
    n[i][3] = -(double)off[i] / scale[i];
  }
  if (GST_VIDEO_INFO_IS_GRAY (info)) { /* R = G = B = Y; no chroma */
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 4; j++)
        a[i][j] = (j == 1 || j == 2) ? 0.0 : n[0][j];
    return;
  }
  if (is_rgb (info)) {
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 4; j++)
        a[i][j] = n[i][j];
    return;
  }
  double kr, kb;
  kr_kb (info, &kr, &kb);
  const double kg = 1.0 - kr - kb;
  /* R = Y + 2(1-Kr) V, B = Y + 2(1-Kb) U, G = (Y - Kr R - Kb B) / Kg */
  const double yuv_to_rgb[3][3] = {
    { 1.0, 0.0, 2.0 * (1.0 - kr) },
    { 1.0, -2.0 * kb * (1.0 - kb) / kg, -2.0 * kr * (1.0 - kr) / kg },
    { 1.0, 2.0 * (1.0 - kb), 0.0 },
  };
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++) {
      double s = 0.0;
      for (int k = 0; k < 3; k++)
        s += yuv_to_rgb[i][k] * n[k][j];
      a[i][j] = s;
    }
}

/* Normalised R'G'B' to codes of `info`. */
void
rgb_to_codes (const GstVideoInfo * info, Affine a)
{
  gint off[GST_VIDEO_MAX_COMPONENTS], scale[GST_VIDEO_MAX_COMPONENTS];
  gst_video_color_range_offsets (
      info->colorimetry.range, colour_format (info), off, scale);
  double c[3][3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
  if (!is_rgb (info)) {
    double kr, kb;
    kr_kb (info, &kr, &kb);
    const double kg = 1.0 - kr - kb;
    const double rgb_to_yuv[3][3] = {
      { kr, kg, kb },
      { -kr / (2.0 * (1.0 - kb)), -kg / (2.0 * (1.0 - kb)), 0.5 },
      { 0.5, -kg / (2.0 * (1.0 - kr)), -kb / (2.0 * (1.0 - kr)) },
    };
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        c[i][j] = rgb_to_yuv[i][j];
  }
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++)
      a[i][j] = scale[i] * c[i][j];
    a[i][3] = off[i];
  }
}

/* The depth of `f`'s alpha, or where it has none of its first component:
 * an input without alpha reads as opaque, 2^depth - 1 of it. */
guint
alpha_depth (const GstVideoFormatInfo * f)
{
  return GST_VIDEO_FORMAT_INFO_DEPTH (
      f, GST_VIDEO_FORMAT_INFO_N_COMPONENTS (f) > 3 ? 3 : 0);
}

/* Whether every component of `l` is a sample of the one size the fast
 * paths read (Image::bytes, shift, max_code): one byte, or a little-endian
 * 16-bit word, all alike, chroma subsampled by 2 at most. */
bool
uniform (const GstCsConvertLayout & l)
{
  const GstCsConvertComponent & a = l.comp[0];
  for (guint c = 0; c < l.n_components; c++) {
    const GstCsConvertComponent & k = l.comp[c];
    if (k.word != (a.depth + a.shift > 8 ? 2 : 1) || (k.big_endian && k.word > 1) ||
        k.depth != a.depth || k.shift != a.shift || !k.first || k.w_sub > 1 ||
        k.h_sub > 1 || k.pair_step != 0)
      return false;
  }
  return true;
}

} // namespace

gpu::Image
convert_image (
    const GstVideoInfo * info, const GstVideoInfo * layout, guint8 * base, bool output)
{
  const GstVideoFormatInfo * f = info->finfo;
  gpu::Image im;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (layout) && p < gpu::kConvertPlanes;
       p++) {
    im.data[p] = base + GST_VIDEO_INFO_PLANE_OFFSET (layout, p);
    im.pitch[p] = GST_VIDEO_INFO_PLANE_STRIDE (layout, p);
  }
  im.width = GST_VIDEO_INFO_WIDTH (layout);
  im.height = GST_VIDEO_INFO_FIELD_HEIGHT (layout); /* an alternate field's lines */
  im.yuv = !is_rgb (info);
  /* Where the bits lie, as GStreamer packs them (a format the caps take
   * always has a layout; one without is left with no component, which
   * convert_scale refuses). */
  GstCsConvertLayout l;
  if (gst_cs_convert_layout (GST_VIDEO_INFO_FORMAT (info), &l) != NULL)
    return im;
  const GstCsConvertComponent & first = l.comp[0];
  const bool alike = uniform (l) && !l.palette;
  im.palette = l.palette != FALSE;
  im.bytes = alike ? first.word : 1;
  im.shift = alike ? first.shift : 0;
  im.max_code = (int)((1u << first.depth) - 1);
  for (guint c = 0; c < 4; c++) {
    gpu::Component & k = im.comp[c];
    /* Every component's own word too, alike or not: the generic path
     * reads the other side's frame through them. An absent alpha is
     * opaque at the first component's depth. */
    k.word = 1, k.max_code = (int)((1u << alpha_depth (colour_format (info))) - 1);
    if (c >= l.n_components)
      continue;
    const GstCsConvertComponent & p = l.comp[c];
    k.plane = p.plane, k.offset = p.offset, k.step = p.step, k.pair_step = p.pair_step;
    k.log2_x = p.w_sub, k.log2_y = p.h_sub;
    k.word = p.word, k.shift = p.shift, k.max_code = (int)((1u << p.depth) - 1);
    k.big_endian = p.big_endian, k.clear = p.first;
  }
  /* The padding byte of RGBx and its kin is written as alpha (opaque from
   * inputs without alpha), as videoconvert does, never left as it was. */
  if (output && alike && GST_VIDEO_FORMAT_INFO_N_COMPONENTS (f) == 3 &&
      !GST_VIDEO_INFO_HAS_ALPHA (info) && im.bytes == 1 &&
      GST_VIDEO_FORMAT_INFO_N_PLANES (f) == 1 &&
      GST_VIDEO_FORMAT_INFO_PSTRIDE (f, 0) == 4) {
    int used = 0;
    for (int c = 0; c < 3; c++)
      used |= 1 << im.comp[c].offset;
    gpu::Component & pad = im.comp[3];
    pad.plane = 0, pad.step = 4;
    pad.offset = (used & 1) ? 3 : 0;
    pad.word = 1, pad.shift = 0, pad.max_code = 255;
  }
  im.h_cosited = (info->chroma_site & GST_VIDEO_CHROMA_SITE_H_COSITED) != 0;
  im.v_cosited = (info->chroma_site & GST_VIDEO_CHROMA_SITE_V_COSITED) != 0;
  return im;
}

void
convert_matrix (
    const GstVideoInfo * in, const GstVideoInfo * out, float m[3][4], float * alpha_scale)
{
  Affine to_rgb, from_rgb;
  codes_to_rgb (in, to_rgb);
  rgb_to_codes (out, from_rgb);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++) {
      double s = j == 3 ? from_rgb[i][3] : 0.0;
      for (int k = 0; k < 3; k++)
        s += from_rgb[i][k] * to_rgb[k][j];
      /* A YUV -> RGB -> YUV product leaves rounding residue (1e-17) where
       * the exact coefficient is 0: a true 0 lets the kernel skip what it
       * does not need (luma that reads no chroma, chroma straight from the
       * input's chroma). Below 1e-9, even a 16-bit code moves by < 1e-4. */
      m[i][j] = std::fabs (s) < 1e-9 ? 0.0f : (float)s;
    }
  const guint in_depth = alpha_depth (colour_format (in));
  const guint out_depth = alpha_depth (colour_format (out));
  *alpha_scale = (float)((double)((1u << out_depth) - 1) / ((1u << in_depth) - 1));
}

void
convert_border (const GstVideoInfo * out, guint32 argb, float border[4])
{
  Affine from_rgb;
  rgb_to_codes (out, from_rgb);
  const double rgb[3] = { ((argb >> 16) & 0xff) / 255.0, ((argb >> 8) & 0xff) / 255.0,
    (argb & 0xff) / 255.0 };
  for (int i = 0; i < 3; i++)
    border[i] = (float)(from_rgb[i][0] * rgb[0] + from_rgb[i][1] * rgb[1] +
                        from_rgb[i][2] * rgb[2] + from_rgb[i][3]);
  const guint depth = alpha_depth (colour_format (out));
  border[3] = (float)((argb >> 24) * (double)((1u << depth) - 1) / 255.0);
}

void
fit_picture (gint in_w, gint in_h, gint in_par_n, gint in_par_d, const GstVideoInfo * out,
    gint * x, gint * y, gint * w, gint * h)
{
  const gint ow = GST_VIDEO_INFO_WIDTH (out), oh = GST_VIDEO_INFO_HEIGHT (out);
  *x = 0, *y = 0, *w = ow, *h = oh;
  /* The picture's display ratio in output pixels: n / d. */
  const guint64 n = (guint64)in_w * in_par_n * GST_VIDEO_INFO_PAR_D (out);
  const guint64 d = (guint64)in_h * in_par_d * GST_VIDEO_INFO_PAR_N (out);
  if (n == 0 || d == 0 || n * oh == d * ow)
    return;
  if (n * oh < d * ow) { /* narrower: pillarbox */
    *w = (gint)MAX ((guint64)1, n * oh / d);
    *x = (ow - *w) / 2;
  } else { /* wider: letterbox */
    *h = (gint)MAX ((guint64)1, d * ow / n);
    *y = (oh - *h) / 2;
  }
}

bool
swaps_axes (gpu::Orientation o)
{
  return o == gpu::Orientation::ROTATE_90R || o == gpu::Orientation::ROTATE_90L ||
         o == gpu::Orientation::TRANSPOSE || o == gpu::Orientation::ANTI_TRANSPOSE;
}

void
place_picture (const GstVideoInfo * in, const GstVideoInfo * out, gint w, gint h,
    const ConvertSettings & settings, gint * x, gint * y, gint * pw, gint * ph)
{
  *x = 0, *y = 0, *pw = GST_VIDEO_INFO_WIDTH (out), *ph = GST_VIDEO_INFO_HEIGHT (out);
  if (!settings.add_borders)
    return;
  /* The picture as it is shown: turned where the orientation swaps axes. */
  const bool swap = swaps_axes (settings.orientation);
  fit_picture (swap ? h : w, swap ? w : h,
      swap ? GST_VIDEO_INFO_PAR_D (in) : GST_VIDEO_INFO_PAR_N (in),
      swap ? GST_VIDEO_INFO_PAR_N (in) : GST_VIDEO_INFO_PAR_D (in), out, x, y, pw, ph);
}

void
input_point (const GstVideoInfo * in, const GstVideoInfo * out,
    const ConvertSettings & settings, double x, double y, double * in_x, double * in_y)
{
  const gint iw = GST_VIDEO_INFO_WIDTH (in), ih = GST_VIDEO_INFO_HEIGHT (in);
  gint dx, dy, dw, dh;
  place_picture (in, out, iw, ih, settings, &dx, &dy, &dw, &dh);
  /* (u, v): the point in the picture as shown, 0 to 1 across it */
  const double u = CLAMP ((x - dx) / MAX (dw, 1), 0.0, 1.0);
  const double v = CLAMP ((y - dy) / MAX (dh, 1), 0.0, 1.0);
  double s = u, t = v; /* the same in the input, before the turn */
  switch (settings.orientation) {
    case gpu::Orientation::ROTATE_90R:
      s = v, t = 1.0 - u;
      break;
    case gpu::Orientation::ROTATE_90L:
      s = 1.0 - v, t = u;
      break;
    case gpu::Orientation::ROTATE_180:
      s = 1.0 - u, t = 1.0 - v;
      break;
    case gpu::Orientation::FLIP_H:
      s = 1.0 - u;
      break;
    case gpu::Orientation::FLIP_V:
      t = 1.0 - v;
      break;
    case gpu::Orientation::TRANSPOSE:
      s = v, t = u;
      break;
    case gpu::Orientation::ANTI_TRANSPOSE:
      s = 1.0 - v, t = 1.0 - u;
      break;
    default:
      break;
  }
  *in_x = s * iw;
  *in_y = t * ih;
}

void
describe_convert (const GstVideoInfo * in, const GstVideoInfo * out, gint x, gint y,
    gint w, gint h, const ConvertSettings & settings, gpu::ConvertScale * op)
{
  ConvertColours colours;
  describe_convert (in, out, x, y, w, h, settings, &colours, op);
}

namespace {

/* The lines of the frame a region of `lines` lines of `info`'s picture
 * stands for: as many, or for an alternate field twice as many (the whole
 * field: the frame's own, which may be odd). */
gint
frame_lines (const GstVideoInfo * info, gint lines)
{
  if (GST_VIDEO_INFO_INTERLACE_MODE (info) != GST_VIDEO_INTERLACE_MODE_ALTERNATE)
    return lines;
  return lines == GST_VIDEO_INFO_FIELD_HEIGHT (info) ? GST_VIDEO_INFO_HEIGHT (info)
                                                     : 2 * lines;
}

/* Lines `y` to `y + h` of `info`'s frame as lines of its picture: the
 * same, or for an alternate field those of the top field among them. */
void
picture_lines (const GstVideoInfo * info, gint * y, gint * h)
{
  if (GST_VIDEO_INFO_INTERLACE_MODE (info) != GST_VIDEO_INTERLACE_MODE_ALTERNATE)
    return;
  const gint first = (*y + 1) / 2, end = (*y + *h + 1) / 2;
  *y = first;
  *h = MAX (end - first, 1);
}

} // namespace

void
describe_convert (const GstVideoInfo * in, const GstVideoInfo * out, gint x, gint y,
    gint w, gint h, const ConvertSettings & settings, ConvertColours * colours,
    gpu::ConvertScale * op)
{
  op->src_x = x, op->src_y = y, op->src_w = w, op->src_h = h;
  op->orientation = settings.orientation;
  op->filter = settings.filter;
  /* Borders keep the frames' display aspect ratio: an alternate field's
   * are the frame's, in field lines. */
  gint dx, dy, dw, dh;
  place_picture (in, out, w, frame_lines (in, h), settings, &dx, &dy, &dw, &dh);
  picture_lines (out, &dy, &dh);
  op->dst_x = dx, op->dst_y = dy, op->dst_w = dw, op->dst_h = dh;
  if (!colours->valid || colours->border_argb != settings.border_argb) {
    convert_matrix (in, out, colours->matrix, &colours->alpha_scale);
    convert_border (out, settings.border_argb, colours->border);
    colours->border_argb = settings.border_argb;
    colours->valid = true;
  }
  std::memcpy (op->matrix, colours->matrix, sizeof op->matrix);
  op->alpha_scale = colours->alpha_scale;
  std::memcpy (op->border, colours->border, sizeof op->border);
}

} // namespace gst_cs
