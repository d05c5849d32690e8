/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libfakecudart: allocations. Host memory stands in for device memory; a
 * registry of allocations tells device memory (of which device), pinned
 * host memory and (by elimination) pageable host memory apart. */
#include "fakecudart.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstdio>
#include <cstring>

namespace fakecuda {

Where
classify (const void * ptr, std::size_t bytes)
{
  Where w;
  const auto & allocs = state ().allocs;
  const auto p = reinterpret_cast<std::uintptr_t> (ptr);
  auto it = allocs.upper_bound (p);
  if (it == allocs.begin ())
    return w;
  const Alloc & a = std::prev (it)->second;
  if (p - a.start >= a.size)
    return w;
  w.kind = a.kind;
  w.device = a.device;
  w.alloc = &a;
  w.overflow = bytes > a.size - (p - a.start);
  return w;
}

namespace {

std::size_t
round_up (std::size_t n, std::size_t to)
{
  return (n + to - 1) / to * to;
}

/* Aligned, junk-filled host memory; nullptr when it cannot be had. */
void *
junk_alloc (std::size_t size, std::size_t align)
{
  void * p = nullptr;
  if (posix_memalign (&p, align, round_up (size, align)) != 0)
    return nullptr;
  std::memset (p, kJunk, size);
  return p;
}

void
add (
    void * p, std::size_t size, MemKind kind, int device, unsigned flags, bool registered)
{
  Alloc a;
  a.start = reinterpret_cast<std::uintptr_t> (p);
  a.size = size;
  a.kind = kind;
  a.device = device;
  a.flags = flags;
  a.registered = registered;
  state ().allocs[a.start] = a;
}

/* The allocation of `kind` that starts at `p`, or nullptr. */
const Alloc *
starting_at (const void * p, MemKind kind)
{
  Where w = classify (p, 1);
  if (!w.alloc || w.kind != kind ||
      w.alloc->start != reinterpret_cast<std::uintptr_t> (p))
    return nullptr;
  return w.alloc;
}

/* cudaFree, cudaFreeHost and cudaHostUnregister wait for the device: all
 * pending work of the memory's device and of the current one runs first. */
void
synchronise_for_free (const char * call, int device)
{
  count_host_block (call);
  run_device (device);
  if (valid_device (current_device ()))
    run_device (current_device ());
}

/* Whether every page of [p, p + size) is mapped writable (/proc/self/maps):
 * CUDA registers read-only pages only with cudaHostRegisterReadOnly. */
bool
pages_writable (std::uintptr_t p, std::size_t size)
{
  std::FILE * maps = std::fopen ("/proc/self/maps", "r");
  if (!maps)
    return true;
  char line[512];
  bool writable = true;
  while (writable && std::fgets (line, sizeof line, maps)) {
    unsigned long start = 0, end = 0;
    char perms[5] = {};
    if (std::sscanf (line, "%lx-%lx %4s", &start, &end, perms) == 3 && start < p + size &&
        end > p)
      writable = perms[1] == 'w';
  }
  std::fclose (maps);
  return writable;
}

cudaError_t
host_alloc (void ** ptr, std::size_t size, unsigned flags)
{
  const unsigned known =
      cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined;
  if (!ptr || (flags & ~known))
    return cudaErrorInvalidValue;
  *ptr = nullptr;
  State & st = state ();
  if (size > kPinnedMemoryBytes - st.pinned_bytes)
    return cudaErrorMemoryAllocation;
  void * p = junk_alloc (size ? size : 1, 4096); /* page-aligned, as CUDA's */
  if (!p)
    return cudaErrorMemoryAllocation;
  add (p, size ? size : 1, MemKind::kPinned, current_device (), flags, false);
  st.pinned_bytes += size;
  *ptr = p;
  return cudaSuccess;
}

} // namespace
} // namespace fakecuda

using namespace fakecuda;

cudaError_t
cudaMalloc (void ** devPtr, size_t size)
{
  return call ([&] {
    if (!devPtr)
      return cudaErrorInvalidValue;
    *devPtr = nullptr;
    const int device = current_device ();
    if (!valid_device (device))
      return cudaErrorInvalidDevice;
    if (size == 0)
      return cudaSuccess; /* CUDA hands out nullptr for no bytes */
    State & st = state ();
    if (size > kDeviceMemoryBytes - st.device_bytes[device])
      return cudaErrorMemoryAllocation;
    /* Whole 2 MiB blocks may be exported: in shared memory. */
    int fd = -1;
    void * p = size % kIpcBlock == 0
                   ? shared_alloc (size, &fd)
                   : junk_alloc (size, 256); /* cudaMalloc aligns to 256 */
    if (!p)
      return cudaErrorMemoryAllocation;
    add (p, size, MemKind::kDevice, device, 0, false);
    static std::uint64_t serial = 0;
    Alloc & a = st.allocs[reinterpret_cast<std::uintptr_t> (p)];
    a.fd = fd;
    a.serial = ++serial;
    st.device_bytes[device] += size;
    *devPtr = p;
    return cudaSuccess;
  });
}

