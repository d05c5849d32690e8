/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include "batch/gstcsbatchtensormeta.hpp"

#if HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

namespace gst_cs {

#if HAVE_GST_ANALYTICS
void
add_tensor_meta (GstBuffer * tensor, const BatchSettings & s, guint batch)
{
  const bool nchw = s.layout == GST_CS_BATCH_LAYOUT_NCHW;
  gsize dims[4] = { batch, nchw ? 3u : (gsize)s.height,
    nchw ? (gsize)s.height : (gsize)s.width, nchw ? (gsize)s.width : 3u };
  const GstTensorDataType type =
      s.dtype == GST_CS_BATCH_DTYPE_UINT8     ? GST_TENSOR_DATA_TYPE_UINT8
      : s.dtype == GST_CS_BATCH_DTYPE_FLOAT16 ? GST_TENSOR_DATA_TYPE_FLOAT16
                                              : GST_TENSOR_DATA_TYPE_FLOAT32;
  /* The data is the batch's own memory, shared (a buffer referencing the
   * memory, not the batch: no cycle). */
  GstBuffer * data = gst_buffer_copy_region (tensor, GST_BUFFER_COPY_MEMORY, 0, -1);
  GstTensor * t = gst_tensor_new_simple (g_quark_from_static_string ("cudabatch"), type,
      data, GST_TENSOR_DIM_ORDER_ROW_MAJOR, 4, dims);
  GstTensorMeta * meta = gst_buffer_add_tensor_meta (tensor);
  GstTensor ** tensors = g_new (GstTensor *, 1);
  tensors[0] = t;
  gst_tensor_meta_set (meta, 1, tensors);
}
#else
void
add_tensor_meta (GstBuffer *, const BatchSettings &, guint)
{}
#endif

} // namespace gst_cs
