/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "ipc/gstcsipcserver.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <set>

#include "gstcserror-private.h"
#include "gstcssyncmeta.h"
#include "ipc/gstcsipcmetas.hpp"

GST_DEBUG_CATEGORY_EXTERN (gst_cs_ipc_sink_debug);
#define GST_CAT_DEFAULT gst_cs_ipc_sink_debug

namespace gst_cs {
namespace ipc {

/* A consumer's frames are taken back this long after its connection went,
 * or at once when its process is gone: the GPU work of a killed process
 * ends with its context (its process was reaped 61 ms after SIGKILL on an
 * H200, pipelines/ipc_probe.cu). */
static constexpr gint64 kGraceUs = 250 * 1000;
/* Frames closer than this count as a steady rate (collecting_until). */
static constexpr gint64 kSteadyUs = 100 * 1000;
/* How late the timer for an overdue frame may fire at least (reclaim). */
static constexpr gint64 kTimerSlackUs = 2000;

struct Server::Conn {
  guint32 id = 0;
  int fd = -1;
  PeerCred cred;
  bool ready = false;    /* HELLO answered */
  bool draining = false; /* it wants no more frames */
  bool closed = false;   /* no more records either way */
  gint64 closed_at = 0;
  guint in_flight = 0;
  guint64 caps_gen = 0, segment_gen = 0, slots_gen = 0;
  std::set<guint32> exports;    /* memories it was sent */
  std::vector<bool> events;     /* our write events it was sent, by slot */
  std::set<guint32> forgetting; /* FORGET sent, FORGOTTEN not yet back */
  std::unique_ptr<PeerEvents> read_events;
  std::unique_ptr<ReleaseRing> ring;   /* its releases (HELLO answered) */
  std::unique_ptr<RecordRing> records; /* our records to it (HELLO answered) */
  guint64 ping = 0;                    /* the token of the PING not answered yet, or 0 */
  gint64 ping_at = 0;                  /* when it was sent (or the last PONG came) */
};

struct Server::Sent {
  std::shared_ptr<Conn> conn;
  gint64 sent_at = 0;
  bool released = false;
  cudaEvent_t read_event = nullptr; /* its read event, or none */
  bool done = false;                /* released and read, or its consumer is gone */
};

struct Server::InFlight {
  guint64 seq = 0;
  GstBuffer * buffer = nullptr;
  guint32 slot = 0;
  bool sending = true; /* send() is not done with it: not to be taken back */
  std::vector<Sent> to;
};

namespace {

/* Gone, or a zombie: its GPU context has been torn down. */
bool
process_gone (pid_t pid)
{
  if (pid <= 0)
    return false;
  gchar * path = g_strdup_printf ("/proc/%d/stat", pid);
  gchar * text = NULL;
  const bool read = g_file_get_contents (path, &text, NULL, NULL);
  g_free (path);
  if (!read)
    return true;
  const char * p = strrchr (text, ')');
  const bool zombie = p && (p[2] == 'Z' || p[2] == 'X');
  g_free (text);
  return zombie;
}

guint64
monotonic_ns ()
{
  return (guint64)g_get_monotonic_time () * 1000;
}

} // namespace

Server::Server (GstElement * owner, const ServerSettings & s, int device)
    : owner_ (owner), s_ (s), device_ (device), events_ (device)
{
  gst_segment_init (&segment_, GST_FORMAT_TIME);
}

std::shared_ptr<Server>
Server::create (GstElement * owner, const ServerSettings & s, int device, GError ** error)
{
  std::shared_ptr<Server> self (new Server (owner, s, device));
  cudaDeviceProp prop;
  if (!GST_CS_CHECK (cudaGetDeviceProperties (&prop, device), error))
    return nullptr;
  memcpy (self->uuid_, prop.uuid.bytes, 16);
  self->listen_fd_ = listen_at (s.path.c_str (), s.group, error);
  if (self->listen_fd_ < 0)
    return nullptr;
  struct stat st;
  if (stat (s.path.c_str (), &st) == 0)
    self->listen_ino_ = st.st_ino;
  std::string why;
  self->bell_ = Bell::create (&self->bell_fd_, &why);
  if (!self->bell_) {
    g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID, "%s", why.c_str ());
    return nullptr;
  }
  if (pipe2 (self->wake_, O_CLOEXEC | O_NONBLOCK) != 0 ||
      (self->timer_ = timerfd_create (CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC)) < 0) {
    g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID, "pipe or timer: %s",
        g_strerror (errno));
    return nullptr;
  }
  self->thread_ = std::thread ([raw = self.get ()] { raw->run (); });
  self->thread_id_ = self->thread_.get_id ();
  return self;
}

