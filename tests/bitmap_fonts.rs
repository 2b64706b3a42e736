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
        let img = render(&mut r, &scene, 80, 60, Color::BLACK);
        let s = r.stats().last_frame;
        assert_eq!((s.texts, s.draw_calls), (2, 1), "msaa {msaa}");
        // As PixiJS places bitmap text, lines start `lineHeight - base` = 6 down. A: pen 0 + offset 1, top 6 +
        // offset 4: pixels 5..13 x 14..24.
        probe(&img, 5, 14, [255, 0, 0, 255], 0);
        probe(&img, 10, 23, [255, 0, 0, 255], 0);
        probe(&img, 4, 18, [0, 0, 0, 255], 0);
        probe(&img, 8, 13, [0, 0, 0, 255], 0);
        // B: pen 9 - 2 (kerning): pixels 11..17, drawn over A's last columns.
        probe(&img, 11, 18, [0, 255, 0, 255], 0);
        probe(&img, 16, 23, [0, 255, 0, 255], 0);
        probe(&img, 17, 18, [0, 0, 0, 255], 0);
        // The second line, 20 pixels down.
        probe(&img, 5, 34, [255, 0, 0, 255], 0);
        probe(&img, 12, 43, [255, 0, 0, 255], 0);
        // At 32: A at 40 + 2, 4 + 12 + 8, 16x20; B at 40 + 14, 12x20 (inside them: their edges blend with the
        // page around them, sampled linearly at twice the size).
        probe(&img, 44, 26, [255, 0, 0, 255], 0);
        probe(&img, 52, 41, [255, 0, 0, 255], 0);
        probe(&img, 56, 26, [0, 255, 0, 255], 0);
        probe(&img, 64, 41, [0, 255, 0, 255], 0);
        probe(&img, 67, 32, [0, 0, 0, 255], 0);
        probe(&img, 50, 22, [0, 0, 0, 255], 0);
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
    // The lone A: pixels 292..300 x 260..270 (lines start 6 down); nothing left of it.
    probe(&img, 292, 260, [128, 0, 0, 255], 1);
    probe(&img, 299, 269, [128, 0, 0, 255], 1);
    probe(&img, 291, 264, [0, 0, 0, 255], 0);
    // The second line: A at 287, B at 293..299.
    probe(&img, 287, 284, [128, 0, 0, 255], 1);
    probe(&img, 296, 284, [0, 128, 0, 255], 1);
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
    probe(&img, 3, 12, [255, 0, 0, 255], 0);
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
    probe(&img, 3, 12, [255, 0, 0, 255], 0);
}

fn pixijs_font(r: &mut stage2d::Renderer, path: &str) -> Font {
    let path = format!("{}/tests/pixijs/fonts/{path}", env!("CARGO_MANIFEST_DIR"));
    r.load_bitmap_font(path).unwrap()
}

/// PixiJS's `text-bitmap/msdf-text` scene: "MXA" in Roboto's multi-channel distance field (5 pages), size 70
/// (the atlas is made at 42), anchored at its centre, turned 45 degrees at the middle of the target.
#[test]
fn pixijs_msdf_text() {
    let mut r = renderer();
    let font = pixijs_font(&mut r, "msdf/Roboto-Regular.fnt");
    assert_eq!(font.bitmap_pages().len(), 5);
    let mut scene = Scene::new();
    scene
        .add(
            scene.root(),
            Node::text(Text::new("MXA", &font, 70.0).anchored(0.5, 0.5))
                .at(64.0, 64.0)
                .rotated(std::f32::consts::FRAC_PI_4),
        )
        .unwrap();
    let img = render_pixijs(&mut r, &scene);
    assert_eq!(r.stats().last_frame.draw_calls, 1);
    pixijs("msdf-text", &img, 100);
}

