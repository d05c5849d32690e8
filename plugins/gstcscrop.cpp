/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-cudacrop
 * @title: cudacrop
 *
 * Crops raw video in CUDA device memory (memory:CUDAStreamsMemory), a
 * drop-in for videocrop: the same left/right/top/bottom properties, the same
 * automatic mode (-1, the output size then comes from downstream caps and
 * two automatic sides split the difference, the odd pixel going right or
 * down), changeable while PLAYING (the next frame is renegotiated), and the
 * same pixels, bit for bit.
 *
 * The crop is zero-copy where downstream allows it, and never touches
 * upstream's metadata: where downstream takes a #GstVideoCropMeta, the frame
 * goes on with one (as videocrop does); where it reads #GstVideoMeta, the
 * frame goes on in a new buffer that sees the same device memory through
 * plane offsets of its own. No GPU work is done and the buffer keeps its
 * sync meta, so the next element waits for the same event. Otherwise the
 * region is copied into packed frames with one kernel launch on the
 * element's stream; so is YUY2/UYVY cropped at an odd column for a
 * #GstVideoMeta reader (its first pixel starts inside a macro-pixel, which
 * offsets cannot express). The element never waits for the GPU.
 *
 * A #GstVideoCropMeta on the input is honoured: the crop applies within the
 * region it marks (its x/y are added to left/top; the caps give the size),
 * for every format. With nothing to crop (all four 0) frames go on
 * untouched; a crop meta on them is still applied. Metas go on as from
 * videocrop: untouched with a crop meta, moved by the crop otherwise.
 *
 * Alternate fields (interlace-mode=alternate, one field a buffer, with the
 * format:Interlaced caps feature) are cropped in field lines, as videocrop
 * crops the lines of the buffer it is given: the frame's height in the
 * caps moves by twice top + bottom. Crop metas on fields count field
 * lines too.
 *
 * A crop that leaves nothing (left + right >= width, top + bottom >= height)
 * refuses the caps: linking fails, or negotiation does and the element posts
 * a warning saying why. (videocrop maps such sizes to 1 in its caps
 * transform and fails later.)
 *
 * Chroma of subsampled formats is never resampled: a subsampled plane starts
 * at the sample covering the crop origin (the origin rounded down), exactly
 * as videocrop 1.22 does, including its luma shift of YUY2/UYVY at odd
 * columns. The formats videocrop does not support follow the same rules
 * (P010_10LE and P016_LE its NV12 rule with 2-byte samples; v216 and Y210
 * the luma shift with 2-byte samples); RGB8P's palette is kept whole; a
 * crop of IYU1 (4 pixels in 6 bytes) starting inside a group of 4 is an
 * error. Frames of another device are copied to
 * the element's device first.
 *
 * Built with GStreamer's CUDA library, the element also takes and makes
 * nvcodec's memory (memory:CUDAMemory, e.g. from nvh264dec), its own memory
 * being preferred where both sides take both. nvcodec's frames are read in
 * place and kept until the GPU has read them; a frame written into
 * nvcodec's memory costs one host wait, as nvcodec 1.22 reads what it gets
 * at once. The element is registered as cudacrop and as cudastreamscrop.
 *
 * ## Example
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=NV12,width=1920,height=1080 ! \
 *   cudaupload ! cudacrop left=320 right=320 top=180 bottom=180 ! cudadownload ! autovideosink
 * ]|
 *
 * Since: 0.1
 */
#include "gstcscrop.h"

#include <utility>

#include "gstcsbufferpool-private.h"
#include "base/gstcscaps.h"
#include "base/gstcsformats.hpp"
#include "base/gstcscompat.hpp"
#include "crop/gstcscropcopy.hpp"
#include "crop/gstcscroprect.h"
#include "base/gstcsdeviceinput.hpp"
#include "base/gstcsdevicework.hpp"
#include "gstcserror-private.h"
#include "base/gstcsframe.hpp"
#include "gstcshostwait-private.h"
#include "gstcsmemory-private.h"
#include "base/gstcsmetas.h"
#include "nvcodec/gstcsnvcodec.hpp"
#include "base/gstcsoutputpool.hpp"
#include "gstcssyncmeta-private.h"

GST_DEBUG_CATEGORY_STATIC (gst_cs_crop_debug);
#define GST_CAT_DEFAULT gst_cs_crop_debug

#define POOL_MIN_BUFFERS 3
/* nvcodec frames kept while our copy of them runs (done within a frame or
 * two: more only wait). */
#define HELD_NVCODEC_FRAMES 3
/* Crops recently used in transform_caps, tried in set_caps (see there). */
#define RECENT_CROPS 4

