//! `GraphicsContext`: a Canvas-style recording of shapes, fills, strokes and holes, shareable by many nodes.
//!
//! Shape calls add subpaths to the current path. `fill` and `stroke` record an instruction for the current path;
//! both may follow one path (`rect(..).fill(..).stroke(..)`), and the next shape call starts a new path. `cut`
//! turns the current path into a hole of the previous instruction. Each context has a process-unique id and a
//! version bumped by every change, which key the tessellation cache: an unchanged context is never
//! re-tessellated. Cloning a context gives it a new id.

use super::gradient::{FillGradient, TextureSpace};
use super::path::{fill_work, PathCommand, ShapePath, MAX_FILL_WORK};
use super::style::{FillPattern, FillStyle, StrokeStyle};
use crate::{Color, Texture};
use glam::{Affine2, Vec2};
use std::f32::consts::{FRAC_PI_2, PI, TAU};
use std::sync::atomic::{AtomicU64, Ordering};

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// One recorded drawing instruction.
#[derive(Clone, Debug, PartialEq)]
pub enum Instruction {
    /// Fill `path` (by the style's rule) minus `holes`.
    Fill {
        /// The shape.
        path: ShapePath,
        /// Subpaths cut out of it.
        holes: ShapePath,
        /// The fill.
        style: FillStyle,
    },
    /// Stroke `path` (and its holes' outlines).
    Stroke {
        /// The shape.
        path: ShapePath,
        /// Cut-out outlines, stroked too.
        holes: ShapePath,
        /// The stroke.
        style: StrokeStyle,
    },
}

/// A recording of shapes and how to paint them (PixiJS's `Graphics` and `GraphicsContext`): build a path or a
/// shape, then `fill`, `stroke` or `cut` (a hole in the last fill). Put it in an `Arc` to share it between nodes.
///
/// ```
/// use stage2d::{Color, GraphicsContext, Node, Scene, StrokeStyle};
/// let mut g = GraphicsContext::new();
/// g.round_rect(0.0, 0.0, 120.0, 80.0, 12.0)
///     .fill(Color::hex(0x2ecc71))
///     .stroke(StrokeStyle::new(4.0, Color::WHITE));
/// g.circle(60.0, 40.0, 20.0).cut(); // a hole
/// g.move_to(0.0, 100.0).line_to(120.0, 100.0).stroke(StrokeStyle::new(2.0, Color::BLACK));
/// let mut scene = Scene::new();
/// let card = scene.add(scene.root(), Node::graphics(g).at(40.0, 40.0))?;
/// assert!(scene.world_bounds(card).unwrap().max.y >= 140.0);
/// # Ok::<(), stage2d::Error>(())
/// ```
#[derive(Debug, PartialEq)]
pub struct GraphicsContext {
    id: u64,
    version: u64,
    instructions: Vec<Instruction>,
    current: ShapePath,
    /// Whether `current` was already used by a fill or stroke (the next shape starts a new path).
    current_used: bool,
    /// Applied to every shape and path command recorded from now on.
    transform: Affine2,
    /// Transforms [`GraphicsContext::save`] kept.
    saved: Vec<Affine2>,
}

impl Clone for GraphicsContext {
    fn clone(&self) -> Self {
        GraphicsContext {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            version: 0,
            instructions: self.instructions.clone(),
            current: self.current.clone(),
            current_used: self.current_used,
            transform: self.transform,
            saved: self.saved.clone(),
        }
    }
}

impl Default for GraphicsContext {
    fn default() -> Self {
        Self::new()
    }
}

impl GraphicsContext {
    /// An empty context.
    pub fn new() -> Self {
        GraphicsContext {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            version: 0,
            instructions: Vec::new(),
            current: ShapePath::new(),
            current_used: false,
            transform: Affine2::IDENTITY,
            saved: Vec::new(),
        }
    }

    /// Process-unique id (a clone gets a new one).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Bumped by every change.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The recorded instructions.
    pub(crate) fn instructions(&self) -> &[Instruction] {
        &self.instructions
    }

