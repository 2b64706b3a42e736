//! Custom mesh shaders: checked with naga against the geometry layout they are made for, registered with the
//! PipelineSystem (the module cached by source, the vertex layout registered as a geometry layout: both ids in
//! the graphics key), each geometry's vertices and indices kept in buffers of their own (one block an attribute,
//! each bound as a vertex buffer of its own, so a change uploads just the byte ranges it changed), and a uniform
//! ring for the prelude's globals and the shaders' uniforms, bound at dynamic offsets (uniforms change every frame
//! creating nothing). Default-shader meshes that draw on their own (large, or culling) use a built-in shader made
//! here on first use.

use crate::base::stats::FrameStats;
use crate::filter::passes::MAX_CUSTOM_TEXTURES;
use crate::gpu::buffer::BufferBinding;
use crate::gpu::particles::{GpuParticles, ParticleBinding, ParticleDraw, PARTICLE_STRIDES};
use crate::gpu::pipeline::{
    GeometryLayout, GeometryLayoutId, GraphicsState, PipelineId, PipelineSystem, ShaderDesc,
    ShaderId, StateFlags, Topology,
};
use crate::gpu::release::Retired;
use crate::gpu::texture_system::{BindGroupId, TextureSystem};
use crate::gpu::wgsl::{fit_uniform_ring, sampler_entry, texture_entry, uniform_entry};
use crate::graphics::mesh::{MeshGeometry, MeshLayout, MeshShader};
use crate::{BlendMode, Error, Result, TextureId};
use std::collections::HashMap;
use std::sync::Arc;

const PRELUDE: &str = include_str!("../../shaders/mesh_prelude.wgsl");

/// The shader of default-shader meshes drawn on their own: the texture's frame (turned for a rotated sheet
/// frame) times the tint, as the batch shader draws them.
const DEFAULT_SHADER: &str = "struct DefaultParams { rotated: vec4<f32> };
@group(1) @binding(0) var<uniform> params: DefaultParams;
struct DefaultOut { @builtin(position) position: vec4<f32>, @location(0) uv: vec2<f32> };
@vertex fn mainVertex(@location(0) p: vec2<f32>, @location(1) uv: vec2<f32>) -> DefaultOut {
    let l = select(uv, vec2<f32>(1.0 - uv.y, uv.x), params.rotated.x > 0.5);
    return DefaultOut(toClip(p), frameUv(l));
}
@fragment fn mainFragment(in: DefaultOut) -> @location(0) vec4<f32> {
    return textureSample(uTexture, uSampler, in.uv) * globals.uColor;
}
";

/// [`MeshDraw::shader`] of a default-shader mesh drawn on its own.
pub(crate) const DEFAULT_MESH_SHADER: u32 = u32::MAX;

/// [`MeshDraw::shader`] of a particle container.
pub(crate) const PARTICLE_SHADER: u32 = u32::MAX - 1;

/// The particle shader (`shaders/particles.wgsl`), after the mesh prelude.
const PARTICLE_SOURCE: &str = include_str!("../../shaders/particles.wgsl");

/// Bytes of the prelude's globals (`MeshGlobals`: a mat3x3 as three vec4 columns, then three vec4).
const GLOBALS_BYTES: u64 = 96;

/// Frames a bind group is kept unused.
const MAX_IDLE_FRAMES: u64 = 120;

/// Frames a geometry's buffers are kept undrawn (half a second at 60 frames a second: a geometry dropped by
/// its node lets go of its buffers soon after).
const MAX_IDLE_GEOMETRY_FRAMES: u64 = 30;

/// Bind-group and buffer ids of this system, apart from the texture system's and the streams' (the Encoder
/// compares ids).
const ID_BASE: u32 = 0x4000_0000;

/// The prelude's globals of one draw.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct MeshGlobals {
    pub transform: [[f32; 4]; 3],
    pub color: [f32; 4],
    pub resolution: [f32; 4],
    pub frame: [f32; 4],
}

