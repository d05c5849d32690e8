/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gcs-convert-time: GPU time per frame of the convert-scale kernel for the
 * benchmark's cudaconvertscale rows (pipelines/convert_rows.txt), beside a
 * device-to-device copy of the same bytes (what the kernel must read plus
 * what it writes), timed with CUDA
 * events in one process. The kernel is described by the element's own
 * function (plugins/gstcsconvertdesc), so it is the element's launch.
 *
 * Two figures per kernel: back to back (kernel_us: 200 launches between
 * two events, each launch's start overlapping the one before), and one
 * launch at a time (kernel_one_us, the median; each launch alone on an idle
 * GPU behind a stream gate, as the cudastreams tracer times a frame:
 * pipelines/gated_time.hpp). With --copies, the copies of cudaupload and
 * cudadownload too, one at a time the same way: the input frame from
 * pinned memory to the device (up_us) and the output frame back (down_us).
 *
 * The kernel is timed as the element runs it from a description's second
 * frame on: resolved once, with its table of taps per output line
 * (gpu::convert_scale_point_lines) allocated and filled once where its
 * kernel reads one ("lines_bytes"); --no-lines times it without, for an
 * A/B in one build.
 *
 *   gcs-convert-time [--rows FILE] [--copies] [--no-lines] [--cubin KERNEL DIR
 *       [--arch ARCH]] [TEXT]
 *       -> one line "CONVERT-TIME {json}" per row of FILE (default:
 *          pipelines/convert_rows.txt), those whose name holds TEXT (one
 *          kernel to profile)
 *
 * Without a GPU, --cubin KERNEL DIR compiles each row's kernel as a run
 * compiles it for the conversion at hand (gpu/convert_scale_rtc.h; KERNEL:
 * the template-id of the built instance a run launches for the row, its
 * template arguments as the family's launch picks them (another instance
 * compiles too, into other code), as
 * "gst_cs::gpu::kernels::convert_scale_planes_staged_kernel<(gst_cs::gpu::Filter)1, 1, 1, 0>"),
 * into DIR/ROW.cubin (the run's cache file: the kernel's lowered name on
 * one line, then its CUBIN), whose registers and instructions
 * scripts/cubin-info.py reads without a device call; --arch (default
 * sm_90).
 */
#include <cuda_runtime_api.h>
#include <glib/gstdio.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "convert_scale.h"
#include "convert_scale_rtc.h"
#include "convert/gstcsconvertdesc.hpp"
#include "gated_time.hpp"
#include "gstcsvideo-private.h"

