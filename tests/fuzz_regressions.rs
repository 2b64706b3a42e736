//! What the fuzz targets (`fuzz/`, see fuzz/README.md) found, and hostile inputs of each kind, replayed through the
//! same entry points the targets feed: each gives an `Err` or a correct result, never a panic, an abort or a hang.
//! Inputs found by fuzzing are kept in tests/data/fuzz/<target>/, the committed seeds in fuzz/seeds/<target>/;
//! `fuzz/seed.sh` copies both into the fuzzers' corpora. CPU only: no GPU device is opened here.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Every file in `dir` (sorted; none if it does not exist) with its bytes.
fn files(dir: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect()
}

/// Runs `f`, asserting it returns within `limit` (the library's rule for bad input is a second).
#[track_caller]
fn quick<T>(what: &str, limit: Duration, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let out = f();
    assert!(t.elapsed() < limit, "{what} took {:?}", t.elapsed());
    out
}

const SECOND: Duration = Duration::from_secs(1);

/// The CPU walk and batch of `scene` into an 800x600 target (what `fuzz/src/lib.rs` runs), full then kept.
fn walk(scene: &stage2d::Scene) -> usize {
    use stage2d::internals::{bench_texture, Batcher, Collector, View};
    let mut collector = Collector::default();
    let mut batcher = Batcher::new(16);
    let view = View::new(800, 600, bench_texture(1, 1).id());
    let mut stats = stage2d::FrameStats::default();
    batcher.begin();
    collector.collect(scene, view, &mut batcher, |_| true, &mut stats);
    batcher.finish();
    let root = scene.root();
    collector.collect_frame(
        scene,
        root,
        view,
        &mut batcher,
        |_| true,
        None,
        0,
        &mut stats,
    );
    batcher.quads.len()
}

#[test]
fn hostile_spritesheets_are_errors() {
    use stage2d::internals::bench_texture;
    use stage2d::Spritesheet;
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let cases: [&[u8]; 7] = [
        b"",
        b"{\"frames\": 1}",
        deep.as_bytes(),
        br#"{"frames": {"a": {"frame": {"x": 0, "y": 0, "w": 1e400, "h": 1}}}}"#,
        br#"{"frames": {"a": {"frame": {"x": 4000, "y": 0, "w": 512, "h": 1}}}}"#,
        br#"{"frames": {"a": {"frame": {"x": 0, "y": 0, "w": 4, "h": 4}}}, "animations": {"x": [7]}}"#,
        br#"{"frames": [{"filename": "a", "frame": {"x": 0, "y": 0, "w": 4, "h": 4}}, {"filename": "a", "frame": {"x": 0, "y": 0, "w": 4, "h": 4}}]}"#,
    ];
    for json in cases {
        let r = quick("a hostile sheet", SECOND, || {
            Spritesheet::from_json(json, bench_texture(256, 256), "hostile.json")
        });
        assert!(
            r.is_err(),
            "{}",
            String::from_utf8_lossy(&json[..json.len().min(80)])
        );
    }
    for (path, json) in files("tests/data/fuzz/sheet_json") {
        let _ = Spritesheet::from_json(&json, bench_texture(256, 256), &path);
    }
}

#[test]
fn hostile_images_are_errors() {
    use stage2d::internals::decode_image;
    // A PNG header claiming 2^30 x 2^30 pixels, with no data: refused before anything that size is allocated.
    let mut huge = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    huge.extend_from_slice(&(1u32 << 30).to_be_bytes());
    huge.extend_from_slice(&(1u32 << 30).to_be_bytes());
    huge.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0]);
    let webp = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/quadrants.webp"
    ))
    .unwrap();
    let cases: [&[u8]; 5] = [
        b"",
        b"\x89PNG\r\n\x1a\nthis is not a png",
        &huge,
        b"\xff\xd8\xff\xe0\0\x10JFIF\0",
        &webp[..webp.len() / 2],
    ];
    for bytes in cases {
        assert!(quick("a hostile image", SECOND, || decode_image(bytes)).is_err());
    }
    for (_, bytes) in files("tests/data/fuzz/image") {
        let _ = decode_image(&bytes);
    }
}