Server::~Server ()
{
  if (thread_.joinable ())
    stop (0);
  for (int fd : wake_)
    if (fd >= 0)
      close (fd);
  if (timer_ >= 0)
    close (timer_);
  if (bell_fd_ >= 0)
    close (bell_fd_);
}

void
Server::wake ()
{
  const char c = 1;
  (void)!write (wake_[1], &c, 1);
}

/* ---- the server thread ---- */

void
Server::run ()
{
  pthread_setname_np (pthread_self (), "csipc-server");
  /* Its queries of consumers' events are of this device's context. */
  if (cudaSetDevice (device_) != cudaSuccess)
    (void)cudaGetLastError ();
  std::vector<pollfd> pfds;
  std::vector<std::shared_ptr<Conn>> polled;
  std::vector<GstBuffer *> done;
  for (;;) {
    pfds.clear ();
    polled.clear ();
    int timeout;
    {
      std::lock_guard<std::mutex> guard (lock_);
      if (!running_)
        break;
      for (auto it = conns_.begin (); it != conns_.end ();) {
        auto & c = *it;
        if (c->closed && c->fd >= 0) {
          close (c->fd);
          c->fd = -1;
        }
        /* Forgotten once no frame refers to it. */
        if (c->closed && c.use_count () == 1) {
          it = conns_.erase (it);
          continue;
        }
        if (c->fd >= 0) {
          pfds.push_back ({ c->fd, POLLIN, 0 });
          polled.push_back (c);
        }
        ++it;
      }
      timeout = arm_doorbells () ? 0 : poll_timeout_ms ();
    }
    pfds.push_back ({ wake_[0], POLLIN, 0 });
    pfds.push_back ({ listen_fd_, POLLIN, 0 });
    pfds.push_back ({ timer_, POLLIN, 0 });
    if (poll (pfds.data (), pfds.size (), timeout) < 0 && errno != EINTR)
      g_usleep (1000);
    /* Its CPU time, not the clock's: waiting for lock_ (the streaming
     * thread holds it to send, and its span counts already) or for a
     * core is no CPU of the element's. */
    const bool counted = count_thread_ns_.load (std::memory_order_relaxed);
    const guint64 busy = counted ? thread_cpu_ns () : 0;
    const size_t n = polled.size ();
    if (pfds[n].revents) {
      char drain[64];
      while (read (wake_[0], drain, sizeof drain) > 0) {
      }
    }
    if (pfds[n + 2].revents) {
      guint64 expired;
      (void)!read (timer_, &expired, sizeof expired);
    }
    if (pfds[n + 1].revents & POLLIN)
      accept_all ();
    for (size_t i = 0; i < n; i++) {
      if (pfds[i].revents)
        read_conn (polled[i]);
    }
    polled.clear ();
    {
      std::lock_guard<std::mutex> guard (lock_);
      tick (done);
    }
    for (GstBuffer * b : done)
      gst_buffer_unref (b);
    done.clear ();
    if (counted)
      thread_ns_ += thread_cpu_ns () - busy;
  }
}

void
Server::accept_all ()
{
  for (;;) {
    int fd = accept4 (listen_fd_, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0)
      return;
    auto c = std::make_shared<Conn> ();
    c->fd = fd;
    std::string why;
    if (!peer_cred (fd, &c->cred))
      why = "its credentials cannot be read";
    else
      peer_allowed (c->cred, s_.group, &why);
    std::lock_guard<std::mutex> guard (lock_);
    c->id = ++next_conn_;
    conns_.push_back (c);
    if (!why.empty ()) {
      close_conn (c, "refused: " + why, true);
      continue;
    }
    grow_queues (fd);
    GST_INFO_OBJECT (owner_, "consumer %u connected: process %d", c->id, c->cred.pid);
  }
}

void
Server::read_conn (const std::shared_ptr<Conn> & c)
{
  for (;;) {
    int fd;
    {
      std::lock_guard<std::mutex> guard (lock_);
      if (c->closed)
        return;
      fd = c->fd;
    }
    const int n = rbatch_.receive (fd);
    const int err = errno;
    std::lock_guard<std::mutex> guard (lock_);
    for (int i = 0; i < n && !c->closed; i++) {
      if (rbatch_.size (i) == 0) {
        harvest (c);
        close_conn (c, "it left", false);
      } else if (rbatch_.size (i) > kMaxMessage)
        close_conn (c, "it sent an oversized record", true);
      else
        handle (c, rbatch_.data (i), rbatch_.size (i));
    }
    if (n < 0 && err != EINTR && !c->closed)
      close_conn (c, std::string ("its connection failed: ") + g_strerror (err), false);
    /* All that was waiting, unless the batch was full. */
    if (n < (int)RecvBatch::kMax)
      return;
  }
}

