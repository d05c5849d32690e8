/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Pages of memory the producer shares with a consumer (internal): a memfd
// sealed at its size, so that neither side can shrink it under the
// other's mapping (a fault in its threads) nor grow it.
#pragma once

#include <string>

#include <glib.h>

namespace gst_cs {
namespace ipc {

// The producer's side: a new page of `bytes` (zeroed), mapped; `fd`
// (close-on-exec) is the caller's to pass and close. nullptr with `why`
// set (`name` says which page).
void * make_shared_page (const char * name, gsize bytes, int * fd, std::string * why);

// The consumer's side: maps the producer's page of `fd` once it is checked
// to be of `bytes` and sealed against shrinking (the caller closes `fd`).
// nullptr with `why` set (`what` names the page).
void * map_shared_page (int fd, gsize bytes, const char * what, std::string * why);

} // namespace ipc
} // namespace gst_cs
