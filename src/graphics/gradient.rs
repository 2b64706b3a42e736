//! Gradient fills (PixiJS's `FillGradient`, linear and radial), pure: the colour at a point, and a fill's
//! triangles cut where the gradient passes a stop, so that colours given at the vertices and interpolated across
//! each piece are exact (linear) or within a fraction of a colour step (radial: cut into narrow sectors, in each
//! of which the offset is affine).

use crate::base::stops::{linear_projection, ColorStops};
use crate::Color;
use glam::{Affine2, Vec2};

/// Most colour stops a [`FillGradient`] holds.
pub const MAX_FILL_GRADIENT_STOPS: usize = crate::base::stops::MAX_COLOR_STOPS;

/// Most sectors a radial gradient's plane is cut into around its focus. The offset is exact on the sectors'
/// edges and, inside them, off by at most the distance a chord of the sector strays from its arc: the count is
/// the fewest (at least [`MIN_RADIAL_SECTORS`]) for which that stays within the tessellation tolerance (a quarter
/// pixel on screen) at the gradient's outer circle, up to this many (where the error is 0.03 % of the offset's
/// range, a thirteenth of an 8-bit step).
const MAX_RADIAL_SECTORS: usize = 256;

/// Fewest sectors a radial gradient is cut into (the offset within 2 % of its range).
const MIN_RADIAL_SECTORS: usize = 16;

/// Most whole periods a repeating gradient is cut into across one shape; a shape crossing more draws the
/// gradient clamped (and says so in the log).
pub const MAX_GRADIENT_PERIODS: f32 = 1024.0;

/// Where a gradient's or a texture's coordinates are measured (PixiJS's `textureSpace`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TextureSpace {
    /// In fractions of the shape's bounding box: `(0, 0)` its top-left, `(1, 1)` its bottom-right (PixiJS's
    /// default).
    #[default]
    Local,
    /// In the graphics context's own coordinates (before its transform stack: a texture or gradient turns with
    /// the shapes the context's `rotate` turns).
    Global,
}

/// What a gradient does past its ends (PixiJS's `wrapMode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum GradientWrap {
    /// The end stops' colours continue (`clamp-to-edge`, the default).
    #[default]
    Clamp,
    /// The gradient starts again (`repeat`): offset 1.25 draws as 0.25. Linear gradients only; a radial one
    /// clamps.
    Repeat,
}

/// The shape of a [`FillGradient`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GradientKind {
    /// Offset 0 at `start`, 1 at `end`, constant across.
    Linear {
        /// Where offset 0 lies.
        start: Vec2,
        /// Where offset 1 lies.
        end: Vec2,
    },
    /// Between two circles (Canvas 2D's `createRadialGradient`, PixiJS's `type: 'radial'`).
    Radial(RadialGradient),
}

/// A radial gradient's circles: offset 0 on the inner circle, 1 on the outer, and the circles between them
/// (centres and radii interpolated) in between, as Canvas 2D draws them. The whole is turned by `rotation` and
/// squashed vertically by `scale` about `center` (PixiJS's `rotation` and `scale`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RadialGradient {
    /// The inner circle's centre.
    pub center: Vec2,
    /// The inner circle's radius (0: a point).
    pub inner_radius: f32,
    /// The outer circle's centre (usually `center`; elsewhere inside the outer circle it is a focal gradient).
    pub outer_center: Vec2,
    /// The outer circle's radius.
    pub outer_radius: f32,
    /// Radians the gradient is turned about `center`.
    pub rotation: f32,
    /// Vertical scale about `center` before the turn (1: circles; 0.5: ellipses half as tall).
    pub scale: f32,
}

