//! Kept walks: a frame whose scene changed since the last walk only in leaf sprites' own fields keeps that walk's
//! batches and streams, and computes again only the quads of the sprites that changed (PixiJS v8 re-batches only
//! when the structure changed, and otherwise updates the changed renderables in place).
//!
//! A full walk notes, for every plain leaf sprite it draws, where its quad went, the colour and transform its
//! container passed down, the texture and blend mode it was batched with, and its rectangle before its transform.
//! The next frame may keep the walk when it draws the same subtree into the same view, nothing structural changed
//! in the scene since (no node added, removed or moved, no child order or mask changed, no node with children
//! changed: see [`Scene::changes_since`]), no texture became live or stale, and the walk itself did not depend on
//! this frame (no glyph left out for lack of atlas room, no shape still on the tessellation worker, no mask left
//! out). Then each changed node is looked up: one that was drawn as a plain leaf sprite and still is one, visible,
//! showing the same texture with the same blend mode and finite corners, has its quad computed again in place
//! (compared, and only changed bytes uploaded). A sprite whose only change was its transform
//! ([`Scene::transform_mut`]) has only its corners computed again, from the transform, its container's and the
//! rectangle the walk noted, without reading its other properties, and is uploaded without being compared (its
//! transform was asked for to move it; in a renderer's frame whose changes are all moves, patched on one core, the
//! corners go straight into the upload's staging memory rather than the quad stream: `frame/placement.rs`); any other
//! change (a node hidden or shown, a texture switched to another texture, a sprite never drawn) falls back to a
//! full walk, which then also uploads the quads the kept frame had patched. The children of a container moved as
//! one ([`Scene::child_transforms_mut`]: one entry in the log) that the walk drew as a block (consecutive quads of
//! consecutive slots under one container) have their corners computed in one loop over their transforms, nothing
//! looked up a sprite.
//!
//! Unchanged sprites are neither computed nor compared. What a kept frame does not do: cull a container whose
//! sprites moved out of view (they are drawn off-target until the next full walk), or bring a texture's changed
//! frame into a batch of other textures (same texture, other frame: patched). The counters of the frame are the
//! last walk's (sprites, culled, skipped, groups replayed), with the work counters at zero.
//!
//! Here: what a walk notes ([`Kept`]) and whether a frame may keep it. The patching of a kept frame and the
//! healing of placed corners are in `patch.rs`.

mod patch;

use super::visit::{Inherited, View};
use crate::base::stats::FrameStats;
use crate::scene::sprite::LocalQuad;
use crate::scene::Scene;
use crate::{BlendMode, NodeId, TextureId};
use std::ops::Range;

/// What the last walk drew for one node slot.
#[derive(Clone, Copy, Debug)]
struct Drawn {
    /// The walk that wrote the entry ([`Kept::walk`]); entries of other walks are stale.
    walk: u32,
    /// The quad's index in the quad stream.
    quad: u32,
    /// The node's container in [`Kept::parents`].
    parent: u32,
    texture: TextureId,
    blend: BlendMode,
}

const STALE: Drawn = Drawn {
    walk: 0,
    quad: 0,
    parent: 0,
    texture: TextureId {
        index: 0,
        generation: 0,
    },
    blend: BlendMode::Normal,
};

/// The children of a container moved as one, drawn by a walk as consecutive quads of consecutive slots under one
/// container (see `patch.rs`).
#[derive(Clone, Copy, Debug)]
struct Block {
    /// The first child's slot.
    slot: u32,
    /// The first child's quad.
    quad: u32,
    len: u32,
    /// The container in [`Kept::parents`].
    parent: u32,
    /// The rectangle every child has, if they all have the same (sprites of one frame and anchor: then only
    /// their transforms are read to move them). Patching another rectangle forgets the block.
    same: Option<LocalQuad>,
}

/// What a walk must match to be kept.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Key {
    pub start: NodeId,
    pub view: View,
    pub forbidden: Option<TextureId>,
    /// [`TextureSystem::liveness`](crate::gpu::texture_system::TextureSystem::liveness) when it walked.
    pub liveness: u64,
}

/// The last walk, as far as a later frame can keep it.
#[derive(Debug, Default)]
pub(super) struct Kept {
    /// Per node slot: what the walk drew for it, if it was a plain leaf sprite.
    drawn: Vec<Drawn>,
    /// Per node slot where `drawn` holds this walk's entry: the sprite's rectangle before its transform, as last
    /// drawn (apart, so that moving sprites reads 20 bytes a sprite of the walk's notes, not all of them).
    locals: Vec<LocalQuad>,
    /// What each container of the walk passed down (index 0 unused).
    pub parents: Vec<Inherited>,
    /// This walk's stamp for `drawn` (never 0).
    walk: u32,
    /// Whether the walk in progress can still be kept.
    keepable: bool,
    /// Nodes used as masks this walk: their changes always need a walk.
    mask_slots: Vec<u32>,
    /// The epoch the walk in progress sees and its position in the scene's log of changes (see
    /// [`Scene::begin_render_walk`]).
    since: (u64, u64),
    /// The kept walk: its key, epoch and log position, and its counters.
    kept: Option<(Key, (u64, u64), FrameStats)>,
    /// Quads patched by a kept frame that then needed a walk: uploaded with that walk.
    pub patched: Option<Range<usize>>,
    /// Whether the children of a container, moved as one (`CHILDREN_MOVED`), were drawn by walk `.0` as a
    /// block (`patch.rs`).
    block: Option<(u32, u32, Option<Block>)>,
    /// The changes with each `CHILDREN_MOVED` entry listed child by child, where a frame needs them so.
    listed: Vec<u32>,
}

