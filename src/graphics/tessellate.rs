//! Tessellation: a [`GraphicsContext`] becomes one [`Mesh`] of local-space triangles, one [`MeshPart`] per fill or
//! stroke, using lyon's fill (by each fill's [`FillRule`](super::FillRule)) and stroke tessellators. Bad geometry
//! (non-finite points, degenerate paths, a stroke of non-positive or non-finite width) is skipped per instruction
//! with a warning; the other instructions still produce triangles.
//!
//! It runs in two steps: [`flatten_context`] (`flatten.rs`) turns the recorded paths into polylines (linear in
//! their size, and where [`MAX_PATH_SEGMENTS`](super::MAX_PATH_SEGMENTS) is enforced), then [`tessellate_flat`]
//! triangulates them. The second step can be
//! slow for large self-crossing fills, so the cache may run it on a worker thread; its input owns everything.
//!
//! Holes: a fill with holes is triangulated by its own rule, its holes by the same rule, and the two triangle
//! sets, turned into outlines of winding one, are filled even-odd; that gives the symmetric difference, whose
//! triangles each lie wholly inside or outside the holes, and those inside a hole are dropped. So a hole
//! subtracts whatever the winding of its path and whatever the fill rule.

use super::context::GraphicsContext;
pub use super::flatten::{flatten_context, TessellationReport};
use super::flatten::{FlatContext, FlatShape};
use super::path::{fill_work, Polyline, MAX_FILL_WORK};
use super::style::{FillRule as Rule, LineCap, LineJoin, StrokeStyle};
use crate::{Color, Texture};
use glam::{Affine2, Vec2};
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
    /// Texture multiplied in, at [`Mesh::local_uv`] (in units of its frame).
    pub texture: Option<Texture>,
    /// Which axes of the texture coordinates wrap (bit 0 across, bit 1 up and down; see
    /// [`FillPattern`](super::style::FillPattern)).
    pub wrap: u8,
    /// Pixel lines: each segment two vertices and two indices, drawn as the GPU's one-pixel lines.
    pub pixel_lines: bool,
    /// A gradient's colour at each of the part's vertices (multiplied by `color`), if it has one.
    pub vertex_colors: Option<Vec<Color>>,
    /// Those colours times `color`, packed: what a node without tint draws (empty without a gradient).
    pub vertex_rgba8: Vec<u32>,
}

/// Triangles in the context's local space.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mesh {
    /// Vertex positions.
    pub positions: Vec<Vec2>,
    /// Per-vertex texture coordinates in units of the part's texture frame (within its bounding box, `0..=1`,
    /// for a part without texture).
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

/// Tessellates every instruction of `ctx` so that curves deviate at most `tolerance` local pixels.
pub fn tessellate(ctx: &GraphicsContext, tolerance: f32) -> (Mesh, TessellationReport) {
    tessellate_flat(&flatten_context(ctx, tolerance))
}

/// The largest coordinate a shape may have, in its context's space (beyond, `f32` triangulation loses the
/// shape: it is skipped and counted).
pub const MAX_SHAPE_COORDINATE: f32 = 1e9;

