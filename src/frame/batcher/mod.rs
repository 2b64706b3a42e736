//! The Batcher: turns the frame's drawables, in tree order, into a quad stream, a vertex stream, one index stream
//! and a short list of batches (index ranges sharing a blend mode, topology and a set of up to `max_textures`
//! textures).
//!
//! Sprites and glyphs are quads: one 48-byte [`Quad`] each (a clip-space parallelogram and a texture frame), whose
//! four corners the vertex shader makes (the GPU holds quads as two arrays, corners and the rest, so a moved
//! sprite uploads half its quad). Shape meshes are [`Vertex`]es. Both live in storage buffers and one index
//! stream draws them: an index with the quad bit set names corner `index & 3` of quad `(index - bit) >> 2`, any
//! other index names a mesh vertex. So quads and meshes share batches and draw calls in tree order. The quad bit
//! is [`QUAD_INDEX_BIT`] (bit 31), or [`QUAD_INDEX_BIT_24`](crate::gpu::shader::QUAD_INDEX_BIT_24) (bit 23) on devices whose indices stop at 2^24 - 1.
//!
//! A new batch starts only when the blend mode or topology changes, when a texture is new to the batch and the
//! batch is full, or when the caller forces a break (masks). Frames of one texture share a slot. Slot lookup is
//! O(1): a per-texture `(tick, slot)` pair is valid while its tick equals the current batch's tick (PixiJS's
//! `_batchTick`).
//!
//! The streams keep last frame's contents and note the ranges that changed ([`TrackedVec`], `tracked.rs`), so a static scene
//! uploads nothing and a scene whose structure did not change re-uploads no indices. Quads do not write their
//! indices one by one: consecutive quads form a [`QuadRun`] whose indices are written when the run ends, and not
//! at all when last frame had the same run at the same place (the stream already holds them). Nothing here
//! touches wgpu.

pub use crate::frame::elements::{
    GroupTransform, Quad, StyledData, Vertex, DATA_FLAG, DISTANCE_FIELD_FLAG, PASS_FILL,
    PASS_OUTLINE, PASS_SHADOW, QUAD_INDEX_BIT, STYLED_INDEX_BIT, TILING_FLAG, TRANSFORM_SHIFT,
    WRAP_X_FLAG, WRAP_Y_FLAG,
};
use crate::gpu::pipeline::{StencilMode, Topology};
pub use crate::gpu::shader::MAX_BATCH_TEXTURES;
pub use crate::gpu::texture_system::TextureSet;

pub mod recording;
mod styled;
pub use crate::frame::tracked::TrackedVec;
use crate::{BlendMode, TextureId};

/// What a quad computed ahead shows, for [`Batcher::push_prepared`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuadMeta {
    /// The texture.
    pub texture: TextureId,
    /// Resolved blend mode.
    pub blend: BlendMode,
    /// Whether the quad was computed (otherwise its node takes the one-by-one path).
    pub ready: bool,
    /// The sprite's rectangle before its transform (noted for kept walks).
    pub local: crate::scene::sprite::LocalQuad,
}

/// Per-pass state a batch is drawn under: the stencil mode and reference (masks) and the scissor rectangle
/// (rectangle masks). A change of state always starts a new batch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PassState {
    /// Stencil test and operation.
    pub stencil: StencilMode,
    /// Stencil reference (the mask nesting depth).
    pub stencil_ref: u8,
    /// Scissor rectangle `[x, y, width, height]` in pixels, or `None` for the whole target.
    pub scissor: Option<[u32; 4]>,
}

/// A run of indices drawn with one pipeline and one texture bind group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Batch {
    /// First index in the index stream.
    pub index_start: u32,
    /// Number of indices.
    pub index_count: u32,
    /// Resolved blend mode.
    pub blend: BlendMode,
    /// Primitive topology.
    pub topology: Topology,
    /// Textures bound, in slot order.
    pub textures: TextureSet,
    /// Stencil and scissor state.
    pub state: PassState,
    /// The pass it is drawn in: 0 the frame's own, `k + 1` the intermediate texture of filter group `k`.
    pub target: u16,
    /// `k + 1` for a marker (no indices) where advanced-blend draw `k` happens; 0 for a batch of elements.
    pub marker: u32,
}

/// Consecutive quads `quad_start..quad_start + quads`, drawn by the indices from `index_start` on, six per quad
/// (corners `0 1 2 0 2 3`); a styled text's glyphs (`passes` not 0) six a quad a pass, pass by pass (shadows, then
/// outlines, then fills).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QuadRun {
    /// First index of the run in the index stream.
    pub index_start: u32,
    /// First quad of the run.
    pub quad_start: u32,
    /// Number of quads.
    pub quads: u32,
    /// A styled text's passes ([`PASS_FILL`] and the others), 0 for plain quads.
    pub passes: u32,
}

impl QuadRun {
    /// Indices a quad of the run takes.
    #[inline(always)]
    fn per_quad(&self) -> u32 {
        6 * self.passes.count_ones().max(1)
    }
}

/// Builds the frame's quad, vertex and index streams and its batches.
#[derive(Debug)]
pub struct Batcher {
    /// The quad stream (sprites, glyphs).
    pub quads: TrackedVec<Quad>,
    /// The mesh-vertex stream (shapes).
    pub vertices: TrackedVec<Vertex>,
    /// The index stream (`u32`: quad corners with the quad bit set, absolute mesh-vertex indices without).
    pub indices: TrackedVec<u32>,
    /// Points bounding what is drawn outside the streams (custom-shader meshes), in clip space, with the
    /// transform index their elements would carry: filter segments measure them with their elements.
    pub extra_points: Vec<([f32; 2], u32)>,
    batches: Vec<Batch>,
    max_textures: usize,
    current: Batch,
    state: PassState,
    tick: u32,
    /// Per texture index: (tick when it got a slot, slot).
    slots: Vec<(u32, u8)>,
    /// The quads pushed since the last mesh, whose indices are not written yet.
    run: QuadRun,
    /// This frame's ended runs, and last frame's.
    runs: Vec<QuadRun>,
    last_runs: Vec<QuadRun>,
    /// How many of this frame's quad runs kept last frame's indices.
    pub runs_kept: u32,
    quad_bit: u32,
    /// Render-group transforms; entry 0 is the identity.
    pub transforms: TrackedVec<GroupTransform>,
    /// Frames begun (render groups remember in which one they were placed).
    frame: u64,
    /// Scratch of `push_prepared`: each quad's slot, and which chunks changed.
    prep_slots: Vec<u8>,
    prep_changed: Vec<bool>,
    /// The pass new elements are drawn in (see [`Batch::target`]).
    target: u16,
    /// The transform index new elements carry, shifted to its place in the texture word (a filtered subtree's
    /// elements carry the transform that maps them into their intermediate texture).
    xform: u32,
    /// Scratch of [`Batcher::group_by_target`].
    reorder: (Vec<u32>, Vec<Batch>),
    /// Quads whose drawing waits until something else is drawn in their pass (see [`Batcher::defer_quad`]).
    deferred: Vec<Deferred>,
    /// Whether a deferred quad waits for the current pass.
    deferred_here: bool,
    /// Deferred quads waiting, by pass.
    deferred_count: Vec<u32>,
    /// The slot tick of the last batch ended (to go on with it).
    last_tick: u32,
    /// Deferred quads drawn this frame: (tag, quad index).
    pub flushed: Vec<(u32, u32)>,
    /// The styled text being pushed: its data quad and passes (see [`Batcher::begin_styled`]).
    styled: Option<(u32, u32)>,
    /// Indices a glyph of that text takes.
    styled_indices: u32,
}

