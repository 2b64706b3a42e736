//! A kept frame's patching: the quads of the sprites that changed since the kept walk, computed again in place
//! from what the walk noted ([`Kept::patch`]), on one core or, for many changes drawn as consecutive quads, on
//! every core; moved sprites' corners written without reading their other properties, into the quad stream or
//! straight into the upload's staging (`frame/placement.rs`); and the healing of the quads whose corners went to
//! staging, written into the stream again before a frame writes quads there another way ([`Kept::heal`]).
//! Deciding whether a walk may be kept, and what a walk notes, is the parent module's.

use super::{Block, Drawn, Kept, Key};
use crate::base::stats::FrameStats;
use crate::frame::batcher::{Batcher, Quad};
use crate::frame::collect::visit::{all_finite, node_color, Inherited};
use crate::frame::placement::Placement;
use crate::scene::sprite::LocalQuad;
use crate::scene::{Scene, CHILDREN_MOVED, TRANSFORM_ONLY};
use crate::NodeKind;
use glam::Vec2;
use std::ops::Range;

impl Kept {
    /// Keeps the last walk for this frame if it may be (see the module docs): patches the quads of the changed
    /// sprites into `batcher`'s streams, adds the walk's counters to `stats` and returns `true`. Otherwise
    /// returns `false` with the streams as the walk left them, apart from the quads patched before the change
    /// that needs a walk was met, or all of them when a sprite's corners were non-finite (in [`Kept::patched`]).
    ///
    /// With `place`, every change is a move (see [`Kept::moves_to_place`]) and the moved corners go into its
    /// staging rather than the quad stream (`placement.rs`).
    pub fn patch(
        &mut self,
        scene: &Scene,
        key: &Key,
        batcher: &mut Batcher,
        parallel_min: usize,
        place: Option<&mut Placement>,
        stats: &mut FrameStats,
    ) -> bool {
        let Some((changes, counters, children_moved)) = self.changes(scene, key) else {
            return false;
        };
        if !children_moved {
            return self.patch_changes(
                scene,
                changes,
                counters,
                batcher,
                parallel_min,
                place,
                stats,
            );
        }
        if let Some(b) = self.block_of(scene, changes) {
            return self.patch_block(scene, b, counters, batcher, parallel_min, place, stats);
        }
        let mut listed = std::mem::take(&mut self.listed);
        list_children(scene, changes, &mut listed);
        let ok = self.patch_changes(
            scene,
            &listed,
            counters,
            batcher,
            parallel_min,
            place,
            stats,
        );
        self.listed = listed;
        ok
    }

