/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "ipc/gstcsipcclient.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "gstcsdeviceguard.hpp"
#include "gstcserror-private.h"
#include "gstcshostwait-private.h"
#include "gstcsmemory.h"
#include "gstcssyncmeta.h"
#include "ipc/gstcsipcmetas.hpp"
#include "ipc/gstcsipcrecords.hpp"
#include "ipc/gstcsipcsocket.hpp"

GST_DEBUG_CATEGORY_EXTERN (gst_cs_ipc_src_debug);
#define GST_CAT_DEFAULT gst_cs_ipc_src_debug

namespace gst_cs {
namespace ipc {

/* Our read events: one is recorded again only once its last record has
 * completed (OwnEvents::take), up to this many; past that (our stream that
 * far behind) the oldest is, and a producer still asking about its older
 * record learns of the later one, which completes after it: it waits
 * longer, never too little. */
static constexpr guint32 kReadEvents = 128;

/* What a frame's memory knows of where it came from. */
struct Client::FrameRef {
  std::shared_ptr<Client> client;
  guint64 seq;
  guint32 import_id;
};

/* The caps of the reference timestamp on each frame: when the producer
 * sent it, in ns of CLOCK_MONOTONIC (the latency to a consumer's pull). */
static GstCaps *
sent_caps ()
{
  static GstCaps * caps = [] {
    GstCaps * c = gst_caps_new_empty_simple ("timestamp/x-cudastreams-ipc-sent");
    GST_MINI_OBJECT_FLAG_SET (c, GST_MINI_OBJECT_FLAG_MAY_BE_LEAKED);
    return c;
  }();
  return caps;
}

std::shared_ptr<Client>
Client::connect (GstElement * owner, const ClientSettings & s,
    const std::atomic<bool> & cancel, GError ** error)
{
  std::shared_ptr<Client> self (new Client (owner));
  const gint64 deadline = g_get_monotonic_time () + (gint64)s.connect_timeout_ms * 1000;
  for (;;) {
    self->fd_ = connect_to (s.path.c_str ());
    if (self->fd_ >= 0)
      break;
    if (errno != ENOENT && errno != ECONNREFUSED && errno != EAGAIN) {
      g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID,
          "Cannot connect to socket-path \"%s\": %s", s.path.c_str (),
          g_strerror (errno));
      return nullptr;
    }
    if (s.connect_timeout_ms && g_get_monotonic_time () > deadline) {
      g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID,
          "No producer at socket-path \"%s\" after %u ms (connection-timeout)",
          s.path.c_str (), s.connect_timeout_ms);
      return nullptr;
    }
    if (cancel.load ())
      return nullptr;
    g_usleep (20 * 1000);
  }
  PeerCred cred;
  std::string why;
  if (!peer_cred (self->fd_, &cred) || !peer_allowed (cred, s.group, &why)) {
    g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID,
        "The producer at \"%s\" is not trusted: %s", s.path.c_str (),
        why.empty () ? "its credentials cannot be read" : why.c_str ());
    return nullptr;
  }
  if (pipe2 (self->wake_, O_CLOEXEC | O_NONBLOCK) != 0 || !self->handshake (error)) {
    if (error && !*error)
      g_set_error (
          error, GST_CS_ERROR, GST_CS_ERROR_INVALID, "pipe: %s", g_strerror (errno));
    return nullptr;
  }
  self->self_ = self;
  self->reader_ = std::thread ([raw = self.get ()] { raw->run (); });
  self->reader_id_ = self->reader_.get_id ();
  return self;
}

Client::~Client ()
{
  if (reader_.joinable ()) {
    if (reader_.get_id () == std::this_thread::get_id ())
      reader_.detach (); /* its last act was to let go of us */
    else
      reader_.join ();
  }
  for (auto & [id, im] : imports_)
    close_import (id, im);
  imports_.clear ();
  read_events_.reset ();
  write_events_.reset ();
  if (stream_) {
    DeviceGuard guard (device_, nullptr);
    (void)cudaStreamDestroy (stream_);
  }
  if (fd_ >= 0)
    close (fd_);
  for (int fd : wake_)
    if (fd >= 0)
      close (fd);
}