    /// Removes everything.
    pub fn clear(&mut self) -> &mut Self {
        self.instructions.clear();
        self.current = ShapePath::new();
        self.current_used = false;
        self.version += 1;
        self
    }

    /// Starts a new, empty path (PixiJS's `beginPath`): a fill or stroke after it has nothing to draw until a
    /// shape or `move_to`.
    pub fn begin_path(&mut self) -> &mut Self {
        self.current = ShapePath::new();
        self.current_used = false;
        self
    }

    fn path(&mut self) -> &mut ShapePath {
        if self.current_used {
            // As PixiJS: the next path starts where the last one's pen was, so a line or curve drawn after a fill
            // or stroke continues from there (a shape or move_to starts afresh).
            let pen = self.pen();
            self.current = ShapePath::new();
            self.current_used = false;
            if let Some(p) = pen {
                self.current.push(PathCommand::MoveTo(p));
            }
        }
        self.version += 1;
        &mut self.current
    }

    /// Records `c` in the current path through the context's transform: its points moved, an arc given the
    /// transform to flatten through (so a scaled circle is an ellipse).
    fn push(&mut self, c: PathCommand) {
        let t = self.transform;
        let c = if t == Affine2::IDENTITY {
            c
        } else {
            let m = |p: Vec2| t.transform_point2(p);
            match c {
                PathCommand::MoveTo(p) => PathCommand::MoveTo(m(p)),
                PathCommand::LineTo(p) => PathCommand::LineTo(m(p)),
                PathCommand::QuadTo(a, b) => PathCommand::QuadTo(m(a), m(b)),
                PathCommand::CubicTo(a, b, d) => PathCommand::CubicTo(m(a), m(b), m(d)),
                PathCommand::Arc {
                    center,
                    radii,
                    start,
                    sweep,
                    matrix,
                } => PathCommand::Arc {
                    center,
                    radii,
                    start,
                    sweep,
                    matrix: t * matrix,
                },
                PathCommand::Close => PathCommand::Close,
            }
        };
        self.path().push(c);
    }

    /// Moves what is recorded from now on by `(x, y)`, after the transform so far (PixiJS's `translate`: in the
    /// context's own space, not the shape's).
    pub fn translate(&mut self, x: f32, y: f32) -> &mut Self {
        self.transform = Affine2::from_translation(Vec2::new(x, y)) * self.transform;
        self
    }

    /// Rotates what is recorded from now on by `angle` radians about the origin, after the transform so far
    /// (PixiJS's `rotate`).
    pub fn rotate(&mut self, angle: f32) -> &mut Self {
        self.transform = Affine2::from_angle(angle) * self.transform;
        self
    }

    /// Scales what is recorded from now on about the origin, after the transform so far (PixiJS's `scale`).
    pub fn scale(&mut self, x: f32, y: f32) -> &mut Self {
        self.transform = Affine2::from_scale(Vec2::new(x, y)) * self.transform;
        self
    }

    /// Applies `transform` before the transform so far, in the shapes' own space (PixiJS's `transform`, Canvas's
    /// `transform`).
    pub fn transform(&mut self, transform: Affine2) -> &mut Self {
        self.transform *= transform;
        self
    }

    /// Replaces the transform (PixiJS's `setTransform`).
    pub fn set_transform(&mut self, transform: Affine2) -> &mut Self {
        self.transform = transform;
        self
    }

    /// Back to no transform (PixiJS's `resetTransform`).
    pub fn reset_transform(&mut self) -> &mut Self {
        self.transform = Affine2::IDENTITY;
        self
    }

    /// The transform applied to what is recorded from now on.
    pub fn get_transform(&self) -> Affine2 {
        self.transform
    }

