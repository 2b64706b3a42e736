//! The renderer: the owner of the GPU systems and the frame, and the public entry points. [`Renderer`] is here;
//! its options (`options.rs`), the embedded path (`embed.rs`: prepare, record, trim), resources (`resources.rs`:
//! textures, render textures, readback) and the assets' uploads (`assets.rs`) are beside it. It may use every
//! folder but `app`, which sits above it.
//!
//! The Renderer is a small owner of systems (the PixiJS v8 shape). It holds the device and queue, the
//! [`PipelineSystem`](crate::gpu::pipeline::PipelineSystem) with its warm start, the
//! [`TextureSystem`](crate::gpu::texture_system::TextureSystem), the render-texture pool and the [`Frame`], and hands
//! each call to the system that owns the state. The frame's phases are in `frame/`.

mod assets;
mod embed;
mod filters;
mod meshes;
mod options;
mod recover;
mod resources;

pub use options::RendererOptions;

use crate::base::stats::{FrameStats, LiveCounts, Stats};
use crate::frame::{Attach, Frame};
use crate::gpu::device::{self, Capabilities};
use crate::gpu::pipeline::warm::{self, WarmStart, WarmState};
use crate::gpu::pipeline::PipelineSystem;
use crate::gpu::release::ReleaseQueue;
use crate::gpu::target::{RenderTarget, RenderTextures};
use crate::gpu::texture_system::TextureSystem;
use crate::gpu::timer::GpuTimer;
use crate::{Color, Error, NodeId, Result, Scene, TargetDesc};
use std::path::PathBuf;

/// The stage2d renderer: owns the GPU device (or borrows a caller's) and draws [`Scene`]s into render targets,
/// render textures, views or a caller's render pass.
///
/// ```
/// use stage2d::{Color, Node, Renderer, RendererOptions, Sampling, Scene};
/// # fn main() -> stage2d::Result<()> {
/// let mut renderer = Renderer::new_headless(RendererOptions::default())?;
/// let bunny = renderer.load_texture("assets/bunny0.png", Sampling::NEAREST)?;
/// let mut scene = Scene::new();
/// scene.add(scene.root(), Node::sprite(bunny).at(16.0, 16.0).anchor(0.5, 0.5))?;
/// let target = renderer.create_render_target(32, 32)?;
/// renderer.render(&scene, &target, Some(Color::hex(0x1099bb)))?;
/// let pixels = renderer.read_pixels(&target)?; // an image::RgbaImage
/// assert_eq!(pixels.dimensions(), (32, 32));
/// assert_eq!(renderer.stats().last_frame.draw_calls, 1);
/// # Ok(()) }
/// ```
///
/// Embedded in another program's pass, see [`Renderer::from_device`] and [`Renderer::prepare`].
#[derive(Debug)]
pub struct Renderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipelines: PipelineSystem,
    textures: TextureSystem,
    render_textures: RenderTextures,
    frame: Frame,
    warm: WarmState,
    msaa: bool,
    stats: Stats,
    release: ReleaseQueue,
    /// Pass timestamps, where the device has them.
    timer: Option<GpuTimer>,
    /// The last frames' submissions, newest last (for [`Renderer::wait_frames_in_flight`]).
    submissions: std::collections::VecDeque<wgpu::SubmissionIndex>,
    /// How it was set up (recovery on a new device sets it up the same way).
    options: RendererOptions,
    /// Whether the device is lost.
    health: std::sync::Arc<crate::gpu::health::DeviceHealth>,
    /// The instance it opened its device from, where it chose the adapter itself ([`Renderer::recover`] asks it
    /// again).
    instance: Option<wgpu::Instance>,
    /// The caller's texture last given to [`Renderer::prepare_over`], drawable under that id.
    backdrop: Option<(wgpu::Texture, crate::TextureId)>,
}

/// Submissions remembered for [`Renderer::wait_frames_in_flight`].
const MAX_TRACKED_SUBMISSIONS: usize = 4;

