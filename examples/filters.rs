//! Filters and effects: each built-in filter on its own panel, a custom WGSL filter, an alpha mask, three advanced
//! blend modes, and filters animated every frame.
//!
//! `cargo run --release --example filters` opens a window; `-- --headless --out filters.png` (or no display)
//! writes the picture after `--frames F` steps (default 60).
//!
//! `-- --headless --bench [--frames F] [--warmup W] [--sprites N]` prints one JSON line per scene instead:
//! 1,000 bunnies under one blur and colour matrix, 1,000 bunnies each with its own glow (packed: a handful of
//! passes), and a 1920x1080 full-screen blur (strength 8, quality 4), filtered every frame (kept results off, as
//! PixiJS) and then with results kept (the default: the unchanged picture runs no pass); each with CPU ms, GPU ms (timestamps,
//! where the adapter has them), draws, passes, render-target and `pipe_cache` switches, objects created after
//! warm-up, and the same sprites drawn unfiltered in the same run.

mod common;
use stage2d::glam::Vec2;
use stage2d::{
    BlendMode, Blur, Color, ColorMatrix, DropShadow, Effect, Filter, Glow, GraphicsContext,
    MaskChannel, Node, NodeId, Renderer, RendererOptions, Sampling, Scene, Texture,
};
use std::time::Instant;

/// A custom filter: concentric ripples moving outwards from the middle of the filtered area.
const RIPPLE: &str = "
struct Ripple { time: f32, amplitude: f32 };
@group(1) @binding(0) var<uniform> ripple: Ripple;
@fragment fn mainFragment(in: VSOutput) -> @location(0) vec4<f32> {
    let size = gfu.uOutputFrame.zw;
    let p = filterToPixel(in.uv) - size * 0.5;
    let d = length(p);
    let offset = normalize(p + vec2<f32>(1e-4)) * sin(d * 0.15 - ripple.time * 4.0) * ripple.amplitude;
    return sampleInput(pixelToFilter(filterToPixel(in.uv) + offset));
}";

/// A soft round mask: opaque in the middle, fading to nothing at the edge.
fn soft_circle(r: &mut Renderer) -> stage2d::Result<Texture> {
    let mut img = stage2d::image::RgbaImage::new(64, 64);
    for (x, y, p) in img.enumerate_pixels_mut() {
        let d = Vec2::new(x as f32 - 31.5, y as f32 - 31.5).length() / 32.0;
        let a = ((1.0 - d) * 2.0).clamp(0.0, 1.0);
        let v = (a * 255.0) as u8;
        *p = stage2d::image::Rgba([v, v, v, v]);
    }
    r.texture_from_image(&img, Sampling::LINEAR)
}

/// A wavy displacement map: red and green vary smoothly.
fn wave_map(r: &mut Renderer) -> stage2d::Result<Texture> {
    let mut img = stage2d::image::RgbaImage::new(64, 64);
    for (x, y, p) in img.enumerate_pixels_mut() {
        let (fx, fy) = (
            x as f32 / 64.0 * std::f32::consts::TAU,
            y as f32 / 64.0 * std::f32::consts::TAU,
        );
        let red = 128.0 + 127.0 * (fy * 2.0).sin();
        let green = 128.0 + 127.0 * (fx * 2.0).cos();
        *p = stage2d::image::Rgba([red as u8, green as u8, 128, 255]);
    }
    r.texture_from_image(&img, Sampling::LINEAR.repeat())
}

pub struct FiltersScene {
    scene: Scene,
    animated: Vec<NodeId>,
    ripple: NodeId,
    map: NodeId,
    t: f32,
}

