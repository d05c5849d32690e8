/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Batch: one tensor of cudabatch pulled from an appsink, and where each of
 * its slots came from. */
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <gstcudastreams.h>
#include <pybind11/pybind11.h>

#include "export_shape.hpp"
#include "frame.hpp"
#include "handles.hpp"

namespace cspy {

/* One slot of a batch: a copy of the batch meta's, so that it outlives the
 * batch (an application keeps the slots to map its model's boxes back while
 * the tensor's memory goes back to the pool). */
struct BatchSlot {
  GstCsBatchSlot slot{};
  std::string pad; /* the sink pad's name; empty for an empty slot */

  pybind11::object pad_name () const;
  pybind11::object pts () const;
  pybind11::tuple scale () const;
  pybind11::tuple offset () const;
  /* A point of the tensor (pixel edges) in the source frame. */
  pybind11::tuple to_source (double x, double y) const;
  /* A box (x0, y0, x1, y1) of the tensor in the source frame, corner by corner. */
  pybind11::tuple box_to_source (double x0, double y0, double x1, double y1) const;
};

class Batch {
public:
  /* ValueError when the sample is not a batch (batch_sample()). */
  Batch (SamplePtr sample, std::shared_ptr<std::atomic<int>> count);

  const ExportShape & shape () const { return shape_; }
  pybind11::tuple shape_tuple () const;
  const char * dtype () const { return dtype_; }
  pybind11::object pts () const { return clock_time (pts_); }
  const BufferPlace & place () const { return place_; }
  pybind11::tuple slots () const;

  /* The holder, for an export; ValueError once released. */
  std::shared_ptr<Held> held () const;
  void release () { held_.reset (); }

private:
  std::shared_ptr<Held> held_;
  ExportShape shape_;
  const char * dtype_ = "uint8";
  GstClockTime pts_ = GST_CLOCK_TIME_NONE;
  BufferPlace place_;
  std::vector<BatchSlot> slots_;
};

/* True when `sample` is a tensor of cudabatch (other/tensors caps). */
bool batch_sample (GstSample * sample);

pybind11::capsule batch_dlpack (const Batch & batch, pybind11::object stream,
    pybind11::object max_version, pybind11::object dl_device, pybind11::object copy);

} // namespace cspy