/// A custom mesh draw the walk found: what prepare needs, CPU only.
#[derive(Clone, Debug)]
pub(crate) struct MeshDraw {
    /// The geometry, held until the frame's buffers are prepared.
    pub geometry: Option<Arc<MeshGeometry>>,
    /// The geometry's identity and version (for kept filter results).
    pub geometry_id: u64,
    pub geometry_version: u64,
    /// The shader's index, or [`DEFAULT_MESH_SHADER`].
    pub shader: u32,
    /// Face culling.
    pub flags: StateFlags,
    pub texture: TextureId,
    /// The texture's frame: top-left and size in 0..1.
    pub frame: [f32; 4],
    pub textures: [Option<TextureId>; MAX_CUSTOM_TEXTURES],
    /// Its uniform bytes in the walk's mesh arena.
    pub uniforms: std::ops::Range<usize>,
    /// Node space to clip space, and the colour (premultiplied).
    pub transform: glam::Affine2,
    pub color: [f32; 4],
    pub blend: BlendMode,
    /// The batcher transform its space goes through (render groups, filter segments), 0 for none.
    pub xform: u32,
    /// A particle container's draw (its data uploaded from the scene when prepared), instead of a geometry.
    pub particles: Option<ParticleDraw>,
}

/// The custom-shader meshes of a walk: their draws and uniform bytes.
#[derive(Debug, Default)]
pub(crate) struct CustomMeshes {
    pub draws: Vec<MeshDraw>,
    pub arena: Vec<u8>,
    /// The tag of the shaders this renderer made.
    pub owner: u32,
}

impl CustomMeshes {
    /// Forgets the last walk's draws.
    pub fn begin(&mut self) {
        self.draws.clear();
        self.arena.clear();
    }

    /// Lets go of the geometries once their buffers are prepared (a node may then change its geometry in place
    /// without copying it).
    pub fn release_geometries(&mut self) {
        for d in &mut self.draws {
            d.geometry = None;
        }
    }
}