    /// [`Kept::patch`] for changes that are each one sprite's.
    #[allow(clippy::too_many_arguments)]
    fn patch_changes(
        &mut self,
        scene: &Scene,
        changes: &[u32],
        counters: FrameStats,
        batcher: &mut Batcher,
        parallel_min: usize,
        mut place: Option<&mut Placement>,
        stats: &mut FrameStats,
    ) -> bool {
        batcher.keep_frame();
        let (mut lo, mut hi) = (usize::MAX, 0);
        if place.is_none() {
            // This frame writes quads into the stream: those whose corners went straight to the GPU are written
            // there first, so that what the stream compares and uploads is what the GPU holds.
            if let Some(r) = self.heal(scene, batcher) {
                (lo, hi) = (r.start, r.end);
            }
        }
        let dense = match place {
            Some(_) => None,
            None => self.dense(changes, parallel_min),
        };
        let ok = if let Some((first, moved_only)) = dense {
            // Many changes, one after another in the quad stream (an update loop in draw order): on every core.
            // Each slot is listed once (its quad is one of consecutive ones), so no entry here depends on another.
            let (drawn, locals, parents, walk) =
                (&self.drawn, &self.locals, &self.parents, self.walk);
            (lo, hi) = (lo.min(first), hi.max(first + changes.len()));
            if moved_only {
                // Only transforms changed: corners written and uploaded without comparing, as on one core.
                return self.kept_after(
                    batcher.patch_corners_par(first, changes.len(), |k, quads| {
                        let part = &changes[k..k + quads.len()];
                        let transforms = scene.transforms();
                        let (n, moved) = moved_run(
                            (drawn, locals, parents, transforms),
                            quads.iter_mut(),
                            Quad::set_corners,
                            first + k,
                            walk,
                            part,
                        );
                        n == part.len() && moved.x + moved.y == 0.0
                    }),
                    scene,
                    changes.len(),
                    lo..hi,
                    &counters,
                    stats,
                );
            }
            let ok = batcher.patch_quads_par(first, changes.len(), |k, old| {
                let c = changes[k];
                let s = (c & !TRANSFORM_ONLY) as usize;
                let d = &drawn[s];
                let parent = &parents[d.parent as usize];
                let (quad, finite) = if c & TRANSFORM_ONLY != 0 {
                    moved(scene, s, &locals[s], parent, old)
                } else {
                    let (quad, _, finite) = quad_of(scene, s, d, parent)?;
                    (quad, finite)
                };
                finite.then_some(quad)
            });
            if ok {
                // The rectangles of sprites changed otherwise than by their transform, for the next frame (each
                // was checked above to be a sprite still).
                for &c in changes.iter().filter(|&&c| c & TRANSFORM_ONLY == 0) {
                    let s = (c & !TRANSFORM_ONLY) as usize;
                    if let NodeKind::Sprite(sprite) = &scene.node_at(s).kind {
                        self.locals[s] = sprite.local_quad();
                        self.block = None;
                    }
                }
            }
            ok
        } else {
            self.patch_each(
                scene,
                changes,
                batcher,
                place.as_deref_mut(),
                &mut lo,
                &mut hi,
            )
        };
        if !ok {
            if let Some(p) = place {
                p.discard();
            }
        }
        self.kept_after(ok, scene, changes.len(), lo..hi, &counters, stats)
    }

    /// How many corners a frame under `key` may place straight into staging (`placement.rs`): the number of
    /// changes if the walk may be kept, each change is a move, and they are patched on one core; else 0.
    pub fn moves_to_place(&mut self, scene: &Scene, key: &Key, parallel_min: usize) -> usize {
        let Some((changes, _, children_moved)) = self.changes(scene, key) else {
            return 0;
        };
        let n = match children_moved {
            false => changes.len(),
            true => match self.block_of(scene, changes) {
                // A block's corners go to staging on every core as on one.
                Some(b) => return b.len as usize,
                // Each entry stands for its node's children (every one a move), or for itself.
                None => changes
                    .iter()
                    .map(|&c| match c & CHILDREN_MOVED {
                        0 => 1,
                        _ => scene.children_at((c & SLOT) as usize).len(),
                    })
                    .sum(),
            },
        };
        // The every-core test first: it spares that path a read of every change.
        let place =
            !on_every_core(n, parallel_min) && changes.iter().all(|&c| c & TRANSFORM_ONLY != 0);
        match place {
            true => n,
            false => 0,
        }
    }

    /// The block the changes move, when they are all [`CHILDREN_MOVED`] entries of one container whose children
    /// this walk drew as a [`Block`]; found once a walk.
    fn block_of(&mut self, scene: &Scene, changes: &[u32]) -> Option<Block> {
        let &c = changes.first()?;
        if c & CHILDREN_MOVED == 0 || changes.iter().any(|&x| x != c) {
            return None;
        }
        let p = c & SLOT;
        if let Some((walk, slot, block)) = self.block {
            if walk == self.walk && slot == p {
                return block;
            }
        }
        let block = self.find_block(scene.children_at(p as usize));
        self.block = Some((self.walk, p, block));
        block
    }

