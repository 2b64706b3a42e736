//! Text: rendering, layout with a real font, glyph reuse, crispness, bad fonts.

mod common;
use common::*;
use stage2d::text::{layout, Align, GlyphSource, LayoutStyle};
use stage2d::{Color, Error, Font, Node, Scene, Text};
use std::time::{Duration, Instant};

fn font() -> Font {
    Font::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/DejaVuSans.ttf"
    ))
    .unwrap()
}

#[test]
fn paragraphs_sizes_and_alignments() {
    let mut r = renderer();
    let f = font();
    let mut s = Scene::new();
    s.add(
        s.root(),
        Node::text(Text::new("Hello, stage2d!", &f, 24.0)).at(8.0, 4.0),
    )
    .unwrap();
    s.add(
        s.root(),
        Node::text(Text::new("small 10px text", &f, 10.0)).at(8.0, 36.0),
    )
    .unwrap();
    s.add(
        s.root(),
        Node::text(
            Text::new("centred\nlines of text", &f, 14.0)
                .aligned(Align::Centre)
                .colored(Color::hex(0xffcc00)),
        )
        .at(8.0, 52.0),
    )
    .unwrap();
    s.add(
        s.root(),
        Node::text(Text::new("a paragraph that wraps at ninety pixels", &f, 12.0).wrapped(90.0))
            .at(120.0, 52.0),
    )
    .unwrap();
    let img = render(&mut r, &s, 220, 110, Color::BLACK);
    let f = r.stats().last_frame;
    assert_eq!(f.texts, 4);
    assert_eq!(f.draw_calls, 1, "all glyphs share one atlas page");
    assert!(f.glyph_uploads > 20);
    // Something was drawn where the first line is, nothing far below the text.
    let lit = |x0: u32, y0: u32, x1: u32, y1: u32| {
        (y0..y1)
            .flat_map(|y| (x0..x1).map(move |x| (x, y)))
            .filter(|&(x, y)| px(&img, x, y)[0] > 128)
            .count()
    };
    assert!(lit(8, 4, 200, 30) > 150);
    assert_eq!(lit(0, 100, 220, 110), 0);
    golden("text_paragraphs", &img);
}

#[test]
fn kerning_and_wrapping_with_a_real_font() {
    let f = font();
    let mut style = LayoutStyle::default();
    style.size = 32.0;
    let av = layout(&f, "AV", &style);
    let a = f.glyph('A');
    let v = f.glyph('V');
    let kern = f.kern(a, v, 32.0);
    assert!(kern < 0.0, "DejaVu Sans kerns A-V");
    assert!((av.glyphs[1].x - (f.advance(a, 32.0) + kern)).abs() < 1e-3);
    let mut narrow = LayoutStyle::default();
    (narrow.size, narrow.wrap_width) = (16.0, Some(80.0));
    let wrapped = layout(&f, "the quick brown fox jumps", &narrow);
    assert!(wrapped.line_widths.len() >= 3);
    assert!(wrapped.line_widths.iter().all(|w| *w <= 80.0 + 1e-3));
}

#[test]
fn changing_text_reuses_glyphs_and_static_text_costs_nothing() {
    let mut r = renderer();
    let f = font();
    let mut s = Scene::new();
    let n = s
        .add(
            s.root(),
            Node::text(Text::new("score 0123456789", &f, 16.0)),
        )
        .unwrap();
    let target = r.create_render_target(200, 24).unwrap();
    r.render(&s, &target, Some(Color::BLACK)).unwrap();
    assert!(r.stats().last_frame.glyph_uploads >= 11);
    r.render(&s, &target, Some(Color::BLACK)).unwrap();
    let f2 = r.stats().last_frame;
    assert_eq!(
        (f2.glyph_uploads, f2.text_layouts, f2.bytes_uploaded),
        (0, 0, 0)
    );
    // New string, same glyphs: laid out again, nothing rasterised or uploaded but the vertices.
    s.get_mut(n)
        .unwrap()
        .as_text_mut()
        .unwrap()
        .set_text("score 9876");
    r.render(&s, &target, Some(Color::BLACK)).unwrap();
    let f3 = r.stats().last_frame;
    assert_eq!((f3.glyph_uploads, f3.text_layouts), (0, 1));
    assert_eq!(f3.textures_created, 0);
    // Setting the same string again is free.
    s.get_mut(n)
        .unwrap()
        .as_text_mut()
        .unwrap()
        .set_text("score 9876");
    r.render(&s, &target, Some(Color::BLACK)).unwrap();
    assert_eq!(r.stats().last_frame.text_layouts, 0);
}

