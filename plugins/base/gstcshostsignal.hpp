/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Streams that wait for CPU threads (internal): the upload's staging and
// the tracer's stream gate.
#pragma once

#include <glib.h>
#include <cuda_runtime_api.h>

namespace gst_cs {

// A stream can wait on a 32-bit counter in pinned host memory that CPU
// threads raise (the driver's cuStreamWaitValue32, reached through the
// runtime's entry-point table, so the plugin still loads without a driver).
// It lets an element enqueue the DMA of staging that its copy threads are
// still writing, and push the frame at once: the GPU starts the DMA when
// the counter says the staging is written.
//
// False where the driver lacks it; then the copy must be complete before
// its DMA is enqueued.
bool host_signal_supported ();

// Enqueues on `stream` a wait until the counter at `device_address` (the
// device's address of pinned host memory) reaches `value`, counting with
// wrap-around.
bool stream_wait_host_signal (
    cudaStream_t stream, void * device_address, guint32 value, GError ** error);

// Raises the counter at `host_address` by one once everything this thread
// wrote before is visible to the device.
void raise_host_signal (guint32 * host_address);

} // namespace gst_cs
