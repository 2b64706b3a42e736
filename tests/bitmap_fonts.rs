//! Bitmap fonts (AngelCode BMFont `.fnt`, text and XML forms): loading with their pages, layout by the font's
//! advances, offsets and kerning, drawing in the sprites' batches, bad descriptions and pages.

mod common;
use common::*;
use stage2d::text::{layout, GlyphSource, LayoutStyle};
use stage2d::{Align, Color, Error, Font, Node, Scene, Text};
use std::path::PathBuf;

/// A font of two glyphs on two pages: 'A' a red 8x10 region of page 0, 'B' a green 6x10 region of page 1 (white
/// around them), size 16, line height 20, base 14, A-B kerned by -2.
const FNT: &str = r#"info face="Blocks" size=16 bold=0 italic=0 charset="" unicode=1 padding=0,0,0,0 spacing=1,1
common lineHeight=20 base=14 scaleW=32 scaleH=16 pages=2 packed=0
page id=0 file="blocks_0.png"
page id=1 file="blocks_1.png"
chars count=3
char id=65 x=2 y=1 width=8 height=10 xoffset=1 yoffset=4 xadvance=9 page=0 chnl=15
char id=66 x=10 y=2 width=6 height=10 xoffset=0 yoffset=4 xadvance=7 page=1 chnl=15
char id=32 x=0 y=0 width=0 height=0 xoffset=0 yoffset=0 xadvance=5 page=0 chnl=15
kernings count=1
kerning first=65 second=66 amount=-2
"#;

/// Writes the font's pages and description (`fnt`) into a fresh directory named `name`.
fn write_font(name: &str, fnt: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stage2d-bitmap-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut page0 = stage2d::image::RgbaImage::from_pixel(32, 16, [40, 40, 40, 255].into());
    for y in 1..11 {
        for x in 2..10 {
            page0.put_pixel(x, y, [255, 0, 0, 255].into());
        }
    }
    let mut page1 = stage2d::image::RgbaImage::from_pixel(32, 16, [40, 40, 40, 255].into());
    for y in 2..12 {
        for x in 10..16 {
            page1.put_pixel(x, y, [0, 255, 0, 255].into());
        }
    }
    page0.save(dir.join("blocks_0.png")).unwrap();
    page1.save(dir.join("blocks_1.png")).unwrap();
    std::fs::write(dir.join("blocks.fnt"), fnt).unwrap();
    dir.join("blocks.fnt")
}

fn load(r: &mut stage2d::Renderer, name: &str) -> Font {
    r.load_bitmap_font(write_font(name, FNT)).unwrap()
}

#[test]
fn glyphs_sit_by_their_offsets_advances_and_kerning() {
    for msaa in [false, true] {
        let mut r = renderer_with_msaa(msaa);
        let font = load(&mut r, &format!("place{msaa}"));
        assert!(font.is_bitmap() && font.fontdue().is_none());
        let mut scene = Scene::new();
        scene
            .add(
                scene.root(),
                Node::text(Text::new("AB\nA", &font, 16.0)).at(4.0, 4.0),
            )
            .unwrap();
        // Twice the size: every distance doubles.
        scene
            .add(
                scene.root(),
                Node::text(Text::new("AB", &font, 32.0)).at(40.0, 4.0),
            )
            .unwrap();
        let img = render(&mut r, &scene, 80, 48, Color::BLACK);
        let s = r.stats().last_frame;
        assert_eq!((s.texts, s.draw_calls), (2, 1), "msaa {msaa}");
        // A: pen 0 + offset 1, top 0 + offset 4: pixels 5..13 x 8..18.
        probe(&img, 5, 8, [255, 0, 0, 255], 0);
        probe(&img, 10, 17, [255, 0, 0, 255], 0);
        probe(&img, 4, 12, [0, 0, 0, 255], 0);
        // B: pen 9 - 2 (kerning): pixels 11..17, drawn over A's last columns.
        probe(&img, 11, 12, [0, 255, 0, 255], 0);
        probe(&img, 16, 17, [0, 255, 0, 255], 0);
        probe(&img, 17, 12, [0, 0, 0, 255], 0);
        // The second line, 20 pixels down.
        probe(&img, 5, 28, [255, 0, 0, 255], 0);
        probe(&img, 12, 37, [255, 0, 0, 255], 0);
        // At 32: A at 40 + 2, 4 + 8, 16x20; B at 40 + 14, 12x20 (inside them: their edges blend with the page
        // around them, sampled linearly at twice the size).
        probe(&img, 44, 14, [255, 0, 0, 255], 0);
        probe(&img, 52, 29, [255, 0, 0, 255], 0);
        probe(&img, 56, 14, [0, 255, 0, 255], 0);
        probe(&img, 64, 29, [0, 255, 0, 255], 0);
        probe(&img, 67, 20, [0, 0, 0, 255], 0);
    }
}

#[test]
fn layout_measures_with_the_fonts_metrics() {
    let mut r = renderer_with_msaa(false);
    let font = load(&mut r, "metrics");
    assert_eq!(font.glyph('A'), 1);
    assert_eq!(font.glyph('z'), 0, "missing");
    assert_eq!(font.advance(font.glyph('A'), 32.0), 18.0);
    assert_eq!(font.kern(font.glyph('A'), font.glyph('B'), 16.0), -2.0);
    assert_eq!((font.ascent(16.0), font.line_height(16.0)), (14.0, 20.0));
    let mut style = LayoutStyle::default();
    style.size = 16.0;
    style.wrap_width = Some(20.0);
    // "AB A" wraps after the space: two lines.
    let l = layout(&font, "AB A", &style);
    assert_eq!(l.line_widths.len(), 2, "{l:?}");
    assert_eq!(l.size[1], 40.0);
}

