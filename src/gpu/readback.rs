//! Readback: copying a render target into a mapped buffer and converting it to straight-alpha RGBA8 (what PNG
//! files hold). Blocking: it waits for the GPU; meant for tests, screenshots and tools, not per frame.

use crate::{Error, Result};

/// Copies `texture` (RGBA8 or BGRA8, single-sampled) into a buffer, waits for it and returns premultiplied RGBA8
/// rows, exactly as stored.
pub(crate) fn read_premultiplied(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
) -> Result<image::RgbaImage> {
    let (w, h) = (texture.width(), texture.height());
    let row = padded_bytes_per_row(w);
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("stage2d readback"),
        size: row as u64 * h as u64,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("stage2d readback"),
    });
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
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
    queue.submit([encoder.finish()]);
    let (tx, rx) = std::sync::mpsc::channel();
    buffer.slice(..).map_async(wgpu::MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    wait_idle(device)?;
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
        texture.format(),
        wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb
    ) {
        out.chunks_exact_mut(4).for_each(|p| p.swap(0, 2));
    }
    Ok(image::RgbaImage::from_raw(w, h, out).expect("size matches"))
}

/// Blocks until the GPU has finished all submitted work.
pub(crate) fn wait_idle(device: &wgpu::Device) -> Result<()> {
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map(|_| ())
        .map_err(|e| Error::Readback(e.to_string()))
}

/// Bytes per row of a readback buffer: `width * 4` rounded up to wgpu's 256-byte copy alignment.
pub(crate) fn padded_bytes_per_row(width: u32) -> u32 {
    let unpadded = width * 4;
    let align = wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    unpadded.div_ceil(align) * align
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
}