/* A record from a consumer (with the lock held). */
void
Server::handle (const std::shared_ptr<Conn> & c, const guint8 * buf, gsize n)
{
  Msg type;
  Reader r (buf, 0);
  std::string why;
  if (!parse_header (buf, n, &type, &r, &why)) {
    close_conn (c, "it sent " + why, true);
    return;
  }
  if (!c->ready && type != Msg::HELLO) {
    close_conn (c, std::string ("it sent ") + msg_name (type) + " before HELLO", true);
    return;
  }
  switch (type) {
    case Msg::HELLO:
      hello (c, r);
      return;
    case Msg::DOORBELL:
      /* Its releases are taken on the tick after this wake-up. */
      if (!r.done ())
        close_conn (c, "it sent a malformed DOORBELL", true);
      return;
    case Msg::FORGOTTEN: {
      const guint32 id = r.u32 ();
      if (!r.done ()) {
        close_conn (c, "it sent a malformed FORGOTTEN", true);
        return;
      }
      c->forgetting.erase (id);
      cond_.notify_all ();
      return;
    }
    case Msg::DRAIN:
      if (!r.done ())
        close_conn (c, "it sent a malformed DRAIN", true);
      c->draining = true;
      return;
    case Msg::PONG: {
      const guint64 token = r.u64 ();
      if (!r.done () || token != c->ping) {
        close_conn (c, "it sent a PONG it was not asked for", true);
        return;
      }
      c->ping = 0;
      c->ping_at = g_get_monotonic_time ();
      return;
    }
    case Msg::BYE: {
      const std::string reason = r.str (1024);
      harvest (c); /* the releases it wrote before */
      close_conn (c, "it said goodbye (" + reason + ")", false);
      return;
    }
    default:
      close_conn (c, std::string ("a consumer may not send ") + msg_name (type), true);
      return;
  }
}

void
Server::hello (const std::shared_ptr<Conn> & c, Reader & r)
{
  (void)r.u32 (); /* its pid as it says: SO_PEERCRED's is the one believed */
  if (!r.done () || c->ready) {
    close_conn (c, c->ready ? "it said HELLO twice" : "it sent a malformed HELLO", true);
    return;
  }
  int pages[3] = { -1, -1, bell_fd_ };
  std::string why;
  auto ring = ReleaseRing::create (&pages[0], &why);
  auto records = ring ? RecordRing::create (&pages[1], &why) : nullptr;
  if (!records) {
    if (pages[0] >= 0)
      close (pages[0]);
    close_conn (c, why, true);
    return;
  }
  ctl_w_.begin (Msg::WELCOME);
  ctl_w_.u32 ((guint32)getpid ());
  ctl_w_.bytes (uuid_, 16);
  ctl_w_.i32 (device_);
  ctl_w_.finish ();
  /* On the socket: the consumer has no ring before this. */
  const int err = send_record (c->fd, ctl_w_, pages, 3);
  close (pages[0]);
  close (pages[1]);
  if (err != 0) {
    close_conn (c, std::string ("sending to it failed: ") + g_strerror (err), false);
    return;
  }
  c->ready = true;
  c->ping_at = g_get_monotonic_time ();
  c->read_events = std::make_unique<PeerEvents> (device_);
  c->ring = std::move (ring);
  c->records = std::move (records);
}

/* The releases waiting in `c`'s ring (with the lock held). */
void
Server::harvest (const std::shared_ptr<Conn> & c)
{
  if (!c->ring || c->closed)
    return;
  ReleaseRecord r;
  std::string why;
  while (c->ring->take (&r, &why))
    if (!release (c, r))
      return;
  if (!why.empty ())
    close_conn (c, why, true);
}

/* A frame `c` gave back, its read event's handle with it the first time
 * that event is used. False when `c` was disconnected for it. */
bool
Server::release (const std::shared_ptr<Conn> & c, const ReleaseRecord & r)
{
  if (r.has_handle) {
    cudaIpcEventHandle_t h;
    static_assert (sizeof h == sizeof r.handle, "CUDA's event handle changed size");
    memcpy (&h, r.handle, sizeof h);
    GError * err = NULL;
    if (!c->read_events->open (r.slot, h, &err)) {
      close_conn (
          c, std::string ("its read event cannot be opened: ") + err->message, true);
      g_error_free (err);
      return false;
    }
  }
  cudaEvent_t event = c->read_events->find (r.slot);
  if (!event) {
    close_conn (c, "it released a frame with a read event it never sent", true);
    return false;
  }
  for (InFlight & f : frames_) {
    if (f.seq != r.seq)
      continue;
    for (Sent & s : f.to) {
      if (s.conn == c && !s.released) {
        s.released = true;
        s.read_event = event;
        return true;
      }
    }
    break;
  }
  close_conn (c,
      "it released frame " + std::to_string (r.seq) + ", which it does not hold", true);
  return false;
}