namespace {

/* One row of pipelines/convert_rows.txt (the fields are described there). */
struct Row {
  std::string name;
  GstVideoFormat in_format = GST_VIDEO_FORMAT_UNKNOWN;
  int in_w = 0, in_h = 0;
  GstVideoFormat out_format = GST_VIDEO_FORMAT_UNKNOWN;
  int out_w = 0, out_h = 0;
  gst_cs::gpu::Filter filter = gst_cs::gpu::Filter::BILINEAR;
  gst_cs::gpu::Orientation orientation = gst_cs::gpu::Orientation::IDENTITY;
  int crop[4] = {}; /* left, top, right, bottom */
  bool letterbox = false;
};

/* The value of `nick` in the enum type `type` (the element's own
 * properties' types), or -1. */
int
enum_value (GType type, const char * nick)
{
  GEnumClass * k = G_ENUM_CLASS (g_type_class_ref (type));
  const GEnumValue * v = g_enum_get_value_by_nick (k, nick);
  const int value = v ? v->value : -1;
  g_type_class_unref (k);
  return value;
}

int
method_of (const char * nick)
{
  static const char * const nicks[] = { "nearest-neighbour", "bilinear", "bicubic",
    "area" };
  for (int i = 0; i < 4; i++)
    if (std::strcmp (nick, nicks[i]) == 0)
      return i; /* gpu::Filter's values */
  return -1;
}

bool
parse_row (const std::string & line, Row * r)
{
  gchar ** f = g_strsplit (line.c_str (), "|", -1);
  bool ok = g_strv_length (f) == 9;
  if (ok) {
    r->name = f[0];
    r->in_format = gst_video_format_from_string (f[1]);
    r->out_format = gst_video_format_from_string (f[3]);
    const int method = method_of (f[5]);
    const int direction = enum_value (GST_TYPE_VIDEO_ORIENTATION_METHOD, f[6]);
    ok = std::sscanf (f[2], "%dx%d", &r->in_w, &r->in_h) == 2 &&
         std::sscanf (f[4], "%dx%d", &r->out_w, &r->out_h) == 2 &&
         std::sscanf (f[7], "%d,%d,%d,%d", &r->crop[0], &r->crop[1], &r->crop[2],
             &r->crop[3]) == 4 &&
         method >= 0 && direction >= 0 && direction <= 7;
    r->filter = static_cast<gst_cs::gpu::Filter> (method);
    r->orientation = static_cast<gst_cs::gpu::Orientation> (direction);
    r->letterbox = std::strcmp (f[8], "1") == 0;
  }
  g_strfreev (f);
  return ok;
}

/* Mean time of `n` runs of `work` on `stream`, after 10 untimed ones, in µs. */
template <class Work>
double
time_us (cudaStream_t stream, int n, Work work)
{
  cudaEvent_t start, stop;
  cudaEventCreate (&start);
  cudaEventCreate (&stop);
  for (int i = 0; i < 10; i++)
    work ();
  cudaEventRecord (start, stream);
  for (int i = 0; i < n; i++)
    work ();
  cudaEventRecord (stop, stream);
  cudaEventSynchronize (stop);
  float ms = 0.0f;
  cudaEventElapsedTime (&ms, start, stop);
  cudaEventDestroy (start);
  cudaEventDestroy (stop);
  return 1000.0 * ms / n;
}

/* A frame between host and device as cudaupload and cudadownload copy it:
 * plane by plane. */
bool
copy_frame (guint8 * dst, const guint8 * src, const GstVideoInfo * info,
    cudaMemcpyKind kind, cudaStream_t stream)
{
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    const gsize offset = GST_VIDEO_INFO_PLANE_OFFSET (info, p);
    const gsize stride = GST_VIDEO_INFO_PLANE_STRIDE (info, p);
    if (!check (cudaMemcpy2DAsync (dst + offset, stride, src + offset, stride,
                    gst_cs_video_plane_row_bytes (info, p),
                    gst_cs_video_plane_rows (info, p), kind, stream),
            "cudaMemcpy2DAsync"))
      return false;
  }
  return true;
}

/* The upload of `in` and the download of `out`, one at a time, from and
 * into pinned memory: ",\"up_us\":...,\"down_us\":..." for the row's
 * line, or "" where they fail. */
std::string
copy_figures (const GstVideoInfo * in, const GstVideoInfo * out, guint8 * din,
    guint8 * dout, int device, cudaStream_t stream)
{
  guint8 *hin = nullptr, *hout = nullptr;
  GatedTime up, down;
  const bool fine =
      check (cudaHostAlloc ((void **)&hin, in->size, cudaHostAllocDefault), "pinned") &&
      check (cudaHostAlloc ((void **)&hout, out->size, cudaHostAllocDefault), "pinned") &&
      time_one_at_a_time (
          device, stream, 50,
          [&] { return copy_frame (din, hin, in, cudaMemcpyHostToDevice, stream); },
          &up) &&
      time_one_at_a_time (
          device, stream, 50,
          [&] { return copy_frame (hout, dout, out, cudaMemcpyDeviceToHost, stream); },
          &down);
  cudaFreeHost (hin);
  cudaFreeHost (hout);
  if (!fine)
    return "";
  gchar * s = g_strdup_printf (",\"up_us\":%.2f,\"up_mean_us\":%.2f,\"down_us\":%.2f,"
                               "\"down_mean_us\":%.2f,\"copies_gated\":%s",
      up.median_us, up.mean_us, down.median_us, down.mean_us,
      up.gated && down.gated ? "true" : "false");
  std::string text = s;
  g_free (s);
  return text;
}

