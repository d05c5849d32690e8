/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Frames out as DLPack capsules: a view of a frame's visible region (one
 * plane as H x W x C, planar RGB as 3 x H x W) that keeps the buffer alive
 * until the consumer frees it, ordered on the consumer's stream without
 * host waits. */
#pragma once

#include <memory>

#include <pybind11/pybind11.h>

#include "export_shape.hpp"
#include "frame.hpp"

namespace cspy {

/* The arguments of __dlpack__. */
struct ExportRequest {
  pybind11::object stream, max_version, dl_device, copy;
};

/* A capsule of the view `shape` of the buffer `held` carries (its one
 * memory on a device); `device` -1 for system memory. */
pybind11::capsule export_tensor (std::shared_ptr<Held> held, const ExportShape & shape,
    int device, const ExportRequest & req);

/* __dlpack_device__: (kDLCUDA, device) or (kDLCPU, 0). */
pybind11::tuple dlpack_device (int device);

} // namespace cspy
