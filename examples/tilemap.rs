//! A camera panning and zooming over a tile map: render groups and culling at scale.
//!
//! The map is `--tiles N` 16x16 tiles on four textures, in chunks of 32x32 tiles, in regions of 8x8 chunks, under
//! a camera container (culling tests a region before its 64 chunks, so a zoomed view tests few of them). With
//! `--groups camera` (the default) the camera is one render group: its tiles are batched once, and every frame
//! moves one transform and draws only the group's cells (runs of 256 tiles) that touch the view, so neither the
//! CPU nor the GPU cost of a frame grows with N. With `--groups chunks` each chunk is a render group of its own
//! and chunks outside the view are culled by their cached bounds; `--groups none` walks every tile.
//!
//! `--view-tiles N` zooms so the view shows about N tiles (the camera's breathing and the cells' edges add up to
//! a fifth); `--zoom` is `--view-tiles` of 1% of the map, so culling leaves about 1% of the tiles to draw.
//! `--world-tiles N` is `--tiles N`.
//!
//! `cargo run --release --example tilemap -- --headless --tiles 1000000 --frames 300` prints one JSON line of
//! timings and counters; without `--headless` it opens a window (with no display it runs headless by itself).
//! `--out FILE.png` saves the last frame.

mod common;
use stage2d::glam::Vec2;
use stage2d::{Color, Node, NodeId, Renderer, RendererOptions, Sampling, Scene, Texture};
use std::time::Instant;

const WIDTH: u32 = 800;
const HEIGHT: u32 = 600;
const TILE: f32 = 16.0;
const CHUNK: usize = 32;
/// Chunks along a region's side.
const REGION: usize = 8;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Groups {
    None,
    Camera,
    Chunks,
}

struct Map {
    scene: Scene,
    camera: NodeId,
    /// Map side in pixels.
    side: f32,
    zoom: f32,
    frame: f32,
}

impl Map {
    fn build(
        renderer: &mut Renderer,
        tiles: usize,
        groups: Groups,
        view: Option<usize>,
    ) -> stage2d::Result<Map> {
        let textures = tile_textures(renderer)?;
        let per_row = (tiles as f64).sqrt().ceil().max(1.0) as usize;
        let side = per_row as f32 * TILE;
        let mut scene = Scene::new();
        let mut camera = Node::container();
        camera.props.render_group = groups == Groups::Camera;
        let camera = scene.add(scene.root(), camera)?;
        let chunks = per_row.div_ceil(CHUNK);
        let regions = chunks.div_ceil(REGION);
        let mut placed = 0;
        for (ry, rx) in (0..regions).flat_map(|y| (0..regions).map(move |x| (y, x))) {
            let region = scene.add(camera, Node::container())?;
            for (cy, cx) in (ry * REGION..chunks.min((ry + 1) * REGION))
                .flat_map(|y| (rx * REGION..chunks.min((rx + 1) * REGION)).map(move |x| (y, x)))
            {
                let mut chunk =
                    Node::container().at((cx * CHUNK) as f32 * TILE, (cy * CHUNK) as f32 * TILE);
                chunk.props.render_group = groups == Groups::Chunks;
                let chunk = scene.add(region, chunk)?;
                for ty in 0..CHUNK {
                    for tx in 0..CHUNK {
                        let (x, y) = (cx * CHUNK + tx, cy * CHUNK + ty);
                        if x >= per_row || y >= per_row || y * per_row + x >= tiles {
                            continue;
                        }
                        let t = textures[(x / 5 + y / 7 * 3 + (x * y) % 3) % textures.len()];
                        scene.add(
                            chunk,
                            Node::sprite(t).at(tx as f32 * TILE, ty as f32 * TILE),
                        )?;
                        placed += 1;
                    }
                }
            }
        }
        debug_assert_eq!(placed, tiles);
        // Zoomed so that the view shows about `view` tiles; otherwise tiles are drawn at their size.
        let zoom = match view {
            Some(n) => ((WIDTH * HEIGHT) as f32 / n.max(1) as f32).sqrt() / TILE,
            None => 1.0,
        };
        Ok(Map {
            scene,
            camera,
            side,
            zoom,
            frame: 0.0,
        })
    }

