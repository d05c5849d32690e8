/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Crop, scale, rotate and colour-convert one frame in one kernel launch.
//
// Every plane of the output is written by the same launch: a thread writes
// whole output blocks (the chroma subsampling unit: 2x2 pixels for 4:2:0,
// 2x1 for 4:2:2, one pixel otherwise). It samples the input for each pixel
// of its block, each component from its own plane with the filter at that
// plane's resolution and chroma siting, maps the components to the output's
// codes with one affine matrix, and writes luma/RGB/alpha per pixel and
// chroma per block.
//
// The arithmetic lives in convert_scale_pixels.h and is the same code on the
// GPU and in convert_scale_on_host (the CPU twin): the tests compare the two
// bit for bit. The GPU's faster paths (convert_scale_one_sample.h,
// convert_scale_two_tap.h, convert_scale_planes.h) compute the same bits; the CUDA stand-in runs
// them on the CPU (convert_scale_as_gpu_on_host). A decoder's 8-bit frames
// resampled into 8-bit RGB or 4:4:4 are computed in fixed point instead
// (convert_scale_fixed_point.h), by the kernel and the twin alike.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace gst_cs::gpu {

constexpr int kConvertPlanes = 4;

// Where one component (Y/R, U/G, V/B or A) of a frame lies in memory.
struct Component {
  int plane = -1; // index into Image::data/pitch; -1: the format has none
  int offset = 0; // bytes from the start of a sample's pixel group
  int step = 0;   // bytes between horizontally neighbouring samples
  // Samples in pairs (IYU1's luma: U Y Y V Y Y): `step` bytes from a pair
  // to the next and `pair_step` from a pair's first sample to its second;
  // 0: every sample `step` from the last. The generic path's alone.
  int pair_step = 0;
  int log2_x = 0; // horizontal subsampling (1: half the luma width, 2: a quarter)
  int log2_y = 0; // vertical subsampling
  // The sample's bits: `max_code` (2^depth - 1) at `shift` in a word of
  // `word` bytes (1, 2 or 4) that starts at `offset`, little or big endian;
  // word 0: the image's `bytes`, `shift` and `max_code`, little endian.
  // Formats whose components differ in these (RGB16, r210, Y410, big
  // endian ones, 4:1:1 and 4:1:0) are read and written by the generic
  // path alone (Image::generic).
  int word = 0;
  int shift = 0;
  int max_code = 0;
  bool big_endian = false;
  // An output component that shares its word with others of the pixel
  // (RGB16, r210): the first of them stored clears the word's other bits,
  // the others keep what is there.
  bool clear = true;
  // Set by convert_scale and its twin (resolve_planes): the first sample
  // and the row pitch, so the kernel never indexes Image::data at run time
  // (an indexed kernel parameter is copied to slow local memory).
  std::uint8_t * base = nullptr;
  std::size_t pitch = 0;
};

// A frame: its memory, its layout and how its codes map to colour.
struct Image {
  std::uint8_t * data[kConvertPlanes] = {};
  std::size_t pitch[kConvertPlanes] = {};
  int width = 0, height = 0; // luma samples
  // Where every component is alike (the fast paths' frames):
  int bytes = 1;          // bytes per sample: 1, or 2 (little endian)
  int shift = 0;          // a 2-byte sample's code sits this many bits up (P010: 6)
  int max_code = 255;     // largest code: 255, 1023 or 65535
  Component comp[4];      // 0: Y or R, 1: U or G, 2: V or B, 3: alpha
  bool yuv = true;        // components 1 and 2 are chroma (subsampled maybe)
  bool h_cosited = false; // chroma sample k sits on luma column 2k (else between)
  bool v_cosited = false; // ... on luma row 2k (else between two rows)
  // A palette (RGB8P): plane 0 holds a byte a pixel, the index of one of
  // the 256 native-endian 32-bit words 0xAARRGGBB of plane 1, a word a
  // row (pitch[1] apart: 4 in GStreamer's own layout); components
  // 0..3 (R, G, B, A) are the index's word at shifts 16, 8, 0 and 24. An
  // input is read through its palette. An output gets GStreamer's own
  // palette (the 6x6x6 cube of multiples of 0x33, index 216 transparent),
  // written into data[1] by the launch, and each pixel the index GStreamer
  // packs for its codes. The generic path's alone.
  bool palette = false;
  // Set by resolve: a component's samples are not the image's `bytes`,
  // `shift` and `max_code` (Component::word), or its chroma is subsampled
  // by 4. Then the frame takes the generic path (taps per pixel, every
  // sample read and written by its own word).
  bool generic = false;
  // Set by resolve: 2-byte samples (bytes 2), each component's first
  // sample, pitch and step even, so every sample is one aligned 16-bit
  // word (a pool's frames; a move by kMoveAlignment keeps it). The GPU
  // then reads and writes each with one 16-bit access, without asking
  // where it lies.
  bool even = false;
};