/* No more records either way; the server thread closes the socket. The
 * frames it holds come back once sent_done() says so. */
void
Server::close_conn (const std::shared_ptr<Conn> & c, const std::string & why, bool warn)
{
  if (c->closed)
    return;
  if (c->fd >= 0) {
    /* Into its ring once it has one (where there is room: the end of the
     * connection says enough otherwise), before the socket's end, which
     * its watching thread sees. A writer of its own: a caller may be
     * sending ctl_w_ to every consumer (broadcast) when one fails. */
    Writer w;
    w.begin (Msg::BYE);
    w.str (why.c_str ());
    w.finish ();
    if (!c->records)
      (void)send_record (c->fd, w);
    else if (c->records->put (w))
      bell_->ring ();
    shutdown (c->fd, SHUT_RDWR);
  }
  c->closed = true;
  c->closed_at = g_get_monotonic_time ();
  c->forgetting.clear ();
  cond_.notify_all ();
  wake ();
  if (warn)
    GST_ELEMENT_WARNING (owner_, STREAM, FAILED,
        ("Consumer %u (process %d) was disconnected: %s", c->id, c->cred.pid,
            why.c_str ()),
        (NULL));
  else
    GST_INFO_OBJECT (
        owner_, "consumer %u (process %d) gone: %s", c->id, c->cred.pid, why.c_str ());
}

/* Consumers that do not answer (stopped, or stuck), then the frames that
 * came back. With the lock held; `done` gets the buffers to let go of once
 * it is released. */
void
Server::tick (std::vector<GstBuffer *> & done)
{
  if (s_.consumer_timeout_ms) {
    const gint64 now = g_get_monotonic_time ();
    const gint64 bound = (gint64)s_.consumer_timeout_ms * 1000;
    for (auto & c : conns_) {
      if (!c->ready || c->closed)
        continue;
      if (c->ping && now - c->ping_at > bound) {
        close_conn (c,
            "it did not answer for " + std::to_string (s_.consumer_timeout_ms) +
                " ms (consumer-timeout): stopped or stuck",
            true);
      } else if (!c->ping && now - c->ping_at > bound / 4) {
        /* Asked a quarter of the bound after the last answer: a process
         * that stopped is found out within 1.25 bounds. */
        ctl_w_.begin (Msg::PING);
        ctl_w_.u64 (++ping_token_);
        ctl_w_.finish ();
        /* A full queue (a consumer that stopped reading) counts as asked. */
        send_to (c, ctl_w_, true);
        if (!c->closed) {
          c->ping = ping_token_;
          c->ping_at = now;
        }
      }
    }
  }
  ring_bell ();
  collect (done);
}

/* Until when the streaming thread takes releases as it renders (reclaim):
 * frames come at a steady rate, and the next is due (with half a frame to
 * spare). 0: they do not. */
gint64
Server::collecting_until () const
{
  if (!last_render_ || render_interval_ >= kSteadyUs)
    return 0;
  return last_render_ + render_interval_ * 3 / 2 + 1000;
}

/* Before the server thread sleeps (with the lock held): the consumers that
 * hold frames ring their doorbell with their next release where that
 * release is wanted before the streaming thread would take it (it waits
 * for room, the element stops, or the next frame is overdue: upstream may
 * wait for the very buffers consumers gave back); otherwise they do not,
 * and their releases cost no wake-up. True when releases wait already. */
bool
Server::arm_doorbells ()
{
  const bool soon =
      waiting_ || lingering_ || g_get_monotonic_time () >= collecting_until ();
  bool waiting = false;
  for (auto & c : conns_) {
    if (!c->ring || c->closed)
      continue;
    if (soon && c->in_flight)
      waiting |= c->ring->arm ();
    else
      c->ring->disarm ();
  }
  return waiting;
}

/* How long the server thread may sleep (with the lock held). While the
 * streaming thread renders at a steady rate it takes the consumers'
 * releases and sees their reads complete; should it stop, the timer it
 * sets at each frame (reclaim) wakes this thread to arm the doorbells
 * (arm_doorbells), whose DOORBELL then wakes it: frames consumers hold
 * need no looking after either way. A frame of a consumer that went is
 * looked at again in 2 ms (taken back kGraceUs later, or once its process
 * is gone); once frames no longer come, so is one given back whose read
 * had not completed; otherwise the thread sleeps until a PING is due or an
 * answer overdue (consumer-timeout), or for ever. */