enum { PROP_0, PROP_LEFT, PROP_RIGHT, PROP_TOP, PROP_BOTTOM };

/* The four sides of a crop; -1 = automatic. */
struct CropSides {
  gint left = 0, right = 0, top = 0, bottom = 0;
  bool operator== (const CropSides & o) const
  {
    return left == o.left && right == o.right && top == o.top && bottom == o.bottom;
  }
};

/* How a frame leaves the element. */
enum class Output {
  UNTOUCHED,  /* nothing to crop: the input itself */
  CROP_META,  /* the input, or an alias of it, with a crop meta */
  VIDEO_META, /* an alias of the input with plane offsets of its own */
  PACKED,     /* a packed copy in a frame of our pool */
};

struct _GstCsCrop {
  GstCsBaseTransform parent;

  CropSides props; /* the properties, object lock */
  /* what transform_caps computed sizes with, newest first (object lock) */
  CropSides recent[RECENT_CROPS];
  guint n_recent;
  gboolean warned_nothing_left; /* object lock; reset by a new crop */

  /* the crop of the negotiated caps, in lines of the picture a buffer
   * holds; left/top and line_height (frame lines a picture line stands
   * for: 2 for alternate fields) under the object lock (read by navigation
   * events), the rest used by the streaming thread only */
  gint left, right, top, bottom, line_height;
  gboolean no_crop;               /* all four are 0 */
  gboolean takes_crop_meta;       /* downstream reads GstVideoCropMeta */
  gboolean takes_video_meta;      /* downstream reads GstVideoMeta */
  gboolean in_nvcodec;            /* input in nvcodec's memory */
  gboolean out_nvcodec;           /* output in nvcodec's memory */
  GstBufferPool * pool;           /* packed output frames */
  gst_cs::DeviceInput * input;    /* copies from other devices, nvcodec frames held */
  Output output;                  /* this frame's, prepare to transform */
  gst_cs::FrameLayouts * layouts; /* of the frames, streaming thread */
};

G_DEFINE_TYPE (GstCsCrop, gst_cs_crop, GST_TYPE_CS_BASE_TRANSFORM);

/* Our memory first: where both sides allow both, ours is chosen. Both
 * pads; the formats are those of gst_cs::video_formats(), set in
 * class_init. */
static const gchar sink_caps[] = GST_CS_VIDEO_DEVICE_CAPS GST_CS_VIDEO_DEVICE_FIELD_CAPS
    GST_CS_VIDEO_NVCODEC_CAPS GST_CS_VIDEO_NVCODEC_FIELD_CAPS;
static const gchar * const src_caps = sink_caps;

/* --- caps ------------------------------------------------------------- */

static gint
clamp_size (gint64 size)
{
  return (gint)CLAMP (size, 1, (gint64)G_MAXINT);
}

static void
set_size (GValue * out, gint lo, gint hi)
{
  if (lo >= hi) {
    g_value_init (out, G_TYPE_INT);
    g_value_set_int (out, lo);
  } else {
    g_value_init (out, GST_TYPE_INT_RANGE);
    gst_value_set_int_range (out, lo, hi);
  }
}

/* One width or height across the crop: smaller downstream (from the sink
 * side), larger upstream. An automatic crop can remove any amount, so the
 * size becomes open-ended in the direction it moves. A size the crop leaves
 * nothing of has no counterpart (videocrop maps it to 1, which only fails
 * later, in negotiation): that refuses such caps in accept-caps already. */
static gboolean
transform_size (const GValue * in, GstPadDirection direction, gint crop,
    gboolean automatic, GValue * out)
{
  gint64 lo, hi;
  if (G_VALUE_HOLDS_INT (in)) {
    lo = hi = g_value_get_int (in);
  } else if (GST_VALUE_HOLDS_INT_RANGE (in)) {
    lo = gst_value_get_int_range_min (in);
    hi = gst_value_get_int_range_max (in);
  } else if (GST_VALUE_HOLDS_LIST (in)) {
    g_value_init (out, GST_TYPE_LIST);
    for (guint i = 0; i < gst_value_list_get_size (in); i++) {
      GValue v = G_VALUE_INIT;
      if (transform_size (
              gst_value_list_get_value (in, i), direction, crop, automatic, &v))
        gst_value_list_append_and_take_value (out, &v);
    }
    if (gst_value_list_get_size (out) > 0)
      return TRUE;
    g_value_unset (out);
    return FALSE;
  } else {
    return FALSE;
  }
  if (direction == GST_PAD_SINK) {
    if (hi - crop < 1)
      return FALSE;
    set_size (out, automatic ? 1 : clamp_size (lo - crop), clamp_size (hi - crop));
  } else
    set_size (out, clamp_size (lo + crop), automatic ? G_MAXINT : clamp_size (hi + crop));
  return TRUE;
}

