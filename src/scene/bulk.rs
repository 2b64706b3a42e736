//! Bulk updates: the transforms of a container's children handed out at once, with one handle check and one
//! change record for them all (see [`Scene::child_transforms_mut`]).

use crate::scene::{BulkMemo, Scene, CHILDREN_MOVED, TRANSFORM_ONLY};
use crate::{NodeId, Result, Transform};

/// The transforms of a container's children, from [`Scene::child_transforms_mut`].
#[derive(Debug)]
pub struct ChildTransformsMut<'a> {
    transforms: &'a mut [Transform],
    kids: &'a [NodeId],
    /// The first child's slot, when the children sit in consecutive slots in order.
    run: Option<usize>,
}

impl ChildTransformsMut<'_> {
    /// Number of children.
    pub fn len(&self) -> usize {
        self.kids.len()
    }

    /// Whether there are no children.
    pub fn is_empty(&self) -> bool {
        self.kids.is_empty()
    }

    /// The transform of child `index` (in draw order).
    pub fn get_mut(&mut self, index: usize) -> Option<&mut Transform> {
        let k = self.kids.get(index)?;
        self.transforms.get_mut(k.slot())
    }

    /// Calls `f` with each child's index (in draw order) and transform.
    #[inline]
    pub fn for_each(&mut self, mut f: impl FnMut(usize, &mut Transform)) {
        match self.run {
            Some(first) => {
                let n = self.kids.len();
                for (i, t) in self.transforms[first..first + n].iter_mut().enumerate() {
                    f(i, t);
                }
            }
            None => {
                for (i, k) in self.kids.iter().enumerate() {
                    f(i, &mut self.transforms[k.slot()]);
                }
            }
        }
    }

    /// The children's transforms as one slice, in draw order, when they sit in consecutive slots (children
    /// added in order to a scene that had not removed nodes: the usual case); `None` otherwise (use
    /// [`ChildTransformsMut::for_each`]).
    pub fn as_mut_slice(&mut self) -> Option<&mut [Transform]> {
        let first = self.run?;
        Some(&mut self.transforms[first..first + self.kids.len()])
    }
}

impl Scene {
    /// The transforms of `parent`'s children, to change many at once (an update loop moving thousands of
    /// sprites): one handle check and one change record for them all, instead of a check and a log entry each
    /// through [`Scene::transform_mut`]. Every child counts as moved (a next frame that keeps its walk computes
    /// their corners again, as it would after `transform_mut` on each: for children it drew one after another, in
    /// one loop over their transforms). The first call looks at each child; later ones, until a child list or a
    /// child's number of children changes, read none. Errors for a handle that is not a live node of this scene.
    ///
    /// ```
    /// # use stage2d::{Node, Scene};
    /// let mut scene = Scene::new();
    /// let group = scene.add(scene.root(), Node::container())?;
    /// for i in 0..100 {
    ///     scene.add(group, Node::container().at(i as f32, 0.0))?;
    /// }
    /// scene.child_transforms_mut(group)?.for_each(|i, t| t.position.y = i as f32);
    /// assert_eq!(scene.transform(scene.children(group)[7]).unwrap().position.y, 7.0);
    /// # Ok::<(), stage2d::Error>(())
    /// ```
    pub fn child_transforms_mut(&mut self, parent: NodeId) -> Result<ChildTransformsMut<'_>> {
        self.check(parent)?;
        let p = parent.slot();
        let e = *self.epoch.get_mut();
        let n = self.links[p].children.len();
        let memo = self
            .bulk_memo
            .filter(|m| m.slot == p as u32 && m.shape == self.shape);
        let run = match memo {
            // Children known to be leaves, and where they sit, from an earlier call: one entry in the log for
            // them all, nothing read a child.
            Some(m) if n != 0 => {
                if self.changes.len() == self.changes.capacity() {
                    self.make_room(1);
                }
                self.last_children_moved = self.changes_base + self.changes.len() as u64;
                self.changes
                    .push(p as u32 | TRANSFORM_ONLY | CHILDREN_MOVED);
                m.run
            }
            _ => self.children_moved_one_by_one(p, e),
        };
        if n != 0 {
            self.mark_up(p as u32, e);
        }
        let kids = &self.links[p].children;
        Ok(ChildTransformsMut {
            transforms: &mut self.transforms,
            kids,
            run: run.map(|r| r as usize),
        })
    }

    /// Logs each of the children of the node in slot `p` as moved, a child with children of its own as a
    /// structural change, and notes in `bulk_memo`, when every child is a leaf, where they sit (so that
    /// the next call logs one entry for them all). Returns the first child's slot if they sit in consecutive
    /// slots in order (added in order to an empty free list: the common case).
    fn children_moved_one_by_one(&mut self, p: usize, e: u64) -> Option<u32> {
        let n = self.links[p].children.len();
        if self.changes.len() + n > self.changes.capacity() {
            self.make_room(n);
        }
        let mut structural = false;
        let first = self.links[p].children.first().map_or(0, |k| k.slot());
        let mut run = true;
        {
            let Scene {
                links,
                slots,
                stamps,
                changes,
                ..
            } = self;
            let kids = &links[p].children;
            if changes.len() + kids.len() <= changes.capacity() {
                for (i, k) in kids.iter().enumerate() {
                    let slot = k.slot();
                    run &= slot == first + i;
                    if slots[slot].child_count() != 0 {
                        stamps[slot].own = e;
                        structural = true;
                    } else {
                        changes.push(slot as u32 | TRANSFORM_ONLY);
                    }
                }
            } else {
                // Past what the log keeps: no walk can patch these; the next one walks.
                structural = true;
                run = kids.iter().enumerate().all(|(i, k)| k.slot() == first + i);
            }
        }
        let run = run.then_some(first as u32);
        if structural {
            self.structural = e;
        } else {
            // Every child a leaf: true until a child list or a child count changes, which bumps `shape`.
            self.bulk_memo = Some(BulkMemo {
                slot: p as u32,
                shape: self.shape,
                run,
            });
        }
        run
    }

    /// The children of the node in `slot` (live or not).
    pub(crate) fn children_at(&self, slot: usize) -> &[NodeId] {
        &self.links[slot].children
    }

    /// Whether the log holds an entry marked [`CHILDREN_MOVED`] at position `at` or later.
    #[inline]
    pub(crate) fn children_moved_since(&self, at: u64) -> bool {
        self.last_children_moved != u64::MAX && self.last_children_moved >= at
    }
}

