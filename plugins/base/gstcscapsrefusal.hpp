/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Caps an element refuses, said on the bus with the field and the value
// (internal). GStreamer's own message for a failed negotiation ("Internal
// data stream error", not-negotiated) names neither, and it comes from
// another element: upstream, whose push failed.
#pragma once

#include <gst/base/gstbasetransform.h>

namespace gst_cs {

// Why nothing of `possible` is in `wanted`, for a message a user reads: the
// fields of the structure of `wanted` that comes nearest (fewest fields
// apart), each with its value and what `possible` has there, as "width
// 20000 (this element `does` [ 1, 16384 ])" (a list as its values: "format
// UYVP (this element makes NV12, RGBA)"), or its caps features where no
// structure of `possible` has them. nullptr where the caps meet, or where
// either is empty or `wanted` ANY.
gchar * explain_caps (GstCaps * wanted, GstCaps * possible, const gchar * does);

// Both say it with a negotiation warning naming the field and the value,
// before GStreamer's not-negotiated error upstream: a warning, as a
// refusal need not end the stream (an element may ask before it commits to
// caps; a renegotiation may be asked again). `last` (under the object
// lock) is the reason said last: each is said once until the caps
// negotiate (forget_refusal).

// `trans` refused `caps` on its sink pad (an ACCEPT_CAPS query: upstream
// offers them): said where they are outside its sink template (a size of 0
// or above the limit, a format or memory it does not take).
void warn_refused_input (GstBaseTransform * trans, GstCaps * caps, gchar ** last);

// Negotiating the output for the input `incaps` failed in `trans` (their
// caps event, or a renegotiation downstream asked for): said where
// downstream accepts nothing it makes from them (a size, format or frame
// rate it keeps); not where they meet (the failure is another's).
void warn_unmade_output (GstBaseTransform * trans, GstCaps * incaps, gchar ** last);

// The caps negotiated: a refusal after this is news.
void forget_refusal (GstBaseTransform * trans, gchar ** last);

} // namespace gst_cs
