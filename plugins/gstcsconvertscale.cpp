/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-cudaconvertscale
 * @title: cudaconvertscale
 *
 * Crops, scales, rotates and converts raw video in CUDA device memory
 * (memory:CUDAStreamsMemory), in one kernel launch per frame that writes
 * every plane of the output, on the element's stream. Like the other
 * elements it never waits for the GPU: the kernel waits on the GPU for the
 * input's event, and the output carries the event recorded after it.
 *
 * What videoconvertscale does, on the GPU:
 * - every format the other elements move, in and out, and planar RGB
 *   (RGBP, BGRP) out, the layout image models take;
 * - colour matrix and range from the caps' colorimetry (BT.601, BT.709,
 *   BT.2020, ...; full and limited range), chroma siting as GStreamer's
 *   chroma resampler has it, 8 to 16 bits per component (P010 to NV12 and
 *   back). The transfer function and primaries are not converted, as
 *   videoconvertscale does not by default;
 * - scaling by #GstCsConvertScale:method, each plane at its own resolution;
 * - #GstCsConvertScale:add-borders keeps the display aspect ratio with
 *   borders of #GstCsConvertScale:border-color;
 * - #GstCsConvertScale:video-direction rotates and flips (the
 *   #GstVideoDirection interface; `auto` follows the image-orientation tag);
 * - a #GstVideoCropMeta on the input is honoured: only the region it marks
 *   is read, so `cudacrop ! cudaconvertscale` is one kernel in all;
 * - alternate fields (interlace-mode=alternate, one field a buffer, with
 *   the format:Interlaced caps feature) are scaled each as a picture of
 *   the frame's width and half its height, their flags kept; turning them
 *   or flipping them upside down is refused;
 * - metas (regions of interest, analytics boxes) as videocrop, videoflip
 *   and videoconvertscale one after the other transform them.
 *
 * Caps negotiate as with videoconvertscale: the input's format, size and
 * colorimetry where downstream allows them, else the nearest (the display
 * aspect ratio is kept where downstream leaves a dimension open). With
 * equal caps and no rotation frames go through untouched, unless they carry
 * a crop meta.
 *
 * Built with GStreamer's CUDA library, the element also takes and makes
 * nvcodec's memory (memory:CUDAMemory), as the other elements do. It is
 * registered as cudaconvertscale where no other plugin holds that name
 * (nvcodec 1.24 and newer does), and always as cudastreamsconvertscale.
 *
 * ## Examples
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=NV12,width=1920,height=1080 ! \
 *   cudaupload ! cudaconvertscale ! \
 *   'video/x-raw(memory:CUDAStreamsMemory),format=RGBA,width=640,height=360' ! \
 *   cudadownload ! autovideosink
 * ]| Scales and converts decoder-like NV12 for display.
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=NV12,width=1920,height=1080 ! \
 *   cudaupload ! cudaconvertscale ! \
 *   'video/x-raw(memory:CUDAStreamsMemory),format=RGBP,width=640,height=640,pixel-aspect-ratio=1/1' ! \
 *   cudadownload ! fakesink
 * ]| A letterboxed 640x640 planar RGB model input: square pixels asked for,
 * the picture keeps its shape between borders. Without a pixel-aspect-ratio
 * the element keeps the picture whole by changing the pixel aspect ratio
 * instead, as videoconvertscale does: the frame is stretched.
 *
 * Since: 0.2
 */
#include "gstcsconvertscale.h"

#include <optional>

#include "base/gstcscaps.h"
#include "base/gstcscompat.hpp"
#include "convert/gstcsconvertcaps.h"
#include "convert/gstcsconvertdesc.hpp"
#include "convert/gstcsconvertlines.hpp"
#include "convert/gstcsconvertmemo.hpp"
#include "convert/gstcsorientationtags.hpp"
#include "base/gstcsdeviceinput.hpp"
#include "base/gstcsdevicework.hpp"
#include "gstcserror-private.h"
#include "base/gstcsframe.hpp"
#include "base/gstcsmetas.h"
#include "nvcodec/gstcsnvcodec.hpp"
#include "base/gstcsoutputpool.hpp"

GST_DEBUG_CATEGORY_STATIC (gst_cs_convert_scale_debug);
#define GST_CAT_DEFAULT gst_cs_convert_scale_debug

#define POOL_MIN_BUFFERS 3
/* nvcodec frames kept while our kernel reads them (see cudacrop). */
#define HELD_NVCODEC_FRAMES 3

