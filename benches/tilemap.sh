#!/usr/bin/env bash
# The tilemap bars in one run, scenes in alternation so that all see the same machine state:
#   pan:  a render group of 10,000 tiles against one of 1,000,000 (the camera pans and zooms; ratio 1M / 10k)
#   cull: 1,000,000 tiles zoomed to show about 1% (10,000), as one render group (its cells culled) and as chunk
#         groups (culled by their bounds), against a map of 10,000 tiles zoomed to show all of them (one group,
#         chunk groups, plain sprites)
# Prints a line a run, then each scene's median CPU ms (and frame ms) and the ratios.
# Usage: benches/tilemap.sh [ROUNDS] [TILEMAP_BINARY]     (defaults: 5 rounds; builds target/release/examples/tilemap)
set -euo pipefail
. "$(dirname "$0")/common.sh"
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
TM=${2:-}
if [ -z "$TM" ]; then
  cargo build -q --release --example tilemap
  TM=target/release/examples/tilemap
fi
declare -A cpu frame
scenes=("pan10k:--tiles 10000" "pan1M:--tiles 1000000" "zoom1M:--world-tiles 1000000 --zoom"
  "zoomchunks1M:--world-tiles 1000000 --zoom --groups chunks" "all10k:--tiles 10000 --view-tiles 10000"
  "chunks10k:--tiles 10000 --view-tiles 10000 --groups chunks" "plain10k:--tiles 10000 --view-tiles 10000 --groups none")
for _ in $(seq "$ROUNDS"); do
  for s in "${scenes[@]}"; do
    name=${s%%:*} args=${s#*:}
    # shellcheck disable=SC2086
    l=$("$TM" --headless $args --frames 200 --warmup 20 2>/dev/null | tail -1)
    [[ $l == *'"cpu_ms_median":'* ]] || { echo "tilemap: $name printed no figures" >&2; exit 1; }
    c=$(field cpu_ms_median <<<"$l") f=$(field frame_ms_median <<<"$l")
    cpu[$name]+="$c "
    frame[$name]+="$f "
    printf '%-12s cpu_ms %s  frame_ms %s  collect_ms %s  submit_ms %s  culled %s  cells culled %s  sprites %s\n' \
      "$name" "$c" "$f" "$(field collect_ms_mean <<<"$l")" "$(field submit_ms_mean <<<"$l")" \
      "$(field culled_per_frame <<<"$l")" "$(field group_cells_culled_per_frame <<<"$l")" \
      "$(field sprites_per_frame <<<"$l")"
  done
done
med() { tr ' ' '\n' <<<"$1" | grep . | median; }
for s in "${scenes[@]}"; do
  name=${s%%:*}
  printf 'median %-12s cpu_ms %s  frame_ms %s\n' "$name" "$(med "${cpu[$name]}")" "$(med "${frame[$name]}")"
done
ratio() { local -n col=$1; awk -v a="$(med "${col[$2]}")" -v b="$(med "${col[$3]}")" 'BEGIN {printf "%.2f", a / b}'; }
echo "ratio pan 1M / 10k, CPU: $(ratio cpu pan1M pan10k)   bar 1.2"
echo "ratio zoom 1M / 10k in view, CPU: $(ratio cpu zoom1M all10k), frame: $(ratio frame zoom1M all10k)   bar 1.5"
echo "ratio zoom 1M (chunk groups) / chunks 10k, CPU: $(ratio cpu zoomchunks1M chunks10k), frame: $(ratio frame zoomchunks1M chunks10k)"
echo "ratio zoom 1M / plain 10k, CPU: $(ratio cpu zoom1M plain10k), frame: $(ratio frame zoom1M plain10k)"
