/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "ipc/gstcsipcexport.hpp"

#include <mutex>
#include <utility>
#include <vector>

#include "gstcsdeviceguard.hpp"
#include "gstcserror-private.h"
#include "gstcsmemory.h"

namespace gst_cs {
namespace ipc {
namespace {

/* The qdata: the memory's handle and, per listener, its id there. */
struct Note {
  cudaIpcMemHandle_t handle;
  std::vector<std::pair<std::weak_ptr<ExportListener>, guint32>> by;
};

std::mutex &
notes_lock ()
{
  static std::mutex * m = new std::mutex;
  return *m;
}

GQuark
note_quark ()
{
  static GQuark q = g_quark_from_static_string ("gst-cs-ipc-export");
  return q;
}

/* Before the memory is freed: every listener tells its consumers, which
 * close it first (bounded there). */
void
note_free (gpointer data)
{
  auto * note = static_cast<Note *> (data);
  std::vector<std::pair<std::weak_ptr<ExportListener>, guint32>> by;
  {
    std::lock_guard<std::mutex> guard (notes_lock ());
    by.swap (note->by);
  }
  for (auto & [weak, id] : by)
    if (auto listener = weak.lock ())
      listener->forget (id);
  delete note;
}

} // namespace

bool
export_memory (GstMemory * owner, int device,
    const std::shared_ptr<ExportListener> & listener, Export * out, GError ** error)
{
  auto * note = static_cast<Note *> (
      gst_mini_object_get_qdata (GST_MINI_OBJECT (owner), note_quark ()));
  if (!note) {
    auto fresh = std::make_unique<Note> ();
    DeviceGuard guard (device, error);
    if (!guard.ok () || !GST_CS_CHECK (cudaIpcGetMemHandle (&fresh->handle,
                           reinterpret_cast<GstCsMemory *> (owner)->data),
            error))
      return false;
    note = fresh.release ();
    gst_mini_object_set_qdata (GST_MINI_OBJECT (owner), note_quark (), note, note_free);
  }
  out->handle = note->handle;
  std::lock_guard<std::mutex> guard (notes_lock ());
  for (auto it = note->by.begin (); it != note->by.end ();) {
    auto l = it->first.lock ();
    if (l == listener) {
      out->id = it->second;
      return true;
    }
    it = l ? it + 1 : note->by.erase (it); /* a sink that is gone */
  }
  out->id = listener->next_export_id ();
  note->by.emplace_back (listener, out->id);
  return true;
}

} // namespace ipc
} // namespace gst_cs
