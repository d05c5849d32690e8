/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fakecuda: a stand-in for the CUDA runtime, for testing the sync protocol on
 * machines without a GPU (CI).
 *
 * libfakecudart implements the CUDA runtime calls the project makes, with host
 * memory standing in for device memory, and runs stream work *lazily*: an
 * operation enqueued on a stream runs only when something forces it,
 *   - a host wait on it (cudaEventSynchronize, cudaStreamSynchronize,
 *     cudaDeviceSynchronize, a synchronous copy or memset),
 *   - device-wide synchronisation (cudaFree, cudaFreeHost, cudaHostUnregister),
 *   - a pageable host<->device copy on its stream (CUDA synchronises the
 *     stream first), or
 *   - an operation of another stream that waits on an event recorded after it
 *     (cudaStreamWaitEvent is a real dependency).
 * So work that is not ordered by an event is observed running late every
 * time, as a real GPU may do now and then. cudaEventQuery and cudaStreamQuery
 * report cudaErrorNotReady for pending work and never run it (except that a
 * caller that keeps polling one event is let through after
 * FAKECUDA_POLLS_BEFORE_PROGRESS consecutive not-ready answers, default
 * 100000, so a spin-wait terminates; that forced progress is counted as a
 * host block).
 *
 * Environment:
 *   FAKECUDA_DEVICES               number of devices (default 1)
 *   FAKECUDA_POLLS_BEFORE_PROGRESS see above
 *   FAKECUDA_NO_STREAM_WAIT_VALUE=1 no cuStreamWaitValue32 entry point (a
 *                                  driver without it)
 *   FAKECUDA_NO_STREAM_MEM_OPS=1   the device says it cannot use stream
 *                                  memory operations (the entry point stays)
 *   FAKECUDA_TRACE=1               names every host block on stderr (which
 *                                  call, how many so far), to find the
 *                                  ones a count does not explain
 *   FAKECUDA_DEAD_PEER_WAIT=stuck  a stream that waits for an interprocess
 *                                  event of a process that died before
 *                                  completing it hangs (the process aborts
 *                                  after 20 s saying so) instead of going
 *                                  on: both were measured on a GPU
 *   FAKECUDA_HANG_SECONDS          how long such a hang lasts (default 20)
 *   FAKECUDA_NO_IPC=1              the devices say they have no CUDA IPC
 *                                  (cudaDevAttrIpcEventSupport 0: Tegra)
 *   FAKECUDA_MPS=1                 the devices say CUDA's multi-process
 *                                  service shares them (cudaDevAttrMpsEnabled)
 *
 * CUDA IPC works across real processes (fakecudart_ipc.cpp): allocations
 * of whole 2 MiB blocks are shared memory that cudaIpcGetMemHandle exports
 * and another process maps; interprocess events are shared counters, and a
 * process that waits for another's record asks it to run its stream up to
 * there (each such process serves those requests on a thread of its own).
 *
 * Kernels cannot run here: the project's plane-copy kernel has a CPU twin
 * (tests/fakecuda/plane_copy_twin.cpp) that enqueues the same copy as host
 * work through fakecuda_launch(). A kernel that touches memory that is not
 * device memory of the launching device (or of a peer whose access was
 * enabled) fails as on a GPU: the launch succeeds, and when the work runs the
 * process gets the sticky error cudaErrorIllegalAddress, which every later
 * runtime call returns.
 *
 * Everything below is for tests; the project's code never calls it. Tests
 * find out whether they run on the stand-in with fakecuda_present(). */
#pragma once

#include <stddef.h>
#include <cuda_runtime_api.h>

/* Weak references, so that a test binary built against the real runtime
 * links too; call these only when fakecuda_present(). */
#ifdef FAKECUDA_BUILDING
#define FAKECUDA_API __attribute__ ((visibility ("default")))
#else
#define FAKECUDA_API __attribute__ ((weak))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Host-blocking runtime calls (synchronize, cudaFree*, synchronous and
 * pageable copies, cudaHostUnregister, forced progress of a polled event)
 * made by the calling thread so far. */
FAKECUDA_API unsigned long long fakecuda_host_blocks_thread (void);

/* The same, summed over every thread of the process. */
FAKECUDA_API unsigned long long fakecuda_host_blocks_total (void);

/* cudaStreamWaitEvent calls made by the calling thread so far, whatever
 * they returned: each is host cost, even one with nothing to wait for. */
FAKECUDA_API unsigned long long fakecuda_stream_waits_thread (void);

/* Operations enqueued on any stream that have not run yet. */
FAKECUDA_API unsigned long long fakecuda_pending_ops (void);

/* Records of interprocess events (cudaEventInterprocess) this process
 * made so far. */
FAKECUDA_API unsigned long long fakecuda_ipc_records (void);

/* Of those, the records of an event whose previous record had not
 * completed yet: a driver may have to hold the new record back until it
 * has (one shared signal per event: HIP's does), a host wait in
 * cudaEventRecord. */
FAKECUDA_API unsigned long long fakecuda_ipc_early_rerecords (void);

/* Successful cudaIpcOpenMemHandle and cudaIpcOpenEventHandle calls of this
 * process so far: an importer opens each memory and each event once and
 * keeps it, not once a frame. */
FAKECUDA_API unsigned long long fakecuda_ipc_mem_opens (void);
FAKECUDA_API unsigned long long fakecuda_ipc_event_opens (void);

/* Runs every pending operation of every device, without counting a host
 * block (for a test's own checks at the end). */
FAKECUDA_API void fakecuda_run_all (void);

/* For the CPU twin of a kernel: enqueues fn (data) on @stream as one piece of
 * lazy work, after checking that @stream belongs to the current device
 * (cudaErrorInvalidResourceHandle otherwise). free_data (data), if set, runs
 * once after fn, or when the work is dropped. */
FAKECUDA_API cudaError_t fakecuda_launch (cudaStream_t stream, void (*fn) (void * data),
    void * data, void (*free_data) (void * data));

/* For the twin, inside fn: whether [ptr, ptr + bytes) lies in device memory
 * the launching device may touch (its own, or a peer's whose access it
 * enabled). When it does not, the twin calls fakecuda_fault() and returns. */
FAKECUDA_API int fakecuda_kernel_may_access (const void * ptr, size_t bytes);

/* For the twin, inside fn: the kernel touched memory it may not: sets the
 * process' sticky cudaErrorIllegalAddress. */
FAKECUDA_API void fakecuda_fault (void);

#ifdef __cplusplus
}
#endif

/* Whether the process runs on the stand-in: false with the real CUDA runtime,
 * which has no such symbol. */
static inline int
fakecuda_present (void)
{
#ifdef FAKECUDA_BUILDING
  return 1; /* the stand-in itself, where the symbol cannot be missing */
#else
  return fakecuda_host_blocks_total != NULL;
#endif
}