#[cfg(feature = "text")]
#[test]
fn hostile_fonts_are_errors() {
    use stage2d::Font;
    let font = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/fonts/DejaVuSans-Latin1.ttf"
    ))
    .unwrap();
    let cases: [&[u8]; 4] = [
        b"",
        b"true\0\0\0\0",
        b"\0\x01\0\0\0\xff\xff\xff",
        &font[..1000],
    ];
    for bytes in cases {
        assert!(quick("a hostile font", SECOND, || Font::from_bytes(bytes)).is_err());
    }
    // Found by the font target, mutated Lohit Devanagari subsets: one whose chained context lookup lists a
    // coverage table that does not parse (rustybuzz unwrapped it while shaping), one whose coverage table runs a
    // range backwards (rustybuzz subtracted its ends, an overflow), one with a glyph box 32768 units or more
    // tall (rustybuzz subtracted its sides in 16 bits while placing a mark), one whose full name holds a lone
    // surrogate (fontdue's UTF-16 decoder subtracted it unchecked). font_check refuses such fonts.
    for (path, bytes) in files("tests/data/fuzz/font") {
        let r = quick("a fuzzed font", SECOND, || Font::from_bytes(&bytes));
        assert!(r.is_err(), "{path:?}");
    }
    // The fonts the tests use still load and shape.
    for name in [
        "DejaVuSans.ttf",
        "fonts/DejaVuSans-Latin1.ttf",
        "fonts/DroidSansFallback-Subset.ttf",
        "fonts/Lohit-Devanagari-Subset.ttf",
        "fonts/Symbola-Emoji-Subset.ttf",
    ] {
        let bytes = std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("assets")
                .join(name),
        )
        .unwrap();
        let font = Font::from_bytes(&bytes).unwrap();
        let text = stage2d::Text::new("Hello नमस्ते क्षत्रिय", &font, 24.0);
        assert!(!text.layout().glyphs.is_empty(), "{name}");
    }
}

/// Found by scene_ops: a text of 2.72e-43 px (a subnormal size) had fontdue's rasteriser write outside its bitmap
/// (it indexes unchecked; debug builds abort on the precondition, release builds corrupt memory). Glyphs that far
/// under a pixel are now empty, as spaces are; the walk draws the text as nothing.
#[cfg(feature = "text")]
#[test]
fn texts_far_under_a_pixel_are_drawn_as_nothing() {
    use stage2d::{Font, Node, Scene, Text};
    let mut scene = Scene::new();
    for size in [2.72e-43, f32::MIN_POSITIVE, 1e-30, 1e-9, 1e-6] {
        for rich in [false, true] {
            let text = match rich {
                true => Text::rich("mmmm <b>Wg</b>", &Font::builtin(), size),
                false => Text::new("mmmm Wg", &Font::builtin(), size),
            };
            scene.add(scene.root(), Node::text(text)).unwrap();
        }
    }
    walk(&scene);
    // The walk rasterises glyphs (placing them in the atlas needs the renderer's pages); readable sizes lay out.
    assert_eq!(
        Text::new("mm", &Font::builtin(), 24.0)
            .layout()
            .glyphs
            .len(),
        2
    );
}

#[cfg(feature = "text")]
#[test]
fn hostile_bitmap_fonts_are_errors() {
    use stage2d::internals::bench_texture;
    use stage2d::Font;
    let page = || vec![bench_texture(256, 256)];
    let head = "info face=x size=16\ncommon lineHeight=16 base=12 pages=1\npage id=0 file=a.png\n";
    let cases = [
        String::new(),
        "info size=0\ncommon lineHeight=1\npage id=0 file=a.png".to_string(),
        format!("{head}char id=65 x=250 y=0 width=10 height=10"),
        format!("{head}char id=55296 x=0 y=0 width=1 height=1"),
        format!("{head}char id=65 page=3"),
        format!("{head}kerning first=65 second=66 amount=99999999999"),
        "<font><info size=\"16\"/><common lineHeight=\"16\"/><page id=\"300\" file=\"a\"/></font>"
            .into(),
        "<<<<<<<<<<".repeat(10_000),
    ];
    for fnt in &cases {
        let r = quick("a hostile .fnt", SECOND, || {
            Font::from_fnt(fnt.as_bytes(), page())
        });
        assert!(r.is_err(), "{fnt:.80}");
    }
    assert!(Font::from_fnt(b"\xff\xfe", page()).is_err());
    for (_, bytes) in files("tests/data/fuzz/bitmap_font") {
        let _ = Font::from_fnt(&bytes, page());
    }
}

/// The most glyphs a bitmap font may hold (`MAX_BITMAP_GLYPHS`, 65,535) plus its missing glyph made 65,536
/// entries: the last one's index was computed as `65536 as u16 - 1`, an overflow (a panic in debug builds).
#[cfg(feature = "text")]
#[test]
fn a_bitmap_font_of_the_most_glyphs_loads() {
    use stage2d::internals::bench_texture;
    use stage2d::text::MAX_BITMAP_GLYPHS;
    use stage2d::{Font, Text};
    let mut fnt = String::from(
        "info face=x size=16\ncommon lineHeight=16 base=12 pages=1\npage id=0 file=a.png\n",
    );
    let chars: Vec<char> = (0x20u32..)
        .filter_map(char::from_u32)
        .take(MAX_BITMAP_GLYPHS)
        .collect();
    for c in &chars {
        fnt.push_str(&format!(
            "char id={} x=0 y=0 width=1 height=1 xadvance=3\n",
            *c as u32
        ));
    }
    let font = Font::from_fnt(fnt.as_bytes(), vec![bench_texture(16, 16)]).unwrap();
    let last: String = chars[chars.len() - 2..].iter().collect();
    let layout = Text::new(last, &font, 16.0).layout();
    assert_eq!(layout.glyphs.len(), 2);
    assert_eq!(layout.glyphs[1].glyph, MAX_BITMAP_GLYPHS as u16);
}

