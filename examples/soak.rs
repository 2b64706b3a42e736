//! The soak: thousands of frames of churn (sprites, shapes, text, masks, render textures of changing sizes,
//! pooled render textures, loaded textures created and destroyed; see `common/soak.rs`), watching what the
//! renderer holds and the process's resident memory.
//!
//! `cargo run --release --example soak -- --headless --frames 20000 --json-every 1000` prints one JSON line every
//! `--json-every` frames (frame, `rss_kb`, the live counts, frame times of the last interval) and a summary line,
//! and exits with status 1 if anything grew after warm-up:
//!
//! - **live counts** (textures, bind groups, render targets, attachments, pipelines): their maximum over the
//!   second half of the run may not exceed their maximum over the last half of warm-up (`--warmup W`, default 10%
//!   of the frames and at least 300). The churn's periods (at most 23 frames, plus the 60 idle frames after which
//!   attachments, bind groups and pooled textures are evicted) are far shorter than warm-up, so steady state is
//!   reached; only the two caches whose size follows the random sprite order get slack (bind groups: twice the
//!   warm-up maximum; pipelines: 16 more), as `allowed_growth` in `common/soak.rs` explains;
//! - **resident memory**: its maximum over the second half may exceed its value at the end of warm-up by at most
//!   `--rss-slack-kb K` (default 32768: the allocator's and the driver's free lists grow in steps of megabytes
//!   while a leak of one render texture a frame would add hundreds of megabytes over a run).
//!
//! `--lose-device-every N` destroys the GPU device every N frames (as a driver reset loses it) and goes on with
//! `Renderer::recover`; the same bounds hold across the losses (resident memory from the middle of the run, after
//! half of them, when the driver's pools have grown), and the summary gives the losses and the time from each loss
//! to its first good frame (`recovery_ms`).
//!
//! The soak always runs headless (`--headless` is accepted for symmetry with the other examples).

mod common;
#[path = "common/soak.rs"]
mod soak;

use common::{Flags, Samples};
use stage2d::{Renderer, RendererOptions, Stats};
use std::time::Instant;

/// One JSON object of the live counts.
fn live_json(s: &Stats) -> String {
    let l = s.live;
    format!(
        "{{\"textures\":{},\"bind_groups\":{},\"render_targets\":{},\"attachments\":{},\"pipelines\":{},\"pending_releases\":{}}}",
        l.textures, l.bind_groups, l.render_targets, l.attachments, l.pipelines, l.pending_releases
    )
}

fn counts_json(c: &[(&str, u64)]) -> String {
    let fields: Vec<String> = c.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
    format!("{{{}}}", fields.join(","))
}

fn opt(v: Option<u64>) -> String {
    v.map_or("null".to_string(), |v| v.to_string())
}