/// Triangulates a flattened context.
pub fn tessellate_flat(flat: &FlatContext) -> (Mesh, TessellationReport) {
    let mut mesh = Mesh::default();
    let mut report = flat.report;
    let mut fill_tess = FillTessellator::new();
    let mut stroke_tess = StrokeTessellator::new();
    for shape in &flat.shapes {
        // Coordinates past what f32 triangulation resolves (a circle of radius 1e30): skipped and counted, not
        // triangulated into nothing.
        let (lines, holes): (&[Polyline], &[Polyline]) = match shape {
            FlatShape::Fill { lines, holes, .. } => (lines, holes),
            FlatShape::Stroke { lines, .. } | FlatShape::PixelLines { lines, .. } => (lines, &[]),
        };
        let far = lines.iter().chain(holes).flat_map(|l| &l.points).any(|p| {
            p.abs().max_element().partial_cmp(&MAX_SHAPE_COORDINATE)
                != Some(std::cmp::Ordering::Less)
        });
        if far {
            log::warn!(
                "skipping a shape of graphics context {}: a coordinate lies beyond {MAX_SHAPE_COORDINATE:e}",
                flat.id
            );
            report.skipped_instructions += 1;
            continue;
        }
        let gradient;
        // A stroke's local texture space is its path's box grown by its width each way, as PixiJS has it.
        let mut stroke_box = None;
        let (result, color, pattern) = match shape {
            FlatShape::Fill {
                lines,
                holes,
                rule,
                color,
                pattern,
                gradient: g,
            } => {
                gradient = g.as_deref().copied();
                if fill_work(lines, holes, MAX_FILL_WORK).is_none() {
                    log::warn!(
                        "skipping a fill of graphics context {}: it crosses itself too often to triangulate in bounded time",
                        flat.id
                    );
                    report.skipped_instructions += 1;
                    continue;
                }
                (
                    fill_with_holes(&mut fill_tess, lines, holes, *rule),
                    *color,
                    pattern.as_deref().copied(),
                )
            }
            FlatShape::Stroke { lines, style } => {
                gradient = style.gradient;
                stroke_box = lines.iter().flat_map(|l| &l.points).fold(None, |b, p| {
                    let (lo, hi) = b.unwrap_or((*p, *p));
                    Some((lo.min(*p), hi.max(*p)))
                });
                stroke_box = stroke_box.map(|(lo, hi)| (lo - style.width, hi + style.width));
                (
                    stroke(&mut stroke_tess, lines, style, flat.tolerance),
                    style.color,
                    style.pattern,
                )
            }
            FlatShape::PixelLines { lines, color } => {
                push_pixel_lines(&mut mesh, lines, *color);
                continue;
            }
        };
        let buffers = match result {
            Ok(b) if b.vertices.iter().all(|v| v.is_finite()) => b,
            other => {
                let e = other
                    .err()
                    .unwrap_or_else(|| "non-finite output".to_string());
                log::warn!("skipping a shape of graphics context {}: {e}", flat.id);
                report.skipped_instructions += 1;
                continue;
            }
        };
        if buffers.indices.is_empty() {
            continue;
        }
        let (lo, hi) = buffers.vertices.iter().fold(
            (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN)),
            |(lo, hi), p| (lo.min(*p), hi.max(*p)),
        );
        let (lo, hi) = stroke_box.unwrap_or((lo, hi));
        let size = (hi - lo).max(Vec2::splat(1e-6));
        // A gradient: the triangles cut where it passes a stop, its colour at every vertex.
        let (buffers, vertex_colors) = match gradient {
            Some(g) => {
                let (vertices, indices, colors) = g.paint(
                    &buffers.vertices,
                    &buffers.indices,
                    lo,
                    size,
                    flat.tolerance,
                );
                let mut b = Buffers::new();
                b.vertices = vertices;
                b.indices = indices;
                (b, Some(colors))
            }
            None => (buffers, None),
        };
        let base = mesh.positions.len() as u32;
        let ibase = mesh.indices.len() as u32;
        let to_uv = match &pattern {
            Some(p) => p.coordinates(lo, size),
            None => Affine2::from_scale(size.recip()) * Affine2::from_translation(-lo),
        };
        mesh.local_uv
            .extend(buffers.vertices.iter().map(|p| to_uv.transform_point2(*p)));
        mesh.positions.extend_from_slice(&buffers.vertices);
        mesh.indices
            .extend(buffers.indices.iter().map(|i| i + base));
        mesh.parts.push(MeshPart {
            vertices: base..mesh.positions.len() as u32,
            indices: ibase..mesh.indices.len() as u32,
            color,
            texture: pattern.map(|p| p.texture),
            wrap: pattern.map_or(0, |p| p.wrap_axes()),
            pixel_lines: false,
            vertex_rgba8: vertex_colors
                .iter()
                .flatten()
                .map(|c| (color * *c).to_rgba8_u32())
                .collect(),
            vertex_colors,
        });
    }
    (mesh, report)
}

