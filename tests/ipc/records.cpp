/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Without a GPU: the ring the IPC producer puts its records in and the bell
// its consumers sleep on (plugins/ipc/gstcsipcrecords.hpp). Records come
// out as they went in, across the ring's end; a full ring refuses; a
// consumer's read position that does not add up reads as full to the
// producer, and a producer's ring that does not add up is refused by the
// consumer; a consumer asleep in another process wakes when the bell
// rings, and one that said it sleeps is seen to.
#include <gst/check/gstcheck.h>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <random>
#include <vector>

#include "ipc/gstcsipcrecords.hpp"

namespace {

using namespace gst_cs::ipc;

/* A finished FRAME record of `body` bytes, each byte its number's. */
void
record_of (Writer & w, guint32 body, guint8 tag)
{
  w.begin (Msg::FRAME);
  std::vector<guint8> b (body);
  for (guint32 i = 0; i < body; i++)
    b[i] = (guint8)(tag + i);
  w.bytes (b.data (), b.size ());
  fail_unless (w.finish ());
}

struct Pair {
  int fd = -1;
  std::unique_ptr<RecordRing> producer, consumer;
  Pair ()
  {
    std::string why;
    producer = RecordRing::create (&fd, &why);
    fail_unless (producer != nullptr, "%s", why.c_str ());
    consumer = RecordRing::map (fd, &why);
    fail_unless (consumer != nullptr, "%s", why.c_str ());
  }
  ~Pair () { close (fd); }
};

} // namespace

/* Records of random sizes, put and taken in bursts, pass the ring's end
 * many times and come out whole and in order. */
GST_START_TEST (test_records_in_order)
{
  Pair p;
  std::mt19937 random (11);
  Writer w;
  std::vector<guint8> got;
  std::string why;
  guint64 bytes = 0;
  guint8 put_tag = 0, take_tag = 0;
  std::vector<guint32> sizes;
  while (bytes < 5 * RecordRing::kBytes) {
    const guint burst = 1 + random () % 12;
    for (guint i = 0; i < burst; i++) {
      const guint32 body =
          random () % 5 == 0 ? 60000 + random () % 60000 : random () % 700;
      record_of (w, body, put_tag);
      if (!p.producer->put (w))
        break;
      sizes.push_back (w.size ());
      put_tag++;
      bytes += w.size ();
    }
    while (p.consumer->take (&got, &why)) {
      fail_unless (!sizes.empty ());
      fail_unless_equals_int (got.size (), sizes.front ());
      Msg type;
      Reader r (got.data (), 0);
      fail_unless (
          parse_header (got.data (), got.size (), &type, &r, &why), "%s", why.c_str ());
      fail_unless (type == Msg::FRAME);
      for (gsize i = kHeaderSize; i < got.size (); i++)
        fail_unless_equals_int (got[i], (guint8)(take_tag + i - kHeaderSize));
      sizes.erase (sizes.begin ());
      take_tag++;
    }
    fail_unless (why.empty (), "%s", why.c_str ());
  }
  fail_unless (sizes.empty ());
  fail_unless_equals_int (put_tag, take_tag);
}
GST_END_TEST;

/* Full: 8 of the largest records fit, the 9th does not until one is
 * taken. A read position ahead of the producer's, or further behind than
 * the ring holds, reads as full. */
GST_START_TEST (test_full_and_bad_head)
{
  Pair p;
  Writer w;
  record_of (w, kMaxMessage - kHeaderSize - 8, 0);
  for (int i = 0; i < 7; i++)
    fail_unless (p.producer->put (w), "record %d", i);
  record_of (w, kMaxMessage - kHeaderSize - 16, 0);
  fail_unless (p.producer->put (w));
  fail_if (p.producer->put (w));
  std::vector<guint8> got;
  std::string why;
  fail_unless (p.consumer->take (&got, &why));
  fail_unless (p.producer->put (w));

  /* The consumer's head is the page's second line (RecordRing::Page). */
  void * page = mmap (NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, p.fd, 0);
  fail_unless (page != MAP_FAILED);
  auto * head = reinterpret_cast<volatile guint64 *> (static_cast<guint8 *> (page) + 64);
  const guint64 honest = *head;
  record_of (w, 10, 0);
  *head = honest + 100 * RecordRing::kBytes;
  fail_if (p.producer->put (w));
  *head = 0;
  fail_if (p.producer->put (w));
  munmap (page, 4096);
}
GST_END_TEST;

