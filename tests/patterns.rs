//! Texture fills and patterns (local and global texture space, matrices, repeat modes, textured strokes),
//! radial and repeating gradients: exact probes, and PixiJS's `graphics` scenes that use them against its
//! snapshots.

mod common;
use common::*;
use stage2d::glam::{Affine2, Vec2};
use stage2d::{
    Color, FillGradient, FillPattern, GraphicsContext, Node, PatternRepeat, RenderTextureOptions,
    Renderer, Sampling, Scene, StrokeStyle, Texture, TextureSpace,
};

fn scene_of(contexts: Vec<(GraphicsContext, Vec2)>) -> Scene {
    let mut s = Scene::new();
    for (g, at) in contexts {
        s.add(s.root(), Node::graphics(g).at(at.x, at.y)).unwrap();
    }
    s
}

/// A 4x4 texture of four 2x2 quadrants: red, green / blue, white; nearest sampling, so texels probe exactly.
fn quadrants(r: &mut Renderer) -> Texture {
    let mut px = Vec::new();
    for y in 0..4 {
        for x in 0..4 {
            px.extend(match (x < 2, y < 2) {
                (true, true) => [255, 0, 0, 255],
                (false, true) => [0, 255, 0, 255],
                (true, false) => [0, 0, 255, 255],
                (false, false) => [255, 255, 255, 255],
            });
        }
    }
    r.create_texture(4, 4, &px, Sampling::NEAREST).unwrap()
}

const RED: [u8; 4] = [255, 0, 0, 255];
const GREEN: [u8; 4] = [0, 255, 0, 255];
const BLUE: [u8; 4] = [0, 0, 255, 255];
const WHITE: [u8; 4] = [255, 255, 255, 255];

#[test]
fn a_global_pattern_tiles_from_the_context_origin_at_its_own_size() {
    let mut r = renderer();
    let q = quadrants(&mut r);
    // Scaled 4x: each quadrant 8 pixels, the tile 16; the rectangle starts mid-tile.
    let mut g = GraphicsContext::new();
    g.rect(8.0, 8.0, 40.0, 40.0)
        .fill(FillPattern::new(q).with_matrix(Affine2::from_scale(Vec2::splat(4.0))));
    let img = render(
        &mut r,
        &scene_of(vec![(g, Vec2::ZERO)]),
        56,
        56,
        Color::BLACK,
    );
    probe(&img, 4, 4, [0, 0, 0, 255], 0); // outside the rectangle
    probe(&img, 12, 12, WHITE, 0); // tile 0's bottom-right quadrant
    probe(&img, 20, 12, BLUE, 0); // tile 1 (x 16..32): bottom-left
    probe(&img, 20, 20, RED, 0);
    probe(&img, 28, 20, GREEN, 0);
    probe(&img, 44, 44, WHITE, 0); // tile (2, 2)
    probe(&img, 36, 36, RED, 0);
}

#[test]
fn repeat_modes_tile_one_axis_or_none() {
    let mut r = renderer();
    let q = quadrants(&mut r);
    let pat = |repeat| {
        FillPattern::new(q)
            .with_matrix(Affine2::from_scale(Vec2::splat(4.0)))
            .with_repeat(repeat)
    };
    let mut g = GraphicsContext::new();
    g.rect(0.0, 0.0, 32.0, 32.0)
        .fill(pat(PatternRepeat::RepeatX));
    g.translate(40.0, 0.0)
        .rect(0.0, 0.0, 32.0, 32.0)
        .fill(pat(PatternRepeat::RepeatY));
    g.translate(40.0, 0.0)
        .rect(0.0, 0.0, 32.0, 32.0)
        .fill(pat(PatternRepeat::NoRepeat));
    let img = render(
        &mut r,
        &scene_of(vec![(g, Vec2::ZERO)]),
        112,
        32,
        Color::BLACK,
    );
    // Repeat across: the second tile across starts again; below the tile, the last row is clamped.
    probe(&img, 20, 4, RED, 0);
    probe(&img, 20, 28, BLUE, 0);
    probe(&img, 28, 28, WHITE, 0);
    // Repeat down (the pattern moved with the context's transform): across, the last column is clamped.
    probe(&img, 40 + 28, 4, GREEN, 0);
    probe(&img, 40 + 4, 20, RED, 0);
    probe(&img, 40 + 28, 20, GREEN, 0);
    // Neither: clamped both ways.
    probe(&img, 80 + 28, 28, WHITE, 0);
    probe(&img, 80 + 4, 28, BLUE, 0);
}