impl Renderer {
    /// A renderer with its own device, on the adapter chosen from the environment (`WGPU_BACKEND`,
    /// `WGPU_ADAPTER_NAME`, `WGPU_POWER_PREF`), software adapters included.
    pub fn new_headless(options: RendererOptions) -> Result<Renderer> {
        let instance = wgpu::Instance::new(device::instance_descriptor(
            wgpu::InstanceDescriptor::new_without_display_handle(),
        ));
        let adapter = device::select_adapter(&instance, None, options.power_preference)?;
        let mut r = Self::from_adapter(&adapter, options)?;
        r.instance = Some(instance);
        Ok(r)
    }

    /// A renderer with its own device on `adapter` (for windows: one compatible with the surface).
    pub fn from_adapter(adapter: &wgpu::Adapter, options: RendererOptions) -> Result<Renderer> {
        let cache = options.pipeline_cache.is_some();
        let (device, queue) = device::open_device(adapter, cache, options.gpu_timing)?;
        let full_index = adapter
            .get_downlevel_capabilities()
            .flags
            .contains(wgpu::DownlevelFlags::FULL_DRAW_INDEX_UINT32);
        let caps = device::capabilities(&device, full_index, options.max_textures_per_batch)?;
        Self::build(device, queue, caps, options, true)
    }

    /// A renderer on a device the caller owns (with the instance, adapter and queue), for drawing into the
    /// caller's render passes with [`Renderer::prepare`] and [`Renderer::record`]. The device needs 2 storage
    /// buffers per shader stage (request the adapter's limits); otherwise this is
    /// [`Error::UnsupportedDevice`](crate::Error::UnsupportedDevice). Warm starts use wgpu's driver cache only if the device was created with
    /// `Features::PIPELINE_CACHE`.
    pub fn from_device(
        device: wgpu::Device,
        queue: wgpu::Queue,
        options: RendererOptions,
    ) -> Result<Renderer> {
        let full_index = device::full_index_by_backend(&device);
        let caps = device::capabilities(&device, full_index, options.max_textures_per_batch)?;
        Self::build(device, queue, caps, options, false)
    }

    fn build(
        device: wgpu::Device,
        queue: wgpu::Queue,
        caps: Capabilities,
        options: RendererOptions,
        own: bool,
    ) -> Result<Renderer> {
        let health = crate::gpu::health::DeviceHealth::watch(&device, own);
        let what = "setting up stage2d's pipelines on this device";
        let setup = device::checked(&device, what, || {
            let mut textures = TextureSystem::new(device.clone(), queue.clone(), caps.slots);
            textures.set_keep_pixels(options.keep_texture_pixels);
            let mut pipelines = PipelineSystem::new(device.clone());
            let mut frame = Frame::new(&device, &queue, &caps, &mut pipelines, &textures)?;
            if let Some(min) = options.parallel_collect_min {
                frame.collector.set_parallel_min(min);
            }
            frame.collector.filters.keep_results = options.keep_filter_results;
            let mut stats = Stats::default();
            stats.total.shader_modules_created = pipelines.counters().shader_modules_created;
            let mut r = Renderer {
                device: device.clone(),
                queue: queue.clone(),
                pipelines,
                textures,
                render_textures: RenderTextures::default(),
                frame,
                warm: WarmState::default(),
                msaa: options.msaa,
                stats,
                release: ReleaseQueue::default(),
                timer: options
                    .gpu_timing
                    .then(|| GpuTimer::new(&device, &queue))
                    .flatten(),
                submissions: Default::default(),
                options: options.clone(),
                health,
                instance: None,
                backdrop: None,
            };
            r.absorb_texture_stats();
            if let Some(dir) = options.pipeline_cache {
                let cache = caps.driver_cache;
                r.warm = warm::warm_up(&r.device, &mut r.pipelines, dir, cache)?;
            }
            Ok(r)
        });
        // A device whose limits pass the checks but cannot build the pipelines' layouts (GLES without
        // vertex-stage storage buffers reports the fragment stage's count) cannot run stage2d either.
        setup.map_err(|e| match e {
            Error::Wgpu(why) => Error::UnsupportedDevice(why),
            e => e,
        })
    }

