//! Flattening: a [`GraphicsContext`]'s recorded paths become owned polylines at one tolerance (linear in their
//! size), checked on the way: fills need three points, strokes a finite positive width, and a context keeps at most
//! [`MAX_PATH_SEGMENTS`] segments. What comes out can be triangulated on another thread; each fill carries its cost
//! ([`fill_cost`]), by which the cache decides whether to do that.

use super::context::{GraphicsContext, Instruction, MAX_PATH_SEGMENTS};
use super::path::{offset, signed_area2, Polyline};
use super::style::{FillRule as Rule, StrokeAlignment, StrokeStyle};
use crate::Color;
use glam::Vec2;

/// What tessellating one context did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TessellationReport {
    /// Instructions skipped as degenerate or invalid.
    pub skipped_instructions: u32,
    /// Subpaths dropped for non-finite coordinates.
    pub dropped_subpaths: u32,
}

/// Moves stroke outlines by the stroke's alignment; the second value counts outlines dropped as non-finite.
pub(crate) fn align_stroke(lines: Vec<Polyline>, style: &StrokeStyle) -> (Vec<Polyline>, usize) {
    let half = style.width / 2.0;
    let side = match style.alignment {
        StrokeAlignment::Centre => return (lines, 0),
        StrokeAlignment::Outer => half,
        StrokeAlignment::Inner => -half,
        StrokeAlignment::Ratio(r) if r.is_finite() && r != 0.5 => (0.5 - r) * style.width,
        StrokeAlignment::Ratio(_) => return (lines, 0),
    };
    let mut lines: Vec<Polyline> = lines
        .iter()
        .map(|l| {
            // Positive offsets go outwards for clockwise closed shapes; flip for anticlockwise ones.
            let orient = if l.closed && signed_area2(&l.points) < 0.0 {
                -1.0
            } else {
                1.0
            };
            offset(l, side * orient)
        })
        .collect();
    let before = lines.len();
    lines.retain(|l| l.points.iter().all(|v| v.is_finite()));
    let overflowed = before - lines.len();
    (lines, overflowed)
}

/// One instruction, flattened: what [`tessellate_flat`](super::tessellate::tessellate_flat) triangulates.
#[derive(Clone, Debug)]
pub(super) enum FlatShape {
    Fill {
        lines: Vec<Polyline>,
        holes: Vec<Polyline>,
        rule: Rule,
        color: Color,
        /// Boxed: patterns and gradients are large beside the other variants.
        pattern: Option<Box<super::style::FillPattern>>,
        gradient: Option<Box<super::gradient::FillGradient>>,
    },
    Stroke {
        lines: Vec<Polyline>,
        /// Boxed: a stroke style with a pattern and a gradient is large.
        style: Box<StrokeStyle>,
    },
    /// Pixel lines: drawn one target pixel wide by the frame, not triangulated here.
    PixelLines { lines: Vec<Polyline>, color: Color },
}

/// A context's instructions flattened at one tolerance: owned, so it can be triangulated on another thread.
#[derive(Clone, Debug, Default)]
pub struct FlatContext {
    pub(super) id: u64,
    pub(super) tolerance: f32,
    pub(super) shapes: Vec<FlatShape>,
    pub(super) report: TessellationReport,
    /// Segments of all fills and strokes.
    pub segments: u64,
    /// The cost of the most expensive fill, in segments of a self-crossing outline (see [`fill_cost`]).
    pub max_fill_cost: u64,
}

fn points(lines: &[Polyline]) -> u64 {
    lines.iter().map(|l| l.points.len() as u64).sum()
}

/// Convex outlines fill in linear time, so they count [`CONVEX_DISCOUNT`] times less than others.
pub const CONVEX_DISCOUNT: u64 = 128;

/// What triangulating a fill costs, in segments of a self-crossing outline: lyon's fill time grows about
/// cubically with the segments of outlines that cross themselves, but only linearly for convex ones (circles,
/// ellipses, rounded rectangles, regular polygons), which count [`CONVEX_DISCOUNT`] times less.
pub fn fill_cost(lines: &[Polyline]) -> u64 {
    lines
        .iter()
        .map(|l| {
            let n = l.points.len() as u64;
            if is_convex(&l.points) {
                n.div_ceil(CONVEX_DISCOUNT)
            } else {
                n
            }
        })
        .sum()
}

/// Whether a closed polyline is convex: it turns one way only, once round.
fn is_convex(p: &[Vec2]) -> bool {
    let n = p.len();
    if n < 4 {
        return true;
    }
    let (mut sign, mut turning) = (0.0f32, 0.0f64);
    for i in 0..n {
        let (a, b, c) = (p[i], p[(i + 1) % n], p[(i + 2) % n]);
        let (d1, d2) = (b - a, c - b);
        let cross = d1.perp_dot(d2);
        if cross != 0.0 {
            if sign * cross < 0.0 {
                return false;
            }
            sign = cross.signum();
        }
        turning += f64::from(cross.atan2(d1.dot(d2)));
    }
    // One turn is 2 pi; a pentagram, turning one way, goes round twice.
    (turning.abs() - std::f64::consts::TAU).abs() < 0.5
}