    /// Whether this walk drew `kids` as a block: each a sprite it noted, in consecutive slots and consecutive
    /// quads, under one container.
    fn find_block(&self, kids: &[crate::NodeId]) -> Option<Block> {
        let first = kids.first()?.slot();
        let d0 = self.drawn.get(first).filter(|d| d.walk == self.walk)?;
        let len = u32::try_from(kids.len()).ok()?;
        let drawn = self.drawn.get(first..first + kids.len())?;
        let ok = kids.iter().zip(drawn).enumerate().all(|(j, (k, d))| {
            k.slot() == first + j
                && d.walk == self.walk
                && d.parent == d0.parent
                && d.quad as usize == d0.quad as usize + j
        });
        let locals = self.locals.get(first..first + kids.len())?;
        let same = locals.iter().all(|l| *l == locals[0]).then_some(locals[0]);
        ok.then_some(Block {
            slot: first as u32,
            quad: d0.quad,
            len,
            parent: d0.parent,
            same,
        })
    }

    /// [`Kept::patch`] for a block of sprites moved as one: their corners computed in one loop over their
    /// transforms and rectangles, into staging (`place`), on every core, or into the quad stream.
    #[allow(clippy::too_many_arguments)]
    fn patch_block(
        &mut self,
        scene: &Scene,
        b: Block,
        counters: FrameStats,
        batcher: &mut Batcher,
        parallel_min: usize,
        place: Option<&mut Placement>,
        stats: &mut FrameStats,
    ) -> bool {
        batcher.keep_frame();
        let (slot, quad, n) = (b.slot as usize, b.quad as usize, b.len as usize);
        let (lo, hi) = match place {
            Some(_) => (quad, quad + n),
            // This frame writes quads into the stream: those whose corners went straight to the GPU first.
            None => self.heal(scene, batcher).map_or((quad, quad + n), |r| {
                (r.start.min(quad), r.end.max(quad + n))
            }),
        };
        let (Some(locals), Some(transforms), Some(parent)) = (
            self.locals.get(slot..slot + n),
            scene.transforms().get(slot..slot + n),
            self.parents.get(b.parent as usize),
        ) else {
            return self.kept_after(false, scene, n, lo..hi, &counters, stats);
        };
        let same = b.same.as_ref();
        let ok = match place {
            Some(p) => {
                let rest = p.rest();
                let ok = if rest.len() < n {
                    false
                } else {
                    let out = rest.into_slice(..n);
                    match on_every_core(n, parallel_min) {
                        true => place_block_par(same, locals, transforms, parent, out),
                        false => place_block(same, locals, transforms, parent, out),
                    }
                };
                if ok {
                    p.wrote(quad, n);
                    batcher.quads.mark_stale(quad..quad + n);
                } else {
                    p.discard();
                }
                ok
            }
            None if on_every_core(n, parallel_min) => {
                batcher.patch_corners_par(quad, n, |k, quads| {
                    let m = quads.len();
                    let (written, moved) = block_corners(
                        same,
                        &locals[k..k + m],
                        &transforms[k..k + m],
                        parent,
                        quads.iter_mut(),
                        Quad::set_corners,
                    );
                    written == m && moved.x + moved.y == 0.0
                })
            }
            None => {
                let quads = batcher.quads.unmarked_from(quad).iter_mut();
                let (written, moved) =
                    block_corners(same, locals, transforms, parent, quads, Quad::set_corners);
                batcher.quads.mark_head_dirty(quad..quad + written);
                written == n && moved.x + moved.y == 0.0
            }
        };
        self.kept_after(ok, scene, n, lo..hi, &counters, stats)
    }

