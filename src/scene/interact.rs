//! The caches hit testing and bounds keep (shapes flattened for exact tests, text block sizes, each container's
//! bounds). A node's own pointer settings (event mode, cursor, hit area) are in `pointer.rs`; the walks that use
//! both are in `hit.rs`; the scene stores the caches.

use crate::graphics::path::Polyline;
use crate::graphics::{FillRule, Instruction, LineCap, LineJoin, MAX_PATH_SEGMENTS};
use crate::scene::aabb::Aabb;
use crate::scene::pointer::winding;
use crate::{NodeId, NodeKind, NodeProps, Transform};
use glam::Vec2;
use rustc_hash::FxHashMap;
use std::sync::Arc;

fn winding_of(lines: &[Polyline], p: Vec2) -> i32 {
    lines.iter().map(|l| winding(&l.points, p, false)).sum()
}

/// How a stroke looks where it bends and ends.
#[derive(Clone, Copy, Debug)]
struct StrokeShape {
    /// Half the width each side of the outline.
    half: f32,
    cap: LineCap,
    join: LineJoin,
    miter_limit: f32,
}

/// Whether `p` lies in a convex polygon (either winding, edges included).
fn in_convex(poly: &[Vec2], p: Vec2) -> bool {
    let (mut pos, mut neg) = (false, false);
    for i in 0..poly.len() {
        let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
        let c = (b - a).perp_dot(p - a);
        pos |= c > 0.0;
        neg |= c < 0.0;
    }
    !(pos && neg)
}

/// Whether `p` lies in the stroke of `lines` as the renderer draws it (lyon's stroker): a band of `half` each
/// side of every segment, the joins (round, bevel, or a miter, cut at the limit) at every bend, and the caps
/// (butt, round, square) at the ends of open subpaths.
fn in_stroke(lines: &[Polyline], p: Vec2, st: StrokeShape) -> bool {
    let h = st.half;
    let h2 = h * h;
    let cap = |end: Vec2, out: Vec2| match st.cap {
        LineCap::Butt => false,
        LineCap::Round => p.distance_squared(end) <= h2,
        LineCap::Square => {
            let d = p - end;
            let along = d.dot(out);
            (0.0..=h).contains(&along) && d.perp_dot(out).abs() <= h
        }
    };
    lines.iter().any(|l| {
        let pts = &l.points;
        let n = pts.len();
        if n == 1 {
            return match st.cap {
                LineCap::Butt => false,
                LineCap::Round => p.distance_squared(pts[0]) <= h2,
                LineCap::Square => (p - pts[0]).abs().max_element() <= h,
            };
        }
        let segs = if l.closed { n } else { n - 1 };
        for i in 0..segs {
            let (a, b) = (pts[i], pts[(i + 1) % n]);
            let ab = b - a;
            let len2 = ab.length_squared();
            if len2 <= 0.0 {
                continue;
            }
            let t = (p - a).dot(ab) / len2;
            if (0.0..=1.0).contains(&t) && ab.perp_dot(p - a).powi(2) <= h2 * len2 {
                return true;
            }
        }
        if !l.closed {
            let first = (pts[0] - pts[1]).normalize_or_zero();
            let last = (pts[n - 1] - pts[n - 2]).normalize_or_zero();
            if cap(pts[0], first) || cap(pts[n - 1], last) {
                return true;
            }
        }
        let bends = if l.closed { 0..n } else { 1..n - 1 };
        bends.into_iter().any(|i| {
            let v = pts[i];
            let d1 = (v - pts[(i + n - 1) % n]).normalize_or_zero();
            let d2 = (pts[(i + 1) % n] - v).normalize_or_zero();
            let turn = d1.perp_dot(d2);
            if st.join == LineJoin::Round {
                return p.distance_squared(v) <= h2;
            }
            if turn.abs() < 1e-6 {
                return false;
            }
            // The outer side of the bend: opposite to where it turns.
            let o1 = d1.perp() * -turn.signum() * h;
            let o2 = d2.perp() * -turn.signum() * h;
            let (c1, c2) = (v + o1, v + o2);
            let mid = (o1 + o2).normalize_or_zero();
            let cos_half = mid.dot(o1) / h;
            if st.join != LineJoin::Miter || cos_half <= 0.0 {
                return in_convex(&[v, c1, c2], p);
            }
            // The renderer's miter (lyon's MiterClip): the full spike while it reaches at most twice the limit
            // in half widths, else cut square at the limit.
            let reach = 1.0 / cos_half;
            let tip = v + mid * (h * reach);
            if reach <= 2.0 * st.miter_limit {
                return in_convex(&[v, c1, tip, c2], p);
            }
            let s = (st.miter_limit - cos_half) / (reach - cos_half);
            in_convex(&[v, c1, c1 + (tip - c1) * s, c2 + (tip - c2) * s, c2], p)
        })
    })
}

