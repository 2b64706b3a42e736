//! GPU frame time (the Babylon.js seed): where the device has `TIMESTAMP_QUERY`, a frame whose passes stage2d
//! begins itself writes a timestamp when its first pass begins (a filter pass, or its own) and when its own pass
//! ends; the pair is resolved and copied into one of a few small readback
//! buffers, mapped without waiting, and read at a later frame. Everything is created once; a frame whose buffers
//! are all still waiting for the GPU is simply not timed. Passes the caller begins (embedded frames) are not timed:
//! their timestamps are the caller's to write.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

/// Readback buffers in the ring: frames timed at once while their results travel back.
const SLOTS: usize = 3;

/// The map callback's outcomes.
const MAPPED: u8 = 1;
const FAILED: u8 = 2;

/// 16 bytes: the pass's start and end timestamps.
const PAIR: u64 = 16;

#[derive(Debug)]
struct Slot {
    readback: wgpu::Buffer,
    /// Set by the map callback: [`MAPPED`] or [`FAILED`].
    mapped: Arc<AtomicU8>,
    /// A copy was submitted and its map requested.
    waiting: bool,
}

/// The timer: a query set of two timestamps per slot, a resolve buffer and the readback ring.
#[derive(Debug)]
pub(crate) struct GpuTimer {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    slots: Vec<Slot>,
    /// Nanoseconds per timestamp tick.
    period: f32,
    /// The slot the frame being recorded writes into.
    current: Option<usize>,
    /// GPU time of the latest frame whose timestamps came back, in milliseconds.
    pub last_ms: Option<f32>,
}

impl GpuTimer {
    /// A timer, or `None` where the device cannot write timestamps.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Option<GpuTimer> {
        if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            return None;
        }
        let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("stage2d pass timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: 2 * SLOTS as u32,
        });
        let buffer = |label, size, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage,
                mapped_at_creation: false,
            })
        };
        let resolve_usage = wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC;
        let stride = wgpu::QUERY_RESOLVE_BUFFER_ALIGNMENT;
        let resolve = buffer("stage2d timestamps", stride * SLOTS as u64, resolve_usage);
        let read_usage = wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST;
        let slots = (0..SLOTS)
            .map(|_| Slot {
                readback: buffer("stage2d timestamp readback", PAIR, read_usage),
                mapped: Arc::default(),
                waiting: false,
            })
            .collect();
        Some(GpuTimer {
            queries,
            resolve,
            slots,
            period: queue.get_timestamp_period(),
            current: None,
            last_ms: None,
        })
    }

    /// Reads the timestamps that have come back (without waiting) into [`GpuTimer::last_ms`].
    pub fn collect(&mut self) {
        for s in &mut self.slots {
            let state = s.mapped.load(Ordering::Acquire);
            if !s.waiting || state == 0 {
                continue;
            }
            if state == MAPPED {
                if let Ok(data) = s.readback.slice(..).get_mapped_range() {
                    let t: [u64; 2] = bytemuck::pod_read_unaligned(&data[..16]);
                    // A wrapped or reordered pair (some drivers) is no measurement.
                    if t[1] > t[0] {
                        self.last_ms = Some((t[1] - t[0]) as f32 * self.period / 1e6);
                    }
                }
            }
            if state == MAPPED {
                s.readback.unmap();
            }
            s.mapped.store(0, Ordering::Release);
            s.waiting = false;
        }
    }

    /// Takes a free readback slot for the frame about to be recorded: the query set and the index its first
    /// pass writes its beginning timestamp to (the frame's own pass writes the end). `None` when every slot
    /// waits for the GPU (the frame is not timed).
    pub fn reserve(&mut self) -> Option<(wgpu::QuerySet, u32)> {
        let i = self.slots.iter().position(|s| !s.waiting)?;
        self.current = Some(i);
        Some((self.queries.clone(), 2 * i as u32))
    }

    /// The timestamp writes for the frame's own pass (its last): the end, and the beginning too unless an
    /// earlier pass of the frame wrote it (`begun`). `None` when no slot was reserved.
    pub fn pass_writes(&mut self, begun: bool) -> Option<wgpu::RenderPassTimestampWrites<'_>> {
        let i = self.current? as u32;
        Some(wgpu::RenderPassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: (!begun).then_some(2 * i),
            end_of_pass_write_index: Some(2 * i + 1),
        })
    }

    /// After the pass ended: resolves its timestamps and copies them to the slot's readback buffer.
    pub fn resolve(&mut self, encoder: &mut wgpu::CommandEncoder) {
        let Some(i) = self.current else { return };
        let (first, offset) = (
            2 * i as u32,
            wgpu::QUERY_RESOLVE_BUFFER_ALIGNMENT * i as u64,
        );
        encoder.resolve_query_set(&self.queries, first..first + 2, &self.resolve, offset);
        let readback = &self.slots[i].readback;
        encoder.copy_buffer_to_buffer(&self.resolve, offset, readback, 0, PAIR);
    }

    /// After the encoder was submitted: asks for the slot to be mapped when the GPU is done.
    pub fn submitted(&mut self) {
        let Some(i) = self.current.take() else { return };
        let s = &mut self.slots[i];
        let mapped = s.mapped.clone();
        s.readback
            .slice(..)
            .map_async(wgpu::MapMode::Read, move |r| {
                mapped.store(if r.is_ok() { MAPPED } else { FAILED }, Ordering::Release);
            });
        s.waiting = true;
    }

    /// Drops the frame being recorded (it failed before submit).
    pub fn abandon(&mut self) {
        self.current = None;
    }

    /// Whether a readback waits for the GPU.
    pub fn waiting(&self) -> bool {
        self.slots.iter().any(|s| s.waiting)
    }
}