#define DEFAULT_METHOD GST_CS_CONVERT_SCALE_BILINEAR
#define DEFAULT_ADD_BORDERS TRUE
#define DEFAULT_BORDER_COLOR 0xff000000u
#define DEFAULT_DIRECTION GST_VIDEO_ORIENTATION_IDENTITY

enum { PROP_0, PROP_METHOD, PROP_ADD_BORDERS, PROP_BORDER_COLOR, PROP_VIDEO_DIRECTION };

struct _GstCsConvertScale {
  GstCsBaseTransform parent;

  /* properties and the image-orientation tag, object lock */
  GstCsConvertScaleMethod method;
  gboolean add_borders;
  guint32 border_color;
  GstVideoOrientationMethod direction;
  gst_cs::OrientationTags * tags; /* the image-orientation tags' */

  /* of the negotiation, streaming thread */
  GstVideoOrientationMethod fixated;     /* the one the latest fixation was for */
  GstVideoOrientationMethod orientation; /* the one the caps in use were made for
                                          * (written under the object lock) */
  gboolean caps_equal;                   /* the caps in use: input = output */
  gboolean same_caps;                    /* frames without crop meta go through */
  gboolean out_nvcodec;
  gchar * refusal; /* the last reason posted for refused caps, object lock */
  GstBufferPool * pool;
  gst_cs::DeviceInput * input;    /* copies from other devices, nvcodec frames held */
  gst_cs::ConvertColours colours; /* of the caps in use, streaming thread */
  gst_cs::FrameLayouts * layouts; /* of the frames, streaming thread */
  gst_cs::ConvertMemo * memo;     /* the last frame's description, streaming thread */
  gst_cs::ConvertLines * lines;   /* its table of taps, streaming thread */
};

static void
gst_cs_convert_scale_direction_init (GstVideoDirectionInterface *)
{}

G_DEFINE_TYPE_WITH_CODE (GstCsConvertScale, gst_cs_convert_scale,
    GST_TYPE_CS_BASE_TRANSFORM,
    G_IMPLEMENT_INTERFACE (
        GST_TYPE_VIDEO_DIRECTION, gst_cs_convert_scale_direction_init));

GType
gst_cs_convert_scale_method_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    { GST_CS_CONVERT_SCALE_NEAREST, "Nearest neighbour", "nearest-neighbour" },
    { GST_CS_CONVERT_SCALE_BILINEAR, "Bilinear (2x2 taps)", "bilinear" },
    { GST_CS_CONVERT_SCALE_BICUBIC, "Bicubic (Catmull-Rom, 4x4 taps)", "bicubic" },
    { GST_CS_CONVERT_SCALE_AREA, "Area average when shrinking, bilinear when enlarging",
        "area" },
    { 0, NULL, NULL },
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCsConvertScaleMethod", values));
  return type;
}

/* The templates' shape; their formats are the converter's own
 * (gst_cs_convert_formats: every format of this GStreamer it can read and
 * write), set in class_init. */
#define TEMPLATE_CAPS \
  GST_CS_VIDEO_DEVICE_CAPS GST_CS_VIDEO_DEVICE_FIELD_CAPS GST_CS_VIDEO_NVCODEC_CAPS \
      GST_CS_VIDEO_NVCODEC_FIELD_CAPS

/* --- orientation ------------------------------------------------------ */

/* The orientation asked for now: the property, or the tag's for auto. */
static GstVideoOrientationMethod
current_orientation (GstCsConvertScale * self)
{
  GST_OBJECT_LOCK (self);
  GstVideoOrientationMethod m = self->direction == GST_VIDEO_ORIENTATION_AUTO
                                    ? self->tags->current ()
                                    : self->direction;
  GST_OBJECT_UNLOCK (self);
  /* custom is refused by the property, auto resolved above */
  if (m == GST_VIDEO_ORIENTATION_CUSTOM || m == GST_VIDEO_ORIENTATION_AUTO)
    m = GST_VIDEO_ORIENTATION_IDENTITY;
  return m;
}

static gboolean
swaps_axes (GstVideoOrientationMethod m)
{
  return m == GST_VIDEO_ORIENTATION_90R || m == GST_VIDEO_ORIENTATION_90L ||
         m == GST_VIDEO_ORIENTATION_UL_LR || m == GST_VIDEO_ORIENTATION_UR_LL;
}

/* --- caps ------------------------------------------------------------- */

