//! Sprites: a textured quad sized by its texture frame (or an explicit size) and placed by its anchor.

use crate::Texture;
use glam::{Affine2, Vec2};

/// A textured quad. Tint, alpha and blend mode live on the [`NodeProps`](crate::NodeProps) that holds it, and its
/// place on the node's [`Transform`](crate::Transform).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprite {
    /// The texture or atlas frame drawn.
    pub texture: Texture,
    /// Which point of the quad sits at the node's origin: `(0, 0)` top-left, `(0.5, 0.5)` centre.
    pub anchor: Vec2,
    /// Size in pixels before the node's scale; `None` uses the frame's size.
    pub size: Option<Vec2>,
}

impl Sprite {
    /// A sprite of the whole `texture` (or frame), anchored at the texture's
    /// [default anchor](Texture::default_anchor): a sheet frame's anchor, top-left otherwise.
    pub fn new(texture: Texture) -> Sprite {
        Sprite {
            texture,
            anchor: texture.default_anchor(),
            size: None,
        }
    }

    /// The sprite's size in pixels before scaling: [`Sprite::size`], or the texture's (untrimmed) size.
    #[inline]
    pub fn size_in_pixels(&self) -> Vec2 {
        self.size.unwrap_or_else(|| Vec2::from(self.texture.size()))
    }

    /// The drawn quad under `matrix` as `(origin, x_edge, y_edge)`: corner `c` of the quad stream's layout takes
    /// the texture region's corner `c`. A trimmed frame draws only its stored pixels, placed inside the untrimmed
    /// rectangle; a rotated one starts at the upright bottom-left corner and runs up, so the region's clockwise
    /// turn is undone.
    #[inline(always)]
    pub(crate) fn quad(&self, matrix: &Affine2) -> (Vec2, Vec2, Vec2) {
        self.local_quad().place(matrix)
    }

    /// The drawn quad in the node's own space, before its transform (see [`Sprite::quad`]).
    #[inline(always)]
    pub(crate) fn local_quad(&self) -> LocalQuad {
        let t = &self.texture;
        let size = self.size_in_pixels();
        let lo = -self.anchor * size;
        if t.is_plain() {
            return LocalQuad {
                origin: lo,
                size,
                rotated: false,
            };
        }
        let [ox, oy, w, h] = t.trim_rect();
        // Stretched by an explicit size; the texture's own size needs no division.
        let k = match self.size {
            Some(s) => s / Vec2::from(t.size()),
            None => Vec2::ONE,
        };
        LocalQuad {
            origin: lo + Vec2::new(ox, oy) * k,
            size: Vec2::new(w * k.x, h * k.y),
            rotated: t.is_rotated(),
        }
    }
}

/// A sprite's drawn rectangle in its node's space: what its quad is before the node's and its ancestors'
/// transforms (a kept walk keeps it, so moving the sprite needs none of its other properties).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LocalQuad {
    /// The top-left corner of the stored pixels.
    pub origin: Vec2,
    /// Width and height of the stored pixels, upright.
    pub size: Vec2,
    /// Whether the frame is stored turned (see [`Sprite::quad`]).
    pub rotated: bool,
}

impl LocalQuad {
    /// An empty rectangle at the origin.
    pub const ZERO: LocalQuad = LocalQuad {
        origin: Vec2::ZERO,
        size: Vec2::ZERO,
        rotated: false,
    };

    /// The quad under `matrix` as `(origin, x_edge, y_edge)`.
    #[inline(always)]
    pub(crate) fn place(&self, matrix: &Affine2) -> (Vec2, Vec2, Vec2) {
        let p0 = matrix.transform_point2(self.origin);
        let dx = matrix.matrix2.x_axis * self.size.x;
        let dy = matrix.matrix2.y_axis * self.size.y;
        if self.rotated {
            (p0 + dy, -dy, dx)
        } else {
            (p0, dx, dy)
        }
    }
}

/// The most tiles a tiling sprite's rectangle may span along an edge (see `TilingSprite::tile_coordinates`).
pub(crate) const MAX_TILES_ACROSS: f32 = 1_048_576.0;

/// A texture stretched over any size with its borders kept: PixiJS's `NineSliceSprite`. The texture is cut by
/// four border widths into nine parts; corners keep their size, edges stretch along one axis and the centre along
/// both. Below the borders' sum the borders shrink in proportion (so they meet, never overlap); the sprite stays
/// the size asked for.
///
/// Any texture or atlas frame works, rotated ones too; a trimmed frame is sliced as its stored pixels. Drawn as
/// nine quads batched with sprites.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NineSliceSprite {
    /// The texture or frame sliced.
    pub texture: Texture,
    /// Border widths in texture pixels: left, top, right, bottom.
    pub borders: [f32; 4],
    /// Size in pixels before the node's scale.
    pub size: Vec2,
    /// Which point of the rectangle sits at the node's origin.
    pub anchor: Vec2,
}

