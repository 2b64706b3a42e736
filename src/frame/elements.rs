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

    /// A styled glyph's frame ([`Quad::styled`]): the texels `[x, y, w, h]` of a page of `page` texels (a power of
    /// two up to 65,536) as 16-bit fractions of the page, exact: `u0 | v0 << 16`, `u1 | v1 << 16`, and `inset`
    /// texels (what only its shadow covers on each side, left out of its fill and outline passes) in the same
    /// units.
    #[inline(always)]
    pub fn styled_frame(texels: [u32; 4], inset: u32, page: u32) -> [u32; 3] {
        let shift = 16u32.saturating_sub(page.max(1).ilog2());
        let [x, y, w, h] = texels;
        let at = |v: u32| (v << shift).min(0xffff);
        // At most just under half the frame, so the passes it shrinks keep a positive size.
        let inset = inset
            .min(w.saturating_sub(1) / 2)
            .min(h.saturating_sub(1) / 2);
        [at(x) | at(y) << 16, at(x + w) | at(y + h) << 16, at(inset)]
    }

    /// A styled glyph ([`STYLED_FLAG`]): corners `geometry`, `frame` from [`Quad::styled_frame`], fill `color`,
    /// texture word `texture` (the flag set here), its [`StyledData`] `back` quads before it (held where a
    /// plain quad's second texture coordinates are).
    #[inline(always)]
    pub fn styled(
        geometry: [[f32; 2]; 3],
        frame: [u32; 3],
        color: u32,
        texture: u32,
        back: u32,
    ) -> Quad {
        Quad {
            origin: geometry[0],
            x_edge: geometry[1],
            y_edge: geometry[2],
            uv0: [f32::from_bits(frame[0]), f32::from_bits(frame[1])],
            uv1: [f32::from_bits(back), f32::from_bits(frame[2])],
            color,
            texture: texture | STYLED_FLAG,
        }
    }

    /// For a styled glyph at `i` of `quads`: its text's [`StyledData`].
    pub fn styled_data(quads: &[Quad], i: usize) -> Option<StyledData> {
        let q = quads.get(i)?;
        if q.texture & STYLED_FLAG == 0 || q.texture & DATA_FLAG != 0 {
            return None;
        }
        let back = q.uv1[0].to_bits() as usize;
        let d = quads.get(i.checked_sub(back)?)?;
        Some(StyledData::of(d))
    }

    /// Where quad `i` of `quads` draws, for bounds: its own corners' offset, and for a styled glyph with a shadow,
    /// the shadow's too (`[0, 0]` when none).
    pub fn shadow_offset(quads: &[Quad], i: usize) -> [f32; 2] {
        match Quad::styled_data(quads, i) {
            Some(d) if d.passes & PASS_SHADOW != 0 => d.offset,
            _ => [0.0; 2],
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

/// In [`Quad::texture`]: the quad is a styled glyph ([`Quad::styled`]), drawn once a pass (shadow, outline, fill:
/// [`STYLED_INDEX_BIT`]) from one channel each of its packed bitmap.
pub const STYLED_FLAG: u32 = 0x10;

/// In an index with the quad bit set: a styled glyph's corner, `corner | pass << 2 | quad << 4` (pass 0 its fill,
/// 1 its outline, 2 its shadow), so one quad draws three times. Used where the quad bit is
/// [`QUAD_INDEX_BIT`] (bit 31): plain quads then stop at 2^28 (bit 30 clear), styled glyphs at 2^26.
pub const STYLED_INDEX_BIT: u32 = 1 << 30;

/// Passes a styled glyph can draw: [`StyledData::passes`] bits.
pub const PASS_FILL: u32 = 1;
/// The outline pass.
pub const PASS_OUTLINE: u32 = 2;
/// The shadow pass.
pub const PASS_SHADOW: u32 = 4;

/// The bits of [`Quad::texture`] and [`Vertex::texture`] holding the texture's slot in its batch.
pub const SLOT_BITS: u32 = 0x0f;

/// What an index of the index stream names: a quad's corner (for a styled glyph, in one of its passes), or a mesh
/// vertex.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Element {
    /// Corner `corner` of quad `quad`, in pass `pass` (0 for a plain quad and a styled glyph's fill).
    Corner { quad: u32, corner: u32, pass: u32 },
    /// Mesh vertex.
    Vertex(u32),
}

impl Element {
    /// Decodes `index` of a stream whose quad corners carry `quad_bit`.
    #[inline(always)]
    pub fn of(index: u32, quad_bit: u32) -> Element {
        if index & quad_bit == 0 {
            Element::Vertex(index)
        } else if quad_bit == QUAD_INDEX_BIT && index & STYLED_INDEX_BIT != 0 {
            Element::Corner {
                quad: (index & (STYLED_INDEX_BIT - 1)) >> 4,
                corner: index & 3,
                pass: (index >> 2) & 3,
            }
        } else {
            Element::Corner {
                quad: (index - quad_bit) >> 2,
                corner: index & 3,
                pass: 0,
            }
        }
    }

    /// `index` (of a stream whose quad corners carry `quad_bit`) with its quad or vertex number moved on by
    /// `quads` or `vertices` (a recording copied in at that offset).
    #[inline(always)]
    pub fn rebase(index: u32, quad_bit: u32, quads: u32, vertices: u32) -> u32 {
        if index & quad_bit == 0 {
            index + vertices
        } else if quad_bit == QUAD_INDEX_BIT && index & STYLED_INDEX_BIT != 0 {
            index + (quads << 4)
        } else {
            index + (quads << 2)
        }
    }
}

/// A styled text's data: the quad before its glyphs ([`DATA_FLAG`], drawn never) that each glyph names by its
/// distance back: which passes its glyphs draw, the outline's and the shadow's colours (straight RGBA8, as
/// [`Quad::color`]) and the shadow's offset (clip space, or the render group's space).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StyledData {
    /// [`PASS_FILL`], [`PASS_OUTLINE`], [`PASS_SHADOW`] bits.
    pub passes: u32,
    /// Outline colour.
    pub outline: u32,
    /// Shadow colour.
    pub shadow: u32,
    /// Shadow offset.
    pub offset: [f32; 2],
}

