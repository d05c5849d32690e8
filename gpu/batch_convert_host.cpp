/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* batch_convert's checks and resolution (for the launch and the twin),
 * batch_convert_normalize (its launch, batch_convert_launch, is the
 * kernel's or the stand-in's) and the CPU twin: the fixed-point kernel's
 * tiles, as the GPU fills and walks them, with each pixel's codes
 * normalised where it lands. */
#include "batch_convert.h"

#include <memory>

#include "batch_normalize_pixels.h"
#include "convert_scale_fixed_point.h"
#include "convert_scale_path.h"
#include "convert_scale_pixels.h"
#include "convert_scale_two_tap.h"

namespace gst_cs::gpu {
namespace {

bool
tensor_is_valid (const BatchNormalize & t)
{
  if (!t.dst || t.batch <= 0 || t.batch > 65535 || t.width <= 0 || t.height <= 0)
    return false;
  if (t.type != TensorType::UINT8 && t.type != TensorType::FLOAT16 &&
      t.type != TensorType::FLOAT32)
    return false;
  const unsigned long long elements =
      (unsigned long long)t.batch * 3ull * (unsigned long long)t.width * t.height;
  return elements <= (1ull << 31);
}

} // namespace

bool
batch_convert_resolve (const BatchConvert & b, BatchConvert * resolved)
{
  if (b.count < 1 || b.count > BatchConvert::kMaxFrames || !tensor_is_valid (b.norm))
    return false;
  resolved->count = b.count;
  resolved->norm = b.norm;
  resolved->layout = batch::tensor_layout (b.norm);
  for (int k = 0; k < b.count; k++) {
    const ConvertScale & op = b.op[k];
    if (!convert_scale_is_valid (op) || b.slot[k] < 0 || b.slot[k] >= b.norm.batch ||
        op.out.width != b.norm.width || op.out.height != b.norm.height)
      return false;
    ConvertScale & r = resolved->op[k];
    r = op;
    pixels::resolve (r);
    fixed_point::resolve (r);
    /* One kernel instance for all: one filter (as two_tap::dispatch_filter
     * sees it) and one chroma word. */
    if (!batch_convert_applies (r) || r.fixed.word != resolved->op[0].fixed.word ||
        (r.filter == Filter::NEAREST) != (resolved->op[0].filter == Filter::NEAREST))
      return false;
    resolved->slot[k] = b.slot[k];
  }
  return true;
}

cudaError_t
batch_convert_normalize (const BatchConvert & b, cudaStream_t stream)
{
  /* On the heap: 26 KB. */
  auto r = std::make_unique<BatchConvert> ();
  if (!batch_convert_resolve (b, r.get ()))
    return cudaErrorInvalidValue;
  return batch_convert_launch (*r, stream);
}

bool
batch_convert_fits (const BatchConvert & b)
{
  auto resolved = std::make_unique<BatchConvert> ();
  return batch_convert_resolve (b, resolved.get ());
}

namespace {

/* Frame `op` (resolved) into slot `n`, tile by tile as
 * convert_scale_fixed_point_kernel and batch_convert_kernel walk them. */
template <Filter F, int Word, typename T>
void
frame_as_gpu (const ConvertScale & op, int n, const BatchConvert & b)
{
  /* The kernel's tiles: those of a grid of b.count frames. */
  const batch::TensorLayout & l = b.layout;
  const int nbx = op.out.width, nby = op.out.height; /* a block is a pixel */
  const int rows = two_tap::tile_rows (nbx, nby, true, b.count);
  auto tile = std::make_unique<fixed_point::Tile> ();
  for (int ty = 0; ty < (nby + rows - 1) / rows; ty++)
    for (int tx = 0; tx < (nbx + two_tap::kTileX - 1) / two_tap::kTileX; tx++) {
      const two_tap::TileLines lines = two_tap::tile_lines (op, tx, ty, rows);
      for (int k = 0; k < two_tap::tile_entries (lines); k++)
        two_tap::fill_entry<F> (op, lines, *tile, k);
      for (int x = tx * two_tap::kTileX; x < nbx && x < (tx + 1) * two_tap::kTileX; x++)
        fixed_point::write_line<Word, false> (op, op.fixed, lines, *tile, x, ty * rows,
            (ty + 1) * rows, 1, [&] (int y, unsigned codes) {
              batch::store_codes<T> (b.norm.dst, l,
                  (unsigned)n * l.slot + (unsigned)y * l.row + (unsigned)x * l.pixel,
                  codes);
            });
    }
}

} // namespace

void
batch_convert_resolved_on_host (const BatchConvert & r)
{
  for (int k = 0; k < r.count; k++) {
    const ConvertScale & op = r.op[k];
    two_tap::dispatch_filter (op, [&] (auto f) {
      fixed_point::dispatch_word<false> (op, [&] (auto word) {
        constexpr Filter F = decltype (f)::value;
        constexpr int Word = decltype (word)::value;
        if (r.norm.type == TensorType::UINT8)
          frame_as_gpu<F, Word, std::uint8_t> (op, r.slot[k], r);
        else if (r.norm.type == TensorType::FLOAT16)
          frame_as_gpu<F, Word, std::uint16_t> (op, r.slot[k], r);
        else
          frame_as_gpu<F, Word, float> (op, r.slot[k], r);
      });
    });
  }
}

bool
batch_convert_on_host (const BatchConvert & b)
{
  auto r = std::make_unique<BatchConvert> ();
  if (!batch_convert_resolve (b, r.get ()))
    return false;
  batch_convert_resolved_on_host (*r);
  return true;
}

} // namespace gst_cs::gpu
