/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libgcs-sampler.so: a sampling CPU profiler for a process that runs a
 * pipeline, for machines without perf or Nsight Systems (the GPU machine
 * has neither). Loaded with LD_PRELOAD, it takes a call stack of whichever
 * thread is using the CPU, GCS_SAMPLER_HZ times per CPU second (default
 * 2000), and at exit writes each stack's addresses as "module+offset" to
 * the file GCS_SAMPLER_OUT; pipelines/sampler_report.py names them.
 *
 *   GCS_SAMPLER_OUT=/tmp/s.txt LD_PRELOAD=libgcs-sampler.so gst-launch-1.0 ...
 *
 * CPU time, not wall time (ITIMER_PROF): a thread asleep in a host wait is
 * not sampled, a thread spinning in the CUDA driver is. GCS_SAMPLER_DELAY_MS:
 * CPU milliseconds of the process left unsampled first (its start-up:
 * registry, CUDA context). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

enum { kDepth = 24, kMaxSamples = 1 << 18 };

struct Sample {
  int depth;
  void * pc[kDepth];
};

static struct Sample * samples;
static atomic_int taken;
static _Thread_local int inside;

static void
on_prof (int sig)
{
  (void)sig;
  if (inside)
    return;
  inside = 1;
  const int i = atomic_fetch_add (&taken, 1);
  if (i < kMaxSamples)
    samples[i].depth = backtrace (samples[i].pc, kDepth);
  inside = 0;
}

static void
write_module_offset (FILE * f, void * pc)
{
  Dl_info info;
  if (dladdr (pc, &info) && info.dli_fname)
    fprintf (f, " %s+0x%lx", info.dli_fname,
        (unsigned long)((char *)pc - (char *)info.dli_fbase));
  else
    fprintf (f, " ?+0x%lx", (unsigned long)pc);
}

static void __attribute__ ((destructor)) stop (void)
{
  const char * path = getenv ("GCS_SAMPLER_OUT");
  if (!samples || !path)
    return;
  struct itimerval off = { { 0, 0 }, { 0, 0 } };
  setitimer (ITIMER_PROF, &off, NULL);
  signal (SIGPROF, SIG_IGN);
  FILE * f = fopen (path, "w");
  if (!f)
    return;
  int n = atomic_load (&taken);
  if (n > kMaxSamples)
    n = kMaxSamples;
  for (int i = 0; i < n; i++) {
    /* Frame 0 is this handler, frame 1 the signal trampoline. */
    for (int k = 2; k < samples[i].depth; k++)
      write_module_offset (f, samples[i].pc[k]);
    fputc ('\n', f);
  }
  fclose (f);
}

static void __attribute__ ((constructor)) start (void)
{
  if (!getenv ("GCS_SAMPLER_OUT"))
    return;
  samples = calloc (kMaxSamples, sizeof *samples);
  if (!samples)
    return;
  /* The first backtrace() loads the unwinder: not in a signal handler. */
  void * warm[2];
  backtrace (warm, 2);
  const char * hz_env = getenv ("GCS_SAMPLER_HZ");
  const long hz = hz_env ? atol (hz_env) : 2000;
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_prof;
  sa.sa_flags = SA_RESTART;
  sigaction (SIGPROF, &sa, NULL);
  const long us = 1000000 / (hz > 0 ? hz : 2000);
  const char * delay_env = getenv ("GCS_SAMPLER_DELAY_MS");
  const long delay_us = delay_env ? atol (delay_env) * 1000 : 0;
  struct itimerval every = { { 0, us },
    { delay_us / 1000000, delay_us > 0 ? delay_us % 1000000 : us } };
  setitimer (ITIMER_PROF, &every, NULL);
}
