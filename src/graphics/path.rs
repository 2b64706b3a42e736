//! Shape paths with Canvas semantics, flattened to polylines at a given tolerance.
//!
//! Curves and arcs are flattened here (with lyon's geometry), so everything downstream (NaN filtering, stroke
//! alignment, bounds, texture mapping, triangulation) works on plain polylines. Non-finite coordinates drop the
//! subpath that holds them; the rest of the path is kept.

use glam::Vec2;
use lyon::geom::{point, vector, Angle, Arc, CubicBezierSegment, QuadraticBezierSegment};

/// One recorded path command (local pixels).
#[derive(Clone, Debug, PartialEq)]
pub enum PathCommand {
    /// Start a new subpath.
    MoveTo(Vec2),
    /// Straight line.
    LineTo(Vec2),
    /// Quadratic Bézier curve (control, end).
    QuadTo(Vec2, Vec2),
    /// Cubic Bézier curve (control 1, control 2, end).
    CubicTo(Vec2, Vec2, Vec2),
    /// Circular or elliptical arc: centre, radii, start angle, sweep (radians, positive clockwise on screen),
    /// flattened through `matrix` (the context's transform when it was recorded).
    Arc {
        /// Centre.
        center: Vec2,
        /// Radii.
        radii: Vec2,
        /// Start angle in radians.
        start: f32,
        /// Sweep in radians.
        sweep: f32,
        /// Applied to the flattened arc.
        matrix: glam::Affine2,
    },
    /// Close the current subpath.
    Close,
}

/// A flattened subpath.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Polyline {
    /// Points, without a repeated closing point.
    pub points: Vec<Vec2>,
    /// Whether the last point connects back to the first.
    pub closed: bool,
}

/// A path: a list of subpaths built with Canvas-style commands.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShapePath {
    commands: Vec<PathCommand>,
}

impl ShapePath {
    /// An empty path.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether the path has no commands.
    pub fn is_empty(&self) -> bool {
        self.commands.is_empty()
    }

    /// The recorded commands.
    pub fn commands(&self) -> &[PathCommand] {
        &self.commands
    }

    /// Appends a command.
    pub fn push(&mut self, c: PathCommand) {
        self.commands.push(c);
    }

    /// Appends every command of `other`.
    pub fn extend(&mut self, other: &ShapePath) {
        self.commands.extend_from_slice(&other.commands);
    }

    /// Flattens to polylines so that no point of a curve is further than `tolerance` from the polyline.
    /// Subpaths with non-finite coordinates are dropped and counted in the second value.
    #[cfg(test)]
    pub fn flatten(&self, tolerance: f32) -> (Vec<Polyline>, usize) {
        match self.flatten_within(tolerance, usize::MAX) {
            Ok(r) => r,
            Err(_) => unreachable!("no point budget"),
        }
    }