/// A quad waiting to be drawn (see [`Batcher::defer_quad`]), with the pass, state and transform it was given in.
#[derive(Clone, Copy, Debug)]
struct Deferred {
    tag: u32,
    target: u16,
    state: PassState,
    xform: u32,
    texture: TextureId,
    geometry: [[f32; 2]; 3],
    uv: [f32; 4],
    color: u32,
    blend: BlendMode,
}

/// Quads computed ahead from which [`Batcher::push_prepared`] copies on every core.
const PARALLEL_COPY_MIN: usize = 8192;

impl Batcher {
    /// A batcher whose batches hold at most `max_textures` textures (clamped to `1..=MAX_BATCH_TEXTURES`), marking
    /// quad corners with [`QUAD_INDEX_BIT`].
    pub fn new(max_textures: usize) -> Batcher {
        Self::with_quad_bit(max_textures, QUAD_INDEX_BIT)
    }

    /// Like [`Batcher::new`], marking quad corners with `quad_bit` (a power of two, at least 4).
    pub fn with_quad_bit(max_textures: usize, quad_bit: u32) -> Batcher {
        assert!(
            quad_bit.is_power_of_two() && quad_bit >= 4,
            "the quad bit is a power of two"
        );
        Batcher {
            quad_bit,
            quads: TrackedVec::default(),
            vertices: TrackedVec::default(),
            indices: TrackedVec::default(),
            extra_points: Vec::new(),
            batches: Vec::new(),
            max_textures: max_textures.clamp(1, MAX_BATCH_TEXTURES),
            current: Self::empty_batch(0, PassState::default()),
            state: PassState::default(),
            tick: 1,
            slots: Vec::new(),
            run: QuadRun::default(),
            runs: Vec::new(),
            last_runs: Vec::new(),
            runs_kept: 0,
            transforms: TrackedVec::default(),
            frame: 0,
            prep_slots: Vec::new(),
            prep_changed: Vec::new(),
            target: 0,
            xform: 0,
            reorder: Default::default(),
            deferred: Vec::new(),
            deferred_here: false,
            deferred_count: Vec::new(),
            last_tick: 0,
            flushed: Vec::new(),
            styled: None,
            styled_indices: 0,
        }
    }

    /// The bit that marks quad corners in the index stream.
    pub fn quad_bit(&self) -> u32 {
        self.quad_bit
    }

    /// Most quads one frame can hold: every corner index stays below `2 * quad_bit - 1` (below
    /// [`STYLED_INDEX_BIT`] where styled glyphs use it).
    pub fn max_quads(&self) -> usize {
        match self.styled_supported() {
            true => (STYLED_INDEX_BIT as usize >> 2) - 1,
            false => (self.quad_bit as usize >> 2) - 1,
        }
    }

    /// Whether styled glyphs ([`Batcher::begin_styled`]) can be drawn: indices have room for their passes
    /// (the quad bit is bit 31).
    pub fn styled_supported(&self) -> bool {
        self.quad_bit == QUAD_INDEX_BIT
    }

    fn empty_batch(index_start: u32, state: PassState) -> Batch {
        Batch {
            index_start,
            index_count: 0,
            blend: BlendMode::Normal,
            topology: Topology::TriangleList,
            textures: TextureSet::EMPTY,
            state,
            target: 0,
            marker: 0,
        }
    }

    /// Marks, in [`Batch::marker`], the final pass of filter group draw `tag` (as against an advanced blend draw).
    pub const MARKER_FINAL: u32 = 1 << 31;
    /// In [`Batch::marker`]: a custom-shader mesh draws here (the rest of the bits: its tag).
    pub const MARKER_MESH: u32 = 1 << 30;

    /// Takes quads out of their batches and puts a marker where each stood (`(quad, marker)`, sorted by quad):
    /// a filtered node drawn straight into its pass by its last filter pass instead of through its quad. Called
    /// after [`Batcher::finish`].
    pub fn split_at_quads(&mut self, at: &[(u32, u32)]) {
        for &(q, marker) in at {
            let Some(run) = self
                .runs
                .iter()
                .find(|r| r.quad_start <= q && q < r.quad_start + r.quads)
            else {
                continue;
            };
            let idx = run.index_start + 6 * (q - run.quad_start);
            let Some(b) = self
                .batches
                .iter()
                .position(|b| b.index_start <= idx && idx < b.index_start + b.index_count)
            else {
                continue;
            };
            let batch = self.batches[b];
            let end = batch.index_start + batch.index_count;
            let mut parts = Vec::with_capacity(3);
            if idx > batch.index_start {
                parts.push(Batch {
                    index_count: idx - batch.index_start,
                    ..batch
                });
            }
            parts.push(Batch {
                index_start: idx,
                index_count: 0,
                marker,
                textures: TextureSet::EMPTY,
                ..batch
            });
            if idx + 6 < end {
                parts.push(Batch {
                    index_start: idx + 6,
                    index_count: end - idx - 6,
                    ..batch
                });
            }
            self.batches.splice(b..=b, parts);
        }
    }

    /// Ends the current batch and adds a marker: where, in the current pass, advanced-blend draw `tag` happens
    /// (the pass is split there and the backdrop copied).
    pub fn push_marker(&mut self, tag: u32) {
        self.before_push();
        self.break_batch();
        let mut m = Self::empty_batch(self.index_len(), self.state);
        m.target = self.target;
        m.marker = tag + 1;
        self.batches.push(m);
        self.start_batch();
    }

    /// Ends the current batch and adds a marker where custom-shader mesh draw `tag` happens.
    pub fn push_mesh_marker(&mut self, tag: u32) {
        self.push_marker((Self::MARKER_MESH | tag) - 1);
    }

    /// Draws the following elements in pass `target` (see [`Batch::target`]), breaking the batch if it differs.
    pub fn set_target(&mut self, target: u16) {
        if target != self.target {
            self.break_batch();
            self.target = target;
            self.current.target = target;
            // Nothing drawn since the last batch ended, and it was this pass's: it goes on (filtered siblings'
            // contents join one batch, their textures sharing its slots).
            let end = self.index_len();
            if let Some(last) = self.batches.last() {
                if last.target == target
                    && last.marker == 0
                    && last.state == self.state
                    && last.index_start + last.index_count == end
                {
                    self.current = self.batches.pop().expect("looked at");
                    self.tick = self.last_tick;
                }
            }
            self.deferred_here = self
                .deferred_count
                .get(target as usize)
                .is_some_and(|&n| n > 0);
        }
    }

    /// Adds a quad (as [`Batcher::push_quad`], in the current pass, state and transform) that waits until
    /// something else is drawn in its pass, its state changes, [`Batcher::flush_deferred`] or the frame ends:
    /// the quads showing filtered siblings' results then join one batch while their contents, drawn into
    /// another pass in between, join another. `tag` comes back in [`Batcher::flushed`] with the quad's index.
    #[allow(clippy::too_many_arguments)]
    pub fn defer_quad(
        &mut self,
        tag: u32,
        texture: TextureId,
        geometry: [[f32; 2]; 3],
        uv: [f32; 4],
        color: u32,
        blend: BlendMode,
    ) {
        let t = self.target as usize;
        if self.deferred_count.len() <= t {
            self.deferred_count.resize(t + 1, 0);
        }
        self.deferred_count[t] += 1;
        self.deferred.push(Deferred {
            tag,
            target: self.target,
            state: self.state,
            xform: self.xform,
            texture,
            geometry,
            uv,
            color,
            blend,
        });
        self.deferred_here = true;
    }

