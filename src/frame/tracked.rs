//! [`TrackedVec`]: a stream rewritten from the start each frame that remembers last frame's contents and which
//! ranges of this frame differ from them, so only those are uploaded (each range on its own, up to
//! [`MAX_DIRTY_RANGES`]). The batcher's quad, vertex and index streams are these. A second list holds ranges in
//! which only the leading part of each element changed (a moved quad's corners), uploaded as that part alone.

use bytemuck::Pod;
use std::ops::Range;

/// Most dirty ranges a stream keeps a frame; past them a change after the last range widens it, and one before
/// it merges the two closest ranges.
pub(crate) const MAX_DIRTY_RANGES: usize = 32;

/// Two dirty ranges closer than this many bytes are uploaded as one: a copy command costs more than copying a few
/// hundred unchanged bytes.
const MERGE_GAP_BYTES: usize = 256;

/// A `Vec` rewritten each frame from the start, remembering which ranges differ from the previous frame.
/// Stores `item` in `old` if they differ, comparing their `W` 32-bit words branch-free; returns whether they did.
#[inline(always)]
pub(crate) fn store_if_changed<T: Pod, const W: usize>(old: &mut T, item: T) -> bool
where
    [u32; W]: Pod,
{
    let (was, new): ([u32; W], [u32; W]) = (bytemuck::cast(*old), bytemuck::cast(item));
    let diff = was.iter().zip(&new).fold(0u32, |acc, (x, y)| acc | (x ^ y));
    if diff != 0 {
        *old = item;
    }
    diff != 0
}

#[derive(Debug, Default)]
pub struct TrackedVec<T> {
    /// Last frame's contents beyond `len`, this frame's before it.
    data: Vec<T>,
    len: usize,
    /// Changed ranges, ascending.
    dirty: DirtyRanges,
    /// Ranges in which only each element's leading part changed (its owner knows which part: for the quad
    /// stream, the corners), ascending; they may overlap `dirty`.
    head: DirtyRanges,
    /// Ranges whose leading parts the GPU got from elsewhere (a quad's corners placed straight into staging:
    /// `placement.rs`), so that `data`'s are older. Kept across frames until [`TrackedVec::heal_stale`].
    stale: DirtyRanges,
}

/// Ranges of elements to upload, ascending and apart, at most [`MAX_DIRTY_RANGES`].
#[derive(Debug, Default)]
struct DirtyRanges(Vec<Range<usize>>);

impl DirtyRanges {
    /// Adds `r`: joined to the last range when they are less than `gap` elements apart, else a range of its own
    /// (after the last one; placed in order before it). Past [`MAX_DIRTY_RANGES`] the last range widens, or for a
    /// range before it, the two closest merge.
    #[inline]
    fn mark(&mut self, r: Range<usize>, gap: usize) {
        let full = self.0.len() == MAX_DIRTY_RANGES;
        match self.0.last_mut() {
            // Starting before the last range (elements changed out of order, as a kept walk's changes listed in
            // update order rather than draw order): placed among the others instead of widening it.
            Some(last) if r.start < last.start => self.mark_before(r, gap),
            Some(last) if full || r.start <= last.end + gap => {
                last.start = last.start.min(r.start);
                last.end = last.end.max(r.end);
            }
            _ => self.0.push(r),
        }
    }

    /// [`DirtyRanges::mark`] for a range before the last: inserted in order, merged with ranges within `gap`;
    /// past [`MAX_DIRTY_RANGES`] the two closest ranges merge.
    #[cold]
    fn mark_before(&mut self, r: Range<usize>, gap: usize) {
        let d = &mut self.0;
        let at = d.partition_point(|x| x.start <= r.start);
        d.insert(at, r);
        let mut out = 0;
        for j in 1..d.len() {
            if d[j].start <= d[out].end + gap {
                d[out].end = d[out].end.max(d[j].end);
            } else {
                out += 1;
                d[out] = d[j].clone();
            }
        }
        d.truncate(out + 1);
        while d.len() > MAX_DIRTY_RANGES {
            let j = (0..d.len() - 1)
                .min_by_key(|&j| d[j + 1].start - d[j].end)
                .expect("two ranges or more");
            let next = d.remove(j + 1);
            d[j].end = d[j].end.max(next.end);
        }
    }