enum class Filter : int {
  NEAREST = 0,
  BILINEAR = 1, // two taps per axis, interpolation (aliases when shrinking)
  BICUBIC = 2,  // Catmull-Rom, four taps per axis
  AREA = 3,     // box over the covered source area when shrinking, else bilinear
};

// The GstVideoOrientationMethod values 0..7 (identity, 90R, 180, 90L,
// horiz, vert, ul-lr, ur-ll).
enum class Orientation : int {
  IDENTITY = 0,
  ROTATE_90R = 1,
  ROTATE_180 = 2,
  ROTATE_90L = 3,
  FLIP_H = 4,
  FLIP_V = 5,
  TRANSPOSE = 6,      // upper-left to lower-right diagonal
  ANTI_TRANSPOSE = 7, // upper-right to lower-left diagonal
};

struct ConvertScale {
  Image in, out;
  // The source rectangle in the input, in luma pixels (a crop).
  int src_x = 0, src_y = 0, src_w = 0, src_h = 0;
  // Where the picture goes in the output; the rest is border.
  int dst_x = 0, dst_y = 0, dst_w = 0, dst_h = 0;
  Orientation orientation = Orientation::IDENTITY;
  Filter filter = Filter::BILINEAR;
  // Output codes of components 0..2 from input codes: out = m[i][0..2] . in + m[i][3].
  float matrix[3][4] = {};
  // Output alpha code = input alpha code * alpha_scale (inputs without
  // alpha read as their max_code).
  float alpha_scale = 1.0f;
  // Output codes of the border, components 0..3.
  float border[4] = {};

