#!/usr/bin/env bash
# The bunnymark against the bare instanced-quad renderer (benches/bare_quads.rs) in the same minutes: for each
# sprite count, ROUNDS rounds of bare_quads, `bunnymark --textures 1` and the default 12-texture bunnymark, run one
# after the other, so that the machine's state (on a VM it drifts within minutes) is shared by all three. Prints a
# line a run, then each column's median CPU ms and its ratio to the bare renderer's.
# Usage: benches/vs_bare.sh [ROUNDS] [SPRITES...]     (defaults: 4 rounds; 1000 10000 100000)
set -euo pipefail
. "$(dirname "$0")/common.sh"
cd "$(dirname "$0")/.."
ROUNDS=${1:-4}
shift || true
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(1000 10000 100000)
cargo build -q --release --example bunnymark --bench bare_quads
BM=target/release/examples/bunnymark
BARE=$(ls -t target/release/deps/bare_quads-* | grep -v '\.d$' | head -1)
for n in "${SIZES[@]}"; do
  bunny_frames "$n"
  bare=() one=() twelve=()
  for _ in $(seq "$ROUNDS"); do
    run bare_quads bare "$BARE"
    run "bunnymark 1 tex" one "$BM" --headless --textures 1
    run "bunnymark 12 tex" twelve "$BM" --headless
  done
  b=$(printf '%s\n' "${bare[@]}" | median)
  o=$(printf '%s\n' "${one[@]}" | median)
  t=$(printf '%s\n' "${twelve[@]}" | median)
  awk -v n="$n" -v b="$b" -v o="$o" -v t="$t" 'BEGIN {
    printf "sprites %d  median cpu_ms: bare %.4f, bunnymark 1 tex %.4f (%.2fx), 12 tex %.4f (%.2fx)\n", n, b, o, o / b, t, t / b }'
done
