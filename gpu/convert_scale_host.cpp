/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The checks both convert_scale implementations make, and the CPU twin of
 * the kernels: the same per-block code (convert_scale_pixels.h), run over
 * every block in turn; the kernel families' twins in
 * convert_scale_host_*.cpp (convert_scale_host_twin.h). */
#include "convert_scale.h"

#include <cstring>
#include <type_traits>

#include "convert_scale_addresses.h"
#include "convert_scale_direct.h"
#include "convert_scale_fixed_point.h"
#include "convert_scale_fixed_taps.h"
#include "convert_scale_one_sample.h"
#include "convert_scale_path.h"
#include "convert_scale_pixels.h"
#include "convert_scale_planes.h"
#include "convert_scale_host_twin.h"

namespace gst_cs::gpu {
namespace {

constexpr int kMaxSize = 16384;

bool
image_is_valid (const Image & im)
{
  if (im.width < 1 || im.height < 1 || im.width > kMaxSize || im.height > kMaxSize ||
      (im.bytes != 1 && im.bytes != 2) || im.max_code < 1 || im.shift < 0 ||
      im.shift > 8 || (im.bytes == 1 && im.shift != 0))
    return false;
  for (const Component & c : im.comp) {
    if (c.plane < 0)
      continue;
    if (c.plane >= kConvertPlanes || !im.data[c.plane] || c.step < 1 || c.offset < 0 ||
        c.log2_x < 0 || c.log2_x > 2 || c.log2_y < 0 || c.log2_y > 2)
      return false;
    /* A component's own word (Component::word): 1, 2 or 4 bytes holding
     * its code. 4:1:1 and 4:1:0 take the generic path, which such words
     * make. */
    /* A palette's codes lie in its 32-bit entries, indexed by a byte. */
    const int bits = im.palette ? 32 : 8 * c.word;
    if (c.word != 0 &&
        ((c.word != 1 && c.word != 2 && c.word != 4) || c.shift < 0 || c.max_code < 1 ||
            c.max_code > 0xffff || ((c.max_code + 1) & c.max_code) != 0 ||
            ((std::uint64_t)c.max_code << c.shift) >> bits != 0))
      return false;
    if ((im.palette && (c.word != 1 || c.plane != 0 || !im.data[1])) || c.pair_step < 0 ||
        (c.pair_step != 0 && c.word == 0))
      return false;
    if (c.word == 0 && (c.log2_x > 1 || c.log2_y > 1))
      return false;
    /* Sample offsets are 32-bit (pixels::sample_offset). */
    const std::uint64_t last = (std::uint64_t) (im.height - 1) * im.pitch[c.plane] +
                               (std::uint64_t)im.width * (unsigned)c.step +
                               (unsigned)c.offset;
    if (last > 0xffffffffu)
      return false;
  }
  /* The chroma components share one subsampling (blocks follow comp[1]). */
  const Component &u = im.comp[1], &v = im.comp[2];
  return !im.yuv || u.plane < 0 ||
         (v.plane >= 0 && u.log2_x == v.log2_x && u.log2_y == v.log2_y);
}

bool
inside (int x, int y, int w, int h, int width, int height)
{
  return x >= 0 && y >= 0 && w >= 1 && h >= 1 && x <= width - w && y <= height - h;
}

} // namespace

bool
convert_scale_is_valid (const ConvertScale & op)
{
  return image_is_valid (op.in) && image_is_valid (op.out) && op.in.comp[0].plane >= 0 &&
         op.out.comp[0].plane >= 0 &&
         inside (op.src_x, op.src_y, op.src_w, op.src_h, op.in.width, op.in.height) &&
         inside (op.dst_x, op.dst_y, op.dst_w, op.dst_h, op.out.width, op.out.height) &&
         static_cast<int> (op.orientation) >= 0 &&
         static_cast<int> (op.orientation) <= 7 && static_cast<int> (op.filter) >= 0 &&
         static_cast<int> (op.filter) <= 3;
}

bool
convert_scale_resolve (const ConvertScale & op, ConvertScale * resolved)
{
  if (!convert_scale_is_valid (op))
    return false;
  /* Bytes, padding included: a resolved description is compared and
   * hashed as bytes (ConvertMemo, ConvertLines, the compiled kernels'
   * keys), and an assignment need not copy padding. */
  static_assert (std::is_trivially_copyable_v<ConvertScale>);
  std::memcpy (static_cast<void *> (resolved), &op, sizeof op);
  pixels::resolve (*resolved);
  if (!pixels::generic (*resolved))
    fixed_point::resolve (*resolved);
  return true;
}

/* Every pointer of a resolved description into a frame, moved
 * (each_address): a field added to ConvertScale that points into a frame
 * must be listed there, one that points to the description's own memory
 * in each_table_address_pair (the size check makes whoever adds one
 * look). */
static_assert (sizeof (void *) != 8 || sizeof (ConvertScale) == 1016,
    "ConvertScale changed: list its new pointers in each_address_pair or "
    "each_table_address_pair");

bool
convert_scale_move (
    ConvertScale * resolved, std::ptrdiff_t in_shift, std::ptrdiff_t out_shift)
{
  if (in_shift % kMoveAlignment != 0 || out_shift % kMoveAlignment != 0)
    return false;
  each_address (*resolved, [&] (auto *& p, bool input) {
    if (p) /* an absent plane stays absent */
      p = reinterpret_cast<std::remove_reference_t<decltype (p)>> (
          reinterpret_cast<std::uintptr_t> (p) +
          static_cast<std::uintptr_t> (input ? in_shift : out_shift));
  });
  return true;
}

bool
convert_scale_on_host (const ConvertScale & op)
{
  ConvertScale resolved;
  if (!convert_scale_resolve (op, &resolved))
    return false;
  twin::plain (resolved);
  return true;
}

const char *
convert_scale_path (const ConvertScale & op)
{
  ConvertScale r;
  return convert_scale_resolve (op, &r) ? path_name (choose_path (r)) : nullptr;
}

std::size_t
convert_scale_lines_bytes (const ConvertScale & resolved)
{
  if (choose_path (resolved) != Path::FIXED_TAPS)
    return 0;
  int n[2];
  fixed_point::quad_lines_extent (resolved, n);
  return 2 * (std::size_t) (n[0] + n[1]) * sizeof (fixed_point::QuadTaps);
}

void
convert_scale_point_lines (ConvertScale * resolved, const void * table)
{
  ConvertScale::FixedPoint & f = resolved->fixed;
  f.lines = nullptr;
  f.lines_on = false;
  for (auto & at : f.lines_at)
    at[0] = at[1] = 0;
  if (!table || convert_scale_lines_bytes (*resolved) == 0)
    return;
  int n[2];
  fixed_point::quad_lines_extent (*resolved, n);
  /* [g][v]: luma's columns, its rows, then the chroma's. */
  f.lines_at[0][0] = 0;
  f.lines_at[0][1] = n[0];
  f.lines_at[1][0] = n[0] + n[1];
  f.lines_at[1][1] = 2 * n[0] + n[1];
  f.lines = table;
  f.lines_on = true;
}

bool
convert_scale_lines_pointed (const ConvertScale & pointed)
{
  return pointed.fixed.lines_on && convert_scale_lines_bytes (pointed) > 0;
}

void
convert_scale_fill_lines_on_host (const ConvertScale & pointed)
{
  if (!convert_scale_lines_pointed (pointed))
    return;
  const int n =
      (int)(convert_scale_lines_bytes (pointed) / sizeof (fixed_point::QuadTaps));
  auto * table =
      static_cast<fixed_point::QuadTaps *> (const_cast<void *> (pointed.fixed.lines));
  fixed_point::dispatch_quad_filter (pointed, [&] (auto f) {
    for (int e = 0; e < n; e++)
      fixed_point::fill_quad_line<decltype (f)::value> (pointed, table, e);
  });
}

bool
convert_scale_as_gpu_on_host (const ConvertScale & op)
{
  ConvertScale resolved;
  if (!convert_scale_resolve (op, &resolved))
    return false;
  convert_scale_resolved_as_gpu_on_host (resolved);
  return true;
}

void
convert_scale_resolved_as_gpu_on_host (const ConvertScale & resolved)
{
  const int nbx = pixels::blocks_x (resolved.out), nby = pixels::blocks_y (resolved.out);
  switch (choose_path (resolved)) {
    case Path::DIRECT:
      pixels::dispatch_bytes (resolved, [&] (auto ib, auto ob) {
        twin::each_block (resolved, [&] (int bx, int by) {
          if (bx % direct::kGroup == 0)
            direct::write_group<decltype (ib)::value, decltype (ob)::value> (
                resolved, bx, by);
        });
      });
      break;
    case Path::STAGED:
      /* The staged kernel reads the same words as one_sample's, from
       * shared memory: its pixels are one_sample's with the same Members. */
      one_sample::dispatch_staged (resolved, [&] (auto members, auto ib, auto ob) {
        twin::each_block (resolved, [&] (int bx, int by) {
          one_sample::write_block<decltype (ib)::value, decltype (ob)::value,
              decltype (members)> (resolved, bx, by);
        });
      });
      break;
    case Path::ONE_SAMPLE:
      one_sample::dispatch_bytes (resolved, [&] (auto ib, auto ob) {
        twin::each_block (resolved, [&] (int bx, int by) {
          one_sample::write_block<decltype (ib)::value, decltype (ob)::value> (
              resolved, bx, by);
        });
      });
      break;
    case Path::FIXED_POINT:
      twin::fixed_point_as_gpu (resolved, nbx, nby);
      break;
    case Path::FIXED_TAPS:
      twin::fixed_taps_as_gpu (resolved, nbx, nby);
      break;
    case Path::PLANES:
      planes::dispatch (resolved, [&] (auto f, auto ib, auto ob, auto word) {
        for (int bx = 0; bx < nbx; bx++)
          planes::write_column<decltype (f)::value, decltype (ib)::value,
              decltype (ob)::value, decltype (word)::value> (
              resolved, bx, 0, nby, 1, nby,
              [&] (int by) {
                return planes::line_taps<decltype (f)::value> (resolved, true, by);
              },
              planes::global_sources<decltype (ib)::value> (resolved));
      });
      break;
    case Path::TWO_TAP:
      twin::two_tap_as_gpu (resolved, nbx, nby);
      break;
    case Path::TAP_TILE:
      twin::tap_tile_as_gpu (resolved, nbx, nby);
      break;
    case Path::TAPS_PER_PIXEL: /* the kernel's instance, as plain's arithmetic */
      dispatch_taps_per_pixel (resolved, [&] (auto f, auto ib, auto ob) {
        twin::each_block (resolved, [&] (int bx, int by) {
          pixels::write_block<decltype (f)::value, decltype (ib)::value,
              decltype (ob)::value> (resolved, bx, by);
        });
      });
      break;
  }
}

} // namespace gst_cs::gpu