/// Adds `lines` as a pixel-line part: two vertices and two indices a segment (see [`MeshPart::pixel_lines`]).
fn push_pixel_lines(mesh: &mut Mesh, lines: &[Polyline], color: Color) {
    let base = mesh.positions.len() as u32;
    let ibase = mesh.indices.len() as u32;
    for l in lines {
        let n = l.points.len();
        let segments = if l.closed && n > 2 {
            n
        } else {
            n.saturating_sub(1)
        };
        for i in 0..segments {
            let (a, b) = (l.points[i], l.points[(i + 1) % n]);
            let v = mesh.positions.len() as u32;
            mesh.positions.extend([a, b]);
            mesh.local_uv.extend([Vec2::ZERO, Vec2::ONE]);
            mesh.indices.extend([v, v + 1]);
        }
    }
    if mesh.indices.len() as u32 > ibase {
        mesh.parts.push(MeshPart {
            vertices: base..mesh.positions.len() as u32,
            indices: ibase..mesh.indices.len() as u32,
            color,
            texture: None,
            wrap: 0,
            pixel_lines: true,
            vertex_colors: None,
            vertex_rgba8: Vec::new(),
        });
    }
}

type Buffers = VertexBuffers<Vec2, u32>;

/// The area triangles `indices` (into `positions`) cover, overlaps counted twice (tests measure shapes with it).
#[cfg(test)]
pub(crate) fn triangles_area(positions: &[Vec2], indices: &[u32]) -> f32 {
    indices
        .chunks(3)
        .map(|t| {
            let [a, b, c] = [0, 1, 2].map(|k| positions[t[k] as usize]);
            ((b - a).perp_dot(c - a) / 2.0).abs()
        })
        .sum()
}

/// Triangulates the area `lines` cover under `rule`.
fn fill(tess: &mut FillTessellator, lines: &[Polyline], rule: Rule) -> Result<Buffers, String> {
    let mut buffers = Buffers::new();
    let rule = match rule {
        Rule::NonZero => FillRule::NonZero,
        Rule::EvenOdd => FillRule::EvenOdd,
    };
    // Flattened already: the tolerance only matters for curves, and there are none.
    let opts = FillOptions::tolerance(0.25).with_fill_rule(rule);
    tess.tessellate_path(
        &to_lyon(lines, true),
        &opts,
        &mut BuffersBuilder::new(&mut buffers, |v: FillVertex| {
            let p = v.position();
            Vec2::new(p.x, p.y)
        }),
    )
    .map_err(|e| format!("{e:?}"))?;
    Ok(buffers)
}

/// The area `lines` cover under `rule`, minus the area `holes` cover under the same rule (see the module docs).
fn fill_with_holes(
    tess: &mut FillTessellator,
    lines: &[Polyline],
    holes: &[Polyline],
    rule: Rule,
) -> Result<Buffers, String> {
    let shape = fill(tess, lines, rule)?;
    if holes.is_empty() || shape.indices.is_empty() {
        return Ok(shape);
    }
    let hole = fill(tess, holes, rule)?;
    if hole.indices.is_empty() {
        return Ok(shape);
    }
    let mut outline = outline(&shape);
    outline.extend(self::outline(&hole));
    let both = fill(tess, &outline, Rule::EvenOdd)?;
    let (lo, hi) = hole
        .vertices
        .iter()
        .fold((hole.vertices[0], hole.vertices[0]), |(lo, hi), p| {
            (lo.min(*p), hi.max(*p))
        });
    let in_hole = |p: Vec2| {
        p.cmpge(lo).all() && p.cmple(hi).all() && {
            let w = winding(holes, p);
            match rule {
                Rule::NonZero => w != 0,
                Rule::EvenOdd => w % 2 != 0,
            }
        }
    };
    // Keep the triangles outside the holes, and only the vertices they use.
    let mut remap = vec![u32::MAX; both.vertices.len()];
    let mut out = Buffers::new();
    for t in both.indices.chunks_exact(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|i| both.vertices[i as usize]);
        if in_hole((a + b + c) / 3.0) {
            continue;
        }
        for &i in t {
            if remap[i as usize] == u32::MAX {
                remap[i as usize] = out.vertices.len() as u32;
                out.vertices.push(both.vertices[i as usize]);
            }
            out.indices.push(remap[i as usize]);
        }
    }
    Ok(out)
}