/* @field of @s across a crop of @first and @second (-1: automatic) at its
 * two ends, in lines (or columns) of the picture; a picture's line is
 * @lines of the size in the caps (2 for the height of alternate fields). */
static gboolean
transform_field (GstStructure * s, const gchar * field, GstPadDirection direction,
    gint first, gint second, gint lines = 1)
{
  const GValue * in = gst_structure_get_value (s, field);
  if (!in)
    return TRUE;
  /* An automatic side counts as 0 here; it opens the range instead. */
  gint64 crop = ((gint64)MAX (first, 0) + MAX (second, 0)) * lines;
  GValue out = G_VALUE_INIT;
  if (!transform_size (in, direction, (gint)MIN (crop, (gint64)G_MAXINT),
          first < 0 || second < 0, &out))
    return FALSE;
  gst_structure_take_value (s, field, &out);
  return TRUE;
}

/* Upstream offers only frame sizes the crop leaves nothing of. Negotiation
 * then fails upstream with a bare "not-negotiated"; this says why (once
 * per setting: caps queries repeat). */
static void
warn_nothing_left (GstCsCrop * self, GstCaps * caps, gint l, gint r, gint t, gint b)
{
  GST_OBJECT_LOCK (self);
  const gboolean warned = self->warned_nothing_left;
  self->warned_nothing_left = TRUE;
  GST_OBJECT_UNLOCK (self);
  if (warned)
    return;
  GstStructure * s = gst_caps_get_structure (caps, 0);
  gint w = 0, h = 0;
  gchar * input =
      gst_structure_get_int (s, "width", &w) && gst_structure_get_int (s, "height", &h)
          ? g_strdup_printf ("the %dx%d input", w, h)
          : g_strdup ("any input size offered");
  GST_ELEMENT_WARNING (self, CORE, NEGOTIATION,
      ("Crop leaves nothing of %s: left %d + right %d, top %d + bottom %d", input, l, r,
          t, b),
      ("input caps %" GST_PTR_FORMAT, caps));
  g_free (input);
}

/* Whether @s describes alternate fields (one field a buffer): the crop
 * counts the field's lines, and the frame's height in the caps moves by
 * twice as many. */
static gboolean
is_alternate (const GstStructure * s)
{
  return g_strcmp0 (gst_structure_get_string (s, "interlace-mode"), "alternate") == 0;
}

/* The lines of the picture a buffer of @info holds (a field's, for
 * alternate fields): the lines a crop counts. */
static gint
picture_lines (const GstVideoInfo * info)
{
  return GST_VIDEO_INFO_FIELD_HEIGHT (info);
}

static gboolean
holds_fields (const GstVideoInfo * info)
{
  return GST_VIDEO_INFO_INTERLACE_MODE (info) == GST_VIDEO_INTERLACE_MODE_ALTERNATE;
}

/* Called with the object lock. */
static void
remember_crop (GstCsCrop * self, const CropSides & crop)
{
  if (self->n_recent > 0 && self->recent[0] == crop)
    return;
  for (guint i = MIN (self->n_recent, RECENT_CROPS - 1); i > 0; i--)
    self->recent[i] = self->recent[i - 1];
  self->recent[0] = crop;
  self->n_recent = MIN (self->n_recent + 1, (guint)RECENT_CROPS);
}

static GstCaps *
gst_cs_crop_transform_caps (
    GstBaseTransform * trans, GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  auto * self = GST_CS_CROP (trans);
  GST_OBJECT_LOCK (self);
  const CropSides crop = self->props;
  if (direction == GST_PAD_SINK)
    remember_crop (self, crop);
  GST_OBJECT_UNLOCK (self);
  const gint l = crop.left, r = crop.right, t = crop.top, b = crop.bottom;

  /* Only the sizes change; format, rate and colorimetry stay. */
  GstCaps * sized = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure * s = gst_structure_copy (gst_caps_get_structure (caps, i));
    GstCapsFeatures * f = gst_caps_get_features (caps, i);
    if (transform_field (s, "width", direction, l, r) &&
        transform_field (s, "height", direction, t, b, is_alternate (s) ? 2 : 1))
      sized =
          gst_caps_merge_structure_full (sized, s, f ? gst_caps_features_copy (f) : NULL);
    else
      gst_structure_free (s);
  }
  /* Either memory on the other side, ours first (preferred); the crop
   * copies a frame from one into the other where they differ. */
  GstCaps * out = gst_cs::caps_in_device_memory (sized);
  gst_caps_unref (sized);
  if (direction == GST_PAD_SINK && gst_caps_is_empty (out) && !gst_caps_is_empty (caps) &&
      !gst_caps_is_any (caps))
    warn_nothing_left (self, caps, l, r, t, b);
  out = gst_cs_caps_apply_filter (out, filter);
  GST_LOG_OBJECT (self, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "downstream" : "upstream", caps, out);
  return out;
}

