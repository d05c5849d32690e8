/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Copying pixels into memory only a DMA will read (internal).
#pragma once

#include <glib.h>

namespace gst_cs {

// Copies `bytes` from `src` to `dst` with stores that bypass the CPU caches
// where the CPU has them (x86 SSE2): staging is read by the copy engine,
// never by the CPU, so ordinary stores would first read every destination
// line into the cache (a third more memory traffic) and evict the source.
// The stores are complete (visible to the device) when it returns.
void copy_to_staging (guint8 * dst, const guint8 * src, gsize bytes);

} // namespace gst_cs
