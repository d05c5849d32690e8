/* An experiment for the benchmark, not part of the project: preloaded
 * (LD_PRELOAD) into gcs-bench, it adds cudaEventBlockingSync to every CUDA
 * event the process creates through cudaEventCreateWithFlags.
 *
 * cudaEventSynchronize busy-waits on an event created without that flag,
 * whatever cudaSetDeviceFlags says, so each host wait of the elements (the
 * download's, a pinned pool's) keeps a core spinning for as long as the copy
 * it waits for takes. Running a case with and without this shim shows what
 * blocking events would save in CPU time, and what they cost in frames/s,
 * before anyone changes the event pool. */
#define _GNU_SOURCE
#include <dlfcn.h>

#include <cuda_runtime_api.h>

typedef cudaError_t (*create_fn) (cudaEvent_t *, unsigned int);

cudaError_t
cudaEventCreateWithFlags (cudaEvent_t * event, unsigned int flags)
{
  static create_fn real;
  if (!real)
    real = (create_fn)dlsym (RTLD_NEXT, "cudaEventCreateWithFlags");
  if (!real)
    return cudaErrorUnknown;
  return real (event, flags | cudaEventBlockingSync);
}
