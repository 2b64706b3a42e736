//! Placement: a kept frame's moved sprites written straight into staging memory.
//!
//! A kept walk whose changes are all moves ([`Scene::transform_mut`](crate::Scene::transform_mut)) computes each
//! moved sprite's corners again. Written into the quad stream, they would be read back and copied into staging by
//! the upload a moment later; at 100,000 sprites that second pass over 2.4 MB cost a fifth of the frame on a CPU
//! rasteriser. Instead the upload reserves staging for the frame's moves before the walk, the walk writes the
//! corners there in runs of consecutive quads, and the upload copies each run to its quads.
//!
//! The quad stream's copy of those corners is then older than the GPU's: the stream keeps them as stale ranges
//! ([`TrackedVec::mark_stale`](crate::frame::tracked::TrackedVec::mark_stale)). A full walk writes every quad again and
//! uploads the stale ranges' corners with what it changed; a kept frame that writes quads in the stream first
//! computes the stale ones again and uploads them (`Kept::heal` in `collect/retain/patch.rs`). Nothing else reads a quad's
//! corners from the stream.

use crate::frame::elements::QUAD_CORNER_BYTES;
use crate::gpu::upload::Reserved;

/// A run of placed corners: staging pieces `at..at + n` go to quads `quad..quad + n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Run {
    pub quad: usize,
    pub at: usize,
    pub n: usize,
}

/// Staging for one frame's moved corners, and the runs written into it.
#[derive(Debug)]
pub(crate) struct Placement {
    staging: Staging,
    /// Corners the staging holds.
    cap: usize,
    /// Corners written.
    used: usize,
    runs: Vec<Run>,
}

enum Staging {
    Mapped {
        view: wgpu::BufferViewMut,
        reserved: Reserved,
    },
    /// Ordinary memory: tests of the walk, and staging that could not be mapped (a lost device), whose corners
    /// go nowhere.
    Memory(Vec<[u8; QUAD_CORNER_BYTES]>),
}

impl std::fmt::Debug for Staging {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Staging::Mapped { reserved, .. } => f.debug_tuple("Mapped").field(reserved).finish(),
            Staging::Memory(m) => f.debug_tuple("Memory").field(&m.len()).finish(),
        }
    }
}

impl Placement {
    /// Placement into `reserved` (room for `cap` corners), noting runs in `runs` (cleared; lent by the streams
    /// so that steady state allocates nothing).
    pub fn mapped(reserved: Reserved, cap: usize, mut runs: Vec<Run>) -> Placement {
        runs.clear();
        let staging = match reserved.map() {
            Some(view) => Staging::Mapped { view, reserved },
            None => Staging::Memory(vec![[0; QUAD_CORNER_BYTES]; cap]),
        };
        Placement {
            staging,
            cap,
            used: 0,
            runs,
        }
    }

    /// Placement into ordinary memory, for tests of the walk.
    #[cfg(test)]
    pub fn memory(cap: usize) -> Placement {
        Placement {
            staging: Staging::Memory(vec![[0; QUAD_CORNER_BYTES]; cap]),
            cap,
            used: 0,
            runs: Vec::new(),
        }
    }

    /// The staging not yet written, a quad's corners a piece.
    #[inline]
    pub fn rest(&mut self) -> wgpu::WriteOnly<'_, [[u8; QUAD_CORNER_BYTES]]> {
        let (used, cap) = (self.used, self.cap);
        match &mut self.staging {
            Staging::Mapped { view, .. } => {
                view.slice(used * QUAD_CORNER_BYTES..cap * QUAD_CORNER_BYTES)
                    .into_chunks::<QUAD_CORNER_BYTES>()
                    .0
            }
            Staging::Memory(m) => wgpu::WriteOnly::from_mut(&mut m[used..cap]),
        }
    }

    /// The first `n` pieces of [`Placement::rest`] were written with quads `quad..quad + n`'s corners.
    pub fn wrote(&mut self, quad: usize, n: usize) {
        let n = n.min(self.cap - self.used);
        if n == 0 {
            return;
        }
        match self.runs.last_mut() {
            Some(r) if r.quad + r.n == quad && r.at + r.n == self.used => r.n += n,
            _ => self.runs.push(Run {
                quad,
                at: self.used,
                n,
            }),
        }
        self.used += n;
    }

    /// Forgets what was written (the walk was not kept: a full walk uploads those quads).
    pub fn discard(&mut self) {
        self.runs.clear();
        self.used = 0;
    }

    /// The runs written, in the order written.
    #[cfg(test)]
    pub fn runs(&self) -> &[Run] {
        &self.runs
    }

    /// The corners written at piece `at` (tests).
    #[cfg(test)]
    pub fn corners(&self, at: usize) -> [[f32; 2]; 3] {
        match &self.staging {
            Staging::Memory(m) => bytemuck::cast(m[at]),
            Staging::Mapped { .. } => unreachable!("tests place into memory"),
        }
    }

    /// Ends the writing: the runs, and the reservation they lie in (its mapped view let go, so that the belt may
    /// unmap it).
    pub fn finish(self) -> (Vec<Run>, Option<Reserved>) {
        match self.staging {
            Staging::Mapped { view, reserved } => {
                drop(view);
                (self.runs, Some(reserved))
            }
            Staging::Memory(_) => (self.runs, None),
        }
    }
}
