//! Parallel collect: a container with many children has its leaf sprites transformed on every core before the
//! walk reaches them.
//!
//! When the walk meets a container with at least [`PARALLEL_MIN`] children still to visit, it computes, in chunks
//! on rayon's pool, each child's quad (corners in clip space, texture frame, packed colour) and what it shows
//! (texture, resolved blend mode, its rectangle before its transform, noted for kept walks), for every child that
//! is a visible leaf sprite without a mask whose colour and corners are finite. Everything else is marked not
//! ready. The walk then goes on in tree order as before: runs of ready children are checked (texture alive, not the
//! target) and handed to the batcher in bulk, which assigns texture slots and batches one quad after another as it
//! would have one by one; children not ready take the usual path. So the output (quads, batches, skips, counters)
//! is the single-threaded walk's, only the arithmetic moved; the dirty ranges uploaded may be wider (quads are
//! compared with last frame's 16 or 1,024 at a time, not one by one). Pools of fewer than four threads walk
//! single-threaded. The buffers are kept, one per nesting level in use, so steady state allocates nothing.

use super::visit::{all_finite, node_color, Inherited};
use crate::frame::batcher::{Quad, QuadMeta};
use crate::scene::Scene;
use crate::{BlendMode, NodeId, NodeKind, TextureId};
use rayon::prelude::*;

/// Children still to visit in one container from which its leaf sprites are computed on every core. Measured with
/// the bunnymark on the 16-vCPU H100 host (`--parallel-min`, three runs each): at 10,000 and 20,000 sprites the
/// parallel walk was slower than the single-threaded one (the pool's threads also slow the application's update
/// while they spin down), at 40,000 faster (CPU 1.97 against 2.41 ms); so the threshold sits between.
pub(crate) const PARALLEL_MIN: usize = 32768;

/// Children one task computes.
const CHUNK: usize = 1024;

const NOT_READY: QuadMeta = QuadMeta {
    texture: TextureId {
        index: 0,
        generation: 0,
    },
    blend: BlendMode::Normal,
    ready: false,
    local: crate::scene::sprite::LocalQuad::ZERO,
};

/// The quads computed ahead, one level per container being walked with them.
#[derive(Debug, Default)]
pub(super) struct Ahead {
    levels: Vec<Level>,
    depth: usize,
}

#[derive(Debug, Default)]
struct Level {
    quads: Vec<Quad>,
    meta: Vec<QuadMeta>,
}

impl Ahead {
    /// Forgets every level (a new walk).
    pub fn reset(&mut self) {
        self.depth = 0;
    }

    /// Computes the children `kids` of a container whose children inherit `inh`, into a new level; returns it.
    pub fn compute(&mut self, scene: &Scene, kids: &[NodeId], inh: &Inherited) -> usize {
        if self.levels.len() <= self.depth {
            self.levels.push(Level::default());
        }
        let level = &mut self.levels[self.depth];
        let n = kids.len();
        if level.quads.len() < n {
            level.quads.resize(n, Quad::default());
            level.meta.resize(n, NOT_READY);
        }
        level.quads[..n]
            .par_chunks_mut(CHUNK)
            .zip(level.meta[..n].par_chunks_mut(CHUNK))
            .zip(kids.par_chunks(CHUNK))
            .for_each(|((quads, meta), ids)| {
                for ((q, m), &id) in quads.iter_mut().zip(meta).zip(ids) {
                    *m = one(scene, id, inh, q);
                }
            });
        self.depth += 1;
        self.depth - 1
    }

    /// Drops the innermost level (its container is done).
    pub fn release(&mut self) {
        self.depth -= 1;
    }

    /// The quads and what they show of `level`, child `k` (counted from where the level began) at index `k`.
    pub fn level(&mut self, level: usize) -> (&mut [Quad], &[QuadMeta]) {
        let l = &mut self.levels[level];
        (&mut l.quads, &l.meta)
    }
}

/// The quad of child `id` if it is a plain leaf sprite with finite colour and corners: the arithmetic of the
/// walk's `visit_leaf_sprite` and `push_sprite`, without their checks against renderer state.
#[inline(always)]
fn one(scene: &Scene, id: NodeId, inh: &Inherited, out: &mut Quad) -> QuadMeta {
    let Some(slot) = scene.slot(id) else {
        return NOT_READY;
    };
    let node = slot.node;
    if slot.child_count() != 0
        || slot.masks_involved()
        || !node.visible
        || node.blend_mode.is_advanced()
    {
        return NOT_READY;
    }
    let NodeKind::Sprite(sprite) = &node.kind else {
        return NOT_READY;
    };
    let Some((_, packed)) = node_color(node, inh) else {
        return NOT_READY;
    };
    let local = sprite.local_quad();
    let (p0, dx, dy) = slot.transform.place(&local, &inh.matrix);
    if !all_finite(p0, dx, dy) {
        return NOT_READY;
    }
    *out = Quad::new(
        [p0.into(), dx.into(), dy.into()],
        sprite.texture.uvs(),
        packed,
        0,
    );
    QuadMeta {
        texture: sprite.texture.id(),
        blend: node.blend_mode.resolve(inh.blend),
        ready: true,
        local,
    }
}
