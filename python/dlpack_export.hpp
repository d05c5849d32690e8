/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Frames out as DLPack capsules: one plane's visible region as an
 * H x W x C tensor that keeps the buffer alive until the consumer frees it,
 * ordered on the consumer's stream without host waits. */
#pragma once

#include <memory>

#include <pybind11/pybind11.h>

#include "frame.hpp"
#include "layout.hpp"

namespace cspy {

/* The arguments of __dlpack__. */
struct ExportRequest {
  pybind11::object stream, max_version, dl_device, copy;
};

/* A capsule of `plane` of the buffer `held` carries; `device` -1 for
 * system memory. */
pybind11::capsule export_plane (std::shared_ptr<Held> held, const PlaneShape & plane,
    int device, const ExportRequest & req);

/* __dlpack_device__: (kDLCUDA, device) or (kDLCPU, 0). */
pybind11::tuple dlpack_device (int device);

} // namespace cspy
