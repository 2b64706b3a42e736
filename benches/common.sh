# Helpers shared by the benchmark scripts (sourced, not run).
# field NAME: the number after "NAME": in the JSON line on stdin.
field() { sed -E "s/.*\"$1\":([0-9.]+).*/\1/"; }
# median / range: of the numbers on stdin, one a line.
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
range() { sort -g | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%s..%s", lo, hi}'; }
# bunny_frames N: sets $frames and $warmup for a bunnymark-like run of N sprites.
bunny_frames() {
  frames=1000; warmup=30
  if [ "$1" -ge 100000 ]; then frames=30; warmup=8; elif [ "$1" -ge 10000 ]; then frames=300; fi
}
# run LABEL ARRAY COMMAND...: runs one benchmark at the current $n, $frames and $warmup, prints its line and
# appends its CPU median to ARRAY.
run() {
  local label=$1 l
  local -n into=$2
  shift 2
  l=$("$@" --sprites "$n" --frames $frames --warmup $warmup 2>/dev/null | tail -1)
  l_last=$l
  [[ $l == *'"cpu_ms_median":'* ]] || { echo "$(basename "$0"): $label at $n sprites printed no figures" >&2; exit 1; }
  into+=("$(field cpu_ms_median <<<"$l")")
  printf 'sprites %s  %-17s cpu_ms %s  frame_ms %s\n' "$n" "$label" "${into[-1]}" "$(field frame_ms_median <<<"$l")"
}
