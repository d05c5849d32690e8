/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CPU twin of examples/c/invert.cu for the fakecuda stand-in: the same
 * launcher, the same bytes written, enqueued as lazy stream work, so the
 * example's ordering (waits on the frame's event, reader registration, the
 * release stream of its wrapped memory) is checked without a GPU. Memory the
 * kernel may not touch gives the sticky cudaErrorIllegalAddress, as a
 * faulting kernel does. */
#include "invert.h"

#include "fakecuda.h"

namespace {

struct Launch {
  const unsigned char * src;
  size_t src_pitch;
  unsigned char * dst;
  size_t dst_pitch;
  unsigned width, height;
};

bool
may_access (const Launch & l)
{
  for (unsigned y = 0; y < l.height; y++) {
    if (!fakecuda_kernel_may_access (l.src + y * l.src_pitch, 4 * (size_t)l.width) ||
        !fakecuda_kernel_may_access (l.dst + y * l.dst_pitch, 4 * (size_t)l.width))
      return false;
  }
  return true;
}

void
run (void * data)
{
  const auto & l = *static_cast<const Launch *> (data);
  if (!may_access (l)) {
    fakecuda_fault ();
    return;
  }
  for (unsigned y = 0; y < l.height; y++) {
    const unsigned char * s = l.src + y * l.src_pitch;
    unsigned char * d = l.dst + y * l.dst_pitch;
    for (unsigned x = 0; x < 4 * l.width; x += 4) {
      d[x] = 255 - s[x];
      d[x + 1] = 255 - s[x + 1];
      d[x + 2] = 255 - s[x + 2];
      d[x + 3] = s[x + 3];
    }
  }
}

void
release (void * data)
{
  delete static_cast<Launch *> (data);
}

} // namespace

extern "C" cudaError_t
example_invert_rgba (const unsigned char * src, size_t src_pitch, unsigned char * dst,
    size_t dst_pitch, unsigned width, unsigned height, cudaStream_t stream)
{
  if (width == 0 || height == 0)
    return cudaSuccess;
  auto * launch = new Launch{ src, src_pitch, dst, dst_pitch, width, height };
  (void)fakecuda_launch (stream, run, launch, release);
  return cudaGetLastError ();
}
