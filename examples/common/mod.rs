//! Helpers shared by the examples: flags, timing summaries, display detection.
#![allow(dead_code)]

use std::time::Instant;

/// Command-line flags: `--name value` pairs and bare `--switch`es.
pub struct Flags(Vec<String>);

impl Flags {
    pub fn from_env() -> Flags {
        Flags(std::env::args().skip(1).collect())
    }
    pub fn has(&self, name: &str) -> bool {
        self.0.iter().any(|a| a == name)
    }
    pub fn value(&self, name: &str) -> Option<&str> {
        let i = self.0.iter().position(|a| a == name)?;
        self.0.get(i + 1).map(|s| s.as_str())
    }
    pub fn num<T: std::str::FromStr>(&self, name: &str, default: T) -> T {
        match self.value(name) {
            Some(v) => v.parse().unwrap_or_else(|_| {
                eprintln!("{name} needs a number, got {v}");
                std::process::exit(2)
            }),
            None => default,
        }
    }
}

/// A file of the crate's `assets/`: from the working directory when run from a checkout (or a copy of one, as on
/// a benchmark machine), else from where the crate was built.
pub fn asset(name: &str) -> std::path::PathBuf {
    let local = std::path::Path::new("assets").join(name);
    if local.exists() {
        local
    } else {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("assets")
            .join(name)
    }
}

/// Whether a window could open: an X11 or Wayland display is named.
pub fn has_display() -> bool {
    std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some()
}

/// Collects per-frame durations in milliseconds.
#[derive(Default)]
pub struct Samples(Vec<f64>);

impl Samples {
    pub fn push(&mut self, ms: f64) {
        self.0.push(ms);
    }
    pub fn push_since(&mut self, t0: Instant) {
        self.0.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    pub fn percentile(&self, p: f64) -> f64 {
        let mut v = self.0.clone();
        v.sort_by(f64::total_cmp);
        if v.is_empty() {
            return 0.0;
        }
        v[((v.len() - 1) as f64 * p).round() as usize]
    }
    pub fn median(&self) -> f64 {
        self.percentile(0.5)
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    #[allow(dead_code)] // used by the soak only
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn mean(&self) -> f64 {
        if self.0.is_empty() {
            return 0.0;
        }
        self.0.iter().sum::<f64>() / self.0.len() as f64
    }
}

/// A tiny deterministic generator (xorshift), so runs are comparable.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// Starts env_logger at `warn` unless RUST_LOG says otherwise.
pub fn init_logging() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
}

/// A scene an example shows: built once, then updated every frame.
pub trait Demo: Sized {
    /// Builds the scene (load textures and fonts through `renderer`).
    fn build(renderer: &mut stage2d::Renderer) -> stage2d::Result<Self>;
    /// The scene to draw.
    fn scene(&self) -> &stage2d::Scene;
    /// Advances animation by `dt` seconds.
    fn update(&mut self, _renderer: &mut stage2d::Renderer, _dt: f32) {}
    /// Where the pointer is over the window, in logical pixels (called before `update` in a window).
    fn pointer(&mut self, _position: stage2d::glam::Vec2) {}
}

struct DemoApp<D: Demo>(Option<D>);

impl<D: Demo> stage2d::app::App for DemoApp<D> {
    fn init(&mut self, ctx: &mut stage2d::app::AppContext) -> stage2d::Result<()> {
        self.0 = Some(D::build(ctx.renderer)?);
        Ok(())
    }
    fn update(&mut self, ctx: &mut stage2d::app::AppContext) -> stage2d::Result<()> {
        let dt = ctx.ticker.delta_seconds;
        if let Some(d) = self.0.as_mut() {
            d.pointer(ctx.input.mouse_position);
            d.update(ctx.renderer, dt);
        }
        Ok(())
    }
    fn scene(&self) -> &stage2d::Scene {
        self.0.as_ref().expect("built").scene()
    }
}

/// Shows `D` in an 800x600 window, or, with `--headless`, no display, or no window to be had, renders
/// `--frames F` (default 60) steps offscreen and writes `--out FILE.png` (default `NAME.png`). With
/// `--pipeline-cache DIR` the renderer warm-starts from DIR, and a headless run prints one JSON line of start-up
/// figures (first frame, worst frame of the first second, pipelines pre-warmed).
pub fn show<D: Demo>(name: &str, mut options: stage2d::RendererOptions, clear: stage2d::Color) {
    init_logging();
    let flags = Flags::from_env();
    options.pipeline_cache = flags.value("--pipeline-cache").map(Into::into);
    let frames = flags.num("--frames", 60u64);
    let mut headless = flags.has("--headless");
    if !headless && !has_display() {
        eprintln!("{name}: no display (DISPLAY / WAYLAND_DISPLAY unset); writing a PNG instead");
        headless = true;
    }
    if !headless {
        let mut window = stage2d::app::WindowOptions::default();
        window.title = format!("stage2d {name}");
        window.renderer = options.clone();
        window.clear_color = clear;
        window.max_frames = flags.value("--frames").map(|_| frames);
        match stage2d::app::run(window, DemoApp::<D>(None)) {
            Ok(_) => return,
            Err(stage2d::Error::Window(e)) => {
                eprintln!("{name}: cannot open a window ({e}); writing a PNG instead")
            }
            Err(e) => {
                eprintln!("{name}: {e}");
                std::process::exit(1);
            }
        }
    }
    let out = flags
        .value("--out")
        .map_or(format!("{name}.png"), str::to_string);
    let warm = options.pipeline_cache.is_some();
    let run = || -> stage2d::Result<()> {
        let started = Instant::now();
        let mut r = stage2d::Renderer::new_headless(options)?;
        let mut d = D::build(&mut r)?;
        let target = r.create_render_target(800, 600)?;
        let (mut first_ms, mut worst_ms, mut startup_ms) = (0.0, 0.0f64, 0.0);
        let first_start = Instant::now();
        for i in 0..frames.max(1) {
            let t0 = Instant::now();
            d.update(&mut r, 1.0 / 60.0);
            r.render(d.scene(), &target, Some(clear))?;
            r.wait_idle()?;
            let ms = t0.elapsed().as_secs_f64() * 1e3;
            if i == 0 {
                first_ms = ms;
                startup_ms = started.elapsed().as_secs_f64() * 1e3;
            }
            if first_start.elapsed().as_secs_f64() <= 1.0 {
                worst_ms = worst_ms.max(ms);
            }
        }
        if warm {
            let w = r.warm_start();
            println!(
                "{{\"example\":\"{name}\",\"adapter\":\"{}\",\"startup_ms\":{startup_ms:.2},\"first_frame_ms\":{first_ms:.2},\"worst_frame_first_second_ms\":{worst_ms:.2},\"pipelines_prewarmed\":{},\"pipeline_cache_bytes_loaded\":{},\"pipelines_created\":{}}}",
                r.adapter_info().name,
                w.pipelines_prewarmed,
                w.bytes_loaded,
                r.stats().total.pipelines_created,
            );
        }
        r.save_png(&target, &out)?;
        let s = r.stats().last_frame;
        eprintln!(
            "{name}: wrote {out} ({} draw calls, {} masks)",
            s.draw_calls, s.masks_pushed
        );
        Ok(())
    };
    if let Err(e) = run() {
        eprintln!("{name}: {e}");
        std::process::exit(1);
    }
}
