/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rtc_cache.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include <unistd.h>

namespace gst_cs::gpu::rtc {

int
stack_bytes (const std::string & log)
{
  int most = -1;
  static const char kWord[] = " bytes stack frame";
  for (std::size_t at = log.find (kWord); at != std::string::npos;
       at = log.find (kWord, at + 1)) {
    std::size_t b = at;
    while (b > 0 && log[b - 1] >= '0' && log[b - 1] <= '9')
      b--;
    if (b < at && std::atoi (log.c_str () + b) > most)
      most = std::atoi (log.c_str () + b);
  }
  return most;
}

bool
read_cache (const std::string & path, std::vector<char> * cubin, std::string * lowered)
{
  std::ifstream in (path, std::ios::binary);
  if (!in || !std::getline (in, *lowered) || lowered->empty ())
    return false;
  cubin->assign (std::istreambuf_iterator<char> (in), std::istreambuf_iterator<char> ());
  return !cubin->empty ();
}

void
write_cache (const std::string & path, const std::vector<char> & cubin,
    const std::string & lowered)
{
  const std::string tmp = path + "." + std::to_string ((long)getpid ());
  {
    std::ofstream out (tmp, std::ios::binary);
    out << lowered << '\n';
    out.write (cubin.data (), (std::streamsize)cubin.size ());
    if (!out) {
      out.close ();
      std::remove (tmp.c_str ());
      return;
    }
  }
  std::rename (tmp.c_str (), path.c_str ());
}

} // namespace gst_cs::gpu::rtc
