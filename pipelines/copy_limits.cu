/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gcs-copy-limits: what the PCIe link and the copy engines allow per frame.
 *
 * For the frames of the benchmark (RGBA and NV12, 1920x1080 and 3840x2160)
 * it times host->device, device->host and both at once (duplex, one CUDA
 * stream and one host thread per direction), from pinned (cudaHostAlloc) and
 * pageable (malloc) host memory, plus the crop case's pair (a 4K frame up, its
 * 1080p centre down). Each figure is the median of --reps timed rounds after
 * one untimed round; a round is a batch of copies of one frame size (host
 * frames rotate over four buffers, as a producer's do), timed with CUDA
 * events; in duplex both directions start together from a host barrier.
 *
 * Pageable figures depend on where the frames sit: the driver stages them
 * with a CPU memcpy, which on a host with a large last-level cache (300 MiB
 * on the H200 machine used) runs ~17 GB/s from cache and ~10 GB/s from DRAM.
 * Four rotating 33 MB frames straddle that line, so the 4K RGBA pageable
 * figure varies from run to run (9.5-14.4 GB/s seen); pinned ones do not.
 *
 * "linear" copies are one cudaMemcpyAsync per frame; "pitched" ones copy each
 * plane with cudaMemcpy2DAsync into rows aligned to 256 bytes, the layout the
 * elements use on the device, so a gap between the two says what the layout
 * costs.
 *
 * Output: a table, then one line "LIMIT {json}" per figure for scripts.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#define CHECK(call) \
  do { \
    cudaError_t err_ = (call); \
    if (err_ != cudaSuccess) { \
      std::fprintf (stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
          cudaGetErrorString (err_)); \
      std::exit (1); \
    } \
  } while (0)

namespace {

constexpr size_t kPitchAlign = 256; /* as GST_CS_DEVICE_PITCH_ALIGN */
constexpr size_t kRoundBytes = 200u << 20;

struct Plane {
  size_t row, rows;
};

struct Frame {
  std::string name;
  std::vector<Plane> planes;

  size_t bytes () const
  {
    size_t b = 0;
    for (const Plane & p : planes)
      b += p.row * p.rows;
    return b;
  }
};

Frame
make_frame (const char * format, size_t w, size_t h)
{
  Frame f;
  f.name = std::string (format) + " " + std::to_string (w) + "x" + std::to_string (h);
  if (std::strcmp (format, "NV12") == 0)
    f.planes = { { w, h }, { w, (h + 1) / 2 } };
  else
    f.planes = { { w * 4, h } };
  return f;
}

size_t
align_up (size_t v, size_t a)
{
  return (v + a - 1) / a * a;
}

enum class Mem { pinned, pageable };

const char *
mem_name (Mem m)
{
  return m == Mem::pinned ? "pinned" : "pageable";
}

/* One direction of a measurement; frame == nullptr means idle. */
struct Side {
  const Frame * frame = nullptr;
  Mem mem = Mem::pinned;
  bool pitched = false;
};

/* Host frames rotate, as a producer's frames do: a pageable copy is staged
 * by a CPU memcpy, which would look faster than it is if the same frame
 * stayed in the CPU caches. */
constexpr int kHostFrames = 4;

struct Buffers {
  void *dev_up = nullptr, *dev_down = nullptr;
  void *pinned_up[kHostFrames] = {}, *pinned_down[kHostFrames] = {};
  void *pageable_up[kHostFrames] = {}, *pageable_down[kHostFrames] = {};
};

void
enqueue (const Side & s, const Buffers & b, bool up, int i, cudaStream_t stream)
{
  int k = i % kHostFrames;
  char * host = static_cast<char *> (
      up ? (s.mem == Mem::pinned ? b.pinned_up[k] : b.pageable_up[k])
         : (s.mem == Mem::pinned ? b.pinned_down[k] : b.pageable_down[k]));
  char * dev = static_cast<char *> (up ? b.dev_up : b.dev_down);
  cudaMemcpyKind kind = up ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
  if (!s.pitched) {
    size_t n = s.frame->bytes ();
    CHECK (cudaMemcpyAsync (
        up ? (void *)dev : host, up ? (void *)host : dev, n, kind, stream));
    return;
  }
  size_t hoff = 0, doff = 0;
  for (const Plane & p : s.frame->planes) {
    size_t pitch = align_up (p.row, kPitchAlign);
    if (up)
      CHECK (cudaMemcpy2DAsync (
          dev + doff, pitch, host + hoff, p.row, p.row, p.rows, kind, stream));
    else
      CHECK (cudaMemcpy2DAsync (
          host + hoff, p.row, dev + doff, pitch, p.row, p.rows, kind, stream));
    hoff += p.row * p.rows;
    doff += align_up (pitch * p.rows, kPitchAlign);
  }
}

struct Streams {
  cudaStream_t up, down;
  cudaEvent_t up_start, up_done, down_start, down_done;
};

double
median (std::vector<double> v)
{
  std::sort (v.begin (), v.end ());
  return v.empty () ? 0 : v[v.size () / 2];
}

struct Result {
  double fps = 0, h2d_gbps = 0, d2h_gbps = 0;
};

/* Elapsed seconds from a to b (b may be the earlier one). */
double
seconds_between (cudaEvent_t a, cudaEvent_t b)
{
  float ms = 0;
  CHECK (cudaEventElapsedTime (&ms, a, b));
  return ms / 1e3;
}

Result
measure (
    const Side & up, const Side & down, const Buffers & b, const Streams & s, int reps)
{
  size_t up_bytes = up.frame ? up.frame->bytes () : 0;
  size_t down_bytes = down.frame ? down.frame->bytes () : 0;
  int batch =
      (int)std::clamp<size_t> (kRoundBytes / std::max (up_bytes, down_bytes), 2, 64);
  int sides = (up.frame ? 1 : 0) + (down.frame ? 1 : 0);
  std::vector<double> pair, t_up, t_down;
  for (int r = -1; r < reps; r++) {
    /* Pageable copies block the calling thread: one thread per direction
     * lets the two directions really run at the same time. Both threads
     * start at a host barrier, each stamps its idle stream just before its
     * first copy, so the round runs from the earlier stamp to the later end. */
    std::atomic<int> arrived{ 0 };
    auto side = [&] (const Side & sd, bool is_up) {
      cudaStream_t st = is_up ? s.up : s.down;
      arrived.fetch_add (1);
      while (arrived.load () < sides) {
      }
      CHECK (cudaEventRecord (is_up ? s.up_start : s.down_start, st));
      for (int i = 0; i < batch; i++)
        enqueue (sd, b, is_up, i, st);
      CHECK (cudaEventRecord (is_up ? s.up_done : s.down_done, st));
    };
    std::thread tu, td;
    if (up.frame)
      tu = std::thread (side, std::cref (up), true);
    if (down.frame)
      td = std::thread (side, std::cref (down), false);
    if (tu.joinable ())
      tu.join ();
    if (td.joinable ())
      td.join ();
    double sec_up = 0, sec_down = 0, round = 0;
    if (up.frame) {
      CHECK (cudaEventSynchronize (s.up_done));
      sec_up = seconds_between (s.up_start, s.up_done);
    }
    if (down.frame) {
      CHECK (cudaEventSynchronize (s.down_done));
      sec_down = seconds_between (s.down_start, s.down_done);
    }
    if (up.frame && down.frame) {
      /* From the earlier start to the later end. */
      cudaEvent_t first =
          seconds_between (s.up_start, s.down_start) >= 0 ? s.up_start : s.down_start;
      round = std::max (
          seconds_between (first, s.up_done), seconds_between (first, s.down_done));
    } else {
      round = sec_up + sec_down;
    }
    if (r < 0)
      continue; /* warm-up: first touch, staging buffers */
    pair.push_back (round / batch);
    t_up.push_back (sec_up / batch);
    t_down.push_back (sec_down / batch);
  }
  Result res;
  res.fps = 1.0 / median (pair);
  if (up.frame)
    res.h2d_gbps = up_bytes / median (t_up) / 1e9;
  if (down.frame)
    res.d2h_gbps = down_bytes / median (t_down) / 1e9;
  return res;
}

void
emit (const char * what, const char * mem, const Side & up, const Side & down,
    const Result & r)
{
  const Side & any = up.frame ? up : down;
  const char * layout = any.pitched ? "pitched" : "linear";
  std::string fr_up = up.frame ? up.frame->name : "-";
  std::string fr_down = down.frame ? down.frame->name : "-";
  std::printf ("%-7s %-9s %-8s %-16s %-16s %10.0f %9.1f %9.1f\n", what, mem, layout,
      fr_up.c_str (), fr_down.c_str (), r.fps, r.h2d_gbps, r.d2h_gbps);
  std::printf ("LIMIT {\"what\":\"%s\",\"mem\":\"%s\",\"layout\":\"%s\",\"up\":\"%s\","
               "\"down\":\"%s\",\"up_bytes\":%zu,\"down_bytes\":%zu,\"fps\":%.1f,"
               "\"h2d_gbps\":%.3f,\"d2h_gbps\":%.3f}\n",
      what, mem, layout, up.frame ? fr_up.c_str () : "",
      down.frame ? fr_down.c_str () : "", up.frame ? up.frame->bytes () : 0,
      down.frame ? down.frame->bytes () : 0, r.fps, r.h2d_gbps, r.d2h_gbps);
  std::fflush (stdout);
}

void *
host_alloc (Mem m, size_t bytes)
{
  void * p = nullptr;
  if (m == Mem::pinned) {
    CHECK (cudaHostAlloc (&p, bytes, cudaHostAllocPortable));
  } else {
    p = std::malloc (bytes);
    if (!p) {
      std::fprintf (stderr, "out of memory\n");
      std::exit (1);
    }
  }
  /* Touch every page so no first-touch fault is timed. */
  std::memset (p, 0x5a, bytes);
  return p;
}

} // namespace

int
main (int argc, char ** argv)
{
  int reps = 7;
  for (int i = 1; i < argc; i++) {
    if (std::strcmp (argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = std::max (1, std::atoi (argv[++i]));
    } else if (std::strcmp (argv[i], "--quick") == 0) {
      reps = 3;
    } else {
      std::fprintf (stderr, "usage: %s [--reps N | --quick]\n", argv[0]);
      return 2;
    }
  }
  int device = 0;
  cudaDeviceProp prop;
  CHECK (cudaGetDeviceProperties (&prop, device));
  std::printf ("# %s, PCI %04x:%02x:%02x, %d async copy engines; median of %d rounds\n",
      prop.name, prop.pciDomainID, prop.pciBusID, prop.pciDeviceID, prop.asyncEngineCount,
      reps);

  std::vector<Frame> frames = { make_frame ("RGBA", 1920, 1080),
    make_frame ("RGBA", 3840, 2160), make_frame ("NV12", 1920, 1080),
    make_frame ("NV12", 3840, 2160) };
  size_t cap = 0;
  for (const Frame & f : frames) {
    size_t pitched = 0;
    for (const Plane & p : f.planes)
      pitched += align_up (align_up (p.row, kPitchAlign) * p.rows, kPitchAlign);
    cap = std::max ({ cap, f.bytes (), pitched });
  }
  Buffers b;
  CHECK (cudaMalloc (&b.dev_up, cap));
  CHECK (cudaMalloc (&b.dev_down, cap));
  for (int k = 0; k < kHostFrames; k++) {
    b.pinned_up[k] = host_alloc (Mem::pinned, cap);
    b.pinned_down[k] = host_alloc (Mem::pinned, cap);
    b.pageable_up[k] = host_alloc (Mem::pageable, cap);
    b.pageable_down[k] = host_alloc (Mem::pageable, cap);
  }
  Streams s;
  CHECK (cudaStreamCreateWithFlags (&s.up, cudaStreamNonBlocking));
  CHECK (cudaStreamCreateWithFlags (&s.down, cudaStreamNonBlocking));
  CHECK (cudaEventCreate (&s.up_start));
  CHECK (cudaEventCreate (&s.up_done));
  CHECK (cudaEventCreate (&s.down_start));
  CHECK (cudaEventCreate (&s.down_done));

  std::printf ("%-7s %-9s %-8s %-16s %-16s %10s %9s %9s\n", "what", "host mem", "layout",
      "up frame", "down frame", "frames/s", "H2D GB/s", "D2H GB/s");
  const Side none;
  for (const Frame & f : frames) {
    for (Mem m : { Mem::pinned, Mem::pageable }) {
      Side one{ &f, m, false };
      emit ("h2d", mem_name (m), one, none, measure (one, none, b, s, reps));
      emit ("d2h", mem_name (m), none, one, measure (none, one, b, s, reps));
      emit ("duplex", mem_name (m), one, one, measure (one, one, b, s, reps));
    }
    Side pitched{ &f, Mem::pinned, true };
    emit ("h2d", "pinned", pitched, none, measure (pitched, none, b, s, reps));
    emit ("d2h", "pinned", none, pitched, measure (none, pitched, b, s, reps));
    emit ("duplex", "pinned", pitched, pitched, measure (pitched, pitched, b, s, reps));
    /* What cudaupload does with pageable input: one 2D copy per plane. */
    Side pageable_pitched{ &f, Mem::pageable, true };
    emit ("h2d", "pageable", pageable_pitched, none,
        measure (pageable_pitched, none, b, s, reps));
    /* Pageable producer, pinned consumer: what cudaupload from malloc'd
     * frames and cudadownload into its pinned pool face together. */
    Side pageable_up{ &f, Mem::pageable, false }, pinned_down{ &f, Mem::pinned, false };
    emit ("duplex", "mixed", pageable_up, pinned_down,
        measure (pageable_up, pinned_down, b, s, reps));
  }
  /* The crop case: a 4K frame up, its 1080p centre down. */
  for (int i = 0; i < 2; i++) {
    const Frame &big = frames[2 * i + 1], &small = frames[2 * i];
    Side up{ &big, Mem::pinned, false }, down{ &small, Mem::pinned, false };
    emit ("duplex", "pinned", up, down, measure (up, down, b, s, reps));
    Side up_pg{ &big, Mem::pageable, false };
    emit ("duplex", "mixed", up_pg, down, measure (up_pg, down, b, s, reps));
  }

  CHECK (cudaFree (b.dev_up));
  CHECK (cudaFree (b.dev_down));
  for (int k = 0; k < kHostFrames; k++) {
    CHECK (cudaFreeHost (b.pinned_up[k]));
    CHECK (cudaFreeHost (b.pinned_down[k]));
    std::free (b.pageable_up[k]);
    std::free (b.pageable_down[k]);
  }
  return 0;
}