/// PixiJS's `text-bitmap/sdf-text` scene: "M" in a one-channel distance field made at 42, drawn at 150 (the field
/// keeps its edge sharp at 3.6 times its size), at (-3, -50).
#[test]
fn pixijs_sdf_text() {
    let mut r = renderer();
    let font = pixijs_font(&mut r, "sdf/comicsdf.fnt");
    let mut scene = Scene::new();
    scene
        .add(
            scene.root(),
            Node::text(Text::new("M", &font, 150.0)).at(-3.0, -50.0),
        )
        .unwrap();
    let img = render_pixijs(&mut r, &scene);
    pixijs("sdf-text", &img, 100);
}

/// Through `Assets`: the same path gives the same font; its pages go through the cache (a page loaded on its own
/// stays when the font is unloaded); unloading the font frees the rest; a failed load leaves nothing cached.
#[test]
fn assets_cache_bitmap_fonts_and_their_pages() {
    let mut r = renderer_with_msaa(false);
    let mut assets = stage2d::Assets::new();
    let path = write_font("assets", FNT);
    let live = r.stats().live.textures;
    let page0 = assets
        .load(
            &mut r,
            path.with_file_name("blocks_0.png"),
            stage2d::Sampling::LINEAR,
        )
        .unwrap();
    let a = assets.load_bitmap_font(&mut r, &path).unwrap();
    let b = assets.load_bitmap_font(&mut r, &path).unwrap();
    assert_eq!(a, b);
    assert_eq!(
        a.bitmap_pages()[0],
        page0,
        "the page loaded on its own is shared"
    );
    assert_eq!(r.stats().live.textures, live + 2);
    assert!(assets.unload(&mut r, &path).unwrap());
    assert_eq!(
        r.stats().live.textures,
        live + 1,
        "page 0 stays: loaded by its own path"
    );
    assert!(!assets.unload(&mut r, &path).unwrap());
    // A font whose second page is missing: its first page is not left behind.
    let bad = write_font("assets-bad", &FNT.replace("blocks_1.png", "missing.png"));
    assert!(assets.load_bitmap_font(&mut r, &bad).is_err());
    assert_eq!(r.stats().live.textures, live + 1);
}

/// PixiJS's `padding`: a bitmap text is drawn that many pixels up and to the left (its `BitmapText` pipe
/// translates by it); an outline-font text draws where it did (PixiJS's canvas text keeps its place and bounds).
#[test]
fn padding_moves_bitmap_text_and_leaves_outline_text() {
    let mut r = renderer();
    let font = load(&mut r, "padding");
    let outline = stage2d::Font::builtin();
    let draw = |r: &mut stage2d::Renderer, padding: f32| {
        let mut scene = Scene::new();
        let mut t = Text::new("AB", &font, 16.0);
        t.set_padding(padding);
        scene
            .add(scene.root(), Node::text(t).at(14.0, 14.0))
            .unwrap();
        let mut o = Text::new("Hi", &outline, 16.0);
        o.set_padding(padding);
        scene
            .add(scene.root(), Node::text(o).at(4.0, 40.0))
            .unwrap();
        render(r, &scene, 60, 64, Color::BLACK)
    };
    let plain = draw(&mut r, 0.0);
    let padded = draw(&mut r, 4.0);
    // The bitmap text: every pixel moved 4 up and left.
    for y in 0..36 {
        for x in 0..56 {
            assert_eq!(
                px(&padded, x, y),
                px(&plain, x + 4, y + 4),
                "({x}, {y}) of the padded text"
            );
        }
    }
    assert!(padded != plain, "the bitmap text moved");
    // The outline text: where it was.
    for y in 38..64 {
        for x in 0..60 {
            assert_eq!(px(&padded, x, y), px(&plain, x, y), "({x}, {y})");
        }
    }
    assert!((38..64).any(|y| (0..60).any(|x| px(&plain, x, y)[0] > 200)));
    // Not finite: no padding.
    let nan = draw(&mut r, f32::NAN);
    assert!(nan == plain);
}