#[test]
fn warm_start_seeds_and_hostile_files_are_read_or_rejected() {
    use stage2d::internals::persist::{self, Rejected};
    let seeds = files("fuzz/seeds/warm_start");
    assert!(!seeds.is_empty());
    for (path, bytes) in &seeds {
        let r = persist::decode(bytes, "fuzz-adapter", "fuzz-driver");
        let foreign = path.to_string_lossy().contains("foreign");
        assert_eq!(
            matches!(r, Err(Rejected::Foreign { .. })),
            foreign,
            "{path:?}"
        );
        if let Ok(file) = r {
            let again = persist::encode(&file, "fuzz-adapter", "fuzz-driver");
            assert_eq!(
                persist::decode(&again, "fuzz-adapter", "fuzz-driver"),
                Ok(file)
            );
        }
    }
    // Lengths past the file (a u32 key length, a u64 data length of 2^64 - 1): truncated, nothing allocated.
    let mut long_key = b"S2DPIPE1".to_vec();
    long_key.extend_from_slice(&u32::MAX.to_le_bytes());
    long_key.extend_from_slice(&[0; 8]);
    let empty = persist::encode(&Default::default(), "k", "d");
    let mut long_data = empty[..empty.len() - 16].to_vec();
    long_data.extend_from_slice(&u64::MAX.to_le_bytes());
    long_data.extend_from_slice(&[0; 8]);
    let mut corrupt = empty.clone();
    corrupt[12] ^= 1; // the adapter key's first byte
    for (bytes, why) in [
        (&b"S2DPIPE0"[..], Rejected::BadMagic),
        (&long_key, Rejected::Truncated),
        (&long_data, Rejected::Truncated),
        (&corrupt, Rejected::Checksum),
    ] {
        assert_eq!(persist::decode(bytes, "k", "d"), Err(why));
    }
}

