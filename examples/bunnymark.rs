//! The 1000-sprite benchmark: bunnies bouncing under gravity, PixiJS bunnymark style.
//!
//! `cargo run --release --example bunnymark` opens a window (more bunnies while the mouse button is held, a
//! stats overlay; `--no-vsync` to measure, `--frames F` to stop after F frames). With no display it runs headless
//! by itself and says so.
//!
//! `cargo run --release --example bunnymark -- --headless --sprites 1000 --frames 300` renders offscreen and
//! prints one JSON line of timings and counters. Options: `--textures T` (distinct textures, default 12),
//! `--blend-modes` (alternate normal/add per bunny), `--warmup W` (frames before measuring, default 30),
//! `--out FILE.png` (save the last frame), `--parallel-min N` (children a container needs for its sprites to be
//! computed on every core; default 32,768), `--pointer` (every bunny interactive, and each frame a pointer move
//! goes through an `Events` dispatcher first, with hover handlers tinting the bunny under it: the JSON adds the
//! dispatch's median and its share of the CPU frame), `--animated` (bunnies become critters of the shipped
//! spritesheet, each an `AnimatedSprite` turning frames at 12 per second of a 60 Hz clock), `--moving N` (only
//! the first N bunnies move; the others stay where they were added: a mostly static scene), `--particles` (the
//! bunnies are particles of a `ParticleContainer` a texture: positions dynamic, the rest static), `--bulk` (sprites
//! moved through `Scene::child_transforms_mut`, one call a frame, instead of `transform_mut` a sprite);
//! `--particle-px P` draws each particle P x P pixels.

mod common;
use common::Rng;
use stage2d::glam::Vec2;
use stage2d::{
    BlendMode, Color, EventKind, EventMode, Events, Node, NodeId, PointerInput, Renderer,
    RendererOptions, Sampling, Scene, Texture,
};
use std::time::Instant;

const WIDTH: u32 = 800;
const HEIGHT: u32 = 600;
const GRAVITY: f32 = 0.75;

