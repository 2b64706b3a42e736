//! The GPU shell of the PipelineSystem: registers shaders and geometry layouts (checked `u8` ids), caches shader
//! modules by source and vertex-buffer layouts by (geometry layout, shader), creates pipeline layouts once per
//! shader, and creates a render pipeline on a [`PipeCache`] miss.

use super::cache::{CacheCounters, PipeCache, PipelineId, TierKey};
use super::key::{
    DepthStencil, GeometryLayoutId, GlobalState, GraphicsKey, GraphicsState, IdRegistry, ShaderId,
    StencilMode,
};
use crate::Result;
use std::collections::HashMap;

/// A shader program: WGSL source, entry points and the bind-group layouts it expects.
#[derive(Debug, Clone)]
pub struct ShaderDesc {
    /// A label for debugging tools.
    pub label: &'static str,
    /// WGSL source with both stages.
    pub source: String,
    /// Vertex entry point.
    pub vertex_entry: &'static str,
    /// Fragment entry point.
    pub fragment_entry: &'static str,
    /// The bind-group layouts, group 0 first.
    pub bind_group_layouts: Vec<wgpu::BindGroupLayout>,
}

/// A vertex-buffer layout: one interleaved buffer, or one buffer an attribute.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GeometryLayout {
    /// Bytes per vertex (of the interleaved buffer).
    pub stride: u64,
    /// The attributes with their shader locations.
    pub attributes: Vec<wgpu::VertexAttribute>,
    /// Empty: the attributes interleaved in one buffer of `stride`. Otherwise one step mode an attribute: each
    /// attribute reads a buffer of its own (slot = its index, offset 0, stride = its size rounded up to 4).
    pub planar: Vec<wgpu::VertexStepMode>,
}

#[derive(Debug)]
struct ShaderEntry {
    module: wgpu::ShaderModule,
    layout: wgpu::PipelineLayout,
    vertex_entry: &'static str,
    fragment_entry: &'static str,
}

/// Pipeline counters besides the lookups.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PipelineCounters {
    /// Lookup counters of the two-tier cache.
    pub cache: CacheCounters,
    /// Render pipelines created.
    pub pipelines_created: u64,
    /// Shader modules created.
    pub shader_modules_created: u64,
    /// Time spent in `create_render_pipeline`.
    pub creation_time: std::time::Duration,
}

/// The two-tier render-pipeline cache with its shader-module and vertex-layout caches.
///
/// Call [`PipelineSystem::set_target_state`] when the render target, stencil mode, colour mask or MSAA changes
/// (it moves `pipe_cache`), then [`PipelineSystem::get_pipeline`] per draw.
#[derive(Debug)]
pub struct PipelineSystem {
    device: wgpu::Device,
    cache: PipeCache,
    shader_ids: IdRegistry<(String, &'static str, &'static str)>,
    shaders: Vec<ShaderEntry>,
    modules: HashMap<String, wgpu::ShaderModule>,
    geometry_ids: IdRegistry<GeometryLayout>,
    geometries: Vec<GeometryLayout>,
    vertex_layouts: HashMap<(GeometryLayoutId, ShaderId), GeometryLayout>,
    pipelines: Vec<wgpu::RenderPipeline>,
    counters: PipelineCounters,
    wgpu_cache: Option<wgpu::PipelineCache>,
    /// Hash of every shader and geometry layout registered, in id order (see [`PipelineSystem::fingerprint`]).
    fingerprint: u64,
}

impl PipelineSystem {
    /// An empty system for `device`.
    pub fn new(device: wgpu::Device) -> Self {
        PipelineSystem {
            device,
            cache: PipeCache::new(),
            shader_ids: IdRegistry::new("shaders"),
            shaders: Vec::new(),
            modules: HashMap::new(),
            geometry_ids: IdRegistry::new("geometry layouts"),
            geometries: Vec::new(),
            vertex_layouts: HashMap::new(),
            pipelines: Vec::new(),
            counters: PipelineCounters::default(),
            wgpu_cache: None,
            fingerprint: super::persist::FNV_SEED,
        }
    }

