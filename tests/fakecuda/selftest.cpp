/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fakecuda stand-in's own semantics (fakecuda.h): lazy stream work,
 * event dependencies across streams and devices, the pageable and pinned
 * copy rules with their host blocks, per-thread counts, and a kernel twin
 * that faults on memory its device may not touch. */
#include <gst/check/gstcheck.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "fakecuda.h"
#include "plane_copy.h"

#define CUDA_OK(call) fail_unless_equals_int ((call), cudaSuccess)

/* How many answers cudaEventQuery gives before it forces progress (set in
 * main, before the runtime reads it). */
static const int kPolls = 5;

static guint8 *
device_alloc (gsize size)
{
  void * p = NULL;
  CUDA_OK (cudaMalloc (&p, size));
  return (guint8 *)p;
}

static guint8 *
pinned_alloc (gsize size, int value)
{
  void * p = NULL;
  CUDA_OK (cudaHostAlloc (&p, size, cudaHostAllocPortable));
  memset (p, value, size);
  return (guint8 *)p;
}

static cudaStream_t
new_stream (void)
{
  cudaStream_t s = NULL;
  CUDA_OK (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  return s;
}

static cudaEvent_t
new_event (void)
{
  cudaEvent_t e = NULL;
  CUDA_OK (cudaEventCreateWithFlags (&e, cudaEventDisableTiming));
  return e;
}

/* Whether all `size` bytes of host-readable `p` are `value`. */
static bool
all_equal (const guint8 * p, gsize size, int value)
{
  for (gsize i = 0; i < size; i++)
    if (p[i] != (guint8)value)
      return false;
  return true;
}

/* Reads device memory without running anything: the stand-in's device
 * memory is host memory. */
#define DEVICE_IS(d, size, value) fail_unless (all_equal ((d), (size), (value)))

GST_START_TEST (test_lazy_until_waited_for)
{
  const gsize n = 4096;
  guint8 * d = device_alloc (n);
  guint8 * h = pinned_alloc (n, 0x11);
  cudaStream_t s1 = new_stream (), s2 = new_stream ();
  cudaEvent_t e2 = new_event ();

  DEVICE_IS (d, n, 0xCD); /* fresh device memory is junk */
  fakecuda_run_all ();    /* whatever earlier tests left */
  CUDA_OK (cudaMemcpyAsync (d, h, n, cudaMemcpyHostToDevice, s1));
  fail_unless_equals_uint64 (fakecuda_pending_ops (), 1);
  fail_unless_equals_int (cudaStreamQuery (s1), cudaErrorNotReady);
  DEVICE_IS (d, n, 0xCD);

  /* a host wait on another stream, not ordered after the copy */
  CUDA_OK (cudaEventRecord (e2, s2));
  CUDA_OK (cudaEventSynchronize (e2));
  CUDA_OK (cudaStreamSynchronize (s2));
  DEVICE_IS (d, n, 0xCD);

  CUDA_OK (cudaStreamSynchronize (s1));
  DEVICE_IS (d, n, 0x11);
  CUDA_OK (cudaStreamQuery (s1));
  fail_unless_equals_uint64 (fakecuda_pending_ops (), 0);

  CUDA_OK (cudaEventDestroy (e2));
  CUDA_OK (cudaStreamDestroy (s1));
  CUDA_OK (cudaStreamDestroy (s2));
  CUDA_OK (cudaFreeHost (h));
  CUDA_OK (cudaFree (d));
}
GST_END_TEST;

/* s2 waits for the record of e1 current at the call: s1's work before it
 * runs, s1's work after it (and after a later record) does not. */
GST_START_TEST (test_wait_event_across_streams)
{
  const gsize n = 1000;
  guint8 * d = device_alloc (n);
  guint8 * d2 = device_alloc (n);
  guint8 * h = pinned_alloc (n, 0x22);
  guint8 * out = pinned_alloc (n, 0);
  cudaStream_t s1 = new_stream (), s2 = new_stream ();
  cudaEvent_t e1 = new_event (), unrecorded = new_event ();

  CUDA_OK (cudaMemcpyAsync (d, h, n, cudaMemcpyHostToDevice, s1));
  CUDA_OK (cudaEventRecord (e1, s1));
  CUDA_OK (cudaStreamWaitEvent (s2, e1, 0));
  CUDA_OK (cudaMemsetAsync (d2, 0x5a, n, s1));       /* after the record */
  CUDA_OK (cudaEventRecord (e1, s1));                /* too late for s2's wait */
  CUDA_OK (cudaStreamWaitEvent (s2, unrecorded, 0)); /* a no-op */
  CUDA_OK (cudaMemcpyAsync (out, d, n, cudaMemcpyDeviceToHost, s2));
  fail_unless (all_equal (out, n, 0));
  CUDA_OK (cudaStreamSynchronize (s2));
  fail_unless (all_equal (out, n, 0x22));
  DEVICE_IS (d2, n, 0xCD);
  fail_unless_equals_int (cudaEventQuery (e1), cudaErrorNotReady);
  CUDA_OK (cudaEventQuery (unrecorded)); /* never recorded: complete */
  CUDA_OK (cudaEventSynchronize (e1));
  DEVICE_IS (d2, n, 0x5a);

  CUDA_OK (cudaStreamDestroy (s1));
  CUDA_OK (cudaStreamDestroy (s2));
  CUDA_OK (cudaFreeHost (h));
  CUDA_OK (cudaFreeHost (out));
  CUDA_OK (cudaFree (d));
  CUDA_OK (cudaFree (d2));
}
GST_END_TEST;

/* Two streams that wait for each other in turn (s1: record L; s2: wait
 * for L, copy, record D; s1: wait for D, record R): R completes after the
 * copy. A host wait for R runs s1, whose wait for D runs s2, whose wait for
 * L comes back to s1 while s1's wait is still in progress: nothing of s1
 * may run then, R least of all. (The stand-in once completed R there,
 * before the copy: a consumer's release event said its download had read a
 * frame before the download's copy ran, and the producer rewrote the frame
 * first.) */
GST_START_TEST (test_nested_run_keeps_order)
{
  const gsize n = 1 << 20;
  guint8 * d = device_alloc (n);
  guint8 * d2 = device_alloc (n);
  cudaStream_t s1 = new_stream (), s2 = new_stream ();
  cudaEvent_t l = new_event (), done = NULL, r = NULL;
  CUDA_OK (cudaEventCreate (&done)); /* timing events: when each ran */
  CUDA_OK (cudaEventCreate (&r));

  fakecuda_run_all ();
  CUDA_OK (cudaEventRecord (l, s1));
  CUDA_OK (cudaStreamWaitEvent (s2, l, 0));
  CUDA_OK (cudaMemcpyAsync (d2, d, n, cudaMemcpyDeviceToDevice, s2));
  CUDA_OK (cudaEventRecord (done, s2));
  CUDA_OK (cudaStreamWaitEvent (s1, done, 0));
  CUDA_OK (cudaEventRecord (r, s1));
  CUDA_OK (cudaEventSynchronize (r));
  float ms = 0;
  CUDA_OK (cudaEventElapsedTime (&ms, done, r));
  fail_unless (ms >= 0, "R completed %.6f ms before the copy it waits for", -ms);

  CUDA_OK (cudaEventDestroy (l));
  CUDA_OK (cudaEventDestroy (done));
  CUDA_OK (cudaEventDestroy (r));
  CUDA_OK (cudaStreamDestroy (s1));
  CUDA_OK (cudaStreamDestroy (s2));
  CUDA_OK (cudaFree (d));
  CUDA_OK (cudaFree (d2));
}
GST_END_TEST;

/* A stream of device 1 waits for an event of device 0 and copies device 0
 * memory into device 1 memory (UVA). */
GST_START_TEST (test_wait_event_across_devices)
{
  int n_devices = 0;
  CUDA_OK (cudaGetDeviceCount (&n_devices));
  fail_unless (n_devices >= 2, "run with FAKECUDA_DEVICES=2");
  const gsize n = 512;
  CUDA_OK (cudaSetDevice (0));
  guint8 * d0 = device_alloc (n);
  guint8 * h = pinned_alloc (n, 0x33);
  cudaStream_t s0 = new_stream ();
  cudaEvent_t e0 = new_event ();
  CUDA_OK (cudaMemcpyAsync (d0, h, n, cudaMemcpyHostToDevice, s0));
  CUDA_OK (cudaEventRecord (e0, s0));

  CUDA_OK (cudaSetDevice (1));
  guint8 * d1 = device_alloc (n);
  cudaStream_t s1 = new_stream ();
  int device = -1;
  CUDA_OK (cudaStreamGetDevice (s1, &device));
  fail_unless_equals_int (device, 1);
  CUDA_OK (cudaStreamWaitEvent (s1, e0, 0));
  CUDA_OK (cudaMemcpyAsync (d1, d0, n, cudaMemcpyDeviceToDevice, s1));
  DEVICE_IS (d1, n, 0xCD);
  CUDA_OK (cudaStreamSynchronize (s1));
  DEVICE_IS (d1, n, 0x33);

  cudaPointerAttributes attr;
  CUDA_OK (cudaPointerGetAttributes (&attr, d1 + 10));
  fail_unless (attr.type == cudaMemoryTypeDevice && attr.device == 1);
  CUDA_OK (cudaPointerGetAttributes (&attr, h));
  fail_unless (attr.type == cudaMemoryTypeHost && attr.device == 0);
  CUDA_OK (cudaPointerGetAttributes (&attr, &attr));
  fail_unless (attr.type == cudaMemoryTypeUnregistered);

  CUDA_OK (cudaStreamDestroy (s1));
  CUDA_OK (cudaFree (d1));
  CUDA_OK (cudaSetDevice (0));
  CUDA_OK (cudaStreamDestroy (s0));
  CUDA_OK (cudaFree (d0));
  CUDA_OK (cudaFreeHost (h));
  fail_unless_equals_int (cudaSetDevice (2), cudaErrorInvalidDevice);
  fail_unless_equals_int (cudaGetLastError (), cudaErrorInvalidDevice);
  CUDA_OK (cudaGetLastError ());
}
GST_END_TEST;

GST_START_TEST (test_event_of_other_device_rejected)
{
  CUDA_OK (cudaSetDevice (1));
  cudaEvent_t e1 = new_event ();
  CUDA_OK (cudaSetDevice (0));
  cudaStream_t s0 = new_stream ();
  fail_unless_equals_int (cudaEventRecord (e1, s0), cudaErrorInvalidResourceHandle);
  fail_unless_equals_int (cudaPeekAtLastError (), cudaErrorInvalidResourceHandle);
  fail_unless_equals_int (cudaGetLastError (), cudaErrorInvalidResourceHandle);
  CUDA_OK (cudaGetLastError ());
  /* the legacy stream is the current device's */
  fail_unless_equals_int (cudaEventRecord (e1, NULL), cudaErrorInvalidResourceHandle);
  CUDA_OK (cudaSetDevice (1));
  CUDA_OK (cudaEventRecord (e1, NULL));
  CUDA_OK (cudaSetDevice (0));
  (void)cudaGetLastError ();
  CUDA_OK (cudaStreamDestroy (s0));
  fail_unless_equals_int (cudaStreamDestroy (s0), cudaErrorInvalidResourceHandle);
  (void)cudaGetLastError ();
}
GST_END_TEST;

/* Pageable host memory: host to device stages the source at the call (a
 * host block, running the stream's queued work first); device to host is
 * done when the call returns. Pinned memory: lazy both ways, read and
 * written when the copy runs. */
GST_START_TEST (test_pageable_and_pinned_copies)
{
  const gsize n = 2048;
  guint8 * d = device_alloc (n);
  guint8 * d2 = device_alloc (n);
  std::vector<guint8> pageable (n, 0x44);
  guint8 * pinned = pinned_alloc (n, 0x55);
  cudaStream_t s = new_stream ();

  unsigned long long b = fakecuda_host_blocks_thread ();
  CUDA_OK (cudaMemsetAsync (d2, 0x66, n, s));
  CUDA_OK (cudaMemcpyAsync (d, pageable.data (), n, cudaMemcpyHostToDevice, s));
  fail_unless_equals_uint64 (fakecuda_host_blocks_thread (), b + 1);
  DEVICE_IS (d2, n, 0x66); /* the queued memset ran first */
  DEVICE_IS (d, n, 0xCD);  /* the device write itself is lazy */
  memset (pageable.data (), 0x45, n);
  CUDA_OK (cudaStreamSynchronize (s));
  DEVICE_IS (d, n, 0x44); /* from the copy staged at the call */
  b = fakecuda_host_blocks_thread ();

  CUDA_OK (cudaMemcpyAsync (d, pinned, n, cudaMemcpyHostToDevice, s));
  fail_unless_equals_uint64 (fakecuda_host_blocks_thread (), b);
  memset (pinned, 0x56, n); /* rewritten too early: the copy sees it */
  CUDA_OK (cudaStreamSynchronize (s));
  DEVICE_IS (d, n, 0x56);
  b = fakecuda_host_blocks_thread ();

  CUDA_OK (cudaMemcpyAsync (pinned, d2, n, cudaMemcpyDeviceToHost, s));
  fail_unless_equals_uint64 (fakecuda_host_blocks_thread (), b);
  fail_unless (all_equal (pinned, n, 0x56));
  CUDA_OK (cudaMemcpyAsync (pageable.data (), d2, n, cudaMemcpyDefault, s));
  fail_unless_equals_uint64 (fakecuda_host_blocks_thread (), b + 1);
  fail_unless (all_equal (pageable.data (), n, 0x66)); /* done on return */
  fail_unless (all_equal (pinned, n, 0x66));           /* the stream ran first */

  /* synchronous calls: one host block each */
  b = fakecuda_host_blocks_thread ();
  CUDA_OK (cudaMemset (d, 0x77, n));
  CUDA_OK (cudaMemcpy (pageable.data (), d, n, cudaMemcpyDeviceToHost));
  fail_unless (all_equal (pageable.data (), n, 0x77));
  CUDA_OK (cudaMemcpy2D (d2, 64, pageable.data (), 32, 32, 4, cudaMemcpyHostToDevice));
  DEVICE_IS (d2, 32, 0x77);
  DEVICE_IS (d2 + 32, 32, 0x66);
  fail_unless_equals_uint64 (fakecuda_host_blocks_thread (), b + 3);

  /* the kind must match the pointers */
  fail_unless_equals_int (
      cudaMemcpyAsync (d, pinned, n, cudaMemcpyDeviceToHost, s), cudaErrorInvalidValue);
  fail_unless_equals_int (
      cudaMemcpyAsync (d, d2, n + 1, cudaMemcpyDeviceToDevice, s), cudaErrorInvalidValue);
  fail_unless_equals_int (
      cudaMemsetAsync (pageable.data (), 0, n, s), cudaErrorInvalidValue);
  (void)cudaGetLastError ();

  /* cudaFree waits for the device: a host block that runs pending work */
  CUDA_OK (cudaMemcpyAsync (pinned, d, n, cudaMemcpyDeviceToHost, s));
  b = fakecuda_host_blocks_thread ();
  CUDA_OK (cudaFree (d));
  fail_unless_equals_uint64 (fakecuda_host_blocks_thread (), b + 1);
  fail_unless (all_equal (pinned, n, 0x77));
  fail_unless_equals_int (cudaFree (d), cudaErrorInvalidValue);
  (void)cudaGetLastError ();

  CUDA_OK (cudaStreamDestroy (s));
  CUDA_OK (cudaFree (d2));
  CUDA_OK (cudaFreeHost (pinned));
}
GST_END_TEST;

/* Registered host memory is pinned: lazy copies, and unregistering it
 * waits for the device. */
GST_START_TEST (test_host_register)
{
  const gsize n = 8192;
  std::vector<guint8> mem (n, 0x12);
  guint8 * d = device_alloc (n);
  cudaStream_t s = new_stream ();
  CUDA_OK (cudaHostRegister (mem.data (), n, cudaHostRegisterDefault));
  fail_unless_equals_int (
      cudaHostRegister (mem.data () + 10, 10, 0), cudaErrorHostMemoryAlreadyRegistered);
  (void)cudaGetLastError ();
  unsigned flags = 99;
  CUDA_OK (cudaHostGetFlags (&flags, mem.data () + 5));
  fail_unless_equals_int (flags, cudaHostRegisterDefault);
  unsigned long long b = fakecuda_host_blocks_thread ();
  CUDA_OK (cudaMemcpyAsync (d, mem.data (), n, cudaMemcpyHostToDevice, s));
  fail_unless_equals_uint64 (fakecuda_host_blocks_thread (), b);
  CUDA_OK (cudaHostUnregister (mem.data ()));
  fail_unless_equals_uint64 (fakecuda_host_blocks_thread (), b + 1);
  DEVICE_IS (d, n, 0x12);
  fail_unless_equals_int (
      cudaHostUnregister (mem.data ()), cudaErrorHostMemoryNotRegistered);
  (void)cudaGetLastError ();
  CUDA_OK (cudaStreamDestroy (s));
  CUDA_OK (cudaFree (d));
}
GST_END_TEST;

/* A destroyed stream's handle is invalid at once; its queued work still
 * runs when something needs it. */
GST_START_TEST (test_destroyed_stream_work_runs)
{
  const gsize n = 64;
  guint8 * d = device_alloc (n);
  cudaStream_t s = new_stream ();
  cudaEvent_t e = new_event ();
  CUDA_OK (cudaMemsetAsync (d, 0x3c, n, s));
  CUDA_OK (cudaEventRecord (e, s));
  CUDA_OK (cudaStreamDestroy (s));
  fail_unless_equals_int (cudaStreamQuery (s), cudaErrorInvalidResourceHandle);
  (void)cudaGetLastError ();
  DEVICE_IS (d, n, 0xCD);
  CUDA_OK (cudaEventSynchronize (e));
  DEVICE_IS (d, n, 0x3c);
  CUDA_OK (cudaEventDestroy (e));
  CUDA_OK (cudaFree (d));
}
GST_END_TEST;

/* A caller polling one record is let through after kPolls answers; that
 * counts as a host block. */
GST_START_TEST (test_polling_terminates)
{
  guint8 * d = device_alloc (16);
  cudaStream_t s = new_stream ();
  cudaEvent_t e = new_event ();
  CUDA_OK (cudaMemsetAsync (d, 1, 16, s));
  CUDA_OK (cudaEventRecord (e, s));
  unsigned long long b = fakecuda_host_blocks_thread ();
  for (int i = 0; i < kPolls; i++)
    fail_unless_equals_int (cudaEventQuery (e), cudaErrorNotReady);
  CUDA_OK (cudaGetLastError ()); /* not ready is no error */
  fail_unless_equals_uint64 (fakecuda_host_blocks_thread (), b);
  CUDA_OK (cudaEventQuery (e));
  fail_unless_equals_uint64 (fakecuda_host_blocks_thread (), b + 1);
  DEVICE_IS (d, 16, 1);
  CUDA_OK (cudaStreamDestroy (s));
  CUDA_OK (cudaFree (d));
}
GST_END_TEST;

/* Host blocks are counted for the thread that blocks, and in all. */
GST_START_TEST (test_per_thread_counts)
{
  unsigned long long mine = fakecuda_host_blocks_thread ();
  unsigned long long total = fakecuda_host_blocks_total ();
  unsigned long long theirs = 99;
  std::thread t ([&theirs] {
    CUDA_OK (cudaStreamSynchronize (cudaStreamPerThread));
    CUDA_OK (cudaDeviceSynchronize ());
    CUDA_OK (cudaStreamSynchronize (NULL));
    theirs = fakecuda_host_blocks_thread ();
  });
  t.join ();
  fail_unless_equals_uint64 (theirs, 3);
  fail_unless_equals_uint64 (fakecuda_host_blocks_thread (), mine);
  fail_unless_equals_uint64 (fakecuda_host_blocks_total (), total + 3);
}
GST_END_TEST;

/* The twin of the plane-copy kernel writes what the kernel writes,
 * including the 4:2:2 luma shift. */
GST_START_TEST (test_twin_copies_like_the_kernel)
{
  const guint8 row[12] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
  guint8 * src = device_alloc (2 * 16);
  guint8 * dst = device_alloc (2 * 16);
  cudaStream_t s = new_stream ();
  CUDA_OK (cudaMemcpy (src, row, 12, cudaMemcpyHostToDevice));
  CUDA_OK (cudaMemcpy (src + 16, row, 12, cudaMemcpyHostToDevice));
  gst_cs::gpu::PlaneCopy p[2];
  p[0].src = src;
  p[0].src_pitch = 16;
  p[0].dst = dst;
  p[0].dst_pitch = 16;
  p[0].row_bytes = 8;
  p[0].rows = 1;
  p[0].shift_first = 1;
  p[0].shift_end = 6; /* bytes 1, 3, 5 take 3, 5, 7 */
  p[1] = p[0];
  p[1].src = src + 16;
  p[1].dst = dst + 16;
  p[1].shift_end = 0; /* plain */
  fail_unless_equals_int (gst_cs::gpu::copy_planes (p, 0, s), cudaErrorInvalidValue);
  fail_unless_equals_int (gst_cs::gpu::copy_planes (p, 5, s), cudaErrorInvalidValue);
  CUDA_OK (gst_cs::gpu::copy_planes (p, 2, s));
  DEVICE_IS (dst, 8, 0xCD);
  CUDA_OK (cudaStreamSynchronize (s));
  const guint8 shifted[8] = { 0, 3, 2, 5, 4, 7, 6, 7 };
  fail_unless (memcmp (dst, shifted, 8) == 0);
  fail_unless (memcmp (dst + 16, row, 8) == 0);
  CUDA_OK (cudaStreamDestroy (s));
  CUDA_OK (cudaFree (src));
  CUDA_OK (cudaFree (dst));
}
GST_END_TEST;

/* In a child process: a kernel of device 0 may read device 1's memory only
 * with peer access; without it the process gets the sticky
 * cudaErrorIllegalAddress, which every later call returns. The child
 * reports by its exit status (check's assertions belong to the parent). */
#define CHILD_EXPECT(call, want) \
  do { \
    cudaError_t got_ = (call); \
    if (got_ != (want)) { \
      g_printerr ("%s: %s, expected %s\n", #call, cudaGetErrorName (got_), \
          cudaGetErrorName (want)); \
      return __LINE__; \
    } \
  } while (0)

static int
twin_fault_child (void)
{
  const gsize n = 256;
  void *other = NULL, *dst = NULL, *more = NULL;
  cudaStream_t s = NULL;
  CHILD_EXPECT (cudaSetDevice (1), cudaSuccess);
  CHILD_EXPECT (cudaMalloc (&other, n), cudaSuccess);
  CHILD_EXPECT (cudaSetDevice (0), cudaSuccess);
  CHILD_EXPECT (cudaMalloc (&dst, n), cudaSuccess);
  CHILD_EXPECT (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking), cudaSuccess);
  gst_cs::gpu::PlaneCopy p;
  p.src = (const guint8 *)other;
  p.src_pitch = n;
  p.dst = (guint8 *)dst;
  p.dst_pitch = n;
  p.row_bytes = n;
  p.rows = 1;

  CHILD_EXPECT (cudaDeviceEnablePeerAccess (1, 0), cudaSuccess);
  CHILD_EXPECT (gst_cs::gpu::copy_planes (&p, 1, s), cudaSuccess);
  CHILD_EXPECT (cudaStreamSynchronize (s), cudaSuccess);
  CHILD_EXPECT (cudaDeviceDisablePeerAccess (1), cudaSuccess);

  CHILD_EXPECT (gst_cs::gpu::copy_planes (&p, 1, s), cudaSuccess); /* the launch works */
  CHILD_EXPECT (cudaStreamSynchronize (s), cudaErrorIllegalAddress);
  CHILD_EXPECT (cudaMalloc (&more, 16), cudaErrorIllegalAddress);
  CHILD_EXPECT (cudaGetLastError (), cudaErrorIllegalAddress);
  CHILD_EXPECT (cudaGetLastError (), cudaErrorIllegalAddress); /* sticky */
  CHILD_EXPECT (cudaStreamQuery (s), cudaErrorIllegalAddress);
  return 0;
}

