//! Tessellation: a [`GraphicsContext`] becomes one [`Mesh`] of local-space triangles, one [`MeshPart`] per fill or
//! stroke, using lyon's fill (even-odd, so holes cut) and stroke tessellators. Bad geometry (non-finite points,
//! degenerate paths, a stroke of non-positive or non-finite width) is skipped per instruction with a warning;
//! the other instructions still produce triangles.

use super::context::{
    GraphicsContext, Instruction, LineCap, LineJoin, StrokeAlignment, StrokeStyle,
};
use super::path::{offset, signed_area2, Polyline, ShapePath};
use crate::{Color, Texture};
use glam::Vec2;
use lyon::path::Path;
use lyon::tessellation::{
    BuffersBuilder, FillOptions, FillRule, FillTessellator, FillVertex, StrokeOptions,
    StrokeTessellator, StrokeVertex, VertexBuffers,
};
use std::ops::Range;

/// One fill or stroke of a mesh: its vertex and index ranges and its paint.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshPart {
    /// Vertices of this part in [`Mesh::positions`].
    pub vertices: Range<u32>,
    /// Indices of this part in [`Mesh::indices`] (absolute vertex numbers within the mesh).
    pub indices: Range<u32>,
    /// Colour (alpha included).
    pub color: Color,
    /// Texture multiplied in, mapped over the part's bounds.
    pub texture: Option<Texture>,
}

/// Triangles in the context's local space.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mesh {
    /// Vertex positions.
    pub positions: Vec<Vec2>,
    /// Per-vertex position within its part's bounding box, `0..=1` (for texture fills).
    pub local_uv: Vec<Vec2>,
    /// Triangle list indices.
    pub indices: Vec<u32>,
    /// The fills and strokes, in drawing order.
    pub parts: Vec<MeshPart>,
}

impl Mesh {
    /// Bounding box `(min, max)` of all vertices, or `None` for an empty mesh.
    pub fn bounds(&self) -> Option<(Vec2, Vec2)> {
        let first = *self.positions.first()?;
        Some(
            self.positions
                .iter()
                .fold((first, first), |(lo, hi), p| (lo.min(*p), hi.max(*p))),
        )
    }
}

/// What tessellating one context did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TessellationReport {
    /// Instructions skipped as degenerate or invalid.
    pub skipped_instructions: u32,
    /// Subpaths dropped for non-finite coordinates.
    pub dropped_subpaths: u32,
}

fn to_lyon(lines: &[Polyline], force_closed: bool) -> Path {
    let mut b = Path::builder();
    for l in lines {
        let Some((first, rest)) = l.points.split_first() else {
            continue;
        };
        b.begin(lyon::math::point(first.x, first.y));
        for p in rest {
            b.line_to(lyon::math::point(p.x, p.y));
        }
        b.end(l.closed || force_closed);
    }
    b.build()
}

