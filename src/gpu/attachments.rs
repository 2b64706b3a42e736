//! Attachments stage2d adds to the targets it begins passes on itself: the 4x multisampled colour texture that
//! resolves into the target, and the stencil texture that masks write into. Each is created on first use for its
//! (format or sample count, size) and reused after (counted in [`FrameStats::textures_created`]).
//!
//! A target that has used a stencil attachment keeps it, so its pipelines stay in one tier instead of alternating
//! between "with" and "without" an attachment from frame to frame. Attachments (and that habit) unused for
//! [`Attachments::MAX_IDLE_FRAMES`] frames are evicted, so targets of changing sizes do not pile them up.

use crate::base::stats::FrameStats;
use crate::gpu::release::Retired;
use std::collections::HashMap;

/// The stencil format of stage2d's own attachments.
pub(crate) const STENCIL_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth24PlusStencil8;

/// A target's identity for the attachment caches: colour format and size in pixels.
pub(crate) type TargetKey = (wgpu::TextureFormat, u32, u32);

/// One cached attachment.
#[derive(Debug)]
struct Entry {
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    /// The last frame that used it.
    last_used: u64,
}

/// The attachment caches.
#[derive(Debug, Default)]
pub(crate) struct Attachments {
    msaa: HashMap<TargetKey, Entry>,
    /// Stencil attachments by (width, height, samples).
    stencil: HashMap<(u32, u32, u32), Entry>,
    /// Targets that keep a stencil attachment, with the last frame that drew into them.
    stencil_users: HashMap<TargetKey, u64>,
    /// Frames ended so far.
    frame: u64,
}

impl Attachments {
    /// Frames an attachment (or a target's stencil habit) is kept without use: targets of a size no longer drawn
    /// (render textures resized or dropped, a window resized) stop holding GPU memory after this.
    pub const MAX_IDLE_FRAMES: u64 = 60;

    /// Marks a target as one that keeps a stencil attachment from now on (while it is drawn).
    pub fn keep_stencil(&mut self, target: TargetKey) {
        self.stencil_users.insert(target, self.frame);
    }

    /// Whether a target keeps a stencil attachment.
    pub fn keeps_stencil(&mut self, target: TargetKey) -> bool {
        match self.stencil_users.get_mut(&target) {
            Some(last) => {
                *last = self.frame;
                true
            }
            None => false,
        }
    }

    /// The multisampled colour texture for a target, created once and reused.
    pub fn msaa_view(
        &mut self,
        device: &wgpu::Device,
        target: TargetKey,
        frame: &mut FrameStats,
    ) -> wgpu::TextureView {
        let (format, w, h) = target;
        let now = self.frame;
        let e = self
            .msaa
            .entry(target)
            .or_insert_with(|| create(device, format, (w, h), 4, "stage2d msaa colour", frame));
        e.last_used = now;
        e.view.clone()
    }

    /// The stencil attachment for a target of `size` and `samples`, created once and reused.
    pub fn stencil_view(
        &mut self,
        device: &wgpu::Device,
        size: (u32, u32),
        samples: u32,
        frame: &mut FrameStats,
    ) -> wgpu::TextureView {
        let now = self.frame;
        let e = self
            .stencil
            .entry((size.0, size.1, samples))
            .or_insert_with(|| {
                let label = "stage2d stencil";
                create(device, STENCIL_FORMAT, size, samples, label, frame)
            });
        e.last_used = now;
        e.view.clone()
    }

    /// Ends a frame: attachments unused for [`Attachments::MAX_IDLE_FRAMES`] are evicted into `retired` (their
    /// textures are destroyed once the GPU has finished the frames that used them).
    pub fn trim(&mut self, retired: &mut Vec<Retired>) {
        let now = self.frame;
        let idle = |last: u64| now.saturating_sub(last) > Self::MAX_IDLE_FRAMES;
        for map in [&mut self.msaa as &mut dyn EvictIdle, &mut self.stencil] {
            map.evict(&idle, retired);
        }
        self.stencil_users.retain(|_, last| !idle(*last));
        self.frame += 1;
    }

    /// Attachments held.
    pub fn len(&self) -> usize {
        self.msaa.len() + self.stencil.len()
    }
}

/// Eviction over both attachment maps (their keys differ).
trait EvictIdle {
    fn evict(&mut self, idle: &dyn Fn(u64) -> bool, retired: &mut Vec<Retired>);
}

impl<K: std::hash::Hash + Eq> EvictIdle for HashMap<K, Entry> {
    fn evict(&mut self, idle: &dyn Fn(u64) -> bool, retired: &mut Vec<Retired>) {
        self.retain(|_, e| {
            if idle(e.last_used) {
                retired.push(Retired::Texture(e.texture.clone()));
                return false;
            }
            true
        });
    }
}

fn create(
    device: &wgpu::Device,
    format: wgpu::TextureFormat,
    size: (u32, u32),
    samples: u32,
    label: &'static str,
    frame: &mut FrameStats,
) -> Entry {
    frame.textures_created += 1;
    let texture = device.create_texture(&wgpu::TextureDescriptor {
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
    });
    let view = texture.create_view(&Default::default());
    Entry {
        texture,
        view,
        last_used: 0,
    }
}
