//! Texture handles: which texture, which frame (sub-rectangle) of it, and how it is sampled.
//!
//! A [`Texture`] is a small `Copy` value. It names GPU storage owned by the renderer's texture system through a
//! generational [`TextureId`], so a handle to a destroyed texture is detected (the node is skipped with a warning)
//! instead of drawing another texture.

use crate::{Error, Result, TextureId};

/// Texture filtering.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Filter {
    /// Bilinear.
    #[default]
    Linear,
    /// Nearest texel (pixel art).
    Nearest,
}

/// What happens outside `0..1` texture coordinates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Wrap {
    /// Clamp to the edge.
    #[default]
    Clamp,
    /// Repeat (tile).
    Repeat,
}

/// How a texture is sampled. Samplers are cached by this value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Sampling {
    /// Filtering for magnification and minification.
    pub filter: Filter,
    /// Addressing in both directions.
    pub wrap: Wrap,
}

impl Sampling {
    /// Nearest filtering, clamped.
    pub const NEAREST: Sampling = Sampling {
        filter: Filter::Nearest,
        wrap: Wrap::Clamp,
    };
    /// Linear filtering, clamped (the default).
    pub const LINEAR: Sampling = Sampling {
        filter: Filter::Linear,
        wrap: Wrap::Clamp,
    };
}

/// The largest texture side a [`Texture`] handle can describe (sides are stored in 16 bits, less one).
pub const MAX_TEXTURE_SIDE: u32 = 1 << 16;

/// A texture, or a frame (sub-rectangle in pixels) of one. Frames of one texture share a batch slot.
///
/// 20 bytes: every sprite holds one, and the walk streams through all of them each frame, so the texture
/// coordinates are worked out from the frame when needed rather than stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Texture {
    id: TextureId,
    /// The frame's `[x, y, width - 1, height - 1]` in pixels.
    frame: [u16; 4],
    /// The whole texture's `[width - 1, height - 1]`.
    size: [u16; 2],
}

/// `side - 1` in 16 bits; sides are `1..=MAX_TEXTURE_SIDE` (checked where textures are created).
fn less_one(side: u32) -> u16 {
    debug_assert!((1..=MAX_TEXTURE_SIDE).contains(&side));
    (side.clamp(1, MAX_TEXTURE_SIDE) - 1) as u16
}

impl Texture {
    pub(crate) fn new(id: TextureId, width: u32, height: u32) -> Texture {
        Texture::with_frame(id, [width, height], [0, 0, width, height])
    }

    fn with_frame(id: TextureId, size: [u32; 2], frame: [u32; 4]) -> Texture {
        let [x, y, fw, fh] = frame;
        Texture {
            id,
            // x < width <= MAX_TEXTURE_SIDE, so x fits.
            frame: [x as u16, y as u16, less_one(fw), less_one(fh)],
            size: size.map(less_one),
        }
    }

    /// A handle to storage slot 0 (a renderer's white texture) with the given size; for CPU-only benchmarks of
    /// the scene walk, which never touch the GPU.
    pub(crate) fn from_raw_parts_for_bench(width: u32, height: u32) -> Texture {
        let id = TextureId::new(0, crate::handle::Owner::NONE, 0);
        Texture::new(id, width, height)
    }

    /// The storage this handle points at.
    pub fn id(&self) -> TextureId {
        self.id
    }

    /// Size of the whole texture in pixels.
    pub fn source_size(&self) -> [u32; 2] {
        self.size.map(|s| s as u32 + 1)
    }

    /// The frame `[x, y, width, height]` in pixels of the whole texture.
    pub fn frame_rect(&self) -> [u32; 4] {
        let [x, y, w, h] = self.frame.map(u32::from);
        [x, y, w + 1, h + 1]
    }

    /// Width and height of the frame in pixels.
    #[inline]
    pub fn size(&self) -> [f32; 2] {
        [self.frame[2] as f32 + 1.0, self.frame[3] as f32 + 1.0]
    }