/// A gradient fill (PixiJS's `FillGradient`): colours between stops are interpolated as stored (sRGB-encoded,
/// with their alpha); before the first stop and past the last the end stops' colours, or, repeating, the
/// gradient again. Fill or stroke a shape with it through [`GraphicsContext::fill`](crate::GraphicsContext::fill)
/// and [`StrokeStyle::gradient`](crate::StrokeStyle::gradient); shapes filled with gradients batch with every
/// other shape (their colours are given at the vertices: no texture and no draw call of their own).
///
/// ```
/// use stage2d::{Color, FillGradient, GraphicsContext};
/// use stage2d::glam::Vec2;
/// let sky = FillGradient::linear(Vec2::ZERO, Vec2::Y, &[(0.0, Color::hex(0x1e3c72)), (1.0, Color::hex(0x2a5298))]);
/// let sun = FillGradient::radial(Vec2::splat(0.5), 0.0, Vec2::splat(0.5), 0.5, &[(0.0, Color::WHITE), (1.0, Color::hex(0xffa500))]);
/// let mut g = GraphicsContext::new();
/// g.rect(0.0, 0.0, 800.0, 300.0).fill(sky);
/// g.circle(400.0, 120.0, 60.0).fill(sun);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FillGradient {
    /// Linear or radial, and where.
    pub kind: GradientKind,
    /// What the gradient's points are measured in.
    pub space: TextureSpace,
    /// Past the ends: clamped or repeating.
    pub wrap: GradientWrap,
    stops: ColorStops,
    /// The context's transform when it was filled with (global space only).
    pub(crate) placed: Affine2,
}

impl FillGradient {
    /// A linear gradient from `start` to `end` (in the shape's bounding box, [`TextureSpace::Local`]) through
    /// `stops` (offset from 0 to 1, colour), sorted by offset; stops past [`MAX_FILL_GRADIENT_STOPS`] or with a
    /// non-finite offset are dropped, offsets clamped to 0..1. No stop at all is transparent.
    pub fn linear(start: Vec2, end: Vec2, stops: &[(f32, Color)]) -> FillGradient {
        FillGradient {
            kind: GradientKind::Linear { start, end },
            space: TextureSpace::Local,
            wrap: GradientWrap::Clamp,
            stops: ColorStops::new(stops),
            placed: Affine2::IDENTITY,
        }
    }

    /// A radial gradient from the circle at `center` of `inner_radius` (offset 0) to the one at `outer_center`
    /// of `outer_radius` (offset 1), in the shape's bounding box ([`TextureSpace::Local`]); PixiJS's default
    /// is `radial(Vec2::splat(0.5), 0.0, Vec2::splat(0.5), 0.5, ..)`. Stops as for [`FillGradient::linear`].
    pub fn radial(
        center: Vec2,
        inner_radius: f32,
        outer_center: Vec2,
        outer_radius: f32,
        stops: &[(f32, Color)],
    ) -> FillGradient {
        FillGradient {
            kind: GradientKind::Radial(RadialGradient {
                center,
                inner_radius,
                outer_center,
                outer_radius,
                rotation: 0.0,
                scale: 1.0,
            }),
            space: TextureSpace::Local,
            wrap: GradientWrap::Clamp,
            stops: ColorStops::new(stops),
            placed: Affine2::IDENTITY,
        }
    }

    /// With its points measured in `space`.
    pub fn in_space(mut self, space: TextureSpace) -> FillGradient {
        self.space = space;
        self
    }

    /// Repeating past its ends ([`GradientWrap::Repeat`]).
    pub fn repeating(mut self) -> FillGradient {
        self.wrap = GradientWrap::Repeat;
        self
    }

    /// A radial gradient turned by `rotation` radians and scaled vertically by `scale` about its centre
    /// (PixiJS's `rotation` and `scale`); a linear one is unchanged.
    pub fn with_transform(mut self, rotation: f32, scale: f32) -> FillGradient {
        if let GradientKind::Radial(r) = &mut self.kind {
            r.rotation = rotation;
            r.scale = scale;
        }
        self
    }

    /// Its stops, sorted by offset.
    pub fn stops(&self) -> &[(f32, Color)] {
        self.stops.as_slice()
    }

