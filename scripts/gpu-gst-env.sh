# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced (not run) by the GPU scripts, from the project root: the GStreamer
# they build and run against. The .gpu bundle's 1.22 (../shared/gpu/bundle)
# always; with GST_VERSION set, that version in front of it: unpacked once
# from .gst-dist/ (a copy of this workplace's ../shared/gst) into
# /tmp/gst-VERSION, its env.sh sourced.
#
# Sets gst_link_args, the meson options a build against that version needs
# (empty for the bundle): the linker looks for a library's own dependencies
# (1.28's libgstvideo needs its libgstallocators) in the -rpath folders
# first, where the bundle's 1.22 ones sit beside its GLib, so this version's
# folder goes first; per language, as nvcc (it links the plugin) takes no
# -Wl. Returns 1, having printed a SUMMARY line, where the version is not
# in .gst-dist/.

# shellcheck disable=SC1091
[ -f .gpu/env.sh ] && source .gpu/env.sh
gst_link_args=()
if [ -n "${GST_VERSION:-}" ]; then
  if [ ! -f "/tmp/gst-$GST_VERSION/env.sh" ] &&
     ! .gst-dist/use "$GST_VERSION" "/tmp/gst-$GST_VERSION" > /dev/null 2>&1; then
    echo "SUMMARY: no GStreamer $GST_VERSION in .gst-dist/ (copy ../shared/gst there)"
    return 1
  fi
  # shellcheck disable=SC1090
  source "/tmp/gst-$GST_VERSION/env.sh"
  gst_libdir=$(pkg-config --variable=libdir gstreamer-1.0)
  gst_link_args=(-Dc_link_args="-Wl,-rpath-link,$gst_libdir"
    -Dcpp_link_args="-Wl,-rpath-link,$gst_libdir"
    -Dcuda_link_args="-Xlinker=-rpath-link=$gst_libdir")
fi
