//! Render groups (PixiJS v8's `isRenderGroup`): a node whose children's batched geometry is kept between frames.
//!
//! The group's children are walked once into a batcher of their own, in group space (the group's transform left
//! out, its colour taken as white), and the result (quads, mesh vertices, indices, batches) is kept as a
//! [`Recorded`]. Each frame the group's own transform to clip space and colour go into the transform stream, one
//! 32-byte entry that the vertex shader applies, and the recording is replayed: kept in place when it lands where
//! it was last frame (nothing compared, nothing uploaded), copied in otherwise. Its batches are cut to the cells of
//! the recording that touch the view (`cells.rs`). So panning, zooming, tinting or fading a group of a million
//! sprites costs the same as one of ten.
//!
//! The recording is valid while the scene's stamps say nothing below the group changed since it was made, the
//! blend mode its children inherit is the same, every texture it shows is alive, and (if it holds shapes) the
//! group's scale is within a factor of two of the one its shapes were flattened for. Otherwise the whole group is
//! walked again. A group holding masks or text is walked as a plain container (their state depends on the frame),
//! as is one that shows the texture being drawn into.

use super::cells::Cells;
use super::visit::{visit_slot, Caches, Ctx, Inherited, View};
use crate::base::stats::FrameStats;
use crate::frame::batcher::recording::Recorded;
use crate::frame::batcher::Batcher;
use crate::scene::cull::Aabb;
use crate::{BlendMode, Color, NodeId, TextureId};
use glam::{Affine2, Vec2};
use rustc_hash::FxHashMap;

/// Walks after which an unused group's recording is dropped.
const IDLE_WALKS: u64 = 240;

/// One group's recording and what it was made under.
#[derive(Debug, Default)]
struct Group {
    generation: u32,
    /// Walk epoch of the recording (`0`: none).
    stamp: u64,
    /// Walk epoch at which the group was found unfit for recording (walked as a container until it changes).
    unfit: u64,
    blend: BlendMode,
    /// Pixels per group unit the shapes were flattened for.
    scale: f32,
    rec: Recorded,
    /// The recording cut into cells for culling.
    cells: Cells,
    /// Distinct textures the recording shows.
    textures: Vec<TextureId>,
    /// Bounds of the recording, group space.
    bounds: Aabb,
    sprites: u64,
    shapes: u64,
    used: u64,
}

/// The render groups of one scene.
#[derive(Debug, Default)]
pub(super) struct Groups {
    groups: FxHashMap<u32, Group>,
    walks: u64,
    /// A batcher to record into, kept for its storage.
    scratch: Option<Batcher>,
    stack: Vec<(NodeId, usize, Inherited)>,
    /// Visible index ranges of the group being drawn, kept for their storage.
    ranges: Vec<(u32, u32)>,
    /// Scratch for [`Recorded::sort_slots`].
    seen: Vec<bool>,
}

impl Groups {
    /// Starts a walk (recordings unused for a while are dropped now and then).
    pub fn begin(&mut self) {
        self.walks += 1;
        if self.walks.is_multiple_of(64) {
            let walks = self.walks;
            self.groups.retain(|_, g| g.used + IDLE_WALKS > walks);
        }
    }
}

/// Whether a node can be part of a recording.
fn recordable(slot: crate::scene::SlotRef<'_>) -> bool {
    #[cfg(feature = "text")]
    if matches!(slot.node.kind, crate::NodeKind::Text(_)) {
        return false;
    }
    // A mesh drawn on its own (custom shader, culling, large) is drawn from the walk's list: the group is walked as
    // a container.
    if matches!(&slot.node.kind, crate::NodeKind::Mesh(m) if m.draws_alone()) {
        return false;
    }
    // Particles are drawn from the walk's list too; a layer draws nodes from elsewhere in the tree.
    if matches!(
        &slot.node.kind,
        crate::NodeKind::Particles(_) | crate::NodeKind::RenderLayer(_)
    ) {
        return false;
    }
    !slot.masks_involved() && !slot.node.blend_mode.is_advanced()
}

