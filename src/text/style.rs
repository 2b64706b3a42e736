//! Text styles: what a text is drawn with (`TextStyle`), shared between texts and changed in place
//! (`SharedTextStyle`), and its gradient fill (its outline and shadow are in `effects.rs`).

use super::{LayoutStyle, TextShadow, TextStroke};
use crate::base::stops::{linear_offset, ColorStops};
use crate::Color;
use glam::Vec2;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Everything a text's style sets: its layout settings, colour, outline and shadow (PixiJS's `TextStyle`, its
/// font aside). Give one to many texts through a [`SharedTextStyle`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct TextStyle {
    /// Size, alignment, line height and leading, spacing, wrapping, white space and shaping.
    pub layout: LayoutStyle,
    /// Fill colour (multiplied by the node's tint and alpha).
    pub color: Color,
    /// An outline around the glyphs, under their fill.
    pub stroke: Option<TextStroke>,
    /// A shadow under the text and its outline.
    pub shadow: Option<TextShadow>,
    /// A gradient fill instead of `color`.
    pub gradient: Option<TextGradient>,
}

/// Most colour stops a [`TextGradient`] holds.
pub const MAX_GRADIENT_STOPS: usize = crate::base::stops::MAX_COLOR_STOPS;

/// A linear gradient filling a text's glyphs (PixiJS's `FillGradient` as a text's `fill`, in its default local
/// space): `start` and `end` in fractions of the laid-out block (`(0, 0)` its top-left, `(1, 1)` its
/// bottom-right), colours between stops interpolated as stored (sRGB-encoded, as a canvas gradient is). Each
/// glyph takes the gradient's colours at its corners, exact for two stops; a stop that falls inside a glyph is
/// smoothed across it. Multiplied by the node's tint and alpha.
///
/// ```
/// use stage2d::text::TextGradient;
/// use stage2d::{Color, Font, Text};
/// let title = Text::new("GAME OVER", &Font::builtin(), 48.0)
///     .filled(TextGradient::vertical(Color::hex(0xffe259), Color::hex(0xffa751)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextGradient {
    /// Where offset 0 lies, in fractions of the block.
    pub start: Vec2,
    /// Where offset 1 lies, in fractions of the block.
    pub end: Vec2,
    stops: ColorStops,
}

impl TextGradient {
    /// A gradient from `start` to `end` through `stops` (offset from 0 to 1, colour), sorted by offset; stops past
    /// [`MAX_GRADIENT_STOPS`] or with a non-finite offset are dropped, offsets are clamped to 0..1. No stop
    /// is transparent black.
    pub fn linear(start: Vec2, end: Vec2, stops: &[(f32, Color)]) -> TextGradient {
        TextGradient {
            start,
            end,
            stops: ColorStops::new(stops),
        }
    }

    /// Top to bottom of the block, from `top` to `bottom`.
    pub fn vertical(top: Color, bottom: Color) -> TextGradient {
        TextGradient::linear(Vec2::ZERO, Vec2::Y, &[(0.0, top), (1.0, bottom)])
    }

    /// Left to right of the block, from `left` to `right`.
    pub fn horizontal(left: Color, right: Color) -> TextGradient {
        TextGradient::linear(Vec2::ZERO, Vec2::X, &[(0.0, left), (1.0, right)])
    }

    /// Its stops, sorted by offset.
    pub fn stops(&self) -> &[(f32, Color)] {
        self.stops.as_slice()
    }

    /// The colour at `point`, in fractions of the block (before and after the ends, the end stops' colours).
    pub fn at(&self, point: Vec2) -> Color {
        self.stops.at(linear_offset(self.start, self.end, point))
    }
}

impl TextStyle {
    /// White text of `size` pixels with the default layout, no outline and no shadow.
    pub fn new(size: f32) -> TextStyle {
        TextStyle {
            layout: LayoutStyle {
                size,
                ..Default::default()
            },
            color: Color::WHITE,
            stroke: None,
            shadow: None,
            gradient: None,
        }
    }
}

/// A [`TextStyle`] shared between texts and changed in place, as PixiJS's `TextStyle` object is: every text
/// given it ([`Text::with_shared_style`](super::Text::with_shared_style)) draws with it, and a change reaches them all on the next frame. Only
/// changes to its layout settings lay those texts out again; a new colour, outline or shadow does not. Cloning
/// shares it; it may be changed from any thread.
///
/// ```
/// use stage2d::text::{SharedTextStyle, TextStyle};
/// use stage2d::{Color, Font, Node, Scene, Text};
/// let hud = SharedTextStyle::new(TextStyle::new(18.0));
/// let mut scene = Scene::new();
/// for (i, label) in ["Gold", "Lives", "Level"].iter().enumerate() {
///     let t = Text::new(*label, &Font::builtin(), 18.0).with_shared_style(&hud);
///     scene.add(scene.root(), Node::text(t).at(10.0, 10.0 + 24.0 * i as f32))?;
/// }
/// hud.update(|s| {
///     s.color = Color::hex(0xffd700);
///     s.layout.size = 24.0; // the three labels lay out again
/// });
/// # Ok::<(), stage2d::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct SharedTextStyle {
    inner: Arc<SharedInner>,
}

#[derive(Debug)]
struct SharedInner {
    /// Bumped by each change to the layout settings.
    layout_version: AtomicU64,
    style: std::sync::RwLock<TextStyle>,
}

impl PartialEq for SharedTextStyle {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl SharedTextStyle {
    /// A style to share.
    pub fn new(style: TextStyle) -> SharedTextStyle {
        SharedTextStyle {
            inner: Arc::new(SharedInner {
                layout_version: AtomicU64::new(1),
                style: std::sync::RwLock::new(style),
            }),
        }
    }

    /// A copy of the style as it is now.
    pub fn get(&self) -> TextStyle {
        *self.inner.style.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Changes the style in place; its texts lay out again only if its layout settings changed.
    pub fn update(&self, change: impl FnOnce(&mut TextStyle)) {
        let mut style = self.inner.style.write().unwrap_or_else(|e| e.into_inner());
        let before = style.layout;
        change(&mut style);
        if style.layout != before {
            self.inner.layout_version.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Replaces the whole style.
    pub fn set(&self, style: TextStyle) {
        self.update(|s| *s = style);
    }

    /// Bumped by every change to the layout settings.
    pub fn layout_version(&self) -> u64 {
        self.inner.layout_version.load(Ordering::Relaxed)
    }

    /// Its layout settings, as they are now.
    pub(crate) fn layout(&self) -> LayoutStyle {
        self.inner
            .style
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .layout
    }
}
