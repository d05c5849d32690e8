/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "upload/gstcshostcopy.hpp"

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gst_cs {

void
copy_to_staging (guint8 * dst, const guint8 * src, gsize bytes)
{
#if defined(__SSE2__)
  /* Ordinary stores up to the first 16-byte boundary of the destination,
   * then 64 bytes (one cache line) per step with streaming stores. */
  const gsize head = MIN (bytes, (gsize)((16 - ((guintptr)dst & 15)) & 15));
  std::memcpy (dst, src, head);
  dst += head;
  src += head;
  bytes -= head;
  for (; bytes >= 64; bytes -= 64, src += 64, dst += 64) {
    const __m128i a = _mm_loadu_si128 (reinterpret_cast<const __m128i *> (src));
    const __m128i b = _mm_loadu_si128 (reinterpret_cast<const __m128i *> (src + 16));
    const __m128i c = _mm_loadu_si128 (reinterpret_cast<const __m128i *> (src + 32));
    const __m128i d = _mm_loadu_si128 (reinterpret_cast<const __m128i *> (src + 48));
    _mm_stream_si128 (reinterpret_cast<__m128i *> (dst), a);
    _mm_stream_si128 (reinterpret_cast<__m128i *> (dst + 16), b);
    _mm_stream_si128 (reinterpret_cast<__m128i *> (dst + 32), c);
    _mm_stream_si128 (reinterpret_cast<__m128i *> (dst + 48), d);
  }
  std::memcpy (dst, src, bytes);
  /* Streaming stores are weakly ordered: fence them before anyone is told
   * the staging is written. */
  _mm_sfence ();
#else
  std::memcpy (dst, src, bytes);
#endif
}

} // namespace gst_cs
