/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cudastreams tracer: GPU time per element, host waits, NVTX ranges and
 * a trace file. GST_TRACERS="cudastreamstrace(nvtx=true,file=trace.json)". */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_CS_TRACER (gst_cs_tracer_get_type ())
G_DECLARE_FINAL_TYPE (GstCsTracer, gst_cs_tracer, GST, CS_TRACER, GstTracer)

G_END_DECLS
