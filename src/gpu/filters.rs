//! The FilterSystem: what filter passes need on the GPU. Filter programs become shaders of the
//! [`PipelineSystem`] (built-ins on first use, custom WGSL when created, each checked by naga first), every pass's
//! uniforms go into one ring buffer written once per frame and bound at dynamic offsets, intermediate textures
//! are pooled by size class, and bind groups are cached by the textures they hold. Steady-state frames create
//! nothing here.

use crate::base::stats::FrameStats;
use crate::filter::passes::{prelude, Pass, Program, BUILTIN_UNIFORM_BYTES, MAX_CUSTOM_TEXTURES};
use crate::filter::FilterShader;
use crate::gpu::pipeline::{
    GeometryLayout, GeometryLayoutId, GlobalState, GraphicsState, PipelineId, PipelineSystem,
    ShaderDesc, ShaderId, StateFlags, StencilMode, Topology,
};
use crate::gpu::release::Retired;
use crate::gpu::texture_system::TextureSystem;
use crate::gpu::wgsl::{fit_uniform_ring, sampler_entry, texture_entry, uniform_entry};
use crate::{BlendMode, Error, Result, TextureId};
use std::collections::HashMap;

/// The format of every intermediate filter texture.
pub(crate) const FILTER_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

/// Frames an unused intermediate texture or bind group is kept.
const MAX_IDLE_FRAMES: u64 = 120;

/// Bytes of the filter globals (seven `vec4<f32>`).
const GLOBALS_BYTES: u64 = 112;

/// The filter globals of one pass (`GlobalFilterUniforms` in `shaders/filters/prelude.wgsl`).
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct Globals {
    pub input_size: [f32; 4],
    pub input_pixel: [f32; 4],
    pub input_clamp: [f32; 4],
    pub output_frame: [f32; 4],
    pub global_frame: [f32; 4],
    pub output_texture: [f32; 4],
    pub input_frame: [f32; 4],
}

impl Globals {
    /// Globals of a pass over a `size` texture whose content is `content` pixels from the origin, which lies at
    /// `origin` on the target (filter pixels) of `target` size, at `resolution`.
    pub fn new(
        size: (u32, u32),
        content: [f32; 2],
        origin: [f32; 2],
        target: [f32; 2],
        resolution: f32,
    ) -> Globals {
        let (w, h) = (size.0 as f32, size.1 as f32);
        let inv = [1.0 / w, 1.0 / h];
        let input_size = [w, h, inv[0], inv[1]];
        Globals {
            input_size,
            input_pixel: input_size,
            input_clamp: [
                0.5 * inv[0],
                0.5 * inv[1],
                (content[0] - 0.5) * inv[0],
                (content[1] - 0.5) * inv[1],
            ],
            output_frame: [0.0, 0.0, content[0], content[1]],
            global_frame: [origin[0], origin[1], target[0], target[1]],
            output_texture: [w, h, 1.0, resolution],
            input_frame: [0.0, 0.0, content[0], content[1]],
        }
    }
}

impl Globals {
    /// The globals in PixiJS's units, as custom filters read them: sizes, frames and the output texture's size in
    /// scene pixels (texture pixels divided by the resolution: `resolution` of the input, `out_resolution` of
    /// the texture drawn into); `uInputPixel`, `uInputClamp` and `uGlobalFrame` stay in texture pixels.
    pub fn in_scene_units(mut self, resolution: f32, out_resolution: f32) -> Globals {
        let (w, h) = (
            self.input_size[0] / resolution,
            self.input_size[1] / resolution,
        );
        self.input_size = [w, h, 1.0 / w, 1.0 / h];
        self.input_frame = self.input_frame.map(|v| v / resolution);
        self.output_frame = self.output_frame.map(|v| v / out_resolution);
        self.output_texture[0] /= out_resolution;
        self.output_texture[1] /= out_resolution;
        self
    }
}

/// A custom filter shader: its registered shader and what it binds.
#[derive(Debug)]
struct Custom {
    /// Its WGSL (the prelude's included), to be registered again on a new device.
    source: String,
    shader: ShaderId,
    textures: u8,
    uniform_bytes: u32,
}

