//! Text: fonts, layout and the glyph atlas, on the CPU. It uses only stage2d's base types; the atlas pages'
//! textures are a GPU system's (`gpu/glyph_pages.rs`), and the frame draws the glyphs.
//!
//! Glyphs are rasterised by fontdue into a shared atlas, laid out with kerning, wrapping and alignment, and drawn
//! as textured quads in the same batches as sprites and shapes (an atlas page takes one texture slot).
//!
//! `style.rs` holds text styles (shared ones too); `shape.rs` shapes runs of text; `rich.rs` parses markup.
//! `font.rs` loads fonts (`font_check.rs` refuses hostile ones first); `layout.rs` places glyphs (pure, public for measuring text: [`layout()`]); `atlas.rs`
//! packs glyph bitmaps into pages (pure); `glyph_effects.rs` makes outline and shadow bitmaps from a glyph's
//! (with `stroke.rs` for mitered and bevelled outlines); `gpu/glyph_pages.rs` backs the pages with textures.
//! Layouts are cached per text node version: changing the string or style lays out again, and glyphs already in
//! the atlas are reused (uploads counted in [`crate::FrameStats::glyph_uploads`]).

pub(crate) mod atlas;
pub(crate) mod bitmap;
mod effects;
mod font;
mod font_check;
pub(crate) mod glyph_effects;
mod layout;
mod rich;
#[cfg(feature = "shaping")]
mod shape;
mod stroke;
mod style;

pub(crate) use atlas::{GlyphAtlas, GlyphKey};
pub use bitmap::{MAX_BITMAP_GLYPHS, MAX_FNT_BYTES, MAX_KERNING_PAIRS};
pub use effects::{TextShadow, TextStroke};
pub use font::Font;
pub(crate) use glyph_effects::{effect_key, effect_pad};
pub use layout::{
    layout, Align, GlyphSource, LayoutStyle, PlacedGlyph, Shaping, TextLayout, TextRun, WhiteSpace,
};
pub use rich::{TagStyle, MAX_TAG_DEPTH, MAX_TAG_RUNS};
pub use style::{SharedTextStyle, TextGradient, TextStyle, MAX_GRADIENT_STOPS};

use crate::Color;
use glam::Vec2;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A text label or paragraph. Setters that change the layout bump its version; colour and anchor do not.
///
/// ```
/// use stage2d::{Align, Color, Font, Node, Scene, Text};
/// let font = Font::builtin(); // or Font::load("my-font.ttf")?
/// let label = Text::new("Gold: 120\nLives: 3", &font, 24.0)
///     .colored(Color::hex(0xffd700))
///     .aligned(Align::Right)
///     .anchored(1.0, 0.0); // its top-right corner at the node's position
/// let mut scene = Scene::new();
/// scene.add(scene.root(), Node::text(label).at(780.0, 10.0))?;
/// # Ok::<(), stage2d::Error>(())
/// ```
#[derive(Debug, PartialEq)]
pub struct Text {
    id: u64,
    version: u64,
    string: String,
    /// The font, then the fallbacks (never empty).
    fonts: Vec<Font>,
    style: LayoutStyle,
    /// Text colour (multiplied by the node's tint and alpha).
    pub color: Color,
    /// Which point of the text block sits at the node's origin: `(0, 0)` top-left, `(0.5, 0.5)` centre.
    pub anchor: Vec2,
    /// An outline around the glyphs, under their fill (PixiJS's `stroke`).
    pub stroke: Option<TextStroke>,
    /// A shadow under the text and its outline (PixiJS's `dropShadow`).
    pub shadow: Option<TextShadow>,
    /// A gradient fill instead of [`Text::color`] (PixiJS's `fill` as a `FillGradient`).
    pub gradient: Option<TextGradient>,
    /// A style shared with other texts, which replaces this text's own layout settings, colour, stroke and
    /// shadow while it is set.
    shared: Option<SharedTextStyle>,
    /// Whether the string is markup ([`Text::rich`]).
    rich: bool,
    /// The tags its markup may use.
    tags: Vec<(String, TagStyle)>,
}

