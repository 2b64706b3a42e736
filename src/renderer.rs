//! The Renderer: a small owner of systems (the PixiJS v8 shape). It holds the device and queue, the
//! [`PipelineSystem`](crate::pipeline::PipelineSystem) with its warm start, the
//! [`TextureSystem`](crate::texture_system::TextureSystem), the render-texture pool and the [`Frame`], and hands
//! each call to the system that owns the state. The frame's phases are in `frame.rs`.

use crate::device::{self, Capabilities};
use crate::frame::{Attach, Frame};
use crate::pipeline::warm::{self, WarmStart, WarmState};
use crate::pipeline::PipelineSystem;
use crate::readback;
use crate::stats::{FrameStats, Stats};
use crate::target::{PooledRenderTexture, RenderTarget, RenderTextureOptions, RenderTextures};
use crate::texture_system::TextureSystem;
use crate::{Color, Error, NodeId, Result, Sampling, Scene, TargetDesc, Texture};
use std::path::{Path, PathBuf};

/// How to set up a [`Renderer`]: `RendererOptions::default().with_msaa(true)`.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct RendererOptions {
    /// Most textures one batch binds; clamped to the device's per-stage sampled-texture and sampler limits and to
    /// 16.
    pub max_textures_per_batch: usize,
    /// Adapter preference when `WGPU_ADAPTER_NAME` is not set (`WGPU_POWER_PREF` overrides it).
    pub power_preference: wgpu::PowerPreference,
    /// Draw windows and new render targets with 4x multisampling (anti-aliased shape edges).
    pub msaa: bool,
    /// A directory for the pipeline-cache file: pipelines seen by earlier runs are created before the first frame,
    /// from wgpu's driver cache where the device has one. Saved by [`Renderer::save_pipeline_cache`] and when
    /// the renderer is dropped.
    pub pipeline_cache: Option<PathBuf>,
}

impl Default for RendererOptions {
    fn default() -> Self {
        RendererOptions {
            max_textures_per_batch: crate::batcher::MAX_BATCH_TEXTURES,
            power_preference: wgpu::PowerPreference::HighPerformance,
            msaa: false,
            pipeline_cache: None,
        }
    }
}

impl RendererOptions {
    /// With at most `n` textures per batch.
    pub fn with_max_textures_per_batch(mut self, n: usize) -> Self {
        self.max_textures_per_batch = n;
        self
    }
    /// With an adapter preference.
    pub fn with_power_preference(mut self, p: wgpu::PowerPreference) -> Self {
        self.power_preference = p;
        self
    }
    /// With 4x multisampling on or off.
    pub fn with_msaa(mut self, on: bool) -> Self {
        self.msaa = on;
        self
    }
    /// With a pipeline-cache directory (warm starts).
    pub fn with_pipeline_cache(mut self, dir: impl Into<PathBuf>) -> Self {
        self.pipeline_cache = Some(dir.into());
        self
    }
}

/// The stage2d renderer. See the crate docs for the frame and the two ways to drive it.
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
}

impl Renderer {
    /// A renderer with its own device, on the adapter chosen from the environment (`WGPU_BACKEND`,
    /// `WGPU_ADAPTER_NAME`, `WGPU_POWER_PREF`), software adapters included.
    pub fn new_headless(options: RendererOptions) -> Result<Renderer> {
        let instance = wgpu::Instance::new(device::instance_descriptor(
            wgpu::InstanceDescriptor::new_without_display_handle(),
        ));
        let adapter = device::select_adapter(&instance, None, options.power_preference)?;
        Self::from_adapter(&adapter, options)
    }

