#!/usr/bin/env bash
# Two bunnymark binaries (say, before and after a change) in alternation, so that both see the same machine state
# (on a VM it drifts within minutes). For each sprite count, ROUNDS rounds of A then B; prints a line a run, then
# each side's median CPU ms and B's ratio to A.
# Usage: benches/ab.sh A_BINARY B_BINARY [ROUNDS] [SPRITES...]     (defaults: 6 rounds; 1000 10000 100000)
# Example: git worktree add /tmp/before HEAD~1 && (cd /tmp/before && cargo build --release --example bunnymark)
#          benches/ab.sh /tmp/before/target/release/examples/bunnymark target/release/examples/bunnymark
set -euo pipefail
A=$1 B=$2
ROUNDS=${3:-6}
shift 3 || shift $#
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(1000 10000 100000)
field() { sed -E "s/.*\"$1\":([0-9.]+).*/\1/"; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
run() {
  local l
  l=$("$1" --headless --sprites "$n" --frames $frames --warmup $warmup 2>/dev/null | tail -1)
  [[ $l == *'"cpu_ms_median":'* ]] || { echo "ab: $1 at $n sprites printed no figures" >&2; exit 1; }
  field cpu_ms_median <<<"$l"
}
for n in "${SIZES[@]}"; do
  frames=1000; warmup=30
  if [ "$n" -ge 100000 ]; then frames=30; warmup=8; elif [ "$n" -ge 10000 ]; then frames=300; fi
  a=() b=()
  for _ in $(seq "$ROUNDS"); do
    a+=("$(run "$A")"); b+=("$(run "$B")")
    printf 'sprites %s  A cpu_ms %s  B cpu_ms %s\n' "$n" "${a[-1]}" "${b[-1]}"
  done
  ma=$(printf '%s\n' "${a[@]}" | median)
  mb=$(printf '%s\n' "${b[@]}" | median)
  lo_a=$(printf '%s\n' "${a[@]}" | sort -g | head -1); hi_a=$(printf '%s\n' "${a[@]}" | sort -g | tail -1)
  lo_b=$(printf '%s\n' "${b[@]}" | sort -g | head -1); hi_b=$(printf '%s\n' "${b[@]}" | sort -g | tail -1)
  awk -v n="$n" -v a="$ma" -v b="$mb" -v la="$lo_a" -v ha="$hi_a" -v lb="$lo_b" -v hb="$hi_b" 'BEGIN {
    printf "sprites %d  median cpu_ms: A %.4f (%s..%s), B %.4f (%s..%s), B/A %.3f\n", n, a, la, ha, b, lb, hb, b / a }'
done
