/* SPDX-License-Identifier: LGPL-2.1-or-later */
// What the IPC elements ask of their device at start (internal).
#pragma once

#include <gst/gst.h>

namespace gst_cs {
namespace ipc {

// Whether `device` can share memory and events with other processes; when
// not, posts `element`'s error saying so. Also says in the element's debug
// log whether CUDA's multi-process service (MPS) shares the device: without
// it each process has a GPU context of its own and the GPU runs one context
// at a time, which bounds frames across processes (docs/ipc.md).
bool check_device (GstElement * element, GstDebugCategory * category, int device);

} // namespace ipc
} // namespace gst_cs