    /// Registers a shader (or finds it again by source and entry points). The module is created once per source;
    /// the pipeline layout once per shader. A 257th distinct shader is [`crate::Error::TooManyIds`].
    pub fn register_shader(&mut self, desc: ShaderDesc) -> Result<ShaderId> {
        let key = (desc.source.clone(), desc.vertex_entry, desc.fragment_entry);
        let id = self.shader_ids.get_or_insert(key)?;
        if (id as usize) < self.shaders.len() {
            return Ok(ShaderId(id));
        }
        for part in [
            desc.source.as_str(),
            desc.vertex_entry,
            desc.fragment_entry,
            "\0",
        ] {
            self.fingerprint = super::persist::fnv1a_from(self.fingerprint, part.as_bytes());
        }
        let module = match self.modules.get(&desc.source) {
            Some(m) => m.clone(),
            None => {
                let m = self
                    .device
                    .create_shader_module(wgpu::ShaderModuleDescriptor {
                        label: Some(desc.label),
                        source: wgpu::ShaderSource::Wgsl(desc.source.as_str().into()),
                    });
                self.counters.shader_modules_created += 1;
                self.modules.insert(desc.source.clone(), m.clone());
                m
            }
        };
        let groups: Vec<Option<&wgpu::BindGroupLayout>> =
            desc.bind_group_layouts.iter().map(Some).collect();
        let layout = self
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(desc.label),
                bind_group_layouts: &groups,
                immediate_size: 0,
            });
        self.shaders.push(ShaderEntry {
            module,
            layout,
            vertex_entry: desc.vertex_entry,
            fragment_entry: desc.fragment_entry,
        });
        Ok(ShaderId(id))
    }

    /// Registers a vertex layout (or finds it again). A 257th distinct layout is [`crate::Error::TooManyIds`].
    pub fn register_geometry(&mut self, layout: GeometryLayout) -> Result<GeometryLayoutId> {
        let id = self.geometry_ids.get_or_insert(layout.clone())?;
        if id as usize == self.geometries.len() {
            let mut h = super::persist::fnv1a_from(self.fingerprint, &layout.stride.to_le_bytes());
            for a in &layout.attributes {
                let desc = format!("{:?}@{}:{}\0", a.format, a.offset, a.shader_location);
                h = super::persist::fnv1a_from(h, desc.as_bytes());
            }
            for step in &layout.planar {
                h = super::persist::fnv1a_from(h, format!("{step:?}\0").as_bytes());
            }
            self.fingerprint = h;
            self.geometries.push(layout);
        }
        Ok(GeometryLayoutId(id))
    }

    /// A hash of every shader (source and entry points) and geometry layout registered, in id order. Graphics keys
    /// name shaders and layouts by id, so a saved key means the same pipeline only to a system with the same
    /// fingerprint (the warm-start file records it).
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// Uses `cache` (a wgpu pipeline cache) for every pipeline created from now on.
    pub fn set_wgpu_cache(&mut self, cache: Option<wgpu::PipelineCache>) {
        self.wgpu_cache = cache;
    }

    /// The wgpu pipeline cache in use, if any.
    pub fn wgpu_cache(&self) -> Option<&wgpu::PipelineCache> {
        self.wgpu_cache.as_ref()
    }

    /// Moves `pipe_cache` to the tier-2 map of this target state; returns whether it moved.
    pub fn set_target_state(
        &mut self,
        state: GlobalState,
        color_format: wgpu::TextureFormat,
    ) -> bool {
        self.cache
            .set_target_state(TierKey::new(state, color_format))
    }

    /// The pipeline for `state` in the current target state, created on first use.
    ///
    /// # Panics
    /// If `state` names a shader or geometry layout not registered here, or no target state was set.
    pub fn get_pipeline(&mut self, state: GraphicsState) -> Result<PipelineId> {
        let PipelineSystem {
            device,
            cache,
            shaders,
            geometries,
            vertex_layouts,
            pipelines,
            counters,
            wgpu_cache,
            ..
        } = self;
        cache.get_or_insert_with(state.key(), |tier| {
            let start = std::time::Instant::now();
            let shader = &shaders[state.shader.0 as usize];
            let layout = vertex_layouts
                .entry((state.geometry, state.shader))
                .or_insert_with(|| geometries[state.geometry.0 as usize].clone());
            let pipeline =
                create_pipeline(device, shader, layout, tier, state, wgpu_cache.as_ref());
            pipelines.push(pipeline);
            counters.pipelines_created += 1;
            counters.creation_time += start.elapsed();
            Ok(PipelineId(pipelines.len() as u32 - 1))
        })
    }

    /// A created pipeline.
    ///
    /// # Panics
    /// If `id` did not come from this system.
    #[inline]
    pub fn pipeline(&self, id: PipelineId) -> &wgpu::RenderPipeline {
        &self.pipelines[id.0 as usize]
    }

    /// All counters so far.
    pub fn counters(&self) -> PipelineCounters {
        PipelineCounters {
            cache: self.cache.counters(),
            ..self.counters
        }
    }

    /// Every (target state, graphics key) pair that has a pipeline.
    pub fn used_keys(&self) -> Vec<(TierKey, GraphicsKey)> {
        self.cache.entries().collect()
    }

    /// Creates the pipeline for a recorded (target state, graphics key) pair ahead of use (pre-warming).
    /// Pairs naming unknown shaders or layouts are ignored and return `false`.
    pub fn prewarm(&mut self, tier: TierKey, key: GraphicsKey) -> Result<bool> {
        let Some(state) = GraphicsState::from_key(key) else {
            return Ok(false);
        };
        if state.shader.0 as usize >= self.shaders.len()
            || state.geometry.0 as usize >= self.geometries.len()
        {
            return Ok(false);
        }
        let previous = self.cache.current();
        self.cache.set_target_state(tier);
        self.get_pipeline(state)?;
        if let Some(p) = previous {
            self.cache.set_target_state(p);
        }
        Ok(true)
    }
}

