// Helpers shared by the tests: GPU detection, running pipelines, capturing
// the frames that enter an element, and comparing frames pixel by pixel.
#pragma once

#include <string>
#include <vector>

#include <gst/gst.h>
#include <gst/video/video.h>

namespace testutil {

// True when a CUDA device can be used; otherwise `why` says why not.
bool gpu_available (std::string *why);

// For GPU test binaries: exits with 77 (meson's "skipped") and the reason
// when there is no usable GPU.
void require_gpu_or_skip (const char *binary);

// True on the fakecuda stand-in for the CUDA runtime (tests/fakecuda): no
// GPU, and stream work runs only when something waits for it, so bounds
// that hold thanks to a real GPU's speed do not hold there.
bool on_stand_in ();

// The host blocks the CUDA runtime saw in the whole process so far, where
// it can tell (the stand-in counts them); 0 on a real runtime.
guint64 runtime_host_blocks ();

// A new element of `factory`, failing the test unless it comes from our
// plugin "cudastreams" (nvcodec registers the same element names).
GstElement * make_ours (const char * factory);

// The element of `pipeline` named `name` (a new reference).
GstElement *by_name (GstElement *pipeline, const char *name);

// Copies (deeply) every buffer that passes `pad` into `frames`, with the caps
// it had, so a test can compare what entered an element with what came out.
struct Captured {
  std::vector<GstBuffer *> buffers;
  std::vector<GstVideoInfo> infos;  // the caps of each buffer (they may change)
  GstVideoInfo info;                // the caps of the last one
  guint pinned = 0;    // how many captured buffers were in our pinned memory
  GMutex lock;
  Captured ();
  ~Captured ();
};
void capture_pad (GstPad *pad, Captured *into);
void capture_appsink (GstElement *appsink, Captured *into);

// Runs `pipeline` to EOS; returns "" or the text of the first error.
// When `waits_at_eos` is given, it gets gst_cs_host_waits_total() at EOS,
// before the pipeline is torn down (freeing pools is a counted host wait).
std::string run_to_eos (GstElement *pipeline, GstClockTime timeout = 120 * GST_SECOND,
    guint64 *waits_at_eos = nullptr);

// "" when the visible pixels of both frames are equal, else where they differ.
std::string compare_frames (GstBuffer *a, const GstVideoInfo *ia,
    GstBuffer *b, const GstVideoInfo *ib);

// Compares the captured frame lists one by one; "" when all equal.
std::string compare_all (Captured &expected, Captured &got);

// Like compare_frames, for frames cropped by CPU videocrop: it copies 2 bytes
// per pixel of YUY2/UYVY rows, so with an odd width it leaves the second half
// of the last macro-pixel (a luma sample outside the frame and one chroma
// byte) undefined; those two bytes are not compared.
std::string compare_cropped (GstBuffer *a, const GstVideoInfo *ia,
    GstBuffer *b, const GstVideoInfo *ib);

// compare_all with compare_cropped, each frame with its own caps (sizes may
// change mid-stream).
std::string compare_all_cropped (Captured &expected, Captured &got);

// Whether `element`'s sink pad accepts `caps` (an ACCEPT_CAPS query).
bool sink_accepts (GstElement * element, const char * caps);

// Fills a buffer with random bytes (deterministic per seed).
void fill_random (guint8 *data, gsize size, guint32 seed);

} // namespace testutil
