//! What lyon's fill costs as paths grow, to choose `BACKGROUND_FILL_SEGMENTS`. Prints timings; run with
//! `cargo test --test tessellation_cost -- --ignored --nocapture` (add `--release` for optimised numbers).

use stage2d::glam::Vec2;
use stage2d::internals::tessellate;
use stage2d::{Color, FillRule, FillStyle, GraphicsContext};
use std::time::Instant;

/// `n` points spread uniformly over a 1000 x 1000 square by a fixed linear congruential generator: a polygon
/// whose edges cross about n^2 / 10 times.
pub fn random_polygon(n: usize, seed: u64) -> Vec<Vec2> {
    let mut s = seed;
    let mut next = move || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 33) as f32 / (1u64 << 31) as f32
    };
    (0..n)
        .map(|_| Vec2::new(next() * 1000.0, next() * 1000.0))
        .collect()
}

fn time_fill(points: &[Vec2], rule: FillRule) -> f64 {
    let mut g = GraphicsContext::new();
    g.poly(points)
        .fill(FillStyle::from(Color::RED).with_fill_rule(rule));
    let t = Instant::now();
    let (mesh, _) = tessellate(&g, 0.25);
    let s = t.elapsed().as_secs_f64();
    assert!(!mesh.indices.is_empty());
    s
}

#[test]
#[ignore = "prints timings; slow"]
fn lyon_fill_time_by_segment_count() {
    for n in [64, 128, 256, 512, 1000, 2000] {
        let t = time_fill(&random_polygon(n, 7), FillRule::NonZero);
        let e = time_fill(&random_polygon(n, 7), FillRule::EvenOdd);
        println!("random self-crossing polygon, {n:>5} segments: non-zero {:>9.2} ms, even-odd {:>9.2} ms", t * 1e3, e * 1e3);
    }
    for n in [256, 4096, 65536] {
        let pts: Vec<Vec2> = (0..n)
            .map(|i| Vec2::from_angle(i as f32 * std::f32::consts::TAU / n as f32) * 500.0)
            .collect();
        let t = time_fill(&pts, FillRule::NonZero);
        println!("convex polygon, {n:>5} segments: {:>9.2} ms", t * 1e3);
    }
}

/// `n` points of a random walk (steps up to 20 pixels) closed back to its start: self-crossing, with far fewer
/// crossings than [`random_polygon`].
pub fn random_walk(n: usize, seed: u64, step: f32) -> Vec<Vec2> {
    let pts = random_polygon(n, seed);
    let mut p = Vec2::splat(500.0);
    pts.iter()
        .map(|d| {
            p += (*d / 1000.0 - 0.5) * step;
            p
        })
        .collect()
}

#[test]
#[ignore = "prints timings; slow"]
fn lyon_fill_time_random_walks() {
    for step in [5.0, 20.0, 80.0] {
        for n in [1000, 10000] {
            let t = time_fill(&random_walk(n, 7, step), FillRule::NonZero);
            println!(
                "random walk step {step}, {n:>5} segments: {:>9.2} ms",
                t * 1e3
            );
        }
    }
}
