//! SVG path data (`"M 10 10 L 20 20 Q ... Z"`, the `d` attribute) into a [`GraphicsContext`]'s path, as PixiJS's
//! `GraphicsPath` takes it: every command of SVG 1.1 in absolute and relative form, implicit repeats, smooth
//! curves reflecting the last control point, and elliptical arcs converted from SVG's endpoint form.

use super::context::GraphicsContext;
use crate::{Error, Result};
use glam::Vec2;
use std::f32::consts::TAU;

/// Most commands one path string may hold (a longer one is [`Error::InvalidSvgPath`]).
pub const MAX_SVG_PATH_COMMANDS: usize = 1 << 20;

impl GraphicsContext {
    /// Adds the path of SVG path data `d` (the `d` attribute of an SVG `<path>`, PixiJS's
    /// `new GraphicsPath("M 0 0 L 10 10 Z")`): `M L H V C S Q T A Z` in absolute and relative (lower-case) form,
    /// with implicit repeats. Fill or stroke it as any path. Malformed data (an unknown command, a missing or
    /// malformed number, a flag that is not 0 or 1, more than [`MAX_SVG_PATH_COMMANDS`] commands) is
    /// [`Error::InvalidSvgPath`] naming the byte where it stops; nothing is added then.
    ///
    /// ```
    /// # use stage2d::{Color, GraphicsContext};
    /// let mut g = GraphicsContext::new();
    /// g.svg_path("M10 10 h80 v80 h-80 Z M30 30 a20 20 0 1 0 40 0 a20 20 0 1 0 -40 0")?
    ///     .fill(Color::hex(0x3498db));
    /// # Ok::<(), stage2d::Error>(())
    /// ```
    pub fn svg_path(&mut self, d: &str) -> Result<&mut Self> {
        let commands = parse(d)?;
        let mut ops = Ops::default();
        for (cmd, args) in &commands {
            ops.apply(*cmd, args);
        }
        for op in ops.out {
            match op {
                Op::Move(p) => self.move_to(p.x, p.y),
                Op::Line(p) => self.line_to(p.x, p.y),
                Op::Quad(c, p) => self.quadratic_curve_to(c.x, c.y, p.x, p.y),
                Op::Cubic(a, b, p) => self.bezier_curve_to(a.x, a.y, b.x, b.y, p.x, p.y),
                Op::Arc {
                    center,
                    radii,
                    rotation,
                    start,
                    sweep,
                } => self.ellipse_arc(center, radii, rotation, start, sweep),
                Op::Close => self.close_path(),
            };
        }
        Ok(self)
    }
}

/// How many numbers each command takes.
pub(super) fn arity(c: u8) -> Option<usize> {
    Some(match c.to_ascii_uppercase() {
        b'M' | b'L' | b'T' => 2,
        b'H' | b'V' => 1,
        b'C' => 6,
        b'S' | b'Q' => 4,
        b'A' => 7,
        b'Z' => 0,
        _ => return None,
    })
}

/// The commands of `d`, each with its numbers (implicit repeats split into commands of their own; a repeat of
/// `M` is an `L`).
fn parse(d: &str) -> Result<Vec<(u8, Vec<f32>)>> {
    let b = d.as_bytes();
    let mut i = 0;
    let mut out: Vec<(u8, Vec<f32>)> = Vec::new();
    let err = |at: usize, what: &str| Error::InvalidSvgPath(format!("{what} at byte {at}"));
    let skip = |i: &mut usize| {
        while *i < b.len() && (b[*i].is_ascii_whitespace() || b[*i] == b',') {
            *i += 1;
        }
    };
    skip(&mut i);
    let mut current: Option<u8> = None;
    while i < b.len() {
        if out.len() >= MAX_SVG_PATH_COMMANDS {
            return Err(err(i, "more than MAX_SVG_PATH_COMMANDS commands"));
        }
        let c = b[i];
        let cmd_at = i;
        let cmd = if c.is_ascii_alphabetic() {
            if arity(c).is_none() {
                return Err(err(i, &format!("unknown command {:?}", c as char)));
            }
            i += 1;
            c
        } else {
            // A repeat of the last command's numbers.
            match current {
                Some(b'M') => b'L',
                Some(b'm') => b'l',
                Some(z) if z.eq_ignore_ascii_case(&b'Z') => return Err(err(i, "a number after Z")),
                Some(c) => c,
                None => return Err(err(i, "a path must start with M")),
            }
        };
        if out.is_empty() && !cmd.eq_ignore_ascii_case(&b'M') {
            return Err(err(cmd_at, "a path must start with M"));
        }
        let n = arity(cmd).unwrap_or(0);
        let mut args = Vec::with_capacity(n);
        for k in 0..n {
            skip(&mut i);
            let flag = cmd.eq_ignore_ascii_case(&b'A') && (k == 3 || k == 4);
            let (v, len) = if flag {
                match b.get(i) {
                    Some(b'0') => (0.0, 1),
                    Some(b'1') => (1.0, 1),
                    _ => return Err(err(i, "an arc flag must be 0 or 1")),
                }
            } else {
                number(&b[i..]).ok_or_else(|| err(i, "a number expected"))?
            };
            args.push(v);
            i += len;
        }
        out.push((cmd, args));
        current = Some(cmd);
        skip(&mut i);
    }
    Ok(out)
}