int
Server::poll_timeout_ms ()
{
  bool settling = false;
  for (const InFlight & f : frames_)
    for (const Sent & s : f.to)
      if (!s.done && s.conn->closed)
        return 2;
      else if (!s.done && s.released)
        settling = true;
  const gint64 now = g_get_monotonic_time ();
  gint64 next = settling && now >= collecting_until () ? now + 2000 : G_MAXINT64;
  if (s_.consumer_timeout_ms) {
    const gint64 bound = (gint64)s_.consumer_timeout_ms * 1000;
    for (auto & c : conns_)
      if (c->ready && !c->closed)
        next = MIN (next, c->ping_at + (c->ping ? bound : bound / 4));
  }
  if (next == G_MAXINT64)
    return -1;
  /* Just past it: tick() acts on "more than". */
  const gint64 left_ms = (next - now) / 1000 + 1;
  return (int)CLAMP (left_ms, 0, G_MAXINT);
}

/* Whether consumer `s` is done with its frame: it released it and its
 * read has completed (a query, never a wait), or it is gone. */
bool
Server::sent_done (const Sent & s, gint64 now)
{
  const Conn & c = *s.conn;
  if (s.released) {
    if (!s.read_event || cudaEventQuery (s.read_event) == cudaSuccess)
      return true;
    (void)cudaGetLastError (); /* not ready, or a dead consumer's error */
  }
  return c.closed && (now - c.closed_at >= kGraceUs || process_gone (c.cred.pid));
}

/* A frame out of frames_ (with the lock held): its node, its list of
 * consumers' room kept, waits in spare_ for the next frame (send), where
 * a list's erase and insert would free and allocate both every frame.
 * Returns the frame after it. */
std::list<Server::InFlight>::iterator
Server::retire (std::list<InFlight>::iterator it)
{
  auto next = std::next (it);
  it->buffer = nullptr;
  it->to.clear ();
  spare_.splice (spare_.end (), frames_, it);
  return next;
}

/* Frames every consumer is done with go back to their pool (`done`, let go
 * of without the lock), after the releases waiting in the consumers'
 * rings. A consumer's frame counts against its max-frames until its read
 * has completed, not only until it said so: a consumer whose GPU work runs
 * behind gets no more frames than that ahead. */
void
Server::collect (std::vector<GstBuffer *> & done)
{
  for (size_t i = 0; i < conns_.size (); i++)
    harvest (conns_[i]);
  const gint64 now = g_get_monotonic_time ();
  bool any = false;
  for (auto it = frames_.begin (); it != frames_.end ();) {
    if (it->sending) {
      ++it;
      continue;
    }
    bool all = true;
    for (Sent & s : it->to) {
      if (!s.done && sent_done (s, now)) {
        s.done = true;
        s.conn->in_flight--;
        any = true;
      }
      all &= s.done;
    }
    if (!all) {
      ++it;
      continue;
    }
    done.push_back (it->buffer);
    events_.put_back (it->slot);
    it = retire (it);
  }
  if (any)
    cond_.notify_all ();
}

/* ---- the streaming thread ---- */

void
Server::reclaim ()
{
  const guint64 t0 = G_UNLIKELY (costs_) ? thread_cpu_ns () : 0;
  /* Its room kept from frame to frame (only the streaming thread comes
   * here). */
  std::vector<GstBuffer *> & done = reclaimed_;
  {
    std::lock_guard<std::mutex> guard (lock_);
    const gint64 now = g_get_monotonic_time ();
    const gint64 gap = last_render_ ? MIN (now - last_render_, kSteadyUs) : 0;
    /* The longest recent gap: up at once, down by a quarter of the
     * difference a frame (afresh after a pause). Frames that come unevenly
     * (cudabatch's batches from live sources, a late one then an early
     * one) then move the due time by about one frame each, as steady ones
     * do, not by half a frame more or less each time, which set the timer
     * again at nearly every render. */
    if (gap >= render_interval_ || render_interval_ >= kSteadyUs)
      render_interval_ = gap;
    else
      render_interval_ -= (render_interval_ - gap) / 4;
    last_render_ = now;
    collect (done);
    /* The server thread wakes only should the next frame be overdue (a
     * system call here, no wake-up while frames come); frames further
     * apart than kSteadyUs, that long after this one (it has gone out by
     * then, and is in_flight when the doorbells are armed). */
    const gint64 due = collecting_until () ? collecting_until () : now + kSteadyUs;
    /* Set `slack` past that and left where it is while it still falls
     * between due and due + slack: it never fires before a frame is
     * overdue, at most kTimerSlackUs or one frame's interval after (the
     * longer), and one render in two or three makes the system call at
     * any rate (at 30 frames a second, one frame late is 1.5 frames from
     * due; with kTimerSlackUs alone every render below 500 a second set
     * it). */
    const gint64 slack = MAX (kTimerSlackUs, render_interval_);
    if (timer_at_ < due || timer_at_ > due + slack) {
      timer_at_ = due + slack;
      const itimerspec at = { { 0, 0 }, { (time_t)(timer_at_ / G_USEC_PER_SEC),
                                            (long)(timer_at_ % G_USEC_PER_SEC) * 1000 } };
      (void)timerfd_settime (timer_, TFD_TIMER_ABSTIME, &at, NULL);
    }
    if (!waiting_ && !lingering_)
      for (auto & c : conns_)
        if (c->ring)
          c->ring->disarm ();
  }
  for (GstBuffer * b : done)
    gst_buffer_unref (b);
  done.clear ();
  if (G_UNLIKELY (costs_))
    costs_->reclaim += thread_cpu_ns () - t0;
}