    /// Writes the corners of the quads whose corners were placed straight into staging by earlier kept frames
    /// into the quad stream again, from the sprites' transforms, and marks them for upload (see
    /// `placement.rs`). Returns the span written, if any.
    fn heal(&self, scene: &Scene, batcher: &mut Batcher) -> Option<Range<usize>> {
        let (drawn, locals, parents, walk) = (&self.drawn, &self.locals, &self.parents, self.walk);
        let transforms = scene.transforms();
        batcher.quads.heal_stale(|stale, quads| {
            let inside = |q: usize| {
                let i = stale.partition_point(|r| r.end <= q);
                stale.get(i).is_some_and(|r| r.start <= q)
            };
            // Every placed quad is a sprite of this walk's, noted in `drawn`.
            for (slot, d) in drawn.iter().enumerate() {
                if d.walk != walk || !inside(d.quad as usize) {
                    continue;
                }
                let (Some(t), Some(local), Some(p), Some(q)) = (
                    transforms.get(slot),
                    locals.get(slot),
                    parents.get(d.parent as usize),
                    quads.get_mut(d.quad as usize),
                ) else {
                    continue;
                };
                let (p0, dx, dy) = t.place(local, &p.matrix);
                q.set_corners([p0.into(), dx.into(), dy.into()]);
            }
        })
    }

    /// The first quad of `changes` if there are at least `parallel_min` of them (and four threads) and this walk
    /// drew them as consecutive quads, in order; and whether each was a change of transform only.
    fn dense(&self, changes: &[u32], parallel_min: usize) -> Option<(usize, bool)> {
        use rayon::prelude::*;
        const CHUNK: usize = 4096;
        if !on_every_core(changes.len(), parallel_min) {
            return None;
        }
        let walk = self.walk;
        let at = |k: usize| {
            self.drawn
                .get((changes[k] & !TRANSFORM_ONLY) as usize)
                .filter(|d| d.walk == walk)
                .map(|d| d.quad as usize)
        };
        let first = at(0)?;
        // Per chunk: `None` if not dense, else whether every change in it moved a sprite only.
        let dense = changes
            .par_chunks(CHUNK)
            .enumerate()
            .map(|(c, chunk)| {
                let dense =
                    (0..chunk.len()).all(|j| at(c * CHUNK + j) == Some(first + c * CHUNK + j));
                dense.then(|| chunk.iter().all(|&x| x & TRANSFORM_ONLY != 0))
            })
            .reduce(|| Some(true), |a, b| Some(a? && b?));
        dense.map(|moved_only| (first, moved_only))
    }