#[test]
fn a_local_texture_with_a_matrix_and_a_textured_stroke() {
    let mut r = renderer();
    let q = quadrants(&mut r);
    let mut g = GraphicsContext::new();
    // Half the box per texture: the quadrants tile twice across a 32-pixel square.
    g.rect(0.0, 0.0, 32.0, 32.0)
        .fill(FillPattern::stretched(q).with_matrix(Affine2::from_scale(Vec2::splat(0.5))));
    // Quadrants of 8 pixels.
    // A stroke filled with the texture in global space, tinted: a 4-pixel red-tinted line.
    let mut stroke = StrokeStyle::new(4.0, Color::WHITE);
    stroke.pattern = Some(FillPattern::new(q).with_matrix(Affine2::from_scale(Vec2::splat(8.0))));
    g.move_to(40.0, 8.0).line_to(72.0, 8.0).stroke(stroke);
    let img = render(
        &mut r,
        &scene_of(vec![(g, Vec2::ZERO)]),
        80,
        32,
        Color::BLACK,
    );
    probe(&img, 2, 2, RED, 0);
    probe(&img, 10, 2, GREEN, 0);
    probe(&img, 18, 2, RED, 0);
    probe(&img, 2, 10, BLUE, 0);
    probe(&img, 26, 26, WHITE, 0);
    probe(&img, 10, 26, WHITE, 0);
    // The stroke: tile of 32 (quadrants of 16) from the origin: x 40..48 is tile 1's left half (red), x 48..64
    // its right (green).
    probe(&img, 44, 8, RED, 0);
    probe(&img, 56, 8, GREEN, 0);
    probe(&img, 68, 8, RED, 0);
    probe(&img, 56, 1, [0, 0, 0, 255], 0);
}

#[test]
fn texture_builder_draws_a_tinted_texture_in_a_rectangle() {
    let mut r = renderer();
    let q = quadrants(&mut r);
    let mut g = GraphicsContext::new();
    g.texture(q, Color::WHITE, 0.0, 0.0, 16.0, 16.0)
        .texture(q, Color::rgb(1.0, 0.0, 0.0), 16.0, 0.0, 16.0, 16.0)
        .texture(q, Color::WHITE, 32.0, 0.0, 0.0, 0.0);
    let img = render(
        &mut r,
        &scene_of(vec![(g, Vec2::ZERO)]),
        40,
        16,
        Color::BLACK,
    );
    probe(&img, 12, 12, WHITE, 0);
    probe(&img, 28, 12, RED, 0); // white times the red tint
    probe(&img, 28, 4, [0, 0, 0, 255], 0); // green times red
    probe(&img, 33, 1, RED, 0); // own size: 4x4
    probe(&img, 37, 1, [0, 0, 0, 255], 0);
}

/// The colour a gradient between `a` and `b` gives at offset `t`, as 8-bit values.
fn mix(a: [u8; 4], b: [u8; 4], t: f32) -> [u8; 4] {
    std::array::from_fn(|i| (a[i] as f32 + (b[i] as f32 - a[i] as f32) * t).round() as u8)
}

#[test]
fn radial_gradients_colour_by_distance_from_the_centre() {
    let mut r = renderer();
    let stops = [(0.0, Color::WHITE), (1.0, Color::BLUE)];
    let mut g = GraphicsContext::new();
    // Global: centre (50, 50), offset 0 at radius 10 and 1 at radius 40.
    g.rect(0.0, 0.0, 100.0, 100.0).fill(
        FillGradient::radial(Vec2::splat(50.0), 10.0, Vec2::splat(50.0), 40.0, &stops)
            .in_space(TextureSpace::Global),
    );
    let img = render(
        &mut r,
        &scene_of(vec![(g, Vec2::ZERO)]),
        100,
        100,
        Color::BLACK,
    );
    for (x, y) in [
        (50, 50),
        (54, 52),
        (80, 50),
        (50, 20),
        (71, 71),
        (30, 60),
        (2, 2),
        (95, 50),
        (50, 88),
    ] {
        let d = Vec2::new(x as f32 + 0.5, y as f32 + 0.5).distance(Vec2::splat(50.0));
        let t = ((d - 10.0) / 30.0).clamp(0.0, 1.0);
        probe(&img, x, y, mix(WHITE, BLUE, t), 2);
    }
}