gst_cs::ConvertSettings
settings_of (const Row & r)
{
  gst_cs::ConvertSettings settings;
  settings.filter = r.filter;
  settings.orientation = r.orientation;
  settings.add_borders = r.letterbox;
  return settings;
}

/* r described as the element describes a frame, its frames at `in_mem`
 * and `out_mem`; false (said) where convert_scale refuses it. */
bool
describe_row (const Row & r, const GstVideoInfo * in, const GstVideoInfo * out,
    guint8 * in_mem, guint8 * out_mem, gst_cs::gpu::ConvertScale * op,
    gst_cs::gpu::ConvertScale * resolved)
{
  gst_cs::describe_convert (in, out, r.crop[0], r.crop[1], r.in_w - r.crop[0] - r.crop[2],
      r.in_h - r.crop[1] - r.crop[3], settings_of (r), op);
  op->in = gst_cs::convert_image (in, in, in_mem, false);
  op->out = gst_cs::convert_image (out, out, out_mem, true);
  if (gst_cs::gpu::convert_scale_resolve (*op, resolved))
    return true;
  std::fprintf (stderr, "%s: convert_scale refuses the description\n", r.name.c_str ());
  return false;
}

bool
run_row (const Row & r, cudaStream_t stream, bool copies, bool lines)
{
  GstVideoInfo in, out;
  gst_video_info_set_format (&in, r.in_format, r.in_w, r.in_h);
  gst_video_info_set_format (&out, r.out_format, r.out_w, r.out_h);
  guint8 *din = nullptr, *dout = nullptr, *copy_a = nullptr, *copy_b = nullptr;
  const int src_w = r.in_w - r.crop[0] - r.crop[2],
            src_h = r.in_h - r.crop[1] - r.crop[3];
  /* What the kernel must move: the source rectangle's share of the input
   * (a crop reads only that), and the output. A copy of half of that sum
   * reads and writes as many bytes. */
  const size_t read_bytes =
      (size_t)((double)in.size * src_w * src_h / ((double)r.in_w * r.in_h));
  const size_t copy_bytes = (read_bytes + out.size) / 2;
  if (!check (cudaMalloc ((void **)&din, in.size), "cudaMalloc") ||
      !check (cudaMalloc ((void **)&dout, out.size), "cudaMalloc") ||
      !check (cudaMalloc ((void **)&copy_a, copy_bytes), "cudaMalloc") ||
      !check (cudaMalloc ((void **)&copy_b, copy_bytes), "cudaMalloc"))
    return false;
  cudaMemset (din, 0x80, in.size);
  const gst_cs::ConvertSettings settings = settings_of (r);
  gst_cs::gpu::ConvertScale op, resolved;
  if (!describe_row (r, &in, &out, din, dout, &op, &resolved)) {
    for (void * p : { (void *)din, (void *)dout, (void *)copy_a, (void *)copy_b })
      cudaFree (p);
    return false;
  }
  void * table = nullptr;
  const size_t lines_bytes =
      lines ? gst_cs::gpu::convert_scale_lines_bytes (resolved) : 0;
  bool ok = true;
  if (lines_bytes > 0) {
    ok = check (cudaMalloc (&table, lines_bytes), "cudaMalloc");
    if (ok) {
      gst_cs::gpu::convert_scale_point_lines (&resolved, table);
      ok = check (gst_cs::gpu::convert_scale_fill_lines (resolved, stream),
          "convert_scale_fill_lines");
    }
  }
  ok = ok && check (gst_cs::gpu::convert_scale_resolved (resolved, stream),
                 "convert_scale_resolved");
  const double kernel = time_us (
      stream, 200, [&] { gst_cs::gpu::convert_scale_resolved (resolved, stream); });
  int device = 0;
  GatedTime one;
  ok = ok && check (cudaGetDevice (&device), "cudaGetDevice") &&
       time_one_at_a_time (
           device, stream, 200,
           [&] {
             return check (gst_cs::gpu::convert_scale_resolved (resolved, stream),
                 "convert_scale_resolved");
           },
           &one);
  /* The CPU's share of a frame: describing it as the element does and
   * launching the kernel (the stream runs behind). */
  const auto t0 = std::chrono::steady_clock::now ();
  for (int i = 0; i < 200; i++) {
    gst_cs::gpu::ConvertScale again;
    gst_cs::describe_convert (
        &in, &out, r.crop[0], r.crop[1], src_w, src_h, settings, &again);
    again.in = gst_cs::convert_image (&in, &in, din, false);
    again.out = gst_cs::convert_image (&out, &out, dout, true);
    gst_cs::gpu::convert_scale (again, stream);
  }
  const double host =
      std::chrono::duration<double, std::micro> (std::chrono::steady_clock::now () - t0)
          .count () /
      200;
  const double copy = time_us (stream, 200, [&] {
    cudaMemcpyAsync (copy_b, copy_a, copy_bytes, cudaMemcpyDeviceToDevice, stream);
  });
  ok = ok && check (cudaStreamSynchronize (stream), "the timed work");
  const std::string copy_times =
      copies && ok ? copy_figures (&in, &out, din, dout, device, stream) : "";
  /* No figure for a row whose kernel did not run (its error is on
   * stderr): printed, a row whose launches had failed read 1.09 us
   * against 11.0 (an H100, 2026-12-05). */
  if (ok)
    std::printf ("CONVERT-TIME {\"row\":\"%s\",\"kernel_us\":%.2f,\"kernel_one_us\":%.2f,"
                 "\"kernel_one_mean_us\":%.2f,\"gated\":%s,\"copy_us\":%.2f,"
                 "\"ratio\":%.3f,\"host_us\":%.2f,\"in_bytes\":%zu,\"out_bytes\":%zu,"
                 "\"path\":\"%s\",\"lines_bytes\":%zu%s}\n",
        r.name.c_str (), kernel, one.median_us, one.mean_us, one.gated ? "true" : "false",
        copy, kernel / copy, host, read_bytes, out.size,
        gst_cs::gpu::convert_scale_path (op), lines_bytes, copy_times.c_str ());
  cudaFree (table);
  cudaFree (din);
  cudaFree (dout);
  cudaFree (copy_a);
  cudaFree (copy_b);
  return ok;
}

