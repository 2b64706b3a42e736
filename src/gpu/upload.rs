//! The upload belt: reusable, persistently recycled staging buffers for per-frame uploads.
//!
//! `Queue::write_buffer` takes a fresh staging allocation for every call; at 100,000 sprites that is ~10 MB of new
//! pages a frame, and page faults cost more than the copy. The belt keeps mapped `MAP_WRITE | COPY_SRC` chunks,
//! sub-allocates writes from them, records `copy_buffer_to_buffer` into the frame's encoder before the pass, and
//! gets each chunk back once the GPU is done with it. In steady state it creates no buffer (counted).
//!
//! Chunks come back through `map_buffer_on_submit` on the encoder that used them, so it does not matter whose
//! encoder that is or who submits it (the caller's, when stage2d is embedded). An encoder dropped unsubmitted
//! drops its chunks with it; the belt notices and reports the upload as lost.

use crate::base::stats::FrameStats;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};

#[derive(Debug)]
struct Chunk {
    buffer: wgpu::Buffer,
    offset: u64,
}

/// Staging memory taken ahead of its writer ([`UploadBelt::reserve`]): bytes `offset..offset + len` of a mapped
/// chunk, copied by [`UploadBelt::copy_reserved`].
#[derive(Debug)]
pub(crate) struct Reserved {
    buffer: wgpu::Buffer,
    offset: u64,
    len: u64,
}

impl Reserved {
    /// The reserved bytes, mapped for writing. Dropped before the belt's [`UploadBelt::finish`], which unmaps.
    /// `None` where the chunk could not be mapped (its device is lost: the writes go nowhere).
    pub fn map(&self) -> Option<wgpu::BufferViewMut> {
        unmapped(
            self.buffer
                .slice(self.offset..self.offset + self.len)
                .get_mapped_range_mut(),
        )
    }
}

/// Recycled staging memory for buffer uploads.
#[derive(Debug)]
pub(crate) struct UploadBelt {
    device: wgpu::Device,
    chunk_size: u64,
    active: Vec<Chunk>,
    free: Vec<Chunk>,
    returned_tx: mpsc::Sender<Chunk>,
    returned_rx: mpsc::Receiver<Chunk>,
    /// Set when an encoder carrying this belt's copies was dropped without being submitted.
    lost: Arc<AtomicBool>,
}

/// Rides along with a chunk's return callback: if the callback is dropped without running, the encoder that held
/// the copies was never submitted.
struct SubmitWatch {
    lost: Arc<AtomicBool>,
    ran: bool,
}

impl SubmitWatch {
    /// The callback ran: the encoder was submitted.
    fn ran(mut self) {
        self.ran = true;
    }
}

impl Drop for SubmitWatch {
    fn drop(&mut self) {
        if !self.ran {
            self.lost.store(true, Ordering::Relaxed);
        }
    }
}

impl UploadBelt {
    /// A belt that allocates chunks of at least `chunk_size` bytes.
    pub fn new(device: wgpu::Device, chunk_size: u64) -> Self {
        let (returned_tx, returned_rx) = mpsc::channel();
        UploadBelt {
            device,
            chunk_size,
            active: Vec::new(),
            free: Vec::new(),
            returned_tx,
            returned_rx,
            lost: Arc::default(),
        }
    }

