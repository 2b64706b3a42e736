#!/usr/bin/env bash
# Two bunnymark binaries (say, before and after a change) and the bare instanced-quad renderer
# (benches/bare_quads.rs) in alternation, so that all three see the same machine state (on a VM it drifts within
# minutes). Each round runs bare first, then A and B, swapping A and B every round. Prints a line a run, then each
# column's median CPU ms (range), B's ratio to A and both ratios to bare.
# Usage: benches/ab.sh A_BINARY B_BINARY [ROUNDS] [SPRITES...]     (defaults: 6 rounds; 1000 10000 100000)
# The bare renderer is $BARE, else the newest target/release/deps/bare_quads-* (`cargo build --release --bench
# bare_quads`), else left out.
# Example: git worktree add /tmp/before HEAD~1 && (cd /tmp/before && cargo build --release --example bunnymark)
#          benches/ab.sh /tmp/before/target/release/examples/bunnymark target/release/examples/bunnymark
set -euo pipefail
A=$1 B=$2
ROUNDS=${3:-6}
shift 3 || shift $#
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(1000 10000 100000)
BARE=${BARE:-$(ls -t target/release/deps/bare_quads-* 2>/dev/null | grep -v '\.d$' | head -1 || true)}
. "$(dirname "$0")/common.sh"
for n in "${SIZES[@]}"; do
  bunny_frames "$n"
  a=() b=() bare=()
  for r in $(seq "$ROUNDS"); do
    [ -z "$BARE" ] || run bare bare "$BARE"
    if [ $((r % 2)) = 1 ]; then
      run A a "$A" --headless; run B b "$B" --headless
    else
      run B b "$B" --headless; run A a "$A" --headless
    fi
  done
  ma=$(printf '%s\n' "${a[@]}" | median) mb=$(printf '%s\n' "${b[@]}" | median)
  line=$(awk -v n="$n" -v a="$ma" -v b="$mb" -v ra="$(printf '%s\n' "${a[@]}" | range)" \
    -v rb="$(printf '%s\n' "${b[@]}" | range)" 'BEGIN {
    printf "sprites %d  median cpu_ms: A %.4f (%s), B %.4f (%s), B/A %.3f", n, a, ra, b, rb, b / a }')
  if [ ${#bare[@]} -gt 0 ]; then
    m0=$(printf '%s\n' "${bare[@]}" | median)
    line+=$(awk -v z="$m0" -v a="$ma" -v b="$mb" -v r0="$(printf '%s\n' "${bare[@]}" | range)" 'BEGIN {
      printf ", bare %.4f (%s): A %.2fx, B %.2fx", z, r0, a / z, b / z }')
  fi
  echo "$line"
done
