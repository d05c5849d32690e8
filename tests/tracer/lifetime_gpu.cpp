/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The tracer keeps nothing of a pipeline past it: a buffer's arrival at an
// element of another plugin, kept per streaming thread until the element
// pushes from that thread, is never taken by an element that pushes from a
// thread of its own (a queue). When that thread later runs the queue of the
// next run, or of a pipeline made after the first was freed, an arrival of
// the earlier run must not count as the queue's: it would time the queue
// from a buffer of another run, and read a pad that may be gone.
//
// The tasks run on a task pool that hands out the thread that finished
// last first: a pipeline's tasks stop sinks first, so the source's thread
// is the next run's queue thread.
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gst/check/gstcheck.h>

#include "testutil.h"

/* --- a task pool whose threads are reused, the last free one first ------ */

namespace {
struct Job {
  GstTaskPoolFunction func;
  gpointer data;
  bool done = false;
};

class Lifo {
public:
  ~Lifo ();
  Job * push (GstTaskPoolFunction func, gpointer data);
  void join (Job * job);
  // The worker (0, 1, ...) each task's function ran on, in push order, with
  // the name of the element that owns the task.
  std::vector<std::pair<std::string, int>> ran;
  std::map<gpointer, std::string> owners; // task -> element

private:
  struct Worker {
    explicit Worker (int i) : index (i) {}
    int index;
    Job * job = nullptr;
    bool quit = false;
    std::thread thread;
  };
  void loop (Worker * w);
  std::mutex lock_;
  std::condition_variable cond_;
  std::vector<Worker *> all_, idle_;
};

Lifo::~Lifo ()
{
  {
    std::lock_guard<std::mutex> hold (lock_);
    for (Worker * w : all_)
      w->quit = true;
  }
  cond_.notify_all ();
  for (Worker * w : all_) {
    w->thread.join ();
    delete w;
  }
}

Job *
Lifo::push (GstTaskPoolFunction func, gpointer data)
{
  auto * job = new Job{ func, data };
  std::lock_guard<std::mutex> hold (lock_);
  Worker * w;
  if (idle_.empty ()) {
    w = new Worker ((int)all_.size ());
    all_.push_back (w);
    w->thread = std::thread (&Lifo::loop, this, w);
  } else {
    w = idle_.back ();
    idle_.pop_back ();
  }
  w->job = job;
  ran.emplace_back (owners[data], w->index);
  cond_.notify_all ();
  return job;
}

void
Lifo::loop (Worker * w)
{
  std::unique_lock<std::mutex> hold (lock_);
  for (;;) {
    cond_.wait (hold, [w] { return w->job || w->quit; });
    if (w->quit)
      return;
    Job * job = w->job;
    hold.unlock ();
    job->func (job->data);
    hold.lock ();
    /* Free again before the joiner learns the task ended. */
    w->job = nullptr;
    idle_.push_back (w);
    job->done = true;
    cond_.notify_all ();
  }
}

void
Lifo::join (Job * job)
{
  std::unique_lock<std::mutex> hold (lock_);
  cond_.wait (hold, [job] { return job->done; });
  delete job;
}
} // namespace

typedef struct {
  GstTaskPool parent;
  Lifo * lifo;
} LifoPool;
typedef struct {
  GstTaskPoolClass parent_class;
} LifoPoolClass;

G_DEFINE_TYPE (LifoPool, lifo_pool, GST_TYPE_TASK_POOL);

static gpointer
lifo_pool_push (GstTaskPool * pool, GstTaskPoolFunction func, gpointer data, GError **)
{
  return ((LifoPool *)pool)->lifo->push (func, data);
}

static void
lifo_pool_join (GstTaskPool * pool, gpointer id)
{
  ((LifoPool *)pool)->lifo->join (static_cast<Job *> (id));
}

static void
lifo_pool_finalize (GObject * object)
{
  delete ((LifoPool *)object)->lifo;
  G_OBJECT_CLASS (lifo_pool_parent_class)->finalize (object);
}

static void
lifo_pool_class_init (LifoPoolClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = lifo_pool_finalize;
  GST_TASK_POOL_CLASS (klass)->push = lifo_pool_push;
  GST_TASK_POOL_CLASS (klass)->join = lifo_pool_join;
}

static void
lifo_pool_init (LifoPool * self)
{
  self->lifo = new Lifo ();
}

/* Every task of the pipeline on `data`, a LifoPool (the stream-status
 * message of a task's creation is posted from the thread creating it). */
static GstBusSyncReply
use_pool (GstBus *, GstMessage * msg, gpointer data)
{
  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_STREAM_STATUS)
    return GST_BUS_PASS;
  GstStreamStatusType type;
  GstElement * owner = NULL;
  gst_message_parse_stream_status (msg, &type, &owner);
  const GValue * v = gst_message_get_stream_status_object (msg);
  if (type == GST_STREAM_STATUS_TYPE_CREATE && v && G_VALUE_HOLDS (v, GST_TYPE_TASK)) {
    auto * pool = static_cast<LifoPool *> (data);
    GstTask * task = GST_TASK (g_value_get_object (v));
    pool->lifo->owners[task] = GST_OBJECT_NAME (owner);
    gst_task_set_pool (task, GST_TASK_POOL (pool));
  }
  return GST_BUS_PASS;
}