    /// Copies `data` into `target` at `offset` before `encoder`'s commands run. The length and `offset` must be
    /// multiples of 4 (`wgpu::COPY_BUFFER_ALIGNMENT`).
    pub fn write(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::Buffer,
        offset: u64,
        data: Source<'_>,
        stats: &mut FrameStats,
    ) {
        let len = data.len() as u64;
        if len == 0 {
            return;
        }
        debug_assert!(
            len.is_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT)
                && offset.is_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT)
        );
        let index = self.chunk_for(len, stats);
        let chunk = &mut self.active[index];
        let start = chunk.offset;
        copy(&chunk.buffer, start, data);
        encoder.copy_buffer_to_buffer(&chunk.buffer, start, target, offset, len);
        // The next write's mapped range must start at a multiple of wgpu::MAP_ALIGNMENT (8); `len` may be 4 more.
        chunk.offset = (start + len).next_multiple_of(wgpu::MAP_ALIGNMENT);
        stats.bytes_uploaded += len;
    }

    /// An active chunk with `len` bytes free: one already written this frame, a returned one, or a new one.
    fn chunk_for(&mut self, len: u64, stats: &mut FrameStats) -> usize {
        let fits = |c: &Chunk| c.offset + len <= c.buffer.size();
        debug_assert!(self
            .active
            .iter()
            .all(|c| c.offset.is_multiple_of(wgpu::MAP_ALIGNMENT)));
        match self.active.iter().position(fits) {
            Some(i) => i,
            None => {
                while let Ok(c) = self.returned_rx.try_recv() {
                    self.free.push(Chunk { offset: 0, ..c });
                }
                let chunk = match self.free.iter().position(|c| c.buffer.size() >= len) {
                    Some(i) => self.free.swap_remove(i),
                    None => {
                        stats.buffers_created += 1;
                        Chunk {
                            buffer: self.device.create_buffer(&wgpu::BufferDescriptor {
                                label: Some("stage2d staging"),
                                size: len.next_power_of_two().max(self.chunk_size),
                                usage: wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
                                mapped_at_creation: true,
                            }),
                            offset: 0,
                        }
                    }
                };
                self.active.push(chunk);
                self.active.len() - 1
            }
        }
    }

    /// Takes `len` bytes (a multiple of 8) of mapped staging memory for a writer that fills them before the
    /// upload ([`Placement`](crate::frame::placement::Placement)); [`UploadBelt::copy_reserved`] then copies what it wrote.
    pub fn reserve(&mut self, len: u64, stats: &mut FrameStats) -> Reserved {
        debug_assert!(len.is_multiple_of(wgpu::MAP_ALIGNMENT));
        let len = len.max(wgpu::MAP_ALIGNMENT);
        let index = self.chunk_for(len, stats);
        let chunk = &mut self.active[index];
        let offset = chunk.offset;
        chunk.offset += len;
        Reserved {
            buffer: chunk.buffer.clone(),
            offset,
            len,
        }
    }

    /// Copies bytes `at..at + len` of `reserved` (written meanwhile) into `target` at `offset`, before
    /// `encoder`'s commands run.
    pub fn copy_reserved(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        reserved: &Reserved,
        (at, len): (u64, u64),
        target: &wgpu::Buffer,
        offset: u64,
        stats: &mut FrameStats,
    ) {
        debug_assert!(at + len <= reserved.len, "a copy past the reservation");
        if len == 0 || at + len > reserved.len {
            return;
        }
        encoder.copy_buffer_to_buffer(&reserved.buffer, reserved.offset + at, target, offset, len);
        stats.bytes_uploaded += len;
    }

    /// Unmaps the chunks written into `encoder` and has each come back, mapped again, once the GPU has run the
    /// copies (on whichever submit carries the encoder).
    pub fn finish(&mut self, encoder: &wgpu::CommandEncoder) {
        for c in self.active.drain(..) {
            c.buffer.unmap();
            let tx = self.returned_tx.clone();
            let buffer = c.buffer.clone();
            let watch = SubmitWatch {
                lost: self.lost.clone(),
                ran: false,
            };
            encoder.map_buffer_on_submit(&c.buffer, wgpu::MapMode::Write, .., move |r| {
                watch.ran();
                if r.is_ok() {
                    let _ = tx.send(Chunk { buffer, offset: 0 });
                }
            });
        }
    }

    /// Whether copies recorded by this belt were dropped with an unsubmitted encoder since the last call.
    pub fn take_lost(&mut self) -> bool {
        self.lost.swap(false, Ordering::Relaxed)
    }
}

