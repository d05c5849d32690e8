/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The checks both convert_scale implementations make, and the CPU twin of
 * the kernel: the same per-block code (convert_scale_pixels.h), run over
 * every block in turn. */
#include "convert_scale.h"

#include <climits>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "convert_scale_addresses.h"
#include "convert_scale_direct.h"
#include "convert_scale_fixed_point.h"
#include "convert_scale_fixed_taps.h"
#include "convert_scale_one_sample.h"
#include "convert_scale_path.h"
#include "convert_scale_pixels.h"
#include "convert_scale_planes.h"
#include "convert_scale_tap_tile.h"
#include "convert_scale_two_tap.h"

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

namespace {

/* Calls write (bx, by) for every output block of `op`, row by row. */
template <class Write>
void
each_block (const ConvertScale & op, Write write)
{
  const int nbx = pixels::blocks_x (op.out), nby = pixels::blocks_y (op.out);
  for (int by = 0; by < nby; by++)
    for (int bx = 0; bx < nbx; bx++)
      write (bx, by);
}

/* The twin on a resolved, valid `op`. */
void
plain_twin (const ConvertScale & op)
{
  if (op.fixed.on && op.fixed.taps == 4) {
    fixed_point::dispatch_quad_filter (op, [&] (auto f) {
      fixed_point::dispatch_word<false> (op, [&] (auto word) {
        each_block (op, [&] (int bx, int by) {
          fixed_point::write_quad_twin<decltype (f)::value, decltype (word)::value> (
              op, bx, by);
        });
      });
    });
    return;
  }
  if (op.fixed.on) { /* a block is a pixel where !op.fixed.blocks */
    two_tap::dispatch_filter (op, [&] (auto f) {
      fixed_point::dispatch_word (op, [&] (auto word) {
        constexpr Filter F = decltype (f)::value;
        constexpr int Word = decltype (word)::value;
        each_block (op, [&] (int bx, int by) {
          if (op.fixed.blocks)
            fixed_point::write_block_twin<F, Word> (op, bx, by);
          else
            fixed_point::write_pixel<F, Word> (op, bx, by);
        });
      });
    });
    return;
  }
  pixels::dispatch (op, [&] (auto f, auto ib, auto ob) {
    each_block (op, [&] (int bx, int by) {
      pixels::write_block<decltype (f)::value, decltype (ib)::value,
          decltype (ob)::value> (op, bx, by);
    });
  });
}

/* Calls fn (lines, tx, ty) for each tile (tx, ty) of ntx x nty, whose
 * lines are lines_at (tx, ty), with `tile` filled for it (by its family's
 * fill_entry, as fill_tile_lines fills it). */
template <Filter F, class Tile, class LinesAt, class Fn>
void
each_tile_of (
    const ConvertScale & op, int ntx, int nty, LinesAt lines_at, Tile & tile, Fn fn)
{
  using fixed_point::fill_entry;
  using tap_tile::fill_entry;
  using two_tap::fill_entry;
  for (int ty = 0; ty < nty; ty++)
    for (int tx = 0; tx < ntx; tx++) {
      const two_tap::TileLines lines = lines_at (tx, ty);
      for (int k = 0; k < two_tap::tile_entries (lines); k++)
        fill_entry<F> (op, lines, tile, k);
      fn (lines, tx, ty);
    }
}

/* Calls fn (lines, tx, ty) for each tile (tx, ty) of `rows` rows of
 * blocks that the tiled kernels give an nbx x nby output, with `tile`
 * filled for it (by its family's fill_entry, as fill_tile fills it). */
template <Filter F, class Tile, class Fn>
void
each_tile (const ConvertScale & op, int nbx, int nby, int rows, Tile & tile, Fn fn)
{
  each_tile_of<F> (
      op, (nbx + two_tap::kTileX - 1) / two_tap::kTileX, (nby + rows - 1) / rows,
      [&] (int tx, int ty) { return two_tap::tile_lines (op, tx, ty, rows); }, tile, fn);
}

/* The blocks kernels' tiles (fixed_point_blocks, whichever taps fill
 * `tile`): each tile's pixels staged, pixel (lines, x, y) each, then the
 * chroma of its blocks written from them. */
template <Filter F, class Tile, class Pixel>
void
staged_blocks_as_gpu (
    const ConvertScale & op, int nbx, int nby, int rows, Tile & tile, Pixel pixel)
{
  auto chroma = std::make_unique<fixed_point::ChromaTile> ();
  each_tile<F> (
      op, nbx, nby, rows, tile, [&] (const two_tap::TileLines & lines, int tx, int ty) {
        fixed_point::stage_pixels (
            op, lines, *chroma, 0, 1, [&] (int x, int y) { return pixel (lines, x, y); });
        for (int bx = tx * two_tap::kTileX; bx < nbx && bx < (tx + 1) * two_tap::kTileX;
             bx++)
          for (int by = ty * rows; by < nby && by < (ty + 1) * rows; by++)
            fixed_point::write_staged_chroma (op, lines, *chroma, bx, by);
      });
}

/* The fixed-point kernels of four taps (convert_scale_fixed_taps_kernel,
 * convert_scale_fixed_taps_blocks_kernel). */
void
fixed_taps_as_gpu (const ConvertScale & op, int nbx, int nby)
{
  int rows, capacity;
  fixed_point::quad_table_rows (op, nbx, nby, &rows, &capacity);
  auto tile = std::make_unique<fixed_point::QuadTile> ();
  std::vector<int> table ((std::size_t)capacity);
  fixed_point::dispatch_quad_filter (op, [&] (auto f) {
    fixed_point::dispatch_word<false> (op, [&] (auto word) {
      constexpr int Word = decltype (word)::value;
      if (op.fixed.blocks) {
        staged_blocks_as_gpu<decltype (f)::value> (op, nbx, nby, rows, *tile,
            [&] (const two_tap::TileLines & lines, int x, int y) {
              return fixed_point::tile_quad_luma_chroma<Word> (
                  op.fixed, lines, *tile, x, y);
            });
        return;
      }
      each_tile<decltype (f)::value> (op, nbx, nby, rows, *tile,
          [&] (const two_tap::TileLines & lines, int tx, int ty) {
            const int y_end = (ty + 1) * rows < nby ? (ty + 1) * rows : nby;
            const fixed_point::QuadSums sums =
                fixed_point::quad_sums (lines, *tile, capacity);
            if (!sums.fits) {
              for (int x = tx * two_tap::kTileX;
                   x < nbx && x < (tx + 1) * two_tap::kTileX; x++)
                fixed_point::write_quad_column<Word> (
                    op, lines, *tile, x, ty * rows, y_end);
              return;
            }
            for (int c = 0; c < two_tap::kTileX; c++)
              fixed_point::fill_quad_sums<Word> (
                  op.fixed, *tile, sums, table.data (), c, 0, 1);
            for (int c = 0; c < two_tap::kTileX; c++)
              fixed_point::write_quad_sums_column<Word> (op, lines, *tile, sums,
                  table.data (), tx * two_tap::kTileX + c, c, ty * rows, y_end, 1);
          });
    });
  });
}

/* The fixed-point kernels' columns (convert_scale_fixed_point_kernel) and,
 * turned, rows (convert_scale_fixed_point_turned_kernel). */
void
fixed_point_as_gpu (const ConvertScale & op, int nbx, int nby)
{
  const bool turned = pixels::rotates (op.orientation);
  const int rows = op.fixed.blocks ? fixed_point::block_tile_rows (nbx, nby)
                                   : two_tap::tile_rows (nbx, nby, !turned);
  fixed_point::Tile tile;
  two_tap::dispatch_filter (op, [&] (auto f) {
    fixed_point::dispatch_word (op, [&] (auto word) {
      fixed_point::dispatch_one (op, [&] (auto one) {
        constexpr int Word = decltype (word)::value;
        constexpr bool One = decltype (one)::value;
        if (fixed_point::direct_blocks (op)) {
          /* convert_scale_fixed_point_direct_blocks_kernel: the tiles' taps,
           * filled here, are not read. */
          staged_blocks_as_gpu<decltype (f)::value> (
              op, nbx, nby, rows, tile, [&] (const two_tap::TileLines &, int x, int y) {
                return fixed_point::direct_luma_chroma<Word> (op, x, y);
              });
          return;
        }
        if (op.fixed.blocks) { /* convert_scale_fixed_point_blocks_kernel */
          staged_blocks_as_gpu<decltype (f)::value> (op, nbx, nby, rows, tile,
              [&] (const two_tap::TileLines & lines, int x, int y) {
                return fixed_point::tile_luma_chroma<Word, One> (
                    op.fixed, lines, tile, x, y);
              });
          return;
        }
        if (turned) {
          each_tile_of<decltype (f)::value> (
              op, (nbx + rows - 1) / rows, (nby + two_tap::kTileX - 1) / two_tap::kTileX,
              [&] (int tx, int ty) {
                return fixed_point::turned_tile_lines (tx, ty, rows);
              },
              tile,
              [&] (const two_tap::TileLines & lines, int tx, int ty) {
                for (int y = ty * two_tap::kTileX; y < (ty + 1) * two_tap::kTileX; y++)
                  fixed_point::write_row<Word, One> (op, lines, tile, y, tx * rows,
                      (tx + 1) * rows, 1, [&] (int x, unsigned codes) {
                        fixed_point::store (op, x, y, codes);
                      });
              });
          return;
        }
        each_tile<decltype (f)::value> (op, nbx, nby, rows, tile,
            [&] (const two_tap::TileLines & lines, int tx, int ty) {
              const int y_end = (ty + 1) * rows < nby ? (ty + 1) * rows : nby;
              for (int x = tx * two_tap::kTileX;
                   x < nbx && x < (tx + 1) * two_tap::kTileX; x++)
                fixed_point::write_column<Word, One> (
                    op, lines, tile, x, ty * rows, y_end, 1);
            });
      });
    });
  });
}

} // namespace

