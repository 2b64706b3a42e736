//! Fonts: TTF/OTF files or bytes parsed by fontdue, shared cheaply (`Clone` is an `Arc`).

use super::atlas::Raster;
use crate::{Error, Result};
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

static NEXT_ID: AtomicU32 = AtomicU32::new(1);

/// Pixels per font unit under which glyphs are not rasterised (1/500 px a 2048-unit em): fontdue goes wrong near
/// 1e-9, and nothing this small shows.
const MIN_RASTER_SCALE: f32 = 1e-6;

/// A parsed font. Cloning shares it.
#[derive(Clone)]
pub struct Font {
    id: u32,
    inner: Arc<Face>,
}

/// What a font draws from: outlines rasterised into the glyph atlas, or a bitmap font's pages.
enum Face {
    /// The parsed font and its bytes (which the shaper reads).
    Outline(fontdue::Font, Arc<[u8]>),
    Bitmap(super::bitmap::BitmapFont),
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
    /// The built-in font: DejaVu Sans cut down to Latin-1 (and a few typographic marks: dashes, quotes, bullet,
    /// ellipsis, euro), 28 KB in the binary with the `text` feature, so that text works without a font file
    /// (PixiJS falls back to the browser's font). Glyphs outside it draw as the font's missing glyph; load a
    /// full font with [`Font::load`] for other scripts. Parsed once; each call returns the same font.
    ///
    /// ```
    /// use stage2d::{Font, Node, Scene, Text};
    /// let mut scene = Scene::new();
    /// scene.add(scene.root(), Node::text(Text::new("Score: 120", &Font::builtin(), 24.0)))?;
    /// # Ok::<(), stage2d::Error>(())
    /// ```
    pub fn builtin() -> Font {
        static BUILTIN: std::sync::OnceLock<Font> = std::sync::OnceLock::new();
        BUILTIN
            .get_or_init(|| {
                Font::from_bytes(include_bytes!("../../assets/fonts/DejaVuSans-Latin1.ttf"))
                    .expect("the built-in font parses (tested)")
            })
            .clone()
    }

    /// Parses TTF or OTF bytes; unreadable bytes are [`Error::Font`].
    ///
    /// Bytes may come from anywhere: before fontdue sees them they are checked to state no more work than real
    /// fonts do (a character map claiming more codepoints than four times Unicode's, a `kern` table of millions of
    /// pairs or subtables), so a hostile file is refused quickly instead of hanging or exhausting memory.
    /// Texts that need it are shaped (see [`Shaping`](crate::text::Shaping)), which reads the font's own tables.
    pub fn from_bytes(bytes: &[u8]) -> Result<Font> {
        super::font_check::check(bytes).map_err(Error::Font)?;
        // Glyphs that only GSUB reaches (ligatures, joined Arabic forms, Indic half forms) are loaded for the
        // shaper; the check above bounds that walk.
        let settings = fontdue::FontSettings {
            load_substitutions: true,
            ..Default::default()
        };
        let font =
            fontdue::Font::from_bytes(bytes, settings).map_err(|e| Error::Font(e.to_string()))?;
        Ok(Font {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            inner: Arc::new(Face::Outline(font, Arc::from(bytes))),
        })
    }

    /// A bitmap font (PixiJS's `BitmapFont` from a `.fnt` file) from its AngelCode BMFont description `fnt` (the
    /// text or the XML form) and its pages, one texture for each page the description names, in page order (a
    /// page may be a sheet frame that is not rotated). [`Renderer::load_bitmap_font`](crate::Renderer::load_bitmap_font)
    /// loads the pages it names for you. Texts of it lay out by the font's advances, offsets and kerning, scaled
    /// from the size it was made at, and draw its glyphs' regions as quads in the sprites' batches.
    ///
    /// Errors ([`Error::Font`], naming the tag and attribute): a description that does not parse or holds numbers
    /// out of range (see [`MAX_BITMAP_GLYPHS`](super::bitmap::MAX_BITMAP_GLYPHS) and the other limits), another
    /// number of pages, a glyph outside its page, a rotated page frame.
    ///
    /// Distance-field fonts (msdf-bmfont's `distanceField` tag: SDF or MSDF pages) are drawn from their fields, as
    /// PixiJS draws them: crisp at any scale from one atlas, still in the sprites' batches.
    pub fn from_fnt(fnt: &[u8], pages: Vec<crate::Texture>) -> Result<Font> {
        Font::from_fnt_data(super::bitmap::parse_fnt(fnt)?, pages)
    }