#[cfg(test)]
mod tests {
    use crate::scene::{Scene, CHILDREN_MOVED, TRANSFORM_ONLY};
    use crate::Node;

    fn logged(s: &Scene, from: usize) -> Vec<u32> {
        s.changes[from..].to_vec()
    }

    #[test]
    fn children_known_to_be_leaves_are_logged_as_one() {
        let mut s = Scene::new();
        let c = s.add(s.root(), Node::container()).unwrap();
        let kids: Vec<_> = (0..5)
            .map(|_| s.add(c, Node::container()).unwrap())
            .collect();
        let each = |s: &Scene| -> Vec<u32> {
            s.children(c)
                .iter()
                .map(|k| k.slot() as u32 | TRANSFORM_ONLY)
                .collect()
        };
        let one = c.slot() as u32 | TRANSFORM_ONLY | CHILDREN_MOVED;
        // The first call looks at each child; the next ones log one entry.
        let at = s.changes.len();
        assert!(s.child_transforms_mut(c).unwrap().as_mut_slice().is_some());
        assert_eq!(logged(&s, at), each(&s));
        for _ in 0..2 {
            let at = s.changes.len();
            let mut ts = s.child_transforms_mut(c).unwrap();
            assert_eq!(ts.as_mut_slice().map(|t| t.len()), Some(5));
            assert_eq!(logged(&s, at), vec![one]);
            assert!(s.children_moved_since((s.changes_base as usize + at) as u64));
        }
        // Any change to a child list: each child again, then one entry.
        s.remove(kids[1]).unwrap();
        s.add(c, Node::container()).unwrap();
        let at = s.changes.len();
        assert!(s.child_transforms_mut(c).unwrap().as_mut_slice().is_none());
        assert_eq!(logged(&s, at), each(&s));
        let at = s.changes.len();
        let mut ts = s.child_transforms_mut(c).unwrap();
        assert!(ts.as_mut_slice().is_none());
        assert_eq!(ts.len(), 5);
        assert_eq!(logged(&s, at), vec![one]);
        // A child with a child: a structural change every call, never one entry.
        s.add(kids[0], Node::container()).unwrap();
        for _ in 0..2 {
            let at = s.changes.len();
            let before = s.structural;
            *s.epoch.get_mut() += 1;
            s.child_transforms_mut(c).unwrap();
            assert!(s.structural > before);
            assert_eq!(logged(&s, at).len(), 4);
        }
        // Another container's call forgets the first's; no children, no entry.
        let empty = s.add(s.root(), Node::container()).unwrap();
        for _ in 0..2 {
            let at = s.changes.len();
            s.child_transforms_mut(empty).unwrap();
            assert!(logged(&s, at).is_empty());
        }
    }
}
