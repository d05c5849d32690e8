/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "base/gstcsmetas.h"

#include <cstddef>

/* The rules are those of GStreamer's CPU elements, read in their sources
 * (1.22.9 to 1.28.6): GstBaseTransform keeps untagged metas and drops the
 * others; GstVideoFilter keeps those tagged "video" alone too; videocrop,
 * videoflip and videoconvertscale handle those tagged with nothing but
 * "video", "size" and "orientation". videoconvertscale scales the
 * size-tagged ones (a matrix of 1.28, else the scale transform); from 1.28
 * videocrop moves them by a matrix and videoflip turns the
 * orientation-tagged ones by one, where before both kept only what
 * GstVideoFilter keeps. glupload and gldownload, which only copy, keep
 * colour-tagged metas too. What our elements do in one kernel (crop, turn,
 * scale, convert) gets what those elements would do one after the other,
 * each transform made as that element makes it, with its own rounding. */

namespace {

/* What the tags of a meta say. */
struct Tags {
  bool none = true;    /* no tags: about the frame as a whole */
  bool memory = false; /* bound to the memory (basetransform never passes them) */
  bool size = false;   /* positions and sizes in pixels */
  bool turn = false;   /* orientation */
  bool only_video = true;
  bool picture = true;  /* nothing but "video", "size" and "orientation" */
  bool copyable = true; /* those and "colorspace": what a copy keeps */
};

Tags
tags_of (GType api)
{
  Tags t;
  const gchar * const * tags = gst_meta_api_type_get_tags (api);
  for (; tags && *tags; tags++) {
    const gchar * tag = *tags;
    t.none = false;
    const bool video = g_strcmp0 (tag, GST_META_TAG_VIDEO_STR) == 0;
    const bool size = g_strcmp0 (tag, GST_META_TAG_VIDEO_SIZE_STR) == 0;
    const bool turn = g_strcmp0 (tag, GST_META_TAG_VIDEO_ORIENTATION_STR) == 0;
    const bool colour = g_strcmp0 (tag, GST_META_TAG_VIDEO_COLORSPACE_STR) == 0;
    t.memory |= g_strcmp0 (tag, GST_META_TAG_MEMORY_STR) == 0;
    t.size |= size;
    t.turn |= turn;
    t.only_video &= video;
    t.picture &= video || size || turn;
    t.copyable &= video || size || turn || colour;
  }
  t.only_video &= !t.none;
  return t;
}

/* GstVideoMetaTransformMatrix (1.28), whatever headers the plugin was
 * built with: a 1.28 GStreamer may run a plugin built against older ones,
 * and its metas expect this layout. */
struct MatrixTransform {
  const GstVideoInfo * in_info;
  GstVideoRectangle in_rectangle;
  const GstVideoInfo * out_info;
  GstVideoRectangle out_rectangle;
  gfloat matrix[3][3];
};

#if GST_CHECK_VERSION(1, 28, 0)
static_assert (sizeof (MatrixTransform) == sizeof (GstVideoMetaTransformMatrix) &&
                   offsetof (MatrixTransform, out_rectangle) ==
                       offsetof (GstVideoMetaTransformMatrix, out_rectangle) &&
                   offsetof (MatrixTransform, matrix) ==
                       offsetof (GstVideoMetaTransformMatrix, matrix),
    "GstVideoMetaTransformMatrix as 1.28 has it");
#endif

GQuark
matrix_quark ()
{
#if GST_CHECK_VERSION(1, 28, 0)
  return gst_video_meta_transform_matrix_get_quark ();
#else
  return g_quark_from_static_string ("gst-video-matrix");
#endif
}

/* Whether the GStreamer that runs transforms metas by matrices (1.28). */
bool
has_matrices ()
{
  static const bool has = [] () {
    guint major = 0, minor = 0, micro = 0, nano = 0;
    gst_version (&major, &minor, &micro, &nano);
    return major > 1 || (major == 1 && minor >= 28);
  }();
  return has;
}

/* videoflip's matrix (1.28) for `o` of a region of `w` x `h`: it maps pixel
 * centres, hence the -1s. */
void
turn_matrix (GstVideoOrientationMethod o, gint w, gint h, gfloat m[3][3])
{
  enum Offset { NONE, LAST_COLUMN, LAST_ROW }; /* + w - 1, + h - 1 */
  static const struct {
    gint xx, xy;
    Offset x;
    gint yx, yy;
    Offset y;
  } turns[] = {
    { 1, 0, NONE, 0, 1, NONE },              /* identity */
    { 0, -1, LAST_ROW, 1, 0, NONE },         /* 90r */
    { -1, 0, LAST_COLUMN, 0, -1, LAST_ROW }, /* 180 */
    { 0, 1, NONE, -1, 0, LAST_COLUMN },      /* 90l */
    { -1, 0, LAST_COLUMN, 0, 1, NONE },      /* horiz */
    { 1, 0, NONE, 0, -1, LAST_ROW },         /* vert */
    { 0, 1, NONE, 1, 0, NONE },              /* ul-lr */
    { 0, -1, LAST_ROW, -1, 0, LAST_COLUMN }, /* ur-ll */
  };
  const auto & t = turns[(guint)o < G_N_ELEMENTS (turns) ? (guint)o : 0];
  auto offset = [&] (Offset of) {
    return of == LAST_COLUMN ? (gfloat)(w - 1) : of == LAST_ROW ? (gfloat)(h - 1) : 0.0f;
  };
  m[0][0] = (gfloat)t.xx, m[0][1] = (gfloat)t.xy, m[0][2] = offset (t.x);
  m[1][0] = (gfloat)t.yx, m[1][1] = (gfloat)t.yy, m[1][2] = offset (t.y);
  m[2][0] = 0.0f, m[2][1] = 0.0f, m[2][2] = 1.0f;
}

bool
swaps_axes (GstVideoOrientationMethod o)
{
  return o == GST_VIDEO_ORIENTATION_90R || o == GST_VIDEO_ORIENTATION_90L ||
         o == GST_VIDEO_ORIENTATION_UL_LR || o == GST_VIDEO_ORIENTATION_UR_LL;
}

/* The GStreamer elements that would do what an element does, in turn. */
enum class Stage { CROP, TURN, SCALE };

enum class Action { COPY, DROP, TRANSFORM };

/* What `stage`'s element makes of a meta of `t` that only "video", "size"
 * and "orientation" tag (the others they all drop). */
Action
decide (Stage stage, const Tags & t)
{
  if (stage == Stage::SCALE) /* videoconvertscale */
    return t.size ? Action::TRANSFORM : Action::COPY;
  /* videocrop, videoflip: before 1.28 what GstVideoFilter keeps */
  if (!has_matrices ())
    return t.only_video ? Action::COPY : Action::DROP;
  const bool moved = stage == Stage::CROP ? t.size : t.turn;
  return moved ? Action::TRANSFORM : Action::COPY;
}

/* One element's transform: its frames and rectangles. */
struct Step {
  Stage stage;
  const GstVideoInfo * in_info;
  GstVideoRectangle in_rect;
  const GstVideoInfo * out_info;
  GstVideoRectangle out_rect;
  GstVideoOrientationMethod orientation;
};

/* The frames between two steps, as their elements' caps would say (the
 * input's, where nothing is cropped or turned). */
struct Between {
  GstVideoInfo cropped, turned;
};

void
sized (GstVideoInfo * info, const GstVideoInfo * from, gint w, gint h)
{
  *info = *from;
  GST_VIDEO_INFO_WIDTH (info) = w;
  GST_VIDEO_INFO_HEIGHT (info) = h;
}

/* The steps of `g` that transform a meta, in order, into `steps`; their
 * count. */
guint
plan (const GstCsMetaGeometry * g, const Action actions[3], Between * between,
    Step steps[3])
{
  const GstVideoRectangle & r = g->in_rect;
  const bool swap = swaps_axes (g->orientation);
  const gint tw = swap ? r.h : r.w, th = swap ? r.w : r.h;
  sized (&between->cropped, g->in_info, r.w, r.h);
  sized (&between->turned, g->in_info, tw, th);
  const Step all[3] = {
    { Stage::CROP, g->in_info, r, &between->cropped, { 0, 0, r.w, r.h },
        GST_VIDEO_ORIENTATION_IDENTITY },
    { Stage::TURN, &between->cropped, { 0, 0, r.w, r.h }, &between->turned,
        { 0, 0, tw, th }, g->orientation },
    { Stage::SCALE, &between->turned, { 0, 0, tw, th }, g->out_info, g->out_rect,
        GST_VIDEO_ORIENTATION_IDENTITY },
  };
  guint n = 0;
  for (guint i = 0; i < 3; i++)
    if (actions[i] == Action::TRANSFORM)
      steps[n++] = all[i];
  return n;
}

/* `step` through the meta's own transform function, as its element calls
 * it: videocrop and videoflip with a matrix (1.28), videoconvertscale with
 * one and, where that fails or before 1.28, with the scale transform. */
void
apply (const Step & step, GstMeta * meta, GstBuffer * from, GstBuffer * to)
{
  const GstMetaInfo * info = meta->info;
  if (has_matrices ()) {
    MatrixTransform t = { step.in_info, step.in_rect, step.out_info, step.out_rect, {} };
    if (step.stage == Stage::TURN) {
      turn_matrix (step.orientation, step.in_rect.w, step.in_rect.h, t.matrix);
    } else {
      t.matrix[0][0] = (gfloat)step.out_rect.w / (gfloat)step.in_rect.w;
      t.matrix[1][1] = (gfloat)step.out_rect.h / (gfloat)step.in_rect.h;
      t.matrix[2][2] = 1.0f;
    }
    if (info->transform_func (to, meta, from, matrix_quark (), &t) ||
        step.stage != Stage::SCALE)
      return;
  }
  GstVideoMetaTransform t = { const_cast<GstVideoInfo *> (step.in_info),
    const_cast<GstVideoInfo *> (step.out_info) };
  info->transform_func (to, meta, from, gst_video_meta_transform_scale_get_quark (), &t);
}

/* `meta` through each of `steps`, the last onto `outbuf`; between them on
 * buffers of their own, as the metas between two elements. */
void
transform (
    const Step * steps, guint n, GstMeta * meta, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstBuffer * from = inbuf;
  GstBuffer * between[2] = { NULL, NULL };
  for (guint i = 0; i < n && meta; i++) {
    GstBuffer * to = i + 1 == n ? outbuf : (between[i] = gst_buffer_new ());
    apply (steps[i], meta, from, to);
    from = to;
    meta = i + 1 < n ? gst_buffer_get_meta (to, meta->info->api) : NULL;
  }
  for (GstBuffer * b : between)
    if (b)
      gst_buffer_unref (b);
}

} // namespace

