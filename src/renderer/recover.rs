//! A lost GPU device and recovery on a new one: [`Renderer::recover`] and its siblings.
//!
//! wgpu reports a lost device (a driver reset, a GPU removed or switched, `Device::destroy`) through the device's
//! lost callback, which stage2d sets on the devices it opens, and through the errors of calls that meet it. From
//! then on every call that would use the device answers [`Error::DeviceLost`]; recovery builds the systems again on
//! a new device and gives every texture handle, render target, filter shader and mesh shader its storage there.

use super::Renderer;
use crate::frame::Frame;
use crate::gpu::device;
use crate::gpu::health::{says_lost, DeviceHealth};
use crate::gpu::pipeline::warm;
use crate::gpu::pipeline::PipelineSystem;
use crate::gpu::release::ReleaseQueue;
use crate::gpu::timer::GpuTimer;
use crate::{Error, Result};

impl Renderer {
    /// A function for an embedding program's device-lost callback (wgpu keeps one callback a device, and a
    /// device given to [`Renderer::from_device`] keeps the caller's): call it from there, or install it, so the
    /// renderer answers [`Error::DeviceLost`](crate::Error::DeviceLost) from then on. Devices stage2d opens
    /// itself have it installed already.
    ///
    /// ```no_run
    /// # fn f(renderer: &stage2d::Renderer, device: &stage2d::wgpu::Device) {
    /// let tell = renderer.device_lost_handler();
    /// device.set_device_lost_callback(move |reason, message| {
    ///     // ... the program's own handling ...
    ///     tell(reason, message);
    /// });
    /// # }
    /// ```
    pub fn device_lost_handler(
        &self,
    ) -> impl Fn(wgpu::DeviceLostReason, String) + Send + Sync + Clone + 'static {
        let health = self.health.clone();
        move |reason, message| {
            log::error!("the GPU device was lost ({reason:?}): {message}");
            health.set_lost(format!("{reason:?}: {message}"));
        }
    }

    /// Whether the GPU device is lost: every call that would use it answers
    /// [`Error::DeviceLost`](crate::Error::DeviceLost) until [`Renderer::recover`].
    pub fn is_device_lost(&self) -> bool {
        self.health.is_lost()
    }

    /// Polls the device (without waiting), which runs its lost callback if it was lost meanwhile, and says whether
    /// it is lost. For callers that met a failure outside stage2d's calls (a surface that gives no texture).
    pub fn notice_device_loss(&self) -> bool {
        if !self.health.is_lost() {
            let _ = self.device.poll(wgpu::PollType::Poll);
        }
        self.health.is_lost()
    }

    /// [`Error::DeviceLost`] if the device is lost.
    pub(crate) fn alive(&self) -> Result<()> {
        self.health.check()
    }

    /// Turns an error met on a device that turns out to be lost into [`Error::DeviceLost`] (and notes the loss
    /// where the error says so: a caller's device has no lost callback of stage2d's).
    pub(crate) fn lost_or(&self, e: Error) -> Error {
        if let Error::Wgpu(why) | Error::Readback(why) = &e {
            if says_lost(why) {
                self.health.set_lost(why.clone());
            } else {
                // wgpu makes every object of a lost device invalid, and its lost callback runs at the next poll.
                self.notice_device_loss();
            }
        }
        match self.health.check() {
            Err(lost) if !matches!(e, Error::DeviceLost(_)) => lost,
            _ => e,
        }
    }

    /// Goes on on a new device after [`Error::DeviceLost`](crate::Error::DeviceLost), on the adapter chosen as
    /// [`Renderer::new_headless`] chooses it (from the same wgpu instance, where the renderer made one). See
    /// [`Renderer::recover_on`].
    pub fn recover(&mut self) -> Result<()> {
        let instance = match self.instance.take() {
            Some(i) => i,
            None => wgpu::Instance::new(device::instance_descriptor(
                wgpu::InstanceDescriptor::new_without_display_handle(),
            )),
        };
        let adapter = device::select_adapter(&instance, None, self.options.power_preference);
        self.instance = Some(instance);
        self.recover_on(&adapter?)
    }

    /// Goes on on a new device opened on `adapter` (for a window: one compatible with its surface).
    ///
    /// The scene is untouched and every handle stays valid: textures made from files, bytes or pixels (sheet
    /// frames, bitmap-font pages and SVG textures included) are made again from the pixels the renderer keeps
    /// for them ([`RendererOptions::with_kept_texture_pixels`](crate::RendererOptions::with_kept_texture_pixels);
    /// `stats().live.kept_texture_bytes` says how much), render targets
    /// get new storage, cleared, with [`RenderTarget::contents_lost`](crate::RenderTarget::contents_lost) set
    /// (their pixels are the app's to draw again), filter and mesh shaders are compiled again under the same
    /// handles, pipelines come back through the warm-start file where one is set, and glyph atlases, tessellated
    /// shapes, filter results and pooled attachments are made again as frames need them. Also right after a
    /// device that is not lost (moving to another GPU).
    pub fn recover_on(&mut self, adapter: &wgpu::Adapter) -> Result<()> {
        let cache = self.options.pipeline_cache.is_some();
        let (device, queue) = device::open_device(adapter, cache, self.options.gpu_timing)?;
        let full_index = adapter
            .get_downlevel_capabilities()
            .flags
            .contains(wgpu::DownlevelFlags::FULL_DRAW_INDEX_UINT32);
        self.rebuild(device, queue, full_index, true)
    }

    /// Goes on on the caller's new device and queue (embedded; see [`Renderer::from_device`] for what the device
    /// needs and [`Renderer::recover_on`] for what comes back).
    pub fn recover_with_device(&mut self, device: wgpu::Device, queue: wgpu::Queue) -> Result<()> {
        let full_index = device::full_index_by_backend(&device);
        self.rebuild(device, queue, full_index, false)
    }

    fn rebuild(
        &mut self,
        device: wgpu::Device,
        queue: wgpu::Queue,
        full_index: bool,
        own: bool,
    ) -> Result<()> {
        let started = std::time::Instant::now();
        let caps = device::capabilities(&device, full_index, self.options.max_textures_per_batch)?;
        let health = DeviceHealth::watch(&device, own);
        let what = "setting stage2d up again on a new device";
        device::checked(&device, what, || {
            let made = self
                .textures
                .recover(device.clone(), queue.clone(), caps.slots);
            // A caller's backdrop was a texture of the lost device: the next `prepare_over` brings the new one.
            if let Some((_, id)) = self.backdrop.take() {
                let _ = self.textures.destroy(id);
            }
            let mut pipelines = PipelineSystem::new(device.clone());
            let mut frame = Frame::new(&device, &queue, &caps, &mut pipelines, &self.textures)?;
            if let Some(min) = self.options.parallel_collect_min {
                frame.collector.set_parallel_min(min);
            }
            frame.collector.filters.keep_results = self.options.keep_filter_results;
            // The warm start before the old shaders come back: the cache file is keyed by the shaders a fresh
            // renderer registers, as at start-up.
            let warm = match self.options.pipeline_cache.clone() {
                Some(dir) => Some(warm::warm_up(
                    &device,
                    &mut pipelines,
                    dir,
                    caps.driver_cache,
                )?),
                None => None,
            };
            frame.filters.adopt(&self.frame.filters, &mut pipelines)?;
            frame.meshes.adopt(&self.frame.meshes, &mut pipelines)?;
            frame.collector.filters.shader_owner = frame.filters.owner();
            frame.collector.caches.custom_meshes.owner = frame.meshes.owner();
            let targets = self
                .render_textures
                .recover(&device, &mut self.textures, |o| {
                    frame.keep_stencil(o.format, (o.width, o.height))
                });
            self.pipelines = pipelines;
            self.frame = frame;
            self.device = device.clone();
            self.queue = queue.clone();
            self.release = ReleaseQueue::default();
            self.submissions.clear();
            self.timer = self
                .options
                .gpu_timing
                .then(|| GpuTimer::new(&device, &queue))
                .flatten();
            self.absorb_texture_stats();
            if let Some(warm) = warm {
                self.warm = warm;
            }
            let ms = started.elapsed().as_secs_f64() * 1e3;
            log::warn!(
                "stage2d recovered on {} ({:?}) in {ms:.1} ms: {made} textures and {targets} render targets made again",
                device.adapter_info().name,
                device.adapter_info().backend
            );
            self.stats.device_recoveries += 1;
            Ok(())
        })?;
        self.health = health;
        Ok(())
    }
}
