/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "base/gstcscapsrefusal.hpp"

#include <cstring>
#include <mutex>

GST_DEBUG_CATEGORY_STATIC (gst_cs_caps_refusal_debug);
#define GST_CAT_DEFAULT gst_cs_caps_refusal_debug

namespace gst_cs {
namespace {

void
init_debug ()
{
  static std::once_flag once;
  std::call_once (once, [] {
    GST_DEBUG_CATEGORY_INIT (
        gst_cs_caps_refusal_debug, "cscapsrefusal", 0, "gst-cudastreams caps refused");
  });
}

/* @v as caps write it, a list of values as the values alone, joined:
 * "RGBA, NV12" where caps say "{ (string)RGBA, (string)NV12 }". */
gchar *
readable (const GValue * v)
{
  if (!GST_VALUE_HOLDS_LIST (v))
    return gst_value_serialize (v);
  GString * s = g_string_new (NULL);
  for (guint i = 0; i < gst_value_list_get_size (v); i++) {
    gchar * one = gst_value_serialize (gst_value_list_get_value (v, i));
    g_string_append_printf (s, "%s%s", i ? ", " : "", one);
    g_free (one);
  }
  return g_string_free (s, FALSE);
}

/* The fields of @want that no value of @can allows, with both values, or
 * NULL where there are none; their number in @n. A field @can leaves out
 * is free. */
gchar *
field_conflicts (
    const GstStructure * want, const GstStructure * can, const gchar * does, guint * n)
{
  GString * why = g_string_new (NULL);
  *n = 0;
  for (gint i = 0; i < gst_structure_n_fields (want); i++) {
    const gchar * field = gst_structure_nth_field_name (want, i);
    const GValue * w = gst_structure_get_value (want, field);
    const GValue * c = gst_structure_get_value (can, field);
    if (!c || gst_value_intersect (NULL, w, c))
      continue;
    gchar * asked = readable (w);
    gchar * made = readable (c);
    g_string_append_printf (
        why, "%s%s %s (this element %s %s)", *n ? ", " : "", field, asked, does, made);
    g_free (asked);
    g_free (made);
    (*n)++;
  }
  return g_string_free (why, *n == 0);
}

/* The caps features of every structure of @caps, once each. */
gchar *
all_features (const GstCaps * caps)
{
  GString * s = g_string_new (NULL);
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    gchar * f = gst_caps_features_to_string (gst_caps_get_features (caps, i));
    if (!strstr (s->str, f))
      g_string_append_printf (s, "%s%s", s->len ? ", " : "", f);
    g_free (f);
  }
  return g_string_free (s, FALSE);
}

/* Whether @why is new (said last: *@last, under the object lock); it is
 * then the one said last. */
bool
news (GstBaseTransform * trans, const gchar * why, gchar ** last)
{
  GST_OBJECT_LOCK (trans);
  const bool is_new = g_strcmp0 (why, *last) != 0;
  if (is_new) {
    g_free (*last);
    *last = g_strdup (why);
  }
  GST_OBJECT_UNLOCK (trans);
  return is_new;
}

} // namespace

gchar *
explain_caps (GstCaps * wanted, GstCaps * possible, const gchar * does)
{
  if (gst_caps_is_empty (wanted) || gst_caps_is_any (wanted) ||
      gst_caps_is_empty (possible) || gst_caps_can_intersect (wanted, possible))
    return NULL;
  gchar * best = NULL;
  guint best_n = G_MAXUINT;
  for (guint i = 0; i < gst_caps_get_size (wanted); i++) {
    const GstStructure * w = gst_caps_get_structure (wanted, i);
    for (guint j = 0; j < gst_caps_get_size (possible); j++) {
      const GstStructure * c = gst_caps_get_structure (possible, j);
      if (!gst_structure_has_name (c, gst_structure_get_name (w)) ||
          !gst_caps_features_is_equal (
              gst_caps_get_features (wanted, i), gst_caps_get_features (possible, j)))
        continue;
      guint n = 0;
      gchar * why = field_conflicts (w, c, does, &n);
      if (why && n < best_n) {
        g_free (best);
        best = why;
        best_n = n;
      } else {
        g_free (why);
      }
    }
  }
  if (best)
    return best;
  /* No structure of ours in the memory (or media type) asked for. */
  gchar * asked = all_features (wanted);
  gchar * made = all_features (possible);
  gchar * why = g_strdup_printf ("%s %s (this element %s %s %s)",
      gst_structure_get_name (gst_caps_get_structure (wanted, 0)), asked, does,
      gst_structure_get_name (gst_caps_get_structure (possible, 0)), made);
  g_free (asked);
  g_free (made);
  return why;
}

void
warn_refused_input (GstBaseTransform * trans, GstCaps * caps, gchar ** last)
{
  init_debug ();
  GstCaps * takes = gst_pad_get_pad_template_caps (trans->sinkpad);
  gchar * why = explain_caps (caps, takes, "takes");
  gst_caps_unref (takes);
  /* Within the template: the element's own reason (cudacrop's crop that
   * leaves nothing), which it says itself. */
  if (why && news (trans, why, last))
    GST_ELEMENT_WARNING (trans, CORE, NEGOTIATION,
        ("Cannot take the caps upstream offers: %s", why),
        ("%s; upstream offers %" GST_PTR_FORMAT, why, caps));
  g_free (why);
}

void
warn_unmade_output (GstBaseTransform * trans, GstCaps * incaps, gchar ** last)
{
  init_debug ();
  GstCaps * out = GST_BASE_TRANSFORM_GET_CLASS (trans)->transform_caps (
      trans, GST_PAD_SINK, incaps, NULL);
  GstCaps * templ = gst_pad_get_pad_template_caps (trans->srcpad);
  GstCaps * made = gst_caps_intersect_full (out, templ, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (out);
  GstCaps * wanted = gst_pad_peer_query_caps (trans->srcpad, NULL);
  gchar * why = explain_caps (wanted, made, "makes");
  if (why && news (trans, why, last))
    GST_ELEMENT_WARNING (trans, CORE, NEGOTIATION,
        ("Cannot make the caps downstream accepts: %s", why),
        ("%s; from %" GST_PTR_FORMAT "; downstream accepts %" GST_PTR_FORMAT, why, incaps,
            wanted));
  g_free (why);
  gst_caps_unref (wanted);
  gst_caps_unref (templ);
  gst_caps_unref (made);
}

void
forget_refusal (GstBaseTransform * trans, gchar ** last)
{
  GST_OBJECT_LOCK (trans);
  g_clear_pointer (last, g_free);
  GST_OBJECT_UNLOCK (trans);
}

} // namespace gst_cs
