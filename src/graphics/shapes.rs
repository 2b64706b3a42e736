//! PixiJS's further shape builders on [`GraphicsContext`]: rounded regular polygons, shapes with rounded corners
//! (by arcs or quadratic curves), fillet and chamfer rectangles. Built from the context's path calls, so they
//! fill, stroke and cut like any path.

use super::context::{vertex_count, GraphicsContext, MAX_POLYGON_VERTICES};
use glam::Vec2;
use std::f32::consts::{FRAC_PI_2, PI, TAU};

/// A corner of [`GraphicsContext::round_shape`]: a point and, optionally, its own radius.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoundedPoint {
    /// Where the corner is.
    pub point: Vec2,
    /// Its radius; `None` uses the shape's.
    pub radius: Option<f32>,
}

impl RoundedPoint {
    /// A corner at `(x, y)` with the shape's radius.
    pub fn new(x: f32, y: f32) -> RoundedPoint {
        RoundedPoint {
            point: Vec2::new(x, y),
            radius: None,
        }
    }

    /// With a radius of its own.
    pub fn with_radius(mut self, radius: f32) -> RoundedPoint {
        self.radius = Some(radius);
        self
    }
}

impl GraphicsContext {
    /// Adds a regular polygon of `sides` with circumradius `radius` whose corners are rounded by `corner` (PixiJS's
    /// `roundPoly`: each corner a quadratic curve through the polygon's vertex, `corner` clamped below half a
    /// side), first vertex at `rotation` (0 points up). A `corner` of 0 or less is [`GraphicsContext::regular_poly`].
    /// `sides` is clamped as `regular_poly` clamps it.
    pub fn round_poly(
        &mut self,
        x: f32,
        y: f32,
        radius: f32,
        sides: u32,
        corner: f32,
        rotation: f32,
    ) -> &mut Self {
        if corner.is_nan() || corner <= 0.0 {
            return self.regular_poly(x, y, radius, sides, rotation);
        }
        let sides = vertex_count("round_poly sides", sides, 3, 3);
        let n = sides as f32;
        let corner = corner.min(radius * (PI / n).sin() - 0.001);
        let start = -FRAC_PI_2 + rotation;
        let delta = TAU / n;
        let internal = (n - 2.0) * PI / n / 2.0;
        for i in 0..sides {
            let angle = i as f32 * delta + start;
            let v = Vec2::new(x + radius * angle.cos(), y + radius * angle.sin());
            let p1 = v + Vec2::from_angle(angle + PI + internal) * corner;
            let p3 = v + Vec2::from_angle(angle - PI - internal) * corner;
            if i == 0 {
                self.move_to(p1.x, p1.y);
            } else {
                self.line_to(p1.x, p1.y);
            }
            self.quadratic_curve_to(v.x, v.y, p3.x, p3.y);
        }
        self.close_path()
    }

    /// Adds a closed shape through `points` with each corner rounded by its radius, or `radius` (PixiJS's
    /// `roundShape`): by circular arcs, or by quadratic curves through the corner with `quadratic`. A radius is
    /// shortened where the sides are too short for it; a corner of radius 0 stays sharp. Fewer than 3 points add
    /// nothing; more than [`MAX_POLYGON_VERTICES`] / 3 are cut there (logged).
    pub fn round_shape(
        &mut self,
        points: &[RoundedPoint],
        radius: f32,
        quadratic: bool,
    ) -> &mut Self {
        let max = (MAX_POLYGON_VERTICES / 3) as usize;
        if points.len() > max {
            log::warn!(
                "round_shape of {} points is more than {max}; drawing {max}",
                points.len()
            );
        }
        let points = &points[..points.len().min(max)];
        if points.len() < 3 {
            return self;
        }
        if quadratic {
            self.rounded_by_curves(points, radius);
        } else {
            self.rounded_by_arcs(points, radius);
        }
        self.close_path()
    }

    fn rounded_by_arcs(&mut self, points: &[RoundedPoint], radius: f32) {
        let n = points.len();
        let mut p1 = points[n - 1].point;
        for i in 0..n {
            let p2 = points[i].point;
            let r = points[i].radius.unwrap_or(radius);
            let p3 = points[(i + 1) % n].point;
            let (d1, d2) = (p1 - p2, p3 - p2);
            let (l1, l2) = (d1.length(), d2.length());
            if r.is_nan() || r <= 0.0 || l1 < 1e-4 || l2 < 1e-4 {
                if i == 0 {
                    self.move_to(p2.x, p2.y);
                } else {
                    self.line_to(p2.x, p2.y);
                }
                p1 = p2;
                continue;
            }
            let (v1, v2) = (d1 / l1, d2 / l2);
            let mut angle = (v1.x * v2.y - v1.y * v2.x).clamp(-1.0, 1.0).asin();
            let mut dir = 1.0;
            let mut anticlockwise = false;
            if v1.x * v2.x - v1.y * -v2.y < 0.0 {
                if angle < 0.0 {
                    angle += PI;
                } else {
                    angle = PI - angle;
                    dir = -1.0;
                    anticlockwise = true;
                }
            } else if angle > 0.0 {
                dir = -1.0;
                anticlockwise = true;
            }
            let half = angle / 2.0;
            let mut out = (half.cos() * r / half.sin()).abs();
            let limit = (l1 / 2.0).min(l2 / 2.0);
            let cr = if out > limit {
                out = limit;
                (out * half.sin() / half.cos()).abs()
            } else {
                r
            };
            let c = p2 + v2 * out + Vec2::new(-v2.y, v2.x) * cr * dir;
            let start = v1.y.atan2(v1.x) + FRAC_PI_2 * dir;
            let end = v2.y.atan2(v2.x) - FRAC_PI_2 * dir;
            if i == 0 {
                let s = c + Vec2::from_angle(start) * cr;
                self.move_to(s.x, s.y);
            }
            self.arc(c.x, c.y, cr, start, end, anticlockwise);
            p1 = p2;
        }
    }