#[test]
fn text_is_snapped_to_whole_pixels_and_stems_are_crisp() {
    let mut r = renderer();
    let f = font();
    let draw = |r: &mut stage2d::Renderer, x: f32| {
        let mut s = Scene::new();
        s.add(s.root(), Node::text(Text::new("l", &f, 20.0)).at(x, 2.0))
            .unwrap();
        render(r, &s, 16, 24, Color::BLACK)
    };
    let a = draw(&mut r, 4.0);
    let b = draw(&mut r, 4.3);
    assert_eq!(a, b, "fractional positions snap to the same pixels");
    // The stem of an 'l' has fully covered columns.
    let full = (0..24)
        .filter(|&y| (0..16).any(|x| px(&a, x, y)[0] == 255))
        .count();
    assert!(full >= 10, "only {full} rows have a fully covered pixel");
}

#[test]
fn text_batches_with_sprites_and_inherits_tint_and_alpha() {
    let mut r = renderer();
    let f = font();
    let white = r.white_texture();
    let mut s = Scene::new();
    let g = s
        .add(
            s.root(),
            Node::container().tinted(Color::RED).with_alpha(0.5),
        )
        .unwrap();
    s.add(g, Node::sprite(white).sized(4.0, 4.0)).unwrap();
    s.add(g, Node::text(Text::new("I", &f, 40.0)).at(10.0, 0.0))
        .unwrap();
    s.add(g, Node::sprite(white).sized(4.0, 4.0).at(40.0, 0.0))
        .unwrap();
    let img = render(&mut r, &s, 48, 48, Color::BLACK);
    assert_eq!(r.stats().last_frame.draw_calls, 1);
    probe(&img, 1, 1, [128, 0, 0, 255], 1);
    let brightest = img.pixels().map(|p| p.0).max_by_key(|p| p[0]).unwrap();
    assert!(
        brightest[0] >= 127 && brightest[0] <= 129 && brightest[1] == 0,
        "{brightest:?}"
    );
}

#[test]
fn anchor_places_the_block() {
    let mut r = renderer();
    let f = font();
    let mut s = Scene::new();
    s.add(
        s.root(),
        Node::text(Text::new("MM", &f, 20.0).anchored(1.0, 1.0)).at(40.0, 30.0),
    )
    .unwrap();
    let img = render(&mut r, &s, 48, 40, Color::BLACK);
    let lit: Vec<(u32, u32)> = img
        .enumerate_pixels()
        .filter(|(_, _, p)| p.0[0] > 100)
        .map(|(x, y, _)| (x, y))
        .collect();
    assert!(!lit.is_empty());
    assert!(
        lit.iter().all(|&(x, y)| x < 40 && y < 30),
        "anchored bottom-right of (40, 30)"
    );
    assert!(lit.iter().any(|&(x, _)| x >= 36));
}

#[test]
fn bad_fonts_empty_strings_and_missing_characters() {
    assert!(matches!(
        Font::from_bytes(b"not a font"),
        Err(Error::Font(_))
    ));
    match Font::load("/no/such/font.ttf") {
        Err(e @ Error::FontFile { .. }) => assert!(e.to_string().contains("/no/such/font.ttf")),
        other => panic!("expected FontFile, got {other:?}"),
    }
    let mut r = renderer();
    let f = font();
    let white = r.white_texture();
    let mut s = Scene::new();
    s.add(s.root(), Node::text(Text::new("", &f, 16.0)))
        .unwrap();
    s.add(
        s.root(),
        Node::text(Text::new("\u{4e16}\u{754c} \u{1F600} \u{10FFFF}", &f, 16.0)).at(0.0, 20.0),
    )
    .unwrap();
    s.add(s.root(), Node::text(Text::new("nan", &f, f32::NAN)))
        .unwrap();
    s.add(s.root(), Node::text(Text::new("huge", &f, 5000.0)))
        .unwrap();
    s.add(
        s.root(),
        Node::sprite(white)
            .sized(4.0, 4.0)
            .at(60.0, 0.0)
            .tinted(Color::GREEN),
    )
    .unwrap();
    let img = render(&mut r, &s, 64, 40, Color::BLACK);
    probe(&img, 62, 2, [0, 255, 0, 255], 0);
}