/* --- the tracer's records ----------------------------------------------- */

static std::mutex records_lock;
static std::vector<std::string> records; /* cudastreams-cpu and -summary */

static void
keep_records (GstDebugCategory * category, GstDebugLevel, const gchar *, const gchar *,
    gint, GObject *, GstDebugMessage * message, gpointer)
{
  if (strcmp (gst_debug_category_get_name (category), "GST_TRACER") != 0)
    return;
  const gchar * m = gst_debug_message_get (message);
  if (g_str_has_prefix (m, "cudastreams-cpu") ||
      g_str_has_prefix (m, "cudastreams-summary")) {
    std::lock_guard<std::mutex> hold (records_lock);
    records.push_back (m);
  }
}

/* The records that name a queue (or the multiqueue mq): CPU time of its
 * sink pad, or its summary. */
static std::vector<std::string>
queue_records (const char * kind)
{
  std::lock_guard<std::mutex> hold (records_lock);
  std::vector<std::string> out;
  for (const std::string & r : records)
    if (r.find (kind) == 0 && (r.find ("=(string)queue") != std::string::npos ||
                                  r.find ("=(string)mq") != std::string::npos))
      out.push_back (r);
  return out;
}

static std::string
joined (const std::vector<std::string> & lines)
{
  std::string out;
  for (const std::string & l : lines)
    out += l + "\n";
  return out;
}

static void
start_capturing ()
{
  records.clear ();
  gst_debug_set_threshold_for_name ("GST_TRACER", GST_LEVEL_TRACE);
  gst_debug_remove_log_function (gst_debug_log_default);
  gst_debug_add_log_function (keep_records, NULL, NULL);
}

static void
stop_capturing ()
{
  gst_debug_remove_log_function (keep_records);
  gst_debug_add_log_function (gst_debug_log_default, NULL, NULL);
  gst_debug_unset_threshold_for_name ("GST_TRACER");
}

/* `queue` (a queue or a multiqueue) between a source and one of ours (the
 * tracer watches pipelines that hold one of ours), the tasks on `pool`. */
static GstElement *
queue_pipeline (const char * queue, int frames, LifoPool * pool)
{
  gchar * desc =
      g_strdup_printf ("videotestsrc num-buffers=%d ! "
                       "capsfilter name=caps caps=video/x-raw,format=NV12,"
                       "width=64,height=48 ! %s ! cudaupload name=up ! fakesink",
          frames, queue);
  GstElement * pipeline = gst_parse_launch (desc, NULL);
  fail_unless (pipeline != NULL, "%s", desc);
  g_free (desc);
  /* run_to_eos() calls it from the bus's sync handler, which it sets */
  testutil::set_bus_handler (pipeline, use_pool, pool);
  return pipeline;
}

/* Which worker the task of the element named with `prefix` got, for each
 * run, in order. */
static std::vector<int>
workers_of (LifoPool * pool, const char * prefix)
{
  std::vector<int> out;
  for (auto & [owner, worker] : pool->lifo->ran)
    if (g_str_has_prefix (owner.c_str (), prefix))
      out.push_back (worker);
  return out;
}

/* One pipeline run twice: the queue's task of the second run runs on the
 * thread the source pushed from in the first, where the queue's arrivals of
 * the first run were left. Fewer frames than the tracer needs to see that
 * the queue pushes from a thread of its own: its probes stay. */
GST_START_TEST (test_next_run_ignores_earlier_arrivals)
{
  auto * pool = static_cast<LifoPool *> (g_object_new (lifo_pool_get_type (), NULL));
  start_capturing ();
  GstElement * pipeline = queue_pipeline ("queue", 8, pool);
  testutil::run_to_eos (pipeline, "first run");
  testutil::run_to_eos (pipeline, "second run");
  gst_object_unref (pipeline);
  stop_capturing ();
  const std::vector<int> src = workers_of (pool, "videotestsrc");
  const std::vector<int> queue = workers_of (pool, "queue");
  gst_object_unref (pool);

  fail_unless (src.size () == 2 && queue.size () == 2, "a task each per run");
  fail_unless (queue[1] == src[0],
      "the second run's queue pushes from the first run's source thread (%d, %d)",
      queue[1], src[0]);
  const std::vector<std::string> cpu = queue_records ("cudastreams-cpu");
  fail_unless (cpu.empty (),
      "no CPU time for the queue, which pushes from a thread "
      "of its own; got:\n%s",
      joined (cpu).c_str ());
}
GST_END_TEST;

/* The same with a multiqueue whose request pads are swapped between the
 * runs: the first run's arrivals name a sink pad that is freed by the
 * second (a read of freed memory under the sanitizers). */