    /// [`Font::from_fnt`] of a parsed description.
    pub(crate) fn from_fnt_data(
        data: super::bitmap::FntData,
        pages: Vec<crate::Texture>,
    ) -> Result<Font> {
        if pages.iter().any(|p| p.is_rotated()) {
            return Err(Error::Font("bitmap font: a rotated page frame".into()));
        }
        let font = super::bitmap::BitmapFont::new(data, pages)?;
        Ok(Font {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            inner: Arc::new(Face::Bitmap(font)),
        })
    }

    /// Whether this is a bitmap font ([`Font::from_fnt`]).
    pub fn is_bitmap(&self) -> bool {
        matches!(*self.inner, Face::Bitmap(_))
    }

    /// A bitmap font's page textures, in page order (empty for other fonts): destroy them when the font is no
    /// longer drawn (a text whose page is destroyed is skipped and counted).
    pub fn bitmap_pages(&self) -> &[crate::Texture] {
        self.bitmap().map_or(&[], |b| &b.pages)
    }

    /// The bitmap font, if this is one.
    pub(crate) fn bitmap(&self) -> Option<&super::bitmap::BitmapFont> {
        match &*self.inner {
            Face::Bitmap(b) => Some(b),
            Face::Outline(..) => None,
        }
    }

    /// An outline font's bytes (`None` for a bitmap font).
    pub(crate) fn data(&self) -> Option<&[u8]> {
        match &*self.inner {
            Face::Outline(_, d) => Some(d),
            Face::Bitmap(_) => None,
        }
    }

