/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The example's own kernel, callable from C: the application's GPU work on a
 * frame it borrowed from a pipeline. Kept in a .cu file of its own so that
 * the application stays plain C and any C compiler builds it; nvcc only
 * compiles this one file. */
#pragma once

#include <stddef.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues on @stream: every RGBA pixel of the width x height region at @src
 * (rows @src_pitch bytes apart) written to @dst (rows @dst_pitch apart) with
 * its colour inverted and its alpha kept. Returns the launch status and
 * never blocks. */
cudaError_t example_invert_rgba (const unsigned char * src, size_t src_pitch,
    unsigned char * dst, size_t dst_pitch, unsigned width, unsigned height,
    cudaStream_t stream);

#ifdef __cplusplus
}
#endif