    /// The offset at `point` (in the gradient's space), clamped to 0..1 or, repeating, wrapped into it; 0 for a
    /// degenerate gradient (a linear one whose ends coincide, a radial one without area) or a non-finite point.
    pub fn offset_at(&self, point: Vec2) -> f32 {
        let t = match self.kind {
            GradientKind::Linear { start, end } => linear_projection(start, end)(point),
            GradientKind::Radial(r) => Radial::new(&r).offset(point),
        };
        self.wrapped(t)
    }

    fn wrapped(&self, t: f32) -> f32 {
        if !t.is_finite() {
            return 0.0;
        }
        match (self.wrap, self.kind) {
            (GradientWrap::Repeat, GradientKind::Linear { .. }) => t - t.floor(),
            _ => t.clamp(0.0, 1.0),
        }
    }

    /// The colour at offset `t`.
    pub fn color_at(&self, t: f32) -> Color {
        self.stops.at(t)
    }

    /// The triangles `positions`/`indices` (of a shape whose bounding box is `lo..lo + size`) cut for this
    /// gradient, and the colour at each new vertex.
    pub(crate) fn paint(
        &self,
        positions: &[Vec2],
        indices: &[u32],
        lo: Vec2,
        size: Vec2,
        tolerance: f32,
    ) -> (Vec<Vec2>, Vec<u32>, Vec<Color>) {
        let (p, i, c) = self.paint_unwelded(positions, indices, lo, size, tolerance);
        weld(&p, &i, &c)
    }

    fn paint_unwelded(
        &self,
        positions: &[Vec2],
        indices: &[u32],
        lo: Vec2,
        size: Vec2,
        tolerance: f32,
    ) -> (Vec<Vec2>, Vec<u32>, Vec<Color>) {
        let to_space = match self.space {
            TextureSpace::Local => {
                Affine2::from_scale(size.recip()) * Affine2::from_translation(-lo)
            }
            TextureSpace::Global => inverse_or_identity(self.placed),
        };
        let cuts: Vec<f32> = self.stops().iter().map(|s| s.0).collect();
        match self.kind {
            GradientKind::Linear { start, end } => {
                let raw = linear_projection(start, end);
                let offset = |p: Vec2| raw(to_space.transform_point2(p));
                if self.wrap == GradientWrap::Repeat {
                    if let Some(out) = self.paint_repeating(positions, indices, &offset, &cuts) {
                        return out;
                    }
                }
                let (p, i) = cut_triangles(positions, indices, offset, &cuts);
                let colors = p.iter().map(|v| self.color_at(offset(*v))).collect();
                (p, i, colors)
            }
            GradientKind::Radial(r) => self.paint_radial(
                &Radial::new(&r),
                positions,
                indices,
                to_space,
                &cuts,
                tolerance,
            ),
        }
    }