#[test]
fn huge_and_invalid_sizes_are_skipped_once_and_the_rest_of_the_frame_draws() {
    let mut r = renderer();
    let f = font();
    let white = r.white_texture();
    let mut s = Scene::new();
    // 1e6 px made fontdue ask for terabytes, f32::MAX crashed inside it, 10,000 px cost 378 ms a frame.
    for size in [1e6, f32::MAX, 10_000.0] {
        s.add(s.root(), Node::text(Text::new("Wg", &f, size)))
            .unwrap();
    }
    for size in [f32::NAN, f32::INFINITY, -12.0, 0.0] {
        s.add(s.root(), Node::text(Text::new("Wg", &f, size)))
            .unwrap();
    }
    s.add(s.root(), Node::text(Text::new("I", &f, 30.0)).at(20.0, 0.0))
        .unwrap();
    s.add(
        s.root(),
        Node::sprite(white)
            .sized(4.0, 4.0)
            .at(56.0, 0.0)
            .tinted(Color::GREEN),
    )
    .unwrap();
    let target = r.create_render_target(64, 40).unwrap();
    for frame in 0..3 {
        let t = Instant::now();
        r.render(&s, &target, Some(Color::BLACK)).unwrap();
        let took = t.elapsed();
        eprintln!("frame {frame}: {took:?}");
        assert!(took < Duration::from_secs(1), "frame {frame} took {took:?}");
        let st = r.stats().last_frame;
        // At f32::MAX the baseline itself is infinite, so layout drops both glyphs before the atlas sees them.
        assert_eq!(st.glyphs_too_large, 4, "W and g at 1e6 and 10,000 px");
        if frame == 0 {
            assert_eq!(st.glyph_rasterizations, 1, "only the 30 px I");
        } else {
            assert_eq!(
                (st.glyph_rasterizations, st.glyph_uploads),
                (0, 0),
                "frame {frame}"
            );
        }
    }
    let img = r.read_pixels(&target).unwrap();
    probe(&img, 58, 2, [0, 255, 0, 255], 0);
    let lit = (0..40)
        .flat_map(|y| (18..30).map(move |x| (x, y)))
        .filter(|&(x, y)| px(&img, x, y)[0] > 200)
        .count();
    assert!(
        lit > 20,
        "the 30 px I next to the huge texts is drawn ({lit} pixels)"
    );
    assert_eq!(px(&img, 2, 38)[0], 0, "nothing of the huge texts is drawn");
}

/// Share of a text image's lit pixels that are edge blur (neither nearly off nor nearly full).
fn blur(img: &stage2d::image::RgbaImage) -> f64 {
    let lit = img.pixels().filter(|p| p.0[0] > 16).count();
    let soft = img
        .pixels()
        .filter(|p| (16..=239).contains(&p.0[0]))
        .count();
    soft as f64 / lit.max(1) as f64
}

