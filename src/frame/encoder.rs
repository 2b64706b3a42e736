//! The Encoder: a wgpu render pass that skips redundant state changes and counts what it issued and skipped.
//!
//! [`BoundState`] is the pure part: it remembers, by stable id, what is bound in the current pass and answers
//! "does this call need issuing?". Ids are never reused for different objects (a grown buffer gets a new
//! generation, a re-created bind group a new id), so comparing ids cannot wrongly skip a bind group whose resources
//! changed, which is PixiJS's blind spot. All memory is reset at each new pass, because wgpu pass state does not
//! survive a pass (the stencil reference starts at 0).

use crate::base::stats::FrameStats;
use crate::gpu::buffer::BufferBinding;
use crate::gpu::pipeline::PipelineId;
use crate::gpu::texture_system::BindGroupId;

/// Most bind-group slots tracked.
pub const MAX_SLOTS: usize = 4;

/// What is bound in the current pass, by id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BoundState {
    pipeline: Option<PipelineId>,
    bind_groups: [Option<BindGroupId>; MAX_SLOTS],
    index_buffer: Option<BufferBinding>,
    stencil_reference: u32,
    scissor: Option<[u32; 4]>,
}

/// Updates `slot` to `value` and says whether the call must be issued (the `set_and_check_redundant` pattern).
#[inline]
fn set_and_check<T: PartialEq + Copy>(
    slot: &mut T,
    value: T,
    issued: &mut u64,
    skipped: &mut u64,
) -> bool {
    if *slot == value {
        *skipped += 1;
        false
    } else {
        *slot = value;
        *issued += 1;
        true
    }
}

impl BoundState {
    /// Forgets everything, as at the start of a new pass.
    pub fn reset(&mut self) {
        *self = BoundState::default();
    }

    /// Forgets everything and marks the stencil reference and scissor rectangle unknown, for a pass someone else
    /// began (it may hold any of them): the next of each is issued.
    pub fn reset_unknown(&mut self) {
        *self = BoundState {
            stencil_reference: u32::MAX,
            scissor: Some([u32::MAX; 4]),
            ..BoundState::default()
        };
    }

    /// Whether `set_pipeline(id)` must be issued; counts it.
    pub fn pipeline(&mut self, id: PipelineId, c: &mut FrameStats) -> bool {
        set_and_check(
            &mut self.pipeline,
            Some(id),
            &mut c.set_pipeline_issued,
            &mut c.set_pipeline_skipped,
        )
    }

    /// Whether `set_bind_group(slot, id)` must be issued; counts it.
    ///
    /// # Panics
    /// If `slot >= MAX_SLOTS`.
    pub fn bind_group(&mut self, slot: usize, id: BindGroupId, c: &mut FrameStats) -> bool {
        set_and_check(
            &mut self.bind_groups[slot],
            Some(id),
            &mut c.set_bind_group_issued,
            &mut c.set_bind_group_skipped,
        )
    }

    /// Whether `set_index_buffer(b)` must be issued; counts it.
    pub fn index_buffer(&mut self, b: BufferBinding, c: &mut FrameStats) -> bool {
        set_and_check(
            &mut self.index_buffer,
            Some(b),
            &mut c.set_buffer_issued,
            &mut c.set_buffer_skipped,
        )
    }

    /// Whether `set_stencil_reference(r)` must be issued; counts it. A new pass starts at 0.
    pub fn stencil_reference(&mut self, r: u32, c: &mut FrameStats) -> bool {
        set_and_check(
            &mut self.stencil_reference,
            r,
            &mut c.set_stencil_reference_issued,
            &mut c.set_stencil_reference_skipped,
        )
    }

    /// Whether `set_scissor_rect(r)` must be issued. `None` means the whole target.
    pub fn scissor(&mut self, r: Option<[u32; 4]>) -> bool {
        let (mut i, mut s) = (0, 0);
        set_and_check(&mut self.scissor, r, &mut i, &mut s)
    }
}

