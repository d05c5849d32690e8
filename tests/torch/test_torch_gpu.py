#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""PyTorch beside the elements, through the cudastreams module, on a GPU.

  - cudacrop's frames as torch tensors (torch.from_dlpack) are CPU videocrop's
    pixels, bit for bit (RGBA, NV12, I420; odd and even crops, odd sizes);
  - a pull -> torch.from_dlpack -> torch op loop on a high-priority stream
    makes no host wait in 1000 frames;
  - a tensor held while the pipeline runs on keeps its content;
  - the elements work on the application's streams (torch priority streams);
  - push (a torch tensor) -> cudacrop -> pull gives the pixels back, and the
    pushed tensor's memory is not given back to torch before the frame is;
  - the model-input recipe: cudaconvertscale's letterboxed 640x640 RGBP as
    one 3 x 640 x 640 tensor over the planes' own memory, at least 40 dB
    PSNR from CPU videoconvertscale's (tests/elements/convertscale_gpu.cpp's
    bound; 57-63 dB on the CUDA stand-in, which runs the kernel's CPU twin);
  - cudabatch's batches as torch tensors: N x 3 x H x W float16 over the
    batch's own memory (no copy), its slots' map, no host wait in 200
    batches, and the values of a one-colour source normalised as asked.

Exit 0 when everything passed, 1 when something failed, 77 (skipped) without
PyTorch, NumPy or a CUDA device.
"""
import sys
import traceback

from torchcheck import Fail, check, require

torch, np = require(devices=1)
try:
    import cudastreams
except ImportError as e:
    # Meson registers this test only where it builds the module: a module
    # that does not import is a failure, not a reason to skip.
    import os
    print(f"FAIL: cannot import cudastreams: {e}\n  PYTHONPATH={os.environ.get('PYTHONPATH')}"
          f"\n  sys.path={sys.path}", flush=True)
    sys.exit(1)


def pull(p, sink, what, i):
    """One frame of appsink `sink`, or a failure saying which frame is missing."""
    name = f"appsink '{sink}'" if sink else "the appsink"
    try:
        f = p.pull(sink, timeout=30)
    except TimeoutError:
        raise Fail(f"{what}: frame {i} of {name} did not come within 30 s")
    check(f is not None, f"{what}: {name} reached EOS before frame {i}")
    return f


def first_difference(got, want):
    """'N of M values differ, first at (index): got X, want Y'."""
    diff = got != want
    idx = tuple(int(v) for v in np.argwhere(diff)[0])
    return (f"{int(diff.sum())} of {diff.size} values differ, first at {idx}: "
            f"got {got[idx]}, want {want[idx]}")


# ---------------------------------------------------------------------------
# cudacrop vs CPU videocrop, consumed by torch / numpy

def compare_case(fmt, w, h, crop, frames, stream):
    """The same snow frames (one videotestsrc, a tee) go through CPU videocrop
    and through cudaupload ! cudacrop, as tests/elements/crop_gpu.cpp does;
    every plane of every frame must be equal."""
    l, r, t, b = crop
    props = f"left={l} right={r} top={t} bottom={b}"
    what = f"{fmt} {w}x{h} l{l} r{r} t{t} b{b}"
    desc = (f"videotestsrc pattern=snow num-buffers={frames} ! "
            f"video/x-raw,format={fmt},width={w},height={h},framerate=30/1 ! tee name=t "
            f"t. ! queue ! videocrop {props} ! appsink name=ref sync=false "
            f"t. ! queue ! cudaupload ! cudacrop {props} ! appsink name=out sync=false")
    ow, oh = w - l - r, h - t - b
    with cudastreams.Pipeline(desc, max_held_frames=4) as p:
        for i in range(frames):
            out = pull(p, "out", what, i)
            ref = pull(p, "ref", what, i)
            check(out.device is not None, f"{what}: cudacrop's frame is not in device memory")
            check(ref.device is None, f"{what}: videocrop's frame is not in system memory")
            check(out.format == fmt and ref.format == fmt,
                  f"{what}: formats {out.format} (GPU) / {ref.format} (CPU), want {fmt}")
            check((out.width, out.height) == (ow, oh) and (ref.width, ref.height) == (ow, oh),
                  f"{what}: sizes {out.width}x{out.height} (GPU) / "
                  f"{ref.width}x{ref.height} (CPU), want {ow}x{oh}")
            check(out.n_planes == ref.n_planes,
                  f"{what}: {out.n_planes} planes (GPU), {ref.n_planes} (CPU)")
            if i == 0 and out.n_planes > 1:
                try:
                    out.__dlpack__(stream=stream.cuda_stream)
                    raise Fail(f"{what}: __dlpack__ of a {fmt} frame (several planes) "
                               "did not raise TypeError")
                except TypeError:
                    pass
            for k in range(out.n_planes):
                with torch.cuda.stream(stream):
                    g = torch.from_dlpack(out) if out.n_planes == 1 else \
                        torch.from_dlpack(out.planes[k])
                    check(g.is_cuda and g.dtype == torch.uint8,
                          f"{what}: plane {k}: tensor on {g.device}, {g.dtype}")
                    got = g.cpu().numpy()  # on `stream`, after the frame's event
                want = np.from_dlpack(ref) if ref.n_planes == 1 else np.from_dlpack(ref.planes[k])
                check(got.shape == want.shape,
                      f"{what}: frame {i} plane {k}: shape {tuple(got.shape)} (GPU), "
                      f"{tuple(want.shape)} (CPU videocrop)")
                if not np.array_equal(got, want):
                    raise Fail(f"{what}: frame {i} plane {k}: "
                               f"{first_difference(got, want)} (GPU vs CPU videocrop)")
                del g, want
            del out, ref
        try:
            end = p.pull("out", timeout=30)
        except TimeoutError:
            raise Fail(f"{what}: no EOS after {frames} frames")
        check(end is None, f"{what}: more than {frames} frames came out")


def test_exact_vs_videocrop():
    stream = torch.cuda.Stream(priority=-1)
    n = 0
    for fmt in ("RGBA", "NV12", "I420"):
        for w, h, frames in ((64, 48, 8), (63, 47, 4)):
            for crop in ((3, 5, 1, 2),   # odd origin
                         (2, 4, 6, 8),   # even origin
                         (1, 2, 3, 4)):  # odd origin, odd size
                compare_case(fmt, w, h, crop, frames, stream)
                n += 1
        compare_case(fmt, 1920, 1080, (101, 37, 33, 9), 3, stream)
        n += 1
    return f"{n} cases"


# ---------------------------------------------------------------------------
# no host wait in the torch path

def test_no_host_waits():
    warm, n = 20, 1000
    # One frame, uploaded once and pushed again by imagefreeze at 1000
    # frames/s: every host wait counted is then the consumer's. With an
    # upload per frame, a live source that falls behind under load (the
    # suites run in parallel) catches up in a burst, and cudaupload's
    # pinned pool may wait for a copy before handing a buffer out again:
    # the source's back-pressure, which this test is not about. (On
    # 2026-11-26 the test with an upload per frame counted 1 wait in 1000
    # frames on an H200 running two suites at once; 16 busy CPU threads
    # alone did not bring it back.)
    desc = ("videotestsrc pattern=ball num-buffers=1 ! "
            "video/x-raw,format=RGBA,width=64,height=48,framerate=1000/1 ! cudaupload ! "
            f"imagefreeze is-live=true num-buffers={warm + n + 10} ! "
            "cudacrop left=2 right=6 top=4 bottom=4 ! appsink sync=false")
    s = torch.cuda.Stream(priority=-1)
    what = "torch consumer"
    with cudastreams.Pipeline(desc) as p, torch.cuda.stream(s):
        acc = torch.zeros((), dtype=torch.float32, device="cuda")
        for i in range(warm):
            f = pull(p, None, what, i)
            acc += torch.from_dlpack(f).float().mean()
            del f
        before = cudastreams.host_waits()
        for i in range(n):
            f = pull(p, None, what, warm + i)
            t = torch.from_dlpack(f)
            acc += t.float().mean()  # no host sync: the op is only enqueued on s
            del t, f
        after = cudastreams.host_waits()
        torch.cuda.synchronize()
        check(bool(torch.isfinite(acc)), f"{what}: the torch op gave {acc.item()}")
    check(after == before,
          f"{what}: {after - before} host waits in {n} frames "
          f"(host_waits() {before} -> {after}); want 0")
    return f"{n} frames, 0 host waits"


# ---------------------------------------------------------------------------
# a held tensor keeps its content

def test_held_tensor_kept():
    more = 50
    desc = (f"videotestsrc pattern=snow num-buffers={more + 5} ! "
            "video/x-raw,format=RGBA,width=64,height=48 ! "
            "cudaupload ! cudacrop left=1 right=2 top=3 bottom=1 ! appsink sync=false")
    s = torch.cuda.Stream(priority=-1)
    what = "held tensor"
    with cudastreams.Pipeline(desc, max_held_frames=8) as p, torch.cuda.stream(s):
        f0 = pull(p, None, what, 0)
        t0 = torch.from_dlpack(f0)
        c0 = t0.clone()  # right away, on the consumer stream
        f0.release()     # the tensor alone keeps the frame now
        del f0
        check(p.held_frames >= 1,
              f"{what}: held_frames is {p.held_frames} while a tensor of a frame lives")
        differ = 0
        for i in range(more):
            f = pull(p, None, what, i + 1)
            t = torch.from_dlpack(f)
            differ += int(not torch.equal(t, c0))
            del t, f
        check(differ > 0, f"{what}: all {more} later snow frames equal the first: "
              "the test proves nothing")
        if not torch.equal(t0, c0):
            raise Fail(f"{what}: the held tensor changed while {more} more frames went by: "
                       + first_difference(t0.cpu().numpy(), c0.cpu().numpy()))
    return f"held 1 frame over {more}"


# ---------------------------------------------------------------------------
# the elements work on the application's streams

def test_app_streams():
    s1 = torch.cuda.Stream(priority=-1)
    s2 = torch.cuda.Stream(priority=-1)
    check(s1.priority < 0 and s2.priority < 0,
          f"torch gave stream priorities {s1.priority}, {s2.priority}; want < 0 (high)")
    handles = {s1.cuda_stream, s2.cuda_stream}
    frames = 30
    desc = (f"videotestsrc num-buffers={frames} ! "
            "video/x-raw,format=RGBA,width=64,height=48 ! "
            "cudaupload ! cudacrop left=4 top=2 ! appsink sync=false")
    # as handles, then as the stream objects themselves (.cuda_stream)
    for arg, how in (([s1.cuda_stream, s2.cuda_stream], "handles"), ([s1, s2], "objects")):
        what = f"streams= ({how})"
        seen = set()
        n = 0
        with cudastreams.Pipeline(desc, streams=arg) as p:
            while True:
                f = p.pull(timeout=30)
                if f is None:
                    break
                check(f.stream in handles,
                      f"{what}: frame {n} names stream {f.stream:#x}; the application's "
                      f"are {', '.join(f'{h:#x}' for h in sorted(handles))}")
                seen.add(f.stream)
                n += 1
                del f
        check(n == frames, f"{what}: {n} frames, want {frames}")
    return (f"{frames} frames x2, on {len(seen)} of the 2 priority streams "
            f"(priorities {s1.priority}/{s2.priority})")


# ---------------------------------------------------------------------------
# push a torch tensor -> cudacrop -> pull

def test_push_round_trip():
    w, h, left, n = 64, 48, 3, 8
    caps = (f"video/x-raw(memory:CUDAStreamsMemory),format=RGBA,width={w},height={h},"
            "framerate=0/1")
    desc = (f'appsrc name=src format=time caps="{caps}" ! cudacrop left={left} ! '
            "appsink name=sink sync=false")
    s = torch.cuda.Stream(priority=-1)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(20261121)
    what = "push round trip"
    frame_ns = 40_000_000
    with cudastreams.Pipeline(desc) as p, torch.cuda.stream(s):
        refs, junk = [], []
        for i in range(n):
            x = torch.randint(0, 256, (h, w, 4), dtype=torch.uint8, device="cuda",
                              generator=gen)
            refs.append(x.clone())
            p.push(x, "src", pts=i * frame_ns, duration=frame_ns, stream=s)
            del x
            # Same size on the same stream: torch's caching allocator would
            # hand out x's block now, had the pipeline let go of it early.
            junk.append(torch.full((h, w, 4), 7, dtype=torch.uint8, device="cuda"))
        p.end_of_stream("src")
        for i in range(n):
            f = pull(p, "sink", what, i)
            check((f.width, f.height) == (w - left, h),
                  f"{what}: frame {i} is {f.width}x{f.height}, want {w - left}x{h}")
            check(f.pts == i * frame_ns, f"{what}: frame {i} pts {f.pts}, want {i * frame_ns}")
            y = torch.from_dlpack(f)
            want = refs[i][:, left:, :]
            check(tuple(y.shape) == tuple(want.shape),
                  f"{what}: frame {i} shape {tuple(y.shape)}, want {tuple(want.shape)}")
            if not torch.equal(y, want):
                raise Fail(f"{what}: frame {i}: "
                           + first_difference(y.cpu().numpy(), want.cpu().numpy()))
            del y, f
        try:
            end = p.pull("sink", timeout=30)
        except TimeoutError:
            raise Fail(f"{what}: no EOS after {n} frames")
        check(end is None, f"{what}: more than {n} frames came out")
    return f"{n} frames"


# ---------------------------------------------------------------------------
# the model-input recipe: planar RGB as one 3 x H x W tensor

def smooth_frame(w, h, seed):
    """RGBA of two smooth waves per channel, as tests/elements/convertscale_gpu.cpp
    makes them: two scalers agree on such content (on bars or noise they
    place edges differently: videotestsrc's bars give 33 dB between plain
    bilinear and videoconvertscale's)."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    u, v = 6.2832 * x / w, 6.2832 * y / h
    f = np.full((h, w, 4), 255, np.uint8)
    for c in range(3):
        k = rng.uniform(0.5, 3.0, (2, 3))
        s = (np.sin(k[0, 0] * u + k[0, 1] * v + k[0, 2])
             + np.sin(k[1, 0] * u - k[1, 1] * v + 2 * k[1, 2]))
        f[..., c] = np.rint((0.5 + 0.22 * s) * 255)
    return f


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return float("inf") if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)


