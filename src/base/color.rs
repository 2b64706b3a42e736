//! Colours: sRGB-encoded components with straight alpha, blended as stored (as PixiJS does), and the
//! premultiplying of RGBA8 pixel rows.

/// An sRGB-encoded colour with straight (not premultiplied) alpha, each component in `0.0..=1.0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Color {
    /// Red.
    pub r: f32,
    /// Green.
    pub g: f32,
    /// Blue.
    pub b: f32,
    /// Alpha (opacity).
    pub a: f32,
}

impl Default for Color {
    fn default() -> Self {
        Color::WHITE
    }
}

impl Color {
    /// Opaque white; the neutral tint.
    pub const WHITE: Color = Color::rgb(1.0, 1.0, 1.0);
    /// Opaque black.
    pub const BLACK: Color = Color::rgb(0.0, 0.0, 0.0);
    /// Fully transparent black.
    pub const TRANSPARENT: Color = Color::rgba(0.0, 0.0, 0.0, 0.0);
    /// Opaque red.
    pub const RED: Color = Color::rgb(1.0, 0.0, 0.0);
    /// Opaque green.
    pub const GREEN: Color = Color::rgb(0.0, 1.0, 0.0);
    /// Opaque blue.
    pub const BLUE: Color = Color::rgb(0.0, 0.0, 1.0);

    /// An opaque colour.
    pub const fn rgb(r: f32, g: f32, b: f32) -> Color {
        Color { r, g, b, a: 1.0 }
    }

    /// A colour with alpha.
    pub const fn rgba(r: f32, g: f32, b: f32, a: f32) -> Color {
        Color { r, g, b, a }
    }

    /// An opaque colour from `0xRRGGBB`, as PixiJS tints are written.
    pub const fn hex(rgb: u32) -> Color {
        Color::rgba8((rgb >> 16) as u8, (rgb >> 8) as u8, rgb as u8, 255)
    }

    /// This colour with alpha `a` (PixiJS's `{ color, alpha }`).
    pub const fn with_alpha(self, a: f32) -> Color {
        Color { a, ..self }
    }

    /// A colour from 8-bit components.
    pub const fn rgba8(r: u8, g: u8, b: u8, a: u8) -> Color {
        Color::rgba(
            r as f32 / 255.0,
            g as f32 / 255.0,
            b as f32 / 255.0,
            a as f32 / 255.0,
        )
    }

    /// Whether every component is finite.
    pub fn is_finite(&self) -> bool {
        self.r.is_finite() && self.g.is_finite() && self.b.is_finite() && self.a.is_finite()
    }

    /// Packs to RGBA8 in memory order (little-endian `0xAABBGGRR`), straight alpha, clamped.
    #[inline]
    pub fn to_rgba8_u32(self) -> u32 {
        let q = |v: f32| (v.clamp(0.0, 1.0) * 255.0 + 0.5) as u32;
        q(self.r) | q(self.g) << 8 | q(self.b) << 16 | q(self.a) << 24
    }

    /// As a wgpu clear colour, premultiplied (targets hold premultiplied colour).
    pub fn to_wgpu_premultiplied(self) -> wgpu::Color {
        let a = self.a.clamp(0.0, 1.0) as f64;
        wgpu::Color {
            r: self.r.clamp(0.0, 1.0) as f64 * a,
            g: self.g.clamp(0.0, 1.0) as f64 * a,
            b: self.b.clamp(0.0, 1.0) as f64 * a,
            a,
        }
    }
}

impl From<u32> for Color {
    /// An opaque colour from `0xRRGGBB`, as PixiJS takes colours (see [`Color::hex`]).
    fn from(rgb: u32) -> Color {
        Color::hex(rgb)
    }
}

impl From<[u8; 4]> for Color {
    /// A colour from straight-alpha RGBA8 components.
    fn from([r, g, b, a]: [u8; 4]) -> Color {
        Color::rgba8(r, g, b, a)
    }
}

impl From<[f32; 4]> for Color {
    /// A colour from straight-alpha RGBA components in `0..=1`.
    fn from([r, g, b, a]: [f32; 4]) -> Color {
        Color::rgba(r, g, b, a)
    }
}

impl std::ops::Mul for Color {
    type Output = Color;
    /// Component-wise product (how tints combine down the tree).
    #[inline]
    fn mul(self, o: Color) -> Color {
        Color::rgba(self.r * o.r, self.g * o.g, self.b * o.b, self.a * o.a)
    }
}

/// Converts premultiplied RGBA8 to straight alpha in place (for PNGs).
pub(crate) fn unpremultiply(pixels: &mut [u8]) {
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
pub(crate) fn premultiply(pixels: &mut [u8]) {
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
    fn conversions_users_expect() {
        assert_eq!(Color::from(0xff8000), Color::hex(0xff8000));
        assert_eq!(
            Color::from([255u8, 0, 0, 128]),
            Color::rgba8(255, 0, 0, 128)
        );
        assert_eq!(
            Color::from([0.5f32, 0.25, 0.0, 1.0]),
            Color::rgba(0.5, 0.25, 0.0, 1.0)
        );
    }

    #[test]
    fn hex_and_packing() {
        let c = Color::hex(0xff8000);
        assert_eq!(c.to_rgba8_u32(), 0xff_00_80_ff);
        assert_eq!(
            Color::rgba(2.0, -1.0, 0.0, 0.5).to_rgba8_u32(),
            0x80_00_00_ff
        );
    }

    #[test]
    fn tints_multiply() {
        let c = Color::rgba(0.5, 1.0, 0.0, 0.5) * Color::rgba(0.5, 0.5, 1.0, 0.5);
        assert_eq!(c, Color::rgba(0.25, 0.5, 0.0, 0.25));
    }

    #[test]
    fn clear_colour_is_premultiplied() {
        let c = Color::rgba(1.0, 0.5, 0.0, 0.5).to_wgpu_premultiplied();
        assert_eq!((c.r, c.g, c.b, c.a), (0.5, 0.25, 0.0, 0.5));
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