fn stroke_lines(
    path: &ShapePath,
    holes: &ShapePath,
    style: &StrokeStyle,
    tol: f32,
) -> (Vec<Polyline>, usize) {
    let (mut lines, mut dropped) = path.flatten(tol);
    let (hole_lines, d2) = holes.flatten(tol);
    dropped += d2;
    lines.extend(hole_lines);
    let half = style.width / 2.0;
    let side = match style.alignment {
        StrokeAlignment::Centre => return (lines, dropped),
        StrokeAlignment::Outer => half,
        StrokeAlignment::Inner => -half,
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
    (lines, dropped + overflowed)
}

/// Tessellates every instruction of `ctx` so that curves deviate at most `tolerance` local pixels.
pub fn tessellate(ctx: &GraphicsContext, tolerance: f32) -> (Mesh, TessellationReport) {
    let mut mesh = Mesh::default();
    let mut report = TessellationReport::default();
    let mut fill_tess = FillTessellator::new();
    let mut stroke_tess = StrokeTessellator::new();
    for ins in ctx.instructions() {
        let mut buffers: VertexBuffers<Vec2, u32> = VertexBuffers::new();
        let (result, color, texture) = match ins {
            Instruction::Fill { path, holes, style } => {
                let (mut lines, d) = path.flatten(tolerance);
                let (hole_lines, d2) = holes.flatten(tolerance);
                report.dropped_subpaths += (d + d2) as u32;
                lines.extend(hole_lines);
                lines.retain(|l| l.points.len() >= 3);
                if lines.is_empty() {
                    report.skipped_instructions += 1;
                    continue;
                }
                let p = to_lyon(&lines, true);
                let opts = FillOptions::tolerance(tolerance).with_fill_rule(FillRule::EvenOdd);
                let r = fill_tess.tessellate_path(
                    &p,
                    &opts,
                    &mut BuffersBuilder::new(&mut buffers, |v: FillVertex| {
                        let p = v.position();
                        Vec2::new(p.x, p.y)
                    }),
                );
                (r.map_err(|e| format!("{e:?}")), style.color, style.texture)
            }
            Instruction::Stroke { path, holes, style } => {
                if !(style.width.is_finite() && style.width > 0.0 && style.miter_limit.is_finite())
                {
                    report.skipped_instructions += 1;
                    continue;
                }
                let (lines, d) = stroke_lines(path, holes, style, tolerance);
                report.dropped_subpaths += d as u32;
                if lines.is_empty() {
                    report.skipped_instructions += 1;
                    continue;
                }
                let p = to_lyon(&lines, false);
                let opts = StrokeOptions::tolerance(tolerance)
                    .with_line_width(style.width)
                    .with_miter_limit(style.miter_limit.max(1.0))
                    .with_line_join(match style.join {
                        LineJoin::Miter => lyon::tessellation::LineJoin::MiterClip,
                        LineJoin::Round => lyon::tessellation::LineJoin::Round,
                        LineJoin::Bevel => lyon::tessellation::LineJoin::Bevel,
                    })
                    .with_line_cap(match style.cap {
                        LineCap::Butt => lyon::tessellation::LineCap::Butt,
                        LineCap::Round => lyon::tessellation::LineCap::Round,
                        LineCap::Square => lyon::tessellation::LineCap::Square,
                    });
                let r = stroke_tess.tessellate_path(
                    &p,
                    &opts,
                    &mut BuffersBuilder::new(&mut buffers, |v: StrokeVertex| {
                        let p = v.position();
                        Vec2::new(p.x, p.y)
                    }),
                );
                (r.map_err(|e| format!("{e:?}")), style.color, None)
            }
        };
        let outcome = match result {
            Err(e) => Err(e),
            Ok(()) if buffers.vertices.iter().all(|v| v.is_finite()) => Ok(()),
            Ok(()) => Err("non-finite output".to_string()),
        };
        if let Err(e) = outcome {
            log::warn!("skipping a shape of graphics context {}: {e}", ctx.id());
            report.skipped_instructions += 1;
            continue;
        }
        if buffers.indices.is_empty() {
            continue;
        }
        let base = mesh.positions.len() as u32;
        let ibase = mesh.indices.len() as u32;
        let (lo, hi) = buffers.vertices.iter().fold(
            (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN)),
            |(lo, hi), p| (lo.min(*p), hi.max(*p)),
        );
        let size = (hi - lo).max(Vec2::splat(1e-6));
        mesh.local_uv
            .extend(buffers.vertices.iter().map(|p| (*p - lo) / size));
        mesh.positions.extend_from_slice(&buffers.vertices);
        mesh.indices
            .extend(buffers.indices.iter().map(|i| i + base));
        mesh.parts.push(MeshPart {
            vertices: base..mesh.positions.len() as u32,
            indices: ibase..mesh.indices.len() as u32,
            color,
            texture,
        });
    }
    (mesh, report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graphics::context::StrokeStyle;

    fn area(mesh: &Mesh, part: usize) -> f32 {
        let p = &mesh.parts[part];
        mesh.indices[p.indices.start as usize..p.indices.end as usize]
            .chunks(3)
            .map(|t| {
                let (a, b, c) = (
                    mesh.positions[t[0] as usize],
                    mesh.positions[t[1] as usize],
                    mesh.positions[t[2] as usize],
                );
                ((b - a).perp_dot(c - a) / 2.0).abs()
            })
            .sum()
    }

    #[test]
    fn rect_fill_is_two_triangles_with_exact_bounds_and_area() {
        let mut g = GraphicsContext::new();
        g.rect(10.0, 20.0, 30.0, 40.0).fill(Color::RED);
        let (m, r) = tessellate(&g, 0.25);
        assert_eq!(r, TessellationReport::default());
        assert_eq!(m.parts.len(), 1);
        assert_eq!(m.indices.len(), 6);
        assert_eq!(
            m.bounds(),
            Some((Vec2::new(10.0, 20.0), Vec2::new(40.0, 60.0)))
        );
        assert!((area(&m, 0) - 1200.0).abs() < 1e-3);
    }

    #[test]
    fn circle_area_converges_and_triangles_share_one_winding() {
        let mut g = GraphicsContext::new();
        g.circle(0.0, 0.0, 50.0).fill(Color::RED);
        let (m, _) = tessellate(&g, 0.05);
        let exact = std::f32::consts::PI * 2500.0;
        assert!((area(&m, 0) - exact).abs() / exact < 0.005);
        let signs: Vec<bool> = m
            .indices
            .chunks(3)
            .map(|t| {
                let (a, b, c) = (
                    m.positions[t[0] as usize],
                    m.positions[t[1] as usize],
                    m.positions[t[2] as usize],
                );
                (b - a).perp_dot(c - a) > 0.0
            })
            .collect();
        assert!(signs.iter().all(|s| *s == signs[0]), "mixed winding");
        let (coarse, _) = tessellate(&g, 1.0);
        assert!(coarse.positions.len() < m.positions.len());
    }

    #[test]
    fn holes_are_cut() {
        let mut g = GraphicsContext::new();
        g.rect(0.0, 0.0, 10.0, 10.0).fill(Color::RED);
        g.rect(2.0, 2.0, 6.0, 6.0).cut();
        let (m, _) = tessellate(&g, 0.25);
        assert!((area(&m, 0) - 64.0).abs() < 1e-3);
    }

    #[test]
    fn stroke_alignment_moves_the_stroke() {
        for (align, lo, hi) in [
            (StrokeAlignment::Centre, -1.0, 11.0),
            (StrokeAlignment::Outer, -2.0, 12.0),
            (StrokeAlignment::Inner, 0.0, 10.0),
        ] {
            let mut g = GraphicsContext::new();
            g.rect(0.0, 0.0, 10.0, 10.0).stroke(StrokeStyle {
                width: 2.0,
                alignment: align,
                ..Default::default()
            });
            let (m, _) = tessellate(&g, 0.25);
            let (a, b) = m.bounds().unwrap();
            assert!(
                (a.x - lo).abs() < 1e-3 && (b.x - hi).abs() < 1e-3,
                "{align:?}: {a} {b}"
            );
            // A stroke of width 2 around a 10x10 outline covers 2 * perimeter-ish.
            let ar = area(&m, 0);
            assert!(ar > 60.0 && ar < 110.0, "{align:?} area {ar}");
        }
    }

    #[test]
    fn caps_and_joins_change_the_outline() {
        let open = |cap, join| {
            let mut g = GraphicsContext::new();
            g.move_to(0.0, 0.0)
                .line_to(20.0, 0.0)
                .line_to(20.0, 20.0)
                .stroke(StrokeStyle {
                    width: 4.0,
                    cap,
                    join,
                    ..Default::default()
                });
            tessellate(&g, 0.1).0.bounds().unwrap()
        };
        let butt = open(LineCap::Butt, LineJoin::Miter);
        let square = open(LineCap::Square, LineJoin::Miter);
        assert!((butt.0.x - 0.0).abs() < 1e-3 && (square.0.x + 2.0).abs() < 1e-3);
        let bevel = open(LineCap::Butt, LineJoin::Bevel);
        let miter = open(LineCap::Butt, LineJoin::Miter);
        assert!((miter.1.x - 22.0).abs() < 1e-3 && (miter.0.y + 2.0).abs() < 1e-3);
        assert!(bevel.1.x <= 22.0 + 1e-3);
    }

    #[test]
    fn degenerate_and_invalid_instructions_are_skipped_not_fatal() {
        let mut g = GraphicsContext::new();
        g.move_to(0.0, 0.0)
            .line_to(f32::NAN, 1.0)
            .line_to(3.0, 3.0)
            .fill(Color::RED);
        g.rect(0.0, 0.0, 0.0, 0.0).fill(Color::RED);
        g.move_to(1.0, 1.0)
            .line_to(5.0, 1.0)
            .stroke(StrokeStyle::new(f32::NAN, Color::RED));
        g.move_to(1.0, 1.0)
            .line_to(5.0, 1.0)
            .stroke(StrokeStyle::new(-1.0, Color::RED));
        g.rect(0.0, 0.0, 4.0, 4.0).fill(Color::GREEN);
        let (m, r) = tessellate(&g, 0.25);
        assert_eq!(m.parts.len(), 1);
        assert_eq!(m.parts[0].color, Color::GREEN);
        assert!(r.skipped_instructions >= 3);
    }
}
