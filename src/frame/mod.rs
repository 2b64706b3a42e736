//! The frame: the phases of one frame and the state they keep between frames. It owns the scene walk
//! (`collect/`), the batcher and render groups' recordings (`batcher/`), the streams' element layouts
//! (`elements.rs`) and change tracking (`tracked.rs`), the kept walk's placement of moved corners
//! (`placement.rs`), the mask state machine (`mask.rs`), the upload of the streams (`streams.rs`) and the
//! [`Encoder`] that records a pass. It may use `base/`, `graphics/`, `text/`, `scene/`, `assets/` and the GPU
//! systems in `gpu/`; never `renderer/` or `app`.
//!
//! The frame: the phases one frame goes through, each a function here.
//!
//! 1. **collect** and **batch** ([`Frame::prepare`], CPU only): walk the scene into the batcher.
//! 2. **upload**: new glyph bitmaps, then the changed ranges of the streams, as copies into the frame's encoder.
//! 3. **prepare**: pipelines and bind groups for every batch, looked up (or created) before any pass opens; the
//!    result is a list of draws.
//! 4. **record** ([`Frame::record`]): the draws into a render pass, through the [`Encoder`], which skips
//!    redundant `set_*` calls. Recording takes `&self`: it creates nothing and writes no buffer.
//! 5. **submit**: the caller's (embedded) or the renderer's (the one-call path).
//! 6. **trim** ([`Frame::trim`]): the frame's counters go into [`Stats`], per-frame caches are trimmed.
//!
//! A prepared frame must be recorded (any number of times, into passes that match its [`TargetDesc`]) or trimmed
//! before the next is prepared.

pub(crate) mod batcher;
pub(crate) mod collect;
pub(crate) mod elements;
pub(crate) mod encoder;
mod filter_passes;
mod filter_reuse;
pub(crate) mod mask;
mod particles;
pub(crate) mod placement;
pub(crate) mod streams;
pub(crate) mod tracked;

use crate::base::stats::{FrameStats, Stats};
use crate::frame::batcher::Batcher;
use crate::frame::collect::{Collector, View, WalkKey};
use crate::frame::encoder::{BoundState, Encoder};
use crate::frame::placement::Placement;
use crate::frame::streams::Streams;
use crate::gpu::attachments::{Attachments, STENCIL_FORMAT};
use crate::gpu::device::Capabilities;
use crate::gpu::pipeline::{
    DepthStencil, GeometryLayout, GeometryLayoutId, GlobalState, GraphicsState, PipelineCounters,
    PipelineId, PipelineSystem, ShaderDesc, ShaderId, StateFlags, StencilMode,
};
use crate::gpu::shader;
use crate::gpu::texture_system::BindGroupId;
use crate::gpu::texture_system::TextureSystem;
use crate::{Error, NodeId, Result, Scene, TargetDesc, TextureId};
use glam::Affine2;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// One draw of the prepared frame.
#[derive(Clone, Debug)]
struct Draw {
    pipeline: PipelineId,
    bind_group: BindGroupId,
    indices: Range<u32>,
    stencil_ref: u32,
    scissor: Option<[u32; 4]>,
    /// A filtered node's last pass drawn here (its index in the walk's final draws) instead of a batch.
    final_draw: Option<u32>,
    /// A custom-shader mesh drawn here (its tag in the walk's custom meshes) instead of a batch.
    mesh_draw: Option<u32>,
}

/// Who provides the pass's extra attachments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Attach {
    /// The caller began the pass: its [`TargetDesc`] says what it has; a scene that needs a stencil attachment the
    /// pass lacks is an error.
    Caller,
    /// The renderer begins the pass: it adds the MSAA colour and stencil attachments the frame needs.
    Own,
}

/// What a frame prepared with [`Attach::Own`] begins its pass with.
#[derive(Debug, Default)]
struct OwnAttachments {
    msaa: Option<wgpu::TextureView>,
    stencil: Option<wgpu::TextureView>,
}

