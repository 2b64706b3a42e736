//! Meshes: a waving flag (a `MeshPlane` whose vertices move every frame), a snake (a `MeshRope` that follows the
//! pointer in a window, and a moving path without one), a perspective card, and a plasma drawn by a custom WGSL
//! mesh shader.
//!
//! `cargo run --release --example mesh` opens a window; `-- --headless --out mesh.png` (or no display) writes the
//! picture after `--frames F` steps (default 60).
//!
//! `-- --headless --bench [--frames F] [--warmup W]` prints one JSON line per scene instead: 10,000 small meshes
//! with the default shader (draw calls, as for sprites), a 256x256-vertex plane waving every frame (bytes
//! uploaded a frame), the same plane still while its node moves (drawn alone, then batched), 1,000 ropes of 64
//! points following moving paths (batched, then alone; `--rope-points N` for another length), and 100 meshes with
//! 10 custom shaders alternating (`set_pipeline` issued, pipelines created after warm-up); CPU ms and objects
//! created after warm-up for each.

mod common;
use stage2d::glam::Vec2;
use stage2d::{
    Color, Mesh, MeshBatchMode, MeshGeometry, MeshShader, Node, NodeId, Renderer, RendererOptions,
    Sampling, Scene,
};
use std::sync::Arc;
use std::time::Instant;

/// The plasma: a colour field from the position and a time uniform, times the node's colour.
const PLASMA: &str = "
struct Params { time: f32, scale: f32, pad0: f32, pad1: f32 };
@group(1) @binding(0) var<uniform> params: Params;
struct Out { @builtin(position) position: vec4<f32>, @location(0) p: vec2<f32> };
@vertex fn mainVertex(@location(0) position: vec2<f32>, @location(1) uv: vec2<f32>) -> Out {
    return Out(toClip(position), uv * params.scale);
}
@fragment fn mainFragment(in: Out) -> @location(0) vec4<f32> {
    let t = params.time;
    let v = sin(in.p.x + t) + sin(in.p.y * 1.3 - t) + sin((in.p.x + in.p.y) * 0.7 + t * 0.5);
    let c = vec3<f32>(0.5 + 0.5 * sin(v), 0.5 + 0.5 * sin(v + 2.1), 0.5 + 0.5 * sin(v + 4.2));
    return vec4<f32>(c, 1.0) * globals.uColor;
}
";

fn params(time: f32, scale: f32) -> Vec<u8> {
    [time, scale, 0.0, 0.0]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect()
}

/// A snake's path at time `t`: `n` points along a wave drifting across the scene.
fn snake_path(t: f32, n: usize, origin: Vec2, length: f32) -> Vec<Vec2> {
    (0..n)
        .map(|i| {
            let f = i as f32 / (n - 1).max(1) as f32;
            origin + Vec2::new(f * length, (f * 9.0 + t * 3.0).sin() * 14.0)
        })
        .collect()
}

struct MeshScene {
    scene: Scene,
    flag: NodeId,
    snake: NodeId,
    plasma: NodeId,
    time: f32,
    /// The snake's points while the pointer leads it (in a window), head first, in the snake's space.
    trail: Option<Vec<Vec2>>,
}

/// Where the snake node sits.
const SNAKE_AT: Vec2 = Vec2::new(420.0, 120.0);

/// Pixels between two of the snake's points.
const SNAKE_STEP: f32 = 8.0;

impl MeshScene {
    fn new(r: &mut Renderer) -> stage2d::Result<MeshScene> {
        let bunny = r.load_texture(common::asset("bunny0.png"), Sampling::LINEAR)?;
        let mut scene = Scene::new();
        // A flag: a plane of the bunny, its vertices waved every frame.
        let plane = MeshGeometry::plane(260.0, 180.0, 24, 16)?;
        let flag = scene.add(scene.root(), Node::mesh(plane, bunny).at(40.0, 60.0))?;
        // A snake along a moving path.
        let rope = MeshGeometry::rope(&snake_path(0.0, 40, Vec2::ZERO, 320.0), 26.0, 0.0)?;
        let snake = scene.add(
            scene.root(),
            Node::mesh(rope, bunny).at(SNAKE_AT.x, SNAKE_AT.y),
        )?;
        // A perspective card.
        let card = MeshGeometry::perspective(
            [
                Vec2::new(80.0, 0.0),
                Vec2::new(200.0, 0.0),
                Vec2::new(280.0, 200.0),
                Vec2::new(0.0, 200.0),
            ],
            12,
            12,
        )?;
        scene.add(scene.root(), Node::mesh(card, bunny).at(40.0, 340.0))?;
        // A plasma from a custom shader.
        let quad = MeshGeometry::plane(300.0, 200.0, 2, 2)?;
        let shader = r.create_mesh_shader(PLASMA, &quad.layout())?;
        let white = r.white_texture();
        let plasma = Mesh::new(quad, white).with_shader(shader, &params(0.0, 8.0), &[]);
        let plasma = scene.add(scene.root(), Node::mesh_of(plasma).at(440.0, 340.0))?;
        Ok(MeshScene {
            scene,
            flag,
            snake,
            plasma,
            time: 0.0,
            trail: None,
        })
    }