    /// The part of `r` below `len` marked (nothing when that is empty).
    fn mark_below(&mut self, r: Range<usize>, len: usize, gap: usize) {
        let r = r.start.min(len)..r.end.min(len);
        if !r.is_empty() {
            self.mark(r, gap);
        }
    }
}

impl<T: Pod + Default> TrackedVec<T> {
    /// Starts a new frame: writes go to the front again, nothing is dirty yet.
    pub fn rewind(&mut self) {
        self.len = 0;
        self.dirty.0.clear();
        self.head.0.clear();
    }

    /// Writes go to the front again, keeping what is marked changed (to rewrite this frame's elements in
    /// another order: each is compared with what stands at its new place, which the marks already cover where
    /// it differs from last frame's).
    pub fn restart_keeping_marks(&mut self) {
        self.len = 0;
    }

    /// Elements the storage holds without reallocating (tests check the steady state allocates nothing).
    #[cfg(test)]
    pub fn capacity(&self) -> usize {
        self.data.capacity()
    }

    /// Elements written this frame.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing was written this frame.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// This frame's elements.
    pub fn as_slice(&self) -> &[T] {
        &self.data[..self.len]
    }

    /// The span of everything written this frame whose contents differ from last frame's.
    pub fn dirty(&self) -> Option<Range<usize>> {
        let all = || self.dirty.0.iter().chain(&self.head.0);
        let start = all().map(|r| r.start).min()?;
        let end = all().map(|r| r.end).max()?;
        Some(start..end)
    }

    /// The ranges that differ from last frame's, each uploaded on its own.
    pub fn dirty_ranges(&self) -> &[Range<usize>] {
        &self.dirty.0
    }

    /// The ranges in which only each element's leading part differs from last frame's (see
    /// [`TrackedVec::mark_head_dirty`]); they may overlap [`TrackedVec::dirty_ranges`].
    pub fn head_dirty_ranges(&self) -> &[Range<usize>] {
        &self.head.0
    }

    /// This frame's contents in bytes.
    pub fn as_bytes(&self) -> &[u8] {
        bytemuck::cast_slice(self.as_slice())
    }