bool
convert_scale_on_host (const ConvertScale & op)
{
  ConvertScale resolved;
  if (!convert_scale_resolve (op, &resolved))
    return false;
  plain_twin (resolved);
  return true;
}

const char *
convert_scale_path (const ConvertScale & op)
{
  ConvertScale r;
  return convert_scale_resolve (op, &r) ? path_name (choose_path (r)) : nullptr;
}

namespace {

/* The two-tap kernels' tiles and columns (convert_scale_two_tap_kernel
 * and convert_scale_two_tap_column_kernel). */
void
two_tap_as_gpu (const ConvertScale & resolved, int nbx, int nby)
{
  two_tap::Tile tile;
  two_tap::dispatch_filter (resolved, [&] (auto f) {
    constexpr Filter F = decltype (f)::value;
    pixels::dispatch_bytes (resolved, [&] (auto ib, auto ob) {
      constexpr int IB = decltype (ib)::value, OB = decltype (ob)::value;
      two_tap::dispatch_members<IB, OB> (resolved, [&] (auto members) {
        using Members = decltype (members);
        const int rows =
            two_tap::tile_rows (nbx, nby, two_tap::tall_tiles<Members> (resolved));
        each_tile<F> (resolved, nbx, nby, rows, tile,
            [&] (const two_tap::TileLines & lines, int tx, int ty) {
              const int y_end = (ty + 1) * rows < nby ? (ty + 1) * rows : nby;
              for (int bx = tx * two_tap::kTileX;
                   bx < nbx && bx < (tx + 1) * two_tap::kTileX; bx++) {
                if constexpr (Members::kFixed) {
                  /* The kernel's columns, with the same Swap. */
                  two_tap::dispatch_swap (resolved, [&] (auto swap) {
                    two_tap::write_column<IB, OB, Members, decltype (swap)::value> (
                        resolved, lines, tile, bx, ty * rows, y_end, 1);
                  });
                } else {
                  for (int by = ty * rows; by < y_end; by++)
                    two_tap::write_block<F, IB, OB, Members> (
                        resolved, lines, tile, bx, by);
                }
              }
            });
      });
    });
  });
}

/* The tap-tile kernel's tiles (convert_scale_tap_tile_kernel): each from
 * its row sums where they fit in the launch's capacity, else from every
 * pixel's taps. */
void
tap_tile_as_gpu (const ConvertScale & op, int nbx, int nby)
{
  const bool swap = pixels::rotates (op.orientation);
  pixels::dispatch (op, [&] (auto f, auto ib, auto ob) {
    constexpr Filter F = decltype (f)::value;
    constexpr int IB = decltype (ib)::value, OB = decltype (ob)::value;
    if constexpr (F == Filter::BICUBIC || F == Filter::AREA) {
      tap_tile::dispatch_members<OB> (op, [&] (auto members) {
        using Members = decltype (members);
        constexpr int N = tap_tile::kLineTaps<F, IB>;
        int rows, capacity;
        tap_tile::table_rows<Members, N> (op, nbx, nby, &rows, &capacity);
        std::vector<float> table ((std::size_t)capacity);
        auto tile = std::make_unique<tap_tile::TileOf<N>> ();
        each_tile<F> (op, nbx, nby, rows, *tile,
            [&] (const two_tap::TileLines & lines, int tx, int ty) {
              int span[2][2] = { { INT_MAX, INT_MIN }, { INT_MAX, INT_MIN } };
              const int along = swap ? lines.ncols : lines.nrows;
              for (int e = 0; e < along; e++)
                for (int g = 0; g < 2; g++)
                  tap_tile::extend_span (swap ? tile->cols[g][e] : tile->rows[g][e],
                      &span[g][0], &span[g][1]);
              const tap_tile::RowSums sums =
                  tap_tile::row_sums<Members> (op, lines, swap, span, capacity);
              if (sums.fits)
                tap_tile::fill_row_sums<IB, Members, N> (
                    op, *tile, swap, sums, table.data (), 0, 1);
              for (int bx = tx * two_tap::kTileX;
                   bx < nbx && bx < (tx + 1) * two_tap::kTileX; bx++)
                for (int by = ty * rows; by < nby && by < (ty + 1) * rows; by++) {
                  if (sums.fits)
                    tap_tile::write_block_from_sums<F, IB, OB, Members, N> (
                        op, lines, *tile, sums, table.data (), bx, by);
                  else
                    tap_tile::write_block<F, IB, OB, Members, N> (
                        op, lines, *tile, bx, by);
                }
            });
      });
    }
  });
}

} // namespace

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
        each_block (resolved, [&] (int bx, int by) {
          if (bx % direct::kGroup == 0)
            direct::write_group<decltype (ib)::value, decltype (ob)::value> (
                resolved, bx, by);
        });
      });
      break;
    case Path::STAGED:
      /* The staged kernel reads the same words as one_sample's, from
       * shared memory: its pixels are one_sample's with the same Members. */
      one_sample::dispatch_staged (resolved, [&] (auto members) {
        each_block (resolved, [&] (int bx, int by) {
          one_sample::write_block<1, 1, decltype (members)> (resolved, bx, by);
        });
      });
      break;
    case Path::ONE_SAMPLE:
      one_sample::dispatch_bytes (resolved, [&] (auto ib, auto ob) {
        each_block (resolved, [&] (int bx, int by) {
          one_sample::write_block<decltype (ib)::value, decltype (ob)::value> (
              resolved, bx, by);
        });
      });
      break;
    case Path::FIXED_POINT:
      fixed_point_as_gpu (resolved, nbx, nby);
      break;
    case Path::FIXED_TAPS:
      fixed_taps_as_gpu (resolved, nbx, nby);
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
      two_tap_as_gpu (resolved, nbx, nby);
      break;
    case Path::TAP_TILE:
      tap_tile_as_gpu (resolved, nbx, nby);
      break;
    case Path::TAPS_PER_PIXEL:
      plain_twin (resolved);
      break;
  }
}

} // namespace gst_cs::gpu
