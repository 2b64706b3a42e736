//! Micro-benchmarks of the pure CPU core: scene walk + batching, pipeline-key lookups, bound-state checks.
//! `cargo bench --bench core` prints medians per operation.

use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion};
use stage2d::internals::Batcher;
use stage2d::internals::{Collector, View};
use stage2d::internals::{GlobalState, GraphicsKey, PipeCache, PipelineId, TierKey};
use stage2d::{FrameStats, Node, Scene, TextureId};

fn scene_of(n: usize) -> (Scene, Vec<stage2d::NodeId>) {
    // Textures are only handles here: the walk never touches the GPU.
    let tex = stage2d::internals::bench_texture(26, 37);
    let mut s = Scene::new();
    let r = s.root();
    let ids = (0..n)
        .map(|i| {
            s.add(
                r,
                Node::sprite(tex)
                    .anchor(0.5, 1.0)
                    .at((i % 800) as f32, (i % 600) as f32),
            )
            .unwrap()
        })
        .collect();
    (s, ids)
}

/// A scene of `n` sprites and what walks it, a frame at a time.
struct Frames {
    scene: Scene,
    ids: Vec<stage2d::NodeId>,
    batcher: Batcher,
    collector: Collector,
    view: View,
    t: f32,
}

impl Frames {
    fn new(n: usize) -> Frames {
        let tex = stage2d::internals::bench_texture(1, 1);
        let (scene, ids) = scene_of(n);
        Frames {
            scene,
            ids,
            batcher: Batcher::new(16),
            collector: Collector::default(),
            view: View::new(800, 600, tex.id()),
            t: 0.0,
        }
    }

    /// Moves every sprite, then walks and batches again, or (`kept`) keeps the walk and computes again only the
    /// changed quads.
    fn frame(&mut self, kept: bool) {
        self.t += 1.0;
        let dx = self.t.sin();
        for id in &self.ids {
            self.scene.transform_mut(*id).unwrap().position.x += dx;
        }
        let mut stats = FrameStats::default();
        let live = |_: TextureId| true;
        let (scene, batcher) = (&self.scene, &mut self.batcher);
        if kept {
            let root = scene.root();
            self.collector
                .collect_frame(scene, root, self.view, batcher, live, None, 0, &mut stats);
        } else {
            batcher.begin();
            self.collector
                .collect(scene, self.view, batcher, live, &mut stats);
            batcher.finish();
        }
        black_box(batcher.quads.len());
    }
}

/// A frame of `n` moved sprites: walked and batched again, or through `collect_frame`, which keeps the walk and
/// computes again only the changed quads.
fn collect_and_batch(c: &mut Criterion) {
    for (name, kept) in [("update+collect+batch", false), ("update+kept walk", true)] {
        for n in [1_000usize, 10_000, 100_000] {
            let mut f = Frames::new(n);
            c.bench_function(&format!("{name} {n} sprites"), |b| b.iter(|| f.frame(kept)));
        }
    }
    // The same at 100,000 with the caches emptied before each frame, as a software adapter's rasterising does between
    // the bunnymark's frames (64 MiB written, untimed): what the walk's memory traffic costs.
    let n = 100_000;
    let mut f = Frames::new(n);
    let mut junk = vec![0u8; 64 << 20];
    c.bench_function(&format!("update+kept walk, cold caches {n} sprites"), |b| {
        b.iter_batched(
            || {
                for x in junk.iter_mut().step_by(64) {
                    *x = x.wrapping_add(1);
                }
            },
            |()| f.frame(true),
            BatchSize::PerIteration,
        )
    });
}