static GstCaps *
gst_cs_convert_scale_transform_caps (
    GstBaseTransform * trans, GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCaps * open = gst_cs_convert_caps_transform (caps, NULL);
  /* Either memory on the other side, ours first (preferred). */
  GstCaps * out = gst_cs_caps_apply_filter (gst_cs::caps_in_device_memory (open), filter);
  gst_caps_unref (open);
  GST_LOG_OBJECT (trans, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "downstream" : "upstream", caps, out);
  return out;
}

static GstCaps *
gst_cs_convert_scale_fixate_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * othercaps)
{
  auto * self = GST_CS_CONVERT_SCALE (trans);
  /* Read once: the caps are fixed for this orientation, and frames get it
   * once they are in use (commit_orientation), whatever the property says
   * by then. GstBaseTransform fixates on the streaming thread only. */
  self->fixated = current_orientation (self);
  GstCaps * fixed =
      gst_cs_convert_caps_fixate (direction, caps, othercaps, swaps_axes (self->fixated));
  GST_DEBUG_OBJECT (
      self, "fixated for orientation %d to %" GST_PTR_FORMAT, self->fixated, fixed);
  return fixed;
}

static gboolean
gst_cs_convert_scale_set_info (GstCsBaseTransform * base, GstCaps * incaps,
    GstVideoInfo * in, GstCaps * outcaps, GstVideoInfo * out)
{
  auto * self = GST_CS_CONVERT_SCALE (base);
  self->caps_equal = gst_caps_is_equal (incaps, outcaps);
  self->out_nvcodec = gst_cs::caps_are_nvcodec (outcaps);
  self->colours.valid = false; /* of the caps before */
  self->memo->clear ();
  (void)in, (void)out;
  return TRUE;
}

/* The caps of the latest fixation are in use: frames get the orientation
 * they were fixed for from now on. GstBaseTransform calls set_info only
 * when the caps change, but decide_allocation after every negotiation that
 * succeeds, so this runs from there: a new orientation that leaves the caps
 * as they were (180, a flip, 90r <-> 90l into a square) applies too. */
static void
commit_orientation (GstCsConvertScale * self)
{
  GST_OBJECT_LOCK (self); /* navigation events read it */
  self->orientation = self->fixated;
  GST_OBJECT_UNLOCK (self);
  self->same_caps =
      self->orientation == GST_VIDEO_ORIENTATION_IDENTITY && self->caps_equal;
  GST_DEBUG_OBJECT (self, "orientation %d%s", self->orientation,
      self->same_caps ? ", frames go through" : "");
}

/* Says on the bus why the caps downstream accepts cannot be made: a
 * negotiation warning naming the field, the value asked for and what the
 * element makes, once per reason. GStreamer's own message ("Internal data
 * stream error", not-negotiated) says neither. (Caps events and
 * renegotiations that fail: the base class says why.) */
static void
explain_refusal (GstCsConvertScale * self)
{
  GstBaseTransform * trans = GST_BASE_TRANSFORM (self);
  GstCaps * wanted = gst_pad_peer_query_caps (trans->srcpad, NULL);
  GstCaps * made = gst_pad_get_pad_template_caps (trans->srcpad);
  gchar * why = gst_cs_convert_caps_explain (wanted, made);
  GST_OBJECT_LOCK (self);
  const gboolean repeated = !why || g_strcmp0 (why, self->refusal) == 0;
  if (!repeated) {
    g_free (self->refusal);
    self->refusal = g_strdup (why);
  }
  GST_OBJECT_UNLOCK (self);
  if (!repeated)
    GST_ELEMENT_WARNING (self, CORE, NEGOTIATION,
        ("Cannot make the caps downstream accepts: %s", why),
        ("downstream accepts %" GST_PTR_FORMAT, wanted));
  g_free (why);
  gst_caps_unref (made);
  gst_caps_unref (wanted);
}

/* An empty answer to upstream's caps query: nothing it sends could be
 * negotiated; say why where downstream is the cause. */
static gboolean
gst_cs_convert_scale_query (
    GstBaseTransform * trans, GstPadDirection direction, GstQuery * query)
{
  const gboolean ret = GST_BASE_TRANSFORM_CLASS (gst_cs_convert_scale_parent_class)
                           ->query (trans, direction, query);
  GstCaps * result = NULL;
  if (ret && direction == GST_PAD_SINK && GST_QUERY_TYPE (query) == GST_QUERY_CAPS) {
    gst_query_parse_caps_result (query, &result);
    if (result && gst_caps_is_empty (result))
      explain_refusal (GST_CS_CONVERT_SCALE (trans));
  }
  return ret;
}

