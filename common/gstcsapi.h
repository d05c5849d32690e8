/* Export macro for the gst-cudastreams library. */
#pragma once

#include <glib.h>

#ifndef GST_CS_API
#define GST_CS_API extern __attribute__((visibility("default")))
#endif
