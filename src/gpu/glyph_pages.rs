//! Glyph-atlas pages as textures: each atlas page is a texture of the [`TextureSystem`]. Ids are reserved before
//! the scene walk (so the walk can name pages it starts using), storage is created after it, and the glyph bitmaps
//! the walk rasterised are written then, before any pass.

use crate::base::stats::FrameStats;
use crate::gpu::texture_system::TextureSystem;
use crate::text::TextSystem;
use crate::{Sampling, TextureId};

/// The texture of each glyph-atlas page.
#[derive(Debug, Default)]
pub(crate) struct GlyphPages {
    ids: Vec<TextureId>,
}

impl GlyphPages {
    /// The texture of atlas page `page`, once reserved.
    #[inline]
    pub fn get(&self, page: usize) -> Option<TextureId> {
        self.ids.get(page).copied()
    }

    /// Before the walk: reserves ids for the pages the atlas may start using and tells it how many it has.
    pub fn reserve(&mut self, text: &mut TextSystem, textures: &mut TextureSystem) {
        while self.ids.len() < text.atlas.pages_wanted() {
            match textures.reserve() {
                Ok(id) => self.ids.push(id),
                Err(e) => {
                    log::warn!("no glyph page: {e}");
                    break;
                }
            }
        }
        text.atlas.set_available_pages(self.ids.len());
    }

    /// After the walk: gives new pages storage and writes the glyph bitmaps rasterised by the walk.
    pub fn upload(
        &self,
        text: &mut TextSystem,
        textures: &mut TextureSystem,
        frame: &mut FrameStats,
    ) {
        let page = text.atlas.page_size();
        for &id in &self.ids[..text.atlas.pages_in_use()] {
            if !textures.is_live(id) {
                textures.fill_reserved(id, page, page, Sampling::LINEAR);
            }
        }
        frame.glyph_uploads += text.atlas.uploads_this_frame;
        frame.glyph_rasterizations += text.atlas.rasterized_this_frame;
        frame.glyphs_too_large += text.atlas.too_large_this_frame;
        for u in text.atlas.take_uploads() {
            textures.write_region(self.ids[u.page as usize], u.rect, &u.rgba);
        }
    }
}