    /// Moves the camera: a slow circle around the map's centre, and a zoom breathing by 10%.
    fn update(&mut self) {
        self.frame += 1.0;
        let t = self.frame / 60.0;
        let z = self.zoom * (1.0 + 0.1 * (t * 0.7).sin());
        let centre = Vec2::splat(self.side / 2.0)
            + Vec2::new(t.cos(), t.sin()) * (self.side / 4.0).min(400.0);
        if let Some(c) = self.scene.transform_mut(self.camera) {
            c.scale = Vec2::splat(z);
            c.pivot = centre;
            c.position = Vec2::new(WIDTH as f32, HEIGHT as f32) / 2.0;
        }
    }
}

/// Four 16x16 tile textures: grass, water, sand and stone, each with a darker border.
fn tile_textures(r: &mut Renderer) -> stage2d::Result<Vec<Texture>> {
    let colours = [
        [76, 154, 42],
        [40, 96, 190],
        [214, 190, 120],
        [128, 128, 136],
    ];
    colours
        .iter()
        .map(|c| {
            let mut rgba = Vec::with_capacity(16 * 16 * 4);
            for y in 0..16 {
                for x in 0..16 {
                    let edge = x == 0 || y == 0 || x == 15 || y == 15;
                    let k = if edge {
                        0.7
                    } else {
                        1.0 - 0.08 * (((x * 3 + y * 5) % 4) as f32)
                    };
                    rgba.extend(c.iter().map(|&v| (v as f32 * k) as u8));
                    rgba.push(255);
                }
            }
            r.create_texture(16, 16, &rgba, Sampling::NEAREST)
        })
        .collect()
}

fn main() {
    common::init_logging();
    let flags = common::Flags::from_env();
    let tiles = flags
        .num("--world-tiles", flags.num("--tiles", 10_000usize))
        .max(1);
    let view = match flags.has("--zoom") {
        true => Some(tiles.div_ceil(100)),
        false => flags.value("--view-tiles").map(|v| {
            v.parse().unwrap_or_else(|_| {
                eprintln!("tilemap: --view-tiles takes a number of tiles, not {v}");
                std::process::exit(2);
            })
        }),
    };
    let groups = match flags.value("--groups") {
        Some("none") => Groups::None,
        Some("camera") => Groups::Camera,
        Some("chunks") => Groups::Chunks,
        Some(other) => {
            eprintln!("tilemap: --groups takes none, camera or chunks, not {other}");
            std::process::exit(2);
        }
        None => Groups::Camera,
    };
    let mut headless = flags.has("--headless");
    if !headless && !common::has_display() {
        eprintln!("tilemap: no display (DISPLAY / WAYLAND_DISPLAY unset); running headless");
        headless = true;
    }
    if !headless {
        windowed(tiles, groups, view, &flags);
        return;
    }
    let frames = flags.num("--frames", 300usize);
    let warmup = flags.num("--warmup", 30usize);
    if let Err(e) = run_headless(tiles, groups, view, frames, warmup, flags.value("--out")) {
        eprintln!("tilemap: {e}");
        std::process::exit(1);
    }
}

