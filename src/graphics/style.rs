//! How a graphics context paints: fill and stroke styles (`FillStyle`, `StrokeStyle`, joins, caps, alignment,
//! fill rules) and texture fills (`FillPattern`, `PatternRepeat`), as PixiJS's `FillStyle`, `StrokeStyle` and
//! `FillPattern` have them.

use super::gradient::{FillGradient, TextureSpace};
use crate::{Color, Texture};
use glam::{Affine2, Vec2};

pub use crate::base::join::LineJoin;

/// How open stroke ends look.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LineCap {
    /// Flat, at the end point.
    #[default]
    Butt,
    /// A half circle beyond the end point.
    Round,
    /// A half square beyond the end point.
    Square,
}

/// Where a stroke sits relative to its path.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum StrokeAlignment {
    /// Inside the shape.
    Inner,
    /// Centred on the path (PixiJS's 0.5).
    #[default]
    Centre,
    /// Outside the shape.
    Outer,
    /// PixiJS's number: 1 inside, 0.5 centred, 0 outside, and beyond: the stroke's middle lies
    /// `(0.5 - ratio) * width` outside the path (-1 leaves a gap of one width outside it). Not finite: centred.
    Ratio(f32),
}

/// Which points a fill covers where its path crosses itself or has several subpaths, as Canvas 2D's
/// `fill(fillRule)` and SVG's `fill-rule`.
///
/// Holes made with [`GraphicsContext::cut`](crate::GraphicsContext::cut) are removed under either rule, whichever way the hole path winds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FillRule {
    /// A point is inside when the path winds around it a non-zero number of times: a self-overlapping star, or
    /// two overlapping rectangles drawn the same way round, are filled solid. The default, as in Canvas 2D and
    /// SVG.
    #[default]
    NonZero,
    /// A point is inside when a ray from it crosses the path an odd number of times: the centre of a pentagram,
    /// and where two subpaths overlap, stay empty.
    EvenOdd,
}

/// How a pattern repeats outside its texture (PixiJS's `FillPattern` repetitions).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PatternRepeat {
    /// Tiled in both directions (the default: PixiJS repeats every texture fill).
    #[default]
    Repeat,
    /// Tiled across, clamped to the edge up and down.
    RepeatX,
    /// Tiled up and down, clamped across.
    RepeatY,
    /// Clamped to the edge both ways (as the texture's sampling does it).
    NoRepeat,
}

impl PatternRepeat {
    /// Which axes wrap: bit 0 across, bit 1 up and down.
    pub(crate) fn axes(self) -> u8 {
        match self {
            PatternRepeat::Repeat => 3,
            PatternRepeat::RepeatX => 1,
            PatternRepeat::RepeatY => 2,
            PatternRepeat::NoRepeat => 0,
        }
    }
}

/// A texture painted over a fill or a stroke (PixiJS's `fill({ texture, matrix, textureSpace })` and
/// `FillPattern`): stretched over the shape's bounding box ([`TextureSpace::Local`], what `fill(texture)` does),
/// or at its own size in the context's coordinates ([`TextureSpace::Global`], a pattern), moved by `matrix`
/// (texture space to shape space: scale it up, turn it, shift it) and tiled as `repeat` says. Texture fills batch
/// with every other shape and sprite.
///
/// A pattern tiles a whole texture: a frame of an atlas tiles its whole atlas, as in PixiJS (cut it into a
/// texture of its own to tile the frame alone).
///
/// ```
/// # fn demo(bricks: stage2d::Texture) {
/// use stage2d::{FillPattern, GraphicsContext, PatternRepeat};
/// use stage2d::glam::{Affine2, Vec2};
/// let mut g = GraphicsContext::new();
/// // Bricks at half size, tiled across a wall.
/// g.rect(0.0, 0.0, 400.0, 300.0)
///     .fill(FillPattern::new(bricks).with_matrix(Affine2::from_scale(Vec2::splat(0.5))));
/// // One copy stretched over a card.
/// g.round_rect(420.0, 0.0, 100.0, 140.0, 8.0).fill(bricks);
/// # }
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FillPattern {
    /// The texture.
    pub texture: Texture,
    /// From texture space to shape space (PixiJS's `matrix`; texture coordinates go through its inverse).
    pub matrix: Affine2,
    /// What texture space is measured against.
    pub space: TextureSpace,
    /// Tiling outside the texture.
    pub repeat: PatternRepeat,
}

impl FillPattern {
    /// `texture` tiled at its own size from the context's origin ([`TextureSpace::Global`], PixiJS's
    /// `new FillPattern(texture, 'repeat')`).
    pub fn new(texture: Texture) -> FillPattern {
        FillPattern {
            texture,
            matrix: Affine2::IDENTITY,
            space: TextureSpace::Global,
            repeat: PatternRepeat::Repeat,
        }
    }

    /// `texture` stretched over the shape's bounding box ([`TextureSpace::Local`], PixiJS's `fill(texture)`).
    pub fn stretched(texture: Texture) -> FillPattern {
        FillPattern {
            space: TextureSpace::Local,
            ..FillPattern::new(texture)
        }
    }

    /// Moved by `matrix` (texture space to shape space: in [`TextureSpace::Local`] one unit is the whole box).
    pub fn with_matrix(mut self, matrix: Affine2) -> FillPattern {
        self.matrix = matrix;
        self
    }

    /// Measured in `space`.
    pub fn in_space(mut self, space: TextureSpace) -> FillPattern {
        self.space = space;
        self
    }