impl Clone for Text {
    fn clone(&self) -> Self {
        Text {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            version: 0,
            string: self.string.clone(),
            fonts: self.fonts.clone(),
            style: self.style,
            color: self.color,
            anchor: self.anchor,
            stroke: self.stroke,
            shadow: self.shadow,
            gradient: self.gradient,
            shared: self.shared.clone(),
            rich: self.rich,
            tags: self.tags.clone(),
        }
    }
}

impl Text {
    /// White text of `size` pixels, left-aligned, anchored top-left.
    pub fn new(string: impl Into<String>, font: &Font, size: f32) -> Text {
        Text {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            version: 0,
            string: string.into(),
            fonts: vec![font.clone()],
            style: LayoutStyle {
                size,
                ..Default::default()
            },
            color: Color::WHITE,
            anchor: Vec2::ZERO,
            stroke: None,
            shadow: None,
            gradient: None,
            shared: None,
            rich: false,
            tags: Vec::new(),
        }
    }

    /// Rich text (PixiJS's `HTMLText` with `tagStyles`): `markup` with tags that [`Text::with_tag_style`] names,
    /// `"<b>Gold</b> x3"`, each run drawn in its tag's font, size, colour and spacing over the text's style, laid
    /// out and wrapped as one paragraph (a line as tall as its tallest run). `&lt;`, `&gt;` and `&amp;` write
    /// `<`, `>` and `&`; an unknown tag is text. Rich text is shaped (with the `shaping` feature; without it, it
    /// draws in the text's style alone). Outlines and shadows are the text's.
    pub fn rich(markup: impl Into<String>, font: &Font, size: f32) -> Text {
        let mut t = Text::new(markup, font, size);
        t.rich = true;
        t
    }

    /// With a tag its markup may use (builder style; replaces a tag of that name).
    pub fn with_tag_style(mut self, name: &str, style: TagStyle) -> Text {
        self.set_tag_style(name, Some(style));
        self
    }

    /// Adds, replaces (`Some`) or removes (`None`) the tag `name`.
    pub fn set_tag_style(&mut self, name: &str, style: Option<TagStyle>) {
        let at = self.tags.iter().position(|(n, _)| n == name);
        match (at, style) {
            (Some(i), Some(s)) if self.tags[i].1 != s => self.tags[i].1 = s,
            (Some(_), Some(_)) => return,
            (None, Some(s)) => self.tags.push((name.to_string(), s)),
            (Some(i), None) => {
                self.tags.remove(i);
            }
            (None, None) => return,
        }
        self.version += 1;
    }

    /// The tags its markup may use.
    pub fn tag_styles(&self) -> &[(String, TagStyle)] {
        &self.tags
    }

    /// Whether the string is markup ([`Text::rich`]).
    pub fn is_rich(&self) -> bool {
        self.rich
    }

    /// The string without its markup (the string itself for plain text).
    pub fn plain_text(&self) -> String {
        if self.rich {
            rich::parse(&self.string, &self.tags)
                .chars
                .into_iter()
                .map(|c| c.0)
                .collect()
        } else {
            self.string.clone()
        }
    }

    /// Lays rich text out: the markup parsed, each run style resolved over `style`.
    fn layout_rich(&self, style: &LayoutStyle) -> TextLayout {
        let parsed = rich::parse(&self.string, &self.tags);
        let chars = rich::collapse(parsed.chars, style.white_space);
        let text: String = chars.iter().map(|c| c.0).collect();
        #[cfg(feature = "shaping")]
        {
            // The fonts: the chain, then each tag's font.
            let mut table = self.fonts.clone();
            let mut tag_font = Vec::with_capacity(self.tags.len());
            for (_, t) in &self.tags {
                tag_font.push(t.font.as_ref().filter(|_| table.len() < 255).map(|f| {
                    table.push(f.clone());
                    (table.len() - 1) as u8
                }));
            }
            let finite = |v: Option<f32>| v.filter(|v| v.is_finite());
            let base_spacing = finite(Some(style.letter_spacing)).unwrap_or(0.0);
            let mut runs = Vec::with_capacity(parsed.stacks.len());
            let mut shown = Vec::with_capacity(parsed.stacks.len());
            for stack in &parsed.stacks {
                let mut run = shape::RunStyle {
                    font: 0,
                    size: style.size,
                    spacing: base_spacing,
                };
                let (mut color, mut stroke, mut shadow) = (None, None, None);
                for &t in stack {
                    let tag = &self.tags[t as usize].1;
                    if let Some(f) = tag_font[t as usize] {
                        run.font = f;
                    }
                    if let Some(px) = finite(tag.size).filter(|px| *px > 0.0) {
                        run.size = px;
                    }
                    if let Some(sp) = finite(tag.letter_spacing) {
                        run.spacing = sp;
                    }
                    color = tag.color.or(color);
                    stroke = tag.stroke.or(stroke);
                    shadow = tag.shadow.or(shadow);
                }
                shown.push(TextRun {
                    size: run.size,
                    color,
                    stroke,
                    shadow,
                });
                runs.push(run);
            }
            let styles: Vec<u16> = chars.iter().map(|c| c.1).collect();
            let mut out =
                shape::layout_runs(&table, self.fonts.len(), &text, &styles, &runs, style);
            out.runs = shown;
            out
        }
        #[cfg(not(feature = "shaping"))]
        {
            let mut plain = *style;
            plain.white_space = WhiteSpace::Pre;
            layout(&self.fonts[0], &text, &plain)
        }
    }

