//! Masks in the walk: pushing a node's mask (a scissor rectangle when the mask is one axis-aligned rectangle on
//! the target, else the stencil through the [`MaskStack`] state machine), drawing the mask's shape into the
//! stencil, and popping it when the masked subtree is done.

use super::visit::{skip, visit, visit_slot, Ctx, Inherited};
use super::{Collector, Frame, Measure, Pop, View};
use crate::frame::mask::{MaskRefusal, MaskStep};
use crate::graphics::{GraphicsContext, Instruction, PathCommand};
use crate::scene::Scene;
use crate::{BlendMode, Color, Mask, NodeId, NodeKind, TextureId};
use glam::{Affine2, Vec2};

impl Collector {
    /// Pushes `mask` for the node `target`; `None` when the target's subtree must not be drawn.
    pub(super) fn push_mask<F: Fn(TextureId) -> bool>(
        &mut self,
        cx: &mut Ctx<'_, F>,
        target: NodeId,
        mask: Mask,
    ) -> Option<Pop> {
        // The mask's parent's world transform (the mask may live anywhere in the tree, or detached), in clip
        // space, and the mask's own.
        let scene = cx.scene;
        // A mask inside the drawn subtree is placed as the subtree is (from the walk's start, its own transform
        // included); one elsewhere in the tree by its world transform; a detached mask's parent is the target's
        // origin. A removed mask (or ancestor) gives `None`.
        let parent = match scene.parent(mask.node) {
            Some(p) => scene.transform_under(self.start, p),
            None => Some(Affine2::IDENTITY),
        };
        let (Some(parent), Some(transform)) = (parent, scene.transform(mask.node)) else {
            // Drawing it unmasked would show what the mask was there to hide.
            skip(
                cx.stats,
                cx.skips,
                target,
                "its mask node was removed (or is another scene's)",
            );
            return None;
        };
        self.kept.mask(mask.node.slot());
        if scene.slot(mask.node).is_some_and(|s| s.filtered()) {
            // A mask is drawn into the stencil, not as colour: filters cannot change it.
            cx.stats.filters_skipped += 1;
            cx.skips.push(
                mask.node,
                "filters on a mask are ignored (a mask is drawn into the stencil, not as colour)",
            );
        }
        let parent_matrix = cx.view.to_clip * parent;
        let matrix = parent_matrix * transform.matrix();
        if !(matrix.matrix2.is_finite() && matrix.translation.is_finite()) {
            skip(
                cx.stats,
                cx.skips,
                target,
                "its mask has a non-finite transform",
            );
            return None;
        }
        if let Some(channel) = mask.channel {
            return self.push_alpha_mask(cx, target, mask, channel, parent_matrix);
        }
        self.steps.clear();
        // Inside a filtered subtree rectangles are stencil masks too (a scissor rectangle is the target's).
        let in_filter = !self.filters.stack.is_empty();
        if !mask.inverse && !in_filter {
            if let Some(rect) = scissor_rect(cx.scene, mask.node, matrix, &cx.view) {
                return match self.masks.push_scissor(rect, &mut self.steps) {
                    Ok(()) => {
                        self.mask_counters.pushed += 1;
                        self.mask_counters.scissor += 1;
                        self.run_steps(cx, mask.node, parent_matrix);
                        Some(Pop::Scissor)
                    }
                    Err(_) => None,
                };
            }
        }
        match self.masks.push_stencil(mask.inverse, &mut self.steps) {
            Ok(()) => {
                self.mask_counters.pushed += 1;
                self.mask_counters.used_stencil = true;
                self.run_steps(cx, mask.node, parent_matrix);
                Some(Pop::Stencil {
                    mask: mask.node,
                    matrix: parent_matrix,
                })
            }
            Err(MaskRefusal::TooDeep) => {
                skip(
                    cx.stats,
                    cx.skips,
                    target,
                    "masks nest deeper than the 8-bit stencil allows (255)",
                );
                cx.stats.masks_too_deep += 1;
                None
            }
            Err(MaskRefusal::Empty) => None,
        }
    }

    /// Pushes an alpha mask: the mask's pixels drawn into a texture of their own, then a segment opened for
    /// the target's content, which the mask's pass multiplies by the mask's channel.
    fn push_alpha_mask<F: Fn(TextureId) -> bool>(
        &mut self,
        cx: &mut Ctx<'_, F>,
        target: NodeId,
        mask: Mask,
        channel: crate::MaskChannel,
        parent_matrix: Affine2,
    ) -> Option<Pop> {
        if !self.filters.open_mask_source(cx, mask.node) {
            skip(
                cx.stats,
                cx.skips,
                target,
                "alpha masks nest deeper than 64",
            );
            return None;
        }
        self.draw_mask_as(cx, mask.node, parent_matrix, false);
        let source = self.filters.close(cx);
        if !self
            .filters
            .open_masked(cx, target, source, channel, mask.inverse)
        {
            return None;
        }
        self.mask_counters.pushed += 1;
        Some(Pop::Alpha)
    }

    pub(super) fn pop_mask<F: Fn(TextureId) -> bool>(&mut self, cx: &mut Ctx<'_, F>, pop: Pop) {
        self.steps.clear();
        match pop {
            Pop::None => {}
            Pop::Alpha => {
                self.filters.close(cx);
            }
            Pop::Scissor => {
                self.masks.pop(&mut self.steps);
                self.run_steps(cx, cx.scene.root(), Affine2::IDENTITY);
            }
            Pop::Stencil { mask, matrix } => {
                self.masks.pop(&mut self.steps);
                self.run_steps(cx, mask, matrix);
            }
        }
    }

