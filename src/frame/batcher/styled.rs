//! Styled text's glyphs in the batcher: a text with an outline or a shadow writes a data quad (its passes'
//! colours and shadow offset) and one quad a glyph, which its run of indices draws pass by pass (shadows, then
//! outlines, then fills; see [`STYLED_INDEX_BIT`]).

use super::{
    Batcher, Quad, QuadRun, StyledData, PASS_FILL, PASS_OUTLINE, PASS_SHADOW, STYLED_INDEX_BIT,
};
use crate::gpu::pipeline::Topology;
use crate::{BlendMode, TextureId};

impl Batcher {
    /// Whether a styled text of `n` glyphs can be drawn now ([`Batcher::begin_styled`] takes it).
    pub fn styled_room(&self, n: usize) -> bool {
        self.styled_supported() && self.quads.len() + n < (STYLED_INDEX_BIT as usize >> 4)
    }

    /// Starts a styled text of `n` glyphs (see [`Batcher::push_styled`]): writes its `data` quad, which its
    /// glyphs name. `false` (nothing written) where styled glyphs cannot be drawn here: the device's indices
    /// have no room for passes, or the glyphs would pass 2^26 quads; the caller then draws each pass as quads.
    pub fn begin_styled(&mut self, n: usize, data: StyledData) -> bool {
        if !self.styled_room(n)
            || data.passes & !(PASS_FILL | PASS_OUTLINE | PASS_SHADOW) != 0
            || data.passes == 0
        {
            return false;
        }
        self.before_push();
        self.end_run();
        self.styled = Some((self.quads.len() as u32, data.passes));
        self.styled_indices = 6 * data.passes.count_ones();
        self.quads.push_value::<12>(data.quad(self.xform));
        true
    }

    /// Adds a glyph of the styled text begun by [`Batcher::begin_styled`]: the parallelogram `geometry` showing
    /// the packed bitmap at `frame` ([`Quad::styled_frame`]) of `texture`, filled in `color`. Glyphs of one text
    /// share a run of indices, pass by pass, unless their textures do not fit one batch (a text across more atlas
    /// pages than a batch holds: each batch's glyphs then draw their passes on their own).
    #[inline(always)]
    pub fn push_styled(
        &mut self,
        texture: TextureId,
        geometry: [[f32; 2]; 3],
        frame: [u32; 3],
        color: u32,
        blend: BlendMode,
    ) {
        let Some((data, passes)) = self.styled else {
            return;
        };
        let (tick, slot) = self.slots.get(texture.slot()).copied().unwrap_or((0, 0));
        let c = &self.current;
        let slot = if tick == self.tick && c.blend == blend && c.topology == Topology::TriangleList
        {
            u32::from(slot)
        } else {
            self.styled_slot(texture, blend)
        };
        if self.run.quads == 0 {
            self.run = QuadRun {
                index_start: self.indices.len() as u32,
                quad_start: self.quads.len() as u32,
                quads: 0,
                passes,
            };
        }
        self.run.quads += 1;
        self.current.index_count += self.styled_indices;
        let back = self.quads.len() as u32 - data;
        self.quads.push_value::<12>(Quad::styled(
            geometry,
            frame,
            color,
            slot | self.xform,
            back,
        ));
    }

    /// The slot of a styled glyph's `texture` new to the batch: the text's run ends first where the batch must
    /// (the blend mode differs, or the texture does not fit).
    #[cold]
    fn styled_slot(&mut self, texture: TextureId, blend: BlendMode) -> u32 {
        let c = &self.current;
        let known = self
            .slots
            .get(texture.slot())
            .is_some_and(|&(tick, _)| tick == self.tick);
        if c.index_count > 0
            && (c.blend != blend
                || c.topology != Topology::TriangleList
                || (!known && c.textures.len() == self.max_textures))
        {
            self.end_run();
        }
        self.prepare(texture, blend, Topology::TriangleList)
    }

    /// Ends the styled text begun by [`Batcher::begin_styled`].
    pub fn end_styled(&mut self) {
        if self.styled.take().is_some() {
            self.end_run();
        }
    }
}