    /// Draws with `style`, shared with other texts, instead of this text's own settings (builder style).
    pub fn with_shared_style(mut self, style: &SharedTextStyle) -> Text {
        self.set_shared_style(Some(style));
        self
    }

    /// Draws with a shared style (`None`: with this text's own settings again).
    pub fn set_shared_style(&mut self, style: Option<&SharedTextStyle>) {
        if self.shared.as_ref() != style {
            self.shared = style.cloned();
            self.version += 1;
        }
    }

    /// The shared style it draws with, if any.
    pub fn shared_style(&self) -> Option<&SharedTextStyle> {
        self.shared.as_ref()
    }

    /// The style it draws with: the shared one's if set, else its own settings, colour, stroke and shadow.
    pub fn effective_style(&self) -> TextStyle {
        match &self.shared {
            Some(s) => s.get(),
            None => TextStyle {
                layout: self.style,
                color: self.color,
                stroke: self.stroke,
                shadow: self.shadow,
                gradient: self.gradient,
            },
        }
    }

    /// The layout settings it lays out with (the shared style's if set).
    fn layout_style(&self) -> LayoutStyle {
        match &self.shared {
            Some(s) => s.layout(),
            None => self.style,
        }
    }

    /// Changes whenever its layout may: its version, its shared style's layout version, and (trimmed) its outline
    /// and shadow.
    pub fn layout_key(&self) -> (u64, u64, u64) {
        // A trimmed block also depends on the outline and shadow it is cut around.
        let trim = if self.layout_style().trim {
            let st = self.effective_style();
            let mut h = 1u64;
            let mut mix = |v: f32| h = (h ^ u64::from(v.to_bits())).wrapping_mul(0x100_0000_01b3);
            if let Some(s) = st.stroke {
                mix(s.width);
            }
            if let Some(s) = st.shadow {
                [s.angle, s.distance, s.blur].into_iter().for_each(&mut mix);
            }
            h
        } else {
            0
        };
        (
            self.version,
            self.shared.as_ref().map_or(0, |s| s.layout_version()),
            trim,
        )
    }

    /// The laid-out block's width and height (what hit tests and bounds use).
    pub(crate) fn block_size(&self) -> Vec2 {
        Vec2::from(self.layout().size)
    }

    /// Lays the text out as it is drawn: shaped with its fallbacks when its [`Shaping`] says so, else glyph by
    /// glyph in its font. The renderer caches this per text version; call it to measure a text.
    pub fn layout(&self) -> TextLayout {
        let style = self.layout_style();
        let l = self.layout_untrimmed(&style);
        if style.trim {
            self.trim(l, &self.effective_style())
        } else {
            l
        }
    }

    fn layout_untrimmed(&self, style: &LayoutStyle) -> TextLayout {
        if self.rich {
            return self.layout_rich(style);
        }
        #[cfg(feature = "shaping")]
        if self.shaped_with(style) {
            return shape::layout_shaped(&self.fonts, &self.string, style);
        }
        layout(&self.fonts[0], &self.string, style)
    }