GST_START_TEST (test_twin_fault_is_sticky)
{
  pid_t child = fork ();
  fail_unless (child >= 0);
  if (child == 0)
    _exit (twin_fault_child ());
  int status = 0;
  fail_unless (waitpid (child, &status, 0) == child);
  fail_unless (WIFEXITED (status) && WEXITSTATUS (status) == 0,
      "the child failed at selftest.cpp:%d (status %d)", WEXITSTATUS (status), status);
  /* this process is untouched */
  void * p = NULL;
  CUDA_OK (cudaMalloc (&p, 16));
  CUDA_OK (cudaFree (p));
}
GST_END_TEST;

/* ---- CUDA IPC across processes (fakecudart_ipc.cpp) ---- */

static const gsize kBlock = 2 << 20;

static cudaEvent_t
new_ipc_event (void)
{
  cudaEvent_t e = NULL;
  CUDA_OK (cudaEventCreateWithFlags (&e, cudaEventDisableTiming | cudaEventInterprocess));
  return e;
}

/* What each thread of process `pid` is doing, for a child that never
 * finished: its state and, blocked, the kernel function it sleeps in and
 * its system call (202: futex, a lock). */
static std::string
threads_of (pid_t pid)
{
  std::string out;
  const std::string dir = "/proc/" + std::to_string (pid) + "/task";
  GDir * d = g_dir_open (dir.c_str (), 0, NULL);
  if (!d)
    return "(no " + dir + ")";
  while (const gchar * tid = g_dir_read_name (d)) {
    for (const char * what : { "stat", "wchan", "syscall" }) {
      gchar * text = NULL;
      if (g_file_get_contents (
              (dir + "/" + tid + "/" + what).c_str (), &text, NULL, NULL)) {
        out += std::string (tid) + " " + what + ": " + g_strstrip (text) + "\n";
        g_free (text);
      }
    }
  }
  g_dir_close (d);
  return out;
}

