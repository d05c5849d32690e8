/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libfakecudart: copies and memsets, with CUDA's rules about when they
 * block the host.
 *
 * Copies that involve pinned or device memory only are lazy stream work:
 * they read and write the memory when they run, so a producer that rewrites
 * pinned memory before the copy has run is caught. A copy whose host side is
 * pageable is host-blocking, as in CUDA: host to device runs the stream's
 * queued work, stages the source at call time and writes the device lazily
 * from that staging copy; device to host runs the stream's work and the copy
 * before returning. The synchronous calls run on the legacy stream. */
#include "fakecudart.hpp"

#include <cstring>
#include <memory>
#include <vector>

namespace fakecuda {
namespace {

/* Bytes from the first to the last one touched. */
std::size_t
extent (std::size_t pitch, std::size_t width, std::size_t height)
{
  return pitch * (height - 1) + width;
}

void
copy_rows (const Copy2D & c)
{
  auto * d = static_cast<unsigned char *> (c.dst);
  auto * s = static_cast<const unsigned char *> (c.src);
  for (std::size_t y = 0; y < c.height; y++)
    std::memcpy (d + y * c.dpitch, s + y * c.spitch, c.width);
}

bool
is_host (MemKind k)
{
  return k != MemKind::kDevice;
}

/* The direction the pointers say; a given kind must agree with it. */
bool
kind_matches (cudaMemcpyKind kind, const Where & src, const Where & dst)
{
  const bool host_src = is_host (src.kind), host_dst = is_host (dst.kind);
  switch (kind) {
    case cudaMemcpyHostToHost:
      return host_src && host_dst;
    case cudaMemcpyHostToDevice:
      return host_src && !host_dst;
    case cudaMemcpyDeviceToHost:
      return !host_src && host_dst;
    case cudaMemcpyDeviceToDevice:
      return !host_src && !host_dst;
    default: /* cudaMemcpyDefault: inferred */
      return true;
  }
}

/* The work of a copy from a private staging copy of a pageable source. */
std::function<void ()>
from_snapshot (const Copy2D & c)
{
  auto staged = std::make_shared<std::vector<unsigned char>> (c.width * c.height);
  Copy2D pack{ staged->data (), c.width, c.src, c.spitch, c.width, c.height };
  copy_rows (pack);
  Copy2D later{ c.dst, c.dpitch, staged->data (), c.width, c.width, c.height };
  return [later, staged] { copy_rows (later); };
}

} // namespace

cudaError_t
copy (const char * call, const Copy2D & c, cudaMemcpyKind kind, cudaStream_t stream,
    bool synchronous)
{
  Stream * s = resolve (stream);
  if (!s)
    return cudaErrorInvalidResourceHandle;
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault)
    return cudaErrorInvalidMemcpyDirection;
  if (c.width > c.dpitch || c.width > c.spitch)
    return cudaErrorInvalidPitchValue;
  if (c.width == 0 || c.height == 0)
    return cudaSuccess;
  Where src = classify (c.src, extent (c.spitch, c.width, c.height));
  Where dst = classify (c.dst, extent (c.dpitch, c.width, c.height));
  if (!c.src || !c.dst || src.overflow || dst.overflow || !kind_matches (kind, src, dst))
    return cudaErrorInvalidValue;

  const bool pageable_src = src.kind == MemKind::kPageable;
  const bool pageable_dst = dst.kind == MemKind::kPageable;
  /* Pinned and device memory only: read and written when the copy runs. */
  if (!synchronous && !pageable_src && !pageable_dst) {
    enqueue_work (*s, [c] { copy_rows (c); });
    return cudaSuccess;
  }
  /* CUDA synchronises the stream before a pageable or synchronous copy. */
  count_host_block (call);
  run_all (*s);
  /* From pageable memory, CUDA returns once it has staged the source; the
   * device may be written later. */
  if (!synchronous && pageable_src && !pageable_dst) {
    enqueue_work (*s, from_snapshot (c));
    return cudaSuccess;
  }
  /* Everything else is done when the call returns. */
  enqueue_work (*s, [c] { copy_rows (c); });
  run_all (*s);
  return cudaSuccess;
}

namespace {

cudaError_t
set_bytes (const char * call, void * ptr, int value, std::size_t count,
    cudaStream_t stream, bool synchronous)
{
  Stream * s = resolve (stream);
  if (!s)
    return cudaErrorInvalidResourceHandle;
  if (count == 0)
    return cudaSuccess;
  Where w = classify (ptr, count);
  if (w.kind == MemKind::kPageable || w.overflow)
    return cudaErrorInvalidValue;
  if (synchronous) {
    count_host_block (call);
    run_all (*s);
  }
  enqueue_work (*s, [ptr, value, count] { std::memset (ptr, value, count); });
  if (synchronous)
    run_all (*s);
  return cudaSuccess;
}

} // namespace
} // namespace fakecuda

using namespace fakecuda;

cudaError_t
cudaMemcpyAsync (void * dst, const void * src, size_t count, enum cudaMemcpyKind kind,
    cudaStream_t stream)
{
  return call ([&] {
    return copy (
        "cudaMemcpyAsync", { dst, count, src, count, count, 1 }, kind, stream, false);
  });
}

cudaError_t
cudaMemcpy2DAsync (void * dst, size_t dpitch, const void * src, size_t spitch,
    size_t width, size_t height, enum cudaMemcpyKind kind, cudaStream_t stream)
{
  return call ([&] {
    return copy ("cudaMemcpy2DAsync", { dst, dpitch, src, spitch, width, height }, kind,
        stream, false);
  });
}

cudaError_t
cudaMemcpy (void * dst, const void * src, size_t count, enum cudaMemcpyKind kind)
{
  return call ([&] {
    return copy (
        "cudaMemcpy", { dst, count, src, count, count, 1 }, kind, cudaStreamLegacy, true);
  });
}

cudaError_t
cudaMemcpy2D (void * dst, size_t dpitch, const void * src, size_t spitch, size_t width,
    size_t height, enum cudaMemcpyKind kind)
{
  return call ([&] {
    return copy ("cudaMemcpy2D", { dst, dpitch, src, spitch, width, height }, kind,
        cudaStreamLegacy, true);
  });
}

/* Device to device between two named devices: both sides must be device
 * memory of the devices given. */
cudaError_t
cudaMemcpyPeerAsync (void * dst, int dstDevice, const void * src, int srcDevice,
    size_t count, cudaStream_t stream)
{
  return call ([&] {
    if (!valid_device (dstDevice) || !valid_device (srcDevice))
      return cudaErrorInvalidDevice;
    if (count == 0)
      return resolve (stream) ? cudaSuccess : cudaErrorInvalidResourceHandle;
    Where d = classify (dst, count), s = classify (src, count);
    if (d.kind != MemKind::kDevice || d.device != dstDevice ||
        s.kind != MemKind::kDevice || s.device != srcDevice)
      return cudaErrorInvalidValue;
    return copy ("cudaMemcpyPeerAsync", { dst, count, src, count, count, 1 },
        cudaMemcpyDeviceToDevice, stream, false);
  });
}

cudaError_t
cudaMemsetAsync (void * devPtr, int value, size_t count, cudaStream_t stream)
{
  return call (
      [&] { return set_bytes ("cudaMemsetAsync", devPtr, value, count, stream, false); });
}

cudaError_t
cudaMemset (void * devPtr, int value, size_t count)
{
  return call ([&] {
    return set_bytes ("cudaMemset", devPtr, value, count, cudaStreamLegacy, true);
  });
}