    /// `l` cut to the box its outline-font glyphs cover, each grown by its outline and shadow (its rich run's, else
    /// `style`'s), that box's top-left moved to the origin (unchanged if nothing is covered).
    fn trim(&self, mut l: TextLayout, style: &TextStyle) -> TextLayout {
        let finite = |v: f32| if v.is_finite() && v > 0.0 { v } else { 0.0 };
        let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
        for g in &l.glyphs {
            let run = l.runs.get(g.run as usize);
            let size = run.map_or(style.layout.size, |r| r.size);
            let Some(f) = self.font_at(g.font).and_then(Font::fontdue) else {
                continue;
            };
            if !(size.is_finite() && size > 0.0) || usize::from(g.glyph) >= f.glyph_count() as usize
            {
                continue;
            }
            let b = f.metrics_indexed(g.glyph, size).bounds;
            if !(b.width > 0.0 && b.height > 0.0) {
                continue;
            }
            let bottom = g.baseline - b.ymin;
            let ink_lo = Vec2::new(g.x + b.xmin, bottom - b.height);
            let ink_hi = Vec2::new(g.x + b.xmin + b.width, bottom);
            // The glyph's outline and shadow: its run's where it has its own (a rich text's tag), else the text's.
            let stroke = run.and_then(|r| r.stroke).or(style.stroke);
            let shadow = run.and_then(|r| r.shadow).or(style.shadow);
            let spread = stroke.map_or(0.0, |s| finite(s.width) / 2.0);
            lo = lo.min(ink_lo - spread);
            hi = hi.max(ink_hi + spread);
            if let Some(sh) = shadow {
                let offset = Vec2::from_angle(sh.angle) * sh.distance;
                let grow = spread + finite(sh.blur);
                if offset.is_finite() && grow.is_finite() {
                    lo = lo.min(ink_lo + offset - grow);
                    hi = hi.max(ink_hi + offset + grow);
                }
            }
        }
        if !(lo.is_finite() && hi.is_finite()) {
            return l;
        }
        for g in &mut l.glyphs {
            g.x -= lo.x;
            g.baseline -= lo.y;
        }
        l.size = (hi - lo).to_array();
        l
    }

    /// Whether the text is laid out by the shaper (outline fonts, the `shaping` feature, and its [`Shaping`]).
    pub fn is_shaped(&self) -> bool {
        self.shaped_with(&self.layout_style())
    }

    #[cfg_attr(not(feature = "shaping"), allow(unused_variables))]
    fn shaped_with(&self, style: &LayoutStyle) -> bool {
        #[cfg(feature = "shaping")]
        {
            !self.fonts[0].is_bitmap()
                && (self.rich
                    || match style.shaping {
                        Shaping::Full => true,
                        Shaping::Simple => false,
                        _ => shape::needs_shaping(&self.fonts, &self.string),
                    })
        }
        #[cfg(not(feature = "shaping"))]
        false
    }

    /// The fonts looked in for a character the font lacks, in order (empty by default).
    pub fn fallbacks(&self) -> &[Font] {
        &self.fonts[1..]
    }

    /// The font of a [`PlacedGlyph::font`] index: 0 the font, then the fallbacks, then the fonts of its tags
    /// (in the order the tags were added, those with a font).
    pub fn font_at(&self, index: u8) -> Option<&Font> {
        let i = index as usize;
        self.fonts.get(i).or_else(|| {
            self.tags
                .iter()
                .filter_map(|(_, t)| t.font.as_ref())
                .nth(i - self.fonts.len())
        })
    }

    /// Sets the fallback chain: a character the font lacks is drawn by the first of these that has it (a CJK
    /// font, then an emoji font, say). Shaped texts only: a text needs shaping once a character of it is
    /// missing from its font, so [`Shaping::Auto`] shapes it. At most 254 fallbacks are looked in; bitmap
    /// fonts among them are skipped.
    pub fn set_fallbacks(&mut self, fallbacks: &[Font]) {
        if self.fonts[1..] != *fallbacks {
            self.fonts.truncate(1);
            self.fonts.extend(fallbacks.iter().take(254).cloned());
            self.version += 1;
        }
    }

    /// With fallback fonts (builder style; see [`Text::set_fallbacks`]).
    pub fn with_fallbacks(mut self, fallbacks: &[Font]) -> Text {
        self.set_fallbacks(fallbacks);
        self
    }

