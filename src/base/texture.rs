//! Texture handles: which texture, which frame (sub-rectangle) of it, and how it is sampled.
//!
//! A [`Texture`] is a small `Copy` value. It names GPU storage owned by the renderer's texture system through a
//! generational [`TextureId`], so a handle to a destroyed texture is detected (the node is skipped with a warning)
//! instead of drawing another texture.

use crate::{Error, Result, TextureId};
use glam::Vec2;

/// How a texture is filtered when scaled (PixiJS's `scaleMode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ScaleMode {
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

/// How a texture is sampled. Samplers are cached by this value. Build it from the constants and methods
/// (`Sampling::LINEAR.repeat().with_mipmaps()`): fields may be added.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Sampling {
    /// Filtering for magnification and minification.
    pub filter: ScaleMode,
    /// Addressing in both directions.
    pub wrap: Wrap,
    /// Create the texture with a full mip chain, generated on the GPU when its pixels are written, and blend
    /// between levels when sampling (trilinear with [`ScaleMode::Linear`]): a sprite drawn much smaller than its
    /// texture shows an average of its texels instead of a shimmering subset. Costs a third more memory.
    /// Applies to textures made from pixels (not render textures or glyph pages).
    pub mipmaps: bool,
}

impl Sampling {
    /// Nearest filtering, clamped.
    pub const NEAREST: Sampling = Sampling {
        filter: ScaleMode::Nearest,
        wrap: Wrap::Clamp,
        mipmaps: false,
    };
    /// Linear filtering, clamped (the default).
    pub const LINEAR: Sampling = Sampling {
        filter: ScaleMode::Linear,
        wrap: Wrap::Clamp,
        mipmaps: false,
    };
    /// Linear filtering between texels and between mip levels, clamped: for textures drawn at many scales.
    pub const TRILINEAR: Sampling = Sampling {
        filter: ScaleMode::Linear,
        wrap: Wrap::Clamp,
        mipmaps: true,
    };

    /// The same sampling, repeating (tiling) outside `0..1`.
    pub const fn repeat(self) -> Sampling {
        Sampling {
            wrap: Wrap::Repeat,
            ..self
        }
    }

    /// The same sampling with `filter`.
    pub const fn with_filter(self, filter: ScaleMode) -> Sampling {
        Sampling { filter, ..self }
    }

    /// The same sampling, with mipmaps (see [`Sampling::mipmaps`]).
    pub const fn with_mipmaps(self) -> Sampling {
        Sampling {
            mipmaps: true,
            ..self
        }
    }
}

/// The largest texture side a [`Texture`] handle can describe (sides are stored in 16 bits, less one).
pub const MAX_TEXTURE_SIDE: u32 = 1 << 16;

/// A texture, or a frame (sub-rectangle in pixels) of one. Frames of one texture share a batch slot.
///
/// A frame may come from a packed spritesheet ([`crate::Spritesheet`]): **trimmed** (the sheet stores only the
/// rectangle of the sprite that is not transparent; the handle keeps the untrimmed size and where the stored
/// pixels sit inside it, so a sprite of it has the untrimmed size) and **rotated** (stored turned 90 degrees
/// clockwise in the image, as TexturePacker does; drawn upright).
///
/// A texture also carries a **default anchor** (PixiJS's `defaultAnchor`): a sprite made of it
/// ([`Sprite::new`](crate::Sprite::new), [`Node::sprite`](crate::Node::sprite)) starts with that anchor. A
/// spritesheet's frames carry the anchor (or pivot) the sheet gives them; other textures have `(0, 0)`.
///
/// A texture has a **resolution** (PixiJS's `resolution`): pixels per unit of size. A sprite of a resolution-2
/// texture (a `@2x` image) is half its pixel size; frames are still given in pixels. [`Assets::load`] reads it
/// from PixiJS's file-name suffixes (`hero@2x.png`, `icon@0.5x.png`); [`Texture::with_resolution`] sets it.
///
/// 36 bytes: every sprite holds one, and the walk streams through all of them each frame, so the texture
/// coordinates are worked out from the frame when needed rather than stored, and the default anchor and the
/// resolution are kept in 16-bit fixed point (steps of 1/4096 from -8 to 8, and of 1/256 up to 256).
///
/// [`Assets::load`]: crate::Assets::load
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Texture {
    id: TextureId,
    /// The region's `[x, y, width - 1, height - 1]` in pixels, as stored (turned for rotated frames).
    frame: [u16; 4],
    /// The whole texture's `[width - 1, height - 1]`.
    size: [u16; 2],
    /// `[offset x | ROTATED, offset y, untrimmed width, untrimmed height]`: where the stored pixels sit inside the
    /// untrimmed rectangle. An untrimmed width of 0 means untrimmed (the untrimmed size is the frame's).
    trim: [u16; 4],
    /// The default anchor in units of 1/[`ANCHOR_ONE`].
    anchor: [i16; 2],
    /// Pixels per unit of size, in units of 1/[`RESOLUTION_ONE`].
    resolution: u16,
}