/**
 * gst_cs_meta_geometry_init:
 * @geometry: what to fill
 * @in_info: the input's caps
 * @inbuf: the input frame
 * @out_info: the output's caps
 *
 * The geometry of a copy of what @inbuf shows (the region its crop meta
 * marks, else all of it), pixel for pixel. Elements that do more change
 * the fields after.
 */
void
gst_cs_meta_geometry_init (GstCsMetaGeometry * geometry, const GstVideoInfo * in_info,
    GstBuffer * inbuf, const GstVideoInfo * out_info)
{
  geometry->in_info = in_info;
  geometry->out_info = out_info;
  if (const GstVideoCropMeta * cm = gst_buffer_get_video_crop_meta (inbuf))
    geometry->in_rect = { (gint)cm->x, (gint)cm->y, (gint)cm->width, (gint)cm->height };
  else
    geometry->in_rect = { 0, 0, GST_VIDEO_INFO_WIDTH (in_info),
      GST_VIDEO_INFO_HEIGHT (in_info) };
  geometry->out_rect = { 0, 0, geometry->in_rect.w, geometry->in_rect.h };
  geometry->orientation = GST_VIDEO_ORIENTATION_IDENTITY;
  geometry->converted = FALSE;
}

/**
 * gst_cs_meta_transform:
 * @outbuf: the output frame
 * @meta: a meta of @inbuf
 * @inbuf: the input frame
 * @geometry: what the element does to the frame
 *
 * An element's #GstBaseTransformClass.transform_meta. A crop meta on the
 * input is the element's to apply (or to make anew) and never goes on.
 *
 * Returns: %TRUE where @meta goes on as it is (GstBaseTransform copies it);
 * %FALSE where it was transformed onto @outbuf here, or is dropped.
 */
