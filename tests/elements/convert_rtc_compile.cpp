/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Without a GPU: the source of a converter kernel compiled at run time for
// one conversion (gpu/convert_scale_rtc.h) compiles with NVRTC for each
// kernel family, with the description a constant: the embedded headers
// and their std stand-ins (gpu/rtc_std/) are enough, and what the build
// compiles NVRTC compiles too. Whether such a kernel computes the twin's
// bytes is for the GPU (convertscale_rtc_gpu). And that the description
// folds into the code instead of going to local memory (ptxas's stack).
#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "convert/gstcsconvertdesc.hpp"
#include "convert_scale_rtc.h"
#include "run_apart.h"

namespace {

namespace gpu = gst_cs::gpu;

struct Family {
  const char * in;
  const char * out;
  gpu::Filter filter;
  gpu::Orientation orientation;
  const char * kernel; /* a template-id, as the runtime names the built instance */
};

// One conversion of each kernel family, and an instance of the family's
// kernel (the one the build picks, or one like it: NVRTC compiles the
// template for the constant description either way).
const Family kFamilies[] = {
  { "video/x-raw,format=Y444,width=1920,height=1080",
      "video/x-raw,format=NV12,width=1920,height=1080", gpu::Filter::BILINEAR,
      gpu::Orientation::IDENTITY,
      "gst_cs::gpu::kernels::convert_scale_block_kernel<gst_cs::gpu::kernels::OneSample<"
      "1, "
      "1> >" },
  { "video/x-raw,format=BGR10A2_LE,width=640,height=360",
      "video/x-raw,format=RGBA,width=640,height=360", gpu::Filter::BILINEAR,
      gpu::Orientation::IDENTITY,
      "gst_cs::gpu::kernels::convert_scale_block_kernel<gst_cs::gpu::kernels::"
      "TapsPerPixel<("
      "gst_cs::gpu::Filter)1, 0, 0> >" },
  { "video/x-raw,format=I422_10LE,width=1920,height=1080",
      "video/x-raw,format=P010_10LE,width=1280,height=720", gpu::Filter::BILINEAR,
      gpu::Orientation::IDENTITY,
      "gst_cs::gpu::kernels::convert_scale_two_tap_kernel<(gst_cs::gpu::Filter)1, 2, 2, "
      "gst_cs::gpu::two_tap::AnyMembers>" },
  { "video/x-raw,format=RGBA,width=640,height=360",
      "video/x-raw,format=RGBA,width=960,height=540", gpu::Filter::BICUBIC,
      gpu::Orientation::IDENTITY,
      "gst_cs::gpu::kernels::convert_scale_tap_tile_kernel<(gst_cs::gpu::Filter)2, 1, 1, "
      "gst_cs::gpu::two_tap::AnyMembers, 4, true>" },
  { "video/x-raw,format=NV12,width=1920,height=1080",
      "video/x-raw,format=RGBA,width=480,height=270", gpu::Filter::AREA,
      gpu::Orientation::IDENTITY,
      "gst_cs::gpu::kernels::convert_scale_tap_tile_kernel<(gst_cs::gpu::Filter)3, 1, 1, "
      "gst_cs::gpu::two_tap::FixedMembers<1u, 6u, 2>, 0, false>" },
  { "video/x-raw,format=NV12,width=3840,height=2160",
      "video/x-raw,format=RGBA,width=1920,height=1080", gpu::Filter::BILINEAR,
      gpu::Orientation::IDENTITY,
      "gst_cs::gpu::kernels::convert_scale_fixed_point_kernel<(gst_cs::gpu::Filter)1, 2, "
      "false>" },
  { "video/x-raw,format=RGBA,width=3840,height=2160",
      "video/x-raw,format=NV12,width=1920,height=1080", gpu::Filter::BILINEAR,
      gpu::Orientation::IDENTITY,
      "gst_cs::gpu::kernels::convert_scale_fixed_point_blocks_kernel<(gst_cs::gpu::"
      "Filter)"
      "1, 1, false>" },
  { "video/x-raw,format=NV12,width=1920,height=1080",
      "video/x-raw,format=RGBA,width=720,height=1280", gpu::Filter::BILINEAR,
      gpu::Orientation::ROTATE_90R,
      "gst_cs::gpu::kernels::convert_scale_fixed_point_turned_kernel<(gst_cs::gpu::"
      "Filter)"
      "1, 2, false>" },
  { "video/x-raw,format=NV12,width=3840,height=2160",
      "video/x-raw,format=RGBA,width=1920,height=1080", gpu::Filter::BICUBIC,
      gpu::Orientation::IDENTITY,
      "gst_cs::gpu::kernels::convert_scale_fixed_taps_kernel<(gst_cs::gpu::Filter)2, "
      "2>" },
  { "video/x-raw,format=Y444,width=1920,height=1080",
      "video/x-raw,format=NV12,width=1280,height=720", gpu::Filter::AREA,
      gpu::Orientation::IDENTITY,
      "gst_cs::gpu::kernels::convert_scale_fixed_taps_blocks_kernel<(gst_cs::gpu::"
      "Filter)3, 0>" },
  { "video/x-raw,format=I420,width=1920,height=1080",
      "video/x-raw,format=RGBP,width=960,height=540", gpu::Filter::BILINEAR,
      gpu::Orientation::IDENTITY,
      "gst_cs::gpu::kernels::convert_scale_fixed_point_kernel<(gst_cs::gpu::Filter)1, 0, "
      "false>" },
  { "video/x-raw,format=YUY2,width=1920,height=1080",
      "video/x-raw,format=RGBA,width=1920,height=1080", gpu::Filter::NEAREST,
      gpu::Orientation::IDENTITY,
      "gst_cs::gpu::kernels::convert_scale_fixed_point_kernel<(gst_cs::gpu::Filter)0, 4, "
      "true>" },
  { "video/x-raw,format=NV12,width=1920,height=1080",
      "video/x-raw,format=NV12,width=1080,height=1920", gpu::Filter::BILINEAR,
      gpu::Orientation::ROTATE_90R,
      "gst_cs::gpu::kernels::convert_scale_planes_staged_kernel<(gst_cs::gpu::Filter)1, "
      "1, 1, "
      "2>" },
  { "video/x-raw,format=RGBA,width=1920,height=1080",
      "video/x-raw,format=BGRx,width=1920,height=1080", gpu::Filter::BILINEAR,
      gpu::Orientation::IDENTITY,
      "gst_cs::gpu::kernels::convert_scale_staged_kernel<gst_cs::gpu::two_tap::"
      "FixedMembers<15u, 0u>, 1, 1>" },
  /* Bit fields of 4-byte words, in and out (one_sample::word_fields). */
  { "video/x-raw,format=BGR10A2_LE,width=1920,height=1080",
      "video/x-raw,format=RGB10A2_LE,width=1080,height=1920", gpu::Filter::BILINEAR,
      gpu::Orientation::ROTATE_90L,
      "gst_cs::gpu::kernels::convert_scale_staged_kernel<gst_cs::gpu::two_tap::"
      "FixedMembers<15u, 0u>, 0, 0>" },
};

GST_START_TEST (test_families_compile)
{
  for (const Family & f : kFamilies) {
    GstVideoInfo info[2];
    std::vector<guint8> mem[2];
    for (int k = 0; k < 2; k++) {
      GstCaps * caps = gst_caps_from_string (k ? f.out : f.in);
      fail_unless (gst_video_info_from_caps (&info[k], caps));
      gst_caps_unref (caps);
      mem[k].resize (GST_VIDEO_INFO_SIZE (&info[k]) + 64);
    }
    gst_cs::ConvertSettings s;
    s.filter = f.filter;
    s.orientation = f.orientation;
    gpu::ConvertScale op, resolved;
    gst_cs::describe_convert (&info[0], &info[1], 0, 0, GST_VIDEO_INFO_WIDTH (&info[0]),
        GST_VIDEO_INFO_HEIGHT (&info[0]), s, &op);
    op.in = gst_cs::convert_image (&info[0], &info[0], mem[0].data (), false);
    op.out = gst_cs::convert_image (&info[1], &info[1], mem[1].data (), true);
    fail_unless (
        gpu::convert_scale_resolve (op, &resolved), "%s -> %s refused", f.in, f.out);
    std::string log;
    int stack = -1;
    const bool ok = gpu::rtc::compiles (resolved, f.kernel, "sm_90", &log, &stack);
    if (!ok && log == "libnvrtc cannot be loaded") {
      g_print ("no NVRTC here: skipped\n");
      return;
    }
    fail_unless (
        ok, "%s (%s): %s", f.kernel, gpu::convert_scale_path (resolved), log.c_str ());
    /* The description folded into the code: none of it in local memory
     * (an index into it known only at run time puts it all there). */
    fail_unless (stack >= 0 && stack < gpu::rtc::kMostStackBytes,
        "%s (%s): %d bytes of stack a thread (the description is %d)", f.kernel,
        gpu::convert_scale_path (resolved), stack, (int)sizeof (gpu::ConvertScale));
    g_print (
        "%s: compiled, %d bytes of stack\n", gpu::convert_scale_path (resolved), stack);
    /* With a table of taps (convert_scale_point_lines): one source for any
     * table's address (else each element and run would compile its own),
     * another than without, and it compiles within the stack's bound. */
    if (gpu::convert_scale_lines_bytes (resolved) > 0) {
      std::vector<guint64> a (gpu::convert_scale_lines_bytes (resolved) / 8),
          b (a.size ());
      gpu::ConvertScale with_a = resolved, with_b = resolved;
      gpu::convert_scale_point_lines (&with_a, a.data ());
      gpu::convert_scale_point_lines (&with_b, b.data ());
      const std::string source = gpu::rtc::source_for (with_a);
      fail_unless (source == gpu::rtc::source_for (with_b),
          "%s: the table's address is in the compiled kernel's key", f.kernel);
      fail_if (source == gpu::rtc::source_for (resolved),
          "%s: the table's use is not in the compiled kernel's key", f.kernel);
      fail_unless (gpu::rtc::compiles (with_a, f.kernel, "sm_90", &log, &stack), "%s: %s",
          f.kernel, log.c_str ());
      fail_unless (stack >= 0 && stack < gpu::rtc::kMostStackBytes,
          "%s with a table: %d bytes of stack a thread", f.kernel, stack);
      g_print ("%s with a table: compiled, %d bytes of stack\n",
          gpu::convert_scale_path (resolved), stack);
    }
    if (&f == &kFamilies[0]) {
      /* The compiler process writes the disk cache itself (it may outlive
       * the process that asked): the kernel's name in the code, then the
       * code, as a run reads it. */
      gchar * dir = g_dir_make_tmp ("gcs-rtc-cache-XXXXXX", NULL);
      gchar * file = g_build_filename (dir, "kernel.cubin", NULL);
      fail_unless (gpu::rtc::compiles (resolved, f.kernel, "sm_90", &log, &stack, file),
          "%s", log.c_str ());
      std::vector<char> cubin;
      std::string lowered;
      fail_unless (gpu::rtc::read_cache (file, &cubin, &lowered), "nothing cached");
      fail_unless (lowered.find ("convert_scale_block_kernel") != std::string::npos,
          "cached under the name %s", lowered.c_str ());
      fail_unless (cubin.size () > 1000, "a cached kernel of %zu bytes", cubin.size ());
      g_unlink (file);
      g_rmdir (dir);
      g_free (file);
      g_free (dir);
      /* NVRTC's complaint comes back from the compiler process: a kernel
       * the source does not have. */
      fail_if (gpu::rtc::compiles (
          resolved, "gst_cs::gpu::kernels::no_such_kernel", "sm_90", &log, &stack));
      fail_unless (log.find ("no_such_kernel") != std::string::npos, "%s", log.c_str ());
      fail_unless_equals_int (stack, -1);
    }
  }
}
GST_END_TEST;

/* run_apart with RUN_APART_PEER (tests/elements/run_apart_peer.cpp): a
 * command and a payload in, `payload` back. */
bool
peer (const std::string & command, const std::string & payload, int seconds,
    std::string * result, std::string * why, const std::atomic<bool> * stop = nullptr,
    gpu::StopAction on_stop = gpu::StopAction::KILL)
{
  std::string input;
  gpu::put (input, command);
  gpu::put (input, payload);
  return gpu::run_apart (RUN_APART_PEER, input, seconds, result, why, stop, on_stop);
}

/* Stops `peer` after `ms`, as the process's exit stops a compile under
 * way; the seconds peer took. */
double
stopped_after (int ms, const std::string & command, const std::string & payload,
    gpu::StopAction on_stop, std::string * why)
{
  std::atomic<bool> stop{ false };
  std::thread stopper ([&] {
    std::this_thread::sleep_for (std::chrono::milliseconds (ms));
    stop = true;
  });
  std::string result;
  const auto t0 = std::chrono::steady_clock::now ();
  const bool ran = peer (command, payload, 30, &result, why, &stop, on_stop);
  const double seconds =
      std::chrono::duration<double> (std::chrono::steady_clock::now () - t0).count ();
  stopper.join ();
  fail_if (ran);
  fail_unless (result.empty ());
  return seconds;
}

/* The compiles run in a process of their own (gpu/run_apart.h): what it
 * answers comes back whole, larger than a socket holds at once; one that
 * crashes or runs past its time is told apart from one that answered. */
GST_START_TEST (test_run_apart)
{
  std::string result, why;
  std::string big (300 * 1000, 'x');
  big[12345] = '\0';
  fail_unless (peer ("echo", big, 30, &result, &why), "%s", why.c_str ());
  fail_unless (result == big, "%zu bytes back of %zu", result.size (), big.size ());
  fail_unless (peer ("echo", "", 30, &result, &why), "%s", why.c_str ());
  fail_unless (result.empty ());

  fail_if (peer ("abort", "", 30, &result, &why));
  fail_unless (why.find ("signal") != std::string::npos, "%s", why.c_str ());
  fail_if (peer ("cut", "", 30, &result, &why));
  fail_unless (why == "ended before its result was written", "%s", why.c_str ());
  fail_if (peer ("sleep", "", 1, &result, &why));
  fail_unless (why == "stopped after 1 s", "%s", why.c_str ());
  fail_unless (result.empty ());
  fail_if (gpu::run_apart ("/nonexistent/gcs-peer", "", 30, &result, &why));
  fail_unless (why.find ("/nonexistent/gcs-peer: ") == 0, "%s", why.c_str ());

  /* Stopped: the program is killed and reaped within run_apart's slice,
   * and none is started once the flag is set. */
  double seconds = stopped_after (300, "sleep", "", gpu::StopAction::KILL, &why);
  fail_unless (why == "stopped", "%s", why.c_str ());
  fail_unless (seconds < 5.0, "stopped after %.1f s", seconds);
  const std::atomic<bool> stopped{ true };
  fail_if (peer ("echo", "never", 30, &result, &why, &stopped));
  fail_unless (why == "stopped", "%s", why.c_str ());

  /* Left, as a compile is where the process exits (the compiler writes
   * the disk cache, for the next run): run_apart returns at once, and the
   * program goes on to do its work unwatched. */
  gchar * dir = g_dir_make_tmp ("gcs-run-apart-XXXXXX", NULL);
  fail_unless (dir != NULL);
  gchar * file = g_build_filename (dir, "later", NULL);
  g_setenv ("RUN_APART_PEER_OUTLIVE", "1", TRUE);
  seconds = stopped_after (100, "later", file, gpu::StopAction::LEAVE, &why);
  g_unsetenv ("RUN_APART_PEER_OUTLIVE");
  fail_unless (why == "stopped", "%s", why.c_str ());
  fail_unless (seconds < 0.9 && !g_file_test (file, G_FILE_TEST_EXISTS),
      "run_apart waited %.2f s for a program it was to leave", seconds);
  gchar * done = NULL;
  for (int i = 0; i < 200 && !g_file_get_contents (file, &done, NULL, NULL); i++)
    g_usleep (50 * 1000);
  fail_unless (done != NULL && std::string (done) == "done",
      "the program left running did not finish its work");
  g_free (done);
  g_unlink (file);
  g_rmdir (dir);
  g_free (file);
  g_free (dir);
}
GST_END_TEST;

Suite *
rtc_suite (void)
{
  Suite * s = suite_create ("convert_rtc_compile");
  TCase * tc = tcase_create ("rtc");
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_run_apart);
  tcase_add_test (tc, test_families_compile);
  suite_add_tcase (s, tc);
  return s;
}

} // namespace

GST_CHECK_MAIN (rtc);