/* The crop of one axis for the negotiated sizes. An automatic side takes
 * what the other leaves of the difference; two automatic sides split it,
 * the odd pixel going to the second (right, bottom), as videocrop does.
 * Returns NULL, or why the sizes cannot come from this crop (to be freed). */
static gchar *
resolve_axis (const gchar * axis, const gchar * first_name, const gchar * second_name,
    gint in, gint out, gint first, gint second, gint * rfirst, gint * rsecond)
{
  const gint64 diff = (gint64)in - out;
  gint64 a = first, b = second;
  if (first < 0 && second < 0) {
    a = diff / 2;
    b = diff - a;
  } else if (first < 0) {
    a = diff - second;
  } else if (second < 0) {
    b = diff - first;
  }
  if ((gint64)MAX (first, 0) + MAX (second, 0) >= in)
    return g_strdup_printf ("Crop leaves nothing: %s %d + %s %d >= %s %d of the input",
        first_name, first, second_name, second, axis, in);
  if (a < 0 || b < 0 || a + b != diff)
    return g_strdup_printf ("Cannot crop a %s of %d to %d with %s %d and %s %d "
                            "(-1 = automatic)",
        axis, in, out, first_name, first, second_name, second);
  *rfirst = (gint)a;
  *rsecond = (gint)b;
  return NULL;
}

/* The crop that turns `in` into `out` with the sides of `crop`. */
static gchar *
resolve_crop (const CropSides & crop, const GstVideoInfo * in, const GstVideoInfo * out,
    CropSides * resolved)
{
  gchar * why = resolve_axis ("width", "left", "right", in->width, out->width, crop.left,
      crop.right, &resolved->left, &resolved->right);
  if (!why)
    why = resolve_axis (holds_fields (in) ? "field height" : "height", "top", "bottom",
        picture_lines (in), picture_lines (out), crop.top, crop.bottom, &resolved->top,
        &resolved->bottom);
  return why;
}

static gboolean
gst_cs_crop_set_info (GstCsBaseTransform * base, GstCaps * incaps, GstVideoInfo * in,
    GstCaps * outcaps, GstVideoInfo * out)
{
  auto * self = GST_CS_CROP (base);
  if (GST_VIDEO_INFO_FORMAT (in) != GST_VIDEO_INFO_FORMAT (out)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("Cannot crop %" GST_PTR_FORMAT " into %" GST_PTR_FORMAT, incaps, outcaps));
    return FALSE;
  }
  /* The properties may have changed since transform_caps computed the
   * output size (an application thread sets them while we negotiate): the
   * caps then come from a crop transform_caps used recently. That one
   * applies to this negotiation; the change already asked for the next. */
  GST_OBJECT_LOCK (self);
  CropSides candidates[1 + RECENT_CROPS] = { self->props };
  const guint n = 1 + self->n_recent;
  for (guint i = 0; i < self->n_recent; i++)
    candidates[1 + i] = self->recent[i];
  GST_OBJECT_UNLOCK (self);

  CropSides c;
  gchar * why = resolve_crop (candidates[0], in, out, &c);
  for (guint i = 1; why && i < n; i++) {
    gchar * other = resolve_crop (candidates[i], in, out, &c);
    if (!other)
      std::swap (why, other);
    g_free (other);
  }
  if (why) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", why), (NULL));
    g_free (why);
    return FALSE;
  }

  GST_OBJECT_LOCK (self);
  self->left = c.left;
  self->right = c.right;
  self->top = c.top;
  self->bottom = c.bottom;
  self->line_height = holds_fields (in) ? 2 : 1;
  GST_OBJECT_UNLOCK (self);
  /* Nothing to crop: buffers go through untouched, unless they carry a crop
   * meta. No basetransform passthrough: it would hand upstream downstream's
   * ALLOCATION answer, and an upstream that was told we take crop metas
   * would keep sending them to a downstream that ignores them. */
  self->no_crop = (c.left | c.right | c.top | c.bottom) == 0;
  self->in_nvcodec = gst_cs::caps_are_nvcodec (incaps);
  self->out_nvcodec = gst_cs::caps_are_nvcodec (outcaps);
  GST_DEBUG_OBJECT (self,
      "crop l %d r %d t %d b %d: %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, c.left,
      c.right, c.top, c.bottom, incaps, outcaps);
  return TRUE;
}