/// The frame system: the walk, the batcher, the streams, stage2d's own attachments, and the prepared draws.
#[derive(Debug)]
pub(crate) struct Frame {
    pub collector: Collector,
    pub batcher: Batcher,
    streams: Streams,
    attachments: Attachments,
    /// The batch shader for each texture count: entry `k - 1` samples `k` slots.
    batch_shaders: Vec<ShaderId>,
    /// The variant for batches holding a texture with mipmaps (all slots).
    batch_shader_mip: ShaderId,
    batch_geometry: GeometryLayoutId,
    draws: Vec<Draw>,
    /// The target the prepared frame is for; `None` between trim and the next prepare.
    prepared: Option<TargetDesc>,
    /// The last target that passed validation (frames mostly repeat it).
    validated: Option<TargetDesc>,
    own: OwnAttachments,
    /// Counters of the prepared frame's CPU phases.
    stats: FrameStats,
    /// What recording knows of the pass and counted; behind a lock because recording takes `&self`.
    recording: Mutex<(BoundState, FrameStats)>,
    /// Whether the prepared frame was recorded into a pass (a later `prepare` then means `trim` was missed).
    recorded: AtomicBool,
    /// Pipeline counters when the frame began.
    counters_before: PipelineCounters,
    /// Set from the start of a walk until its upload is recorded: a frame that failed in between left the batcher
    /// believing the GPU holds what it never received.
    walk_not_uploaded: bool,
    /// Attachments evicted at trim, for the renderer's release queue.
    pub retired: Vec<crate::gpu::release::Retired>,
    /// Filter programs, uniforms and intermediate textures.
    pub filters: crate::gpu::filters::FilterSystem,
    /// Custom mesh shaders and their draws' resources.
    pub meshes: crate::gpu::meshes::MeshSystem,
    /// Particle properties packed on every core before their copy into staging (see `particles.rs`).
    particle_scratch: Vec<u8>,
    /// Where the frame's first pass writes its beginning timestamp (set by the renderer before prepare; taken
    /// by the first filter pass, which sets `timestamp_begun`).
    pub first_timestamp: Option<(wgpu::QuerySet, u32)>,
    pub timestamp_begun: bool,
    /// The clear colour of the frame's own pass (set by the renderer before prepare): the root texture of a
    /// frame with advanced blend modes starts from it.
    pub clear: Option<crate::Color>,
    /// The caller's target as a texture, for an embedded frame drawn over it (set by the renderer before
    /// prepare): the root texture of a frame with advanced blend modes starts from it.
    pub backdrop: Option<crate::TextureId>,
    /// Each blend group's content texture, for the blend draw that reads it.
    blend_inputs: Vec<Option<crate::gpu::filters::ScratchId>>,
    /// Scratch of the blend draws' uniforms.
    blend_arena: Vec<u8>,
    /// Each final draw's bind groups and uniform offsets (made when its group ran).
    final_bindings: Vec<Option<(crate::gpu::filters::Binding, (u32, u32))>>,
}

