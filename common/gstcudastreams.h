/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-cudastreams: what an application needs to exchange device frames with
 * the elements without blocking the CPU: the device memory, the sync meta,
 * the stream pool and its context, the host-wait counters. */
#pragma once

#include "cudastreams-prelude.h"
#include "gstcsbatchmeta.h"
#include "gstcserror.h"
#include "gstcshostwait.h"
#include "gstcsmemory.h"
#include "gstcsstreampool.h"
#include "gstcssyncmeta.h"