/* --- allocation ------------------------------------------------------- */

static gboolean
gst_cs_crop_propose_allocation (
    GstBaseTransform * trans, GstQuery * decide_query, GstQuery * query)
{
  if (!GST_BASE_TRANSFORM_CLASS (gst_cs_crop_parent_class)
           ->propose_allocation (trans, decide_query, query))
    return FALSE;
  /* Whatever downstream takes (copied from our ALLOCATION query), we read
   * any plane layout and crop within an upstream crop. */
  gst_cs_query_add_layout_metas (query);
  /* Zero-copy frames are upstream's: downstream holds as many of them as it
   * asked us for, and we hold one more, and nvcodec's frames until our copy
   * of them is done. */
  gst_cs_query_propose_held_passthrough (
      query, decide_query, 1 + GST_CS_CROP (trans)->input->held_capacity ());
  return TRUE;
}

static gboolean
gst_cs_crop_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  auto * self = GST_CS_CROP (trans);
  self->takes_crop_meta =
      gst_query_find_allocation_meta (query, GST_VIDEO_CROP_META_API_TYPE, NULL);
  self->takes_video_meta =
      gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  GST_INFO_OBJECT (self, "downstream reads crop metas: %d, video metas: %d",
      self->takes_crop_meta, self->takes_video_meta);
  if (!gst_cs::decide_output_pool (GST_CS_BASE_TRANSFORM (self), query, POOL_MIN_BUFFERS,
          self->out_nvcodec, &self->pool))
    return FALSE;
  /* Zero-copy crops need no frames of its own, nor does no crop: allocate
   * them when a frame first needs them. */
  return self->takes_crop_meta || self->takes_video_meta || self->no_crop ||
         gst_cs::activate_output_pool (GST_ELEMENT (self), self->pool);
}

/* --- frames ----------------------------------------------------------- */

static Output
output_for (GstCsCrop * self, GstBuffer * source)
{
  const GstVideoCropMeta * cm = gst_buffer_get_video_crop_meta (source);
  /* A frame that changes memory (ours to nvcodec's or back) is copied. */
  const gboolean source_nvcodec =
      gst_cs::is_nvcodec_memory (gst_buffer_peek_memory (source, 0));
  if (source_nvcodec != self->out_nvcodec)
    return Output::PACKED;
  if (self->no_crop && !cm)
    return Output::UNTOUCHED;
  if (self->takes_crop_meta)
    return Output::CROP_META;
  if (source_nvcodec) /* an alias of nvcodec's memory has no offsets of its own */
    return Output::PACKED;
  const guint x = (guint)self->left + (cm ? cm->x : 0);
  auto * base = GST_CS_BASE_TRANSFORM (self);
  if (self->takes_video_meta && gst_cs_crop_is_offsets_only (base->in_info.finfo, x))
    return Output::VIDEO_META;
  return Output::PACKED;
}

/* A new buffer that sees the pixels of `source` (the same device memory and
 * sync meta) and holds `source` until it is gone; upstream's buffer and its
 * metadata stay as they are. */
static GstBuffer *
alias_of (GstCsCrop * self, GstBuffer * source)
{
  GstBuffer * out = gst_buffer_new ();
  GstMemory * mem = gst_buffer_peek_memory (source, 0);
  /* nvcodec's memory is ready when pushed and carries no sync meta: the
   * alias shares it (it returns to its pool when both are gone). */
  const gboolean nvcodec = gst_cs::is_nvcodec_memory (mem);
  gst_buffer_append_memory (
      out, nvcodec ? gst_memory_ref (mem) : gst_cs_memory_new_alias (source));
  GstBaseTransform * trans = GST_BASE_TRANSFORM (self);
  GST_BASE_TRANSFORM_GET_CLASS (trans)->copy_metadata (trans, source, out);
  if (!nvcodec)
    gst_cs_sync_meta_copy (out, source);
  return out;
}