impl FiltersScene {
    pub fn new(r: &mut Renderer) -> stage2d::Result<FiltersScene> {
        let bunnies: Vec<_> = (0..4)
            .map(|i| r.load_texture(common::asset(&format!("bunny{i}.png")), Sampling::LINEAR))
            .collect::<stage2d::Result<_>>()?;
        let map_texture = wave_map(r)?;
        let soft = soft_circle(r)?;
        let ripple_shader = r.create_filter_shader(RIPPLE)?;
        let mut scene = Scene::new();
        let root = scene.root();
        // One panel per filter: a shape and a few bunnies, 4 columns by 3 rows.
        let panel =
            |scene: &mut Scene, i: usize, filters: Vec<Filter>| -> stage2d::Result<NodeId> {
                let (col, row) = ((i % 4) as f32, (i / 4) as f32);
                let p = scene.add(
                    root,
                    Node::container().at(20.0 + col * 195.0, 20.0 + row * 195.0),
                )?;
                let mut g = GraphicsContext::new();
                g.round_rect(0.0, 0.0, 150.0, 150.0, 16.0)
                    .fill(Color::hex([0xe74c3c, 0x3498db, 0x2ecc71, 0xf1c40f][i % 4]));
                g.circle(75.0, 75.0, 40.0).fill(Color::hex(0xffffff));
                scene.add(p, Node::graphics(g).at(10.0, 10.0))?;
                for k in 0..3 {
                    scene.add(
                        p,
                        Node::sprite(bunnies[(i + k) % 4])
                            .anchor(0.5, 1.0)
                            .at(45.0 + k as f32 * 40.0, 120.0),
                    )?;
                }
                scene.set_filters(p, filters)?;
                Ok(p)
            };
        let mut sepia = ColorMatrix::default();
        sepia.sepia(false);
        let mut hue = ColorMatrix::default();
        hue.hue(120.0, false);
        let map = scene.add_detached(Node::sprite(map_texture).sized(170.0, 170.0));
        let panels = vec![
            vec![Filter::alpha(0.5)],
            vec![Filter::blur(4.0)],
            vec![Filter::color_matrix(sepia)],
            vec![Filter::color_matrix(hue)],
            vec![Filter::displacement(map, 12.0).with_padding(12.0)],
            vec![Filter::noise(0.4, 0.7)],
            vec![Filter::drop_shadow(DropShadow {
                offset: Vec2::new(8.0, 8.0),
                blur: 3.0,
                ..DropShadow::default()
            })],
            vec![Filter::glow(Glow {
                color: Color::hex(0xffee88),
                distance: 12.0,
                outer_strength: 3.0,
                ..Glow::default()
            })],
            vec![Filter::outline(4.0, Color::hex(0x222222))],
            vec![Filter::custom(ripple_shader, &[0u8; 8], &[])],
            vec![Filter::blur(2.0), {
                let mut m = ColorMatrix::default();
                m.negative(false);
                Filter::color_matrix(m)
            }],
            vec![Filter::blur_with(Blur {
                strength_y: 0.0,
                ..Blur::new(8.0)
            })],
        ];
        let mut ids = Vec::new();
        for (i, f) in panels.into_iter().enumerate() {
            ids.push(panel(&mut scene, i, f)?);
        }
        // An alpha mask: the panel seen through a soft circle's alpha.
        let masked = panel(&mut scene, 12, vec![])?;
        let mask = scene.add(masked, Node::sprite(soft).sized(150.0, 150.0).at(0.0, 10.0))?;
        scene.set_alpha_mask(masked, mask, MaskChannel::Alpha, false)?;
        // Three advanced blend modes: rainbow bars over two panels, each combined with what lies under it.
        let overlay = panel(&mut scene, 13, vec![])?;
        let two = panel(&mut scene, 14, vec![])?;
        let bar = || {
            let mut bar = GraphicsContext::new();
            let colors = [0xff0000, 0xffa500, 0xffff00, 0x00ff00, 0x0000ff, 0x8000ff];
            for (j, c) in colors.iter().enumerate() {
                bar.rect(j as f32 * 22.0, 0.0, 22.0, 44.0)
                    .fill(Color::hex(*c));
            }
            bar
        };
        scene.add(
            overlay,
            Node::graphics(bar())
                .at(8.0, 60.0)
                .blended(BlendMode::Overlay),
        )?;
        scene.add(
            two,
            Node::graphics(bar())
                .at(8.0, 20.0)
                .blended(BlendMode::Difference),
        )?;
        scene.add(
            two,
            Node::graphics(bar())
                .at(8.0, 100.0)
                .blended(BlendMode::ColorDodge),
        )?;
        Ok(FiltersScene {
            scene,
            animated: vec![ids[1], ids[7]],
            ripple: ids[9],
            map,
            t: 0.0,
        })
    }

    pub fn update(&mut self, dt: f32) {
        self.t += dt;
        let t = self.t;
        if let Some(f) = self.scene.filters_mut(self.animated[0]) {
            if let Effect::Blur(b) = &mut f[0].effect {
                b.strength_x = 4.0 + 3.0 * (t * 2.0).sin();
                b.strength_y = b.strength_x;
            }
        }
        if let Some(f) = self.scene.filters_mut(self.animated[1]) {
            if let Effect::Glow(g) = &mut f[0].effect {
                g.outer_strength = 2.0 + 1.5 * (t * 3.0).sin();
            }
        }
        if let Some(f) = self.scene.filters_mut(self.ripple) {
            if let Effect::Custom(c) = &mut f[0].effect {
                let mut bytes = t.to_le_bytes().to_vec();
                bytes.extend_from_slice(&3.0f32.to_le_bytes());
                c.uniforms = bytes;
            }
        }
        if let Some(m) = self.scene.transform_mut(self.map) {
            m.position = Vec2::new((t * 30.0) % 170.0, 0.0);
        }
    }
}

