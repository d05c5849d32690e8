/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "registry.hpp"

#include <string>

#include <gst/gst.h>

#include "error.hpp"

namespace py = pybind11;
using namespace pybind11::literals;

namespace cspy {
namespace {

/* Loads the plugin file into this process, so that its features stay in
 * the registry for every pipeline from now on, without GST_PLUGIN_PATH.
 * Loaded here rather than scanned: its plugin_init then sees the names
 * other plugins of the registry hold (nvcodec's cudaupload) and leaves
 * them to them, as it does wherever GStreamer loads it. Returns the file
 * that serves, which is another one where a plugin of the same file name
 * was loaded before (GStreamer keeps one plugin per file name). */
std::string
load_plugin (const std::string & path)
{
  GError * err = nullptr;
  GstPlugin * plugin = gst_plugin_load_file (path.c_str (), &err);
  if (!plugin) {
    CsError e = CsError::from_gerror (err, ("cannot load the plugin " + path).c_str ());
    g_clear_error (&err);
    throw e;
  }
  const gchar * file = gst_plugin_get_filename (plugin);
  std::string served = file ? file : path;
  gst_object_unref (plugin);
  return served;
}

/* (plugin name, plugin file) of the feature `name`, or None. */
py::object
feature_owner (const std::string & name)
{
  GstPluginFeature * f = gst_registry_lookup_feature (gst_registry_get (), name.c_str ());
  if (!f)
    return py::none ();
  const gchar * owner = gst_plugin_feature_get_plugin_name (f);
  py::object plugin_name = owner ? py::object (py::str (owner)) : py::none ();
  py::object file = py::none ();
  if (GstPlugin * p = gst_plugin_feature_get_plugin (f)) {
    if (const gchar * fn = gst_plugin_get_filename (p))
      file = py::str (fn);
    gst_object_unref (p);
  }
  gst_object_unref (f);
  return py::make_tuple (plugin_name, file);
}

/* (file, number of elements) of the plugin called `name`, or None. */
py::object
plugin_elements (const std::string & name)
{
  GstRegistry * reg = gst_registry_get ();
  GstPlugin * p = gst_registry_find_plugin (reg, name.c_str ());
  if (!p)
    return py::none ();
  const gchar * fn = gst_plugin_get_filename (p);
  py::object file = fn ? py::object (py::str (fn)) : py::none ();
  gst_object_unref (p);
  int elements = 0;
  GList * features = gst_registry_get_feature_list_by_plugin (reg, name.c_str ());
  for (GList * l = features; l; l = l->next)
    elements += GST_IS_ELEMENT_FACTORY (l->data) ? 1 : 0;
  gst_plugin_feature_list_free (features);
  return py::make_tuple (file, elements);
}

} // namespace

void
bind_registry (py::module_ & m)
{
  m.def ("_load_plugin", &load_plugin, "path"_a,
      "Loads a plugin file into the process; returns the file that serves.");
  m.def ("_feature_owner", &feature_owner, "name"_a,
      "(plugin name, plugin file) of a registry feature, or None.");
  m.def ("_plugin_elements", &plugin_elements, "name"_a,
      "(plugin file, number of elements) of a plugin of the registry, or None.");
  m.def (
      "_gst_version",
      [] () {
        gchar * s = gst_version_string ();
        std::string v = s;
        g_free (s);
        return v;
      },
      "GStreamer's version, as gst_version_string() says it.");
}

} // namespace cspy
