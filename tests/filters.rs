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
}

/// A `w x h` white square at `(x, y)`.
fn white_square(scene: &mut Scene, x: f32, y: f32, side: f32) -> stage2d::NodeId {
    scene
        .add(
            scene.root(),
            Node::graphics(Arc::new(rect(0.0, 0.0, side, side, 0xffffff))).at(x, y),
        )
        .unwrap()
}

fn render_black(r: &mut Renderer, scene: &Scene, w: u32, h: u32) -> stage2d::image::RgbaImage {
    render(r, scene, w, h, Color::BLACK)
}

#[test]
fn drop_shadow_lies_under_the_content_at_its_offset() {
    let mut r = renderer_with_msaa(false);
    let mut scene = Scene::new();
    let n = white_square(&mut scene, 10.0, 10.0, 20.0);
    let shadow = DropShadow {
        offset: glam_vec(6.0, 6.0),
        color: Color::rgb(1.0, 0.0, 0.0),
        alpha: 1.0,
        blur: 0.0,
        ..DropShadow::default()
    };
    scene
        .set_filters(n, vec![Filter::drop_shadow(shadow)])
        .unwrap();
    let img = render_black(&mut r, &scene, 48, 48);
    probe(&img, 15, 15, [255, 255, 255, 255], 1);
    probe(&img, 33, 33, [255, 0, 0, 255], 1);
    probe(&img, 12, 33, [0, 0, 0, 255], 1);
    // Shadow only.
    scene.filters_mut(n).unwrap()[0] = Filter::drop_shadow(DropShadow {
        shadow_only: true,
        ..shadow
    });
    let img = render_black(&mut r, &scene, 48, 48);
    probe(&img, 12, 12, [0, 0, 0, 255], 1);
    probe(&img, 20, 20, [255, 0, 0, 255], 1);
}

#[test]
fn outline_and_glow_surround_the_content() {
    let mut r = renderer_with_msaa(false);
    let mut scene = Scene::new();
    let a = white_square(&mut scene, 10.0, 10.0, 20.0);
    scene
        .set_filters(a, vec![Filter::outline(3.0, Color::rgb(0.0, 1.0, 0.0))])
        .unwrap();
    let b = white_square(&mut scene, 50.0, 10.0, 20.0);
    scene
        .set_filters(
            b,
            vec![Filter::glow(Glow {
                color: Color::rgb(0.0, 0.0, 1.0),
                distance: 8.0,
                ..Glow::default()
            })],
        )
        .unwrap();
    let img = render_black(&mut r, &scene, 96, 40);
    // Outline: green just outside the square, nothing 6 pixels out, white inside.
    probe(&img, 20, 8, [0, 255, 0, 255], 2);
    probe(&img, 31, 20, [0, 255, 0, 255], 2);
    probe(&img, 20, 3, [0, 0, 0, 255], 0);
    probe(&img, 20, 20, [255, 255, 255, 255], 0);
    // Glow: blue fading out from the edge.
    let near = px(&img, 60, 8)[2];
    let far = px(&img, 60, 3)[2];
    assert!(near > 100 && far < near, "glow {near} near, {far} far");
    probe(&img, 60, 20, [255, 255, 255, 255], 1);
    golden("filters_outline_glow", &img);
}

