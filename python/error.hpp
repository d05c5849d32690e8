/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The module's exceptions: cudastreams.Error (GStreamer and CUDA failures,
 * with the element that reported them) and TimeoutError. */
#pragma once

#include <stdexcept>
#include <string>

#include <gst/gst.h>
#include <pybind11/pybind11.h>

/* The module's debug category, "cspython". */
GST_DEBUG_CATEGORY_EXTERN (cs_python_debug);

namespace cspy {

/* Becomes cudastreams.Error: str = "<element>: <message> (<debug>)". */
class CsError : public std::runtime_error {
public:
  CsError (const std::string & message, std::string element = {}, std::string debug = {});

  const std::string & element () const { return element_; }
  const std::string & debug () const { return debug_; }
  const std::string & message () const { return message_; }

  /* From a GST_MESSAGE_ERROR of the bus. */
  static CsError from_message (GstMessage * msg);
  /* From a GError of the library or of GStreamer (takes no ownership). */
  static CsError from_gerror (const GError * err, const char * what = nullptr);

private:
  std::string message_, element_, debug_;
};

/* Becomes Python's TimeoutError. */
class Timeout : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/* Creates cudastreams.Error and the translators of both exceptions. */
void register_errors (pybind11::module_ & m);

} // namespace cspy
