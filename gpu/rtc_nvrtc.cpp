/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rtc_nvrtc.h"

#include <type_traits>

#include <dlfcn.h>
#include <nvrtc.h>

namespace gst_cs::gpu::rtc {
namespace {

/* NVRTC, loaded when first needed: a machine without it runs the built
 * kernels, and nothing links it. */
struct Nvrtc {
  decltype (&nvrtcCreateProgram) create = nullptr;
  decltype (&nvrtcAddNameExpression) add_name = nullptr;
  decltype (&nvrtcCompileProgram) compile = nullptr;
  decltype (&nvrtcGetCUBINSize) cubin_size = nullptr;
  decltype (&nvrtcGetCUBIN) cubin = nullptr;
  decltype (&nvrtcGetLoweredName) lowered_name = nullptr;
  decltype (&nvrtcGetProgramLogSize) log_size = nullptr;
  decltype (&nvrtcGetProgramLog) log = nullptr;
  decltype (&nvrtcDestroyProgram) destroy = nullptr;
  bool ok = false;
};

const Nvrtc &
nvrtc ()
{
  static const Nvrtc loaded = [] {
    Nvrtc n;
    void * lib = nullptr;
    for (const char * name : { "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so" })
      if ((lib = dlopen (name, RTLD_NOW | RTLD_LOCAL)))
        break;
    if (!lib)
      return n;
    auto get = [&] (auto & f, const char * name) {
      f = reinterpret_cast<std::remove_reference_t<decltype (f)>> (dlsym (lib, name));
      return f != nullptr;
    };
    n.ok = get (n.create, "nvrtcCreateProgram") &&
           get (n.add_name, "nvrtcAddNameExpression") &&
           get (n.compile, "nvrtcCompileProgram") &&
           get (n.cubin_size, "nvrtcGetCUBINSize") && get (n.cubin, "nvrtcGetCUBIN") &&
           get (n.lowered_name, "nvrtcGetLoweredName") &&
           get (n.log_size, "nvrtcGetProgramLogSize") &&
           get (n.log, "nvrtcGetProgramLog") && get (n.destroy, "nvrtcDestroyProgram");
    return n;
  }();
  return loaded;
}

} // namespace

bool
nvrtc_compile_here (const std::string & source, const std::vector<Header> & headers,
    const std::string & kernel_name, const std::string & arch, Compiled * out)
{
  const Nvrtc & n = nvrtc ();
  if (!n.ok) {
    out->log = "libnvrtc cannot be loaded";
    return false;
  }
  std::vector<const char *> names, texts;
  for (const Header & h : headers) {
    names.push_back (h.name.c_str ());
    texts.push_back (h.text.c_str ());
  }
  nvrtcProgram p = nullptr;
  if (n.create (&p, source.c_str (), "convert_scale_rtc.cu", (int)headers.size (),
          texts.data (), names.data ()) != NVRTC_SUCCESS) {
    out->log = "nvrtcCreateProgram failed";
    return false;
  }
  const std::string expr = "&" + kernel_name;
  n.add_name (p, expr.c_str ());
  const std::string target = "--gpu-architecture=" + arch;
  /* As the build compiles the kernels (gpu/meson.build): no fused
   * multiply-add, so that they round as the CPU twin does. */
  /* -v: ptxas's account of the kernel's stack, which the plugin checks. */
  const char * options[] = { target.c_str (), "-std=c++17", "--fmad=false",
    "-default-device", "--ptxas-options=-v" };
  const nvrtcResult r = n.compile (p, (int)(sizeof options / sizeof *options), options);
  std::size_t size = 0;
  if (n.log_size (p, &size) == NVRTC_SUCCESS && size > 1) {
    out->log.assign (size, '\0');
    n.log (p, &out->log[0]);
    out->log.resize (size - 1); /* NVRTC counts its terminating zero */
  }
  bool ok = r == NVRTC_SUCCESS;
  const char * lowered_name = nullptr;
  if (ok)
    ok = n.lowered_name (p, expr.c_str (), &lowered_name) == NVRTC_SUCCESS &&
         lowered_name && n.cubin_size (p, &size) == NVRTC_SUCCESS && size > 0;
  if (ok) {
    out->lowered = lowered_name;
    out->cubin.resize (size);
    ok = n.cubin (p, out->cubin.data ()) == NVRTC_SUCCESS;
  }
  n.destroy (&p);
  return ok;
}

} // namespace gst_cs::gpu::rtc