#[test]
fn a_focal_and_an_elliptical_radial_gradient() {
    let mut r = renderer();
    let stops = [(0.0, Color::WHITE), (1.0, Color::BLACK)];
    // Focus at (30, 50) inside the outer circle at (50, 50) of radius 40.
    let focal = FillGradient::radial(Vec2::new(30.0, 50.0), 0.0, Vec2::splat(50.0), 40.0, &stops)
        .in_space(TextureSpace::Global);
    // An ellipse: half as tall, turned a quarter: twice as tall as wide.
    let ellipse = FillGradient::radial(Vec2::splat(50.0), 0.0, Vec2::splat(50.0), 40.0, &stops)
        .in_space(TextureSpace::Global)
        .with_transform(std::f32::consts::FRAC_PI_2, 0.5);
    let mut a = GraphicsContext::new();
    a.rect(0.0, 0.0, 100.0, 100.0).fill(focal);
    let mut b = GraphicsContext::new();
    b.rect(0.0, 0.0, 100.0, 100.0).fill(ellipse);
    let img = render(
        &mut r,
        &scene_of(vec![(a, Vec2::ZERO), (b, Vec2::new(100.0, 0.0))]),
        200,
        100,
        Color::BLACK,
    );
    for (x, y) in [(30, 50), (20, 50), (60, 50), (50, 20), (75, 70), (12, 50)] {
        let p = Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
        let t = focal.offset_at(p);
        probe(&img, x, y, mix(WHITE, [0, 0, 0, 255], t), 2);
    }
    // The ellipse reaches 20 across and 40 up and down.
    for (x, y, t) in [
        (60.5, 50.0, 10.5 / 20.0),
        (50.0, 70.5, 20.5 / 40.0),
        (50.0, 19.5, 30.5 / 40.0),
    ] {
        let p = Vec2::new(x, y);
        assert!(
            (ellipse.offset_at(p) - t).abs() < 1e-4,
            "{p}: {}",
            ellipse.offset_at(p)
        );
        let (px, py) = ((x - 0.5).round() as u32, (y - 0.5).round() as u32);
        probe(&img, 100 + px, py, mix(WHITE, [0, 0, 0, 255], t), 2);
    }
    probe(&img, 100 + 75, 50, [0, 0, 0, 255], 0);
}

#[test]
fn a_repeating_linear_gradient_starts_again_past_its_end() {
    let mut r = renderer();
    let stops = [(0.0, Color::RED), (1.0, Color::BLUE)];
    let mut g = GraphicsContext::new();
    g.rect(0.0, 0.0, 100.0, 10.0).fill(
        FillGradient::linear(Vec2::ZERO, Vec2::new(40.0, 0.0), &stops)
            .in_space(TextureSpace::Global)
            .repeating(),
    );
    let img = render(
        &mut r,
        &scene_of(vec![(g, Vec2::ZERO)]),
        100,
        10,
        Color::BLACK,
    );
    for x in [2u32, 20, 37, 41, 60, 79, 81, 99] {
        let t = ((x as f32 + 0.5) / 40.0).fract();
        probe(&img, x, 5, mix(RED, BLUE, t), 2);
    }
}

#[test]
fn gradient_and_pattern_shapes_batch_with_solid_ones() {
    let mut r = renderer();
    let q = quadrants(&mut r);
    let mut s = Scene::new();
    for i in 0..30 {
        let mut g = GraphicsContext::new();
        let x = (i % 10) as f32 * 12.0;
        match i % 3 {
            0 => g.rect(x, 0.0, 10.0, 10.0).fill(Color::RED),
            1 => g.rect(x, 0.0, 10.0, 10.0).fill(FillGradient::radial(
                Vec2::splat(0.5),
                0.0,
                Vec2::splat(0.5),
                0.5,
                &[(0.0, Color::WHITE), (1.0, Color::GREEN)],
            )),
            _ => g.rect(x, 0.0, 10.0, 10.0).fill(FillPattern::new(q)),
        };
        s.add(s.root(), Node::graphics(g).at(0.0, (i / 10) as f32 * 12.0))
            .unwrap();
    }
    render(&mut r, &s, 128, 40, Color::BLACK);
    assert_eq!(
        r.stats().last_frame.draw_calls,
        1,
        "{:?}",
        r.stats().last_frame
    );
}