    /// Patches `changes` in order (each run of moved sprites in consecutive quads through [`moved_run`]), widening
    /// `lo..hi` over the quads written; `false` at the first that needs a walk, or after the last when any had
    /// non-finite corners.
    fn patch_each(
        &mut self,
        scene: &Scene,
        changes: &[u32],
        batcher: &mut Batcher,
        mut place: Option<&mut Placement>,
        lo: &mut usize,
        hi: &mut usize,
    ) -> bool {
        let walk = self.walk;
        // Non-finite corners are rare: noted rather than branched on, so that the next sprite's work need not
        // wait for this one's test. The quads written meanwhile are in `lo..hi` for the walk that follows. Moved
        // sprites' corners are summed times zero (NaN from any non-finite corner, or from a sum that overflows,
        // where a walk is right too), tested once at the end.
        let mut finite = true;
        let mut moved = Vec2::ZERO;
        // Moved sprites' corners are written unmarked and marked a run of consecutive quads at a time (an update
        // loop in draw order is one run), not compared: a sprite's transform was asked for to move it. Only their
        // corners are uploaded.
        let mut run = 0..0;
        let mark = |batcher: &mut Batcher, run: &Range<usize>, lo: &mut usize, hi: &mut usize| {
            if !run.is_empty() {
                batcher.quads.mark_head_dirty(run.clone());
                *lo = (*lo).min(run.start);
                *hi = (*hi).max(run.end);
            }
        };
        let mut k = 0;
        while let Some(&c) = changes.get(k) {
            let s = (c & !TRANSFORM_ONLY) as usize;
            let Some(d) = self.drawn.get(s).filter(|d| d.walk == walk) else {
                mark(batcher, &run, lo, hi);
                return false;
            };
            let parent = &self.parents[d.parent as usize];
            let i = d.quad as usize;
            k += 1;
            if c & TRANSFORM_ONLY != 0 {
                // This sprite and the moved ones that follow in consecutive quads (an update loop in draw order),
                // in a loop of their own that keeps its values in registers; none if quad `i` is past the end.
                let notes = (
                    &self.drawn[..],
                    &self.locals[..],
                    &self.parents[..],
                    scene.transforms(),
                );
                let rest = &changes[k - 1..];
                let (n, sum) = match place.as_deref_mut() {
                    Some(p) => {
                        // Straight into staging: the stream's copy of these corners is stale from now on.
                        let to = |s: wgpu::WriteOnly<'_, _>, c| s.write(bytemuck::cast(c));
                        let (n, sum) = moved_run(notes, p.rest().into_iter(), to, i, walk, rest);
                        p.wrote(i, n);
                        batcher.quads.mark_stale(i..i + n);
                        (n, sum)
                    }
                    None => {
                        let quads = batcher.quads.unmarked_from(i).iter_mut();
                        moved_run(notes, quads, Quad::set_corners, i, walk, rest)
                    }
                };
                moved += sum;
                if n == 0 {
                    continue;
                }
                k += n - 1;
                if place.is_some() {
                    *lo = (*lo).min(i);
                    *hi = (*hi).max(i + n);
                    continue;
                }
                if i == run.end {
                    run.end += n;
                } else {
                    mark(batcher, &run, lo, hi);
                    run = i..i + n;
                }
            } else {
                let Some((q, local, ok)) = quad_of(scene, s, d, parent) else {
                    mark(batcher, &run, lo, hi);
                    return false;
                };
                self.locals[s] = local;
                self.block = None;
                finite &= ok;
                batcher.patch_quad(i, q.0, q.1, q.2);
                *lo = (*lo).min(i);
                *hi = (*hi).max(i + 1);
            }
        }
        mark(batcher, &run, lo, hi);
        finite && moved.x + moved.y == 0.0
    }
}

/// A walk's notes as [`moved_run`] reads them: what it drew for each slot, each slot's rectangle, what each
/// container passed down; and the scene's transforms.
type Notes<'a> = (
    &'a [Drawn],
    &'a [LocalQuad],
    &'a [Inherited],
    &'a [crate::Transform],
);

/// A quad's corners (origin, x edge, y edge), texture frame and packed colour.
type QuadParts = ([[f32; 2]; 3], [f32; 4], u32);

/// The quad of the node in `slot` drawn as `d` under `parent`, if it is still the plain leaf sprite it was (same
/// texture and blend mode, visible), with its rectangle before the transform and whether its corners are finite.
#[inline(always)]
fn quad_of(
    scene: &Scene,
    slot: usize,
    d: &Drawn,
    parent: &Inherited,
) -> Option<(QuadParts, LocalQuad, bool)> {
    let s = scene.slot_at(slot);
    let node = s.node;
    if s.child_count() != 0 || s.masks_involved() || !node.visible || node.blend_mode.is_advanced()
    {
        return None;
    }
    let NodeKind::Sprite(sprite) = &node.kind else {
        return None;
    };
    if sprite.texture.id() != d.texture || node.blend_mode.resolve(parent.blend) != d.blend {
        return None;
    }
    let (_, packed) = node_color(node, parent)?;
    let local = sprite.local_quad();
    let (p0, dx, dy) = s.transform.place(&local, &parent.matrix);
    Some((
        (
            [p0.into(), dx.into(), dy.into()],
            sprite.texture.uvs(),
            packed,
        ),
        local,
        all_finite(p0, dx, dy),
    ))
}

