//! What the streams hold, in the layouts the batch shader (`shaders/batch.wgsl`) reads: the 48-byte [`Quad`] of a
//! sprite or glyph (uploaded as two 24-byte halves, its corners and the rest, so that a moved sprite uploads only
//! its corners), the 24-byte mesh [`Vertex`] of a shape, the 32-byte [`GroupTransform`] of a render group, and
//! the index bits that tell quads from mesh vertices. Plain data: the [`Batcher`](crate::frame::batcher::Batcher) fills
//! them, the streams upload them.

use bytemuck::{Pod, Zeroable};

pub use crate::gpu::shader::QUAD_INDEX_BIT;

/// One quad of the quad stream: 48 bytes, positions already in clip space. Corner `c` (0 top-left, 1 top-right,
/// 2 bottom-right, 3 bottom-left) is `origin (+ x_edge if c is 1 or 2) (+ y_edge if c is 2 or 3)`, with texture
/// coordinates `uv0` / `uv1` picked the same way. The GPU holds it as two arrays: the first
/// [`QUAD_CORNER_BYTES`] (the corners) in one, the rest in the other.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Quad {
    /// Clip-space position of the top-left corner.
    pub origin: [f32; 2],
    /// From the top-left to the top-right corner.
    pub x_edge: [f32; 2],
    /// From the top-left to the bottom-left corner.
    pub y_edge: [f32; 2],
    /// Texture coordinates of the top-left corner.
    pub uv0: [f32; 2],
    /// Texture coordinates of the bottom-right corner.
    pub uv1: [f32; 2],
    /// Tint times alpha, RGBA8 straight alpha (premultiplied in the vertex shader).
    pub color: u32,
    /// Slot of the texture in the batch's bind group (low 8 bits) and the [`GroupTransform`] applied (the rest;
    /// 0 is the identity: positions already in clip space).
    pub texture: u32,
}

/// Bytes of a [`Quad`]'s corners (`origin`, `x_edge`, `y_edge`), the part a moved sprite uploads; the rest
/// (frame, colour, texture word) is as long.
pub const QUAD_CORNER_BYTES: usize = 24;

const _: () = assert!(std::mem::size_of::<Quad>() == 2 * QUAD_CORNER_BYTES);

impl Quad {
    /// The corners half (`origin`, `x_edge`, `y_edge`), or the other half, as stored on the GPU.
    #[inline(always)]
    pub fn half(&self, corners: bool) -> [u32; 6] {
        let words: [[u32; 6]; 2] = bytemuck::cast(*self);
        words[usize::from(!corners)]
    }

    /// Replaces the corners (origin, x edge, y edge), keeping frame, colour and texture word.
    #[inline(always)]
    pub fn set_corners(&mut self, geometry: [[f32; 2]; 3]) {
        [self.origin, self.x_edge, self.y_edge] = geometry;
    }

    /// The quad with corners `geometry` (origin, x edge, y edge), frame `uv` (`[u0, v0, u1, v1]`), `color` and
    /// texture slot word `texture`.
    #[inline(always)]
    pub fn new(geometry: [[f32; 2]; 3], uv: [f32; 4], color: u32, texture: u32) -> Quad {
        Quad {
            origin: geometry[0],
            x_edge: geometry[1],
            y_edge: geometry[2],
            uv0: [uv[0], uv[1]],
            uv1: [uv[2], uv[3]],
            color,
            texture,
        }
    }

    /// Corner `c` (0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left, taken modulo 4) as the vertex shader
    /// makes it: position and texture coordinates.
    pub fn corner(&self, c: usize) -> ([f32; 2], [f32; 2]) {
        let (right, bottom) = (matches!(c % 4, 1 | 2), c % 4 >= 2);
        let mut p = self.origin;
        if right {
            p = [p[0] + self.x_edge[0], p[1] + self.x_edge[1]];
        }
        if bottom {
            p = [p[0] + self.y_edge[0], p[1] + self.y_edge[1]];
        }
        let pick = |a: f32, b: f32, second: bool| if second { b } else { a };
        let uv = [
            pick(self.uv0[0], self.uv1[0], right),
            pick(self.uv0[1], self.uv1[1], bottom),
        ];
        (p, uv)
    }
}

/// Bytes of a mesh vertex's position, the part of it the GPU holds apart (a moved vertex uploads only this).
pub const VERTEX_POSITION_BYTES: usize = 8;