/// A graphics context's instructions flattened for hit tests, with their bounds.
#[derive(Debug, Default)]
pub(crate) struct HitShapes {
    shapes: Vec<HitShape>,
    bounds: Aabb,
}

#[derive(Debug)]
enum HitShape {
    Fill {
        lines: Vec<Polyline>,
        holes: Vec<Polyline>,
        rule: FillRule,
    },
    Stroke {
        lines: Vec<Polyline>,
        shape: StrokeShape,
    },
}

impl HitShapes {
    /// Flattens `ctx` at a tolerance of a thousandth of its extent (at least 0.01 px).
    fn new(ctx: &crate::GraphicsContext) -> HitShapes {
        let mut extent = Aabb::EMPTY;
        for ins in ctx.instructions() {
            let (Instruction::Fill { path, .. } | Instruction::Stroke { path, .. }) = ins;
            for c in path.commands() {
                use crate::graphics::PathCommand::*;
                match *c {
                    MoveTo(p) | LineTo(p) => extent.add_point(p),
                    QuadTo(a, b) => [a, b].into_iter().for_each(|p| extent.add_point(p)),
                    CubicTo(a, b, d) => [a, b, d].into_iter().for_each(|p| extent.add_point(p)),
                    Arc { center, radii, .. } => {
                        extent.add_point(center - radii);
                        extent.add_point(center + radii);
                    }
                    Close => {}
                }
            }
        }
        let size = if extent.is_empty() {
            1.0
        } else {
            (extent.max - extent.min).max_element()
        };
        let tolerance = if size.is_finite() {
            (size * 1e-3).max(0.01)
        } else {
            0.25
        };
        let mut out = HitShapes {
            shapes: Vec::new(),
            bounds: Aabb::EMPTY,
        };
        let mut budget = MAX_PATH_SEGMENTS as usize;
        let flat = |path: &crate::graphics::path::ShapePath, budget: &mut usize| {
            match path.flatten_within(tolerance, *budget) {
                Ok((lines, _)) => {
                    let n: usize = lines.iter().map(|l| l.points.len()).sum();
                    *budget = budget.saturating_sub(n);
                    Some(lines)
                }
                // Past the complexity cap a frame skips the shape too.
                Err(_) => None,
            }
        };
        for ins in ctx.instructions() {
            match ins {
                Instruction::Fill { path, holes, style } => {
                    let (Some(lines), Some(holes)) =
                        (flat(path, &mut budget), flat(holes, &mut budget))
                    else {
                        continue;
                    };
                    lines
                        .iter()
                        .flat_map(|l| &l.points)
                        .for_each(|p| out.bounds.add_point(*p));
                    out.shapes.push(HitShape::Fill {
                        lines,
                        holes,
                        rule: style.fill_rule,
                    });
                }
                Instruction::Stroke { path, holes, style } => {
                    // What the renderer skips (flatten.rs) is not hit either.
                    if !(style.width.is_finite()
                        && style.width > 0.0
                        && style.miter_limit.is_finite())
                    {
                        continue;
                    }
                    let (Some(mut lines), Some(holes)) =
                        (flat(path, &mut budget), flat(holes, &mut budget))
                    else {
                        continue;
                    };
                    lines.extend(holes);
                    // Inner and outer strokes are centred strokes of the outline offset half a width, as drawn.
                    let (lines, _) = crate::graphics::flatten::align_stroke(lines, style);
                    let shape = StrokeShape {
                        half: style.width * 0.5,
                        cap: style.cap,
                        join: style.join,
                        miter_limit: style.miter_limit.max(1.0),
                    };
                    for l in &lines {
                        for i in 0..l.points.len() {
                            stroke_extent(&l.points, i, l.closed, &shape, |q| {
                                out.bounds.add_point(q)
                            });
                        }
                    }
                    out.shapes.push(HitShape::Stroke { lines, shape });
                }
            }
        }
        out
    }

    fn contains(&self, p: Vec2) -> bool {
        if !self.bounds.contains(p) {
            return false;
        }
        self.shapes.iter().any(|s| match s {
            HitShape::Fill { lines, holes, rule } => {
                let w = winding_of(lines, p);
                let inside = match rule {
                    FillRule::NonZero => w != 0,
                    FillRule::EvenOdd => w & 1 != 0,
                };
                inside && winding_of(holes, p) == 0
            }
            HitShape::Stroke { lines, shape } => in_stroke(lines, p, *shape),
        })
    }
}