    /// [`ShapePath::flatten`], giving up with `Err(points so far)` once the polylines hold more than
    /// `max_points` points, so a path far over a complexity cap costs no more than the cap.
    ///
    /// Any positive finite tolerance is honoured, however small: curves and arcs are flattened in `f64` (so a
    /// circle of radius 1e7 at a quarter-pixel tolerance stays a circle), each to at most
    /// [`MAX_CURVE_SEGMENTS`] segments (beyond that the tolerance is loosened for that curve). A tolerance that
    /// is zero, negative or not finite means 0.25.
    pub fn flatten_within(
        &self,
        tolerance: f32,
        max_points: usize,
    ) -> Result<(Vec<Polyline>, usize), usize> {
        let tol = if tolerance.is_finite() && tolerance > 0.0 {
            f64::from(tolerance)
        } else {
            0.25
        };
        let mut out = Vec::new();
        let mut dropped = 0;
        let mut total = 0usize;
        let mut cur = Polyline::default();
        let mut bad = false;
        let mut finish =
            |cur: &mut Polyline, bad: &mut bool, out: &mut Vec<Polyline>, closed: bool| {
                let mut p = std::mem::take(cur);
                p.closed = closed;
                if *bad {
                    dropped += 1;
                } else {
                    p.points.dedup_by(|a, b| a.distance_squared(*b) < 1e-12);
                    if p.closed
                        && p.points.len() > 1
                        && p.points[0].distance_squared(*p.points.last().unwrap()) < 1e-12
                    {
                        p.points.pop();
                    }
                    if !p.points.is_empty() {
                        out.push(p);
                    }
                }
                *bad = false;
            };
        let fin = |v: Vec2| v.is_finite();
        for c in &self.commands {
            match *c {
                PathCommand::MoveTo(p) => {
                    total += cur.points.len();
                    finish(&mut cur, &mut bad, &mut out, false);
                    bad |= !fin(p);
                    cur.points.push(p);
                }
                PathCommand::LineTo(p) => {
                    bad |= !fin(p);
                    cur.points.push(p);
                }
                PathCommand::QuadTo(c1, to) => {
                    bad |= !fin(c1) || !fin(to);
                    curve_to(&mut cur.points, to, !bad, |from, pts| {
                        let seg = QuadraticBezierSegment {
                            from: point64(from),
                            ctrl: point64(c1),
                            to: point64(to),
                        };
                        // Wang's bound, as lyon uses it: n^2 = |2 (p0 - 2 p1 + p2)| / (8 tol).
                        let k = (seg.from - seg.ctrl * 2.0 + seg.to.to_vector()).length() / 4.0;
                        let tol = curve_tolerance(tol, k);
                        seg.for_each_flattened(tol, &mut |l| pts.push(vec2_of(l.to)));
                    });
                }
                PathCommand::CubicTo(c1, c2, to) => {
                    bad |= !fin(c1) || !fin(c2) || !fin(to);
                    curve_to(&mut cur.points, to, !bad, |from, pts| {
                        let seg = CubicBezierSegment {
                            from: point64(from),
                            ctrl1: point64(c1),
                            ctrl2: point64(c2),
                            to: point64(to),
                        };
                        // Wang's bound: n^2 = 6 max |second differences| / (8 tol).
                        let d1 = (seg.from - seg.ctrl1 * 2.0 + seg.ctrl2.to_vector()).length();
                        let d2 = (seg.ctrl1 - seg.ctrl2 * 2.0 + seg.to.to_vector()).length();
                        let tol = curve_tolerance(tol, 0.75 * d1.max(d2));
                        seg.for_each_flattened(tol, &mut |l| pts.push(vec2_of(l.to)));
                    });
                }
                PathCommand::Arc {
                    center,
                    radii,
                    start,
                    sweep,
                    matrix,
                } => {
                    bad |= !fin(center)
                        || !fin(radii)
                        || !start.is_finite()
                        || !sweep.is_finite()
                        || !matrix.is_finite();
                    if bad {
                        continue;
                    }
                    let radii = vector(f64::from(radii.x.abs()), f64::from(radii.y.abs()));
                    let sweep =
                        f64::from(sweep).clamp(-std::f64::consts::TAU, std::f64::consts::TAU);
                    let arc = Arc {
                        center: point64(center),
                        radii,
                        start_angle: Angle::radians(f64::from(start)),
                        sweep_angle: Angle::radians(sweep),
                        x_rotation: Angle::radians(0.0),
                    };
                    // Flattened in its own space, finer by the most the matrix stretches it (its largest
                    // singular value: 1 for no transform), then moved through the matrix.
                    let m = glam::DAffine2::from_cols(
                        matrix.matrix2.x_axis.as_dvec2(),
                        matrix.matrix2.y_axis.as_dvec2(),
                        matrix.translation.as_dvec2(),
                    );
                    let frob =
                        m.matrix2.x_axis.length_squared() + m.matrix2.y_axis.length_squared();
                    let det = m.matrix2.determinant();
                    let stretch = ((frob + (frob * frob - 4.0 * det * det).max(0.0).sqrt()) / 2.0)
                        .sqrt()
                        .max(1e-12);
                    let to = |p: lyon::geom::Point<f64>| {
                        let q = m.transform_point2(glam::DVec2::new(p.x, p.y));
                        Vec2::new(q.x as f32, q.y as f32)
                    };
                    cur.points.push(to(arc.from()));
                    let tol = arc_tolerance(tol / stretch, radii.x.max(radii.y), sweep.abs());
                    arc.for_each_flattened(tol, &mut |l| cur.points.push(to(l.to)));
                }
                PathCommand::Close => {
                    let start = cur.points.first().copied();
                    total += cur.points.len();
                    finish(&mut cur, &mut bad, &mut out, true);
                    // Canvas: after closePath the pen is back at the subpath's start.
                    if let Some(s) = start {
                        cur.points.push(s);
                        cur.closed = false;
                    }
                }
            }
            if total.saturating_add(cur.points.len()) > max_points {
                return Err(total + cur.points.len());
            }
        }
        finish(&mut cur, &mut bad, &mut out, false);
        // A pen position left over after a close is not a subpath; flattening huge coordinates can overflow.
        out.retain(|p| p.points.len() > 1 || p.closed);
        let before = out.len();
        out.retain(|p| p.points.iter().all(|v| v.is_finite()));
        let overflowed = before - out.len();
        Ok((out, dropped + overflowed))
    }
}