/// The stencil state of a stencil mode. The reference value is the mask depth, set on the pass.
pub fn stencil_state(mode: StencilMode) -> wgpu::StencilState {
    use wgpu::{CompareFunction as Cmp, StencilOperation as Op};
    let face = |compare, pass_op| wgpu::StencilFaceState {
        compare,
        fail_op: Op::Keep,
        depth_fail_op: Op::Keep,
        pass_op,
    };
    let (f, write_mask) = match mode {
        StencilMode::Disabled => (wgpu::StencilFaceState::IGNORE, 0),
        StencilMode::MaskAdd => (face(Cmp::Equal, Op::IncrementClamp), 0xff),
        StencilMode::MaskActive => (face(Cmp::Equal, Op::Keep), 0),
        StencilMode::InverseMaskActive => (face(Cmp::NotEqual, Op::Keep), 0),
        StencilMode::MaskRemove => (face(Cmp::Equal, Op::DecrementClamp), 0xff),
    };
    wgpu::StencilState {
        front: f,
        back: f,
        read_mask: if mode == StencilMode::Disabled {
            0
        } else {
            0xff
        },
        write_mask,
    }
}

fn create_pipeline(
    device: &wgpu::Device,
    shader: &ShaderEntry,
    layout: &GeometryLayout,
    tier: TierKey,
    state: GraphicsState,
    cache: Option<&wgpu::PipelineCache>,
) -> wgpu::RenderPipeline {
    let global = tier.state();
    let write_mask = if global.stencil().writes_colour() {
        wgpu::ColorWrites::from_bits_truncate(global.color_mask() as u32)
    } else {
        wgpu::ColorWrites::empty()
    };
    let target = Some(wgpu::ColorTargetState {
        format: tier.color_format,
        blend: state.blend.blend_state(),
        write_mask,
    });
    let targets = vec![target; global.color_targets() as usize];
    let depth_stencil = global.depth_stencil().format().map(|format| {
        let has_depth = global.depth_stencil() != DepthStencil::Stencil8;
        wgpu::DepthStencilState {
            format,
            depth_write_enabled: has_depth.then_some(false),
            depth_compare: has_depth.then_some(wgpu::CompareFunction::Always),
            stencil: stencil_state(global.stencil()),
            bias: wgpu::DepthBiasState::default(),
        }
    });
    let attributes = &layout.attributes;
    let buffers: Vec<_> = if layout.planar.is_empty() {
        vec![Some(wgpu::VertexBufferLayout {
            array_stride: layout.stride,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes,
        })]
    } else {
        attributes
            .iter()
            .zip(&layout.planar)
            .map(|(a, &step_mode)| {
                Some(wgpu::VertexBufferLayout {
                    array_stride: a.format.size().next_multiple_of(4),
                    step_mode,
                    attributes: std::slice::from_ref(a),
                })
            })
            .collect()
    };
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("stage2d pipeline"),
        layout: Some(&shader.layout),
        vertex: wgpu::VertexState {
            module: &shader.module,
            entry_point: Some(shader.vertex_entry),
            compilation_options: Default::default(),
            // A layout without attributes pulls its vertices from storage: no vertex buffer.
            buffers: if attributes.is_empty() { &[] } else { &buffers },
        },
        primitive: wgpu::PrimitiveState {
            topology: state.topology.to_wgpu(),
            front_face: state.flags.front_face(),
            cull_mode: state.flags.cull_mode(),
            ..Default::default()
        },
        depth_stencil,
        multisample: wgpu::MultisampleState {
            count: global.sample_count(),
            ..Default::default()
        },
        fragment: Some(wgpu::FragmentState {
            module: &shader.module,
            entry_point: Some(shader.fragment_entry),
            compilation_options: Default::default(),
            targets: &targets,
        }),
        multiview_mask: None,
        cache,
    })
}