    /// Reads (at most [`MAX_FONT_FILE_BYTES`](crate::MAX_FONT_FILE_BYTES)) and parses a font file; a missing,
    /// unreadable or longer file is [`Error::FontFile`] naming it.
    pub fn load(path: impl AsRef<Path>) -> Result<Font> {
        let path = path.as_ref();
        let max = crate::base::read::MAX_FONT_FILE_BYTES;
        let bytes =
            crate::base::read::read_capped(path, max, None).map_err(|e| Error::FontFile {
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

    /// The fontdue font (`None` for a bitmap font).
    pub fn fontdue(&self) -> Option<&fontdue::Font> {
        match &*self.inner {
            Face::Outline(f, _) => Some(f),
            Face::Bitmap(_) => None,
        }
    }

    /// Rasterises `glyph` at `px` pixels if its bitmap is at most `max_side` pixels each way; `None` (without
    /// rasterising) for a larger glyph or a size that is not finite and positive; an empty raster for a glyph
    /// far under a pixel ([`MIN_RASTER_SCALE`]).
    ///
    /// fontdue sizes its bitmap from the glyph's scaled bounds with no limit: at 1e6 px it asks for terabytes,
    /// at `f32::MAX` the bounds are infinite and the size it computes is garbage. The bounds come from
    /// `metrics_indexed`, which only scales numbers, so they are checked first.
    pub(crate) fn rasterize_within(&self, glyph: u16, px: f32, max_side: u32) -> Option<Raster> {
        let font = self.fontdue()?;
        if !(px.is_finite() && px > 0.0) || usize::from(glyph) >= font.glyph_count() as usize {
            return None;
        }
        // Far under a pixel a glyph covers nothing: drawn as empty, as a space is. fontdue's rasteriser indexes
        // its bitmap unchecked and steps out of it at such scales (a text of 1e-43 px wrote out of bounds).
        if font.scale_factor(px) < MIN_RASTER_SCALE {
            return Some(Raster {
                width: 0,
                height: 0,
                xmin: 0.0,
                ymin: 0.0,
                coverage: Vec::new(),
                packed: false,
                inset: 0,
            });
        }
        let m = font.metrics_indexed(glyph, px);
        let b = m.bounds;
        // fontdue adds a sub-pixel offset (< 1) before rounding up: allow for it.
        let fits = |v: f32| v.is_finite() && v.abs() + 2.0 <= max_side as f32;
        if !(fits(b.width) && fits(b.height) && b.xmin.is_finite() && b.ymin.is_finite()) {
            return None;
        }
        let (m, coverage) = font.rasterize_indexed(glyph, px);
        Some(Raster {
            width: m.width as u32,
            height: m.height as u32,
            xmin: m.xmin as f32,
            ymin: m.ymin as f32,
            coverage,
            packed: false,
            inset: 0,
        })
    }
}

impl Font {
    /// `raster` (glyph `glyph` at `px` pixels, from [`Font::rasterize_within`]) with `effect` applied
    /// ([`super::glyph_effects::apply_effect`]): a miter or bevel stroke drawn from the glyph's outline; `None` when the
    /// result would be larger than `max_side` either way.
    pub(crate) fn apply_effect(
        &self,
        glyph: u16,
        px: f32,
        raster: Raster,
        effect: u32,
        max_side: u32,
    ) -> Option<Raster> {
        super::glyph_effects::apply_effect(raster, effect, max_side, |job| {
            match (self.data(), self.fontdue()) {
                (Some(data), Some(f)) => super::stroke::draw(data, glyph, f.scale_factor(px), job),
                _ => super::glyph_effects::Stroked::NoOutline,
            }
        })
    }
}

impl Font {
    /// Glyph `glyph` at `px` pixels as a styled glyph's packed bitmap (its fill, outline and shadow, as
    /// the packed key says: `collect/text.rs`), at most `max_side` pixels a side.
    pub(crate) fn rasterize_packed(
        &self,
        glyph: u16,
        px: f32,
        key: u32,
        max_side: u32,
    ) -> Option<Raster> {
        use super::glyph_effects::{pack_layers, packed_layers, packed_pad};
        let pad = 2 * packed_pad(key);
        let fill = self.rasterize_within(glyph, px, max_side.checked_sub(pad)?)?;
        let (outline, shadow) = packed_layers(key);
        let layer = |effect: Option<u32>| match effect {
            Some(e) => self
                .apply_effect(glyph, px, fill.clone(), e, max_side)
                .map(Some),
            None => Some(None),
        };
        let (outline, shadow) = (layer(outline)?, layer(shadow)?);
        pack_layers(&fill, outline.as_ref(), shadow.as_ref(), max_side)
    }
}

impl super::layout::GlyphSource for Font {
    fn glyph(&self, c: char) -> u16 {
        match &*self.inner {
            Face::Outline(f, _) => f.lookup_glyph_index(c),
            Face::Bitmap(b) => b.glyph(c),
        }
    }
    fn advance(&self, glyph: u16, px: f32) -> f32 {
        match &*self.inner {
            Face::Outline(f, _) => f.metrics_indexed(glyph, px).advance_width,
            Face::Bitmap(b) => b.advance(glyph, px),
        }
    }
    fn kern(&self, left: u16, right: u16, px: f32) -> f32 {
        match &*self.inner {
            Face::Outline(f, _) => f.horizontal_kern_indexed(left, right, px).unwrap_or(0.0),
            Face::Bitmap(b) => b.kern(left, right, px),
        }
    }
    fn ascent(&self, px: f32) -> f32 {
        match &*self.inner {
            Face::Outline(f, _) => f.horizontal_line_metrics(px).map_or(px * 0.8, |m| m.ascent),
            Face::Bitmap(b) => b.ascent(px),
        }
    }
    fn line_height(&self, px: f32) -> f32 {
        match &*self.inner {
            Face::Outline(f, _) => f
                .horizontal_line_metrics(px)
                .map_or(px * 1.2, |m| m.new_line_size),
            Face::Bitmap(b) => b.line_height(px),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glyphs_too_large_or_of_bad_sizes_are_refused_before_rasterising() {
        let font = Font::from_bytes(include_bytes!("../../assets/DejaVuSans.ttf")).unwrap();
        let w = font.fontdue().unwrap().lookup_glyph_index('W');
        let r = font.rasterize_within(w, 20.0, 1022).unwrap();
        assert!(r.width > 10 && r.height > 10);
        assert_eq!(r.coverage.len(), (r.width * r.height) as usize);
        // Without the check these ask fontdue for terabytes, or crash it.
        for px in [
            1e6,
            f32::MAX,
            10_000.0,
            2000.0,
            f32::NAN,
            f32::INFINITY,
            -1.0,
            0.0,
        ] {
            assert!(font.rasterize_within(w, px, 1022).is_none(), "{px}");
        }
        assert!(
            font.rasterize_within(u16::MAX, 20.0, 1022).is_none(),
            "no such glyph"
        );
        // Far under a pixel: empty, not rasterised (fontdue wrote out of its bitmap at 2.7e-43 px).
        for px in [2.72e-43, f32::MIN_POSITIVE, 1e-9, 1e-4] {
            let r = font.rasterize_within(w, px, 1022).unwrap();
            assert!(
                r.width == 0 && r.height == 0 && r.coverage.is_empty(),
                "{px}"
            );
        }
        // A glyph that fits exactly is kept.
        let big = font.rasterize_within(w, 900.0, 1022).unwrap();
        assert!(big.width <= 1022 && big.height <= 1022);
    }
}