    /// A repeating linear gradient: cut at every stop of every period the shape crosses, each piece coloured by
    /// its own period (vertices on a period's edge are not shared: they take both ends' colours). `None` when
    /// the shape crosses more than [`MAX_GRADIENT_PERIODS`] periods.
    #[allow(clippy::type_complexity)]
    fn paint_repeating(
        &self,
        positions: &[Vec2],
        indices: &[u32],
        offset: &impl Fn(Vec2) -> f32,
        stops: &[f32],
    ) -> Option<(Vec<Vec2>, Vec<u32>, Vec<Color>)> {
        let (lo, hi) = indices
            .iter()
            .map(|&i| offset(positions[i as usize]))
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), t| {
                (a.min(t), b.max(t))
            });
        if !(lo.is_finite() && hi.is_finite()) {
            return None;
        }
        if hi - lo > MAX_GRADIENT_PERIODS {
            log::warn!(
                "a repeating gradient crosses {:.0} periods of one shape (at most {MAX_GRADIENT_PERIODS}): drawn clamped",
                hi - lo
            );
            return None;
        }
        let mut cuts = Vec::new();
        let mut k = lo.floor();
        while k <= hi.ceil() {
            cuts.push(k);
            cuts.extend(stops.iter().map(|s| k + s));
            k += 1.0;
        }
        cuts.sort_by(f32::total_cmp);
        cuts.dedup();
        let (p, i) = cut_triangles(positions, indices, offset, &cuts);
        let (mut out_p, mut out_i, mut colors) = (Vec::new(), Vec::new(), Vec::new());
        for tri in i.chunks_exact(3) {
            let c = tri.iter().map(|&v| offset(p[v as usize])).sum::<f32>() / 3.0;
            let period = c.floor();
            for &v in tri {
                let q = p[v as usize];
                out_i.push(out_p.len() as u32);
                out_p.push(q);
                colors.push(self.color_at((offset(q) - period).clamp(0.0, 1.0)));
            }
        }
        Some((out_p, out_i, colors))
    }

    /// A radial gradient: the triangles cut along rays from its focus into sectors (see
    /// [`MAX_RADIAL_SECTORS`]), in each of which the offset is affine (exact on the rays), then cut at the stops
    /// by that affine offset.
    fn paint_radial(
        &self,
        r: &Radial,
        positions: &[Vec2],
        indices: &[u32],
        to_space: Affine2,
        stops: &[f32],
        tolerance: f32,
    ) -> (Vec<Vec2>, Vec<u32>, Vec<Color>) {
        let to_g = r.from_space * to_space;
        let g = |p: Vec2| to_g.transform_point2(p);
        // The outer circle's farthest reach from the focus, in the shape's pixels.
        let to_px = match to_g.matrix2.determinant() {
            d if d.is_finite() && d != 0.0 => to_g.matrix2.inverse(),
            _ => glam::Mat2::IDENTITY,
        };
        let stretch = to_px.x_axis.length().max(to_px.y_axis.length());
        let reach = (r.outer_radius + r.focus.distance(r.outer_center)) * stretch;
        // A chord of angle a strays reach * a^2 / 8 from its arc.
        let angle = (8.0 * tolerance.max(1e-6) / reach).sqrt();
        let sectors = match (std::f32::consts::TAU / angle).ceil() {
            n if n.is_finite() => (n as usize).clamp(MIN_RADIAL_SECTORS, MAX_RADIAL_SECTORS),
            _ => MIN_RADIAL_SECTORS,
        }
        .next_multiple_of(2);
        let (mut p, mut i) = (positions.to_vec(), indices.to_vec());
        let step = std::f32::consts::TAU / sectors as f32;
        for k in 0..sectors / 2 {
            let u = Vec2::from_angle(k as f32 * step);
            (p, i) = cut_triangles(&p, &i, |q| u.perp_dot(g(q) - r.focus), &[0.0]);
        }
        let mut groups: Vec<Vec<u32>> = vec![Vec::new(); sectors];
        for tri in i.chunks_exact(3) {
            let c = tri.iter().map(|&v| g(p[v as usize])).sum::<Vec2>() / 3.0 - r.focus;
            let a = c.y.atan2(c.x).rem_euclid(std::f32::consts::TAU);
            let k = ((a / step) as usize).min(sectors - 1);
            groups[k].extend_from_slice(tri);
        }
        let (mut out_p, mut out_i, mut colors) = (Vec::new(), Vec::new(), Vec::new());
        for (k, group) in groups.iter().enumerate() {
            if group.is_empty() {
                continue;
            }
            let f = r.sector(k, step);
            let offset = |q: Vec2| f(g(q));
            let (sp, si) = cut_triangles(&p, group, offset, stops);
            let base = out_p.len() as u32;
            colors.extend(sp.iter().map(|q| self.color_at(offset(*q))));
            out_p.extend(sp);
            out_i.extend(si.iter().map(|v| v + base));
        }
        (out_p, out_i, colors)
    }
}

/// The inverse of `m`, or the identity where `m` is not finite or cannot be inverted (a degenerate texture or
/// gradient placement draws untransformed).
pub(crate) fn inverse_or_identity(m: Affine2) -> Affine2 {
    match m.matrix2.determinant() {
        d if d.is_finite() && d != 0.0 && m.translation.is_finite() => m.inverse(),
        _ => Affine2::IDENTITY,
    }
}

