/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-cudastreams: the export macro of the library. */
#pragma once

#include <gst/gst.h>

/* The library is built with hidden visibility and BUILDING_GST_CS defined:
 * only what is marked GST_CS_API is exported, and only with the gst_cs_
 * prefix. The macros are our own: GStreamer's GST_API_EXPORT is public
 * only from 1.22 on (1.20 keeps it in each library's config.h). */
#if defined(_WIN32) || defined(__CYGWIN__)
#define GST_CS_EXPORT __declspec(dllexport) extern
#define GST_CS_IMPORT __declspec(dllimport) extern
#elif defined(__GNUC__) && __GNUC__ >= 4
#define GST_CS_EXPORT __attribute__ ((visibility ("default"))) extern
#define GST_CS_IMPORT extern
#else
#define GST_CS_EXPORT extern
#define GST_CS_IMPORT extern
#endif

#ifndef GST_CS_API
#ifdef BUILDING_GST_CS
#define GST_CS_API GST_CS_EXPORT
#else
#define GST_CS_API GST_CS_IMPORT
#endif
#endif
