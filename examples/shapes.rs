//! A page of vector shapes: fills, every join and cap, curved paths, holes, shapes mixed with sprites, gradient
//! fills and strokes (linear and radial), a tiled texture pattern, an SVG document (`assets/badge.svg`), fillet,
//! chamfer and rounded shapes under a transform, pixel lines, MSAA on.
//!
//! `cargo run --release --example shapes` opens a window; `-- --headless --out shapes.png` (or no display) writes
//! the picture instead.
//! `cargo run --release --example shapes -- --headless --bench` runs the shapes benchmark instead: 10,000 small
//! static shapes plus 1,000 moving ones, filled with colours, linear gradients, radial gradients and a texture
//! pattern (alternating, twice), printing a JSON line each; then a 1 MB SVG document read into a context (ms,
//! peak memory) and drawn (CPU and frame ms), one more line.

mod common;
use common::{Flags, Samples};
use stage2d::glam::{Affine2, Vec2};
use stage2d::{
    Color, FillGradient, FillPattern, GraphicsContext, LineCap, LineJoin, Node, Renderer,
    RendererOptions, Sampling, Scene, StrokeAlignment, StrokeStyle,
};
use std::f32::consts::PI;
use std::sync::Arc;
use std::time::Instant;

fn page(renderer: &mut Renderer) -> stage2d::Result<Scene> {
    let mut scene = Scene::new();
    let root = scene.root();
    let mut g = GraphicsContext::new();
    // Fills.
    g.rect(20.0, 20.0, 80.0, 60.0).fill(Color::hex(0xe74c3c));
    g.round_rect(120.0, 20.0, 80.0, 60.0, 16.0)
        .fill(Color::hex(0x2ecc71));
    g.circle(260.0, 50.0, 32.0).fill(Color::hex(0x3498db));
    g.ellipse(360.0, 50.0, 50.0, 28.0)
        .fill(Color::hex(0xf1c40f));
    g.regular_poly(460.0, 50.0, 32.0, 6, 0.0)
        .fill(Color::hex(0x9b59b6));
    g.star(560.0, 50.0, 5, 34.0, 15.0, 0.0)
        .fill(Color::hex(0xe67e22));
    g.poly(&[
        Vec2::new(620.0, 80.0),
        Vec2::new(700.0, 80.0),
        Vec2::new(660.0, 18.0),
    ])
    .fill(Color::hex(0x1abc9c));
    // Every join and cap.
    let joins = [LineJoin::Miter, LineJoin::Round, LineJoin::Bevel];
    let caps = [LineCap::Butt, LineCap::Round, LineCap::Square];
    for (j, join) in joins.iter().enumerate() {
        for (c, cap) in caps.iter().enumerate() {
            let x = 30.0 + (j * 3 + c) as f32 * 84.0;
            g.move_to(x, 180.0)
                .line_to(x + 25.0, 120.0)
                .line_to(x + 50.0, 180.0)
                .stroke(StrokeStyle {
                    width: 12.0,
                    color: Color::hex(0xecf0f1),
                    join: *join,
                    cap: *cap,
                    ..Default::default()
                });
        }
    }
    // Curves, arcs, alignment.
    g.move_to(30.0, 300.0)
        .bezier_curve_to(90.0, 200.0, 150.0, 380.0, 220.0, 260.0)
        .stroke(StrokeStyle::new(6.0, Color::hex(0xff79c6)));
    g.move_to(250.0, 300.0)
        .quadratic_curve_to(300.0, 200.0, 350.0, 300.0)
        .stroke(StrokeStyle::new(6.0, Color::hex(0x8be9fd)));
    g.move_to(380.0, 300.0)
        .arc(430.0, 280.0, 40.0, PI, 0.0, false)
        .stroke(StrokeStyle {
            width: 8.0,
            color: Color::hex(0x50fa7b),
            cap: LineCap::Round,
            ..Default::default()
        });
    g.move_to(500.0, 220.0)
        .arc_to(600.0, 220.0, 600.0, 320.0, 30.0)
        .line_to(600.0, 320.0)
        .stroke(StrokeStyle::new(6.0, Color::hex(0xbd93f9)));
    for (i, a) in [
        StrokeAlignment::Inner,
        StrokeAlignment::Centre,
        StrokeAlignment::Outer,
    ]
    .iter()
    .enumerate()
    {
        g.rect(640.0 + i as f32 * 50.0, 230.0, 36.0, 60.0)
            .fill(Color::hex(0x34495e))
            .stroke(StrokeStyle {
                width: 8.0,
                color: Color::hex(0xf39c12),
                alignment: *a,
                ..Default::default()
            });
    }
    // Holes.
    g.rect(30.0, 360.0, 160.0, 110.0).fill(Color::hex(0xc0392b));
    g.circle(75.0, 415.0, 28.0).cut();
    g.star(145.0, 415.0, 5, 30.0, 13.0, 0.0).cut();
    g.circle(290.0, 415.0, 55.0)
        .fill(Color::hex(0x16a085))
        .stroke(StrokeStyle::new(4.0, Color::WHITE));
    g.circle(290.0, 415.0, 30.0).cut();
    scene.add(root, Node::graphics(g))?;

    // PixiJS's further builders with gradient fills and strokes, under the context's transform stack, and a
    // grid of pixel lines that stay one pixel wide at any scale.
    let sunset = FillGradient::linear(
        Vec2::ZERO,
        Vec2::Y,
        &[
            (0.0, Color::hex(0xf9d423)),
            (0.6, Color::hex(0xff4e50)),
            (1.0, Color::hex(0x8e44ad)),
        ],
    );
    let mut g = GraphicsContext::new();
    g.fillet_rect(30.0, 500.0, 80.0, 80.0, 16.0).fill(sunset);
    g.chamfer_rect(125.0, 500.0, 80.0, 80.0, 18.0)
        .fill(FillGradient::linear(
            Vec2::ZERO,
            Vec2::ONE,
            &[(0.0, Color::hex(0x1abc9c)), (1.0, Color::hex(0x2c3e50))],
        ))
        .stroke(StrokeStyle {
            width: 4.0,
            color: Color::WHITE,
            gradient: Some(FillGradient::linear(
                Vec2::ZERO,
                Vec2::X,
                &[(0.0, Color::WHITE), (1.0, Color::hex(0x3498db))],
            )),
            ..Default::default()
        });
    // PixiJS's order: each call applies after the ones before, so scale, rotate, then move into place.
    g.save()
        .scale(1.3, 1.0)
        .rotate(PI / 10.0)
        .translate(260.0, 540.0)
        .round_poly(0.0, 0.0, 36.0, 6, 10.0, 0.0)
        .fill(Color::hex(0x9b59b6))
        .restore();
    for i in 0..=5 {
        let t = i as f32 * 16.0;
        g.move_to(320.0 + t, 500.0).line_to(320.0 + t, 580.0);
        g.move_to(320.0, 500.0 + t).line_to(400.0, 500.0 + t);
    }
    g.stroke(StrokeStyle::pixel_line(Color::hex(0xbdc3c7)));
    scene.add(root, Node::graphics(g))?;

    // Shapes mixed with sprites in one batch: a ring of bunnies and stars around a point.
    let bunny = renderer.load_texture(common::asset("bunny0.png"), Sampling::NEAREST)?;
    let mut star = GraphicsContext::new();
    star.star(0.0, 0.0, 5, 12.0, 5.0, 0.0)
        .fill(Color::hex(0xf1c40f));
    let star = Arc::new(star);
    let ring = scene.add(root, Node::container().at(560.0, 440.0))?;
    for i in 0..16 {
        let a = i as f32 / 16.0 * 2.0 * PI;
        let p = Vec2::new(a.cos(), a.sin()) * 110.0;
        if i % 2 == 0 {
            scene.add(ring, Node::sprite(bunny).anchor(0.5, 0.5).at(p.x, p.y))?;
        } else {
            let n = scene.add(ring, Node::graphics(star.clone()).at(p.x, p.y))?;
            scene.transform_mut(n).unwrap().rotation = a;
        }
    }
    // A radial gradient (its focus up and left of centre), a bunny pattern tiled at an angle, and an SVG document.
    let mut g = GraphicsContext::new();
    g.circle(400.0, 415.0, 42.0).fill(FillGradient::radial(
        Vec2::new(0.35, 0.35),
        0.0,
        Vec2::splat(0.5),
        0.5,
        &[
            (0.0, Color::WHITE),
            (0.5, Color::hex(0x3498db)),
            (1.0, Color::hex(0x1b2631)),
        ],
    ));
    g.round_rect(690.0, 330.0, 96.0, 90.0, 12.0)
        .fill(FillPattern::new(bunny).with_matrix(Affine2::from_angle(0.3)))
        .stroke(StrokeStyle::new(3.0, Color::hex(0xecf0f1)));
    let path = common::asset("badge.svg");
    let badge = std::fs::read_to_string(&path).map_err(|e| stage2d::Error::AssetLoad {
        path,
        reason: e.to_string(),
    })?;
    g.save().translate(690.0, 460.0);
    g.svg(&badge)?;
    g.restore();
    scene.add(root, Node::graphics(g))?;
    // A small circle scaled up ten times stays round.
    let mut dot = GraphicsContext::new();
    dot.circle(0.0, 0.0, 4.0)
        .fill(Color::rgba(1.0, 1.0, 1.0, 0.6));
    let d = scene.add(ring, Node::graphics(dot))?;
    scene.transform_mut(d).unwrap().scale = Vec2::splat(10.0);
    Ok(scene)
}

