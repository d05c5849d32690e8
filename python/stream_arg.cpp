/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "stream_arg.hpp"

#include <string>

namespace py = pybind11;

namespace cspy {

static cudaStream_t
from_value (long long v, const char * what)
{
  if (v == 0 || v < 0)
    throw py::value_error (
        std::string (what) + ": " + std::to_string (v) +
        " is not a stream (0 is ambiguous in DLPack: use 1 for the legacy "
        "default stream, 2 for the per-thread one)");
  if (v == 1)
    return cudaStreamLegacy;
  if (v == 2)
    return cudaStreamPerThread;
  return reinterpret_cast<cudaStream_t> (static_cast<intptr_t> (v));
}

cudaStream_t
stream_from_object (py::handle obj, const char * what)
{
  if (py::isinstance<py::int_> (obj))
    return from_value (obj.cast<long long> (), what);
  if (py::hasattr (obj, "cuda_stream")) {
    py::object handle = obj.attr ("cuda_stream");
    /* torch reports the legacy default stream as 0: for an object that
     * names its own stream, 0 has one meaning. */
    long long v = handle.cast<long long> ();
    return v == 0 ? cudaStreamLegacy : from_value (v, what);
  }
  throw py::type_error (
      std::string (what) +
      ": expected an int (cudaStream_t) or an object with .cuda_stream, got " +
      std::string (py::str (obj.get_type ().attr ("__name__"))));
}

cudaStream_t
producer_stream (py::handle obj, py::handle data, int device)
{
  if (!obj.is_none ())
    return stream_from_object (obj, "stream");
  /* Only when the application already uses torch: importing it here would
   * cost seconds and a CUDA context. */
  py::dict modules = py::module_::import ("sys").attr ("modules");
  if (modules.contains ("torch")) {
    py::object torch = modules["torch"];
    if (py::isinstance (data, torch.attr ("Tensor"))) {
      py::object s = torch.attr ("cuda").attr ("current_stream") (device);
      return stream_from_object (s, "torch.cuda.current_stream()");
    }
  }
  return cudaStreamLegacy;
}

} // namespace cspy