/* --- allocation ------------------------------------------------------- */

static gboolean
gst_cs_convert_scale_propose_allocation (
    GstBaseTransform * trans, GstQuery * decide_query, GstQuery * query)
{
  if (!GST_BASE_TRANSFORM_CLASS (gst_cs_convert_scale_parent_class)
           ->propose_allocation (trans, decide_query, query))
    return FALSE;
  /* We read any plane layout and only the region a crop meta marks. */
  gst_cs_query_add_layout_metas (query);
  /* An untouched frame is upstream's: downstream holds as many of them as it
   * asked us for, and we hold nvcodec's while our kernel reads them. */
  gst_cs_query_propose_held_passthrough (
      query, decide_query, 1 + GST_CS_CONVERT_SCALE (trans)->input->held_capacity ());
  return TRUE;
}

/* Whether frames of @info can take @m: any frame, and an alternate field
 * (one field a buffer) as it is or flipped left to right. Turned by a
 * quarter its lines would be columns, and upside down they would be those
 * of the frame's other field. */
static gboolean
orientation_fits (const GstVideoInfo * info, GstVideoOrientationMethod m)
{
  return GST_VIDEO_INFO_INTERLACE_MODE (info) != GST_VIDEO_INTERLACE_MODE_ALTERNATE ||
         m == GST_VIDEO_ORIENTATION_IDENTITY || m == GST_VIDEO_ORIENTATION_HORIZ;
}

static gboolean
gst_cs_convert_scale_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  auto * self = GST_CS_CONVERT_SCALE (trans);
  commit_orientation (self);
  if (!orientation_fits (&GST_CS_BASE_TRANSFORM (self)->in_info, self->orientation)) {
    GEnumClass * k = (GEnumClass *)g_type_class_ref (GST_TYPE_VIDEO_ORIENTATION_METHOD);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Cannot turn or flip upside down fields of interlace-mode=alternate "
         "(video-direction %s): only identity and horiz keep a field's lines",
            g_enum_get_value (k, self->orientation)->value_nick),
        (NULL));
    g_type_class_unref (k);
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  g_clear_pointer (&self->refusal, g_free); /* negotiated: a later one is news */
  GST_OBJECT_UNLOCK (self);
  if (!gst_cs::decide_output_pool (GST_CS_BASE_TRANSFORM (self), query, POOL_MIN_BUFFERS,
          self->out_nvcodec, &self->pool))
    return FALSE;
  /* With equal caps frames may all go through: allocate on first need. */
  return self->same_caps || gst_cs::activate_output_pool (GST_ELEMENT (self), self->pool);
}

/* --- frames ----------------------------------------------------------- */

static GstFlowReturn
gst_cs_convert_scale_prepare_output_buffer (
    GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer ** outbuf)
{
  auto * self = GST_CS_CONVERT_SCALE (trans);
  /* The frame the kernel reads: the input, or its copy on our device. */
  GstBuffer * source = self->input->prepare (inbuf);
  if (!source)
    return GST_FLOW_ERROR;
  const gboolean source_nvcodec =
      gst_cs::is_nvcodec_memory (gst_buffer_peek_memory (source, 0));
  if (self->same_caps && !gst_buffer_get_video_crop_meta (source) &&
      source_nvcodec == self->out_nvcodec) {
    *outbuf = source;
    return GST_FLOW_OK;
  }
  return gst_cs::acquire_output_frame (trans, self->pool, source, outbuf);
}

static gst_cs::gpu::Filter
filter_of (GstCsConvertScaleMethod m)
{
  switch (m) {
    case GST_CS_CONVERT_SCALE_NEAREST:
      return gst_cs::gpu::Filter::NEAREST;
    case GST_CS_CONVERT_SCALE_BICUBIC:
      return gst_cs::gpu::Filter::BICUBIC;
    case GST_CS_CONVERT_SCALE_AREA:
      return gst_cs::gpu::Filter::AREA;
    default:
      return gst_cs::gpu::Filter::BILINEAR;
  }
}

/* The element's settings for one frame: the properties are read once, so
 * a frame is made with one setting. */
static gst_cs::ConvertSettings
frame_settings (GstCsConvertScale * self)
{
  gst_cs::ConvertSettings settings;
  GST_OBJECT_LOCK (self);
  settings.filter = filter_of (self->method);
  settings.add_borders = self->add_borders;
  settings.border_argb = self->border_color;
  GST_OBJECT_UNLOCK (self);
  settings.orientation = static_cast<gst_cs::gpu::Orientation> (self->orientation);
  return settings;
}

