//! Deferred release (the Babylon.js seed): GPU objects stage2d lets go of (destroyed textures, dropped render
//! targets, evicted attachments, the bind groups that held them) wait in a queue, tagged with the last frame that
//! could use them, and are released only once the GPU has finished that frame.
//!
//! Frames are numbered as they are submitted; after each submit, `Queue::on_submitted_work_done` records the
//! frame as finished when the GPU is done with it. Pure bookkeeping apart from that callback, so the ordering is
//! unit-tested without a device.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A GPU object waiting for its last frame to finish.
#[derive(Debug)]
pub(crate) enum Retired {
    /// A texture: destroyed (its memory freed) when released.
    Texture(wgpu::Texture),
    /// A bind group: dropped when released.
    BindGroup(wgpu::BindGroup),
    /// A buffer: destroyed when released.
    Buffer(wgpu::Buffer),
}

/// What the queue does with an object whose last frame has finished.
pub(crate) trait Release {
    /// Lets the object go.
    fn release(self);
}

impl Release for Retired {
    fn release(self) {
        match self {
            Retired::Texture(t) => t.destroy(),
            Retired::BindGroup(g) => drop(g),
            Retired::Buffer(b) => b.destroy(),
        }
    }
}

/// The release queue.
#[derive(Debug)]
pub(crate) struct ReleaseQueue<T: Release = Retired> {
    /// Frames submitted so far (the number of the last one).
    submitted: u64,
    /// The last frame the GPU has finished, set by the work-done callbacks.
    finished: Arc<AtomicU64>,
    /// Objects by the frame that must finish first, in that order.
    pending: VecDeque<(u64, T)>,
}

impl<T: Release> Default for ReleaseQueue<T> {
    fn default() -> Self {
        ReleaseQueue {
            submitted: 0,
            finished: Arc::default(),
            pending: VecDeque::new(),
        }
    }
}

impl<T: Release> ReleaseQueue<T> {
    /// Queues `objects`: let go of between frames, they wait for the last frame submitted, which may still use
    /// them. (Nothing is queued while a frame is prepared: the renderer queues at the start of a frame.)
    pub fn retire_all(&mut self, objects: impl IntoIterator<Item = T>) {
        let last_use = self.submitted;
        self.pending
            .extend(objects.into_iter().map(|o| (last_use, o)));
    }

    /// Counts a submitted frame and asks the queue to report when the GPU has finished it.
    pub fn submitted(&mut self, queue: &wgpu::Queue) {
        self.submitted += 1;
        let (frame, finished) = (self.submitted, self.finished.clone());
        queue.on_submitted_work_done(move || {
            finished.fetch_max(frame, Ordering::Relaxed);
        });
    }

    /// Releases what no unfinished frame can use (after a device poll, so finished work has been noticed);
    /// returns how many objects it released.
    pub fn release_finished(&mut self) -> usize {
        self.release_up_to(self.finished.load(Ordering::Relaxed))
    }

    fn release_up_to(&mut self, finished: u64) -> usize {
        let mut n = 0;
        while self.pending.front().is_some_and(|(f, _)| *f <= finished) {
            if let Some((_, o)) = self.pending.pop_front() {
                o.release();
                n += 1;
            }
        }
        n
    }

    /// Objects waiting.
    pub fn len(&self) -> usize {
        self.pending.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Release for u32 {
        fn release(self) {}
    }

    /// The release order without a device: objects wait for the frames that could use them.
    #[test]
    fn objects_wait_for_their_last_frame() {
        let mut q = ReleaseQueue::<u32>::default();
        // Nothing submitted: free at the first look.
        q.retire_all([1]);
        assert_eq!(q.release_up_to(0), 1);
        q.submitted = 3; // frames 1..=3 submitted
        q.retire_all([2]);
        q.submitted = 4;
        q.retire_all([3]);
        assert_eq!(q.release_up_to(2), 0, "frame 3 may still use the first");
        assert_eq!(q.release_up_to(3), 1);
        assert_eq!(q.len(), 1);
        assert_eq!(q.release_up_to(4), 1);
        assert_eq!(q.len(), 0);
    }
}
