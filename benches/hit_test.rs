//! Hit testing over a bunnymark scene on the CPU: `cargo bench --bench hit_test [-- SPRITES...]` prints one JSON
//! line per size. Every frame moves every sprite (as the bunnymark does, so cached bounds go stale), then times one
//! `Scene::hit_test` at a wandering point, and one pointer-move dispatch through `Events` (hover tracking and a
//! handler on the root). `static_*` figures repeat the hit test on a scene that did not move.

#[path = "../examples/common/mod.rs"]
mod common;

use common::{Rng, Samples};
use glam::Vec2;
use stage2d::{EventKind, EventMode, Events, Node, PointerInput, Scene};
use std::time::Instant;

const WIDTH: f32 = 800.0;
const HEIGHT: f32 = 600.0;
const FRAMES: usize = 200;

fn run(n: usize) {
    let tex = stage2d::internals::bench_texture(26, 37);
    let mut scene = Scene::new();
    let root = scene.root();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut bunnies = Vec::with_capacity(n);
    for _ in 0..n {
        let node = Node::sprite(tex)
            .anchor(0.5, 1.0)
            .at(rng.next() * WIDTH, rng.next() * HEIGHT * 0.5);
        let id = scene.add(root, node).unwrap();
        scene.set_event_mode(id, EventMode::Static).unwrap();
        bunnies.push((id, rng.next() * 10.0, rng.next() * 10.0 - 5.0));
    }
    let mut events: Events<u64> = Events::new();
    events.on(root, EventKind::PointerMove, |cx| *cx.state += 1);
    let mut moves = 0u64;
    let (mut update, mut hit, mut dispatch, mut still) = (
        Samples::default(),
        Samples::default(),
        Samples::default(),
        Samples::default(),
    );
    let mut hits = 0usize;
    for frame in 0..FRAMES {
        let t0 = Instant::now();
        for (id, vx, vy) in &mut bunnies {
            let p = &mut scene.transform_mut(*id).unwrap().position;
            p.x += *vx;
            p.y += *vy;
            *vy += 0.75;
            if p.x > WIDTH || p.x < 0.0 {
                *vx = -*vx;
                p.x = p.x.clamp(0.0, WIDTH);
            }
            if p.y > HEIGHT {
                *vy *= -0.85;
                p.y = HEIGHT;
            } else if p.y < 0.0 {
                *vy = 0.0;
                p.y = 0.0;
            }
        }
        let t1 = Instant::now();
        let a = frame as f32 * 0.05;
        let point = Vec2::new(400.0 + 300.0 * a.cos(), 300.0 + 200.0 * a.sin());
        hits += usize::from(scene.hit_test(point).is_some());
        let t2 = Instant::now();
        let input = PointerInput::Move {
            pointer: 0,
            position: point + 1.0,
        };
        events.dispatch(&mut scene, &mut moves, input).unwrap();
        let t3 = Instant::now();
        let _ = scene.hit_test(point + 2.0);
        let t4 = Instant::now();
        if frame >= 10 {
            update.push((t1 - t0).as_secs_f64() * 1e3);
            hit.push((t2 - t1).as_secs_f64() * 1e3);
            dispatch.push((t3 - t2).as_secs_f64() * 1e3);
            still.push((t4 - t3).as_secs_f64() * 1e3);
        }
    }
    // The worst case: a point inside the scene's bounds (a far sprite widens them) that no sprite covers, so
    // every sprite is tested.
    let far = scene
        .add(root, Node::sprite(tex).at(3000.0, 3000.0))
        .unwrap();
    scene.set_event_mode(far, EventMode::Static).unwrap();
    let empty = Vec2::new(2000.0, 2000.0);
    let mut miss = Samples::default();
    for _ in 0..50 {
        let t = Instant::now();
        assert!(scene.hit_test(std::hint::black_box(empty)).is_none());
        miss.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let miss = miss.median();
    println!(
        "{{\"scene\":\"hit_test\",\"sprites\":{n},\"frames\":{},\"update_ms_median\":{:.4},\"hit_test_after_moves_ms_median\":{:.4},\"pointermove_dispatch_ms_median\":{:.4},\"hit_test_static_ms_median\":{:.4},\"hit_test_miss_full_scan_ms_median\":{:.4},\"hit_fraction\":{:.2},\"moves_seen\":{moves}}}",
        FRAMES - 10,
        update.median(),
        hit.median(),
        dispatch.median(),
        still.median(),
        miss,
        hits as f64 / FRAMES as f64
    );
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![1_000, 10_000, 100_000]
    } else {
        sizes
    };
    for n in sizes {
        run(n);
    }
}
