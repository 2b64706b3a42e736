//! The embedded frame (glyphon's shape): [`Renderer::prepare`] does the CPU work and uploads,
//! [`Renderer::record`] only records into a render pass the caller began, the caller submits, and
//! [`Renderer::trim`] ends the frame.

use super::Renderer;
use crate::base::stats::FrameStats;
use crate::frame::Attach;
use crate::{Error, Result, Scene, TargetDesc};

impl Renderer {
    /// Prepares a frame of `scene` for a render pass on `target` that the caller will begin: collects and batches
    /// the scene, uploads what changed (submitted on the queue now, ahead of the caller's work), and creates any
    /// pipeline and bind group the draws need. Then [`Renderer::record`] draws it into the pass; after the caller
    /// submits the pass, [`Renderer::trim`] ends the frame.
    ///
    /// A frame prepared and not yet trimmed is [`Error::NotTrimmed`] if it was recorded, else
    /// [`Error::AlreadyPrepared`] (its uploads would overwrite data a recorded pass still reads); a scene with
    /// stencil masks and a target without a stencil attachment is [`Error::StencilRequired`].
    ///
    /// A whole embedded frame, into a texture the program owns, read back at the end:
    /// ```
    /// use stage2d::{wgpu, Color, Node, Renderer, Scene, TargetDesc};
    /// # fn main() -> stage2d::Result<()> {
    /// // The program's own device (any adapter; stage2d's selection helper here).
    /// let instance = wgpu::Instance::new(stage2d::instance_descriptor(
    ///     wgpu::InstanceDescriptor::new_without_display_handle(),
    /// ));
    /// let adapter = stage2d::select_adapter(&instance, None, wgpu::PowerPreference::default())?;
    /// let (device, queue) = pollster::block_on(adapter.request_device(&Default::default()))?;
    /// let texture = device.create_texture(&wgpu::TextureDescriptor {
    ///     label: None,
    ///     size: wgpu::Extent3d { width: 64, height: 64, depth_or_array_layers: 1 },
    ///     mip_level_count: 1,
    ///     sample_count: 1,
    ///     dimension: wgpu::TextureDimension::D2,
    ///     format: wgpu::TextureFormat::Rgba8Unorm,
    ///     usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
    ///     view_formats: &[],
    /// });
    /// let view = texture.create_view(&Default::default());
    ///
    /// let mut renderer = Renderer::from_device(device.clone(), queue.clone(), Default::default())?;
    /// let mut scene = Scene::new();
    /// let white = renderer.white_texture();
    /// scene.add(scene.root(), Node::sprite(white).sized(32.0, 32.0).tinted(Color::RED))?;
    ///
    /// let target = TargetDesc::from_view(&view);
    /// renderer.prepare(&scene, &target)?; // before the pass opens
    /// let mut encoder = device.create_command_encoder(&Default::default());
    /// {
    ///     let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
    ///         color_attachments: &[Some(wgpu::RenderPassColorAttachment {
    ///             view: &view,
    ///             depth_slice: None,
    ///             resolve_target: None,
    ///             ops: wgpu::Operations {
    ///                 load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
    ///                 store: wgpu::StoreOp::Store,
    ///             },
    ///         })],
    ///         ..Default::default()
    ///     });
    ///     // ... the program's own draws ...
    ///     renderer.record(&mut pass, &target)?;
    /// }
    /// queue.submit([encoder.finish()]);
    /// renderer.trim(); // after the submit
    /// let image = renderer.read_texture(&texture)?;
    /// assert_eq!(image.get_pixel(8, 8).0, [255, 0, 0, 255]);
    /// assert_eq!(image.get_pixel(40, 40).0, [0, 0, 0, 255]);
    /// # Ok(()) }
    /// ```
    pub fn prepare(&mut self, scene: &Scene, target: &TargetDesc) -> Result<()> {
        let mut encoder = self.encoder("stage2d prepare");
        if self.prepare_with_encoder(&mut encoder, scene, target)? {
            self.queue.submit([encoder.finish()]);
        }
        Ok(())
    }