#[test]
fn colour_matrix_presets_and_noise() {
    let mut r = renderer_with_msaa(false);
    let mut scene = Scene::new();
    let presets: [fn(&mut ColorMatrix); 6] = [
        |m| {
            m.negative(false);
        },
        |m| {
            m.sepia(false);
        },
        |m| {
            m.greyscale(0.3, false);
        },
        |m| {
            m.brightness(0.5, false);
        },
        |m| {
            m.to_bgr(false);
        },
        |m| {
            m.saturate(1.0, false).contrast(0.5, true);
        },
    ];
    for (i, f) in presets.iter().enumerate() {
        let n = scene
            .add(
                scene.root(),
                Node::graphics(Arc::new(rect(0.0, 0.0, 16.0, 16.0, 0xff8020)))
                    .at(i as f32 * 20.0, 0.0),
            )
            .unwrap();
        let mut m = ColorMatrix::default();
        f(&mut m);
        scene.set_filters(n, vec![Filter::color_matrix(m)]).unwrap();
    }
    let n = scene
        .add(
            scene.root(),
            Node::graphics(Arc::new(rect(0.0, 0.0, 16.0, 16.0, 0x808080))).at(0.0, 20.0),
        )
        .unwrap();
    scene.set_filters(n, vec![Filter::noise(0.5, 0.7)]).unwrap();
    let img = render_black(&mut r, &scene, 128, 40);
    probe(&img, 8, 8, [0, 127, 223, 255], 2); // negative of (255, 128, 32)
    probe(&img, 68, 8, [128, 64, 16, 255], 2); // brightness 0.5
    probe(&img, 88, 8, [32, 128, 255, 255], 1); // to BGR
    let g = px(&img, 48, 8);
    assert!(
        g[0].abs_diff(g[1]) <= 1 && g[1].abs_diff(g[2]) <= 1,
        "greyscale {g:?}"
    );
    // Noise: grey varies from pixel to pixel, around 128.
    let values: Vec<u8> = (0..16).map(|x| px(&img, x, 28)[0]).collect();
    assert!(values.iter().any(|&v| v != values[0]), "{values:?}");
    golden("filters_color_matrix_noise", &img);
}

#[test]
fn displacement_moves_pixels_by_the_map() {
    let mut r = renderer_with_msaa(false);
    // A map of (255, 128): x moved by half the scale, y not.
    let map = solid(&mut r, 8, 8, [255, 128, 128, 255]);
    let mut scene = Scene::new();
    let map_node = scene.add_detached(Node::sprite(map).sized(64.0, 64.0));
    let c = scene.add(scene.root(), Node::container()).unwrap();
    scene
        .add(
            c,
            Node::graphics(Arc::new(rect(20.0, 20.0, 20.0, 20.0, 0xffffff))),
        )
        .unwrap();
    scene
        .set_filters(
            c,
            vec![Filter::displacement(map_node, 20.0).with_padding(16.0)],
        )
        .unwrap();
    let img = render_black(&mut r, &scene, 64, 64);
    // Each pixel reads 10 pixels to its right (0.5 * 20): the square appears 10 pixels to the left.
    probe(&img, 12, 30, [255, 255, 255, 255], 2);
    probe(&img, 35, 30, [0, 0, 0, 255], 2);
    // A map destroyed: the filter is skipped and counted, the square drawn as it is.
    r.destroy_texture(map).unwrap();
    let img = render_black(&mut r, &scene, 64, 64);
    assert_eq!(r.stats().last_frame.filters_skipped, 1);
    probe(&img, 35, 30, [255, 255, 255, 255], 2);
    probe(&img, 12, 30, [0, 0, 0, 255], 2);
}

const INVERT: &str = "
struct Params { amount: f32 };
@group(1) @binding(0) var<uniform> params: Params;
@fragment fn mainFragment(in: VSOutput) -> @location(0) vec4<f32> {
    let c = textureSample(uTexture, uSampler, in.uv);
    return vec4<f32>(mix(c.rgb, vec3<f32>(c.a) - c.rgb, params.amount), c.a);
}";