    /// Draws the deferred quads of pass `only` (all with `None`), each in the pass, state and transform it was
    /// given in, and comes back to the current ones.
    #[cold]
    pub fn flush_deferred(&mut self, only: Option<u16>) {
        let waiting = match only {
            Some(t) => self.deferred_count.get(t as usize).copied().unwrap_or(0),
            None => self.deferred.len() as u32,
        };
        if waiting == 0 {
            return;
        }
        let (target, state, xform) = (self.target, self.state, self.xform);
        let list = std::mem::take(&mut self.deferred);
        let mut keep = Vec::new();
        self.deferred_here = false;
        for d in list {
            if only.is_some_and(|t| t != d.target) {
                keep.push(d);
                continue;
            }
            self.deferred_count[d.target as usize] -= 1;
            self.set_target(d.target);
            self.set_state_now(d.state);
            self.xform = d.xform;
            let q = self.quads.len();
            self.push_quad(d.texture, d.geometry, d.uv, d.color, d.blend);
            if self.quads.len() > q {
                self.flushed.push((d.tag, q as u32));
            }
        }
        self.deferred = keep;
        self.set_target(target);
        self.set_state_now(state);
        self.xform = xform;
        self.deferred_here = self
            .deferred_count
            .get(self.target as usize)
            .is_some_and(|&n| n > 0);
    }

    /// Draws the current pass's deferred quads before anything else is drawn in it.
    #[inline(always)]
    fn before_push(&mut self) {
        if self.deferred_here {
            self.flush_deferred(Some(self.target));
        }
    }

    /// The pass new elements are drawn in.
    pub fn target(&self) -> u16 {
        self.target
    }

    /// Makes the following elements carry transform `index` (0: none, positions already in clip space).
    pub fn set_xform(&mut self, index: u32) {
        self.xform = index << TRANSFORM_SHIFT;
    }

    /// The transform index new elements carry.
    pub fn xform(&self) -> u32 {
        self.xform >> TRANSFORM_SHIFT
    }

    /// The pass state new elements are drawn under.
    pub fn state(&self) -> PassState {
        self.state
    }

    /// Draws the following elements under `state`, breaking the batch if it differs.
    pub fn set_state(&mut self, state: PassState) {
        if state != self.state && !self.deferred.is_empty() {
            self.flush_deferred(None);
        }
        self.set_state_now(state);
    }

    fn set_state_now(&mut self, state: PassState) {
        if state != self.state {
            self.break_batch();
            self.state = state;
            self.current.state = state;
        }
    }

    /// Most textures per batch.
    pub fn max_textures(&self) -> usize {
        self.max_textures
    }

    /// Starts a frame: streams rewound, no batches.
    pub fn begin(&mut self) {
        self.quads.rewind();
        self.vertices.rewind();
        self.indices.rewind();
        self.extra_points.clear();
        self.transforms.rewind();
        self.transforms.push_slice(&[GroupTransform::default()]);
        self.frame += 1;
        std::mem::swap(&mut self.runs, &mut self.last_runs);
        self.runs.clear();
        self.run = QuadRun::default();
        self.styled = None;
        self.runs_kept = 0;
        self.batches.clear();
        self.state = PassState::default();
        self.target = 0;
        self.xform = 0;
        self.deferred.clear();
        self.deferred_count.clear();
        self.deferred_here = false;
        self.flushed.clear();
        self.start_batch();
    }

    fn start_batch(&mut self) {
        self.tick = self.tick.wrapping_add(1);
        if self.tick == 0 {
            // After wrap-around, stale ticks could match: forget them all.
            self.slots.iter_mut().for_each(|s| *s = (0, 0));
            self.tick = 1;
        }
        self.current = Self::empty_batch(self.index_len(), self.state);
        self.current.target = self.target;
    }

    /// Indices pushed so far, those of the open quad run included.
    #[inline]
    fn index_len(&self) -> u32 {
        self.indices.len() as u32 + self.run.per_quad() * self.run.quads
    }

    /// Writes the indices of the open quad run, or keeps last frame's if it had the same run.
    fn end_run(&mut self) {
        let run = std::mem::take(&mut self.run);
        if run.quads == 0 {
            return;
        }
        debug_assert_eq!(run.index_start as usize, self.indices.len());
        let count = (run.per_quad() * run.quads) as usize;
        if self.last_runs.get(self.runs.len()) == Some(&run) && self.indices.keep(count) {
            self.runs_kept += 1;
        } else if run.passes == 0 {
            self.write_corners(self.quad_bit | run.quad_start << 2, 4, run.quads);
        } else {
            // A styled text's: each pass it draws (shadow, outline, fill) over all its quads.
            for pass in [2u32, 1, 0] {
                if run.passes & (1 << pass) != 0 {
                    let first = self.quad_bit | STYLED_INDEX_BIT | run.quad_start << 4 | pass << 2;
                    self.write_corners(first, 16, run.quads);
                }
            }
        }
        self.runs.push(run);
    }

    /// Writes the six corner indices (`0 1 2 0 2 3` on from `first`) of `quads` quads, `step` apart.
    fn write_corners(&mut self, first: u32, step: u32, quads: u32) {
        let mut buf = [0u32; 6 * 32];
        let mut b = first;
        for chunk in 0..quads.div_ceil(32) {
            let n = (quads - 32 * chunk).min(32) as usize;
            for q in buf.chunks_exact_mut(6).take(n) {
                q.copy_from_slice(&[b, b + 1, b + 2, b, b + 2, b + 3]);
                b += step;
            }
            self.indices.push_slice(&buf[..6 * n]);
        }
    }

    /// Forgets the frame just built: it was not uploaded (its frame failed), so the next frame writes and uploads
    /// every element instead of comparing with it.
    pub fn forget_uploads(&mut self) {
        self.quads.forget();
        self.vertices.forget();
        self.indices.forget();
        self.transforms.forget();
        self.runs.clear();
        self.last_runs.clear();
        self.run = QuadRun::default();
    }

    /// This frame's quad runs (complete after [`Batcher::finish`]).
    pub fn quad_runs(&self) -> &[QuadRun] {
        &self.runs
    }

    /// Ends the current batch (if it drew anything) so the next element starts a new one.
    pub fn break_batch(&mut self) {
        if self.current.index_count > 0 {
            self.batches.push(self.current);
            self.last_tick = self.tick;
        }
        self.start_batch();
    }

    /// Ends the frame's last batch.
    pub fn finish(&mut self) {
        self.flush_deferred(None);
        self.end_run();
        self.break_batch();
    }