fn run_headless(
    tiles: usize,
    groups: Groups,
    view: Option<usize>,
    frames: usize,
    warmup: usize,
    out: Option<&str>,
) -> stage2d::Result<()> {
    let mut r = Renderer::new_headless(RendererOptions::default().with_gpu_timing(true))?;
    let info = r.adapter_info();
    let t0 = Instant::now();
    let mut map = Map::build(&mut r, tiles, groups, view)?;
    let build_ms = t0.elapsed().as_secs_f64() * 1e3;
    let target = r.create_render_target(WIDTH, HEIGHT)?;
    let clear = Some(Color::hex(0x202028));
    let t0 = Instant::now();
    for _ in 0..warmup.max(1) {
        map.update();
        r.render(&map.scene, &target, clear)?;
        r.wait_idle()?;
    }
    let warmup_ms = t0.elapsed().as_secs_f64() * 1e3;
    let warm = r.stats().total;
    let (mut cpu, mut frame, mut gpu) = (
        common::Samples::default(),
        common::Samples::default(),
        common::Samples::default(),
    );
    for _ in 0..frames {
        let t0 = Instant::now();
        map.update();
        r.render(&map.scene, &target, clear)?;
        let t1 = Instant::now();
        r.wait_idle()?;
        cpu.push((t1 - t0).as_secs_f64() * 1e3);
        frame.push_since(t0);
        if let Some(ms) = r.stats().gpu_ms {
            gpu.push(f64::from(ms));
        }
    }
    let t = r.stats().total;
    // The pipelined loop (one frame on the GPU while the CPU prepares the next): the CPU time of a frame that does
    // not sit idle for the whole GPU frame before it (a core left idle that long slows down, which shows at 1M).
    let mut piped = common::Samples::default();
    for i in 0..frames + warmup {
        let t0 = Instant::now();
        map.update();
        r.render(&map.scene, &target, clear)?;
        if i >= warmup {
            piped.push_since(t0);
        }
        r.wait_frames_in_flight(1)?;
    }
    r.wait_idle()?;
    if let Some(out) = out {
        r.save_png(&target, out)?;
    }
    let per = |total: u64, before: u64| (total - before) as f64 / frames.max(1) as f64;
    let created = (t.buffers_created - warm.buffers_created)
        + (t.textures_created - warm.textures_created)
        + (t.bind_groups_created - warm.bind_groups_created)
        + (t.pipelines_created - warm.pipelines_created);
    let gpu_ms = match gpu.is_empty() {
        true => "null".to_string(),
        false => format!("{:.4}", gpu.median()),
    };
    println!(
        concat!(
            "{{\"example\":\"tilemap\",\"tiles\":{},\"groups\":\"{:?}\",\"zoom\":{:.4},\"frames\":{},",
            "\"adapter\":\"{}\",\"backend\":\"{:?}\",\"build_ms\":{:.2},\"warmup_ms\":{:.2},",
            "\"cpu_ms_median\":{:.4},\"cpu_ms_p95\":{:.4},\"cpu_ms_pipelined_median\":{:.4},\"frame_ms_median\":{:.4},\"gpu_ms_median\":{},",
            "\"sprites_per_frame\":{},\"culled_per_frame\":{},\"group_cells_culled_per_frame\":{},\"groups_replayed_per_frame\":{},",
            "\"groups_rebuilt_after_warmup\":{},\"draw_calls_per_frame\":{},\"bytes_uploaded_per_frame\":{},",
            "\"collect_ms_mean\":{:.4},\"prepare_ms_mean\":{:.4},\"record_ms_mean\":{:.4},\"submit_ms_mean\":{:.4},",
            "\"objects_created_after_warmup\":{}}}"
        ),
        tiles,
        groups,
        map.zoom,
        frames,
        info.name.replace('"', "'"),
        info.backend,
        build_ms,
        warmup_ms,
        cpu.median(),
        cpu.percentile(0.95),
        piped.median(),
        frame.median(),
        gpu_ms,
        per(t.sprites, warm.sprites),
        per(t.culled, warm.culled),
        per(t.group_cells_culled, warm.group_cells_culled),
        per(t.groups_replayed, warm.groups_replayed),
        t.groups_rebuilt - warm.groups_rebuilt,
        per(t.draw_calls, warm.draw_calls),
        per(t.bytes_uploaded, warm.bytes_uploaded),
        per(t.collect_ns, warm.collect_ns) / 1e6,
        per(t.prepare_ns, warm.prepare_ns) / 1e6,
        per(t.record_ns, warm.record_ns) / 1e6,
        per(t.submit_ns, warm.submit_ns) / 1e6,
        created,
    );
    Ok(())
}

/// The map in a window, the camera moving each frame.
fn windowed(tiles: usize, groups: Groups, view: Option<usize>, flags: &common::Flags) {
    struct TileApp {
        map: Option<Map>,
        tiles: usize,
        groups: Groups,
        view: Option<usize>,
    }
    impl stage2d::app::App for TileApp {
        fn init(&mut self, ctx: &mut stage2d::app::AppContext) -> stage2d::Result<()> {
            self.map = Some(Map::build(
                ctx.renderer,
                self.tiles,
                self.groups,
                self.view,
            )?);
            Ok(())
        }
        fn update(&mut self, _ctx: &mut stage2d::app::AppContext) -> stage2d::Result<()> {
            if let Some(m) = self.map.as_mut() {
                m.update();
            }
            Ok(())
        }
        fn scene(&self) -> &Scene {
            &self.map.as_ref().expect("built").scene
        }
    }
    let mut window = stage2d::app::WindowOptions::default();
    window.title = "stage2d tilemap".into();
    window.clear_color = Color::hex(0x202028);
    window.max_frames = flags.value("--frames").and_then(|f| f.parse().ok());
    let app = TileApp {
        map: None,
        tiles,
        groups,
        view,
    };
    if let Err(e) = stage2d::app::run(window, app) {
        eprintln!("tilemap: {e}");
        std::process::exit(1);
    }
}
