/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Caps transform and fixation of cudaconvertscale. The rules are those of
 * videoconvertscale 1.22 (gst/videoconvertscale/gstvideoconvertscale.c), so
 * that swapping the CPU element for ours negotiates the same caps; the few
 * places where we deliberately differ say so. */
#include "convert/gstcsconvertcaps.h"

#include "base/gstcscapsrefusal.hpp"
#include "base/gstcsformats.hpp"
#include "convert/gstcsconvertlayout.h"

#include <gst/video/video.h>

#include <cstring>
#include <utility>

namespace {

/* @s with width and height free (within what the elements accept) and the
 * pixel-aspect-ratio, if it has one, free too: a scale can change both. */
void
open_size (GstStructure * s)
{
  gst_structure_set (s, "width", GST_TYPE_INT_RANGE, 1, GST_CS_VIDEO_MAX_SIZE, "height",
      GST_TYPE_INT_RANGE, 1, GST_CS_VIDEO_MAX_SIZE, NULL);
  if (gst_structure_has_field (s, "pixel-aspect-ratio"))
    gst_structure_set (
        s, "pixel-aspect-ratio", GST_TYPE_FRACTION_RANGE, 1, G_MAXINT, G_MAXINT, 1, NULL);
}

/* videoconvert's loss of a conversion from @in to @out: 0 for none; a change
 * of colour family (RGB, YUV, GRAY), alpha, chroma subsampling or depth
 * costs 1 each, and losing something costs more than gaining it: 2 more for
 * RGB <-> YUV, 128 for losing colour, 8 alpha, 4 depth, 16 and 32 for more
 * horizontal and vertical chroma subsampling. */
gint
format_loss (const GstVideoFormatInfo * in, const GstVideoFormatInfo * out)
{
  if (in == out)
    return 0;
  /* Endianness and how a format is unpacked are no loss. */
  const guint ignored = GST_VIDEO_FORMAT_FLAG_LE | GST_VIDEO_FORMAT_FLAG_COMPLEX |
                        GST_VIDEO_FORMAT_FLAG_UNPACK;
  const guint colour =
      GST_VIDEO_FORMAT_FLAG_YUV | GST_VIDEO_FORMAT_FLAG_RGB | GST_VIDEO_FORMAT_FLAG_GRAY;
  const guint in_flags = GST_VIDEO_FORMAT_INFO_FLAGS (in) & ~ignored;
  const guint out_flags = GST_VIDEO_FORMAT_INFO_FLAGS (out) & ~ignored;
  gint loss = 1;
  if ((in_flags & GST_VIDEO_FORMAT_FLAG_PALETTE) !=
      (out_flags & GST_VIDEO_FORMAT_FLAG_PALETTE))
    loss += (out_flags & GST_VIDEO_FORMAT_FLAG_PALETTE) ? 1 + 64 : 1;
  if ((in_flags & colour) != (out_flags & colour))
    loss += (out_flags & GST_VIDEO_FORMAT_FLAG_GRAY) ? 2 + 128 : 2;
  if ((in_flags & GST_VIDEO_FORMAT_FLAG_ALPHA) !=
      (out_flags & GST_VIDEO_FORMAT_FLAG_ALPHA))
    loss += (in_flags & GST_VIDEO_FORMAT_FLAG_ALPHA) ? 1 + 8 : 1;
  /* Component 1 is the first chroma one (or absent: 0, as for RGB). */
  if (in->h_sub[1] != out->h_sub[1])
    loss += in->h_sub[1] < out->h_sub[1] ? 1 + 32 : 1;
  if (in->w_sub[1] != out->w_sub[1])
    loss += in->w_sub[1] < out->w_sub[1] ? 1 + 16 : 1;
  if (in->bits != out->bits)
    loss += in->bits > out->bits ? 1 + 4 : 1;
  return loss;
}

/* The format of least loss from @in among @value (a format name or a list
 * of them), the first of equal ones; NULL when none is a known format. */
const GstVideoFormatInfo *
best_format (const GstVideoFormatInfo * in, const GValue * value, gint * loss)
{
  const GstVideoFormatInfo * best = NULL;
  *loss = G_MAXINT;
  auto consider = [&] (const GValue * v) {
    if (!G_VALUE_HOLDS_STRING (v))
      return;
    GstVideoFormat f = gst_video_format_from_string (g_value_get_string (v));
    if (f == GST_VIDEO_FORMAT_UNKNOWN)
      return;
    const GstVideoFormatInfo * info = gst_video_format_get_info (f);
    gint l = format_loss (in, info);
    if (l < *loss) {
      *loss = l;
      best = info;
    }
  };
  if (GST_VALUE_HOLDS_LIST (value)) {
    for (guint i = 0; i < gst_value_list_get_size (value) && *loss > 0; i++)
      consider (gst_value_list_get_value (value, i));
  } else {
    consider (value);
  }
  return best;
}

/* What @field of @s fixates to when nearest to @target (@target when @s has
 * no such field: nothing restricts it). */
gint
nearest_int (const GstStructure * s, const char * field, gint target)
{
  const GValue * v = gst_structure_get_value (s, field);
  if (!v)
    return target;
  GstStructure * tmp = gst_structure_new_empty ("tmp");
  gst_structure_set_value (tmp, field, v);
  gint out = target;
  gst_structure_fixate_field_nearest_int (tmp, field, target);
  gst_structure_get_int (tmp, field, &out);
  gst_structure_free (tmp);
  return out;
}

/* The same for a fraction in @par, the pixel-aspect-ratio allowed. */
void
nearest_fraction (const GValue * par, gint n, gint d, gint * out_n, gint * out_d)
{
  GstStructure * tmp = gst_structure_new_empty ("tmp");
  gst_structure_set_value (tmp, "pixel-aspect-ratio", par);
  *out_n = n;
  *out_d = d;
  gst_structure_fixate_field_nearest_fraction (tmp, "pixel-aspect-ratio", n, d);
  gst_structure_get_fraction (tmp, "pixel-aspect-ratio", out_n, out_d);
  gst_structure_free (tmp);
}

/* round (@v * @n / @d), 0 where that is no valid size. */
gint
scale_round (gint v, gint n, gint d)
{
  guint64 r = gst_util_uint64_scale_int_round (v, n, d);
  return r > G_MAXINT ? 0 : (gint)r;
}

/* The input frame, as the output sees it (turned where @rotated). */
struct InputShape {
  gint w = 0, h = 0, par_n = 1, par_d = 1;
  gint dar_n = 0, dar_d = 1; /* display aspect ratio: w * par / h */
};

/* Sets the width, height and pixel-aspect-ratio of @outs that keep the
 * display aspect ratio of @in, as far as @outs allows: videoscale's rules.
 * @to_par is what @outs allows for the pixel-aspect-ratio. Where @outs has
 * no PAR, one is only set when it is not 1/1. */
void
fixate_size (GstStructure * outs, const InputShape & in, const GValue * to_par)
{
  gint w = 0, h = 0;
  gst_structure_get_int (outs, "width", &w);
  gst_structure_get_int (outs, "height", &h);
  const bool par_fixed = gst_value_is_fixed (to_par);
  const bool has_par = gst_structure_has_field (outs, "pixel-aspect-ratio");
  auto set_par = [&] (gint n, gint d) {
    if (has_par || n != d)
      gst_structure_set (outs, "pixel-aspect-ratio", GST_TYPE_FRACTION, n, d, NULL);
  };
  auto set_size = [&] (gint sw, gint sh) {
    gst_structure_set (outs, "width", G_TYPE_INT, sw, "height", G_TYPE_INT, sh, NULL);
  };
  /* display aspect ratio / @n/@d: the width:height ratio at that PAR */
  auto ratio_at = [&] (gint n, gint d, gint * num, gint * den) {
    return gst_util_fraction_multiply (in.dar_n, in.dar_d, d, n, num, den);
  };

  if (w && h) {
    /* Size fixed: only the PAR can keep the display aspect ratio. */
    guint n, d;
    if (!par_fixed && gst_video_calculate_display_ratio (
                          &n, &d, in.w, in.h, in.par_n, in.par_d, w, h)) {
      if (has_par)
        gst_structure_fixate_field_nearest_fraction (outs, "pixel-aspect-ratio", n, d);
      else if (n != d)
        gst_structure_set (outs, "pixel-aspect-ratio", GST_TYPE_FRACTION, n, d, NULL);
    }
    return;
  }

  gint num, den, par_n, par_d;
  if (w || h) {
    /* One side fixed: the other from the display aspect ratio. With the
     * PAR free, first try the input's size of the free side with the PAR
     * that keeps the ratio; else the free side at the nearest PAR. */
    const char * free_field = h ? "width" : "height";
    const gint fixed = h ? h : w;
    if (par_fixed) {
      par_n = gst_value_get_fraction_numerator (to_par);
      par_d = gst_value_get_fraction_denominator (to_par);
    } else {
      const gint kept = nearest_int (outs, free_field, h ? in.w : in.h);
      gint want_n, want_d;
      /* PAR = DAR * h / w */
      if (kept &&
          (h ? gst_util_fraction_multiply (in.dar_n, in.dar_d, h, kept, &want_n, &want_d)
             : gst_util_fraction_multiply (
                   in.dar_n, in.dar_d, kept, w, &want_n, &want_d))) {
        nearest_fraction (to_par, want_n, want_d, &par_n, &par_d);
        if (par_n == want_n && par_d == want_d) {
          /* videoconvertscale 1.22 sets the size only together with a PAR;
           * with none written (1/1, none asked) its width or height falls
           * to the range's minimum, 1. */
          gst_structure_set (outs, free_field, G_TYPE_INT, kept, NULL);
          set_par (par_n, par_d);
          return;
        }
      } else {
        return;
      }
    }
    if (!ratio_at (par_n, par_d, &num, &den))
      return;
    const gint target = h ? scale_round (fixed, num, den) : scale_round (fixed, den, num);
    if (target)
      gst_structure_fixate_field_nearest_int (outs, free_field, target);
    if (!par_fixed)
      set_par (par_n, par_d);
    return;
  }

  if (par_fixed) {
    /* Only the PAR fixed: keep the input's height (interlacing), else its
     * width, and compute the other side; if neither keeps the ratio, the
     * pair closer to it. videoconvertscale 1.22 multiplies by the PAR here
     * instead of dividing (1920x1080 1/1 to PAR 4/3 gives 2560x1080); we
     * keep the display aspect ratio: 1440x1080. */
    par_n = gst_value_get_fraction_numerator (to_par);
    par_d = gst_value_get_fraction_denominator (to_par);
    if (!ratio_at (par_n, par_d, &num, &den))
      return;
    const gint h1 = nearest_int (outs, "height", in.h);
    const gint want_w = scale_round (h1, num, den);
    const gint w1 = nearest_int (outs, "width", want_w);
    if (w1 == want_w) {
      set_size (w1, h1);
      return;
    }
    const gint w2 = nearest_int (outs, "width", in.w);
    const gint want_h = scale_round (w2, den, num);
    const gint h2 = nearest_int (outs, "height", want_h);
    if (h2 == want_h) {
      set_size (w2, h2);
      return;
    }
    /* |w1/h1 - want_w/h1| against |w2/h2 - w2/want_h|, cross-multiplied
     * as videoscale does */
    if ((gint64)w2 * ABS (h2 - want_h) < (gint64)ABS (w1 - want_w) * h1)
      set_size (w2, h2);
    else
      set_size (w1, h1);
    return;
  }

  /* Nothing fixed: the input's size where allowed, with the PAR keeping the
   * ratio; else one side scaled to the nearest allowed PAR. */
  const gint h1 = nearest_int (outs, "height", in.h);
  const gint w1 = nearest_int (outs, "width", in.w);
  gint want_n, want_d;
  if (!gst_util_fraction_multiply (in.dar_n, in.dar_d, h1, w1, &want_n, &want_d))
    return;
  nearest_fraction (to_par, want_n, want_d, &par_n, &par_d);
  set_par (par_n, par_d);
  if ((par_n == want_n && par_d == want_d) || !ratio_at (par_n, par_d, &num, &den)) {
    set_size (w1, h1);
    return;
  }
  const gint want_w = scale_round (h1, num, den);
  if (want_w && nearest_int (outs, "width", want_w) == want_w) {
    set_size (want_w, h1);
    return;
  }
  const gint want_h = scale_round (w1, den, num);
  if (want_h && nearest_int (outs, "height", want_h) == want_h) {
    set_size (w1, want_h);
    return;
  }
  set_size (w1, h1);
}

/* Whether @a and @b subsample every component alike (chroma siting means
 * the same in both). */
bool
same_subsampling (const GstVideoFormatInfo * a, const GstVideoFormatInfo * b)
{
  if (GST_VIDEO_FORMAT_INFO_N_COMPONENTS (a) != GST_VIDEO_FORMAT_INFO_N_COMPONENTS (b))
    return false;
  for (guint c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (a); c++)
    if (GST_VIDEO_FORMAT_INFO_W_SUB (a, c) != GST_VIDEO_FORMAT_INFO_W_SUB (b, c) ||
        GST_VIDEO_FORMAT_INFO_H_SUB (a, c) != GST_VIDEO_FORMAT_INFO_H_SUB (b, c))
      return false;
  return true;
}

/* Sets @field of @outs to the input's value (from @ins) where @outs has no
 * such field or allows that value. */
void
keep_input_field (GstStructure * outs, const GstStructure * ins, const char * field)
{
  const GValue * in_v = gst_structure_get_value (ins, field);
  if (!in_v)
    return;
  const GValue * out_v = gst_structure_get_value (outs, field);
  if (out_v) {
    GValue both = G_VALUE_INIT;
    if (!gst_value_intersect (&both, in_v, out_v))
      return;
    g_value_unset (&both);
  }
  gst_structure_set_value (outs, field, in_v);
}

} // namespace

