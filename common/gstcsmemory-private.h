/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Allocating device memory, and device memory seen through another buffer
 * (private: the library and the plugin, not installed). */
#pragma once

#include "gstcsmemory.h"

G_BEGIN_DECLS

/* Allocations of whole blocks of this size may be exported to another
 * process (gst_cs_allocation_size()). */
#define GST_CS_IPC_BLOCK ((gsize)2 << 20)

/* clang-format off */
GST_CS_API
GstAllocator * gst_cs_allocator_new         (gint             device_id);

GST_CS_API
gsize          gst_cs_allocation_size       (gsize            size);

GST_CS_API
GstMemory    * gst_cs_memory_get_exportable (GstMemory      * mem,
                                             gsize          * offset,
                                             gsize          * alloc_size);

GST_CS_API
GstMemory    * gst_cs_allocator_alloc       (GstCsAllocator * allocator,
                                             gsize            size,
                                             GError        ** error);

GST_CS_API
GstMemory    * gst_cs_memory_new_alias      (GstBuffer      * owner);

GST_CS_API
guint64        gst_cs_memory_host_map_waits (void);

/* clang-format on */

G_END_DECLS
