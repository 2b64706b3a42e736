//! The Renderer: owns the device and every system, and runs a frame through its phases:
//! collect and batch (CPU) → upload → prepare pipelines and bind groups → one pass that only records → submit →
//! trim (stats). Steady state creates nothing: buffers only grow, pipelines and bind groups are cached.

use crate::batcher::{Batcher, TrackedVec, MAX_BATCH_TEXTURES, QUAD_INDEX_BIT, QUAD_INDEX_BIT_24};
use crate::collect::{Collector, View};
use crate::encoder::{BindGroupId, BoundState, BufferBinding, Encoder};
use crate::pipeline::persist;
use crate::pipeline::{
    DepthStencil, GeometryLayout, GeometryLayoutId, GlobalState, GraphicsState, PipelineId,
    PipelineSystem, ShaderDesc, ShaderId, StateFlags, StencilMode,
};
use crate::stats::{FrameStats, Stats};
use crate::target::{
    padded_bytes_per_row, premultiply, unpremultiply, PooledRenderTexture, RenderTarget,
    RenderTextureOptions, TexturePool,
};
use crate::texture_system::TextureSystem;
use crate::upload::UploadBelt;
use crate::{shader, Color, Error, NodeId, Result, Sampling, Scene, Texture};
use std::ops::Range;
use std::path::Path;

/// How to set up a [`Renderer`].
#[derive(Clone, Debug)]
pub struct RendererOptions {
    /// Most textures one batch binds; clamped to the device's per-stage sampled-texture and sampler limits and to
    /// 16.
    pub max_textures_per_batch: usize,
    /// Adapter preference when `WGPU_ADAPTER_NAME` is not set (`WGPU_POWER_PREF` overrides it).
    pub power_preference: wgpu::PowerPreference,
    /// Draw with 4x multisampling (anti-aliased shape edges), resolved into the target.
    pub msaa: bool,
    /// A directory for the pipeline-cache file: pipelines seen by earlier runs are created before the first frame,
    /// from wgpu's driver cache where the backend has one (Vulkan). Saved by
    /// [`Renderer::save_pipeline_cache`] and when the renderer is dropped.
    pub pipeline_cache: Option<std::path::PathBuf>,
}

impl Default for RendererOptions {
    fn default() -> Self {
        RendererOptions {
            max_textures_per_batch: MAX_BATCH_TEXTURES,
            power_preference: wgpu::PowerPreference::HighPerformance,
            msaa: false,
            pipeline_cache: None,
        }
    }
}

/// What the warm start did (see [`RendererOptions::pipeline_cache`]).
#[derive(Clone, Debug, Default)]
pub struct WarmStart {
    /// The cache file, if one is configured.
    pub path: Option<std::path::PathBuf>,
    /// Bytes of the cache file accepted at start (0: none, or rejected).
    pub bytes_loaded: u64,
    /// Why an existing file was ignored (it is rewritten on the next save).
    pub rejected: Option<String>,
    /// Whether wgpu's driver-level `PipelineCache` is in use.
    pub driver_cache: bool,
    /// Pipelines created from the recorded list before the first frame.
    pub pipelines_prewarmed: u64,
    /// Time spent creating them.
    pub prewarm_time: std::time::Duration,
}

/// `base` with stage2d's instance flags, then the environment's (`WGPU_BACKEND`, `WGPU_VALIDATION`, …) over them.
///
/// stage2d issues no indirect draws, so wgpu's indirect-call validation (on by default in release builds) is left
/// off: with it, wgpu builds validation pipelines at device creation and keeps per-encoder state for indirect draws
/// that never come. `WGPU_VALIDATION_INDIRECT_CALL=1` still turns it on.
pub fn instance_descriptor(mut base: wgpu::InstanceDescriptor) -> wgpu::InstanceDescriptor {
    base.flags
        .remove(wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL);
    base.with_env()
}

/// Picks an adapter the way wgpu's helpers do: `WGPU_ADAPTER_NAME` (a case-insensitive substring) if set,
/// otherwise the preferred adapter, otherwise the fallback (software) adapter. Never panics.
pub fn select_adapter(
    instance: &wgpu::Instance,
    surface: Option<&wgpu::Surface<'_>>,
    power_preference: wgpu::PowerPreference,
) -> Result<wgpu::Adapter> {
    if let Ok(name) = std::env::var("WGPU_ADAPTER_NAME") {
        let wanted = name.to_lowercase();
        let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()));
        let mut seen = Vec::new();
        for a in adapters {
            let info = a.get_info();
            if surface.is_some_and(|s| !a.is_surface_supported(s)) {
                continue;
            }
            if info.name.to_lowercase().contains(&wanted) {
                return Ok(a);
            }
            seen.push(format!("{} ({:?})", info.name, info.backend));
        }
        return Err(Error::NoAdapter(format!(
            "WGPU_ADAPTER_NAME={name} matched none of: {}",
            seen.join(", ")
        )));
    }
    let power = wgpu::PowerPreference::from_env().unwrap_or(power_preference);
    for force_fallback_adapter in [false, true] {
        let req = instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: power,
            force_fallback_adapter,
            compatible_surface: surface,
            ..Default::default()
        });
        if let Ok(a) = pollster::block_on(req) {
            return Ok(a);
        }
    }
    Err(Error::NoAdapter("request_adapter found none".into()))
}