    /// Draws `scene` into `target`, cleared to `clear` first (or drawn over its contents with `None`): prepare,
    /// one pass, submit and trim in one call.
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
    /// cached into a texture). Drawing a target's own texture into it is
    /// [`Error::FeedbackLoop`](crate::Error::FeedbackLoop). PixiJS's `generateTexture`:
    ///
    /// ```
    /// use stage2d::{Color, GraphicsContext, Node, RenderTextureOptions, Renderer, Scene};
    /// # fn main() -> stage2d::Result<()> {
    /// let mut renderer = Renderer::new_headless(Default::default())?;
    /// let mut scene = Scene::new();
    /// let mut g = GraphicsContext::new();
    /// g.circle(16.0, 16.0, 16.0).fill(Color::hex(0xe74c3c));
    /// let badge = scene.add_detached(Node::graphics(g));
    /// // Drawn once into a texture, then shown by as many sprites as needed.
    /// let rt = renderer.create_render_texture(RenderTextureOptions::new(32, 32))?;
    /// renderer.render_node(&scene, badge, &rt, Some(Color::TRANSPARENT))?;
    /// for i in 0..3 {
    ///     scene.add(scene.root(), Node::sprite(rt.texture()).at(40.0 * i as f32, 0.0))?;
    /// }
    /// assert_eq!(renderer.read_pixels(&rt)?.get_pixel(16, 16).0, [0xe7, 0x4c, 0x3c, 255]);
    /// # Ok(()) }
    /// ```
    pub fn render_node(
        &mut self,
        scene: &Scene,
        node: NodeId,
        target: &RenderTarget,
        clear: Option<Color>,
    ) -> Result<()> {
        self.render_node_transformed(scene, node, target, glam::Affine2::IDENTITY, clear)
    }

    /// Like [`Renderer::render_node`], with `transform` applied to the whole drawing (after the node's own
    /// transform), in the target's pixels: PixiJS's `render({ container, target, transform })`, for minimaps
    /// and thumbnails drawn without changing the scene. A transform with a non-finite entry is
    /// [`Error::InvalidTransform`](crate::Error::InvalidTransform).
    ///
    /// ```no_run
    /// # fn f(renderer: &mut stage2d::Renderer, scene: &stage2d::Scene, world: stage2d::NodeId)
    /// # -> stage2d::Result<()> {
    /// use stage2d::glam::{Affine2, Vec2};
    /// let minimap = renderer.create_render_texture(stage2d::RenderTextureOptions::new(160, 120))?;
    /// // The 800x600 world at a fifth of its size.
    /// let fifth = Affine2::from_scale(Vec2::splat(0.2));
    /// renderer.render_node_transformed(scene, world, &minimap, fifth, Some(stage2d::Color::BLACK))?;
    /// # Ok(()) }
    /// ```
    pub fn render_node_transformed(
        &mut self,
        scene: &Scene,
        node: NodeId,
        target: &RenderTarget,
        transform: glam::Affine2,
        clear: Option<Color>,
    ) -> Result<()> {
        scene.check(node)?;
        if !transform.is_finite() {
            return Err(Error::InvalidTransform(
                "a render transform has a non-finite entry",
            ));
        }
        let o = target.options;
        let desc = TargetDesc::new(o.format, o.width, o.height).with_sample_count(samples(o.msaa));
        self.render_frame(&OwnPass {
            scene,
            start: node,
            transform,
            view: &target.view(),
            desc,
            clear,
            target_texture: Some(target.handle.id()),
        })
        .inspect(|_| target.drawn())
    }