#[test]
fn text_is_rasterised_at_its_world_scale_and_the_windows_scale_factor() {
    let mut r = renderer_with_msaa(false);
    let f = font();
    let words = "Sharp edges 0123";
    // Laid out at 32 pixels, drawn at scale 1: the reference.
    let mut big = Scene::new();
    big.add(
        big.root(),
        Node::text(Text::new(words, &f, 32.0)).at(4.0, 4.0),
    )
    .unwrap();
    let reference = render(&mut r, &big, 300, 48, Color::BLACK);
    // Laid out at 16 pixels, drawn at scale 2 (zoom).
    let mut zoomed = Scene::new();
    let mut n = Node::text(Text::new(words, &f, 16.0)).at(4.0, 4.0);
    n.transform.scale = glam::Vec2::splat(2.0);
    zoomed.add(zoomed.root(), n).unwrap();
    let zoom = render(&mut r, &zoomed, 300, 48, Color::BLACK);
    // Laid out at 16 pixels in a window of scale factor 2.
    let mut logical = Scene::new();
    logical
        .add(
            logical.root(),
            Node::text(Text::new(words, &f, 16.0)).at(2.0, 2.0),
        )
        .unwrap();
    let target = r.create_render_target(300, 48).unwrap();
    r.render_scaled(
        &logical,
        &target.view(),
        stage2d::wgpu::TextureFormat::Rgba8Unorm,
        (300, 48),
        2.0,
        Some(Color::BLACK),
    )
    .unwrap();
    let hidpi = r.read_pixels(&target).unwrap();
    let (b_ref, b_zoom, b_hidpi) = (blur(&reference), blur(&zoom), blur(&hidpi));
    // Glyphs magnified from 16-pixel bitmaps would be about twice as soft as 32-pixel ones.
    for (name, img, b) in [
        ("zoom 2", &zoom, b_zoom),
        ("scale factor 2", &hidpi, b_hidpi),
    ] {
        assert!(
            b <= b_ref * 1.1 + 0.01,
            "{name}: {b:.3} of lit pixels are soft, the 32-pixel layout {b_ref:.3}"
        );
        let close = reference
            .pixels()
            .zip(img.pixels())
            .filter(|(a, b)| a.0[0].abs_diff(b.0[0]) <= 8)
            .count();
        let share = close as f64 / (300.0 * 48.0);
        assert!(
            share > 0.98,
            "{name}: only {share:.3} of pixels match the 32-pixel layout"
        );
    }
    // A continuous zoom makes a handful of glyph sizes, not one per step.
    let uploads_before = r.stats().total.glyph_uploads;
    for i in 0..=40 {
        let mut s = Scene::new();
        let mut n = Node::text(Text::new("zoom", &f, 16.0)).at(4.0, 4.0);
        n.transform.scale = glam::Vec2::splat(1.0 + i as f32 / 40.0);
        s.add(s.root(), n).unwrap();
        render(&mut r, &s, 160, 48, Color::BLACK);
    }
    let uploads = r.stats().total.glyph_uploads - uploads_before;
    assert!(
        uploads <= 4 * 5,
        "{uploads} glyph uploads for a zoom from 1 to 2"
    );
}

/// The built-in font (DejaVu Sans cut to Latin-1) draws Latin text exactly as the full font does, kerning
/// included, without a file.
#[test]
fn the_builtin_font_draws_latin_text_as_the_full_font_does() {
    let mut r = common::renderer();
    let full = stage2d::Font::from_bytes(include_bytes!("../assets/DejaVuSans.ttf")).unwrap();
    let builtin = stage2d::Font::builtin();
    let words = "AVATAR Wörld, café: 12,50 € - \u{201c}ok\u{201d}";
    let draw = |r: &mut stage2d::Renderer, font: &stage2d::Font| {
        let mut s = stage2d::Scene::new();
        s.add(
            s.root(),
            stage2d::Node::text(stage2d::Text::new(words, font, 18.0)).at(2.0, 2.0),
        )
        .unwrap();
        common::render(r, &s, 320, 28, stage2d::Color::BLACK)
    };
    let want = draw(&mut r, &full);
    let got = draw(&mut r, &builtin);
    assert!(got.pixels().any(|p| p.0[0] > 200), "something was drawn");
    assert!(got == want, "the built-in font draws differently");
}