    /// The frame at `x, y` of `width x height` pixels, measured in the whole texture (atlas frames).
    /// Errors with [`Error::FrameOutOfBounds`] if it does not fit, or is empty.
    pub fn frame(&self, x: u32, y: u32, width: u32, height: u32) -> Result<Texture> {
        let [tw, th] = self.source_size();
        let fits = width > 0
            && height > 0
            && x.checked_add(width).is_some_and(|r| r <= tw)
            && y.checked_add(height).is_some_and(|b| b <= th);
        if !fits {
            return Err(Error::FrameOutOfBounds {
                x,
                y,
                width,
                height,
                texture_width: tw,
                texture_height: th,
            });
        }
        Ok(Texture::with_frame(
            self.id,
            [tw, th],
            [x, y, width, height],
        ))
    }

    /// Texture coordinates of the frame: `[u0, v0, u1, v1]`.
    #[inline]
    pub fn uvs(&self) -> [f32; 4] {
        // Straight from the 16-bit fields: going through `frame_rect` and `source_size` (u32 sums converted one
        // by one) made the 100,000-sprite walk about 30 % slower in `cargo bench --bench core`.
        let [x, y, w, h] = self.frame.map(|v| v as f32);
        let [tw, th] = self.size.map(|v| v as f32 + 1.0);
        let corners = glam::Vec4::new(x, y, x + w + 1.0, y + h + 1.0);
        (corners / glam::Vec4::new(tw, th, tw, th)).to_array()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tex() -> Texture {
        Texture::new(
            TextureId {
                index: 0,
                generation: 0,
            },
            64,
            32,
        )
    }

    #[test]
    fn frames_map_to_uvs() {
        let f = tex().frame(16, 8, 16, 8).unwrap();
        assert_eq!(f.uvs(), [0.25, 0.25, 0.5, 0.5]);
        assert_eq!(f.size(), [16.0, 8.0]);
        assert_eq!(f.id(), tex().id());
        assert_eq!(tex().uvs(), [0.0, 0.0, 1.0, 1.0]);
    }

    #[test]
    fn sides_up_to_the_largest_round_trip() {
        let id = tex().id();
        let t = Texture::new(id, MAX_TEXTURE_SIDE, 1);
        assert_eq!(t.source_size(), [MAX_TEXTURE_SIDE, 1]);
        assert_eq!(t.size(), [MAX_TEXTURE_SIDE as f32, 1.0]);
        let f = t.frame(MAX_TEXTURE_SIDE - 1, 0, 1, 1).unwrap();
        assert_eq!(f.frame_rect(), [MAX_TEXTURE_SIDE - 1, 0, 1, 1]);
        assert_eq!(f.uvs()[2], 1.0);
        assert!(t.frame(MAX_TEXTURE_SIDE - 1, 0, 2, 1).is_err());
        assert_eq!(std::mem::size_of::<Texture>(), 20);
    }

    proptest::proptest! {
        /// Coordinates worked out from the stored frame are the frame's corners divided by the texture's size.
        #[test]
        fn uvs_are_the_frame_over_the_size(
            w in 1u32..=MAX_TEXTURE_SIDE,
            h in 1u32..=MAX_TEXTURE_SIDE,
            fx in 0.0f64..1.0,
            fy in 0.0f64..1.0,
            fw in 0.0f64..1.0,
            fh in 0.0f64..1.0,
        ) {
            let x = (fx * w as f64) as u32 % w;
            let y = (fy * h as f64) as u32 % h;
            let width = 1 + (fw * (w - x) as f64) as u32 % (w - x);
            let height = 1 + (fh * (h - y) as f64) as u32 % (h - y);
            let f = Texture::new(tex().id(), w, h).frame(x, y, width, height).unwrap();
            let (w, h) = (w as f32, h as f32);
            let expected = [
                x as f32 / w,
                y as f32 / h,
                (x + width) as f32 / w,
                (y + height) as f32 / h,
            ];
            proptest::prop_assert_eq!(f.uvs(), expected);
            proptest::prop_assert_eq!(f.frame_rect(), [x, y, width, height]);
        }
    }

    #[test]
    fn frames_outside_the_texture_are_errors() {
        assert!(tex().frame(60, 0, 8, 8).is_err());
        assert!(tex().frame(0, 0, 0, 8).is_err());
        assert!(tex().frame(u32::MAX, 0, 2, 2).is_err());
        assert!(tex().frame(0, 0, 64, 32).is_ok());
    }
}
