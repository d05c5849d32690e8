/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "upload/gstcshostregistry.hpp"

#include <algorithm>
#include <mutex>
#include <vector>

#include <cuda_runtime_api.h>

#include "gstcsdeviceguard.hpp"
#include "gstcshostwait-private.h"

GST_DEBUG_CATEGORY_STATIC (gst_cs_host_registry_debug);
#define GST_CAT_DEFAULT gst_cs_host_registry_debug

namespace gst_cs {

namespace {

/* Set on the memory seen: which registries (elements) saw it, and whether
 * CUDA refused its block. Only an element's own second sighting says that
 * the memory recurs: two elements behind a tee see every fresh memory once
 * each. */
struct Sightings {
  std::vector<const HostRegistry::Counts *> by;
  bool refused = false;
};

void
free_sightings (gpointer data)
{
  delete static_cast<Sightings *> (data);
}

struct Registration {
  void * base;
  gsize bytes;
  int device;
  std::shared_ptr<HostRegistry::Counts> counts;
};

GQuark
seen_quark ()
{
  static GQuark q = g_quark_from_static_string ("gst-cs-host-seen");
  return q;
}

GQuark
registration_quark ()
{
  static GQuark q = g_quark_from_static_string ("gst-cs-host-registration");
  return q;
}

/* Two elements (a tee) may meet one memory at once: deciding and setting
 * its qdata is one step. */
std::mutex &
registry_lock ()
{
  static std::mutex lock;
  return lock;
}

/* The qdata's destroy notify: the memory is about to be freed, and no copy
 * reads it (an element holds the buffer until its copy completed). */
void
unregister (gpointer data)
{
  auto * r = static_cast<Registration *> (data);
  DeviceGuard guard (r->device, nullptr);
  /* cudaHostUnregister synchronises with the device: a host wait, counted
   * in the process' total like the pinned allocator's free. */
  gst_cs_host_wait_count (NULL);
  cudaError_t err = cudaHostUnregister (r->base);
  if (err != cudaSuccess) {
    GST_WARNING ("cudaHostUnregister (%p): %s", r->base, cudaGetErrorString (err));
    (void)cudaGetLastError ();
  }
  r->counts->bytes -= r->bytes;
  r->counts->unregistrations++;
  GST_DEBUG ("unregistered %" G_GSIZE_FORMAT " bytes at %p", r->bytes, r->base);
  delete r;
}

/* GStreamer's system memory: the default allocator's own instance (what
 * gst_memory_new_wrapped uses too), compared by identity so that no other
 * allocator that borrows its mem_type passes. */
bool
allowed (GstMemory * root)
{
  static GstAllocator * sysmem = [] {
    /* Only its address is kept: GStreamer keeps the allocator alive. */
    GstAllocator * a = gst_allocator_find (GST_ALLOCATOR_SYSMEM);
    if (a)
      gst_object_unref (a);
    return a;
  }();
  return root->allocator && root->allocator == sysmem &&
         !GST_MEMORY_FLAG_IS_SET (root, GST_MEMORY_FLAG_NOT_MAPPABLE);
}

} // namespace

HostRegistry::HostRegistry () : counts_ (std::make_shared<Counts> ())
{
  static std::once_flag debug_once;
  std::call_once (debug_once, [] {
    GST_DEBUG_CATEGORY_INIT (gst_cs_host_registry_debug, "cshostregistry", 0,
        "gst-cudastreams registration of upstream memory");
  });
}

bool
HostRegistry::read_only_supported (int device)
{
  if (device != ro_device_) {
    int v = 0;
    if (cudaDeviceGetAttribute (&v, cudaDevAttrHostRegisterReadOnlySupported, device) !=
        cudaSuccess) {
      (void)cudaGetLastError ();
      v = 0;
    }
    ro_device_ = device;
    ro_supported_ = v != 0;
  }
  return ro_supported_;
}

/* Whether this element saw `mem` before (noting it now if not); false too
 * when CUDA refused its block. The sighting is of the memory object itself,
 * not of its parent: sub-memories of one parent (frames a parser cut from
 * one read) are each seen once, however many share the parent. */
bool
HostRegistry::seen_before (GstMemory * mem)
{
  GstMiniObject * obj = GST_MINI_OBJECT_CAST (mem);
  auto * s = static_cast<Sightings *> (gst_mini_object_get_qdata (obj, seen_quark ()));
  if (!s) {
    s = new Sightings;
    gst_mini_object_set_qdata (obj, seen_quark (), s, free_sightings);
  }
  if (s->refused)
    return false;
  if (std::find (s->by.begin (), s->by.end (), counts_.get ()) != s->by.end ())
    return true;
  s->by.push_back (counts_.get ());
  return false;
}

bool
HostRegistry::registered (GstMemory * mem, const guint8 * data, int device)
{
  /* A shared sub-memory lives inside its parent (which it keeps alive):
   * the parent's block is the one registered. */
  GstMemory * root = mem->parent ? mem->parent : mem;
  GstMiniObject * obj = GST_MINI_OBJECT_CAST (root);
  std::lock_guard<std::mutex> g (registry_lock ());
  if (gst_mini_object_get_qdata (obj, registration_quark ()))
    return true;
  if (!allowed (root) || !seen_before (mem))
    return false;
  /* The whole block: a system memory maps at its block's start plus its
   * offset, and a sub-memory shares its parent's block and maxsize. */
  void * base = const_cast<guint8 *> (data) - mem->offset;
  const gsize bytes = root->maxsize;
  if (counts_->bytes + bytes > counts_->max_bytes) {
    GST_LOG ("%" G_GSIZE_FORMAT " more bytes would pass the bound", bytes);
    return false; /* maybe later, when others are freed */
  }
  /* Portable: pinned for every device; read-only: the copy engine only
   * reads it, and pages mapped read-only can then be registered too. */
  unsigned flags = cudaHostRegisterPortable;
  if (read_only_supported (device))
    flags |= cudaHostRegisterReadOnly;
  cudaError_t err = cudaHostRegister (base, bytes, flags);
  if (err != cudaSuccess) {
    /* Pages shared with a registered neighbour, a locked-memory limit, ...:
     * the staged copy serves it as well, so no retry every frame. */
    GST_DEBUG ("cudaHostRegister (%p, %" G_GSIZE_FORMAT "): %s, staging it", base, bytes,
        cudaGetErrorString (err));
    (void)cudaGetLastError ();
    static_cast<Sightings *> (
        gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (mem), seen_quark ()))
        ->refused = true;
    return false;
  }
  counts_->bytes += bytes;
  counts_->registrations++;
  GST_DEBUG (
      "registered %" G_GSIZE_FORMAT " bytes at %p (flags 0x%x)", bytes, base, flags);
  gst_mini_object_set_qdata (obj, registration_quark (),
      new Registration{ base, bytes, device, counts_ }, unregister);
  return true;
}

} // namespace gst_cs