/// How the shapes benchmark fills its shapes.
#[derive(Clone, Copy, PartialEq)]
enum Paint {
    Solid,
    Linear,
    Radial,
    Pattern,
}

fn bench(flags: &Flags) -> stage2d::Result<()> {
    let mut r = Renderer::new_headless(RendererOptions::default())?;
    let pattern = r.create_texture(
        2,
        2,
        &[
            255, 255, 255, 255, 90, 90, 90, 255, 90, 90, 90, 255, 255, 255, 255, 255,
        ],
        Sampling::NEAREST,
    )?;
    // Each paint in turn, twice in one run, so that drift shows as a difference between the two rounds.
    for _ in 0..2 {
        for paint in [Paint::Solid, Paint::Linear, Paint::Radial, Paint::Pattern] {
            shapes_bench(&mut r, flags, paint, pattern)?;
        }
    }
    svg_bench(&mut r, flags)
}

/// The process's peak resident memory in bytes since the last [`reset_peak_memory`] (Linux; 0 elsewhere).
fn peak_memory() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// Starts a new peak-memory measurement (Linux: `clear_refs` 5 resets the peak to the current size).
fn reset_peak_memory() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// A 1 MB SVG document: rows of closed curved paths in groups with transforms, solid fills, strokes and
/// gradients, as a drawing program writes them.
fn big_svg() -> String {
    use std::fmt::Write;
    let mut s = String::from(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"800\" height=\"600\">\n<defs>\n",
    );
    for k in 0..16 {
        let _ = writeln!(
            s,
            "<linearGradient id=\"g{k}\" x1=\"0\" y1=\"0\" x2=\"1\" y2=\"1\"><stop offset=\"0\" stop-color=\"#{:06x}\"/><stop offset=\"1\" stop-color=\"#{:06x}\"/></linearGradient>",
            (k * 0x0f1e2d) & 0xffffff,
            (k * 0x2d1e0f + 0x404040) & 0xffffff
        );
    }
    s.push_str("</defs>\n");
    let mut i = 0u32;
    while s.len() < 1 << 20 {
        let (x, y) = ((i % 80) as f32 * 10.0, (i / 80 % 60) as f32 * 10.0);
        let fill = match i % 4 {
            0 => format!("url(#g{})", i % 16),
            _ => format!("#{:06x}", (i.wrapping_mul(2654435761)) & 0xffffff),
        };
        let _ = writeln!(
            s,
            "<g transform=\"translate({x} {y}) rotate({})\"><path d=\"M0 0 C 3 -4 7 -4 9 0 S 8 7 4 8 Q 0 6 0 0 Z M 3 2 L 5 2 L 4 4 Z\" fill=\"{fill}\" fill-rule=\"evenodd\" stroke=\"#202020\" stroke-width=\"0.5\" opacity=\"0.9\"/></g>",
            (i * 7) % 360
        );
        i += 1;
    }
    s.push_str("</svg>\n");
    s
}