gboolean
gst_cs_meta_transform (GstBuffer * outbuf, GstMeta * meta, GstBuffer * inbuf,
    const GstCsMetaGeometry * geometry)
{
  const GType api = meta->info->api;
  if (api == GST_VIDEO_CROP_META_API_TYPE)
    return FALSE;
  const Tags t = tags_of (api);
  if (t.none || t.memory)
    return t.none;
  /* the whole input frame: its video meta's size where it has one (a frame
   * with a crop meta has the region's size in its caps) */
  const GstVideoMeta * vm = gst_buffer_get_video_meta (inbuf);
  const gint w = vm ? (gint)vm->width : GST_VIDEO_INFO_WIDTH (geometry->in_info);
  const gint h = vm ? (gint)vm->height : GST_VIDEO_INFO_HEIGHT (geometry->in_info);
  const GstVideoRectangle & r = geometry->in_rect;
  const bool present[3] = { r.x != 0 || r.y != 0 || r.w != w || r.h != h,
    geometry->orientation != GST_VIDEO_ORIENTATION_IDENTITY,
    geometry->converted != FALSE };
  if (!present[0] && !present[1] && !present[2])
    return t.copyable; /* a copy, as glupload and gldownload */
  if (!t.picture)
    return FALSE;
  Action actions[3];
  bool moved = false;
  for (guint i = 0; i < 3; i++) {
    actions[i] = present[i] ? decide ((Stage)i, t) : Action::COPY;
    if (actions[i] == Action::DROP)
      return FALSE;
    moved |= actions[i] == Action::TRANSFORM;
  }
  if (!moved)
    return TRUE;
  if (meta->info->transform_func && r.w > 0 && r.h > 0 && geometry->out_rect.w > 0 &&
      geometry->out_rect.h > 0) {
    Between between;
    Step steps[3];
    transform (steps, plan (geometry, actions, &between, steps), meta, inbuf, outbuf);
  }
  return FALSE;
}
