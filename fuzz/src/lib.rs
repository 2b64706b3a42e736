//! Helpers shared by the fuzz targets: the CPU-only scene walk the renderer runs before it touches the GPU.

use stage2d::internals::{bench_texture, Batcher, Collector, View};
use stage2d::{FrameStats, Scene};

/// A walker that keeps its caches between walks, as a renderer's frame does.
pub struct Walker {
    pub collector: Collector,
    pub batcher: Batcher,
}

impl Default for Walker {
    fn default() -> Self {
        Walker {
            collector: Collector::default(),
            batcher: Batcher::new(16),
        }
    }
}

impl Walker {
    /// Walks and batches `scene` into a `width x height` target (at `scale` physical pixels a logical one), as
    /// `benches/core.rs` drives it: through `collect_frame` (which keeps the last walk where the scene allows) when
    /// `kept`, else a full walk. Returns the quads and batches made.
    pub fn walk(
        &mut self,
        scene: &Scene,
        width: u32,
        height: u32,
        scale: f32,
        kept: bool,
    ) -> (usize, usize) {
        let white = bench_texture(1, 1);
        let view = View::scaled(
            width.clamp(1, 1 << 14),
            height.clamp(1, 1 << 14),
            scale,
            white.id(),
        );
        let mut stats = FrameStats::default();
        if kept {
            self.collector.collect_frame(
                scene,
                scene.root(),
                view,
                &mut self.batcher,
                |_| true,
                None,
                0,
                &mut stats,
            );
        } else {
            self.batcher.begin();
            self.collector
                .collect(scene, view, &mut self.batcher, |_| true, &mut stats);
            self.batcher.finish();
        }
        (self.batcher.quads.len(), self.batcher.batches().len())
    }
}

/// One full walk of `scene` into an 800x600 target.
pub fn walk_once(scene: &Scene) -> (usize, usize) {
    Walker::default().walk(scene, 800, 600, 1.0, false)
}