static GstFlowReturn
gst_cs_crop_prepare_output_buffer (
    GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer ** outbuf)
{
  auto * self = GST_CS_CROP (trans);
  /* The frame the crop reads: the input, or its copy on our device. */
  GstBuffer * source = self->input->prepare (inbuf);
  if (!source)
    return GST_FLOW_ERROR;
  self->output = output_for (self, source);
  switch (self->output) {
    case Output::UNTOUCHED:
      *outbuf = source;
      return GST_FLOW_OK;
    case Output::CROP_META:
      /* As videocrop: a crop meta on the frame itself when it is ours alone
       * (it goes when the buffer returns to its pool). */
      *outbuf = gst_buffer_is_writable (source) ? source : alias_of (self, source);
      return GST_FLOW_OK;
    case Output::VIDEO_META:
      *outbuf = alias_of (self, source);
      return GST_FLOW_OK;
    case Output::PACKED:
      break;
  }
  return gst_cs::acquire_output_frame (trans, self->pool, source, outbuf);
}

/* The crop as a crop meta: within the input's crop meta, if any. */
static void
crop_by_meta (GstCsCrop * self, GstBuffer * source, GstBuffer * out)
{
  auto * base = GST_CS_BASE_TRANSFORM (self);
  const GstVideoCropMeta * in = gst_buffer_get_video_crop_meta (source);
  const guint x = in ? in->x : 0, y = in ? in->y : 0;
  if (out != source) {
    /* an alias: the frame's layout is the input's */
    if (const GstVideoMeta * vm = gst_buffer_get_video_meta (source))
      gst_buffer_add_video_meta_full (out, vm->flags, vm->format, vm->width, vm->height,
          vm->n_planes, const_cast<gsize *> (vm->offset),
          const_cast<gint *> (vm->stride));
  }
  GstVideoCropMeta * cm = gst_buffer_get_video_crop_meta (out);
  if (!cm)
    cm = gst_buffer_add_video_crop_meta (out);
  cm->x = x + (guint)self->left;
  cm->y = y + (guint)self->top;
  cm->width = base->out_info.width;
  cm->height = picture_lines (&base->out_info);
}

/* The crop as plane offsets: a video meta of the alias's own. */
static void
crop_by_offsets (GstCsCrop * self, GstBuffer * out, const gst_cs::Region & region)
{
  auto * base = GST_CS_BASE_TRANSFORM (self);
  const GstVideoInfo * frame = &region.frame;
  const guint n = GST_VIDEO_INFO_N_PLANES (frame);
  gsize offset[GST_VIDEO_MAX_PLANES] = {};
  gint stride[GST_VIDEO_MAX_PLANES] = {};
  for (guint p = 0; p < n; p++) {
    offset[p] = frame->offset[p] + region.planes[p].offset;
    stride[p] = frame->stride[p];
  }
  gst_buffer_add_video_meta_full (out, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (frame), base->out_info.width, base->out_info.height, n,
      offset, stride);
}

/* Packed: one kernel copies every plane on our stream, ordered after the
 * input's producer and after the output memory's previous readers. */