/// The app-side cost of an animated crowd: 10,000 animation clocks at 12 frames a second stepped by 1/60 s (a
/// fifth of them turn a frame each step), against moving the same 10,000 sprites.
fn animation_update(c: &mut Criterion) {
    let n = 10_000;
    let frames: Vec<stage2d::Texture> = (0..6)
        .map(|i| {
            stage2d::internals::bench_texture(48, 48)
                .frame(i * 8, 0, 8, 8)
                .unwrap()
        })
        .collect();
    let (mut scene, ids) = scene_of(n);
    let mut anims: Vec<stage2d::AnimatedSprite> = ids
        .iter()
        .enumerate()
        .map(|(i, &id)| {
            let mut a = stage2d::AnimatedSprite::new(id, frames.clone()).unwrap();
            a.goto_and_play(&mut scene, i % 6).unwrap();
            a
        })
        .collect();
    let step = |anims: &mut [stage2d::AnimatedSprite], scene: &mut Scene| {
        let mut turned = 0u32;
        for a in anims {
            turned += a.update(scene, 1.0 / 60.0).unwrap().frame_changed as u32;
        }
        black_box(turned)
    };
    c.bench_function("animation update, 10000 clocks", |b| {
        b.iter(|| step(&mut anims, &mut scene))
    });
    for a in &mut anims {
        a.fps = 0.001;
    }
    c.bench_function("animation update, 10000 clocks, none turning", |b| {
        b.iter(|| step(&mut anims, &mut scene))
    });
    c.bench_function("position update, 10000 sprites", |b| {
        b.iter(|| {
            for id in &ids {
                scene.transform_mut(*id).unwrap().position.x += 0.5;
            }
        })
    });
}

/// Moving 1,000,000 sprites, far more than any cache holds, through `Scene::transform_mut` (the handle checked
/// in the 8-byte slots, the write in the 28-byte transforms, the change logged and the parent's stamp read) against
/// the same positions in a dense array of their own, still checked and logged: what the scene's layout costs an
/// update loop at that size over the memory it must move.
fn position_update_at_scale(c: &mut Criterion) {
    let n = 1_000_000;
    let (mut scene, ids) = scene_of(n);
    let mut g = c.benchmark_group("position update at scale");
    g.sample_size(20);
    g.bench_function("1000000 sprites through Scene::transform_mut", |b| {
        b.iter(|| {
            for id in &ids {
                scene.transform_mut(*id).unwrap().position.x += 0.5;
            }
            black_box(&mut scene);
        })
    });
    // The least a checked, logged write can do: the handle's generation and the position, each in a dense array
    // of its own (not the parent's stamp, one line for all; not the rest of the transform). 16 bytes a sprite
    // against the scene's 44 (slot, transform, parent link, log).
    let mut positions = vec![glam::Vec2::ZERO; n];
    let generations = vec![0u32; n];
    let mut changes: Vec<u32> = Vec::with_capacity(n);
    let slots: Vec<(u32, u32)> = (0..n as u32).map(|i| (i, 0)).collect();
    g.bench_function("1000000 positions kept apart (floor)", |b| {
        b.iter(|| {
            changes.clear();
            for &(slot, generation) in &slots {
                let i = slot as usize;
                if generations.get(i) == Some(&generation) {
                    positions[i].x += 0.5;
                    changes.push(slot);
                }
            }
            black_box((&mut positions, &mut changes));
        })
    });
    g.finish();
}

fn pipeline_lookup(c: &mut Criterion) {
    let mut cache = PipeCache::new();
    cache.set_target_state(TierKey::new(
        GlobalState::default(),
        stage2d::wgpu::TextureFormat::Rgba8Unorm,
    ));
    for k in 0..64 {
        let _ = cache.get_or_insert_with::<()>(GraphicsKey(k), |_| Ok(PipelineId(k)));
    }
    c.bench_function("pipeline lookup, same key (no hash)", |b| {
        b.iter(|| cache.get_or_insert_with::<()>(black_box(GraphicsKey(5)), |_| unreachable!()))
    });
    let mut k = 0u32;
    c.bench_function("pipeline lookup, alternating keys (hash)", |b| {
        b.iter(|| {
            k ^= 1;
            cache.get_or_insert_with::<()>(black_box(GraphicsKey(k)), |_| unreachable!())
        })
    });
}

criterion_group!(
    benches,
    collect_and_batch,
    animation_update,
    position_update_at_scale,
    pipeline_lookup
);
criterion_main!(benches);