GST_START_TEST (test_next_run_ignores_released_pads)
{
  auto * pool = static_cast<LifoPool *> (g_object_new (lifo_pool_get_type (), NULL));
  start_capturing ();
  GstElement * pipeline = queue_pipeline ("multiqueue name=mq", 8, pool);
  testutil::run_to_eos (pipeline, "first run");
  GstElement * mq = testutil::by_name (pipeline, "mq");
  GstElement * caps = testutil::by_name (pipeline, "caps");
  GstElement * up = testutil::by_name (pipeline, "up");
  fail_unless (mq && caps && up);
  GstPad * sink = gst_element_get_static_pad (mq, "sink_0");
  gst_element_unlink (caps, mq);
  gst_element_unlink (mq, up);
  gst_element_release_request_pad (mq, sink);
  gst_object_unref (sink); /* sink_0 and src_0 are freed */
  fail_unless (gst_element_link_pads (caps, "src", mq, "sink_1"));
  fail_unless (gst_element_link_pads (mq, "src_1", up, "sink"));
  testutil::run_to_eos (pipeline, "second run");
  gst_object_unref (mq);
  gst_object_unref (caps);
  gst_object_unref (up);
  gst_object_unref (pipeline);
  stop_capturing ();
  const std::vector<int> src = workers_of (pool, "videotestsrc");
  const std::vector<int> queue = workers_of (pool, "mq");
  gst_object_unref (pool);

  fail_unless (src.size () == 2 && queue.size () == 2, "a task each per run");
  fail_unless (queue[1] == src[0],
      "the second run's multiqueue pushes from the first run's source thread (%d, %d)",
      queue[1], src[0]);
  const std::vector<std::string> cpu = queue_records ("cudastreams-cpu");
  fail_unless (
      cpu.empty (), "no CPU time for the multiqueue; got:\n%s", joined (cpu).c_str ());
}
GST_END_TEST;

/* Pipelines made one after the other, each freed before the next: each
 * queue's task runs on the thread the previous source pushed from, and
 * where the allocator gives the new queue's probes the memory of the
 * previous queue's, an arrival keyed by their address would be the new
 * queue's, with the previous queue's freed pad. */
GST_START_TEST (test_later_pipelines_ignore_freed_ones)
{
  auto * pool = static_cast<LifoPool *> (g_object_new (lifo_pool_get_type (), NULL));
  start_capturing ();
  constexpr int kPipelines = 6;
  for (int i = 0; i < kPipelines; i++) {
    GstElement * pipeline = queue_pipeline ("queue", 40, pool);
    testutil::run_to_eos (pipeline, "a pipeline");
    gst_object_unref (pipeline);
  }
  stop_capturing ();
  const std::vector<int> src = workers_of (pool, "videotestsrc");
  const std::vector<int> queue = workers_of (pool, "queue");
  gst_object_unref (pool);

  fail_unless (src.size () == kPipelines && queue.size () == kPipelines);
  for (int i = 1; i < kPipelines; i++)
    fail_unless (queue[i] == src[i - 1],
        "pipeline %d's queue pushes from the previous source's thread", i);
  const std::vector<std::string> cpu = queue_records ("cudastreams-cpu");
  fail_unless (cpu.empty (), "no CPU time for a queue; got:\n%s", joined (cpu).c_str ());
  /* 40 pushes from its own thread, none after an arrival: each queue is
   * found out, and says so. */
  const std::vector<std::string> rows = queue_records ("cudastreams-summary");
  fail_unless (
      rows.size () == kPipelines, "a summary row per queue:\n%s", joined (rows).c_str ());
  for (const std::string & r : rows)
    fail_unless (r.find ("pushes from a thread of its own") != std::string::npos,
        "each queue is not timed: %s", r.c_str ());
}
GST_END_TEST;

static Suite *
tracer_lifetime_gpu_suite (void)
{
  Suite * s = suite_create ("tracer_lifetime_gpu");
  TCase * tc = tcase_create ("gpu");
  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_next_run_ignores_earlier_arrivals);
  tcase_add_test (tc, test_next_run_ignores_released_pads);
  tcase_add_test (tc, test_later_pipelines_ignore_freed_ones);
  return s;
}

/* The tracer is made at gst_init, from GST_TRACERS: added to what the
 * environment asks for (the leaks tracer). */
int
main (int argc, char ** argv)
{
  const gchar * env = g_getenv ("GST_TRACERS");
  gchar * tracers = g_strdup_printf ("%s%scudastreamstrace(print=false)",
      env && *env ? env : "", env && *env ? ";" : "");
  g_setenv ("GST_TRACERS", tracers, TRUE);
  g_free (tracers);
  gst_check_init (&argc, &argv);
  testutil::require_gpu_or_skip ("tracer_lifetime_gpu");
  return gst_check_run_suite (
      tracer_lifetime_gpu_suite (), "tracer_lifetime_gpu", __FILE__);
}