/// The points that bound the stroke around point `i` of an outline (PixiJS's exact stroke bounds, not a box
/// around a circle): the ends of the offset edges meeting there, and the join's or cap's reach (a miter's tip, as
/// lyon's MiterClip draws it; a round join's or cap's circle; a square cap's corners).
fn stroke_extent(
    points: &[Vec2],
    i: usize,
    closed: bool,
    shape: &StrokeShape,
    mut add: impl FnMut(Vec2),
) {
    let n = points.len();
    let h = shape.half;
    let p = points[i];
    let round = |add: &mut dyn FnMut(Vec2)| {
        add(p - h);
        add(p + h);
    };
    if n < 2 {
        round(&mut add);
        return;
    }
    let open_end = !closed && (i == 0 || i == n - 1);
    // Unit directions along the edges before and after the point (an open end has one).
    let before = (i > 0 || closed).then(|| (p - points[(i + n - 1) % n]).normalize_or_zero());
    let after = (i + 1 < n || closed).then(|| (points[(i + 1) % n] - p).normalize_or_zero());
    for d in [before, after].into_iter().flatten() {
        let normal = d.perp() * h;
        add(p + normal);
        add(p - normal);
    }
    if open_end {
        let out = match (before, after) {
            (Some(d), None) => d,
            (None, Some(d)) => -d,
            _ => Vec2::ZERO,
        };
        match shape.cap {
            LineCap::Butt => {}
            LineCap::Round => round(&mut add),
            LineCap::Square => {
                let normal = out.perp() * h;
                add(p + out * h + normal);
                add(p + out * h - normal);
            }
        }
        return;
    }
    let (Some(a), Some(b)) = (before, after) else {
        return;
    };
    match shape.join {
        LineJoin::Round => round(&mut add),
        LineJoin::Bevel => {}
        LineJoin::Miter => {
            // The tip lies along the outer bisector, 1 / sin(θ/2) half widths out; lyon's MiterClip keeps the
            // whole spike while that is at most twice the limit, else cuts it at the limit.
            let bisector = b - a;
            let cos = (-a).dot(b).clamp(-1.0, 1.0);
            let half_sin = ((1.0 - cos) * 0.5).sqrt();
            if half_sin < 1e-6 {
                // A full turn back: the clipped spike reaches the limit along the edge.
                add(p + a * h * shape.miter_limit);
                return;
            }
            if bisector.length_squared() < 1e-12 {
                return; // straight on: no corner
            }
            let reach = if half_sin * 2.0 * shape.miter_limit >= 1.0 {
                1.0 / half_sin
            } else {
                shape.miter_limit
            };
            let dir = bisector.normalize();
            // The outer side is the one the turn leaves open: both are added, the inner one lies in the stroke.
            add(p + dir * h * reach);
            add(p - dir * h * reach);
        }
    }
}

/// A node's cached local bounds.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct LocalEntry {
    /// What the subtree draws (the bounds queries answer).
    pub bounds: Aabb,
    /// That and the subtree's hit areas (what a hit test prunes with).
    pub hit: Aabb,
    /// The epoch it was computed at (0: never).
    pub at: u64,
    /// Recomputations for a hit test in a row that pruned nothing (see `Scene::prune_entry`).
    pub wasted: u32,
    /// Stale finds since it last was recomputed.
    pub stale: u32,
}

/// Entries of the shape and text caches kept before they are cleared (contexts and texts that died).
const MAX_CONTENT_ENTRIES: usize = 4096;

