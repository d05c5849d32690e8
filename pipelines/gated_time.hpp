/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GPU time of work enqueued one piece at a time on an idle stream, each
 * piece behind a stream gate as the cudastreams tracer times a frame
 * (plugins/tracer/gstcsstreamgate.hpp): the stream waits until the start
 * event, the work and the end event are all enqueued, so the span is the
 * GPU's execution of that one piece, without the host's launch and
 * without the overlap of back-to-back launches. The truth the tracer's
 * GPU time per frame is checked against (scripts/gpu-tracer.sh). */
#pragma once

#include <cuda_runtime_api.h>

#include <functional>

/* Whether `e` is cudaSuccess; else says what failed on stderr. */
bool check (cudaError_t e, const char * what);

struct GatedTime {
  double median_us = 0, mean_us = 0;
  bool gated = false; /* every piece ran behind a gate (else: launch included) */
};

/* Runs `work` (which enqueues one piece on `stream`, of the current device
 * `device`, and says whether it could) `n` times, after 5 untimed ones,
 * waiting for each before the next. False where CUDA or the work fails. */
bool time_one_at_a_time (int device, cudaStream_t stream, int n,
    const std::function<bool ()> & work, GatedTime * out);