#[test]
fn hostile_gradients_and_patterns_draw_the_rest() {
    let mut r = renderer();
    let q = quadrants(&mut r);
    let nan = Vec2::splat(f32::NAN);
    let mut g = GraphicsContext::new();
    g.rect(0.0, 0.0, 10.0, 10.0).fill(FillGradient::radial(
        nan,
        f32::NAN,
        nan,
        f32::INFINITY,
        &[(0.0, Color::RED)],
    ));
    let c = Vec2::new(15.0, 5.0);
    g.rect(10.0, 0.0, 10.0, 10.0).fill(
        FillGradient::radial(c, 3.0, c, 3.0, &[(0.0, Color::RED), (1.0, Color::BLUE)])
            .in_space(TextureSpace::Global),
    );
    g.rect(20.0, 0.0, 10.0, 10.0).fill(
        FillGradient::linear(
            Vec2::ZERO,
            Vec2::new(1e-6, 0.0),
            &[(0.0, Color::RED), (1.0, Color::BLUE)],
        )
        .in_space(TextureSpace::Global)
        .repeating(),
    );
    g.rect(30.0, 0.0, 10.0, 10.0)
        .fill(FillPattern::new(q).with_matrix(Affine2::from_scale(Vec2::ZERO)));
    g.rect(40.0, 0.0, 10.0, 10.0)
        .fill(FillPattern::new(q).with_matrix(Affine2::from_translation(nan)));
    g.rect(50.0, 0.0, 10.0, 10.0).fill(Color::GREEN);
    // A million stops (the first 8 kept) and none (transparent).
    let many: Vec<(f32, Color)> = (0..1_000_000)
        .map(|i| (i as f32 / 1e6, Color::BLUE))
        .collect();
    let t0 = std::time::Instant::now();
    let g_many = FillGradient::linear(Vec2::ZERO, Vec2::X, &many);
    assert_eq!(g_many.stops().len(), stage2d::MAX_FILL_GRADIENT_STOPS);
    g.rect(60.0, 0.0, 10.0, 10.0).fill(g_many);
    g.rect(70.0, 0.0, 10.0, 10.0)
        .fill(FillGradient::linear(Vec2::ZERO, Vec2::X, &[]));
    let img = render(
        &mut r,
        &scene_of(vec![(g, Vec2::ZERO)]),
        60,
        10,
        Color::BLACK,
    );
    assert!(t0.elapsed().as_secs_f32() < 1.0);
    probe(&img, 55, 5, GREEN, 0);
    // Equal radii: a hard edge at the circle (inside the first stop's colour, outside the last's).
    probe(&img, 11, 1, BLUE, 0);
    probe(&img, 15, 5, RED, 0);
    // A million periods across the shape: drawn clamped (the end colour).
    probe(&img, 25, 5, BLUE, 0);
    // A destroyed pattern texture: that fill is skipped, the rest drawn.
    let mut g = GraphicsContext::new();
    let q2 = quadrants(&mut r);
    g.rect(0.0, 0.0, 10.0, 10.0).fill(FillPattern::new(q2));
    g.rect(10.0, 0.0, 10.0, 10.0).fill(Color::GREEN);
    r.destroy_texture(q2).unwrap();
    let img = render(
        &mut r,
        &scene_of(vec![(g, Vec2::ZERO)]),
        20,
        10,
        Color::BLACK,
    );
    probe(&img, 5, 5, [0, 0, 0, 255], 0);
    probe(&img, 15, 5, GREEN, 0);
}

