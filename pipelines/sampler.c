/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libgcs-sampler.so: a sampling CPU profiler for a process that runs a
 * pipeline, for machines without perf or Nsight Systems (the GPU machine
 * has neither). Loaded with LD_PRELOAD, it takes a call stack of whichever
 * thread is using the CPU, GCS_SAMPLER_HZ times per CPU second of that
 * thread (default 2000), and at exit writes each stack, after the name of
 * the thread it was taken on ("@name"), as "module+offset" addresses to
 * the file GCS_SAMPLER_OUT; pipelines/sampler_report.py names them.
 *
 *   GCS_SAMPLER_OUT=/tmp/s.txt LD_PRELOAD=libgcs-sampler.so gst-launch-1.0 ...
 *
 * CPU time, not wall time: a thread asleep in a host wait is not sampled,
 * a thread spinning in the CUDA driver is, and so is its time in the
 * kernel (a system call's time goes to its caller). Each thread has its
 * own clock (a perf event of its task clock, which the kernel lets a
 * process open on itself at perf_event_paranoid 2): threads that run in
 * bursts of microseconds between sleeps, as IPC and live pipelines' do,
 * are sampled in proportion to their CPU. Where perf events cannot be
 * opened, or with GCS_SAMPLER_CLOCK=process, the process's ITIMER_PROF
 * instead, which fires on the kernel's tick only while a thread runs: 4
 * samples of 0.2 s of such bursts on an H200's host (2026-12-02).
 *
 * A "%p" in GCS_SAMPLER_OUT is the process's id: a program that starts
 * others (gst-launch-1.0's plugin scanner, timeout) passes LD_PRELOAD on,
 * and each of them writes its own file; a process that took no sample
 * writes none.
 *
 * GCS_SAMPLER_DELAY_MS: CPU milliseconds of the process left unsampled
 * first (process clock only). GCS_SAMPLER_WINDOW=1: nothing sampled until
 * the program calls gcs_sampler_start(), up to gcs_sampler_stop()
 * (gcs-bench does, around its timed window). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

enum { kDepth = 24, kMaxSamples = 1 << 18, kMaxThreads = 1024 };

struct Sample {
  int depth;
  char thread[16];
  void * pc[kDepth];
};

static struct Sample * samples;
static atomic_int taken;
static _Thread_local int inside;

/* The per-thread clocks: one perf event a thread, enabled while sampling. */
static int per_thread;
static long period_us = 500;
static int sig_thread; /* a real-time signal: overflows queue, none lost */
static int thread_fds[kMaxThreads];
static atomic_int n_threads;
static atomic_int sampling;

static void
on_sample (int sig)
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

/* The calling thread's clock: a signal to this thread after each
 * period_us of its CPU time. False where perf events cannot be had. */
static int
open_thread_clock (void)
{
  struct perf_event_attr a;
  memset (&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_TASK_CLOCK;
  a.sample_period = (unsigned long long)period_us * 1000; /* ns */
  a.wakeup_events = 1;
  a.disabled = !atomic_load (&sampling);
  const int fd = (int)syscall (SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0)
    return 0;
  struct f_owner_ex owner = { F_OWNER_TID, (pid_t)syscall (SYS_gettid) };
  if (fcntl (fd, F_SETFL, O_ASYNC) != 0 || fcntl (fd, F_SETSIG, sig_thread) != 0 ||
      fcntl (fd, F_SETOWN_EX, &owner) != 0) {
    close (fd);
    return 0;
  }
  const int slot = atomic_fetch_add (&n_threads, 1);
  if (slot < kMaxThreads)
    thread_fds[slot] = fd;
  /* A thread past the table is sampled from the start, never stopped:
   * the file is written after stop all the same. */
  return 1;
}

static void
enable_thread_clocks (int on)
{
  int n = atomic_load (&n_threads);
  if (n > kMaxThreads)
    n = kMaxThreads;
  for (int i = 0; i < n; i++)
    ioctl (thread_fds[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

/* Every thread the process makes gets its clock first. */
struct Start {
  void * (*fn) (void *);
  void * arg;
};

static void *
start_thread_sampled (void * data)
{
  struct Start s = *(struct Start *)data;
  free (data);
  if (per_thread)
    open_thread_clock ();
  return s.fn (s.arg);
}

int
pthread_create (
    pthread_t * thread, const pthread_attr_t * attr, void * (*fn) (void *), void * arg)
{
  static int (*real) (pthread_t *, const pthread_attr_t *, void * (*)(void *), void *);
  if (!real)
    real = dlsym (RTLD_NEXT, "pthread_create");
  struct Start * s = per_thread ? malloc (sizeof *s) : NULL;
  if (!s)
    return real (thread, attr, fn, arg);
  s->fn = fn;
  s->arg = arg;
  const int err = real (thread, attr, start_thread_sampled, s);
  if (err)
    free (s);
  return err;
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
  atomic_store (&sampling, 0);
  if (per_thread) {
    enable_thread_clocks (0);
  } else {
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    setitimer (ITIMER_PROF, &off, NULL);
  }
  int n = atomic_load (&taken);
  if (n > kMaxSamples)
    n = kMaxSamples;
  if (n == 0)
    return;
  char file[4096];
  const char * p = strstr (path, "%p");
  if (p)
    snprintf (
        file, sizeof file, "%.*s%ld%s", (int)(p - path), path, (long)getpid (), p + 2);
  else
    snprintf (file, sizeof file, "%s", path);
  FILE * f = fopen (file, "w");
  if (!f)
    return;
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

/* Starts sampling. gcs-bench calls it (found with dlsym) when its timed
 * window begins; with GCS_SAMPLER_WINDOW=1 nothing is sampled before
 * that, so the samples are the window's and not the start-up's. */
void gcs_sampler_start (void);
void
gcs_sampler_start (void)
{
  if (!samples)
    return;
  atomic_store (&sampling, 1);
  if (per_thread) {
    enable_thread_clocks (1);
  } else {
    struct itimerval every = { { 0, period_us }, { 0, period_us } };
    setitimer (ITIMER_PROF, &every, NULL);
  }
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
  period_us = 1000000 / (hz > 0 ? hz : 2000);
  const char * window = getenv ("GCS_SAMPLER_WINDOW");
  const int wait_for_window = window && atoi (window);
  atomic_store (&sampling, !wait_for_window);
  const char * clock = getenv ("GCS_SAMPLER_CLOCK");
  sig_thread = SIGRTMIN + 3;
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_sample;
  sa.sa_flags = SA_RESTART;
  sigaction (sig_thread, &sa, NULL);
  sigaction (SIGPROF, &sa, NULL);
  per_thread = !(clock && strcmp (clock, "process") == 0) && open_thread_clock ();
  if (per_thread || wait_for_window)
    return;
  const char * delay_env = getenv ("GCS_SAMPLER_DELAY_MS");
  const long delay_us = delay_env ? atol (delay_env) * 1000 : 0;
  struct itimerval every = { { 0, period_us },
    { delay_us / 1000000, delay_us > 0 ? delay_us % 1000000 : period_us } };
  setitimer (ITIMER_PROF, &every, NULL);
}
