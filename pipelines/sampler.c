/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libgcs-sampler.so: a sampling CPU profiler for a process that runs a
 * pipeline, for machines without perf or Nsight Systems (the GPU machine
 * has neither). Loaded with LD_PRELOAD, it takes a call stack of whichever
 * thread is using the CPU, GCS_SAMPLER_HZ times per CPU second (default
 * 2000), and at exit writes each stack, after the name of the thread it
 * was taken on ("@name"), as "module+offset" addresses to the file
 * GCS_SAMPLER_OUT; pipelines/sampler_report.py names them.
 *
 *   GCS_SAMPLER_OUT=/tmp/s.txt LD_PRELOAD=libgcs-sampler.so gst-launch-1.0 ...
 *
 * CPU time, not wall time (ITIMER_PROF): a thread asleep in a host wait is
 * not sampled, a thread spinning in the CUDA driver is. GCS_SAMPLER_DELAY_MS:
 * CPU milliseconds of the process left unsampled first (its start-up:
 * registry, CUDA context). GCS_SAMPLER_WINDOW=1: nothing sampled until the
 * program calls gcs_sampler_start(), up to gcs_sampler_stop() (gcs-bench
 * does, around its timed window). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/time.h>

enum { kDepth = 24, kMaxSamples = 1 << 18 };

struct Sample {
  int depth;
  char thread[16];
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
  if (i < kMaxSamples) {
    /* prctl is a plain system call: safe in a signal handler. */
    prctl (PR_GET_NAME, samples[i].thread, 0, 0, 0);
    samples[i].depth = backtrace (samples[i].pc, kDepth);
  }
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

/* Stops sampling and writes the file, once: gcs-bench calls it (found with
 * dlsym) when its timed window ends, so teardown is not sampled; other
 * programs get it as a destructor. */
void gcs_sampler_stop (void);
void __attribute__ ((destructor)) gcs_sampler_stop (void)
{
  static atomic_int stopped;
  const char * path = getenv ("GCS_SAMPLER_OUT");
  if (!samples || !path || atomic_exchange (&stopped, 1))
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
    /* Spaces in a thread's name would split it: '_' instead. */
    char name[17];
    memcpy (name, samples[i].thread, 16);
    name[16] = 0;
    for (char * c = name; *c; c++)
      if (*c == ' ')
        *c = '_';
    fprintf (f, "@%s", name[0] ? name : "?");
    /* Frame 0 is this handler, frame 1 the signal trampoline. */
    for (int k = 2; k < samples[i].depth; k++)
      write_module_offset (f, samples[i].pc[k]);
    fputc ('\n', f);
  }
  fclose (f);
}

static long period_us = 500;

/* Arms the timer. gcs-bench calls it (found with dlsym) when its timed
 * window begins; with GCS_SAMPLER_WINDOW=1 nothing is sampled before
 * that, so the samples are the window's and not the start-up's. */
void gcs_sampler_start (void);
void
gcs_sampler_start (void)
{
  if (!samples)
    return;
  struct itimerval every = { { 0, period_us }, { 0, period_us } };
  setitimer (ITIMER_PROF, &every, NULL);
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
  period_us = 1000000 / (hz > 0 ? hz : 2000);
  const char * window = getenv ("GCS_SAMPLER_WINDOW");
  if (window && atoi (window))
    return;
  const char * delay_env = getenv ("GCS_SAMPLER_DELAY_MS");
  const long delay_us = delay_env ? atol (delay_env) * 1000 : 0;
  struct itimerval every = { { 0, period_us },
    { delay_us / 1000000, delay_us > 0 ? delay_us % 1000000 : period_us } };
  setitimer (ITIMER_PROF, &every, NULL);
}