  // Derived from the above by convert_scale and its twin (resolve), once
  // per launch instead of once per pixel:
  float scale_x = 0.0f, scale_y = 0.0f; // source pixels per output pixel
  unsigned inputs_all = 0;              // input components (bits 0..3) any output needs
  unsigned inputs_luma = 0;             // ... the output's luma (or RGB) and alpha need
  unsigned inputs_chroma = 0;           // ... the output's chroma needs
  bool chroma_direct = false;       // output chroma converted where it is (no resampling)
  bool chroma_resampled = false;    // output chroma resampled where it sits
  unsigned in_full = 0, in_sub = 0; // input components at full and at chroma resolution
  int sub_log2_x = 0, sub_log2_y = 0; // that chroma resolution
  // The input components of one resolution (0: full, 1: chroma) read as
  // one aligned load of `word` bytes per sample when they share a plane
  // and fit in one (RGBA: 4, NV12's UV: 2, P010's UV: 4); 0: one load per
  // component.
  struct Words {
    const std::uint8_t * base = nullptr; // the plane
    unsigned pitch = 0;
    int word = 0;
  } in_words[2];
  // The output's pixels are four 8-bit components in one aligned 32-bit
  // word (RGBA, BGRx, AYUV ...): one store per pixel.
  bool out_packed = false;
  // The output's pixels are one little-endian word of this many bytes each
  // (2: RGB16; 4: RGB10A2_LE, Y410 ...), every component a bit field of
  // it, aligned to its size: the codes put together in a register and the
  // word stored once (pixels::store_fields). 0: not such an output.
  std::uint8_t out_fields = 0;
  // Where the output word of a pixel is its input word with the bytes
  // moved (RGBA -> BGRx, turned or not): the matrix is the identity, the
  // input is one 32-bit word of 8-bit codes per pixel and so is the output.
  // Byte k of the output is byte word_bytes[k] of the input, or 0xff
  // (opaque alpha) where that is 4.
  bool word_copy = false;
  std::uint8_t word_bytes[4] = {};
  // Set by fixed_point::resolve (convert_scale_fixed_point.h) where the
  // frame's pixels are computed in fixed point: 8-bit YUV with subsampled
  // chroma, three 8-bit planes at full resolution, or 8-bit RGB packed in
  // 4-byte words, resampled by two taps or four (packed RGB: four only
  // into RGB or 4:4:4) into 8-bit RGB or YUV.
  struct FixedPoint {
    // `word` of packed RGB (RGBA, BGRx ...): a pixel's components in one
    // 4-byte word, read by `luma`'s pointer and strides; no chroma.
    static constexpr int kPackedRgb = 1;
    // `word` of 16-bit samples (fixed_point::wide_codes): in planes of
    // their own (I420_10LE, Y444_16LE ...), or U and V in one 4-byte word
    // (P010, P016 ...).
    static constexpr int kWidePlanes = -2, kWideWords = -4;
    bool on = false;
    int word = 0; // U and V in one word of 2 or 4 bytes; 0: in planes of their own
    const std::uint8_t * luma = nullptr;   // Y's first sample (kPackedRgb: the word's)
    const std::uint8_t * chroma = nullptr; // U's (word: the word's)
    // kPackedRgb: a word's components 0, 2 and 1, 3 into 16-bit lanes
    // (byte_perm), and whether the output's alpha is the input's, filtered.
    unsigned rgb_select[2] = {};
    bool alpha_in = false;
    // Every chroma tap is one sample as well as every luma one (nearest;
    // frames not scaled whose chroma is at full resolution): a pixel of
    // fixed_point::input_codes' One reads one U and one V.
    bool chroma_one = false;
    // Wide words: the bits of a sample's code, in both 16-bit halves
    // (here, beside the bools, it takes no room of its own).
    unsigned wide_mask = 0;
    std::ptrdiff_t v_minus_u = 0; // V's sample from U's, where apart
    unsigned stride[2][2] = {};   // [resolution][along y]: bytes between samples
    unsigned chroma_select = 0;   // a word's U and V into 16-bit lanes (byte_perm)
    // The matrix: coefficients in 1/2^13 (wide words: 1/2^(21 - shift)),
    // offsets in 1/2^21.
    int matrix[3][4] = {};
    unsigned out_select = 0; // packed output bytes of codes c0 c1 c2 alpha
    int alpha = 0;           // the output's alpha code
    unsigned border = 0;     // the border's codes, bytes c0 c1 c2 alpha
    // The output's chroma is subsampled (NV12, I420, YUY2 ...): a thread
    // writes blocks (fixed_point::stage_pixels), not pixels.
    bool blocks = false;
    int border_chroma[2] = {}; // blocks: the border's U and V in 1/2^13 of a code
    // Taps per axis: 2 (nearest, bilinear, area not shrinking or shrinking
    // by exactly 2 centred: fixed_point::area_as_bilinear), or 4
    // (bicubic, area shrinking by up to 3: convert_scale_fixed_taps.h),
    // whose sums along x pick bytes of two neighbouring words (byte_perm)
    // as [X, X', Y, Y']: U and V of the chroma's words (packed RGB's
    // components: fixed_point::rgb_pair).
    int taps = 2;
    unsigned chroma_pairs = 0;
    // Four taps: a table of every output line's taps in device memory
    // (convert_scale_point_lines), read by the tiles instead of computing
    // them again in each. Not a frame's address: a move keeps it, and a
    // kernel compiled for the description takes it from the launch
    // (each_table_address_pair). lines_at[g][v]: the index of line -1 of
    // resolution g's columns (v 0) or rows (v 1).
    const void * lines = nullptr;
    int lines_at[2][2] = {};
    bool lines_on = false;
  } fixed;
};

// Checks `op` (sizes, rectangles, components within their planes) and
// enqueues the kernel on `stream`; returns the launch status, never blocks.
// cudaErrorInvalidValue for a description it cannot run.
cudaError_t convert_scale (const ConvertScale & op, cudaStream_t stream);

