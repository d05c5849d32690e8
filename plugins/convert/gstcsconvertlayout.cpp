/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "convert/gstcsconvertlayout.h"

#include <array>
#include <cstring>
#include <mutex>

namespace {

/* Pixels packed per probe (a 4:1:1 group four times: enough samples of
 * each component to see how they are spaced) and the bytes of a probe's
 * row. */
constexpr int kPixels = 16;
constexpr int kRow = 256;

struct Bit {
  int plane = -1, byte = 0, bit = 0;
};

struct Rows {
  guint8 planes[GST_VIDEO_MAX_PLANES][kRow] = {};
};

/* Line 0 of kPixels pixels packed by @f, all codes 0 but component @ui
 * (of the unpacked AYUV/ARGB order) of pixel @px, which is @value. */
void
pack (const GstVideoFormatInfo * f, int px, int ui, guint value, Rows * out)
{
  const GstVideoFormatInfo * uf = gst_video_format_get_info (f->unpack_format);
  const bool wide = GST_VIDEO_FORMAT_INFO_DEPTH (uf, 0) > 8;
  guint16 src[kPixels * 4] = {};
  guint8 src8[kPixels * 4] = {};
  if (px >= 0) {
    src[px * 4 + ui] = (guint16)value;
    src8[px * 4 + ui] = (guint8)value;
  }
  gpointer data[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
  for (int p = 0; p < GST_VIDEO_MAX_PLANES; p++)
    data[p] = out->planes[p], stride[p] = kRow;
  f->pack_func (f, GST_VIDEO_PACK_FLAG_NONE, wide ? (gpointer)src : (gpointer)src8,
      kPixels * 4 * (wide ? 2 : 1), data, stride, GST_VIDEO_CHROMA_SITE_UNKNOWN, 0,
      kPixels);
}

/* The one bit where @a and @b differ; plane -1 where not exactly one. */
Bit
changed_bit (const Rows & a, const Rows & b)
{
  Bit found;
  int n = 0;
  for (int p = 0; p < GST_VIDEO_MAX_PLANES; p++)
    for (int i = 0; i < kRow; i++) {
      const guint d = a.planes[p][i] ^ b.planes[p][i];
      for (int k = 0; k < 8; k++)
        if (d & (1u << k))
          found = Bit{ p, i, k }, n++;
    }
  return n == 1 ? found : Bit{};
}

/* Where each bit of a component lies, and how its samples are spaced. */
struct Probe {
  Bit bits[16];
  int step = 0;
  int pair_step = 0;
};

/* How samples at bytes pos[0..n-1] are spaced: evenly (`step` apart), or
 * in pairs (`step` from pair to pair, `pair_step` within one). */
bool
spacing (const int * pos, int n, int * step, int * pair_step)
{
  *step = pos[1] - pos[0], *pair_step = 0;
  bool even = *step > 0;
  for (int i = 2; i < n; i++)
    even = even && pos[i] - pos[i - 1] == *step;
  if (even)
    return true;
  if (n < 4 || n % 2)
    return false;
  *pair_step = pos[1] - pos[0], *step = pos[2] - pos[0];
  for (int i = 2; i < n; i += 2)
    if (pos[i + 1] - pos[i] != *pair_step || pos[i] - pos[i - 2] != *step)
      return false;
  return *pair_step > 0 && *step > *pair_step;
}

bool
probe_component (const GstVideoFormatInfo * f, guint c, Probe * out)
{
  const GstVideoFormatInfo * uf = gst_video_format_get_info (f->unpack_format);
  const int ubits = (int)GST_VIDEO_FORMAT_INFO_DEPTH (uf, 0);
  const int depth = (int)GST_VIDEO_FORMAT_INFO_DEPTH (f, c);
  const int ui = c == 3 ? 0 : (int)c + 1; /* A first in AYUV and ARGB */
  if (depth < 1 || depth > ubits || depth > 16)
    return false;
  Rows zero;
  pack (f, -1, 0, 0, &zero);
  for (int b = 0; b < depth; b++) {
    Rows r;
    pack (f, 0, ui, 1u << (ubits - depth + b), &r);
    out->bits[b] = changed_bit (zero, r);
    if (out->bits[b].plane < 0 || out->bits[b].plane != out->bits[0].plane)
      return false;
  }
  /* Every sample of the row (the first pixel of each chroma group): its
   * lowest bit where the first one's lies, bytes apart. */
  const int sub = GST_VIDEO_FORMAT_INFO_W_SUB (f, c), n = kPixels >> sub;
  int pos[kPixels] = { out->bits[0].byte };
  for (int i = 1; i < n; i++) {
    Rows r;
    pack (f, i << sub, ui, 1u << (ubits - depth), &r);
    const Bit next = changed_bit (zero, r);
    if (next.plane != out->bits[0].plane || next.bit != out->bits[0].bit)
      return false;
    pos[i] = next.byte;
  }
  return spacing (pos, n, &out->step, &out->pair_step);
}

/* A palette format: a byte a pixel indexing the 256 native-endian 32-bit
 * words of plane 1; where each component lies in a word, as the unpack
 * function reads it (entry 1's byte k holding k + 1). */
const gchar *
palette_layout (const GstVideoFormatInfo * f, GstCsConvertLayout * out)
{
  /* GStreamer describes the index and the palette as its two components
   * (8 and 32 bits); the colours are its unpack format's (ARGB). */
  const GstVideoFormatInfo * uf = gst_video_format_get_info (f->unpack_format);
  if (GST_VIDEO_FORMAT_INFO_N_PLANES (f) != 2 ||
      GST_VIDEO_FORMAT_INFO_PSTRIDE (f, 0) != 1 ||
      GST_VIDEO_FORMAT_INFO_DEPTH (f, 0) != 8 || !f->unpack_func || !uf ||
      GST_VIDEO_FORMAT_INFO_N_COMPONENTS (uf) != 4 ||
      GST_VIDEO_FORMAT_INFO_DEPTH (uf, 0) != 8)
    return "a palette format other than bytes indexing 32-bit colours";
  guint8 index[kPixels] = { 1 };
  guint32 entries[256] = {};
  entries[1] = 0x04030201u;
  guint8 argb[kPixels * 4] = {};
  gpointer data[GST_VIDEO_MAX_PLANES] = { index, entries };
  gint stride[GST_VIDEO_MAX_PLANES] = { kPixels, sizeof entries };
  f->unpack_func (f, GST_VIDEO_PACK_FLAG_NONE, argb, data, stride, 0, 0, 1);
  out->n_components = 4;
  out->palette = TRUE;
  for (guint c = 0; c < 4; c++) {
    const guint byte = argb[c == 3 ? 0 : c + 1]; /* ARGB order */
    if (byte < 1 || byte > 4)
      return "a palette format other than bytes indexing 32-bit colours";
    GstCsConvertComponent & k = out->comp[c];
    k = GstCsConvertComponent{};
    k.plane = 0, k.step = 1, k.word = 1, k.depth = 8, k.first = TRUE;
    k.shift = (gint)(byte - 1) * 8;
  }
  return NULL;
}

/* The bytes a component's bits cover. */
void
byte_span (const Probe & p, int depth, int * lo, int * hi)
{
  *lo = *hi = p.bits[0].byte;
  for (int b = 1; b < depth; b++) {
    *lo = MIN (*lo, p.bits[b].byte);
    *hi = MAX (*hi, p.bits[b].byte);
  }
}

/* The layout of @f's components from their probes: components whose bytes
 * overlap share one word; every bit must be where that word puts it. */
const gchar *
layout_of (const GstVideoFormatInfo * f, const Probe * probes, GstCsConvertLayout * out)
{
  const guint n = GST_VIDEO_FORMAT_INFO_N_COMPONENTS (f);
  int lo[4], hi[4], group[4];
  for (guint c = 0; c < n; c++) {
    byte_span (probes[c], GST_VIDEO_FORMAT_INFO_DEPTH (f, c), &lo[c], &hi[c]);
    group[c] = (int)c;
  }
  /* Overlapping components (one pass per merge is enough for four). */
  for (int pass = 0; pass < 4; pass++)
    for (guint a = 0; a < n; a++)
      for (guint b = a + 1; b < n; b++) {
        if (group[a] == group[b] || probes[a].bits[0].plane != probes[b].bits[0].plane ||
            hi[group[a]] < lo[group[b]] || hi[group[b]] < lo[group[a]])
          continue;
        if (GST_VIDEO_FORMAT_INFO_W_SUB (f, a) || GST_VIDEO_FORMAT_INFO_H_SUB (f, a) ||
            GST_VIDEO_FORMAT_INFO_W_SUB (f, b) || GST_VIDEO_FORMAT_INFO_H_SUB (f, b))
          return "subsampled samples share bytes with others";
        const int g = group[a], old = group[b];
        lo[g] = MIN (lo[g], lo[old]), hi[g] = MAX (hi[g], hi[old]);
        for (guint k = 0; k < n; k++)
          if (group[k] == old)
            group[k] = g;
      }
  out->n_components = n;
  for (guint c = 0; c < n; c++) {
    const Probe & p = probes[c];
    const int depth = GST_VIDEO_FORMAT_INFO_DEPTH (f, c), g = group[c];
    int word = 1;
    while (word <= 4 && lo[g] / word != hi[g] / word)
      word *= 2;
    if (word > 4)
      return "its samples span more than 4 bytes";
    /* Big endian where a more significant bit lies at a lower byte. */
    bool be = false;
    for (guint k = 0; k < n; k++)
      if (group[k] == g) {
        const Probe & q = probes[k];
        const Bit & l = q.bits[0];
        const Bit & m = q.bits[GST_VIDEO_FORMAT_INFO_DEPTH (f, k) - 1];
        be = be || m.byte < l.byte;
      }
    GstCsConvertComponent & k = out->comp[c];
    k.plane = p.bits[0].plane;
    k.offset = lo[g] / word * word;
    k.step = p.step;
    k.pair_step = p.pair_step;
    k.word = word;
    k.big_endian = be && word > 1;
    const int first_byte =
        k.big_endian ? k.offset + word - 1 - p.bits[0].byte : p.bits[0].byte - k.offset;
    k.shift = first_byte * 8 + p.bits[0].bit;
    k.depth = depth;
    k.w_sub = GST_VIDEO_FORMAT_INFO_W_SUB (f, c);
    k.h_sub = GST_VIDEO_FORMAT_INFO_H_SUB (f, c);
    k.first = TRUE;
    for (guint o = 0; o < c; o++)
      k.first = k.first && group[o] != g;
    if (k.shift + depth > 8 * word || k.step % word != 0 || k.pair_step % word != 0)
      return "its samples are not bit fields of words of 1, 2 or 4 bytes";
    for (int b = 0; b < depth; b++) {
      const int pos = k.shift + b;
      const int byte = k.big_endian ? k.offset + word - 1 - pos / 8 : k.offset + pos / 8;
      if (p.bits[b].byte != byte || p.bits[b].bit != pos % 8)
        return "its samples are not bit fields of words of 1, 2 or 4 bytes";
    }
  }
  return NULL;
}

const gchar *
probe (GstVideoFormat format, GstCsConvertLayout * out)
{
  const GstVideoFormatInfo * f = gst_video_format_get_info (format);
  if (!f || GST_VIDEO_FORMAT_INFO_FORMAT (f) == GST_VIDEO_FORMAT_UNKNOWN ||
      GST_VIDEO_FORMAT_INFO_FORMAT (f) == GST_VIDEO_FORMAT_ENCODED)
    return "not a raw video format";
  if (GST_VIDEO_FORMAT_INFO_IS_TILED (f))
    return "a tiled format";
  if (GST_VIDEO_FORMAT_INFO_IS_COMPLEX (f))
    return "a format of complex packing";
  if (GST_VIDEO_FORMAT_INFO_HAS_PALETTE (f))
    return palette_layout (f, out);
  const guint n = GST_VIDEO_FORMAT_INFO_N_COMPONENTS (f);
  if (n < 1 || n > 4 || !f->pack_func)
    return "not a raw video format";
  Probe probes[4];
  for (guint c = 0; c < n; c++) {
    /* A pixel stride of 0 (IYU1: 4 pixels in 6 bytes) says nothing: the
     * probe finds where the samples lie. */
    if (GST_VIDEO_FORMAT_INFO_W_SUB (f, c) > 2 ||
        GST_VIDEO_FORMAT_INFO_H_SUB (f, c) > 2 || !probe_component (f, c, &probes[c]))
      return "its samples are not bit fields of words of 1, 2 or 4 bytes";
  }
  return layout_of (f, probes, out);
}

struct Cached {
  std::once_flag once;
  const gchar * why = NULL;
  GstCsConvertLayout layout{};
};

} // namespace

const gchar *
gst_cs_convert_layout (GstVideoFormat format, GstCsConvertLayout * layout)
{
  static std::array<Cached, 512> cache;
  GstCsConvertLayout scratch{};
  if ((guint)format >= cache.size ()) {
    const gchar * why = probe (format, &scratch);
    if (layout)
      *layout = scratch;
    return why;
  }
  Cached & c = cache[format];
  std::call_once (c.once, [&] { c.why = probe (format, &c.layout); });
  if (layout)
    *layout = c.layout;
  return c.why;
}