static GstFlowReturn
crop_copy (GstCsCrop * self, GstBuffer * inbuf, GstBuffer * outbuf,
    const gst_cs::Region & region)
{
  auto * base = GST_CS_BASE_TRANSFORM (self);
  GError * err = NULL;
  const bool ok = gst_cs::run_device_work (
      base, inbuf, outbuf,
      [&] (guint8 * in, guint8 * out, cudaStream_t stream, GError ** error) {
        GstVideoInfo out_layout;
        return self->layouts->output.buffer_layout (outbuf, &base->out_info, &out_layout,
                   gst_buffer_get_size (outbuf), error) &&
               gst_cs::launch_region_copy (in, region, out, &out_layout, stream, error);
      },
      &err);
  if (!ok) {
    GST_CS_POST_ERROR (self, err, "Cannot crop a frame");
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

static GstFlowReturn
crop_frame (GstCsCrop * self, GstBuffer * source, GstBuffer * outbuf)
{
  if (self->output == Output::UNTOUCHED)
    return GST_FLOW_OK;
  /* Where the crop lies in the source, which must fit even as a crop meta. */
  auto * base = GST_CS_BASE_TRANSFORM (self);
  gst_cs::Region region;
  GError * err = NULL;
  if (!self->layouts->input.locate_region (source, &base->in_info,
          gst_buffer_get_size (source), (guint)self->left, (guint)self->top,
          base->out_info.width, picture_lines (&base->out_info), &region, &err)) {
    GST_CS_POST_ERROR (self, err, "Cannot crop a frame");
    return GST_FLOW_ERROR;
  }
  switch (self->output) {
    case Output::CROP_META:
      crop_by_meta (self, source, outbuf);
      return GST_FLOW_OK;
    case Output::VIDEO_META:
      crop_by_offsets (self, outbuf, region);
      return GST_FLOW_OK;
    default:
      return crop_copy (self, source, outbuf, region);
  }
}

static GstFlowReturn
gst_cs_crop_transform (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer * outbuf)
{
  auto * self = GST_CS_CROP (trans);
  GstFlowReturn ret = crop_frame (self, self->input->source (inbuf), outbuf);
  /* The GPU read the input where it made a copy across devices or a crop:
   * an nvcodec frame is kept until that is done. */
  const bool read = self->input->copied () || self->output == Output::PACKED;
  if (!self->input->finish (inbuf, outbuf, ret == GST_FLOW_OK && read))
    ret = GST_FLOW_ERROR;
  return ret;
}

/* As videocrop: a frame that goes on with a crop meta keeps every meta as
 * it is, in the coordinates of the whole buffer (whoever applies the crop
 * meta moves them, once); a cropped frame gets them moved by the crop, or
 * not at all. The crop meta is made anew. */
static gboolean
gst_cs_crop_transform_meta (
    GstBaseTransform * trans, GstBuffer * outbuf, GstMeta * meta, GstBuffer * inbuf)
{
  auto * self = GST_CS_CROP (trans);
  auto * base = GST_CS_BASE_TRANSFORM (self);
  if (self->output == Output::CROP_META)
    return meta->info->api != GST_VIDEO_CROP_META_API_TYPE;
  GstCsMetaGeometry geometry;
  gst_cs_meta_geometry_init (&geometry, &base->in_info, inbuf, &base->out_info);
  geometry.in_rect.x += self->left;
  geometry.in_rect.y += self->top;
  geometry.in_rect.w = geometry.out_rect.w = base->out_info.width;
  geometry.in_rect.h = geometry.out_rect.h = base->out_info.height;
  return gst_cs_meta_transform (outbuf, meta, inbuf, &geometry);
}

/* Pointer positions from downstream are in the cropped frame; upstream
 * wants them in the whole frame (where a field's line is two). */
static gboolean
gst_cs_crop_src_event (GstBaseTransform * trans, GstEvent * event)
{
  auto * self = GST_CS_CROP (trans);
  gdouble x, y;
  if (GST_EVENT_TYPE (event) == GST_EVENT_NAVIGATION &&
      gst_cs::navigation_coordinates (event, &x, &y)) {
    GST_OBJECT_LOCK (self);
    const gint left = self->left, top = self->top * self->line_height;
    GST_OBJECT_UNLOCK (self);
    event = GST_EVENT (gst_mini_object_make_writable (GST_MINI_OBJECT_CAST (event)));
    gst_cs::navigation_set_coordinates (event, x + left, y + top);
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cs_crop_parent_class)->src_event (trans, event);
}

static gboolean
gst_cs_crop_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    GST_CS_CROP (trans)->input->release_held ();
  return GST_BASE_TRANSFORM_CLASS (gst_cs_crop_parent_class)->sink_event (trans, event);
}

static gboolean
gst_cs_crop_stop (GstBaseTransform * trans)
{
  auto * self = GST_CS_CROP (trans);
  gst_clear_object (&self->pool);
  self->input->reset ();
  return GST_BASE_TRANSFORM_CLASS (gst_cs_crop_parent_class)->stop (trans);
}

/* --- properties ------------------------------------------------------- */

static gint *
prop_field (GstCsCrop * self, guint id)
{
  switch (id) {
    case PROP_LEFT:
      return &self->props.left;
    case PROP_RIGHT:
      return &self->props.right;
    case PROP_TOP:
      return &self->props.top;
    case PROP_BOTTOM:
      return &self->props.bottom;
    default:
      return NULL;
  }
}

static void
gst_cs_crop_set_property (
    GObject * object, guint id, const GValue * value, GParamSpec * pspec)
{
  auto * self = GST_CS_CROP (object);
  gint * field = prop_field (self, id);
  if (!field) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
    return;
  }
  const gint v = g_value_get_int (value);
  GST_OBJECT_LOCK (self);
  const gboolean changed = *field != v;
  *field = v;
  if (changed)
    self->warned_nothing_left = FALSE;
  GST_OBJECT_UNLOCK (self);
  if (changed) {
    /* The next frame renegotiates with the new size (and mode). */
    GST_DEBUG_OBJECT (self, "%s = %d", pspec->name, v);
    gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
  }
}