    /// Like [`Renderer::prepare`], with the uploads recorded into the caller's `encoder`, ahead of the pass the
    /// caller begins on it. Returns whether anything was recorded. Submit the encoder before trimming (glyph
    /// bitmaps still go through the queue, ahead of it).
    pub fn prepare_with_encoder(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        scene: &Scene,
        target: &TargetDesc,
    ) -> Result<bool> {
        self.alive()?;
        self.begin_frame()?;
        self.prepare_embedded(encoder, scene, target)
    }

    /// Like [`Renderer::prepare_with_encoder`], for a frame drawn over what the caller has already drawn into
    /// its target: `backdrop` is the target's texture (or, for a multisampled pass, the texture it resolves
    /// into), as the work recorded into `encoder` before this call (or submitted before it) leaves it. Advanced
    /// blend modes ([`BlendMode::is_advanced`](crate::BlendMode::is_advanced)) then blend with the caller's
    /// pixels as well as stage2d's, as they do in a frame stage2d draws itself. A frame without them is
    /// prepared as by [`Renderer::prepare_with_encoder`] and `backdrop` is not read.
    ///
    /// With an advanced blend mode in the scene the frame is drawn into a texture that starts as a copy of
    /// `backdrop`, and [`Renderer::record`] writes that texture over the whole target: what the pass draws before
    /// `record` is covered, so the caller's own drawing under stage2d's belongs before this call. On an sRGB
    /// target the copy holds linear values in 8 bits (stage2d blends there in linear space, as on any sRGB
    /// target).
    ///
    /// `backdrop` must be as large as the target, single-sampled, of the target's format (or its sRGB or
    /// non-sRGB twin) and made with [`wgpu::TextureUsages::TEXTURE_BINDING`], else [`Error::PassMismatch`]
    /// (nothing prepared). The renderer keeps a reference to the last one until another is given (a new one
    /// costs a texture view).
    pub fn prepare_over(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        scene: &Scene,
        target: &TargetDesc,
        backdrop: &wgpu::Texture,
    ) -> Result<bool> {
        self.alive()?;
        let size = (
            backdrop.width(),
            backdrop.height(),
            backdrop.depth_or_array_layers(),
        );
        let problem = if size != (target.width, target.height, 1) {
            Some(format!(
                "the backdrop is {}x{}x{}, the target {}x{}",
                size.0, size.1, size.2, target.width, target.height
            ))
        } else if backdrop.sample_count() != 1 {
            Some(format!(
                "the backdrop has {} samples: give the texture the pass resolves into",
                backdrop.sample_count()
            ))
        } else if !backdrop
            .usage()
            .contains(wgpu::TextureUsages::TEXTURE_BINDING)
        {
            Some("the backdrop was not made with TEXTURE_BINDING usage".to_string())
        } else if backdrop.format().remove_srgb_suffix() != target.format.remove_srgb_suffix() {
            Some(format!(
                "the backdrop is {:?}, the target {:?}",
                backdrop.format(),
                target.format
            ))
        } else {
            None
        };
        if let Some(p) = problem {
            return Err(Error::PassMismatch(p));
        }
        self.begin_frame()?;
        let id = match &self.backdrop {
            Some((t, id)) if t == backdrop && self.textures.is_live(*id) => *id,
            _ => {
                if let Some((_, old)) = self.backdrop.take() {
                    let _ = self.textures.destroy(old);
                }
                let id = self
                    .textures
                    .insert_external(backdrop.clone(), crate::Sampling::NEAREST)?;
                self.backdrop = Some((backdrop.clone(), id));
                id
            }
        };
        // Its pixels are the caller's: any result drawn from them is drawn again.
        self.textures.touch(id);
        self.frame.backdrop = Some(id);
        let out = self.prepare_embedded(encoder, scene, target);
        self.frame.backdrop = None;
        out
    }

