//! Font bytes through `Font::from_bytes` (checked first by `src/text/font_check.rs`), then texts in Latin, Arabic,
//! Devanagari and a mixed bidirectional line laid out with it (shaped by rustybuzz and not), wrapped, trimmed, as
//! a fallback of the built-in font, and drawn by the CPU walk, which rasterises their glyphs into the atlas (the
//! unshaped ones outlined, so each glyph's outline is stroked with mitered corners).
#![no_main]

use libfuzzer_sys::fuzz_target;
use stage2d::text::{Align, Shaping};
use stage2d::{Font, Node, Scene, Text};

const TEXTS: [&str; 4] = [
    "Hello, World! fi ffl Wa AV 0123",
    "مرحبا بالعالم",
    "नमस्ते दुनिया क्षत्रिय",
    "abc שלום 123 مرحبا!\nx\u{301}y\u{200d}z",
];

fuzz_target!(|data: &[u8]| {
    let Ok(font) = Font::from_bytes(data) else {
        return;
    };
    let mut scene = Scene::new();
    for (i, s) in TEXTS.iter().enumerate() {
        for shaping in [Shaping::Full, Shaping::Simple] {
            let mut t = Text::new(*s, &font, 24.0);
            t.set_shaping(shaping);
            let _ = t.layout();
            let mut style = *t.style();
            style.wrap_width = Some(60.0);
            style.align = Align::Centre;
            style.trim = true;
            t.set_style(style);
            let _ = t.layout();
            if shaping == Shaping::Simple {
                // Outlined with PixiJS's default miter: the glyphs' outlines are stroked as paths.
                t = t.stroked(stage2d::Color::BLACK, 3.0);
            }
            let _ = scene.add(scene.root(), Node::text(t).at(0.0, 30.0 * i as f32));
        }
        // As a fallback: the built-in font lacks these scripts, so they are shaped in this one.
        let t = Text::new(*s, &Font::builtin(), 24.0).with_fallbacks(&[font.clone()]);
        let _ = t.layout();
        let _ = scene.add(scene.root(), Node::text(t));
    }
    stage2d_fuzz::walk_once(&scene);
});