/// One vertex for each distinct (position, colour): cutting gives each piece its own copies of the points it
/// shares with its neighbours (a repeating gradient's period edges keep two, one of each colour).
fn weld(
    positions: &[Vec2],
    indices: &[u32],
    colors: &[Color],
) -> (Vec<Vec2>, Vec<u32>, Vec<Color>) {
    let mut seen: rustc_hash::FxHashMap<[u32; 6], u32> = Default::default();
    let (mut p, mut c) = (Vec::new(), Vec::new());
    let i = indices
        .iter()
        .map(|&k| {
            let (v, col) = (positions[k as usize], colors[k as usize]);
            let key = [
                v.x.to_bits(),
                v.y.to_bits(),
                col.r.to_bits(),
                col.g.to_bits(),
                col.b.to_bits(),
                col.a.to_bits(),
            ];
            *seen.entry(key).or_insert_with(|| {
                p.push(v);
                c.push(col);
                p.len() as u32 - 1
            })
        })
        .collect();
    (p, i, c)
}

/// A radial gradient in the form it is drawn: every circle of it is the outer circle scaled about `focus` (the
/// point where the interpolated radius is 0), so along a ray from the focus the offset is affine in distance.
struct Radial {
    /// From the gradient's space to the circles' (undoing rotation and scale about the centre).
    from_space: Affine2,
    focus: Vec2,
    /// The offset at the focus.
    t_focus: f32,
    outer_center: Vec2,
    outer_radius: f32,
}

impl Radial {
    fn new(r: &RadialGradient) -> Radial {
        let turn = Affine2::from_translation(r.center)
            * Affine2::from_angle(r.rotation)
            * Affine2::from_scale(Vec2::new(1.0, r.scale))
            * Affine2::from_translation(-r.center);
        let from_space = match turn.matrix2.determinant() {
            d if d.is_finite() && d.abs() > 1e-12 => turn.inverse(),
            _ => Affine2::IDENTITY,
        };
        let (r0, r1) = (r.inner_radius.max(0.0), r.outer_radius.max(0.0));
        let finite =
            r.center.is_finite() && r.outer_center.is_finite() && r0.is_finite() && r1.is_finite();
        let dr = r1 - r0;
        if finite && dr.abs() > 1e-6 * r1.max(r0).max(1e-30) {
            let t_focus = -r0 / dr;
            let focus = r.center + t_focus * (r.outer_center - r.center);
            // The focus strictly inside the outer circle: every ray from it meets that circle once.
            if focus.distance(r.outer_center) < r1 * 0.999 {
                return Radial {
                    from_space,
                    focus,
                    t_focus,
                    outer_center: r.outer_center,
                    outer_radius: r1,
                };
            }
        }
        // A cone (the focus outside the outer circle) or equal radii: drawn as concentric circles about the outer
        // centre, offset (distance - r0) / (r1 - r0).
        let c = if finite { r.outer_center } else { Vec2::ZERO };
        let (r0, r1) = if finite {
            (r0, r1.max(r0 + 1e-3 * r0.max(1e-3)))
        } else {
            (0.0, 1.0)
        };
        Radial {
            from_space,
            focus: c,
            t_focus: -r0 / (r1 - r0),
            outer_center: c,
            outer_radius: r1,
        }
    }

    /// The distance from the focus along unit `u` to the outer circle.
    fn reach(&self, u: Vec2) -> f32 {
        let d = self.focus - self.outer_center;
        let b = u.dot(d);
        let c = d.length_squared() - self.outer_radius * self.outer_radius;
        -b + (b * b - c).max(0.0).sqrt()
    }

    /// The exact offset at `point` (in the gradient's space).
    fn offset(&self, point: Vec2) -> f32 {
        let v = self.from_space.transform_point2(point) - self.focus;
        let s = v.length();
        if s == 0.0 {
            return self.t_focus;
        }
        self.t_focus + (1.0 - self.t_focus) * s / self.reach(v / s)
    }