/* --cubin: r's kernel compiled by NVRTC for its description (host memory
 * for the frames: their addresses are not in the source), with a table
 * of taps where the timed run points one, into `dir`/NAME.cubin. */
bool
compile_row (const Row & r, bool lines, const std::string & kernel,
    const std::string & arch, const std::string & dir)
{
  GstVideoInfo in, out;
  gst_video_info_set_format (&in, r.in_format, r.in_w, r.in_h);
  gst_video_info_set_format (&out, r.out_format, r.out_w, r.out_h);
  std::vector<guint8> hin (in.size), hout (out.size);
  gst_cs::gpu::ConvertScale op, resolved;
  if (!describe_row (r, &in, &out, hin.data (), hout.data (), &op, &resolved))
    return false;
  std::vector<guint64> table;
  if (lines && gst_cs::gpu::convert_scale_lines_bytes (resolved) > 0) {
    table.resize (gst_cs::gpu::convert_scale_lines_bytes (resolved) / 8);
    gst_cs::gpu::convert_scale_point_lines (&resolved, table.data ());
  }
  const std::string file = dir + "/" + r.name + ".cubin";
  std::string log;
  int stack = -1;
  /* The compiler process writes the file where it can, and says nothing
   * where it cannot: a file of an earlier run must not stand for this one. */
  g_unlink (file.c_str ());
  bool ok = gst_cs::gpu::rtc::compiles (resolved, kernel, arch, &log, &stack, file);
  if (ok && !g_file_test (file.c_str (), G_FILE_TEST_IS_REGULAR)) {
    ok = false;
    log = "compiled, but " + file + " was not written";
  }
  std::printf ("CONVERT-CUBIN {\"row\":\"%s\",\"path\":\"%s\",\"compiled\":%s,"
               "\"stack\":%d,\"table\":%s,\"cubin\":\"%s\"}\n",
      r.name.c_str (), gst_cs::gpu::convert_scale_path (resolved), ok ? "true" : "false",
      stack, table.empty () ? "false" : "true", ok ? file.c_str () : "");
  if (!ok)
    std::fprintf (stderr, "%s: %s\n", r.name.c_str (), log.c_str ());
  return ok;
}

} // namespace