static void
gst_cs_crop_get_property (GObject * object, guint id, GValue * value, GParamSpec * pspec)
{
  auto * self = GST_CS_CROP (object);
  gint * field = prop_field (self, id);
  if (!field) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
    return;
  }
  GST_OBJECT_LOCK (self);
  g_value_set_int (value, *field);
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cs_crop_finalize (GObject * object)
{
  auto * self = GST_CS_CROP (object);
  gst_clear_object (&self->pool);
  delete self->input;
  delete self->layouts;
  G_OBJECT_CLASS (gst_cs_crop_parent_class)->finalize (object);
}

static void
install_crop_property (GObjectClass * klass, guint id, const gchar * name,
    const gchar * nick, const gchar * blurb)
{
  g_object_class_install_property (klass, id,
      g_param_spec_int (name, nick, blurb, -1, G_MAXINT, 0,
          (GParamFlags)(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                        GST_PARAM_CONTROLLABLE | GST_PARAM_MUTABLE_PLAYING)));
}

static void
gst_cs_crop_class_init (GstCsCropClass * klass)
{
  GObjectClass * gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass * element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass * trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_cs_crop_set_property;
  gobject_class->get_property = gst_cs_crop_get_property;
  gobject_class->finalize = gst_cs_crop_finalize;
  /**
   * GstCsCrop:left:
   *
   * Pixels to remove at the left edge. -1: automatic, as many as it takes,
   * with #GstCsCrop:right, to reach the width downstream asks for.
   *
   * Since: 0.1
   */
  install_crop_property (gobject_class, PROP_LEFT, "left", "Left",
      "Pixels to crop at left (-1 to auto-crop)");
  /**
   * GstCsCrop:right:
   *
   * Pixels to remove at the right edge. -1: automatic; when both left and
   * right are, an odd pixel goes to the right.
   *
   * Since: 0.1
   */
  install_crop_property (gobject_class, PROP_RIGHT, "right", "Right",
      "Pixels to crop at right (-1 to auto-crop)");
  /**
   * GstCsCrop:top:
   *
   * Pixels to remove at the top edge. -1: automatic, as many as it takes,
   * with #GstCsCrop:bottom, to reach the height downstream asks for.
   *
   * Since: 0.1
   */
  install_crop_property (
      gobject_class, PROP_TOP, "top", "Top", "Pixels to crop at top (-1 to auto-crop)");
  /**
   * GstCsCrop:bottom:
   *
   * Pixels to remove at the bottom edge. -1: automatic; when both top and
   * bottom are, an odd pixel goes to the bottom.
   *
   * Since: 0.1
   */
  install_crop_property (gobject_class, PROP_BOTTOM, "bottom", "Bottom",
      "Pixels to crop at bottom (-1 to auto-crop)");

  gst_cs::add_video_pad_templates (element_class, sink_caps, src_caps);
  gst_element_class_set_static_metadata (element_class, "CUDA stream crop",
      "Filter/Effect/Video/Hardware",
      "Crops video in CUDA device memory like videocrop: zero-copy where "
      "downstream reads video or crop metas, else one kernel on a pooled stream",
      "gst-cudastreams developers");

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_caps = GST_DEBUG_FUNCPTR (gst_cs_crop_transform_caps);
  trans_class->propose_allocation = GST_DEBUG_FUNCPTR (gst_cs_crop_propose_allocation);
  trans_class->decide_allocation = GST_DEBUG_FUNCPTR (gst_cs_crop_decide_allocation);
  trans_class->prepare_output_buffer =
      GST_DEBUG_FUNCPTR (gst_cs_crop_prepare_output_buffer);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cs_crop_transform);
  trans_class->transform_meta = GST_DEBUG_FUNCPTR (gst_cs_crop_transform_meta);
  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_cs_base_transform_sync_controlled);
  trans_class->src_event = GST_DEBUG_FUNCPTR (gst_cs_crop_src_event);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cs_crop_sink_event);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cs_crop_stop);
  GST_CS_BASE_TRANSFORM_CLASS (klass)->set_info =
      GST_DEBUG_FUNCPTR (gst_cs_crop_set_info);

  GST_DEBUG_CATEGORY_INIT (gst_cs_crop_debug, "cscrop", 0, "gst-cudastreams crop");
}

static void
gst_cs_crop_init (GstCsCrop * self)
{
  self->input =
      new gst_cs::DeviceInput (GST_CS_BASE_TRANSFORM (self), HELD_NVCODEC_FRAMES);
  self->layouts = new gst_cs::FrameLayouts;
  self->line_height = 1;
  /* Late frames are dropped, as videocrop (a GstVideoFilter) drops them. */
  gst_base_transform_set_qos_enabled (GST_BASE_TRANSFORM (self), TRUE);
}
