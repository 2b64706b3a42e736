//! Attachments stage2d adds to the targets it begins passes on itself: the 4x multisampled colour texture that
//! resolves into the target, and the stencil texture that masks write into. Each is created on first use for its
//! (format or sample count, size) and reused after (counted in [`FrameStats::textures_created`]).
//!
//! A target that has used a stencil attachment keeps it, so its pipelines stay in one tier instead of alternating
//! between "with" and "without" an attachment from frame to frame.

use crate::stats::FrameStats;
use std::collections::{HashMap, HashSet};

/// The stencil format of stage2d's own attachments.
pub(crate) const STENCIL_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth24PlusStencil8;

/// A target's identity for the attachment caches: colour format and size in pixels.
pub(crate) type TargetKey = (wgpu::TextureFormat, u32, u32);

/// The attachment caches.
#[derive(Debug, Default)]
pub(crate) struct Attachments {
    msaa: HashMap<TargetKey, wgpu::TextureView>,
    /// Stencil attachments by (width, height, samples).
    stencil: HashMap<(u32, u32, u32), wgpu::TextureView>,
    stencil_users: HashSet<TargetKey>,
}

impl Attachments {
    /// Marks a target as one that keeps a stencil attachment from now on.
    pub fn keep_stencil(&mut self, target: TargetKey) {
        self.stencil_users.insert(target);
    }

    /// Whether a target keeps a stencil attachment.
    pub fn keeps_stencil(&self, target: TargetKey) -> bool {
        self.stencil_users.contains(&target)
    }

    /// The multisampled colour texture for a target, created once and reused.
    pub fn msaa_view(
        &mut self,
        device: &wgpu::Device,
        target: TargetKey,
        frame: &mut FrameStats,
    ) -> wgpu::TextureView {
        let (format, w, h) = target;
        self.msaa
            .entry(target)
            .or_insert_with(|| create(device, format, (w, h), 4, "stage2d msaa colour", frame))
            .clone()
    }

    /// The stencil attachment for a target of `size` and `samples`, created once and reused.
    pub fn stencil_view(
        &mut self,
        device: &wgpu::Device,
        size: (u32, u32),
        samples: u32,
        frame: &mut FrameStats,
    ) -> wgpu::TextureView {
        self.stencil
            .entry((size.0, size.1, samples))
            .or_insert_with(|| {
                create(
                    device,
                    STENCIL_FORMAT,
                    size,
                    samples,
                    "stage2d stencil",
                    frame,
                )
            })
            .clone()
    }
}

fn create(
    device: &wgpu::Device,
    format: wgpu::TextureFormat,
    size: (u32, u32),
    samples: u32,
    label: &'static str,
    frame: &mut FrameStats,
) -> wgpu::TextureView {
    frame.textures_created += 1;
    device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some(label),
            size: wgpu::Extent3d {
                width: size.0,
                height: size.1,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: samples,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        })
        .create_view(&Default::default())
}