    /// Keeps the transform, for [`GraphicsContext::restore`] (PixiJS's `save`; fills and strokes here carry their
    /// styles, so there is no current style to keep). At most 1,024 are kept; a save past that is dropped
    /// (logged), and its restore then restores an older one.
    pub fn save(&mut self) -> &mut Self {
        if self.saved.len() < 1024 {
            self.saved.push(self.transform);
        } else {
            log::warn!("more than 1024 GraphicsContext::save without restore: this one is dropped");
        }
        self
    }

    /// The transform the last [`GraphicsContext::save`] kept (none kept: unchanged).
    pub fn restore(&mut self) -> &mut Self {
        if let Some(t) = self.saved.pop() {
            self.transform = t;
        }
        self
    }

    /// Starts a new subpath at `(x, y)`.
    pub fn move_to(&mut self, x: f32, y: f32) -> &mut Self {
        self.push(PathCommand::MoveTo(Vec2::new(x, y)));
        self
    }

    /// A straight line to `(x, y)`.
    pub fn line_to(&mut self, x: f32, y: f32) -> &mut Self {
        self.push(PathCommand::LineTo(Vec2::new(x, y)));
        self
    }

    /// A quadratic curve through control point `(cx, cy)` to `(x, y)`.
    pub fn quadratic_curve_to(&mut self, cx: f32, cy: f32, x: f32, y: f32) -> &mut Self {
        self.push(PathCommand::QuadTo(Vec2::new(cx, cy), Vec2::new(x, y)));
        self
    }

    /// A cubic curve through control points to `(x, y)`.
    pub fn bezier_curve_to(
        &mut self,
        c1x: f32,
        c1y: f32,
        c2x: f32,
        c2y: f32,
        x: f32,
        y: f32,
    ) -> &mut Self {
        self.push(PathCommand::CubicTo(
            Vec2::new(c1x, c1y),
            Vec2::new(c2x, c2y),
            Vec2::new(x, y),
        ));
        self
    }

    /// A circular arc around `(cx, cy)` from angle `start` to `end` (radians, clockwise on screen unless
    /// `anticlockwise`), joined to the current point by a line, as in Canvas.
    pub fn arc(
        &mut self,
        cx: f32,
        cy: f32,
        radius: f32,
        start: f32,
        end: f32,
        anticlockwise: bool,
    ) -> &mut Self {
        let mut sweep = end - start;
        if !anticlockwise && sweep < 0.0 {
            sweep = sweep.rem_euclid(TAU);
            if sweep == 0.0 && end != start {
                sweep = TAU;
            }
        } else if anticlockwise && sweep > 0.0 {
            sweep = -((-sweep).rem_euclid(TAU));
            if sweep == 0.0 && end != start {
                sweep = -TAU;
            }
        }
        self.push(PathCommand::Arc {
            center: Vec2::new(cx, cy),
            radii: Vec2::splat(radius),
            start,
            sweep,
            matrix: Affine2::IDENTITY,
        });
        self
    }