/// An intermediate texture.
#[derive(Debug)]
struct Scratch {
    size: (u32, u32),
    view: wgpu::TextureView,
    texture: wgpu::Texture,
    /// Frame it was last used in.
    used: u64,
    /// Lent out in the current frame's current group.
    busy: bool,
}

/// A resources bind group's key: texture count, uniform binding size, the textures.
type Group1Key = (u8, u32, [Option<TextureId>; MAX_CUSTOM_TEXTURES]);

/// The bind groups of a pass, made by [`FilterSystem::bind`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Binding {
    group0: (ScratchId, ScratchId),
    group1: Group1Key,
}

/// Where the passes of one filter chain read and write: scratch textures by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ScratchId(u32);

/// The GPU side of filters.
#[derive(Debug)]
pub(crate) struct FilterSystem {
    device: wgpu::Device,
    queue: wgpu::Queue,
    layout0: wgpu::BindGroupLayout,
    /// Group-1 layouts by texture count.
    layout1: Vec<wgpu::BindGroupLayout>,
    sampler: wgpu::Sampler,
    geometry: Option<GeometryLayoutId>,
    programs: HashMap<Program, ShaderId>,
    customs: Vec<Custom>,
    owner: u32,
    ring: Option<wgpu::Buffer>,
    ring_capacity: u64,
    staging: Vec<u8>,
    align: u64,
    scratch: Vec<Scratch>,
    group0: HashMap<(ScratchId, ScratchId), (wgpu::BindGroup, u64)>,
    group1: HashMap<Group1Key, (wgpu::BindGroup, u64)>,
    frame: u64,
    /// Objects let go of, for the renderer's release queue.
    pub retired: Vec<Retired>,
}

