//! Render targets: offscreen colour textures that a frame is drawn into and read back from.

/// An offscreen colour target (`Rgba8Unorm` by default), readable back with
/// [`Renderer::read_pixels`](crate::Renderer::read_pixels).
#[derive(Debug)]
pub struct RenderTarget {
    pub(crate) texture: wgpu::Texture,
    pub(crate) view: wgpu::TextureView,
    pub(crate) format: wgpu::TextureFormat,
    pub(crate) width: u32,
    pub(crate) height: u32,
}

impl RenderTarget {
    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }
    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.height
    }
    /// Colour format.
    pub fn format(&self) -> wgpu::TextureFormat {
        self.format
    }
    /// The texture view drawn into.
    pub fn view(&self) -> &wgpu::TextureView {
        &self.view
    }
    /// The underlying texture.
    pub fn texture(&self) -> &wgpu::Texture {
        &self.texture
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
