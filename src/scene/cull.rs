//! Culling: each subtree's bounds, kept between frames in the subtree root's own space, so a walk can skip a
//! subtree that lies wholly outside the target without visiting it.
//!
//! Bounds come from what the walk drew, not from a second pass over the scene: while a node's cached bounds are
//! stale, the walk widens an accumulator with every quad and vertex it emits below the node (in clip space) and,
//! when it leaves the node, stores that box mapped back into the node's space. A later frame maps the box forward
//! through the node's current transform and tests it against the view. The cache entry is valid while the scene's
//! change stamps say neither the node nor anything below it changed since the walk that measured it (the node's
//! own transform counts, conservatively: a moving container is measured again). A subtree that changes every
//! frame stops being measured after a few misses, so it costs nothing to the walk.

use crate::scene::Scene;
use crate::NodeId;
use glam::Affine2;
use rustc_hash::FxHashMap;

pub(crate) use crate::scene::aabb::Aabb;

/// A subtree's measured bounds.
#[derive(Clone, Copy, Debug)]
struct Entry {
    generation: u32,
    /// The walk epoch the bounds reflect (see [`Scene::begin_walk`]); `0` while never measured.
    stamp: u64,
    /// Bounds in the node's own space (before its transform).
    local: Aabb,
    /// Consecutive walks that found the entry stale.
    misses: u8,
    /// The walk that last used it (entries unused for a while are dropped).
    used: u64,
}

/// Walks after which a stale entry is measured only now and then (a subtree that changes every frame).
const MISSES_BEFORE_BACKOFF: u8 = 4;
/// While backing off, a stale subtree is measured once in this many walks.
const BACKOFF_PERIOD: u64 = 32;
/// Entries unused for this many walks are dropped.
const IDLE_WALKS: u64 = 240;

/// What the walk should do with a subtree root, from its cached bounds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Bounds {
    /// Valid bounds, in the node's space.
    Known(Aabb),
    /// Stale: measure them while walking the subtree.
    Measure,
    /// Stale and changing every frame: do not bother.
    Skip,
}

/// Per-node subtree bounds of one scene.
#[derive(Debug, Default)]
pub(crate) struct BoundsCache {
    entries: FxHashMap<u32, Entry>,
    walks: u64,
}

impl BoundsCache {
    /// Starts a walk (entries unused for a while are dropped now and then). Entries are keyed by node handle
    /// index, which names the scene as well as the slot, so one cache serves every scene a renderer draws.
    pub fn begin(&mut self) {
        self.walks += 1;
        if self.walks.is_multiple_of(64) {
            let walks = self.walks;
            self.entries.retain(|_, e| e.used + IDLE_WALKS > walks);
        }
    }

    /// What is known of the bounds of `id`'s subtree.
    pub fn lookup(&mut self, scene: &Scene, id: NodeId) -> Bounds {
        let walks = self.walks;
        let e = self.entries.entry(id.index).or_insert(Entry {
            generation: id.generation,
            stamp: 0,
            local: Aabb::EMPTY,
            misses: 0,
            used: walks,
        });
        e.used = walks;
        if e.generation != id.generation {
            *e = Entry {
                generation: id.generation,
                stamp: 0,
                local: Aabb::EMPTY,
                misses: 0,
                used: walks,
            };
        }
        if e.stamp != 0 && scene.changed_at(id.slot()) <= e.stamp {
            e.misses = 0;
            return Bounds::Known(e.local);
        }
        e.misses = e.misses.saturating_add(1);
        if e.misses > MISSES_BEFORE_BACKOFF && !walks.is_multiple_of(BACKOFF_PERIOD) {
            Bounds::Skip
        } else {
            Bounds::Measure
        }
    }

    /// Stores the bounds measured for `id` at walk epoch `stamp`: `clip` is what the subtree drew (clip space),
    /// `matrix` the node's transform to clip space. A singular transform stores nothing.
    pub fn store(&mut self, id: NodeId, stamp: u64, clip: Aabb, matrix: &Affine2) {
        let local = if clip.is_empty() {
            Aabb::EMPTY
        } else {
            if matrix.matrix2.determinant().abs() < 1e-30 {
                return;
            }
            let back = clip.transformed(&matrix.inverse());
            if !(back.min.is_finite() && back.max.is_finite()) {
                return;
            }
            back
        };
        if let Some(e) = self.entries.get_mut(&(id.index)) {
            if e.generation == id.generation {
                e.stamp = stamp;
                e.local = local;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec2;

    #[test]
    fn boxes_hold_rotated_quads_and_map_back() {
        let mut b = Aabb::EMPTY;
        assert!(b.is_empty());
        b.add_quad(
            Vec2::new(1.0, 1.0),
            Vec2::new(2.0, 1.0),
            Vec2::new(-1.0, 3.0),
        );
        assert_eq!(b.min, Vec2::new(0.0, 1.0));
        assert_eq!(b.max, Vec2::new(3.0, 5.0));
        let m = Affine2::from_scale_angle_translation(Vec2::splat(2.0), 0.7, Vec2::new(5.0, -3.0));
        let there = b.transformed(&m);
        // Every corner of the original lands inside the mapped box.
        for c in [
            b.min,
            b.max,
            Vec2::new(b.min.x, b.max.y),
            Vec2::new(b.max.x, b.min.y),
        ] {
            let p = m.transform_point2(c);
            assert!(p.cmpge(there.min - 1e-4).all() && p.cmple(there.max + 1e-4).all());
        }
        let back = there.transformed(&m.inverse());
        assert!(back.min.cmple(b.min + 1e-4).all() && back.max.cmpge(b.max - 1e-4).all());
        assert!(Aabb::EMPTY.transformed(&m).is_empty());
        assert!(!Aabb {
            min: Vec2::new(1.5, 0.0),
            max: Vec2::new(2.0, 0.5)
        }
        .touches_view(Vec2::ZERO));
        assert!(Aabb {
            min: Vec2::new(1.5, 0.0),
            max: Vec2::new(2.0, 0.5)
        }
        .touches_view(Vec2::splat(0.6)));
    }

    #[test]
    fn entries_go_stale_with_changes_below_and_back_off() {
        let mut scene = Scene::new();
        let a = scene.add(scene.root(), crate::Node::container()).unwrap();
        let b = scene.add(a, crate::Node::container()).unwrap();
        let mut c = BoundsCache::default();
        c.begin();
        let e = scene.begin_walk();
        assert_eq!(c.lookup(&scene, a), Bounds::Measure);
        let clip = Aabb {
            min: Vec2::ZERO,
            max: Vec2::ONE,
        };
        c.store(a, e, clip, &Affine2::IDENTITY);
        c.begin();
        scene.begin_walk();
        assert_eq!(c.lookup(&scene, a), Bounds::Known(clip));
        // A change two levels down makes the root's entry stale.
        scene.transform_mut(b).unwrap().position.x = 3.0;
        c.begin();
        scene.begin_walk();
        assert_eq!(c.lookup(&scene, a), Bounds::Measure);
        // Stale at every walk: measured only now and then.
        let mut skipped = 0;
        for _ in 0..40 {
            scene.transform_mut(b).unwrap().position.x += 1.0;
            c.begin();
            scene.begin_walk();
            skipped += (c.lookup(&scene, a) == Bounds::Skip) as u32;
        }
        assert!(skipped > 30, "{skipped}");
    }
}
