//! The Renderer's resources: textures, render textures and their pool, and readback. Each call goes to the system
//! that owns the state (`TextureSystem`, `RenderTextures`, `readback`).

use super::Renderer;
use crate::gpu::readback;
use crate::gpu::target::{PooledRenderTexture, RenderTarget, RenderTextureOptions};
use crate::{Error, Result, Sampling, Texture};
use std::path::Path;

impl Renderer {
    /// A 1x1 opaque white texture, handy for solid rectangles (`Node::sprite(white).sized(w, h).tinted(c)`).
    pub fn white_texture(&self) -> Texture {
        self.textures.white()
    }

    pub(super) fn absorb_texture_stats(&mut self) {
        let s = self.textures.take_stats();
        self.stats.total.accumulate(&s);
    }

    /// A texture from straight-alpha RGBA8 pixels (`width * height * 4` bytes).
    pub fn create_texture(&mut self, w: u32, h: u32, rgba: &[u8], s: Sampling) -> Result<Texture> {
        // Size and length first: nothing is copied for a texture that cannot be made.
        self.textures.check_size(w, h)?;
        let expected = w as usize * h as usize * 4;
        if rgba.len() != expected {
            let got = rgba.len();
            return Err(Error::PixelDataSize { got, expected });
        }
        let mut pixels = rgba.to_vec();
        crate::base::color::premultiply(&mut pixels);
        self.texture_from_premultiplied(w, h, &pixels, s)
    }

    /// A texture from premultiplied RGBA8 pixels (an image a loader has premultiplied on its own thread).
    pub(crate) fn texture_from_premultiplied(
        &mut self,
        w: u32,
        h: u32,
        pixels: &[u8],
        s: Sampling,
    ) -> Result<Texture> {
        self.alive()?;
        let textures = &mut self.textures;
        let t = crate::gpu::device::checked(&self.device, "creating a texture", || {
            textures.create_from_premultiplied(w, h, pixels, s)
        });
        self.absorb_texture_stats();
        t.map_err(|e| self.lost_or(e))
    }

    /// A texture of `w x h` whose pixels are written later, a band of rows at a time
    /// ([`Renderer::write_texture_rows`]), for uploads spread over frames.
    pub(crate) fn begin_texture(&mut self, w: u32, h: u32, s: Sampling) -> Result<Texture> {
        self.alive()?;
        let textures = &mut self.textures;
        let t = crate::gpu::device::checked(&self.device, "creating a texture", || {
            textures.check_size(w, h)?;
            let id = textures.reserve()?;
            textures.fill_reserved(id, w, h, s);
            Ok(Texture::new(id, w, h))
        });
        self.absorb_texture_stats();
        t
    }

