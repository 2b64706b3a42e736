#!/usr/bin/env bash
# The animated crowd against the plain bunnymark, in alternation: the same bunnymark binary, with `--animated`
# (every sprite an AnimatedSprite of the shipped sheet turning frames 12 times a second) and without. Prints a line
# a run and the median CPU ms of each with their ratio (see benches/ab.sh).
# Usage: benches/crowd.sh [ROUNDS] [SPRITES...]     (defaults: 5 rounds; 10000 100000)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BUNNYMARK:-target/release/examples/bunnymark}
[ -x "$BIN" ] || cargo build --release --example bunnymark
ROUNDS=${1:-5}
shift || true
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(10000 100000)
wrap=$(mktemp)
trap 'rm -f "$wrap"' EXIT
printf '#!/bin/sh\nexec %s --animated "$@"\n' "$(realpath "$BIN")" >"$wrap"
chmod +x "$wrap"
benches/ab.sh "$BIN" "$wrap" "$ROUNDS" "${SIZES[@]}"