/// Outlines and shadows (PixiJS's `stroke` and `dropShadow`): an outline shows half its width outside the glyph
/// and the fill covers the rest; a shadow sits at its offset under text and outline, blurred when asked; a styled
/// text still draws in one call, and its bitmaps come from the atlas after the first frame.
#[test]
fn strokes_and_shadows_draw_around_and_under_the_glyphs() {
    let mut r = renderer_with_msaa(false);
    let f = font();
    let draw = |r: &mut stage2d::Renderer, t: Text| {
        let mut s = Scene::new();
        s.add(s.root(), Node::text(t).at(10.0, 0.0)).unwrap();
        render(r, &s, 64, 56, Color::BLACK)
    };
    let plain = draw(&mut r, Text::new("I", &f, 40.0));
    // The stem's columns on the middle row.
    let row = 25;
    let white: Vec<u32> = (0..64).filter(|&x| px(&plain, x, row)[0] > 250).collect();
    let (x0, x1) = (*white.first().unwrap(), *white.last().unwrap());
    assert!(x1 - x0 >= 2, "{white:?}");
    let stroked = draw(
        &mut r,
        Text::new("I", &f, 40.0).stroked(Color::hex(0x00ff00), 6.0),
    );
    probe(&stroked, x0 - 2, row, [0, 255, 0, 255], 2);
    probe(&stroked, x1 + 2, row, [0, 255, 0, 255], 2);
    probe(&stroked, (x0 + x1) / 2, row, [255, 255, 255, 255], 0);
    probe(&stroked, x1 + 6, row, [0, 0, 0, 255], 0);
    assert_eq!(r.stats().last_frame.draw_calls, 1);
    let shadow = stage2d::TextShadow {
        color: Color::hex(0xff0000),
        angle: 0.0,
        distance: 12.0,
        ..Default::default()
    };
    let shadowed = draw(&mut r, Text::new("I", &f, 40.0).shadowed(shadow));
    probe(&shadowed, (x0 + x1) / 2, row, [255, 255, 255, 255], 0);
    probe(&shadowed, (x0 + x1) / 2 + 12, row, [255, 0, 0, 255], 0);
    probe(&shadowed, x1 + 20, row, [0, 0, 0, 255], 0);
    // Blurred: the shadow's middle weaker, its edges spread past where a sharp one ends.
    let blurred = draw(
        &mut r,
        Text::new("I", &f, 40.0).shadowed(stage2d::TextShadow {
            blur: 4.0,
            ..shadow
        }),
    );
    let mid = px(&blurred, (x0 + x1) / 2 + 12, row)[0];
    let beyond = px(&blurred, x1 + 14, row)[0];
    assert!(mid > 60 && mid < 255 && beyond > 0, "{mid} {beyond}");
    // Drawn again: every bitmap from the atlas.
    let again = draw(
        &mut r,
        Text::new("I", &f, 40.0).shadowed(stage2d::TextShadow {
            blur: 4.0,
            ..shadow
        }),
    );
    assert_eq!(r.stats().last_frame.glyph_uploads, 0);
    assert!(again == blurred);
    // Absurd styles: drawn (or left out) without failing, the fill still there.
    for (stroke, shadow) in [
        (
            f32::NAN,
            stage2d::TextShadow {
                distance: f32::NAN,
                ..shadow
            },
        ),
        (
            1e9,
            stage2d::TextShadow {
                blur: 1e6,
                ..shadow
            },
        ),
        (
            -3.0,
            stage2d::TextShadow {
                angle: f32::INFINITY,
                ..shadow
            },
        ),
    ] {
        let img = draw(
            &mut r,
            Text::new("I", &f, 40.0)
                .stroked(Color::hex(0x00ff00), stroke)
                .shadowed(shadow),
        );
        let p = px(&img, (x0 + x1) / 2, row);
        assert!(p[0] > 0 || p[1] > 0, "{stroke}: {p:?}");
    }
}

#[test]
fn a_shared_style_changes_its_texts_in_place() {
    use stage2d::{SharedTextStyle, TextStyle};
    let mut r = renderer();
    let f = font();
    let hud = SharedTextStyle::new(TextStyle::new(16.0));
    let mut s = Scene::new();
    let a = s
        .add(
            s.root(),
            Node::text(Text::new("IIII", &f, 16.0).with_shared_style(&hud)).at(4.0, 4.0),
        )
        .unwrap();
    s.add(
        s.root(),
        Node::text(Text::new("IIII", &f, 16.0).with_shared_style(&hud)).at(4.0, 40.0),
    )
    .unwrap();
    // Its own style: white, 16 px, untouched by the shared one.
    s.add(
        s.root(),
        Node::text(Text::new("IIII", &f, 16.0)).at(4.0, 76.0),
    )
    .unwrap();
    let frame = |r: &mut stage2d::Renderer, s: &Scene| {
        let img = render(r, s, 120, 110, Color::BLACK);
        (img, r.stats().last_frame.text_layouts)
    };
    let (_, layouts) = frame(&mut r, &s);
    assert_eq!(layouts, 3);
    let (_, layouts) = frame(&mut r, &s);
    assert_eq!(layouts, 0, "nothing changed");
    // A new colour reaches both shared texts without laying them out again.
    hud.update(|st| st.color = Color::rgb(1.0, 0.0, 0.0));
    let (img, layouts) = frame(&mut r, &s);
    assert_eq!(layouts, 0, "a colour is not layout");
    let reddest = |y0: u32, y1: u32| {
        (y0..y1)
            .flat_map(|y| (0..60).map(move |x| (x, y)))
            .map(|(x, y)| px(&img, x, y))
            .max_by_key(|p| p[0] as i32 - p[1] as i32)
            .unwrap()
    };
    for (y0, y1) in [(4, 24), (40, 60)] {
        let p = reddest(y0, y1);
        assert!(p[0] > 200 && p[1] < 40, "a shared text turned red: {p:?}");
    }
    let greenest = (76..96)
        .flat_map(|y| (0..60).map(move |x| (x, y)))
        .map(|(x, y)| px(&img, x, y))
        .max_by_key(|p| p[1])
        .unwrap();
    assert!(
        greenest[0] > 200 && greenest[1] > 200,
        "the text of its own style stays white: {greenest:?}"
    );
    // A new size lays the two out again, and only them.
    let before = s.get(a).unwrap().as_text().unwrap().layout().size;
    hud.update(|st| st.layout.size = 24.0);
    let (_, layouts) = frame(&mut r, &s);
    assert_eq!(layouts, 2);
    let after = s.get(a).unwrap().as_text().unwrap().layout().size;
    assert!(after[0] > before[0] * 1.3, "{before:?} -> {after:?}");
    // Unshared again: its own settings.
    s.get_mut(a)
        .unwrap()
        .as_text_mut()
        .unwrap()
        .set_shared_style(None);
    assert_eq!(s.get(a).unwrap().as_text().unwrap().layout().size, before);
}