/// The boundary of a triangle set as closed polylines winding once around its inside (each triangle turned
/// the same way; edges two triangles share cancel out).
fn outline(b: &Buffers) -> Vec<Polyline> {
    use std::collections::HashMap;
    let mut edges: HashMap<(u32, u32), u32> = HashMap::new();
    for t in b.indices.chunks_exact(3) {
        let [a, mut m, mut c] = [t[0], t[1], t[2]];
        let [pa, pm, pc] = [a, m, c].map(|i| b.vertices[i as usize]);
        let area = (pm - pa).perp_dot(pc - pa);
        if area == 0.0 || !area.is_finite() {
            continue;
        }
        if area < 0.0 {
            std::mem::swap(&mut m, &mut c);
        }
        for e in [(a, m), (m, c), (c, a)] {
            let back = (e.1, e.0);
            match edges.get_mut(&back) {
                Some(n) if *n > 0 => *n -= 1,
                _ => *edges.entry(e).or_insert(0) += 1,
            }
        }
    }
    // Chain the remaining directed edges into loops: every vertex has as many leaving as arriving.
    let mut from: HashMap<u32, Vec<u32>> = HashMap::new();
    for (&(a, c), &n) in &edges {
        for _ in 0..n {
            from.entry(a).or_default().push(c);
        }
    }
    let mut loops = Vec::new();
    let mut starts: Vec<u32> = from.keys().copied().collect();
    starts.sort_unstable();
    for s in starts {
        while let Some(mut next) = from.get_mut(&s).and_then(|v| v.pop()) {
            let mut pts = vec![b.vertices[s as usize]];
            while next != s {
                pts.push(b.vertices[next as usize]);
                match from.get_mut(&next).and_then(|v| v.pop()) {
                    Some(n) => next = n,
                    None => break, // unbalanced (cannot happen for a closed set); close it here
                }
            }
            loops.push(Polyline {
                points: pts,
                closed: true,
            });
        }
    }
    loops
}

/// The winding number of closed polylines around `p`.
fn winding(lines: &[Polyline], p: Vec2) -> i32 {
    let mut w = 0;
    for l in lines {
        let n = l.points.len();
        for i in 0..n {
            let (a, b) = (l.points[i], l.points[(i + 1) % n]);
            let side = (b - a).perp_dot(p - a);
            if a.y <= p.y {
                if b.y > p.y && side > 0.0 {
                    w += 1;
                }
            } else if b.y <= p.y && side < 0.0 {
                w -= 1;
            }
        }
    }
    w
}