void
Server::interrupt (bool on)
{
  std::lock_guard<std::mutex> guard (lock_);
  interrupted_ = on;
  cond_.notify_all ();
}

void
Server::set_caps (GstCaps * caps)
{
  gchar * s = gst_caps_to_string (caps);
  std::lock_guard<std::mutex> guard (lock_);
  caps_ = s;
  caps_gen_++;
  g_free (s);
}

void
Server::set_segment (const GstSegment & segment)
{
  std::lock_guard<std::mutex> guard (lock_);
  segment_ = segment;
  segment_gen_++;
}

void
Server::broadcast (Msg type, bool reset_time)
{
  std::lock_guard<std::mutex> guard (lock_);
  ctl_w_.begin (type);
  if (type == Msg::FLUSH_STOP)
    ctl_w_.u8 (reset_time ? 1 : 0);
  ctl_w_.finish ();
  for (auto & c : conns_)
    if (c->ready && !c->closed)
      send_to (c, ctl_w_, false);
  ring_bell ();
}

/* Puts a record into `c`'s ring (the bell rings later: ring_bell); a full
 * ring drops it where `drop_if_full` (the frame goes to the others),
 * otherwise closes the connection. */
bool
Server::send_to (const std::shared_ptr<Conn> & c, const Writer & w, bool drop_if_full)
{
  if (c->records && c->records->put (w)) {
    unrung_ = true;
    return true;
  }
  if (c->records && drop_if_full)
    return false;
  close_conn (c,
      c->records ? std::string ("its queue is full: it stopped reading")
                 : std::string ("it has no record ring"),
      true);
  return false;
}

/* After records were put (with the lock held): where a consumer sleeps,
 * the word changes and every sleeper wakes, with one system call for all;
 * where none does, nothing (the word is a cache line every consumer
 * reads). Who sleeps is read after the rings' tails were stored: a
 * consumer that says it sleeps after this look sees the records when it
 * looks at its ring next (RecordRing::set_sleeping, then pending); one
 * that said so before is woken, and the word changes first, so one not
 * in its wait yet returns from it at once. */
void
Server::ring_bell ()
{
  if (!unrung_)
    return;
  unrung_ = false;
  bool asleep = false;
  for (auto & c : conns_)
    asleep |= c->records && !c->closed && c->records->sleeping ();
  if (asleep)
    bell_->ring ();
}

/* What a consumer needs before a frame: the caps and segment, the memory,
 * the event. Each is noted as sent only once it is. */
bool
Server::preamble (
    const std::shared_ptr<Conn> & c, const Export & ex, gsize alloc_size, guint32 slot)
{
  if (c->caps_gen != caps_gen_) {
    ctl_w_.begin (Msg::CAPS);
    ctl_w_.str (caps_.c_str ());
    if (!ctl_w_.finish () || !send_to (c, ctl_w_, true))
      return false;
    c->caps_gen = caps_gen_;
  }
  if (c->segment_gen != segment_gen_) {
    ctl_w_.begin (Msg::SEGMENT);
    const GstSegment & g = segment_;
    ctl_w_.u32 (g.flags);
    ctl_w_.f64 (g.rate);
    ctl_w_.f64 (g.applied_rate);
    ctl_w_.u32 (g.format);
    for (guint64 v :
        { g.base, g.offset, g.start, g.stop, g.time, g.position, g.duration })
      ctl_w_.u64 (v);
    ctl_w_.finish ();
    if (!send_to (c, ctl_w_, true))
      return false;
    c->segment_gen = segment_gen_;
  }
  if (c->slots_gen != slots_gen_) {
    if (!send_to (c, slots_w_, true))
      return false;
    c->slots_gen = slots_gen_;
  }
  if (!c->exports.count (ex.id)) {
    ctl_w_.begin (Msg::EXPORT);
    ctl_w_.u32 (ex.id);
    ctl_w_.bytes (&ex.handle, sizeof ex.handle);
    ctl_w_.u64 (alloc_size);
    ctl_w_.finish ();
    if (!send_to (c, ctl_w_, true))
      return false;
    c->exports.insert (ex.id);
  }
  if (c->events.size () <= slot || !c->events[slot]) {
    ctl_w_.begin (Msg::EVENT);
    ctl_w_.u32 (slot);
    ctl_w_.bytes (&events_.handle (slot), kHandleSize);
    ctl_w_.finish ();
    if (!send_to (c, ctl_w_, true))
      return false;
    if (c->events.size () <= slot)
      c->events.resize (slot + 1);
    c->events[slot] = true;
  }
  return true;
}

