/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* On a GPU: kernels.cu's two kernels on the same random frame, as the
 * build launches that family, each timed over many launches (CUDA events),
 * and their outputs compared byte for byte (the same arithmetic: they
 * must agree). Prints "built US specialised US ratio, N bytes differ". */
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "kernels.cu"

#define CHECK(x) \
  do { \
    cudaError_t e = (x); \
    if (e != cudaSuccess) { \
      std::printf ("%s: %s\n", #x, cudaGetErrorString (e)); \
      std::exit (1); \
    } \
  } while (0)

template <class T>
static void
move_on_host (T *& p, std::ptrdiff_t by)
{
  if (p)
    p = (T *)((const char *)p + by);
}

int
main ()
{
  const unsigned char bytes[] = DESCRIPTION_BYTES;
  ConvertScale op;
  std::memcpy (&op, bytes, sizeof op);
  std::uint8_t *in = nullptr, *out[2] = {};
  CHECK (cudaMalloc (&in, IN_SIZE));
  CHECK (cudaMalloc (&out[0], OUT_SIZE));
  CHECK (cudaMalloc (&out[1], OUT_SIZE));
  std::vector<std::uint8_t> host (IN_SIZE);
  std::mt19937 rng (7);
  for (auto & b : host)
    b = (std::uint8_t)rng ();
  CHECK (cudaMemcpy (in, host.data (), IN_SIZE, cudaMemcpyHostToDevice));
  const std::ptrdiff_t in_shift = (std::ptrdiff_t) ((std::uintptr_t)in - IN_BASE);
  std::ptrdiff_t out_shift[2];
  for (int k = 0; k < 2; k++) {
    CHECK (cudaMemset (out[k], 0, OUT_SIZE));
    out_shift[k] = (std::ptrdiff_t) ((std::uintptr_t)out[k] - OUT_BASE);
  }
  ConvertScale moved = op; /* the built kernel's, into out[0] */
  for (int i = 0; i < kConvertPlanes; i++) {
    move_on_host (moved.in.data[i], in_shift);
    move_on_host (moved.out.data[i], out_shift[0]);
  }
  for (int k = 0; k < 4; k++) {
    move_on_host (moved.in.comp[k].base, in_shift);
    move_on_host (moved.out.comp[k].base, out_shift[0]);
  }
  for (int j = 0; j < 2; j++)
    move_on_host (moved.in_words[j].base, in_shift);
  move_on_host (moved.fixed.luma, in_shift);
  move_on_host (moved.fixed.chroma, in_shift);
  const int rows = (BODY == 3 || BODY == 4) ? ROWS : kTileY;
  const dim3 grid ((NBX + kTileX - 1) / kTileX, (NBY + rows - 1) / rows);
  const dim3 threads (kTileX, kTileY);
  cudaEvent_t t[2];
  CHECK (cudaEventCreate (&t[0]));
  CHECK (cudaEventCreate (&t[1]));
  const int n = 500;
  float us[2][5];
  for (int round = 0; round < 5; round++) {
    for (int k = 0; k < 2; k++) {
      CHECK (cudaEventRecord (t[0]));
      for (int i = 0; i < n; i++) {
        if (k == 0)
          k_generic<<<grid, threads>>> (moved, NBX, NBY, ROWS);
        else
          k_specialized<<<grid, threads>>> (in_shift, out_shift[1]);
      }
      CHECK (cudaEventRecord (t[1]));
      CHECK (cudaEventSynchronize (t[1]));
      CHECK (cudaGetLastError ());
      float ms = 0;
      CHECK (cudaEventElapsedTime (&ms, t[0], t[1]));
      us[k][round] = ms * 1000.0f / n;
    }
  }
  std::vector<std::uint8_t> a (OUT_SIZE), b (OUT_SIZE);
  CHECK (cudaMemcpy (a.data (), out[0], OUT_SIZE, cudaMemcpyDeviceToHost));
  CHECK (cudaMemcpy (b.data (), out[1], OUT_SIZE, cudaMemcpyDeviceToHost));
  size_t differ = 0;
  for (size_t i = 0; i < a.size (); i++)
    differ += a[i] != b[i];
  for (int k = 0; k < 2; k++)
    std::sort (us[k], us[k] + 5);
  std::printf ("built %.2f us, specialised %.2f us, ratio %.2f, %zu bytes differ\n",
      us[0][2], us[1][2], us[0][2] / us[1][2], differ);
  return differ ? 1 : 0;
}