    /// The affine offset of sector `k` (between the rays at `k * step` and `(k + 1) * step`), exact on both.
    fn sector(&self, k: usize, step: f32) -> impl Fn(Vec2) -> f32 {
        let (u0, u1) = (
            Vec2::from_angle(k as f32 * step),
            Vec2::from_angle((k + 1) as f32 * step),
        );
        let (a0, a1) = (
            (1.0 - self.t_focus) / self.reach(u0),
            (1.0 - self.t_focus) / self.reach(u1),
        );
        // w . u0 = a0, w . u1 = a1.
        let det = u0.perp_dot(u1);
        let w = Vec2::new(a0 * u1.y - a1 * u0.y, u0.x * a1 - u1.x * a0) / det;
        let (focus, t) = (self.focus, self.t_focus);
        move |g: Vec2| t + w.dot(g - focus)
    }
}

/// Cuts triangles (`positions`, `indices`) along the lines where `offset` (affine in position) crosses each of
/// `cuts`, so that a colour linear in the offset between cuts is exact when interpolated across each new
/// triangle. Returns the new positions and indices: the old positions still used first, in their order, then the
/// pieces' corners (a vertex only the cut triangles used is dropped).
pub(crate) fn cut_triangles(
    positions: &[Vec2],
    indices: &[u32],
    offset: impl Fn(Vec2) -> f32,
    cuts: &[f32],
) -> (Vec<Vec2>, Vec<u32>) {
    let mut out_pos = positions.to_vec();
    let mut out_idx = Vec::with_capacity(indices.len());
    let mut pieces: Vec<Vec<Vec2>> = Vec::new();
    for tri in indices.chunks_exact(3) {
        let corners: Vec<Vec2> = tri.iter().map(|&i| positions[i as usize]).collect();
        let ts: Vec<f32> = corners.iter().map(|p| offset(*p)).collect();
        let (lo, hi) = ts
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), t| {
                (a.min(*t), b.max(*t))
            });
        let inside: Vec<f32> = cuts
            .iter()
            .copied()
            .filter(|c| *c > lo + 1e-6 && *c < hi - 1e-6)
            .collect();
        if inside.is_empty() || !(lo.is_finite() && hi.is_finite()) {
            out_idx.extend_from_slice(tri);
            continue;
        }
        // Slice the triangle into bands between consecutive cuts; each band is convex.
        pieces.clear();
        let mut rest = corners;
        for c in inside {
            let (below, above) = split_convex(&rest, &offset, c);
            if below.len() >= 3 {
                pieces.push(below);
            }
            rest = above;
        }
        if rest.len() >= 3 {
            pieces.push(rest);
        }
        for piece in &pieces {
            let base = out_pos.len() as u32;
            out_pos.extend_from_slice(piece);
            for k in 1..piece.len() as u32 - 1 {
                out_idx.extend([base, base + k, base + k + 1]);
            }
        }
    }
    // Drop the vertices only cut triangles used, keeping the others' order.
    let mut remap = vec![u32::MAX; out_pos.len()];
    let mut kept = Vec::with_capacity(out_pos.len());
    for i in out_idx.iter_mut() {
        let old = *i as usize;
        if remap[old] == u32::MAX {
            remap[old] = kept.len() as u32;
            kept.push(old);
        }
        *i = remap[old];
    }
    let out_pos = kept.iter().map(|&k| out_pos[k]).collect();
    (out_pos, out_idx)
}

