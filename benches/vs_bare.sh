#!/usr/bin/env bash
# The bunnymark against the bare instanced-quad renderer (benches/bare_quads.rs) in the same minutes: for each
# sprite count, ROUNDS rounds of bare_quads, `bunnymark --textures 1` and the default 12-texture bunnymark, run one
# after the other, so that the machine's state (on a VM it drifts within minutes) is shared by all three. Prints a
# line a run, then each column's median CPU ms and its ratio to the bare renderer's.
# Usage: benches/vs_bare.sh [ROUNDS] [SPRITES...]     (defaults: 4 rounds; 1000 10000 100000)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-4}
shift || true
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(1000 10000 100000)
cargo build -q --release --example bunnymark --bench bare_quads
BM=target/release/examples/bunnymark
BARE=$(ls -t target/release/deps/bare_quads-* | grep -v '\.d$' | head -1)
field() { sed -E "s/.*\"$1\":([0-9.]+).*/\1/"; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
for n in "${SIZES[@]}"; do
  frames=1000; warmup=30
  if [ "$n" -ge 100000 ]; then frames=30; warmup=8; elif [ "$n" -ge 10000 ]; then frames=300; fi
  bare=() one=() twelve=()
  for _ in $(seq "$ROUNDS"); do
    l=$("$BARE" --sprites "$n" --frames $frames --warmup $warmup 2>/dev/null | tail -1)
    bare+=("$(field cpu_ms_median <<<"$l")")
    echo "sprites $n  bare_quads        cpu_ms $(field cpu_ms_median <<<"$l")  frame_ms $(field frame_ms_median <<<"$l")"
    l=$("$BM" --headless --sprites "$n" --frames $frames --warmup $warmup --textures 1 2>/dev/null | tail -1)
    one+=("$(field cpu_ms_median <<<"$l")")
    echo "sprites $n  bunnymark 1 tex   cpu_ms $(field cpu_ms_median <<<"$l")  frame_ms $(field frame_ms_median <<<"$l")"
    l=$("$BM" --headless --sprites "$n" --frames $frames --warmup $warmup 2>/dev/null | tail -1)
    twelve+=("$(field cpu_ms_median <<<"$l")")
    echo "sprites $n  bunnymark 12 tex  cpu_ms $(field cpu_ms_median <<<"$l")  frame_ms $(field frame_ms_median <<<"$l")"
  done
  b=$(printf '%s\n' "${bare[@]}" | median)
  o=$(printf '%s\n' "${one[@]}" | median)
  t=$(printf '%s\n' "${twelve[@]}" | median)
  awk -v n="$n" -v b="$b" -v o="$o" -v t="$t" 'BEGIN {
    printf "sprites %d  median cpu_ms: bare %.4f, bunnymark 1 tex %.4f (%.2fx), 12 tex %.4f (%.2fx)\n", n, b, o, o / b, t, t / b }'
done