    fn run_steps<F: Fn(TextureId) -> bool>(
        &mut self,
        cx: &mut Ctx<'_, F>,
        mask: NodeId,
        matrix: Affine2,
    ) {
        for i in 0..self.steps.len() {
            match self.steps[i] {
                MaskStep::State(s) => cx.batcher.set_state(s),
                MaskStep::DrawFullscreen => cx.batcher.push_quad(
                    cx.view.white,
                    [[-1.0, 1.0], [2.0, 0.0], [0.0, -2.0]],
                    [0.0, 0.0, 1.0, 1.0],
                    u32::MAX,
                    BlendMode::Normal,
                ),
                MaskStep::DrawMask => self.draw_mask(cx, mask, matrix),
            }
        }
    }

    /// Draws the geometry of a mask subtree (its shape only: no colour, no nested masks); `parent_matrix` is the
    /// clip-space transform of the mask's parent.
    fn draw_mask<F: Fn(TextureId) -> bool>(
        &mut self,
        cx: &mut Ctx<'_, F>,
        mask: NodeId,
        parent_matrix: Affine2,
    ) {
        self.draw_mask_as(cx, mask, parent_matrix, true);
    }

    /// Draws the mask's subtree: into the stencil (`stencil`), or as colour for an alpha mask.
    fn draw_mask_as<F: Fn(TextureId) -> bool>(
        &mut self,
        cx: &mut Ctx<'_, F>,
        mask: NodeId,
        parent_matrix: Affine2,
        stencil: bool,
    ) {
        let inh = Inherited {
            matrix: parent_matrix,
            color: Color::WHITE,
            packed: u32::MAX,
            blend: BlendMode::Normal,
        };
        // The mask root draws regardless of its `visible` flag (a hidden node can still mask).
        let first = match stencil {
            true => visit(cx, &mut self.caches, mask, inh, true),
            false => cx
                .scene
                .slot(mask)
                .and_then(|slot| visit_slot(cx, &mut self.caches, mask, slot, inh, false, true)),
        };
        let Some((first, has_children)) = first else {
            return;
        };
        if !has_children {
            return;
        }
        self.mask_walk.clear();
        self.mask_walk.push(Frame {
            segments: 0,
            node: mask,
            cursor: 0,
            inherited: first,
            pop: Pop::None,
            measure: Measure::None,
            ahead: None,
            kept: 0,
            layer: None,
        });
        while let Some(top) = self.mask_walk.last_mut() {
            let kids = cx.scene.children_of(top.node);
            let Some(&child) = kids.get(top.cursor) else {
                self.mask_walk.pop();
                continue;
            };
            top.cursor += 1;
            let inh = top.inherited;
            self.kept.mask(child.slot());
            if cx.scene.get(child).is_some_and(|n| n.visible) {
                if let Some((ci, true)) = visit(cx, &mut self.caches, child, inh, stencil) {
                    self.mask_walk.push(Frame {
                        segments: 0,
                        node: child,
                        cursor: 0,
                        inherited: ci,
                        pop: Pop::None,
                        measure: Measure::None,
                        ahead: None,
                        kept: 0,
                        layer: None,
                    });
                }
            }
        }
    }
}

/// If the mask is a single axis-aligned rectangle in target space (a sprite's quad, or a graphics node whose only
/// instruction fills one rectangle), its scissor rectangle: pixels whose centres lie inside.
fn scissor_rect(scene: &Scene, mask: NodeId, matrix: Affine2, view: &View) -> Option<[u32; 4]> {
    let slot = scene.slot(mask)?;
    if slot.child_count() != 0 {
        return None;
    }
    let m2 = matrix.matrix2;
    if m2.x_axis.y != 0.0 || m2.y_axis.x != 0.0 {
        return None;
    }
    let (lo, hi) = match &slot.node.kind {
        NodeKind::Sprite(s) => {
            // The drawn quad, in the node's space.
            let (p0, dx, dy) = s.quad(&Affine2::IDENTITY);
            (p0.min(p0 + dx + dy), p0.max(p0 + dx + dy))
        }
        NodeKind::Graphics(g) => single_rect(g)?,
        _ => return None,
    };
    let a = view.pixels_of(matrix.transform_point2(lo));
    let b = view.pixels_of(matrix.transform_point2(hi));
    let (min, max) = (a.min(b), a.max(b));
    if !(min.is_finite() && max.is_finite()) {
        return None;
    }
    let size = view.size();
    let x0 = (min.x - 0.5).ceil().clamp(0.0, size.x);
    let y0 = (min.y - 0.5).ceil().clamp(0.0, size.y);
    let x1 = (max.x - 0.5).ceil().clamp(0.0, size.x);
    let y1 = (max.y - 0.5).ceil().clamp(0.0, size.y);
    Some([
        x0 as u32,
        y0 as u32,
        (x1 - x0).max(0.0) as u32,
        (y1 - y0).max(0.0) as u32,
    ])
}

/// The corners of the one rectangle a context fills, if that is all it does.
fn single_rect(g: &GraphicsContext) -> Option<(Vec2, Vec2)> {
    let [Instruction::Fill { path, holes, .. }] = g.instructions() else {
        return None;
    };
    if !holes.is_empty() {
        return None;
    }
    let [PathCommand::MoveTo(a), PathCommand::LineTo(b), PathCommand::LineTo(c), PathCommand::LineTo(d), PathCommand::Close] =
        path.commands()
    else {
        return None;
    };
    let axis_aligned = (a.y == b.y && b.x == c.x && c.y == d.y && d.x == a.x)
        || (a.x == b.x && b.y == c.y && c.x == d.x && d.y == a.y);
    axis_aligned.then(|| (a.min(*c), a.max(*c)))
}