/* HELLO, then the producer's WELCOME (or its reason to refuse) within 5 s. */
bool
Client::handshake (GError ** error)
{
  w_.begin (Msg::HELLO);
  w_.u32 ((guint32)getpid ());
  w_.finish ();
  if (const int err = send_record (fd_, w_)) {
    g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID,
        "The producer closed the connection at once: %s", g_strerror (err));
    return false;
  }
  std::vector<guint8> buf (kMaxMessage);
  gssize n = -1;
  int pages[3] = { -1, -1, -1 };
  std::string why = "no answer within 5 s";
  if (poll_in (fd_, 5000)) {
    n = recv_record (fd_, buf.data (), MSG_DONTWAIT, pages, 3);
    if (n < 0)
      why = std::string ("the connection failed: ") + g_strerror (errno);
  }
  /* The pages, mapped (WELCOME's) or not wanted (anything else). */
  if (pages[0] >= 0 && n > 0) {
    ring_ = ReleaseRing::map (pages[0], &why);
    records_ = ring_ ? RecordRing::map (pages[1], &why) : nullptr;
    bell_ = records_ ? Bell::map (pages[2], &why) : nullptr;
    if (!bell_)
      n = -1;
  }
  for (int page : pages)
    if (page >= 0)
      close (page);
  Msg type;
  Reader r (buf.data (), 0);
  if (n == 0)
    why = "it closed the connection";
  if (n <= 0 || !parse_header (buf.data (), (gsize)n, &type, &r, &why)) {
    g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID,
        "The producer did not answer HELLO: %s", why.c_str ());
    return false;
  }
  if (type == Msg::BYE) {
    g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID,
        "The producer refused this consumer: %s", r.str (1024).c_str ());
    return false;
  }
  if (type != Msg::WELCOME) {
    g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID,
        "The producer answered HELLO with %s", msg_name (type));
    return false;
  }
  if (!bell_) {
    g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID,
        "The producer's WELCOME came without its pages");
    return false;
  }
  return take_welcome (r, error);
}

/* The producer's device, found here by its UUID: another process may
 * number its devices otherwise (CUDA_VISIBLE_DEVICES). */
bool
Client::take_welcome (Reader & r, GError ** error)
{
  producer_pid_ = (int)r.u32 ();
  guint8 uuid[16];
  r.bytes (uuid, 16);
  const gint32 theirs = r.i32 ();
  if (!r.done ()) {
    g_set_error (
        error, GST_CS_ERROR, GST_CS_ERROR_INVALID, "The producer's WELCOME is malformed");
    return false;
  }
  int n = 0;
  if (cudaGetDeviceCount (&n) != cudaSuccess)
    (void)cudaGetLastError ();
  for (int d = 0; d < n && device_ < 0; d++) {
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties (&prop, d) == cudaSuccess &&
        memcmp (prop.uuid.bytes, uuid, 16) == 0)
      device_ = d;
  }
  if (device_ < 0) {
    gchar * hex = g_compute_checksum_for_data (G_CHECKSUM_MD5, uuid, 16);
    g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_NO_DEVICE,
        "The producer's frames are on its CUDA device %d, which this process does not "
        "see (CUDA_VISIBLE_DEVICES?): no device here has its UUID",
        theirs);
    g_free (hex);
    return false;
  }
  DeviceGuard guard (device_, error);
  if (!guard.ok () ||
      !GST_CS_CHECK (cudaStreamCreateWithFlags (&stream_, cudaStreamNonBlocking), error))
    return false;
  read_events_ = std::make_unique<OwnEvents> (device_, kReadEvents, true);
  write_events_ = std::make_unique<PeerEvents> (device_);
  GST_INFO (
      "connected to producer %d, its frames on device %d here", producer_pid_, device_);
  return true;
}

/* ---- the reader thread ---- */

bool
Client::finished ()
{
  return stopping_.load () && frames_out_.load () == 0;
}

