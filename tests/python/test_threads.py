#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Pipeline methods from several threads, and the interpreter's exit
(issue 38). Each case runs in a child interpreter, so that a crash (abort,
segfault) or a hang is a failed check rather than the end of the run:

- close() while another thread waits in wait(), pull() or push(): the waiter
  returns promptly (wait returns, pull gives None, push raises ValueError),
  and the process lives (it aborted in gst_bus_timed_pop_filtered before);
- start() racing close(): the pipeline does not play after close();
- many threads calling start/pull/push/wait/close in random orders, a few
  seconds: no crash, no hang, only the documented outcomes;
- a waiting pull() or wait() does not spin;
- pull() never holds the GIL while it takes appsink's lock: an appsink that
  drops (drop=true) frees a NumPy-backed buffer under that lock, which takes
  the GIL (suspect 4);
- exiting without close() while frames that wrap NumPy arrays are in flight
  (behind a slow element, or in cudaupload's copy threads) neither hangs
  nor aborts (suspect 2).
"""
import os
import subprocess
import sys
import textwrap
import time

from pycheck import Runner

PRELUDE = textwrap.dedent("""\
    import os, random, sys, threading, time
    import numpy as np
    import cudastreams
    def waiter(fn, out, key):
        def run():
            t0 = time.monotonic()
            try:
                out[key] = ("returned", fn(), time.monotonic())
            except BaseException as e:
                out[key] = (type(e).__name__, str(e), time.monotonic())
        t = threading.Thread(target=run, daemon=True)
        t.start()
        return t
    """)


def child(code, timeout=60, env=None):
    """Runs `code` after PRELUDE in a new interpreter: (returncode, output);
    returncode None when it ran past `timeout` (killed)."""
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.Popen([sys.executable, "-X", "faulthandler", "-c", PRELUDE + code],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=e, text=True)
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
        return None, out


def expect_ok(code, timeout=60, env=None, what=""):
    rc, out = child(code, timeout, env)
    tail = "\n".join(out.splitlines()[-25:])
    assert rc is not None, f"{what}: hung (killed after {timeout} s):\n{tail}"
    assert rc == 0, f"{what}: exit status {rc}:\n{tail}"
    return out


def check_close_while_waiting():
    """The reported crash: one thread in wait() on a live pipeline, the main
    thread closes it. Then the same with pull() and a blocked push()."""
    expect_ok(textwrap.dedent("""\
        out = {}
        caps = "video/x-raw,format=GRAY8,width=64,height=48,framerate=30/1"
        # wait(): a live source never ends; pull(): an appsrc nobody pushes
        # into; push(): frames stamped 1000 s ahead wait in a synchronised
        # sink, so the appsrc's small queue fills and push() blocks.
        p = cudastreams.Pipeline("videotestsrc is-live=true ! fakesink "
                                 f"appsrc name=idle caps={caps} ! appsink name=sink "
                                 f"appsrc name=src caps={caps} format=time block=true "
                                 "max-bytes=3072 ! fakesink sync=true")
        p.start()
        def push_until_blocked():
            frame = np.zeros((48, 64), np.uint8)
            while True:
                p.push(frame, "src", pts=1000 * 10**9)
        ts = [waiter(p.wait, out, "wait"),
              waiter(lambda: p.pull("sink"), out, "pull"),
              waiter(push_until_blocked, out, "push")]
        time.sleep(0.5)
        assert not out, f"returned before close(): {out}"
        t0 = time.monotonic()
        p.close()
        for t in ts:
            t.join(5)
        assert not any(t.is_alive() for t in ts), f"a waiter did not return: {out}"
        late = {k: v[2] - t0 for k, v in out.items() if v[2] - t0 > 1.0}
        assert not late, f"waiters returned late (s after close): {late}"
        assert out["wait"][:2] == ("returned", None), out["wait"]
        assert out["pull"][:2] == ("returned", None), out["pull"]
        assert out["push"][0] == "ValueError" and "closed" in out["push"][1], out["push"]
        # After close, the same outcomes at once, whichever thread asks.
        assert p.pull("sink") is None
        p.wait()
        try:
            p.push(np.zeros((48, 64), np.uint8), "src")
            raise AssertionError("push after close did not raise")
        except ValueError as e:
            assert "closed" in str(e), e
        print("ok")
        """), what="close while waiting")


def check_start_races_close():
    """start() on one thread, close() on another, many times: after both
    returned, the pipeline is stopped (no streaming thread runs on)."""
    expect_ok(textwrap.dedent("""\
        for i in range(30):
            p = cudastreams.Pipeline("videotestsrc is-live=true ! "
                                     "video/x-raw,width=64,height=48 ! appsink name=sink")
            out = {}
            t = waiter(p.start, out, "start")
            time.sleep(random.random() * 0.01)
            p.close()
            t.join(5)
            assert not t.is_alive(), "start() hung"
            kind = out["start"][0]
            assert kind in ("returned", "ValueError"), out["start"]
            # A pipeline left playing would keep producing into the appsink.
            assert p.pull("sink") is None, "close() returned and frames still come"
            del p
        print("ok")
        """), what="start races close")


def check_close_full_appsink():
    """close() while an appsink with max-buffers is full and nobody pulls:
    its streaming thread waits for room holding the preroll lock that the
    change to PAUSED takes; appsink's unlock wakes it (a guard: this passed
    before issue 38's changes too; with several threads pulling at once it
    may not, see the stress case)."""
    expect_ok(textwrap.dedent("""\
        p = cudastreams.Pipeline("videotestsrc ! video/x-raw,width=32,height=24 ! "
                                 "appsink name=sink max-buffers=1")
        p.start()
        time.sleep(0.3)
        p.close()
        print("ok")
        """), timeout=20, what="close with a full appsink")


def check_stress():
    """Threads calling every method in random orders on pipelines that live
    a short while; a few seconds in all."""
    out = expect_ok(textwrap.dedent("""\
        caps = "video/x-raw,format=GRAY8,width=32,height=24,framerate=200/1"
        # (Not a bounded appsink that blocks: with several threads waiting
        # in pull() on it, appsink's one condition variable may wake a puller
        # instead of its streaming thread, and stopping then waits for ever:
        # see docs/python.md.)
        desc = (f"videotestsrc is-live=true ! {caps} ! appsink name=sink max-buffers=2 drop=true "
                f"appsrc name=src caps={caps} format=time block=true max-bytes=4096 ! "
                f"queue ! appsink name=sink2 drop=true max-buffers=1")
        frame = np.zeros((24, 32), np.uint8)
        ops = {
            "start": lambda p: p.start(),
            "pull": lambda p: p.pull("sink", timeout=0.05),
            "pull2": lambda p: p.pull("sink2", timeout=0.02),
            "push": lambda p: p.push(frame, "src"),
            "wait": lambda p: p.wait(timeout=0.05),
            "eos": lambda p: p.end_of_stream("src"),
            "close": lambda p: p.close(),
            "held": lambda p: p.held_frames,
        }
        weights = [3, 6, 3, 6, 2, 1, 1, 1]
        allowed = {"TimeoutError", "ValueError"}
        bad, counts = [], {}
        deadline = time.monotonic() + float(sys.argv[1] if len(sys.argv) > 1 else 3)
        rounds = 0
        while time.monotonic() < deadline:
            p = cudastreams.Pipeline(desc)
            stop_at = time.monotonic() + random.uniform(0.05, 0.4)
            def worker(seed):
                rng = random.Random(seed)
                while time.monotonic() < stop_at:
                    name = rng.choices(list(ops), weights)[0]
                    try:
                        r = ops[name](p)
                        if name in ("pull", "pull2") and r is not None:
                            r.release()
                        key = (name, "ok")
                    except BaseException as e:
                        key = (name, type(e).__name__)
                        # push after end_of_stream() is refused as in GStreamer
                        eos = name == "push" and "push: eos" in str(e)
                        if type(e).__name__ not in allowed and not eos:
                            bad.append((name, repr(e)))
                    counts[key] = counts.get(key, 0) + 1
            ts = [threading.Thread(target=worker, args=(rounds * 100 + i,)) for i in range(6)]
            for t in ts:
                t.start()
            for t in ts:
                t.join(10)
                assert not t.is_alive(), f"a thread hung in round {rounds}: {counts}"
            p.close()
            del p
            rounds += 1
        assert not bad, f"unexpected outcomes: {bad[:5]}"
        assert counts.get(("close", "ok"), 0) > 3, counts
        print("rounds", rounds, sorted(counts.items()))
        """), timeout=90, what="stress")
    print(out.strip().splitlines()[-1])


def check_no_spin():
    """A thread waiting in pull() or wait() sleeps: the process' CPU time
    over a second of waiting stays small."""
    expect_ok(textwrap.dedent("""\
        p = cudastreams.Pipeline("appsrc name=src caps=video/x-raw,format=GRAY8,width=8,"
                                 "height=8,framerate=1/1 ! appsink name=sink")
        out = {}
        ts = [waiter(lambda: p.pull("sink", timeout=1.5), out, "pull"),
              waiter(lambda: p.wait(timeout=1.5), out, "wait")]
        time.sleep(0.2)
        c0, t0 = time.process_time(), time.monotonic()
        time.sleep(1.0)
        cpu = (time.process_time() - c0) / (time.monotonic() - t0)
        for t in ts:
            t.join(5)
        assert out["pull"][0] == "TimeoutError" and out["wait"][0] == "TimeoutError", out
        assert cpu < 0.25, f"waiting used {cpu:.0%} of a core"
        p.close()
        print("ok")
        """), what="no spin")


def check_pull_gil_order():
    """Suspect 4: appsink drop=true frees the buffer it drops under its own
    lock, and a buffer wrapping a NumPy array takes the GIL to go (NumPy's
    DLPack deleter). A pull() that took that lock holding the GIL would wait
    for the dropping thread, which waits for the GIL: both stop. The arrays
    here are of a subclass whose __del__ sleeps a little (the GIL released,
    appsink's lock still held), so that the drops hold the lock most of the
    time, as a slow free would."""
    expect_ok(textwrap.dedent("""\
        class SlowArray(np.ndarray):
            def __del__(self):
                time.sleep(0.002)
        caps = "video/x-raw,format=GRAY8,width=16,height=16,framerate=1000/1"
        p = cudastreams.Pipeline(f"appsrc name=src caps={caps} format=time ! "
                                 "appsink name=sink drop=true max-buffers=1 sync=false")
        p.start()
        stop = time.monotonic() + 3
        def push():
            # Bursts: a pull() waiting through a quiet spell wakes up (its
            # slice over) while a burst's drops hold appsink's lock.
            base = np.zeros((16, 16), np.uint8)
            while time.monotonic() < stop:
                for _ in range(6):
                    p.push(base.view(SlowArray), "src")
                time.sleep(random.uniform(0.0, 0.12))
        t = threading.Thread(target=push, daemon=True)
        t.start()
        pulled = timeouts = 0
        while time.monotonic() < stop:
            try:
                f = p.pull("sink", timeout=random.choice((0.001, 0.05, 0.2)))
                pulled += f is not None
                del f
            except TimeoutError:
                timeouts += 1
        t.join(10)
        assert not t.is_alive(), "the pushing thread hung"
        p.close()
        print("ok", pulled, timeouts)
        """), timeout=40, what="pull and the GIL")


EXIT_CASES = {
    # The Pipeline in a global: destroyed while the interpreter finalises,
    # its streaming thread still freeing arrays behind a slow element.
    "global": """
        p = cudastreams.Pipeline(f"appsrc name=src caps={caps} format=time ! queue ! "
                                 f"identity sleep-time={sleep_us} ! fakesink")
        for i in range(n):
            p.push(np.full((48, 64), i % 256, np.uint8), "src", pts=i)
        """,
    # A daemon thread waits in pull() and holds the Pipeline: it is never
    # destroyed, and its threads run on while the interpreter goes.
    "daemon": """
        p = cudastreams.Pipeline(f"appsrc name=src caps={caps} format=time ! queue ! "
                                 f"identity sleep-time={sleep_us} ! fakesink "
                                 f"appsrc name=idle caps={caps} ! appsink name=sink")
        for i in range(n):
            p.push(np.full((48, 64), i % 256, np.uint8), "src", pts=i)
        threading.Thread(target=p.pull, args=("sink",), daemon=True).start()
        time.sleep(0.05)
        del p
        """,
    # A daemon thread waits in pull() while finalisation takes a while (an
    # object's __del__ sleeps): the waiter's slice ends meanwhile, and CPython
    # ends a thread that takes the GIL then, through the module's C++ frames
    # (std::terminate before: exit 134).
    "slow-finalisation": """
        class SlowExit:
            def __del__(self):
                time.sleep(0.5)
        p = cudastreams.Pipeline(f"appsrc name=src caps={caps} format=time ! queue ! "
                                 f"identity sleep-time={sleep_us} ! fakesink "
                                 f"appsrc name=idle caps={caps} ! appsink name=sink")
        for i in range(n):
            p.push(np.full((48, 64), i % 256, np.uint8), "src", pts=i)
        threading.Thread(target=p.pull, args=("sink",), daemon=True).start()
        time.sleep(0.05)
        z = SlowExit()
        """,
}


def check_exit_without_close(case, sleep_us, n):
    """Suspect 2: the script ends without close() while pushed NumPy arrays
    are still queued, and each one's free takes the GIL (NumPy's deleter),
    on a streaming thread, while the interpreter finalises."""
    code = (f"caps = 'video/x-raw,format=GRAY8,width=64,height=48,framerate=30/1'\n"
            f"sleep_us, n = {sleep_us}, {n}\n" + textwrap.dedent(EXIT_CASES[case])
            + "print('exiting', flush=True)\n")
    out = expect_ok(code, timeout=30, what=f"exit without close ({case})")
    assert "exiting" in out, out


def main():
    r = Runner("test_threads")
    only = sys.argv[1:]
    for fn in (check_close_while_waiting, check_start_races_close, check_close_full_appsink,
               check_stress, check_no_spin, check_pull_gil_order):
        if not only or fn.__name__ in only:
            r.run(fn)
    if not only or "check_exit_without_close" in only:
        for case in EXIT_CASES:
            for sleep_us, n in ((1000, 100), (20000, 30)):
                r.run(check_exit_without_close, case, sleep_us, n)
    r.finish()


if __name__ == "__main__":
    main()
