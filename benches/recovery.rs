//! The cost of a lost GPU device: from the loss to the first good frame on a new device (`Renderer::recover`, then
//! one frame drawn and waited for), against starting afresh (a new renderer, the same textures loaded from their
//! files again, the first frame), for a scene of 1,000 bunnies on 12 textures, sheet frames, text, shapes, a
//! blurred node and a render texture, with `--extra-mb M` megabytes of further textures kept (1024x1024 each).
//! Prints one JSON line: kept bytes, the medians and ranges of both, and the ratio.
//!
//! `cargo bench --bench recovery -- [--losses N] [--extra-mb M]`

#[path = "../examples/common/mod.rs"]
mod common;

use common::Rng;
use stage2d::{
    Assets, Color, Filter, Font, GraphicsContext, Node, RenderTarget, Renderer, RendererOptions,
    Sampling, Scene, StrokeStyle, Text,
};
use std::time::Instant;

/// Loads the textures and builds the scene; returns it with its target.
fn world(r: &mut Renderer, extra_mb: usize) -> (Scene, RenderTarget, Assets, RenderTarget) {
    let mut scene = Scene::new();
    let root = scene.root();
    let textures: Vec<_> = (0..12)
        .map(|i| {
            r.load_texture(common::asset(&format!("bunny{i}.png")), Sampling::NEAREST)
                .unwrap()
        })
        .collect();
    let mut rng = Rng(0x5eed_1234_5678_9abc);
    for i in 0..1000 {
        let node = Node::sprite(textures[i % 12]).at(rng.next() * 760.0, rng.next() * 560.0);
        scene.add(root, node).unwrap();
    }
    let mut assets = Assets::new();
    let sheet = assets
        .load_spritesheet(r, common::asset("critters.json"), Sampling::NEAREST)
        .unwrap();
    for (i, name) in sheet.frame_names().take(4).enumerate() {
        let frame = sheet.frame(name).unwrap();
        scene
            .add(root, Node::sprite(frame).at(40.0 * i as f32, 500.0))
            .unwrap();
    }
    let font = Font::load(common::asset("DejaVuSans.ttf")).unwrap();
    scene
        .add(
            root,
            Node::text(Text::new("a lost device", &font, 24.0)).at(8.0, 8.0),
        )
        .unwrap();
    let mut g = GraphicsContext::new();
    g.circle(400.0, 300.0, 80.0)
        .fill(Color::hex(0xe74c3c))
        .stroke(StrokeStyle::new(4.0, Color::WHITE));
    scene.add(root, Node::graphics(g)).unwrap();
    let blurred = scene
        .add(root, Node::sprite(textures[0]).at(600.0, 40.0).scaled(3.0))
        .unwrap();
    scene.set_filters(blurred, vec![Filter::blur(4.0)]).unwrap();
    let rt = r.create_render_target(64, 64).unwrap();
    scene
        .add(root, Node::sprite(rt.texture()).at(700.0, 500.0))
        .unwrap();
    // Further textures, kept for recovery (made from pixels, as a decoded file is).
    let side = 1024u32;
    let pixels: Vec<u8> = (0..side * side * 4).map(|i| (i % 251) as u8).collect();
    for k in 0..extra_mb / 4 {
        let t = r
            .create_texture(side, side, &pixels, Sampling::LINEAR)
            .unwrap();
        scene
            .add(
                root,
                Node::sprite(t).sized(8.0, 8.0).at(8.0 * k as f32, 590.0),
            )
            .unwrap();
    }
    let target = r.create_render_target(800, 600).unwrap();
    r.render_node(&scene, blurred, &rt, Some(Color::TRANSPARENT))
        .unwrap();
    (scene, target, assets, rt)
}

fn first_frame(r: &mut Renderer, scene: &Scene, target: &RenderTarget) {
    r.render(scene, target, Some(Color::hex(0x1099bb))).unwrap();
    r.wait_idle().unwrap();
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let flags = common::Flags::from_env();
    let losses: usize = flags.num("--losses", 5);
    let extra_mb: usize = flags.num("--extra-mb", 64);
    let mut r = Renderer::new_headless(RendererOptions::default()).expect("a renderer");
    let info = r.adapter_info();
    let (scene, target, _assets, _rt) = world(&mut r, extra_mb);
    first_frame(&mut r, &scene, &target);
    let kept = r.stats().live.kept_texture_bytes;
    let (mut recover, mut fresh) = (Vec::new(), Vec::new());
    for _ in 0..losses {
        r.device().destroy();
        for _ in 0..4 {
            if r.notice_device_loss() {
                break;
            }
            let _ = r.wait_idle();
        }
        assert!(r.is_device_lost());
        let t0 = Instant::now();
        r.recover().unwrap();
        first_frame(&mut r, &scene, &target);
        recover.push(t0.elapsed().as_secs_f64() * 1e3);
        // Starting afresh instead: a new renderer, every texture loaded again, the first frame.
        let t0 = Instant::now();
        let mut other = Renderer::new_headless(RendererOptions::default()).unwrap();
        let (s, t, _a, _rt) = world(&mut other, extra_mb);
        first_frame(&mut other, &s, &t);
        fresh.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    let (rmin, rmax) = (
        recover.iter().cloned().fold(f64::MAX, f64::min),
        recover.iter().cloned().fold(0.0, f64::max),
    );
    let (fmin, fmax) = (
        fresh.iter().cloned().fold(f64::MAX, f64::min),
        fresh.iter().cloned().fold(0.0, f64::max),
    );
    let (rm, fm) = (median(&mut recover), median(&mut fresh));
    println!(
        "{{\"bench\":\"recovery\",\"adapter\":\"{}\",\"backend\":\"{:?}\",\"losses\":{losses},\"kept_texture_bytes\":{kept},\"recover_to_first_frame_ms\":{{\"median\":{rm:.1},\"min\":{rmin:.1},\"max\":{rmax:.1}}},\"fresh_start_ms\":{{\"median\":{fm:.1},\"min\":{fmin:.1},\"max\":{fmax:.1}}},\"ratio\":{:.2}}}",
        info.name,
        info.backend,
        rm / fm
    );
}
