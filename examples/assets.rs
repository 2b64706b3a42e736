//! Assets: a bundle (a spritesheet, a tile, a panel) loaded in the background behind a loading bar, then animated
//! critters from the sheet walking over a scrolling tiling background inside a nine-slice panel.
//!
//! `cargo run --release --example assets` opens a window (Escape closes it; `--frames F` stops after F frames).
//! `-- --headless --out assets.png` (or no display) runs the same steps at 60 simulated frames a second, writes
//! the last frame, and prints one JSON line (load time, frames, draw calls).

mod common;

use common::{Flags, Rng};
use glam::Vec2;
use stage2d::app::{App, AppContext, WindowOptions};
use stage2d::{
    AnimatedSprite, Assets, BundleId, Color, Font, NineSliceSprite, Node, NodeId, Renderer,
    RendererOptions, Sampling, Scene, Text, TilingSprite,
};
use std::time::Instant;

const WIDTH: f32 = 800.0;
const HEIGHT: f32 = 600.0;
const ANIMATIONS: [&str; 3] = ["blob_walk", "bird_flap", "beetle_crawl"];

/// One critter: its animation and its walk.
struct Critter {
    anim: AnimatedSprite,
    speed: f32,
}

/// The scene and what moves in it.
pub struct Demo {
    scene: Scene,
    assets: Assets,
    bundle: BundleId,
    loading_fill: NodeId,
    loading_label: NodeId,
    font: Font,
    /// After loading: the background and the critters.
    background: Option<NodeId>,
    critters: Vec<Critter>,
    /// When the bundle started, and how long it took.
    started: Instant,
    pub load_ms: Option<f64>,
    count: usize,
}

impl Demo {
    pub fn new(renderer: &mut Renderer, count: usize) -> stage2d::Result<Demo> {
        let font = Font::load(common::asset("DejaVuSans.ttf"))?;
        let mut assets = Assets::new();
        let bundle = assets.load_bundle(
            [
                common::asset("critters.json"),
                common::asset("grass_tile.png"),
                common::asset("panel.png"),
            ],
            Sampling::LINEAR.repeat().with_mipmaps(),
        );
        let mut scene = Scene::new();
        let root = scene.root();
        let white = renderer.white_texture();
        // The loading bar: a frame and a fill scaled by the bundle's progress.
        let bar = scene.add(
            root,
            Node::container().at(WIDTH / 2.0 - 200.0, HEIGHT / 2.0),
        )?;
        scene.add(
            bar,
            Node::sprite(white)
                .sized(400.0, 24.0)
                .tinted(Color::hex(0x34495e)),
        )?;
        let mut fill = Node::sprite(white)
            .sized(396.0, 20.0)
            .tinted(Color::hex(0x2ecc71))
            .at(2.0, 2.0);
        fill.transform.scale.x = 0.0;
        let loading_fill = scene.add(bar, fill)?;
        let loading_label = scene.add(
            bar,
            Node::text(Text::new("Loading 0%", &font, 18.0)).at(0.0, -28.0),
        )?;
        Ok(Demo {
            scene,
            assets,
            bundle,
            loading_fill,
            loading_label,
            font,
            background: None,
            critters: Vec::new(),
            started: Instant::now(),
            load_ms: None,
            count,
        })
    }

    /// One frame: polls the bundle while it loads (and builds the scene once it has), then moves everything by
    /// `dt` seconds.
    pub fn step(&mut self, renderer: &mut Renderer, dt: f32) -> stage2d::Result<()> {
        if self.load_ms.is_none() {
            self.assets.poll(renderer);
            let p = self.assets.progress(self.bundle)?;
            if let Some(n) = self.scene.transform_mut(self.loading_fill) {
                n.scale.x = p;
            }
            if let Some(t) = self
                .scene
                .get_mut(self.loading_label)
                .and_then(|n| n.as_text_mut())
            {
                t.set_text(&format!("Loading {:.0}%", p * 100.0));
            }
            if self.assets.is_done(self.bundle)? {
                for e in self.assets.errors(self.bundle)? {
                    eprintln!("assets: {e}");
                }
                self.load_ms = Some(self.started.elapsed().as_secs_f64() * 1e3);
                self.build()?;
            }
            return Ok(());
        }
        if let Some(bg) = self.background {
            if let Some(t) = self.scene.get_mut(bg).and_then(|n| n.as_tiling_mut()) {
                t.tile_position.x -= 20.0 * dt;
                t.tile_position.y += 8.0 * dt;
            }
        }
        for c in &mut self.critters {
            c.anim.update(&mut self.scene, dt)?;
            if let Some(n) = self.scene.transform_mut(c.anim.node()) {
                n.position.x += c.speed * dt;
                if n.position.x > 560.0 {
                    n.position.x = 0.0;
                }
            }
        }
        Ok(())
    }

