//! Grow-only GPU buffers with a stable id and a generation bumped when one is re-created, and the
//! [`BufferBinding`] that names a binding of one to the Encoder.
//!
//! A buffer only grows (to the next power of two, at least 64 KiB, at most the device's binding limit). A
//! re-created buffer has lost its contents (the caller marks what it holds dirty) and gets a new generation, so
//! the Encoder re-binds it.

use crate::base::stats::FrameStats;

/// A stable id of a buffer binding: which buffer, which incarnation of it (bumped when it is re-created), and
/// the byte offset bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BufferBinding {
    /// Which buffer.
    pub buffer: u32,
    /// Incarnation, bumped each time the buffer is re-created (e.g. grown).
    pub generation: u32,
    /// Byte offset bound.
    pub offset: u64,
}

/// A grow-only GPU buffer with a stable id and a generation bumped when it is re-created.
#[derive(Debug)]
pub(crate) struct GpuBuffer {
    pub buffer: Option<wgpu::Buffer>,
    id: u32,
    generation: u32,
    usage: wgpu::BufferUsages,
    label: &'static str,
}

impl GpuBuffer {
    pub fn new(id: u32, usage: wgpu::BufferUsages, label: &'static str) -> Self {
        GpuBuffer {
            buffer: None,
            id,
            generation: 0,
            usage: usage | wgpu::BufferUsages::COPY_DST,
            label,
        }
    }

    /// Makes room for `bytes` (at least `min`, at most `max`); returns whether the buffer was re-created (its
    /// contents lost).
    pub fn fit(
        &mut self,
        device: &wgpu::Device,
        bytes: u64,
        min: u64,
        max: u64,
        stats: &mut FrameStats,
    ) -> bool {
        let bytes = bytes.max(min);
        if self.buffer.as_ref().is_some_and(|b| b.size() >= bytes) || bytes == 0 {
            return false;
        }
        let size = bytes.next_power_of_two().max(64 * 1024).min(max.max(bytes));
        self.buffer = Some(device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(self.label),
            size,
            usage: self.usage,
            mapped_at_creation: false,
        }));
        self.generation += 1;
        stats.buffers_created += 1;
        true
    }

    pub fn binding(&self) -> BufferBinding {
        BufferBinding {
            buffer: self.id,
            generation: self.generation,
            offset: 0,
        }
    }
}