impl NineSliceSprite {
    /// `texture` sliced by `borders` (left, top, right, bottom), at its own size.
    pub fn new(texture: Texture, borders: [f32; 4]) -> NineSliceSprite {
        NineSliceSprite {
            texture,
            borders,
            size: Vec2::from(texture.frame_size()),
            anchor: Vec2::ZERO,
        }
    }

    /// The nine parts: `(local rectangle, texture rectangle)`, each `[x0, y0, x1, y1]`, the local ones from the
    /// anchored top-left, the texture ones in upright pixels of the stored frame, and how many there are (parts
    /// of zero size on screen are left out). A part whose texture span is empty (borders that fill the texture)
    /// stretches the texel at its seam, as PixiJS does. `None` for a size, anchor or border that is not finite.
    pub(crate) fn parts(&self) -> Option<([NineSlicePart; 9], usize)> {
        // Borders and the local rectangle in units of size; texture spans in pixels (times the resolution).
        let res = self.texture.resolution();
        let [tw, th] = self.texture.frame_size();
        let b = self.borders;
        let finite =
            b.iter().all(|v| v.is_finite()) && self.size.is_finite() && self.anchor.is_finite();
        if !finite {
            return None;
        }
        // Borders in texture pixels, clamped to the texture.
        let (l, r) = clamp_pair(b[0], b[2], tw);
        let (t, bo) = clamp_pair(b[1], b[3], th);
        let (w, h) = (self.size.x.abs(), self.size.y.abs());
        // Scaled down when the size is below the borders' sum.
        let kx = if l + r > w { w / (l + r) } else { 1.0 };
        let ky = if t + bo > h { h / (t + bo) } else { 1.0 };
        let k = kx.min(ky);
        let xs = [0.0, l * k, w - r * k, w];
        let ys = [0.0, t * k, h - bo * k, h];
        let (pw, ph) = (tw * res, th * res);
        let us = seams([0.0, l * res, pw - r * res, pw], pw);
        let vs = seams([0.0, t * res, ph - bo * res, ph], ph);
        let lo = -self.anchor * Vec2::new(w, h);
        let mut out = [([0.0; 4], [0.0; 4]); 9];
        let mut n = 0;
        for j in 0..3 {
            for i in 0..3 {
                if xs[i + 1] - xs[i] <= 0.0 || ys[j + 1] - ys[j] <= 0.0 {
                    continue;
                }
                out[n] = (
                    [
                        lo.x + xs[i],
                        lo.y + ys[j],
                        lo.x + xs[i + 1],
                        lo.y + ys[j + 1],
                    ],
                    [us[i].0, vs[j].0, us[i].1, vs[j].1],
                );
                n += 1;
            }
        }
        Some((out, n))
    }

    /// The rectangle it covers in its node's space: `size` (its sign ignored) placed by the anchor.
    pub(crate) fn local_rect(&self) -> (Vec2, Vec2) {
        let size = self.size.abs();
        let lo = -self.anchor * size;
        (lo, lo + size)
    }
}

/// A nine-slice part: its local rectangle and its texture rectangle.
pub(crate) type NineSlicePart = ([f32; 4], [f32; 4]);

/// The texture spans `[x_i, x_{i+1}]` of the three parts along one axis; an empty span becomes the texel at its
/// seam (half a texel either side), so a stretched part shows the seam's colour instead of nothing.
fn seams(x: [f32; 4], side: f32) -> [(f32, f32); 3] {
    [0, 1, 2].map(|i| {
        let (a, b) = (x[i], x[i + 1]);
        if b - a > 0.0 {
            (a, b)
        } else {
            let c = a.clamp(0.5, (side - 0.5).max(0.5));
            (c - 0.5, c + 0.5)
        }
    })
}

/// Two borders of one axis clamped to `0..=side` and, together, to `side`.
fn clamp_pair(a: f32, b: f32, side: f32) -> (f32, f32) {
    let (a, b) = (a.clamp(0.0, side), b.clamp(0.0, side));
    if a + b > side {
        let k = side / (a + b);
        (a * k, b * k)
    } else {
        (a, b)
    }
}