/* One kernel reads the visible region of `source` and writes every plane
 * of `outbuf`, on our stream, ordered by events. */
static GstFlowReturn
convert_frame (GstCsConvertScale * self, GstBuffer * source, GstBuffer * outbuf)
{
  auto * base = GST_CS_BASE_TRANSFORM (self);
  gst_cs::Region region;
  GError * err = NULL;
  if (!self->layouts->input.locate_visible (
          source, &base->in_info, gst_buffer_get_size (source), &region, &err)) {
    GST_CS_POST_ERROR (self, err, "Cannot convert a frame");
    return GST_FLOW_ERROR;
  }
  gst_cs::ConvertKey key;
  key.settings = frame_settings (self);
  key.x = region.x, key.y = region.y, key.width = region.width,
  key.height = region.height;
  key.in = &region.frame;
  const bool ok = gst_cs::run_device_work (
      base, source, outbuf,
      [&] (guint8 * in, guint8 * out, cudaStream_t stream, GError ** error) {
        GstVideoInfo out_layout;
        if (!self->layouts->output.buffer_layout (outbuf, &base->out_info, &out_layout,
                gst_buffer_get_size (outbuf), error))
          return false;
        key.out = &out_layout;
        /* Made where the memo describes afresh only: 1 KiB of initialising
         * that a moved description's frame does without. emplace ()
         * value-initialises it, padding zeroed, and convert_scale_resolve
         * copies it as bytes: the same description is the same bytes, as
         * the memo, the table and the compiled kernels' keys compare it. */
        std::optional<gst_cs::gpu::ConvertScale> described;
        gst_cs::gpu::ConvertScale * op = self->memo->resolve (key, in, out, [&] () {
          gst_cs::gpu::ConvertScale & d = described.emplace ();
          gst_cs::describe_convert (&base->in_info, &base->out_info, (gint)region.x,
              (gint)region.y, (gint)region.width, (gint)region.height, key.settings,
              &self->colours, &d);
          d.in = gst_cs::convert_image (&base->in_info, &region.frame, in, false);
          d.out = gst_cs::convert_image (&base->out_info, &out_layout, out, true);
          return d;
        });
        const bool attached =
            !op || self->lines->attach (op, self->memo->moved (),
                       gst_cs_base_transform_get_device (base), stream, error);
        /* Before any return: the memo's compiled-kernel ticket is trusted
         * without comparing descriptions, so a description the table
         * repointed must drop it even when the attach then failed. */
        if (op && self->lines->repointed ())
          self->memo->changed ();
        if (!attached)
          return false;
        const cudaError_t status =
            op ? gst_cs::gpu::convert_scale_resolved (*op, stream, self->memo->ticket ())
               : cudaErrorInvalidValue;
        if (status == cudaSuccess)
          return true;
        if (!op) /* refused: resolve () described it */
          op = &*described;
        g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_CUDA,
            "Cannot launch the convert-scale kernel (%dx%d at %d,%d of %dx%d -> %dx%d): "
            "%s",
            op->src_w, op->src_h, op->src_x, op->src_y, op->in.width, op->in.height,
            op->out.width, op->out.height, cudaGetErrorString (status));
        return false;
      },
      &err);
  if (!ok) {
    GST_CS_POST_ERROR (self, err, "Cannot convert a frame");
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_cs_convert_scale_transform (
    GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer * outbuf)
{
  auto * self = GST_CS_CONVERT_SCALE (trans);
  GstBuffer * source = self->input->source (inbuf);
  GstFlowReturn ret =
      outbuf == source ? GST_FLOW_OK : convert_frame (self, source, outbuf);
  /* An input the kernel read: an nvcodec frame is kept until it is done. */
  if (!self->input->finish (inbuf, outbuf, ret == GST_FLOW_OK && outbuf != source))
    ret = GST_FLOW_ERROR;
  return ret;
}

/* As videocrop (where the input has a crop meta), videoflip (where the
 * frame is turned) and videoconvertscale one after the other: boxes are
 * moved, turned and scaled into the picture between the borders, in one
 * transform. */
static gboolean
gst_cs_convert_scale_transform_meta (
    GstBaseTransform * trans, GstBuffer * outbuf, GstMeta * meta, GstBuffer * inbuf)
{
  auto * self = GST_CS_CONVERT_SCALE (trans);
  auto * base = GST_CS_BASE_TRANSFORM (self);
  GstCsMetaGeometry geometry;
  gst_cs_meta_geometry_init (&geometry, &base->in_info, inbuf, &base->out_info);
  geometry.orientation = self->orientation;
  geometry.converted = TRUE;
  GstVideoRectangle & out = geometry.out_rect;
  gst_cs::place_picture (&base->in_info, &base->out_info, geometry.in_rect.w,
      geometry.in_rect.h, frame_settings (self), &out.x, &out.y, &out.w, &out.h);
  return gst_cs_meta_transform (outbuf, meta, inbuf, &geometry);
}

/* Follows the image-orientation tags (and a new stream's start) for
 * video-direction=auto, as videoflip does. Following them, the element
 * turns the frames upright: the tag it passes on says rotate-0, so that
 * downstream does not turn them again. Returns the event to pass on. */
static GstEvent *
take_orientation (GstCsConvertScale * self, GstEvent * event)
{
  GstTagList * tags = NULL;
  const gchar * stream_id = NULL;
  gchar * unknown = NULL;
  GST_OBJECT_LOCK (self);
  gboolean changed;
  if (GST_EVENT_TYPE (event) == GST_EVENT_TAG) {
    gst_event_parse_tag (event, &tags);
    changed = self->tags->take (tags, &unknown);
  } else {
    gst_event_parse_stream_start (event, &stream_id);
    changed = self->tags->start_stream (stream_id);
  }
  const gboolean follows = self->direction == GST_VIDEO_ORIENTATION_AUTO;
  GST_OBJECT_UNLOCK (self);
  if (unknown)
    GST_WARNING_OBJECT (self, "Unknown image-orientation tag %s: none", unknown);
  g_free (unknown);
  if (changed && follows)
    gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
  gchar * value = NULL;
  GstVideoOrientationMethod m;
  const bool named = tags && follows &&
                     gst_tag_list_get_string (tags, GST_TAG_IMAGE_ORIENTATION, &value) &&
                     gst_cs::orientation_from_tag (value, &m);
  g_free (value);
  if (!named)
    return event;
  GstTagList * upright = gst_tag_list_copy (tags);
  gst_tag_list_add (
      upright, GST_TAG_MERGE_REPLACE, GST_TAG_IMAGE_ORIENTATION, "rotate-0", NULL);
  gst_event_unref (event);
  return gst_event_new_tag (upright);
}

/* Pointer positions from downstream are in the output frame; upstream
 * wants them in its own: borders undone, scaled and turned back (as
 * videoconvertscale scales and videoflip turns them). */
static gboolean
gst_cs_convert_scale_src_event (GstBaseTransform * trans, GstEvent * event)
{
  auto * self = GST_CS_CONVERT_SCALE (trans);
  auto * base = GST_CS_BASE_TRANSFORM (self);
  gdouble x, y;
  if (GST_EVENT_TYPE (event) == GST_EVENT_NAVIGATION &&
      gst_cs::navigation_coordinates (event, &x, &y) && base->in_info.width > 0 &&
      base->out_info.width > 0) {
    gst_cs::ConvertSettings settings;
    GST_OBJECT_LOCK (self);
    settings.add_borders = self->add_borders;
    settings.orientation = static_cast<gst_cs::gpu::Orientation> (self->orientation);
    GST_OBJECT_UNLOCK (self);
    gst_cs::input_point (&base->in_info, &base->out_info, settings, x, y, &x, &y);
    event = GST_EVENT (gst_mini_object_make_writable (GST_MINI_OBJECT_CAST (event)));
    gst_cs::navigation_set_coordinates (event, x, y);
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cs_convert_scale_parent_class)
      ->src_event (trans, event);
}

static gboolean
gst_cs_convert_scale_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  auto * self = GST_CS_CONVERT_SCALE (trans);
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    self->input->release_held ();
  else if (GST_EVENT_TYPE (event) == GST_EVENT_TAG ||
           GST_EVENT_TYPE (event) == GST_EVENT_STREAM_START)
    event = take_orientation (self, event);
  /* Caps that cannot be negotiated: the base class says why. */
  return GST_BASE_TRANSFORM_CLASS (gst_cs_convert_scale_parent_class)
      ->sink_event (trans, event);
}