fn run() -> stage2d::Result<bool> {
    let flags = Flags::from_env();
    if flags.has("--help") || flags.has("-h") {
        println!(
            "soak [--headless] [--frames N] [--json-every K] [--warmup W] [--rss-slack-kb KB] [--lose-device-every N]"
        );
        std::process::exit(0);
    }
    let frames = flags.num("--frames", 20_000u64).max(2);
    let every = flags.num("--json-every", 1000u64).max(1);
    let warmup = flags
        .num("--warmup", (frames / 10).max(300))
        .clamp(1, frames / 2);
    let rss_slack = flags.num("--rss-slack-kb", 32_768u64);
    let lose_every = flags.num("--lose-device-every", 0u64);
    let mut recoveries = Samples::default();

    let started = Instant::now();
    let mut r = Renderer::new_headless(RendererOptions::default())?;
    let font = stage2d::Font::load(common::asset("DejaVuSans.ttf"))?;
    let mut soak = soak::Soak::new(&mut r, font)?;
    let info = r.adapter_info();

    let mut interval = Samples::default();
    let mut all = Samples::default();
    let mut baseline = soak::live_counts(&r.stats(), 0);
    let mut second_half = [("", 0u64); 5];
    let mut rss_warm = None;
    let mut rss_max_second_half: Option<u64> = None;
    for f in 1..=frames {
        let lost_at = (lose_every > 0 && f.is_multiple_of(lose_every)).then(|| {
            r.device().destroy();
            // The loss reaches the renderer through the device's lost callback, at the next poll.
            for _ in 0..4 {
                if r.is_device_lost() {
                    break;
                }
                let _ = r.wait_idle();
            }
            Instant::now()
        });
        if lost_at.is_some() {
            r.recover()?;
        }
        let t0 = Instant::now();
        soak.step(&mut r)?;
        match lost_at {
            // A frame after a loss: the time from the loss to it drawn on the new device.
            Some(lost) => recoveries.push(lost.elapsed().as_secs_f64() * 1e3),
            None => {
                let ms = t0.elapsed().as_secs_f64() * 1e3;
                interval.push(ms);
                all.push(ms);
            }
        }
        let stats = r.stats();
        let counts = soak::live_counts(&stats, soak.loading_textures());
        if f == warmup / 2 + 1 {
            baseline = counts;
        } else if f > warmup / 2 && f <= warmup {
            for (b, c) in baseline.iter_mut().zip(counts) {
                b.1 = b.1.max(c.1);
            }
        }
        // With device losses the memory bound starts mid-run, after half of them: the driver's pools grow over
        // the first re-creations (lavapipe: about 30 MB over the first five, then flat); a device or its objects
        // kept past a loss would add again at every later one. wgpu's own object counts across losses are held
        // exactly by tests/device_loss.rs.
        let rss_from = if lose_every > 0 { frames / 2 } else { warmup };
        if f == rss_from {
            rss_warm = soak::rss_kb();
        }
        if f > frames / 2 {
            if second_half[0].0.is_empty() {
                second_half = counts;
            }
            for (m, c) in second_half.iter_mut().zip(counts) {
                m.1 = m.1.max(c.1);
            }
            if f.is_multiple_of(100) || f == frames {
                let rss = soak::rss_kb();
                rss_max_second_half = rss_max_second_half.max(rss);
            }
        }
        if f.is_multiple_of(every) || f == frames {
            println!(
                "{{\"frame\":{f},\"rss_kb\":{},\"live\":{},\"frame_ms\":{{\"mean\":{:.3},\"p50\":{:.3},\"p99\":{:.3},\"max\":{:.3}}}}}",
                opt(soak::rss_kb()),
                live_json(&stats),
                interval.mean(),
                interval.median(),
                interval.percentile(0.99),
                interval.percentile(1.0),
            );
            interval = Samples::default();
        }
    }

    let mut failures = soak::growth_failures(&baseline, &second_half);
    if soak.event_handlers() > soak::Soak::SHAPES {
        failures.push(format!(
            "{} event handlers held for at most {} shapes",
            soak.event_handlers(),
            soak::Soak::SHAPES
        ));
    }
    if let (Some(w), Some(m)) = (rss_warm, rss_max_second_half) {
        if m > w + rss_slack {
            failures.push(format!(
                "rss grew from {w} KiB to {m} KiB (more than {rss_slack} KiB)"
            ));
        }
    }
    let fails: Vec<String> = failures.iter().map(|f| format!("\"{f}\"")).collect();
    println!(
        "{{\"summary\":true,\"adapter\":\"{}\",\"backend\":\"{:?}\",\"frames\":{frames},\"warmup\":{warmup},\"wall_s\":{:.1},\"frame_ms\":{{\"mean\":{:.3},\"p50\":{:.3},\"p99\":{:.3},\"max\":{:.3}}},\"live_warmup_max\":{},\"live_second_half_max\":{},\"rss_kb_warmup\":{},\"rss_kb_second_half_max\":{},\"rss_kb_end\":{},\"rss_slack_kb\":{rss_slack},\"pool_hits\":{},\"asset_bundles\":{},\"device_losses\":{},\"recovery_ms\":{{\"p50\":{:.1},\"max\":{:.1}}},\"ok\":{},\"failures\":[{}]}}",
        info.name,
        info.backend,
        started.elapsed().as_secs_f64(),
        all.mean(),
        all.median(),
        all.percentile(0.99),
        all.percentile(1.0),
        counts_json(&baseline),
        counts_json(&second_half),
        opt(rss_warm),
        opt(rss_max_second_half),
        opt(soak::rss_kb()),
        r.pool_hits(),
        soak.bundles(),
        recoveries.len(),
        recoveries.median(),
        recoveries.percentile(1.0),
        failures.is_empty(),
        fails.join(","),
    );
    for f in &failures {
        eprintln!("soak: {f}");
    }
    Ok(failures.is_empty())
}

fn main() {
    // Sprites left showing destroyed textures are part of the churn: their warnings are expected, so only errors
    // are logged unless RUST_LOG says otherwise.
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("error")).init();
    match run() {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("soak: {e}");
            std::process::exit(2);
        }
    }
}
