//! Frames while assets load: a container of 40,000 small moving sprites drawn each frame (update, render, wait for
//! the GPU), first with nothing loading, then while a bundle of 8 large PNGs (4096x4096 noise) decodes, then while
//! 4 reads block (named pipes nobody writes), in one run. Prints one JSON line: each phase's median frame ms and
//! the ratios to the first.
//!
//! `cargo bench --bench loading -- [--sprites N] [--frames F] [--images K] [--side S]`

#[path = "../examples/common/mod.rs"]
mod common;

use common::Rng;
use stage2d::{Assets, Color, Node, Renderer, RendererOptions, Sampling, Scene};
use std::time::Instant;

fn main() {
    let flags = common::Flags::from_env();
    let sprites: usize = flags.num("--sprites", 40_000);
    let frames: usize = flags.num("--frames", 60);
    let images: usize = flags.num("--images", 8);
    let side: u32 = flags.num("--side", 4096);
    let mut r = Renderer::new_headless(RendererOptions::default()).expect("a renderer");
    let info = r.adapter_info();
    let white = r.white_texture();
    let mut scene = Scene::new();
    let group = scene.add(scene.root(), Node::container()).unwrap();
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut ids = Vec::with_capacity(sprites);
    for _ in 0..sprites {
        let node = Node::sprite(white)
            .sized(2.0, 2.0)
            .at(rng.next() * 800.0, rng.next() * 600.0);
        ids.push((scene.add(group, node).unwrap(), rng.next() - 0.5));
    }
    let target = r.create_render_target(800, 600).unwrap();
    let mut assets = Assets::new();
    let polls = std::cell::RefCell::new(Vec::new());
    let step = |r: &mut Renderer, assets: &mut Assets, scene: &mut Scene| -> f64 {
        let t0 = Instant::now();
        assets.poll(r);
        polls.borrow_mut().push(t0.elapsed().as_secs_f64() * 1e3);
        for (id, v) in &ids {
            if let Some(t) = scene.transform_mut(*id) {
                t.position.x = (t.position.x + v).rem_euclid(800.0);
            }
        }
        r.render(scene, &target, Some(Color::BLACK)).unwrap();
        r.wait_idle().unwrap();
        t0.elapsed().as_secs_f64() * 1e3
    };
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    };
    for _ in 0..10 {
        step(&mut r, &mut assets, &mut scene);
    }
    let idle: Vec<f64> = (0..frames)
        .map(|_| step(&mut r, &mut assets, &mut scene))
        .collect();

    // Large PNGs of noise, written once (fast compression: the decode, not the file, is what is measured).
    let dir = std::env::temp_dir().join(format!("stage2d-loading-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut paths = Vec::new();
    for i in 0..images {
        let p = dir.join(format!("noise{i}.png"));
        let mut state = 0x9e37_79b9u32.wrapping_add(i as u32);
        let img = stage2d::image::RgbaImage::from_fn(side, side, |_, _| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            stage2d::image::Rgba(state.to_le_bytes())
        });
        let file = std::io::BufWriter::new(std::fs::File::create(&p).unwrap());
        let enc = stage2d::image::codecs::png::PngEncoder::new_with_quality(
            file,
            stage2d::image::codecs::png::CompressionType::Fast,
            stage2d::image::codecs::png::FilterType::NoFilter,
        );
        img.write_with_encoder(enc).unwrap();
        paths.push(p);
    }
    let bundle = assets.load_bundle(&paths, Sampling::LINEAR);
    polls.borrow_mut().clear();
    let t_decode = Instant::now();
    let mut decoding = Vec::new();
    while !assets.is_done(bundle).unwrap() {
        decoding.push(step(&mut r, &mut assets, &mut scene));
    }
    let decode_s = t_decode.elapsed().as_secs_f64();
    let poll_ms = polls.borrow().clone();
    let decode_errors = assets.errors(bundle).unwrap().len();
    for p in &paths {
        let _ = assets.unload(&mut r, p);
    }

    // Reads that block: named pipes nobody writes (opening one blocks until a writer comes).
    let mut pipes = Vec::new();
    for i in 0..4 {
        let p = dir.join(format!("pipe{i}.png"));
        let ok = std::process::Command::new("mkfifo")
            .arg(&p)
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            pipes.push(p);
        }
    }
    let hung = assets.load_bundle(&pipes, Sampling::LINEAR);
    let hanging: Vec<f64> = (0..frames)
        .map(|_| step(&mut r, &mut assets, &mut scene))
        .collect();
    let still_loading = !assets.is_done(hung).unwrap();
    for p in &pipes {
        let _ = assets.unload(&mut r, p);
        // A writer that comes and goes ends the blocked read.
        drop(std::fs::OpenOptions::new().write(true).open(p));
    }
    let _ = std::fs::remove_dir_all(&dir);
    let (idle, dec, hang) = (median(idle), median(decoding.clone()), median(hanging));
    println!(
        "{{\"bench\":\"loading\",\"adapter\":\"{}\",\"sprites\":{sprites},\"images\":{images},\"side\":{side},\"frame_ms_idle\":{idle:.3},\"frame_ms_decoding\":{dec:.3},\"decoding_frames\":{},\"decode_s\":{decode_s:.2},\"decode_errors\":{decode_errors},\"decoding_ratio\":{:.3},\"poll_ms_while_decoding\":{:?},\"hung_reads\":{},\"frame_ms_reads_hung\":{hang:.3},\"hung_ratio\":{:.3},\"hung_still_loading\":{still_loading}}}",
        info.name,
        decoding.len(),
        dec / idle,
        poll_ms.iter().map(|m| (m * 10.0).round() / 10.0).collect::<Vec<_>>(),
        pipes.len(),
        hang / idle,
    );
}