cudaError_t
cudaFree (void * devPtr)
{
  return call ([&] {
    if (!devPtr)
      return cudaSuccess;
    const Alloc * a = starting_at (devPtr, MemKind::kDevice);
    if (!a || a->imported) /* another process's: cudaIpcCloseMemHandle */
      return cudaErrorInvalidValue;
    const Alloc freed = *a;
    synchronise_for_free ("cudaFree", freed.device);
    state ().allocs.erase (freed.start);
    state ().device_bytes[freed.device] -= freed.size;
    if (freed.fd >= 0) {
      /* Shared: another process may still map it (as CUDA, which frees it
       * only when the importers have closed it, or undefined before). */
      munmap (devPtr, freed.size);
      close (freed.fd);
      return cudaSuccess;
    }
    /* Really freed: AddressSanitizer reports later use, and without it the
     * junk makes stale reads show. */
    std::memset (devPtr, 0xDD, freed.size);
    std::free (devPtr);
    return cudaSuccess;
  });
}

cudaError_t
cudaHostAlloc (void ** pHost, size_t size, unsigned int flags)
{
  return call ([&] { return host_alloc (pHost, size, flags); });
}

cudaError_t
cudaMallocHost (void ** ptr, size_t size)
{
  return call ([&] { return host_alloc (ptr, size, cudaHostAllocDefault); });
}

cudaError_t
cudaFreeHost (void * ptr)
{
  return call ([&] {
    if (!ptr)
      return cudaSuccess;
    const Alloc * a = starting_at (ptr, MemKind::kPinned);
    if (!a || a->registered)
      return cudaErrorInvalidValue;
    const Alloc freed = *a;
    synchronise_for_free ("cudaFreeHost", freed.device);
    state ().allocs.erase (freed.start);
    state ().pinned_bytes -= freed.size;
    std::memset (ptr, 0xDD, freed.size);
    std::free (ptr);
    return cudaSuccess;
  });
}

cudaError_t
cudaHostRegister (void * ptr, size_t size, unsigned int flags)
{
  return call ([&] {
    const unsigned known = cudaHostRegisterPortable | cudaHostRegisterMapped |
                           cudaHostRegisterIoMemory | cudaHostRegisterReadOnly;
    if (!ptr || size == 0 || (flags & ~known))
      return cudaErrorInvalidValue;
    if (!(flags & cudaHostRegisterReadOnly) &&
        !pages_writable (reinterpret_cast<std::uintptr_t> (ptr), size))
      return cudaErrorInvalidValue;
    /* Overlap with any allocation: its first or last byte lies in one, or
     * one starts inside the range. */
    const auto p = reinterpret_cast<std::uintptr_t> (ptr);
    auto & allocs = state ().allocs;
    auto next = allocs.lower_bound (p);
    if (classify (ptr, 1).alloc ||
        classify (reinterpret_cast<const char *> (ptr) + size - 1, 1).alloc ||
        (next != allocs.end () && next->first < p + size))
      return cudaErrorHostMemoryAlreadyRegistered;
    add (ptr, size, MemKind::kPinned, current_device (), flags, true);
    return cudaSuccess;
  });
}

cudaError_t
cudaHostUnregister (void * ptr)
{
  return call ([&] {
    const Alloc * a = starting_at (ptr, MemKind::kPinned);
    if (!a || !a->registered)
      return cudaErrorHostMemoryNotRegistered;
    const Alloc gone = *a;
    synchronise_for_free ("cudaHostUnregister", gone.device);
    state ().allocs.erase (gone.start);
    return cudaSuccess;
  });
}

cudaError_t
cudaHostGetFlags (unsigned int * pFlags, void * pHost)
{
  return call ([&] {
    Where w = classify (pHost, 1);
    if (!pFlags || w.kind != MemKind::kPinned)
      return cudaErrorInvalidValue;
    *pFlags = w.alloc->flags;
    return cudaSuccess;
  });
}

/* Pinned memory is mapped at its own address (UVA). */
cudaError_t
cudaHostGetDevicePointer (void ** pDevice, void * pHost, unsigned int flags)
{
  return call ([&] {
    Where w = classify (pHost, 1);
    if (!pDevice || flags != 0 || w.kind != MemKind::kPinned)
      return cudaErrorInvalidValue;
    *pDevice = pHost;
    return cudaSuccess;
  });
}

/* As CUDA 11 and later: unregistered host memory is no error. */
cudaError_t
cudaPointerGetAttributes (struct cudaPointerAttributes * attributes, const void * ptr)
{
  return call ([&] {
    if (!attributes)
      return cudaErrorInvalidValue;
    *attributes = cudaPointerAttributes{};
    Where w = classify (ptr, 1);
    void * p = const_cast<void *> (ptr);
    switch (w.kind) {
      case MemKind::kDevice:
        attributes->type = cudaMemoryTypeDevice;
        attributes->device = w.device;
        attributes->devicePointer = p;
        break;
      case MemKind::kPinned:
        attributes->type = cudaMemoryTypeHost;
        attributes->device = w.device;
        attributes->devicePointer = p; /* mapped at the same address (UVA) */
        attributes->hostPointer = p;
        break;
      case MemKind::kPageable:
        attributes->type = cudaMemoryTypeUnregistered;
        attributes->device = cudaInvalidDeviceId;
        break;
    }
    return cudaSuccess;
  });
}