    /// Writes premultiplied rows `y..y + rows` of `texture` (made by [`Renderer::begin_texture`]) from `pixels`
    /// (those rows only); the last band generates its mip levels when `sampling` has them.
    pub(crate) fn write_texture_rows(
        &mut self,
        texture: Texture,
        (y, rows): (u32, u32),
        pixels: &[u8],
        sampling: Sampling,
    ) -> Result<()> {
        self.alive()?;
        self.textures.check(texture.id())?;
        let [w, h] = texture.source_size();
        if y + rows > h || pixels.len() != (w * rows * 4) as usize {
            return Err(Error::PixelDataSize {
                got: pixels.len(),
                expected: (w * rows.min(h.saturating_sub(y)) * 4) as usize,
            });
        }
        self.textures
            .write_region(texture.id(), [0, y, w, rows], pixels);
        if y + rows == h && sampling.mipmaps {
            self.textures.generate_mipmaps(texture.id());
        }
        self.absorb_texture_stats();
        Ok(())
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

    /// A texture of SVG document `svg` drawn at `resolution` pixels per unit of its size, and at that
    /// [resolution](Texture::resolution) (PixiJS's SVG textures and their `resolution`, `Assets.load` of a `.svg`):
    /// a sprite of it is the document's size, sharper at a higher resolution. Read into a [`GraphicsContext`](crate::GraphicsContext) (see
    /// [`GraphicsContext::svg`](crate::GraphicsContext::svg): what it cannot draw is left out), drawn with its
    /// view box into a render target, antialiased by the renderer's MSAA setting, and copied into a texture of
    /// its own. Large fills are tessellated before drawing (this waits for them). A document that does not read
    /// is [`Error::InvalidSvg`]; a size of zero or past the texture limit, [`Error::TextureTooLarge`] or
    /// [`Error::InvalidSvg`].
    #[cfg(feature = "svg")]
    pub fn texture_from_svg(
        &mut self,
        svg: &str,
        resolution: f32,
        sampling: Sampling,
    ) -> Result<Texture> {
        self.alive()?;
        let scale = resolution;
        let mut g = crate::GraphicsContext::new();
        let report = g.svg(svg)?;
        let size = (report.size * scale).ceil();
        if !(size.x >= 1.0 && size.y >= 1.0 && size.is_finite()) {
            return Err(Error::InvalidSvg(format!(
                "drawn {size} pixels in size at scale {scale}"
            )));
        }
        let (w, h) = (
            size.x.min(u32::MAX as f32) as u32,
            size.y.min(u32::MAX as f32) as u32,
        );
        self.textures.check_size(w, h)?;
        let options = crate::RenderTextureOptions::new(w, h).with_msaa(self.msaa());
        let target = self.create_render_texture(options)?;
        let mut scene = crate::Scene::new();
        let node = scene.add_detached(crate::Node::graphics(g));
        let at = glam::Affine2::from_scale(glam::Vec2::splat(scale)) * report.view_box;
        let t0 = std::time::Instant::now();
        loop {
            self.render_node_transformed(
                &scene,
                node,
                &target,
                at,
                Some(crate::Color::TRANSPARENT),
            )?;
            // Fills too large for the frame are tessellated on the worker: draw again once they are back.
            if self.stats().last_frame.tessellations_pending == 0 || t0.elapsed().as_secs() >= 30 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        let pixels = self.read_pixels(&target)?;
        Ok(self
            .texture_from_image(&pixels, sampling)?
            .with_resolution(resolution))
    }

    /// A texture from an image file, read at most up to
    /// [`MAX_IMAGE_FILE_BYTES`](crate::MAX_IMAGE_FILE_BYTES). A missing, corrupt or longer file is
    /// [`Error::ImageFile`] naming it.
    pub fn load_texture(&mut self, path: impl AsRef<Path>, sampling: Sampling) -> Result<Texture> {
        let path = path.as_ref();
        let img = crate::base::read::open_image(path, None).map_err(|source| Error::ImageFile {
            path: path.to_owned(),
            source,
        })?;
        self.texture_from_image(&img.to_rgba8(), sampling)
    }

    /// A bitmap font (PixiJS's `Assets.load('font.fnt')`): the AngelCode BMFont description at `path` (text or
    /// XML form, read up to [`MAX_FNT_BYTES`](crate::text::MAX_FNT_BYTES)) and the page images it names, next to
    /// it, loaded as textures (linear sampling). See [`Font::from_fnt`](crate::Font::from_fnt) for what it draws
    /// and refuses. A missing or unreadable description is [`Error::FontFile`](crate::Error::FontFile) naming it, a
    /// page image that does not load is [`Error::ImageFile`](crate::Error::ImageFile); nothing of a failed load
    /// stays alive.
    #[cfg(feature = "text")]
    pub fn load_bitmap_font(&mut self, path: impl AsRef<Path>) -> Result<crate::Font> {
        let (data, dir) = crate::text::bitmap::read_fnt(path.as_ref())?;
        let mut pages = Vec::with_capacity(data.pages.len());
        for name in &data.pages {
            match self.load_texture(dir.join(name), Sampling::LINEAR) {
                Ok(t) => pages.push(t),
                Err(e) => {
                    for t in pages {
                        let _ = self.destroy_texture(t);
                    }
                    return Err(e);
                }
            }
        }
        crate::Font::from_fnt_data(data, pages.clone()).inspect_err(|_| {
            for t in pages {
                let _ = self.destroy_texture(t);
            }
        })
    }

    /// Destroys a texture and the bind groups holding it. Nodes still showing it are skipped with a warning. Its
    /// memory is freed once the GPU has finished the frames that drew it. A render target whose texture is
    /// destroyed can no longer be drawn into or read ([`Error::StaleTexture`]); another renderer's texture is
    /// [`Error::ForeignTexture`].
    ///
    /// Between [`Renderer::prepare`] and [`Renderer::trim`] the prepared frame may still draw it, so its GPU
    /// objects are released when the next frame begins; its handle is stale at once (drawing into it, reading it
    /// or destroying it again is [`Error::StaleTexture`]).
    pub fn destroy_texture(&mut self, texture: Texture) -> Result<()> {
        if self.frame.is_prepared() {
            return self.textures.retire_later(texture.id());
        }
        self.textures.destroy(texture.id())
    }

    /// An offscreen `Rgba8Unorm` target of `width x height` pixels, multisampled if the renderer is.
    pub fn create_render_target(&mut self, width: u32, height: u32) -> Result<RenderTarget> {
        let options = RenderTextureOptions::new(width, height).with_msaa(self.msaa);
        self.create_render_texture(options)
    }

    /// A render texture: a target to draw into that sprites can show.
    pub fn create_render_texture(&mut self, options: RenderTextureOptions) -> Result<RenderTarget> {
        self.alive()?;
        let (rt, textures) = (&mut self.render_textures, &mut self.textures);
        let t = crate::gpu::device::checked(&self.device, "creating a render texture", || {
            rt.create(&self.device, textures, options)
        })
        .map_err(|e| self.lost_or(e))?;
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
        self.alive()?;
        let in_flight = self.frame.is_prepared();
        let pooled = self
            .render_textures
            .take_pooled(&o, &mut self.textures, in_flight);
        let target = match pooled {
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
        self.alive()?;
        readback::wait_idle(&self.device).map_err(|e| self.lost_or(e))
    }

    /// Reads a target back as premultiplied RGBA8, exactly as stored. A target of another renderer is
    /// [`Error::ForeignTexture`]; one whose texture was destroyed is [`Error::StaleTexture`].
    pub fn read_pixels_premultiplied(&self, target: &RenderTarget) -> Result<image::RgbaImage> {
        self.alive()?;
        self.textures.check(target.handle.id())?;
        crate::gpu::device::checked(&self.device, "reading a target back", || {
            readback::read_premultiplied(&self.device, &self.queue, &target.wgpu_texture())
        })
        .map_err(|e| self.lost_or(e))
    }

    /// Reads a texture the caller owns back as straight-alpha RGBA8 (what PNG files hold): for an embedded
    /// renderer drawing into the caller's texture. Submit the work that draws it first; this waits for the GPU.
    /// The texture must be 2D, single-sample, `Rgba8Unorm` or `Bgra8Unorm` (sRGB variants too) and have
    /// `COPY_SRC` usage, else [`Error::UnsupportedTarget`] says which it lacks.
    ///
    /// ```no_run
    /// # fn f(renderer: &stage2d::Renderer, texture: &stage2d::wgpu::Texture) -> stage2d::Result<()> {
    /// // After queue.submit of the pass that recorded the frame, and renderer.trim():
    /// let image = renderer.read_texture(texture)?;
    /// image.save("frame.png").ok();
    /// # Ok(()) }
    /// ```
    pub fn read_texture(&self, texture: &wgpu::Texture) -> Result<image::RgbaImage> {
        use wgpu::TextureFormat as F;
        let lacks = |what: &str| Err(Error::UnsupportedTarget(format!("read_texture: {what}")));
        if !matches!(
            texture.format(),
            F::Rgba8Unorm | F::Rgba8UnormSrgb | F::Bgra8Unorm | F::Bgra8UnormSrgb
        ) {
            return lacks(&format!(
                "the texture is {:?}; Rgba8Unorm or Bgra8Unorm can be read",
                texture.format()
            ));
        }
        if !texture.usage().contains(wgpu::TextureUsages::COPY_SRC) {
            return lacks("the texture lacks COPY_SRC usage; add it where the texture is created");
        }
        if texture.sample_count() != 1
            || texture.dimension() != wgpu::TextureDimension::D2
            || texture.depth_or_array_layers() != 1
        {
            return lacks(
                "only single-sample 2D textures of one layer can be read (read the resolve target)",
            );
        }
        self.alive()?;
        let mut img = crate::gpu::device::checked(&self.device, "reading a texture back", || {
            readback::read_premultiplied(&self.device, &self.queue, texture)
        })
        .map_err(|e| self.lost_or(e))?;
        crate::base::color::unpremultiply(&mut img);
        Ok(img)
    }

    /// Reads a target back as straight-alpha RGBA8 (what PNG files hold).
    pub fn read_pixels(&self, target: &RenderTarget) -> Result<image::RgbaImage> {
        let mut img = self.read_pixels_premultiplied(target)?;
        crate::base::color::unpremultiply(&mut img);
        Ok(img)
    }

    /// Reads a target back and saves it as a PNG with straight alpha (needs the `png` feature).
    #[cfg(feature = "png")]
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