#[test]
fn gradient_fills_run_across_the_block() {
    use stage2d::glam::Vec2;
    use stage2d::TextGradient;
    let mut r = renderer();
    let f = font();
    let mut s = Scene::new();
    let red = Color::rgb(1.0, 0.0, 0.0);
    let blue = Color::rgb(0.0, 0.0, 1.0);
    // Two lines of bars: the gradient runs over the whole block, top to bottom.
    s.add(
        s.root(),
        Node::text(Text::new("IIIII\nIIIII", &f, 40.0).filled(TextGradient::vertical(red, blue)))
            .at(4.0, 0.0),
    )
    .unwrap();
    // Three stops left to right, under an outline.
    let rainbow = TextGradient::linear(
        Vec2::ZERO,
        Vec2::X,
        &[
            (0.0, Color::hex(0xff0000)),
            (0.5, Color::hex(0x00ff00)),
            (1.0, Color::hex(0x0000ff)),
        ],
    );
    s.add(
        s.root(),
        Node::text(
            Text::new("gradient", &f, 30.0)
                .filled(rainbow)
                .stroked(Color::WHITE, 2.0),
        )
        .at(120.0, 20.0),
    )
    .unwrap();
    let img = render(&mut r, &s, 260, 100, Color::BLACK);
    assert_eq!(
        r.stats().last_frame.draw_calls,
        1,
        "gradient glyphs batch with the rest"
    );
    // The first line's bars are red near their top and purple at their foot; the second line's are bluer.
    let colour_at = |y: u32| {
        (4..100)
            .map(|x| px(&img, x, y))
            .max_by_key(|p| p[0] as u32 + p[2] as u32)
            .unwrap()
    };
    let top = colour_at(12);
    let bottom = colour_at(80);
    assert!(top[0] > 180 && top[2] < 90, "top {top:?}");
    assert!(bottom[2] > 160 && bottom[0] < 110, "bottom {bottom:?}");
    assert!(TextGradient::vertical(red, blue).at(Vec2::new(0.3, 0.5)).b > 0.49);
    golden("text_gradient", &img);
}

#[test]
fn trim_cuts_the_block_to_its_ink() {
    let f = font();
    let plain = Text::new("ace", &f, 40.0);
    let mut trimmed = Text::new("ace", &f, 40.0);
    trimmed.set_trim(true);
    let (p, t) = (plain.layout(), trimmed.layout());
    // Lower-case letters: the block loses the ascender room above them and the descender room below.
    assert!(
        t.size[1] < p.size[1] * 0.7,
        "{:?} against {:?}",
        t.size,
        p.size
    );
    assert!(t.size[0] <= p.size[0] && t.size[0] > p.size[0] * 0.8);
    // Drawn, its ink touches the block's top-left edges: the node's origin.
    let mut r = renderer();
    let mut s = Scene::new();
    s.add(s.root(), Node::text(trimmed.clone()).at(10.0, 10.0))
        .unwrap();
    let img = render(&mut r, &s, 120, 60, Color::BLACK);
    let lit = |x: u32, y: u32| px(&img, x, y)[0] > 40;
    assert!(
        (10..110).any(|x| lit(x, 10) || lit(x, 11)),
        "ink on the top row"
    );
    assert!(
        (10..50).any(|y| lit(10, y) || lit(11, y)),
        "ink on the left column"
    );
    assert!(!(0..120).any(|x| lit(x, 8)), "nothing above the block");
    // An outline grows the box by half its width on each side, and changing it lays the text out again.
    trimmed.stroke = Some(stage2d::TextStroke::new(Color::BLACK, 8.0));
    let o = trimmed.layout();
    assert!(
        (o.size[0] - t.size[0] - 8.0).abs() < 0.01,
        "{:?} {:?}",
        o.size,
        t.size
    );
    let mut s = Scene::new();
    let id = s.add(s.root(), Node::text(trimmed)).unwrap();
    render(&mut r, &s, 120, 60, Color::BLACK);
    s.get_mut(id).unwrap().as_text_mut().unwrap().stroke = None;
    render(&mut r, &s, 120, 60, Color::BLACK);
    assert_eq!(
        r.stats().last_frame.text_layouts,
        1,
        "the outline is part of a trimmed layout"
    );
}