static gboolean
gst_cs_convert_scale_stop (GstBaseTransform * trans)
{
  auto * self = GST_CS_CONVERT_SCALE (trans);
  gst_clear_object (&self->pool);
  self->input->reset ();
  /* The table goes: no description kept may point at it. */
  self->memo->clear ();
  self->lines->reset ();
  GST_OBJECT_LOCK (self);
  self->tags->reset ();
  g_clear_pointer (&self->refusal, g_free);
  GST_OBJECT_UNLOCK (self);
  return GST_BASE_TRANSFORM_CLASS (gst_cs_convert_scale_parent_class)->stop (trans);
}

/* --- properties ------------------------------------------------------- */

static void
gst_cs_convert_scale_set_property (
    GObject * object, guint id, const GValue * value, GParamSpec * pspec)
{
  auto * self = GST_CS_CONVERT_SCALE (object);
  gboolean renegotiate = FALSE;
  GST_OBJECT_LOCK (self);
  switch (id) {
    case PROP_METHOD:
      self->method = (GstCsConvertScaleMethod)g_value_get_enum (value);
      break;
    case PROP_ADD_BORDERS:
      self->add_borders = g_value_get_boolean (value);
      break;
    case PROP_BORDER_COLOR:
      self->border_color = (guint32)g_value_get_uint64 (value);
      break;
    case PROP_VIDEO_DIRECTION: {
      auto m = (GstVideoOrientationMethod)g_value_get_enum (value);
      if (m == GST_VIDEO_ORIENTATION_CUSTOM) {
        GST_OBJECT_UNLOCK (self);
        g_warning ("%s: video-direction custom is not supported; unchanged",
            GST_OBJECT_NAME (self));
        return;
      }
      renegotiate = self->direction != m;
      self->direction = m;
      break;
    }
    default:
      GST_OBJECT_UNLOCK (self);
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
      return;
  }
  GST_OBJECT_UNLOCK (self);
  /* A new orientation may turn the output: the next frame renegotiates. The
   * other properties apply from the next frame with the same caps. */
  if (renegotiate)
    gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
}