/// A texture repeated over a rectangle: PixiJS's `TilingSprite`. The tiles are placed by their own transform,
/// `translate(tile_position) · rotate(tile_rotation) · scale(tile_scale)`, in the sprite's space; the wrap happens
/// per pixel in the batch shader, so a tiling sprite is one quad (two entries of the quad stream) batched with
/// sprites of any texture.
///
/// Whole textures and atlas frames both tile (rotated frames too; a trimmed frame tiles its stored pixels). With
/// linear filtering a frame's edge texels blend with what lies beyond the frame at the seams: the neighbouring
/// frame in an atlas (leave padding), or the clamped edge of a whole texture (load it with
/// [`Sampling::repeat`](crate::Sampling::repeat) for seamless bilinear seams).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TilingSprite {
    /// The texture or frame repeated.
    pub texture: Texture,
    /// Size of the covered rectangle in pixels before the node's scale.
    pub size: Vec2,
    /// Which point of the rectangle sits at the node's origin.
    pub anchor: Vec2,
    /// Where a tile's top-left corner sits, in the sprite's pixels from its top-left.
    pub tile_position: Vec2,
    /// Scale of the tiles.
    pub tile_scale: Vec2,
    /// Rotation of the tiles in radians (clockwise on screen).
    pub tile_rotation: f32,
    /// Where each tile wraps, in texture pixels past its edge (PixiJS's `textureMatrix.clampOffset`): with `0` a
    /// tile shows its frame from the edge; with an offset it shows the frame from that far in, and the same
    /// distance past the frame's far edge (pixels an atlas packs beside the frame, or the texture wrapped again
    /// under [`Sampling::repeat`](crate::Sampling::repeat)). A non-finite offset counts as 0.
    pub clamp_offset: f32,
}

impl TilingSprite {
    /// `texture` repeated over `width x height` pixels, tiles at their own size from the top-left corner.
    pub fn new(texture: Texture, width: f32, height: f32) -> TilingSprite {
        TilingSprite {
            texture,
            size: Vec2::new(width, height),
            anchor: Vec2::ZERO,
            tile_position: Vec2::ZERO,
            tile_scale: Vec2::ONE,
            tile_rotation: 0.0,
            clamp_offset: 0.0,
        }
    }

    /// The clamp offset in tiles across and down (see [`TilingSprite::clamp_offset`]).
    pub(crate) fn clamp_shift(&self) -> [f32; 2] {
        let [w, h] = self.texture.trim_rect_size();
        match self.clamp_offset.is_finite() {
            true => [self.clamp_offset / w, self.clamp_offset / h],
            false => [0.0; 2],
        }
    }

    /// The tile transform: tile pixels to the sprite's pixels (from its top-left corner).
    pub fn tile_transform(&self) -> Affine2 {
        Affine2::from_scale_angle_translation(
            self.tile_scale,
            self.tile_rotation,
            self.tile_position,
        )
    }

    /// Texture coordinates in tiles (upright) at the rectangle's top-left corner and their change along its
    /// width and height; `None` if the tile transform cannot be inverted or is not finite, or if the rectangle
    /// spans more than [`MAX_TILES_ACROSS`] tiles (each pixel would cover thousands of tiles: noise, and past
    /// what `f32` texture coordinates resolve). The top-left coordinates are reduced to one tile (the pattern
    /// repeats), in `f64`, so that a tile position of 1e20 pixels draws the tiles in their place as far as its
    /// `f32` value says, not garbage.
    pub(crate) fn tile_coordinates(&self) -> Option<[Vec2; 3]> {
        let m = self.tile_transform();
        if m.matrix2.determinant().abs() < 1e-20 {
            return None;
        }
        let inv = m.inverse();
        let [tw, th] = self.texture.frame_size();
        let per_tile = Vec2::new(1.0 / tw, 1.0 / th);
        // The top-left corner's tile coordinates, -M^-1 · position, computed and wrapped in f64.
        let m64 = glam::DMat2::from_cols(m.matrix2.x_axis.as_dvec2(), m.matrix2.y_axis.as_dvec2());
        let o64 = -(m64.inverse() * m.translation.as_dvec2())
            / glam::DVec2::new(f64::from(tw), f64::from(th));
        let o = o64.rem_euclid(glam::DVec2::ONE).as_vec2();
        let dx = inv.transform_vector2(Vec2::new(self.size.x, 0.0)) * per_tile;
        let dy = inv.transform_vector2(Vec2::new(0.0, self.size.y)) * per_tile;
        let across = dx.abs().max(dy.abs()).max_element();
        if across.is_nan() || across > MAX_TILES_ACROSS || !o64.is_finite() {
            return None;
        }
        let all = [o, dx, dy];
        all.iter().all(|v| v.is_finite()).then_some(all)
    }
}
