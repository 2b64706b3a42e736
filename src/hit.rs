//! Bounds and hit testing on the scene, on the CPU and without a renderer.
//!
//! Bounds: each container's local bounds (its content and its visible children, in its own space) are cached per
//! slot with the epoch they were computed at, and stay valid while the scene's change stamps say neither the node nor
//! anything below it changed (see [`Scene::begin_walk`]). A query after a change recomputes only the stale
//! nodes on its path; world bounds map the cached local box through the node's world transform.
//!
//! Hit testing walks the tree from the top of the draw order down, PixiJS's `EventBoundary` way: it carries the
//! point into each node's local space (one inverse transform a node, no matrices multiplied), prunes containers
//! whose cached bounds miss the point or that hold nothing interactive, and tests what is left exactly: a
//! sprite's or text's rectangle, a shape's fills by their fill rule and its strokes by distance, or the node's
//! [`HitArea`]. A node outside its mask is not hit. The walk keeps its own stack, so a chain of 10,000 nested
//! containers costs no recursion.
//!
//! Index: none beyond the cached subtree bounds. A scene whose sprites all move every frame must read every
//! moved node again whatever index it keeps, and a linear pass over them with an early exit in draw order is
//! what the figures in BENCHMARKS.md come from.

use crate::cull::Aabb;
use crate::graphics::path::Polyline;
use crate::graphics::{FillRule, Instruction, LineJoin, StrokeAlignment, MAX_PATH_SEGMENTS};
use crate::scene::Scene;
use crate::{Error, Node, NodeId, NodeKind, Result};
use glam::Vec2;
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// How a node takes part in hit testing and pointer events (PixiJS's `eventMode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum EventMode {
    /// Neither the node nor anything below it is hit-tested or receives events.
    None,
    /// The default: the node receives no events and is not a hit target, but its interactive children are. Below
    /// an interactive ancestor its content still counts as part of that ancestor (a button's label hits the
    /// button).
    #[default]
    Passive,
    /// The node is hit-tested and receives events.
    Static,
    /// As [`EventMode::Static`], and a pointer that stays still also sees it move in or out from under it
    /// (over, out, enter and leave events from [`Events::tick`](crate::Events::tick)).
    Dynamic,
}

impl EventMode {
    /// Whether a node in this mode can be a hit target (static or dynamic).
    pub fn is_interactive(self) -> bool {
        matches!(self, EventMode::Static | EventMode::Dynamic)
    }
}

/// A mouse cursor shape, shown while a pointer is over a node that sets it (see [`Scene::set_cursor`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Cursor {
    /// The platform's arrow.
    #[default]
    Default,
    /// A hand: something to click.
    Pointer,
    /// An open hand: something to drag.
    Grab,
    /// A closed hand: something being dragged.
    Grabbing,
    /// An I-beam over text.
    Text,
    /// Moving something.
    Move,
    /// A crosshair.
    Crosshair,
    /// The action is not allowed.
    NotAllowed,
    /// Busy.
    Wait,
    /// Help.
    Help,
    /// Resizing left and right.
    EwResize,
    /// Resizing up and down.
    NsResize,
}

/// A node's own hit region in its local space, replacing its content's (PixiJS's `hitArea`). Children outside
/// it are not hit either.
#[derive(Clone, Debug, PartialEq)]
pub enum HitArea {
    /// An axis-aligned rectangle.
    Rect {
        /// Top-left corner.
        x: f32,
        /// Top.
        y: f32,
        /// Width (not negative).
        width: f32,
        /// Height (not negative).
        height: f32,
    },
    /// A circle.
    Circle {
        /// Centre.
        center: Vec2,
        /// Radius (not negative).
        radius: f32,
    },
    /// An ellipse with axes along x and y.
    Ellipse {
        /// Centre.
        center: Vec2,
        /// Half-width and half-height (not negative).
        radii: Vec2,
    },
    /// A closed polygon (at least three points), filled by the even-odd rule as PixiJS's `Polygon`.
    Polygon(Vec<Vec2>),
}

