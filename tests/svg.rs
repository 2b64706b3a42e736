//! SVG documents into graphics contexts and back: PixiJS's `graphics/svg` scenes against its snapshots, exact
//! probes, the round trip, and hostile documents.

mod common;
use common::*;
use stage2d::glam::{Affine2, Vec2};
use stage2d::{Color, Error, GraphicsContext, Node, Scene};

fn asset(name: &str) -> String {
    let path = format!("{}/tests/pixijs/svg/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).unwrap()
}

/// PixiJS's picture of SVG document `file` read into a graphics context whose bounds are scaled to `side` x
/// `side` (`graphics.width = side`, `.height = side`).
fn document_sized(r: &mut stage2d::Renderer, file: &str, side: f32) -> stage2d::image::RgbaImage {
    let mut s = Scene::new();
    let g = GraphicsContext::from_svg(&asset(file)).unwrap();
    let n = s.add(s.root(), Node::graphics(g)).unwrap();
    let b = s.world_bounds(n).unwrap();
    s.transform_mut(n).unwrap().scale = Vec2::new(side / b.width(), side / b.height());
    render_pixijs(r, &s)
}

#[test]
fn shapes_groups_and_styles_land_where_the_document_puts_them() {
    let mut r = renderer();
    let doc = r##"<svg xmlns="http://www.w3.org/2000/svg" width="60" height="40">
        <rect x="2" y="2" width="16" height="16" fill="#ff0000"/>
        <g transform="translate(20 0)" opacity="0.5">
            <circle cx="10" cy="10" r="8" fill="blue"/>
        </g>
        <g transform="matrix(1 0 0 1 40 0) scale(2)">
            <rect width="9" height="9" fill="lime" fill-opacity="1" stroke="white" stroke-width="1"/>
        </g>
        <polygon points="0,22 18,22 9,38" fill="#ffff00"/>
        <path d="M22 22h16v16h-16z M26 26h8v8h-8z" fill-rule="evenodd" fill="rgb(0, 255, 255)"/>
        <line x1="42" y1="30" x2="58" y2="30" stroke="#ff00ff" stroke-width="4"/>
        <image href="cat.png" width="10" height="10"/>
    </svg>"##;
    let mut g = GraphicsContext::new();
    let report = g.svg(doc).unwrap();
    assert_eq!(
        (report.paths, report.skipped_elements),
        (6, 1),
        "{report:?}"
    );
    let mut s = Scene::new();
    s.add(s.root(), Node::graphics(g)).unwrap();
    let img = render(&mut r, &s, 60, 40, Color::BLACK);
    probe(&img, 10, 10, [255, 0, 0, 255], 0);
    probe(&img, 30, 10, [0, 0, 128, 255], 1); // half opacity from its group
    probe(&img, 49, 9, [0, 255, 0, 255], 0);
    probe(&img, 40, 9, [255, 255, 255, 255], 0); // the stroke, scaled 2x: 2 pixels wide about x = 40
    probe(&img, 9, 28, [255, 255, 0, 255], 0);
    probe(&img, 24, 24, [0, 255, 255, 255], 0);
    probe(&img, 30, 30, [0, 0, 0, 255], 0); // the even-odd hole
    probe(&img, 50, 30, [255, 0, 255, 255], 0);
}

#[test]
fn svg_gradients_match_the_gradients_they_stand_for() {
    let mut r = renderer();
    let doc = r##"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="20">
        <defs>
            <linearGradient id="h"><stop offset="0" stop-color="#ff0000"/><stop offset="1" stop-color="#0000ff"/></linearGradient>
            <radialGradient id="r" gradientUnits="userSpaceOnUse" cx="80" cy="10" r="10">
                <stop offset="0" stop-color="white"/><stop offset="1" stop-color="black"/>
            </radialGradient>
        </defs>
        <rect width="50" height="20" fill="url(#h)"/>
        <rect x="60" width="40" height="20" fill="url(#r)"/>
    </svg>"##;
    let g = GraphicsContext::from_svg(doc).unwrap();
    let mut s = Scene::new();
    s.add(s.root(), Node::graphics(g)).unwrap();
    let img = render(&mut r, &s, 100, 20, Color::BLACK);
    // objectBoundingBox, left to right over the 50-pixel rectangle.
    for x in [0u32, 12, 25, 37, 49] {
        let t = (x as f32 + 0.5) / 50.0;
        probe(
            &img,
            x,
            10,
            [
                (255.0 * (1.0 - t)).round() as u8,
                0,
                (255.0 * t).round() as u8,
                255,
            ],
            2,
        );
    }
    for (x, y) in [(80u32, 10u32), (85, 10), (80, 4), (62, 2)] {
        let d = Vec2::new(x as f32 + 0.5, y as f32 + 0.5).distance(Vec2::new(80.0, 10.0));
        let v = (255.0 * (1.0 - (d / 10.0).min(1.0))).round() as u8;
        probe(&img, x, y, [v, v, v, 255], 2);
    }
}

#[test]
fn export_and_reimport_draw_the_same_picture() {
    let mut r = renderer();
    let mut g = GraphicsContext::new();
    g.rect(0.0, 0.0, 60.0, 40.0).fill(Color::hex(0xde3249));
    g.round_rect(5.0, 50.0, 50.0, 30.0, 8.0)
        .fill(Color::hex(0x650a5a))
        .stroke(stage2d::StrokeStyle::new(2.0, Color::hex(0xfeeb77)));
    g.circle(30.0, 110.0, 20.0)
        .fill(Color::rgba(0.3, 0.7, 1.0, 0.5));
    g.rect(5.0, 140.0, 50.0, 40.0)
        .fill(stage2d::FillGradient::linear(
            Vec2::ZERO,
            Vec2::X,
            &[(0.0, Color::RED), (1.0, Color::BLUE)],
        ));
    g.circle(30.0, 160.0, 10.0).cut();
    let svg = g.to_svg();
    assert!(
        svg.contains("<linearGradient") && svg.contains("fill-rule=\"evenodd\""),
        "{svg}"
    );
    let back = GraphicsContext::from_svg(&svg).unwrap();
    let draw = |r: &mut stage2d::Renderer, g: GraphicsContext| {
        let mut s = Scene::new();
        s.add(s.root(), Node::graphics(g)).unwrap();
        render(r, &s, 64, 184, Color::BLACK)
    };
    let a = draw(&mut r, g);
    let b = draw(&mut r, back);
    // Only edge pixels of the arcs (cubic curves in SVG, tessellated apart) may differ, by at most about one
    // sample's coverage of four with MSAA.
    let differ = |by: u8| {
        let n = a.pixels().zip(b.pixels());
        n.filter(|(p, q)| p.0.iter().zip(q.0).any(|(x, y)| x.abs_diff(y) > by))
            .count()
    };
    assert!(differ(70) < 40, "{} pixels differ", differ(70));
    assert!(differ(8) < 120, "{} pixels differ", differ(8));
}

#[test]
fn hostile_documents_are_errors_or_bounded() {
    let t0 = std::time::Instant::now();
    let bad = |doc: &str| {
        let mut g = GraphicsContext::new();
        let e = g.svg(doc);
        assert!(matches!(e, Err(Error::InvalidSvg(_))), "{e:?}");
        assert_eq!(g.version(), 0, "an invalid document adds nothing");
    };
    bad("not svg at all");
    bad("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"><rect");
    // 10,000 nested groups.
    let deep = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\">{}<rect width=\"5\" height=\"5\"/>{}</svg>",
        "<g>".repeat(10_000),
        "</g>".repeat(10_000)
    );
    bad(&deep);
    // Entity expansion ("billion laughs").
    let mut laughs = String::from("<?xml version=\"1.0\"?><!DOCTYPE svg [<!ENTITY l0 \"ha\">");
    for i in 1..10 {
        laughs += &format!("<!ENTITY l{i} \"{}\">", format!("&l{};", i - 1).repeat(10));
    }
    laughs += "]><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"><text>&l9;</text></svg>";
    let mut g = GraphicsContext::new();
    let _ = g.svg(&laughs); // an error, or the text skipped: either way bounded
                            // Huge coordinates draw nothing wrong and the rest draws.
    let huge = r##"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">
        <path d="M0 0 L1e30 0 L1e30 1e30 Z" fill="red"/><rect width="4" height="4" fill="#00ff00"/></svg>"##;
    let g = GraphicsContext::from_svg(huge).unwrap();
    let mut r = renderer();
    let mut s = Scene::new();
    s.add(s.root(), Node::graphics(g)).unwrap();
    let img = render(&mut r, &s, 10, 10, Color::BLACK);
    probe(&img, 2, 2, [0, 255, 0, 255], 0);
    // References outside the document are not read.
    let external = r##"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10">
        <image xlink:href="/etc/passwd" width="10" height="10"/><use xlink:href="other.svg#shape"/>
        <rect width="4" height="4" fill="blue"/></svg>"##;
    let mut g = GraphicsContext::new();
    let report = g.svg(external).unwrap();
    assert_eq!(report.paths, 1);
    // Compressed input is refused (a small gzip can expand without bound).
    let mut g = GraphicsContext::new();
    assert!(g.svg("\u{1f}\u{8b}\u{8}rest").is_err());
    assert!(t0.elapsed().as_secs_f32() < 2.0, "{:?}", t0.elapsed());
}

/// PixiJS's `svg` scene: the PixiJS logo as paths, sized to 128x128. (Its source writes comments as `<-- -->`,
/// which a browser's parser forgives and an XML parser does not: the copy here has them as `<!-- -->`.)
#[test]
fn pixijs_svg() {
    let img = document_sized(&mut renderer(), "paths.svg", 128.0);
    pixijs("svg", &img, 100);
}

/// PixiJS's `svg-graphics-context` scene: `logo.svg` loaded as a graphics context, sized to 128x128.
#[test]
fn pixijs_svg_graphics_context() {
    let img = document_sized(&mut renderer(), "logo.svg", 128.0);
    pixijs("svg-graphics-context", &img, 100);
}

/// PixiJS's `gradient-svg` scene: objectBoundingBox gradients on fills and strokes, set by attributes and by
/// `style`, sized to 118x118.
#[test]
fn pixijs_gradient_svg() {
    let img = document_sized(&mut renderer(), "four-rects.svg", 118.0);
    pixijs("gradient-svg", &img, 100);
}

/// PixiJS's `gradient-bug-svg` scene: userSpaceOnUse gradients on a circle and a large path, sized to 128x128.
#[test]
fn pixijs_gradient_bug_svg() {
    let img = document_sized(&mut renderer(), "beetle.svg", 128.0);
    pixijs("gradient-bug-svg", &img, 100);
}

/// PixiJS's six `svg-fill-rule-*` scenes: each document sized to 128x128.
#[test]
fn pixijs_svg_fill_rules() {
    let mut r = renderer();
    for name in [
        "svg-fill-rule-evenodd-basic",
        "svg-fill-rule-nonzero-basic",
        "svg-fill-rule-multiple-holes",
        "svg-fill-rule-nested-holes",
        "svg-fill-rule-star-evenodd",
        "svg-fill-rule-star-nonzero",
    ] {
        let img = document_sized(&mut r, &format!("{name}.svg"), 128.0);
        pixijs(name, &img, 100);
    }
}

/// PixiJS's `svg-fill-rule-comparison` scene: the six documents at 0.4 scale in a grid.
#[test]
fn pixijs_svg_fill_rule_comparison() {
    let mut r = renderer();
    let mut s = Scene::new();
    for (name, x, y) in [
        ("evenodd-basic", 10.0, 10.0),
        ("nonzero-basic", 90.0, 10.0),
        ("multiple-holes", 10.0, 90.0),
        ("nested-holes", 90.0, 90.0),
        ("star-evenodd", 10.0, 170.0),
        ("star-nonzero", 90.0, 170.0),
    ] {
        let g = GraphicsContext::from_svg(&asset(&format!("svg-fill-rule-{name}.svg"))).unwrap();
        s.add(s.root(), Node::graphics(g).at(x, y).scaled(0.4))
            .unwrap();
    }
    pixijs("svg-fill-rule-comparison", &render_pixijs(&mut r, &s), 100);
}

/// PixiJS's `svg-export-roundtrip` scene: shapes drawn, written to SVG, read back, both drawn side by side.
#[test]
fn pixijs_svg_export_roundtrip() {
    let mut r = renderer();
    let mut g = GraphicsContext::new();
    g.rect(0.0, 0.0, 60.0, 40.0).fill(Color::hex(0xde3249));
    g.round_rect(5.0, 50.0, 50.0, 30.0, 8.0)
        .fill(Color::hex(0x650a5a))
        .stroke(stage2d::StrokeStyle::new(2.0, Color::hex(0xfeeb77)));
    g.circle(30.0, 110.0, 20.0).fill(Color::hex(0x4fc3f7));
    g.ellipse(30.0, 155.0, 25.0, 12.0)
        .fill(Color::hex(0x66bb6a));
    g.poly(&[
        Vec2::new(10.0, 185.0),
        Vec2::new(30.0, 175.0),
        Vec2::new(50.0, 185.0),
    ])
    .fill(Color::hex(0xff9800));
    g.move_to(5.0, 200.0)
        .bezier_curve_to(15.0, 190.0, 45.0, 210.0, 55.0, 200.0)
        .stroke(stage2d::StrokeStyle::new(2.0, Color::hex(0x7e57c2)));
    g.rect(5.0, 220.0, 50.0, 40.0).fill(Color::hex(0xef5350));
    g.circle(30.0, 240.0, 10.0).cut();
    let back = GraphicsContext::from_svg(&g.to_svg()).unwrap();
    let mut s = Scene::new();
    s.add(s.root(), Node::graphics(g).at(2.0, 2.0).scaled(0.45))
        .unwrap();
    s.add(s.root(), Node::graphics(back).at(66.0, 2.0).scaled(0.45))
        .unwrap();
    pixijs("svg-export-roundtrip", &render_pixijs(&mut r, &s), 100);
}

#[test]
fn an_svg_document_in_a_transformed_context_follows_the_transform() {
    let mut g = GraphicsContext::new();
    g.translate(10.0, 20.0).scale(2.0, 2.0);
    g.svg(r#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect x="1" y="1" width="4" height="4"/></svg>"#)
        .unwrap();
    // PixiJS's order: the scale applies after the translation.
    let t =
        Affine2::from_scale(Vec2::splat(2.0)) * Affine2::from_translation(Vec2::new(10.0, 20.0));
    assert_eq!(g.get_transform(), t, "the context's transform is kept");
    let mut s = Scene::new();
    let n = s.add(s.root(), Node::graphics(g)).unwrap();
    let b = s.world_bounds(n).unwrap();
    assert_eq!(
        (b.min, b.max),
        (Vec2::new(22.0, 42.0), Vec2::new(30.0, 50.0))
    );
}

/// PixiJS's `svg-texture` scene: `logo.svg` loaded as a texture (drawn at its own size, 512x512) on a sprite
/// sized to 128x128.
#[test]
fn pixijs_svg_texture() {
    let mut r = renderer();
    let mut assets = stage2d::Assets::new();
    let path = format!("{}/tests/pixijs/svg/logo.svg", env!("CARGO_MANIFEST_DIR"));
    let texture = assets
        .load(&mut r, path, stage2d::Sampling::LINEAR)
        .unwrap();
    assert_eq!(texture.size(), [512.0, 512.0]);
    let mut s = Scene::new();
    s.add(s.root(), Node::sprite(texture).sized(128.0, 128.0))
        .unwrap();
    pixijs("svg-texture", &render_pixijs(&mut r, &s), 100);
}

#[test]
fn an_svg_texture_applies_the_view_box_and_its_resolution() {
    let mut r = renderer();
    let doc = r##"<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10" viewBox="10 10 40 20">
        <rect x="10" y="10" width="20" height="20" fill="#ff0000"/><rect x="30" y="10" width="20" height="20" fill="#0000ff"/>
    </svg>"##;
    let t = r
        .texture_from_svg(doc, 2.0, stage2d::Sampling::NEAREST)
        .unwrap();
    // 40x20 pixels at resolution 2: the document's 20x10.
    assert_eq!(
        (t.size(), t.source_size(), t.resolution()),
        ([20.0, 10.0], [40, 20], 2.0)
    );
    let mut s = Scene::new();
    s.add(s.root(), Node::sprite(t).scaled(2.0)).unwrap();
    let img = render(&mut r, &s, 40, 20, Color::BLACK);
    probe(&img, 5, 10, [255, 0, 0, 255], 0);
    probe(&img, 35, 10, [0, 0, 255, 255], 0);
    assert!(matches!(
        r.texture_from_svg(doc, 0.0, stage2d::Sampling::NEAREST),
        Err(Error::InvalidSvg(_))
    ));
    assert!(r
        .texture_from_svg(doc, 1e9, stage2d::Sampling::NEAREST)
        .is_err());
}

/// PixiJS's `assets/svg-decimal-resolution` scene: an 80x80 SVG circle as a texture at resolution 1 and at 1.0125
/// (not trimmed: still 80x80 units), on grey squares, with two label boxes; only the first column is in view.
#[test]
fn pixijs_svg_decimal_resolution() {
    let mut r = renderer();
    let doc = r##"<svg xmlns="http://www.w3.org/2000/svg" width="80" height="80">
        <circle cx="40" cy="40" r="39" fill="#ffffff" stroke="#ff0000" stroke-width="2"/></svg>"##;
    let t1 = r
        .texture_from_svg(doc, 1.0, stage2d::Sampling::LINEAR)
        .unwrap();
    let t2 = r
        .texture_from_svg(doc, 1.0125, stage2d::Sampling::LINEAR)
        .unwrap();
    assert_eq!(t1.size(), [80.0, 80.0]);
    assert!((t2.size()[0] - 80.0).abs() < 0.5, "{:?}", t2.size());
    let mut s = Scene::new();
    let rect = |x: f32, y: f32, w: f32, h: f32, c: u32, stroke: bool| {
        let mut g = GraphicsContext::new();
        g.rect(x, y, w, h).fill(Color::hex(c));
        if stroke {
            g.stroke(stage2d::StrokeStyle::new(1.0, Color::WHITE));
        }
        Node::graphics(g)
    };
    s.add(s.root(), rect(48.0, 98.0, 84.0, 84.0, 0x444444, false))
        .unwrap();
    s.add(s.root(), rect(198.0, 98.0, 84.0, 84.0, 0x444444, false))
        .unwrap();
    s.add(s.root(), Node::sprite(t1).at(50.0, 100.0)).unwrap();
    s.add(s.root(), Node::sprite(t2).at(200.0, 100.0)).unwrap();
    s.add(s.root(), rect(50.0, 50.0, 100.0, 25.0, 0x333333, true))
        .unwrap();
    s.add(s.root(), rect(200.0, 50.0, 100.0, 25.0, 0x333333, true))
        .unwrap();
    // 8 pixels differ without MSAA; with it 174, nearly all on the label boxes' 1-pixel outlines, which straddle
    // pixel edges: MSAA draws them at half coverage over two pixels, PixiJS's snapshot as one whole pixel.
    let limit = if test_msaa() { 200 } else { 100 };
    pixijs("svg-decimal-resolution", &render_pixijs(&mut r, &s), limit);
}
