//! Bulk updates: the transforms of a container's children handed out at once, with one handle check and one
//! change record for them all (see [`Scene::child_transforms_mut`]).

use crate::scene::{Scene, TRANSFORM_ONLY};
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
    /// their corners again, as it would after `transform_mut` on each). Errors for a handle that is not a live
    /// node of this scene.
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
        if self.changes.len() + n > self.changes.capacity() {
            self.make_room(n);
        }
        // One pass over the children: leaves are listed as moved, children with children of their own change
        // structure, and whether they sit in consecutive slots (added in order to an empty free list: the common
        // case) is noted, so that they are handed out as one slice.
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
        if structural {
            self.structural = e;
        }
        if n != 0 {
            self.mark_up(p as u32, e);
        }
        let kids = &self.links[p].children;
        Ok(ChildTransformsMut {
            transforms: &mut self.transforms,
            kids,
            run: run.then_some(first),
        })
    }
}