impl FilterSystem {
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> FilterSystem {
        static NEXT_OWNER: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
        let owner = NEXT_OWNER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let layout0 = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("stage2d filter globals"),
            entries: &[
                uniform_entry(0),
                texture_entry(1),
                sampler_entry(2),
                texture_entry(3),
            ],
        });
        let layout1 = crate::gpu::wgsl::resource_layouts(device, "stage2d filter resources");
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("stage2d filter input"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        let align = device.limits().min_uniform_buffer_offset_alignment.max(16) as u64;
        FilterSystem {
            device: device.clone(),
            queue: queue.clone(),
            layout0,
            layout1,
            sampler,
            geometry: None,
            programs: HashMap::new(),
            customs: Vec::new(),
            owner,
            ring: None,
            ring_capacity: 0,
            staging: Vec::new(),
            align,
            scratch: Vec::new(),
            group0: HashMap::new(),
            group1: HashMap::new(),
            frame: 0,
            retired: Vec::new(),
        }
    }

    fn shader_desc(&self, source: String, entry: &'static str, textures: u8) -> ShaderDesc {
        ShaderDesc {
            label: "stage2d filter",
            source,
            vertex_entry: "mainVertex",
            fragment_entry: entry,
            bind_group_layouts: vec![
                self.layout0.clone(),
                self.layout1[textures as usize].clone(),
            ],
        }
    }

    fn geometry(&mut self, pipelines: &mut PipelineSystem) -> Result<GeometryLayoutId> {
        if let Some(g) = self.geometry {
            return Ok(g);
        }
        let g = pipelines.register_geometry(GeometryLayout {
            stride: 0,
            attributes: Vec::new(),
            planar: Vec::new(),
        })?;
        self.geometry = Some(g);
        Ok(g)
    }

    /// The global state filter passes draw under.
    pub fn target_state() -> GlobalState {
        GlobalState::new(
            0b1111,
            StencilMode::Disabled,
            crate::gpu::pipeline::DepthStencil::None,
            1,
            false,
        )
        .expect("a valid global state")
    }

    /// Checks and registers a custom filter's WGSL (the fragment stage, written against the prelude) and
    /// creates its pipeline, so that a shader that does not parse, validate or match the prelude's bindings
    /// is an error here and never at draw time.
    pub fn create_shader(
        &mut self,
        pipelines: &mut PipelineSystem,
        source: &str,
    ) -> Result<FilterShader> {
        let full = format!("{}\n{source}", prelude());
        let checked = crate::gpu::wgsl::check_user_wgsl(
            &full,
            source,
            &[("mainFragment", naga::ShaderStage::Fragment)],
            "no `@fragment fn mainFragment(in: VSOutput) -> @location(0) vec4<f32>`",
            "the prelude binds group 0 (0..=3), a filter binds",
        )
        .map_err(|(line, message)| Error::FilterShader { line, message })?;
        let (uniform_bytes, textures) = (checked.uniform_bytes, checked.textures);
        let desc = self.shader_desc(full.clone(), "mainFragment", textures);
        let geometry = self.geometry(pipelines)?;
        let device = self.device.clone();
        let shader = crate::gpu::device::checked(&device, "creating a filter shader", || {
            let shader = pipelines.register_shader(desc)?;
            pipelines.set_target_state(Self::target_state(), FILTER_FORMAT);
            pipelines.get_pipeline(GraphicsState {
                geometry,
                shader,
                flags: StateFlags::default(),
                blend: BlendMode::None,
                topology: Topology::TriangleStrip,
            })?;
            Ok(shader)
        })?;
        self.customs.push(Custom {
            source: full,
            shader,
            textures,
            uniform_bytes,
        });
        Ok(FilterShader {
            index: self.customs.len() as u32 - 1,
            owner: self.owner,
            uniform_size: uniform_bytes,
            textures,
        })
    }

    /// Takes over `old`'s custom shaders (a system of a lost device): registered again in the same order under
    /// `old`'s tag, so the handles `old` gave out name the same shaders here.
    pub fn adopt(&mut self, old: &FilterSystem, pipelines: &mut PipelineSystem) -> Result<()> {
        self.owner = old.owner;
        for c in &old.customs {
            let desc = self.shader_desc(c.source.clone(), "mainFragment", c.textures);
            let shader = pipelines.register_shader(desc)?;
            self.customs.push(Custom {
                source: c.source.clone(),
                shader,
                textures: c.textures,
                uniform_bytes: c.uniform_bytes,
            });
        }
        Ok(())
    }

    /// The tag on the shaders made here.
    pub fn owner(&self) -> u32 {
        self.owner
    }

    /// The pipeline of `program` (under [`FilterSystem::target_state`], which the caller set), its shader
    /// registered on first use.
    pub fn pipeline(
        &mut self,
        pipelines: &mut PipelineSystem,
        program: Program,
    ) -> Result<PipelineId> {
        self.pipeline_blended(pipelines, program, BlendMode::None)
    }

    /// [`FilterSystem::pipeline`] blending with `blend` (a last pass drawn into the pass holding its node),
    /// under whatever target state the caller set.
    pub fn pipeline_blended(
        &mut self,
        pipelines: &mut PipelineSystem,
        program: Program,
        blend: BlendMode,
    ) -> Result<PipelineId> {
        let shader = match program {
            Program::Custom(i) => {
                self.customs
                    .get(i as usize)
                    .ok_or_else(|| Error::FilterShader {
                        line: None,
                        message: "a custom filter shader of another renderer".into(),
                    })?
                    .shader
            }
            p => match self.programs.get(&p) {
                Some(s) => *s,
                None => {
                    let (source, entry) = p.builtin_source().expect("a built-in program");
                    let desc = self.shader_desc(source, entry, p.builtin_textures());
                    let s = pipelines.register_shader(desc)?;
                    self.programs.insert(p, s);
                    s
                }
            },
        };
        let geometry = self.geometry(pipelines)?;
        pipelines.get_pipeline(GraphicsState {
            geometry,
            shader,
            flags: StateFlags::default(),
            blend,
            topology: Topology::TriangleStrip,
        })
    }

    fn textures_of(&self, program: Program) -> u8 {
        match program {
            Program::Custom(i) => self.customs.get(i as usize).map_or(0, |c| c.textures),
            p => p.builtin_textures(),
        }
    }

    fn uniform_binding_bytes(&self, program: Program) -> u32 {
        match program {
            Program::Custom(i) => self
                .customs
                .get(i as usize)
                .map_or(16, |c| c.uniform_bytes.max(16).next_multiple_of(16)),
            _ => BUILTIN_UNIFORM_BYTES,
        }
    }

    /// Starts a frame's uniforms.
    pub fn begin_frame(&mut self) {
        self.frame += 1;
        self.staging.clear();
        for s in &mut self.scratch {
            s.busy = false;
        }
    }

    /// Adds a pass's globals and uniform bytes to the frame's ring; returns their offsets.
    pub fn push_uniforms(&mut self, globals: &Globals, pass: &Pass, arena: &[u8]) -> (u32, u32) {
        let g = self.staging.len() as u32;
        self.staging.extend_from_slice(bytemuck::bytes_of(globals));
        self.staging
            .resize(self.staging.len().next_multiple_of(self.align as usize), 0);
        let p = self.staging.len() as u32;
        let (start, len) = pass.params;
        self.staging
            .extend_from_slice(&arena[start as usize..(start + len) as usize]);
        let binding = self.uniform_binding_bytes(pass.program) as usize;
        let end = (p as usize + binding).next_multiple_of(self.align as usize);
        self.staging.resize(end, 0);
        (g, p)
    }

    /// Writes the frame's uniforms, growing the ring (and dropping the bind groups that name it) when they do
    /// not fit.
    pub fn upload(&mut self, stats: &mut FrameStats) {
        if self.staging.is_empty() {
            return;
        }
        let need = self.staging.len() as u64;
        let ring = (&mut self.ring, &mut self.ring_capacity);
        let label = "stage2d filter uniforms";
        if fit_uniform_ring(&self.device, ring, need, label, &mut self.retired, stats) {
            self.group0.clear();
            self.group1.clear();
        }
        let ring = self.ring.as_ref().expect("created above");
        self.queue.write_buffer(ring, 0, &self.staging);
        stats.uniform_bytes += need;
    }

    /// An intermediate texture of exactly `size` not yet lent in this group (created when none is free).
    pub fn scratch(&mut self, size: (u32, u32), stats: &mut FrameStats) -> ScratchId {
        let frame = self.frame;
        if let Some(i) = self.scratch.iter().position(|s| !s.busy && s.size == size) {
            let s = &mut self.scratch[i];
            s.busy = true;
            s.used = frame;
            return ScratchId(i as u32);
        }
        let texture = self.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("stage2d filter texture"),
            size: wgpu::Extent3d {
                width: size.0,
                height: size.1,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: FILTER_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_SRC
                | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        stats.textures_created += 1;
        let view = texture.create_view(&Default::default());
        let s = Scratch {
            size,
            view,
            texture,
            used: frame,
            busy: true,
        };
        // Reuse a slot freed by trimming, so ids (and cached bind groups) stay few.
        ScratchId(match self.scratch.iter().position(|s| s.size == (0, 0)) {
            Some(i) => {
                self.scratch[i] = s;
                i as u32
            }
            None => {
                self.scratch.push(s);
                self.scratch.len() as u32 - 1
            }
        })
    }

    /// Gives back the scratch textures of a finished group (later groups of the frame may take them).
    pub fn release_scratch(&mut self, ids: &[ScratchId]) {
        for id in ids {
            if let Some(s) = self.scratch.get_mut(id.0 as usize) {
                s.busy = false;
            }
        }
    }

    /// A scratch texture.
    pub fn scratch_texture(&self, id: ScratchId) -> &wgpu::Texture {
        &self.scratch[id.0 as usize].texture
    }

    /// The view of a scratch texture.
    pub fn scratch_view(&self, id: ScratchId) -> &wgpu::TextureView {
        &self.scratch[id.0 as usize].view
    }

    fn group0(
        &mut self,
        input: ScratchId,
        original: ScratchId,
        stats: &mut FrameStats,
    ) -> &wgpu::BindGroup {
        let frame = self.frame;
        let ring = self.ring.as_ref().expect("uploaded before passes");
        let entry = self.group0.entry((input, original)).or_insert_with(|| {
            stats.bind_groups_created += 1;
            let g = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("stage2d filter globals"),
                layout: &self.layout0,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: ring,
                            offset: 0,
                            size: std::num::NonZeroU64::new(GLOBALS_BYTES),
                        }),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::TextureView(
                            &self.scratch[input.0 as usize].view,
                        ),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: wgpu::BindingResource::Sampler(&self.sampler),
                    },
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: wgpu::BindingResource::TextureView(
                            &self.scratch[original.0 as usize].view,
                        ),
                    },
                ],
            });
            (g, frame)
        });
        entry.1 = frame;
        &entry.0
    }

    /// Makes (or finds) the bind groups of `pass` reading `input` (and `original`). A texture the pass names
    /// that is no longer live is an error (the caller skips the group).
    pub fn bind(
        &mut self,
        textures: &TextureSystem,
        pass: &Pass,
        input: ScratchId,
        original: ScratchId,
        stats: &mut FrameStats,
    ) -> Result<Binding> {
        let n = self.textures_of(pass.program);
        let binding = self.uniform_binding_bytes(pass.program);
        for t in pass.textures.iter().take(n as usize) {
            let Some(t) = t else {
                return Err(Error::InvalidFilter("a filter texture is missing".into()));
            };
            textures.check(*t)?;
        }
        self.group0(input, original, stats);
        let key = (n, binding, pass.textures);
        let frame = self.frame;
        if !self.group1.contains_key(&key) {
            let ring = self.ring.as_ref().expect("uploaded before passes");
            let mut entries = vec![wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: ring,
                    offset: 0,
                    size: std::num::NonZeroU64::new(binding as u64),
                }),
            }];
            for (k, t) in pass.textures.iter().take(n as usize).enumerate() {
                let (view, sampler) = textures
                    .view_and_sampler(t.expect("checked above"))
                    .ok_or_else(|| Error::InvalidFilter("a filter texture was destroyed".into()))?;
                entries.push(wgpu::BindGroupEntry {
                    binding: 1 + 2 * k as u32,
                    resource: wgpu::BindingResource::TextureView(view),
                });
                entries.push(wgpu::BindGroupEntry {
                    binding: 2 + 2 * k as u32,
                    resource: wgpu::BindingResource::Sampler(sampler),
                });
            }
            let g = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("stage2d filter resources"),
                layout: &self.layout1[n as usize],
                entries: &entries,
            });
            stats.bind_groups_created += 1;
            self.group1.insert(key, (g, frame));
        }
        if let Some(g1) = self.group1.get_mut(&key) {
            g1.1 = frame;
        }
        Ok(Binding {
            group0: (input, original),
            group1: key,
        })
    }

    /// Draws a pass's quad into `rp` with `pipeline` and the bind groups of `binding` at `offsets`.
    pub fn draw(
        &self,
        rp: &mut wgpu::RenderPass<'_>,
        pipeline: &wgpu::RenderPipeline,
        binding: &Binding,
        offsets: (u32, u32),
    ) {
        rp.set_pipeline(pipeline);
        rp.set_bind_group(0, &self.group0[&binding.group0].0, &[offsets.0]);
        rp.set_bind_group(1, &self.group1[&binding.group1].0, &[offsets.1]);
        rp.draw(0..4, 0..1);
    }

    /// Records one filter pass: `pass` reading `input` (and `original`), writing the whole of `output` (cleared
    /// first).
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &mut self,
        pipelines: &mut PipelineSystem,
        textures: &TextureSystem,
        encoder: &mut wgpu::CommandEncoder,
        pass: &Pass,
        offsets: (u32, u32),
        input: ScratchId,
        original: ScratchId,
        output: &wgpu::TextureView,
        stats: &mut FrameStats,
    ) -> Result<()> {
        let pipeline = self.pipeline(pipelines, pass.program)?;
        let binding = self.bind(textures, pass, input, original, stats)?;
        let mut rp = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("stage2d filter pass"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: output,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        self.draw(&mut rp, pipelines.pipeline(pipeline), &binding, offsets);
        stats.filter_passes += 1;
        stats.draw_calls += 1;
        Ok(())
    }

    /// Drops intermediate textures and bind groups unused for a while.
    pub fn trim(&mut self) {
        let frame = self.frame;
        let old = |used: u64| frame.saturating_sub(used) > MAX_IDLE_FRAMES;
        let mut dropped = Vec::new();
        for (i, s) in self.scratch.iter_mut().enumerate() {
            if s.size != (0, 0) && old(s.used) {
                s.size = (0, 0);
                dropped.push(ScratchId(i as u32));
                self.retired.push(Retired::Texture(s.texture.clone()));
            }
        }
        if !dropped.is_empty() {
            self.group0
                .retain(|(a, b), _| !dropped.contains(a) && !dropped.contains(b));
        }
        self.group0.retain(|_, (_, used)| !old(*used));
        self.group1.retain(|_, (_, used)| !old(*used));
    }
}