// The same frame computed on the CPU with the same arithmetic, at once.
// False for a description convert_scale refuses.
bool convert_scale_on_host (const ConvertScale & op);

// The same frame computed on the CPU the way the GPU computes it (the
// tiles of convert_scale_two_tap.h where they apply): what the CUDA
// stand-in runs, so that the tests' comparisons with convert_scale_on_host
// check the GPU's path in CI too. False where convert_scale refuses.
bool convert_scale_as_gpu_on_host (const ConvertScale & op);

// The kernel path that computes `op` ("direct", "staged", "one sample",
// "fixed point", "planes", "two taps" or "taps per pixel"; see convert_scale.cu), or
// nullptr where convert_scale refuses it: for logs, benchmarks and tests.
const char * convert_scale_path (const ConvertScale & op);

// Whether `op` is a description both accept (sizes > 0, rectangles inside
// their frames, components on planes 0..3).
bool convert_scale_is_valid (const ConvertScale & op);

// A description resolved once, for the frames that differ from it only in
// where their memory lies: an element's frames of one pair of caps and one
// setting, from its pools. Resolving (the checks, the fields derived once
// per launch, the kernel path) cost a few hundred nanoseconds of a
// frame's host time.
//
// `op` checked and resolved into *resolved; false where convert_scale
// refuses it.
bool convert_scale_resolve (const ConvertScale & op, ConvertScale * resolved);

// Moves every pointer of `resolved` into the input by in_shift bytes and
// every one into the output by out_shift, so that it describes the same
// frame at another place. False, leaving it as it was, where a shift is
// not a multiple of kMoveAlignment: resolving read the planes' alignment
// (loads of words of up to 4 bytes), which such a move keeps.
constexpr std::ptrdiff_t kMoveAlignment = 16;
bool convert_scale_move (
    ConvertScale * resolved, std::ptrdiff_t in_shift, std::ptrdiff_t out_shift);

// Where the kernel compiled at run time for a resolved description
// (convert_scale_rtc.h) was found, kept by the caller beside the
// description: the launches of the description's moves (convert_scale_move
// changes its addresses alone) skip looking it up by the description's
// bytes. Whoever changes the description otherwise (resolves another into
// it, points it at a table of taps or off one: convert_scale_point_lines)
// resets it ({}). Opaque.
struct ConvertTicket {
  const void * entry = nullptr;
};

// convert_scale of a description convert_scale_resolve made (and
// convert_scale_move moved): enqueues the kernel, never blocks. `ticket`:
// the description's (above), or null.
cudaError_t convert_scale_resolved (
    const ConvertScale & resolved, cudaStream_t stream, ConvertTicket * ticket = nullptr);

// convert_scale_as_gpu_on_host of a resolved description.
void convert_scale_resolved_as_gpu_on_host (const ConvertScale & resolved);

// The table of taps per output line of a resolved description: computed
// once per description, instead of once per tile by each of its tiles
// (4K -> 1080p bicubic: 6,020 lines, 199,920 computed by the tiles). Only
// the fixed-point kernels of four taps read one.
//
// Its bytes in device memory; 0 where the description's kernel reads none.
std::size_t convert_scale_lines_bytes (const ConvertScale & resolved);

// Points *resolved at `table` (convert_scale_lines_bytes of device memory)
// and turns its reading on; nullptr turns it off. No GPU work: the table
// must be filled (below) before a kernel of *resolved runs, and kept while
// one may.
void convert_scale_point_lines (ConvertScale * resolved, const void * table);

// Whether *pointed is pointed at a table it reads (point_lines turned it
// on, and its path has one): what every filling below requires.
bool convert_scale_lines_pointed (const ConvertScale & pointed);

// Enqueues the table's filling on `stream` for a description pointed at
// it; returns the launch status (cudaErrorInvalidValue when it is not
// pointed), never blocks.
cudaError_t convert_scale_fill_lines (const ConvertScale & pointed, cudaStream_t stream);

// The same table filled on the CPU, at once (the twin's and the stand-in's).
void convert_scale_fill_lines_on_host (const ConvertScale & pointed);

} // namespace gst_cs::gpu