def test_model_input_rgbp():
    """The recipe of docs/python.md (RGBA 1280x720 -> letterboxed 640x640
    RGBP), on smooth frames pushed into a tee: one branch through ours, one
    through videoconvertscale with the same caps."""
    w, h, side, n = 1280, 720, 640, 3
    out_caps = f"format=RGBP,width={side},height={side},pixel-aspect-ratio=1/1"
    desc = (f'appsrc name=src format=time caps="video/x-raw,format=RGBA,width={w},height={h},'
            'framerate=0/1" ! tee name=t '
            "t. ! queue ! cudastreamsupload ! cudastreamsconvertscale add-borders=true ! "
            f"video/x-raw(memory:CUDAStreamsMemory),{out_caps} ! appsink name=gpu sync=false "
            "t. ! queue ! videoconvertscale dither=none method=bilinear add-borders=true ! "
            f"video/x-raw,{out_caps} ! appsink name=cpu sync=false")
    s = torch.cuda.Stream(priority=-1)
    what = "model input"
    worst = float("inf")
    try:
        p = cudastreams.Pipeline(desc)
    except cudastreams.Error as e:
        if "videoconvertscale" not in str(e):
            raise
        return f"not run: this GStreamer has no videoconvertscale (1.20): {e}"
    with p, torch.cuda.stream(s):
        for i in range(n):
            p.push(smooth_frame(w, h, 1000 + i), "src", pts=i * 40_000_000)
        p.end_of_stream("src")
        for i in range(n):
            f = pull(p, "gpu", what, i)
            ref = pull(p, "cpu", what, i)
            check(f.device is not None and (f.format, f.n_planes) == ("RGBP", 3),
                  f"{what}: frame {i} is {f.format} ({f.n_planes} planes) on {f.device}")
            x = torch.from_dlpack(f)
            check(tuple(x.shape) == (3, side, side) and x.dtype == torch.uint8 and x.is_cuda,
                  f"{what}: frame {i}: {tuple(x.shape)} {x.dtype} on {x.device}, "
                  f"want (3, {side}, {side}) uint8 on the GPU")
            planes = [torch.from_dlpack(f.planes[k]) for k in range(3)]
            check(x.data_ptr() == planes[0].data_ptr(),
                  f"{what}: the tensor starts at {x.data_ptr():#x}, plane 0 at "
                  f"{planes[0].data_ptr():#x}: not the frame's memory")
            for k, plane in enumerate(planes):
                check(x[k].data_ptr() == plane.data_ptr(),
                      f"{what}: channel {k} at {x[k].data_ptr():#x}, plane {k} at "
                      f"{plane.data_ptr():#x}")
                check(torch.equal(x[k], plane[..., 0]),
                      f"{what}: frame {i}: channel {k} differs from plane {k}")
            got = x.cpu().numpy()  # on `s`, after the frame's event
            want = np.from_dlpack(ref)
            check(want.shape == got.shape,
                  f"{what}: videoconvertscale's frame is {want.shape}, ours {got.shape}")
            db = psnr(got, want)
            worst = min(worst, db)
            check(db >= 40.0, f"{what}: frame {i}: PSNR {db:.1f} dB against "
                  f"videoconvertscale, want >= 40 (max difference "
                  f"{int(np.abs(got.astype(int) - want).max())})")
            del x, planes, f, ref
    return f"{n} frames 1280x720 RGBA -> 640x640 RGBP letterbox, PSNR >= {worst:.1f} dB"