    /// Makes each pass's batches contiguous in the index stream (a filtered subtree's batches and the quads that
    /// show its result interleave in tree order) and merges neighbours that can then share a draw: 1,000
    /// filtered sprites draw their content in one call and their results in another. Keeps the order within
    /// each pass. Called after [`Batcher::finish`].
    pub fn group_by_target(&mut self) {
        if self.batches.iter().all(|b| b.target == 0) {
            return;
        }
        let (mut old, mut out) = std::mem::take(&mut self.reorder);
        old.clear();
        old.extend_from_slice(self.indices.as_slice());
        out.clear();
        let mut order: Vec<(u16, u32)> = self
            .batches
            .iter()
            .enumerate()
            .map(|(i, b)| (b.target, i as u32))
            .collect();
        order.sort_unstable();
        self.indices.restart_keeping_marks();
        for (_, i) in order {
            let b = self.batches[i as usize];
            let start = self.indices.len() as u32;
            self.indices
                .push_slice(&old[b.index_start as usize..(b.index_start + b.index_count) as usize]);
            match out.last_mut() {
                Some(last)
                    if last.target == b.target
                        && last.marker == 0
                        && b.marker == 0
                        && last.blend == b.blend
                        && last.topology == b.topology
                        && last.textures == b.textures
                        && last.state == b.state
                        && last.index_start + last.index_count == start =>
                {
                    last.index_count += b.index_count;
                }
                _ => out.push(Batch {
                    index_start: start,
                    ..b
                }),
            }
        }
        std::mem::swap(&mut self.batches, &mut out);
        // Indices moved: no quad run of this frame stands where it was written.
        self.runs.clear();
        self.reorder = (old, out);
    }

    /// The frame's batches (complete after [`Batcher::finish`]).
    pub fn batches(&self) -> &[Batch] {
        &self.batches
    }

    /// The slot of `texture` in the current batch, breaking first if the blend mode or topology differ or the
    /// texture does not fit.
    #[inline]
    fn prepare(&mut self, texture: TextureId, blend: BlendMode, topology: Topology) -> u32 {
        let c = &self.current;
        if c.index_count > 0 && (c.blend != blend || c.topology != topology) {
            self.break_batch();
        }
        let i = texture.slot();
        if i >= self.slots.len() {
            self.slots.resize(i + 1, (0, 0));
        }
        let (tick, slot) = self.slots[i];
        if tick == self.tick {
            return slot as u32;
        }
        if self.current.textures.len() == self.max_textures {
            self.break_batch();
        }
        let c = &mut self.current;
        let slot = c.textures.push(texture);
        c.blend = blend;
        c.topology = topology;
        self.slots[i] = (self.tick, slot);
        slot as u32
    }

    /// Adds a textured quad: the parallelogram `[origin, x_edge, y_edge]` (clip space; see [`Quad`]) showing the
    /// texture frame `uv = [u0, v0, u1, v1]`. Quads past [`Batcher::max_quads`] in one frame are dropped (logged).
    #[inline]
    pub fn push_quad(
        &mut self,
        texture: TextureId,
        geometry: [[f32; 2]; 3],
        uv: [f32; 4],
        color: u32,
        blend: BlendMode,
    ) {
        let Some(slot) = self.open_quads(1, texture, blend) else {
            return;
        };
        self.quads
            .push_value::<12>(Quad::new(geometry, uv, color, slot | self.xform));
    }

    /// Writes quad `i` of the stream again with new corners, frame and colour, keeping its texture slot (a
    /// sprite whose texture did not change); marks it dirty if it changed.
    #[inline(always)]
    pub fn patch_quad(&mut self, i: usize, geometry: [[f32; 2]; 3], uv: [f32; 4], color: u32) {
        let Some(texture) = self.quads.get(i).map(|q| q.texture) else {
            return;
        };
        self.quads
            .set_value::<12>(i, Quad::new(geometry, uv, color, texture));
    }

    /// [`Batcher::patch_quad`] for quads `start..start + n` on every core: `f(k, old)` gives quad `start + k`'s
    /// corners, frame and colour (`old` is the quad as it stands), or `None` to give up. Returns whether none gave up.
    pub fn patch_quads_par(
        &mut self,
        start: usize,
        n: usize,
        f: impl Fn(usize, &Quad) -> Option<([[f32; 2]; 3], [f32; 4], u32)> + Sync,
    ) -> bool {
        let mut changed = std::mem::take(&mut self.prep_changed);
        let ok = self
            .quads
            .patch_par(start, n, 1024, &mut changed, |k, quads| {
                let mut any = false;
                for (j, q) in quads.iter_mut().enumerate() {
                    let (g, uv, color) = f(k + j, q)?;
                    let new = Quad::new(g, uv, color, q.texture);
                    any |= crate::frame::tracked::store_if_changed::<_, 12>(q, new);
                }
                Some(any)
            });
        self.prep_changed = changed;
        ok
    }

    /// Rewrites the corners of quads `start..start + n` (a sprite that only moved keeps its frame, colour and
    /// texture) on every core, a chunk at a time: `f(k, quads)` writes the corners of quads
    /// `start + k..start + k + quads.len()`, and returns `false` to give up. Not compared; the range's corners are
    /// marked for upload. Returns whether none gave up.
    pub fn patch_corners_par(
        &mut self,
        start: usize,
        n: usize,
        f: impl Fn(usize, &mut [Quad]) -> bool + Sync,
    ) -> bool {
        let mut changed = std::mem::take(&mut self.prep_changed);
        // Reported unchanged: the range is marked below, corners only (a chunk that gave up is marked whole).
        let ok = self
            .quads
            .patch_par(start, n, 1024, &mut changed, |k, quads| {
                f(k, quads).then_some(false)
            });
        self.prep_changed = changed;
        self.quads.mark_head_dirty(start..start + n);
        ok
    }

    /// Starts a frame that keeps the last one's streams and batches (see `collect/retain/`): nothing is
    /// rewound; what the last frame uploaded is no longer dirty.
    pub fn keep_frame(&mut self) {
        self.quads.keep_all();
        self.vertices.keep_all();
        self.indices.keep_all();
        self.transforms.keep_all();
    }

    /// Adds a tiling quad: the parallelogram `geometry` showing the frame `uv` repeated, with `tile` giving
    /// the texture coordinates in tiles at its corners in the layout of `geometry` (origin, then the change along
    /// each edge), wrapping into the frame `shift` tiles on from the tile's edge (PixiJS's clamp offset). Stored
    /// as two quads: the drawn one, flagged [`TILING_FLAG`], and one holding `tile` (and `shift` as its first
    /// texture coordinates), flagged [`DATA_FLAG`] (its triangles are dropped by the vertex shader).
    #[allow(clippy::too_many_arguments)]
    pub fn push_tiling(
        &mut self,
        texture: TextureId,
        geometry: [[f32; 2]; 3],
        uv: [f32; 4],
        tile: [[f32; 2]; 3],
        shift: [f32; 2],
        color: u32,
        blend: BlendMode,
    ) {
        let data_uv = [shift[0], shift[1], 0.0, 0.0];
        self.push_with_data(
            texture,
            geometry,
            uv,
            color,
            blend,
            TILING_FLAG,
            tile,
            data_uv,
        );
    }