/// The corners (origin, x edge, y edge) of the sprite in `slot`, drawn as `d` under `parent`, after only its
/// transform changed: from its transform and the rectangle the walk noted, nothing else of the node read.
#[inline(always)]
fn moved_corners(
    scene: &Scene,
    slot: usize,
    local: &LocalQuad,
    parent: &Inherited,
) -> (Vec2, Vec2, Vec2) {
    scene.transform_at(slot).place(local, &parent.matrix)
}

/// Writes the corners of the sprites moved in `changes` (entries of [`Scene::transform_mut`]) as long as each was
/// drawn by walk `walk` into the quad after the last one's, the first into quad `first`: each through `put` into
/// the next of `out` (the quads' places in the stream, or in staging). `notes` are the walk's notes (what it drew
/// for each slot, what each container passed down) and the scene's transforms. Returns how many it wrote and their
/// corners summed times zero (NaN if any was not finite, as in [`Kept::patch_each`]). Its own function so that its
/// few values stay in registers.
#[inline(never)]
fn moved_run<S>(
    (drawn, locals, parents, transforms): Notes<'_>,
    out: impl Iterator<Item = S>,
    put: impl Fn(S, [[f32; 2]; 3]),
    first: usize,
    walk: u32,
    changes: &[u32],
) -> (usize, Vec2) {
    let mut moved = Vec2::ZERO;
    let mut n = 0;
    for (j, (&c, q)) in changes.iter().zip(out).enumerate() {
        let s = (c & !TRANSFORM_ONLY) as usize;
        let (Some(d), Some(local), Some(t)) = (drawn.get(s), locals.get(s), transforms.get(s))
        else {
            return (j, moved);
        };
        if c & TRANSFORM_ONLY == 0 || d.walk != walk || d.quad as usize != first + j {
            return (j, moved);
        }
        let Some(parent) = parents.get(d.parent as usize) else {
            return (j, moved);
        };
        let (p0, dx, dy) = t.place(local, &parent.matrix);
        moved += (p0 + dx + dy) * 0.0;
        put(q, [p0.into(), dx.into(), dy.into()]);
        n = j + 1;
    }
    (n, moved)
}

/// The bits of a logged change that name its slot.
const SLOT: u32 = !(TRANSFORM_ONLY | CHILDREN_MOVED);

/// `changes` with each [`CHILDREN_MOVED`] entry listed as a move of each of its node's children, into `out`.
fn list_children(scene: &Scene, changes: &[u32], out: &mut Vec<u32>) {
    out.clear();
    for &c in changes {
        match c & CHILDREN_MOVED {
            0 => out.push(c),
            _ => out.extend(
                scene
                    .children_at((c & SLOT) as usize)
                    .iter()
                    .map(|k| k.slot() as u32 | TRANSFORM_ONLY),
            ),
        }
    }
}

/// [`moved_block`] over a block's rectangles: the one they all have (`same`), or each its own (`locals`).
#[inline(always)]
fn block_corners<S>(
    same: Option<&LocalQuad>,
    locals: &[LocalQuad],
    transforms: &[crate::Transform],
    parent: &Inherited,
    out: impl Iterator<Item = S>,
    put: impl Fn(S, [[f32; 2]; 3]),
) -> (usize, Vec2) {
    match same {
        Some(l) => moved_block(std::iter::repeat(l), transforms, parent, out, put),
        None => moved_block(locals.iter(), transforms, parent, out, put),
    }
}

/// A staging piece for each of a block's corners.
type CornersOut<'a> = wgpu::WriteOnly<'a, [[u8; crate::frame::elements::QUAD_CORNER_BYTES]]>;

