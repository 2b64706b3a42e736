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
//! [`HitArea`](crate::HitArea). A node outside its mask is not hit. The walk keeps its own stack, so a chain of 10,000 nested
//! containers costs no recursion.
//!
//! Index: none beyond the cached subtree bounds. A scene whose sprites all move every frame must read every
//! moved node again whatever index it keeps, and a linear pass over them with an early exit in draw order is
//! what the figures in BENCHMARKS.md come from.

use crate::scene::aabb::Aabb;
use crate::scene::interact::{to_local, BoundsFrame, HitFrame, LocalEntry, QueryCache};
use crate::scene::pointer::{EventMode, Rect};
use crate::scene::Scene;
use crate::{NodeId, Transform};
use glam::Vec2;

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
            let acc = cache.content_bounds(self.node_at(s));
            let mut hit = acc;
            if let Some(a) = &self.interact(s).hit_area {
                hit.union(a.bounds());
            }
            BoundsFrame {
                slot: s,
                next: 0,
                acc,
                hit,
            }
        };
        stack.push(start(cache, slot));
        let mut done = LocalEntry::default();
        while let Some(top) = stack.last_mut() {
            let kids = self.children_of_slot(top.slot);
            if top.next < kids.len() {
                let c = kids[top.next].slot();
                top.next += 1;
                if !self.node_at(c).visible {
                    continue;
                }
                if valid(cache, c) {
                    let e = cache.local[c];
                    merge(self.transform_at(c), e, top);
                } else {
                    let f = start(cache, c);
                    stack.push(f);
                }
                continue;
            }
            let f = stack.pop().expect("a frame");
            let entry = LocalEntry {
                bounds: f.acc,
                hit: f.hit,
                at,
                wasted: 0,
                stale: 0,
            };
            cache.local[f.slot] = entry;
            match stack.last_mut() {
                Some(parent) => merge(self.transform_at(f.slot), entry, parent),
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
    fn prune_entry(
        &self,
        cache: &mut QueryCache,
        at: u64,
        slot: usize,
        p: Vec2,
    ) -> Option<LocalEntry> {
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
        // Only recomputations count: did this one prune?
        cache.local[slot].wasted = match fresh.hit.contains(p) {
            true => wasted.saturating_add(1),
            false => 0,
        };
        Some(fresh)
    }

    /// The node's bounds in its own space (before its transform): its content (a sprite's rectangle, a shape's
    /// fills and strokes, a text's block) and its visible children's bounds (hit areas and masks do not count,
    /// as in PixiJS). `None` for a removed
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
    /// [`HitArea`](crate::HitArea), or holding a hit child below an interactive ancestor. The draw order decides (children over
    /// their parent, later siblings over earlier ones, z-index included). Points outside a node's mask do not
    /// hit it; [`Scene::set_interactive_children`] stops the descent. A non-finite point hits nothing.
    pub fn hit_test(&self, point: Vec2) -> Option<NodeId> {
        let mut out = Vec::new();
        self.hit_walk(point, false, &mut out);
        out.pop()
    }

    /// Every interactive node under `point`, topmost first: the first is what [`Scene::hit_test`] returns, and
    /// each node is listed where the walk from the top first meets it (through its own content, or through
    /// passive content it holds), so a container comes after its children unless passive content of its own lies
    /// above them.
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
        cache.layer_lists.clear();
        if let Some(f) = self.hit_enter(&mut cache, at, self.root(), point, point, false, false) {
            stack.push(f);
        }
        while let Some(top) = stack.last_mut() {
            let f = if top.left > 0 {
                top.left -= 1;
                let tested = top.tested || top.interactive;
                let (start, n) = top.layer;
                // A layer's own nodes come first in its draw order: met last from the top down, each with the
                // point in its parent's space.
                let (child, p, via_layer) = match top.left.checked_sub(n as usize) {
                    Some(k) => (self.children_of_slot(top.id.slot())[k], top.p, false),
                    None => {
                        let c = cache.layer_lists[start as usize + top.left];
                        match self.layer_point(c, point) {
                            Some(p) => (c, p, true),
                            None => continue,
                        }
                    }
                };
                match self.hit_enter(&mut cache, at, child, p, point, tested, via_layer) {
                    // A layer inside itself (through nodes attached to layers): not again.
                    Some(f) if f.layer.1 > 0 && stack.iter().any(|s| s.id == f.id) => continue,
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
            let own = (f.tested || f.interactive)
                && match &self.interact(f.id.slot()).hit_area {
                    Some(a) => a.contains(f.p),
                    None => cache.content_contains(self.node_at(f.id.slot()), f.p),
                };
            if !(own || f.child_hit) {
                continue;
            }
            // The target: the node if interactive, else, where its own content is hit, its nearest interactive
            // ancestor (passive content hits on its behalf, before anything below it is looked at). A passive
            // node hit only through its children reports nothing of its own.
            let target = match f.interactive {
                true => Some((f.id, f.reported)),
                false if !own => None,
                false => stack
                    .iter_mut()
                    .rev()
                    .find(|fr| fr.interactive)
                    .map(|fr| (fr.id, std::mem::replace(&mut fr.reported, true))),
            };
            if !all {
                out.extend(target.map(|t| t.0));
                break;
            }
            if let Some((id, false)) = target {
                out.push(id);
            }
            if let Some(parent) = stack.last_mut() {
                parent.child_hit = true;
            }
        }
        stack.clear();
        cache.hit_stack = stack;
    }

    /// The scene point `world` in the space of the parent of `node` (attached to a layer), if the node is
    /// drawn where it stands (no hidden or mask ancestor) and that space is invertible.
    fn layer_point(&self, node: NodeId, world: Vec2) -> Option<Vec2> {
        let parent = self.parent(node)?;
        let mut a = Some(parent);
        while let Some(n) = a {
            if !self.node_at(n.slot()).visible || self.is_mask(n) {
                return None;
            }
            a = self.parent(n);
        }
        let m = self.world_transform(parent)?;
        let p = m.inverse().transform_point2(world);
        p.is_finite().then_some(p)
    }

    /// Enters `id` with `p` in its parent's space: `None` if the node and its subtree cannot be hit. A node on a
    /// render layer is entered only from the layer (`via_layer`).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn hit_enter(
        &self,
        cache: &mut QueryCache,
        at: u64,
        id: NodeId,
        p_parent: Vec2,
        world: Vec2,
        tested: bool,
        via_layer: bool,
    ) -> Option<HitFrame> {
        let slot = id.slot();
        let node = self.node_at(slot);
        if !node.visible {
            return None;
        }
        if self.slots[slot].counts & crate::scene::LAYERED != 0
            && !via_layer
            && self.layer_slot(slot).is_some()
        {
            return None;
        }
        // A layer: its nodes (those that can be hit somewhere) make it worth entering, whatever lies below it.
        let mut layer = (0, 0);
        if let crate::NodeKind::RenderLayer(_) = node.kind {
            let start = cache.layer_lists.len();
            self.layer_draw_order_into(id, &mut cache.layer_lists);
            // Only those that can be hit, kept in order.
            let mut kept = start;
            for i in start..cache.layer_lists.len() {
                let n = cache.layer_lists[i];
                if tested || self.interactive_below(n.slot()) > 0 {
                    cache.layer_lists[kept] = n;
                    kept += 1;
                }
            }
            cache.layer_lists.truncate(kept);
            layer = (start as u32, (kept - start) as u32);
        }
        if layer.1 > 0 {
            let p = to_local(self.transform_at(slot), p_parent)?;
            let ia = self.interact(slot);
            let kids = if ia.no_child_hits || ia.event_mode == EventMode::None {
                return None;
            } else {
                self.child_count(slot) + layer.1 as usize
            };
            return Some(HitFrame {
                id,
                p,
                tested,
                interactive: ia.event_mode.is_interactive(),
                left: kids,
                child_hit: false,
                reported: false,
                layer,
            });
        }
        let ia = self.interact(slot);
        if ia.event_mode == EventMode::None {
            return None;
        }
        // PixiJS prunes a passive node whose children are not tested: nothing there can be hit.
        if ia.event_mode == EventMode::Passive && ia.no_child_hits {
            return None;
        }
        let interactive = ia.event_mode.is_interactive();
        let kids = if ia.no_child_hits {
            0
        } else {
            self.child_count(slot)
        };
        // Nothing that can be hit here or below: skip before any arithmetic (or any bounds).
        if !tested && (self.interactive_below(slot) == 0 || (kids == 0 && !interactive)) {
            return None;
        }
        let p = to_local(self.transform_at(slot), p_parent)?;
        match &ia.hit_area {
            Some(a) if !a.contains(p) => return None,
            Some(_) => {}
            None if kids > 0 => {
                if let Some(e) = self.prune_entry(cache, at, slot, p) {
                    if !e.hit.contains(p) {
                        return None;
                    }
                }
            }
            None => {}
        }
        if let Some(mask) = self.mask(id) {
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
            reported: false,
            layer: (0, 0),
        })
    }

    /// Whether the scene point `world` lies in the shape of `mask`'s subtree (visible sprites' rectangles and
    /// shapes' fills and strokes, text blocks). A removed mask covers nothing (its target is not drawn either).
    fn mask_covers(&self, cache: &mut QueryCache, mask: NodeId, world: Vec2) -> bool {
        let Some(m) = self.world_transform(mask) else {
            return false;
        };
        let parent_of_mask = m * self.transform_at(mask.slot()).matrix().inverse();
        if !parent_of_mask.is_finite() {
            return false;
        }
        let mut stack = vec![(mask, parent_of_mask.inverse().transform_point2(world))];
        while let Some((id, p_parent)) = stack.pop() {
            let node = self.node_at(id.slot());
            // A hidden mask still masks (the usual way to keep it from being drawn): only hidden nodes below it
            // are left out, as the renderer draws masks.
            if !node.visible && id != mask {
                continue;
            }
            let Some(p) = to_local(self.transform_at(id.slot()), p_parent) else {
                continue;
            };
            if cache.mask_shape_contains(node, p) {
                return true;
            }
            stack.extend(self.children_of(id).iter().map(|&c| (c, p)));
        }
        false
    }
}

/// Adds a child's cached entry to its parent's frame.
fn merge(child: &Transform, e: LocalEntry, parent: &mut BoundsFrame) {
    let m = child.matrix();
    if m.is_finite() {
        parent.acc.union(e.bounds.transformed(&m));
        parent.hit.union(e.hit.transformed(&m));
    }
}