impl Kept {
    /// Starts noting a full walk that sees epoch `since.0` and began at log position `since.1`.
    pub fn begin_walk(&mut self, since: (u64, u64)) {
        self.kept = None;
        self.since = since;
        self.walk = self.walk.wrapping_add(1);
        if self.walk == 0 {
            // Stamps came round: forget every entry.
            self.drawn.iter_mut().for_each(|d| *d = STALE);
            self.walk = 1;
        }
        self.keepable = true;
        self.parents.clear();
        self.parents.push(Inherited::ROOT);
        self.mask_slots.clear();
    }

    /// Notes a container's inheritance; returns its index for [`Kept::note`].
    #[inline]
    pub fn container(&mut self, inh: Inherited) -> u32 {
        self.parents.push(inh);
        self.parents.len() as u32 - 1
    }

    /// Notes that the leaf sprite in `slot`, child of container `parent`, drew quad `quad`.
    #[inline(always)]
    pub fn note(
        &mut self,
        slot: usize,
        quad: u32,
        parent: u32,
        texture: TextureId,
        blend: BlendMode,
        local: LocalQuad,
    ) {
        if slot >= self.drawn.len() {
            self.drawn.resize(slot + 1, STALE);
            self.locals.resize(slot + 1, LocalQuad::ZERO);
        }
        self.drawn[slot] = Drawn {
            walk: self.walk,
            quad,
            parent,
            texture,
            blend,
        };
        self.locals[slot] = local;
    }

    /// Notes that `slot` is used as a mask.
    pub fn mask(&mut self, slot: usize) {
        self.mask_slots.push(slot as u32);
    }

    /// The walk depends on this frame: it cannot be kept.
    pub fn volatile(&mut self) {
        self.keepable = false;
    }

    /// Ends the full walk, drawn under `key` with counters `stats`.
    pub fn end_walk(&mut self, key: Key, stats: &FrameStats) {
        for &s in &self.mask_slots {
            if let Some(d) = self.drawn.get_mut(s as usize) {
                *d = STALE;
            }
        }
        if self.keepable {
            let kept = FrameStats {
                sprites: stats.sprites,
                shapes: stats.shapes,
                dead_textures: stats.dead_textures,
                nodes_skipped: stats.nodes_skipped,
                culled: stats.culled,
                group_cells_culled: stats.group_cells_culled,
                masks_too_deep: stats.masks_too_deep,
                texts: stats.texts,
                glyphs_too_large: stats.glyphs_too_large,
                styled_glyphs: stats.styled_glyphs,
                groups_replayed: stats.groups_replayed,
                ..FrameStats::default()
            };
            self.kept = Some((key, self.since, kept));
        }
    }

    /// Forgets the kept walk (its streams were not uploaded).
    pub fn forget(&mut self) {
        self.kept = None;
    }