/// Writes the corners of a block (see [`block_corners`]) into `out`, as long as the block; whether all were
/// finite.
fn place_block(
    same: Option<&LocalQuad>,
    locals: &[LocalQuad],
    transforms: &[crate::Transform],
    parent: &Inherited,
    out: CornersOut<'_>,
) -> bool {
    let to = |s: wgpu::WriteOnly<'_, _>, c| s.write(bytemuck::cast(c));
    let (written, moved) = block_corners(same, locals, transforms, parent, out.into_iter(), to);
    written == transforms.len() && moved.x + moved.y == 0.0
}

/// [`place_block`] on every core, 4,096 sprites a task.
fn place_block_par(
    same: Option<&LocalQuad>,
    locals: &[LocalQuad],
    transforms: &[crate::Transform],
    parent: &Inherited,
    out: CornersOut<'_>,
) -> bool {
    use std::sync::atomic::{AtomicBool, Ordering};
    // A few sprites in tests, so that their blocks are cut into pieces.
    const PIECE: usize = if cfg!(test) { 4 } else { 4096 };
    let n = transforms.len();
    if out.len() != n || (same.is_none() && locals.len() != n) {
        return place_block(same, locals, transforms, parent, out);
    }
    // Each piece's rectangles: its own, or the one they all share (then `locals` is not read).
    let rects = |r: Range<usize>| match same {
        Some(_) => locals,
        None => &locals[r],
    };
    let ok = AtomicBool::new(true);
    let (pieces, rest) = out.into_chunks::<PIECE>();
    let whole = n - rest.len();
    rayon::in_place_scope(|scope| {
        for (k, piece) in pieces.into_iter().enumerate() {
            let r = k * PIECE..(k + 1) * PIECE;
            let (l, t, ok) = (rects(r.clone()), &transforms[r], &ok);
            scope.spawn(move |_| {
                if !place_block(same, l, t, parent, piece.into()) {
                    ok.store(false, Ordering::Relaxed);
                }
            });
        }
        if !place_block(same, rects(whole..n), &transforms[whole..], parent, rest) {
            ok.store(false, Ordering::Relaxed);
        }
    });
    ok.into_inner()
}

/// Writes the corners of a block of moved sprites (their rectangles `locals` and transforms, under `parent`), each
/// through `put` into the next of `out`. Returns how many it wrote and their corners summed times zero (NaN if
/// any was not finite, as in [`Kept::patch_each`]).
#[inline(never)]
fn moved_block<'l, S>(
    locals: impl Iterator<Item = &'l LocalQuad>,
    transforms: &[crate::Transform],
    parent: &Inherited,
    out: impl Iterator<Item = S>,
    put: impl Fn(S, [[f32; 2]; 3]),
) -> (usize, Vec2) {
    let mut moved = Vec2::ZERO;
    let mut n = 0;
    for ((local, t), q) in locals.zip(transforms).zip(out) {
        let (p0, dx, dy) = t.place(local, &parent.matrix);
        moved += (p0 + dx + dy) * 0.0;
        put(q, [p0.into(), dx.into(), dy.into()]);
        n += 1;
    }
    (n, moved)
}

/// Whether `n` changes are patched on every core ([`Kept::dense`]): at least `parallel_min` of them, on four
/// threads or more (any number in tests).
fn on_every_core(n: usize, parallel_min: usize) -> bool {
    n >= parallel_min.max(2) && (rayon::current_num_threads() >= 4 || cfg!(test))
}

/// The quad of the sprite in `slot`, drawn as `d` under `parent` with frame and colour as in `old`, after only its
/// transform changed; and whether its corners are finite.
#[inline(always)]
fn moved(
    scene: &Scene,
    slot: usize,
    local: &LocalQuad,
    parent: &Inherited,
    old: &crate::frame::batcher::Quad,
) -> (QuadParts, bool) {
    let (p0, dx, dy) = moved_corners(scene, slot, local, parent);
    (
        (
            [p0.into(), dx.into(), dy.into()],
            [old.uv0[0], old.uv0[1], old.uv1[0], old.uv1[1]],
            old.color,
        ),
        all_finite(p0, dx, dy),
    )
}