    /// Adds a quad flagged `flag` and, after it, a [`DATA_FLAG`] quad holding `data` in its corners' place (what
    /// the flagged quad reads from the next one; its triangles are dropped by the vertex shader).
    #[allow(clippy::too_many_arguments)]
    fn push_with_data(
        &mut self,
        texture: TextureId,
        geometry: [[f32; 2]; 3],
        uv: [f32; 4],
        color: u32,
        blend: BlendMode,
        flag: u32,
        data: [[f32; 2]; 3],
        data_uv: [f32; 4],
    ) {
        let Some(slot) = self.open_quads(2, texture, blend) else {
            return;
        };
        let x = self.xform;
        self.quads
            .push_value::<12>(Quad::new(geometry, uv, color, slot | flag | x));
        self.quads
            .push_value::<12>(Quad::new(data, data_uv, 0, slot | DATA_FLAG | x));
    }

    /// Adds a distance-field glyph: the parallelogram `geometry` showing the region `uv` of a distance-field page,
    /// its coverage worked out from the field with `distance` (screen pixels a unit of the field's 0..1 range
    /// spans). Stored as two quads: the drawn one, flagged [`DISTANCE_FIELD_FLAG`], and one holding `distance`,
    /// flagged [`DATA_FLAG`].
    pub fn push_distance_field(
        &mut self,
        texture: TextureId,
        geometry: [[f32; 2]; 3],
        uv: [f32; 4],
        color: u32,
        blend: BlendMode,
        distance: f32,
    ) {
        let data = [[distance, 0.0], [0.0; 2], [0.0; 2]];
        self.push_with_data(
            texture,
            geometry,
            uv,
            color,
            blend,
            DISTANCE_FIELD_FLAG,
            data,
            [0.0; 4],
        );
    }

    /// Makes room for `n` more quads of `texture` in the open quad run and returns the texture's slot, or `None`
    /// (logged) when they would pass [`Batcher::max_quads`].
    #[inline(always)]
    fn open_quads(&mut self, n: u32, texture: TextureId, blend: BlendMode) -> Option<u32> {
        self.before_push();
        if self.quads.len() + n as usize > self.max_quads() {
            log::warn!(
                "more than {} quads in one frame: the rest are not drawn",
                self.max_quads()
            );
            return None;
        }
        let slot = self.prepare(texture, blend, Topology::TriangleList);
        self.start_quad_run();
        self.run.quads += n;
        self.current.index_count += 6 * n;
        Some(slot)
    }

    /// Opens a quad run at the end of the streams if none is open.
    #[inline(always)]
    fn start_quad_run(&mut self) {
        if self.run.quads == 0 {
            self.run.index_start = self.indices.len() as u32;
            self.run.quad_start = self.quads.len() as u32;
        }
    }

    /// Adds quads computed ahead (on other threads): `quads[i]` shows `meta[i].texture` with `meta[i].blend`.
    /// Texture slots are assigned here, in order, so batches and slots come out as from [`Batcher::push_quad`]
    /// one by one; a long run is then copied into the stream and compared with last frame's on every core
    /// (1,024 quads a chunk), a short one 16 at a time.
    pub fn push_prepared(&mut self, quads: &[Quad], meta: &[QuadMeta]) {
        self.before_push();
        let room = self.max_quads().saturating_sub(self.quads.len());
        let n = quads.len().min(meta.len());
        if n > room {
            log::warn!(
                "more than {} quads in one frame: the rest are not drawn",
                self.max_quads()
            );
        }
        let n = n.min(room);
        if n == 0 {
            return;
        }
        self.start_quad_run();
        let mut slots = std::mem::take(&mut self.prep_slots);
        slots.clear();
        for m in &meta[..n] {
            slots.push(self.prepare(m.texture, m.blend, Topology::TriangleList) as u8);
            self.run.quads += 1;
            self.current.index_count += 6;
        }
        let x = self.xform;
        if n >= PARALLEL_COPY_MIN {
            let mut changed = std::mem::take(&mut self.prep_changed);
            self.quads
                .extend_par(&quads[..n], 1024, &mut changed, |q, i| {
                    q.texture = u32::from(slots[i]) | x
                });
            self.prep_changed = changed;
        } else {
            let mut buf = [Quad::default(); 16];
            for (src, slot) in quads[..n].chunks(16).zip(slots.chunks(16)) {
                for ((d, s), &t) in buf.iter_mut().zip(src).zip(slot) {
                    *d = Quad {
                        texture: u32::from(t) | x,
                        ..*s
                    };
                }
                self.quads.push_slice(&buf[..src.len()]);
            }
        }
        self.prep_slots = slots;
    }

    /// Opens room for `n` mesh vertices in a batch of `texture`: their texture slot, or `None` (logged) past the
    /// vertices one frame may hold.
    fn open_vertices(
        &mut self,
        n: usize,
        texture: TextureId,
        blend: BlendMode,
        topology: Topology,
    ) -> Option<u32> {
        if self.vertices.len() + n > self.quad_bit as usize {
            log::warn!(
                "more than {} mesh vertices in one frame: the rest are not drawn",
                self.quad_bit
            );
            return None;
        }
        self.before_push();
        let slot = self.prepare(texture, blend, topology);
        self.end_run();
        Some(slot)
    }

    /// Adds a textured quad as four mesh vertices, each corner with its own colour (a gradient across a glyph):
    /// the parallelogram `[origin, x_edge, y_edge]` and frame `uv` as [`Batcher::push_quad`] takes them,
    /// `colors` at the origin, the end of the x edge, the end of the y edge and the far corner.
    pub fn push_vertex_quad(
        &mut self,
        texture: TextureId,
        geometry: [[f32; 2]; 3],
        uv: [f32; 4],
        colors: [u32; 4],
        blend: BlendMode,
    ) {
        let [o, x, y] = geometry;
        let corners = [
            o,
            [o[0] + x[0], o[1] + x[1]],
            [o[0] + y[0], o[1] + y[1]],
            [o[0] + x[0] + y[0], o[1] + x[1] + y[1]],
        ];
        let uvs = [
            [uv[0], uv[1]],
            [uv[2], uv[1]],
            [uv[0], uv[3]],
            [uv[2], uv[3]],
        ];
        let Some(slot) = self.open_vertices(4, texture, blend, Topology::TriangleList) else {
            return;
        };
        let base = self.vertices.len() as u32;
        for i in 0..4 {
            self.vertices.push_value_split::<6, 2>(Vertex {
                position: corners[i],
                uv: uvs[i],
                color: colors[i],
                texture: slot | self.xform,
            });
        }
        self.indices
            .push_slice(&[base, base + 1, base + 2, base + 2, base + 1, base + 3]);
        self.current.index_count += 6;
    }

    /// Adds an indexed mesh: `vertices` are (clip-space position, uv) pairs, `indices` are relative to them.
    pub fn push_mesh(
        &mut self,
        texture: TextureId,
        vertices: impl ExactSizeIterator<Item = ([f32; 2], [f32; 2])>,
        indices: &[u32],
        color: u32,
        blend: BlendMode,
        topology: Topology,
    ) {
        self.push_mesh_offset(texture, vertices, indices, 0, color, blend, topology);
    }

    /// Like [`Batcher::push_mesh`], with `indices` counting from `first` (the first vertex given is number
    /// `first`), so a part of a larger mesh can be pushed without rewriting its indices.
    #[allow(clippy::too_many_arguments)]
    pub fn push_mesh_offset(
        &mut self,
        texture: TextureId,
        vertices: impl ExactSizeIterator<Item = ([f32; 2], [f32; 2])>,
        indices: &[u32],
        first: u32,
        color: u32,
        blend: BlendMode,
        topology: Topology,
    ) {
        let vertices = vertices.map(|(p, uv)| (p, uv, color));
        self.push_mesh_colored(texture, vertices, indices, first, blend, topology, 0);
    }