/// PixiJS's `graphics/graphics-fills` scene: a texture stretched and in global space, a repeating global gradient
/// and a local one, in a container sized to 128x128.
#[test]
fn pixijs_graphics_fills() {
    let mut r = renderer();
    let texture = pixijs_texture(&mut r, "bg_scene_rotate.jpg");
    let grad = FillGradient::linear(
        Vec2::ZERO,
        Vec2::splat(50.0),
        &[(0.0, Color::RED), (1.0, Color::BLUE)],
    )
    .in_space(TextureSpace::Global)
    .repeating();
    let grad2 = FillGradient::linear(
        Vec2::ZERO,
        Vec2::Y,
        &[(0.0, Color::BLUE), (1.0, Color::hex(0xffff00))],
    );
    let rect = |fill: stage2d::FillStyle| {
        let mut g = GraphicsContext::new();
        g.rect(0.0, 0.0, 100.0, 100.0).fill(fill);
        g
    };
    let mut s = Scene::new();
    let all = s
        .add(s.root(), Node::container().scaled(128.0 / 200.0))
        .unwrap();
    for (g, x, y) in [
        (rect(texture.into()), 0.0, 0.0),
        (rect(FillPattern::new(texture).into()), 100.0, 0.0),
        (rect(grad.into()), 0.0, 100.0),
        (rect(grad2.into()), 100.0, 100.0),
    ] {
        s.add(all, Node::graphics(g).at(x, y)).unwrap();
    }
    let img = render_pixijs(&mut r, &s);
    pixijs("graphics-fills", &img, 100);
}

/// PixiJS's `graphics/graphics-texture` scene: `Graphics.texture` three times, tinted black, red and white.
#[test]
fn pixijs_graphics_texture() {
    let mut r = renderer();
    let bunny = pixijs_texture(&mut r, "bunny.png");
    let mut g = GraphicsContext::new();
    g.texture(bunny, Color::hex(0), 0.0, 0.0, 100.0, 50.0)
        .texture(bunny, Color::hex(0xff0000), 0.0, 50.0, 100.0, 50.0)
        .texture(bunny, Color::hex(0xffffff), 0.0, 100.0, 100.0, 50.0);
    let img = render_pixijs(&mut r, &scene_of(vec![(g, Vec2::ZERO)]));
    pixijs("graphics-texture", &img, 100);
}

/// PixiJS's `graphics/graphics-tile` scene: two round-capped strokes drawn into a texture of their bounds
/// (`generateTexture`), tiled over the whole view in global space.
#[test]
fn pixijs_graphics_tile() {
    let mut r = renderer();
    let mut marks = GraphicsContext::new();
    let mut st = StrokeStyle::new(4.0, Color::BLACK);
    st.cap = stage2d::LineCap::Round;
    marks
        .move_to(8.0, 0.0)
        .line_to(0.0, 8.0)
        .move_to(12.0, 20.0)
        .line_to(20.0, 12.0)
        .stroke(st);
    let mut s = Scene::new();
    let node = s.add_detached(Node::graphics(marks));
    // Its bounds: -2..22 both ways.
    let rt = r
        .create_render_texture(RenderTextureOptions::new(24, 24))
        .unwrap();
    r.render_node_transformed(
        &s,
        node,
        &rt,
        Affine2::from_translation(Vec2::splat(2.0)),
        Some(Color::TRANSPARENT),
    )
    .unwrap();
    let mut g = GraphicsContext::new();
    g.rect(0.0, 0.0, 128.0, 128.0)
        .fill(FillPattern::new(rt.texture()));
    s.add(s.root(), Node::graphics(g)).unwrap();
    let img = render_pixijs(&mut r, &s);
    pixijs("graphics-tile", &img, 100);
}

