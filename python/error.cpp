/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "error.hpp"

namespace py = pybind11;

namespace cspy {

static std::string
compose (
    const std::string & message, const std::string & element, const std::string & debug)
{
  std::string s = element.empty () ? message : element + ": " + message;
  if (!debug.empty ())
    s += " (" + debug + ")";
  return s;
}

CsError::CsError (const std::string & message, std::string element, std::string debug)
    : std::runtime_error (compose (message, element, debug)), message_ (message),
      element_ (std::move (element)), debug_ (std::move (debug))
{}

CsError
CsError::from_message (GstMessage * msg)
{
  GError * err = nullptr;
  gchar * debug = nullptr;
  gst_message_parse_error (msg, &err, &debug);
  std::string message = err ? err->message : "unknown error";
  std::string dbg = debug ? debug : "";
  g_clear_error (&err);
  g_free (debug);
  const char * src = GST_MESSAGE_SRC_NAME (msg);
  return CsError (message, src ? src : "", dbg);
}

CsError
CsError::from_gerror (const GError * err, const char * what)
{
  std::string message = err ? err->message : "unknown error";
  if (what)
    message = std::string (what) + ": " + message;
  return CsError (message);
}

/* Set once at import; the module object keeps the class alive. */
static PyObject * error_type = nullptr;

void
register_errors (py::module_ & m)
{
  /* A class with None defaults, so that .element and .debug exist even on
   * an Error raised from Python code. */
  py::dict attrs;
  attrs["element"] = py::none ();
  attrs["debug"] = py::none ();
  attrs["__doc__"] =
      "A GStreamer or CUDA failure: a bus error (.element names the element, "
      ".debug is GStreamer's debug text) or a failed call.";
  error_type = PyErr_NewException ("cudastreams.Error", PyExc_RuntimeError, attrs.ptr ());
  if (!error_type)
    throw py::error_already_set ();
  m.add_object ("Error", py::handle (error_type));

  py::register_exception_translator ([] (std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception (p);
    } catch (const CsError & e) {
      py::object exc = py::reinterpret_borrow<py::object> (error_type) (e.what ());
      if (!e.element ().empty ())
        exc.attr ("element") = e.element ();
      if (!e.debug ().empty ())
        exc.attr ("debug") = e.debug ();
      PyErr_SetObject (error_type, exc.ptr ());
    } catch (const Timeout & e) {
      PyErr_SetString (PyExc_TimeoutError, e.what ());
    }
  });
}

} // namespace cspy