    /// The loaded scene: a tiling background, a nine-slice panel and the critters walking inside it.
    fn build(&mut self) -> stage2d::Result<()> {
        let scene = &mut self.scene;
        scene.remove(scene.parent(self.loading_fill).unwrap_or(self.loading_fill))?;
        let root = scene.root();
        let sheet = self
            .assets
            .spritesheet(common::asset("critters.json"))
            .cloned()
            .ok_or_else(|| stage2d::Error::AssetLoad {
                path: common::asset("critters.json"),
                reason: "the sheet did not load".into(),
            })?;
        if let Some(tile) = self.assets.get(common::asset("grass_tile.png")) {
            let mut bg = TilingSprite::new(tile, WIDTH, HEIGHT);
            bg.tile_scale = Vec2::splat(1.5);
            bg.tile_rotation = 0.1;
            self.background = Some(scene.add(root, Node::tiling(bg))?);
        }
        if let Some(panel) = self.assets.get(common::asset("panel.png")) {
            let mut p = NineSliceSprite::new(panel, [12.0; 4]);
            p.size = Vec2::new(640.0, 420.0);
            scene.add(root, Node::nine_slice(p).at(80.0, 110.0))?;
        }
        scene.add(
            root,
            Node::text(Text::new("stage2d assets", &self.font, 40.0).anchored(0.5, 0.0))
                .at(WIDTH / 2.0, 30.0),
        )?;
        let walk = scene.add(root, Node::container().at(120.0, 170.0))?;
        let mut rng = Rng(0x5eed);
        for i in 0..self.count {
            let name = ANIMATIONS[i % ANIMATIONS.len()];
            // The frame carries the sheet's anchor: the sprite is anchored as the sheet says.
            let first = sheet.try_frame(&format!("{name}_0.png"))?;
            let mut node = Node::sprite(first).at(rng.next() * 560.0, 40.0 + rng.next() * 300.0);
            node.transform.scale = Vec2::splat(1.0 + rng.next());
            let id = scene.add(walk, node)?;
            let mut anim =
                AnimatedSprite::from_sheet(id, &sheet, name)?.with_fps(8.0 + rng.next() * 8.0);
            anim.goto_and_play(scene, i % 6)?;
            self.critters.push(Critter {
                anim,
                speed: 30.0 + rng.next() * 60.0,
            });
        }
        Ok(())
    }
}

/// The windowed app.
struct WindowApp(Option<Demo>, usize);

impl App for WindowApp {
    fn init(&mut self, ctx: &mut AppContext) -> stage2d::Result<()> {
        self.0 = Some(Demo::new(ctx.renderer, self.1)?);
        Ok(())
    }
    fn update(&mut self, ctx: &mut AppContext) -> stage2d::Result<()> {
        if ctx
            .input
            .keys_down
            .contains(&winit::keyboard::KeyCode::Escape)
        {
            ctx.exit();
        }
        let dt = ctx.ticker.delta_seconds;
        match &mut self.0 {
            Some(d) => d.step(ctx.renderer, dt),
            None => Ok(()),
        }
    }
    fn scene(&self) -> &Scene {
        static EMPTY: std::sync::OnceLock<Scene> = std::sync::OnceLock::new();
        match &self.0 {
            Some(d) => &d.scene,
            None => EMPTY.get_or_init(Scene::new),
        }
    }
}

/// Runs headless for `frames` frames after loading and writes the last one to `out`.
fn headless(out: &str, count: usize, frames: u32) -> stage2d::Result<()> {
    let mut r = Renderer::new_headless(RendererOptions::default().with_msaa(true))?;
    let mut demo = Demo::new(&mut r, count)?;
    let target = r.create_render_target(WIDTH as u32, HEIGHT as u32)?;
    let mut loading_frames = 0u32;
    let started = Instant::now();
    while demo.load_ms.is_none() {
        demo.step(&mut r, 1.0 / 60.0)?;
        r.render(&demo.scene, &target, Some(Color::hex(0x1d2b36)))?;
        loading_frames += 1;
        if started.elapsed().as_secs() > 30 {
            return Err(stage2d::Error::InvalidFrame(
                "the bundle did not finish loading".into(),
            ));
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    for _ in 0..frames {
        demo.step(&mut r, 1.0 / 60.0)?;
        r.render(&demo.scene, &target, Some(Color::hex(0x1d2b36)))?;
    }
    r.save_png(&target, out)?;
    let f = r.stats().last_frame;
    println!(
        "{{\"example\":\"assets\",\"mode\":\"headless\",\"out\":\"{out}\",\"load_ms\":{:.1},\"loading_frames\":{loading_frames},\"critters\":{},\"frames\":{frames},\"draw_calls\":{},\"sprites\":{}}}",
        demo.load_ms.unwrap_or(0.0),
        demo.critters.len(),
        f.draw_calls,
        f.sprites
    );
    Ok(())
}

fn main() {
    common::init_logging();
    let flags = Flags::from_env();
    let count: usize = flags.num("--critters", 60);
    let headless_run = flags.has("--headless") || !common::has_display();
    if !headless_run {
        let mut window = WindowOptions::default();
        window.title = "stage2d assets".into();
        window.renderer = RendererOptions::default().with_msaa(true);
        window.clear_color = Color::hex(0x1d2b36);
        window.max_frames = flags.value("--frames").and_then(|f| f.parse().ok());
        match stage2d::app::run(window, WindowApp(None, count)) {
            Ok(_) => return,
            Err(stage2d::Error::Window(e)) => {
                eprintln!("assets: cannot open a window ({e}); running headless")
            }
            Err(e) => {
                eprintln!("assets: {e}");
                std::process::exit(1);
            }
        }
    }
    let out = flags.value("--out").unwrap_or("assets.png").to_string();
    if let Err(e) = headless(&out, count, flags.num("--frames", 90)) {
        eprintln!("assets: {e}");
        std::process::exit(1);
    }
}