#[test]
fn custom_filters_run_with_their_uniforms_and_textures() {
    let mut r = renderer_with_msaa(false);
    let invert = r.create_filter_shader(INVERT).unwrap();
    assert_eq!((invert.uniform_size(), invert.texture_count()), (4, 0));
    // The same source again: no new shader module.
    let modules = r.stats().total.shader_modules_created;
    r.create_filter_shader(INVERT).unwrap();
    assert_eq!(r.stats().total.shader_modules_created, modules);
    let tinted = r
        .create_filter_shader(
            "@group(1) @binding(1) var tint: texture_2d<f32>;
             @group(1) @binding(2) var tintSampler: sampler;
             @fragment fn mainFragment(in: VSOutput) -> @location(0) vec4<f32> {
                 return sampleInput(in.uv) * textureSample(tint, tintSampler, vec2<f32>(0.5));
             }",
        )
        .unwrap();
    assert_eq!((tinted.uniform_size(), tinted.texture_count()), (0, 1));
    let blue = solid(&mut r, 2, 2, [0, 0, 255, 255]);
    let mut scene = Scene::new();
    let a = white_square(&mut scene, 4.0, 4.0, 16.0);
    scene
        .set_filters(a, vec![Filter::custom(invert, &1.0f32.to_le_bytes(), &[])])
        .unwrap();
    let b = white_square(&mut scene, 28.0, 4.0, 16.0);
    scene
        .set_filters(b, vec![Filter::custom(tinted, &[], &[blue])])
        .unwrap();
    let target = r.create_render_target(48, 24).unwrap();
    r.render(&scene, &target, Some(Color::rgb(0.5, 0.5, 0.5)))
        .unwrap();
    let img = r.read_pixels(&target).unwrap();
    probe(&img, 12, 12, [0, 0, 0, 255], 1);
    probe(&img, 36, 12, [0, 0, 255, 255], 1);
    // Uniforms change every frame without creating anything (once `b`, which does not change, has its result
    // kept and `a`, which does, has left its own: the frames before may create a texture and a bind group).
    let amounts = [1.0f32, 1.0, 1.0, 1.0, 0.0, 0.5, 1.0, 0.25, 0.75];
    for (k, amount) in amounts.into_iter().enumerate() {
        if let Effect::Custom(c) = &mut scene.filters_mut(a).unwrap()[0].effect {
            c.uniforms = amount.to_le_bytes().to_vec();
        }
        r.wait_idle().unwrap();
        r.render(&scene, &target, Some(Color::rgb(0.5, 0.5, 0.5)))
            .unwrap();
        let s = r.stats().last_frame;
        if k >= 6 {
            assert_eq!(
                (
                    s.pipelines_created,
                    s.bind_groups_created,
                    s.textures_created,
                    s.buffers_created
                ),
                (0, 0, 0, 0)
            );
            assert_eq!(s.filter_groups_reused, 1, "b is drawn from its kept result");
        }
        let img = r.read_pixels(&target).unwrap();
        let want = (255.0 * (1.0 - amount)).round() as u8;
        probe(&img, 12, 12, [want, want, want, 255], 1);
        probe(&img, 36, 12, [0, 0, 255, 255], 1);
    }
}

#[test]
fn custom_filter_shaders_that_cannot_run_are_errors_with_their_line() {
    let mut r = renderer();
    let cases = [
        // Does not parse: line 2.
        ("@fragment\nfn mainFragment(in: VSOutput) -> @location(0) vec4<f32> { return 1.0 }", Some(2)),
        // Does not validate (a vec4 from a float).
        (
            "@fragment fn mainFragment(in: VSOutput) -> @location(0) vec4<f32> {\n  let x: vec4<f32> = 1.0;\n  return x;\n}",
            None,
        ),
        // No entry point.
        ("fn helper() -> f32 { return 1.0; }", None),
        // A binding the prelude does not have.
        (
            "@group(2) @binding(0) var<uniform> u: vec4<f32>;\n@fragment fn mainFragment(in: VSOutput) -> @location(0) vec4<f32> { return u; }",
            Some(1),
        ),
        // A sampler where a texture goes.
        (
            "@group(1) @binding(1) var s: sampler;\n@fragment fn mainFragment(in: VSOutput) -> @location(0) vec4<f32> { return textureSample(uTexture, s, in.uv); }",
            Some(1),
        ),
        // The prelude's group redeclared.
        (
            "\n\n@group(0) @binding(7) var t: texture_2d<f32>;\n@fragment fn mainFragment(in: VSOutput) -> @location(0) vec4<f32> { return vec4<f32>(1.0); }",
            Some(3),
        ),
    ];
    for (i, (src, line)) in cases.iter().enumerate() {
        match r.create_filter_shader(src) {
            Err(stage2d::Error::FilterShader { line: got, message }) => {
                assert!(!message.is_empty());
                if line.is_some() {
                    assert_eq!(got, *line, "case {i}: {message}");
                }
            }
            other => panic!("case {i}: {other:?}"),
        }
    }
    // The renderer still draws.
    let mut scene = Scene::new();
    white_square(&mut scene, 0.0, 0.0, 8.0);
    let img = render_black(&mut r, &scene, 8, 8);
    probe(&img, 4, 4, [255, 255, 255, 255], 0);
}