    /// A Canvas `arcTo`: a line towards `(x1, y1)` rounded by an arc of `radius` into the line towards `(x2, y2)`.
    pub fn arc_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, radius: f32) -> &mut Self {
        // The pen as recorded, back in the space the arguments are in.
        let inverse =
            (self.transform.matrix2.determinant() != 0.0).then(|| self.transform.inverse());
        let p0 = match self.pen().zip(inverse) {
            Some((p, inv)) => inv.transform_point2(p),
            None => return self.move_to(x1, y1),
        };
        let p1 = Vec2::new(x1, y1);
        let p2 = Vec2::new(x2, y2);
        let (a, b) = ((p0 - p1).normalize_or_zero(), (p2 - p1).normalize_or_zero());
        let cos = a.dot(b).clamp(-1.0, 1.0);
        if radius <= 0.0 || a == Vec2::ZERO || b == Vec2::ZERO || (1.0 - cos.abs()) < 1e-6 {
            return self.line_to(x1, y1);
        }
        let half = cos.acos() / 2.0;
        let dist = radius / half.tan();
        let t0 = p1 + a * dist;
        let t1 = p1 + b * dist;
        let bisector = (a + b).normalize();
        let center = p1 + bisector * (radius / half.sin());
        let start = (t0 - center).to_angle();
        let end = (t1 - center).to_angle();
        let mut sweep = end - start;
        if sweep > PI {
            sweep -= TAU;
        } else if sweep < -PI {
            sweep += TAU;
        }
        self.line_to(t0.x, t0.y);
        self.push(PathCommand::Arc {
            center,
            radii: Vec2::splat(radius),
            start,
            sweep,
            matrix: Affine2::IDENTITY,
        });
        self
    }

    /// Where the current path's pen is, as recorded (through the transforms), if it has one.
    fn pen(&self) -> Option<Vec2> {
        let mut start = None;
        let mut last = None;
        for c in self.current.commands() {
            match *c {
                PathCommand::MoveTo(p) => {
                    start = Some(p);
                    last = Some(p);
                }
                PathCommand::LineTo(p)
                | PathCommand::QuadTo(_, p)
                | PathCommand::CubicTo(_, _, p) => last = Some(p),
                PathCommand::Arc {
                    center,
                    radii,
                    start: s,
                    sweep,
                    matrix,
                } => {
                    let a = s + sweep;
                    let end = center + Vec2::new(a.cos() * radii.x, a.sin() * radii.y);
                    last = Some(matrix.transform_point2(end));
                }
                PathCommand::Close => last = start,
            }
        }
        last
    }

    /// An elliptical arc around `center` with `radii`, its axes turned by `rotation` radians, from angle `start`
    /// through `sweep` (measured before the turn), joined to the pen by a line.
    pub(super) fn ellipse_arc(
        &mut self,
        center: Vec2,
        radii: Vec2,
        rotation: f32,
        start: f32,
        sweep: f32,
    ) -> &mut Self {
        let turn = Affine2::from_translation(center)
            * Affine2::from_angle(rotation)
            * Affine2::from_translation(-center);
        self.push(PathCommand::Arc {
            center,
            radii,
            start,
            sweep,
            matrix: turn,
        });
        self
    }

    /// Closes the current subpath.
    pub fn close_path(&mut self) -> &mut Self {
        self.push(PathCommand::Close);
        self
    }

    /// Adds a closed polygon through `points` (`Vec2`s, `[x, y]` arrays or `(x, y)` tuples).
    pub fn poly<P: Into<Vec2> + Copy>(&mut self, points: &[P]) -> &mut Self {
        let Some((first, rest)) = points.split_first() else {
            return self;
        };
        self.push(PathCommand::MoveTo((*first).into()));
        for q in rest {
            self.push(PathCommand::LineTo((*q).into()));
        }
        self.push(PathCommand::Close);
        self
    }

    /// Adds a rectangle.
    pub fn rect(&mut self, x: f32, y: f32, w: f32, h: f32) -> &mut Self {
        self.poly(&[
            Vec2::new(x, y),
            Vec2::new(x + w, y),
            Vec2::new(x + w, y + h),
            Vec2::new(x, y + h),
        ])
    }

    /// Adds a rectangle with corners rounded by `radius` (clamped to half the shorter side).
    pub fn round_rect(&mut self, x: f32, y: f32, w: f32, h: f32, radius: f32) -> &mut Self {
        let r = radius.max(0.0).min(w.abs() / 2.0).min(h.abs() / 2.0);
        if r <= 0.0 || r.is_nan() {
            return self.rect(x, y, w, h);
        }
        self.push(PathCommand::MoveTo(Vec2::new(x + r, y)));
        let corners = [
            (Vec2::new(x + w - r, y + r), -FRAC_PI_2),
            (Vec2::new(x + w - r, y + h - r), 0.0),
            (Vec2::new(x + r, y + h - r), FRAC_PI_2),
            (Vec2::new(x + r, y + r), PI),
        ];
        for (center, start) in corners {
            self.push(PathCommand::Arc {
                center,
                radii: Vec2::splat(r),
                start,
                sweep: FRAC_PI_2,
                matrix: Affine2::IDENTITY,
            });
        }
        self.push(PathCommand::Close);
        self
    }

    /// Adds a circle. A negative or NaN radius adds nothing (logged), as Canvas 2D refuses it.
    pub fn circle(&mut self, x: f32, y: f32, radius: f32) -> &mut Self {
        self.ellipse(x, y, radius, radius)
    }

    /// Adds an ellipse with radii `rx`, `ry`. A negative or NaN radius adds nothing (logged), as Canvas 2D refuses
    /// it.
    pub fn ellipse(&mut self, x: f32, y: f32, rx: f32, ry: f32) -> &mut Self {
        if !(rx >= 0.0 && ry >= 0.0) {
            log::warn!(
                "ellipse radii ({rx}, {ry}) must not be negative or NaN; the shape is skipped"
            );
            return self;
        }
        self.push(PathCommand::MoveTo(Vec2::new(x + rx, y)));
        self.push(PathCommand::Arc {
            center: Vec2::new(x, y),
            radii: Vec2::new(rx, ry),
            start: 0.0,
            sweep: TAU,
            matrix: Affine2::IDENTITY,
        });
        self.push(PathCommand::Close);
        self
    }

    /// Adds a regular polygon of `sides` (3 to [`MAX_POLYGON_VERTICES`]; outside that range clamped, with a warning
    /// above it) with circumradius `radius`, first vertex at `rotation` (0 points up).
    pub fn regular_poly(
        &mut self,
        x: f32,
        y: f32,
        radius: f32,
        sides: u32,
        rotation: f32,
    ) -> &mut Self {
        let sides = vertex_count("regular_poly sides", sides, 3, 1);
        let pts: Vec<Vec2> = (0..sides)
            .map(|i| {
                let a = rotation - FRAC_PI_2 + i as f32 * TAU / sides as f32;
                Vec2::new(x + radius * a.cos(), y + radius * a.sin())
            })
            .collect();
        self.poly(&pts)
    }

    /// Adds a star of `points` tips (2 to half of [`MAX_POLYGON_VERTICES`]; outside that range clamped, with a
    /// warning above it) between `inner_radius` and `radius`, first tip at `rotation` (0 points up).
    pub fn star(
        &mut self,
        x: f32,
        y: f32,
        points: u32,
        radius: f32,
        inner_radius: f32,
        rotation: f32,
    ) -> &mut Self {
        let n = vertex_count("star points", points, 2, 2) * 2;
        let pts: Vec<Vec2> = (0..n)
            .map(|i| {
                let r = if i % 2 == 0 { radius } else { inner_radius };
                let a = rotation - FRAC_PI_2 + i as f32 * TAU / n as f32;
                Vec2::new(x + r * a.cos(), y + r * a.sin())
            })
            .collect();
        self.poly(&pts)
    }

    /// Fills the current path. A texture or gradient in [`TextureSpace::Global`] is placed through the
    /// context's transform at this call, as the shapes are.
    pub fn fill(&mut self, style: impl Into<FillStyle>) -> &mut Self {
        let mut style = style.into();
        self.place(&mut style.pattern, &mut style.gradient);
        self.instructions.push(Instruction::Fill {
            path: self.current.clone(),
            holes: ShapePath::new(),
            style,
        });
        self.current_used = true;
        self.version += 1;
        self
    }

    /// Strokes the current path (a texture or gradient in [`TextureSpace::Global`] placed as
    /// [`GraphicsContext::fill`] places them).
    pub fn stroke(&mut self, mut style: StrokeStyle) -> &mut Self {
        self.place(&mut style.pattern, &mut style.gradient);
        self.instructions.push(Instruction::Stroke {
            path: self.current.clone(),
            holes: ShapePath::new(),
            style,
        });
        self.current_used = true;
        self.version += 1;
        self
    }

    /// Puts a global-space pattern or gradient where the context's transform puts the shapes.
    fn place(&self, pattern: &mut Option<FillPattern>, gradient: &mut Option<FillGradient>) {
        if self.transform == Affine2::IDENTITY {
            return;
        }
        if let Some(p) = pattern.as_mut().filter(|p| p.space == TextureSpace::Global) {
            p.matrix = self.transform * p.matrix;
        }
        if let Some(g) = gradient
            .as_mut()
            .filter(|g| g.space == TextureSpace::Global)
        {
            g.placed = self.transform * g.placed;
        }
    }

    /// Draws `texture` into the rectangle `(x, y, w, h)` (its own size where `w` or `h` is not positive), tinted
    /// by `tint` (PixiJS's `Graphics.texture`): a rectangle filled with the texture stretched over it.
    pub fn texture(
        &mut self,
        texture: Texture,
        tint: Color,
        x: f32,
        y: f32,
        w: f32,
        h: f32,
    ) -> &mut Self {
        let [tw, th] = texture.size();
        let (w, h) = (if w > 0.0 { w } else { tw }, if h > 0.0 { h } else { th });
        self.rect(x, y, w, h)
            .fill(FillStyle::from(texture).with_color(tint))
    }

    /// Segments of this context once flattened at the scale it is drawn at 1:1, or
    /// [`Error::PathTooComplex`](crate::Error::PathTooComplex) when that is more than [`MAX_PATH_SEGMENTS`]:
    /// such a context would draw only in part; [`Error::FillTooComplex`](crate::Error::FillTooComplex) for a
    /// fill that crosses itself too often to triangulate in bounded time (over
    /// [`MAX_FILL_WORK`](super::path::MAX_FILL_WORK)), which a frame skips. Drawn scaled up, curves take more segments, so a context near
    /// the limit may still lose shapes (each skip is logged and counted).
    pub fn check_complexity(&self) -> crate::Result<u32> {
        let tol = SCREEN_TOLERANCE;
        let mut total = 0usize;
        for ins in &self.instructions {
            let (Instruction::Fill { path, holes, .. } | Instruction::Stroke { path, holes, .. }) =
                ins;
            let mut flat = [Vec::new(), Vec::new()];
            for (p, out) in [path, holes].into_iter().zip(&mut flat) {
                let budget = (MAX_PATH_SEGMENTS as usize).saturating_sub(total);
                match p.flatten_within(tol, budget) {
                    Ok((lines, _)) => {
                        total += lines.iter().map(|l| l.points.len()).sum::<usize>();
                        *out = lines;
                    }
                    Err(n) => total += n,
                }
                if total > MAX_PATH_SEGMENTS as usize {
                    return Err(crate::Error::PathTooComplex {
                        segments: total as u64,
                        max: MAX_PATH_SEGMENTS,
                    });
                }
            }
            if let Instruction::Fill { .. } = ins {
                let [lines, holes] = &flat;
                if fill_work(lines, holes, MAX_FILL_WORK).is_none() {
                    let segments = lines
                        .iter()
                        .chain(holes)
                        .map(|l| l.points.len() as u64)
                        .sum();
                    return Err(crate::Error::FillTooComplex { segments });
                }
            }
        }
        Ok(total as u32)
    }

    /// Appends a raw command to the current path (tests re-record contexts with it).
    #[cfg(test)]
    pub(crate) fn push_command_for_tests(&mut self, c: PathCommand) -> &mut Self {
        self.path().push(c);
        self
    }

    /// Cuts the current path out of the previous shape, as a hole: out of the last instruction and of those
    /// just before it that paint the same path (so `fill(..).stroke(..)` then `cut()` holes both). Without a
    /// previous instruction the path is discarded.
    pub fn cut(&mut self) -> &mut Self {
        let hole = std::mem::take(&mut self.current);
        let last = self.instructions.last().map(|i| match i {
            Instruction::Fill { path, .. } | Instruction::Stroke { path, .. } => path.clone(),
        });
        if let Some(last) = last {
            for ins in self.instructions.iter_mut().rev() {
                let (Instruction::Fill { path, holes, .. }
                | Instruction::Stroke { path, holes, .. }) = ins;
                if *path != last {
                    break;
                }
                holes.extend(&hole);
            }
        }
        self.current_used = false;
        self.version += 1;
        self
    }
}