/// What an upload writes: bytes as they stand, or bytes put together piece by piece (one part of each element of
/// a stream, as a moved quad's corners).
#[derive(Clone, Copy)]
pub(crate) enum Source<'a> {
    /// These bytes.
    Bytes(&'a [u8]),
    /// `pieces` pieces of `unit` bytes each: `fill(i, dst)` writes pieces `i..i + dst.len() / unit` into `dst`.
    Pieces {
        pieces: usize,
        unit: usize,
        fill: &'a (dyn Fn(usize, wgpu::WriteOnly<'_, [u8]>) + Sync),
    },
}

impl Source<'_> {
    /// Bytes written.
    pub fn len(&self) -> usize {
        match self {
            Source::Bytes(b) => b.len(),
            Source::Pieces { pieces, unit, .. } => pieces * unit,
        }
    }

    /// Writes this source's bytes `at..at + dst.len()` (`at` and the length whole pieces) into `dst`.
    fn fill(&self, at: usize, mut dst: wgpu::WriteOnly<'_, [u8]>) {
        match self {
            Source::Bytes(b) => dst.copy_from_slice(&b[at..at + dst.len()]),
            Source::Pieces { unit, fill, .. } => fill(at / unit, dst),
        }
    }

    /// What a split must be a multiple of: whole pieces whose mapped ranges start 8-aligned.
    fn step(&self) -> usize {
        let unit = match self {
            Source::Bytes(_) => 1,
            Source::Pieces { unit, .. } => (*unit).max(1),
        };
        let align = wgpu::MAP_ALIGNMENT as usize;
        let (mut a, mut b) = (unit, align);
        while b != 0 {
            (a, b) = (b, a % b);
        }
        unit / a * align
    }
}

/// A mapped range, or `None` (logged) where a staging chunk could not be mapped: wgpu makes its buffers invalid
/// once the device is lost, and the frame then ends in [`Error::DeviceLost`](crate::Error::DeviceLost).
fn unmapped<T, E: std::fmt::Display>(range: Result<T, E>) -> Option<T> {
    range
        .inspect_err(|e| log::warn!("a staging chunk could not be mapped (a lost device?): {e}"))
        .ok()
}

/// Copies of at least this many bytes into a staging chunk are split over every core (of four or more).
const PARALLEL_COPY_BYTES: usize = 1 << 20;

/// Writes `src` into the mapped `buffer` at `start`; on every core for large copies: a frame of 100,000 moved
/// sprites writes 2.4 MB of corners, most of them just written by other cores (kept walks patch quads in
/// parallel), which one core would first have to fetch from their caches. Halves are written side by side, each
/// through its own mapped range, down to pieces of about 256 KiB (nothing allocated).
fn copy(buffer: &wgpu::Buffer, start: u64, src: Source<'_>) {
    const PIECE: usize = 256 << 10;
    fn one(buffer: &wgpu::Buffer, start: u64, src: Source<'_>, at: usize, len: usize) {
        let range = buffer
            .slice(start..start + len as u64)
            .get_mapped_range_mut();
        if let Some(mut view) = unmapped(range) {
            src.fill(at, view.slice(..));
        }
    }
    fn halves(buffer: &wgpu::Buffer, start: u64, src: Source<'_>, at: usize, len: usize) {
        // Whole steps, so that each half's mapped range starts 8-aligned on a piece.
        let step = src.step();
        let mid = len / 2 / step * step;
        if len <= 2 * PIECE || mid == 0 {
            return one(buffer, start, src, at, len);
        }
        rayon::join(
            || halves(buffer, start, src, at, mid),
            || halves(buffer, start + mid as u64, src, at + mid, len - mid),
        );
    }
    let len = src.len();
    if len < PARALLEL_COPY_BYTES || rayon::current_num_threads() < 4 {
        one(buffer, start, src, 0, len);
    } else {
        halves(buffer, start, src, 0, len);
    }
}
