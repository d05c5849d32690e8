#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine, cudastreamsipcsink/cudastreamsipcsrc's work in one call
# (about 7 minutes on an H200; docs/ipc.md):
#   1. builds (release, sm_90, with the tests and the Python module);
#   2. runs the IPC tests on the GPU and on the stand-in (ipc_gpu: producer
#      and consumer processes, kills, stops, malformed records, batches;
#      the stand-in's own IPC; Python; the ipc_models example with torch)
#      and the GPU tests the allocator's 2 MiB rounding touches;
#   3. the benchmark's IPC rows (pipelines/bench, BENCH_ONLY=ipc): 1080p NV12
#      frames into cudaconvertscale, 16 x 3 x 640 x 640 float16 batches, 1
#      and 4 consumers, at full speed (beside the same chain in one process
#      and nvcodec 1.28.6's cudaipcsink/cudaipcsrc) and at 30 and 1000 fps
#      (latency p50, p99), CPU us per frame of each IPC element (the
#      cudastreamstrace tracer) and host waits;
#   4. (beside the tests) ipc_gpu under compute-sanitizer memcheck, producer
#      and consumer processes included;
#   5. a summary last: PASS/FAIL per step, per test and per target.
# Every process runs under a time limit. Results in $OUT.
#   OUT=/tmp/out scripts/gpu-ipc.sh
# Env: BUILDTYPE (default release; debugoptimized names our functions in
#   the sampler's reports), IPC_BENCH_ONLY (the bench rows, default ipc),
#   IPC_PROFILE (cases whose processes are sampled: pipelines/bench),
#   IPC_TESTS (step 2's tests instead of its list), IPC_MORE_TESTS (more
#   test names for step 2), IPC_MEMCHECK=0 (no memcheck).
set -u
cd "$(dirname "$0")/.." || exit 1
START=$(date +%s)
OUT=${OUT:-/tmp/gcs-out}
mkdir -p "$OUT"
elapsed() { echo $(($(date +%s) - START)); }
# shellcheck disable=SC1091
[ -f .gpu/env.sh ] && source .gpu/env.sh
# nvcodec 1.28.6 for its cudaipcsink/cudaipcsrc rows (.gst-dist: a copy of ../shared/gst).
PEER=""
if [ -x .gst-dist/use ] && .gst-dist/use 1.28.6 /tmp/gst-1.28.6 > "$OUT/gst-1.28.6.txt" 2>&1; then
  PEER=/tmp/gst-1.28.6
fi
SUMMARY=$OUT/summary.txt
: > "$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }

# ---- 1. build ----
B=${BUILD_DIR:-/tmp/gcs-ipc-build}
if [ ! -f "$B/build.ninja" ]; then
  timeout 120 meson setup "$B" -Dgpu_archs=90 -Dbuildtype="${BUILDTYPE:-release}" -Dnvcodec_interop=enabled \
    > "$OUT/setup.txt" 2>&1 || { say "FAIL setup (see $OUT/setup.txt)"; tail -20 "$OUT/setup.txt"; exit 1; }
fi
if ! timeout 330 ninja -C "$B" > "$OUT/build.txt" 2>&1; then
  grep -B2 -A8 -E "error|FAILED" "$OUT/build.txt" | head -40
  say "FAIL build after $(elapsed) s (see $OUT/build.txt)"
  exit 1
fi
say "PASS build ($(elapsed) s)"

# ---- 2. tests, and memcheck beside them (functional runs: the GPU is shared) ----
listed=$(meson test -C "$B" --list --no-rebuild 2> /dev/null)
TESTS="" missing=""
for t in ${IPC_TESTS:-ipc_gpu ipc_gpu_fake ipc_events_gpu ipc_events_gpu_fake fakecuda_selftest \
  python_fakecuda_ipc ipc_models_example \
  registration sync_gpu memorysync_gpu updown_gpu crop_gpu batch_gpu} ${IPC_MORE_TESTS:-}; do
  if grep -qE "[:/ ]$t\$" <<< "$listed"; then TESTS="$TESTS $t"; else missing="$missing $t"; fi