bool
Server::wait_for_room (
    std::unique_lock<std::mutex> & lk, const std::shared_ptr<Conn> & c, gint64 deadline)
{
  auto room = [&] {
    return c->closed || !running_ || interrupted_ || c->in_flight < s_.max_frames;
  };
  /* Its next release rings the doorbell: the server thread takes it and
   * wakes us (and keeps the doorbell armed while we wait). */
  waiting_++;
  if (c->ring)
    c->ring->arm ();
  /* The consumers before it have their frame now, not after the wait. */
  ring_bell ();
  while (!room ()) {
    const gint64 left = deadline - g_get_monotonic_time ();
    if (left <= 0)
      break;
    std::vector<GstBuffer *> done;
    collect (done);
    if (!done.empty ()) {
      lk.unlock ();
      for (GstBuffer * b : done)
        gst_buffer_unref (b);
      lk.lock ();
    }
    if (room ())
      break;
    /* Also every 2 ms: a read that had not completed when its release came. */
    cond_.wait_for (lk, std::chrono::microseconds (MIN (left, 2000)));
  }
  waiting_--;
  return !c->closed && c->in_flight < s_.max_frames;
}

bool
Server::wanted ()
{
  std::lock_guard<std::mutex> guard (lock_);
  guint live = 0;
  bool room = false;
  for (auto & c : conns_) {
    if (!c->ready || c->closed || c->draining)
      continue;
    live++;
    room |= s_.wait || c->in_flight < s_.max_frames;
  }
  if (!room)
    dropped_ += live;
  return room;
}

bool
Server::send (const OutFrame & f, cudaStream_t stream, GError ** error)
{
  guint32 slot;
  {
    std::lock_guard<std::mutex> guard (lock_);
    bool any = false;
    for (auto & c : conns_)
      any |= c->ready && !c->closed && !c->draining;
    if (!any)
      return true;
    if (!events_.take (&slot, error))
      return false;
  }
  /* Without the lock: the server thread takes frames back meanwhile (the
   * slot and its event are this thread's until given back; only this
   * thread adds events). */
  Export ex;
  guint64 t = G_UNLIKELY (costs_) ? thread_cpu_ns () : 0;
  const bool recorded =
      gst_cs_sync_meta_wait (f.buffer, stream, error) &&
      GST_CS_CHECK (cudaEventRecord (events_.event (slot), stream), error) &&
          export_memory (f.exportable, device_, shared_from_this (), &ex, error);
  if (G_UNLIKELY (costs_)) {
    const guint64 now = thread_cpu_ns ();
    costs_->gpu += now - t;
    t = now;
  }
  std::unique_lock<std::mutex> lk (lock_);
  if (!recorded) {
    events_.put_back (slot);
    return false;
  }
  /* In the list before it goes out: a consumer may give it back before it
   * has gone to the others (while a slow one is waited for). */
  if (spare_.empty ())
    frames_.emplace_back ();
  else
    frames_.splice (frames_.end (), spare_, spare_.begin ());
  InFlight & out = frames_.back ();
  out.sending = true;
  out.seq = ++seq_;
  out.slot = slot;
  out.buffer = gst_buffer_ref (f.buffer);
  Writer & w = frame_w_;
  w.begin (Msg::FRAME);
  w.u64 (out.seq);
  w.u32 (ex.id);
  w.u64 (f.offset);
  w.u64 (f.size);
  w.u32 (slot);
  GstBuffer * b = f.buffer;
  for (guint64 v : { GST_BUFFER_PTS (b), GST_BUFFER_DTS (b), GST_BUFFER_DURATION (b),
           GST_BUFFER_OFFSET (b), GST_BUFFER_OFFSET_END (b) })
    w.u64 (v);
  w.u32 (GST_BUFFER_FLAGS (b) & (GST_BUFFER_FLAG_DISCONT | GST_BUFFER_FLAG_DELTA_UNIT |
                                    GST_BUFFER_FLAG_GAP | GST_BUFFER_FLAG_DROPPABLE |
                                    GST_BUFFER_FLAG_MARKER | GST_BUFFER_FLAG_HEADER));
  w.u64 (f.clock_time);
  w.u64 (monotonic_ns ());
  const GstCsBatchMeta * batch = nullptr;
  const bool fits = write_metas (w, b, &batch) && w.finish ();
  /* A batch's slots go to each consumer where they changed (preamble). */
  if (batch && !same_sources (batch, slots_)) {
    slots_.assign (batch->slots, batch->slots + batch->n_slots);
    write_slots (slots_w_, batch);
    slots_gen_++;
  }
  const gint64 deadline = g_get_monotonic_time () + (gint64)s_.wait_timeout_ms * 1000;
  /* conns_ may change while a slow consumer is waited for: a copy (its
   * room kept from frame to frame, its references dropped below). */
  std::vector<std::shared_ptr<Conn>> & targets = targets_;
  targets.assign (conns_.begin (), conns_.end ());
  out.to.reserve (targets.size ());
  for (auto & c : targets) {
    if (!fits || !c->ready || c->closed || c->draining)
      continue;
    if (c->in_flight >= s_.max_frames && !(s_.wait && wait_for_room (lk, c, deadline))) {
      dropped_++;
      GST_LOG_OBJECT (owner_,
          "consumer %u has %u frames: frame %" G_GUINT64_FORMAT " not sent to it", c->id,
          c->in_flight, out.seq);
      continue;
    }
    if (c->closed || !preamble (c, ex, f.alloc_size, slot) ||
        !send_to (c, frame_w_, true)) {
      if (!c->closed)
        dropped_++;
      continue;
    }
    c->in_flight++;
    out.to.push_back (Sent{ c, g_get_monotonic_time () });
  }
  if (G_UNLIKELY (costs_)) {
    const guint64 now = thread_cpu_ns ();
    costs_->records += now - t;
    t = now;
  }
  ring_bell ();
  if (G_UNLIKELY (costs_))
    costs_->bell += thread_cpu_ns () - t;
  out.sending = false;
  GstBuffer * unused = nullptr;
  if (out.to.empty ()) {
    events_.put_back (slot);
    unused = out.buffer;
    for (auto it = frames_.begin (); it != frames_.end (); ++it) {
      if (&*it == &out) {
        retire (it);
        break;
      }
    }
  }
  lk.unlock ();
  /* Without the lock, as a copy's end was: the last reference to a
   * consumer that left may go here. */
  targets_.clear ();
  if (unused)
    gst_buffer_unref (unused);
  if (!fits)
    g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID,
        "A frame's metas do not fit in one IPC record of %zu bytes (a batch of more "
        "than %u slots?)",
        kMaxMessage, kMaxSlots);
  return fits;
}

