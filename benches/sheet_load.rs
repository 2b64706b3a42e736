//! Loading a 2048x2048 spritesheet of 500 frames: the time until it is usable (JSON parsed, image decoded on a
//! worker, uploaded, and a frame drawn with every one of its frames on screen) and the process's peak memory
//! around it. Prints one JSON line.
//!
//! `cargo bench --bench sheet_load [-- --mipmaps]` (one process a mode, so the peak is the mode's; the sheet is
//! generated into a temporary directory first: a noisy image, so
//! its PNG decodes at a realistic rate, and a TexturePacker hash of 500 trimmed frames, a fifth of them rotated).

use stage2d::image::{Rgba, RgbaImage};
use stage2d::{Assets, Color, Node, Renderer, RendererOptions, Sampling, Scene};
use std::fmt::Write;
use std::time::Instant;

const SIDE: u32 = 2048;
const FRAMES: u32 = 500;

/// Peak and current resident memory of this process in MiB (Linux; 0 elsewhere).
fn memory_mib() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0)
    };
    (field("VmHWM:"), field("VmRSS:"))
}

/// Writes the sheet's PNG and JSON into `dir`; returns the JSON's path.
fn make_sheet(dir: &std::path::Path) -> std::path::PathBuf {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let img = RgbaImage::from_fn(SIDE, SIDE, |x, y| {
        let n = next();
        let base = ((x / 7 + y / 5) % 64) as u8;
        Rgba([
            base.wrapping_add(n as u8 & 31),
            (y / 8) as u8,
            (n >> 8) as u8 & 127,
            255 - (n >> 16) as u8 % 32,
        ])
    });
    img.save(dir.join("big.png")).unwrap();
    // 500 cells of 88x88 on a 23-wide grid; each frame trimmed to 80x70 at offset (5, 10) of a 90x90 source.
    let mut json = String::from("{\"frames\": {");
    for i in 0..FRAMES {
        let (cx, cy) = ((i % 23) * 88, (i / 23) * 88);
        let rotated = i % 5 == 0;
        let (w, h) = (80, 70);
        if i > 0 {
            json.push(',');
        }
        write!(
            json,
            "\"f{i:03}.png\": {{\"frame\": {{\"x\": {cx}, \"y\": {cy}, \"w\": {w}, \"h\": {h}}}, \"rotated\": {rotated}, \"trimmed\": true, \"spriteSourceSize\": {{\"x\": 5, \"y\": 10, \"w\": {w}, \"h\": {h}}}, \"sourceSize\": {{\"w\": 90, \"h\": 90}}, \"anchor\": {{\"x\": 0.5, \"y\": 0.5}}}}"
        )
        .unwrap();
    }
    json.push_str("}, \"animations\": {\"all\": [");
    for i in 0..FRAMES {
        if i > 0 {
            json.push(',');
        }
        write!(json, "\"f{i:03}.png\"").unwrap();
    }
    write!(
        json,
        "]}}, \"meta\": {{\"image\": \"big.png\", \"size\": {{\"w\": {SIDE}, \"h\": {SIDE}}}, \"scale\": \"1\"}}}}"
    )
    .unwrap();
    let path = dir.join("big.json");
    std::fs::write(&path, json).unwrap();
    path
}

fn main() {
    let dir = std::env::temp_dir().join(format!("stage2d-sheet-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = make_sheet(&dir);
    let png_bytes = std::fs::metadata(dir.join("big.png")).map_or(0, |m| m.len());
    let mut renderer = Renderer::new_headless(RendererOptions::default()).unwrap();
    let info = renderer.adapter_info();
    let target = renderer.create_render_target(1024, 1024).unwrap();
    // Warm the pipelines with a frame first, so the figure is the sheet's.
    renderer
        .render(&Scene::new(), &target, Some(Color::BLACK))
        .unwrap();
    renderer.wait_idle().unwrap();
    let (hwm_before, rss_before) = memory_mib();
    let mut samples = Vec::new();
    let mut polls = 0;
    let mipmaps = std::env::args().any(|a| a == "--mipmaps");
    {
        let sampling = if mipmaps {
            Sampling::TRILINEAR
        } else {
            Sampling::LINEAR
        };
        let t0 = Instant::now();
        let mut assets = Assets::new();
        let bundle = assets.load_bundle([&json], sampling);
        while !assets.is_done(bundle).unwrap() {
            assets.poll(&mut renderer);
            polls += 1;
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
        assert!(
            assets.errors(bundle).unwrap().is_empty(),
            "{:?}",
            assets.errors(bundle).unwrap()
        );
        let loaded_ms = t0.elapsed().as_secs_f64() * 1e3;
        let sheet = assets.spritesheet(&json).unwrap();
        let mut scene = Scene::new();
        for (i, name) in sheet.frame_names().enumerate() {
            let s = sheet.sprite(name).unwrap();
            let mut n = Node::sprite(s.texture)
                .at((i % 25) as f32 * 40.0 + 20.0, (i / 25) as f32 * 50.0 + 25.0);
            n.transform.scale = stage2d::glam::Vec2::splat(0.4);
            if let stage2d::NodeKind::Sprite(sp) = &mut n.props.kind {
                *sp = s;
            }
            scene.add(scene.root(), n).unwrap();
        }
        renderer
            .render(&scene, &target, Some(Color::BLACK))
            .unwrap();
        renderer.wait_idle().unwrap();
        let usable_ms = t0.elapsed().as_secs_f64() * 1e3;
        let draw_calls = renderer.stats().last_frame.draw_calls;
        let (hwm, rss) = memory_mib();
        samples.push(format!(
            "{{\"mipmaps\":{mipmaps},\"loaded_ms\":{loaded_ms:.1},\"usable_ms\":{usable_ms:.1},\"draw_calls\":{draw_calls},\"peak_rss_mib\":{hwm:.1},\"peak_rss_added_mib\":{:.1},\"rss_after_mib\":{rss:.1}}}", hwm - hwm_before
        ));
        assets.unload(&mut renderer, &json).unwrap();
        renderer.render(&Scene::new(), &target, None).unwrap();
        renderer.wait_idle().unwrap();
    }
    println!(
        "{{\"bench\":\"sheet_load\",\"side\":{SIDE},\"frames\":{FRAMES},\"png_bytes\":{png_bytes},\"adapter\":\"{}\",\"backend\":\"{:?}\",\"peak_rss_before_mib\":{hwm_before:.1},\"rss_before_mib\":{rss_before:.1},\"polls\":{polls},\"runs\":[{}]}}",
        info.name.replace('"', "'"),
        info.backend,
        samples.join(",")
    );
    std::fs::remove_dir_all(&dir).ok();
}