/// PixiJS's `graphics/rect-fills-compare-gradients` scene: a repeating three-stop gradient in global and local
/// space, as fills and as 5-pixel strokes.
#[test]
fn pixijs_rect_fills_compare_gradients() {
    let mut r = renderer();
    let stops = [
        (0.0, Color::hex(0xff0000)),
        (0.5, Color::hex(0x00ff00)),
        (1.0, Color::hex(0x0000ff)),
    ];
    let mut s = Scene::new();
    for (space, x, y, stroke) in [
        (TextureSpace::Global, 5.0, 0.0, false),
        (TextureSpace::Local, 60.0, 0.0, false),
        (TextureSpace::Global, 10.0, 60.0, true),
        (TextureSpace::Local, 70.0, 60.0, true),
    ] {
        let end = match space {
            TextureSpace::Local => Vec2::ONE,
            TextureSpace::Global => Vec2::splat(50.0),
        };
        let grad = FillGradient::linear(Vec2::ZERO, end, &stops)
            .in_space(space)
            .repeating();
        let mut g = GraphicsContext::new();
        g.rect(x, y, 50.0, 50.0);
        if stroke {
            let mut st = StrokeStyle::new(5.0, Color::WHITE);
            st.gradient = Some(grad);
            g.stroke(st);
        } else {
            g.fill(grad);
        }
        s.add(s.root(), Node::graphics(g)).unwrap();
    }
    let img = render_pixijs(&mut r, &s);
    pixijs("rect-fills-compare-gradients", &img, 100);
}

/// PixiJS's `graphics/rect-fills-compare` scene: two textures in global and local space over red squares.
#[test]
fn pixijs_rect_fills_compare() {
    let mut r = renderer();
    let bunny = pixijs_texture(&mut r, "bunny.png");
    let newt = pixijs_texture(&mut r, "piece-newt-single.png");
    let mut s = Scene::new();
    for (space, x, y, tex) in [
        (TextureSpace::Global, 0.0, 0.0, bunny),
        (TextureSpace::Local, 55.0, 0.0, bunny),
        (TextureSpace::Global, 0.0, 55.0, newt),
        (TextureSpace::Local, 55.0, 55.0, newt),
    ] {
        let mut bg = GraphicsContext::new();
        bg.rect(x, y, 50.0, 50.0).fill(Color::hex(0xff0000));
        let mut g = GraphicsContext::new();
        g.rect(x, y, 50.0, 50.0)
            .fill(FillPattern::new(tex).in_space(space));
        s.add(s.root(), Node::graphics(bg)).unwrap();
        s.add(s.root(), Node::graphics(g)).unwrap();
    }
    let img = render_pixijs(&mut r, &s);
    pixijs("rect-fills-compare", &img, 100);
}

/// PixiJS's `graphics/rect-fills` scene: a global texture fill, a global gradient, a texture through a matrix,
/// textured strokes, and a scaled pattern with a tinted textured stroke. PixiJS loads the bunny as a 13x19
/// source (`data: { width: 13, height: 19 }`), which uploads the image's top-left 13x19 pixels: here a texture
/// of those.
#[test]
fn pixijs_rect_fills() {
    let mut r = renderer();
    let path = format!("{}/tests/pixijs/bunny.png", env!("CARGO_MANIFEST_DIR"));
    let corner = stage2d::image::open(path).unwrap().to_rgba8();
    let corner = stage2d::image::imageops::crop_imm(&corner, 0, 0, 13, 19).to_image();
    let bunny = r.texture_from_image(&corner, Sampling::LINEAR).unwrap();
    let newt = pixijs_texture(&mut r, "piece-newt-single.png");
    let small_bunny = |m: Affine2| FillPattern::new(bunny).with_matrix(m);
    let mut s = Scene::new();
    let mut add = |g: GraphicsContext| {
        s.add(s.root(), Node::graphics(g)).unwrap();
    };
    let mut g = GraphicsContext::new();
    g.rect(50.0, 0.0, 50.0, 50.0)
        .fill(small_bunny(Affine2::IDENTITY));
    add(g);
    let mut g = GraphicsContext::new();
    let stops = [
        (0.0, Color::hex(0xff0000)),
        (0.5, Color::hex(0x00ff00)),
        (1.0, Color::hex(0x0000ff)),
    ];
    g.rect(0.0, 0.0, 50.0, 50.0).fill(
        FillGradient::linear(Vec2::ZERO, Vec2::splat(50.0), &stops).in_space(TextureSpace::Global),
    );
    add(g);
    let mut g = GraphicsContext::new();
    // PixiJS's `new Matrix().rotate(0.5).scale(0.5, 1)`: turned, then scaled.
    let m = Affine2::from_scale(Vec2::new(0.5, 1.0)) * Affine2::from_angle(0.5);
    g.rect(0.0, 50.0, 50.0, 50.0).fill(small_bunny(m));
    add(g);
    let mut g = GraphicsContext::new();
    let textured = |width: f32| {
        let mut st = StrokeStyle::new(width, Color::WHITE);
        st.pattern = Some(small_bunny(Affine2::IDENTITY));
        st
    };
    g.move_to(0.0, 0.0)
        .line_to(50.0, 50.0)
        .stroke(textured(5.0))
        .move_to(0.0, 50.0)
        .line_to(50.0, 0.0)
        .stroke(textured(10.0));
    add(g);
    let mut g = GraphicsContext::new();
    let mut st = textured(5.0);
    st.color = Color::hex(0xff0000);
    g.rect(50.0, 50.0, 50.0, 50.0)
        .fill(FillPattern::new(newt).with_matrix(Affine2::from_scale(Vec2::splat(0.2))))
        .stroke(st);
    add(g);
    let img = render_pixijs(&mut r, &s);
    // 28 pixels differ without MSAA; with it 128, on the edges of the two diagonal textured strokes, which MSAA
    // draws at their coverage (over textured pixels that pixelmatch weighs heavily) and PixiJS's snapshot whole.
    let limit = if test_msaa() { 140 } else { 100 };
    pixijs("rect-fills", &img, limit);
}