guint
Server::consumers ()
{
  std::lock_guard<std::mutex> guard (lock_);
  guint n = 0;
  for (auto & c : conns_)
    n += c->ready && !c->closed && !c->draining;
  return n;
}

guint
Server::held ()
{
  std::lock_guard<std::mutex> guard (lock_);
  return (guint)frames_.size ();
}

/* The memory of export `id` is about to be freed: its consumers close it
 * first (at most a second; not on the server thread, which reads their
 * answers). */
void
Server::forget (guint32 id)
{
  std::unique_lock<std::mutex> lk (lock_);
  Writer w;
  w.begin (Msg::FORGET);
  w.u32 (id);
  w.finish ();
  for (auto & c : conns_) {
    if (!c->closed && c->exports.erase (id) && send_to (c, w, false))
      c->forgetting.insert (id);
  }
  ring_bell ();
  if (std::this_thread::get_id () == thread_id_)
    return;
  cond_.wait_for (lk, std::chrono::seconds (1), [&] {
    for (auto & c : conns_)
      if (!c->closed && c->forgetting.count (id))
        return false;
    return true;
  });
}

void
Server::stop (guint linger_ms)
{
  std::vector<GstBuffer *> left;
  {
    std::unique_lock<std::mutex> lk (lock_);
    /* The server thread arms the doorbells: it collects each release as it
     * comes and wakes us. */
    lingering_ = true;
    wake ();
    cond_.wait_for (
        lk, std::chrono::milliseconds (linger_ms), [&] { return frames_.empty (); });
    for (auto & c : conns_)
      close_conn (c, "the producer stopped", false);
    running_ = false;
  }
  wake ();
  if (thread_.joinable ())
    thread_.join ();
  {
    std::lock_guard<std::mutex> guard (lock_);
    for (InFlight & f : frames_)
      left.push_back (f.buffer);
    frames_.clear ();
    for (auto & c : conns_)
      if (c->fd >= 0)
        close (c->fd);
    conns_.clear ();
  }
  if (!left.empty ())
    GST_WARNING_OBJECT (
        owner_, "%zu frames were still held by consumers at stop", left.size ());
  for (GstBuffer * b : left)
    gst_buffer_unref (b);
  if (listen_fd_ >= 0) {
    close (listen_fd_);
    listen_fd_ = -1;
    struct stat st;
    if (stat (s_.path.c_str (), &st) == 0 && st.st_ino == listen_ino_)
      unlink (s_.path.c_str ());
  }
}

} // namespace ipc
} // namespace gst_cs
