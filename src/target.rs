//! Render targets: offscreen colour textures that a frame is drawn into and read back from.

/// How a render texture is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RenderTextureOptions {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `Rgba8Unorm` (default) or `Bgra8Unorm`; colours are blended as stored, so no `*Srgb` formats.
    pub format: wgpu::TextureFormat,
    /// Draw with 4x multisampling, resolved into the texture at the end of each pass.
    pub msaa: bool,
    /// Keep a stencil attachment from the start (otherwise it is created the first time a mask needs it).
    pub depth_stencil: bool,
}

impl RenderTextureOptions {
    /// A `width x height` `Rgba8Unorm` texture without MSAA.
    pub fn new(width: u32, height: u32) -> Self {
        RenderTextureOptions {
            width,
            height,
            format: wgpu::TextureFormat::Rgba8Unorm,
            msaa: false,
            depth_stencil: false,
        }
    }
}

/// An offscreen colour target that is also a texture: draw into it with
/// [`Renderer::render`](crate::Renderer::render) or [`Renderer::render_node`](crate::Renderer::render_node), show
/// it with a sprite of [`RenderTarget::texture`], read it back with
/// [`Renderer::read_pixels`](crate::Renderer::read_pixels).
#[derive(Debug)]
pub struct RenderTarget {
    pub(crate) texture: wgpu::Texture,
    pub(crate) view: wgpu::TextureView,
    pub(crate) options: RenderTextureOptions,
    pub(crate) handle: crate::Texture,
    /// Where its texture id goes when it is dropped (the renderer frees the slot next frame).
    pub(crate) release: Option<std::sync::Arc<std::sync::Mutex<Vec<crate::TextureId>>>>,
}

impl Drop for RenderTarget {
    fn drop(&mut self) {
        if let Some(queue) = self.release.take() {
            if let Ok(mut q) = queue.lock() {
                q.push(self.handle.id());
            }
        }
    }
}

impl RenderTarget {
    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.options.width
    }
    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.options.height
    }
    /// Colour format.
    pub fn format(&self) -> wgpu::TextureFormat {
        self.options.format
    }
    /// How it was made.
    pub fn options(&self) -> RenderTextureOptions {
        self.options
    }
    /// The texture handle for sprites (after [`Renderer::resize_render_texture`](crate::Renderer::resize_render_texture)
    /// take it again: the old handle goes stale).
    pub fn texture(&self) -> crate::Texture {
        self.handle
    }
    /// The texture view drawn into.
    pub fn view(&self) -> &wgpu::TextureView {
        &self.view
    }
    /// The underlying wgpu texture.
    pub fn wgpu_texture(&self) -> &wgpu::Texture {
        &self.texture
    }
}

/// Temporary render textures by (size, format, MSAA), handed out by
/// [`Renderer::acquire_render_texture`](crate::Renderer::acquire_render_texture) and returned on drop.
#[derive(Debug, Default, Clone)]
pub struct TexturePool {
    free: std::sync::Arc<std::sync::Mutex<Vec<RenderTarget>>>,
}

impl TexturePool {
    /// A free texture made with `options`, if the pool holds one.
    pub fn take(&self, options: &RenderTextureOptions) -> Option<RenderTarget> {
        let mut free = self.free.lock().ok()?;
        let i = free.iter().position(|t| t.options == *options)?;
        Some(free.swap_remove(i))
    }

    /// Puts a texture back.
    pub fn put(&self, target: RenderTarget) {
        if let Ok(mut free) = self.free.lock() {
            free.push(target);
        }
    }

    /// Textures waiting in the pool.
    pub fn len(&self) -> usize {
        self.free.lock().map_or(0, |f| f.len())
    }

    /// Whether the pool is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A render texture on loan from a [`TexturePool`]; it goes back to the pool when dropped.
#[derive(Debug)]
pub struct PooledRenderTexture {
    target: Option<RenderTarget>,
    pool: TexturePool,
}

impl PooledRenderTexture {
    pub(crate) fn new(target: RenderTarget, pool: TexturePool) -> Self {
        PooledRenderTexture {
            target: Some(target),
            pool,
        }
    }
}

impl std::ops::Deref for PooledRenderTexture {
    type Target = RenderTarget;
    fn deref(&self) -> &RenderTarget {
        self.target.as_ref().expect("present until drop")
    }
}

impl Drop for PooledRenderTexture {
    fn drop(&mut self) {
        if let Some(t) = self.target.take() {
            self.pool.put(t);
        }
    }
}

/// Bytes per row of a readback buffer: `width * 4` rounded up to wgpu's 256-byte copy alignment.
pub fn padded_bytes_per_row(width: u32) -> u32 {
    let unpadded = width * 4;
    let align = wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    unpadded.div_ceil(align) * align
}

/// Converts premultiplied RGBA8 to straight alpha in place (for PNGs).
pub fn unpremultiply(pixels: &mut [u8]) {
    for px in pixels.chunks_exact_mut(4) {
        let a = px[3] as u32;
        if a == 0 {
            px[..3].fill(0);
        } else if a < 255 {
            for c in &mut px[..3] {
                *c = ((*c as u32 * 255 + a / 2) / a).min(255) as u8;
            }
        }
    }
}

/// Converts straight-alpha RGBA8 to premultiplied in place (for uploads).
pub fn premultiply(pixels: &mut [u8]) {
    for px in pixels.chunks_exact_mut(4) {
        let a = px[3] as u32;
        if a < 255 {
            for c in &mut px[..3] {
                *c = ((*c as u32 * a + 127) / 255) as u8;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_padded_to_256() {
        assert_eq!(padded_bytes_per_row(64), 256);
        assert_eq!(padded_bytes_per_row(65), 512);
        assert_eq!(padded_bytes_per_row(3), 256);
    }

    #[test]
    fn premultiply_round_trips_opaque_and_half() {
        let mut p = [255, 128, 0, 255, 200, 100, 50, 128, 9, 9, 9, 0];
        premultiply(&mut p);
        assert_eq!(p, [255, 128, 0, 255, 100, 50, 25, 128, 0, 0, 0, 0]);
        unpremultiply(&mut p);
        assert_eq!(&p[..4], &[255, 128, 0, 255]);
        assert!((p[4] as i32 - 200).abs() <= 2);
        assert_eq!(p[11], 0);
    }
}