/// A golden of every paint together (Vulkan and GL, MSAA off and on): a linear gradient, a focal radial one
/// turned and squashed, a repeating gradient stroke, a pattern turned and scaled, a textured stroke, and an SVG
/// document with a gradient and a group transform.
#[test]
fn paints_golden() {
    let mut r = renderer();
    let q = quadrants(&mut r);
    let stops = [
        (0.0, Color::hex(0xf9d423)),
        (0.5, Color::hex(0xff4e50)),
        (1.0, Color::hex(0x2c3e50)),
    ];
    let mut g = GraphicsContext::new();
    g.round_rect(4.0, 4.0, 48.0, 40.0, 8.0)
        .fill(FillGradient::linear(Vec2::ZERO, Vec2::ONE, &stops));
    g.ellipse(80.0, 24.0, 22.0, 18.0).fill(
        FillGradient::radial(Vec2::new(0.35, 0.4), 0.05, Vec2::splat(0.5), 0.5, &stops)
            .with_transform(0.4, 0.8),
    );
    let mut ring = StrokeStyle::new(6.0, Color::WHITE);
    ring.gradient = Some(
        FillGradient::linear(Vec2::ZERO, Vec2::new(12.0, 6.0), &stops)
            .in_space(TextureSpace::Global)
            .repeating(),
    );
    g.circle(130.0, 24.0, 16.0).stroke(ring);
    g.star(28.0, 70.0, 5, 22.0, 10.0, 0.2).fill(
        FillPattern::new(q)
            .with_matrix(Affine2::from_angle(0.5) * Affine2::from_scale(Vec2::splat(3.0))),
    );
    let mut textured = StrokeStyle::new(8.0, Color::rgb(1.0, 0.8, 0.8));
    textured.pattern = Some(FillPattern::new(q).with_matrix(Affine2::from_scale(Vec2::splat(2.0))));
    textured.cap = stage2d::LineCap::Round;
    g.move_to(56.0, 56.0)
        .bezier_curve_to(70.0, 90.0, 90.0, 40.0, 104.0, 80.0)
        .stroke(textured);
    {
        g.save().translate(112.0, 48.0);
        g.svg(
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="44" height="44"><defs>
            <radialGradient id="s" cx="22" cy="22" r="20" fx="16" fy="16" gradientUnits="userSpaceOnUse">
            <stop offset="0" stop-color="#ffffff"/><stop offset="1" stop-color="#3498db"/></radialGradient></defs>
            <circle cx="22" cy="22" r="20" fill="url(#s)" stroke="#2c3e50" stroke-width="2"/>
            <g transform="translate(22 22) rotate(45)"><rect x="-6" y="-6" width="12" height="12" fill="#e74c3c"
            fill-opacity="0.8"/></g></svg>"##,
        )
        .unwrap();
        g.restore();
    }
    let img = render(
        &mut r,
        &scene_of(vec![(g, Vec2::ZERO)]),
        160,
        96,
        Color::hex(0x1099bb),
    );
    golden("paints", &img);
}