/// A convex polygon split along `offset(p) == c`: the part below, the part above.
fn split_convex(poly: &[Vec2], offset: &impl Fn(Vec2) -> f32, c: f32) -> (Vec<Vec2>, Vec<Vec2>) {
    let (mut below, mut above) = (Vec::new(), Vec::new());
    for i in 0..poly.len() {
        let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
        let (ta, tb) = (offset(a) - c, offset(b) - c);
        if ta <= 0.0 {
            below.push(a);
        }
        if ta >= 0.0 {
            above.push(a);
        }
        if (ta < 0.0 && tb > 0.0) || (ta > 0.0 && tb < 0.0) {
            let p = a + (b - a) * (ta / (ta - tb));
            below.push(p);
            above.push(p);
        }
    }
    (below, above)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_between_and_beyond_the_stops() {
        let g = FillGradient::linear(
            Vec2::ZERO,
            Vec2::new(10.0, 0.0),
            &[
                (1.0, Color::BLUE),
                (0.0, Color::RED),
                (f32::NAN, Color::GREEN),
            ],
        );
        assert_eq!(g.stops().len(), 2, "NaN offsets dropped, the rest sorted");
        assert_eq!(g.offset_at(Vec2::new(5.0, 7.0)), 0.5);
        assert_eq!(g.offset_at(Vec2::new(-5.0, 0.0)), 0.0);
        assert_eq!(g.color_at(0.5), Color::rgb(0.5, 0.0, 0.5));
        assert_eq!(g.color_at(2.0), Color::BLUE);
        assert_eq!(g.color_at(f32::NAN), Color::RED);
        let none = FillGradient::linear(Vec2::ZERO, Vec2::ZERO, &[]);
        assert_eq!(none.color_at(0.3), Color::TRANSPARENT);
        assert_eq!(none.offset_at(Vec2::ONE), 0.0, "start and end coincide");
    }

    #[test]
    fn triangles_are_cut_at_every_stop_and_keep_their_area() {
        // A square as two triangles, cut at x = 2.5, 5 and 7.5.
        let pos = [
            Vec2::ZERO,
            Vec2::new(10.0, 0.0),
            Vec2::new(10.0, 10.0),
            Vec2::new(0.0, 10.0),
        ];
        let idx = [0, 1, 2, 0, 2, 3];
        let (p, i) = cut_triangles(&pos, &idx, |v| v.x / 10.0, &[0.25, 0.5, 0.75]);
        let area = crate::graphics::tessellate::triangles_area(&p, &i);
        assert!((area - 100.0).abs() < 1e-3, "{area}");
        // No new triangle spans a cut.
        for t in i.chunks(3) {
            let xs = t.iter().map(|&k| p[k as usize].x / 10.0);
            let (lo, hi) = xs.fold((f32::MAX, f32::MIN), |(a, b), x| (a.min(x), b.max(x)));
            for c in [0.25, 0.5, 0.75] {
                assert!(
                    !(lo < c - 1e-4 && hi > c + 1e-4),
                    "a piece spans {c}: {lo}..{hi}"
                );
            }
        }
        // Every vertex is used: none left over from the cut triangles.
        let mut used = vec![false; p.len()];
        i.iter().for_each(|&k| used[k as usize] = true);
        assert!(used.iter().all(|u| *u));
        // Nothing to cut: the triangles as they were.
        let (p2, i2) = cut_triangles(&pos, &idx, |v| v.x / 10.0, &[0.0, 1.0]);
        assert_eq!((p2.len(), i2), (4, idx.to_vec()));
    }

    #[test]
    fn radial_offsets_are_canvas_offsets_and_the_painted_ones_stay_within_a_third_of_a_step() {
        let stops = [(0.0, Color::WHITE), (1.0, Color::BLACK)];
        // Concentric: (distance - 10) / 30.
        let g = FillGradient::radial(Vec2::ZERO, 10.0, Vec2::ZERO, 40.0, &stops);
        assert_eq!(g.offset_at(Vec2::new(25.0, 0.0)), 0.5);
        assert_eq!(g.offset_at(Vec2::new(0.0, -5.0)), 0.0);
        assert_eq!(g.offset_at(Vec2::new(0.0, 99.0)), 1.0);
        // Focal: the point (0, 0) inside the circle at (10, 0) of radius 20; along +x the circle is 30 away,
        // along -x 10.
        let f = FillGradient::radial(Vec2::ZERO, 0.0, Vec2::new(10.0, 0.0), 20.0, &stops);
        assert!((f.offset_at(Vec2::new(15.0, 0.0)) - 0.5).abs() < 1e-6);
        assert!((f.offset_at(Vec2::new(-5.0, 0.0)) - 0.5).abs() < 1e-6);
        // Painted over a square: each vertex's colour is the exact one within 0.2 % of the range.
        let square = [
            Vec2::splat(-30.0),
            Vec2::new(30.0, -30.0),
            Vec2::splat(30.0),
            Vec2::new(-30.0, 30.0),
        ];
        let (p, i, colors) = f.in_space(TextureSpace::Global).paint(
            &square,
            &[0, 1, 2, 0, 2, 3],
            Vec2::ZERO,
            Vec2::ONE,
            0.01,
        );
        let area = crate::graphics::tessellate::triangles_area(&p, &i);
        assert!((area - 3600.0).abs() < 0.1, "{area}");
        for (v, c) in p.iter().zip(&colors) {
            let exact = f.color_at(f.offset_at(*v));
            assert!((c.r - exact.r).abs() < 2e-3, "{v}: {} vs {}", c.r, exact.r);
        }
        // Inside each triangle too: its centroid's interpolated colour.
        for t in i.chunks(3) {
            let c = t.iter().map(|&k| p[k as usize]).sum::<Vec2>() / 3.0;
            let mean = t.iter().map(|&k| colors[k as usize].r).sum::<f32>() / 3.0;
            assert!((mean - f.color_at(f.offset_at(c)).r).abs() < 2e-3, "{c}");
        }
    }

    #[test]
    fn a_repeating_gradient_gives_a_period_edge_both_end_colours() {
        let g = FillGradient::linear(
            Vec2::ZERO,
            Vec2::new(10.0, 0.0),
            &[(0.0, Color::RED), (1.0, Color::BLUE)],
        )
        .in_space(TextureSpace::Global)
        .repeating();
        assert_eq!(g.offset_at(Vec2::new(12.5, 3.0)), 0.25);
        let quad = [
            Vec2::ZERO,
            Vec2::new(30.0, 0.0),
            Vec2::new(30.0, 1.0),
            Vec2::new(0.0, 1.0),
        ];
        let (p, i, colors) = g.paint(&quad, &[0, 1, 2, 0, 2, 3], Vec2::ZERO, Vec2::ONE, 0.25);
        assert!(i.len() >= 18, "cut at every period's edge");
        // A vertex on a period's edge is there twice, once with each end's colour.
        let at_ten: Vec<Color> = p
            .iter()
            .zip(&colors)
            .filter(|(v, _)| v.x == 10.0)
            .map(|(_, c)| *c)
            .collect();
        assert!(
            at_ten.contains(&Color::RED) && at_ten.contains(&Color::BLUE),
            "{at_ten:?}"
        );
        // Every triangle spans one period.
        for t in i.chunks(3) {
            let xs = t.iter().map(|&k| p[k as usize].x);
            let (lo, hi) = xs.fold((f32::MAX, f32::MIN), |(a, b), x| (a.min(x), b.max(x)));
            assert!(
                (lo / 10.0).floor() == ((hi - 1e-3) / 10.0).floor(),
                "{lo}..{hi}"
            );
        }
        // Every triangle spans one period: its corners' colours all come from it.
        for t in i.chunks(3) {
            let xs = t.iter().map(|&k| p[k as usize].x);
            let (lo, hi) = xs.fold((f32::MAX, f32::MIN), |(a, b), x| (a.min(x), b.max(x)));
            assert!(
                (lo / 10.0).floor() == ((hi - 1e-3) / 10.0).floor(),
                "{lo}..{hi}"
            );
        }
        // Far too many periods: drawn clamped (cut at the two stops alone).
        let tiny = FillGradient::linear(
            Vec2::ZERO,
            Vec2::new(1e-3, 0.0),
            &[(0.0, Color::RED), (1.0, Color::BLUE)],
        )
        .in_space(TextureSpace::Global)
        .repeating();
        let (_, i, _) = tiny.paint(&quad, &[0, 1, 2, 0, 2, 3], Vec2::ZERO, Vec2::ONE, 0.25);
        assert!(i.len() <= 24, "{}", i.len());
    }
}