    /// The frame of [`Renderer::prepare_with_encoder`] (the frame begun).
    fn prepare_embedded(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        scene: &Scene,
        target: &TargetDesc,
    ) -> Result<bool> {
        let (p, t, f) = (&mut self.pipelines, &mut self.textures, &mut self.frame);
        f.clear = None;
        let root = scene.root();
        let out = crate::gpu::device::checked(&self.device, "preparing a frame", || {
            let attach = Attach::Caller;
            f.prepare(
                &self.device,
                p,
                t,
                encoder,
                scene,
                root,
                glam::Affine2::IDENTITY,
                *target,
                attach,
                None,
            )
        });
        if out.is_err() {
            // Nothing of this frame may be recorded.
            let (p, t, s) = (&self.pipelines, &mut self.textures, &mut self.stats);
            self.frame.trim(p, t, s, &FrameStats::default());
        }
        out.map_err(|e| self.lost_or(e))
    }

    /// Records the prepared frame into `pass`, a pass the caller began on the target described by `target`: the
    /// same colour format, size, sample count and depth-stencil attachment as the prepared one, else
    /// [`Error::PassMismatch`]. Only `set_*` and draw calls; it can be called again for another matching pass.
    /// Without a prepared frame it is [`Error::NotPrepared`].
    pub fn record(&self, pass: &mut wgpu::RenderPass<'_>, target: &TargetDesc) -> Result<()> {
        self.alive()?;
        let (p, t) = (&self.pipelines, &self.textures);
        self.frame.record(p, t, pass, target, false)
    }

    /// Ends the frame: its counters go into [`Renderer::stats`] (a frame trimmed without being recorded counts
    /// as a frame without passes), per-frame caches are trimmed, and textures destroyed meanwhile are released
    /// at the next frame. Without a prepared frame it does nothing.
    ///
    /// **Submit the work that records the frame (`queue.submit` of the encoder holding the pass) before calling
    /// `trim`.** Objects let go of at trim and after are released only once the GPU has finished the work
    /// submitted *before* trim; work submitted after trim that still draws this frame can find its buffers,
    /// bind groups or textures released under it (a wgpu validation error or wrong pixels). To drop a prepared
    /// frame without recording it, call `trim` without recording.
    pub fn trim(&mut self) {
        if self.frame.is_prepared() {
            // The caller has submitted the frame's work: the release queue waits for it from now on.
            self.release.submitted(&self.queue);
        }
        let (p, t, s) = (&self.pipelines, &mut self.textures, &mut self.stats);
        self.frame.trim(p, t, s, &FrameStats::default());
    }

    /// The start of any frame: none may be in flight. Textures and render targets let go of since the last
    /// frame, and evicted attachments, join the release queue; pooled render textures returned meanwhile get new
    /// handles; what the GPU has finished with is released.
    pub(super) fn begin_frame(&mut self) -> Result<()> {
        if self.frame.is_prepared() {
            return Err(match self.frame.was_recorded() {
                true => Error::NotTrimmed,
                false => Error::AlreadyPrepared,
            });
        }
        let (rt, t) = (&mut self.render_textures, &mut self.textures);
        t.release_retiring();
        rt.release_dropped(t);
        rt.renew_returned(t);
        self.release.retire_all(t.take_retired());
        self.release.retire_all(self.frame.retired.drain(..));
        // One poll (without waiting) notices finished frames for both the release queue and the GPU timer.
        let timing = self.timer.as_ref().is_some_and(|t| t.waiting());
        if self.release.len() > 0 || timing {
            let _ = self.device.poll(wgpu::PollType::Poll);
        }
        self.release.release_finished();
        if let Some(timer) = &mut self.timer {
            timer.collect();
        }
        Ok(())
    }
}