/// What recording a prepared draw binds (see [`MeshSystem::binding`]).
pub(crate) struct MeshBinding<'a> {
    pub groups: [(BindGroupId, &'a wgpu::BindGroup, u32); 2],
    /// The vertex buffer and where each slot's block starts and ends in it.
    pub vertices: &'a wgpu::Buffer,
    pub blocks: &'a [(u64, u64)],
    pub indices: (BufferBinding, &'a wgpu::Buffer),
    pub count: u32,
    pub instances: u32,
}

/// What recording one draw binds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PreparedMesh {
    groups: [(BindGroupId, u32); 2],
    geometry: u64,
}

#[derive(Debug)]
struct Custom {
    /// Its WGSL (the prelude's included) and vertex layout, to be registered again on a new device.
    source: String,
    layout: MeshLayout,
    shader: ShaderId,
    geometry: GeometryLayoutId,
    uniform_bytes: u32,
    textures: u8,
    /// Vertex buffers it reads (one an attribute).
    slots: u8,
    /// Whether it draws every instance (the default shader draws one).
    instanced: bool,
}

#[derive(Debug)]
struct GpuGeometry {
    vertices: wgpu::Buffer,
    /// Each block's start and end in `vertices`.
    blocks: Vec<(u64, u64)>,
    indices: wgpu::Buffer,
    index_count: u32,
    instances: u32,
    version: u64,
    id: u32,
    used: u64,
}

/// A bind group with its id and the frame that last used it.
type CachedGroup = (BindGroupId, wgpu::BindGroup, u64);

/// Custom mesh shaders and their per-draw resources.
#[derive(Debug)]
pub(crate) struct MeshSystem {
    device: wgpu::Device,
    queue: wgpu::Queue,
    layout0: wgpu::BindGroupLayout,
    layout1: Vec<wgpu::BindGroupLayout>,
    customs: Vec<Custom>,
    /// The built-in shader's index in `customs`, once made.
    default: Option<u32>,
    owner: u32,
    geometries: HashMap<u64, GpuGeometry>,
    /// Changed ranges and their bytes, reused.
    ranges: Vec<(u8, u32, u32)>,
    bytes: Vec<u8>,
    /// This frame's changed ranges, gathered: their bytes go to the GPU in one write to `stage`, and are copied
    /// from there into each geometry's buffer (one write a range would cost a staging allocation each).
    changed: Vec<u8>,
    /// (geometry, offset in `changed`, offset in its buffer, bytes).
    copies: Vec<(u64, u64, u64, u64)>,
    stage: Option<wgpu::Buffer>,
    ring: Option<wgpu::Buffer>,
    ring_capacity: u64,
    staging: Vec<u8>,
    align: u64,
    group0: HashMap<TextureId, CachedGroup>,
    group1: HashMap<(u32, [Option<TextureId>; MAX_CUSTOM_TEXTURES]), CachedGroup>,
    next_id: u32,
    frame: u64,
    /// This frame's draws, by tag.
    pub prepared: Vec<Option<PreparedMesh>>,
    retired: Vec<Retired>,
    /// The particle shader's index in `customs`, once made.
    particle: Option<u32>,
    /// Particle containers' buffers, by container.
    particles: HashMap<u64, GpuParticles>,
    /// The six indices of a particle's two triangles.
    quad_indices: Option<(u32, wgpu::Buffer)>,
}

/// Whether a WGSL vertex input of type `ty` reads a vertex attribute of `format`.
fn matches_format(ty: &naga::TypeInner, format: wgpu::VertexFormat) -> bool {
    let name = format!("{format:?}");
    let kind = if name.starts_with("Uint") {
        naga::ScalarKind::Uint
    } else if name.starts_with("Sint") {
        naga::ScalarKind::Sint
    } else {
        naga::ScalarKind::Float
    };
    let n = if name.ends_with("x4") {
        4
    } else if name.ends_with("x3") {
        3
    } else if name.ends_with("x2") {
        2
    } else {
        1
    };
    match ty {
        naga::TypeInner::Scalar(s) => n == 1 && s.kind == kind,
        naga::TypeInner::Vector { size, scalar } => *size as u32 == n && scalar.kind == kind,
        _ => false,
    }
}

impl MeshSystem {
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> MeshSystem {
        static NEXT_OWNER: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
        let owner = NEXT_OWNER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let layout0 = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("stage2d mesh globals"),
            entries: &[uniform_entry(0), texture_entry(1), sampler_entry(2)],
        });
        let layout1 = crate::gpu::wgsl::resource_layouts(device, "stage2d mesh resources");
        let align = device.limits().min_uniform_buffer_offset_alignment.max(16) as u64;
        MeshSystem {
            device: device.clone(),
            queue: queue.clone(),
            layout0,
            layout1,
            customs: Vec::new(),
            default: None,
            owner,
            geometries: HashMap::new(),
            ranges: Vec::new(),
            bytes: Vec::new(),
            changed: Vec::new(),
            copies: Vec::new(),
            stage: None,
            ring: None,
            ring_capacity: 0,
            staging: Vec::new(),
            align,
            group0: HashMap::new(),
            group1: HashMap::new(),
            next_id: ID_BASE,
            frame: 0,
            prepared: Vec::new(),
            retired: Vec::new(),
            particle: None,
            particles: HashMap::new(),
            quad_indices: None,
        }
    }

    /// The tag on the shaders made here.
    pub fn owner(&self) -> u32 {
        self.owner
    }

    /// Checks `source` against the prelude and `layout`, registers it and its vertex layout with the
    /// PipelineSystem.
    pub fn create_shader(
        &mut self,
        pipelines: &mut PipelineSystem,
        source: &str,
        layout: &MeshLayout,
    ) -> Result<MeshShader> {
        let full = format!("{PRELUDE}\n{source}");
        let error = |line, message| Error::MeshShader { line, message };
        let checked = crate::gpu::wgsl::check_user_wgsl(
            &full,
            source,
            &[
                ("mainVertex", naga::ShaderStage::Vertex),
                ("mainFragment", naga::ShaderStage::Fragment),
            ],
            "no `@vertex fn mainVertex` and `@fragment fn mainFragment`",
            "the prelude binds group 0 (0..=2), a mesh shader binds",
        )
        .map_err(|(line, message)| error(line, message))?;
        // The vertex inputs: each location the geometry has, with a type its format fills.
        let module = &checked.module;
        let entry = module
            .entry_points
            .iter()
            .find(|e| e.name == "mainVertex")
            .expect("checked");
        let mut inputs = Vec::new();
        for arg in &entry.function.arguments {
            match (&arg.binding, &module.types[arg.ty].inner) {
                (Some(naga::Binding::Location { location, .. }), ty) => {
                    inputs.push((*location, ty.clone()))
                }
                (None, naga::TypeInner::Struct { members, .. }) => {
                    for m in members {
                        if let Some(naga::Binding::Location { location, .. }) = m.binding {
                            inputs.push((location, module.types[m.ty].inner.clone()));
                        }
                    }
                }
                _ => {}
            }
        }
        for (location, ty) in &inputs {
            let Some(&(_, format)) = layout.attributes.iter().find(|(l, _)| l == location) else {
                return Err(error(
                    None,
                    format!(
                        "mainVertex reads @location({location}), which the geometry does not have (it has {:?})",
                        layout.attributes
                    ),
                ));
            };
            if !matches_format(ty, format) {
                return Err(error(
                    None,
                    format!("mainVertex reads @location({location}) as another type than the geometry's {format:?}"),
                ));
            }
        }
        self.register(
            pipelines,
            full,
            layout,
            checked.uniform_bytes,
            checked.textures,
            true,
        )?;
        Ok(MeshShader {
            index: self.customs.len() as u32 - 1,
            owner: self.owner,
            uniform_size: checked.uniform_bytes,
            textures: checked.textures,
            layout: layout.clone(),
        })
    }

    /// Registers a checked shader and its planar vertex layout (one buffer an attribute).
    fn register(
        &mut self,
        pipelines: &mut PipelineSystem,
        source: String,
        layout: &MeshLayout,
        uniform_bytes: u32,
        textures: u8,
        instanced: bool,
    ) -> Result<()> {
        let attributes = layout
            .attributes
            .iter()
            .map(|&(location, format)| wgpu::VertexAttribute {
                format,
                offset: 0,
                shader_location: location,
            })
            .collect();
        let planar = layout
            .attributes
            .iter()
            .map(|&(location, _)| match layout.is_per_instance(location) {
                true => wgpu::VertexStepMode::Instance,
                false => wgpu::VertexStepMode::Vertex,
            })
            .collect();
        let geometry = pipelines.register_geometry(GeometryLayout {
            stride: 0,
            attributes,
            planar,
        })?;
        let desc = ShaderDesc {
            label: "stage2d mesh",
            source: source.clone(),
            vertex_entry: "mainVertex",
            fragment_entry: "mainFragment",
            bind_group_layouts: vec![
                self.layout0.clone(),
                self.layout1[textures as usize].clone(),
            ],
        };
        let device = self.device.clone();
        let shader = crate::gpu::device::checked(&device, "creating a mesh shader", || {
            pipelines.register_shader(desc)
        })?;
        self.customs.push(Custom {
            source,
            layout: layout.clone(),
            shader,
            geometry,
            uniform_bytes,
            textures,
            slots: layout.attributes.len() as u8,
            instanced,
        });
        Ok(())
    }

    /// Takes over `old`'s shaders (a system of a lost device): registered again in the same order, so the
    /// handles `old` gave out name the same shaders here.
    pub fn adopt(&mut self, old: &MeshSystem, pipelines: &mut PipelineSystem) -> Result<()> {
        self.owner = old.owner;
        for c in &old.customs {
            let source = c.source.clone();
            self.register(
                pipelines,
                source,
                &c.layout,
                c.uniform_bytes,
                c.textures,
                c.instanced,
            )?;
        }
        self.default = old.default;
        self.particle = old.particle;
        Ok(())
    }

    /// Makes the built-in shader of default-shader meshes drawn on their own, once.
    pub fn ensure_default(&mut self, pipelines: &mut PipelineSystem) -> Result<()> {
        if self.default.is_none() {
            let layout = MeshLayout {
                attributes: vec![
                    (0, wgpu::VertexFormat::Float32x2),
                    (1, wgpu::VertexFormat::Float32x2),
                ],
                per_instance: 0,
            };
            let source = format!("{PRELUDE}\n{DEFAULT_SHADER}");
            self.register(pipelines, source, &layout, 16, 0, false)?;
            self.default = Some(self.customs.len() as u32 - 1);
        }
        Ok(())
    }

    /// Makes the particle shader and the particles' index buffer, once.
    pub fn ensure_particles(
        &mut self,
        pipelines: &mut PipelineSystem,
        stats: &mut FrameStats,
    ) -> Result<()> {
        if self.particle.is_none() {
            use wgpu::VertexFormat as F;
            let layout = MeshLayout {
                attributes: vec![
                    (0, F::Float32x4),
                    (1, F::Float32x2),
                    (2, F::Float32),
                    (3, F::Float32x4),
                    (4, F::Unorm8x4),
                ],
                per_instance: 0b1_1111,
            };
            let source = format!("{PRELUDE}\n{PARTICLE_SOURCE}");
            self.register(pipelines, source, &layout, 16, 0, true)?;
            self.particle = Some(self.customs.len() as u32 - 1);
        }
        if self.quad_indices.is_none() {
            let b = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("stage2d particle indices"),
                size: 24,
                usage: wgpu::BufferUsages::INDEX | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            self.queue
                .write_buffer(&b, 0, bytemuck::cast_slice(&[0u32, 1, 2, 0, 2, 3]));
            stats.buffers_created += 1;
            let id = self.next_id();
            self.quad_indices = Some((id, b));
        }
        Ok(())
    }

    /// The queue the particle upload writes through.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }

    /// The buffers of particle container `uid` with room for `count` particles (made, or grown to the next power
    /// of two, when they have not; a grown container's static data is uploaded again: `version` 0). A size
    /// past the device's largest buffer is an error (the container is then not drawn).
    pub fn particle_buffers(
        &mut self,
        uid: u64,
        count: u32,
        stats: &mut FrameStats,
    ) -> Result<&mut GpuParticles> {
        let frame = self.frame;
        let fits = self
            .particles
            .get(&uid)
            .is_some_and(|g| g.capacity >= count);
        if !fits {
            let capacity = count.max(64).next_power_of_two();
            let max = self.device.limits().max_buffer_size;
            let largest = PARTICLE_STRIDES[0] * capacity as u64;
            if largest > max {
                return Err(Error::TooManyParticles {
                    asked: count as usize,
                    max: (max / PARTICLE_STRIDES[0]) as usize,
                });
            }
            let buffers = PARTICLE_STRIDES.map(|stride| {
                self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("stage2d particles"),
                    size: stride * capacity as u64,
                    usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                })
            });
            stats.buffers_created += 5;
            let old = self.particles.insert(
                uid,
                GpuParticles {
                    buffers,
                    capacity,
                    version: 0,
                    count: 0,
                    dynamic: [false; 5],
                    used: frame,
                },
            );
            if let Some(old) = old {
                self.retired
                    .extend(old.buffers.into_iter().map(Retired::Buffer));
            }
        }
        let g = self.particles.get_mut(&uid).expect("made above");
        g.used = frame;
        Ok(g)
    }

    /// What recording particle draw `tag` binds; `None` if it was not prepared.
    pub fn particle_binding(&self, tag: usize, draw: &MeshDraw) -> Option<ParticleBinding<'_>> {
        let p = self.prepared.get(tag).copied().flatten()?;
        let g = self.particles.get(&p.geometry)?;
        let g0 = self.group0.get(&draw.texture)?;
        let g1 = self.group1.get(&(draw.shader, draw.textures))?;
        let (id, indices) = self.quad_indices.as_ref()?;
        draw.particles?;
        let count = g.count;
        (count > 0).then_some(ParticleBinding {
            groups: [(g0.0, &g0.1, p.groups[0].1), (g1.0, &g1.1, p.groups[1].1)],
            buffers: &g.buffers,
            indices: (
                BufferBinding {
                    buffer: *id,
                    generation: 0,
                    offset: 0,
                },
                indices,
            ),
            count,
        })
    }

    /// The shader a draw names.
    fn custom(&self, shader: u32) -> Option<&Custom> {
        let index = match shader {
            DEFAULT_MESH_SHADER => self.default?,
            PARTICLE_SHADER => self.particle?,
            i => i,
        };
        self.customs.get(index as usize)
    }

    /// Records the copies of this frame's changed ranges: one write of their bytes to the staging buffer (grown
    /// when they do not fit), then a copy into each geometry's buffer.
    pub fn copy_changes(&mut self, encoder: &mut wgpu::CommandEncoder, stats: &mut FrameStats) {
        if self.copies.is_empty() {
            return;
        }
        let need = self.changed.len() as u64;
        if self.stage.as_ref().is_none_or(|b| b.size() < need) {
            if let Some(old) = self.stage.take() {
                self.retired.push(Retired::Buffer(old));
            }
            self.stage = Some(self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("stage2d mesh changes"),
                size: need.next_power_of_two().max(4096),
                usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
            stats.buffers_created += 1;
        }
        let stage = self.stage.as_ref().expect("made above");
        self.queue.write_buffer(stage, 0, &self.changed);
        for &(id, from, at, len) in &self.copies {
            if let Some(g) = self.geometries.get(&id) {
                encoder.copy_buffer_to_buffer(stage, from, &g.vertices, at, len);
            }
        }
    }

    /// Starts a frame's draws.
    pub fn begin_frame(&mut self, draws: usize) {
        self.frame += 1;
        self.changed.clear();
        self.copies.clear();
        self.staging.clear();
        self.prepared.clear();
        self.prepared.resize(draws, None);
    }

    fn next_id(&mut self) -> u32 {
        self.next_id = self.next_id.wrapping_add(1).max(ID_BASE);
        self.next_id
    }

    fn push_uniforms(&mut self, bytes: &[u8], binding: u64) -> u32 {
        let at = self.staging.len() as u32;
        self.staging.extend_from_slice(bytes);
        let end = (at as u64 + binding).next_multiple_of(self.align) as usize;
        self.staging.resize(end, 0);
        at
    }

    /// Binding size of a shader's uniform block (at least 16 bytes: a shader without uniforms binds 16).
    fn uniform_binding(&self, shader: u32) -> u64 {
        (self.custom(shader).map_or(0, |c| c.uniform_bytes) as u64)
            .max(16)
            .next_multiple_of(16)
    }

    /// The pipeline of `draw` under the target state the caller set.
    pub fn pipeline(&self, pipelines: &mut PipelineSystem, draw: &MeshDraw) -> Result<PipelineId> {
        let c = self
            .custom(draw.shader)
            .ok_or_else(|| Error::InvalidMesh("a mesh shader of another renderer".into()))?;
        pipelines.get_pipeline(GraphicsState {
            geometry: c.geometry,
            shader: c.shader,
            flags: draw.flags,
            blend: draw.blend,
            topology: Topology::TriangleList,
        })
    }

    /// Brings the GPU buffers of `g` up to its version: the changed ranges written where the log reaches and
    /// the sizes hold, new buffers otherwise.
    fn upload_geometry(&mut self, g: &MeshGeometry, stats: &mut FrameStats) {
        let frame = self.frame;
        if let Some(e) = self.geometries.get_mut(&g.id()) {
            e.used = frame;
            if e.version == g.version() {
                return;
            }
            let same = e.index_count as usize == g.triangles().len()
                && e.instances == g.instance_count()
                && e.blocks.len() == g.blocks().count()
                && e.blocks
                    .iter()
                    .zip(g.blocks())
                    .all(|(b, (size, n))| b.1 - b.0 == size * n);
            if same && g.changes_since(e.version, &mut self.ranges) {
                for &(block, lo, hi) in &self.ranges {
                    let from = self.changed.len();
                    g.block_bytes(block, lo as usize..hi as usize, &mut self.changed);
                    let size = g.blocks().nth(block as usize).map_or(0, |b| b.0);
                    let at = e.blocks[block as usize].0 + lo as u64 * size;
                    let len = (self.changed.len() - from) as u64;
                    if len > 0 {
                        self.copies.push((g.id(), from as u64, at, len));
                        stats.bytes_uploaded += len;
                    }
                }
                e.version = g.version();
                return;
            }
        }
        let mut blocks = Vec::new();
        let mut end = 0;
        for (size, n) in g.blocks() {
            blocks.push((end, end + size * n));
            end += size * n;
        }
        let vertices = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("stage2d mesh vertices"),
            size: end.max(16),
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        for (block, &(start, stop)) in blocks.iter().enumerate() {
            self.bytes.clear();
            let n = g.blocks().nth(block).map_or(0, |b| b.1);
            g.block_bytes(block as u8, 0..n as usize, &mut self.bytes);
            debug_assert_eq!(self.bytes.len() as u64, stop - start);
            if !self.bytes.is_empty() {
                self.queue.write_buffer(&vertices, start, &self.bytes);
            }
        }
        let list = g.triangles();
        let indices = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("stage2d mesh indices"),
            size: (list.len() as u64 * 4).max(16),
            usage: wgpu::BufferUsages::INDEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        if !list.is_empty() {
            self.queue
                .write_buffer(&indices, 0, bytemuck::cast_slice(list));
        }
        stats.buffers_created += 2;
        stats.bytes_uploaded += end + list.len() as u64 * 4;
        let id = self.next_id();
        let old = self.geometries.insert(
            g.id(),
            GpuGeometry {
                vertices,
                blocks,
                indices,
                index_count: list.len() as u32,
                instances: g.instance_count(),
                version: g.version(),
                id,
                used: frame,
            },
        );
        if let Some(old) = old {
            self.retired.push(Retired::Buffer(old.vertices));
            self.retired.push(Retired::Buffer(old.indices));
        }
    }

    /// Prepares draw `tag`: its geometry's buffers (made or written again when it changed) and its uniforms,
    /// its transform taken through `group` (the batcher transform its elements would carry). The bind groups
    /// are made in [`MeshSystem::upload`], once the ring's size is known.
    pub fn prepare(
        &mut self,
        tag: usize,
        draw: &MeshDraw,
        arena: &[u8],
        group: glam::Affine2,
        target: (u32, u32),
        stats: &mut FrameStats,
    ) {
        if self.custom(draw.shader).is_none() {
            return;
        }
        let key = match (draw.geometry.as_deref(), draw.particles) {
            (Some(g), _) => {
                self.upload_geometry(g, stats);
                g.id()
            }
            // Particles: uploaded by the caller, which reads them from the scene.
            (None, Some(_)) if self.particles.contains_key(&draw.geometry_id) => draw.geometry_id,
            _ => return,
        };
        let m = group * draw.transform;
        let globals = MeshGlobals {
            transform: [
                [m.matrix2.x_axis.x, m.matrix2.x_axis.y, 0.0, 0.0],
                [m.matrix2.y_axis.x, m.matrix2.y_axis.y, 0.0, 0.0],
                [m.translation.x, m.translation.y, 1.0, 0.0],
            ],
            color: draw.color,
            resolution: [
                target.0 as f32,
                target.1 as f32,
                1.0 / target.0.max(1) as f32,
                1.0 / target.1.max(1) as f32,
            ],
            frame: draw.frame,
        };
        let g0 = self.push_uniforms(bytemuck::bytes_of(&globals), GLOBALS_BYTES);
        let binding = self.uniform_binding(draw.shader);
        let g1 = self.push_uniforms(&arena[draw.uniforms.clone()], binding);
        stats.uniform_bytes += GLOBALS_BYTES + binding;
        self.prepared[tag] = Some(PreparedMesh {
            groups: [(BindGroupId(0), g0), (BindGroupId(0), g1)],
            geometry: key,
        });
    }

    /// Writes the frame's uniforms (growing the ring when they do not fit) and finds or makes each draw's bind
    /// groups.
    pub fn upload(
        &mut self,
        textures: &TextureSystem,
        draws: &[MeshDraw],
        stats: &mut FrameStats,
    ) -> Result<()> {
        if self.staging.is_empty() {
            return Ok(());
        }
        let need =
            self.staging.len() as u64 + crate::filter::passes::MAX_CUSTOM_UNIFORM_BYTES as u64;
        let ring = (&mut self.ring, &mut self.ring_capacity);
        let label = "stage2d mesh uniforms";
        if fit_uniform_ring(&self.device, ring, need, label, &mut self.retired, stats) {
            let groups = self.group0.drain().map(|(_, e)| e.1);
            let groups = groups.chain(self.group1.drain().map(|(_, e)| e.1));
            self.retired.extend(groups.map(Retired::BindGroup));
        }
        let ring = self.ring.clone().expect("made above");
        self.queue.write_buffer(&ring, 0, &self.staging);
        stats.bytes_uploaded += self.staging.len() as u64;
        for (tag, d) in draws.iter().enumerate() {
            if self.prepared[tag].is_some() {
                if let Err(e) = self.bind(&ring, textures, tag, d, stats) {
                    log::warn!("a custom-shader mesh was not drawn: {e}");
                    stats.nodes_skipped += 1;
                    self.prepared[tag] = None;
                }
            }
        }
        Ok(())
    }

    /// Finds or makes draw `tag`'s bind groups.
    fn bind(
        &mut self,
        ring: &wgpu::Buffer,
        textures: &TextureSystem,
        tag: usize,
        d: &MeshDraw,
        stats: &mut FrameStats,
    ) -> Result<()> {
        {
            let Some(mut p) = self.prepared[tag] else {
                return Ok(());
            };
            let view = |t: TextureId| textures.view_and_sampler(t).ok_or(Error::StaleTexture(t));
            // Group 0: the globals and the mesh's texture.
            let id0 = match self.group0.get_mut(&d.texture) {
                Some(e) => {
                    e.2 = self.frame;
                    e.0
                }
                None => {
                    let (v, s) = view(d.texture)?;
                    let group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                        label: Some("stage2d mesh globals"),
                        layout: &self.layout0,
                        entries: &[
                            ring_entry(ring, 0, GLOBALS_BYTES),
                            wgpu::BindGroupEntry {
                                binding: 1,
                                resource: wgpu::BindingResource::TextureView(v),
                            },
                            wgpu::BindGroupEntry {
                                binding: 2,
                                resource: wgpu::BindingResource::Sampler(s),
                            },
                        ],
                    });
                    stats.bind_groups_created += 1;
                    let id = BindGroupId(self.next_id());
                    self.group0.insert(d.texture, (id, group, self.frame));
                    id
                }
            };
            let key1 = (d.shader, d.textures);
            let id1 = match self.group1.get_mut(&key1) {
                Some(e) => {
                    e.2 = self.frame;
                    e.0
                }
                None => {
                    let binding = self.uniform_binding(d.shader);
                    let n = self.custom(d.shader).map_or(0, |c| c.textures as usize);
                    let mut entries = vec![ring_entry(ring, 0, binding)];
                    let mut held = Vec::new();
                    for (k, t) in d.textures[..n].iter().enumerate() {
                        let t = t.ok_or_else(|| {
                            Error::InvalidMesh("a mesh shader's texture is missing".into())
                        })?;
                        let (v, s) = view(t)?;
                        held.push((k as u32, v.clone(), s.clone()));
                    }
                    for (k, v, s) in &held {
                        entries.push(wgpu::BindGroupEntry {
                            binding: 1 + 2 * k,
                            resource: wgpu::BindingResource::TextureView(v),
                        });
                        entries.push(wgpu::BindGroupEntry {
                            binding: 2 + 2 * k,
                            resource: wgpu::BindingResource::Sampler(s),
                        });
                    }
                    let group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                        label: Some("stage2d mesh resources"),
                        layout: &self.layout1[n],
                        entries: &entries,
                    });
                    stats.bind_groups_created += 1;
                    let id = BindGroupId(self.next_id());
                    self.group1.insert(key1, (id, group, self.frame));
                    id
                }
            };
            p.groups[0].0 = id0;
            p.groups[1].0 = id1;
            self.prepared[tag] = Some(p);
        }
        Ok(())
    }

    /// What recording draw `tag` binds: its two bind groups with their offsets, its vertex and index buffers
    /// (the index buffer's binding id for the Encoder) and its index count; `None` if it was not prepared.
    pub fn binding(&self, tag: usize, draw: &MeshDraw) -> Option<MeshBinding<'_>> {
        let p = self.prepared.get(tag).copied().flatten()?;
        let g = self.geometries.get(&p.geometry)?;
        let g0 = self.group0.get(&draw.texture)?;
        let g1 = self.group1.get(&(draw.shader, draw.textures))?;
        let c = self.custom(draw.shader)?;
        if g.index_count == 0 {
            return None;
        }
        Some(MeshBinding {
            groups: [(g0.0, &g0.1, p.groups[0].1), (g1.0, &g1.1, p.groups[1].1)],
            vertices: &g.vertices,
            blocks: &g.blocks[..(c.slots as usize).min(g.blocks.len())],
            instances: if c.instanced { g.instances } else { 1 },
            indices: (
                BufferBinding {
                    buffer: g.id,
                    generation: 0,
                    offset: 0,
                },
                &g.indices,
            ),
            count: g.index_count,
        })
    }

    /// Ends a frame: lets go of geometries, bind groups and buffers unused for a while.
    pub fn end_frame(&mut self) {
        let frame = self.frame;
        let retired = &mut self.retired;
        self.geometries.retain(|_, g| {
            let keep = frame - g.used < MAX_IDLE_GEOMETRY_FRAMES;
            if !keep {
                retired.push(Retired::Buffer(g.vertices.clone()));
                retired.push(Retired::Buffer(g.indices.clone()));
            }
            keep
        });
        self.group0.retain(|_, e| {
            let keep = frame - e.2 < MAX_IDLE_FRAMES;
            if !keep {
                retired.push(Retired::BindGroup(e.1.clone()));
            }
            keep
        });
        self.group1.retain(|_, e| {
            let keep = frame - e.2 < MAX_IDLE_FRAMES;
            if !keep {
                retired.push(Retired::BindGroup(e.1.clone()));
            }
            keep
        });
        self.particles.retain(|_, g| {
            let keep = frame - g.used < MAX_IDLE_GEOMETRY_FRAMES;
            if !keep {
                retired.extend(g.buffers.iter().cloned().map(Retired::Buffer));
            }
            keep
        });
    }

    /// GPU objects let go of since the last call, for the release queue.
    pub fn take_retired(&mut self) -> std::vec::Drain<'_, Retired> {
        self.retired.drain(..)
    }
}

fn ring_entry(ring: &wgpu::Buffer, binding: u32, size: u64) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer: ring,
            offset: 0,
            size: wgpu::BufferSize::new(size),
        }),
    }
}