#[test]
fn bad_filter_settings_are_skipped_counted_and_the_rest_draws() {
    let mut r = renderer_with_msaa(false);
    let mut other = renderer_with_msaa(false);
    let foreign = other.create_filter_shader(INVERT).unwrap();
    let invert = r.create_filter_shader(INVERT).unwrap();
    let mut scene = Scene::new();
    let bad: Vec<Vec<Filter>> = vec![
        vec![Filter::blur(f32::NAN)],
        vec![Filter::alpha(f32::INFINITY)],
        vec![Filter::custom(invert, &[1, 2], &[])], // uniforms of the wrong size
        vec![Filter::custom(foreign, &1.0f32.to_le_bytes(), &[])],
        vec![Filter::blur(5.0)
            .with_resolution(f32::NAN)
            .with_padding(f32::NAN)],
    ];
    // Huge and zero-sized filtered nodes (the huge one's blur reaches everywhere: drawn first, below), and a
    // filter on a mask.
    let huge = scene
        .add(
            scene.root(),
            Node::graphics(Arc::new(rect(0.0, 0.0, 100_000.0, 100_000.0, 0x00ff00))).at(0.0, 20.0),
        )
        .unwrap();
    scene
        .set_filters(huge, vec![Filter::blur(1e9).with_clip_to_viewport(false)])
        .unwrap();
    let count = bad.len();
    for (i, filters) in bad.into_iter().enumerate() {
        let n = white_square(&mut scene, i as f32 * 10.0, 0.0, 8.0);
        scene.set_filters(n, filters).unwrap();
    }
    let empty = scene.add(scene.root(), Node::container()).unwrap();
    scene.set_filters(empty, vec![Filter::blur(4.0)]).unwrap();
    let mask = scene.add_detached(Node::graphics(Arc::new(rect(
        60.0, 0.0, 4.0, 4.0, 0xffffff,
    ))));
    scene.set_filters(mask, vec![Filter::blur(2.0)]).unwrap();
    let masked = white_square(&mut scene, 60.0, 0.0, 8.0);
    scene.set_mask(masked, mask, false).unwrap();
    let t = std::time::Instant::now();
    let img = render_black(&mut r, &scene, 80, 40);
    assert!(t.elapsed().as_secs_f32() < 5.0, "{:?}", t.elapsed());
    let s = r.stats().last_frame;
    assert!(s.filters_skipped >= count as u64, "{s:?}");
    assert_eq!(s.nodes_skipped, 0);
    // Each of the bad ones still draws (unfiltered), and so does the masked square (4x4). A resolution and
    // padding that are not numbers fall back to the target's and the effect's: that blur runs.
    for i in 0..count as u32 - 1 {
        probe(&img, i * 10 + 4, 4, [255, 255, 255, 255], 0);
    }
    assert!(px(&img, 44, 4)[0] > 60, "the blurred square");
    probe(&img, 61, 1, [255, 255, 255, 255], 0);
    assert_ne!(px(&img, 66, 6), [255, 255, 255, 255], "outside the mask");
    // The huge node, filtered at a lower resolution: near its corner a blur that wide leaves about a quarter.
    let g = px(&img, 40, 30)[1];
    assert!((30..120).contains(&g), "the huge node: {g}");
    // A filter area that is not finite is an error at the call.
    assert!(scene
        .set_filter_area(
            huge,
            Some(stage2d::Rect {
                min: glam_vec(0.0, 0.0),
                max: glam_vec(f32::NAN, 1.0)
            })
        )
        .is_err());
}