#[cfg(feature = "svg")]
#[test]
fn svg_inputs_found_by_fuzzing_read_or_are_errors() {
    use stage2d::GraphicsContext;
    for (path, bytes) in files("tests/data/fuzz/svg") {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = String::from_utf8(bytes).unwrap();
        let r = quick(&name, SECOND, || GraphicsContext::from_svg(&text));
        if name.contains("past-f32") {
            // usvg asserts (in debug builds) that these numbers fit in f32: refused before it reads them.
            let e = r.unwrap_err().to_string();
            assert!(e.contains("past f32's range"), "{name}: {e}");
        } else if name.starts_with("arc-") {
            // Found by the svg target: usvg turned an arc 1e38 long into millions of curves, for minutes.
            let e = r.unwrap_err().to_string();
            assert!(e.contains("arc has a radius past"), "{name}: {e}");
        } else {
            // Found by the svg target: a flat shape's view box was written 0 units high by `to_svg`, a size SVG
            // readers refuse; what `to_svg` writes reads again.
            let g = r.unwrap();
            let written = g.to_svg();
            let back = GraphicsContext::from_svg(&written);
            assert!(back.is_ok(), "{name}: {written}");
        }
    }
    // Arcs: of a radius past 1e9, stated or to reach their end through relative moves, refused; others read.
    for (d, ok) in [
        ("M0 0 A 1e30 1e30 0 1 0 1 0", false),
        ("M0 0 a1 1 0 1 1 0 1e38", false),
        ("M0 0 l9e8 0 l9e8 0 a1 1 0 0 0 1 1", false),
        ("M1e8 1e8 A 5 5 0 1 1 1e8 1.1e8 z", true),
        ("M0 0 a1 1 0 011 0 a1,1,0,1,1,-1,0", true),
    ] {
        let doc = format!(r#"<svg xmlns="http://www.w3.org/2000/svg"><path d="{d}"/></svg>"#);
        let r = quick(d, SECOND, || GraphicsContext::from_svg(&doc));
        assert_eq!(r.is_ok(), ok, "{d}");
    }
    for (_, bytes) in files("tests/pixijs/svg") {
        assert!(GraphicsContext::from_svg(&String::from_utf8(bytes).unwrap()).is_ok());
    }
    // Numbers past f32 elsewhere are left to usvg, which drops what it cannot use.
    let path = r#"<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0 L1e39 0 L0 1 Z"/></svg>"#;
    assert!(GraphicsContext::from_svg(path).is_ok());
    let deep = format!("<svg>{}", "<g>".repeat(100_000));
    assert!(
        quick("a deep document", SECOND, || GraphicsContext::from_svg(
            &deep
        ))
        .is_err()
    );
    let laughs = r#"<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;"><!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;"><!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;"><!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;">]><svg xmlns="http://www.w3.org/2000/svg"><desc>&g;&g;&g;&g;&g;&g;&g;&g;</desc></svg>"#;
    let _ = quick("entity expansion", SECOND, || {
        GraphicsContext::from_svg(laughs)
    });
    for d in [
        "M 0 0 L",
        "M 0 0 A 1 1 0 2 0 5 5",
        "Z Z Z",
        "M 1e39 1e39 L -1e39 0 Z",
    ] {
        let mut g = GraphicsContext::new();
        if let Ok(p) = g.svg_path(d) {
            p.fill(stage2d::Color::WHITE);
            if g.check_complexity().is_ok() {
                let _ = stage2d::internals::tessellate(&g, 0.25);
            }
        }
    }
}

#[test]
fn hostile_wgsl_is_an_error() {
    use stage2d::internals::{check_filter_wgsl, check_mesh_wgsl};
    let deep = format!(
        "@fragment fn mainFragment(in: VSOutput) -> @location(0) vec4<f32> {{ return vec4<f32>({}1.0{}); }}",
        "(".repeat(2_000),
        ")".repeat(2_000)
    );
    let cases = [
        String::new(),
        "@fragment fn mainFragment() -> vec4<f32> { return 1; }".into(),
        "@group(0) @binding(9) var<uniform> x: f32;".into(),
        "struct P { a: array<vec4<f32>, 512> }; @group(1) @binding(0) var<uniform> p: P;".into(),
        deep,
        "fn f() { f(); }".into(),
    ];
    for source in &cases {
        let f = quick("a hostile filter shader", SECOND, || {
            check_filter_wgsl(source)
        });
        assert!(f.is_err(), "{source:.80}");
        let m = quick("a hostile mesh shader", SECOND, || check_mesh_wgsl(source));
        assert!(m.is_err(), "{source:.80}");
    }
    for (_, bytes) in files("tests/data/fuzz/wgsl_filter") {
        let _ = check_filter_wgsl(&String::from_utf8_lossy(&bytes));
    }
    for (_, bytes) in files("tests/data/fuzz/wgsl_mesh") {
        let _ = check_mesh_wgsl(&String::from_utf8_lossy(&bytes));
    }
}

/// What scene_ops does, with the floats it likes best: NaN, infinities and huge transforms, cycles, self masks,
/// layers of layers, stale handles. The walk skips what it cannot draw.
#[test]
fn hostile_scene_operations_are_errors_or_skipped() {
    use stage2d::glam::Vec2;
    use stage2d::internals::bench_texture;
    use stage2d::{Filter, GraphicsContext, Node, Scene, Transform};
    let mut scene = Scene::new();
    let root = scene.root();
    let a = scene.add(root, Node::container()).unwrap();
    let b = scene.add(a, Node::sprite(bench_texture(32, 32))).unwrap();
    let mut g = GraphicsContext::new();
    g.circle(0.0, 0.0, 1e30).fill(stage2d::Color::WHITE);
    let c = scene.add(b, Node::graphics(g)).unwrap();
    let layer = scene.add(root, Node::render_layer()).unwrap();
    assert!(scene.set_parent(a, c, 0).is_err(), "a cycle");
    assert!(scene.set_mask(a, a, false).is_err(), "a self mask");
    assert!(scene.attach_to_layer(layer, layer).is_err());
    for v in [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MAX,
        -0.0,
        1e-45,
    ] {
        *scene.transform_mut(b).unwrap() = Transform {
            position: Vec2::splat(v),
            scale: Vec2::new(v, 1.0),
            pivot: Vec2::splat(v),
            rotation: v,
        };
        let _ = scene.set_filters(a, vec![Filter::blur(v), Filter::alpha(v)]);
        let _ = scene.attach_to_layer(layer, c);
        walk(&scene);
        let _ = scene.hit_test(Vec2::splat(v));
        let _ = scene.world_bounds(a);
    }
    scene.remove(a).unwrap();
    assert!(scene.set_z_index(b, 1).is_err(), "a stale handle");
    walk(&scene);
    // The input scene_ops found (tests/data/fuzz/scene_ops/) is replayed by the fuzz target itself: its bytes are
    // operations decoded by the `arbitrary` crate, which the library does not depend on. It is the subnormal text
    // size above (`texts_far_under_a_pixel_are_drawn_as_nothing`).
    assert!(!files("tests/data/fuzz/scene_ops").is_empty());
}