    fn rounded_by_curves(&mut self, points: &[RoundedPoint], radius: f32) {
        let n = points.len();
        for i in 0..n {
            let this = points[(i + 1) % n];
            let r = this.radius.unwrap_or(radius);
            let p = this.point;
            if r.is_nan() || r <= 0.0 {
                if i == 0 {
                    self.move_to(p.x, p.y);
                } else {
                    self.line_to(p.x, p.y);
                }
                continue;
            }
            let toward = |q: Vec2| {
                let len = p.distance(q);
                if len < 1e-4 {
                    p
                } else {
                    p.lerp(q, (len / 2.0).min(r) / len)
                }
            };
            let (start, end) = (toward(points[i].point), toward(points[(i + 2) % n].point));
            if i == 0 {
                self.move_to(start.x, start.y);
            } else {
                self.line_to(start.x, start.y);
            }
            self.quadratic_curve_to(p.x, p.y, end.x, end.y);
        }
    }

    /// Adds a rectangle whose corners are rounded by `fillet`, or, for a negative `fillet`, cut into by quarter
    /// circles (PixiJS's `filletRect`); clamped to half the shorter side. A `fillet` of 0 is a plain rectangle.
    pub fn fillet_rect(
        &mut self,
        x: f32,
        y: f32,
        width: f32,
        height: f32,
        fillet: f32,
    ) -> &mut Self {
        if fillet == 0.0 || fillet.is_nan() {
            return self.rect(x, y, width, height);
        }
        let max = width.min(height) / 2.0;
        let inset = fillet.max(-max).min(max);
        let (right, bottom) = (x + width, y + height);
        let dir = if inset < 0.0 { -inset } else { 0.0 };
        let size = inset.abs();
        self.move_to(x, y + size)
            .arc_to(x + dir, y + dir, x + size, y, size)
            .line_to(right - size, y)
            .arc_to(right - dir, y + dir, right, y + size, size)
            .line_to(right, bottom - size)
            .arc_to(right - dir, bottom - dir, right - size, bottom, size)
            .line_to(x + size, bottom)
            .arc_to(x + dir, bottom - dir, x, bottom - size, size)
            .close_path()
    }