    /// The dirty ranges as (byte offset, bytes), ready to upload.
    pub fn dirty_bytes(&self) -> impl Iterator<Item = (u64, &[u8])> + '_ {
        let size = std::mem::size_of::<T>();
        self.dirty.0.iter().map(move |r| {
            let bytes = bytemuck::cast_slice(&self.data[r.clone()]);
            ((r.start * size) as u64, bytes)
        })
    }

    /// Keeps the next `count` elements from last frame as they are (the caller knows they are unchanged).
    /// Returns `false`, keeping nothing, if last frame did not have that many.
    #[inline]
    pub fn keep(&mut self, count: usize) -> bool {
        let end = self.len + count;
        let kept = end <= self.data.len();
        if kept {
            self.len = end;
        }
        kept
    }

    /// Goes back to `len` elements written this frame (`len` at most [`TrackedVec::len`]), to undo
    /// [`TrackedVec::keep`]s: what lies beyond then still holds last frame's contents. (After elements were
    /// written beyond `len` it would not: those writes are not undone.)
    pub fn truncate(&mut self, len: usize) {
        debug_assert!(len <= self.len);
        self.len = self.len.min(len);
    }

    /// Forgets last frame's contents (the GPU copy is unknown): every element of the next frame is dirty.
    pub fn forget(&mut self) {
        self.data.clear();
        self.stale.0.clear();
        self.rewind();
    }

    /// Says the GPU got the leading parts of `r` from elsewhere than this stream (newer than the stream's): they
    /// stay stale until [`TrackedVec::heal_stale`].
    pub fn mark_stale(&mut self, r: Range<usize>) {
        if !r.is_empty() {
            self.stale.mark(r, Self::GAP);
        }
    }

    /// Whether any element's leading part is stale ([`TrackedVec::mark_stale`]).
    pub fn has_stale(&self) -> bool {
        !self.stale.0.is_empty()
    }

    /// Heals the stale ranges: `f(ranges, elements)` writes every stale element's leading part again (a full walk
    /// has written all of them already and passes a no-op), then those ranges are marked for upload (leading parts
    /// only) and are no longer stale. Returns the span healed, if any.
    pub fn heal_stale(
        &mut self,
        f: impl FnOnce(&[Range<usize>], &mut [T]),
    ) -> Option<Range<usize>> {
        let (first, last) = (self.stale.0.first()?.start, self.stale.0.last()?.end);
        let mut stale = std::mem::take(&mut self.stale.0);
        f(&stale, &mut self.data[..self.len]);
        for r in &stale {
            self.head.mark_below(r.clone(), self.len, Self::GAP);
        }
        stale.clear();
        self.stale.0 = stale;
        Some(first..last)
    }

    /// Marks everything written as dirty (the GPU copy was lost, e.g. the buffer was re-created).
    pub fn mark_all_dirty(&mut self) {
        // Only a full walk grows a stream, and it heals the stale ranges first.
        debug_assert!(self.stale.0.is_empty(), "stale elements uploaded whole");
        self.dirty.0.clear();
        self.head.0.clear();
        if self.len > 0 {
            self.dirty.0.push(0..self.len);
        }
    }

    /// Two ranges closer than this many elements are uploaded as one.
    const GAP: usize = MERGE_GAP_BYTES
        / if std::mem::size_of::<T>() == 0 {
            1
        } else {
            std::mem::size_of::<T>()
        };

    /// Adds `r` to the dirty ranges.
    #[inline]
    fn mark(&mut self, r: Range<usize>) {
        self.dirty.mark(r, Self::GAP);
    }

    /// The elements from `i` on (none if `i` is past the length) to write without marking them: the caller marks
    /// what it wrote ([`TrackedVec::mark_dirty`] or [`TrackedVec::mark_head_dirty`]) before the next upload.
    #[inline(always)]
    pub fn unmarked_from(&mut self, i: usize) -> &mut [T] {
        self.data[..self.len].get_mut(i..).unwrap_or_default()
    }

    /// Writes `item` over element `i` (below the length) and marks it dirty if it changed.
    #[inline(always)]
    pub fn set_value<const W: usize>(&mut self, i: usize, item: T)
    where
        [u32; W]: Pod,
    {
        if i >= self.len {
            return;
        }
        if store_if_changed::<T, W>(&mut self.data[i], item) {
            self.mark(i..i + 1);
        }
    }

    /// Rewrites elements `start..start + n` (below the length) on every core, `chunk` at a time: `f(k, items)`
    /// rewrites elements `start + k..start + k + items.len()` in place and says whether any changed, or `None` if
    /// it gave up (part of them may be written). Chunks that changed or gave up are marked dirty. Returns whether
    /// no call gave up.
    pub fn patch_par(
        &mut self,
        start: usize,
        n: usize,
        chunk: usize,
        changed: &mut Vec<bool>,
        f: impl Fn(usize, &mut [T]) -> Option<bool> + Sync,
    ) -> bool
    where
        T: Send + Sync,
    {
        use rayon::prelude::*;
        let chunk = chunk.max(1);
        let end = (start + n).min(self.len);
        if start >= end {
            return true;
        }
        changed.clear();
        changed.resize((end - start).div_ceil(chunk), false);
        let ok = self.data[start..end]
            .par_chunks_mut(chunk)
            .zip(changed.par_iter_mut())
            .enumerate()
            .map(|(c, (dst, flag))| {
                // One write to the shared flags per chunk: they sit side by side in one cache line. What a chunk
                // that gave up wrote is uploaded with the walk that follows.
                let done = f(c * chunk, dst);
                *flag = done != Some(false);
                done.is_some()
            })
            .reduce(|| true, |a, b| a && b);
        for (c, &flag) in changed.iter().enumerate() {
            if flag {
                self.mark(start + c * chunk..(start + (c + 1) * chunk).min(end));
            }
        }
        ok
    }

    /// Element `i`.
    #[inline(always)]
    pub fn get(&self, i: usize) -> Option<&T> {
        self.data[..self.len].get(i)
    }

    /// Says the GPU copy of `r` is out of date: its part below the length is marked dirty, and what is kept past
    /// the length is forgotten if `r` reaches there (elements written again later are then uploaded, not
    /// compared with values the GPU never received).
    pub fn mark_dirty(&mut self, r: Range<usize>) {
        if r.end > self.len {
            self.data.truncate(self.len);
        }
        self.dirty.mark_below(r, self.len, Self::GAP);
    }

    /// Says that in `r` (below the length) only each element's leading part changed (the stream's owner knows how
    /// long: a quad's corners), so only that part of each is uploaded. Writes past the length are ignored.
    pub fn mark_head_dirty(&mut self, r: Range<usize>) {
        self.head.mark_below(r, self.len, Self::GAP);
    }

    /// Keeps every element and forgets the dirty ranges (they were uploaded): a frame that reuses the last.
    pub fn keep_all(&mut self) {
        self.dirty.0.clear();
        self.head.0.clear();
    }

    /// Appends one item of `W` 32-bit words like [`TrackedVec::push_value`], marking it head-dirty (see
    /// [`TrackedVec::mark_head_dirty`]) when only its first `H` words changed: a mesh vertex that moved uploads its
    /// position alone.
    #[inline(always)]
    pub fn push_value_split<const W: usize, const H: usize>(&mut self, item: T)
    where
        [u32; W]: Pod,
    {
        let i = self.len;
        if let Some(old) = self.data.get_mut(i) {
            let (was, new): ([u32; W], [u32; W]) = (bytemuck::cast(*old), bytemuck::cast(item));
            let diff = |r: std::ops::Range<usize>| {
                was[r.clone()]
                    .iter()
                    .zip(&new[r])
                    .fold(0u32, |acc, (x, y)| acc | (x ^ y))
            };
            let (head, rest) = (diff(0..H), diff(H..W));
            if head | rest != 0 {
                *old = item;
            }
            self.len = i + 1;
            if rest != 0 {
                self.mark(i..i + 1);
            } else if head != 0 {
                self.mark_head_dirty(i..i + 1);
            }
        } else {
            self.push_slice(&[item]);
        }
    }

    /// Appends one item of `W` 32-bit words, comparing it word by word (inlined, branch-free) with what stood there
    /// last frame. This is the per-sprite path. The item is compared and stored as a value, never through a
    /// reference to a stack copy: building it with 8-byte stores and reading it back with 16-byte loads stalled on
    /// store forwarding, which cost a tenth of the walk.
    #[inline(always)]
    pub fn push_value<const W: usize>(&mut self, item: T)
    where
        [u32; W]: Pod,
    {
        let i = self.len;
        if let Some(old) = self.data.get_mut(i) {
            if store_if_changed::<T, W>(old, item) {
                self.mark(i..i + 1);
            }
            self.len = i + 1;
        } else {
            self.push_slice(&[item]);
        }
    }

    /// Appends `src.len()` items on every core (rayon): item `i` is `src[i]` with `patch(&mut item, i)` applied,
    /// compared with what stood there last frame in chunks of `chunk` items. `changed` is scratch space (one flag
    /// a chunk), kept by the caller so steady state allocates nothing. Dirty ranges come out a chunk wide.
    pub fn extend_par(
        &mut self,
        src: &[T],
        chunk: usize,
        changed: &mut Vec<bool>,
        patch: impl Fn(&mut T, usize) + Sync,
    ) where
        T: Send + Sync,
    {
        use rayon::prelude::*;
        let chunk = chunk.max(1);
        let start = self.len;
        let end = start + src.len();
        // Elements beyond last frame's have nothing to compare with: dirty whatever they hold.
        let fresh = self.data.len().max(start);
        if self.data.len() < end {
            self.data.resize(end, T::default());
        }
        let chunks = src.len().div_ceil(chunk);
        changed.clear();
        changed.resize(chunks, false);
        self.data[start..end]
            .par_chunks_mut(chunk)
            .zip(src.par_chunks(chunk))
            .zip(changed.par_iter_mut())
            .enumerate()
            .for_each(|(c, ((dst, src), flag))| {
                let mut any = false;
                for (j, (d, s)) in dst.iter_mut().zip(src).enumerate() {
                    let mut v = *s;
                    patch(&mut v, c * chunk + j);
                    if bytemuck::bytes_of(d) != bytemuck::bytes_of(&v) {
                        *d = v;
                        any = true;
                    }
                }
                *flag = any;
            });
        for (c, &flag) in changed.iter().enumerate() {
            let r = start + c * chunk..(start + (c + 1) * chunk).min(end);
            if flag || r.end > fresh {
                self.mark(r);
            }
        }
        self.len = end;
    }

    /// Appends `items`, comparing them with what stood there last frame.
    #[inline]
    pub fn push_slice(&mut self, items: &[T]) {
        let start = self.len;
        let end = start + items.len();
        if end <= self.data.len() {
            let old = &mut self.data[start..end];
            if bytemuck::cast_slice::<T, u8>(old) != bytemuck::cast_slice::<T, u8>(items) {
                old.copy_from_slice(items);
                self.mark(start..end);
            }
        } else {
            self.data.truncate(start);
            self.data.extend_from_slice(items);
            self.mark(start..end);
        }
        self.len = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Elements rewritten in any order: the dirty ranges stay at most MAX_DIRTY_RANGES, in order, and cover
        /// every element that changed; changes made in order upload no more than before.
        #[test]
        fn dirty_ranges_cover_changes_in_any_order(
            writes in prop::collection::vec((0usize..4000, any::<u32>()), 0..200),
        ) {
            let mut v = TrackedVec::<u32>::default();
            v.rewind();
            v.push_slice(&vec![0; 4000]);
            v.keep_all();
            let mut changed = std::collections::BTreeSet::new();
            for &(i, x) in &writes {
                let was = v.as_slice()[i];
                v.set_value::<1>(i, x);
                if x != was {
                    changed.insert(i);
                }
            }
            let d = v.dirty_ranges();
            prop_assert!(d.len() <= MAX_DIRTY_RANGES);
            prop_assert!(d.windows(2).all(|w| w[0].end <= w[1].start), "{:?}", d);
            for i in changed {
                prop_assert!(d.iter().any(|r| r.contains(&i)), "{} outside {:?}", i, d);
            }
        }
    }

    #[test]
    fn a_change_before_the_last_range_does_not_widen_it() {
        let mut v = TrackedVec::<u32>::default();
        v.push_slice(&vec![0; 10_000]);
        v.keep_all();
        v.set_value::<1>(9_000, 1);
        v.set_value::<1>(10, 1);
        v.set_value::<1>(5_000, 1);
        assert_eq!(
            v.dirty_ranges().to_vec(),
            vec![10..11, 5_000..5_001, 9_000..9_001]
        );
    }

    #[test]
    fn parallel_appends_mark_changed_chunks_and_growth() {
        let mut v = TrackedVec::<u32>::default();
        let mut flags = Vec::new();
        let src: Vec<u32> = (0..100).collect();
        v.rewind();
        v.extend_par(&src[..60], 16, &mut flags, |x, i| *x += i as u32);
        assert_eq!(v.as_slice()[59], 118);
        assert_eq!(v.dirty_ranges().to_vec(), vec![0..60usize]);
        // Same contents, longer: only the growth (whole chunks past the old end) is dirty.
        v.rewind();
        v.extend_par(&src, 16, &mut flags, |x, i| *x += i as u32);
        assert_eq!(v.dirty_ranges().to_vec(), vec![48..100usize]);
        // One change: its chunk.
        v.rewind();
        let mut changed = src.clone();
        changed[70] = 7;
        v.extend_par(&changed, 16, &mut flags, |x, i| *x += i as u32);
        assert_eq!(v.dirty_ranges().to_vec(), vec![64..80usize]);
        assert_eq!(v.as_slice()[70], 77);
        v.rewind();
        v.extend_par(&changed, 16, &mut flags, |x, i| *x += i as u32);
        assert!(v.dirty_ranges().is_empty());
    }
}