/* A tail that says more than the ring holds, or a record's size that is
 * too small, too large or past the tail, is refused with a reason. */
GST_START_TEST (test_bad_tail)
{
  for (int how = 0; how < 4; how++) {
    Pair p;
    Writer w;
    record_of (w, 40, 0);
    fail_unless (p.producer->put (w));
    void * page = mmap (NULL, 4096 + 128, PROT_READ | PROT_WRITE, MAP_SHARED, p.fd, 0);
    fail_unless (page != MAP_FAILED);
    auto * base = static_cast<guint8 *> (page);
    auto * tail = reinterpret_cast<volatile guint64 *> (base);
    auto * size = reinterpret_cast<volatile guint32 *> (base + 128);
    if (how == 0)
      *tail = RecordRing::kBytes + 8;
    else if (how == 1)
      *size = 4;
    else if (how == 2)
      *size = kMaxMessage + 1;
    else
      *size = 4000;
    std::vector<guint8> got;
    std::string why;
    fail_if (p.consumer->take (&got, &why), "case %d", how);
    fail_unless (why.find ("does not add up") != std::string::npos, "case %d: %s", how,
        why.c_str ());
    munmap (page, 4096 + 128);
  }
}
GST_END_TEST;

/* A consumer asleep on the bell in another process wakes when the
 * producer rings it; it had said it sleeps, which the producer sees. */
GST_START_TEST (test_bell_wakes_another_process)
{
  int bell_fd = -1;
  std::string why;
  auto bell = Bell::create (&bell_fd, &why);
  fail_unless (bell != nullptr, "%s", why.c_str ());
  Pair p;
  Writer w;
  record_of (w, 100, 3);
  int ready[2];
  fail_unless (pipe (ready) == 0);
  const pid_t child = fork ();
  if (child == 0) {
    auto mine = Bell::map (bell_fd, &why);
    auto ring = RecordRing::map (p.fd, &why);
    if (!mine || !ring)
      _exit (3);
    std::vector<guint8> got;
    const guint32 seen = mine->value ();
    ring->set_sleeping (true);
    (void)!write (ready[1], "r", 1);
    /* Asleep until rung: no record can be waiting before that. */
    while (!ring->pending ())
      mine->wait (seen);
    ring->set_sleeping (false);
    _exit (ring->take (&got, &why) && got.size () == w.size () ? 0 : 4);
  }
  char c;
  fail_unless_equals_int (read (ready[0], &c, 1), 1);
  g_usleep (50 * 1000);
  fail_unless (p.producer->sleeping ());
  fail_unless (p.producer->put (w));
  if (p.producer->sleeping ())
    bell->ring ();
  int status = 0;
  fail_unless_equals_int (waitpid (child, &status, 0), child);
  fail_unless (WIFEXITED (status));
  fail_unless_equals_int (WEXITSTATUS (status), 0);
  fail_if (p.producer->sleeping ());
  close (ready[0]);
  close (ready[1]);
  close (bell_fd);
}
GST_END_TEST;

static Suite *
records_suite (void)
{
  Suite * s = suite_create ("ipc_records");
  TCase * tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_records_in_order);
  tcase_add_test (tc, test_full_and_bad_head);
  tcase_add_test (tc, test_bad_tail);
  tcase_add_test (tc, test_bell_wakes_another_process);
  return s;
}

GST_CHECK_MAIN (records);
