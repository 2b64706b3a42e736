//! BMFont descriptions (`.fnt` text and XML) through `Font::from_fnt` over page textures of 1024x1024 (as many
//! as the description names), then a text laid out in it and drawn by the CPU walk (glyph quads from the pages).
#![no_main]

use libfuzzer_sys::fuzz_target;
use stage2d::internals::bench_texture;
use stage2d::{Font, Node, Scene, Text};

/// How many pages the description names, read from `from_fnt`'s error for another count (the parser is
/// crate-private; its count is exactly what the error states).
fn page_count(err: &stage2d::Error) -> Option<usize> {
    let msg = err.to_string();
    let rest = msg.split(" page textures for ").nth(1)?;
    rest.split(' ')
        .next()?
        .parse()
        .ok()
        .filter(|n| (1..=256).contains(n))
}

fuzz_target!(|data: &[u8]| {
    let pages = |n| vec![bench_texture(1024, 1024); n];
    let font = match Font::from_fnt(data, pages(1)) {
        Ok(f) => f,
        Err(e) => match page_count(&e) {
            Some(n) => match Font::from_fnt(data, pages(n)) {
                Ok(f) => f,
                Err(_) => return,
            },
            None => return,
        },
    };
    assert!(font.is_bitmap());
    let mut scene = Scene::new();
    for s in [
        "Hello, World! AV Wa 0123",
        "héllo\nwörld\t€",
        "\u{0}\u{ffff}\u{10ffff}",
    ] {
        let mut t = Text::new(s, &font, 32.0);
        let _ = t.layout();
        let mut style = *t.style();
        style.wrap_width = Some(50.0);
        style.letter_spacing = 2.0;
        t.set_style(style);
        let _ = t.layout();
        let _ = scene.add(scene.root(), Node::text(t));
    }
    stage2d_fuzz::walk_once(&scene);
});
