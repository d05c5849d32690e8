/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-cudastreams: the export macro of the library. */
#pragma once

#include <gst/gst.h>

/* The library is built with hidden visibility and BUILDING_GST_CS defined:
 * only what is marked GST_CS_API is exported, and only with the gst_cs_
 * prefix. */
#ifndef GST_CS_API
#ifdef BUILDING_GST_CS
#define GST_CS_API GST_API_EXPORT
#else
#define GST_CS_API GST_API_IMPORT
#endif
#endif
