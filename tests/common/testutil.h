/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Helpers shared by the tests: GPU detection, harnesses and pipelines of our
// elements, capturing the frames that enter or leave an element, CPU
// references, and comparing frames pixel by pixel.
//
// The helpers that check something fail the test where they find the
// failure (gst-check's fail_unless works inside them); `what` names the case
// (format, size, crop, path) in their messages. Call them from the test's
// thread only: a failure on a streaming thread cannot stop the test.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <gst/gst.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

namespace testutil {

/* --- the GPU ------------------------------------------------------------ */

// True when a CUDA device can be used; otherwise `why` says why not.
bool gpu_available (std::string * why);

// For GPU test binaries: exits with 77 (meson's "skipped") and the reason
// when there is no usable GPU.
void require_gpu_or_skip (const char * binary);

// True on the fakecuda stand-in for the CUDA runtime (tests/fakecuda): no
// GPU, and stream work runs only when something waits for it, so bounds
// that hold thanks to a real GPU's speed do not hold there.
bool on_stand_in ();

// The host blocks the CUDA runtime saw in the whole process so far, where
// it can tell (the stand-in counts them); 0 on a real runtime.
guint64 runtime_host_blocks ();

// GST_CHECK_MAIN for a GPU test binary: skipped (exit 77) without a usable
// GPU; `name` is the binary's and the suite's, name_suite() makes the suite.
#define TESTUTIL_GPU_CHECK_MAIN(name) \
  int main (int argc, char ** argv) \
  { \
    gst_check_init (&argc, &argv); \
    testutil::require_gpu_or_skip (#name); \
    return gst_check_run_suite (name##_suite (), #name, __FILE__); \
  }

/* --- formats ------------------------------------------------------------ */

// The formats of GST_CS_VIDEO_FORMATS that CPU videocrop (1.22) crops too.
extern const std::vector<const char *> videocrop_formats;
// The others, P010_10LE and P016_LE: cropped with crop_on_cpu() instead.
extern const std::vector<const char *> semi_planar_16_formats;
// All of GST_CS_VIDEO_FORMATS: the two lists above.
extern const std::vector<const char *> all_formats;

// Every raw format this GStreamer's video library describes without the
// TILED or COMPLEX flag (before 1.22, which has no COMPLEX flag: with whole
// bytes per pixel, or IYU1), asked of gst_video_format_get_info for every
// value of GstVideoFormat: what cudaupload, cudacrop and cudadownload take.
std::vector<const char *> plain_formats ();

// Whether CPU videocrop crops `format` (its system-memory template lists it).
bool videocrop_takes (const char * format);

// The formats of the video/x-raw structures of `caps` (every structure's
// format field, lists expanded), each once, sorted.
std::vector<std::string> caps_formats (const GstCaps * caps);

/* --- capturing frames --------------------------------------------------- */

// Copies (deeply) every buffer that passes `pad` into `frames`, with the caps
// it had, so a test can compare what entered an element with what came out.
struct Captured {
  std::vector<GstBuffer *> buffers;
  std::vector<GstVideoInfo> infos; // the caps of each buffer (they may change)
  GstVideoInfo info;               // the caps of the last one
  guint pinned = 0;                // how many captured buffers were in our pinned memory
  GMutex lock;
  Captured ();
  ~Captured ();
};
void capture_pad (GstPad * pad, Captured * into);
void capture_pad (
    GstElement * pipeline, const char * element, const char * pad, Captured * into);
void capture_appsink (GstElement * appsink, Captured * into);
void capture_appsink (GstElement * pipeline, const char * appsink, Captured * into);

// What a test frame's content is: random codes, or smooth random waves
// (what a scaler must reproduce: noise has no right answer when shrunk).
enum class Content { RANDOM, SMOOTH };

// A frame of `info` with `content`, deterministic per seed (a palette format
// gets a palette: random colours, or a ramp of them for smooth content).
GstBuffer * video_frame (const GstVideoInfo * info, Content content, guint32 seed);

// Fills the 256 entries of palette frame `f`'s palette (RGB8P: plane 1):
// random colours from `rand`, or (`smooth`) a ramp of colours along the
// index, so that smooth indices give smooth colours.
void fill_palette (GstVideoFrame * f, bool smooth, GRand * rand);

// The video info of `format`, `w`x`h`, 30 frames a second.
GstVideoInfo video_info (const char * format, gint w, gint h);

// `frames` frames of `info` and `content` (seeds from `first_seed`), frame
// i stamped i * `duration` long `duration`, then EOS, into the appsrc
// `appsrc` of `pipeline`; `mark`, where given, marks each before its push.
void push_frames (GstElement * pipeline, const char * appsrc, const GstVideoInfo * info,
    Content content, guint32 first_seed, gint frames, GstClockTime duration,
    const std::function<void (GstBuffer *, gint)> & mark = {});

// Polls `done` every 10 ms for up to 60 s (the streaming threads run on
// meanwhile; a loaded machine may be slow); fails naming `what` after.
void wait_until (const std::function<bool ()> & done, const char * what);

// The code of component `c` at (x, y) of its plane's grid in `f` (shifts
// undone: P010's codes are 10-bit).
guint code_of (const GstVideoFrame * f, guint c, gint x, gint y);

// A buffer of `size` random bytes (deterministic per seed).
GstBuffer * random_buffer (gsize size, guint32 seed);

// Fills `data` with random bytes (deterministic per seed).
void fill_random (guint8 * data, gsize size, guint32 seed);

/* --- elements and harnesses --------------------------------------------- */

// A new element of `factory`, failing the test unless it comes from our
// plugin "cudastreams" (nvcodec registers the same element names).
GstElement * make_ours (const char * factory);

// A harness around our element `factory` (gst_harness_new), or around the
// bin `launchline` of our elements (gst_harness_new_parse), failing unless
// every element is ours. Not live, like the appsrc or file source a test
// would otherwise feed the element from.
GstHarness * harness_ours (const char * factory);
GstHarness * harness_parse_ours (const char * launchline);

// Pulls `n` buffers from `h` into `into` with the caps of the harness's
// sink pad, failing the test when one does not come.
void pull_frames (GstHarness * h, guint n, Captured * into, const char * what = "");

// A bus on `element`, which has none outside a pipeline (a harness's
// element), so that what it posts can be read. When done,
// gst_element_set_bus (element, NULL) before unreffing it: the messages
// left on it hold `element`, which holds the bus, and no pipeline flushes
// it at NULL, so neither would be freed (the leaks tracer says so).
GstBus * watch_bus (GstElement * element);

// "source: message (debug)" of each message of `type` (ERROR or WARNING)
// waiting on `bus`, a line each; they are popped.
std::string pop_messages (GstBus * bus, GstMessageType type);

/* --- pipelines ---------------------------------------------------------- */

// The element of `pipeline` named `name` (a new reference).
GstElement * by_name (GstElement * pipeline, const char * name);

// The "host-waits" property of `element`, or of the element of `pipeline`
// named `name`.
guint64 host_waits (GstElement * element);
guint64 host_waits (GstElement * pipeline, const char * name);

// Adds a probe on the pad `pad` of the element `element` of `pipeline`;
// `destroy` (if any) frees `user_data` when the probe goes.
void add_probe (GstElement * pipeline, const char * element, const char * pad,
    GstPadProbeType type, GstPadProbeCallback callback, gpointer user_data,
    GDestroyNotify destroy = nullptr);

// Counts the buffers that pass the pad `pad` of the element `element` of
// `pipeline` into *n, atomically (read it with g_atomic_int_get).
void count_buffers (
    GstElement * pipeline, const char * element, const char * pad, guint * n);

// Hides support for crop metas (and, with `video_metas_too`, video metas)
// in the answer to the ALLOCATION query of `src` (a cudacrop's source
// pad), as a downstream that cannot read them would: cudacrop then crops
// by offsets (or, without video metas either, by a copy).
void hide_crop_metas (GstPad * src, bool video_metas_too);
// The same on the "src" pad of the element `element` of `pipeline`.
void hide_crop_metas (GstElement * pipeline, const char * element, bool video_metas_too);

// The bytes of every buffer that passes the pad `pad` of `element`, read
// through a host mapping (a tensor, which has no video caps), appended to
// `into` from the streaming thread.
void capture_bytes (GstElement * pipeline, const char * element, const char * pad,
    std::vector<std::vector<guint8>> * into);

// "videotestsrc pattern=snow" frames (random content) of `format`, `w`x`h`,
// teed into "queue ! `reference` ! appsink name=ref" and "queue ! `chain`
// ! appsink name=out"; a NULL `reference` is "fakesink", for a test that
// computes its reference from the input. The appsinks' frames go into
// `expected` and `out`, where given.
GstElement * parse_beside_reference (const char * format, gint w, gint h, gint frames,
    const char * reference, const char * chain, Captured * expected, Captured * out);

// The same at 64x48, beside "videocrop `crop`".
GstElement * parse_beside_videocrop (const char * format, gint frames, const char * crop,
    const char * chain, Captured * expected, Captured * out);

// What a pipeline run to its end saw on its bus.
struct Outcome {
  bool eos = false;
  std::string error;    // the first error, or why the run did not end
  std::string warnings; // "source: message" of each warning, a line each
};

// Runs `pipeline` to EOS or the first error, then sets it to NULL, and
// returns what happened: for tests that expect an error. `waits_at_eos`,
// when given, gets gst_cs_host_waits_total() at the end, before the pipeline
// is torn down (freeing pools is a counted host wait).
// It takes the messages off the pipeline's bus in the threads that post them
// (a sync handler of its own, set for the run): a test that must see
// messages as they are posted (need-context, stream-status) hands its
// handler to set_bus_handler() rather than setting one on the bus.
Outcome run_to_end (GstElement * pipeline, GstClockTime timeout = 120 * GST_SECOND,
    guint64 * waits_at_eos = nullptr);

// The sync handler that run_to_end() calls first for each message posted on
// `pipeline`'s bus while it runs the pipeline. One returning GST_BUS_DROP
// keeps the message (and unrefs it); GST_BUS_PASS leaves it to run_to_end().
void set_bus_handler (
    GstElement * pipeline, GstBusSyncHandler handler, gpointer user_data);

// run_to_end(), failing the test with the error (source element, message,
// debug) unless the pipeline reached EOS.
void run_to_eos (GstElement * pipeline, const char * what = "",
    GstClockTime timeout = 120 * GST_SECOND, guint64 * waits_at_eos = nullptr);

/* --- references and comparisons ----------------------------------------- */

// `in` cropped on the CPU to `out_info`'s size from (x, y): each plane from
// the sample covering (x, y), the rule videocrop applies to planar and
// semi-planar formats, for those it lacks (P010, P016). Not for packed 4:2:2.
GstBuffer * crop_on_cpu (GstBuffer * in, const GstVideoInfo * in_info, guint x, guint y,
    const GstVideoInfo * out_info);

// Fails the test unless the visible pixels of both frames are equal, saying
// where they differ.
void assert_frames_equal (GstBuffer * a, const GstVideoInfo * ia, GstBuffer * b,
    const GstVideoInfo * ib, const char * what);

// Like assert_frames_equal, for frames cropped by CPU videocrop: it copies 2
// bytes per pixel of YUY2/UYVY rows, so with an odd width it leaves the
// second half of the last macro-pixel (a luma sample outside the frame and
// one chroma byte) undefined; those two bytes are not compared.
void assert_cropped_equal (GstBuffer * a, const GstVideoInfo * ia, GstBuffer * b,
    const GstVideoInfo * ib, const char * what);

// The captured frame lists, one by one, with the caps of the last frame of
// each (assert_frames_equal); at least one frame, as many in both.
void assert_all_frames_equal (Captured & expected, Captured & got, const char * what);

// The same with assert_cropped_equal, each frame with its own caps (sizes may
// change mid-stream).
void assert_all_cropped_equal (Captured & expected, Captured & got, const char * what);

// Whether `element`'s sink pad accepts `caps` (an ACCEPT_CAPS query).
bool sink_accepts (GstElement * element, const char * caps);

} // namespace testutil
