/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* For the kernel timing tools' main (): a failed CUDA call is named on
 * stderr and main returns 1. */
#pragma once

#include <cstdio>

#include <cuda_runtime_api.h>

#define CHECK(call) \
  do { \
    cudaError_t e_ = (call); \
    if (e_ != cudaSuccess) { \
      std::fprintf (stderr, "%s: %s\n", #call, cudaGetErrorString (e_)); \
      return 1; \
    } \
  } while (0)