    /// Draws `scene` into any colour view of `format` and `size` (a window's surface texture, for example), with
    /// the renderer's MSAA setting. A `format` or `size` that differs from the view's texture is
    /// [`Error::PassMismatch`](crate::Error::PassMismatch).
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
        let desc = TargetDesc::new(format, size.0, size.1)
            .with_sample_count(samples(self.msaa))
            .with_scale_factor(scale_factor);
        // The view is the pass's colour attachment (the resolve target with MSAA): one sample, the stated format
        // and size, and drawable.
        let actual = TargetDesc::from_view(view).with_sample_count(desc.sample_count);
        TargetDesc {
            scale_factor,
            ..actual
        }
        .check_matches(&desc)?;
        if !view
            .texture()
            .usage()
            .contains(wgpu::TextureUsages::RENDER_ATTACHMENT)
            || view.texture().sample_count() != 1
        {
            let why = "the view's texture is not a single-sample RENDER_ATTACHMENT".to_string();
            return Err(Error::UnsupportedTarget(why));
        }
        self.render_frame(&OwnPass {
            scene,
            start: scene.root(),
            transform: glam::Affine2::IDENTITY,
            view,
            desc,
            clear,
            target_texture: None,
        })
    }

    /// The one-call frame: prepare into a new encoder, begin the pass with stage2d's own attachments, record,
    /// submit, trim.
    fn render_frame(&mut self, call: &OwnPass<'_>) -> Result<()> {
        self.alive()?;
        self.begin_frame()?;
        // After `begin_frame`, which frees the slots of textures let go of meanwhile: a target whose texture was
        // destroyed is stale here, whenever it was destroyed.
        if let Some(id) = call.target_texture {
            self.textures.check(id)?;
        }
        // Validation comes first; what wgpu still reports (a lost device, out of memory) becomes an error here
        // rather than a panic in wgpu's default handler.
        let device = self.device.clone();
        let out = device::checked(&device, "drawing a frame", || self.draw_frame(call));
        if self.frame.is_prepared() {
            // A wgpu error after prepare: the frame ends here.
            let (p, t) = (&self.pipelines, &mut self.textures);
            self.frame
                .trim(p, t, &mut self.stats, &FrameStats::default());
        }
        out.map_err(|e| self.lost_or(e))
    }

    fn draw_frame(&mut self, call: &OwnPass<'_>) -> Result<()> {
        let OwnPass {
            scene,
            start,
            transform,
            view,
            desc,
            clear,
            target_texture,
        } = *call;
        let mut encoder = self.encoder("stage2d frame");
        let (p, t, f) = (&mut self.pipelines, &mut self.textures, &mut self.frame);
        let attach = Attach::Own;
        // Filter passes before the frame's own pass write the frame's first timestamp.
        f.first_timestamp = self.timer.as_mut().and_then(GpuTimer::reserve);
        f.clear = clear;
        f.prepare(
            &self.device,
            p,
            t,
            &mut encoder,
            scene,
            start,
            transform,
            desc,
            attach,
            target_texture,
        )?;
        let prepared = *f.prepared().expect("just prepared");
        // The pass's time includes beginning and ending it (wgpu encodes the pass when it ends).
        let t0 = std::time::Instant::now();
        let timer = &mut self.timer;
        let recorded = {
            let begun = f.first_timestamp.take().is_none() && f.timestamp_begun;
            let timestamps = timer.as_mut().and_then(|t| t.pass_writes(begun));
            let mut pass = f.begin_own_pass(&mut encoder, view, clear, timestamps);
            f.record(p, t, &mut pass, &prepared, true)
        };
        let t1 = std::time::Instant::now();
        if let Err(e) = recorded {
            timer.as_mut().map(GpuTimer::abandon);
            f.trim(p, t, &mut self.stats, &FrameStats::default());
            return Err(e);
        }
        if let Some(timer) = timer {
            timer.resolve(&mut encoder);
        }
        let index = self.queue.submit([encoder.finish()]);
        if self.submissions.len() == MAX_TRACKED_SUBMISSIONS {
            self.submissions.pop_front();
        }
        self.submissions.push_back(index);
        if let Some(timer) = &mut self.timer {
            timer.submitted();
        }
        self.release.submitted(&self.queue);
        let own = FrameStats {
            record_ns: (t1 - t0).as_nanos() as u64,
            submit_ns: t1.elapsed().as_nanos() as u64,
            ..FrameStats::default()
        };
        self.frame.trim(p, t, &mut self.stats, &own);
        Ok(())
    }

    /// Blocks until at most `max` of the frames drawn with [`Renderer::render`] (and its siblings) are still
    /// running on the GPU: with `max = 1`, the CPU work of the next frame overlaps the GPU work of the last one,
    /// so a frame costs about the larger of the two rather than their sum. `max = 0` waits for all of them.
    /// Frames a caller submits (embedded) are the caller's to wait for.
    pub fn wait_frames_in_flight(&self, max: usize) -> Result<()> {
        self.alive()?;
        let n = self.submissions.len();
        if n <= max {
            return Ok(());
        }
        let index = self.submissions[n - 1 - max].clone();
        let wait = wgpu::PollType::Wait {
            submission_index: Some(index),
            timeout: None,
        };
        self.device
            .poll(wait)
            .map(|_| ())
            .map_err(|e| self.lost_or(Error::Wgpu(format!("waiting for a frame: {e}"))))
    }

    fn encoder(&self, label: &'static str) -> wgpu::CommandEncoder {
        let desc = wgpu::CommandEncoderDescriptor { label: Some(label) };
        self.device.create_command_encoder(&desc)
    }

    /// What the warm start did.
    pub fn warm_start(&self) -> &WarmStart {
        &self.warm.status
    }

    /// Writes the pipeline-cache file (the pipelines used so far and wgpu's driver cache) atomically; `None`
    /// when no cache directory is configured.
    pub fn save_pipeline_cache(&self) -> Result<Option<PathBuf>> {
        warm::save(&self.warm, &self.pipelines)
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
        self.device.adapter_info()
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

    /// Most textures one batch binds on this device.
    pub fn max_textures_per_batch(&self) -> usize {
        self.frame.batcher.max_textures()
    }

    /// Counters of the last frame and in total, and the GPU objects held now, as a [`Stats`] returned by
    /// value: a snapshot taken at this call, which later frames do not update (call again for fresh numbers).
    pub fn stats(&self) -> Stats {
        let pending = self.release.len() + self.textures.retired_len() + self.frame.retired.len();
        Stats {
            gpu_ms: self.timer.as_ref().and_then(|t| t.last_ms),
            live: LiveCounts {
                kept_texture_bytes: self.textures.kept_bytes(),
                textures: self.textures.live_textures() as u64,
                bind_groups: self.textures.bind_groups() as u64,
                render_targets: self.render_textures.live(),
                attachments: self.frame.attachment_count() as u64,
                pipelines: self.pipelines.counters().pipelines_created,
                pending_releases: pending as u64,
            },
            ..self.stats
        }
    }
}

/// What a one-call frame draws, and into what.
#[derive(Clone, Copy)]
struct OwnPass<'a> {
    scene: &'a Scene,
    /// The node drawn as the root.
    start: NodeId,
    /// Applied to the whole drawing, in the target's pixels (identity but for `render_node_transformed`).
    transform: glam::Affine2,
    view: &'a wgpu::TextureView,
    desc: TargetDesc,
    clear: Option<Color>,
    /// The render texture drawn into, if it is one (drawing it into itself is a feedback loop).
    target_texture: Option<crate::TextureId>,
}

/// The sample count of a target drawn with or without MSAA.
fn samples(msaa: bool) -> u32 {
    if msaa {
        4
    } else {
        1
    }
}

impl Drop for Renderer {
    fn drop(&mut self) {
        if let Err(e) = self.save_pipeline_cache() {
            log::warn!("could not save the pipeline cache: {e}");
        }
    }
}