#[test]
fn sixty_four_nested_filtered_nodes_draw_within_a_second_and_deeper_ones_unfiltered() {
    let mut r = renderer_with_msaa(false);
    let mut scene = Scene::new();
    let mut parent = scene.root();
    for _ in 0..70 {
        parent = scene.add(parent, Node::container()).unwrap();
        scene
            .set_filters(parent, vec![Filter::alpha(0.99)])
            .unwrap();
    }
    scene
        .add(
            parent,
            Node::graphics(Arc::new(rect(2.0, 2.0, 12.0, 12.0, 0xffffff))),
        )
        .unwrap();
    white_square(&mut scene, 20.0, 2.0, 8.0);
    let t = std::time::Instant::now();
    let img = render_black(&mut r, &scene, 32, 16);
    assert!(t.elapsed().as_secs_f32() < 2.0, "{:?}", t.elapsed());
    let s = r.stats().last_frame;
    assert_eq!(s.filtered_nodes, 64);
    assert_eq!(s.filters_skipped, 6);
    let v = px(&img, 8, 8)[0];
    assert!((120..=140).contains(&v), "0.99^64 of white: {v}");
    probe(&img, 24, 6, [255, 255, 255, 255], 0);
}

#[test]
fn filters_work_in_embedded_frames_render_textures_masks_and_render_groups() {
    let mut r = renderer_with_msaa(false);
    let mut scene = Scene::new();
    // Inside a stencil mask (a circle), a filtered square.
    let mut circle = GraphicsContext::new();
    circle.circle(16.0, 16.0, 12.0).fill(Color::WHITE);
    let mask = scene.add_detached(Node::graphics(Arc::new(circle)));
    let holder = scene.add(scene.root(), Node::container()).unwrap();
    scene.set_mask(holder, mask, false).unwrap();
    let inner = scene
        .add(
            holder,
            Node::graphics(Arc::new(rect(0.0, 0.0, 32.0, 32.0, 0xff0000))),
        )
        .unwrap();
    let mut neg = ColorMatrix::default();
    neg.negative(false);
    scene
        .set_filters(inner, vec![Filter::color_matrix(neg)])
        .unwrap();
    // Inside a render group, a filtered square.
    let group = scene
        .add(
            scene.root(),
            Node::container().at(32.0, 0.0).as_render_group(),
        )
        .unwrap();
    let g_inner = scene
        .add(
            group,
            Node::graphics(Arc::new(rect(4.0, 4.0, 24.0, 24.0, 0x0000ff))),
        )
        .unwrap();
    scene
        .set_filters(g_inner, vec![Filter::color_matrix(neg)])
        .unwrap();
    let img = render_black(&mut r, &scene, 64, 32);
    probe(&img, 16, 16, [0, 255, 255, 255], 1); // negated red, inside the circle
    probe(&img, 1, 1, [0, 0, 0, 255], 0); // outside the circle: masked
    probe(&img, 48, 16, [255, 255, 0, 255], 1); // negated blue
                                                // The same frame embedded: prepare (the filter passes run there), record, submit.
    let target = r.create_render_target(64, 32).unwrap();
    let desc = stage2d::TargetDesc::from_view(&target.view())
        .with_depth_stencil(wgpu::TextureFormat::Depth24PlusStencil8);
    r.prepare(&scene, &desc).unwrap();
    let (device, queue) = (r.device().clone(), r.queue().clone());
    host_pass(&device, &queue, &target, 1, Color::BLACK, |pass| {
        r.record(pass, &desc).unwrap();
    });
    r.trim();
    let host = r.read_pixels(&target).unwrap();
    probe(&host, 16, 16, [0, 255, 255, 255], 1);
    probe(&host, 48, 16, [255, 255, 0, 255], 1);
    // Into a render texture with render_node.
    let rt = r.create_render_target(64, 32).unwrap();
    r.render_node(&scene, group, &rt, Some(Color::BLACK))
        .unwrap();
    let img = r.read_pixels(&rt).unwrap();
    probe(&img, 48, 16, [255, 255, 0, 255], 1);
    probe(&img, 16, 16, [0, 0, 0, 255], 0);
}