impl HitArea {
    /// `Ok` for a usable area; [`Error::InvalidHitArea`] for non-finite numbers, negative sizes or a polygon of
    /// fewer than three points.
    pub fn validate(&self) -> Result<()> {
        let ok = match self {
            HitArea::Rect {
                x,
                y,
                width,
                height,
            } => {
                [*x, *y, *width, *height].iter().all(|v| v.is_finite())
                    && *width >= 0.0
                    && *height >= 0.0
            }
            HitArea::Circle { center, radius } => {
                center.is_finite() && radius.is_finite() && *radius >= 0.0
            }
            HitArea::Ellipse { center, radii } => {
                center.is_finite() && radii.is_finite() && radii.x >= 0.0 && radii.y >= 0.0
            }
            HitArea::Polygon(points) => {
                if points.len() < 3 {
                    return Err(Error::InvalidHitArea(
                        "a polygon needs at least three points",
                    ));
                }
                points.iter().all(|p| p.is_finite())
            }
        };
        match ok {
            true => Ok(()),
            false => Err(Error::InvalidHitArea(
                "non-finite coordinates or a negative size",
            )),
        }
    }

    /// Whether the local point `p` lies in the area (edges included).
    pub fn contains(&self, p: Vec2) -> bool {
        match self {
            HitArea::Rect {
                x,
                y,
                width,
                height,
            } => p.x >= *x && p.y >= *y && p.x <= x + width && p.y <= y + height,
            HitArea::Circle { center, radius } => p.distance_squared(*center) <= radius * radius,
            HitArea::Ellipse { center, radii } => {
                if radii.x <= 0.0 || radii.y <= 0.0 {
                    return false;
                }
                let d = (p - *center) / *radii;
                d.length_squared() <= 1.0
            }
            HitArea::Polygon(points) => winding(points, p, true) != 0,
        }
    }

    fn bounds(&self) -> Aabb {
        let mut b = Aabb::EMPTY;
        match self {
            HitArea::Rect {
                x,
                y,
                width,
                height,
            } => {
                b.add_point(Vec2::new(*x, *y));
                b.add_point(Vec2::new(x + width, y + height));
            }
            HitArea::Circle { center, radius } => {
                b.add_point(*center - *radius);
                b.add_point(*center + *radius);
            }
            HitArea::Ellipse { center, radii } => {
                b.add_point(*center - *radii);
                b.add_point(*center + *radii);
            }
            HitArea::Polygon(points) => points.iter().for_each(|p| b.add_point(*p)),
        }
        b
    }
}

/// An axis-aligned rectangle in pixels: a node's bounds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    /// Top-left corner.
    pub min: Vec2,
    /// Bottom-right corner.
    pub max: Vec2,
}

impl Rect {
    /// Width.
    pub fn width(&self) -> f32 {
        self.max.x - self.min.x
    }

    /// Height.
    pub fn height(&self) -> f32 {
        self.max.y - self.min.y
    }

    /// Whether `p` lies inside (edges included).
    pub fn contains(&self, p: Vec2) -> bool {
        p.x >= self.min.x && p.y >= self.min.y && p.x <= self.max.x && p.y <= self.max.y
    }

    fn from_aabb(b: Aabb) -> Option<Rect> {
        (!b.is_empty() && b.min.is_finite() && b.max.is_finite()).then_some(Rect {
            min: b.min,
            max: b.max,
        })
    }
}

/// Winding number of the closed outline `points` around `p` (the crossing parity alone when `even_odd`).
fn winding(points: &[Vec2], p: Vec2, even_odd: bool) -> i32 {
    let n = points.len();
    if n < 3 {
        return 0;
    }
    let mut w = 0;
    let mut j = n - 1;
    for i in 0..n {
        let (a, b) = (points[j], points[i]);
        if (a.y <= p.y) != (b.y <= p.y) {
            // The edge crosses the horizontal through `p`: count it if the crossing lies to the right.
            let side = (b - a).perp_dot(p - a);
            let upward = b.y > a.y;
            if (upward && side > 0.0) || (!upward && side < 0.0) {
                w += if upward || even_odd { 1 } else { -1 };
            }
        }
        j = i;
    }
    if even_odd {
        w & 1
    } else {
        w
    }
}

fn winding_of(lines: &[Polyline], p: Vec2) -> i32 {
    lines.iter().map(|l| winding(&l.points, p, false)).sum()
}