/// Most segments one curve or arc is flattened to (as many as [`crate::MAX_POLYGON_VERTICES`]).
pub const MAX_CURVE_SEGMENTS: u32 = 1 << 16;

fn point64(v: Vec2) -> lyon::geom::Point<f64> {
    point(f64::from(v.x), f64::from(v.y))
}

fn vec2_of(p: lyon::geom::Point<f64>) -> Vec2 {
    Vec2::new(p.x as f32, p.y as f32)
}

/// The tolerance for a Bézier curve whose Wang bound is `n^2 = k / tol`: `tol`, loosened so that `n` stays
/// within [`MAX_CURVE_SEGMENTS`] (and above what lyon's `f64` flattening accepts).
fn curve_tolerance(tol: f64, k: f64) -> f64 {
    let max = f64::from(MAX_CURVE_SEGMENTS);
    tol.max(k / (max * max)).max(1e-30)
}

/// The tolerance for an arc of largest radius `r` sweeping `sweep` radians: `tol`, loosened so that the arc
/// gets at most [`MAX_CURVE_SEGMENTS`] segments of angle `2 acos(1 - tol / r)` each.
fn arc_tolerance(tol: f64, r: f64, sweep: f64) -> f64 {
    let min_step = sweep / f64::from(MAX_CURVE_SEGMENTS);
    tol.max(r * (1.0 - (min_step / 2.0).cos())).max(1e-30)
}

/// Appends a curve from the pen to `to`: flattened by `flatten` when there is a pen position and the curve is
/// finite, else just its end point (a curve without a start begins a subpath, as in Canvas).
fn curve_to(
    points: &mut Vec<Vec2>,
    to: Vec2,
    ok: bool,
    flatten: impl FnOnce(Vec2, &mut Vec<Vec2>),
) {
    match points.last().copied() {
        Some(from) if ok => flatten(from, points),
        _ => points.push(to),
    }
}

/// Twice the signed area of a closed polyline (positive when clockwise on screen, y down).
pub fn signed_area2(points: &[Vec2]) -> f32 {
    let n = points.len();
    (0..n)
        .map(|i| points[i].perp_dot(points[(i + 1) % n]))
        .sum()
}

/// Offsets a polyline sideways by `d` (positive: to the left of the direction of travel in a y-down frame, which
/// is outward for a clockwise closed polyline). Corners are mitred, capped at 4x `d`.
pub fn offset(line: &Polyline, d: f32) -> Polyline {
    let pts = &line.points;
    let n = pts.len();
    if n < 2 || d == 0.0 {
        return line.clone();
    }
    let normal = |a: Vec2, b: Vec2| {
        let t = (b - a).normalize_or_zero();
        Vec2::new(t.y, -t.x)
    };
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let prev = if i > 0 {
            Some(pts[i - 1])
        } else if line.closed {
            Some(pts[n - 1])
        } else {
            None
        };
        let next = if i + 1 < n {
            Some(pts[i + 1])
        } else if line.closed {
            Some(pts[0])
        } else {
            None
        };
        let p = pts[i];
        let n_in = prev.map(|a| normal(a, p));
        let n_out = next.map(|b| normal(p, b));
        let m = match (n_in, n_out) {
            (Some(a), Some(b)) => {
                let sum = (a + b).normalize_or_zero();
                let cos = sum.dot(b).max(0.25);
                if sum == Vec2::ZERO {
                    b
                } else {
                    sum / cos
                }
            }
            (Some(a), None) => a,
            (None, Some(b)) => b,
            (None, None) => Vec2::ZERO,
        };
        out.push(p + m * d);
    }
    Polyline {
        points: out,
        closed: line.closed,
    }
}