/// PixiJS `filters/filter-render-textures`: a filtered rectangle drawn into the 50x50 frame at (50, 50) of a
/// 128x128 render texture, which is then shown whole.
#[test]
fn pixijs_filter_render_textures() {
    let mut r = renderer();
    let mut holder = Scene::new();
    let n = holder.add_detached(Node::graphics(Arc::new(rect(0.0, 0.0, 50.0, 50.0, ORANGE))));
    holder.set_filters(n, vec![hue(90.0)]).unwrap();
    let rt = r.create_render_target(128, 128).unwrap();
    r.render_node_transformed(
        &holder,
        n,
        &rt,
        stage2d::glam::Affine2::from_translation(glam_vec(50.0, 50.0)),
        Some(Color::TRANSPARENT),
    )
    .unwrap();
    let mut scene = Scene::new();
    scene.add(scene.root(), Node::sprite(rt.texture())).unwrap();
    let img = render_pixijs(&mut r, &scene);
    pixijs("filter-render-textures", &img, 100);
}

/// A filtered node that stays unchanged is filtered once more into a texture of its own, then drawn from it
/// with no filter pass, in the same pixels; any change to what it draws (a tint, a move, a filter setting, the
/// pixels of a render texture it shows) runs its passes again.
#[test]
fn unchanged_filtered_nodes_are_not_filtered_again() {
    let mut r = renderer();
    let tex = bunny(&mut r);
    let rt = r.create_render_target(16, 16).unwrap();
    let mut scene = Scene::new();
    let holder = scene
        .add(scene.root(), Node::container().at(8.0, 8.0))
        .unwrap();
    let b = scene.add(holder, Node::sprite(tex)).unwrap();
    scene
        .add(holder, Node::sprite(rt.texture()).at(30.0, 0.0))
        .unwrap();
    let blur = Filter::blur;
    scene.set_filters(holder, vec![blur(4.0)]).unwrap();
    let mut rt_scene = Scene::new();
    let square = white_square(&mut rt_scene, 0.0, 0.0, 16.0);
    r.render(&rt_scene, &rt, Some(Color::BLACK)).unwrap();
    let target = r.create_render_target(80, 64).unwrap();
    let frame = |r: &mut Renderer, scene: &Scene| {
        r.render(scene, &target, Some(Color::BLACK)).unwrap();
        let s = r.stats().last_frame;
        (
            s.filter_passes,
            s.filter_groups_reused,
            r.read_pixels(&target).unwrap(),
        )
    };
    let (passes, reused, first) = frame(&mut r, &scene);
    assert!(passes > 0 && reused == 0);
    let mut steady = None;
    for k in 1..5 {
        let (passes, reused, img) = frame(&mut r, &scene);
        let (diff, _) = pixelmatch(&first, &img, 0.0);
        assert!(diff <= 4, "frame {k}: {diff} pixels differ from the first");
        if reused == 1 {
            assert_eq!(passes, 0, "frame {k}");
            steady = Some(k);
        }
    }
    let steady = steady.expect("an unchanged blurred node is drawn from its kept result");
    assert!(steady <= 4, "kept after {steady} frames");
    let s = r.stats().last_frame;
    assert_eq!(
        (
            s.textures_created,
            s.bind_groups_created,
            s.pipelines_created
        ),
        (0, 0, 0)
    );

    // After a change: filtered again at once, drawn straight into the target while it settles, then kept; every
    // frame shows the same pixels.
    let settle = |r: &mut Renderer, scene: &Scene, what: &str| {
        let frame = |r: &mut Renderer| {
            r.render(scene, &target, Some(Color::BLACK)).unwrap();
            let s = r.stats().last_frame;
            (
                s.filter_passes,
                s.filter_groups_reused,
                r.read_pixels(&target).unwrap(),
            )
        };
        let frames: Vec<_> = (0..6).map(|_| frame(r)).collect();
        assert!(
            frames[0].0 > 0 && frames[0].1 == 0,
            "{what}: filtered again"
        );
        assert_eq!(
            (frames[5].0, frames[5].1),
            (0, 1),
            "{what}: kept again once unchanged"
        );
        for (k, f) in frames.iter().enumerate() {
            let (diff, _) = pixelmatch(&f.2, &frames[1].2, 0.1);
            assert!(
                diff <= 8,
                "{what}: frame {k} differs from the filtered one in {diff} pixels"
            );
        }
        frames[5].2.clone()
    };
    scene.get_mut(b).unwrap().tint = Color::hex(0xff0000);
    let tinted = settle(&mut r, &scene, "a tint below");
    assert!(
        px(&tinted, 20, 20)[1] < px(&first, 20, 20)[1],
        "the tint shows"
    );
    scene.transform_mut(holder).unwrap().position.x += 3.0;
    settle(&mut r, &scene, "a move");
    scene.filters_mut(holder).unwrap()[0] = blur(1.0);
    settle(&mut r, &scene, "a filter setting");
    // The render texture it shows is drawn again, with other pixels.
    rt_scene.get_mut(square).unwrap().tint = Color::hex(0x00ff00);
    r.render(&rt_scene, &rt, Some(Color::BLACK)).unwrap();
    r.render(&scene, &target, Some(Color::BLACK)).unwrap();
    let s = r.stats().last_frame;
    assert!(s.filter_passes > 0, "a render texture it shows changed");
    let img = r.read_pixels(&target).unwrap();
    let p = px(&img, 8 + 30 + 8, 8 + 8);
    assert!(
        p[1] > 100 && p[0] < 60,
        "the new render texture shows: {p:?}"
    );
}

