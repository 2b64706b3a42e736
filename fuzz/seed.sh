#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ from what the tests and examples use: the asset files (images, fonts, sheets, .fnt
# descriptions, SVG documents, WGSL shaders), the documents the Rust tests hold in string literals (WGSL, SVG,
# spritesheet JSON, BMFont text, SVG path data), the committed seeds of targets without such files
# (fuzz/seeds/<target>/) and every regression input (tests/data/fuzz/<target>/). Files are named by their SHA-1,
# as libFuzzer names what it adds, so running this again adds nothing twice. Files over $MAX_SEED_BYTES (default
# 256 KiB) are left out: they only slow every execution (the full DejaVuSans.ttf is left out for its Latin-1
# subset, which the tests also use).
set -euo pipefail
cd "$(dirname "$0")"
root=..
corpus=${1:-corpus}
max=${MAX_SEED_BYTES:-262144}
targets=(sheet_json image font bitmap_font warm_start svg wgsl_filter wgsl_mesh scene_ops)
for t in "${targets[@]}"; do mkdir -p "$corpus/$t"; done

# put TARGET FILE...: copies each file (up to $max bytes) into TARGET's corpus under its hash.
put() {
  local target=$1 f sum
  shift
  for f in "$@"; do
    [ -f "$f" ] || continue
    [ "$(wc -c <"$f")" -le "$max" ] || continue
    sum=$(sha1sum "$f" | cut -c1-40)
    cp "$f" "$corpus/$target/$sum"
  done
}

# Asset files, by extension, wherever the tests, examples and benches find them.
files() { find "$root/assets" "$root/tests" "$root/shaders" -type f \( "$@" \) -not -path '*/fuzz/*' | sort; }
mapfile -t images < <(files -iname '*.png' -o -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.webp')
put image "${images[@]}"
mapfile -t fonts < <(files -iname '*.ttf' -o -iname '*.otf')
put font "${fonts[@]}"
mapfile -t fnts < <(files -iname '*.fnt')
put bitmap_font "${fnts[@]}"
mapfile -t sheets < <(files -iname '*.json')
put sheet_json "${sheets[@]}"
mapfile -t svgs < <(files -iname '*.svg')
put svg "${svgs[@]}"
# The built-in filters' bodies are filter sources like a user's (appended to the same prelude); the particle
# shader is a mesh source appended to the mesh prelude. The preludes and the batch shader are not sources.
put wgsl_filter $(ls "$root"/shaders/filters/*.wgsl | grep -v '/prelude.wgsl$')
put wgsl_mesh "$root/shaders/particles.wgsl"

# Documents held in string literals of the tests, examples, benches and the library's own unit tests.
python3 - "$root" "$corpus" <<'PY'
import hashlib, pathlib, re, sys
root, corpus = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
raw = re.compile(r'(?<![A-Za-z0-9_])b?r(#*)"(.*?)"\1', re.S)
plain = re.compile(r'(?<![A-Za-z0-9_#])"((?:[^"\\]|\\.)*)"', re.S)
path_data = re.compile(r'svg_path\(\s*"((?:[^"\\]|\\.)*)"')
escape = re.compile(r'\\(u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|\n\s*|.)')
def unescape(s):
    """A normal Rust string literal's text: escapes decoded, line continuations joined."""
    def one(m):
        e = m.group(1)
        if e.startswith("u{"):
            return chr(int(e[2:-1], 16))
        if e.startswith("x"):
            return chr(int(e[1:], 16))
        if e.startswith("\n"):
            return ""
        return {"n": "\n", "t": "\t", "r": "\r", "0": "\0"}.get(e, e)
    return escape.sub(one, s)
def put(target, text):
    data = text.encode()
    (corpus / target / hashlib.sha1(data).hexdigest()).write_bytes(data)
for d in ("tests", "examples", "benches", "src"):
    for f in sorted((root / d).rglob("*.rs")):
        src = f.read_text(errors="replace")
        literals = [m.group(2) for m in raw.finditer(src)]
        literals += [unescape(m.group(1)) for m in plain.finditer(raw.sub("", src))]
        for s in literals:
            if "mainVertex" in s and "@" in s:
                put("wgsl_mesh", s)
            elif "mainFragment" in s and "@" in s:
                put("wgsl_filter", s)
            elif "<svg" in s:
                put("svg", s)
            elif '"frames"' in s:
                put("sheet_json", s)
            elif ("info " in s and "common " in s) or "<font" in s:
                put("bitmap_font", s)
        for m in path_data.finditer(src):
            put("svg", unescape(m.group(1)))
# scene_ops decodes its operations with `arbitrary`: any bytes are a sequence; a few fixed pseudo-random ones
# start it off at several lengths.
import random
rng = random.Random(2024)
for n in (64, 256, 1024, 4096):
    data = bytes(rng.randrange(256) for _ in range(n))
    (corpus / "scene_ops" / hashlib.sha1(data).hexdigest()).write_bytes(data)
PY

# Committed seeds and regression inputs.
for t in "${targets[@]}"; do
  for d in "seeds/$t" "$root/tests/data/fuzz/$t"; do
    [ -d "$d" ] && put "$t" "$d"/*
  done
done
for t in "${targets[@]}"; do printf '%-12s %5d files\n' "$t" "$(ls "$corpus/$t" | wc -l)"; done