/// A grow-only GPU buffer with a stable id and a generation bumped when it is re-created.
#[derive(Debug)]
struct GpuBuffer {
    buffer: Option<wgpu::Buffer>,
    id: u32,
    generation: u32,
    usage: wgpu::BufferUsages,
    label: &'static str,
}

impl GpuBuffer {
    fn new(id: u32, usage: wgpu::BufferUsages, label: &'static str) -> Self {
        GpuBuffer {
            buffer: None,
            id,
            generation: 0,
            usage: usage | wgpu::BufferUsages::COPY_DST,
            label,
        }
    }

    /// Makes room for `stream` (at least `min` bytes, at most `max`). A re-created buffer has lost its contents, so
    /// the whole stream is then marked dirty; returns whether that happened.
    fn fit<T: bytemuck::Pod + Default>(
        &mut self,
        device: &wgpu::Device,
        stream: &mut TrackedVec<T>,
        min: u64,
        max: u64,
        stats: &mut FrameStats,
    ) -> bool {
        let bytes = (stream.as_bytes().len() as u64).max(min);
        if self.buffer.as_ref().is_some_and(|b| b.size() >= bytes) || bytes == 0 {
            return false;
        }
        let size = bytes.next_power_of_two().max(64 * 1024).min(max.max(bytes));
        self.buffer = Some(device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(self.label),
            size,
            usage: self.usage,
            mapped_at_creation: false,
        }));
        self.generation += 1;
        stats.buffers_created += 1;
        stream.mark_all_dirty();
        true
    }

    fn binding(&self) -> BufferBinding {
        BufferBinding {
            buffer: self.id,
            generation: self.generation,
            offset: 0,
        }
    }
}

/// The batch shader sampling `textures` slots (at least one; a set larger than the shaders cover gets the widest).
fn batch_shader_for(shaders: &[ShaderId], textures: usize) -> ShaderId {
    shaders[textures.clamp(1, shaders.len()) - 1]
}

/// A render attachment cached under `key`: created on first use (counted), reused after.
#[allow(clippy::too_many_arguments)]
fn attachment<K: std::hash::Hash + Eq>(
    device: &wgpu::Device,
    cache: &mut std::collections::HashMap<K, wgpu::TextureView>,
    key: K,
    format: wgpu::TextureFormat,
    size: (u32, u32),
    samples: u32,
    label: &'static str,
    frame: &mut FrameStats,
) -> wgpu::TextureView {
    cache
        .entry(key)
        .or_insert_with(|| {
            frame.textures_created += 1;
            device
                .create_texture(&wgpu::TextureDescriptor {
                    label: Some(label),
                    size: wgpu::Extent3d {
                        width: size.0,
                        height: size.1,
                        depth_or_array_layers: 1,
                    },
                    mip_level_count: 1,
                    sample_count: samples,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                    view_formats: &[],
                })
                .create_view(&Default::default())
        })
        .clone()
}

#[derive(Clone, Debug)]
struct Draw {
    pipeline: PipelineId,
    bind_group: BindGroupId,
    indices: Range<u32>,
    stencil_ref: u32,
    scissor: Option<[u32; 4]>,
}

/// The stage2d renderer. See the crate docs for the frame lifecycle.
#[derive(Debug)]
pub struct Renderer {
    instance: wgpu::Instance,
    adapter: wgpu::Adapter,
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipelines: PipelineSystem,
    textures: TextureSystem,
    batcher: Batcher,
    collector: Collector,
    /// The batch shader for each texture count: entry `k - 1` samples `k` slots (see `batch_shader_for`).
    batch_shaders: Vec<ShaderId>,
    batch_geometry: GeometryLayoutId,
    quads: GpuBuffer,
    vertices: GpuBuffer,
    indices: GpuBuffer,
    /// Binds the quad and mesh-vertex streams (group 1); re-created when either buffer is.
    geometry_layout: wgpu::BindGroupLayout,
    geometry_group: Option<(BindGroupId, wgpu::BindGroup)>,
    /// Largest stream buffer the device binds.
    stream_max: u64,
    /// Set while a frame is between collecting and its submit (still set after one that failed).
    unsubmitted: bool,
    belt: UploadBelt,
    warm_start: WarmStart,
    cache_identity: (String, String),
    pool: TexturePool,
    pool_hits: u64,
    /// Texture ids of render targets dropped by the user, freed at the next frame.
    released: std::sync::Arc<std::sync::Mutex<Vec<crate::TextureId>>>,
    msaa: bool,
    msaa_targets: std::collections::HashMap<(wgpu::TextureFormat, u32, u32), wgpu::TextureView>,
    /// Stencil attachments by (width, height, samples), created on first use and reused.
    stencil_targets: std::collections::HashMap<(u32, u32, u32), wgpu::TextureView>,
    /// Targets (format, size) that have used a stencil attachment: they keep it, so their pipelines stay in one
    /// tier instead of alternating between "with" and "without" attachment.
    stencil_users: std::collections::HashSet<(wgpu::TextureFormat, u32, u32)>,
    draws: Vec<Draw>,
    bound: BoundState,
    stats: Stats,
}