    /// Changes when the text is shaped.
    pub fn set_shaping(&mut self, shaping: Shaping) {
        self.set_style(LayoutStyle {
            shaping,
            ..self.style
        });
    }

    /// Process-unique id (a clone gets a new one).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Bumped by every change that affects layout.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The string.
    pub fn text(&self) -> &str {
        &self.string
    }

    /// The font.
    pub fn font(&self) -> &Font {
        &self.fonts[0]
    }

    /// Its own layout settings (a shared style's replace them while set: see [`Text::effective_style`]).
    pub fn style(&self) -> &LayoutStyle {
        &self.style
    }

    /// Replaces the string (a no-op if it is equal, so setting the same text every frame costs no layout).
    pub fn set_text(&mut self, s: &str) {
        if self.string != s {
            self.string.clear();
            self.string.push_str(s);
            self.version += 1;
        }
    }

    /// Changes the font.
    pub fn set_font(&mut self, font: &Font) {
        if self.fonts[0] != *font {
            self.fonts[0] = font.clone();
            self.version += 1;
        }
    }

    /// Changes every layout setting at once.
    pub fn set_style(&mut self, style: LayoutStyle) {
        if self.style != style {
            self.style = style;
            self.version += 1;
        }
    }

    /// Changes the size in pixels.
    pub fn set_size(&mut self, size: f32) {
        self.set_style(LayoutStyle { size, ..self.style });
    }

    /// Changes the alignment.
    pub fn set_align(&mut self, align: Align) {
        self.set_style(LayoutStyle {
            align,
            ..self.style
        });
    }

    /// Changes the wrap width (`None`: no wrapping).
    pub fn set_wrap_width(&mut self, wrap_width: Option<f32>) {
        self.set_style(LayoutStyle {
            wrap_width,
            ..self.style
        });
    }

    /// Changes the line height (`None`: the font's).
    pub fn set_line_height(&mut self, line_height: Option<f32>) {
        self.set_style(LayoutStyle {
            line_height,
            ..self.style
        });
    }

    /// Changes how spaces and line breaks are kept (PixiJS's `whiteSpace`).
    pub fn set_white_space(&mut self, white_space: WhiteSpace) {
        self.set_style(LayoutStyle {
            white_space,
            ..self.style
        });
    }

    /// Changes whether a word longer than the wrap width breaks between its characters (PixiJS's `breakWords`).
    pub fn set_break_words(&mut self, break_words: bool) {
        self.set_style(LayoutStyle {
            break_words,
            ..self.style
        });
    }

    /// Changes the extra space between lines, in pixels (PixiJS's `leading`).
    pub fn set_leading(&mut self, leading: f32) {
        self.set_style(LayoutStyle {
            leading,
            ..self.style
        });
    }

    /// Changes whether the block is cut to what its glyphs cover (PixiJS's `trim`).
    pub fn set_trim(&mut self, trim: bool) {
        self.set_style(LayoutStyle { trim, ..self.style });
    }

    /// Changes PixiJS's `padding` (see [`LayoutStyle::padding`]: it moves bitmap-font text only).
    pub fn set_padding(&mut self, padding: f32) {
        self.set_style(LayoutStyle {
            padding,
            ..self.style
        });
    }

    /// Changes the letter spacing in pixels.
    pub fn set_letter_spacing(&mut self, letter_spacing: f32) {
        self.set_style(LayoutStyle {
            letter_spacing,
            ..self.style
        });
    }

    /// With an anchor (builder style).
    pub fn anchored(mut self, x: f32, y: f32) -> Text {
        self.anchor = Vec2::new(x, y);
        self
    }

    /// With an outline of `width` pixels in `color` (builder style; PixiJS's `stroke`).
    pub fn stroked(mut self, color: Color, width: f32) -> Text {
        self.stroke = Some(TextStroke::new(color, width));
        self
    }

    /// With a drop shadow (builder style; PixiJS's `dropShadow`).
    pub fn shadowed(mut self, shadow: TextShadow) -> Text {
        self.shadow = Some(shadow);
        self
    }

    /// With a gradient fill (builder style; PixiJS's `fill` as a `FillGradient`).
    pub fn filled(mut self, gradient: TextGradient) -> Text {
        self.gradient = Some(gradient);
        self
    }

