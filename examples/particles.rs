//! A fountain of a million particles: one `ParticleContainer` whose positions move every frame (the only property
//! uploaded each frame: 8 bytes a particle), each particle tinted and sized once, with the renderer's figures on
//! screen.
//!
//! `cargo run --release --example particles` opens a window; `-- --headless --out particles.png` (or no display)
//! renders `--frames F` steps (default 60) offscreen and writes the picture. `--particles N` sets the count
//! (default 1,000,000; at most `stage2d::MAX_PARTICLES`).

mod common;
use common::Rng;
use stage2d::glam::Vec2;
use stage2d::{
    Color, Node, NodeId, Particle, ParticleContainer, Renderer, RendererOptions, Sampling, Scene,
};

const WIDTH: f32 = 800.0;
const HEIGHT: f32 = 600.0;
/// Pixels a second squared, down.
const GRAVITY: f32 = 420.0;
/// Where the particles leave from.
const SPOUT: Vec2 = Vec2::new(400.0, 590.0);

struct Fountain {
    scene: Scene,
    particles: NodeId,
    label: NodeId,
    /// Each particle's velocity, by index, in pixels a second.
    velocities: Vec<Vec2>,
    rng: Rng,
    time: f32,
    fps: f32,
}

/// A fresh velocity: up and out of the spout, in a cone.
fn launch(rng: &mut Rng) -> Vec2 {
    let angle = (rng.next() - 0.5) * 0.5 - std::f32::consts::FRAC_PI_2;
    let speed = 300.0 + rng.next() * 180.0;
    Vec2::new(angle.cos(), angle.sin()) * speed
}

/// A soft round dot, 8x8, white with alpha falling to its rim (premultiplied by the renderer).
fn dot(r: &mut Renderer) -> stage2d::Result<stage2d::Texture> {
    let mut px = Vec::with_capacity(8 * 8 * 4);
    for y in 0..8 {
        for x in 0..8 {
            let d = Vec2::new(x as f32 - 3.5, y as f32 - 3.5).length() / 4.0;
            let a = ((1.0 - d) * 1.6).clamp(0.0, 1.0);
            px.extend_from_slice(&[255, 255, 255, (a * 255.0) as u8]);
        }
    }
    r.create_texture(8, 8, &px, Sampling::LINEAR)
}

impl common::Demo for Fountain {
    fn build(r: &mut Renderer) -> stage2d::Result<Self> {
        let flags = common::Flags::from_env();
        let n: usize = flags.num("--particles", 1_000_000usize);
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut pc = ParticleContainer::new(dot(r)?);
        pc.reserve(n)?;
        let mut velocities = Vec::with_capacity(n);
        for i in 0..n {
            // Spread over the first seconds of flight, so the fountain starts full.
            let v = launch(&mut rng);
            let t = (i as f32 / n as f32) * 1.6;
            let p = SPOUT + v * t + Vec2::new(0.0, 0.5 * GRAVITY * t * t);
            velocities.push(v + Vec2::new(0.0, GRAVITY * t));
            let hue = rng.next();
            let tint = Color::rgb(
                0.55 + 0.45 * (hue * std::f32::consts::TAU).cos(),
                0.55 + 0.45 * (hue * std::f32::consts::TAU + 2.1).cos(),
                0.55 + 0.45 * (hue * std::f32::consts::TAU + 4.2).cos(),
            );
            pc.add(
                Particle::new(p.x, p.y)
                    .anchored(0.5, 0.5)
                    .scaled(0.35 + rng.next() * 0.5)
                    .tinted(tint)
                    .with_alpha(0.7),
            )?;
        }
        let mut scene = Scene::new();
        let particles = scene.add(scene.root(), Node::particles(pc))?;
        let font = stage2d::Font::load(common::asset("DejaVuSans.ttf"))?;
        let panel = r.white_texture();
        scene.add(
            scene.root(),
            Node::sprite(panel)
                .sized(330.0, 70.0)
                .at(8.0, 8.0)
                .tinted(Color::BLACK)
                .with_alpha(0.6),
        )?;
        let label = scene.add(
            scene.root(),
            Node::text(stage2d::Text::new("", &font, 14.0)).at(16.0, 14.0),
        )?;
        Ok(Fountain {
            scene,
            particles,
            label,
            velocities,
            rng,
            time: 0.0,
            fps: 0.0,
        })
    }

    fn scene(&self) -> &Scene {
        &self.scene
    }

    fn update(&mut self, r: &mut Renderer, dt: f32) {
        let dt = dt.clamp(0.0, 0.05);
        self.time += dt;
        if dt > 0.0 {
            self.fps = self.fps * 0.9 + 0.1 / dt;
        }
        let (velocities, rng) = (&mut self.velocities, &mut self.rng);
        let Some(pc) = self
            .scene
            .get_mut(self.particles)
            .and_then(|n| n.as_particles_mut())
        else {
            return;
        };
        let count = pc.len();
        for (p, v) in pc
            .particles_mut()
            .position
            .iter_mut()
            .zip(velocities.iter_mut())
        {
            v.y += GRAVITY * dt;
            *p += *v * dt;
            if p.y > HEIGHT || p.x < 0.0 || p.x > WIDTH {
                *p = SPOUT;
                *v = launch(rng);
            }
        }
        let s = r.stats();
        let f = s.last_frame;
        let line = format!(
            "{count} particles   {:.0} fps\nCPU {:.2} ms (collect {:.2}, prepare {:.2})   GPU {}\n{:.1} MB uploaded a frame, {} draw calls",
            self.fps,
            (f.collect_ns + f.prepare_ns + f.record_ns + f.submit_ns) as f64 / 1e6,
            f.collect_ns as f64 / 1e6,
            f.prepare_ns as f64 / 1e6,
            s.gpu_ms.map_or("n/a".to_string(), |g| format!("{g:.2} ms")),
            f.bytes_uploaded as f64 / 1e6,
            f.draw_calls,
        );
        if let Some(t) = self.scene.get_mut(self.label).and_then(|n| n.as_text_mut()) {
            t.set_text(&line);
        }
    }
}

fn main() {
    common::show::<Fountain>(
        "particles",
        RendererOptions::default().with_gpu_timing(true),
        Color::hex(0x10141c),
    );
}