    /// The pointer at `p` (window pixels): the snake's head follows it, each point following the one before.
    fn follow(&mut self, p: Vec2) {
        let trail = self
            .trail
            .get_or_insert_with(|| snake_path(0.0, 40, Vec2::ZERO, 320.0));
        let head = p - SNAKE_AT;
        let first = trail[0];
        trail[0] = first + (head - first) * 0.3;
        for i in 1..trail.len() {
            let d = trail[i] - trail[i - 1];
            let len = d.length();
            if len > SNAKE_STEP {
                trail[i] = trail[i - 1] + d / len * SNAKE_STEP;
            }
        }
    }

    fn update(&mut self, dt: f32) {
        self.time += dt;
        let t = self.time;
        if let Some(m) = self.scene.get_mut(self.flag).and_then(|n| n.mesh_mut()) {
            wave(m, t, 24, Vec2::new(260.0, 180.0));
        }
        if let Some(m) = self.scene.get_mut(self.snake).and_then(|n| n.mesh_mut()) {
            let path = match &self.trail {
                Some(trail) => trail.clone(),
                None => snake_path(t, 40, Vec2::ZERO, 320.0),
            };
            let _ = m.geometry_mut().set_rope(&path, 26.0, 0.0);
        }
        if let Some(m) = self.scene.get_mut(self.plasma).and_then(|n| n.mesh_mut()) {
            if let Some(s) = m.shader.as_mut() {
                s.uniforms = params(t, 8.0);
            }
        }
    }
}

/// Waves a `size` plane of `cols` vertices a row: each vertex moved up and down by its column.
fn wave(m: &mut Mesh, t: f32, cols: usize, size: Vec2) {
    let g = m.geometry_mut();
    let uvs: Vec<Vec2> = g.uvs().to_vec();
    g.update_positions(|p| {
        for (i, (p, uv)) in p.iter_mut().zip(&uvs).enumerate() {
            let x = (i % cols) as f32;
            p.x = uv.x * size.x;
            p.y = uv.y * size.y + (x * 0.5 + t * 4.0).sin() * 6.0 * uv.x;
        }
    });
}

impl common::Demo for MeshScene {
    fn build(renderer: &mut Renderer) -> stage2d::Result<Self> {
        MeshScene::new(renderer)
    }
    fn scene(&self) -> &Scene {
        &self.scene
    }
    fn update(&mut self, _renderer: &mut Renderer, dt: f32) {
        MeshScene::update(self, dt);
    }
    fn pointer(&mut self, position: Vec2) {
        // The snake waits on its path until the pointer first comes over the window.
        if self.trail.is_some() || position != Vec2::ZERO {
            self.follow(position);
        }
    }
}

/// Renders `scene` `warmup` then `frames` times, stepping it, waiting for the GPU each frame; prints one JSON
/// line named `name`.
fn measure(
    name: &str,
    r: &mut Renderer,
    scene: &mut Scene,
    (warmup, frames): (u64, u64),
    mut step: impl FnMut(&mut Scene, u64),
) -> stage2d::Result<()> {
    let target = r.create_render_target(1280, 720)?;
    let clear = Some(Color::hex(0x1099bb));
    for i in 0..warmup.max(2) {
        step(scene, i);
        r.render(scene, &target, clear)?;
        r.wait_idle()?;
    }
    let before = r.stats().total;
    let mut cpu = common::Samples::default();
    for i in 0..frames {
        let t0 = Instant::now();
        step(scene, warmup + i);
        r.render(scene, &target, clear)?;
        cpu.push_since(t0);
        r.wait_idle()?;
    }
    let after = r.stats().total;
    let n = frames.max(1);
    let created = (after.textures_created - before.textures_created)
        + (after.buffers_created - before.buffers_created)
        + (after.bind_groups_created - before.bind_groups_created)
        + (after.pipelines_created - before.pipelines_created);
    println!(
        "{{\"scene\":\"{name}\",\"adapter\":\"{}\",\"cpu_ms_median\":{:.4},\"meshes_per_frame\":{},\"draw_calls_per_frame\":{},\"set_pipeline_issued_per_frame\":{},\"bytes_uploaded_per_frame\":{},\"objects_created_after_warmup\":{created}}}",
        r.adapter_info().name.replace('"', "'"),
        cpu.median(),
        (after.meshes - before.meshes) / n,
        (after.draw_calls - before.draw_calls) / n,
        (after.set_pipeline_issued - before.set_pipeline_issued) / n,
        (after.bytes_uploaded - before.bytes_uploaded) / n,
    );
    Ok(())
}