    /// A renderer with its own device on `adapter` (for windows: one compatible with the surface).
    pub fn from_adapter(adapter: &wgpu::Adapter, options: RendererOptions) -> Result<Renderer> {
        let (device, queue) = device::open_device(adapter, options.pipeline_cache.is_some())?;
        let full_index = adapter
            .get_downlevel_capabilities()
            .flags
            .contains(wgpu::DownlevelFlags::FULL_DRAW_INDEX_UINT32);
        let caps = device::capabilities(&device, full_index, options.max_textures_per_batch)?;
        Self::build(device, queue, caps, options)
    }

    /// A renderer on a device the caller owns (with the instance, adapter and queue), for drawing into the
    /// caller's render passes with [`Renderer::prepare`] and [`Renderer::record`]. The device needs 2 storage
    /// buffers per shader stage (request the adapter's limits); otherwise this is
    /// [`Error::UnsupportedDevice`]. Warm starts use wgpu's driver cache only if the device was created with
    /// `Features::PIPELINE_CACHE`.
    pub fn from_device(
        device: wgpu::Device,
        queue: wgpu::Queue,
        options: RendererOptions,
    ) -> Result<Renderer> {
        let full_index = device::full_index_by_backend(&device);
        let caps = device::capabilities(&device, full_index, options.max_textures_per_batch)?;
        Self::build(device, queue, caps, options)
    }