/* Takes every record waiting in the ring, then handles them in order;
 * where the connection ended among them (BYE, or its end), the frames
 * before the end are not delivered: sent before the producer let go of
 * this consumer (a stopped one it timed out, or one it died on), their
 * memory may be rewritten or freed already. Sleeps on the producer's bell
 * when the ring is empty; the watching thread (watch) rings it here when
 * the socket ends, stop() and the last release when we are done. */
void
Client::run ()
{
  pthread_setname_np (pthread_self (), "csipc-reader");
  watcher_ = std::thread ([this] { watch (); });
  RingBatch batch;
  std::string why;
  bool gone = false;
  while (!gone && !finished ()) {
    const guint32 seen = bell_->value ();
    /* Before the ring: the records put before the socket ended are seen. */
    const bool hup = hup_.load (std::memory_order_acquire);
    const GstClockTime t0 = gst_util_get_timestamp ();
    std::string bad;
    const int got = batch.take (*records_, &bad);
    const guint n = batch.count ();
    /* Each record's share of taking them: the element's time too. */
    const GstClockTime each = n > 0 ? (gst_util_get_timestamp () - t0) / n : 0;
    if (got < 0) {
      why = bad;
      gone = true;
    } else if (n == 0 && hup) {
      std::lock_guard<std::mutex> lock (wlock_);
      why = hup_why_;
      gone = true;
    }
    /* Its BYE says more than the end of the connection after it. */
    for (guint i = 0; i < n; i++) {
      Msg type;
      Reader r (batch.data (i), 0);
      std::string unused;
      if (parse_header (batch.data (i), batch.size (i), &type, &r, &unused) &&
          type == Msg::BYE) {
        why = "the producer said: " + r.str (1024);
        gone = true;
        break;
      }
    }
    for (guint i = 0; i < n && !gone; i++) {
      Msg type;
      Reader r (batch.data (i), 0);
      if (!parse_header (batch.data (i), batch.size (i), &type, &r, &why)) {
        why = "the producer sent " + why;
        gone = true;
      } else if (!handle (type, r, &why, each)) {
        gone = true;
      }
    }
    if (gone || n > 0)
      continue;
    /* Said first, then looked: a record put meanwhile is seen here, or
     * the producer sees us asleep and rings. */
    records_->set_sleeping (true);
    if (!records_->pending () && !hup_.load () && !finished ())
      bell_->wait (seen);
    records_->set_sleeping (false);
  }
  if (gone) {
    lost (why, true);
  } else {
    std::lock_guard<std::mutex> guard (wlock_);
    if (!closed_.load ()) {
      w_.begin (Msg::BYE);
      w_.str ("the consumer stopped");
      w_.finish ();
      (void)send_record (fd_, w_);
      closed_ = true;
    }
  }
  shutdown (fd_, SHUT_RDWR);
  watch_stop_ = true;
  const char c = 1;
  (void)!write (wake_[1], &c, 1);
  watcher_.join ();
  /* The last thing it does: we may go with it (see ~Client). */
  std::shared_ptr<Client> keep = std::move (self_);
}

/* The watching thread: the socket carries nothing from the producer after
 * WELCOME but its end (or a BYE a producer could not put into a full
 * ring): that is told to the reader thread, which has the last word. */