/// Outline joins as PixiJS's `stroke.join`: the same 'M' outlined 6 px wide with a miter (the default, limit 10), a
/// round join and a bevel. The miter's tips rise above the round join's outline at the M's sharp top corners; a
/// bevel cuts them lower still; a miter limit of 1 bevels every corner.
#[test]
fn outline_joins_miter_round_and_bevel() {
    use stage2d::{LineJoin, TextStroke};
    let mut r = renderer();
    let f = font();
    let mut s = Scene::new();
    let red = Color::hex(0xff0000);
    let strokes = [
        TextStroke::new(red, 6.0),
        TextStroke::new(red, 6.0).with_join(LineJoin::Round),
        TextStroke::new(red, 6.0).with_join(LineJoin::Bevel),
        TextStroke::new(red, 6.0).with_miter_limit(1.0),
    ];
    for (i, stroke) in strokes.iter().enumerate() {
        let mut t = Text::new("M", &f, 40.0);
        t.stroke = Some(*stroke);
        s.add(s.root(), Node::text(t).at(10.0 + 50.0 * i as f32, 10.0))
            .unwrap();
    }
    let img = render(&mut r, &s, 210, 70, Color::BLACK);
    // The topmost row with outline colour in each text's column.
    let top = |i: u32| {
        (0..70)
            .find(|&y| (50 * i..50 * i + 50).any(|x| px(&img, x, y)[0] > 127))
            .unwrap()
    };
    let [miter, round, bevel, limited] = [0, 1, 2, 3].map(top);
    assert!(miter + 4 <= round, "miter top {miter}, round {round}");
    assert!(bevel >= round, "bevel top {bevel}, round {round}");
    assert_eq!(limited, bevel, "a limit of 1 bevels");
    // The fill is white inside, the outline red around it, wherever the join.
    for i in 0..4 {
        let fills = (50 * i..50 * i + 50)
            .flat_map(|x| (0..70).map(move |y| (x, y)))
            .filter(|&(x, y)| px(&img, x, y) == [255, 255, 255, 255])
            .count();
        assert!(fills > 150, "text {i}: {fills} white pixels");
    }
    golden("text_joins", &img);
}