gchar *
gst_cs_convert_caps_explain (GstCaps * wanted, GstCaps * possible)
{
  return gst_cs::explain_caps (wanted, possible, "makes");
}

GstCaps *
gst_cs_convert_caps_transform (GstCaps * caps, GstCaps * filter)
{
  GstCaps * out;
  if (gst_caps_is_any (caps)) {
    out = gst_caps_new_any ();
  } else {
    /* Three passes over the structures: as given (passthrough), size free
     * (scale only), size and format free (scale and convert). Merging drops
     * a structure already expressed by an earlier one; gst_caps_simplify
     * would do more but sorts the structures, losing the preference. */
    out = gst_caps_new_empty ();
    for (int pass = 0; pass < 3; pass++) {
      for (guint i = 0; i < gst_caps_get_size (caps); i++) {
        GstStructure * s = gst_structure_copy (gst_caps_get_structure (caps, i));
        if (pass > 0)
          open_size (s);
        if (pass > 1)
          gst_structure_remove_fields (s, "format", "colorimetry", "chroma-site", NULL);
        out = gst_caps_merge_structure_full (
            out, s, gst_caps_features_copy (gst_caps_get_features (caps, i)));
      }
    }
  }
  return gst_cs_caps_apply_filter (out, filter);
}

GstCaps *
gst_cs_convert_caps_fixate (
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps, gboolean rotated)
{
  if (gst_caps_is_empty (othercaps) || gst_caps_is_any (othercaps) ||
      gst_caps_is_empty (caps) || gst_caps_is_any (caps))
    return gst_caps_fixate (othercaps);
  const GstStructure * ins = gst_caps_get_structure (caps, 0);
  const gchar * in_name = gst_structure_get_string (ins, "format");
  const GstVideoFormatInfo * in_finfo = NULL;
  if (in_name) {
    GstVideoFormat f = gst_video_format_from_string (in_name);
    if (f != GST_VIDEO_FORMAT_UNKNOWN)
      in_finfo = gst_video_format_get_info (f);
  }

  /* The input as the output sees it: turned, where @rotated. An input
   * without PAR has square pixels. */
  InputShape in;
  gst_structure_get_int (ins, "width", &in.w);
  gst_structure_get_int (ins, "height", &in.h);
  gst_structure_get_fraction (ins, "pixel-aspect-ratio", &in.par_n, &in.par_d);
  if (rotated) {
    std::swap (in.w, in.h);
    std::swap (in.par_n, in.par_d);
  }

  /* 1. The structure with the format of least loss, the first of equal
   * ones: transform_caps put passthrough first. videoconvertscale scores
   * the formats of all structures but takes the other fields (size, ...)
   * from the first one; we take the whole structure that allows the format,
   * so its caps features and fields go together. A structure without a
   * format allows the input's. Turned, the input's own size (transform_caps'
   * passthrough structures) would squash the picture: among equal formats
   * the first structure that allows the turned size comes first then. */
  guint chosen = 0;
  const GstVideoFormatInfo * out_finfo = NULL;
  if (in_finfo) {
    gint min_loss = G_MAXINT;
    bool chosen_fits = false;
    for (guint i = 0; i < gst_caps_get_size (othercaps); i++) {
      const GstStructure * s = gst_caps_get_structure (othercaps, i);
      const GValue * v = gst_structure_get_value (s, "format");
      gint loss = 0;
      const GstVideoFormatInfo * best = v ? best_format (in_finfo, v, &loss) : in_finfo;
      if (!best)
        continue;
      const bool fits = !rotated || (nearest_int (s, "width", in.w) == in.w &&
                                        nearest_int (s, "height", in.h) == in.h);
      if (loss < min_loss || (loss == min_loss && fits && !chosen_fits)) {
        min_loss = loss;
        out_finfo = best;
        chosen = i;
        chosen_fits = fits;
      }
      if (min_loss == 0 && chosen_fits)
        break;
    }
  }
  GstCaps * result = gst_caps_new_empty ();
  GstStructure * outs = gst_structure_copy (gst_caps_get_structure (othercaps, chosen));
  gst_caps_append_structure_full (
      result, outs, gst_caps_features_copy (gst_caps_get_features (othercaps, chosen)));
  gst_caps_unref (othercaps);
  if (out_finfo)
    gst_structure_set (
        outs, "format", G_TYPE_STRING, GST_VIDEO_FORMAT_INFO_NAME (out_finfo), NULL);

  /* 2. Size and pixel-aspect-ratio. On the sink pad's side the output's
   * PAR is free where not given, and only set where it is not 1/1;
   * fixating the sink pad from the source pad, an output without PAR means
   * 1/1 (the caps will say so). */
  if (in.w > 0 && in.h > 0 && in.par_n > 0 && in.par_d > 0 &&
      gst_util_fraction_multiply (in.w, in.h, in.par_n, in.par_d, &in.dar_n, &in.dar_d)) {
    GValue to_par = G_VALUE_INIT;
    const GValue * given = gst_structure_get_value (outs, "pixel-aspect-ratio");
    if (given) {
      g_value_init (&to_par, G_VALUE_TYPE (given));
      g_value_copy (given, &to_par);
    } else if (direction == GST_PAD_SINK) {
      g_value_init (&to_par, GST_TYPE_FRACTION_RANGE);
      gst_value_set_fraction_range_full (&to_par, 1, G_MAXINT, G_MAXINT, 1);
    } else {
      g_value_init (&to_par, GST_TYPE_FRACTION);
      gst_value_set_fraction (&to_par, 1, 1);
      gst_structure_set_value (outs, "pixel-aspect-ratio", &to_par);
    }
    fixate_size (outs, in, &to_par);
    g_value_unset (&to_par);
  }

  /* 3. Colorimetry and chroma-site: the input's where they mean the same
   * in the output format and the other side allows them. Across colour
   * families we leave the field out (the output format's default) or to
   * what the other side offers; videoconvertscale writes the input's
   * primaries and transfer with the new family's matrix and range there
   * (NV12 bt709 -> RGBA colorimetry=1:1:5:1), a label our kernels do not
   * honour. Where the other side offers several values and one is the
   * input's, we keep it; videoconvertscale fixates to the first. */
  if (in_finfo && out_finfo) {
    const bool same_family = (GST_VIDEO_FORMAT_INFO_IS_YUV (in_finfo) &&
                                 GST_VIDEO_FORMAT_INFO_IS_YUV (out_finfo)) ||
                             (GST_VIDEO_FORMAT_INFO_IS_RGB (in_finfo) &&
                                 GST_VIDEO_FORMAT_INFO_IS_RGB (out_finfo)) ||
                             (GST_VIDEO_FORMAT_INFO_IS_GRAY (in_finfo) &&
                                 GST_VIDEO_FORMAT_INFO_IS_GRAY (out_finfo));
    if (same_family)
      keep_input_field (outs, ins, "colorimetry");
    /* Chroma siting only means the same where the chroma planes are not
     * resampled: YUV to YUV of the same subsampling. */
    if (GST_VIDEO_FORMAT_INFO_IS_YUV (in_finfo) &&
        GST_VIDEO_FORMAT_INFO_IS_YUV (out_finfo) &&
        same_subsampling (in_finfo, out_finfo))
      keep_input_field (outs, ins, "chroma-site");
  }

  return gst_caps_fixate (result);
}

const gchar *
gst_cs_convert_format_refusal (GstVideoFormat format)
{
  return gst_cs_convert_layout (format, NULL);
}

const GValue *
gst_cs_convert_formats (void)
{
  /* The elements' formats (videoconvert's order of preference) less those
   * the converter refuses. */
  static const GValue * formats =
      gst_cs::video_formats_without (gst_cs_convert_format_refusal);
  return formats;
}

GstCaps *
gst_cs_convert_caps_with_formats (GstCaps * caps)
{
  caps = gst_caps_make_writable (caps);
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    /* nvcodec's memory keeps the formats its interop was checked with. */
    GstCapsFeatures * features = gst_caps_get_features (caps, i);
    if (features && gst_caps_features_contains (features, GST_CAPS_FEATURE_MEMORY_CS))
      gst_structure_set_value (
          gst_caps_get_structure (caps, i), "format", gst_cs_convert_formats ());
  }
  return caps;
}