void
Client::watch ()
{
  pthread_setname_np (pthread_self (), "csipc-watch");
  std::vector<guint8> buf (kMaxMessage);
  std::string why;
  for (;;) {
    pollfd p[2] = { { fd_, POLLIN, 0 }, { wake_[0], POLLIN, 0 } };
    if (poll (p, 2, -1) < 0 && errno != EINTR) {
      why = std::string ("watching the connection failed: ") + g_strerror (errno);
      break;
    }
    if (p[1].revents) {
      char drain[64];
      while (read (wake_[0], drain, sizeof drain) > 0) {
      }
      if (watch_stop_.load ())
        return;
    }
    if (!p[0].revents)
      continue;
    const gssize n = recv_record (fd_, buf.data (), MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
      continue;
    Msg type;
    Reader r (buf.data (), 0);
    std::string bad;
    if (n == 0)
      why = "the producer closed the connection";
    else if (n < 0)
      why = std::string ("the connection failed: ") + g_strerror (errno);
    else if (!parse_header (buf.data (), (gsize)n, &type, &r, &bad))
      why = "the producer sent " + bad;
    else if (type == Msg::BYE)
      why = "the producer said: " + r.str (1024);
    else
      why = std::string ("the producer sent ") + msg_name (type) +
            " on its socket, not through its record ring";
    break;
  }
  {
    std::lock_guard<std::mutex> lock (wlock_);
    hup_why_ = why;
  }
  hup_.store (true, std::memory_order_release);
  bell_->ring ();
}

bool
Client::handle (Msg type, Reader & r, std::string * why, GstClockTime spent)
{
  switch (type) {
    case Msg::CAPS: {
      Item it;
      it.type = Msg::CAPS;
      it.text = r.str ();
      if (!r.done () || it.text.empty ())
        break;
      push (std::move (it));
      return true;
    }
    case Msg::SEGMENT: {
      Item it;
      it.type = Msg::SEGMENT;
      GstSegment & g = it.segment;
      gst_segment_init (&g, GST_FORMAT_TIME);
      g.flags = (GstSegmentFlags)r.u32 ();
      g.rate = r.f64 ();
      g.applied_rate = r.f64 ();
      g.format = (GstFormat)r.u32 ();
      for (guint64 * v :
          { &g.base, &g.offset, &g.start, &g.stop, &g.time, &g.position, &g.duration })
        *v = r.u64 ();
      if (!r.done () || g.format != GST_FORMAT_TIME || g.rate == 0.0)
        break;
      push (std::move (it));
      return true;
    }
    case Msg::EXPORT:
      return open_export (r, why);
    case Msg::EVENT: {
      const guint32 slot = r.u32 ();
      cudaIpcEventHandle_t h;
      GError * err = NULL;
      if (!r.bytes (&h, sizeof h) || !r.done ())
        break;
      if (!write_events_->open (slot, h, &err)) {
        *why = std::string ("the producer's event cannot be opened: ") + err->message;
        g_error_free (err);
        return false;
      }
      return true;
    }
    case Msg::FORGET: {
      const guint32 id = r.u32 ();
      if (!r.done ())
        break;
      forget (id);
      return true;
    }
    case Msg::SLOTS:
      if (!read_slots (r, &slots_))
        break;
      return true;
    case Msg::FRAME:
      return frame (r, why, spent);
    case Msg::EOS:
    case Msg::FLUSH_START:
    case Msg::FLUSH_STOP: {
      Item it;
      it.type = type;
      if (type == Msg::FLUSH_STOP)
        it.reset_time = r.u8 () != 0;
      if (!r.done ())
        break;
      if (type == Msg::FLUSH_START)
        drop_queue ();
      push (std::move (it));
      return true;
    }
    case Msg::PING: {
      const guint64 token = r.u64 ();
      if (!r.done ())
        break;
      std::lock_guard<std::mutex> lock (wlock_);
      w_.begin (Msg::PONG);
      w_.u64 (token);
      w_.finish ();
      (void)send_record (fd_, w_);
      return true;
    }
    case Msg::BYE:
      *why = "the producer said: " + r.str (1024);
      return false;
    default:
      *why = std::string ("the producer sent ") + msg_name (type) +
             ", which only a consumer sends";
      return false;
  }
  *why = std::string ("the producer sent a malformed ") + msg_name (type);
  return false;
}

bool
Client::open_export (Reader & r, std::string * why)
{
  const guint32 id = r.u32 ();
  cudaIpcMemHandle_t h;
  r.bytes (&h, sizeof h);
  const guint64 size = r.u64 ();
  if (!r.done () || size == 0) {
    *why = "the producer sent a malformed EXPORT";
    return false;
  }
  void * p = nullptr;
  GError * err = NULL;
  DeviceGuard guard (device_, &err);
  if (!guard.ok () || !GST_CS_CHECK (cudaIpcOpenMemHandle (&p, h, cudaIpcMemLazyEnablePeerAccess), &err)) {
    *why = std::string ("the producer's memory cannot be opened: ") + err->message;
    g_error_free (err);
    return false;
  }
  std::lock_guard<std::mutex> lock (lock_);
  auto old = imports_.find (id);
  if (old != imports_.end ()) {
    /* An id used twice: the producer's mistake; ours closes once free. */
    *why = "the producer exported memory " + std::to_string (id) + " twice";
    return false;
  }
  Import & im = imports_[id];
  im.data = static_cast<guint8 *> (p);
  im.size = size;
  return true;
}

/* The producer frees memory `id` once we have closed it. */
void
Client::forget (guint32 id)
{
  std::lock_guard<std::mutex> lock (lock_);
  auto it = imports_.find (id);
  if (it == imports_.end ())
    return;
  it->second.forgotten = true;
  if (it->second.alive == 0) {
    close_import (id, it->second);
    imports_.erase (it);
  }
}

/* With lock_ held. Closing maps memory out of the device (CUDA waits for
 * the device, as cudaFree does: counted). */
void
Client::close_import (guint32 id, Import & im)
{
  {
    DeviceGuard guard (device_, nullptr);
    gst_cs_host_wait_count (NULL);
    if (cudaIpcCloseMemHandle (im.data) != cudaSuccess)
      GST_WARNING ("closing the producer's memory %u: %s", id,
          cudaGetErrorString (cudaGetLastError ()));
  }
  std::lock_guard<std::mutex> lock (wlock_);
  if (im.forgotten && !closed_.load ()) {
    w_.begin (Msg::FORGOTTEN);
    w_.u32 (id);
    w_.finish ();
    (void)send_record (fd_, w_);
  }
}

bool
Client::frame (Reader & r, std::string * why, GstClockTime spent)
{
  const GstClockTime begin = gst_util_get_timestamp ();
  const guint64 seq = r.u64 ();
  const guint32 id = r.u32 ();
  const guint64 offset = r.u64 (), size = r.u64 ();
  const guint32 slot = r.u32 ();
  const guint64 pts = r.u64 (), dts = r.u64 (), duration = r.u64 (), off = r.u64 (),
                off_end = r.u64 ();
  const guint32 flags = r.u32 ();
  const guint64 clock_time = r.u64 (), sent_ns = r.u64 ();
  if (!r.ok ()) {
    *why = "the producer sent a malformed FRAME";
    return false;
  }
  guint8 * data;
  {
    std::lock_guard<std::mutex> lock (lock_);
    auto it = imports_.find (id);
    if (it == imports_.end () || it->second.forgotten) {
      *why = "the producer sent a frame of memory " + std::to_string (id) +
             ", which it did not export";
      return false;
    }
    if (size == 0 || offset > it->second.size || size > it->second.size - offset) {
      *why = "the producer sent a frame outside its memory";
      return false;
    }
    data = it->second.data + offset;
    it->second.alive++;
  }
  frames_out_++;
  cudaEvent_t written = slot == kNoSlot ? nullptr : write_events_->find (slot);
  GstBuffer * buf = gst_buffer_new ();
  auto * ref = new FrameRef{ shared_from_this (), seq, id };
  gst_buffer_append_memory (buf,
      gst_cs_memory_new_wrapped_full (device_, data, size, stream_, ref, frame_freed));
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DTS (buf) = dts;
  GST_BUFFER_DURATION (buf) = duration;
  GST_BUFFER_OFFSET (buf) = off;
  GST_BUFFER_OFFSET_END (buf) = off_end;
  GST_BUFFER_FLAGS (buf) = flags;
  GError * err = NULL;
  if (slot != kNoSlot && !written) {
    *why = "the producer sent a frame with an event it never sent";
  } else if (!read_metas (r, buf, slots_, why) || !r.done ()) {
    if (why->empty ())
      *why = "the producer sent a FRAME with bytes after its metas";
  } else {
    /* A frame whose write has completed (a query, 0.2 us) is ready as it
     * is: it carries no event, and whoever reads it here waits for
     * nothing (the memory has no writer to wait for). At full speed most
     * frames come so, and each saves an event's record here and a GPU
     * wait in its reader. Otherwise our stream waits for the write on the
     * GPU, and the buffer's own event, which readers here wait for, comes
     * after it. */
    DeviceGuard guard (device_, &err);
    const bool ready = !written || cudaEventQuery (written) == cudaSuccess;
    if (ready)
      ready_frames_++;
    if (guard.ok () &&
        (ready || (GST_CS_CHECK (cudaStreamWaitEvent (stream_, written, 0), &err) &&
                      gst_cs_sync_meta_record (buf, device_, stream_, &err)))) {
      gst_buffer_add_reference_timestamp_meta (
          buf, sent_caps (), sent_ns, GST_CLOCK_TIME_NONE);
      Item it;
      it.type = Msg::FRAME;
      it.frame = buf;
      it.clock_time = clock_time;
      it.reader_ns = spent + (gst_util_get_timestamp () - begin);
      push (std::move (it)); /* straight back where the element is gone */
      return true;
    }
    *why = std::string ("waiting for the producer's frame failed: ") + err->message;
    g_error_free (err);
  }
  gst_buffer_unref (buf);
  return false;
}

void
Client::frame_freed (gpointer data)
{
  const GstClockTime begin = gst_util_get_timestamp ();
  auto * ref = static_cast<FrameRef *> (data);
  ref->client->give_back (ref->seq, ref->import_id);
  ref->client->release_ns_ += gst_util_get_timestamp () - begin;
  delete ref;
}

/* The memory's readers here are done on the GPU once our stream has run
 * past them (the wrapped memory's release made it wait): an event there
 * tells the producer when. Not under lock_: the reader thread goes on
 * taking frames meanwhile. */
void
Client::give_back (guint64 seq, guint32 import_id)
{
  {
    std::lock_guard<std::mutex> lock (wlock_);
    if (!closed_.load ())
      send_release (seq);
  }
  bool last = false;
  {
    std::lock_guard<std::mutex> lock (lock_);
    auto it = imports_.find (import_id);
    if (it != imports_.end () && --it->second.alive == 0 && it->second.forgotten) {
      close_import (import_id, it->second);
      imports_.erase (it);
    }
    last = --frames_out_ == 0 && stopping_.load ();
  }
  if (last) {
    bell_->ring ();
    join_reader (); /* without lock_, which the reader thread takes */
  }
}

/* With wlock_ held: a read event recorded after our stream's reads, then
 * the release in the producer's ring (with the event's handle where the
 * producer has not had it); DOORBELL only where the producer asked for it.
 * The record comes after the event's: the producer queries the event once
 * it reads the release. */
void
Client::send_release (guint64 seq)
{
  guint32 slot = 0;
  GError * err = NULL;
  const bool taken = read_events_->take (&slot, &err);
  bool ok =
      taken && GST_CS_CHECK (cudaEventRecord (read_events_->event (slot), stream_), &err);
  if (ok) {
    if (read_sent_.size () <= slot)
      read_sent_.resize (slot + 1, false);
    ReleaseRecord r;
    r.seq = seq;
    r.slot = slot;
    r.has_handle = !read_sent_[slot];
    if (r.has_handle)
      memcpy (r.handle, &read_events_->handle (slot), sizeof r.handle);
    const ReleaseRing::Put put = ring_->put (r);
    ok = put != ReleaseRing::Put::FULL;
    if (ok)
      read_sent_[slot] = true;
    if (put == ReleaseRing::Put::RING) {
      w_.begin (Msg::DOORBELL);
      w_.finish ();
      (void)send_record (fd_, w_);
    }
  }
  if (!ok) {
    /* Without a read event the producer would rewrite memory we may
     * still read: it takes the frame back when we are gone instead. */
    GST_WARNING ("cannot give frame %" G_GUINT64_FORMAT " back: %s", seq,
        err ? err->message : "the producer's release ring is full");
    g_clear_error (&err);
  }
  if (taken)
    read_events_->put_back (slot);
}

/* The connection is gone: whoever waits learns why, after what is queued. */
void
Client::lost (const std::string & why, bool error)
{
  {
    std::lock_guard<std::mutex> lock (wlock_);
    closed_ = true;
  }
  GST_INFO ("connection to producer %d ended: %s", producer_pid_, why.c_str ());
  Item it;
  it.type = Msg::BYE;
  it.text = why;
  it.error = error;
  push (std::move (it));
}

void
Client::push (Item && item)
{
  {
    std::unique_lock<std::mutex> lock (qlock_);
    /* A frame while stopping goes straight back: stop() set stopping_
     * before it emptied the queue under this lock, so a frame queued
     * after that would stay there for ever (leaked, and never released:
     * the reader thread went on till the producer left). */
    if (!ended_ && !(item.frame && stopping_.load ())) {
      ended_ = item.type == Msg::BYE;
      queue_.push_back (std::move (item));
      /* Woken after the lock is let go: woken under it, the streaming
       * thread would find the lock taken and sleep again on it, two more
       * system calls a frame on each side. Nothing is lost: it looks at
       * the queue under the lock before it sleeps. */
      lock.unlock ();
      qcond_.notify_all ();
      return;
    }
  }
  if (item.frame)
    gst_buffer_unref (item.frame);
}

bool
Client::next (Item * item, const std::atomic<bool> & cancel)
{
  std::unique_lock<std::mutex> lock (qlock_);
  qcond_.wait (lock, [&] { return !queue_.empty () || cancel.load (); });
  if (queue_.empty ())
    return false;
  *item = std::move (queue_.front ());
  queue_.pop_front ();
  return true;
}

void
Client::wake ()
{
  std::lock_guard<std::mutex> lock (qlock_);
  qcond_.notify_all ();
}

/* Frames queued and not yet pushed go back (at a flush, at stop). */
void
Client::drop_queue ()
{
  std::deque<Item> dropped;
  {
    std::lock_guard<std::mutex> lock (qlock_);
    for (auto it = queue_.begin (); it != queue_.end ();) {
      if (it->frame) {
        dropped.push_back (std::move (*it));
        it = queue_.erase (it);
      } else {
        ++it;
      }
    }
  }
  for (Item & it : dropped)
    gst_buffer_unref (it.frame);
}

void
Client::stop ()
{
  stopping_ = true;
  GST_INFO (
      "%" G_GUINT64_FORMAT " frames came ready, without an event", ready_frames_.load ());
  {
    std::lock_guard<std::mutex> lock (wlock_);
    owner_ = nullptr;
    if (!closed_.load ()) {
      w_.begin (Msg::DRAIN);
      w_.finish ();
      (void)send_record (fd_, w_);
    }
  }
  drop_queue ();
  bell_->ring ();
  /* With no frame out the thread ends at once: wait for it here. Else the
   * last frame's release does (give_back), not this state change, which
   * must not wait for buffers downstream still holds. */
  if (frames_out_.load () == 0)
    join_reader ();
}

/* Once stopping and no frame is out, the reader thread ends promptly: its
 * last act may close imports, events and the stream. Waiting for it keeps
 * those CUDA calls before whatever the caller does next; a process that
 * exited after setting its pipeline to NULL crashed in the CUDA runtime's
 * teardown (7 times in 12 on an H200) while that thread was still closing
 * the producer's memory. The caller holds a reference, so the thread's is
 * not the last and ~Client runs on the caller's thread. */
void
Client::join_reader ()
{
  /* The reader thread's own last release (a frame that came while
   * stopping, let go of at once): nothing to wait for, and not for
   * join_lock_, which stop() may hold while it joins this very thread. */
  if (std::this_thread::get_id () == reader_id_)
    return;
  std::lock_guard<std::mutex> lock (join_lock_);
  if (reader_.joinable ())
    reader_.join ();
}

} // namespace ipc
} // namespace gst_cs
