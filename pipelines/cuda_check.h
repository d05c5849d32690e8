/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* For the timing tools and probes: a failed CUDA call is named on stderr,
 * then CHECK returns 1 (from main ()) and CHECK_OR_EXIT ends the process
 * with status 2 (from any function: the IPC probes' consumer processes). */
#pragma once

#include <cstdio>
#include <cstdlib>

#include <cuda_runtime_api.h>

#define CHECK(call) \
  do { \
    cudaError_t e_ = (call); \
    if (e_ != cudaSuccess) { \
      std::fprintf (stderr, "%s: %s\n", #call, cudaGetErrorString (e_)); \
      return 1; \
    } \
  } while (0)

#define CHECK_OR_EXIT(call) \
  do { \
    cudaError_t e_ = (call); \
    if (e_ != cudaSuccess) { \
      std::fprintf ( \
          stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString (e_)); \
      std::exit (2); \
    } \
  } while (0)