    /// With a colour (builder style).
    pub fn colored(mut self, color: Color) -> Text {
        self.color = color;
        self
    }

    /// With an alignment (builder style).
    pub fn aligned(mut self, align: Align) -> Text {
        self.set_align(align);
        self
    }

    /// With a wrap width (builder style).
    pub fn wrapped(mut self, width: f32) -> Text {
        self.set_wrap_width(Some(width));
        self
    }
}

/// A text's glyph bitmaps in the atlas, valid while the text's version, raster size, passes and font are the same
/// and the atlas has emptied no page (its eviction count).
#[derive(Debug, Default)]
pub(crate) struct Placed {
    pub version: (u64, u64, u64),
    pub raster_bits: u32,
    pub effects: [Option<u32>; 3],
    pub font: u32,
    pub evictions: u64,
    pub frame: u64,
    /// (pass, glyph index in the layout, its bitmap), in drawing order.
    pub entries: Vec<(u8, u32, atlas::AtlasGlyph)>,
    /// The pages the entries lie in (kept in use each frame the text draws).
    pub pages: Vec<u32>,
    /// Its glyphs too large for a page (counted each frame it draws, as the atlas counts them).
    pub too_large: u64,
}

/// A cached layout: the text's layout key, the layout, the last frame it was used.
type CachedLayout = ((u64, u64, u64), Arc<TextLayout>, u64);

/// Layouts cached per (text id, version) and the glyph atlas.
#[derive(Debug)]
pub(crate) struct TextSystem {
    /// Per text id: (layout key, layout, last frame used). A new key replaces the old layout.
    layouts: crate::base::IntMap<u64, CachedLayout>,
    /// Per text id: where its glyphs' bitmaps lie in the atlas for the layout, size and passes it was last drawn
    /// with, so that drawing it again looks nothing up (an outlined, shadowed text has three bitmaps a glyph).
    pub placed: crate::base::IntMap<u64, Placed>,
    /// The glyph atlas.
    pub atlas: GlyphAtlas,
    /// Frames ended so far.
    pub frame: u64,
    /// Layouts computed since the last trim.
    pub layouts_this_frame: u64,
}

impl Default for TextSystem {
    fn default() -> Self {
        TextSystem {
            layouts: Default::default(),
            placed: Default::default(),
            atlas: GlyphAtlas::new(1024, 8),
            frame: 0,
            layouts_this_frame: 0,
        }
    }
}

impl TextSystem {
    /// Frames an unused layout is kept.
    pub const MAX_IDLE_FRAMES: u64 = 120;

    /// The layout of `text`, computed only when its version is new.
    pub fn layout(&mut self, text: &Text) -> Arc<TextLayout> {
        let frame = self.frame;
        if let Some((version, l, used)) = self.layouts.get_mut(&text.id) {
            if *version == text.layout_key() {
                *used = frame;
                return l.clone();
            }
        }
        let l = Arc::new(text.layout());
        self.layouts_this_frame += 1;
        self.layouts
            .insert(text.id, (text.layout_key(), l.clone(), frame));
        l
    }

    /// Number of cached layouts.
    #[cfg(test)]
    pub fn cached_layouts(&self) -> usize {
        self.layouts.len()
    }

    /// Ends a frame.
    pub fn trim(&mut self) {
        let frame = self.frame;
        self.layouts
            .retain(|_, (_, _, used)| frame.saturating_sub(*used) <= Self::MAX_IDLE_FRAMES);
        self.placed
            .retain(|_, p| frame.saturating_sub(p.frame) <= Self::MAX_IDLE_FRAMES);
        self.atlas.trim();
        self.frame += 1;
        self.layouts_this_frame = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changing_text_keeps_one_cached_layout() {
        let font = Font::from_bytes(include_bytes!("../../assets/DejaVuSans.ttf")).unwrap();
        let mut sys = TextSystem::default();
        let mut t = Text::new("a", &font, 12.0);
        for i in 0..50 {
            t.set_text(&format!("value {i}"));
            sys.layout(&t);
            sys.trim();
        }
        assert_eq!(sys.cached_layouts(), 1);
        let v = t.version();
        t.set_text("value 49");
        assert_eq!(t.version(), v, "an equal string does not bump the version");
    }
}