/// The most work a fill may take, in units of lyon's sweep (segments met at each event, and again at each crossing): about a second of lyon on the development
/// machine (a random self-crossing polygon of 1,000 segments, filled in 0.6 s, measures about 4.3e7; one of 1,400
/// passes the limit). A fill over it is skipped with a warning (and is
/// [`FillTooComplex`](crate::Error::FillTooComplex) from
/// [`GraphicsContext::check_complexity`](crate::GraphicsContext::check_complexity)) instead of keeping the worker
/// thread busy for minutes or hours.
pub const MAX_FILL_WORK: u64 = 64_000_000;

/// An estimate of lyon's work to fill `lines` and `holes` (closed polylines), up to `max`: a sweep in y like
/// lyon's, counting for each segment the segments it meets in the sweep (lyon's per-event cost) and, for each
/// crossing, that many again (each crossing is an event of its own and splits edges). Returns `None` once the
/// count passes `max`, having done at most about `max` steps itself.
pub fn fill_work(lines: &[Polyline], holes: &[Polyline], max: u64) -> Option<u64> {
    let mut segs: Vec<(Vec2, Vec2)> = Vec::new();
    for l in lines.iter().chain(holes) {
        let n = l.points.len();
        for i in 0..n {
            let (a, b) = (l.points[i], l.points[(i + 1) % n]);
            // Top to bottom, as the sweep meets them.
            segs.push(if (a.y, a.x) <= (b.y, b.x) {
                (a, b)
            } else {
                (b, a)
            });
        }
    }
    segs.sort_unstable_by(|s, t| s.0.y.total_cmp(&t.0.y));
    let mut active: Vec<(Vec2, Vec2)> = Vec::new();
    let mut work = segs.len() as u64;
    for &(a, b) in &segs {
        active.retain(|&(_, d)| d.y >= a.y);
        work += active.len() as u64;
        let (lo, hi) = (a.x.min(b.x), a.x.max(b.x));
        for &(c, d) in &active {
            if c.x.max(d.x) >= lo && c.x.min(d.x) <= hi && crosses(a, b, c, d) {
                work += active.len() as u64;
            }
        }
        if work > max {
            return None;
        }
        active.push((a, b));
    }
    Some(work)
}

/// Whether segments `ab` and `cd` cross at a point inside both (touching ends do not count).
fn crosses(a: Vec2, b: Vec2, c: Vec2, d: Vec2) -> bool {
    let side = |p: Vec2, q: Vec2, r: Vec2| (q - p).perp_dot(r - p);
    let (d1, d2) = (side(a, b, c), side(a, b, d));
    let (d3, d4) = (side(c, d, a), side(c, d, b));
    d1 * d2 < 0.0 && d3 * d4 < 0.0
}