#[test]
fn bitmap_texts_batch_with_sprites_align_and_tint() {
    let mut r = renderer_with_msaa(false);
    let font = load(&mut r, "batch");
    let white = r.white_texture();
    let mut scene = Scene::new();
    for i in 0..100 {
        let (x, y) = ((i % 10) as f32 * 30.0, (i / 10) as f32 * 24.0);
        scene
            .add(
                scene.root(),
                Node::text(Text::new("AB", &font, 16.0)).at(x, y),
            )
            .unwrap();
        scene
            .add(
                scene.root(),
                Node::sprite(white).at(x + 20.0, y).scaled(2.0),
            )
            .unwrap();
    }
    // Right-aligned, anchored at its top-right, tinted grey. Lines "A" (9 wide) and "AB" (9 - 2 + 7 = 14): the
    // block is 14 wide, its right edge at 300; the lone A's pen starts 5 in.
    scene
        .add(
            scene.root(),
            Node::text(
                Text::new("A\nAB", &font, 16.0)
                    .aligned(Align::Right)
                    .anchored(1.0, 0.0)
                    .colored(Color::hex(0x808080)),
            )
            .at(300.0, 250.0),
        )
        .unwrap();
    let img = render(&mut r, &scene, 300, 300, Color::BLACK);
    let s = r.stats().last_frame;
    assert_eq!((s.texts, s.sprites, s.draw_calls), (101, 100, 1));
    // The lone A: pixels 292..300 x 254..264; nothing left of it.
    probe(&img, 292, 254, [128, 0, 0, 255], 1);
    probe(&img, 299, 263, [128, 0, 0, 255], 1);
    probe(&img, 291, 258, [0, 0, 0, 255], 0);
    // The second line: A at 287, B at 293..299.
    probe(&img, 287, 278, [128, 0, 0, 255], 1);
    probe(&img, 296, 278, [0, 128, 0, 255], 1);
}

#[test]
fn bad_fonts_and_pages_are_errors() {
    let mut r = renderer_with_msaa(false);
    let live = r.stats().live.textures;
    // A page that is not there.
    let path = write_font("nopage", &FNT.replace("blocks_1.png", "missing.png"));
    let e = r.load_bitmap_font(&path).unwrap_err();
    assert!(
        matches!(e, Error::ImageFile { .. } | Error::AssetLoad { .. }),
        "{e}"
    );
    // A glyph outside its page.
    let path = write_font(
        "outside",
        &FNT.replace("x=10 y=2 width=6", "x=30 y=2 width=6"),
    );
    assert!(matches!(r.load_bitmap_font(&path), Err(Error::Font(_))));
    // A distance-field font: refused with a clear message until stage2d draws distance fields.
    let df = FNT.replace(
        "kernings count=1",
        "distanceField fieldType=msdf distanceRange=4\nkernings count=1",
    );
    let path = write_font("df", &df);
    match r.load_bitmap_font(&path) {
        Err(Error::Font(m)) => assert!(m.contains("distance"), "{m}"),
        other => panic!("{other:?}"),
    }
    // Not a description at all, and a file that is not there.
    let path = write_font("junk", "\u{0}\u{1}garbage");
    assert!(matches!(
        r.load_bitmap_font(&path),
        Err(Error::FontFile { .. })
    ));
    assert!(matches!(
        r.load_bitmap_font("/nonexistent/x.fnt"),
        Err(Error::FontFile { .. })
    ));
    // Nothing of the failed loads stays alive (the second's first page was loaded); a good font still loads and
    // draws.
    assert_eq!(r.stats().live.textures, live);
    let font = load(&mut r, "after");
    let mut scene = Scene::new();
    scene
        .add(scene.root(), Node::text(Text::new("A", &font, 16.0)))
        .unwrap();
    let white = r.white_texture();
    scene
        .add(scene.root(), Node::sprite(white).at(12.0, 0.0).scaled(4.0))
        .unwrap();
    let img = render(&mut r, &scene, 16, 16, Color::BLACK);
    probe(&img, 3, 8, [255, 0, 0, 255], 0);
    // A page destroyed under a text: the text is skipped and counted, the rest drawn.
    let page = stage2d::text::layout(&font, "A", &stage2d::text::LayoutStyle::default());
    assert_eq!(page.glyphs.len(), 1);
    let loaded = r.stats().live.textures;
    drop(font);
    let font = load(&mut r, "destroyed");
    assert_eq!(r.stats().live.textures, loaded + 2);
    scene
        .add(scene.root(), Node::text(Text::new("B", &font, 16.0)))
        .unwrap();
    r.destroy_texture(font.bitmap_pages()[1]).unwrap();
    let img = render(&mut r, &scene, 16, 16, Color::BLACK);
    assert_eq!(r.stats().last_frame.nodes_skipped, 1);
    probe(&img, 14, 2, [255, 255, 255, 255], 0);
    probe(&img, 3, 8, [255, 0, 0, 255], 0);
}