static void
gst_cs_convert_scale_get_property (
    GObject * object, guint id, GValue * value, GParamSpec * pspec)
{
  auto * self = GST_CS_CONVERT_SCALE (object);
  GST_OBJECT_LOCK (self);
  switch (id) {
    case PROP_METHOD:
      g_value_set_enum (value, self->method);
      break;
    case PROP_ADD_BORDERS:
      g_value_set_boolean (value, self->add_borders);
      break;
    case PROP_BORDER_COLOR:
      g_value_set_uint64 (value, self->border_color);
      break;
    case PROP_VIDEO_DIRECTION:
      g_value_set_enum (value, self->direction);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cs_convert_scale_finalize (GObject * object)
{
  auto * self = GST_CS_CONVERT_SCALE (object);
  gst_clear_object (&self->pool);
  g_free (self->refusal);
  delete self->input;
  delete self->layouts;
  delete self->memo;
  delete self->lines;
  delete self->tags;
  G_OBJECT_CLASS (gst_cs_convert_scale_parent_class)->finalize (object);
}

static void
gst_cs_convert_scale_class_init (GstCsConvertScaleClass * klass)
{
  GObjectClass * gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass * element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass * trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  const auto flags = (GParamFlags)(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                   GST_PARAM_MUTABLE_PLAYING);

  gobject_class->set_property = gst_cs_convert_scale_set_property;
  gobject_class->get_property = gst_cs_convert_scale_get_property;
  gobject_class->finalize = gst_cs_convert_scale_finalize;
  /**
   * GstCsConvertScale:method:
   *
   * The scaling filter. Each plane is filtered at its own resolution, so a
   * subsampled chroma plane is interpolated where its samples are sited.
   *
   * Since: 0.2
   */
  g_object_class_install_property (gobject_class, PROP_METHOD,
      g_param_spec_enum ("method", "Method",
          "Scaling filter: nearest-neighbour, bilinear (2x2 taps), bicubic "
          "(Catmull-Rom 4x4) or area (average of the covered pixels when shrinking)",
          GST_TYPE_CS_CONVERT_SCALE_METHOD, DEFAULT_METHOD,
          (GParamFlags)(flags | GST_PARAM_CONTROLLABLE)));
  /**
   * GstCsConvertScale:add-borders:
   *
   * Keep the display aspect ratio where the output's differs, by filling
   * the rest with #GstCsConvertScale:border-color (letterbox or pillarbox).
   * When false, the picture is stretched to the whole output.
   *
   * Since: 0.2
   */
  g_object_class_install_property (gobject_class, PROP_ADD_BORDERS,
      g_param_spec_boolean ("add-borders", "Add borders",
          "Add borders if necessary to keep the display aspect ratio",
          DEFAULT_ADD_BORDERS, flags));
  /**
   * GstCsConvertScale:border-color:
   *
   * The colour of the borders as 0xAARRGGBB (full-range RGB and alpha),
   * converted to the output's format and colorimetry. Values above
   * 0xffffffff are refused with a warning and leave the colour unchanged.
   *
   * Since: 0.2
   */
  g_object_class_install_property (gobject_class, PROP_BORDER_COLOR,
      g_param_spec_uint64 ("border-color", "Border color",
          "Border colour as 0xAARRGGBB (alpha, red, green, blue; 8 bits each)", 0,
          G_MAXUINT32, DEFAULT_BORDER_COLOR,
          (GParamFlags)(flags | GST_PARAM_CONTROLLABLE)));
  /**
   * GstCsConvertScale:video-direction:
   *
   * Rotation or flip applied to the picture (#GstVideoDirection). `auto`
   * follows the image-orientation tag of the stream; `custom` is refused.
   * A change while playing renegotiates before the next frame, which gets
   * the new orientation whole.
   *
   * Since: 0.2
   */
  g_object_class_override_property (
      gobject_class, PROP_VIDEO_DIRECTION, "video-direction");

  for (GstPadDirection d : { GST_PAD_SINK, GST_PAD_SRC }) {
    GstCaps * caps =
        gst_cs_convert_caps_with_formats (gst_caps_from_string (TEMPLATE_CAPS));
    gst_element_class_add_pad_template (
        element_class, gst_pad_template_new (
                           d == GST_PAD_SINK ? "sink" : "src", d, GST_PAD_ALWAYS, caps));
    gst_caps_unref (caps);
  }
  gst_element_class_set_static_metadata (element_class, "CUDA stream convert and scale",
      "Filter/Converter/Video/Scaler/Effect/Hardware",
      "Crops, scales, rotates and converts video in CUDA device memory in one "
      "kernel per frame, ordered by events on a pooled stream",
      "gst-cudastreams developers");

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_caps = GST_DEBUG_FUNCPTR (gst_cs_convert_scale_transform_caps);
  trans_class->fixate_caps = GST_DEBUG_FUNCPTR (gst_cs_convert_scale_fixate_caps);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_cs_convert_scale_propose_allocation);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_cs_convert_scale_decide_allocation);
  trans_class->prepare_output_buffer =
      GST_DEBUG_FUNCPTR (gst_cs_convert_scale_prepare_output_buffer);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cs_convert_scale_transform);
  trans_class->transform_meta = GST_DEBUG_FUNCPTR (gst_cs_convert_scale_transform_meta);
  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_cs_base_transform_sync_controlled);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cs_convert_scale_sink_event);
  trans_class->src_event = GST_DEBUG_FUNCPTR (gst_cs_convert_scale_src_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cs_convert_scale_query);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cs_convert_scale_stop);
  GST_CS_BASE_TRANSFORM_CLASS (klass)->set_info =
      GST_DEBUG_FUNCPTR (gst_cs_convert_scale_set_info);

  gst_type_mark_as_plugin_api (GST_TYPE_CS_CONVERT_SCALE_METHOD, (GstPluginAPIFlags)0);
  GST_DEBUG_CATEGORY_INIT (
      gst_cs_convert_scale_debug, "csconvertscale", 0, "gst-cudastreams convert-scale");
}

static void
gst_cs_convert_scale_init (GstCsConvertScale * self)
{
  self->method = DEFAULT_METHOD;
  self->add_borders = DEFAULT_ADD_BORDERS;
  self->border_color = DEFAULT_BORDER_COLOR;
  self->direction = DEFAULT_DIRECTION;
  self->tags = new gst_cs::OrientationTags;
  /* Late frames are dropped before any GPU work, as videoconvertscale
   * (a GstVideoFilter) drops them. */
  gst_base_transform_set_qos_enabled (GST_BASE_TRANSFORM (self), TRUE);
  self->fixated = GST_VIDEO_ORIENTATION_IDENTITY;
  self->orientation = GST_VIDEO_ORIENTATION_IDENTITY;
  self->input =
      new gst_cs::DeviceInput (GST_CS_BASE_TRANSFORM (self), HELD_NVCODEC_FRAMES);
  self->colours = gst_cs::ConvertColours ();
  self->layouts = new gst_cs::FrameLayouts;
  self->memo = new gst_cs::ConvertMemo;
  self->lines = new gst_cs::ConvertLines (gst_cs_convert_scale_debug, GST_OBJECT (self));
}