#[derive(Debug, Clone)]
struct Args {
    headless: bool,
    vsync: bool,
    sprites: usize,
    frames: usize,
    warmup: usize,
    textures: usize,
    blend_modes: bool,
    masks: usize,
    rect_masks: bool,
    out: Option<String>,
    frames_given: bool,
    pipeline_cache: Option<String>,
    parallel_min: Option<usize>,
    pointer: bool,
    animated: bool,
    moving: Option<usize>,
    particles: bool,
    bulk: bool,
    particle_px: Option<usize>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        headless: false,
        vsync: true,
        sprites: 1000,
        frames: 300,
        warmup: 30,
        textures: 12,
        blend_modes: false,
        masks: 0,
        rect_masks: false,
        out: None,
        frames_given: false,
        pipeline_cache: None,
        parallel_min: None,
        pointer: false,
        animated: false,
        moving: None,
        particles: false,
        bulk: false,
        particle_px: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut num = |name: &str| -> Result<usize, String> {
            it.next()
                .and_then(|v| v.parse().ok())
                .ok_or(format!("{name} needs a number"))
        };
        match arg.as_str() {
            "--headless" => a.headless = true,
            "--no-vsync" => a.vsync = false,
            "--sprites" => a.sprites = num("--sprites")?,
            "--frames" => {
                a.frames = num("--frames")?.max(1);
                a.frames_given = true;
            }
            "--warmup" => a.warmup = num("--warmup")?,
            "--textures" => a.textures = num("--textures")?.max(1),
            "--blend-modes" => a.blend_modes = true,
            "--masks" => a.masks = num("--masks")?,
            "--rect-masks" => a.rect_masks = true,
            "--pointer" => a.pointer = true,
            "--animated" => a.animated = true,
            "--moving" => a.moving = Some(num("--moving")?),
            "--particles" => a.particles = true,
            "--bulk" => a.bulk = true,
            "--particle-px" => a.particle_px = Some(num("--particle-px")?.max(1)),
            "--parallel-min" => a.parallel_min = Some(num("--parallel-min")?),
            "--out" => a.out = Some(it.next().ok_or("--out needs a file")?),
            "--pipeline-cache" => {
                a.pipeline_cache = Some(it.next().ok_or("--pipeline-cache needs a directory")?)
            }
            "--help" | "-h" => {
                println!("bunnymark [--headless] [--no-vsync] [--sprites N] [--frames F] [--warmup W] [--textures T] [--blend-modes] [--masks M [--rect-masks]] [--pipeline-cache DIR] [--parallel-min N] [--pointer] [--animated] [--moving N] [--particles [--particle-px P] | --bulk] [--out FILE.png]");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    let plain = a.masks == 0 && !a.pointer && !a.animated && a.moving.is_none() && !a.blend_modes;
    if (a.particles || a.bulk) && !plain {
        return Err("--particles and --bulk go with --textures only".into());
    }
    if a.particles && a.bulk {
        return Err("--particles or --bulk, not both".into());
    }
    Ok(a)
}

struct Bunny {
    id: NodeId,
    vx: f32,
    vy: f32,
}

struct Bunnymark {
    scene: Scene,
    /// Where bunnies go: the root, or the masked containers.
    parents: Vec<NodeId>,
    /// The masks' nodes, moved every frame.
    masks: Vec<NodeId>,
    frame: f32,
    bunnies: Vec<Bunny>,
    textures: Vec<Texture>,
    rng: Rng,
    blend_modes: bool,
    /// Bunnies are hit-test targets.
    interactive: bool,
    /// How many bunnies move (the first ones).
    moving: usize,
    /// With --animated: the sheet, and each bunny's animation.
    sheet: Option<stage2d::Spritesheet>,
    anims: Vec<stage2d::AnimatedSprite>,
    /// With --particles: a particle container a texture, and each one's bunnies' velocities.
    particles: Vec<(NodeId, Vec<[f32; 2]>)>,
    /// With --bulk: the bunnies move through one call a frame, their velocities in an array of their own (as
    /// the bare renderer's and the particles' are).
    bulk: bool,
    velocities: Vec<[f32; 2]>,
    /// With --particle-px: each particle's size in pixels (square).
    particle_px: Option<f32>,
}

/// The sheet's animations the animated bunnies play.
const CRITTERS: [&str; 3] = ["blob_walk", "bird_flap", "beetle_crawl"];

impl Bunnymark {
    fn new(renderer: &mut Renderer, args: &Args) -> stage2d::Result<Self> {
        let (textures, blend_modes) = (args.textures, args.blend_modes);
        let textures = (0..textures)
            .map(|i| {
                renderer.load_texture(
                    common::asset(&format!("bunny{}.png", i % 12)),
                    Sampling::NEAREST,
                )
            })
            .collect::<stage2d::Result<Vec<_>>>()?;
        let sheet = match args.animated {
            true => Some(
                stage2d::Assets::new()
                    .load_spritesheet(renderer, common::asset("critters.json"), Sampling::NEAREST)?
                    .clone(),
            ),
            false => None,
        };
        let mut scene = Scene::new();
        let bunnies = scene.add(scene.root(), Node::container())?;
        let (mut parents, mut masks) = (vec![bunnies], Vec::new());
        if args.masks > 0 {
            parents.clear();
            for i in 0..args.masks {
                let c = scene.add(scene.root(), Node::container())?;
                let mut g = stage2d::GraphicsContext::new();
                if args.rect_masks {
                    g.rect(-120.0, -90.0, 240.0, 180.0).fill(Color::WHITE);
                } else {
                    g.circle(0.0, 0.0, 110.0).fill(Color::WHITE);
                }
                let x = (i % 4) as f32 * 200.0 + 100.0;
                let y = (i / 4 % 3) as f32 * 200.0 + 100.0;
                let m = scene.add_detached(Node::graphics(g).at(x, y));
                scene.set_mask(c, m, false)?;
                parents.push(c);
                masks.push(m);
            }
        }
        Ok(Bunnymark {
            scene,
            parents,
            masks,
            frame: 0.0,
            bunnies: Vec::new(),
            textures,
            rng: Rng(0x2545_f491_4f6c_dd1d),
            blend_modes,
            interactive: args.pointer,
            moving: args.moving.unwrap_or(usize::MAX),
            sheet,
            anims: Vec::new(),
            particles: Vec::new(),
            bulk: args.bulk,
            velocities: Vec::new(),
            particle_px: args.particle_px.map(|p| p as f32),
        })
        .map(|mut m| {
            if args.particles {
                for t in &m.textures {
                    let pc = stage2d::ParticleContainer::new(*t);
                    let id = m.scene.add(bunnies, Node::particles(pc)).expect("a node");
                    m.particles.push((id, Vec::new()));
                }
            }
            m
        })
    }

    /// Adds `n` bunnies as one wave per texture, as PixiJS's bunnymark does (each wave of added bunnies shares
    /// a texture), so the tree holds runs of equal textures.
    fn add(&mut self, n: usize) -> stage2d::Result<()> {
        let t = self.textures.len();
        for w in 0..t {
            self.add_wave(n * (w + 1) / t - n * w / t, w)?;
        }
        Ok(())
    }

    fn add_wave(&mut self, n: usize, texture: usize) -> stage2d::Result<()> {
        if !self.particles.is_empty() {
            // Particles of the wave's texture: anchored bottom-centre, as the sprites are.
            let k = texture % self.particles.len();
            let (id, velocities) = &mut self.particles[k];
            let pc = self
                .scene
                .get_mut(*id)
                .and_then(|n| n.as_particles_mut())
                .expect("a particle container");
            pc.reserve(n)?;
            let [tw, th] = pc.texture().size();
            let scale = match self.particle_px {
                Some(px) => Vec2::new(px / tw, px / th),
                None => Vec2::ONE,
            };
            for _ in 0..n {
                let (x, y) = (
                    self.rng.next() * WIDTH as f32,
                    self.rng.next() * HEIGHT as f32 * 0.5,
                );
                let mut p = stage2d::Particle::new(x, y).anchored(0.5, 1.0);
                p.scale = scale;
                pc.add(p)?;
                velocities.push([self.rng.next() * 10.0, self.rng.next() * 10.0 - 5.0]);
            }
            return Ok(());
        }
        let tex = self.textures[texture % self.textures.len()];
        for _ in 0..n {
            let i = self.bunnies.len();
            let blend = if self.blend_modes && i % 2 == 1 {
                BlendMode::Add
            } else {
                BlendMode::Normal
            };
            let tex = match &self.sheet {
                Some(sheet) => sheet.animation(CRITTERS[texture % 3]).unwrap()[0],
                None => tex,
            };
            let node = Node::sprite(tex)
                .anchor(0.5, 1.0)
                .at(
                    self.rng.next() * WIDTH as f32,
                    self.rng.next() * HEIGHT as f32 * 0.5,
                )
                .blended(blend);
            let parent = self.parents[i % self.parents.len()];
            let id = self.scene.add(parent, node)?;
            if let Some(sheet) = &self.sheet {
                let mut a = stage2d::AnimatedSprite::from_sheet(id, sheet, CRITTERS[texture % 3])?;
                a.goto_and_play(&mut self.scene, i % 6)?;
                self.anims.push(a);
            }
            if self.interactive {
                self.scene.set_event_mode(id, EventMode::Static)?;
            }
            let (vx, vy) = (self.rng.next() * 10.0, self.rng.next() * 10.0 - 5.0);
            self.bunnies.push(Bunny { id, vx, vy });
            if self.bulk {
                self.velocities.push([vx, vy]);
            }
        }
        Ok(())
    }

    fn update(&mut self) {
        let (w, h) = (WIDTH as f32, HEIGHT as f32);
        self.frame += 1.0;
        for (i, m) in self.masks.iter().enumerate() {
            if let Some(n) = self.scene.transform_mut(*m) {
                let a = self.frame * 0.03 + i as f32;
                let base = Vec2::new(
                    (i % 4) as f32 * 200.0 + 100.0,
                    (i / 4 % 3) as f32 * 200.0 + 100.0,
                );
                n.position = base + Vec2::new(a.cos(), a.sin()) * 20.0;
            }
        }
        if !self.particles.is_empty() {
            for (id, velocities) in &mut self.particles {
                let Some(pc) = self.scene.get_mut(*id).and_then(|n| n.as_particles_mut()) else {
                    continue;
                };
                for (p, v) in pc
                    .particles_mut()
                    .position
                    .iter_mut()
                    .zip(velocities.iter_mut())
                {
                    bounce(p, v, &mut self.rng, w, h);
                }
            }
            return;
        }
        if self.bulk {
            let (velocities, rng) = (&mut self.velocities, &mut self.rng);
            if let Ok(mut ts) = self.scene.child_transforms_mut(self.parents[0]) {
                match ts.as_mut_slice() {
                    Some(slice) => {
                        for (t, v) in slice.iter_mut().zip(velocities.iter_mut()) {
                            bounce(&mut t.position, v, rng, w, h);
                        }
                    }
                    None => {
                        ts.for_each(|i, t| bounce(&mut t.position, &mut velocities[i], rng, w, h))
                    }
                }
            }
            return;
        }
        let moving = self.moving.min(self.bunnies.len());
        for b in &mut self.bunnies[..moving] {
            let Some(t) = self.scene.transform_mut(b.id) else {
                continue;
            };
            let p = &mut t.position;
            p.x += b.vx;
            p.y += b.vy;
            b.vy += GRAVITY;
            if p.x > w {
                b.vx = -b.vx;
                p.x = w;
            } else if p.x < 0.0 {
                b.vx = -b.vx;
                p.x = 0.0;
            }
            if p.y > h {
                b.vy *= -0.85;
                p.y = h;
                if self.rng.next() > 0.5 {
                    b.vy -= self.rng.next() * 6.0;
                }
            } else if p.y < 0.0 {
                b.vy = 0.0;
                p.y = 0.0;
            }
        }
        for a in &mut self.anims {
            // A 60 Hz clock: frames turn 12 times a second.
            let _ = a.update(&mut self.scene, 1.0 / 60.0);
        }
    }
}

/// One bunny's step: moved by its velocity under gravity, bouncing off the walls and the floor.
#[inline(always)]
fn bounce(p: &mut Vec2, v: &mut [f32; 2], rng: &mut Rng, w: f32, h: f32) {
    p.x += v[0];
    p.y += v[1];
    v[1] += GRAVITY;
    if p.x > w {
        v[0] = -v[0];
        p.x = w;
    } else if p.x < 0.0 {
        v[0] = -v[0];
        p.x = 0.0;
    }
    if p.y > h {
        v[1] *= -0.85;
        p.y = h;
        if rng.next() > 0.5 {
            v[1] -= rng.next() * 6.0;
        }
    } else if p.y < 0.0 {
        v[1] = 0.0;
        p.y = 0.0;
    }
}

fn run_headless(args: &Args) -> stage2d::Result<()> {
    let started = Instant::now();
    let mut options = RendererOptions::default().with_gpu_timing(true);
    if let Some(n) = args.parallel_min {
        options = options.with_parallel_collect_min(n);
    }
    let mut renderer = Renderer::new_headless(match &args.pipeline_cache {
        Some(dir) => options.with_pipeline_cache(dir),
        None => options,
    })?;
    let info = renderer.adapter_info();
    let mut mark = Bunnymark::new(&mut renderer, args)?;
    mark.add(args.sprites)?;
    let target = renderer.create_render_target(WIDTH, HEIGHT)?;
    let clear = Some(Color::hex(0x1099bb));

    // Start-up: time to the first finished frame, and the worst frame of the first second.
    let (mut startup_ms, mut first_frame_ms, mut worst_first_second_ms) = (0.0, 0.0, 0.0f64);
    let first_start = Instant::now();
    for i in 0..args.warmup.max(1) {
        let t0 = Instant::now();
        mark.update();
        renderer.render(&mark.scene, &target, clear)?;
        renderer.wait_idle()?;
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        if i == 0 {
            startup_ms = started.elapsed().as_secs_f64() * 1e3;
            first_frame_ms = ms;
        }
        if first_start.elapsed().as_secs_f64() <= 1.0 {
            worst_first_second_ms = worst_first_second_ms.max(ms);
        }
    }
    let warm = renderer.stats().total;
    let (mut cpu, mut frame) = (common::Samples::default(), common::Samples::default());
    let mut gpu = common::Samples::default();
    let mut update_ms = 0.0;
    // With --pointer: a pointer wandering over the bunnies, dispatched before each frame's update as a window's
    // events are; hovered bunnies are tinted.
    let mut events: Events<u64> = Events::new();
    let root = mark.scene.root();
    events.on(root, EventKind::PointerMove, |cx| *cx.state += 1);
    events.on(root, EventKind::PointerOver, |cx| {
        let t = cx.event.target;
        if let Some(n) = cx.scene.get_mut(t) {
            n.tint = Color::hex(0xff8080);
        }
    });
    events.on(root, EventKind::PointerOut, |cx| {
        let t = cx.event.target;
        if let Some(n) = cx.scene.get_mut(t) {
            n.tint = Color::WHITE;
        }
    });
    let (mut moves, mut dispatch) = (0u64, common::Samples::default());
    for i in 0..args.frames {
        let t0 = Instant::now();
        if args.pointer {
            let a = i as f32 * 0.05;
            let position = Vec2::new(400.0 + 300.0 * a.cos(), 300.0 + 200.0 * a.sin());
            events.dispatch(
                &mut mark.scene,
                &mut moves,
                PointerInput::Move {
                    pointer: 0,
                    position,
                },
            )?;
            dispatch.push_since(t0);
        }
        let t_update = Instant::now();
        mark.update();
        update_ms += t_update.elapsed().as_secs_f64() * 1e3;
        renderer.render(&mark.scene, &target, clear)?;
        let t1 = Instant::now();
        renderer.wait_idle()?;
        let t2 = Instant::now();
        cpu.push((t1 - t0).as_secs_f64() * 1e3);
        frame.push((t2 - t0).as_secs_f64() * 1e3);
        // The GPU time of the previous frame (read back without waiting when this one began).
        if let Some(ms) = renderer.stats().gpu_ms {
            gpu.push(f64::from(ms));
        }
    }
    let stats = renderer.stats();
    // The pipelined loop: at most one frame on the GPU while the CPU prepares the next, so a frame costs about
    // the larger of CPU and GPU time. Its own warm-up first (the staging belt may want a chunk more).
    for _ in 0..args.warmup.max(1) {
        mark.update();
        renderer.render(&mark.scene, &target, clear)?;
        renderer.wait_frames_in_flight(1)?;
    }
    let piped_warm = renderer.stats().total;
    let mut piped = common::Samples::default();
    for _ in 0..args.frames {
        let t0 = Instant::now();
        mark.update();
        renderer.render(&mark.scene, &target, clear)?;
        renderer.wait_frames_in_flight(1)?;
        piped.push_since(t0);
    }
    renderer.wait_idle()?;
    let piped_total = renderer.stats().total;
    let piped_created = (piped_total.buffers_created - piped_warm.buffers_created)
        + (piped_total.textures_created - piped_warm.textures_created)
        + (piped_total.bind_groups_created - piped_warm.bind_groups_created)
        + (piped_total.pipelines_created - piped_warm.pipelines_created);
    // null where the adapter cannot write timestamps (wgpu's GL backend, for one).
    let gpu_ms_median = match gpu.is_empty() {
        true => "null".to_string(),
        false => format!("{:.4}", gpu.median()),
    };
    let (pointer_ms, pointer_share) = match dispatch.is_empty() {
        true => ("null".to_string(), "null".to_string()),
        false => (
            format!("{:.4}", dispatch.median()),
            format!("{:.4}", dispatch.median() / cpu.median()),
        ),
    };
    let t = stats.total;
    let f = args.frames as f64;
    let per = |total: u64, before: u64| (total - before) as f64 / f;
    if let Some(out) = &args.out {
        renderer.save_png(&target, out)?;
    }
    println!(
        concat!(
            "{{\"sprites\":{},\"frames\":{},\"textures\":{},\"blend_modes\":{},\"adapter\":\"{}\",\"backend\":\"{:?}\",",
            "\"driver\":\"{}\",\"cpu_ms_median\":{:.4},\"cpu_ms_p95\":{:.4},\"frame_ms_median\":{:.4},",
            "\"frame_ms_p95\":{:.4},\"frame_ms_pipelined_median\":{:.4},\"objects_created_pipelined\":{},\"gpu_ms_median\":{},\"draw_calls_per_frame\":{},\"set_pipeline_issued_per_frame\":{},",
            "\"set_pipeline_skipped_per_frame\":{},\"set_bind_group_issued_per_frame\":{},",
            "\"pipeline_lookups_per_frame\":{},\"pipeline_hits_without_hash\":{},\"pipeline_hits_with_hash\":{},",
            "\"pipeline_misses\":{},\"pipeline_misses_after_warmup\":{},\"pipelines_created_after_warmup\":{},",
            "\"bind_groups_created_after_warmup\":{},\"buffers_created_after_warmup\":{},",
            "\"textures_created_after_warmup\":{},\"bytes_uploaded_per_frame\":{},",
            "\"update_ms_mean\":{:.4},\"collect_ms_mean\":{:.4},\"prepare_ms_mean\":{:.4},\"record_ms_mean\":{:.4},",
            "\"submit_ms_mean\":{:.4},\"masks\":{},\"rect_masks\":{},\"masks_pushed_per_frame\":{},",
            "\"scissor_masks_per_frame\":{},\"stencil_mode_switches_per_frame\":{},\"pipe_cache_switches_per_frame\":{},\"culled_per_frame\":{},",
            "\"moving\":{},\"walks_kept_per_frame\":{},\"sprites_updated_per_frame\":{},",
            "\"startup_ms\":{:.2},\"first_frame_ms\":{:.2},\"worst_frame_first_second_ms\":{:.2},\"pipeline_cache\":{},",
            "\"pipeline_cache_bytes_loaded\":{},\"pipelines_prewarmed\":{},\"prewarm_ms\":{:.2},\"driver_pipeline_cache\":{},",
            "\"pointer\":{},\"pointer_dispatch_ms_median\":{},\"pointer_dispatch_share_of_cpu\":{},\"pointer_moves_seen\":{},\"animated\":{},\"particles\":{},\"bulk\":{},\"particles_drawn_per_frame\":{}}}"
        ),
        args.sprites,
        args.frames,
        args.textures,
        args.blend_modes,
        info.name.replace('"', "'"),
        info.backend,
        info.driver_info.replace('"', "'"),
        cpu.median(),
        cpu.percentile(0.95),
        frame.median(),
        frame.percentile(0.95),
        piped.median(),
        piped_created,
        gpu_ms_median,
        per(t.draw_calls, warm.draw_calls),
        per(t.set_pipeline_issued, warm.set_pipeline_issued),
        per(t.set_pipeline_skipped, warm.set_pipeline_skipped),
        per(t.set_bind_group_issued, warm.set_bind_group_issued),
        per(t.pipeline_lookups(), warm.pipeline_lookups()),
        t.pipeline_hits_without_hash,
        t.pipeline_hits_with_hash,
        t.pipeline_misses,
        t.pipeline_misses - warm.pipeline_misses,
        t.pipelines_created - warm.pipelines_created,
        t.bind_groups_created - warm.bind_groups_created,
        t.buffers_created - warm.buffers_created,
        t.textures_created - warm.textures_created,
        per(t.bytes_uploaded, warm.bytes_uploaded),
        update_ms / f,
        per(t.collect_ns, warm.collect_ns) / 1e6,
        per(t.prepare_ns, warm.prepare_ns) / 1e6,
        per(t.record_ns, warm.record_ns) / 1e6,
        per(t.submit_ns, warm.submit_ns) / 1e6,
        args.masks,
        args.rect_masks,
        per(t.masks_pushed, warm.masks_pushed),
        per(t.scissor_masks, warm.scissor_masks),
        per(t.stencil_mode_switches, warm.stencil_mode_switches),
        per(t.pipe_cache_switches, warm.pipe_cache_switches),
        per(t.culled, warm.culled),
        args.moving.unwrap_or(args.sprites).min(args.sprites),
        per(t.walks_kept, warm.walks_kept),
        per(t.sprites_updated, warm.sprites_updated),
        startup_ms,
        first_frame_ms,
        worst_first_second_ms,
        args.pipeline_cache.is_some(),
        renderer.warm_start().bytes_loaded,
        renderer.warm_start().pipelines_prewarmed,
        renderer.warm_start().prewarm_time.as_secs_f64() * 1e3,
        renderer.warm_start().driver_cache,
        args.pointer,
        pointer_ms,
        pointer_share,
        moves,
        args.animated,
        args.particles,
        args.bulk,
        per(t.particles, warm.particles),
    );
    Ok(())
}

/// The bunnymark in a window: the app layer drives it.
struct WindowMark {
    args: Args,
    mark: Option<Bunnymark>,
    overlay: Option<NodeId>,
    wave: usize,
}

fn font() -> stage2d::Result<stage2d::Font> {
    stage2d::Font::load(common::asset("DejaVuSans.ttf"))
}

impl stage2d::app::App for WindowMark {
    fn init(&mut self, ctx: &mut stage2d::app::AppContext) -> stage2d::Result<()> {
        let mut mark = Bunnymark::new(ctx.renderer, &self.args)?;
        mark.add(self.args.sprites)?;
        // The stats overlay: a translucent panel and a text, on top of the bunnies.
        let panel = ctx.renderer.white_texture();
        let root = mark.scene.root();
        mark.scene.add(
            root,
            Node::sprite(panel)
                .sized(300.0, 128.0)
                .at(8.0, 8.0)
                .tinted(Color::BLACK)
                .with_alpha(0.6),
        )?;
        let text = stage2d::Text::new("", &font()?, 14.0);
        self.overlay = Some(mark.scene.add(root, Node::text(text).at(16.0, 14.0))?);
        self.mark = Some(mark);
        Ok(())
    }

    fn update(&mut self, ctx: &mut stage2d::app::AppContext) -> stage2d::Result<()> {
        let mark = self.mark.as_mut().expect("initialised");
        if ctx.input.mouse_down[0] {
            // Each wave of added bunnies shares one texture, as in PixiJS's bunnymark.
            self.wave += 1;
            mark.add_wave(100, self.wave)?;
        }
        mark.update();
        let s = ctx.renderer.stats();
        let f = s.last_frame;
        let t = s.total;
        let line = format!(
            "FPS {:.0}   frame {:.2} ms\nsprites {}\ndraw calls {}\nset_pipeline issued {} skipped {}\npipeline cache hits {} misses {}\nCPU collect {:.2} ms  submit {:.2} ms",
            ctx.ticker.fps,
            ctx.ticker.frame_ms,
            mark.bunnies.len(),
            f.draw_calls,
            f.set_pipeline_issued,
            f.set_pipeline_skipped,
            t.pipeline_hits_with_hash + t.pipeline_hits_without_hash,
            t.pipeline_misses,
            f.collect_ns as f64 / 1e6,
            f.submit_ns as f64 / 1e6,
        );
        if let Some(text) = self
            .overlay
            .and_then(|id| mark.scene.get_mut(id))
            .and_then(|n| n.as_text_mut())
        {
            text.set_text(&line);
        }
        Ok(())
    }

    fn scene(&self) -> &Scene {
        &self.mark.as_ref().expect("initialised").scene
    }
}

fn run_window(args: &Args) -> stage2d::Result<()> {
    let mut options = stage2d::app::WindowOptions::default();
    options.title = "stage2d bunnymark".into();
    (options.width, options.height) = (WIDTH, HEIGHT);
    options.vsync = args.vsync;
    options.max_frames = args.frames_given.then_some(args.frames as u64);
    options.clear_color = Color::hex(0x1099bb);
    let app = WindowMark {
        args: args.clone(),
        mark: None,
        overlay: None,
        wave: 0,
    };
    let (app, summary, renderer) = stage2d::app::run(options, app)?;
    let sprites = app.mark.map_or(0, |m| m.bunnies.len());
    let (total, frames) = renderer.map_or((Default::default(), 0), |r| {
        (r.stats().total, r.stats().frames.max(1))
    });
    let per = |v: u64| v as f64 / frames as f64;
    println!(
        "{{\"mode\":\"window\",\"frames\":{},\"frames_skipped\":{},\"seconds\":{:.3},\"fps\":{:.1},\"sprites\":{},\"draw_calls_per_frame\":{:.2},\"set_pipeline_issued_per_frame\":{:.2},\"set_pipeline_skipped_per_frame\":{:.2},\"pipeline_hits\":{},\"pipeline_misses\":{}}}",
        summary.frames_presented,
        summary.frames_skipped,
        summary.seconds,
        summary.frames_presented as f64 / summary.seconds.max(1e-9),
        sprites,
        per(total.draw_calls),
        per(total.set_pipeline_issued),
        per(total.set_pipeline_skipped),
        total.pipeline_hits_with_hash + total.pipeline_hits_without_hash,
        total.pipeline_misses,
    );
    Ok(())
}

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let mut args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("bunnymark: {e}");
            std::process::exit(2);
        }
    };
    if !args.headless && !common::has_display() {
        eprintln!("bunnymark: no display (DISPLAY / WAYLAND_DISPLAY unset); running headless");
        args.headless = true;
    }
    if !args.headless {
        match run_window(&args) {
            Ok(()) => return,
            Err(stage2d::Error::Window(e)) => {
                eprintln!("bunnymark: cannot open a window ({e}); running headless");
            }
            Err(e) => {
                eprintln!("bunnymark: {e}");
                std::process::exit(1);
            }
        }
    }
    if let Err(e) = run_headless(&args) {
        eprintln!("bunnymark: {e}");
        std::process::exit(1);
    }
}