/// An outlined and shadowed text draws each glyph as one quad of one bitmap holding its fill, outline and shadow,
/// drawn once a pass: the same picture as each pass's bitmaps drawn as quads of their own (what a rich text whose
/// tag brings its own outline and shadow still does), on whole pixels and off them, rotated and scaled, with round
/// and mitered outlines, with MSAA off and on (on GL, where indices stop at 2^24, both draw apart).
#[test]
fn styled_glyphs_from_one_bitmap_match_each_pass_drawn_apart() {
    let f = font();
    let shadow = stage2d::TextShadow {
        color: Color::hex(0x3050ff),
        alpha: 0.8,
        angle: 0.7,
        distance: 3.3,
        blur: 1.5,
    };
    let round =
        stage2d::TextStroke::new(Color::hex(0xff2020), 3.0).with_join(stage2d::LineJoin::Round);
    let miter = stage2d::TextStroke::new(Color::hex(0x20ff20), 4.0);
    let words = "AVW styled, kept";
    for msaa in [false, true] {
        let mut r = renderer_with_msaa(msaa);
        // `apart`: the same texts as rich text whose tag carries the outline and shadow.
        let draw = |r: &mut stage2d::Renderer, apart: bool| {
            let mut s = Scene::new();
            let placed = [
                (round, 4.0, 2.0, 0.0, 1.0),
                (miter, 7.3, 34.6, 0.0, 1.0),
                (round, 20.0, 66.0, 0.3, 1.3),
            ];
            for (stroke, x, y, rotation, scale) in placed {
                let t = if apart {
                    Text::rich(format!("<s>{words}</s>"), &f, 18.0)
                        .with_tag_style("s", stage2d::TagStyle::new().stroke(stroke).shadow(shadow))
                } else {
                    let mut t = Text::new(words, &f, 18.0).shadowed(shadow);
                    t.stroke = Some(stroke);
                    t
                };
                let mut n = Node::text(t).at(x, y);
                n.transform.rotation = rotation;
                n.transform.scale = glam::Vec2::splat(scale);
                s.add(s.root(), n).unwrap();
            }
            let img = render(r, &s, 200, 120, Color::BLACK);
            (img, r.stats().last_frame)
        };
        let (one, stats) = draw(&mut r, false);
        // Where indices stop at 2^24 (GL without full 32-bit indices, as llvmpipe's) passes have no room in
        // them: each pass's bitmaps are drawn as quads there.
        let full_indices = r.adapter_info().backend != stage2d::wgpu::Backend::Gl;
        let want = if full_indices { 3 * 14 } else { 0 };
        assert_eq!(
            stats.styled_glyphs, want,
            "each drawn glyph one quad (spaces none)"
        );
        assert_eq!(stats.draw_calls, 1);
        let (apart, stats) = draw(&mut r, true);
        assert_eq!(
            stats.styled_glyphs, 0,
            "a tag's own outline draws its passes apart"
        );
        assert!(
            one.pixels().filter(|p| p.0[0] > 200).count() > 200,
            "outlines drawn"
        );
        assert!(
            one.pixels().filter(|p| p.0[2] > 150).count() > 100,
            "shadows drawn"
        );
        // Pixels differing by more than `tol` in rows `rows`.
        let differ = |rows: std::ops::Range<u32>, tol: u8| {
            rows.flat_map(|y| (0..200).map(move |x| (x, y)))
                .filter(|&(x, y)| {
                    let (a, b) = (px(&one, x, y), px(&apart, x, y));
                    a.iter().zip(b.iter()).any(|(p, q)| p.abs_diff(*q) > tol)
                })
                .count()
        };
        let on_pixels = differ(0..64, 2);
        assert!(on_pixels <= 4, "msaa {msaa}: {on_pixels} pixels differ");
        // Rotated, a bitmap's edge texels are filtered across its quad's edge: a fill's own quad cuts that off,
        // the shared quad (the shadow's size) does not, so the fill reaches up to half a texel further there.
        let rotated = differ(64..120, 2);
        assert!(rotated <= 150, "msaa {msaa}: {rotated} pixels differ");
        assert!(differ(64..120, 90) == 0, "msaa {msaa}: only slightly");
    }
}

/// A styled text's shadow lies outside its glyphs' quads: a filter's area and a cached subtree's texture still
/// cover it (both measure what a styled glyph draws, shadow included).
#[test]
fn a_shadow_beyond_its_glyphs_survives_filters_and_caches() {
    let mut r = renderer_with_msaa(false);
    let f = font();
    let shadow = stage2d::TextShadow {
        color: Color::hex(0xff0000),
        angle: 0.0,
        distance: 24.0,
        ..Default::default()
    };
    for how in ["plain", "filtered", "cached"] {
        let mut s = Scene::new();
        let c = s.add(s.root(), Node::container().at(10.0, 0.0)).unwrap();
        s.add(
            c,
            Node::text(
                Text::new("I", &f, 40.0)
                    .shadowed(shadow)
                    .stroked(Color::hex(0x00ff00), 2.0),
            ),
        )
        .unwrap();
        match how {
            "filtered" => s.set_filters(c, vec![stage2d::Filter::alpha(1.0)]).unwrap(),
            "cached" => s
                .set_cache_as_texture(c, Some(stage2d::CacheAsTexture::default()))
                .unwrap(),
            _ => {}
        }
        let img = render(&mut r, &s, 72, 56, Color::BLACK);
        let red: Vec<u32> = (0..72)
            .filter(|&x| px(&img, x, 25)[0] > 250 && px(&img, x, 25)[1] < 5)
            .collect();
        assert!(!red.is_empty(), "{how}: no shadow");
        assert!(
            *red.last().unwrap() >= 40,
            "{how}: the shadow is cut at {red:?}"
        );
    }
}