#[cfg(test)]
mod tests {
    /// `n` points spread at random over a 1000-pixel square: a polygon that crosses itself about n^2 / 10 times.
    fn random_polygon(n: usize, seed: u64) -> Polyline {
        let mut x = seed;
        let mut next = move || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 40) as f32 / (1u64 << 24) as f32 * 1000.0
        };
        Polyline {
            points: (0..n).map(|_| Vec2::new(next(), next())).collect(),
            closed: true,
        }
    }

    #[test]
    fn fill_work_follows_crossings_and_stops_at_its_limit() {
        let work = |l: &Polyline| fill_work(std::slice::from_ref(l), &[], MAX_FILL_WORK);
        // Measured against lyon on the development machine: 1,000 random segments fill in 0.6 s, 2,000 in 4.4 s.
        let w1000 = work(&random_polygon(1000, 7)).expect("within the limit");
        assert!(w1000 > 10_000_000, "{w1000}");
        assert_eq!(work(&random_polygon(2000, 7)), None);
        assert_eq!(work(&random_polygon(1 << 18, 7)), None);
        // A 65,536-gon (convex) and a long random walk (few crossings) stay cheap.
        let circle = Polyline {
            points: (0..65_536)
                .map(|i| {
                    let a = i as f32 / 65_536.0 * std::f32::consts::TAU;
                    Vec2::new(a.cos(), a.sin()) * 5000.0
                })
                .collect(),
            closed: true,
        };
        assert!(work(&circle).unwrap() < 1_000_000);
        let mut walk = random_polygon(10_000, 3);
        let mut p = Vec2::ZERO;
        for q in walk.points.iter_mut() {
            p += (*q - Vec2::splat(500.0)) * 0.04;
            *q = p;
        }
        assert!(work(&walk).is_some());
    }

    use super::*;

    #[test]
    fn canvas_semantics_subpaths_and_close() {
        let mut p = ShapePath::new();
        p.push(PathCommand::MoveTo(Vec2::new(0.0, 0.0)));
        p.push(PathCommand::LineTo(Vec2::new(10.0, 0.0)));
        p.push(PathCommand::LineTo(Vec2::new(10.0, 10.0)));
        p.push(PathCommand::Close);
        p.push(PathCommand::MoveTo(Vec2::new(20.0, 0.0)));
        p.push(PathCommand::LineTo(Vec2::new(30.0, 0.0)));
        let (lines, dropped) = p.flatten(0.25);
        assert_eq!(dropped, 0);
        assert_eq!(lines.len(), 2);
        assert!(lines[0].closed && lines[0].points.len() == 3);
        assert!(!lines[1].closed && lines[1].points.len() == 2);
    }

    #[test]
    fn curves_flatten_within_tolerance_and_finer_tolerance_gives_more_points() {
        let mut p = ShapePath::new();
        p.push(PathCommand::Arc {
            center: Vec2::ZERO,
            radii: Vec2::splat(100.0),
            start: 0.0,
            sweep: std::f32::consts::TAU,
            matrix: glam::Affine2::IDENTITY,
        });
        let (coarse, _) = p.flatten(1.0);
        let (fine, _) = p.flatten(0.05);
        assert!(fine[0].points.len() > 2 * coarse[0].points.len());
        for pt in &fine[0].points {
            assert!((pt.length() - 100.0).abs() < 0.06);
        }
        // Midpoints of segments stay within the tolerance of the circle.
        let pts = &coarse[0].points;
        for w in pts.windows(2) {
            let mid = (w[0] + w[1]) * 0.5;
            assert!(100.0 - mid.length() <= 1.0 + 1e-3);
        }
    }

    #[test]
    fn non_finite_subpaths_are_dropped_and_counted() {
        let mut p = ShapePath::new();
        p.push(PathCommand::MoveTo(Vec2::new(0.0, 0.0)));
        p.push(PathCommand::LineTo(Vec2::new(f32::NAN, 0.0)));
        p.push(PathCommand::LineTo(Vec2::new(1.0, 1.0)));
        p.push(PathCommand::MoveTo(Vec2::new(0.0, 0.0)));
        p.push(PathCommand::QuadTo(
            Vec2::new(5.0, f32::INFINITY),
            Vec2::new(9.0, 0.0),
        ));
        p.push(PathCommand::MoveTo(Vec2::new(0.0, 0.0)));
        p.push(PathCommand::LineTo(Vec2::new(1.0, 0.0)));
        let (lines, dropped) = p.flatten(0.25);
        assert_eq!(dropped, 2);
        assert_eq!(lines.len(), 1);
    }

    #[test]
    fn offset_moves_a_clockwise_square_outwards() {
        let sq = Polyline {
            points: vec![
                Vec2::new(0.0, 0.0),
                Vec2::new(10.0, 0.0),
                Vec2::new(10.0, 10.0),
                Vec2::new(0.0, 10.0),
            ],
            closed: true,
        };
        assert!(
            signed_area2(&sq.points) > 0.0,
            "clockwise on screen is positive"
        );
        let out = offset(&sq, 2.0);
        assert!(
            (out.points[0] - Vec2::new(-2.0, -2.0)).length() < 1e-4,
            "{:?}",
            out.points[0]
        );
        assert!((out.points[2] - Vec2::new(12.0, 12.0)).length() < 1e-4);
        let inner = offset(&sq, -2.0);
        assert!((inner.points[0] - Vec2::new(2.0, 2.0)).length() < 1e-4);
    }
}
