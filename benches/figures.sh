#!/usr/bin/env bash
# Runs every whole-frame benchmark headless and prints one JSON line each (the figures in BENCHMARKS.md).
# Usage: benches/figures.sh [DIR_WITH_BINARIES] [--quick]
# Default binaries: target/release/examples (build with `cargo build --release --examples`).
set -u
BIN=${1:-target/release/examples}
QUICK=${2:-}
run() { echo "# $*" >&2; "$@" 2>/dev/null | tail -1; }
for n in 1000 10000 100000; do
  run "$BIN/bunnymark" --headless --sprites $n --frames 300
done
if [ "$QUICK" != "--quick" ]; then
  run "$BIN/bunnymark" --headless --sprites 1000000 --frames 20 --warmup 3
fi
run "$BIN/bunnymark" --headless --textures 20 --frames 300
run "$BIN/bunnymark" --headless --blend-modes --frames 300
run "$BIN/bunnymark" --headless --masks 8 --frames 300
run "$BIN/bunnymark" --headless --masks 8 --rect-masks --frames 300
run "$BIN/bunnymark" --headless --masks 8 --sprites 10000 --frames 300
run "$BIN/shapes" --headless --bench --frames 300
run "$BIN/text" --headless --bench --frames 300
# Filters: three scenes, one JSON line each (not through `run`, which keeps the last line only).
echo "# $BIN/filters --headless --bench --frames 300" >&2
"$BIN/filters" --headless --bench --frames 300 2>/dev/null
# Meshes: four scenes, one JSON line each.
echo "# $BIN/mesh --headless --bench --frames 300" >&2
"$BIN/mesh" --headless --bench --frames 300 2>/dev/null
# Warm starts: five cold runs (empty cache directory) and five warm runs, for the bunnymark and its masked scene.
for scene in "" "--masks 8"; do
  dir=$(mktemp -d)
  for i in 1 2 3 4 5; do rm -rf "$dir"/*; run "$BIN/bunnymark" --headless --frames 30 --warmup 30 $scene --pipeline-cache "$dir"; done
  for i in 1 2 3 4 5; do run "$BIN/bunnymark" --headless --frames 30 --warmup 30 $scene --pipeline-cache "$dir"; done
  rm -rf "$dir"
done
