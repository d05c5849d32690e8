/* gst-cudastreams: everything an application needs to exchange device
 * buffers with the elements (sync meta, stream pool, memory, pools). */
#pragma once

#include "gstcsapi.h"
#include "gstcserror.h"
#include "gstcsdevice.h"
#include "gstcshostwait.h"
#include "gstcsstreampool.h"
#include "gstcscontext.h"
#include "gstcssyncmeta.h"
#include "gstcsmemory.h"
#include "gstcspinnedmemory.h"
#include "gstcsbufferpool.h"
#include "gstcsbasetransform.h"
#include "gstcsvideo.h"
#include "gstcscroprect.h"