/// Reads a 1 MB SVG document into a graphics context (median ms over several reads, peak memory of one) and
/// draws it (first frame, then CPU and frame ms per frame).
fn svg_bench(r: &mut Renderer, flags: &Flags) -> stage2d::Result<()> {
    let doc = big_svg();
    // Peak memory of the first read (later reads reuse what the allocator kept).
    reset_peak_memory();
    let before = peak_memory();
    let mut g = GraphicsContext::new();
    let report = g.svg(&doc)?;
    let peak = peak_memory().saturating_sub(before);
    let paths = report.paths;
    let mut read = Samples::default();
    for _ in 0..flags.num("--svg-reads", 5usize) {
        let t0 = Instant::now();
        let again = GraphicsContext::from_svg(&doc)?;
        read.push_since(t0);
        drop(again);
    }
    let mut scene = Scene::new();
    scene.add(scene.root(), Node::graphics(g))?;
    let target = r.create_render_target(800, 600)?;
    let t0 = Instant::now();
    r.render(&scene, &target, Some(Color::BLACK))?;
    r.wait_idle()?;
    let first = t0.elapsed().as_secs_f64() * 1e3;
    // Until every fill is back from the tessellation thread.
    let t1 = Instant::now();
    while r.stats().last_frame.tessellations_pending > 0 && t1.elapsed().as_secs() < 60 {
        r.render(&scene, &target, Some(Color::BLACK))?;
        r.wait_idle()?;
    }
    let settled = t0.elapsed().as_secs_f64() * 1e3;
    let (mut cpu, mut frame) = (Samples::default(), Samples::default());
    let warm = r.stats().total;
    let frames = flags.num("--frames", 300usize).min(100);
    for _ in 0..frames {
        let t = Instant::now();
        r.render(&scene, &target, Some(Color::BLACK))?;
        cpu.push_since(t);
        r.wait_idle()?;
        frame.push_since(t);
    }
    let total = r.stats().total;
    let info = r.adapter_info();
    println!(
        "{{\"scene\":\"svg_1mb\",\"bytes\":{},\"paths\":{paths},\"adapter\":\"{}\",\"backend\":\"{:?}\",\"read_ms_median\":{:.3},\"read_peak_bytes\":{peak},\"first_frame_ms\":{first:.3},\"all_tessellated_ms\":{settled:.3},\"cpu_ms_median\":{:.4},\"frame_ms_median\":{:.4},\"draw_calls_per_frame\":{}}}",
        doc.len(),
        info.name,
        info.backend,
        read.median(),
        cpu.median(),
        frame.median(),
        (total.draw_calls - warm.draw_calls) as f64 / frames as f64,
    );
    Ok(())
}

