//! Where a walk's filter draws land once it ends: filtered nodes drawn by their last pass into the pass holding
//! them (`FinalDraw`), advanced blend draws (`BlendDraw`) and alpha masks' maps from their content to their mask.

use super::{FilterGroup, FilterWalk, FinalDraw, GroupKind, Segment};
use crate::MaskChannel;
use glam::Vec2;

impl FilterWalk {
    /// Each segment's index by its transform index (the pass a segment is drawn into is the segment whose
    /// transform its elements carry).
    fn segments_by_xform(&self) -> std::collections::HashMap<u32, usize> {
        self.segments
            .iter()
            .enumerate()
            .map(|(i, s)| (s.xform, i))
            .collect()
    }

    /// A rectangle in target pixels mapped into segment `p`'s texture pixels: (min, max).
    fn in_parent(&self, p: usize, rect: (Vec2, Vec2), view: &super::super::View) -> (Vec2, Vec2) {
        let ps = self.segments[p];
        let pg = &self.groups[ps.group as usize];
        let to_parent = |t: Vec2| match ps.local {
            Some(local) => local.transform_point2(view.clip_of_px(t)),
            None => t * pg.scale - ps.origin + Vec2::new(ps.pos.0 as f32, ps.pos.1 as f32),
        };
        let (a, c) = (to_parent(rect.0), to_parent(rect.1));
        (a.min(c), a.max(c))
    }

    /// Which groups draw their last pass straight into the pass holding them: those of one filtered node whose
    /// quad was drawn.
    pub(super) fn place_finals(&mut self, view: &super::super::View) {
        self.direct.resize(self.groups.len(), None);
        let by_xform = self.segments_by_xform();
        for i in 0..self.segments.len() {
            let n = self.segments[i];
            let g = &self.groups[n.group as usize];
            let (GroupKind::Filters | GroupKind::Masked { .. }) = g.kind else {
                continue;
            };
            if g.keep {
                continue;
            }
            let (Some(q), 1, false) = (n.quad, g.segments, g.passes.is_empty()) else {
                continue;
            };
            let (parent, rect) = match by_xform.get(&n.parent_xform) {
                None if n.parent_xform == 0 => (None, (n.rect.0, n.rect.1)),
                None => continue,
                Some(&p) => {
                    let (lo, hi) = self.in_parent(p, n.rect, view);
                    (Some(self.segments[p].group), (lo, hi))
                }
            };
            let parent_size = parent.map(|p| self.groups[p as usize].size);
            let tag = self.finals.len() as u32;
            self.finals.push(FinalDraw {
                group: n.group,
                parent,
                rect: [rect.0.x, rect.0.y, rect.1.x - rect.0.x, rect.1.y - rect.0.y],
                parent_size,
                size: n.size,
            });
            self.final_splits
                .push((q, crate::frame::batcher::Batcher::MARKER_FINAL | tag));
            self.direct[n.group as usize] = Some(tag);
        }
        self.final_splits.sort_unstable();
    }

    /// Where each advanced blend draw lies in the pass it is drawn in, and its uniforms.
    pub(super) fn place_blends(&mut self, view: &super::super::View) {
        if self.blends.is_empty() {
            return;
        }
        let by_xform = self.segments_by_xform();
        for b in 0..self.blends.len() {
            let d = self.blends[b];
            let Some(n) = self.segments.get(d.seg as usize).copied() else {
                continue;
            };
            let Some(&p) = by_xform.get(&n.parent_xform) else {
                continue;
            };
            let ps = self.segments[p];
            let (lo, hi) = self.in_parent(p, n.rect, view);
            let (lo, hi) = (lo.round(), hi.round());
            let w = (n.size.0 as f32).min((hi.x - lo.x).max(0.0));
            let h = (n.size.1 as f32).min((hi.y - lo.y).max(0.0));
            let d = &mut self.blends[b];
            d.parent = Some(ps.group);
            d.rect = [
                lo.x.max(0.0) as u32,
                lo.y.max(0.0) as u32,
                w as u32,
                h as u32,
            ];
        }
    }

    /// The pipeline of final draw `tag` (a filtered node's last pass drawn into the pass holding it) under the
    /// current target state, with its chain's blend mode; `None` for a tag this walk does not know.
    pub fn final_pipeline(
        &self,
        filters: &mut crate::gpu::filters::FilterSystem,
        pipelines: &mut crate::gpu::pipeline::PipelineSystem,
        tag: u32,
    ) -> crate::Result<Option<crate::gpu::pipeline::PipelineId>> {
        let Some(f) = self.finals.get(tag as usize) else {
            return Ok(None);
        };
        let g = &self.groups[f.group as usize];
        let program = self.passes[g.passes.end - 1].program;
        filters
            .pipeline_blended(pipelines, program, g.blend)
            .map(Some)
    }

    /// The uniforms of masked segment `s`'s mask pass: its texture pixels to the mask texture's coordinates.
    pub(super) fn write_mask_params(
        &mut self,
        s: Segment,
        g: FilterGroup,
        mask: Option<u32>,
        channel: MaskChannel,
        inverse: bool,
    ) {
        let Some(pass) = self.passes.get(g.passes.start) else {
            return;
        };
        let at = pass.params.0 as usize;
        let red = (channel == MaskChannel::Red) as u8 as f32;
        let inv = inverse as u8 as f32;
        let values: [f32; 12] = match mask.and_then(|m| self.segments.get(m as usize)) {
            Some(m) => {
                let mg = &self.groups[m.group as usize];
                let size = Vec2::new(mg.size.0 as f32, mg.size.1 as f32);
                // Texture pixel p -> target pixel (p - pos + origin) / scale -> mask texture pixel
                // t * mscale - morigin + mpos -> / size.
                let pos = Vec2::new(s.pos.0 as f32, s.pos.1 as f32);
                let mpos = Vec2::new(m.pos.0 as f32, m.pos.1 as f32);
                let k = mg.scale / g.scale;
                let a = Vec2::splat(k) / size;
                let b = ((s.origin - pos) * k - m.origin + mpos) / size;
                let lo = mpos / size;
                let hi = (mpos + Vec2::new(m.size.0 as f32, m.size.1 as f32)) / size;
                [
                    a.x, 0.0, 0.0, a.y, b.x, b.y, red, inv, lo.x, lo.y, hi.x, hi.y,
                ]
            }
            // The mask drew nothing: nothing is inside it.
            None => [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, red, inv, 1.0, 1.0, 0.0, 0.0],
        };
        for (k, v) in values.iter().enumerate() {
            self.arena[at + 4 * k..at + 4 * k + 4].copy_from_slice(&v.to_le_bytes());
        }
    }
}
