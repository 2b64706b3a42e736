//! A window with a spinning bunny, the whole program in one file: stage2d's app layer with nothing hidden in
//! helpers. The app's state is built by `run_with` once the window and renderer exist, the bunny stays centred
//! through resizes (`App::resized`), and the title shows the frame rate (`AppContext::window`).
//!
//! `cargo run --example hello` (with a display). `--frames N` closes it after N frames and prints what happened;
//! `--resize-at N` asks for a 500x400 window at frame N; `--lose-device-at N` destroys the GPU device at frame N,
//! as a driver reset would, and the run goes on on a new one (the window test uses all three).

use stage2d::app::{run_with, App, AppContext, WindowOptions};
use stage2d::glam::Vec2;
use stage2d::winit::dpi::LogicalSize;
use stage2d::{Color, Node, NodeId, Sampling, Scene};

/// The background PixiJS's examples use.
const BACKGROUND: Color = Color::hex(0x1099bb);

struct Hello {
    scene: Scene,
    bunny: NodeId,
    resize_at: Option<u64>,
    lose_device_at: Option<u64>,
    /// Sizes `resized` was told, in logical pixels.
    sizes: Vec<Vec2>,
}

impl App for Hello {
    fn update(&mut self, ctx: &mut AppContext) -> stage2d::Result<()> {
        let spin = 2.0 * ctx.ticker.delta_seconds;
        self.scene.transform_mut(self.bunny).unwrap().rotation += spin;
        if ctx.ticker.frames.is_multiple_of(30) {
            let title = format!("hello stage2d ({:.0} fps)", ctx.ticker.fps);
            ctx.window().set_title(&title);
        }
        if self.resize_at == Some(ctx.ticker.frames) {
            let _ = ctx.window().request_inner_size(LogicalSize::new(500, 400));
        }
        if self.lose_device_at == Some(ctx.ticker.frames) {
            ctx.renderer.device().destroy();
        }
        Ok(())
    }

    fn scene(&self) -> &Scene {
        &self.scene
    }

    fn resized(&mut self, _ctx: &mut AppContext, size: Vec2) {
        self.scene.transform_mut(self.bunny).unwrap().position = size / 2.0;
        self.sizes.push(size);
    }
}

fn main() -> stage2d::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let number = |flag: &str| {
        let i = args.iter().position(|a| a == flag)?;
        args.get(i + 1)?.parse::<u64>().ok()
    };
    let mut options = WindowOptions::new("hello stage2d")
        .with_size(400, 300)
        .with_clear_color(BACKGROUND);
    if let Some(frames) = number("--frames") {
        options = options.with_max_frames(frames);
    }
    let resize_at = number("--resize-at");
    let lose_device_at = number("--lose-device-at");
    let (app, summary, _) = run_with(options, move |ctx| {
        let texture = ctx
            .renderer
            .load_texture("assets/bunny0.png", Sampling::NEAREST)?;
        let mut scene = Scene::new();
        let centre = ctx.size / 2.0;
        let bunny = scene.add(
            scene.root(),
            Node::sprite(texture)
                .at(centre.x, centre.y)
                .anchor(0.5, 0.5)
                .scaled(3.0),
        )?;
        Ok(Hello {
            scene,
            bunny,
            resize_at,
            lose_device_at,
            sizes: Vec::new(),
        })
    })?;
    let last = app.sizes.last().copied().unwrap_or_default();
    println!(
        "frames {} resized {} times, last {}x{}, bunny at {:?}, surface reconfigured {} times, device recovered {} times",
        summary.frames_presented,
        app.sizes.len(),
        last.x,
        last.y,
        app.scene.transform(app.bunny).map(|t| t.position),
        summary.reconfigurations,
        summary.device_recoveries
    );
    Ok(())
}
