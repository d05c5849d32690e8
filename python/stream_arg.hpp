/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Streams handed in from Python: an int (a cudaStream_t handle) or an
 * object with an int attribute .cuda_stream (torch.cuda.Stream, CuPy's). */
#pragma once

#include <cuda_runtime_api.h>
#include <pybind11/pybind11.h>

namespace cspy {

/* The handle `obj` names; ValueError/TypeError when it names none. The
 * DLPack conventions apply: 1 is the legacy default stream, 2 the
 * per-thread default stream; 0 is ambiguous and refused. */
cudaStream_t stream_from_object (pybind11::handle obj, const char * what);

/* The producer's stream for push(): `obj` if given, else the current torch
 * stream when `data` is a torch tensor, else the legacy default stream. */
cudaStream_t producer_stream (pybind11::handle obj, pybind11::handle data, int device);

} // namespace cspy