done
CHECKS=test_frames_in_order,test_in_place_or_copied,test_consumer_killed,test_producer_killed
CHECKS=$CHECKS,test_malformed_records,test_batches,test_flush,test_socket_rules
memcheck_pid=""
if [ "${IPC_MEMCHECK:-1}" = 1 ] && grep -qE "[:/ ]ipc_gpu\$" <<< "$listed"; then
  # CK_TIMEOUT_MULTIPLIER: check's own factor for slow runs; ipc_gpu and its peer
  # processes stretch their waits by it too (the sanitizer starts each
  # process many times slower).
  GST_CHECKS=$CHECKS CK_TIMEOUT_MULTIPLIER=10 timeout 300 meson test -C "$B" ipc_gpu --no-rebuild --timeout-multiplier 10 \
    --logbase memcheck --wrapper "compute-sanitizer --tool memcheck --target-processes all \
    --report-api-errors no --error-exitcode 66 --print-limit 20" > "$OUT/memcheck.txt" 2>&1 &
  memcheck_pid=$!
fi
# shellcheck disable=SC2086
timeout 240 meson test -C "$B" $TESTS --no-rebuild --print-errorlogs > "$OUT/tests.txt" 2>&1
rc=$?
grep -E "^ *[0-9]+/[0-9]+ " "$OUT/tests.txt" |
  sed -E 's/^ *[0-9]+\/[0-9]+ +[^ ]+ +\/ +([^ ]+) +([A-Z]+) +([0-9.]+s).*/\2 test \1 (\3)/; s/^OK /PASS /' |
  tee -a "$SUMMARY"
[ -z "$missing" ] || say "SKIP not in this build:$missing"
[ $rc -eq 124 ] && say "FAIL tests: time limit (240 s), see $OUT/tests.txt"
say "tests done ($(elapsed) s)"
if [ -n "$memcheck_pid" ]; then
  wait "$memcheck_pid"
  rc=$?
  errors=$(grep -h "ERROR SUMMARY" "$B"/meson-logs/memcheck*.txt 2> /dev/null | sort | uniq -c | tr -s ' ')
  if [ $rc -eq 0 ]; then
    say "PASS memcheck ipc_gpu ($CHECKS):${errors:- no ERROR SUMMARY lines}"
  elif [ $rc -eq 124 ]; then
    say "FAIL memcheck ipc_gpu: time limit (300 s)${errors:+;$errors}"
  else
    say "FAIL memcheck ipc_gpu (exit $rc):${errors:- see $OUT/memcheck.txt}"
  fi
else
  say "SKIP memcheck: IPC_MEMCHECK=0, or no ipc_gpu in this build"
fi
say "memcheck done ($(elapsed) s)"

# ---- 3. the benchmark's IPC rows, the GPU to themselves ----
env BUILD_DIR="$B" BENCH_ONLY="${IPC_BENCH_ONLY:-ipc}" OUT="$OUT/bench" BENCH_SECONDS="${BENCH_SECONDS:-1}" \
  ${PEER:+BENCH_PEER_GST=$PEER} timeout 300 pipelines/bench > "$OUT/bench.txt" 2>&1
rc=$?
[ $rc -eq 124 ] && say "FAIL bench: time limit (300 s), see $OUT/bench.txt"
say "bench done ($(elapsed) s)"

# ---- 5. summary ----
echo
echo "== summary (cudastreamsipcsink/src, $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2> /dev/null | head -1), $(elapsed) s)"
grep -vE "^(tests|memcheck|bench) done" "$SUMMARY"
if grep -q "^SUMMARY" "$OUT/bench.txt"; then
  sed -n '/^SUMMARY/,$p' "$OUT/bench.txt" | grep -E "ipc" || echo "bench: no IPC line in the summary"
else
  echo "FAIL bench: no summary (see $OUT/bench.txt)"
  tail -8 "$OUT/bench.txt"
fi