/// A number at the start of `b` (SVG's grammar: sign, digits, a point, digits, an exponent) and its length.
pub(super) fn number(b: &[u8]) -> Option<(f32, usize)> {
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let s = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > s
    };
    let int = digits(&mut i);
    let mut frac = false;
    if b.get(i) == Some(&b'.') {
        i += 1;
        frac = digits(&mut i);
    }
    if !int && !frac {
        return None;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let s = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > s {
            i = j;
        }
    }
    let v: f32 = std::str::from_utf8(&b[..i]).ok()?.parse().ok()?;
    Some((v, i))
}

/// A path operation in absolute coordinates.
#[derive(Debug, PartialEq)]
enum Op {
    Move(Vec2),
    Line(Vec2),
    Quad(Vec2, Vec2),
    Cubic(Vec2, Vec2, Vec2),
    Arc {
        center: Vec2,
        radii: Vec2,
        rotation: f32,
        start: f32,
        sweep: f32,
    },
    Close,
}

/// The pen and the last control points, as SVG's smooth curves need them.
#[derive(Default)]
struct Ops {
    pen: Vec2,
    start: Vec2,
    last_cubic: Option<Vec2>,
    last_quad: Option<Vec2>,
    out: Vec<Op>,
}

impl Ops {
    fn apply(&mut self, cmd: u8, a: &[f32]) {
        let rel = cmd.is_ascii_lowercase();
        let at = |pen: Vec2, x: f32, y: f32| {
            if rel {
                pen + Vec2::new(x, y)
            } else {
                Vec2::new(x, y)
            }
        };
        let (mut cubic, mut quad) = (None, None);
        match cmd.to_ascii_uppercase() {
            b'M' => {
                self.pen = at(self.pen, a[0], a[1]);
                self.start = self.pen;
                self.out.push(Op::Move(self.pen));
            }
            b'L' => {
                self.pen = at(self.pen, a[0], a[1]);
                self.out.push(Op::Line(self.pen));
            }
            b'H' => {
                self.pen.x = if rel { self.pen.x + a[0] } else { a[0] };
                self.out.push(Op::Line(self.pen));
            }
            b'V' => {
                self.pen.y = if rel { self.pen.y + a[0] } else { a[0] };
                self.out.push(Op::Line(self.pen));
            }
            b'C' | b'S' => {
                let (c1, c2, p) = if cmd.eq_ignore_ascii_case(&b'C') {
                    (
                        at(self.pen, a[0], a[1]),
                        at(self.pen, a[2], a[3]),
                        at(self.pen, a[4], a[5]),
                    )
                } else {
                    let c1 = self.last_cubic.map_or(self.pen, |c| 2.0 * self.pen - c);
                    (c1, at(self.pen, a[0], a[1]), at(self.pen, a[2], a[3]))
                };
                self.out.push(Op::Cubic(c1, c2, p));
                cubic = Some(c2);
                self.pen = p;
            }
            b'Q' | b'T' => {
                let (c, p) = if cmd.eq_ignore_ascii_case(&b'Q') {
                    (at(self.pen, a[0], a[1]), at(self.pen, a[2], a[3]))
                } else {
                    let c = self.last_quad.map_or(self.pen, |c| 2.0 * self.pen - c);
                    (c, at(self.pen, a[0], a[1]))
                };
                self.out.push(Op::Quad(c, p));
                quad = Some(c);
                self.pen = p;
            }
            b'A' => {
                let p = at(self.pen, a[5], a[6]);
                self.arc(
                    Vec2::new(a[0], a[1]),
                    a[2].to_radians(),
                    a[3] != 0.0,
                    a[4] != 0.0,
                    p,
                );
                self.pen = p;
            }
            _ => {
                self.out.push(Op::Close);
                self.pen = self.start;
            }
        }
        self.last_cubic = cubic;
        self.last_quad = quad;
    }