/// The scene's bounds and hit-test caches (behind a mutex in the scene, so queries take `&self`).
#[derive(Debug, Default)]
pub(crate) struct QueryCache {
    pub local: Vec<LocalEntry>,
    /// Per graphics-context id: (version, flattened shapes).
    shapes: FxHashMap<u64, (u64, Arc<HitShapes>)>,
    /// Per text id: (version, block size).
    #[cfg(feature = "text")]
    texts: FxHashMap<u64, (u64, Vec2)>,
    /// Reused walk stacks.
    pub bounds_stack: Vec<BoundsFrame>,
    pub hit_stack: Vec<HitFrame>,
    /// The nodes of the render layers a hit walk entered, in draw order (see [`HitFrame::layer`]).
    pub layer_lists: Vec<NodeId>,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct BoundsFrame {
    pub slot: usize,
    pub next: usize,
    pub acc: Aabb,
    pub hit: Aabb,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct HitFrame {
    pub id: NodeId,
    /// The point in the node's local space.
    pub p: Vec2,
    /// Whether the node or an ancestor is interactive (its content hits on the nearest one's behalf).
    pub tested: bool,
    pub interactive: bool,
    /// Children left to visit (from the top down).
    pub left: usize,
    /// Whether a child was hit (the "all" walk).
    pub child_hit: bool,
    /// Whether the node was listed already (the "all" walk).
    pub reported: bool,
    /// For a render layer: where its nodes start in `QueryCache::layer_lists`, and how many (they come before
    /// its children in draw order, so after them from the top down).
    pub layer: (u32, u32),
}

impl QueryCache {
    fn shapes(&mut self, ctx: &crate::GraphicsContext) -> Arc<HitShapes> {
        if let Some((v, s)) = self.shapes.get(&ctx.id()) {
            if *v == ctx.version() {
                return s.clone();
            }
        }
        if self.shapes.len() >= MAX_CONTENT_ENTRIES {
            self.shapes.clear();
        }
        let s = Arc::new(HitShapes::new(ctx));
        self.shapes.insert(ctx.id(), (ctx.version(), s.clone()));
        s
    }

    #[cfg(feature = "text")]
    fn text_size(&mut self, text: &crate::Text) -> Vec2 {
        if let Some((v, s)) = self.texts.get(&text.id()) {
            if *v == text.version() {
                return *s;
            }
        }
        if self.texts.len() >= MAX_CONTENT_ENTRIES {
            self.texts.clear();
        }
        let s = text.block_size();
        self.texts.insert(text.id(), (text.version(), s));
        s
    }

    /// The node's content box in its local space (empty for containers and for non-finite sizes).
    pub(crate) fn content_bounds(&mut self, node: &NodeProps) -> Aabb {
        let mut b = Aabb::EMPTY;
        match &node.kind {
            NodeKind::Container => {}
            NodeKind::Sprite(s) => {
                let size = s.size_in_pixels();
                let o = -s.anchor * size;
                b.add_point(o);
                b.add_point(o + size);
            }
            NodeKind::NineSlice(n) => {
                let (lo, hi) = n.local_rect();
                b.add_point(lo);
                b.add_point(hi);
            }
            NodeKind::Tiling(t) => {
                let o = -t.anchor * t.size;
                b.add_point(o);
                b.add_point(o + t.size);
            }
            NodeKind::Graphics(ctx) => b = self.shapes(ctx).bounds,
            NodeKind::Mesh(m) => {
                if let Some((lo, hi)) = m.geometry.bounds() {
                    b.add_point(lo);
                    b.add_point(hi);
                }
            }
            #[cfg(feature = "text")]
            NodeKind::Text(t) => {
                let size = self.text_size(t);
                let o = -t.anchor * size;
                b.add_point(o);
                b.add_point(o + size);
            }
            // As PixiJS's: only the bounds area the user set.
            NodeKind::Particles(p) => {
                if let Some(r) = p.bounds_area {
                    b.add_point(r.min);
                    b.add_point(r.max);
                }
            }
            NodeKind::RenderLayer(_) => {}
        }
        if b.min.is_finite() && b.max.is_finite() {
            b
        } else {
            Aabb::EMPTY
        }
    }

    /// Whether the node's shape as a mask covers the local point `p`: as [`QueryCache::content_contains`], but a
    /// sprite of a trimmed frame masks with the pixels it draws, as the stencil does, not its untrimmed box.
    pub(crate) fn mask_shape_contains(&mut self, node: &NodeProps, p: Vec2) -> bool {
        match &node.kind {
            NodeKind::Sprite(s) if !s.texture.is_plain() => {
                let (p0, dx, dy) = s.quad(&glam::Affine2::IDENTITY);
                let (a, b) = (p0, p0 + dx + dy);
                p.cmpge(a.min(b)).all() && p.cmple(a.max(b)).all()
            }
            _ => self.content_contains(node, p),
        }
    }

    /// Whether the node's own content covers the local point `p` (sprites, the common case, inline).
    #[inline]
    pub(crate) fn content_contains(&mut self, node: &NodeProps, p: Vec2) -> bool {
        match &node.kind {
            NodeKind::Sprite(s) => {
                let size = s.size_in_pixels();
                let a = -s.anchor * size;
                let b = a + size;
                p.cmpge(a.min(b)).all() && p.cmple(a.max(b)).all()
            }
            NodeKind::Container | NodeKind::RenderLayer(_) => false,
            NodeKind::NineSlice(_) | NodeKind::Tiling(_) | NodeKind::Particles(_) => {
                self.content_bounds(node).contains(p)
            }
            NodeKind::Graphics(ctx) => self.shapes(ctx).contains(p),
            NodeKind::Mesh(m) => m.geometry.contains(p),
            #[cfg(feature = "text")]
            NodeKind::Text(_) => self.content_bounds(node).contains(p),
        }
    }
}

/// `p` (in the parent's space) in the node's local space: the inverse of
/// `translate(position) · rotate · scale · translate(-pivot)`; `None` for a singular or non-finite transform.
#[inline]
pub(crate) fn to_local(node: &Transform, p: Vec2) -> Option<Vec2> {
    let mut d = p - node.position;
    if node.rotation != 0.0 {
        let (sin, cos) = node.rotation.sin_cos();
        d = Vec2::new(d.x * cos + d.y * sin, -d.x * sin + d.y * cos);
    }
    let q = d / node.scale + node.pivot;
    q.is_finite().then_some(q)
}