/// One step of [`kept_results_equal_filtering_again`].
#[derive(Clone, Debug)]
enum Step {
    Nothing,
    Tint(usize, u32),
    Move(usize, i8),
    Strength(usize, u8),
    Filters(usize, bool),
}

fn step() -> impl proptest::strategy::Strategy<Value = Step> {
    use proptest::prelude::*;
    prop_oneof![
        4 => Just(Step::Nothing),
        2 => (0..3usize, any::<u32>()).prop_map(|(n, c)| Step::Tint(n, c)),
        2 => (0..3usize, -3i8..4).prop_map(|(n, d)| Step::Move(n, d)),
        1 => (0..3usize, 0u8..6).prop_map(|(n, s)| Step::Strength(n, s)),
        1 => (0..3usize, any::<bool>()).prop_map(|(n, on)| Step::Filters(n, on)),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 12, ..Default::default() })]
    /// Frames drawn from kept filter results show what filtering again shows: one renderer draws every step
    /// (keeping results while nothing changes), another with kept results off draws it too, and their pictures
    /// agree.
    #[test]
    fn kept_results_equal_filtering_again(steps in proptest::collection::vec(step(), 1..14)) {
        let mut a = renderer();
        let mut b = Renderer::new_headless(
            stage2d::RendererOptions::default()
                .with_msaa(test_msaa())
                .with_kept_filter_results(false),
        )
        .unwrap();
        let mut scene = Scene::new();
        // Two filtered squares, the second holding a third, itself filtered (nested).
        let n0 = white_square(&mut scene, 4.0, 4.0, 10.0);
        let n1 = white_square(&mut scene, 20.0, 6.0, 14.0);
        let n2 = scene
            .add(n1, Node::graphics(Arc::new(rect(2.0, 2.0, 6.0, 6.0, 0x00ff00))))
            .unwrap();
        let nodes = [n0, n1, n2];
        for (i, &n) in nodes.iter().enumerate() {
            scene.set_filters(n, vec![Filter::blur(1.0 + i as f32)]).unwrap();
        }
        let target_a = a.create_render_target(40, 24).unwrap();
        let target_b = b.create_render_target(40, 24).unwrap();
        let mut kept = 0;
        // Four frames of nothing first, eight after (a nested filtered node settles a few frames after the one
        // inside it).
        let settle = std::iter::repeat_n(Step::Nothing, 4);
        let end = std::iter::repeat_n(Step::Nothing, 8);
        let steps = steps.iter().flat_map(|s| [s.clone(), Step::Nothing, Step::Nothing]);
        for s in settle.chain(steps).chain(end) {
            match s {
                Step::Nothing => {}
                Step::Tint(n, c) => scene.get_mut(nodes[n]).unwrap().tint = Color::hex(c & 0xffffff),
                Step::Move(n, d) => scene.transform_mut(nodes[n]).unwrap().position.x += d as f32,
                Step::Strength(n, s) => {
                    if let Some(f) = scene.filters_mut(nodes[n]).and_then(|f| f.first_mut()) {
                        *f = Filter::blur(s as f32);
                    }
                }
                Step::Filters(n, on) => {
                    let f = if on { vec![Filter::blur(2.0)] } else { Vec::new() };
                    scene.set_filters(nodes[n], f).unwrap();
                }
            }
            a.render(&scene, &target_a, Some(Color::BLACK)).unwrap();
            kept += a.stats().last_frame.filter_groups_reused;
            b.render(&scene, &target_b, Some(Color::BLACK)).unwrap();
            proptest::prop_assert_eq!(b.stats().last_frame.filter_groups_reused, 0);
            let (img_a, img_b) = (a.read_pixels(&target_a).unwrap(), b.read_pixels(&target_b).unwrap());
            let (diff, _) = pixelmatch(&img_a, &img_b, 0.1);
            proptest::prop_assert!(diff <= 6, "{} pixels differ after {:?}", diff, s);
        }
        // Some results were kept, and after eight unchanged frames every filtered node is drawn from its own.
        proptest::prop_assert!(kept > 0);
        proptest::prop_assert_eq!(a.stats().last_frame.filter_passes, 0);
    }
}