impl Renderer {
    /// A renderer without a window, on the adapter chosen from the environment (`WGPU_BACKEND`,
    /// `WGPU_ADAPTER_NAME`, `WGPU_POWER_PREF`), software adapters included.
    pub fn new_headless(options: RendererOptions) -> Result<Renderer> {
        let instance = wgpu::Instance::new(instance_descriptor(
            wgpu::InstanceDescriptor::new_without_display_handle(),
        ));
        let adapter = select_adapter(&instance, None, options.power_preference)?;
        Self::from_adapter(instance, adapter, options)
    }

    /// A renderer on a chosen adapter (for windows: one compatible with the surface).
    pub fn from_adapter(
        instance: wgpu::Instance,
        adapter: wgpu::Adapter,
        options: RendererOptions,
    ) -> Result<Renderer> {
        let limits = adapter.limits();
        let downlevel = adapter.get_downlevel_capabilities().flags;
        if !downlevel.contains(wgpu::DownlevelFlags::VERTEX_STORAGE)
            || limits.max_storage_buffers_per_shader_stage < 2
        {
            return Err(Error::UnsupportedAdapter(adapter.get_info().name));
        }
        let quad_bit = if downlevel.contains(wgpu::DownlevelFlags::FULL_DRAW_INDEX_UINT32) {
            QUAD_INDEX_BIT
        } else {
            QUAD_INDEX_BIT_24
        };
        let driver_cache = options.pipeline_cache.is_some()
            && adapter.features().contains(wgpu::Features::PIPELINE_CACHE);
        let features = if driver_cache {
            wgpu::Features::PIPELINE_CACHE
        } else {
            wgpu::Features::empty()
        };
        let (device, queue) =
            pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
                label: Some("stage2d"),
                required_features: features,
                required_limits: limits.clone(),
                ..Default::default()
            }))?;
        let slots = options
            .max_textures_per_batch
            .min(limits.max_sampled_textures_per_shader_stage as usize)
            .min(limits.max_samplers_per_shader_stage as usize)
            .clamp(1, MAX_BATCH_TEXTURES);
        let textures = TextureSystem::new(device.clone(), queue.clone(), slots);
        let mut pipelines = PipelineSystem::new(device.clone());
        let stream = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::VERTEX,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only: true },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let geometry_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("stage2d streams"),
            entries: &[stream(0), stream(1)],
        });
        // One batch shader per texture count, all sharing the bind-group layouts: a batch of k textures runs the
        // k-case switch. On CPU rasterisers every case of the switch runs for every fragment, so this is what a
        // fragment costs there (llvmpipe: 1,000 bunnies on one texture 15.7 -> 5.8 ms a frame); on GPUs it is
        // neutral. Registered up front, in a fixed order, so ids (and the warm-start file) are stable.
        let batch_shaders = (1..=slots)
            .map(|k| {
                pipelines.register_shader(ShaderDesc {
                    label: "stage2d batch",
                    source: shader::batch_source(k, quad_bit),
                    vertex_entry: "vs_main",
                    fragment_entry: "fs_main",
                    bind_group_layouts: vec![textures.layout().clone(), geometry_layout.clone()],
                })
            })
            .collect::<Result<Vec<_>>>()?;
        // No vertex buffer: the shader pulls quads and mesh vertices from storage buffers by index.
        let batch_geometry = pipelines.register_geometry(GeometryLayout {
            stride: 0,
            attributes: Vec::new(),
        })?;
        let mut stats = Stats::default();
        stats.total.accumulate(&FrameStats {
            shader_modules_created: pipelines.counters().shader_modules_created,
            ..Default::default()
        });
        let mut r = Renderer {
            instance,
            adapter,
            device: device.clone(),
            queue,
            pipelines,
            textures,
            batcher: Batcher::with_quad_bit(slots, quad_bit),
            collector: Collector::default(),
            batch_shaders,
            batch_geometry,
            quads: GpuBuffer::new(2, wgpu::BufferUsages::STORAGE, "stage2d quads"),
            vertices: GpuBuffer::new(0, wgpu::BufferUsages::STORAGE, "stage2d mesh vertices"),
            indices: GpuBuffer::new(1, wgpu::BufferUsages::INDEX, "stage2d indices"),
            geometry_layout,
            geometry_group: None,
            unsubmitted: false,
            stream_max: limits
                .max_storage_buffer_binding_size
                .min(limits.max_buffer_size),
            belt: UploadBelt::new(device.clone(), 1 << 20),
            warm_start: WarmStart::default(),
            cache_identity: Default::default(),
            pool: TexturePool::default(),
            pool_hits: 0,
            released: Default::default(),
            msaa: options.msaa,
            msaa_targets: Default::default(),
            stencil_targets: Default::default(),
            stencil_users: Default::default(),
            draws: Vec::new(),
            bound: BoundState::default(),
            stats,
        };
        r.absorb_texture_stats();
        if let Some(dir) = options.pipeline_cache {
            r.warm_up(dir, driver_cache)?;
        }
        Ok(r)
    }

    /// Loads the pipeline-cache file from `dir` and creates the pipelines it lists.
    fn warm_up(&mut self, dir: std::path::PathBuf, driver_cache: bool) -> Result<()> {
        let info = self.adapter.get_info();
        let key = wgpu::util::pipeline_cache_key(&info)
            .unwrap_or_else(|| format!("{:?}_{}_{}", info.backend, info.vendor, info.device));
        // Saved graphics keys name shaders by id: the file is only valid for the same registered shader set.
        let driver = format!(
            "{} | {} | {} | shaders {:016x}",
            info.name,
            info.driver,
            info.driver_info,
            self.pipelines.fingerprint()
        );
        let file_name: String = key
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let path = dir.join(format!("stage2d-{file_name}.pipelines"));
        let mut status = WarmStart {
            path: Some(path.clone()),
            driver_cache,
            ..Default::default()
        };
        let file = match std::fs::read(&path) {
            Ok(bytes) => match persist::decode(&bytes, &key, &driver) {
                Ok(f) => {
                    status.bytes_loaded = bytes.len() as u64;
                    Some(f)
                }
                Err(why) => {
                    log::warn!(
                        "ignoring pipeline cache {}: {why}; it will be rewritten",
                        path.display()
                    );
                    status.rejected = Some(why.to_string());
                    None
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => {
                log::warn!("cannot read pipeline cache {}: {e}", path.display());
                status.rejected = Some(e.to_string());
                None
            }
        };
        if driver_cache {
            let data = file
                .as_ref()
                .map(|f| f.data.as_slice())
                .filter(|d| !d.is_empty());
            // SAFETY: `data` only comes from a file that passed `persist::decode`: it was written by
            // `save_pipeline_cache` from `PipelineCache::get_data` on an adapter with the same
            // `pipeline_cache_key` and driver string, and its checksum matches. `fallback: true` makes wgpu start
            // an empty cache if the driver still refuses the data.
            #[allow(unsafe_code)]
            let cache = unsafe {
                self.device
                    .create_pipeline_cache(&wgpu::PipelineCacheDescriptor {
                        label: Some("stage2d pipeline cache"),
                        data,
                        fallback: true,
                    })
            };
            self.pipelines.set_wgpu_cache(Some(cache));
        }
        if let Some(f) = file {
            let start = std::time::Instant::now();
            for (tier, graphics) in f.entries {
                if self.pipelines.prewarm(tier, graphics)? {
                    status.pipelines_prewarmed += 1;
                }
            }
            status.prewarm_time = start.elapsed();
        }
        self.cache_identity = (key, driver);
        self.warm_start = status;
        Ok(())
    }

    /// What the warm start did.
    pub fn warm_start(&self) -> &WarmStart {
        &self.warm_start
    }

    /// Writes the pipeline-cache file (the pipelines used so far and wgpu's driver cache) atomically; `None`
    /// when no cache directory is configured.
    pub fn save_pipeline_cache(&self) -> Result<Option<std::path::PathBuf>> {
        let Some(path) = self.warm_start.path.clone() else {
            return Ok(None);
        };
        let file = persist::CacheFile {
            entries: self.pipelines.used_keys(),
            data: self
                .pipelines
                .wgpu_cache()
                .and_then(|c| c.get_data())
                .unwrap_or_default(),
        };
        let bytes = persist::encode(&file, &self.cache_identity.0, &self.cache_identity.1);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::PipelineCache(format!("{}: {e}", dir.display())))?;
        }
        persist::write_atomic(&path, &bytes)
            .map_err(|e| Error::PipelineCache(format!("{}: {e}", path.display())))?;
        Ok(Some(path))
    }

    /// The wgpu instance (surfaces are created from it).
    pub fn instance(&self) -> &wgpu::Instance {
        &self.instance
    }

    /// The device.
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// The queue.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }

    /// The adapter's name, backend and driver.
    pub fn adapter_info(&self) -> wgpu::AdapterInfo {
        self.adapter.get_info()
    }

    /// The adapter.
    pub fn adapter(&self) -> &wgpu::Adapter {
        &self.adapter
    }

    /// Turns 4x multisampling on or off for window frames and for render targets created from now on (a render
    /// texture keeps the setting it was made with).
    pub fn set_msaa(&mut self, on: bool) {
        self.msaa = on;
    }

    /// Whether frames are drawn with 4x multisampling.
    pub fn msaa(&self) -> bool {
        self.msaa
    }

    /// The multisampled colour texture for a target of `format` and `size`, created once and reused.
    fn msaa_view(
        &mut self,
        format: wgpu::TextureFormat,
        size: (u32, u32),
        frame: &mut FrameStats,
    ) -> wgpu::TextureView {
        let key = (format, size.0, size.1);
        attachment(
            &self.device,
            &mut self.msaa_targets,
            key,
            format,
            size,
            4,
            "stage2d msaa colour",
            frame,
        )
    }

    /// The stencil attachment for a target of `size` and `samples`, created once and reused.
    fn stencil_view(
        &mut self,
        size: (u32, u32),
        samples: u32,
        frame: &mut FrameStats,
    ) -> wgpu::TextureView {
        let (key, format) = (
            (size.0, size.1, samples),
            wgpu::TextureFormat::Depth24PlusStencil8,
        );
        attachment(
            &self.device,
            &mut self.stencil_targets,
            key,
            format,
            size,
            samples,
            "stage2d stencil",
            frame,
        )
    }

    /// Most textures one batch binds on this device.
    pub fn max_textures_per_batch(&self) -> usize {
        self.batcher.max_textures()
    }

    /// The pipeline system (for its counters and recorded keys).
    pub fn pipelines(&self) -> &PipelineSystem {
        &self.pipelines
    }

    /// Counters of the last frame and in total.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// A 1x1 opaque white texture, handy for solid rectangles (`Node::sprite(white).sized(w, h).tinted(c)`).
    pub fn white_texture(&self) -> Texture {
        self.textures.white()
    }

    fn absorb_texture_stats(&mut self) {
        let s = self.textures.take_stats();
        self.stats.total.accumulate(&s);
    }

    /// A texture from straight-alpha RGBA8 pixels (`width * height * 4` bytes).
    pub fn create_texture(
        &mut self,
        width: u32,
        height: u32,
        rgba: &[u8],
        sampling: Sampling,
    ) -> Result<Texture> {
        let mut pixels = rgba.to_vec();
        premultiply(&mut pixels);
        let t = self
            .textures
            .create_from_premultiplied(width, height, &pixels, sampling);
        self.absorb_texture_stats();
        t
    }

    /// A texture from a decoded image.
    pub fn texture_from_image(
        &mut self,
        image: &image::RgbaImage,
        sampling: Sampling,
    ) -> Result<Texture> {
        self.create_texture(image.width(), image.height(), image.as_raw(), sampling)
    }

    /// A texture from encoded PNG or JPEG bytes. Corrupt bytes are [`Error::ImageDecode`].
    pub fn texture_from_bytes(&mut self, bytes: &[u8], sampling: Sampling) -> Result<Texture> {
        let img = image::load_from_memory(bytes)?.to_rgba8();
        self.texture_from_image(&img, sampling)
    }

    /// A texture from a PNG or JPEG file. A missing or corrupt file is [`Error::ImageFile`] naming it.
    pub fn load_texture(&mut self, path: impl AsRef<Path>, sampling: Sampling) -> Result<Texture> {
        let path = path.as_ref();
        let img = image::open(path)
            .map_err(|source| Error::ImageFile {
                path: path.to_owned(),
                source,
            })?
            .to_rgba8();
        self.texture_from_image(&img, sampling)
    }

    /// Destroys a texture and the bind groups holding it. Nodes still showing it are skipped with a warning.
    pub fn destroy_texture(&mut self, texture: Texture) -> Result<()> {
        self.textures.destroy(texture.id())
    }

    /// An offscreen `Rgba8Unorm` target of `width x height` pixels, multisampled if the renderer is.
    pub fn create_render_target(&mut self, width: u32, height: u32) -> Result<RenderTarget> {
        self.create_render_texture(RenderTextureOptions {
            msaa: self.msaa,
            ..RenderTextureOptions::new(width, height)
        })
    }

    /// A render texture: a target to draw into that sprites can show.
    pub fn create_render_texture(&mut self, options: RenderTextureOptions) -> Result<RenderTarget> {
        self.textures.check_size(options.width, options.height)?;
        if !matches!(
            options.format,
            wgpu::TextureFormat::Rgba8Unorm | wgpu::TextureFormat::Bgra8Unorm
        ) {
            return Err(Error::UnsupportedFormat(options.format));
        }
        let texture = self.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("stage2d render texture"),
            size: wgpu::Extent3d {
                width: options.width,
                height: options.height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: options.format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::COPY_SRC
                | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        });
        self.stats.total.textures_created += 1;
        let view = texture.create_view(&Default::default());
        let id = self
            .textures
            .insert_external(texture.clone(), Sampling::LINEAR);
        if options.depth_stencil {
            self.stencil_users
                .insert((options.format, options.width, options.height));
        }
        Ok(RenderTarget {
            texture,
            view,
            options,
            handle: Texture::new(id, options.width, options.height),
            release: Some(self.released.clone()),
        })
    }

    /// Resizes a render texture (its contents are lost). Sprites must take [`RenderTarget::texture`] again: the
    /// old handle goes stale and is skipped with a warning.
    pub fn resize_render_texture(
        &mut self,
        target: &mut RenderTarget,
        width: u32,
        height: u32,
    ) -> Result<()> {
        let fresh = self.create_render_texture(RenderTextureOptions {
            width,
            height,
            ..target.options
        })?;
        // The old target is dropped here; its slot is freed with the next frame.
        drop(std::mem::replace(target, fresh));
        Ok(())
    }

    /// A temporary render texture from the pool (or a new one); it returns to the pool when dropped.
    pub fn acquire_render_texture(
        &mut self,
        options: RenderTextureOptions,
    ) -> Result<PooledRenderTexture> {
        let target = match self.pool.take(&options) {
            Some(t) => {
                self.pool_hits += 1;
                t
            }
            None => self.create_render_texture(options)?,
        };
        Ok(PooledRenderTexture::new(target, self.pool.clone()))
    }

    /// Frees the texture slots of render targets dropped since the last frame.
    fn release_dropped_targets(&mut self) {
        let ids: Vec<_> = self
            .released
            .lock()
            .map(|mut v| std::mem::take(&mut *v))
            .unwrap_or_default();
        for id in ids {
            let _ = self.textures.destroy(id);
        }
    }

    /// Textures handed out by [`Renderer::acquire_render_texture`] that came from the pool.
    pub fn pool_hits(&self) -> u64 {
        self.pool_hits
    }

    /// The pool of temporary render textures.
    pub fn texture_pool(&self) -> &TexturePool {
        &self.pool
    }

    /// Draws `scene` into `target`, cleared to `clear` first (or drawn over its contents with `None`).
    pub fn render(
        &mut self,
        scene: &Scene,
        target: &RenderTarget,
        clear: Option<Color>,
    ) -> Result<()> {
        self.render_node(scene, scene.root(), target, clear)
    }

    /// Draws the subtree of `node` into `target`, with `node` as the root: its own transform applies, its
    /// ancestors' do not, and it is drawn even if it is hidden (so a subtree can live hidden in the scene and be
    /// cached into a texture). Drawing a target's own texture into it is [`Error::FeedbackLoop`].
    pub fn render_node(
        &mut self,
        scene: &Scene,
        node: NodeId,
        target: &RenderTarget,
        clear: Option<Color>,
    ) -> Result<()> {
        let o = target.options;
        self.render_pass(
            scene,
            node,
            &target.view,
            o.format,
            (o.width, o.height),
            1.0,
            clear,
            o.msaa,
            Some(target.handle.id()),
        )
    }

    /// Draws `scene` into any colour view of `format` and `size` (a window's surface texture, for example).
    pub fn render_to_view(
        &mut self,
        scene: &Scene,
        view: &wgpu::TextureView,
        format: wgpu::TextureFormat,
        size: (u32, u32),
        clear: Option<Color>,
    ) -> Result<()> {
        self.render_scaled(scene, view, format, size, 1.0, clear)
    }

    /// Like [`Renderer::render_to_view`] for a target of `size` physical pixels showing a scene laid out in
    /// logical pixels, `scale_factor` physical pixels each (HiDPI windows).
    pub fn render_scaled(
        &mut self,
        scene: &Scene,
        view: &wgpu::TextureView,
        format: wgpu::TextureFormat,
        size: (u32, u32),
        scale_factor: f32,
        clear: Option<Color>,
    ) -> Result<()> {
        let msaa = self.msaa;
        self.render_pass(
            scene,
            scene.root(),
            view,
            format,
            size,
            scale_factor,
            clear,
            msaa,
            None,
        )
    }

    /// One frame into one target: collect, upload, prepare, record one pass, submit, trim.
    #[allow(clippy::too_many_arguments)]
    fn render_pass(
        &mut self,
        scene: &Scene,
        start: NodeId,
        view: &wgpu::TextureView,
        format: wgpu::TextureFormat,
        size: (u32, u32),
        scale_factor: f32,
        clear: Option<Color>,
        msaa: bool,
        target_texture: Option<crate::TextureId>,
    ) -> Result<()> {
        self.release_dropped_targets();
        // A frame that failed before its submit never reached the GPU, but the batcher compares with it: forget
        // it, so this frame uploads everything it writes.
        if std::mem::replace(&mut self.unsubmitted, true) {
            self.batcher.forget_uploads();
        }
        let mut frame = FrameStats::default();
        let before = self.pipelines.counters();
        let t0 = std::time::Instant::now();

        // Glyph-atlas pages the walk may start using: ids reserved now, storage created after the walk.
        let caches = &mut self.collector.caches;
        while caches.page_textures.len() < caches.text.atlas.pages_wanted() {
            caches.page_textures.push(self.textures.reserve());
        }
        caches
            .text
            .atlas
            .set_available_pages(caches.page_textures.len());

        // Collect and batch: CPU only.
        self.batcher.begin();
        let textures = &self.textures;
        self.collector.collect_from(
            scene,
            start,
            View::scaled(
                size.0.max(1),
                size.1.max(1),
                scale_factor,
                textures.white().id(),
            ),
            &mut self.batcher,
            |t| textures.is_live(t),
            target_texture,
            &mut frame,
        );
        self.batcher.finish();
        if let Some(t) = target_texture.filter(|_| self.collector.feedback_loop) {
            // Nothing was uploaded or recorded yet: the frame is dropped whole.
            return Err(Error::FeedbackLoop(t));
        }
        let t1 = std::time::Instant::now();

        // New glyph-atlas pages get storage; new glyph bitmaps are written.
        let caches = &mut self.collector.caches;
        let page = caches.text.atlas.page_size();
        for &id in &caches.page_textures[..caches.text.atlas.pages_in_use()] {
            if !self.textures.is_live(id) {
                self.textures
                    .fill_reserved(id, page, page, Sampling::LINEAR);
            }
        }
        frame.glyph_uploads = caches.text.atlas.uploads_this_frame;
        for u in caches.text.atlas.take_uploads() {
            self.textures
                .write_region(caches.page_textures[u.page as usize], u.rect, &u.rgba);
        }

        // Upload: copies recorded into the frame's encoder, ahead of the pass.
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("stage2d frame"),
            });
        self.upload(&mut encoder, &mut frame)?;

        // Prepare: pipelines and bind groups, before any pass opens.
        let counters = self.collector.mask_counters;
        frame.masks_pushed = counters.pushed;
        frame.scissor_masks = counters.scissor;
        let user = (format, size.0, size.1);
        if counters.used_stencil {
            self.stencil_users.insert(user);
        }
        let samples = if msaa { 4 } else { 1 };
        let stencil_view = self
            .stencil_users
            .contains(&user)
            .then(|| self.stencil_view(size, samples, &mut frame));
        let depth_stencil = if stencil_view.is_some() {
            DepthStencil::Depth24PlusStencil8
        } else {
            DepthStencil::None
        };
        let base = GlobalState::new(0b1111, StencilMode::Disabled, depth_stencil, 1, msaa)
            .expect("a valid global state");
        self.pipelines.set_target_state(base, format);
        let msaa_view = msaa.then(|| self.msaa_view(format, size, &mut frame));
        self.draws.clear();
        let mut stencil = StencilMode::Disabled;
        for b in self.batcher.batches() {
            if b.state.stencil != stencil {
                stencil = b.state.stencil;
                frame.stencil_mode_switches += 1;
                self.pipelines
                    .set_target_state(base.with_stencil(stencil), format);
            }
            let bind_group = self.textures.bind_group(&b.textures);
            let pipeline = self.pipelines.get_pipeline(GraphicsState {
                geometry: self.batch_geometry,
                shader: batch_shader_for(&self.batch_shaders, b.textures.len()),
                flags: StateFlags::default(),
                blend: b.blend,
                topology: b.topology,
            })?;
            self.draws.push(Draw {
                pipeline,
                bind_group,
                indices: b.index_start..b.index_start + b.index_count,
                stencil_ref: b.state.stencil_ref as u32,
                scissor: b.state.scissor,
            });
        }

        // Record: one pass, only set_* and draw.
        let t2 = std::time::Instant::now();
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("stage2d pass"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: msaa_view.as_ref().unwrap_or(view),
                    depth_slice: None,
                    resolve_target: msaa_view.as_ref().map(|_| view),
                    ops: wgpu::Operations {
                        load: match clear {
                            Some(c) => wgpu::LoadOp::Clear(c.to_wgpu_premultiplied()),
                            None => wgpu::LoadOp::Load,
                        },
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: stencil_view.as_ref().map(|v| {
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
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            let mut enc = Encoder::new(&mut pass, &mut self.bound, &mut frame, size);
            if let (false, Some((id, group))) = (self.draws.is_empty(), &self.geometry_group) {
                let ib = &self.indices;
                enc.set_bind_group(1, *id, group);
                enc.set_index_buffer(ib.binding(), ib.buffer.as_ref().expect("uploaded"));
            }
            for d in &self.draws {
                enc.set_scissor(d.scissor);
                enc.set_stencil_reference(d.stencil_ref);
                enc.set_pipeline(d.pipeline, self.pipelines.pipeline(d.pipeline));
                enc.set_bind_group(0, d.bind_group, self.textures.get_bind_group(d.bind_group));
                enc.draw_indexed(d.indices.clone());
            }
        }

        // Submit.
        let t3 = std::time::Instant::now();
        self.belt.finish();
        self.queue.submit([encoder.finish()]);
        self.unsubmitted = false;
        self.belt.recall();
        let t4 = std::time::Instant::now();
        frame.collect_ns = (t1 - t0).as_nanos() as u64;
        frame.prepare_ns = (t2 - t1).as_nanos() as u64;
        frame.record_ns = (t3 - t2).as_nanos() as u64;
        frame.submit_ns = (t4 - t3).as_nanos() as u64;

        // Trim: fold the counters into the stats.
        let after = self.pipelines.counters();
        frame.pipeline_hits_without_hash =
            after.cache.hits_without_hash - before.cache.hits_without_hash;
        frame.pipeline_hits_with_hash = after.cache.hits_with_hash - before.cache.hits_with_hash;
        frame.pipeline_misses = after.cache.misses - before.cache.misses;
        frame.pipe_cache_switches =
            after.cache.pipe_cache_switches - before.cache.pipe_cache_switches;
        frame.pipelines_created = after.pipelines_created - before.pipelines_created;
        frame.shader_modules_created = after.shader_modules_created - before.shader_modules_created;
        frame.accumulate(&self.textures.take_stats());
        let caches = &mut self.collector.caches;
        frame.tessellations = caches.tessellation.tessellations;
        frame.shape_instructions_skipped = caches.tessellation.skipped_instructions;
        frame.text_layouts = caches.text.layouts_this_frame;
        caches.tessellation.trim();
        caches.text.trim();
        self.stats.last_frame = frame;
        self.stats.total.accumulate(&frame);
        self.stats.frames += 1;
        Ok(())
    }

    /// Grows the stream buffers as needed (re-binding them), then copies each stream's dirty range.
    fn upload(&mut self, encoder: &mut wgpu::CommandEncoder, frame: &mut FrameStats) -> Result<()> {
        let b = &mut self.batcher;
        let max = self.stream_max;
        for (stream, bytes) in [
            ("quad", b.quads.as_bytes().len()),
            ("vertex", b.vertices.as_bytes().len()),
            ("index", b.indices.as_bytes().len()),
        ] {
            let bytes = bytes as u64;
            if bytes > max {
                return Err(Error::FrameTooLarge { stream, bytes, max });
            }
        }
        // Storage buffers are bound even when empty: they always exist (at least 4 bytes).
        let dev = &self.device;
        let mut rebind = self.geometry_group.is_none();
        rebind |= self.quads.fit(dev, &mut b.quads, 4, max, frame);
        rebind |= self.vertices.fit(dev, &mut b.vertices, 4, max, frame);
        self.indices.fit(dev, &mut b.indices, 0, max, frame);
        if rebind {
            let (Some(q), Some(v)) = (&self.quads.buffer, &self.vertices.buffer) else {
                unreachable!("reserved above");
            };
            let group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("stage2d streams"),
                layout: &self.geometry_layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: q.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: v.as_entire_binding(),
                    },
                ],
            });
            frame.bind_groups_created += 1;
            let id = match &self.geometry_group {
                Some((BindGroupId(n), _)) => BindGroupId(n.wrapping_add(1)),
                None => BindGroupId(0),
            };
            self.geometry_group = Some((id, group));
        }
        let streams = [
            (&self.quads, b.quads.dirty_bytes()),
            (&self.vertices, b.vertices.dirty_bytes()),
            (&self.indices, b.indices.dirty_bytes()),
        ];
        for (gpu, dirty) in streams {
            if let (Some(buf), Some((offset, bytes))) = (&gpu.buffer, dirty) {
                self.belt.write(encoder, buf, offset, bytes, frame);
            }
        }
        Ok(())
    }

    /// Blocks until the GPU has finished all submitted work.
    pub fn wait_idle(&self) -> Result<()> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map(|_| ())
            .map_err(|e| Error::Readback(e.to_string()))
    }

    /// Reads a target back as premultiplied RGBA8, exactly as stored.
    pub fn read_pixels_premultiplied(&self, target: &RenderTarget) -> Result<image::RgbaImage> {
        let (w, h) = (target.options.width, target.options.height);
        let row = padded_bytes_per_row(w);
        let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("stage2d readback"),
            size: row as u64 * h as u64,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("stage2d readback"),
            });
        encoder.copy_texture_to_buffer(
            target.texture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(row),
                    rows_per_image: Some(h),
                },
            },
            wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: 1,
            },
        );
        self.queue.submit([encoder.finish()]);
        let (tx, rx) = std::sync::mpsc::channel();
        buffer.slice(..).map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.wait_idle()?;
        rx.recv()
            .map_err(|e| Error::Readback(e.to_string()))?
            .map_err(|e| Error::Readback(e.to_string()))?;
        let mapped = buffer
            .slice(..)
            .get_mapped_range()
            .map_err(|e| Error::Readback(e.to_string()))?;
        let mut out = Vec::with_capacity((w * h * 4) as usize);
        for y in 0..h as usize {
            out.extend_from_slice(&mapped[y * row as usize..][..w as usize * 4]);
        }
        drop(mapped);
        if matches!(
            target.options.format,
            wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb
        ) {
            out.chunks_exact_mut(4).for_each(|p| p.swap(0, 2));
        }
        Ok(image::RgbaImage::from_raw(w, h, out).expect("size matches"))
    }

    /// Reads a target back as straight-alpha RGBA8 (what PNG files hold).
    pub fn read_pixels(&self, target: &RenderTarget) -> Result<image::RgbaImage> {
        let mut img = self.read_pixels_premultiplied(target)?;
        unpremultiply(&mut img);
        Ok(img)
    }

    /// Reads a target back and saves it as a PNG with straight alpha.
    pub fn save_png(&self, target: &RenderTarget, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        self.read_pixels(target)?
            .save(path)
            .map_err(|source| Error::SaveImage {
                path: path.to_owned(),
                source,
            })
    }
}

impl Drop for Renderer {
    fn drop(&mut self) {
        if let Err(e) = self.save_pipeline_cache() {
            log::warn!("could not save the pipeline cache: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instances_leave_indirect_call_validation_off_unless_the_environment_asks() {
        let flags =
            instance_descriptor(wgpu::InstanceDescriptor::new_without_display_handle()).flags;
        let asked = std::env::var("WGPU_VALIDATION_INDIRECT_CALL").is_ok_and(|v| v != "0");
        assert_eq!(
            flags.contains(wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL),
            asked
        );
        // The other flags still follow the build and the environment.
        let mut expected = wgpu::InstanceFlags::from_build_config().with_env();
        expected.set(wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL, asked);
        assert_eq!(flags, expected);
    }
}