impl common::Demo for FiltersScene {
    fn build(renderer: &mut Renderer) -> stage2d::Result<Self> {
        FiltersScene::new(renderer)
    }
    fn scene(&self) -> &Scene {
        &self.scene
    }
    fn update(&mut self, _renderer: &mut Renderer, dt: f32) {
        FiltersScene::update(self, dt);
    }
}

/// One benchmark scene's figures.
struct Figures {
    cpu: common::Samples,
    gpu: common::Samples,
    created: u64,
    per_frame: stage2d::FrameStats,
}

/// Renders `scene` `warmup` then `frames` times into `target`, waiting for the GPU each frame.
fn measure(
    r: &mut Renderer,
    scene: &mut Scene,
    target: &stage2d::RenderTarget,
    warmup: u64,
    frames: u64,
    mut step: impl FnMut(&mut Scene, u64),
) -> stage2d::Result<Figures> {
    let clear = Some(Color::hex(0x1099bb));
    for i in 0..warmup.max(2) {
        step(scene, i);
        r.render(scene, target, clear)?;
        r.wait_idle()?;
    }
    let before = r.stats().total;
    let (mut cpu, mut gpu) = (common::Samples::default(), common::Samples::default());
    for i in 0..frames {
        let t0 = Instant::now();
        step(scene, i);
        r.render(scene, target, clear)?;
        cpu.push_since(t0);
        r.wait_idle()?;
        if let Some(ms) = r.stats().gpu_ms {
            gpu.push(f64::from(ms));
        }
    }
    let after = r.stats().total;
    let d = |a: u64, b: u64| (a - b) / frames.max(1);
    let per_frame = {
        let mut f = stage2d::FrameStats::default();
        f.draw_calls = d(after.draw_calls, before.draw_calls);
        f.filter_passes = d(after.filter_passes, before.filter_passes);
        f.filter_groups = d(after.filter_groups, before.filter_groups);
        f.filtered_nodes = d(after.filtered_nodes, before.filtered_nodes);
        f.target_switches = d(after.target_switches, before.target_switches);
        f.pipe_cache_switches = d(after.pipe_cache_switches, before.pipe_cache_switches);
        f.render_passes = d(after.render_passes, before.render_passes);
        f
    };
    let created = (after.textures_created - before.textures_created)
        + (after.buffers_created - before.buffers_created)
        + (after.bind_groups_created - before.bind_groups_created)
        + (after.pipelines_created - before.pipelines_created);
    Ok(Figures {
        cpu,
        gpu,
        created,
        per_frame,
    })
}

fn ms(s: &common::Samples) -> String {
    match s.is_empty() {
        true => "null".into(),
        false => format!("{:.4}", s.median()),
    }
}

fn report(name: &str, r: &Renderer, sprites: usize, f: &Figures, plain: Option<&Figures>) {
    let p = &f.per_frame;
    let (plain_cpu, plain_gpu) = match plain {
        Some(p) => (ms(&p.cpu), ms(&p.gpu)),
        None => ("null".into(), "null".into()),
    };
    println!(
        "{{\"scene\":\"{name}\",\"adapter\":\"{}\",\"sprites\":{sprites},\"cpu_ms_median\":{},\"gpu_ms_median\":{},\"unfiltered_cpu_ms_median\":{plain_cpu},\"unfiltered_gpu_ms_median\":{plain_gpu},\"draw_calls_per_frame\":{},\"filter_passes_per_frame\":{},\"filter_groups_per_frame\":{},\"filtered_nodes_per_frame\":{},\"render_passes_per_frame\":{},\"target_switches_per_frame\":{},\"pipe_cache_switches_per_frame\":{},\"objects_created_after_warmup\":{}}}",
        r.adapter_info().name.replace('"', "'"),
        ms(&f.cpu),
        ms(&f.gpu),
        p.draw_calls,
        p.filter_passes,
        p.filter_groups,
        p.filtered_nodes,
        p.render_passes,
        p.target_switches,
        p.pipe_cache_switches,
        f.created,
    );
}