/// Flattens every instruction of `ctx` so that curves deviate at most `tolerance` local pixels. Instructions
/// that would take the context past [`MAX_PATH_SEGMENTS`] are skipped (counted, with one warning).
pub fn flatten_context(ctx: &GraphicsContext, tolerance: f32) -> FlatContext {
    let mut flat = FlatContext {
        id: ctx.id(),
        tolerance,
        ..Default::default()
    };
    let max = MAX_PATH_SEGMENTS as usize;
    let mut too_complex = 0u32;
    for ins in ctx.instructions() {
        let budget = max.saturating_sub(flat.segments as usize);
        let flattened = match ins {
            Instruction::Fill { path, holes, .. } | Instruction::Stroke { path, holes, .. } => path
                .flatten_within(tolerance, budget)
                .and_then(|(lines, d)| {
                    let left = budget - points(&lines) as usize;
                    holes
                        .flatten_within(tolerance, left)
                        .map(|(h, d2)| (lines, h, d + d2))
                }),
        };
        let Ok((mut lines, mut hole_lines, dropped)) = flattened else {
            too_complex += 1;
            continue;
        };
        flat.report.dropped_subpaths += dropped as u32;
        match ins {
            Instruction::Fill { style, .. } => {
                lines.retain(|l| l.points.len() >= 3);
                hole_lines.retain(|l| l.points.len() >= 3);
                if lines.is_empty() {
                    flat.report.skipped_instructions += 1;
                    continue;
                }
                flat.segments += points(&lines) + points(&hole_lines);
                let cost = fill_cost(&lines) + fill_cost(&hole_lines);
                flat.max_fill_cost = flat.max_fill_cost.max(cost);
                flat.shapes.push(FlatShape::Fill {
                    lines,
                    holes: hole_lines,
                    rule: style.fill_rule,
                    color: style.color,
                    pattern: style.pattern.map(Box::new),
                    gradient: style.gradient.map(Box::new),
                });
            }
            Instruction::Stroke { style, .. } if style.pixel_line => {
                lines.extend(hole_lines);
                if lines.is_empty() {
                    flat.report.skipped_instructions += 1;
                    continue;
                }
                flat.segments += points(&lines);
                flat.shapes.push(FlatShape::PixelLines {
                    lines,
                    color: style.color,
                });
            }
            Instruction::Stroke { style, .. } => {
                if !(style.width.is_finite() && style.width > 0.0 && style.miter_limit.is_finite())
                {
                    flat.report.skipped_instructions += 1;
                    continue;
                }
                lines.extend(hole_lines);
                let (lines, overflowed) = align_stroke(lines, style);
                flat.report.dropped_subpaths += overflowed as u32;
                if lines.is_empty() {
                    flat.report.skipped_instructions += 1;
                    continue;
                }
                flat.segments += points(&lines);
                flat.shapes.push(FlatShape::Stroke {
                    lines,
                    style: Box::new(*style),
                });
            }
        }
    }
    if too_complex > 0 {
        log::warn!(
            "graphics context {}: {too_complex} fills or strokes skipped, they would take it past {max} path \
             segments (MAX_PATH_SEGMENTS); split it over several contexts or simplify its paths",
            ctx.id()
        );
        flat.report.skipped_instructions += too_complex;
    }
    flat
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f32::consts::TAU;

    #[test]
    fn segment_counts_stay_capped_at_any_tolerance() {
        let mut g = GraphicsContext::new();
        g.circle(0.0, 0.0, 5.0).fill(Color::RED);
        g.move_to(0.0, 0.0)
            .bezier_curve_to(1e6, 0.0, -1e6, 1e6, 0.0, 1e6)
            .quadratic_curve_to(1e6, 1e6, 1e6, 0.0)
            .stroke(StrokeStyle::default());
        let t = std::time::Instant::now();
        let flat = flatten_context(&g, 1e-30);
        assert!(t.elapsed().as_secs_f32() < 2.0);
        for s in &flat.shapes {
            let (FlatShape::Fill { lines, .. }
            | FlatShape::Stroke { lines, .. }
            | FlatShape::PixelLines { lines, .. }) = s;
            let n = points(lines);
            assert!(
                n > 1000 && n <= 3 * (super::super::path::MAX_CURVE_SEGMENTS as u64 + 1),
                "{n}"
            );
        }
    }

    #[test]
    fn convex_outlines_cost_less_than_self_crossing_ones() {
        let circle: Vec<Vec2> = (0..1000)
            .map(|i| Vec2::from_angle(i as f32 * TAU / 1000.0) * 50.0)
            .collect();
        let line = |p: &[Vec2]| Polyline {
            points: p.to_vec(),
            closed: true,
        };
        assert_eq!(fill_cost(&[line(&circle)]), 8);
        let star: Vec<Vec2> = (0..1000)
            .map(|i| Vec2::from_angle(i as f32 * 2.0 * TAU / 1000.0) * 50.0)
            .collect();
        assert_eq!(fill_cost(&[line(&star)]), 1000, "winds twice");
        let mut zig = circle.clone();
        zig.swap(10, 11);
        assert_eq!(fill_cost(&[line(&zig)]), 1000);
    }
}