fn bench(flags: &common::Flags) -> stage2d::Result<()> {
    let frames = flags.num("--frames", 200u64);
    let warmup = flags.num("--warmup", 20u64);
    let mut r = Renderer::new_headless(RendererOptions::default())?;
    let bunny = r.load_texture(common::asset("bunny0.png"), Sampling::LINEAR)?;
    let white = r.white_texture();

    // 1. 10,000 small meshes of one shared geometry, default shader.
    let mut scene = Scene::new();
    let small = Arc::new(MeshGeometry::plane(8.0, 8.0, 3, 3)?);
    for i in 0..10_000 {
        let (x, y) = ((i % 125) as f32 * 10.0, (i / 125) as f32 * 9.0);
        scene.add(scene.root(), Node::mesh(small.clone(), bunny).at(x, y))?;
    }
    measure(
        "meshes_10000_default",
        &mut r,
        &mut scene,
        (warmup, frames),
        |_, _| {},
    )?;

    // 2. A 256x256-vertex plane waving every frame.
    let mut scene = Scene::new();
    let plane = MeshGeometry::plane(1200.0, 680.0, 256, 256)?;
    let flag = scene.add(scene.root(), Node::mesh(plane, bunny).at(40.0, 20.0))?;
    measure(
        "plane_256x256_waving",
        &mut r,
        &mut scene,
        (warmup, frames),
        |s, i| {
            if let Some(m) = s.get_mut(flag).and_then(|n| n.mesh_mut()) {
                wave(m, i as f32 / 60.0, 256, Vec2::new(1200.0, 680.0));
            }
        },
    )?;

    // 2b. The same plane still, its node moving: drawn on its own (the default for more than 200 vertices) a move
    // costs its transform; batched, every vertex is transformed on the CPU and uploaded again.
    for (name, mode) in [
        ("plane_256x256_moved", MeshBatchMode::Auto),
        ("plane_256x256_moved_batched", MeshBatchMode::Batch),
    ] {
        let mut scene = Scene::new();
        let plane = MeshGeometry::plane(1200.0, 680.0, 256, 256)?.with_batch_mode(mode);
        let still = scene.add(scene.root(), Node::mesh(plane, bunny))?;
        measure(name, &mut r, &mut scene, (warmup, frames), |s, i| {
            if let Some(t) = s.transform_mut(still) {
                t.position = Vec2::new(40.0 + (i % 20) as f32, 20.0);
            }
        })?;
    }

    // 3. 1,000 ropes of 64 points (128 vertices) following moving paths, batched by default (PixiJS would draw
    // them one by one: more than 100 vertices), then each drawn on its own.
    let points = flags.num("--rope-points", 64usize).clamp(2, 4096);
    for (name, mode) in [
        (format!("ropes_1000x{points}_moving"), MeshBatchMode::Auto),
        (
            format!("ropes_1000x{points}_moving_alone"),
            MeshBatchMode::Own,
        ),
    ] {
        let mut scene = Scene::new();
        let mut ropes = Vec::new();
        for i in 0..1000 {
            let origin = Vec2::new((i % 10) as f32 * 125.0, (i / 10) as f32 * 7.0);
            let g = MeshGeometry::rope(&snake_path(0.0, points, origin, 110.0), 6.0, 0.0)?
                .with_batch_mode(mode);
            ropes.push((scene.add(scene.root(), Node::mesh(g, bunny))?, origin));
        }
        measure(&name, &mut r, &mut scene, (warmup, frames), |s, i| {
            let t = i as f32 / 60.0;
            for &(n, origin) in &ropes {
                if let Some(m) = s.get_mut(n).and_then(|n| n.mesh_mut()) {
                    let _ =
                        m.geometry_mut()
                            .set_rope(&snake_path(t, points, origin, 110.0), 6.0, 0.0);
                }
            }
        })?;
    }

    // 4. 100 meshes, 10 custom shaders, ten of a shader in a row, uniforms changing every frame.
    let mut scene = Scene::new();
    let quad = Arc::new(MeshGeometry::plane(60.0, 40.0, 2, 2)?);
    let shaders: Vec<MeshShader> = (0..10)
        .map(|k| {
            r.create_mesh_shader(
                &PLASMA.replace("0.7", &format!("0.{}", k + 1)),
                &quad.layout(),
            )
        })
        .collect::<stage2d::Result<_>>()?;
    let mut custom = Vec::new();
    for i in 0..100 {
        let m = Mesh::new(quad.clone(), white).with_shader(
            shaders[i / 10].clone(),
            &params(0.0, 4.0),
            &[],
        );
        let (x, y) = ((i % 20) as f32 * 64.0, (i / 20) as f32 * 44.0);
        custom.push(scene.add(scene.root(), Node::mesh_of(m).at(x, y))?);
    }
    measure(
        "custom_shaders_100x10",
        &mut r,
        &mut scene,
        (warmup, frames),
        |s, i| {
            for &n in &custom {
                if let Some(sh) = s
                    .get_mut(n)
                    .and_then(|n| n.mesh_mut())
                    .and_then(|m| m.shader.as_mut())
                {
                    sh.uniforms = params(i as f32 / 60.0, 4.0);
                }
            }
        },
    )?;
    Ok(())
}

fn main() {
    let flags = common::Flags::from_env();
    if flags.has("--bench") {
        common::init_logging();
        if let Err(e) = bench(&flags) {
            eprintln!("mesh: {e}");
            std::process::exit(1);
        }
        return;
    }
    let options = RendererOptions::default().with_msaa(true);
    common::show::<MeshScene>("mesh", options, Color::hex(0x1e1e2e));
}
