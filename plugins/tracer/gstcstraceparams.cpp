/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tracer/gstcstraceparams.hpp"

#include <gst/gst.h>

namespace gst_cs {
namespace {

/* The structure parser types unquoted values itself ("true" may come back
 * as a boolean or a string, "1" as an int): read them as text. */
std::string
as_text (const GValue * value)
{
  if (G_VALUE_HOLDS_STRING (value))
    return g_value_get_string (value) ? g_value_get_string (value) : "";
  gchar * s = gst_value_serialize (value);
  std::string text = s ? s : "";
  g_free (s);
  return text;
}

bool
as_bool (const GValue * value, bool * ok)
{
  const std::string t = as_text (value);
  *ok = true;
  if (t == "true" || t == "1" || t == "yes" || t == "TRUE")
    return true;
  if (t == "false" || t == "0" || t == "no" || t == "FALSE")
    return false;
  *ok = false;
  return false;
}

} // namespace

TraceOptions
parse_trace_params (const gchar * params)
{
  TraceOptions o;
  if (!params || !*params)
    return o;
  gchar * text = g_strdup_printf ("cudastreams,%s", params);
  GstStructure * s = gst_structure_from_string (text, NULL);
  g_free (text);
  if (!s) {
    o.invalid = params;
    return o;
  }
  gst_structure_foreach (
      s,
      [] (GQuark field, const GValue * value, gpointer user) -> gboolean {
        auto * o = static_cast<TraceOptions *> (user);
        const std::string name = g_quark_to_string (field);
        bool ok = true;
        if (name == "nvtx")
          o->nvtx = as_bool (value, &ok);
        else if (name == "print")
          o->print = as_bool (value, &ok);
        else if (name == "gate")
          o->gate = as_bool (value, &ok);
        else if (name == "file")
          o->file = as_text (value);
        else if (name == "every") {
          const std::string t = as_text (value);
          gchar * end = NULL;
          const guint64 n = g_ascii_strtoull (t.c_str (), &end, 10);
          if (t.empty () || *end || n < 1 || n > G_MAXUINT)
            o->unknown.push_back (name + "=" + t + " (not a whole number from 1)");
          else
            o->every = (guint)n;
        } else
          o->unknown.push_back (name);
        if (!ok)
          o->unknown.push_back (name + "=" + as_text (value) + " (not a boolean)");
        return TRUE;
      },
      &o);
  gst_structure_free (s);
  return o;
}

} // namespace gst_cs