    /// SVG's endpoint arc (implementation notes F.6.5 and F.6.6) as a centre arc.
    fn arc(&mut self, radii: Vec2, phi: f32, large: bool, sweep_flag: bool, to: Vec2) {
        let from = self.pen;
        let mut r = radii.abs();
        if from == to {
            return;
        }
        if r.x == 0.0 || r.y == 0.0 || !r.is_finite() {
            self.out.push(Op::Line(to));
            return;
        }
        let (sin, cos) = phi.sin_cos();
        let h = (from - to) / 2.0;
        let p1 = Vec2::new(cos * h.x + sin * h.y, -sin * h.x + cos * h.y);
        let lambda = (p1.x / r.x).powi(2) + (p1.y / r.y).powi(2);
        if lambda > 1.0 {
            r *= lambda.sqrt();
        }
        let num = (r.x * r.y).powi(2) - (r.x * p1.y).powi(2) - (r.y * p1.x).powi(2);
        let den = (r.x * p1.y).powi(2) + (r.y * p1.x).powi(2);
        let mut coef = if den > 0.0 {
            (num / den).max(0.0).sqrt()
        } else {
            0.0
        };
        if large == sweep_flag {
            coef = -coef;
        }
        let c1 = Vec2::new(coef * r.x * p1.y / r.y, -coef * r.y * p1.x / r.x);
        let mid = (from + to) / 2.0;
        let center = Vec2::new(cos * c1.x - sin * c1.y, sin * c1.x + cos * c1.y) + mid;
        let u = Vec2::new((p1.x - c1.x) / r.x, (p1.y - c1.y) / r.y);
        let v = Vec2::new((-p1.x - c1.x) / r.x, (-p1.y - c1.y) / r.y);
        let start = u.y.atan2(u.x);
        let mut sweep = (u.perp_dot(v)).atan2(u.dot(v));
        if !sweep_flag && sweep > 0.0 {
            sweep -= TAU;
        } else if sweep_flag && sweep < 0.0 {
            sweep += TAU;
        }
        if !(center.is_finite() && start.is_finite() && sweep.is_finite()) {
            self.out.push(Op::Line(to));
            return;
        }
        self.out.push(Op::Arc {
            center,
            radii: r,
            rotation: phi,
            start,
            sweep,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graphics::tessellate::{tessellate, triangles_area};
    use crate::Color;

    fn area(g: &GraphicsContext) -> f32 {
        let (mesh, _) = tessellate(g, 0.01);
        triangles_area(&mesh.positions, &mesh.indices)
    }

    fn filled(d: &str) -> GraphicsContext {
        let mut g = GraphicsContext::new();
        g.svg_path(d).unwrap().fill(Color::RED);
        g
    }

    #[test]
    fn numbers_follow_svgs_grammar() {
        assert_eq!(number(b"12"), Some((12.0, 2)));
        assert_eq!(number(b"-1.5e2x"), Some((-150.0, 6)));
        assert_eq!(
            number(b".5.5"),
            Some((0.5, 2)),
            "a second point starts the next number"
        );
        assert_eq!(
            number(b"1e"),
            Some((1.0, 1)),
            "an exponent without digits is not part of it"
        );
        assert_eq!(number(b"-"), None);
        assert_eq!(number(b"."), None);
        let p = parse("M1-2L.5.5,3e1 4").unwrap();
        assert_eq!(
            p,
            vec![
                (b'M', vec![1.0, -2.0]),
                (b'L', vec![0.5, 0.5]),
                (b'L', vec![30.0, 4.0])
            ]
        );
        // An implicit repeat of m is an l.
        let p = parse("m 1 1 2 2").unwrap();
        assert_eq!(p[1].0, b'l');
    }

    #[test]
    fn absolute_and_relative_commands_draw_the_same_shapes() {
        let abs = filled("M10 10 L90 10 L90 90 L10 90 Z");
        let rel = filled("m10 10 h80 v80 H10 z");
        assert!((area(&abs) - 6400.0).abs() < 1e-2);
        assert!((area(&rel) - 6400.0).abs() < 1e-2);
        // Curves: a cubic and its smooth continuation, a quadratic and its reflection, relative.
        let curvy = filled("M0 0 C 0 -20 40 -20 40 0 S 80 20 80 0 Q 40 60 0 0 z");
        assert!(area(&curvy) > 500.0);
        // T reflects the last control point: the second hump dips as far as the first rises, so they cancel.
        let t = filled("M0 0 q 20 -20 40 0 t 40 0 L 80 40 L 0 40 z");
        assert!((area(&t) - 3200.0).abs() < 1.0, "{}", area(&t));
    }

    #[test]
    fn arcs_convert_from_svgs_endpoint_form() {
        // Two half arcs make a circle of radius 20.
        let c = filled("M30 50 a20 20 0 1 0 40 0 a20 20 0 1 0 -40 0");
        assert!(
            (area(&c) - std::f32::consts::PI * 400.0).abs() < 2.0,
            "{}",
            area(&c)
        );
        // An ellipse rotated 90 degrees: radii 30 and 10, its long axis upright.
        let e = filled("M50 20 A30 10 90 1 1 50 80 A30 10 90 1 1 50 20");
        let (mesh, _) = tessellate(&e, 0.01);
        let (lo, hi) = mesh.bounds().unwrap();
        assert!(
            (hi - lo - Vec2::new(20.0, 60.0)).abs().max_element() < 0.1,
            "{lo} {hi}"
        );
        // Radii too small are scaled up (a half circle through the two points); zero radii are a line.
        let small = filled("M0 0 A1 1 0 0 1 20 0 Z");
        assert!(
            (area(&small) - std::f32::consts::PI * 50.0).abs() < 1.0,
            "{}",
            area(&small)
        );
        let flat = filled("M0 0 A0 5 0 0 1 20 0 L20 10 L0 10 Z");
        assert!((area(&flat) - 200.0).abs() < 1e-2);
    }

    #[test]
    fn malformed_data_is_an_error_naming_where_and_adds_nothing() {
        for (d, at) in [
            ("L 1 1", "at byte 0"),
            ("M 1", "at byte 3"),
            ("M 1 1 X 2", "at byte 6"),
            ("M 0 0 A 1 1 0 2 0 5 5", "at byte 14"),
            ("M 0 0 Z 1 1", "at byte 8"),
            ("M 0 0 L 1 NaN", "at byte 10"),
        ] {
            let mut g = GraphicsContext::new();
            let version = g.version();
            match g.svg_path(d) {
                Err(Error::InvalidSvgPath(m)) => assert!(m.contains(at), "{d}: {m}"),
                other => panic!("{d}: {other:?}"),
            }
            assert_eq!(g.version(), version, "{d}: nothing added");
        }
        // Empty data is an empty path; huge numbers stay finite or are dropped when flattened.
        let mut g = GraphicsContext::new();
        g.svg_path("").unwrap();
        g.svg_path("M 1e38 1e38 L -1e38 1e38 A 1e38 1e38 0 1 1 0 0 Z")
            .unwrap()
            .fill(Color::RED);
        let (mesh, _) = tessellate(&g, 0.25);
        assert!(mesh.positions.iter().all(|p| p.is_finite()));
        // A megabyte of repeats parses in bounded time.
        let big = "M0 0".to_string() + &" L1 1".repeat(200_000);
        let t = std::time::Instant::now();
        GraphicsContext::new().svg_path(&big).unwrap();
        assert!(t.elapsed() < std::time::Duration::from_secs(3));
    }
}