# ---------------------------------------------------------------------------
# cudabatch: the batch tensor in torch

def test_batch_from_dlpack():
    warm, n, side = 10, 200, 64
    # Two one-colour sources of other shapes (red 128x64, green 32x64),
    # uploaded once: each slot is its colour inside the picture, 0 around.
    srcs = "".join(
        f"videotestsrc pattern={pat} num-buffers=1 ! video/x-raw,format=RGBA,width={w},"
        f"height={h},framerate=1000/1 ! cudaupload ! imagefreeze num-buffers={warm + n + 5} "
        f"! b.sink_{i} " for i, (pat, w, h) in enumerate([("red", 128, 64), ("green", 32, 64)]))
    desc = (f"{srcs}cudabatch name=b width={side} height={side} dtype=float16 "
            'mean="<0.5,0.5,0.5>" std="<0.5,0.5,0.5>" ! appsink sync=false')
    s = torch.cuda.Stream()
    what = "cudabatch -> torch"
    with cudastreams.Pipeline(desc) as p, torch.cuda.stream(s):
        acc = torch.zeros((), dtype=torch.float32, device="cuda")
        for i in range(warm):
            acc += torch.from_dlpack(pull(p, None, what, i)).float().mean()
        before = cudastreams.host_waits()
        for i in range(n):
            b = pull(p, None, what, warm + i)
            t = torch.from_dlpack(b)
            acc += t.float().mean()
            if i < n - 1:
                del t, b
        after = cudastreams.host_waits()
        check(t.shape == (2, 3, side, side) and t.dtype == torch.float16 and t.is_cuda,
              f"{what}: tensor {tuple(t.shape)} {t.dtype}")
        check(t.data_ptr() == torch.from_dlpack(b).data_ptr(),
              f"{what}: two exports of one batch are two memories (a copy?)")
        sl = b.slots
        check([x.pad for x in sl] == ["sink_0", "sink_1"] and not any(x.empty for x in sl),
              f"{what}: slots {[x.pad for x in sl]}")
        check(sl[0].box_to_source(0, 16, 64, 48) == (0.0, 0.0, 128.0, 64.0),
              f"{what}: slot 0 maps its picture to {sl[0].box_to_source(0, 16, 64, 48)}")
        torch.cuda.synchronize()
        # red inside slot 0's picture (rows 16..47): (1, -1, -1); border -1
        want = torch.tensor([1.0, -1.0, -1.0], device="cuda").view(3, 1)
        got = t[0, :, 16:48, :].float().reshape(3, -1)
        check(bool(((got - want).abs() < 1e-2).all()), f"{what}: slot 0 is not red")
        check(bool((t[0, :, :16].float() + 1).abs().max() < 1e-2), f"{what}: slot 0's border")
        check(bool(torch.isfinite(acc)), f"{what}: the torch op gave {acc.item()}")
    check(after == before, f"{what}: {after - before} host waits in {n} batches; want 0")
    return f"{n} batches of 2 x 3 x {side} x {side} float16, 0 host waits"


TESTS = [test_exact_vs_videocrop, test_no_host_waits, test_held_tensor_kept,
         test_app_streams, test_push_round_trip, test_model_input_rgbp,
         test_batch_from_dlpack]


def main():
    print(f"torch {torch.__version__} (CUDA {torch.version.cuda}) on "
          f"{torch.cuda.get_device_name(0)}; numpy {np.__version__}; "
          f"cudastreams {cudastreams.__version__}", flush=True)
    passed = failed = 0
    for test in TESTS:
        name = test.__name__
        try:
            note = test()
            passed += 1
            print(f"PASS {name}" + (f" ({note})" if note else ""), flush=True)
        except Fail as e:
            failed += 1
            print(f"FAIL {name}: {e}", flush=True)
        except Exception as e:  # an error of the module, torch or GStreamer
            failed += 1
            print(f"FAIL {name}: {type(e).__name__}: {e}", flush=True)
            traceback.print_exc()
            sys.stdout.flush()
    print(f"torch: {passed} passed, {failed} failed", flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