    /// The changes since the kept walk, and its counters, if it may be kept under `key` (not yet looking at the
    /// changes).
    ///
    /// The changes are as logged: an entry marked `CHILDREN_MOVED` stands for each child of its node (see
    /// `patch.rs`); the `bool` says whether there is one.
    fn changes<'s>(&self, scene: &'s Scene, key: &Key) -> Option<(&'s [u32], FrameStats, bool)> {
        let (kept_key, (epoch, at), counters) = self.kept.as_ref()?;
        if kept_key != key {
            return None;
        }
        let changes = scene.changes_since(*at, *epoch)?;
        Some((changes, *counters, scene.children_moved_since(*at)))
    }

    /// Ends a kept frame that patched `changes` sprites' quads in `patched` (`ok`: all of them), adding the
    /// walk's counters to `stats`; or, when not `ok`, notes what was patched for the walk that follows.
    fn kept_after(
        &mut self,
        ok: bool,
        scene: &Scene,
        changes: usize,
        patched: Range<usize>,
        counters: &FrameStats,
        stats: &mut FrameStats,
    ) -> bool {
        if !ok {
            if !patched.is_empty() {
                self.patched = Some(patched);
            }
            return false;
        }
        self.patched = None;
        stats.accumulate(counters);
        stats.walks_kept += 1;
        stats.sprites_updated += changes as u64;
        // Changes after this frame are counted from now.
        let since = scene.begin_render_walk();
        if let Some(k) = &mut self.kept {
            k.1 = since;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::Collector;
    use super::*;
    use crate::frame::batcher::{Batcher, Quad};
    use crate::frame::placement::Placement;
    use crate::{Color, Node, Texture};
    use glam::{Affine2, Vec2};
    use proptest::prelude::*;

    fn tex(i: u32) -> Texture {
        super::super::test_texture(i, 16)
    }

    /// A view of +-10,000 pixels: nothing the tests move leaves it (culling would make a fresh walk, which
    /// measures first, draw what a walk that knows the bounds leaves out).
    const VIEW: View = View {
        to_clip: Affine2::from_cols(Vec2::new(1e-4, 0.0), Vec2::new(0.0, -1e-4), Vec2::ZERO),
        half_size: Vec2::splat(10_000.0),
        white: TextureId {
            index: 99,
            generation: 0,
        },
    };

    /// A renderer's collector and batcher, with the GPU's copy of the quad and index streams as the dirty ranges
    /// left it.
    struct Frames {
        c: Collector,
        b: Batcher,
        gpu_quads: Vec<crate::frame::batcher::Quad>,
        gpu_indices: Vec<u32>,
        liveness: u64,
        /// Whether a kept frame of moves places their corners in staging, as a renderer's does.
        place: bool,
        /// Corners the last frame placed in staging.
        placed: usize,
    }

    impl Frames {
        fn new() -> Frames {
            Self::with_parallel_min(usize::MAX)
        }

        /// Changes from `min` on that were drawn as consecutive quads are patched on every core.
        fn with_parallel_min(min: usize) -> Frames {
            let mut c = Collector::default();
            c.set_parallel_min(min);
            Frames {
                c,
                b: Batcher::new(4),
                gpu_quads: Vec::new(),
                gpu_indices: Vec::new(),
                liveness: 0,
                place: false,
                placed: 0,
            }
        }

        /// Kept frames patched on every core (`0`), on one (`1`), or placing moves' corners in staging as a
        /// renderer's do (`placement.rs`) on one core (`2`) or, for blocks moved as one, on every core (`3`).
        fn mode(mode: u8) -> Frames {
            Frames {
                place: mode >= 2,
                ..Self::with_parallel_min(if mode == 0 || mode == 3 {
                    2
                } else {
                    usize::MAX
                })
            }
        }

        fn frame(&mut self, scene: &Scene) -> FrameStats {
            let mut s = FrameStats::default();
            let root = scene.root();
            let live = |t: TextureId| t.index < 50;
            let b = &mut self.b;
            let key = Key {
                start: root,
                view: VIEW,
                forbidden: None,
                liveness: self.liveness,
            };
            let moves = match self.place {
                true => self.c.moves_to_place(scene, &key),
                false => 0,
            };
            let mut place = (moves > 0).then(|| Placement::memory(moves));
            self.c
                .collect_frame_placing(scene, &key, b, live, place.as_mut(), &mut s);
            fn apply<T: bytemuck::Pod + Default>(
                gpu: &mut Vec<T>,
                v: &crate::frame::tracked::TrackedVec<T>,
            ) {
                gpu.resize(gpu.len().max(v.len()), T::default());
                for r in v.dirty_ranges() {
                    gpu[r.clone()].copy_from_slice(&v.as_slice()[r.clone()]);
                }
            }
            apply(&mut self.gpu_quads, &self.b.quads);
            // Ranges of moved quads upload their corners alone, as the streams do.
            let q = &self.b.quads;
            for r in q.head_dirty_ranges() {
                for (g, n) in self.gpu_quads[r.clone()]
                    .iter_mut()
                    .zip(&q.as_slice()[r.clone()])
                {
                    g.set_corners([n.origin, n.x_edge, n.y_edge]);
                }
            }
            apply(&mut self.gpu_indices, &self.b.indices);
            // Then the corners placed in staging, as the streams copy them.
            self.placed = 0;
            if let Some(p) = &place {
                for run in p.runs() {
                    for j in 0..run.n {
                        self.gpu_quads[run.quad + j].set_corners(p.corners(run.at + j));
                    }
                    self.placed += run.n;
                }
            }
            s
        }

        /// Checks the quad stream and its GPU copy against `want` (a fresh walk's quads): the GPU copy whole, the
        /// stream's corners only where none is stale (placed in staging since the last heal).
        fn check_quads(&self, want: &[Quad]) -> std::result::Result<(), String> {
            let q = self.b.quads.as_slice();
            if self.gpu_quads.get(..want.len()) != Some(want) {
                return Err("uploaded quads".into());
            }
            let rest = |v: &[Quad]| v.iter().map(|q| q.half(false)).collect::<Vec<_>>();
            if rest(q) != rest(want) || (!self.b.quads.has_stale() && q != want) {
                return Err("quads".into());
            }
            Ok(())
        }

        /// A frame, with its quads and their GPU copy checked against a fresh walk's.
        fn frame_like_fresh(&mut self, scene: &Scene, what: &str) -> FrameStats {
            let st = self.frame(scene);
            let want = reference(scene).0;
            if let Err(e) = self.check_quads(&want) {
                panic!("{what}: {e}");
            }
            st
        }
    }

    /// A fresh full walk of `scene`: quads, indices, batches and what was drawn.
    fn reference(
        scene: &Scene,
    ) -> (
        Vec<crate::frame::batcher::Quad>,
        Vec<u32>,
        Vec<crate::frame::batcher::Batch>,
        [u64; 3],
    ) {
        let mut f = Frames::new();
        let s = f.frame(scene);
        assert_eq!(s.walks_kept, 0);
        (
            f.b.quads.as_slice().to_vec(),
            f.b.indices.as_slice().to_vec(),
            f.b.batches().to_vec(),
            [s.sprites, s.nodes_skipped, s.dead_textures],
        )
    }

    /// Root, two containers (one tinted, one adding), and `n` sprites spread over them and the root.
    fn scene(n: usize) -> (Scene, Vec<NodeId>) {
        let mut s = Scene::new();
        let r = s.root();
        let a = s.add(r, Node::container().at(10.0, 5.0)).unwrap();
        let b = s
            .add(
                r,
                Node::container()
                    .blended(BlendMode::Add)
                    .tinted(Color::rgba(1.0, 0.5, 0.5, 0.5)),
            )
            .unwrap();
        let mut ids = vec![r, a, b];
        for i in 0..n {
            let parent = ids[i % 3];
            let id = s
                .add(
                    parent,
                    Node::sprite(tex(i as u32 % 6)).at(i as f32, 2.0 * i as f32),
                )
                .unwrap();
            ids.push(id);
        }
        (s, ids)
    }

    #[test]
    fn moved_sprites_keep_the_walk_and_only_their_quads_change() {
        let (mut s, ids) = scene(40);
        let mut f = Frames::new();
        assert_eq!(f.frame(&s).walks_kept, 0);
        // Nothing changed: the walk is kept and nothing is computed or uploaded.
        let st = f.frame(&s);
        assert_eq!((st.walks_kept, st.sprites_updated, st.sprites), (1, 0, 40));
        assert!(f.b.quads.dirty_ranges().is_empty());
        assert!(f.b.quads.head_dirty_ranges().is_empty());
        // Two sprites changed: their quads alone are computed and uploaded, the moved one's corners only.
        s.transform_mut(ids[3]).unwrap().position.x += 3.0;
        s.get_mut(ids[42]).unwrap().alpha = 0.5;
        let st = f.frame(&s);
        assert_eq!((st.walks_kept, st.sprites_updated, st.sprites), (1, 2, 40));
        let moved = f.c.kept.drawn[ids[3].slot()].quad as usize;
        let faded = f.c.kept.drawn[ids[42].slot()].quad as usize;
        let only = |r: &[Range<usize>]| (r.len() == 1).then(|| r[0].clone());
        assert_eq!(only(f.b.quads.head_dirty_ranges()), Some(moved..moved + 1));
        assert_eq!(only(f.b.quads.dirty_ranges()), Some(faded..faded + 1));
        let want = reference(&s);
        assert!(f.b.quads.as_slice() == want.0.as_slice());
        assert!(f.gpu_quads == want.0);
        // A hit-test query between frames does not stop the next frame from keeping the walk.
        s.transform_mut(ids[5]).unwrap().rotation = 1.0;
        let _ = s.world_bounds(ids[5]);
        assert_eq!(f.frame(&s).walks_kept, 1);
        assert!(f.b.quads.as_slice() == reference(&s).0.as_slice());
    }

    #[test]
    fn changes_a_kept_walk_cannot_take_walk_again() {
        let (mut s, ids) = scene(12);
        let mut f = Frames::new();
        f.frame(&s);
        type Change = fn(&mut Scene, &[NodeId]);
        let cases: [(&str, Change); 9] = [
            ("hidden", |s, ids| {
                s.get_mut(ids[4]).unwrap().visible = false
            }),
            ("other texture", |s, ids| {
                s.get_mut(ids[4]).unwrap().kind =
                    crate::NodeKind::Sprite(crate::Sprite::new(tex(7)))
            }),
            ("blend mode", |s, ids| {
                s.get_mut(ids[4]).unwrap().blend_mode = BlendMode::Multiply
            }),
            // Sprites of their own: the cases before leave `ids[4]` hidden, which walks whatever else changes.
            ("non-finite", |s, ids| {
                s.transform_mut(ids[10]).unwrap().position.x = f32::NAN
            }),
            ("infinite scale", |s, ids| {
                s.transform_mut(ids[11]).unwrap().scale.y = f32::INFINITY
            }),
            ("container moved", |s, ids| {
                s.transform_mut(ids[1]).unwrap().position.x = 3.0
            }),
            ("child added", |s, ids| {
                s.add(ids[2], Node::sprite(tex(1))).unwrap();
            }),
            ("node removed", |s, ids| s.remove(ids[6]).unwrap()),
            ("mask set", |s, ids| {
                s.set_mask(ids[1], ids[7], false).unwrap()
            }),
        ];
        for (what, change) in cases {
            // A kept frame first (a sprite moved), then the change with another sprite moved before it.
            s.transform_mut(ids[3]).unwrap().position.y += 1.0;
            assert_eq!(f.frame(&s).walks_kept, 1, "{what}: before");
            s.transform_mut(ids[8]).unwrap().position.y += 1.0;
            change(&mut s, &ids);
            let st = f.frame(&s);
            assert_eq!(st.walks_kept, 0, "{what}");
            let want = reference(&s);
            assert!(f.b.quads.as_slice() == want.0.as_slice(), "{what}");
            assert!(f.gpu_quads[..want.0.len()] == want.0[..], "{what}: uploads");
            assert_eq!(
                [st.sprites, st.nodes_skipped, st.dead_textures],
                want.3,
                "{what}"
            );
        }
        // Another renderer walking the scene in between does not matter (each keeps its own walk); a texture
        // becoming live or stale needs a walk.
        f.frame(&s);
        s.transform_mut(ids[3]).unwrap().position.y += 1.0;
        Frames::new().frame(&s);
        assert_eq!(f.frame(&s).walks_kept, 1, "another walk");
        assert!(f.b.quads.as_slice() == reference(&s).0.as_slice());
        f.liveness += 1;
        assert_eq!(f.frame(&s).walks_kept, 0, "liveness");
        assert_eq!(f.frame(&s).walks_kept, 1, "then kept again");
        // A mask node's changes always walk (its shape is drawn into the stencil, not as a quad of its own).
        s.transform_mut(ids[7]).unwrap().position.x += 1.0;
        assert_eq!(f.frame(&s).walks_kept, 0, "mask moved");
    }

    /// Sprites changed in another order than they are drawn (here: creation order, spread over three containers)
    /// upload their own quads, not everything between them.
    #[test]
    fn changes_out_of_draw_order_upload_only_their_quads() {
        let (mut s, ids) = scene(40);
        let mut f = Frames::new();
        f.frame(&s);
        for &i in &[42usize, 4, 23, 5, 41] {
            s.transform_mut(ids[i]).unwrap().position.y += 1.0;
        }
        assert_eq!(f.frame(&s).walks_kept, 1);
        assert!(f.b.quads.dirty_ranges().is_empty(), "moved: corners only");
        let dirty: usize = f.b.quads.head_dirty_ranges().iter().map(|r| r.len()).sum();
        // Their quads' corners, and those less than 256 bytes from another changed one (one copy is cheaper than two);
        // merging each change into the last range instead uploaded all 40.
        let want: usize = {
            let mut q: Vec<usize> = [42usize, 4, 23, 5, 41]
                .iter()
                .map(|&i| f.c.kept.drawn[ids[i].slot()].quad as usize)
                .collect();
            q.sort_unstable();
            let gap = 256 / std::mem::size_of::<crate::frame::batcher::Quad>();
            let mut runs: Vec<Range<usize>> = Vec::new();
            runs.push(q[0]..q[0] + 1);
            for &i in &q[1..] {
                let last = runs.last_mut().unwrap();
                if i <= last.end + gap {
                    last.end = i + 1;
                } else {
                    runs.push(i..i + 1);
                }
            }
            runs.iter().map(|r| r.len()).sum()
        };
        assert_eq!(dirty, want, "{:?}", f.b.quads.head_dirty_ranges());
        assert!(f.gpu_quads[..] == reference(&s).0[..]);
    }

    /// An update loop in draw order whose run of moved sprites is broken: by a sprite faded between them, one
    /// moved twice, one left out, and (a frame later) one moved to a non-finite place in the middle, on one core
    /// and on every core. Every moved quad reaches the GPU; the non-finite one makes the frame walk.
    #[test]
    fn broken_runs_of_moved_sprites_upload_every_moved_quad() {
        for mode in 0..3 {
            let mut s = Scene::new();
            let c = s.add(s.root(), Node::container().at(5.0, 5.0)).unwrap();
            let kids: Vec<NodeId> = (0..24)
                .map(|i| {
                    s.add(c, Node::sprite(tex(1)).at(i as f32 * 10.0, 20.0))
                        .unwrap()
                })
                .collect();
            let mut f = Frames::mode(mode);
            f.frame(&s);
            for (i, &k) in kids.iter().enumerate() {
                match i {
                    8 => s.get_mut(k).unwrap().alpha = 0.5,
                    17 => {}
                    _ => s.transform_mut(k).unwrap().position.y += i as f32,
                }
                if i == 12 {
                    s.transform_mut(kids[12]).unwrap().rotation = 0.5;
                }
            }
            let st = f.frame_like_fresh(&s, &format!("{mode}"));
            assert_eq!((st.walks_kept, st.sprites_updated), (1, 24), "{mode}");
            // Each listed once, in draw order: on every core, a dense run of moves.
            for (i, &k) in kids.iter().enumerate() {
                let t = s.transform_mut(k).unwrap();
                t.position.x += 1.0;
                if i == 10 {
                    t.scale.x = f32::NAN;
                }
            }
            let st = f.frame_like_fresh(&s, &format!("{mode}: non-finite"));
            // Placed in staging before the non-finite one was met, then left for the walk.
            assert_eq!(f.placed, 0, "{mode}");
            assert_eq!(
                (st.walks_kept, st.sprites, st.nodes_skipped),
                (0, 23, 1),
                "{mode}: non-finite"
            );
        }
    }

    /// Runs of moves longer than a chunk of the every-core patch (1,024 quads), starting after an unmoved sprite and
    /// crossing from one container into the next: every chunk writes its own quads from its own changes, and a
    /// non-finite sprite in the second chunk makes the frame walk, with every quad uploaded.
    #[test]
    fn runs_of_moves_over_several_chunks_patch_each_chunk_in_place() {
        let mut s = Scene::new();
        let still = s.add(s.root(), Node::sprite(tex(2)).at(1.0, 1.0)).unwrap();
        let mut kids = Vec::new();
        for (c, at) in [(0, 5.0), (1, 9.0)] {
            let parent = s
                .add(s.root(), Node::container().at(at, at * c as f32))
                .unwrap();
            for i in 0..700 {
                let n = Node::sprite(tex(1 + i % 2)).at(i as f32, (i % 50) as f32);
                kids.push(s.add(parent, n).unwrap());
            }
        }
        for mode in 0..3 {
            let mut f = Frames::mode(mode);
            f.frame(&s);
            for (i, &k) in kids.iter().enumerate() {
                s.transform_mut(k).unwrap().position += Vec2::new(1.0, i as f32 * 0.01);
            }
            let st = f.frame_like_fresh(&s, &format!("{mode}"));
            assert_eq!((st.walks_kept, st.sprites_updated), (1, 1400), "{mode}");
            assert_eq!(f.placed, if mode == 2 { 1400 } else { 0 }, "{mode}");
            let first = f.c.kept.drawn[kids[0].slot()].quad as usize;
            assert_eq!(first, f.c.kept.drawn[still.slot()].quad as usize + 1);
            for (i, &k) in kids.iter().enumerate() {
                let t = s.transform_mut(k).unwrap();
                t.position.y -= 2.0;
                if i == 1200 {
                    t.position.x = f32::INFINITY;
                }
            }
            let st = f.frame_like_fresh(&s, &format!("{mode}: non-finite"));
            assert_eq!(
                (st.walks_kept, st.nodes_skipped),
                (0, 1),
                "{mode}: non-finite"
            );
            s.transform_mut(kids[1200]).unwrap().position.x = 3.0;
        }
    }

    /// Corners placed in staging leave the stream's copy of them stale. A later frame that writes quads into the
    /// stream must not upload a stale one with its changed neighbours (a range bridging the two), and a full walk
    /// must not compare with a stale one (a sprite moved there and back): both write the stale quads again first
    /// and upload them.
    #[test]
    fn placed_corners_are_healed_before_the_stream_is_written_or_walked() {
        let mut s = Scene::new();
        let kids: Vec<NodeId> = (0..12)
            .map(|i| {
                let n = Node::sprite(tex(1)).at(i as f32 * 10.0, 20.0);
                s.add(s.root(), n).unwrap()
            })
            .collect();
        let mut f = Frames::mode(2);
        f.frame(&s);
        for &k in &kids {
            s.transform_mut(k).unwrap().position.y += 7.0;
        }
        let st = f.frame_like_fresh(&s, "all moved");
        assert_eq!((st.walks_kept, f.placed), (1, 12));
        assert!(f.b.quads.has_stale());
        // Sprite 4 stays where it was placed; its neighbours fade (one range of three quads).
        for k in [3, 5] {
            s.get_mut(kids[k]).unwrap().alpha = 0.5;
        }
        let st = f.frame_like_fresh(&s, "neighbours faded");
        assert_eq!((st.walks_kept, f.placed), (1, 0));
        assert!(!f.b.quads.has_stale());
        // Sprite 4 moved (placed), then back where the stream last had it, in a frame that walks.
        s.transform_mut(kids[4]).unwrap().position.y += 7.0;
        let st = f.frame_like_fresh(&s, "moved again");
        assert_eq!((st.walks_kept, f.placed), (1, 1));
        s.transform_mut(kids[4]).unwrap().position.y -= 7.0;
        s.add(s.root(), Node::sprite(tex(2))).unwrap();
        let st = f.frame_like_fresh(&s, "moved back, walked");
        assert_eq!((st.walks_kept, f.placed), (0, 0));
        assert!(!f.b.quads.has_stale());
    }

    /// A kept frame that patched the last quad and then met a change that needs a walk, whose walk draws one quad
    /// fewer: the patched quad never reached the GPU, so when it is drawn again it must be uploaded, not compared
    /// with the value the CPU wrote.
    #[test]
    fn quads_patched_past_a_shorter_walk_are_uploaded_when_drawn_again() {
        let (mut s, ids) = scene(40);
        let mut f = Frames::new();
        f.frame(&s);
        // ids[42] (the root's last sprite) draws the last quad; ids[3] draws an earlier one.
        s.transform_mut(ids[42]).unwrap().position.x += 5.0;
        s.get_mut(ids[3]).unwrap().visible = false;
        let st = f.frame(&s);
        assert_eq!((st.walks_kept, st.sprites), (0, 39));
        s.get_mut(ids[3]).unwrap().visible = true;
        let st = f.frame(&s);
        assert_eq!(st.sprites, 40);
        let want = reference(&s);
        assert!(f.b.quads.as_slice() == want.0.as_slice());
        assert!(
            f.gpu_quads[..want.0.len()] == want.0[..],
            "the moved sprite's quad was uploaded"
        );
    }

    /// Changes through `get_mut` that move a sprite's rectangle (anchor, size, another frame), patched on every
    /// core, then moves through `transform_mut`: the moves start from the new rectangles, not the ones the walk
    /// noted. Then both kinds in one frame.
    #[test]
    fn moves_after_reshapes_on_every_core_start_from_the_new_rectangles() {
        let mut s = Scene::new();
        let c = s.add(s.root(), Node::container().at(5.0, 5.0)).unwrap();
        let kids: Vec<NodeId> = (0..24)
            .map(|i| {
                let n = Node::sprite(tex(1)).at(i as f32 * 10.0, 20.0);
                s.add(c, n).unwrap()
            })
            .collect();
        let mut f = Frames::with_parallel_min(2);
        f.frame(&s);
        let check = |f: &mut Frames, s: &Scene, what: &str| {
            assert_eq!(f.frame(s).walks_kept, 1, "{what}");
            let want = reference(s);
            assert!(f.b.quads.as_slice() == want.0.as_slice(), "{what}: quads");
            assert!(
                f.gpu_quads[..want.0.len()] == want.0[..],
                "{what}: uploaded"
            );
        };
        for (i, &k) in kids.iter().enumerate() {
            let sp = s.get_mut(k).unwrap().as_sprite_mut().unwrap();
            sp.anchor = Vec2::new(0.5, 1.0);
            if i % 2 == 0 {
                sp.texture = tex(1).frame(4, 0, 4, 8).unwrap();
            } else {
                sp.size = Some(Vec2::new(7.0, 3.0));
            }
        }
        check(&mut f, &s, "reshaped");
        for &k in &kids {
            s.transform_mut(k).unwrap().position.y += 3.0;
        }
        check(&mut f, &s, "moved");
        for (i, &k) in kids.iter().enumerate() {
            if i % 2 == 0 {
                s.get_mut(k).unwrap().as_sprite_mut().unwrap().anchor = Vec2::ZERO;
            } else {
                s.transform_mut(k).unwrap().rotation = 0.5;
            }
        }
        check(&mut f, &s, "mixed");
        for &k in &kids {
            s.transform_mut(k).unwrap().position.x += 1.0;
        }
        check(&mut f, &s, "moved again");
    }

    #[test]
    fn children_moved_as_one_patch_their_block() {
        let (mut s, ids) = block_scene();
        let (c, kids) = (ids[43], ids[44..54].to_vec());
        for mode in 0..4 {
            let mut f = Frames::mode(mode);
            f.frame(&s);
            let first = f.b.quads.as_slice().len() - 10;
            for round in 0..3 {
                // The first call looks at each child; later ones log one entry for them all.
                s.child_transforms_mut(c)
                    .unwrap()
                    .for_each(|k, t| t.position.x += 1.0 + k as f32);
                let st = f.frame_like_fresh(&s, &format!("mode {mode}, round {round}"));
                assert_eq!((st.walks_kept, st.sprites_updated), (1, 10), "mode {mode}");
                let block = first..first + 10;
                if mode < 2 {
                    assert_eq!(f.b.quads.head_dirty_ranges(), std::slice::from_ref(&block));
                }
                assert_eq!(f.placed, if mode >= 2 { 10 } else { 0 });
            }
            // One child reshaped (the children no longer share a rectangle), then all moved again, twice.
            s.get_mut(kids[3]).unwrap().as_sprite_mut().unwrap().anchor = Vec2::splat(0.5);
            for round in 0..3 {
                s.child_transforms_mut(c)
                    .unwrap()
                    .for_each(|_, t| t.position.y += 1.0);
                let st = f.frame_like_fresh(&s, &format!("mode {mode}, reshaped, round {round}"));
                assert_eq!(st.walks_kept, 1);
            }
            // Moved as one and one by one in the same frame (the reshaped child reshaped back too); two
            // containers moved as one.
            s.get_mut(kids[3]).unwrap().as_sprite_mut().unwrap().anchor = Vec2::ZERO;
            s.child_transforms_mut(c)
                .unwrap()
                .for_each(|_, t| t.rotation += 0.5);
            s.transform_mut(ids[5]).unwrap().position.y += 3.0;
            let st = f.frame_like_fresh(&s, "mixed");
            assert_eq!((st.walks_kept, st.sprites_updated), (1, 12));
            s.child_transforms_mut(c)
                .unwrap()
                .for_each(|_, t| t.scale.x = 0.5);
            s.child_transforms_mut(ids[1])
                .unwrap()
                .for_each(|_, t| t.position.y -= 1.0);
            let st = f.frame_like_fresh(&s, "two containers");
            assert_eq!((st.walks_kept, st.sprites_updated), (1, 10 + 13));
            // A non-finite corner: the frame walks (and draws what a walk draws).
            s.child_transforms_mut(c).unwrap().for_each(|k, t| {
                if k == 4 {
                    t.position.x = f32::NAN;
                }
            });
            assert_eq!(f.frame_like_fresh(&s, "nan").walks_kept, 0);
            // The sprite the walk left out is drawn again by a walk; the frame after keeps it.
            s.child_transforms_mut(c)
                .unwrap()
                .for_each(|_, t| t.position.x = 1.0);
            assert_eq!(f.frame_like_fresh(&s, "finite again").walks_kept, 0);
            s.child_transforms_mut(c)
                .unwrap()
                .for_each(|_, t| t.position.x += 1.0);
            assert_eq!(f.frame_like_fresh(&s, "kept again").walks_kept, 1);
        }
        // Children no longer in consecutive slots (one removed, its slot given to a new last child): moved one
        // by one, still without a walk.
        s.remove(kids[2]).unwrap();
        let late = s.add(c, Node::sprite(tex(1))).unwrap();
        assert_eq!(late.slot(), kids[2].slot());
        let mut f = Frames::mode(1);
        f.frame(&s);
        for round in 0..2 {
            s.child_transforms_mut(c)
                .unwrap()
                .for_each(|_, t| t.position.y += 2.0);
            let st = f.frame_like_fresh(&s, &format!("scattered, round {round}"));
            assert_eq!((st.walks_kept, st.sprites_updated), (1, 10));
        }
        // A child that gains a child of its own: a walk.
        s.add(kids[0], Node::sprite(tex(0))).unwrap();
        f.frame(&s);
        for round in 0..2 {
            s.child_transforms_mut(c)
                .unwrap()
                .for_each(|_, t| t.position.y += 2.0);
            let st = f.frame_like_fresh(&s, &format!("grandchild, round {round}"));
            assert_eq!(st.walks_kept, 0);
        }
    }

    #[derive(Clone, Debug)]
    enum Op {
        Move(usize, f32, f32),
        Turn(usize, f32),
        Fade(usize, f32),
        Frame(usize, u32),
        Texture(usize, u32),
        Show(usize, bool),
        Blend(usize, bool),
        Nan(usize),
        Add(usize, u32),
        Remove(usize),
        Query(usize),
        OtherWalk,
        MoveChildren(usize, f32),
        /// Every child of a container moved through one `child_transforms_mut` (turned too with the flag).
        BulkMove(usize, f32, bool),
    }

    fn op() -> impl Strategy<Value = Op> {
        let i = 0usize..64;
        prop_oneof![
            6 => (i.clone(), -50f32..50.0, -50f32..50.0).prop_map(|(i, x, y)| Op::Move(i, x, y)),
            2 => (i.clone(), -3f32..3.0).prop_map(|(i, r)| Op::Turn(i, r)),
            2 => (i.clone(), 0f32..1.0).prop_map(|(i, a)| Op::Fade(i, a)),
            2 => (i.clone(), 0u32..4).prop_map(|(i, f)| Op::Frame(i, f)),
            1 => (i.clone(), 0u32..60).prop_map(|(i, t)| Op::Texture(i, t)),
            1 => (i.clone(), any::<bool>()).prop_map(|(i, v)| Op::Show(i, v)),
            1 => (i.clone(), any::<bool>()).prop_map(|(i, v)| Op::Blend(i, v)),
            1 => i.clone().prop_map(Op::Nan),
            1 => (i.clone(), 0u32..8).prop_map(|(i, t)| Op::Add(i, t)),
            1 => i.clone().prop_map(Op::Remove),
            1 => i.prop_map(Op::Query),
            1 => Just(Op::OtherWalk),
            3 => (0usize..3, -5f32..5.0).prop_map(|(i, d)| Op::MoveChildren(i, d)),
            4 => (0usize..4, -5f32..5.0, any::<bool>()).prop_map(|(i, d, t)| Op::BulkMove(i, d, t)),
        ]
    }

    fn apply(s: &mut Scene, ids: &mut Vec<NodeId>, op: &Op) {
        let at = |i: usize| ids[i % ids.len()];
        match *op {
            Op::Move(i, x, y) => {
                if let Some(n) = s.transform_mut(at(i)) {
                    n.position += Vec2::new(x, y);
                }
            }
            Op::Turn(i, r) => {
                if let Some(n) = s.transform_mut(at(i)) {
                    n.rotation = r;
                }
            }
            Op::Fade(i, a) => {
                if let Some(n) = s.get_mut(at(i)) {
                    n.alpha = a;
                }
            }
            Op::Frame(i, f) => {
                if let Some(n) = s.get_mut(at(i)) {
                    if let crate::NodeKind::Sprite(sp) = &mut n.kind {
                        sp.texture = tex(sp.texture.id().index).frame(f * 4, 0, 4, 8).unwrap();
                    }
                }
            }
            Op::Texture(i, t) => {
                if let Some(n) = s.get_mut(at(i)) {
                    if let crate::NodeKind::Sprite(sp) = &mut n.kind {
                        sp.texture = tex(t);
                    }
                }
            }
            Op::Show(i, v) => {
                if let Some(n) = s.get_mut(at(i)) {
                    n.visible = v;
                }
            }
            Op::Blend(i, add) => {
                if let Some(n) = s.get_mut(at(i)) {
                    n.blend_mode = if add {
                        BlendMode::Add
                    } else {
                        BlendMode::Inherit
                    };
                }
            }
            Op::Nan(i) => {
                if let Some(n) = s.transform_mut(at(i)) {
                    n.position.y = f32::NAN;
                }
            }
            Op::Add(i, t) => {
                let p = at(i);
                if s.contains(p) {
                    ids.push(s.add(p, Node::sprite(tex(t)).at(3.0, 4.0)).unwrap());
                }
            }
            Op::Remove(i) => {
                let id = at(i);
                if id != s.root() {
                    let _ = s.remove(id);
                }
            }
            Op::Query(i) => {
                let _ = s.world_bounds(at(i));
            }
            Op::OtherWalk => {
                Frames::new().frame(s);
            }
            Op::MoveChildren(i, d) => {
                for c in s.children(at(i)).to_vec() {
                    if let Some(n) = s.transform_mut(c) {
                        n.position.x += d;
                    }
                }
            }
            Op::BulkMove(i, d, turn) => {
                // The first three ids are the root and two containers; the block's container is the 44th.
                let p = if i == 3 { at(43) } else { at(i) };
                if let Ok(mut ts) = s.child_transforms_mut(p) {
                    ts.for_each(|k, t| {
                        t.position.y += d;
                        if turn && k % 3 == 0 {
                            t.rotation += 0.25;
                        }
                    });
                }
            }
        }
    }

    /// [`scene`] with a container of ten sprites after it, in consecutive slots: a block when moved as one.
    fn block_scene() -> (Scene, Vec<NodeId>) {
        let (mut s, mut ids) = scene(40);
        let c = s
            .add(s.root(), Node::container().at(2.0, 3.0).scaled(2.0))
            .unwrap();
        ids.push(c);
        for i in 0..10 {
            let id = s
                .add(c, Node::sprite(tex(i % 2)).at(5.0 * i as f32, 1.0))
                .unwrap();
            ids.push(id);
        }
        (s, ids)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]

        /// Frames that keep their walk draw what a fresh walk draws, and upload every quad that changed.
        #[test]
        fn kept_walks_draw_what_a_fresh_walk_draws(
            frames in prop::collection::vec(prop::collection::vec(op(), 0..4), 1..16),
            mode in 0u8..4,
        ) {
            let (mut s, mut ids) = block_scene();
            let mut f = Frames::mode(mode);
            f.frame(&s);
            for (k, ops) in frames.iter().enumerate() {
                for op in ops {
                    apply(&mut s, &mut ids, op);
                }
                let st = f.frame(&s);
                // Nothing in these tests makes a walk depend on its frame: a frame without changes keeps the last.
                prop_assert!(!ops.is_empty() || st.walks_kept == 1, "frame {}: nothing changed, yet it walked", k);
                let want = reference(&s);
                prop_assert_eq!(f.check_quads(&want.0), Ok(()), "frame {}", k);
                prop_assert!(f.b.indices.as_slice() == want.1.as_slice(), "frame {}: indices", k);
                prop_assert!(f.b.batches() == want.2.as_slice(), "frame {}: batches", k);
                prop_assert_eq!([st.sprites, st.nodes_skipped, st.dead_textures], want.3, "frame {}", k);
                prop_assert!(f.gpu_indices[..want.1.len()] == want.1[..], "frame {}: uploaded indices", k);
            }
        }
    }
}
