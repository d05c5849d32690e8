/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The raw video formats the elements move: every format GStreamer's video
// library describes that is neither tiled nor of a complex packing, read
// from the GStreamer the plugin runs with, so a newer one's formats are
// taken without a rebuild (internal).
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

namespace gst_cs {

// Whether `format` is one of them: a known raw format whose planes are
// rows of whole samples (no GST_VIDEO_FORMAT_FLAG_TILED, and from 1.22 no
// GST_VIDEO_FORMAT_FLAG_COMPLEX).
bool video_format_is_plain (GstVideoFormat format);

// All of them as a GST_TYPE_LIST of their names, in GStreamer's order of
// preference (gst_video_formats_raw: best quality first). Computed once;
// never freed.
const GValue * video_formats ();

// video_formats() less those `refusal` gives a reason for (an element that
// takes fewer, e.g. the converter's gst_cs_convert_format_refusal), in the
// same order: a new GST_TYPE_LIST, the caller's.
GValue * video_formats_without (const gchar * (*refusal) (GstVideoFormat));

// `caps` (a caps string, as the old static templates wrote them) with the
// format field of every video/x-raw structure in system memory or ours
// (alternate fields too) set to video_formats(); structures in nvcodec's
// memory keep theirs (GstCudaMemory allocates fewer formats).
GstCaps * caps_with_video_formats (const gchar * caps);

// A pad template of `caps` made by caps_with_video_formats.
GstPadTemplate * pad_template_with_video_formats (const gchar * name,
    GstPadDirection direction, GstPadPresence presence, const gchar * caps);

// A filter's always "sink" and "src" templates, of `sink_caps` and
// `src_caps` made by caps_with_video_formats, added to `klass`.
void add_video_pad_templates (
    GstElementClass * klass, const gchar * sink_caps, const gchar * src_caps);

} // namespace gst_cs