    /// Like [`Batcher::push_mesh_offset`], each vertex with its own colour (a gradient fill), and `flags` in
    /// each vertex's texture word ([`WRAP_X_FLAG`], [`WRAP_Y_FLAG`]: a pattern's tiled axes).
    #[allow(clippy::too_many_arguments)]
    pub fn push_mesh_colored(
        &mut self,
        texture: TextureId,
        vertices: impl ExactSizeIterator<Item = ([f32; 2], [f32; 2], u32)>,
        indices: &[u32],
        first: u32,
        blend: BlendMode,
        topology: Topology,
        flags: u32,
    ) {
        let Some(slot) = self.open_vertices(vertices.len(), texture, blend, topology) else {
            return;
        };
        let base = (self.vertices.len() as u32).wrapping_sub(first);
        for (position, uv, color) in vertices {
            self.vertices.push_value_split::<6, 2>(Vertex {
                position,
                uv,
                color,
                texture: slot | flags | self.xform,
            });
        }
        for chunk in indices.chunks(64) {
            let mut buf = [0u32; 64];
            for (d, s) in buf.iter_mut().zip(chunk) {
                *d = base.wrapping_add(*s);
            }
            self.indices.push_slice(&buf[..chunk.len()]);
        }
        self.current.index_count += indices.len() as u32;
    }

    /// Adds a render-group transform (group space to clip space, colour multiplied in); returns its index, or
    /// `None` once the frame holds as many as the quad's transform bits can name.
    pub fn push_transform(&mut self, matrix: glam::Affine2, color: u32) -> Option<u32> {
        let index = self.transforms.len() as u32;
        if index >= 1 << (32 - TRANSFORM_SHIFT) {
            return None;
        }
        self.transforms
            .push_value::<8>(GroupTransform::new(matrix, color));
        Some(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::elements::Element;
    use proptest::prelude::*;

    pub(super) fn tex(i: u32) -> TextureId {
        TextureId {
            index: i,
            generation: 0,
        }
    }

    const Q: [[f32; 2]; 3] = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]];
    const UV: [f32; 4] = [0.0, 0.0, 1.0, 1.0];

    fn styled_data(passes: u32) -> StyledData {
        StyledData {
            passes,
            outline: 0xff00_ff00,
            shadow: 0x8000_00ff,
            offset: [0.25, -0.5],
        }
    }

    /// Pushes a styled text of `n` glyphs on texture `t`.
    fn styled(b: &mut Batcher, t: u32, n: usize, passes: u32) {
        assert!(b.begin_styled(n, styled_data(passes)));
        for i in 0..n {
            let g = [[i as f32, 0.0], [1.0, 0.0], [0.0, 1.0]];
            b.push_styled(tex(t), g, [0; 3], 0xffff_ffff, BlendMode::Normal);
        }
        b.end_styled();
    }

    /// A styled text is its data quad and one quad a glyph, drawn pass by pass (shadows, then outlines, then
    /// fills: no glyph's outline covers another's fill) from one run of indices, which the next frame keeps;
    /// quads pushed after it start a run of their own; each glyph finds its data and its shadow's offset.
    #[test]
    fn a_styled_text_draws_each_pass_over_all_its_glyphs() {
        let mut b = Batcher::new(4);
        for frame in 0..2 {
            b.begin();
            quad(&mut b, 0, BlendMode::Normal);
            styled(&mut b, 0, 3, PASS_FILL | PASS_OUTLINE | PASS_SHADOW);
            quad(&mut b, 0, BlendMode::Normal);
            b.finish();
            assert_eq!(b.quads.len(), 1 + 1 + 3 + 1);
            assert_eq!(b.batches().len(), 1, "one draw");
            assert_eq!(b.batches()[0].index_count, 6 + 3 * 3 * 6 + 6);
            let ix = b.indices.as_slice();
            let named: Vec<(u32, u32, u32)> = ix[6..6 + 54]
                .iter()
                .map(|&i| match Element::of(i, QUAD_INDEX_BIT) {
                    Element::Corner { quad, corner, pass } => (quad, corner, pass),
                    Element::Vertex(v) => panic!("vertex {v}"),
                })
                .collect();
            for (k, &(quad, corner, pass)) in named.iter().enumerate() {
                let (p, g) = (k / 18, (k % 18) / 6);
                assert_eq!(pass, 2 - p as u32, "shadows first, fills last");
                assert_eq!(quad, 2 + g as u32);
                assert_eq!(corner, [0, 1, 2, 0, 2, 3][k % 6]);
            }
            assert_eq!(
                Element::of(ix[60], QUAD_INDEX_BIT),
                Element::Corner {
                    quad: 5,
                    corner: 0,
                    pass: 0
                }
            );
            let quads = b.quads.as_slice();
            assert!(
                quads[1].texture & DATA_FLAG != 0,
                "the data quad draws nothing"
            );
            for g in 2..5 {
                assert_eq!(Quad::styled_data(quads, g), Some(styled_data(7)));
                assert_eq!(Quad::shadow_offset(quads, g), [0.25, -0.5]);
            }
            assert_eq!(Quad::styled_data(quads, 0), None);
            assert_eq!(
                b.runs_kept,
                3 * frame,
                "the second frame keeps all three runs' indices"
            );
        }
    }

    /// Only the passes a text has are drawn; a text whose glyphs lie on more textures than a batch holds is cut
    /// where the batch breaks, each part drawing its passes; and where indices have no room for passes (the
    /// 24-bit quad bit) a styled text is refused, for the caller to draw its passes as quads.
    #[test]
    fn styled_texts_take_their_passes_batches_and_devices() {
        let mut b = Batcher::new(1);
        b.begin();
        assert!(b.begin_styled(2, styled_data(PASS_FILL | PASS_OUTLINE)));
        b.push_styled(tex(0), Q, [0; 3], 0, BlendMode::Normal);
        b.push_styled(tex(1), Q, [0; 3], 0, BlendMode::Normal);
        b.end_styled();
        b.finish();
        let counts: Vec<u32> = b.batches().iter().map(|x| x.index_count).collect();
        assert_eq!(counts, [12, 12], "two passes a glyph, a batch a texture");
        let passes: Vec<u32> = b
            .indices
            .as_slice()
            .iter()
            .map(|&i| match Element::of(i, QUAD_INDEX_BIT) {
                Element::Corner { pass, .. } => pass,
                Element::Vertex(_) => 9,
            })
            .collect();
        assert_eq!(
            passes[..12],
            [1; 6].into_iter().chain([0; 6]).collect::<Vec<_>>()[..]
        );
        assert!(!b.begin_styled(1, styled_data(0)), "no passes");
        assert!(!b.begin_styled(1, styled_data(8)), "no such pass");
        let mut small = Batcher::with_quad_bit(4, crate::gpu::shader::QUAD_INDEX_BIT_24);
        small.begin();
        assert!(!small.styled_supported());
        assert!(!small.begin_styled(1, styled_data(PASS_FILL | PASS_SHADOW)));
        assert_eq!(small.quads.len(), 0, "nothing written");
        assert_eq!(small.max_quads(), (1 << 21) - 1);
        assert_eq!(
            b.max_quads(),
            (1 << 28) - 1,
            "plain quads keep clear of the styled bit"
        );
        // A glyph never joins a batch of lines, even on a texture the batch holds.
        let mut b = Batcher::new(4);
        b.begin();
        let line = [([0.0, 0.0], [0.0, 0.0]), ([1.0, 0.0], [1.0, 0.0])];
        mesh(&mut b, 0, &line, &[0, 1], Topology::LineList);
        styled(&mut b, 0, 1, PASS_FILL | PASS_OUTLINE);
        b.finish();
        let topologies: Vec<Topology> = b.batches().iter().map(|x| x.topology).collect();
        assert_eq!(topologies, [Topology::LineList, Topology::TriangleList]);
    }