/* Runs `child` in a forked process (its exit code: 0 is success, else the
 * number of the check that failed) and returns that code. A child that has
 * not finished in 30 s (each takes milliseconds; the stand-in's own waits
 * give up after 20) fails the test with what its threads were doing, where
 * check's timeout would say only that it ran out: it hung once under
 * AddressSanitizer without a word of the stand-in's (2026-12-02). */
template <typename F>
static int
in_child (F && child)
{
  pid_t pid = fork ();
  fail_unless (pid >= 0);
  if (pid == 0)
    _exit (child ());
  int status = 0;
  const gint64 end = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
  pid_t got;
  while ((got = waitpid (pid, &status, WNOHANG)) == 0 && g_get_monotonic_time () < end)
    g_usleep (10 * 1000);
  if (got == 0) {
    const std::string where = threads_of (pid);
    kill (pid, SIGKILL);
    waitpid (pid, &status, 0);
    fail ("the child process did not finish in 30 s; its threads:\n%s", where.c_str ());
  }
  fail_unless_equals_int (got, pid);
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}

/* The other process maps the same bytes; its stream reads them only after
 * the owner's record when it waits for the event (the owner then runs its
 * lazy copy); without the wait it reads them before. */
GST_START_TEST (test_ipc_memory_and_event)
{
  guint8 * d = device_alloc (kBlock);
  guint8 * h = pinned_alloc (kBlock, 0x42);
  cudaStream_t s = new_stream ();
  cudaEvent_t e = new_ipc_event ();
  CUDA_OK (cudaMemcpyAsync (d, h, kBlock, cudaMemcpyHostToDevice, s));
  CUDA_OK (cudaEventRecord (e, s));
  cudaIpcMemHandle_t mh;
  cudaIpcEventHandle_t eh;
  CUDA_OK (cudaIpcGetMemHandle (&mh, d));
  CUDA_OK (cudaIpcGetEventHandle (&eh, e));
  int code = in_child ([&] {
    void * p = NULL;
    cudaEvent_t ev = NULL;
    if (cudaIpcOpenMemHandle (&p, mh, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess)
      return 1;
    if (cudaIpcOpenEventHandle (&ev, eh) != cudaSuccess)
      return 2;
    cudaStream_t s2 = new_stream ();
    guint8 * out = pinned_alloc (kBlock, 0);
    /* Not ordered after the owner's copy: that has not run. */
    cudaMemcpyAsync (out, p, kBlock, cudaMemcpyDeviceToHost, s2);
    cudaStreamSynchronize (s2);
    if (!all_equal (out, kBlock, 0xCD))
      return 3;
    if (cudaEventRecord (ev, s2) != cudaErrorNotSupported)
      return 4;
    (void)cudaGetLastError ();
    cudaStreamWaitEvent (s2, ev, 0);
    cudaMemcpyAsync (out, p, kBlock, cudaMemcpyDeviceToHost, s2);
    cudaStreamSynchronize (s2);
    if (!all_equal (out, kBlock, 0x42))
      return 5;
    if (cudaEventQuery (ev) != cudaSuccess)
      return 6;
    /* Written here, seen by the owner. */
    if (cudaMemsetAsync (p, 0x77, 16, s2) != cudaSuccess)
      return 8;
    cudaStreamSynchronize (s2);
    if (!all_equal ((guint8 *)p, 16, 0x77))
      return 9;
    return cudaIpcCloseMemHandle (p) == cudaSuccess ? 0 : 7;
  });
  fail_unless_equals_int (code, 0);
  DEVICE_IS (d, 16, 0x77);
  DEVICE_IS (d + 16, kBlock - 16, 0x42);
  CUDA_OK (cudaEventQuery (e));
  CUDA_OK (cudaStreamDestroy (s));
  CUDA_OK (cudaFreeHost (h));
  CUDA_OK (cudaFree (d));
}
GST_END_TEST;

/* A query asks the owner to run the record: polling completes without the
 * owner doing anything. */
GST_START_TEST (test_ipc_query_asks_the_owner)
{
  guint8 * d = device_alloc (4096);
  cudaStream_t s = new_stream ();
  cudaEvent_t e = new_ipc_event ();
  CUDA_OK (cudaMemsetAsync (d, 0x10, 4096, s));
  CUDA_OK (cudaEventRecord (e, s));
  cudaIpcEventHandle_t eh;
  CUDA_OK (cudaIpcGetEventHandle (&eh, e));
  int code = in_child ([&] {
    cudaEvent_t ev = NULL;
    if (cudaIpcOpenEventHandle (&ev, eh) != cudaSuccess)
      return 1;
    for (int i = 0; i < 10000; i++) {
      if (cudaEventQuery (ev) == cudaSuccess)
        return 0;
      g_usleep (100);
    }
    return 2;
  });
  fail_unless_equals_int (code, 0);
  DEVICE_IS (d, 4096, 0x10);
  CUDA_OK (cudaStreamDestroy (s));
  CUDA_OK (cudaFree (d));
}
GST_END_TEST;

/* Records of interprocess events are counted, and those made while the
 * event's previous record is still pending are counted apart. */
GST_START_TEST (test_ipc_record_counts)
{
  cudaStream_t s = new_stream ();
  cudaEvent_t e = new_ipc_event ();
  cudaEvent_t plain = NULL;
  CUDA_OK (cudaEventCreateWithFlags (&plain, cudaEventDisableTiming));
  const unsigned long long records = fakecuda_ipc_records ();
  const unsigned long long early = fakecuda_ipc_early_rerecords ();
  CUDA_OK (cudaEventRecord (plain, s));
  fail_unless_equals_uint64 (fakecuda_ipc_records (), records);
  CUDA_OK (cudaEventRecord (e, s));
  CUDA_OK (cudaEventRecord (e, s)); /* the first has not run (lazy) */
  fail_unless_equals_uint64 (fakecuda_ipc_records (), records + 2);
  fail_unless_equals_uint64 (fakecuda_ipc_early_rerecords (), early + 1);
  CUDA_OK (cudaStreamSynchronize (s));
  CUDA_OK (cudaEventRecord (e, s)); /* the last one has completed */
  fail_unless_equals_uint64 (fakecuda_ipc_records (), records + 3);
  fail_unless_equals_uint64 (fakecuda_ipc_early_rerecords (), early + 1);
  CUDA_OK (cudaStreamSynchronize (s));
  CUDA_OK (cudaEventDestroy (plain));
  CUDA_OK (cudaStreamDestroy (s));
}
GST_END_TEST;

/* What may be exported: whole 2 MiB blocks, named by any address in them;
 * handles are for other processes; only interprocess events have one. */
GST_START_TEST (test_ipc_export_rules)
{
  guint8 * small = device_alloc (kBlock / 2);
  guint8 * d = device_alloc (2 * kBlock);
  cudaIpcMemHandle_t a, b;
  fail_unless_equals_int (cudaIpcGetMemHandle (&a, small), cudaErrorInvalidValue);
  (void)cudaGetLastError ();
  CUDA_OK (cudaIpcGetMemHandle (&a, d));
  CUDA_OK (cudaIpcGetMemHandle (&b, d + kBlock / 2));
  fail_unless (memcmp (&a, &b, sizeof a) == 0);
  void * p = NULL;
  fail_unless_equals_int (cudaIpcOpenMemHandle (&p, a, cudaIpcMemLazyEnablePeerAccess),
      cudaErrorInvalidValue);
  cudaIpcEventHandle_t eh;
  cudaEvent_t plain = new_event ();
  fail_unless_equals_int (
      cudaIpcGetEventHandle (&eh, plain), cudaErrorInvalidResourceHandle);
  cudaEvent_t timed = NULL;
  fail_unless_equals_int (
      cudaEventCreateWithFlags (&timed, cudaEventInterprocess), cudaErrorInvalidValue);
  (void)cudaGetLastError ();
  CUDA_OK (cudaFree (small));
  CUDA_OK (cudaFree (d));
}
GST_END_TEST;

/* A process killed before its stream ran past its record: the record never
 * completes for a query; a stream that waits for it on the GPU goes on
 * (FAKECUDA_DEAD_PEER_WAIT unset, as measured for a killed producer). */
GST_START_TEST (test_ipc_dead_owner)
{
  int fds[2];
  fail_unless (pipe (fds) == 0);
  pid_t pid = fork ();
  fail_unless (pid >= 0);
  if (pid == 0) {
    guint8 * dd = device_alloc (4096);
    cudaStream_t cs = new_stream ();
    cudaEvent_t ce = new_ipc_event ();
    cudaMemsetAsync (dd, 1, 4096, cs); /* never run: nobody asks before the kill */
    cudaEventRecord (ce, cs);
    cudaIpcEventHandle_t h;
    cudaIpcGetEventHandle (&h, ce);
    if (write (fds[1], &h, sizeof h) != (ssize_t)sizeof h)
      _exit (1);
    for (;;)
      pause ();
  }
  cudaIpcEventHandle_t h;
  fail_unless_equals_int (read (fds[0], &h, sizeof h), (int)sizeof h);
  cudaEvent_t ev = NULL;
  CUDA_OK (cudaIpcOpenEventHandle (&ev, h));
  kill (pid, SIGKILL);
  int status;
  fail_unless_equals_int (waitpid (pid, &status, 0), pid);
  for (int i = 0; i < 50; i++) {
    fail_unless_equals_int (cudaEventQuery (ev), cudaErrorNotReady);
    g_usleep (2000);
  }
  cudaStream_t s = new_stream ();
  CUDA_OK (cudaStreamWaitEvent (s, ev, 0));
  CUDA_OK (cudaStreamSynchronize (s));
  fail_unless_equals_int (cudaEventQuery (ev), cudaErrorNotReady);
  CUDA_OK (cudaStreamDestroy (s));
  close (fds[0]);
  close (fds[1]);
}
GST_END_TEST;

static Suite *
selftest_suite (void)
{
  Suite * s = suite_create ("fakecuda_selftest");
  TCase * tc = tcase_create ("fakecuda");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_lazy_until_waited_for);
  tcase_add_test (tc, test_wait_event_across_streams);
  tcase_add_test (tc, test_nested_run_keeps_order);
  tcase_add_test (tc, test_wait_event_across_devices);
  tcase_add_test (tc, test_event_of_other_device_rejected);
  tcase_add_test (tc, test_pageable_and_pinned_copies);
  tcase_add_test (tc, test_host_register);
  tcase_add_test (tc, test_destroyed_stream_work_runs);
  tcase_add_test (tc, test_polling_terminates);
  tcase_add_test (tc, test_per_thread_counts);
  tcase_add_test (tc, test_twin_copies_like_the_kernel);
  tcase_add_test (tc, test_twin_fault_is_sticky);
  tcase_add_test (tc, test_ipc_memory_and_event);
  tcase_add_test (tc, test_ipc_query_asks_the_owner);
  tcase_add_test (tc, test_ipc_record_counts);
  tcase_add_test (tc, test_ipc_export_rules);
  tcase_add_test (tc, test_ipc_dead_owner);
  return s;
}

int
main (int argc, char ** argv)
{
  g_setenv ("FAKECUDA_POLLS_BEFORE_PROGRESS", std::to_string (kPolls).c_str (), TRUE);
  gst_check_init (&argc, &argv);
  if (!fakecuda_present ()) {
    g_printerr ("not running on the fakecuda stand-in\n");
    return 1;
  }
  return gst_check_run_suite (selftest_suite (), "fakecuda_selftest", __FILE__);
}