/// 10,000 static shapes of 8 shared contexts and 1,000 moving ones, each filled with `paint`: a colour, a
/// three-stop linear or radial gradient, or a pattern of `texture`.
fn shapes_bench(
    r: &mut Renderer,
    flags: &Flags,
    paint: Paint,
    texture: stage2d::Texture,
) -> stage2d::Result<()> {
    let (n_static, n_moving) = (
        flags.num("--static", 10_000usize),
        flags.num("--moving", 1_000usize),
    );
    let frames = flags.num("--frames", 300usize);
    let mut contexts = Vec::new();
    for k in 0..8 {
        let color = [0x3498db, 0xe74c3c, 0xf1c40f, 0x2ecc71][k % 4];
        let fill = |g: &mut GraphicsContext| {
            let stops = [
                (0.0, Color::hex(color)),
                (0.5, Color::WHITE),
                (1.0, Color::hex(color)),
            ];
            match paint {
                Paint::Solid => g.fill(Color::hex(color)),
                Paint::Linear => g.fill(FillGradient::linear(Vec2::ZERO, Vec2::ONE, &stops)),
                Paint::Radial => g.fill(FillGradient::radial(
                    Vec2::splat(0.5),
                    0.0,
                    Vec2::splat(0.5),
                    0.5,
                    &stops,
                )),
                Paint::Pattern => g.fill(FillPattern::new(texture)),
            };
        };
        let mut g = GraphicsContext::new();
        match k % 4 {
            0 => g.circle(0.0, 0.0, 3.0 + k as f32),
            1 => g.rect(-3.0, -3.0, 6.0, 6.0),
            2 => g.star(0.0, 0.0, 5, 5.0, 2.0, 0.0),
            _ => g.regular_poly(0.0, 0.0, 4.0, 6, 0.0),
        };
        fill(&mut g);
        contexts.push(Arc::new(g));
    }
    let mut scene = Scene::new();
    let root = scene.root();
    for i in 0..n_static {
        let c = contexts[i % contexts.len()].clone();
        scene.add(
            root,
            Node::graphics(c).at(
                (i % 100) as f32 * 8.0 + 4.0,
                (i / 100 % 75) as f32 * 8.0 + 4.0,
            ),
        )?;
    }
    let moving: Vec<_> = (0..n_moving)
        .map(|i| scene.add(root, Node::graphics(contexts[i % contexts.len()].clone())))
        .collect::<stage2d::Result<_>>()?;
    let target = r.create_render_target(800, 600)?;
    let mut t = 0.0f32;
    let step = |scene: &mut Scene, t: f32| {
        for (i, id) in moving.iter().enumerate() {
            let a = t * 0.02 + i as f32 * 0.37;
            scene.transform_mut(*id).unwrap().position = Vec2::new(
                400.0 + a.cos() * (i % 300) as f32,
                300.0 + a.sin() * (i % 280) as f32,
            );
        }
    };
    for _ in 0..30 {
        t += 1.0;
        step(&mut scene, t);
        r.render(&scene, &target, Some(Color::BLACK))?;
        r.wait_idle()?;
    }
    let warm = r.stats().total;
    let (mut cpu, mut frame) = (Samples::default(), Samples::default());
    for _ in 0..frames {
        let t0 = Instant::now();
        t += 1.0;
        step(&mut scene, t);
        r.render(&scene, &target, Some(Color::BLACK))?;
        cpu.push_since(t0);
        r.wait_idle()?;
        frame.push_since(t0);
    }
    let total = r.stats().total;
    let f = frames as f64;
    let info = r.adapter_info();
    println!(
        "{{\"scene\":\"{}\",\"static_shapes\":{n_static},\"moving_shapes\":{n_moving},\"frames\":{frames},\"adapter\":\"{}\",\"backend\":\"{:?}\",\"cpu_ms_median\":{:.4},\"cpu_ms_p95\":{:.4},\"frame_ms_median\":{:.4},\"draw_calls_per_frame\":{},\"tessellations_per_frame_after_warmup\":{},\"pipelines_created_after_warmup\":{},\"buffers_created_after_warmup\":{},\"bytes_uploaded_per_frame\":{},\"collect_ms_mean\":{:.4}}}",
        match paint {
            Paint::Solid => "shapes",
            Paint::Linear => "shapes_gradient",
            Paint::Radial => "shapes_radial",
            Paint::Pattern => "shapes_pattern",
        },
        info.name,
        info.backend,
        cpu.median(),
        cpu.percentile(0.95),
        frame.median(),
        (total.draw_calls - warm.draw_calls) as f64 / f,
        (total.tessellations - warm.tessellations) as f64 / f,
        total.pipelines_created - warm.pipelines_created,
        total.buffers_created - warm.buffers_created,
        (total.bytes_uploaded - warm.bytes_uploaded) as f64 / f,
        (total.collect_ns - warm.collect_ns) as f64 / f / 1e6,
    );
    Ok(())
}

struct Shapes(Scene);

impl common::Demo for Shapes {
    fn build(renderer: &mut Renderer) -> stage2d::Result<Self> {
        page(renderer).map(Shapes)
    }
    fn scene(&self) -> &Scene {
        &self.0
    }
}

fn main() {
    let flags = Flags::from_env();
    if flags.has("--bench") {
        common::init_logging();
        if let Err(e) = bench(&flags) {
            eprintln!("shapes: {e}");
            std::process::exit(1);
        }
        return;
    }
    let options = RendererOptions::default().with_msaa(true);
    common::show::<Shapes>("shapes", options, Color::hex(0x2c3e50));
}