/// The fragment stage of PixiJS's `clip-top-viewport/circle.wgsl` (its vertex stage is PixiJS's default filter
/// vertex, which stage2d's prelude has): the input turned 45 degrees inside 32 texture pixels of its centre.
const CIRCLE: &str = "
const center: vec2<f32> = vec2(0.5);
const angleToRotate: f32 = 45.0 * (3.14159265 / 180.0);

fn mapCoord(coord: vec2<f32>) -> vec2<f32> {
    var mappedCoord: vec2<f32> = coord;
    mappedCoord *= gfu.uInputSize.xy;
    mappedCoord += gfu.uOutputFrame.xy;
    return mappedCoord;
}

fn unmapCoord(coord: vec2<f32>) -> vec2<f32> {
    var mappedCoord: vec2<f32> = coord;
    mappedCoord -= gfu.uOutputFrame.xy;
    mappedCoord /= gfu.uInputSize.xy;
    return mappedCoord;
}

@fragment
fn mainFragment(in: VSOutput) -> @location(0) vec4<f32> {
    var centerInPx: vec2<f32> = mapCoord(center);
    var coord: vec2<f32> = mapCoord(in.uv);
    coord -= centerInPx;
    var radius: f32 = length(coord);
    var angle: f32 = atan2(coord.y, coord.x) + angleToRotate;
    var rotatedPoint: vec2<f32> = coord;
    if (radius < 32.0) {
        rotatedPoint = vec2(cos(angle), sin(angle)) * radius;
    }
    rotatedPoint += centerInPx;
    rotatedPoint = unmapCoord(rotatedPoint);
    return textureSample(uTexture, uSampler, rotatedPoint);
}
";

/// PixiJS's `clip-to-viewport` and `do-not-clip-to-viewport` scenes: a 128x128 chessboard at x = -64 under a
/// custom filter that swirls a circle at its input's centre; clipped to the viewport (at resolution 2) the input
/// is the visible half, unclipped it is the whole sprite, half of it off-screen.
#[test]
fn pixijs_clip_to_viewport() {
    for (name, clip) in [
        ("clip-to-viewport", true),
        ("do-not-clip-to-viewport", false),
    ] {
        let mut r = renderer();
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/pixijs/chessboard.png");
        let board = r.load_texture(path, Sampling::LINEAR).unwrap();
        let circle = r.create_filter_shader(CIRCLE).unwrap();
        let mut scene = Scene::new();
        let s = scene
            .add(scene.root(), Node::sprite(board).at(-64.0, 0.0))
            .unwrap();
        let mut f = Filter::custom(circle, &[], &[]);
        f.clip_to_viewport = clip;
        if clip {
            f = f.with_resolution(2.0);
        }
        scene.set_filters(s, vec![f]).unwrap();
        let img = render_pixijs(&mut r, &scene);
        pixijs(name, &img, 100);
    }
}