impl Groups {
    /// Draws the children of the render group `id` (whose own content is drawn, and whose children inherit `inh`)
    /// from its recording, making it first if needed. `false` if the group cannot be recorded: the caller walks
    /// its children instead.
    pub(super) fn draw<F: Fn(TextureId) -> bool>(
        &mut self,
        caches: &mut Caches,
        cx: &mut Ctx<'_, F>,
        id: NodeId,
        inh: &Inherited,
    ) -> bool {
        let scene = cx.scene;
        let slot = id.slot();
        let below = scene.changed_below(slot);
        let m = inh.matrix.matrix2;
        let scale = (m.x_axis * cx.view.half_size)
            .length()
            .max((m.y_axis * cx.view.half_size).length());
        if !scale.is_finite() || scale <= 0.0 {
            return false;
        }
        let walks = self.walks;
        let g = self.groups.entry(id.index).or_default();
        if g.generation != id.generation {
            *g = Group {
                generation: id.generation,
                ..Group::default()
            };
        }
        g.used = walks;
        if g.unfit != 0 && below <= g.unfit {
            return false;
        }
        let fresh = g.stamp != 0
            && below <= g.stamp
            && g.blend == inh.blend
            && (g.rec.vertices.is_empty() || (0.5..=2.0).contains(&(scale / g.scale)))
            && g.textures
                .iter()
                .all(|&t| (cx.is_live)(t) && Some(t) != cx.forbidden);
        if !fresh && !self.record(caches, cx, id, inh.blend, scale) {
            return false;
        }
        let g = self.groups.get_mut(&(id.index)).expect("recorded");
        let clip = g.bounds.transformed(&inh.matrix);
        if cx.track {
            cx.acc.union(clip);
        }
        if !clip.touches_view(cx.pad) {
            cx.stats.culled += !clip.is_empty() as u64;
            return true;
        }
        let seen = g.cells.visible(&inh.matrix, cx.pad, &mut self.ranges);
        if !seen.all() && self.ranges.is_empty() {
            // Its bounds touch the view but none of its cells do (an L-shaped group around a corner).
            cx.stats.culled += 1;
            return true;
        }
        let Some(t) = cx.batcher.push_transform(inh.matrix, inh.packed) else {
            return false;
        };
        let ranges = (!seen.all()).then_some(self.ranges.as_slice());
        if cx.batcher.replay(&mut g.rec, t, ranges) {
            cx.stats.sprites += if seen.all() {
                g.sprites
            } else {
                // Exact for groups of plain sprites (a quad each); in proportion otherwise.
                (g.sprites as u128 * seen.quads as u128 / g.cells.quads().max(1) as u128) as u64
            };
            cx.stats.shapes += g.shapes;
            cx.stats.groups_replayed += 1;
            cx.stats.group_cells_culled += seen.culled;
        }
        true
    }