impl Frame {
    /// Registers the batch shaders (one per texture count, in a fixed order so ids and the warm-start file are
    /// stable) and sets up the streams.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        caps: &Capabilities,
        pipelines: &mut PipelineSystem,
        textures: &TextureSystem,
    ) -> Result<Frame> {
        let streams = Streams::new(device, caps.stream_max);
        // A batch of k textures runs the k-case switch. On CPU rasterisers every case of the switch runs for every
        // fragment, so this is what a fragment costs there (llvmpipe: 1,000 bunnies on one texture 15.7 -> 5.8 ms a
        // frame); on GPUs it is neutral.
        let batch_shaders = (1..=caps.slots)
            .map(|k| {
                pipelines.register_shader(ShaderDesc {
                    label: "stage2d batch",
                    source: shader::batch_source(k, caps.quad_bit, false),
                    vertex_entry: "vs_main",
                    fragment_entry: "fs_main",
                    bind_group_layouts: vec![textures.layout().clone(), streams.layout().clone()],
                })
            })
            .collect::<Result<Vec<_>>>()?;
        // Batches holding a texture with mipmaps: one variant, the widest (sampling with derivatives costs GPUs
        // more, so the others stay as they are).
        let batch_shader_mip = pipelines.register_shader(ShaderDesc {
            label: "stage2d batch (mipmaps)",
            source: shader::batch_source(caps.slots, caps.quad_bit, true),
            vertex_entry: "vs_main",
            fragment_entry: "fs_main",
            bind_group_layouts: vec![textures.layout().clone(), streams.layout().clone()],
        })?;
        // No vertex buffer: the shader pulls quads and mesh vertices from storage buffers by index.
        let batch_geometry = pipelines.register_geometry(GeometryLayout {
            stride: 0,
            attributes: Vec::new(),
            planar: Vec::new(),
        })?;
        let filters = crate::gpu::filters::FilterSystem::new(device, queue);
        let meshes = crate::gpu::meshes::MeshSystem::new(device, queue);
        let mut collector = Collector::default();
        collector.filters.shader_owner = filters.owner();
        collector.caches.custom_meshes.owner = meshes.owner();
        Ok(Frame {
            collector,
            batcher: Batcher::with_quad_bit(caps.slots, caps.quad_bit),
            streams,
            attachments: Attachments::default(),
            batch_shaders,
            batch_shader_mip,
            batch_geometry,
            draws: Vec::new(),
            prepared: None,
            validated: None,
            own: OwnAttachments::default(),
            stats: FrameStats::default(),
            recording: Mutex::default(),
            recorded: AtomicBool::new(false),
            counters_before: PipelineCounters::default(),
            walk_not_uploaded: false,
            retired: Vec::new(),
            filters,
            meshes,
            particle_scratch: Vec::new(),
            first_timestamp: None,
            timestamp_begun: false,
            clear: None,
            backdrop: None,
            blend_inputs: Vec::new(),
            blend_arena: Vec::new(),
            final_bindings: Vec::new(),
        })
    }

    /// Attachments stage2d holds for the passes it begins.
    pub fn attachment_count(&self) -> usize {
        self.attachments.len()
    }

    /// Whether a prepared frame waits to be recorded or trimmed.
    pub fn is_prepared(&self) -> bool {
        self.prepared.is_some()
    }

    /// The target of the prepared frame.
    pub fn prepared(&self) -> Option<&TargetDesc> {
        self.prepared.as_ref()
    }

    /// Marks a render-texture target as one that keeps a stencil attachment from the start.
    pub fn keep_stencil(&mut self, format: wgpu::TextureFormat, size: (u32, u32)) {
        self.attachments.keep_stencil((format, size.0, size.1));
    }

    /// The batch shader sampling `textures` slots (at least one; a set larger than the shaders cover gets the
    /// widest).
    fn batch_shader_for(&self, textures: usize) -> ShaderId {
        self.batch_shaders[textures.clamp(1, self.batch_shaders.len()) - 1]
    }

    /// The draw of batch `b` under the current target state: its texture set's bind group and its pipeline (the
    /// batch shader for its texture count, or the mipmapped one).
    fn batch_draw(
        &self,
        pipelines: &mut PipelineSystem,
        textures: &mut TextureSystem,
        b: &crate::frame::batcher::Batch,
        scissor: Option<[u32; 4]>,
    ) -> Result<Draw> {
        let bind_group = textures.bind_group(&b.textures);
        let shader = match textures.any_mipmapped(&b.textures) {
            true => self.batch_shader_mip,
            false => self.batch_shader_for(b.textures.len()),
        };
        let pipeline = pipelines.get_pipeline(GraphicsState {
            geometry: self.batch_geometry,
            shader,
            flags: StateFlags::default(),
            blend: b.blend,
            topology: b.topology,
        })?;
        Ok(Draw {
            pipeline,
            bind_group,
            indices: b.index_start..b.index_start + b.index_count,
            stencil_ref: b.state.stencil_ref as u32,
            scissor,
            final_draw: None,
            mesh_draw: None,
        })
    }

    /// Collect → batch → upload → prepare: everything before a pass, for a pass on `desc` (with `Attach::Own`,
    /// `desc.depth_stencil` is decided here). Copies are recorded into `encoder`; returns whether there were any.
    /// On error nothing is prepared.
    #[allow(clippy::too_many_arguments)]
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        pipelines: &mut PipelineSystem,
        textures: &mut TextureSystem,
        encoder: &mut wgpu::CommandEncoder,
        scene: &Scene,
        start: NodeId,
        transform: Affine2,
        mut desc: TargetDesc,
        attach: Attach,
        target_texture: Option<TextureId>,
    ) -> Result<bool> {
        debug_assert!(
            self.prepared.is_none(),
            "the renderer checks that no frame is in flight"
        );
        if self.validated != Some(desc) {
            desc.validate(device)?;
            self.validated = Some(desc);
        }
        // A frame that failed before its upload reached the GPU leaves the batcher comparing with data the GPU
        // never got: forget it, so this frame uploads everything it writes.
        if std::mem::replace(&mut self.walk_not_uploaded, true) | self.streams.take_lost_upload() {
            self.batcher.forget_uploads();
            self.collector.forget_kept();
            self.collector.filters.forget_drawn_caches();
        }
        let mut frame = FrameStats::default();
        self.timestamp_begun = false;
        let before = pipelines.counters();
        let t0 = Instant::now();

        // Glyph-atlas pages reserved (a new page changes which textures are live), then the walk's key; a kept
        // frame whose changes are all moves has their corners placed straight into staging, reserved here.
        #[cfg(feature = "text")]
        {
            let caches = &mut self.collector.caches;
            caches.pages.reserve(&mut caches.text, textures);
        }
        let mut view = View::scaled(
            desc.width,
            desc.height,
            desc.scale_factor,
            textures.white().id(),
        );
        view.to_clip *= transform;
        let key = WalkKey {
            start,
            view,
            forbidden: target_texture,
            liveness: textures.liveness(),
        };
        let moves = self.collector.moves_to_place(scene, &key);
        let mut place = (moves > 0).then(|| self.streams.placement(moves, &mut frame));

        // Collect and batch: CPU only (but for the placed corners). Filter groups draw into textures reserved
        // ahead; a walk that needed more walks again with them (only when their number grows).
        self.collector.filters.configure(
            textures.max_side(),
            desc.scale_factor,
            desc.sample_count > 1,
        );
        self.collector.filters.clear = self.clear;
        self.collector.filters.backdrop = self.backdrop;
        // The root texture is let go a while after the last advanced blend mode.
        let walk = &mut self.collector.filters;
        if walk.root_wanted && walk.walks_without_blend > 120 {
            walk.root_wanted = false;
        }
        self.collect(textures, scene, &key, place.as_mut(), &mut frame)?;
        // New caches and newly kept filter results take a handle reserved here.
        reserve_cache_spares(&mut self.collector.filters, textures)?;
        // A walk short of filter textures, that met a new cache without a handle (a cache draws from its first
        // frame, as PixiJS's does; a kept filter result waits a frame), or that met an advanced blend mode in the
        // frame's own pass (the frame then walks into a root texture), walks again.
        for _ in 0..3 {
            let walk = &mut self.collector.filters;
            let short = walk.shortfall;
            let new_caches = walk.new_cache_shortfall;
            let root = walk.needs_root && !walk.root_wanted;
            if root {
                walk.root_wanted = true;
                walk.walks_without_blend = 0;
            }
            if short == 0 && !root && new_caches == 0 {
                break;
            }
            if short > 0 {
                for _ in 0..short.next_power_of_two().max(4) {
                    walk.handles.push(textures.reserve()?);
                }
            }
            self.batcher.forget_uploads();
            self.collector.forget_kept();
            self.collector.filters.forget_drawn_caches();
            frame = FrameStats::default();
            self.collect(textures, scene, &key, None, &mut frame)?;
            reserve_cache_spares(&mut self.collector.filters, textures)?;
        }
        if !self.collector.filters.groups.is_empty() {
            self.batcher
                .split_at_quads(&self.collector.filters.final_splits);
            self.batcher.group_by_target();
        }
        let t1 = Instant::now();
        let counters = self.collector.mask_counters;
        if attach == Attach::Caller && counters.used_stencil && desc.depth_stencil.is_none() {
            return Err(Error::StencilRequired);
        }

        // Upload: glyph bitmaps, then the streams' changed ranges, ahead of any pass.
        #[cfg(feature = "text")]
        {
            let caches = &mut self.collector.caches;
            caches.pages.upload(&mut caches.text, textures, &mut frame);
        }
        let uploaded =
            self.streams
                .upload(device, encoder, &mut self.batcher, place, &mut frame)?;
        self.walk_not_uploaded = false;

        // Prepare: attachments, pipelines and bind groups.
        frame.masks_pushed = counters.pushed;
        frame.scissor_masks = counters.scissor;
        let key = (desc.format, desc.width, desc.height);
        let samples = desc.sample_count;
        self.own = OwnAttachments::default();
        match attach {
            Attach::Own => {
                if counters.used_stencil {
                    self.attachments.keep_stencil(key);
                }
                let a = &mut self.attachments;
                if a.keeps_stencil(key) {
                    desc.depth_stencil = Some(STENCIL_FORMAT);
                    self.own.stencil =
                        Some(a.stencil_view(device, desc.size(), samples, &mut frame));
                }
                if samples > 1 {
                    self.own.msaa = Some(a.msaa_view(device, key, &mut frame));
                }
            }
            Attach::Caller => {}
        }
        let depth_stencil = match desc.depth_stencil {
            None => DepthStencil::None,
            Some(wgpu::TextureFormat::Stencil8) => DepthStencil::Stencil8,
            Some(_) => DepthStencil::Depth24PlusStencil8,
        };
        let base = GlobalState::new(0b1111, StencilMode::Disabled, depth_stencil, 1, samples > 1)
            .expect("a valid global state");
        pipelines.set_target_state(base, desc.format);
        // Filter outputs get their storage before any bind group names them.
        self.size_filter_outputs(textures);
        let target_px = (desc.width, desc.height);
        self.prepare_meshes(pipelines, textures, scene, target_px, &mut frame)?;
        self.meshes.copy_changes(encoder, &mut frame);
        self.draws.clear();
        let mut stencil = StencilMode::Disabled;
        for b in self.batcher.batches() {
            if b.target != 0 {
                continue;
            }
            if b.state.stencil != stencil {
                stencil = b.state.stencil;
                frame.stencil_mode_switches += 1;
                pipelines.set_target_state(base.with_stencil(stencil), desc.format);
            }
            if b.marker & Batcher::MARKER_FINAL != 0 {
                // A filtered node's last pass, drawn here with its chain's blend mode.
                let tag = b.marker & !Batcher::MARKER_FINAL;
                let walk = &self.collector.filters;
                if let Some(pipeline) = walk.final_pipeline(&mut self.filters, pipelines, tag)? {
                    self.draws.push(Draw {
                        pipeline,
                        bind_group: BindGroupId(u32::MAX),
                        indices: 0..0,
                        stencil_ref: b.state.stencil_ref as u32,
                        scissor: b.state.scissor,
                        final_draw: Some(tag),
                        mesh_draw: None,
                    });
                }
                continue;
            }
            if b.marker & Batcher::MARKER_MESH != 0 {
                let tag = b.marker & !Batcher::MARKER_MESH;
                let draws = &self.collector.caches.custom_meshes.draws;
                if let Some(d) = draws.get(tag as usize) {
                    self.draws.push(Draw {
                        pipeline: self.meshes.pipeline(pipelines, d)?,
                        bind_group: BindGroupId(u32::MAX),
                        indices: 0..0,
                        stencil_ref: b.state.stencil_ref as u32,
                        scissor: b.state.scissor,
                        final_draw: None,
                        mesh_draw: Some(tag),
                    });
                }
                continue;
            }
            if b.marker != 0 {
                continue;
            }
            let draw = self.batch_draw(pipelines, textures, b, b.state.scissor)?;
            self.draws.push(draw);
        }
        // Filtered content and filter passes, before the frame's pass.
        let filtered = !self.collector.filters.groups.is_empty();
        let px = (desc.width as f32, desc.height as f32);
        self.run_filters(device, pipelines, textures, encoder, px, &mut frame)?;
        // Drawing into a render texture changes its pixels (filter results that show it are run again).
        if let Some(t) = target_texture {
            textures.touch(t);
        }
        frame.collect_ns = (t1 - t0).as_nanos() as u64;
        frame.prepare_ns = t1.elapsed().as_nanos() as u64;
        self.stats = frame;
        self.counters_before = before;
        self.prepared = Some(desc);
        Ok(uploaded || filtered)
    }

    /// Geometry buffers, uniforms and bind groups of the walk's custom-shader meshes (before any pass names
    /// them).
    fn prepare_meshes(
        &mut self,
        pipelines: &mut PipelineSystem,
        textures: &TextureSystem,
        scene: &Scene,
        target: (u32, u32),
        frame: &mut FrameStats,
    ) -> Result<()> {
        let cm = &self.collector.caches.custom_meshes;
        self.meshes.begin_frame(cm.draws.len());
        if cm.draws.is_empty() {
            return Ok(());
        }
        if cm
            .draws
            .iter()
            .any(|d| d.shader == crate::gpu::meshes::DEFAULT_MESH_SHADER)
        {
            self.meshes.ensure_default(pipelines)?;
        }
        if cm.draws.iter().any(|d| d.particles.is_some()) {
            self.meshes.ensure_particles(pipelines, frame)?;
        }
        let transforms = self.batcher.transforms.as_slice();
        for (tag, d) in cm.draws.iter().enumerate() {
            if let Some(p) = d.particles {
                let scratch = &mut self.particle_scratch;
                match particles::upload(&mut self.meshes, scene, p, scratch, frame) {
                    Ok(0) => {}
                    Ok(bad) => {
                        if frame.particles_skipped == 0 {
                            log::warn!("{bad} particles of {:?} left out: a property is not a finite number or a frame index is past the container's frames (further ones this frame are only counted)", p.node);
                        }
                        frame.particles_skipped += bad;
                    }
                    Err(e) => {
                        log::warn!("particle container {:?} not drawn: {e}", p.node);
                        frame.nodes_skipped += 1;
                        continue;
                    }
                }
            }
            let g = transforms
                .get(d.xform as usize)
                .map_or(Affine2::IDENTITY, |t| t.affine());
            self.meshes.prepare(tag, d, &cm.arena, g, target, frame);
        }
        self.collector.caches.custom_meshes.release_geometries();
        let cm = &self.collector.caches.custom_meshes;
        self.meshes.upload(textures, &cm.draws, frame)
    }

    /// Records custom-shader mesh draw `tag` with `pipeline`; the batches' streams are bound again after it.
    fn record_mesh(
        &self,
        enc: &mut Encoder<'_, '_>,
        pipelines: &PipelineSystem,
        tag: u32,
        pipeline: PipelineId,
    ) {
        let draws = &self.collector.caches.custom_meshes.draws;
        let Some(d) = draws.get(tag as usize) else {
            return;
        };
        // Bind groups and the index buffer bound alike; vertex buffers: a particle property a buffer, or a
        // geometry's blocks of one buffer.
        let (groups, indices, count, instances) = match d.particles {
            Some(_) => {
                let Some(b) = self.meshes.particle_binding(tag as usize, d) else {
                    return;
                };
                for (slot, buffer) in b.buffers.iter().enumerate() {
                    let bytes = u64::from(b.count) * crate::gpu::particles::PARTICLE_STRIDES[slot];
                    enc.set_vertex_buffer_range(slot as u32, buffer, 0..bytes);
                }
                (b.groups, b.indices, 6, b.count)
            }
            None => {
                let Some(b) = self.meshes.binding(tag as usize, d) else {
                    return;
                };
                for (slot, block) in b.blocks.iter().enumerate() {
                    // An empty block (a geometry of no vertices is not drawn; per-instance data of none) binds 4
                    // bytes.
                    let range = block.0..block.1.max(block.0 + 4).min(b.vertices.size());
                    enc.set_vertex_buffer_range(slot as u32, b.vertices, range);
                }
                (b.groups, b.indices, b.count, b.instances)
            }
        };
        enc.set_pipeline(pipeline, pipelines.pipeline(pipeline));
        for (slot, (id, group, offset)) in groups.into_iter().enumerate() {
            enc.set_bind_group_at(slot as u32, id, group, offset);
        }
        enc.set_index_buffer(indices.0, indices.1);
        enc.draw_indexed_instanced(0..count, instances);
        self.streams.bind(enc);
    }

    /// The walk: the scene collected into the batcher (a kept frame's moved corners into `place`).
    fn collect(
        &mut self,
        textures: &TextureSystem,
        scene: &Scene,
        key: &WalkKey,
        place: Option<&mut Placement>,
        frame: &mut FrameStats,
    ) -> Result<()> {
        self.collector.collect_frame_placing(
            scene,
            key,
            &mut self.batcher,
            |t| textures.is_live(t),
            place,
            frame,
        );
        let target_texture = key.forbidden;
        match target_texture.filter(|_| self.collector.feedback_loop) {
            // Nothing was uploaded or recorded yet: the frame is dropped whole.
            Some(t) => Err(Error::FeedbackLoop(t)),
            None => Ok(()),
        }
    }

    /// Begins the renderer's own pass on `view` for the prepared frame, with the attachments prepare chose, and
    /// `clear` as the load operation (`None`: draw over the contents).
    pub fn begin_own_pass<'e>(
        &self,
        encoder: &'e mut wgpu::CommandEncoder,
        view: &wgpu::TextureView,
        clear: Option<crate::Color>,
        timestamps: Option<wgpu::RenderPassTimestampWrites<'_>>,
    ) -> wgpu::RenderPass<'e> {
        encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("stage2d pass"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: self.own.msaa.as_ref().unwrap_or(view),
                depth_slice: None,
                resolve_target: self.own.msaa.as_ref().map(|_| view),
                ops: wgpu::Operations {
                    load: match clear {
                        Some(c) => wgpu::LoadOp::Clear(c.to_wgpu_premultiplied()),
                        None => wgpu::LoadOp::Load,
                    },
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: self.own.stencil.as_ref().map(|v| {
                wgpu::RenderPassDepthStencilAttachment {
                    view: v,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(0),
                        store: wgpu::StoreOp::Discard,
                    }),
                }
            }),
            timestamp_writes: timestamps,
            occlusion_query_set: None,
            multiview_mask: None,
        })
    }

    /// Records the prepared draws into `pass`, which must match the prepared target. `fresh` says the pass was
    /// just begun by the renderer (its state is wgpu's defaults); a caller's pass may hold any scissor, viewport
    /// or stencil reference, so they are all set.
    pub fn record(
        &self,
        pipelines: &PipelineSystem,
        textures: &TextureSystem,
        pass: &mut wgpu::RenderPass<'_>,
        desc: &TargetDesc,
        fresh: bool,
    ) -> Result<()> {
        let Some(prepared) = &self.prepared else {
            return Err(Error::NotPrepared);
        };
        desc.check_matches(prepared)?;
        // The renderer's own pass is timed whole by the renderer (begin and end included).
        let t0 = (!fresh).then(Instant::now);
        let mut recording = self.recording.lock().unwrap_or_else(|e| e.into_inner());
        let (bound, stats) = &mut *recording;
        let size = prepared.size();
        let mut enc = Encoder::new(pass, bound, stats, size);
        if !fresh {
            enc.take_over_pass();
        }
        if !self.draws.is_empty() {
            self.streams.bind(&mut enc);
        }
        for d in &self.draws {
            enc.set_scissor(d.scissor);
            enc.set_stencil_reference(d.stencil_ref);
            if let Some(tag) = d.final_draw {
                if let Some(Some((binding, offsets))) = self.final_bindings.get(tag as usize) {
                    let pipeline = pipelines.pipeline(d.pipeline);
                    enc.raw(|rp| self.filters.draw(rp, pipeline, binding, *offsets));
                    self.streams.bind(&mut enc);
                }
                continue;
            }
            if let Some(tag) = d.mesh_draw {
                self.record_mesh(&mut enc, pipelines, tag, d.pipeline);
                continue;
            }
            enc.set_pipeline(d.pipeline, pipelines.pipeline(d.pipeline));
            enc.set_bind_group(0, d.bind_group, textures.get_bind_group(d.bind_group));
            enc.draw_indexed(d.indices.clone());
        }
        // The pass may end here: wgpu's GL backend resolves MSAA with the scissor test on, so a scissored last
        // draw would resolve only its rectangle. A caller's draws after ours get the whole target back too.
        enc.set_scissor(None);
        if let Some(t0) = t0 {
            stats.record_ns += t0.elapsed().as_nanos() as u64;
        }
        self.recorded.store(true, Ordering::Relaxed);
        Ok(())
    }

    /// Whether the prepared frame was recorded into a pass.
    pub fn was_recorded(&self) -> bool {
        self.recorded.load(Ordering::Relaxed)
    }

    /// Ends the frame: its counters (and `extra`, such as the submit time) go into `stats`, per-frame caches are
    /// trimmed. A frame prepared but never recorded is dropped here. Does nothing when no frame is prepared.
    pub fn trim(
        &mut self,
        pipelines: &PipelineSystem,
        textures: &mut TextureSystem,
        stats: &mut Stats,
        extra: &FrameStats,
    ) {
        if self.prepared.take().is_none() {
            return;
        }
        self.recorded.store(false, Ordering::Relaxed);
        self.own = OwnAttachments::default();
        self.attachments.trim(&mut self.retired);
        self.filters.trim();
        self.retired.append(&mut self.filters.retired);
        self.meshes.end_frame();
        self.retired.extend(self.meshes.take_retired());
        textures.trim();
        let mut frame = std::mem::take(&mut self.stats);
        let mut recording = self.recording.lock().unwrap_or_else(|e| e.into_inner());
        frame.accumulate(&std::mem::take(&mut recording.1));
        drop(recording);
        frame.accumulate(extra);
        let (before, after) = (self.counters_before, pipelines.counters());
        frame.pipeline_hits_without_hash =
            after.cache.hits_without_hash - before.cache.hits_without_hash;
        frame.pipeline_hits_with_hash = after.cache.hits_with_hash - before.cache.hits_with_hash;
        frame.pipeline_misses = after.cache.misses - before.cache.misses;
        frame.pipe_cache_switches =
            after.cache.pipe_cache_switches - before.cache.pipe_cache_switches;
        frame.pipelines_created = after.pipelines_created - before.pipelines_created;
        frame.shader_modules_created = after.shader_modules_created - before.shader_modules_created;
        frame.accumulate(&textures.take_stats());
        // A frame that kept the last walk used the meshes and glyphs that walk used without saying so: their
        // caches do not age (nor count work) for it.
        if frame.walks_kept == 0 {
            let caches = &mut self.collector.caches;
            frame.tessellations = caches.tessellation.tessellations;
            frame.shape_instructions_skipped = caches.tessellation.skipped_instructions;
            frame.tessellations_pending = caches.tessellation.pending() as u64;
            caches.tessellation.trim();
            #[cfg(feature = "text")]
            {
                frame.text_layouts = caches.text.layouts_this_frame;
                caches.text.trim();
            }
        }
        stats.last_frame = frame;
        stats.skipped = self.collector.skipped;
        stats.total.accumulate(&frame);
        stats.frames += 1;
    }
}

/// Reserves a handle for each cache or kept filter result the last walk was short of.
fn reserve_cache_spares(
    walk: &mut crate::frame::collect::filters::FilterWalk,
    textures: &mut TextureSystem,
) -> Result<()> {
    for _ in 0..walk.cache_shortfall {
        let h = textures.reserve()?;
        walk.cache_spares.push(h);
    }
    walk.cache_shortfall = 0;
    Ok(())
}