/// Most segments one graphics context may hold once its paths are flattened (curves and arcs at a quarter-pixel
/// tolerance, which gives more segments the larger a shape is drawn on screen). Lyon's fill of a self-crossing
/// path grows faster than quadratically with its size, so a bound keeps every context drawable in bounded time
/// and memory. [`GraphicsContext::check_complexity`] reports a context over it as
/// [`Error::PathTooComplex`](crate::Error::PathTooComplex); inside a frame the fills and strokes that would take
/// a context over it are skipped with a warning and counted in
/// [`FrameStats::shape_instructions_skipped`](crate::FrameStats::shape_instructions_skipped).
pub const MAX_PATH_SEGMENTS: u32 = 1 << 18;

/// How far flattened curves may stray from the true ones on screen, in pixels (after the node's transform).
pub const SCREEN_TOLERANCE: f32 = 0.25;

/// Most vertices one generated polygon ([`GraphicsContext::regular_poly`], [`GraphicsContext::star`]) gets: far
/// more than any screen resolves, and a bound on what one call can allocate.
pub const MAX_POLYGON_VERTICES: u32 = 1 << 16;

/// `n` clamped to `min..=MAX_POLYGON_VERTICES / per`, where `per` is the vertices each unit adds (1 a side, 2 a
/// star tip), logging when it was too large.
pub(super) fn vertex_count(what: &str, n: u32, min: u32, per: u32) -> u32 {
    let max = MAX_POLYGON_VERTICES / per;
    if n > max {
        log::warn!("{what} = {n} is more than {max}; drawing {max}");
    }
    n.clamp(min, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vertices(g: &GraphicsContext) -> usize {
        match g.instructions() {
            [Instruction::Fill { path, .. }] => path
                .commands()
                .iter()
                .filter(|c| matches!(c, PathCommand::MoveTo(_) | PathCommand::LineTo(_)))
                .count(),
            other => panic!("one fill expected, got {other:?}"),
        }
    }

    #[test]
    fn huge_polygon_counts_are_clamped_not_allocated_or_wrapped() {
        let t = std::time::Instant::now();
        let mut g = GraphicsContext::new();
        g.regular_poly(0.0, 0.0, 10.0, u32::MAX, 0.0)
            .fill(Color::RED);
        assert_eq!(vertices(&g), MAX_POLYGON_VERTICES as usize);
        // 2^31 tips used to wrap to zero vertices (points * 2 overflowed).
        let mut g = GraphicsContext::new();
        g.star(0.0, 0.0, 1 << 31, 10.0, 5.0, 0.0).fill(Color::RED);
        assert_eq!(vertices(&g), MAX_POLYGON_VERTICES as usize);
        let mut g = GraphicsContext::new();
        g.star(0.0, 0.0, u32::MAX, 10.0, 5.0, 0.0).fill(Color::RED);
        assert_eq!(vertices(&g), MAX_POLYGON_VERTICES as usize);
        assert!(t.elapsed().as_secs_f32() < 1.0, "{:?}", t.elapsed());
        // Small counts keep their floor.
        let mut g = GraphicsContext::new();
        g.regular_poly(0.0, 0.0, 10.0, 0, 0.0).fill(Color::RED);
        assert_eq!(vertices(&g), 3);
        let mut g = GraphicsContext::new();
        g.star(0.0, 0.0, 1, 10.0, 5.0, 0.0).fill(Color::RED);
        assert_eq!(vertices(&g), 4);
    }

    #[test]
    fn negative_or_nan_radii_add_no_shape() {
        for r in [-5.0, f32::NAN] {
            let mut g = GraphicsContext::new();
            g.circle(10.0, 10.0, r).fill(Color::RED);
            g.ellipse(10.0, 10.0, 4.0, r).fill(Color::RED);
            assert!(
                g.instructions().iter().all(|i| match i {
                    Instruction::Fill { path, .. } => path.commands().is_empty(),
                    _ => true,
                }),
                "radius {r}: {:?}",
                g.instructions()
            );
        }
        let mut g = GraphicsContext::new();
        g.circle(10.0, 10.0, 0.0).fill(Color::RED);
        assert!(
            !g.instructions().is_empty(),
            "a zero radius is allowed (it draws nothing visible)"
        );
    }

    #[test]
    fn fill_then_stroke_share_a_path_and_next_shape_starts_anew() {
        let mut g = GraphicsContext::new();
        g.rect(0.0, 0.0, 10.0, 10.0)
            .fill(Color::RED)
            .stroke(StrokeStyle::new(2.0, Color::BLACK));
        g.circle(5.0, 5.0, 3.0).fill(Color::BLUE);
        let ins = g.instructions();
        assert_eq!(ins.len(), 3);
        let (Instruction::Fill { path: a, .. }, Instruction::Stroke { path: b, .. }) =
            (&ins[0], &ins[1])
        else {
            panic!("wrong order");
        };
        assert_eq!(a, b);
        let Instruction::Fill { path: c, .. } = &ins[2] else {
            panic!()
        };
        assert_ne!(a, c);
    }

    #[test]
    fn cut_adds_a_hole_to_the_previous_instruction() {
        let mut g = GraphicsContext::new();
        g.rect(0.0, 0.0, 10.0, 10.0).fill(Color::RED);
        g.circle(5.0, 5.0, 2.0).cut();
        let Instruction::Fill { holes, .. } = &g.instructions()[0] else {
            panic!()
        };
        assert!(!holes.is_empty());
        assert_eq!(g.instructions().len(), 1);
    }

    #[test]
    fn cut_after_fill_and_stroke_holes_both_but_not_earlier_shapes() {
        let mut g = GraphicsContext::new();
        g.rect(0.0, 0.0, 4.0, 4.0).fill(Color::BLUE);
        g.circle(0.0, 0.0, 10.0)
            .fill(Color::RED)
            .stroke(StrokeStyle::default());
        g.circle(0.0, 0.0, 5.0).cut();
        let holes: Vec<bool> = g
            .instructions()
            .iter()
            .map(|i| match i {
                Instruction::Fill { holes, .. } | Instruction::Stroke { holes, .. } => {
                    !holes.is_empty()
                }
            })
            .collect();
        assert_eq!(holes, vec![false, true, true]);
    }

    #[test]
    fn versions_bump_and_clones_get_new_ids() {
        let mut g = GraphicsContext::new();
        let v0 = g.version();
        g.rect(0.0, 0.0, 1.0, 1.0);
        assert!(g.version() > v0);
        let c = g.clone();
        assert_ne!(c.id(), g.id());
    }

    #[test]
    fn arc_to_rounds_a_corner_tangentially() {
        let mut g = GraphicsContext::new();
        g.move_to(0.0, 0.0)
            .arc_to(10.0, 0.0, 10.0, 10.0, 4.0)
            .line_to(10.0, 10.0);
        g.stroke(StrokeStyle::default());
        let Instruction::Stroke { path, .. } = &g.instructions()[0] else {
            panic!()
        };
        let (lines, _) = path.flatten(0.01);
        let pts = &lines[0].points;
        assert!(
            pts.iter()
                .any(|p| (p.x - 6.0).abs() < 1e-3 && p.y.abs() < 1e-3),
            "tangent point on the first line"
        );
        assert!(
            pts.iter()
                .any(|p| (p.x - 10.0).abs() < 1e-3 && (p.y - 4.0).abs() < 1e-3),
            "and on the second"
        );
        // No point cuts the corner by more than the radius allows.
        assert!(pts.iter().all(|p| p.x <= 10.0 + 1e-3 && p.y >= -1e-3));
    }
}