    /// Walks the children of group `id` into a recording (group space; children inherit `blend`; shapes flattened
    /// for `scale` pixels per unit). `false` (remembered until something below changes) if the group holds
    /// what cannot be recorded.
    fn record<F: Fn(TextureId) -> bool>(
        &mut self,
        caches: &mut Caches,
        cx: &mut Ctx<'_, F>,
        id: NodeId,
        blend: BlendMode,
        scale: f32,
    ) -> bool {
        let groups = self;
        // A cheap look first: a group holding what cannot be recorded is not walked twice.
        let stack = &mut groups.stack;
        stack.clear();
        let root = Inherited {
            matrix: Affine2::IDENTITY,
            color: Color::WHITE,
            packed: u32::MAX,
            blend,
        };
        stack.push((id, 0, root));
        while let Some(top) = stack.last_mut() {
            let Some(&child) = cx.scene.children_of(top.0).get(top.1) else {
                stack.pop();
                continue;
            };
            top.1 += 1;
            match cx.scene.slot(child) {
                Some(slot) if slot.node.visible => {
                    if !recordable(slot) {
                        let g = groups.groups.get_mut(&id.index).expect("entry");
                        g.stamp = 0;
                        g.unfit = cx.epoch;
                        g.rec = Recorded::default();
                        return false;
                    }
                    if slot.child_count() != 0 {
                        stack.push((child, 0, root));
                    }
                }
                _ => {}
            }
        }
        let mut sub = groups
            .scratch
            .take()
            .filter(|b| {
                b.quad_bit() == cx.batcher.quad_bit()
                    && b.max_textures() == cx.batcher.max_textures()
            })
            .unwrap_or_else(|| {
                Batcher::with_quad_bit(cx.batcher.max_textures(), cx.batcher.quad_bit())
            });
        sub.forget_uploads();
        sub.begin();
        let mut stats = FrameStats::default();
        let (bounds, feedback, incomplete) = {
            let mut g = Ctx {
                layer_entry: None,
                cache_space: None,
                scene: cx.scene,
                view: View {
                    to_clip: Affine2::IDENTITY,
                    half_size: Vec2::splat(scale),
                    white: cx.view.white,
                },
                batcher: &mut sub,
                is_live: &cx.is_live,
                stats: &mut stats,
                skips: &mut *cx.skips,
                forbidden: cx.forbidden,
                feedback_loop: false,
                live: None,
                acc: Aabb::EMPTY,
                track: true,
                incomplete: false,
                pad: Vec2::ZERO,
                epoch: cx.epoch,
                volatile: false,
            };
            let stack = &mut groups.stack;
            stack.clear();
            stack.push((id, 0, root));
            while let Some(top) = stack.last_mut() {
                let Some(&child) = g.scene.children_of(top.0).get(top.1) else {
                    stack.pop();
                    continue;
                };
                top.1 += 1;
                let inh = top.2;
                let Some(slot) = g.scene.slot(child) else {
                    continue;
                };
                if !slot.node.visible {
                    continue;
                }
                if let Some((ci, true)) = visit_slot(&mut g, caches, child, slot, inh, false, false)
                {
                    stack.push((child, 0, ci));
                }
            }
            (g.acc, g.feedback_loop, g.incomplete)
        };
        sub.finish();
        let g = groups.groups.get_mut(&(id.index)).expect("entry");
        // A group showing the texture being drawn into is walked as a container (which skips and reports that
        // sprite); the counters of this throw-away walk are dropped.
        let fit = !feedback;
        let (sprites, shapes) = (stats.sprites, stats.shapes);
        if fit {
            // Skips met while recording are counted in this frame only; what is drawn, by each replay.
            stats.sprites = 0;
            stats.shapes = 0;
            cx.stats.accumulate(&stats);
            g.rec.take_from(&sub);
            g.rec.sort_slots(sub.quad_bit(), &mut groups.seen);
            g.cells.build(&g.rec, sub.quad_bit());
            g.textures.clear();
            for b in &g.rec.batches {
                for t in b.textures.ids() {
                    if !g.textures.contains(&t) {
                        g.textures.push(t);
                    }
                }
            }
            // A shape still on the tessellation worker was recorded with a stand-in: replay this recording now,
            // record again next frame.
            g.stamp = if incomplete { 0 } else { cx.epoch };
            cx.incomplete |= incomplete;
            cx.volatile |= incomplete;
            g.unfit = 0;
            g.blend = blend;
            g.scale = scale;
            g.bounds = bounds;
            g.sprites = sprites;
            g.shapes = shapes;
            cx.stats.groups_rebuilt += 1;
        } else {
            g.stamp = 0;
            g.unfit = cx.epoch;
            g.rec = Recorded::default();
        }
        groups.scratch = Some(sub);
        fit
    }
}