    /// Adds a rectangle with its corners cut off at 45 degrees by `chamfer` (PixiJS's `chamferRect`), clamped to
    /// half the shorter side. A `chamfer` of 0 or less is a plain rectangle.
    pub fn chamfer_rect(
        &mut self,
        x: f32,
        y: f32,
        width: f32,
        height: f32,
        chamfer: f32,
    ) -> &mut Self {
        if chamfer.is_nan() || chamfer <= 0.0 {
            return self.rect(x, y, width, height);
        }
        let inset = chamfer.min(width.min(height) / 2.0);
        let (right, bottom) = (x + width, y + height);
        let mut points = vec![
            Vec2::new(x + inset, y),
            Vec2::new(right - inset, y),
            Vec2::new(right, y + inset),
            Vec2::new(right, bottom - inset),
            Vec2::new(right - inset, bottom),
            Vec2::new(x + inset, bottom),
            Vec2::new(x, bottom - inset),
            Vec2::new(x, y + inset),
        ];
        // Where the cut takes a whole side, its two points meet: keep one.
        points.dedup();
        self.poly(&points)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graphics::tessellate::{tessellate, triangles_area};

    /// The area a context's fills cover, from its triangles.
    fn area(g: &GraphicsContext) -> f32 {
        let (mesh, _) = tessellate(g, 0.002);
        triangles_area(&mesh.positions, &mesh.indices)
    }

    #[test]
    fn fillet_and_chamfer_rects_take_the_area_their_corners_say() {
        let mut g = GraphicsContext::new();
        g.fillet_rect(0.0, 0.0, 40.0, 20.0, 5.0)
            .fill(crate::Color::RED);
        // Four quarter circles of radius 5 rounded off: 800 - (4 - pi) * 25.
        let want = 800.0 - (4.0 - PI) * 25.0;
        assert!((area(&g) - want).abs() < 0.5, "{} against {want}", area(&g));
        // Negative: four quarter circles cut in.
        let mut g = GraphicsContext::new();
        g.fillet_rect(0.0, 0.0, 40.0, 20.0, -5.0)
            .fill(crate::Color::RED);
        let want = 800.0 - PI * 25.0;
        assert!((area(&g) - want).abs() < 0.5, "{} against {want}", area(&g));
        // Chamfer: four right triangles of legs 5.
        let mut g = GraphicsContext::new();
        g.chamfer_rect(0.0, 0.0, 40.0, 20.0, 5.0)
            .fill(crate::Color::RED);
        assert!((area(&g) - (800.0 - 50.0)).abs() < 1e-3);
        // Clamped: a chamfer of half the height makes the short sides points (six corners, not eight).
        let mut g = GraphicsContext::new();
        g.chamfer_rect(0.0, 0.0, 40.0, 20.0, 50.0)
            .fill(crate::Color::RED);
        assert!((area(&g) - (800.0 - 200.0)).abs() < 1e-3);
        // Zero and NaN are rectangles.
        for f in [0.0, f32::NAN] {
            let mut g = GraphicsContext::new();
            g.fillet_rect(0.0, 0.0, 40.0, 20.0, f)
                .fill(crate::Color::RED);
            assert!((area(&g) - 800.0).abs() < 1e-3);
            let mut g = GraphicsContext::new();
            g.chamfer_rect(0.0, 0.0, 40.0, 20.0, f)
                .fill(crate::Color::RED);
            assert!((area(&g) - 800.0).abs() < 1e-3);
        }
    }

    #[test]
    fn rounded_shapes_lose_their_corners() {
        // A square of side 20 rounded by 5: 400 - (4 - pi) * 25, by arcs; by quadratic curves a little less is cut
        // (a quadratic corner bulges further out than the arc).
        let square = [(0.0, 0.0), (20.0, 0.0), (20.0, 20.0), (0.0, 20.0)]
            .map(|(x, y)| RoundedPoint::new(x, y));
        let mut g = GraphicsContext::new();
        g.round_shape(&square, 5.0, false).fill(crate::Color::RED);
        let arcs = area(&g);
        assert!((arcs - (400.0 - (4.0 - PI) * 25.0)).abs() < 0.5, "{arcs}");
        let mut g = GraphicsContext::new();
        g.round_shape(&square, 5.0, true).fill(crate::Color::RED);
        let curves = area(&g);
        assert!(curves > arcs && curves < 400.0, "{curves} {arcs}");
        // The same, wound the other way.
        let mut rev = square;
        rev.reverse();
        let mut g = GraphicsContext::new();
        g.round_shape(&rev, 5.0, false).fill(crate::Color::RED);
        assert!((area(&g) - arcs).abs() < 0.5);
        // A corner's own radius of 0 keeps it sharp; a radius larger than the sides allow is shortened.
        let mut one_sharp = square;
        one_sharp[0] = one_sharp[0].with_radius(0.0);
        let mut g = GraphicsContext::new();
        g.round_shape(&one_sharp, 5.0, false)
            .fill(crate::Color::RED);
        assert!((area(&g) - (400.0 - 3.0 * (4.0 - PI) * 25.0 / 4.0)).abs() < 0.5);
        let mut g = GraphicsContext::new();
        g.round_shape(&square, 1e6, false).fill(crate::Color::RED);
        assert!(
            (area(&g) - PI * 100.0).abs() < 1.0,
            "a circle: {}",
            area(&g)
        );
        // Too few points draw nothing; NaN points draw nothing finite.
        let mut g = GraphicsContext::new();
        g.round_shape(&square[..2], 5.0, false)
            .fill(crate::Color::RED);
        assert_eq!(area(&g), 0.0);
        let mut g = GraphicsContext::new();
        g.round_shape(&[RoundedPoint::new(f32::NAN, 0.0); 4], f32::NAN, true)
            .fill(crate::Color::RED);
        assert!(area(&g).is_finite());
    }

    #[test]
    fn round_polys_stay_inside_their_polygon() {
        let mut sharp = GraphicsContext::new();
        sharp
            .regular_poly(0.0, 0.0, 20.0, 5, 0.0)
            .fill(crate::Color::RED);
        let mut round = GraphicsContext::new();
        round
            .round_poly(0.0, 0.0, 20.0, 5, 4.0, 0.0)
            .fill(crate::Color::RED);
        let (a, b) = (area(&sharp), area(&round));
        assert!(b < a && b > a * 0.9, "{b} of {a}");
        // A corner of 0 is the sharp polygon; a huge one is clamped below half a side.
        let mut zero = GraphicsContext::new();
        zero.round_poly(0.0, 0.0, 20.0, 5, 0.0, 0.0)
            .fill(crate::Color::RED);
        assert!((area(&zero) - a).abs() < 1e-3);
        let mut huge = GraphicsContext::new();
        huge.round_poly(0.0, 0.0, 20.0, 5, 1e9, 0.0)
            .fill(crate::Color::RED);
        assert!(area(&huge) > 0.5 * a && area(&huge) < a);
    }
}
