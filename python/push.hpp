/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Arrays in: a DLPack producer's tensor wrapped, without a copy, as a
 * buffer for an appsrc of the given caps. */
#pragma once

#include <pybind11/pybind11.h>

#include "handles.hpp"

namespace cspy {

/* A buffer of `data` for caps `caps` (video/x-raw, with the CUDAStreams
 * memory feature for device tensors). The tensor stays alive until the last
 * buffer of it is freed; a device tensor is then given back on `stream`
 * (the producer's stream, see producer_stream()) without a host wait.
 * ValueError when the tensor does not fit the caps. */
BufferPtr buffer_from_dlpack (
    pybind11::handle data, GstCaps * caps, pybind11::handle stream);

} // namespace cspy