fn bench(flags: &common::Flags) -> stage2d::Result<()> {
    let frames = flags.num("--frames", 200u64);
    let warmup = flags.num("--warmup", 20u64);
    let sprites = flags.num("--sprites", 1000usize);
    // Filtered every frame, as PixiJS and the hand-written blur do: what filters cost.
    let options = RendererOptions::default().with_gpu_timing(true);
    let mut r = Renderer::new_headless(options.clone().with_kept_filter_results(false))?;
    let bunnies: Vec<_> = (0..4)
        .map(|i| r.load_texture(common::asset(&format!("bunny{i}.png")), Sampling::LINEAR))
        .collect::<stage2d::Result<_>>()?;
    let target = r.create_render_target(800, 600)?;
    let mut rng = common::Rng(7);
    // The bunnies: `sprites` of them spread over the target, moving a little every frame.
    let build = |rng: &mut common::Rng| -> stage2d::Result<(Scene, NodeId, Vec<NodeId>)> {
        let mut scene = Scene::new();
        let holder = scene.add(scene.root(), Node::container())?;
        let mut ids = Vec::with_capacity(sprites);
        for i in 0..sprites {
            let at = Vec2::new(rng.next() * 780.0, rng.next() * 560.0 + 37.0);
            ids.push(scene.add(
                holder,
                Node::sprite(bunnies[i % 4]).anchor(0.5, 1.0).at(at.x, at.y),
            )?);
        }
        Ok((scene, holder, ids))
    };
    let wiggle = |ids: Vec<NodeId>| {
        move |scene: &mut Scene, i: u64| {
            for (k, id) in ids.iter().enumerate().step_by(7) {
                if let Some(t) = scene.transform_mut(*id) {
                    t.position.x += if (i + k as u64).is_multiple_of(2) {
                        0.5
                    } else {
                        -0.5
                    };
                }
            }
        }
    };

    // 1. One blur and colour matrix over all of them.
    let (mut scene, holder, ids) = build(&mut rng)?;
    let plain = measure(
        &mut r,
        &mut scene,
        &target,
        warmup,
        frames,
        wiggle(ids.clone()),
    )?;
    let mut grade = ColorMatrix::default();
    grade.saturate(0.5, false);
    scene.set_filters(holder, vec![Filter::blur(4.0), Filter::color_matrix(grade)])?;
    let f = measure(&mut r, &mut scene, &target, warmup, frames, wiggle(ids))?;
    report("bunnies_blur_color_matrix", &r, sprites, &f, Some(&plain));

    // 2. Each its own glow.
    let (mut scene, _, ids) = build(&mut rng)?;
    let plain = measure(
        &mut r,
        &mut scene,
        &target,
        warmup,
        frames,
        wiggle(ids.clone()),
    )?;
    for &id in &ids {
        scene.set_filters(
            id,
            vec![Filter::glow(Glow {
                distance: 6.0,
                ..Glow::default()
            })],
        )?;
    }
    let f = measure(&mut r, &mut scene, &target, warmup, frames, wiggle(ids))?;
    report("bunnies_each_glow", &r, sprites, &f, Some(&plain));

    // 3. A 1920x1080 picture under a full-screen blur (strength 8, quality 4).
    let big = r.create_render_target(1920, 1080)?;
    let picture = r.texture_from_image(&picture_pixels(), Sampling::LINEAR)?;
    let mut scene = Scene::new();
    let full = scene.add(scene.root(), Node::sprite(picture))?;
    let plain = measure(&mut r, &mut scene, &big, warmup, frames, |_, _| {})?;
    scene.set_filters(full, vec![Filter::blur_with(Blur::new(8.0))])?;
    let f = measure(&mut r, &mut scene, &big, warmup, frames, |_, _| {})?;
    report("fullscreen_blur_1920x1080", &r, 1, &f, Some(&plain));

    // 4. The same blur with results kept (the default): the picture does not change, so after the first frames
    // it is drawn from its kept result and no filter pass runs.
    let mut r = Renderer::new_headless(options)?;
    let big = r.create_render_target(1920, 1080)?;
    let picture = r.texture_from_image(&picture_pixels(), Sampling::LINEAR)?;
    let mut scene = Scene::new();
    let full = scene.add(scene.root(), Node::sprite(picture))?;
    scene.set_filters(full, vec![Filter::blur_with(Blur::new(8.0))])?;
    let kept = measure(&mut r, &mut scene, &big, warmup, frames, |_, _| {})?;
    report("fullscreen_blur_1920x1080_kept", &r, 1, &kept, Some(&plain));
    Ok(())
}

/// The full-screen picture the blur scenes draw: a checker board with gradients.
fn picture_pixels() -> stage2d::image::RgbaImage {
    let mut picture = stage2d::image::RgbaImage::new(1920, 1080);
    for (x, y, p) in picture.enumerate_pixels_mut() {
        let v = (((x / 16) + (y / 16)) % 2 * 200) as u8;
        *p = stage2d::image::Rgba([v, (x % 256) as u8, (y % 256) as u8, 255]);
    }
    picture
}

fn main() {
    let flags = common::Flags::from_env();
    if flags.has("--bench") {
        common::init_logging();
        if let Err(e) = bench(&flags) {
            eprintln!("filters: {e}");
            std::process::exit(1);
        }
        return;
    }
    let options = RendererOptions::default().with_msaa(true);
    common::show::<FiltersScene>("filters", options, Color::hex(0x1e1e2e));
}
