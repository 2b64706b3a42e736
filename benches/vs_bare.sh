#!/usr/bin/env bash
# The bunnymark against the bare instanced-quad renderer (benches/bare_quads.rs) in the same minutes: for each
# sprite count, ROUNDS rounds of bare_quads, `bunnymark --textures 1` (sprites moved through transform_mut),
# `--textures 1 --bulk` (sprites moved through one child_transforms_mut a frame), `--textures 1 --particles` (a
# ParticleContainer, positions dynamic) and the default 12-texture bunnymark, run one after the other, so that the
# machine's state (on a VM it drifts within minutes) is shared by all. Prints a line a run, then each column's
# median CPU ms and its ratio to the bare renderer's, and the GPU medians of bare and particles.
# Usage: benches/vs_bare.sh [ROUNDS] [SPRITES...]     (defaults: 4 rounds; 1000 10000 100000)
# TINY=N: after the table, one run of N particles of 4x4 pixels (CPU, GPU and pipelined frame ms).
# BARE=path and BM=path use prebuilt binaries (the device machine) instead of building.
set -euo pipefail
. "$(dirname "$0")/common.sh"
cd "$(dirname "$0")/.."
ROUNDS=${1:-4}
shift || true
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(1000 10000 100000)
if [ -z "${BARE:-}" ] || [ -z "${BM:-}" ]; then
  cargo build -q --release --example bunnymark --bench bare_quads
  BM=target/release/examples/bunnymark
  BARE=$(ls -t target/release/deps/bare_quads-* | grep -v '\.d$' | head -1)
fi
gpu() { sed -nE 's/.*"gpu_ms_median":([0-9.]+).*/\1/p'; }
for n in "${SIZES[@]}"; do
  bunny_frames "$n"
  bare=() one=() bulk=() parts=() twelve=() gparts=()
  for _ in $(seq "$ROUNDS"); do
    run bare_quads bare "$BARE"
    run "bunnymark 1 tex" one "$BM" --headless --textures 1
    run "bulk 1 tex" bulk "$BM" --headless --textures 1 --bulk
    run "particles 1 tex" parts "$BM" --headless --textures 1 --particles
    gparts+=("$(gpu <<<"$l_last")")
    run "bunnymark 12 tex" twelve "$BM" --headless
  done
  b=$(printf '%s\n' "${bare[@]}" | median)
  o=$(printf '%s\n' "${one[@]}" | median)
  k=$(printf '%s\n' "${bulk[@]}" | median)
  p=$(printf '%s\n' "${parts[@]}" | median)
  t=$(printf '%s\n' "${twelve[@]}" | median)
  gp=$(printf '%s\n' "${gparts[@]}" | median)
  awk -v n="$n" -v b="$b" -v o="$o" -v k="$k" -v p="$p" -v t="$t" -v gp="$gp" 'BEGIN {
    printf "sprites %d  median cpu_ms: bare %.4f, bunnymark 1 tex %.4f (%.2fx), bulk %.4f (%.2fx), particles %.4f (%.2fx), 12 tex %.4f (%.2fx); particles gpu_ms %s\n",
      n, b, o, o / b, k, k / b, p, p / b, t, t / b, gp }'
done
if [ -n "${TINY:-}" ]; then
  l=$("$BM" --headless --textures 1 --particles --particle-px 4 --sprites "$TINY" --frames 20 --warmup 5 2>/dev/null | tail -1)
  echo "tiny particles $TINY: cpu_ms $(field cpu_ms_median <<<"$l")  gpu_ms $(gpu <<<"$l")  frame_ms_pipelined $(field frame_ms_pipelined_median <<<"$l")  frame_ms $(field frame_ms_median <<<"$l")"
fi