    /// Tiled as `repeat` says.
    pub fn with_repeat(mut self, repeat: PatternRepeat) -> FillPattern {
        self.repeat = repeat;
        self
    }

    /// Which axes the batch shader wraps (bit 0 across, bit 1 up and down): none for a plain stretched texture,
    /// whose coordinates stay inside its frame.
    pub(crate) fn wrap_axes(&self) -> u8 {
        match (self.space, self.matrix == Affine2::IDENTITY) {
            (TextureSpace::Local, true) => 0,
            _ => self.repeat.axes(),
        }
    }

    /// The texture coordinates of `p`, in units of the texture's frame (0..1 across it), for a shape whose
    /// bounding box is `lo..lo + size`.
    pub(crate) fn coordinates(&self, lo: Vec2, size: Vec2) -> Affine2 {
        let inverse = super::gradient::inverse_or_identity(self.matrix);
        match self.space {
            TextureSpace::Local => {
                inverse * Affine2::from_scale(size.recip()) * Affine2::from_translation(-lo)
            }
            TextureSpace::Global => {
                let [w, h] = self.texture.size();
                Affine2::from_scale(Vec2::new(w, h).max(Vec2::ONE).recip()) * inverse
            }
        }
    }
}

/// A fill: a colour, optionally multiplied by a texture ([`FillPattern`]) or a [`FillGradient`], and the rule
/// that decides what is inside.
///
/// ```
/// # use stage2d::{Color, FillRule, FillStyle, GraphicsContext};
/// let mut g = GraphicsContext::new();
/// g.star(50.0, 50.0, 5, 40.0, 16.0, 0.0)
///     .fill(FillStyle::from(Color::RED).with_fill_rule(FillRule::EvenOdd));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FillStyle {
    /// Colour (alpha included).
    pub color: Color,
    /// Texture multiplied in, if any.
    pub pattern: Option<FillPattern>,
    /// Which points of a self-crossing or multi-part path are inside ([`FillRule::NonZero`] by default).
    pub fill_rule: FillRule,
    /// A gradient multiplied in (with `color`), if any.
    pub gradient: Option<FillGradient>,
}

impl FillStyle {
    /// This fill with `rule` deciding what is inside.
    pub fn with_fill_rule(mut self, rule: FillRule) -> Self {
        self.fill_rule = rule;
        self
    }

    /// This fill with its colour (the texture's or gradient's tint) `color`.
    pub fn with_color(mut self, color: Color) -> Self {
        self.color = color;
        self
    }
}

impl From<Color> for FillStyle {
    fn from(color: Color) -> Self {
        FillStyle {
            color,
            pattern: None,
            fill_rule: FillRule::NonZero,
            gradient: None,
        }
    }
}

impl From<u32> for FillStyle {
    /// A solid fill of `0xRRGGBB`.
    fn from(rgb: u32) -> Self {
        Color::from(rgb).into()
    }
}

impl From<Texture> for FillStyle {
    /// The texture stretched over the shape's bounding box ([`FillPattern::stretched`]).
    fn from(texture: Texture) -> Self {
        FillPattern::stretched(texture).into()
    }
}

impl From<FillPattern> for FillStyle {
    fn from(pattern: FillPattern) -> Self {
        FillStyle {
            pattern: Some(pattern),
            ..Color::WHITE.into()
        }
    }
}

impl From<FillGradient> for FillStyle {
    fn from(gradient: FillGradient) -> Self {
        FillStyle {
            gradient: Some(gradient),
            ..Color::WHITE.into()
        }
    }
}

/// A stroke's look.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StrokeStyle {
    /// Width in local pixels.
    pub width: f32,
    /// Colour (alpha included).
    pub color: Color,
    /// Corner shape.
    pub join: LineJoin,
    /// End shape of open paths.
    pub cap: LineCap,
    /// Miter length limit, in widths (PixiJS's default 10).
    pub miter_limit: f32,
    /// Inner, centred or outer.
    pub alignment: StrokeAlignment,
    /// One target pixel wide at any scale, without joins, caps or antialiasing (PixiJS's `pixelLine`);
    /// `width`, joins, caps and alignment are then ignored.
    pub pixel_line: bool,
    /// A gradient multiplied in (with `color`); in [`TextureSpace::Local`] measured over the stroke's own
    /// bounding box. Not for pixel lines.
    pub gradient: Option<FillGradient>,
    /// A texture multiplied in (PixiJS's stroke `texture`); in [`TextureSpace::Local`] stretched over the
    /// stroke's own bounding box. Not for pixel lines.
    pub pattern: Option<FillPattern>,
}

impl Default for StrokeStyle {
    fn default() -> Self {
        StrokeStyle {
            width: 1.0,
            color: Color::BLACK,
            join: LineJoin::Miter,
            cap: LineCap::Butt,
            miter_limit: 10.0,
            alignment: StrokeAlignment::Centre,
            pixel_line: false,
            gradient: None,
            pattern: None,
        }
    }
}

impl StrokeStyle {
    /// A line one target pixel wide at any scale (PixiJS's `pixelLine: true`): for grids, guides and
    /// wireframes that must stay hairlines when zoomed.
    pub fn pixel_line(color: Color) -> Self {
        StrokeStyle {
            color,
            pixel_line: true,
            ..Default::default()
        }
    }

    /// A centred stroke of `width` and `color` with the default joins and caps.
    pub fn new(width: f32, color: Color) -> Self {
        StrokeStyle {
            width,
            color,
            ..Default::default()
        }
    }
}