/// Bytes of the rest of a mesh vertex (texture coordinates, colour, texture word).
pub const VERTEX_REST_BYTES: usize = 16;

/// One mesh vertex of the vertex stream: 24 bytes, positions already in clip space. The GPU holds its position
/// ([`VERTEX_POSITION_BYTES`]) and the rest ([`VERTEX_REST_BYTES`]) in two buffers.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Vertex {
    /// Clip-space position.
    pub position: [f32; 2],
    /// Texture coordinates.
    pub uv: [f32; 2],
    /// Tint times alpha, RGBA8 straight alpha (premultiplied in the vertex shader).
    pub color: u32,
    /// Slot of the texture in the batch's bind group (low 8 bits) and the [`GroupTransform`] applied (the rest),
    /// as in [`Quad::texture`].
    pub texture: u32,
}

const _: () = assert!(std::mem::size_of::<Vertex>() == VERTEX_POSITION_BYTES + VERTEX_REST_BYTES);

impl Vertex {
    /// The position's bytes, as the GPU stores them.
    #[inline(always)]
    pub fn position_bytes(&self) -> [u8; VERTEX_POSITION_BYTES] {
        bytemuck::cast(self.position)
    }

    /// The rest's bytes (texture coordinates, colour, texture word), as the GPU stores them.
    #[inline(always)]
    pub fn rest_bytes(&self) -> [u8; VERTEX_REST_BYTES] {
        let words: [u32; 6] = bytemuck::cast(*self);
        bytemuck::cast([words[2], words[3], words[4], words[5]])
    }
}

/// Bits of [`Quad::texture`] and [`Vertex::texture`] below the transform index.
pub const TRANSFORM_SHIFT: u32 = 8;

/// In [`Quad::texture`]: the quad repeats its frame, with its corners' tile coordinates in the next quad.
pub const TILING_FLAG: u32 = 0x80;

/// In [`Vertex::texture`]: the vertex's texture coordinates wrap across (`fract`) over the whole texture, per
/// fragment (a pattern's tiling; the flag a quad uses for [`TILING_FLAG`]).
pub const WRAP_X_FLAG: u32 = 0x80;

/// In [`Vertex::texture`]: the vertex's texture coordinates wrap up and down (the flag a quad uses for
/// [`DATA_FLAG`]).
pub const WRAP_Y_FLAG: u32 = 0x40;

/// In [`Quad::texture`]: the quad holds a tiling quad's tile coordinates, or a distance-field glyph's distance
/// factor, and draws nothing.
pub const DATA_FLAG: u32 = 0x40;

/// In [`Quad::texture`]: the quad is a distance-field glyph (its texels a signed distance field, SDF or MSDF),
/// with its screen distance factor in the next quad (`origin.x`).
pub const DISTANCE_FIELD_FLAG: u32 = 0x20;

/// The bits of [`Quad::texture`] and [`Vertex::texture`] holding the texture's slot in its batch.
pub const SLOT_BITS: u32 = 0x0f;

/// The transform and colour a render group's geometry is drawn through (the transform stream, 32 bytes each):
/// `clip = x_axis * x + y_axis * y + translation`, colour multiplied by `color` (RGBA8, straight alpha). Entry 0
/// is the identity, which geometry outside render groups uses.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct GroupTransform {
    /// Image of the x axis.
    pub x_axis: [f32; 2],
    /// Image of the y axis.
    pub y_axis: [f32; 2],
    /// Image of the origin.
    pub translation: [f32; 2],
    /// Colour multiplied into the group's vertices.
    pub color: u32,
    _pad: u32,
}

impl Default for GroupTransform {
    fn default() -> Self {
        GroupTransform::new(glam::Affine2::IDENTITY, u32::MAX)
    }
}

impl GroupTransform {
    /// The entry for `matrix` (group space to clip space) and `color`.
    pub fn new(matrix: glam::Affine2, color: u32) -> GroupTransform {
        GroupTransform {
            x_axis: matrix.matrix2.x_axis.into(),
            y_axis: matrix.matrix2.y_axis.into(),
            translation: matrix.translation.into(),
            color,
            _pad: 0,
        }
    }

    /// The matrix (group space to clip space).
    pub fn affine(&self) -> glam::Affine2 {
        glam::Affine2::from_cols(
            self.x_axis.into(),
            self.y_axis.into(),
            self.translation.into(),
        )
    }
}