    pub(super) fn quad(b: &mut Batcher, t: u32, blend: BlendMode) {
        b.push_quad(tex(t), Q, UV, 0xffff_ffff, blend);
    }

    /// Pushes a mesh of `vertices` (position, texture coordinates) on texture `t`, untinted, normal blending.
    fn mesh(
        b: &mut Batcher,
        t: u32,
        vertices: &[([f32; 2], [f32; 2])],
        indices: &[u32],
        topology: Topology,
    ) {
        b.push_mesh(
            tex(t),
            vertices.iter().copied(),
            indices,
            0,
            BlendMode::Normal,
            topology,
        );
    }

    #[test]
    fn sixteen_textures_one_batch_seventeenth_breaks() {
        let mut b = Batcher::new(16);
        b.begin();
        for t in 0..16 {
            quad(&mut b, t, BlendMode::Normal);
        }
        quad(&mut b, 3, BlendMode::Normal); // already in the batch: same slot
        assert_eq!(b.quads.as_slice().last().unwrap().texture, 3);
        quad(&mut b, 16, BlendMode::Normal);
        b.finish();
        assert_eq!(b.batches().len(), 2);
        assert_eq!(b.batches()[0].textures.len(), 16);
        assert_eq!(b.batches()[0].index_count, 17 * 6);
        assert_eq!(
            b.batches()[1].textures.ids().collect::<Vec<_>>(),
            vec![tex(16)]
        );
        assert_eq!(b.quads.as_slice().last().unwrap().texture, 0);
    }

    #[test]
    fn blend_change_breaks_but_tint_does_not() {
        let mut b = Batcher::new(16);
        b.begin();
        quad(&mut b, 0, BlendMode::Normal);
        b.push_quad(tex(0), Q, UV, 0x8000_00ff, BlendMode::Normal);
        quad(&mut b, 0, BlendMode::Add);
        quad(&mut b, 0, BlendMode::Add);
        quad(&mut b, 0, BlendMode::Normal);
        b.finish();
        let blends: Vec<_> = b
            .batches()
            .iter()
            .map(|x| (x.blend, x.index_count))
            .collect();
        assert_eq!(
            blends,
            vec![
                (BlendMode::Normal, 12),
                (BlendMode::Add, 12),
                (BlendMode::Normal, 6)
            ]
        );
        // Batches tile the index stream.
        assert_eq!(b.batches()[1].index_start, 12);
        assert_eq!(b.batches()[2].index_start, 24);
    }

    #[test]
    fn topology_change_breaks() {
        let mut b = Batcher::new(16);
        b.begin();
        quad(&mut b, 0, BlendMode::Normal);
        let verts = [([0.0, 0.0], [0.0, 0.0]), ([1.0, 1.0], [0.0, 0.0])];
        mesh(&mut b, 0, &verts, &[0, 1], Topology::LineList);
        b.finish();
        assert_eq!(b.batches().len(), 2);
        assert_eq!(b.batches()[1].topology, Topology::LineList);
        let bit = QUAD_INDEX_BIT;
        assert_eq!(
            b.indices.as_slice(),
            &[bit, bit + 1, bit + 2, bit, bit + 2, bit + 3, 0, 1]
        );
    }

    #[test]
    fn the_quad_bit_bounds_quads_and_mesh_vertices() {
        // Bit 4: corners 16..=30, so 3 quads; mesh vertices 0..=15.
        let mut b = Batcher::with_quad_bit(16, 16);
        assert_eq!(b.max_quads(), 3);
        b.begin();
        for _ in 0..5 {
            quad(&mut b, 0, BlendMode::Normal);
        }
        let tri = |b: &mut Batcher| {
            let verts = [([0.0, 0.0], [0.0, 0.0]); 6];
            mesh(b, 0, &verts, &[0, 1, 2, 3, 4, 5], Topology::TriangleList)
        };
        tri(&mut b);
        tri(&mut b);
        tri(&mut b); // 18 vertices would pass the bit: dropped
        b.finish();
        assert_eq!(b.quads.len(), 3);
        assert_eq!(b.vertices.len(), 12);
        let idx = b.indices.as_slice();
        assert_eq!(idx.len(), 3 * 6 + 12);
        assert_eq!(&idx[..6], &[16, 17, 18, 16, 18, 19]);
        assert_eq!(idx[17], 16 + 2 * 4 + 3);
        assert!(idx[..18].iter().all(|&i| (16..31).contains(&i)));
        assert!(idx[18..].iter().all(|&i| i < 16));
        assert_eq!(b.batches()[0].index_count, 30);
    }

    #[test]
    fn state_changes_break_and_are_recorded() {
        let mut b = Batcher::new(16);
        b.begin();
        quad(&mut b, 0, BlendMode::Normal);
        let masked = PassState {
            stencil: StencilMode::MaskActive,
            stencil_ref: 1,
            scissor: None,
        };
        b.set_state(masked);
        b.set_state(masked);
        quad(&mut b, 0, BlendMode::Normal);
        b.set_state(PassState::default());
        quad(&mut b, 0, BlendMode::Normal);
        b.finish();
        let states: Vec<_> = b.batches().iter().map(|x| x.state).collect();
        assert_eq!(
            states,
            vec![PassState::default(), masked, PassState::default()]
        );
        b.begin();
        assert_eq!(
            b.state(),
            PassState::default(),
            "a new frame starts unmasked"
        );
    }

    #[test]
    fn forced_break_and_empty_batches_are_dropped() {
        let mut b = Batcher::new(16);
        b.begin();
        b.break_batch();
        quad(&mut b, 0, BlendMode::Normal);
        b.break_batch();
        b.break_batch();
        quad(&mut b, 0, BlendMode::Normal);
        b.finish();
        assert_eq!(b.batches().len(), 2);
    }

    #[test]
    fn unchanged_frames_are_not_dirty_and_moved_sprites_are() {
        let mut b = Batcher::new(16);
        for frame in 0..3 {
            b.begin();
            for i in 0..10 {
                let x = if frame == 2 && i == 4 { 0.5 } else { 0.0 };
                b.push_quad(tex(0), [[x, 0.0]; 3], UV, 0, BlendMode::Normal);
            }
            b.finish();
            match frame {
                0 => {
                    assert_eq!(b.quads.dirty(), Some(0..10));
                    assert_eq!(b.indices.dirty(), Some(0..60));
                }
                1 => {
                    assert_eq!(b.quads.dirty(), None);
                    assert_eq!(b.indices.dirty(), None);
                }
                _ => {
                    assert_eq!(b.quads.dirty(), Some(4..5));
                    assert_eq!(b.indices.dirty(), None);
                }
            }
            assert_eq!(b.vertices.dirty(), None, "no mesh vertices");
        }
        b.quads.mark_all_dirty();
        assert_eq!(b.quads.dirty(), Some(0..10));
    }