fn stroke(
    tess: &mut StrokeTessellator,
    lines: &[Polyline],
    style: &StrokeStyle,
    tolerance: f32,
) -> Result<Buffers, String> {
    let mut buffers = Buffers::new();
    // Round joins and caps are flattened by lyon in f32: a tolerance far below the width's precision would
    // ask for thousands of segments per join and get none better.
    let tolerance = tolerance.max(style.width * 1e-5);
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
    tess.tessellate_path(
        &to_lyon(lines, false),
        &opts,
        &mut BuffersBuilder::new(&mut buffers, |v: StrokeVertex| {
            let p = v.position();
            Vec2::new(p.x, p.y)
        }),
    )
    .map_err(|e| format!("{e:?}"))?;
    Ok(buffers)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graphics::context::{Instruction, MAX_PATH_SEGMENTS};
    use crate::graphics::flatten::FlatShape;
    use crate::graphics::style::{FillStyle, StrokeAlignment, StrokeStyle};

    fn area(mesh: &Mesh, part: usize) -> f32 {
        let p = &mesh.parts[part];
        triangles_area(
            &mesh.positions,
            &mesh.indices[p.indices.start as usize..p.indices.end as usize],
        )
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
            // PixiJS's numbers: 1 inside, 0 outside, 0.5 centred, -1 a width clear of the outline outside it.
            (StrokeAlignment::Ratio(1.0), 0.0, 10.0),
            (StrokeAlignment::Ratio(0.0), -2.0, 12.0),
            (StrokeAlignment::Ratio(0.5), -1.0, 11.0),
            (StrokeAlignment::Ratio(0.25), -1.5, 11.5),
            (StrokeAlignment::Ratio(-1.0), -4.0, 14.0),
            (StrokeAlignment::Ratio(f32::NAN), -1.0, 11.0),
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
            assert!(ar > 60.0 && ar < 140.0, "{align:?} area {ar}");
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
    fn fill_area(build: impl Fn(&mut GraphicsContext), rule: Rule) -> f32 {
        let mut g = GraphicsContext::new();
        build(&mut g);
        let mut g2 = GraphicsContext::new();
        // Re-record with the rule on every fill.
        for ins in g.instructions() {
            if let Instruction::Fill { path, holes, style } = ins {
                for c in path.commands() {
                    g2.push_command_for_tests(c.clone());
                }
                g2.fill(style.with_fill_rule(rule));
                if !holes.is_empty() {
                    for c in holes.commands() {
                        g2.push_command_for_tests(c.clone());
                    }
                    g2.cut();
                }
            }
        }
        let (m, r) = tessellate(&g2, 0.05);
        assert_eq!(r.skipped_instructions, 0);
        (0..m.parts.len()).map(|i| area(&m, i)).sum()
    }

    fn pentagram(g: &mut GraphicsContext) {
        let pts: Vec<Vec2> = (0..5)
            .map(|i| Vec2::from_angle(i as f32 * 4.0 * PI / 5.0 - PI / 2.0) * 10.0)
            .collect();
        g.poly(&pts).fill(Color::RED);
    }

    use std::f32::consts::PI;

    #[test]
    fn non_zero_fills_a_pentagram_centre_and_even_odd_leaves_it() {
        let nz = fill_area(pentagram, Rule::NonZero);
        let eo = fill_area(pentagram, Rule::EvenOdd);
        // The inner pentagon of a pentagram of circumradius 10 has circumradius 10 cos(72°) / cos(36°).
        let r = 10.0 * (2.0 * PI / 5.0).cos() / (PI / 5.0).cos();
        let pentagon = 2.5 * r * r * (2.0 * PI / 5.0).sin();
        assert!((nz - eo - pentagon).abs() < 0.01, "{nz} {eo} {pentagon}");
        assert_eq!(FillStyle::from(Color::RED).fill_rule, Rule::NonZero);
    }

    #[test]
    fn overlapping_same_way_rectangles_fill_solid_by_non_zero_only() {
        let two = |g: &mut GraphicsContext| {
            g.rect(0.0, 0.0, 10.0, 10.0)
                .rect(5.0, 0.0, 10.0, 10.0)
                .fill(Color::RED);
        };
        assert!((fill_area(two, Rule::NonZero) - 150.0).abs() < 1e-3);
        assert!((fill_area(two, Rule::EvenOdd) - 100.0).abs() < 1e-3);
    }

    #[test]
    fn holes_cut_under_both_rules_whichever_way_they_wind() {
        for rule in [Rule::NonZero, Rule::EvenOdd] {
            for reversed in [false, true] {
                let shape = |g: &mut GraphicsContext| {
                    g.rect(0.0, 0.0, 10.0, 10.0).fill(Color::RED);
                    let mut hole = vec![
                        Vec2::new(2.0, 2.0),
                        Vec2::new(8.0, 2.0),
                        Vec2::new(8.0, 8.0),
                        Vec2::new(2.0, 8.0),
                    ];
                    if reversed {
                        hole.reverse();
                    }
                    g.poly(&hole).cut();
                };
                let a = fill_area(shape, rule);
                assert!((a - 64.0).abs() < 1e-3, "{rule:?} reversed {reversed}: {a}");
            }
            // A hole reaching outside the shape removes only what it covers of it.
            let over = |g: &mut GraphicsContext| {
                g.rect(0.0, 0.0, 10.0, 10.0).fill(Color::RED);
                g.rect(5.0, 2.0, 10.0, 6.0).cut();
            };
            let a = fill_area(over, rule);
            assert!((a - 70.0).abs() < 1e-3, "{rule:?}: {a}");
            // A hole in the filled centre of a non-zero pentagram.
            let star = |g: &mut GraphicsContext| {
                pentagram(g);
                g.circle(0.0, 0.0, 1.0).cut();
            };
            let with = fill_area(star, rule);
            let without = fill_area(pentagram, rule);
            let disc = |g: &mut GraphicsContext| {
                g.circle(0.0, 0.0, 1.0).fill(Color::RED);
            };
            let disc = if rule == Rule::NonZero {
                fill_area(disc, rule)
            } else {
                0.0
            };
            assert!(
                (without - with - disc).abs() < 0.01,
                "{rule:?}: {without} {with}"
            );
        }
    }

    #[test]
    fn a_circle_of_radius_1e7_flattens_to_a_circle() {
        let mut g = GraphicsContext::new();
        g.circle(0.0, 0.0, 1e7).fill(Color::RED);
        let flat = flatten_context(&g, 0.25);
        let FlatShape::Fill { lines, .. } = &flat.shapes[0] else {
            panic!()
        };
        let n = lines[0].points.len();
        // pi / acos(1 - 0.25 / 1e7) is about 14,050.
        assert!((14_000..=14_200).contains(&n), "{n} points");
        let (m, _) = tessellate_flat(&flat);
        let exact = PI * 1e14;
        assert!((area(&m, 0) - exact).abs() / exact < 1e-4);
    }

    #[test]
    fn contexts_over_the_segment_cap_skip_what_does_not_fit() {
        let mut g = GraphicsContext::new();
        g.rect(0.0, 0.0, 4.0, 4.0).fill(Color::BLUE);
        let pts: Vec<Vec2> = (0..MAX_PATH_SEGMENTS + 10)
            .map(|i| Vec2::new(i as f32, (i % 2) as f32))
            .collect();
        for p in pts.chunks(60_000) {
            g.move_to(p[0].x, p[0].y);
            for q in &p[1..] {
                g.line_to(q.x, q.y);
            }
        }
        g.stroke(StrokeStyle::default());
        g.rect(0.0, 0.0, 2.0, 2.0).fill(Color::GREEN);
        assert!(matches!(
            g.check_complexity(),
            Err(crate::Error::PathTooComplex {
                max: MAX_PATH_SEGMENTS,
                ..
            })
        ));
        let (m, r) = tessellate(&g, 0.25);
        assert_eq!(r.skipped_instructions, 1, "the stroke");
        assert_eq!(m.parts.len(), 2, "both fills still drawn");
        let mut small = GraphicsContext::new();
        small.circle(0.0, 0.0, 10.0).fill(Color::RED);
        assert!(small.check_complexity().unwrap() > 10);
    }
}
