//! The upload phase: the batcher's quad, mesh-vertex, transform and index streams in grow-only GPU buffers
//! ([`GpuBuffer`], `gpu/buffer.rs`), the bind group that exposes them to the batch shader, and the copies of what
//! changed since the last frame through the staging belt (`gpu/upload.rs`). The quad stream lives in two buffers,
//! its quads' corners and the rest of each, so that moved sprites upload only their corners (half of each quad).
//!
//! A re-created buffer has lost its contents, so its whole stream is marked dirty, and its new generation makes
//! the [`Encoder`](crate::frame::encoder::Encoder) re-bind it. In steady state nothing is created (counted).

use crate::base::stats::FrameStats;
use crate::frame::batcher::{Batcher, TrackedVec};
use crate::frame::elements::{QUAD_CORNER_BYTES, VERTEX_POSITION_BYTES};
use crate::frame::encoder::Encoder;
use crate::frame::placement::{Placement, Run};
use crate::gpu::buffer::GpuBuffer;
use crate::gpu::texture_system::BindGroupId;
use crate::gpu::upload::{Source, UploadBelt};
use crate::{Error, Result};
use std::ops::Range;

/// Makes room for `stream` in `gpu` (at least `min` bytes, at most `max`). A re-created buffer has lost its
/// contents, so the whole stream is then marked dirty; returns whether that happened.
fn fit<T: bytemuck::Pod + Default>(
    gpu: &mut GpuBuffer,
    device: &wgpu::Device,
    stream: &mut TrackedVec<T>,
    min: u64,
    max: u64,
    stats: &mut FrameStats,
) -> bool {
    let grown = gpu.fit(device, stream.as_bytes().len() as u64, min, max, stats);
    if grown {
        stream.mark_all_dirty();
    }
    grown
}

/// Records a copy of each changed element's two parts (`head` and `rest` of each, into the two buffers): both
/// for the stream's dirty ranges, the head alone for ranges in which only it changed (outside a dirty range).
/// Returns whether anything was written.
fn upload_halves<T: bytemuck::Pod + Default + Sync, const H: usize, const R: usize>(
    belt: &mut UploadBelt,
    encoder: &mut wgpu::CommandEncoder,
    stream: &TrackedVec<T>,
    ((head_gpu, head_base), (rest_gpu, rest_base)): ((&GpuBuffer, u64), (&GpuBuffer, u64)),
    head: impl Fn(&T) -> [u8; H] + Sync,
    rest: impl Fn(&T) -> [u8; R] + Sync,
    frame: &mut FrameStats,
) -> bool {
    let items = stream.as_slice();
    let dirty = stream.dirty_ranges();
    let inside = |r: &Range<usize>| dirty.iter().any(|d| d.start <= r.start && r.end <= d.end);
    let heads = stream.head_dirty_ranges().iter().filter(|r| !inside(r));
    let mut wrote = false;
    if let Some(buf) = &head_gpu.buffer {
        for r in dirty.iter().chain(heads) {
            let at = head_base + (r.start * H) as u64;
            write_part(belt, encoder, buf, &items[r.clone()], at, &head, frame);
            wrote = true;
        }
    }
    if let Some(buf) = &rest_gpu.buffer {
        for r in dirty {
            let at = rest_base + (r.start * R) as u64;
            write_part(belt, encoder, buf, &items[r.clone()], at, &rest, frame);
            wrote = true;
        }
    }
    wrote
}

/// Records a copy of `part(item)` for each of `items` into `buf` from byte `at`, `N` bytes an element.
fn write_part<T: Sync, const N: usize>(
    belt: &mut UploadBelt,
    encoder: &mut wgpu::CommandEncoder,
    buf: &wgpu::Buffer,
    items: &[T],
    at: u64,
    part: &(impl Fn(&T) -> [u8; N] + Sync),
    frame: &mut FrameStats,
) {
    let fill = |at: usize, dst: wgpu::WriteOnly<'_, [u8]>| {
        let (pieces, _) = dst.into_chunks::<N>();
        // As many elements as pieces (the belt splits on whole pieces).
        if let Some(src) = items.get(at..at + pieces.len()) {
            pieces.write_iter(src.iter().map(part));
        }
    };
    let src = Source::Pieces {
        pieces: items.len(),
        unit: N,
        fill: &fill,
    };
    belt.write(encoder, buf, at, src, frame);
}