/// A render pass with redundant-call skipping. Build one per pass with [`Encoder::new`]; it resets the bound state.
pub struct Encoder<'a, 'p> {
    pass: &'a mut wgpu::RenderPass<'p>,
    state: &'a mut BoundState,
    stats: &'a mut FrameStats,
    target_size: (u32, u32),
}

impl<'a, 'p> Encoder<'a, 'p> {
    /// Wraps a freshly begun pass over a target of `target_size` pixels.
    pub fn new(
        pass: &'a mut wgpu::RenderPass<'p>,
        state: &'a mut BoundState,
        stats: &'a mut FrameStats,
        target_size: (u32, u32),
    ) -> Self {
        state.reset();
        stats.render_passes += 1;
        Encoder {
            pass,
            state,
            stats,
            target_size,
        }
    }

    /// Takes over a pass that someone else began: its viewport is set to the whole target, and its scissor
    /// rectangle and stencil reference count as unknown, so the first draw sets them.
    pub fn take_over_pass(&mut self) {
        self.state.reset_unknown();
        let (w, h) = self.target_size;
        self.pass
            .set_viewport(0.0, 0.0, w as f32, h as f32, 0.0, 1.0);
    }

    /// Binds `pipeline` unless it is already bound.
    pub fn set_pipeline(&mut self, id: PipelineId, pipeline: &wgpu::RenderPipeline) {
        if self.state.pipeline(id, self.stats) {
            self.pass.set_pipeline(pipeline);
        }
    }

    /// Binds `group` at `slot` unless it is already bound there.
    pub fn set_bind_group(&mut self, slot: u32, id: BindGroupId, group: &wgpu::BindGroup) {
        if self.state.bind_group(slot as usize, id, self.stats) {
            self.pass.set_bind_group(slot, group, &[]);
        }
    }

    /// Binds `group` at `slot` with a dynamic uniform offset (always issued: the offset changes per draw).
    pub fn set_bind_group_at(
        &mut self,
        slot: u32,
        id: BindGroupId,
        group: &wgpu::BindGroup,
        offset: u32,
    ) {
        self.state.bind_groups[slot as usize] = Some(id);
        self.stats.set_bind_group_issued += 1;
        self.pass.set_bind_group(slot, group, &[offset]);
    }

    /// Binds bytes `range` of `buffer` as vertex buffer `slot`.
    pub fn set_vertex_buffer_range(
        &mut self,
        slot: u32,
        buffer: &wgpu::Buffer,
        range: std::ops::Range<u64>,
    ) {
        self.stats.set_buffer_issued += 1;
        self.pass.set_vertex_buffer(slot, buffer.slice(range));
    }

    /// Binds a `u32` index buffer unless the same one is bound.
    pub fn set_index_buffer(&mut self, b: BufferBinding, buffer: &wgpu::Buffer) {
        if self.state.index_buffer(b, self.stats) {
            self.pass
                .set_index_buffer(buffer.slice(b.offset..), wgpu::IndexFormat::Uint32);
        }
    }

    /// Sets the stencil reference unless it already has that value.
    pub fn set_stencil_reference(&mut self, r: u32) {
        if self.state.stencil_reference(r, self.stats) {
            self.pass.set_stencil_reference(r);
        }
    }

    /// Sets the scissor rectangle (`None`: the whole target) unless it is already set.
    pub fn set_scissor(&mut self, r: Option<[u32; 4]>) {
        if self.state.scissor(r) {
            let [x, y, w, h] = r.unwrap_or([0, 0, self.target_size.0, self.target_size.1]);
            self.pass.set_scissor_rect(x, y, w, h);
        }
    }