int
main (int argc, char ** argv)
{
  /* The rows: pipelines/convert_rows.txt (or --rows FILE); a further
   * argument picks those whose name holds it. */
  const char * rows_path = GCS_CONVERT_ROWS;
  const char * pick = nullptr;
  bool copies = false, lines = true;
  const char *cubin_kernel = nullptr, *cubin_dir = nullptr, *arch = "sm_90";
  for (int i = 1; i < argc; i++) {
    if (std::strcmp (argv[i], "--rows") == 0 && i + 1 < argc)
      rows_path = argv[++i];
    else if (std::strcmp (argv[i], "--cubin") == 0 && i + 2 < argc)
      cubin_kernel = argv[++i], cubin_dir = argv[++i];
    else if (std::strcmp (argv[i], "--arch") == 0 && i + 1 < argc)
      arch = argv[++i];
    else if (std::strcmp (argv[i], "--copies") == 0)
      copies = true;
    else if (std::strcmp (argv[i], "--no-lines") == 0)
      lines = false;
    else
      pick = argv[i];
  }
  gst_init (nullptr, nullptr);
  std::ifstream file (rows_path);
  if (!file) {
    std::fprintf (stderr, "Cannot read the rows of %s\n", rows_path);
    return 1;
  }
  std::vector<Row> rows;
  for (std::string line; std::getline (file, line);) {
    if (line.empty () || line[0] == '#')
      continue;
    Row r;
    if (!parse_row (line, &r)) {
      std::fprintf (stderr, "%s: not a row: %s\n", rows_path, line.c_str ());
      return 1;
    }
    /* The matrix names formats of newer GStreamers (GBR_16LE is 1.24's):
     * this one's rows only. */
    if (r.in_format == GST_VIDEO_FORMAT_UNKNOWN ||
        r.out_format == GST_VIDEO_FORMAT_UNKNOWN) {
      std::fprintf (stderr, "%s: skipped, a format this GStreamer does not know: %s\n",
          rows_path, line.c_str ());
      continue;
    }
    rows.push_back (r);
  }
  if (cubin_kernel) {
    if (g_mkdir_with_parents (cubin_dir, 0755) != 0) {
      std::fprintf (stderr, "Cannot make %s: %s\n", cubin_dir, g_strerror (errno));
      return 1;
    }
    bool ok = true, any = false;
    for (const Row & r : rows)
      if (!pick || r.name.find (pick) != std::string::npos) {
        any = true;
        ok = compile_row (r, lines, cubin_kernel, arch, cubin_dir) && ok;
      }
    if (!any)
      std::fprintf (stderr, "No row of %s is named %s\n", rows_path, pick ? pick : "");
    return ok && any ? 0 : 1;
  }
  cudaStream_t stream;
  if (!check (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking), "stream"))
    return 1;
  bool ok = true;
  for (const Row & r : rows)
    if (!pick || r.name.find (pick) != std::string::npos)
      ok = run_row (r, stream, copies, lines) && ok;
  cudaStreamDestroy (stream);
  return ok ? 0 : 1;
}