    #[test]
    fn far_apart_changes_are_separate_ranges_and_near_ones_one() {
        let mut b = Batcher::new(16);
        let frame = |b: &mut Batcher, moved: &[usize]| {
            b.begin();
            for i in 0..1000 {
                let x = if moved.contains(&i) { 0.5 } else { 0.0 };
                b.push_quad(tex(0), [[x, 0.0]; 3], UV, 0, BlendMode::Normal);
            }
            b.finish();
        };
        frame(&mut b, &[]);
        // Quads 0 and 999 move: two ranges of one quad (48 bytes) each, not all 1,000.
        frame(&mut b, &[0, 999]);
        assert_eq!(b.quads.dirty_ranges(), &[0..1, 999..1000]);
        let bytes: Vec<_> = b.quads.dirty_bytes().map(|(o, d)| (o, d.len())).collect();
        assert_eq!(bytes, [(0, 48), (999 * 48, 48)]);
        // Quads within 256 bytes of each other upload as one range.
        frame(&mut b, &[10, 12, 15]);
        assert_eq!(b.quads.dirty_ranges(), &[0..1, 10..16, 999..1000]);
        // Past MAX_DIRTY_RANGES the last range widens.
        let every_tenth: Vec<usize> = (0..100).map(|i| i * 10).collect();
        frame(&mut b, &every_tenth);
        let ranges = b.quads.dirty_ranges();
        assert_eq!(ranges.len(), crate::frame::tracked::MAX_DIRTY_RANGES);
        assert_eq!(ranges.last().unwrap().end, 991);
        assert_eq!(ranges[0], 0..1);
    }

    #[test]
    fn after_forgetting_a_frame_the_next_uploads_everything() {
        let mut b = Batcher::new(16);
        for forget in [false, true] {
            push_frame(&mut b, &[true, false, true]);
            if forget {
                b.forget_uploads();
            }
        }
        push_frame(&mut b, &[true, false, true]);
        assert_eq!(b.quads.dirty(), Some(0..2));
        assert_eq!(b.vertices.dirty(), Some(0..3));
        assert_eq!(b.indices.dirty(), Some(0..15));
        assert_eq!(b.runs_kept, 0);
        push_frame(&mut b, &[true, false, true]);
        assert_eq!((b.quads.dirty(), b.indices.dirty()), (None, None));
    }

    #[test]
    fn buffers_are_reused_across_frames() {
        let mut b = Batcher::new(16);
        b.begin();
        for _ in 0..100 {
            quad(&mut b, 0, BlendMode::Normal);
        }
        b.finish();
        let cap = b.quads.capacity();
        for _ in 0..5 {
            b.begin();
            for _ in 0..100 {
                quad(&mut b, 0, BlendMode::Normal);
            }
            b.finish();
        }
        assert_eq!(b.quads.capacity(), cap);
    }

    /// Pushes a frame of quads (`true`) and triangles (`false`) and returns the index stream it should have.
    fn push_frame(b: &mut Batcher, items: &[bool]) -> Vec<u32> {
        b.begin();
        let mut expected = Vec::new();
        let (mut q, mut v) = (QUAD_INDEX_BIT, 0);
        for &is_quad in items {
            if is_quad {
                quad(b, 0, BlendMode::Normal);
                expected.extend([q, q + 1, q + 2, q, q + 2, q + 3]);
                q += 4;
            } else {
                let corners = [([0.0, 0.0], [0.0, 0.0]); 3];
                mesh(b, 0, &corners, &[0, 2, 1], Topology::TriangleList);
                expected.extend([v, v + 2, v + 1]);
                v += 3;
            }
        }
        b.finish();
        expected
    }

    #[test]
    fn unchanged_quad_runs_keep_last_frames_indices() {
        let mut b = Batcher::new(16);
        let frame: Vec<bool> = (0..100).map(|i| i != 40).collect();
        let expected = push_frame(&mut b, &frame);
        assert_eq!(b.indices.as_slice(), expected);
        assert_eq!(b.quad_runs().len(), 2);
        assert_eq!(b.runs_kept, 0);
        push_frame(&mut b, &frame);
        assert_eq!(b.indices.as_slice(), expected);
        assert_eq!(b.runs_kept, 2, "both runs kept");
        assert_eq!(b.indices.dirty(), None);
        // A triangle more at the front moves every run: nothing kept, everything rewritten and correct.
        let mut moved = frame.clone();
        moved.insert(0, false);
        let expected = push_frame(&mut b, &moved);
        assert_eq!(b.runs_kept, 0);
        assert_eq!(b.indices.as_slice(), expected);
    }

    proptest! {
        /// Over any sequence of frames of quads and meshes, the index stream is exactly the naive one, and its
        /// dirty ranges (at most MAX_DIRTY_RANGES) cover every index that differs from what the GPU copy held before.
        #[test]
        fn quad_runs_write_the_same_indices_as_naive_pushing(
            frames in proptest::collection::vec(proptest::collection::vec(any::<bool>(), 0..80), 1..6),
        ) {
            let mut b = Batcher::new(16);
            let mut before: Vec<u32> = Vec::new();
            for items in &frames {
                let expected = push_frame(&mut b, items);
                prop_assert_eq!(b.indices.as_slice(), &expected[..]);
                let dirty = b.indices.dirty_ranges();
                prop_assert!(dirty.len() <= crate::frame::tracked::MAX_DIRTY_RANGES);
                for (i, x) in expected.iter().enumerate() {
                    if before.get(i) != Some(x) {
                        prop_assert!(dirty.iter().any(|r| r.contains(&i)), "index {} changed outside {:?}", i, dirty);
                    }
                }
                // What the GPU copy holds now: this frame's indices over older ones.
                before.resize(before.len().max(expected.len()), 0);
                before[..expected.len()].copy_from_slice(&expected);
            }
        }

        /// Whatever the sequence, batches tile the index stream, never exceed the texture limit, every quad's
        /// slot points at its own texture, and consecutive batches differ for a reason.
        #[test]
        fn batches_are_well_formed(
            max in 1usize..=16,
            items in proptest::collection::vec((0u32..40, 0usize..3), 0..200),
        ) {
            let mut b = Batcher::new(max);
            b.begin();
            let modes = [BlendMode::Normal, BlendMode::Add, BlendMode::Screen];
            let mut expect_tex = Vec::new();
            for &(t, m) in &items {
                quad(&mut b, t, modes[m]);
                expect_tex.push(t);
            }
            b.finish();
            let mut next = 0u32;
            for batch in b.batches() {
                prop_assert_eq!(batch.index_start, next);
                prop_assert!(batch.index_count > 0);
                prop_assert!(batch.textures.len() <= max);
                next += batch.index_count;
                for q in (batch.index_start / 6)..(batch.index_start + batch.index_count) / 6 {
                    let v = b.quads.as_slice()[q as usize];
                    let bound: Vec<_> = batch.textures.ids().collect();
                    prop_assert_eq!(bound[v.texture as usize], tex(expect_tex[q as usize]));
                }
            }
            prop_assert_eq!(next as usize, items.len() * 6);
            for w in b.batches().windows(2) {
                let full = w[0].textures.len() == max;
                prop_assert!(w[0].blend != w[1].blend || full, "needless break");
            }
        }
    }
}