/// Squared distance from `p` to the segment `a`–`b`.
fn segment_distance2(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let ab = b - a;
    let len2 = ab.length_squared();
    let t = if len2 > 0.0 {
        ((p - a).dot(ab) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    p.distance_squared(a + ab * t)
}

fn near_outline(lines: &[Polyline], p: Vec2, d: f32) -> bool {
    let d2 = d * d;
    lines.iter().any(|l| {
        let pts = &l.points;
        match pts.len() {
            0 => false,
            1 => p.distance_squared(pts[0]) <= d2,
            n => {
                let open = pts
                    .windows(2)
                    .any(|w| segment_distance2(p, w[0], w[1]) <= d2);
                open || (l.closed && segment_distance2(p, pts[n - 1], pts[0]) <= d2)
            }
        }
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
        width: f32,
        alignment: StrokeAlignment,
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
                    if !(style.width.is_finite() && style.width > 0.0) {
                        continue;
                    }
                    let (Some(mut lines), Some(holes)) =
                        (flat(path, &mut budget), flat(holes, &mut budget))
                    else {
                        continue;
                    };
                    lines.extend(holes);
                    let reach = match style.alignment {
                        StrokeAlignment::Centre => style.width * 0.5,
                        StrokeAlignment::Inner => 0.0,
                        StrokeAlignment::Outer => style.width,
                    };
                    // Miter joins reach past the outline at sharp corners, up to the miter limit.
                    let join = match style.join {
                        LineJoin::Miter if style.miter_limit.is_finite() => {
                            style.miter_limit.max(1.0)
                        }
                        LineJoin::Miter => 1.0,
                        _ => 1.0,
                    };
                    for l in &lines {
                        for (i, p) in l.points.iter().enumerate() {
                            let pad = reach * miter_factor(&l.points, i, l.closed, join);
                            out.bounds.add_point(*p - pad);
                            out.bounds.add_point(*p + pad);
                        }
                    }
                    out.shapes.push(HitShape::Stroke {
                        lines,
                        width: style.width,
                        alignment: style.alignment,
                    });
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
            HitShape::Stroke {
                lines,
                width,
                alignment,
            } => match alignment {
                StrokeAlignment::Centre => near_outline(lines, p, width * 0.5),
                StrokeAlignment::Inner => {
                    winding_of(lines, p) != 0 && near_outline(lines, p, *width)
                }
                StrokeAlignment::Outer => {
                    winding_of(lines, p) == 0 && near_outline(lines, p, *width)
                }
            },
        })
    }
}

/// How far a stroke's join at point `i` reaches, in half widths: `1/sin(θ/2)` for a corner of angle θ, capped by
/// the miter limit (where the join is bevelled instead).
fn miter_factor(points: &[Vec2], i: usize, closed: bool, limit: f32) -> f32 {
    let n = points.len();
    if n < 3 || (!closed && (i == 0 || i == n - 1)) {
        // Square caps reach half a width past the ends, diagonally.
        return std::f32::consts::SQRT_2;
    }
    if limit <= 1.0 {
        return 1.0;
    }
    let prev = points[(i + n - 1) % n];
    let next = points[(i + 1) % n];
    let (a, b) = (
        (prev - points[i]).normalize_or_zero(),
        (next - points[i]).normalize_or_zero(),
    );
    let cos = a.dot(b).clamp(-1.0, 1.0);
    let half_sin = ((1.0 - cos) * 0.5).sqrt();
    if half_sin <= 1.0 / limit {
        1.0
    } else {
        (1.0 / half_sin).max(std::f32::consts::SQRT_2)
    }
}

/// A node's cached local bounds.
#[derive(Clone, Copy, Debug, Default)]
struct LocalEntry {
    bounds: Aabb,
    /// Whether anything in the subtree can be a hit target.
    interactive: bool,
    /// The epoch it was computed at (0: never).
    at: u64,
    /// Recomputations for a hit test in a row that pruned nothing (see [`Scene::prune_entry`]).
    wasted: u32,
    /// Stale finds since it last was recomputed.
    stale: u32,
}

/// Entries of the shape and text caches kept before they are cleared (contexts and texts that died).
const MAX_CONTENT_ENTRIES: usize = 4096;

/// The scene's bounds and hit-test caches (behind a mutex in [`Scene`], so queries take `&self`).
#[derive(Debug, Default)]
pub(crate) struct QueryCache {
    local: Vec<LocalEntry>,
    /// Per graphics-context id: (version, flattened shapes).
    shapes: FxHashMap<u64, (u64, Arc<HitShapes>)>,
    /// Per text id: (version, block size).
    #[cfg(feature = "text")]
    texts: FxHashMap<u64, (u64, Vec2)>,
    /// Reused walk stacks.
    bounds_stack: Vec<BoundsFrame>,
    hit_stack: Vec<HitFrame>,
}

#[derive(Clone, Copy, Debug)]
struct BoundsFrame {
    slot: usize,
    next: usize,
    acc: Aabb,
    interactive: bool,
}

#[derive(Clone, Copy, Debug)]
struct HitFrame {
    id: NodeId,
    /// The point in the node's local space.
    p: Vec2,
    /// Whether the node or an ancestor is interactive (its content hits on the nearest one's behalf).
    tested: bool,
    interactive: bool,
    /// Children left to visit (from the top down).
    left: usize,
    /// Whether a child was hit (the "all" walk).
    child_hit: bool,
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
    fn content_bounds(&mut self, node: &Node) -> Aabb {
        let mut b = Aabb::EMPTY;
        match &node.kind {
            NodeKind::Container => {}
            NodeKind::Sprite(s) => {
                let size = s.size_in_pixels();
                let o = -s.anchor * size;
                b.add_point(o);
                b.add_point(o + size);
            }
            NodeKind::Graphics(ctx) => b = self.shapes(ctx).bounds,
            #[cfg(feature = "text")]
            NodeKind::Text(t) => {
                let size = self.text_size(t);
                let o = -t.anchor * size;
                b.add_point(o);
                b.add_point(o + size);
            }
        }
        if b.min.is_finite() && b.max.is_finite() {
            b
        } else {
            Aabb::EMPTY
        }
    }

    /// Whether the node's own content covers the local point `p` (sprites, the common case, inline).
    #[inline]
    fn content_contains(&mut self, node: &Node, p: Vec2) -> bool {
        match &node.kind {
            NodeKind::Sprite(s) => {
                let size = s.size_in_pixels();
                let a = -s.anchor * size;
                let b = a + size;
                p.cmpge(a.min(b)).all() && p.cmple(a.max(b)).all()
            }
            NodeKind::Container => false,
            NodeKind::Graphics(ctx) => self.shapes(ctx).contains(p),
            #[cfg(feature = "text")]
            NodeKind::Text(_) => self.content_bounds(node).contains(p),
        }
    }
}

impl Aabb {
    #[inline]
    fn contains(&self, p: Vec2) -> bool {
        p.x >= self.min.x && p.y >= self.min.y && p.x <= self.max.x && p.y <= self.max.y
    }
}

/// `p` (in the parent's space) in the node's local space: the inverse of
/// `translate(position) · rotate · scale · translate(-pivot)`; `None` for a singular or non-finite transform.
#[inline]
fn to_local(node: &Node, p: Vec2) -> Option<Vec2> {
    let mut d = p - node.position;
    if node.rotation != 0.0 {
        let (sin, cos) = node.rotation.sin_cos();
        d = Vec2::new(d.x * cos + d.y * sin, -d.x * sin + d.y * cos);
    }
    let q = d / node.scale + node.pivot;
    q.is_finite().then_some(q)
}

impl Scene {
    /// The cached local entry of a live slot, recomputing it and whatever is stale below it.
    fn local_entry(&self, cache: &mut QueryCache, at: u64, slot: usize) -> LocalEntry {
        // Only containers' entries are kept: a leaf's own changes are not stamped (see `Scene::touch`), and its
        // content box costs less to compute than to look up.
        let valid = |cache: &QueryCache, s: usize| {
            self.child_count(s) != 0
                && cache
                    .local
                    .get(s)
                    .is_some_and(|e| e.at != 0 && self.changed_at(s) <= e.at)
        };
        if valid(cache, slot) {
            return cache.local[slot];
        }
        if cache.local.len() < self.slot_count() {
            cache.local.resize(self.slot_count(), LocalEntry::default());
        }
        let mut stack = std::mem::take(&mut cache.bounds_stack);
        stack.clear();
        let start = |cache: &mut QueryCache, s: usize| {
            let node = self.node_at(s);
            let mode = self.interact(s).event_mode;
            let mut acc = cache.content_bounds(node);
            if let Some(a) = &self.interact(s).hit_area {
                acc.union(a.bounds());
            }
            BoundsFrame {
                slot: s,
                next: 0,
                acc,
                interactive: mode.is_interactive(),
            }
        };
        stack.push(start(cache, slot));
        let mut done = LocalEntry::default();
        while let Some(top) = stack.last_mut() {
            let kids = self.children_of_slot(top.slot);
            let none = self.interact(top.slot).event_mode == EventMode::None;
            if top.next < kids.len() {
                let c = kids[top.next].slot();
                top.next += 1;
                if !self.node_at(c).visible {
                    continue;
                }
                if valid(cache, c) {
                    let e = cache.local[c];
                    merge(self.node_at(c), e, top, none);
                } else {
                    let f = start(cache, c);
                    stack.push(f);
                }
                continue;
            }
            let f = stack.pop().expect("a frame");
            let entry = LocalEntry {
                bounds: f.acc,
                interactive: f.interactive && !none,
                at,
                wasted: 0,
                stale: 0,
            };
            cache.local[f.slot] = entry;
            match stack.last_mut() {
                Some(parent) => {
                    let none = self.interact(parent.slot).event_mode == EventMode::None;
                    merge(self.node_at(f.slot), entry, parent, none);
                }
                None => done = entry,
            }
        }
        cache.bounds_stack = stack;
        done
    }

    /// The cached entry a hit test prunes a container with, or `None` to test its children without pruning.
    /// Recomputing stale bounds costs a pass over the subtree, more than the hit test it saves when the subtree
    /// changes every frame and the point lies inside it anyway (the root of a bunnymark whose sprites all move):
    /// once two recomputations in a row pruned nothing, a stale entry is recomputed only every 32nd time it is
    /// met, until one prunes again.
    fn prune_entry(&self, cache: &mut QueryCache, at: u64, slot: usize) -> Option<LocalEntry> {
        if cache.local.len() < self.slot_count() {
            cache.local.resize(self.slot_count(), LocalEntry::default());
        }
        let e = &mut cache.local[slot];
        if e.at != 0 && self.changed_at(slot) <= e.at && self.child_count(slot) != 0 {
            return Some(*e);
        }
        let (wasted, stale) = (e.wasted, e.stale.wrapping_add(1));
        e.stale = stale;
        if wasted >= 2 && stale % 32 != 0 {
            return None;
        }
        let fresh = self.local_entry(cache, at, slot);
        cache.local[slot].wasted = wasted;
        Some(fresh)
    }

    /// The node's bounds in its own space (before its transform): its content (a sprite's rectangle, a shape's
    /// fills and strokes, a text's block, a hit area) and its visible children's bounds. `None` for a removed
    /// node or one with nothing to bound. Cached: a query after changes recomputes only what changed.
    pub fn local_bounds(&self, id: NodeId) -> Option<Rect> {
        self.slot(id)?;
        let (mut cache, at) = self.query();
        Rect::from_aabb(self.local_entry(&mut cache, at, id.slot()).bounds)
    }

    /// The node's bounds in scene space: the box around its [local bounds](Scene::local_bounds) placed by its
    /// [world transform](Scene::world_transform). `None` for a removed node, one with nothing to bound, or a
    /// non-finite transform.
    pub fn world_bounds(&self, id: NodeId) -> Option<Rect> {
        let m = self.world_transform(id)?;
        let local = self.local_bounds(id)?;
        Rect::from_aabb(
            Aabb {
                min: local.min,
                max: local.max,
            }
            .transformed(&m),
        )
    }

    /// The topmost node under `point` (scene pixels) that can be a hit target: visible, interactive
    /// ([`EventMode::Static`] or [`EventMode::Dynamic`]) and covering the point with its content or
    /// [`HitArea`], or holding a hit child below an interactive ancestor. The draw order decides (children over
    /// their parent, later siblings over earlier ones, z-index included). Points outside a node's mask do not
    /// hit it; [`Scene::set_interactive_children`] stops the descent. A non-finite point hits nothing.
    pub fn hit_test(&self, point: Vec2) -> Option<NodeId> {
        let mut out = Vec::new();
        self.hit_walk(point, false, &mut out);
        out.pop()
    }

    /// Every node [`Scene::hit_test`] could return at `point` if those above it let the point through, topmost
    /// first (a node after its hit children).
    pub fn hit_test_all(&self, point: Vec2) -> Vec<NodeId> {
        let mut out = Vec::new();
        self.hit_walk(point, true, &mut out);
        out
    }

    /// The hit walk, from the top of the draw order down. The first walk stops at the first hit: the target is
    /// the nearest interactive node from the hit node up (passive content under an interactive ancestor hits
    /// for it, and occludes what lies below). The `all` walk goes on and lists every interactive node hit.
    fn hit_walk(&self, point: Vec2, all: bool, out: &mut Vec<NodeId>) {
        if !point.is_finite() {
            return;
        }
        let (mut cache, at) = self.query();
        let mut stack = std::mem::take(&mut cache.hit_stack);
        stack.clear();
        if let Some(f) = self.hit_enter(&mut cache, at, self.root(), point, point, false) {
            stack.push(f);
        }
        while let Some(top) = stack.last_mut() {
            let f = if top.left > 0 {
                top.left -= 1;
                let child = self.children_of_slot(top.id.slot())[top.left];
                let (p, tested) = (top.p, top.tested || top.interactive);
                match self.hit_enter(&mut cache, at, child, p, point, tested) {
                    Some(f) if f.left > 0 => {
                        stack.push(f);
                        continue;
                    }
                    // A leaf is tested at once, without a frame of its own.
                    Some(f) => f,
                    None => continue,
                }
            } else {
                stack.pop().expect("a frame")
            };
            let hit = f.child_hit
                || ((f.tested || f.interactive) && {
                    match &self.interact(f.id.slot()).hit_area {
                        Some(a) => a.contains(f.p),
                        None => cache.content_contains(self.node_at(f.id.slot()), f.p),
                    }
                });
            if !hit {
                continue;
            }
            if !all {
                let target = std::iter::once(&f)
                    .chain(stack.iter().rev())
                    .find(|fr| fr.interactive);
                out.extend(target.map(|fr| fr.id));
                break;
            }
            if f.interactive {
                out.push(f.id);
            }
            if let Some(parent) = stack.last_mut() {
                parent.child_hit = true;
            }
        }
        stack.clear();
        cache.hit_stack = stack;
    }

    /// Enters `id` with `p` in its parent's space: `None` if the node and its subtree cannot be hit.
    #[inline]
    fn hit_enter(
        &self,
        cache: &mut QueryCache,
        at: u64,
        id: NodeId,
        p_parent: Vec2,
        world: Vec2,
        tested: bool,
    ) -> Option<HitFrame> {
        let slot = id.slot();
        let node = self.node_at(slot);
        if !node.visible {
            return None;
        }
        let ia = self.interact(slot);
        if ia.event_mode == EventMode::None {
            return None;
        }
        let interactive = ia.event_mode.is_interactive();
        let kids = if ia.no_child_hits {
            0
        } else {
            self.child_count(slot)
        };
        // Nothing that can be hit here or below: skip before any arithmetic.
        if !tested && !interactive && kids == 0 {
            return None;
        }
        let p = to_local(node, p_parent)?;
        match &ia.hit_area {
            Some(a) if !a.contains(p) => return None,
            Some(_) => {}
            None if kids > 0 => {
                if let Some(e) = self.prune_entry(cache, at, slot) {
                    let pruned = !(tested || e.interactive) || !e.bounds.contains(p);
                    let w = &mut cache.local[slot].wasted;
                    *w = if pruned { 0 } else { w.saturating_add(1) };
                    if pruned {
                        return None;
                    }
                }
            }
            None => {}
        }
        if let Some(mask) = node.mask {
            // A removed mask: the node is not drawn, so not hit either.
            if !self.contains(mask.node)
                || self.mask_covers(cache, mask.node, world) == mask.inverse
            {
                return None;
            }
        }
        Some(HitFrame {
            id,
            p,
            tested,
            interactive,
            left: kids,
            child_hit: false,
        })
    }

    /// Whether the scene point `world` lies in the shape of `mask`'s subtree (visible sprites' rectangles and
    /// shapes' fills and strokes, text blocks). A removed mask covers nothing (its target is not drawn either).
    fn mask_covers(&self, cache: &mut QueryCache, mask: NodeId, world: Vec2) -> bool {
        let Some(m) = self.world_transform(mask) else {
            return false;
        };
        let parent_of_mask = m * self.node_at(mask.slot()).local_transform().inverse();
        if !parent_of_mask.is_finite() {
            return false;
        }
        let mut stack = vec![(mask, parent_of_mask.inverse().transform_point2(world))];
        while let Some((id, p_parent)) = stack.pop() {
            let node = self.node_at(id.slot());
            if !node.visible {
                continue;
            }
            let Some(p) = to_local(node, p_parent) else {
                continue;
            };
            if cache.content_contains(node, p) {
                return true;
            }
            stack.extend(self.children_of(id).iter().map(|&c| (c, p)));
        }
        false
    }
}

/// Adds a child's cached entry to its parent's frame.
fn merge(child: &Node, e: LocalEntry, parent: &mut BoundsFrame, parent_none: bool) {
    let m = child.local_transform();
    if m.is_finite() {
        parent.acc.union(e.bounds.transformed(&m));
    }
    parent.interactive |= e.interactive && !parent_none;
}
