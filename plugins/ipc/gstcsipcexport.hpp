/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Device memory the sink hands to other processes (internal): each memory
// is exported once, its handle kept on the memory itself, and whoever it
// went to is told before the memory is freed.
#pragma once

#include <memory>

#include <gst/gst.h>
#include <cuda_runtime_api.h>

namespace gst_cs {
namespace ipc {

// Who sent a memory to consumers and must tell them when it goes: the
// sink's server. Its memories' ids are its own.
class ExportListener {
public:
  virtual ~ExportListener () = default;
  virtual guint32 next_export_id () = 0;
  // The memory of export `id` is about to be freed (any thread): the
  // consumers close it first (CUDA: freeing memory another process still
  // has open is undefined).
  virtual void forget (guint32 id) = 0;
};

struct Export {
  guint32 id = 0;
  cudaIpcMemHandle_t handle{};
};

// The export of `owner`, a memory of whole 2 MiB blocks of `device`
// (gst_cs_memory_get_exportable), for `listener`: the handle is made on the
// memory's first export (cudaIpcGetMemHandle) and kept on it as qdata,
// whose destroy notify tells every listener it went to (forget()) before
// the memory is freed.
bool export_memory (GstMemory * owner, int device,
    const std::shared_ptr<ExportListener> & listener, Export * out, GError ** error);

} // namespace ipc
} // namespace gst_cs