/// The fixed-point unit of [`Texture::resolution`]: 256 steps to 1.
const RESOLUTION_ONE: f32 = 256.0;

/// The fixed-point unit of [`Texture::default_anchor`]: 4096 steps to 1.
const ANCHOR_ONE: f32 = 4096.0;

/// The bit of `Texture::trim[0]` marking a frame stored rotated.
const ROTATED: u16 = 1 << 15;

/// The largest trim offset a rotated or trimmed frame can have (15 bits).
pub const MAX_TRIM_OFFSET: u32 = (1 << 15) - 1;

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
            trim: [0; 4],
            anchor: [0; 2],
            resolution: RESOLUTION_ONE as u16,
        }
    }

    /// Pixels per unit of size (PixiJS's `resolution`): 1 for most textures, 2 for a `@2x` image.
    pub fn resolution(&self) -> f32 {
        self.resolution as f32 / RESOLUTION_ONE
    }

    /// This texture at `resolution` pixels per unit of size (kept to 1/256, from 1/256 to 255): a sprite of it is
    /// its pixel size divided by it, and a tiling sprite or a pattern tiles it at that size. Not finite or not
    /// positive is 1.
    ///
    /// ```
    /// # fn f(texture: stage2d::Texture) {
    /// let retina = texture.with_resolution(2.0); // a 64x64 image drawn as 32x32
    /// assert_eq!(retina.size()[0], texture.size()[0] / 2.0);
    /// # }
    /// ```
    pub fn with_resolution(mut self, resolution: f32) -> Texture {
        self.resolution = match resolution {
            r if r.is_finite() && r > 0.0 => {
                (r * RESOLUTION_ONE).round().clamp(1.0, 65280.0) as u16
            }
            _ => RESOLUTION_ONE as u16,
        };
        self
    }

    /// The anchor a sprite of this texture starts with (PixiJS's `defaultAnchor`): a sheet frame's anchor or
    /// pivot, `(0, 0)` (top-left) otherwise.
    pub fn default_anchor(&self) -> Vec2 {
        Vec2::new(self.anchor[0] as f32, self.anchor[1] as f32) / ANCHOR_ONE
    }

    /// This texture with `anchor` as its default anchor, kept to 1/4096 and clamped to `-8..8` (a non-finite
    /// component is 0).
    ///
    /// ```
    /// # fn f(texture: stage2d::Texture) {
    /// use stage2d::{glam::Vec2, Node};
    /// let centred = texture.with_default_anchor(Vec2::splat(0.5));
    /// let node = Node::sprite(centred); // anchored at its centre
    /// # }
    /// ```
    pub fn with_default_anchor(mut self, anchor: Vec2) -> Texture {
        let q = |v: f32| match v.is_finite() {
            true => (v * ANCHOR_ONE)
                .round()
                .clamp(i16::MIN as f32, i16::MAX as f32) as i16,
            false => 0,
        };
        self.anchor = [q(anchor.x), q(anchor.y)];
        self
    }

    /// A handle to storage slot 0 (a renderer's white texture) with the given size; for CPU-only benchmarks of
    /// the scene walk, which never touch the GPU.
    pub(crate) fn from_raw_parts_for_bench(width: u32, height: u32) -> Texture {
        let id = TextureId::new(0, crate::base::handle::Owner::NONE, 0);
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

    /// The frame `[x, y, width, height]` in pixels of the whole texture: the region its pixels are stored in
    /// (for a rotated frame, turned: `width` is the upright height).
    pub fn frame_rect(&self) -> [u32; 4] {
        let [x, y, w, h] = self.frame.map(u32::from);
        [x, y, w + 1, h + 1]
    }

    /// Whether the frame is stored turned 90 degrees clockwise (and drawn upright).
    #[inline]
    pub fn is_rotated(&self) -> bool {
        self.trim[0] & ROTATED != 0
    }

    /// Neither trimmed nor rotated: the quad is the frame.
    #[inline(always)]
    pub(crate) fn is_plain(&self) -> bool {
        self.trim == [0; 4]
    }

    /// Whether the frame is trimmed (its untrimmed size is larger than the stored pixels).
    pub fn is_trimmed(&self) -> bool {
        self.trim[2] != 0
    }

    /// The upright size of the stored pixels (what a trimmed frame keeps).
    #[inline]
    pub(crate) fn trim_rect_size(&self) -> [f32; 2] {
        let (w, h) = (self.frame[2] as f32 + 1.0, self.frame[3] as f32 + 1.0);
        if self.is_rotated() {
            [h, w]
        } else {
            [w, h]
        }
    }

    /// Width and height of what a sprite of it shows: the untrimmed size, upright, in pixels divided by the
    /// [resolution](Texture::resolution).
    #[inline]
    pub fn size(&self) -> [f32; 2] {
        let pixels = if self.trim[2] != 0 {
            [self.trim[2] as f32, self.trim[3] as f32]
        } else {
            self.trim_rect_size()
        };
        match self.resolution == RESOLUTION_ONE as u16 {
            true => pixels,
            false => pixels.map(|v| v / self.resolution()),
        }
    }

    /// The upright size of the stored pixels in units of size (pixels divided by the resolution): a tile's size.
    #[inline]
    pub(crate) fn frame_size(&self) -> [f32; 2] {
        let r = self.resolution();
        self.trim_rect_size().map(|v| v / r)
    }

    /// Where the stored pixels sit inside the untrimmed rectangle: `[x, y, width, height]`, upright, in units of
    /// size (the whole [`Texture::size`] for an untrimmed frame).
    #[inline]
    pub fn trim_rect(&self) -> [f32; 4] {
        let [w, h] = self.trim_rect_size();
        let px = if self.trim[2] != 0 {
            [(self.trim[0] & !ROTATED) as f32, self.trim[1] as f32, w, h]
        } else {
            [0.0, 0.0, w, h]
        };
        let r = self.resolution();
        px.map(|v| v / r)
    }

    /// Texture coordinates of `part` (`[x0, y0, x1, y1]` in upright pixels of the stored frame) as stored:
    /// `[u0, v0, u1, v1]`, turned for a rotated frame (draw it with the corners turned as [`Sprite`]'s quad is).
    ///
    /// [`Sprite`]: crate::Sprite
    pub(crate) fn part_uvs(&self, part: [f32; 4]) -> [f32; 4] {
        let [fx, fy, fw, _] = self.frame_rect().map(|v| v as f32);
        let [tw, th] = self.source_size().map(|v| v as f32);
        let [x0, y0, x1, y1] = part;
        // A rotated frame stores upright (x, y) at (height - y, x) from its corner; `fw` is the upright height.
        let stored = if self.is_rotated() {
            [fw - y1, x0, fw - y0, x1]
        } else {
            [x0, y0, x1, y1]
        };
        [
            (fx + stored[0]) / tw,
            (fy + stored[1]) / th,
            (fx + stored[2]) / tw,
            (fy + stored[3]) / th,
        ]
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
        let mut t = Texture::with_frame(self.id, [tw, th], [x, y, width, height]);
        t.resolution = self.resolution;
        Ok(t)
    }

    /// A packed frame, as a spritesheet describes one: `region` is where its pixels are stored in the whole
    /// texture (`[x, y, width, height]`, turned if `rotated`: stored 90 degrees clockwise), `untrimmed` the size
    /// of the sprite before its transparent margins were cut off, and `offset` where the stored pixels sit inside
    /// that (upright). The region must fit the texture ([`Error::FrameOutOfBounds`]); the stored pixels must fit
    /// the untrimmed rectangle, offsets at most [`MAX_TRIM_OFFSET`] ([`Error::InvalidFrame`]).
    pub fn packed_frame(
        &self,
        region: [u32; 4],
        rotated: bool,
        untrimmed: [u32; 2],
        offset: [u32; 2],
    ) -> Result<Texture> {
        let [x, y, w, h] = region;
        let mut t = self.frame(x, y, w, h)?;
        let upright = if rotated { [h, w] } else { [w, h] };
        let fits = (0..2).all(|i| {
            offset[i]
                .checked_add(upright[i])
                .is_some_and(|e| e <= untrimmed[i])
        });
        if !fits || untrimmed.iter().any(|&s| s > u16::MAX as u32) {
            return Err(Error::InvalidFrame(format!(
                "packed frame: stored {}x{} at offset {},{} does not fit the untrimmed {}x{} (sides up to {})",
                upright[0],
                upright[1],
                offset[0],
                offset[1],
                untrimmed[0],
                untrimmed[1],
                u16::MAX
            )));
        }
        if offset.iter().any(|&o| o > MAX_TRIM_OFFSET) {
            return Err(Error::InvalidFrame(format!(
                "packed frame: trim offset {},{} over {MAX_TRIM_OFFSET}",
                offset[0], offset[1]
            )));
        }
        let trimmed = untrimmed != upright;
        t.trim = [
            if trimmed { offset[0] as u16 } else { 0 } | if rotated { ROTATED } else { 0 },
            if trimmed { offset[1] as u16 } else { 0 },
            if trimmed { untrimmed[0] as u16 } else { 0 },
            if trimmed { untrimmed[1] as u16 } else { 0 },
        ];
        Ok(t)
    }

    /// Texture coordinates a mesh's 0..1 maps onto, `[u0, v0, u1, v1]` as [`Texture::uvs`] (turned for a rotated
    /// frame the same way): the untrimmed rectangle's, as PixiJS's `TextureMatrix` maps a mesh onto a trimmed frame
    /// (beyond the stored pixels where the frame was trimmed). The stored frame's for an untrimmed one.
    pub(crate) fn mesh_uvs(&self) -> [f32; 4] {
        let [u0, v0, u1, v1] = self.uvs();
        if !self.is_trimmed() {
            return [u0, v0, u1, v1];
        }
        let [tx, ty, tw, th] = self.trim_rect();
        let [w, h] = self.size();
        // Upright l in 0..1 of the untrimmed rectangle is l * s + o in 0..1 of the stored pixels.
        let (s, o) = ([w / tw, h / th], [-tx / tw, -ty / th]);
        let (du, dv) = (u1 - u0, v1 - v0);
        let (a0, b0, da, db) = if self.is_rotated() {
            // Stored (1 - l.y, l.x): u = u0 + (1 - o.y - s.y) du + (1 - l.y) s.y du, v = v0 + o.x dv + l.x s.x dv.
            (
                u0 + (1.0 - o[1] - s[1]) * du,
                v0 + o[0] * dv,
                s[1] * du,
                s[0] * dv,
            )
        } else {
            (u0 + o[0] * du, v0 + o[1] * dv, s[0] * du, s[1] * dv)
        };
        [a0, b0, a0 + da, b0 + db]
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
        assert_eq!(std::mem::size_of::<Texture>(), 36);
        // The default anchor in 1/4096 steps, clamped, non-finite as 0.
        let a = t.with_default_anchor(Vec2::new(0.5, 0.3));
        assert_eq!(a.default_anchor().x, 0.5);
        assert!((a.default_anchor().y - 0.3).abs() <= 0.5 / 4096.0);
        assert_eq!(a.id(), t.id());
        let wild = t.with_default_anchor(Vec2::new(f32::NAN, 100.0));
        assert_eq!(wild.default_anchor(), Vec2::new(0.0, 32767.0 / 4096.0));
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

#[cfg(test)]
pub(crate) mod tests_support {
    /// A 16x16 texture handle naming storage slot `i` (for CPU-only tests).
    pub(crate) fn texture(i: u32) -> super::Texture {
        super::Texture::new(
            crate::TextureId {
                index: i,
                generation: 0,
            },
            16,
            16,
        )
    }
}