    /// Records draws outside the Encoder's bookkeeping (a filter's last pass drawn into this pass, with bind
    /// groups of its own): afterwards the pipeline and bind groups count as unknown, so the next are issued.
    pub fn raw(&mut self, f: impl FnOnce(&mut wgpu::RenderPass<'p>)) {
        f(self.pass);
        self.stats.draw_calls += 1;
        self.state.pipeline = None;
        self.state.bind_groups = [None; MAX_SLOTS];
    }

    /// Records an indexed draw.
    pub fn draw_indexed(&mut self, indices: std::ops::Range<u32>) {
        self.draw_indexed_instanced(indices, 1);
    }

    /// Issues an indexed draw of `instances` instances.
    pub fn draw_indexed_instanced(&mut self, indices: std::ops::Range<u32>, instances: u32) {
        self.stats.draw_calls += 1;
        self.pass.draw_indexed(indices, 0, 0..instances);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redundant_calls_are_skipped_and_counted() {
        let mut s = BoundState::default();
        let mut c = FrameStats::default();
        assert!(s.pipeline(PipelineId(1), &mut c));
        assert!(!s.pipeline(PipelineId(1), &mut c));
        assert!(s.pipeline(PipelineId(2), &mut c));
        assert!(s.bind_group(0, BindGroupId(5), &mut c));
        assert!(!s.bind_group(0, BindGroupId(5), &mut c));
        assert!(
            s.bind_group(1, BindGroupId(5), &mut c),
            "slots are independent"
        );
        let b = BufferBinding {
            buffer: 1,
            generation: 0,
            offset: 0,
        };
        assert!(s.index_buffer(b, &mut c));
        assert!(!s.index_buffer(b, &mut c));
        assert!(!s.index_buffer(b, &mut c));
        assert_eq!((c.set_pipeline_issued, c.set_pipeline_skipped), (2, 1));
        assert_eq!((c.set_bind_group_issued, c.set_bind_group_skipped), (2, 1));
        assert_eq!((c.set_buffer_issued, c.set_buffer_skipped), (1, 2));
    }

    #[test]
    fn a_regrown_buffer_is_rebound() {
        let mut s = BoundState::default();
        let mut c = FrameStats::default();
        let b = BufferBinding {
            buffer: 1,
            generation: 0,
            offset: 0,
        };
        assert!(s.index_buffer(b, &mut c));
        let grown = BufferBinding { generation: 1, ..b };
        assert!(s.index_buffer(grown, &mut c));
        let moved = BufferBinding {
            offset: 256,
            ..grown
        };
        assert!(s.index_buffer(moved, &mut c));
    }

    #[test]
    fn stencil_reference_starts_at_zero_each_pass() {
        let mut s = BoundState::default();
        let mut c = FrameStats::default();
        assert!(!s.stencil_reference(0, &mut c));
        assert!(s.stencil_reference(2, &mut c));
        assert!(!s.stencil_reference(2, &mut c));
        s.reset();
        assert!(
            s.stencil_reference(2, &mut c),
            "reset must forget the reference"
        );
        assert_eq!(c.set_stencil_reference_issued, 2);
        assert_eq!(c.set_stencil_reference_skipped, 2);
    }

    #[test]
    fn reset_forgets_everything() {
        let mut s = BoundState::default();
        let mut c = FrameStats::default();
        s.pipeline(PipelineId(1), &mut c);
        s.bind_group(0, BindGroupId(1), &mut c);
        s.scissor(Some([0, 0, 4, 4]));
        s.reset();
        assert_eq!(s, BoundState::default());
        assert!(s.pipeline(PipelineId(1), &mut c));
        assert!(s.bind_group(0, BindGroupId(1), &mut c));
    }

    #[test]
    fn a_pass_taken_over_sets_its_stencil_reference_and_scissor_first() {
        let mut s = BoundState::default();
        let mut c = FrameStats::default();
        s.reset_unknown();
        assert!(s.stencil_reference(0, &mut c), "0 is not assumed");
        assert!(s.scissor(None), "the whole target is not assumed");
        assert!(!s.scissor(None));
        s.reset_unknown();
        assert!(
            s.scissor(Some([0, 0, 0, 0])),
            "an empty rectangle is set too"
        );
    }

    #[test]
    fn scissor_is_tracked() {
        let mut s = BoundState::default();
        assert!(!s.scissor(None));
        assert!(s.scissor(Some([1, 2, 3, 4])));
        assert!(!s.scissor(Some([1, 2, 3, 4])));
        assert!(s.scissor(None));
    }
}
