//! Fonts: TTF/OTF files or bytes parsed by fontdue, shared cheaply (`Clone` is an `Arc`).

use crate::{Error, Result};
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

static NEXT_ID: AtomicU32 = AtomicU32::new(1);

/// A parsed font. Cloning shares it.
#[derive(Clone)]
pub struct Font {
    id: u32,
    inner: Arc<fontdue::Font>,
}

impl std::fmt::Debug for Font {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Font({})", self.id)
    }
}

impl PartialEq for Font {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Font {
    /// Parses TTF or OTF bytes; unreadable bytes are [`Error::Font`].
    ///
    /// Bytes may come from anywhere: before fontdue sees them they are checked to state no more work than real
    /// fonts do (a character map claiming more codepoints than four times Unicode's, a `kern` table of millions of
    /// pairs or subtables), so a hostile file is refused quickly instead of hanging or exhausting memory.
    /// Glyphs reachable only through GSUB substitutions are not loaded (stage2d does not shape text).
    pub fn from_bytes(bytes: &[u8]) -> Result<Font> {
        super::font_check::check(bytes).map_err(Error::Font)?;
        let settings = fontdue::FontSettings {
            load_substitutions: false,
            ..Default::default()
        };
        let font =
            fontdue::Font::from_bytes(bytes, settings).map_err(|e| Error::Font(e.to_string()))?;
        Ok(Font {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            inner: Arc::new(font),
        })
    }

    /// Reads and parses a font file; a missing or unreadable file is [`Error::FontFile`] naming it.
    pub fn load(path: impl AsRef<Path>) -> Result<Font> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| Error::FontFile {
            path: path.to_owned(),
            reason: e.to_string(),
        })?;
        Font::from_bytes(&bytes).map_err(|e| Error::FontFile {
            path: path.to_owned(),
            reason: e.to_string(),
        })
    }

    /// Process-unique id.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The fontdue font.
    pub fn fontdue(&self) -> &fontdue::Font {
        &self.inner
    }
}

impl super::layout::GlyphSource for Font {
    fn glyph(&self, c: char) -> u16 {
        self.inner.lookup_glyph_index(c)
    }
    fn advance(&self, glyph: u16, px: f32) -> f32 {
        self.inner.metrics_indexed(glyph, px).advance_width
    }
    fn kern(&self, left: u16, right: u16, px: f32) -> f32 {
        self.inner
            .horizontal_kern_indexed(left, right, px)
            .unwrap_or(0.0)
    }
    fn ascent(&self, px: f32) -> f32 {
        self.inner
            .horizontal_line_metrics(px)
            .map_or(px * 0.8, |m| m.ascent)
    }
    fn line_height(&self, px: f32) -> f32 {
        self.inner
            .horizontal_line_metrics(px)
            .map_or(px * 1.2, |m| m.new_line_size)
    }
}