/// The frame's GPU-side geometry: quads and mesh vertices (storage buffers, group 1 of the batch shader) and
/// indices.
#[derive(Debug)]
pub(crate) struct Streams {
    /// Each quad's corners ([`QUAD_CORNER_BYTES`] a quad).
    corners: GpuBuffer,
    /// The rest of each quad: frame, colour, texture word.
    quad_rest: GpuBuffer,
    /// Mesh vertices: room for `n` (its size over 24 bytes), each position ([`VERTEX_POSITION_BYTES`]) from the
    /// start, the rest of each ([`VERTEX_REST_BYTES`]) from byte `8n`.
    vertices: GpuBuffer,
    indices: GpuBuffer,
    transforms: GpuBuffer,
    /// Binds the quad (two buffers), mesh-vertex and transform streams (group 1); re-created when any of their
    /// buffers is.
    layout: wgpu::BindGroupLayout,
    group: Option<(BindGroupId, wgpu::BindGroup)>,
    /// Largest stream buffer the device binds.
    max: u64,
    belt: UploadBelt,
    /// The placed runs' list, lent to each frame's [`Placement`].
    runs: Vec<Run>,
}

impl Streams {
    /// Empty streams on `device`; buffers are created by the first upload.
    pub fn new(device: &wgpu::Device, max: u64) -> Streams {
        let stream = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::VERTEX,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only: true },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("stage2d streams"),
            entries: &[stream(0), stream(1), stream(2), stream(3)],
        });
        Streams {
            corners: GpuBuffer::new(2, wgpu::BufferUsages::STORAGE, "stage2d quad corners"),
            quad_rest: GpuBuffer::new(4, wgpu::BufferUsages::STORAGE, "stage2d quad frames"),
            vertices: GpuBuffer::new(0, wgpu::BufferUsages::STORAGE, "stage2d mesh vertices"),
            indices: GpuBuffer::new(1, wgpu::BufferUsages::INDEX, "stage2d indices"),
            transforms: GpuBuffer::new(3, wgpu::BufferUsages::STORAGE, "stage2d group transforms"),
            layout,
            group: None,
            max,
            belt: UploadBelt::new(device.clone(), 1 << 20),
            runs: Vec::new(),
        }
    }

    /// The layout of the streams' bind group (group 1 of the batch shader).
    pub fn layout(&self) -> &wgpu::BindGroupLayout {
        &self.layout
    }

    /// Staging for `corners` moved quads' corners, placed by a kept walk before the upload (`placement.rs`).
    pub fn placement(&mut self, corners: usize, frame: &mut FrameStats) -> Placement {
        let reserved = self
            .belt
            .reserve((corners * QUAD_CORNER_BYTES) as u64, frame);
        Placement::mapped(reserved, corners, std::mem::take(&mut self.runs))
    }

    /// Grows the buffers as needed (re-binding them), then records a copy of each stream's dirty range into
    /// `encoder`, and after them a copy of each run of corners placed in `place`; returns whether anything was. A
    /// frame larger than the device binds is [`Error::FrameTooLarge`], with nothing recorded.
    pub fn upload(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        b: &mut Batcher,
        place: Option<Placement>,
        frame: &mut FrameStats,
    ) -> Result<bool> {
        let max = self.max;
        let half = b.quads.len() * QUAD_CORNER_BYTES;
        for (stream, bytes) in [
            ("quad", half),
            ("vertex", b.vertices.as_bytes().len()),
            ("index", b.indices.as_bytes().len()),
            ("transform", b.transforms.as_bytes().len()),
        ] {
            let bytes = bytes as u64;
            if bytes > max {
                return Err(Error::FrameTooLarge { stream, bytes, max });
            }
        }
        // Storage buffers are bound even when empty: they always exist (at least 4 bytes).
        let mut rebind = self.group.is_none();
        let mut grown = self.corners.fit(device, half as u64, 4, max, frame);
        grown |= self.quad_rest.fit(device, half as u64, 4, max, frame);
        if grown {
            b.quads.mark_all_dirty();
        }
        rebind |= grown;
        rebind |= fit(&mut self.vertices, device, &mut b.vertices, 24, max, frame);
        rebind |= fit(
            &mut self.transforms,
            device,
            &mut b.transforms,
            32,
            max,
            frame,
        );
        fit(&mut self.indices, device, &mut b.indices, 0, max, frame);
        if rebind {
            let (Some(c), Some(q), Some(v), Some(t)) = (
                &self.corners.buffer,
                &self.quad_rest.buffer,
                &self.vertices.buffer,
                &self.transforms.buffer,
            ) else {
                unreachable!("reserved above");
            };
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("stage2d streams"),
                layout: &self.layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: c.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: q.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: v.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: t.as_entire_binding(),
                    },
                ],
            });
            frame.bind_groups_created += 1;
            let id = match &self.group {
                Some((BindGroupId(n), _)) => BindGroupId(n.wrapping_add(1)),
                None => BindGroupId(0),
            };
            self.group = Some((id, group));
        }
        let mut wrote = false;
        // Quads: corners and the rest; vertices: positions and the rest. Each dirty range uploads both halves, a
        // range in which only the leading part changed (moved), that part alone.
        let belt = &mut self.belt;
        // The rest of the vertices begins past room for every position the buffer holds.
        let room = self.vertices.buffer.as_ref().map_or(0, |b| b.size()) / 24;
        let rest_base = room * VERTEX_POSITION_BYTES as u64;
        wrote |= upload_halves(
            belt,
            encoder,
            &b.quads,
            ((&self.corners, 0), (&self.quad_rest, 0)),
            |q| bytemuck::cast::<_, [u8; QUAD_CORNER_BYTES]>(q.half(true)),
            |q| bytemuck::cast::<_, [u8; QUAD_CORNER_BYTES]>(q.half(false)),
            frame,
        );
        wrote |= upload_halves(
            belt,
            encoder,
            &b.vertices,
            ((&self.vertices, 0), (&self.vertices, rest_base)),
            |v| v.position_bytes(),
            |v| v.rest_bytes(),
            frame,
        );
        let mut upload = |gpu: &GpuBuffer, dirty: &mut dyn Iterator<Item = (u64, &[u8])>| {
            if let Some(buf) = &gpu.buffer {
                for (offset, bytes) in dirty {
                    self.belt
                        .write(encoder, buf, offset, Source::Bytes(bytes), frame);
                    wrote = true;
                }
            }
        };
        upload(&self.indices, &mut b.indices.dirty_bytes());
        upload(&self.transforms, &mut b.transforms.dirty_bytes());
        if let Some(p) = place {
            // After the stream's ranges: a placed quad in one of them (a range bridging a gap) gets the placed
            // corners.
            let (runs, reserved) = p.finish();
            if let (Some(r), Some(buf)) = (&reserved, &self.corners.buffer) {
                let bytes = |n: usize| (n * QUAD_CORNER_BYTES) as u64;
                for run in &runs {
                    let (at, len) = (bytes(run.at), bytes(run.n));
                    let offset = bytes(run.quad);
                    self.belt
                        .copy_reserved(encoder, r, (at, len), buf, offset, frame);
                    wrote = true;
                }
            }
            self.runs = runs;
        }
        self.belt.finish(encoder);
        Ok(wrote)
    }

    /// Whether an upload recorded into an encoder was lost (the encoder was dropped unsubmitted): the GPU buffers
    /// then lack what the batcher believes they hold.
    pub fn take_lost_upload(&mut self) -> bool {
        self.belt.take_lost()
    }

    /// Binds the streams (group 1 and the index buffer) at the start of a pass.
    pub fn bind(&self, enc: &mut Encoder<'_, '_>) {
        if let (Some((id, group)), Some(ib)) = (&self.group, &self.indices.buffer) {
            enc.set_bind_group(1, *id, group);
            enc.set_index_buffer(self.indices.binding(), ib);
        }
    }
}
