//! A text's outline and shadow (PixiJS's `stroke` and `dropShadow`): what a text style or a rich-text run draws
//! under its glyphs.

use crate::Color;

/// An outline around a text's glyphs (PixiJS's `stroke`: `{ color, width, join, miterLimit }`), centred on the
/// outline as a canvas stroke is: half of it shows outside the glyph, the fill covers the rest. Outline fonts
/// only: bitmap fonts draw their pages as they are.
///
/// Corners are as `join` has them, PixiJS's default a miter (bevelled where it would reach past `miter_limit`
/// times half the width, 10 by default). A round join grows the glyph by the distance to it; a miter or bevel is
/// the glyph's outline stroked as a path. The stroke is rasterised with the glyph at the size it covers, kept in
/// the glyph atlas (one bitmap a glyph, size, width, join and limit).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextStroke {
    /// Colour (multiplied by the node's tint and alpha).
    pub color: Color,
    /// Width in the text's pixels.
    pub width: f32,
    /// How the outline's segments meet (PixiJS's `join`).
    pub join: crate::LineJoin,
    /// How far a miter may reach, in half widths (PixiJS's `miterLimit`; from 1 to 63.75, in quarters).
    pub miter_limit: f32,
}

impl TextStroke {
    /// A stroke of `color` and `width` with PixiJS's defaults: mitered corners, miter limit 10.
    pub fn new(color: Color, width: f32) -> TextStroke {
        TextStroke {
            color,
            width,
            join: crate::LineJoin::Miter,
            miter_limit: 10.0,
        }
    }

    /// With corners joined as `join`.
    pub fn with_join(mut self, join: crate::LineJoin) -> TextStroke {
        self.join = join;
        self
    }

    /// With a miter limit of `limit` half widths.
    pub fn with_miter_limit(mut self, limit: f32) -> TextStroke {
        self.miter_limit = limit;
        self
    }
}

/// A shadow under a text (PixiJS's `dropShadow`; its defaults: black, alpha 1, angle π/6, distance 5, no blur).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextShadow {
    /// Colour (multiplied by the node's tint and alpha).
    pub color: Color,
    /// Opacity, multiplied into the colour's.
    pub alpha: f32,
    /// Direction of the offset, radians clockwise from +x (y down).
    pub angle: f32,
    /// Length of the offset in the text's pixels.
    pub distance: f32,
    /// Blur radius in the text's pixels.
    pub blur: f32,
}

impl Default for TextShadow {
    fn default() -> TextShadow {
        TextShadow {
            color: Color::BLACK,
            alpha: 1.0,
            angle: std::f32::consts::FRAC_PI_6,
            distance: 5.0,
            blur: 0.0,
        }
    }
}