impl StyledData {
    /// As the quad stream holds it (`texture`: its texture word, the flags set here).
    pub fn quad(&self, texture: u32) -> Quad {
        Quad {
            origin: self.offset,
            x_edge: [0.0; 2],
            y_edge: [0.0; 2],
            uv0: [f32::from_bits(self.outline), f32::from_bits(self.shadow)],
            uv1: [f32::from_bits(self.passes), 0.0],
            color: 0,
            texture: texture | DATA_FLAG,
        }
    }

    /// Read back from its quad.
    pub fn of(q: &Quad) -> StyledData {
        StyledData {
            passes: q.uv1[0].to_bits(),
            outline: q.uv0[0].to_bits(),
            shadow: q.uv0[1].to_bits(),
            offset: q.origin,
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Every index names what it was made from, and a recording's indices moved on name the moved element.
        #[test]
        fn indices_decode_and_rebase(quad in 0u32..1 << 25, corner in 0u32..4, pass in 0u32..3, shift in 0u32..1 << 24) {
            let plain = QUAD_INDEX_BIT | quad << 2 | corner;
            let styled = QUAD_INDEX_BIT | STYLED_INDEX_BIT | quad << 4 | pass << 2 | corner;
            proptest::prop_assert_eq!(Element::of(plain, QUAD_INDEX_BIT), Element::Corner { quad, corner, pass: 0 });
            proptest::prop_assert_eq!(Element::of(styled, QUAD_INDEX_BIT), Element::Corner { quad, corner, pass });
            proptest::prop_assert_eq!(Element::of(quad, QUAD_INDEX_BIT), Element::Vertex(quad));
            let moved = |i: u32| Element::of(Element::rebase(i, QUAD_INDEX_BIT, shift, 7), QUAD_INDEX_BIT);
            proptest::prop_assert_eq!(moved(plain), Element::Corner { quad: quad + shift, corner, pass: 0 });
            proptest::prop_assert_eq!(moved(styled), Element::Corner { quad: quad + shift, corner, pass });
            proptest::prop_assert_eq!(moved(quad), Element::Vertex(quad + 7));
            // Where the quad bit is bit 23, bit 30 is no styled marker.
            let bit = 1 << 23;
            let small = bit | (quad & 0x1f_ffff) << 2 | corner;
            proptest::prop_assert_eq!(Element::of(small, bit), Element::Corner { quad: quad & 0x1f_ffff, corner, pass: 0 });
        }
    }

    /// A styled glyph's frame is exact in 16-bit fractions of a power-of-two page, and its data comes back whole.
    #[test]
    fn styled_frames_are_exact_and_data_round_trips() {
        let [a, b, i] = Quad::styled_frame([3, 1000, 20, 23], 2, 1024);
        assert_eq!([a & 0xffff, a >> 16], [3 * 64, 1000 * 64]);
        assert_eq!([b & 0xffff, b >> 16], [23 * 64, 1023 * 64]);
        assert_eq!(i, 2 * 64);
        let [_, b, _] = Quad::styled_frame([65000, 0, 1000, 0], 0, 65536);
        assert_eq!(b & 0xffff, 0xffff, "clamped at the page's end");
        assert_eq!(
            Quad::styled_frame([0, 0, 4, 9], 7, 1024)[2],
            64,
            "an inset keeps a texel of the frame"
        );
        let d = StyledData {
            passes: PASS_FILL | PASS_SHADOW,
            outline: 0xffff_ffff,
            shadow: 0x7fc0_0001,
            offset: [-0.5, 2.0],
        };
        let q = d.quad(3 << TRANSFORM_SHIFT);
        assert_eq!(
            StyledData::of(&q),
            d,
            "colours that read as NaN keep their bits"
        );
        assert!(q.texture & DATA_FLAG != 0 && q.texture >> TRANSFORM_SHIFT == 3);
        let g = Quad::styled([[0.0; 2]; 3], [0; 3], 0, 5, 1);
        assert_eq!(Quad::styled_data(&[q, g], 1), Some(d));
        assert_eq!(Quad::shadow_offset(&[q, g], 1), [-0.5, 2.0]);
        assert_eq!(
            Quad::styled_data(&[q, g], 0),
            None,
            "the data quad is no glyph"
        );
        let far = Quad::styled([[0.0; 2]; 3], [0; 3], 0, 5, 9);
        assert_eq!(
            Quad::styled_data(&[q, far], 1),
            None,
            "a distance past the stream's start"
        );
    }
}