    fn build(
        device: wgpu::Device,
        queue: wgpu::Queue,
        caps: Capabilities,
        options: RendererOptions,
    ) -> Result<Renderer> {
        let what = "setting up stage2d's pipelines on this device";
        device::checked(&device, what, || {
            let textures = TextureSystem::new(device.clone(), queue.clone(), caps.slots);
            let mut pipelines = PipelineSystem::new(device.clone());
            let frame = Frame::new(&device, &caps, &mut pipelines, &textures)?;
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
            };
            r.absorb_texture_stats();
            if let Some(dir) = options.pipeline_cache {
                let cache = caps.driver_cache;
                r.warm = warm::warm_up(&r.device, &mut r.pipelines, dir, cache)?;
            }
            Ok(r)
        })
    }

    /// Prepares a frame of `scene` for a render pass on `target` that the caller will begin: collects and batches
    /// the scene, uploads what changed (submitted on the queue now, ahead of the caller's work), and creates any
    /// pipeline and bind group the draws need. Then [`Renderer::record`] draws it into the pass.
    ///
    /// A frame prepared and not yet recorded is [`Error::AlreadyPrepared`]; a scene with stencil masks and a
    /// target without a stencil attachment is [`Error::StencilRequired`].
    pub fn prepare(&mut self, scene: &Scene, target: &TargetDesc) -> Result<()> {
        let mut encoder = self.encoder("stage2d prepare");
        self.prepare_with_encoder(&mut encoder, scene, target)?;
        self.queue.submit([encoder.finish()]);
        Ok(())
    }

    /// Like [`Renderer::prepare`], with the uploads recorded into the caller's `encoder` (ahead of the pass the
    /// caller begins on it). Submit it before the next prepare.
    pub fn prepare_with_encoder(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        scene: &Scene,
        target: &TargetDesc,
    ) -> Result<()> {
        self.finish_recorded_frame()?;
        let (p, t, f) = (&mut self.pipelines, &mut self.textures, &mut self.frame);
        self.render_textures.release_dropped(t);
        let root = scene.root();
        let attach = Attach::Caller;
        f.prepare(
            &self.device,
            p,
            t,
            encoder,
            scene,
            root,
            *target,
            attach,
            None,
        )
    }

    /// Records the prepared frame into `pass`, a pass the caller began on the target described by `target`: the
    /// same colour format, size, sample count and depth-stencil attachment as the prepared one, else
    /// [`Error::PassMismatch`]. Only `set_*` and draw calls; it can be called again for another matching pass.
    /// Without a prepared frame it is [`Error::NotPrepared`].
    pub fn record(&self, pass: &mut wgpu::RenderPass<'_>, target: &TargetDesc) -> Result<()> {
        let (p, t) = (&self.pipelines, &self.textures);
        self.frame.record(p, t, pass, target, false)
    }

    /// Ends the frame after the caller submitted it: its counters go into [`Renderer::stats`] and per-frame caches
    /// are trimmed. A prepared frame that will not be recorded is dropped. The next prepare does this itself for
    /// a frame that was recorded.
    pub fn trim(&mut self) {
        let (p, t, s) = (&self.pipelines, &mut self.textures, &mut self.stats);
        self.frame.trim(p, t, s, &FrameStats::default());
    }

    fn finish_recorded_frame(&mut self) -> Result<()> {
        if self.frame.is_prepared() && !self.frame.was_recorded() {
            return Err(Error::AlreadyPrepared);
        }
        self.trim();
        Ok(())
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
    /// cached into a texture). Drawing a target's own texture into it is [`Error::FeedbackLoop`].
    pub fn render_node(
        &mut self,
        scene: &Scene,
        node: NodeId,
        target: &RenderTarget,
        clear: Option<Color>,
    ) -> Result<()> {
        let o = target.options;
        let desc = TargetDesc::new(o.format, o.width, o.height).with_sample_count(samples(o.msaa));
        let texture = Some(target.handle.id());
        self.render_frame(scene, node, &target.view, desc, clear, texture)
    }

    /// Draws `scene` into any colour view of `format` and `size` (a window's surface texture, for example), with
    /// the renderer's MSAA setting.
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
        self.render_frame(scene, scene.root(), view, desc, clear, None)
    }

    /// The one-call frame: prepare into a new encoder, begin the pass with stage2d's own attachments, record,
    /// submit, trim.
    fn render_frame(
        &mut self,
        scene: &Scene,
        start: NodeId,
        view: &wgpu::TextureView,
        desc: TargetDesc,
        clear: Option<Color>,
        target_texture: Option<crate::TextureId>,
    ) -> Result<()> {
        self.finish_recorded_frame()?;
        self.render_textures.release_dropped(&mut self.textures);
        let mut encoder = self.encoder("stage2d frame");
        let (p, t, f) = (&mut self.pipelines, &mut self.textures, &mut self.frame);
        let attach = Attach::Own;
        f.prepare(
            &self.device,
            p,
            t,
            &mut encoder,
            scene,
            start,
            desc,
            attach,
            target_texture,
        )?;
        let prepared = *f.prepared().expect("just prepared");
        let recorded = {
            let mut pass = f.begin_own_pass(&mut encoder, view, clear);
            f.record(p, t, &mut pass, &prepared, true)
        };
        if let Err(e) = recorded {
            f.trim(p, t, &mut self.stats, &FrameStats::default());
            return Err(e);
        }
        let t0 = std::time::Instant::now();
        self.queue.submit([encoder.finish()]);
        let submit = FrameStats {
            submit_ns: t0.elapsed().as_nanos() as u64,
            ..FrameStats::default()
        };
        self.frame.trim(p, t, &mut self.stats, &submit);
        Ok(())
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
    pub fn create_texture(&mut self, w: u32, h: u32, rgba: &[u8], s: Sampling) -> Result<Texture> {
        let mut pixels = rgba.to_vec();
        readback::premultiply(&mut pixels);
        let t = self.textures.create_from_premultiplied(w, h, &pixels, s);
        self.absorb_texture_stats();
        t
    }

    /// A texture from a decoded image.
    pub fn texture_from_image(&mut self, image: &image::RgbaImage, s: Sampling) -> Result<Texture> {
        self.create_texture(image.width(), image.height(), image.as_raw(), s)
    }

    /// A texture from encoded image bytes (PNG and JPEG with the default features). Corrupt bytes are
    /// [`Error::ImageDecode`].
    pub fn texture_from_bytes(&mut self, bytes: &[u8], sampling: Sampling) -> Result<Texture> {
        let img = image::load_from_memory(bytes)?.to_rgba8();
        self.texture_from_image(&img, sampling)
    }

    /// A texture from an image file. A missing or corrupt file is [`Error::ImageFile`] naming it.
    pub fn load_texture(&mut self, path: impl AsRef<Path>, sampling: Sampling) -> Result<Texture> {
        let path = path.as_ref();
        let img = image::open(path).map_err(|source| Error::ImageFile {
            path: path.to_owned(),
            source,
        })?;
        self.texture_from_image(&img.to_rgba8(), sampling)
    }

    /// Destroys a texture and the bind groups holding it. Nodes still showing it are skipped with a warning.
    pub fn destroy_texture(&mut self, texture: Texture) -> Result<()> {
        self.textures.destroy(texture.id())
    }

    /// An offscreen `Rgba8Unorm` target of `width x height` pixels, multisampled if the renderer is.
    pub fn create_render_target(&mut self, width: u32, height: u32) -> Result<RenderTarget> {
        let options = RenderTextureOptions::new(width, height).with_msaa(self.msaa);
        self.create_render_texture(options)
    }

    /// A render texture: a target to draw into that sprites can show.
    pub fn create_render_texture(&mut self, options: RenderTextureOptions) -> Result<RenderTarget> {
        let t = self
            .render_textures
            .create(&self.device, &mut self.textures, options)?;
        self.stats.total.textures_created += 1;
        if options.depth_stencil {
            self.frame
                .keep_stencil(options.format, (options.width, options.height));
        }
        Ok(t)
    }

    /// Resizes a render texture (its contents are lost). Sprites must take [`RenderTarget::texture`] again: the
    /// old handle goes stale and is skipped with a warning.
    pub fn resize_render_texture(
        &mut self,
        target: &mut RenderTarget,
        w: u32,
        h: u32,
    ) -> Result<()> {
        let options = RenderTextureOptions {
            width: w,
            height: h,
            ..target.options
        };
        // The old target is dropped here; its slot is freed with the next frame.
        *target = self.create_render_texture(options)?;
        Ok(())
    }

    /// A temporary render texture from the pool (or a new one); it returns to the pool when dropped.
    pub fn acquire_render_texture(
        &mut self,
        o: RenderTextureOptions,
    ) -> Result<PooledRenderTexture> {
        let target = match self.render_textures.take_pooled(&o) {
            Some(t) => t,
            None => self.create_render_texture(o)?,
        };
        Ok(PooledRenderTexture::new(
            target,
            self.render_textures.pool.clone(),
        ))
    }

    /// Textures handed out by [`Renderer::acquire_render_texture`] that came from the pool.
    pub fn pool_hits(&self) -> u64 {
        self.render_textures.pool_hits
    }

    /// Render textures waiting in the pool.
    pub fn pooled_render_textures(&self) -> usize {
        self.render_textures.pool.len()
    }

    /// Blocks until the GPU has finished all submitted work.
    pub fn wait_idle(&self) -> Result<()> {
        readback::wait_idle(&self.device)
    }

    /// Reads a target back as premultiplied RGBA8, exactly as stored.
    pub fn read_pixels_premultiplied(&self, target: &RenderTarget) -> Result<image::RgbaImage> {
        readback::read_premultiplied(&self.device, &self.queue, &target.texture)
    }

    /// Reads a target back as straight-alpha RGBA8 (what PNG files hold).
    pub fn read_pixels(&self, target: &RenderTarget) -> Result<image::RgbaImage> {
        let mut img = self.read_pixels_premultiplied(target)?;
        readback::unpremultiply(&mut img);
        Ok(img)
    }

    /// Reads a target back and saves it as a PNG with straight alpha (needs the `png` feature).
    pub fn save_png(&self, target: &RenderTarget, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let save = |source| Error::SaveImage {
            path: path.to_owned(),
            source,
        };
        let img = self.read_pixels(target)?;
        img.save_with_format(path, image::ImageFormat::Png)
            .map_err(save)
    }
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
