//! The TextureSystem: GPU textures behind [`TextureId`]s, samplers cached by [`Sampling`], and the batch
//! bind-group cache (Babylon.js's bind-group cache): one bind group per distinct ordered set of textures, padded
//! with a 1x1 white texture, created once and reused every frame, and dropped after
//! [`TextureSystem::MAX_IDLE_FRAMES`] frames without use. Destroying a texture drops every bind group that holds
//! it, and its slot is reused with a new generation, so a stale id can never reach a new texture.

use crate::base::handle::{next_generation, Owner, MAX_SLOTS};
use crate::base::stats::FrameStats;
use crate::gpu::release::Retired;
use crate::gpu::shader::MAX_BATCH_TEXTURES;
use crate::{Error, Result, Sampling, Texture, TextureId};
use std::collections::HashMap;

#[derive(Debug)]
struct GpuTexture {
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    sampler: usize,
}

/// What a texture is rebuilt from on a new device ([`TextureSystem::recover`]).
#[derive(Debug, Default)]
enum Restore {
    /// Nothing: the slot is freed on recovery (glyph pages and filter outputs, which their owners make again, and
    /// textures whose pixels are not kept).
    #[default]
    Nothing,
    /// Its premultiplied pixels, kept in memory (every write to the texture goes to them too).
    Pixels {
        pixels: Vec<u8>,
        width: u32,
        height: u32,
        sampling: Sampling,
    },
    /// A render texture's: [`RenderTextures`](crate::gpu::target::RenderTextures) gives it new storage.
    Target,
}

/// Bytes a [`Restore`] holds.
fn kept_len(restore: &Restore) -> u64 {
    match restore {
        Restore::Pixels { pixels, .. } => pixels.len() as u64,
        _ => 0,
    }
}

#[derive(Debug)]
struct Slot {
    generation: u32,
    gpu: Option<GpuTexture>,
    /// What recovery rebuilds it from.
    restore: Restore,
    /// Destroyed while a frame was prepared: stale to every check, but its GPU objects and bind groups stay
    /// until [`TextureSystem::release_retiring`] (the prepared frame may still draw it).
    retiring: bool,
    /// When its pixels last changed (a number from [`TextureSystem::touch`]'s counter).
    written: u64,
}

/// The textures bound by one batch, in slot order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TextureSet {
    pub(crate) ids: [Option<TextureId>; MAX_BATCH_TEXTURES],
    len: u8,
}

impl TextureSet {
    pub(crate) const EMPTY: TextureSet = TextureSet {
        ids: [None; MAX_BATCH_TEXTURES],
        len: 0,
    };

    /// Adds `texture` in the next slot (the caller keeps the set under [`MAX_BATCH_TEXTURES`]); returns its slot.
    pub(crate) fn push(&mut self, texture: TextureId) -> u8 {
        let slot = self.len;
        self.ids[slot as usize] = Some(texture);
        self.len += 1;
        slot
    }

    /// The textures, slot 0 first.
    pub fn ids(&self) -> impl Iterator<Item = TextureId> + '_ {
        self.ids[..self.len as usize]
            .iter()
            .map(|t| t.expect("filled slot"))
    }

    /// Number of textures.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A stable id of a bind group; never reused for another bind group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BindGroupId(pub u32);

/// Owns every texture the renderer can draw.
#[derive(Debug)]
pub struct TextureSystem {
    device: wgpu::Device,
    queue: wgpu::Queue,
    slots: Vec<Slot>,
    free: Vec<u32>,
    sampler_ids: HashMap<Sampling, usize>,
    samplers: Vec<wgpu::Sampler>,
    white: Texture,
    max_dimension: u32,
    slots_per_group: usize,
    layout: wgpu::BindGroupLayout,
    groups_by_set: HashMap<TextureSet, BindGroupId>,
    /// Each cached bind group with its textures and the last frame that used it.
    groups: crate::base::IntMap<BindGroupId, (wgpu::BindGroup, TextureSet, u64)>,
    next_group: u32,
    /// Frames ended so far (for evicting idle bind groups).
    frame: u64,
    stats: FrameStats,
    /// The tag on this system's texture handles.
    owner: Owner,
    /// Objects destroyed since the renderer last moved them to its release queue.
    retired: Vec<Retired>,
    /// Textures destroyed while a frame was prepared, freed when the next frame begins.
    retiring: Vec<TextureId>,
    /// Made for the first texture with mipmaps.
    mipmaps: Option<crate::gpu::mipmaps::MipGenerator>,
    /// Counts changes to which handles are live (filled, destroyed, retired, renewed): a walk kept from an
    /// earlier frame is reused only while it stays the same.
    liveness: u64,
    /// Counts changes to textures' pixels (writes, uploads, passes drawn into them).
    writes: u64,
    /// Whether textures made from pixels keep a copy of them, to be rebuilt on a new device.
    keep_pixels: bool,
    /// Bytes of pixels kept for recovery.
    kept_bytes: u64,
}

impl TextureSystem {
    /// A system whose batch bind groups hold `slots_per_group` textures.
    pub fn new(device: wgpu::Device, queue: wgpu::Queue, slots_per_group: usize) -> Self {
        let entries: Vec<_> = (0..slots_per_group as u32)
            .flat_map(|i| crate::gpu::shader::texture_and_sampler(2 * i))
            .collect();
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("stage2d batch textures"),
            entries: &entries,
        });
        let max_dimension = device
            .limits()
            .max_texture_dimension_2d
            .min(crate::base::texture::MAX_TEXTURE_SIDE);
        let owner = Owner::next();
        let mut sys = TextureSystem {
            device,
            queue,
            slots: Vec::new(),
            free: Vec::new(),
            sampler_ids: HashMap::new(),
            samplers: Vec::new(),
            white: Texture::new(TextureId::new(0, owner, 0), 1, 1),
            max_dimension,
            slots_per_group,
            layout,
            groups_by_set: HashMap::new(),
            groups: Default::default(),
            next_group: 0,
            frame: 0,
            stats: FrameStats::default(),
            owner,
            retired: Vec::new(),
            retiring: Vec::new(),
            mipmaps: None,
            liveness: 0,
            writes: 0,
            keep_pixels: true,
            kept_bytes: 0,
        };
        sys.white = sys
            .create_from_premultiplied(1, 1, &[255; 4], Sampling::NEAREST)
            .expect("a 1x1 texture always fits");
        sys
    }

    /// The bind-group layout of batch textures (group 0 of the batch shader).
    pub fn layout(&self) -> &wgpu::BindGroupLayout {
        &self.layout
    }

    /// A 1x1 opaque white texture (solid-colour shapes and bind-group padding).
    pub fn white(&self) -> Texture {
        self.white
    }

    /// Counters of work done since the last [`TextureSystem::take_stats`].
    pub fn take_stats(&mut self) -> FrameStats {
        std::mem::take(&mut self.stats)
    }

    /// Changes so far to which handles are live.
    pub fn liveness(&self) -> u64 {
        self.liveness
    }

    /// The largest texture side this system creates.
    pub fn max_side(&self) -> u32 {
        self.max_dimension
    }

    /// Whether `id` names a live texture.
    #[inline]
    pub fn is_live(&self, id: TextureId) -> bool {
        id.owned_by(self.owner)
            && self
                .slots
                .get(id.slot())
                .is_some_and(|s| s.generation == id.generation && s.gpu.is_some() && !s.retiring)
    }

    /// `Ok` for a live texture of this system; [`Error::ForeignTexture`] for another renderer's handle,
    /// [`Error::StaleTexture`] for a destroyed one.
    pub fn check(&self, id: TextureId) -> Result<()> {
        if !id.owned_by(self.owner) {
            Err(Error::ForeignTexture(id))
        } else if !self.is_live(id) {
            Err(Error::StaleTexture(id))
        } else {
            Ok(())
        }
    }

    fn sampler(&mut self, sampling: Sampling) -> usize {
        if let Some(&i) = self.sampler_ids.get(&sampling) {
            return i;
        }
        let filter = match sampling.filter {
            crate::ScaleMode::Linear => wgpu::FilterMode::Linear,
            crate::ScaleMode::Nearest => wgpu::FilterMode::Nearest,
        };
        let address = match sampling.wrap {
            crate::Wrap::Clamp => wgpu::AddressMode::ClampToEdge,
            crate::Wrap::Repeat => wgpu::AddressMode::Repeat,
        };
        let s = self.device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("stage2d sampler"),
            address_mode_u: address,
            address_mode_v: address,
            mag_filter: filter,
            min_filter: filter,
            mipmap_filter: match (sampling.mipmaps, sampling.filter) {
                (true, crate::ScaleMode::Linear) => wgpu::MipmapFilterMode::Linear,
                _ => wgpu::MipmapFilterMode::Nearest,
            },
            ..Default::default()
        });
        self.samplers.push(s);
        self.sampler_ids.insert(sampling, self.samplers.len() - 1);
        self.samplers.len() - 1
    }

    /// Checks a requested size against zero and the device limit.
    pub fn check_size(&self, width: u32, height: u32) -> Result<()> {
        if width == 0 || height == 0 {
            return Err(Error::ZeroSizeTexture { width, height });
        }
        if width > self.max_dimension || height > self.max_dimension {
            return Err(Error::TextureTooLarge {
                width,
                height,
                max: self.max_dimension,
            });
        }
        Ok(())
    }

    /// Uploads premultiplied RGBA8 pixels as a new texture.
    pub fn create_from_premultiplied(
        &mut self,
        width: u32,
        height: u32,
        pixels: &[u8],
        sampling: Sampling,
    ) -> Result<Texture> {
        self.check_size(width, height)?;
        let expected = width as usize * height as usize * 4;
        if pixels.len() != expected {
            return Err(Error::PixelDataSize {
                got: pixels.len(),
                expected,
            });
        }
        let id = self.reserve()?;
        self.fill_reserved_kept(id, width, height, sampling);
        self.write_region(id, [0, 0, width, height], pixels);
        if sampling.mipmaps {
            self.generate_mipmaps(id);
        }
        Ok(Texture::new(id, width, height))
    }

    /// Notes that `id`'s pixels changed (a pass drew into it): what [`TextureSystem::content_version`] reads.
    pub fn touch(&mut self, id: TextureId) {
        self.writes += 1;
        if let Some(s) = self.slots.get_mut(id.slot()) {
            s.written = self.writes;
        }
    }

    /// A number that changes whenever a live `id`'s pixels may have changed; `None` if it is not live.
    pub fn content_version(&self, id: TextureId) -> Option<u64> {
        self.is_live(id).then(|| self.slots[id.slot()].written)
    }

    /// Fills the lower mip levels of a live texture from its first.
    pub fn generate_mipmaps(&mut self, id: TextureId) {
        self.touch(id);
        let Some(gpu) = self.slots.get(id.slot()).and_then(|s| s.gpu.as_ref()) else {
            return;
        };
        if gpu.texture.mip_level_count() < 2 {
            return;
        }
        let mips = self
            .mipmaps
            .get_or_insert_with(|| crate::gpu::mipmaps::MipGenerator::new(&self.device));
        mips.generate(&self.device, &self.queue, &gpu.texture);
    }

    /// Reserves a texture id without GPU storage yet (glyph-atlas pages, so the scene walk can name them).
    pub fn reserve(&mut self) -> Result<TextureId> {
        let generation = next_generation();
        let slot = match self.free.pop() {
            Some(slot) => slot,
            None if self.slots.len() as u32 >= MAX_SLOTS => {
                return Err(Error::TooManyIds {
                    kind: "textures in one renderer",
                    max: MAX_SLOTS,
                })
            }
            None => {
                self.slots.push(Slot {
                    generation: 0,
                    gpu: None,
                    restore: Restore::Nothing,
                    retiring: false,
                    written: 0,
                });
                self.slots.len() as u32 - 1
            }
        };
        let s = &mut self.slots[slot as usize];
        s.generation = generation;
        s.gpu = None;
        s.retiring = false;
        self.kept_bytes -= kept_len(&std::mem::take(&mut s.restore));
        self.writes += 1;
        s.written = self.writes;
        Ok(TextureId::new(slot, self.owner, generation))
    }

    /// Creates the (transparent) GPU storage of a reserved id, and keeps its pixels for recovery on a new device
    /// (unless the renderer was told not to: [`TextureSystem::set_keep_pixels`]).
    pub fn fill_reserved_kept(
        &mut self,
        id: TextureId,
        width: u32,
        height: u32,
        sampling: Sampling,
    ) {
        self.fill_reserved(id, width, height, sampling);
        if self.keep_pixels {
            let pixels = vec![0; width as usize * height as usize * 4];
            self.kept_bytes += pixels.len() as u64;
            self.slots[id.slot()].restore = Restore::Pixels {
                pixels,
                width,
                height,
                sampling,
            };
        }
    }

    /// Creates the (transparent) GPU storage of a reserved id; nothing is kept for recovery (glyph pages, whose
    /// owner makes them again).
    pub fn fill_reserved(&mut self, id: TextureId, width: u32, height: u32, sampling: Sampling) {
        self.touch(id);
        let texture = self.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("stage2d texture"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: if sampling.mipmaps {
                crate::gpu::mipmaps::level_count(width, height)
            } else {
                1
            },
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8Unorm,
            usage: if sampling.mipmaps {
                wgpu::TextureUsages::TEXTURE_BINDING
                    | wgpu::TextureUsages::COPY_DST
                    | wgpu::TextureUsages::RENDER_ATTACHMENT
            } else {
                wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST
            },
            view_formats: &[],
        });
        self.stats.textures_created += 1;
        let view = texture.create_view(&Default::default());
        let sampler = self.sampler(sampling);
        self.touch(id);
        self.liveness += 1;
        let slot = &mut self.slots[id.slot()];
        debug_assert!(id.owned_by(self.owner), "{id:?} is another system's");
        debug_assert_eq!(slot.generation, id.generation);
        slot.gpu = Some(GpuTexture {
            texture,
            view,
            sampler,
        });
    }

    /// The GPU texture of a live texture.
    pub fn wgpu_texture(&self, id: TextureId) -> Option<&wgpu::Texture> {
        if !self.is_live(id) {
            return None;
        }
        self.slots[id.slot()].gpu.as_ref().map(|g| &g.texture)
    }

    /// The view and sampler of a live texture.
    pub fn view_and_sampler(&self, id: TextureId) -> Option<(&wgpu::TextureView, &wgpu::Sampler)> {
        if !self.is_live(id) {
            return None;
        }
        let gpu = self.slots[id.slot()].gpu.as_ref()?;
        Some((&gpu.view, &self.samplers[gpu.sampler]))
    }

    /// Gives the reserved (or live) `id` storage a filter can draw into, of `size` pixels: kept when it
    /// already has that size, else created (the old storage and the bind groups holding it go to the release
    /// queue). Returns whether it was created. Only between frames or before a frame's bind groups are made.
    pub fn set_render_storage(
        &mut self,
        id: TextureId,
        size: (u32, u32),
        sampling: Sampling,
    ) -> bool {
        let sampler = self.sampler(sampling);
        let slot = &self.slots[id.slot()];
        debug_assert!(id.owned_by(self.owner) && slot.generation == id.generation);
        if let Some(gpu) = &slot.gpu {
            if (gpu.texture.width(), gpu.texture.height()) == size && gpu.sampler == sampler {
                return false;
            }
        }
        let texture = self.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("stage2d filter output"),
            size: wgpu::Extent3d {
                width: size.0,
                height: size.1,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8Unorm,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        self.stats.textures_created += 1;
        self.touch(id);
        let view = texture.create_view(&Default::default());
        if let Some(old) = self.slots[id.slot()].gpu.take() {
            self.retired.push(Retired::Texture(old.texture));
            self.retire_groups_of(id);
        }
        self.kept_bytes -= kept_len(&std::mem::take(&mut self.slots[id.slot()].restore));
        self.liveness += 1;
        self.slots[id.slot()].gpu = Some(GpuTexture {
            texture,
            view,
            sampler,
        });
        true
    }

    /// Makes a texture created elsewhere (a render target) drawable by sprites; returns its id.
    pub fn insert_external(
        &mut self,
        texture: wgpu::Texture,
        sampling: Sampling,
    ) -> Result<TextureId> {
        let id = self.reserve()?;
        self.insert_external_at(id, texture, sampling);
        Ok(id)
    }

    /// Gives reserved (or live) `id` storage created elsewhere: a render target's, made again on a new device.
    pub fn insert_external_at(
        &mut self,
        id: TextureId,
        texture: wgpu::Texture,
        sampling: Sampling,
    ) {
        let view = texture.create_view(&Default::default());
        let sampler = self.sampler(sampling);
        self.liveness += 1;
        self.touch(id);
        let slot = &mut self.slots[id.slot()];
        debug_assert_eq!(slot.generation, id.generation);
        slot.restore = Restore::Target;
        slot.gpu = Some(GpuTexture {
            texture,
            view,
            sampler,
        });
    }

    /// Writes premultiplied RGBA8 pixels into `[x, y, w, h]` of a live texture.
    pub fn write_region(&mut self, id: TextureId, rect: [u32; 4], pixels: &[u8]) {
        self.touch(id);
        debug_assert!(id.owned_by(self.owner), "{id:?} is another system's");
        debug_assert!(
            self.slots
                .get(id.slot())
                .is_some_and(|s| s.generation == id.generation),
            "{id:?} is stale"
        );
        let Some(slot) = self.slots.get_mut(id.slot()) else {
            return;
        };
        let [x, y, w, h] = rect;
        if let Restore::Pixels {
            pixels: kept,
            width: kept_width,
            ..
        } = &mut slot.restore
        {
            let width: u32 = *kept_width;
            let (stride, row) = (width as usize * 4, w as usize * 4);
            for (r, src) in pixels.chunks_exact(row).take(h as usize).enumerate() {
                let at = (y as usize + r) * stride + x as usize * 4;
                if let Some(dst) = kept.get_mut(at..at + row) {
                    dst.copy_from_slice(src);
                }
            }
        }
        let Some(gpu) = slot.gpu.as_ref() else {
            return;
        };
        self.queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &gpu.texture,
                mip_level: 0,
                origin: wgpu::Origin3d { x, y, z: 0 },
                aspect: wgpu::TextureAspect::All,
            },
            pixels,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(4 * w),
                rows_per_image: Some(h),
            },
            wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: 1,
            },
        );
        self.stats.bytes_uploaded += pixels.len() as u64;
    }

    /// Destroys a texture and every cached bind group holding it. Nodes still showing it are skipped with a
    /// warning. The white texture cannot be destroyed.
    pub fn destroy(&mut self, id: TextureId) -> Result<()> {
        self.check(id)?;
        if id == self.white.id() {
            return Err(Error::StaleTexture(id));
        }
        self.free_slot(id);
        Ok(())
    }

    /// Destroys a texture while a prepared frame may still draw it: from now on it is stale to every check (it
    /// cannot be drawn into, read, destroyed again or shown by the next walk), but its GPU texture and the bind
    /// groups holding it stay until [`TextureSystem::release_retiring`], when the next frame begins. Errors as
    /// [`TextureSystem::destroy`].
    pub fn retire_later(&mut self, id: TextureId) -> Result<()> {
        self.check(id)?;
        if id == self.white.id() {
            return Err(Error::StaleTexture(id));
        }
        self.slots[id.slot()].retiring = true;
        self.liveness += 1;
        self.retiring.push(id);
        Ok(())
    }

    /// Frees the textures of [`TextureSystem::retire_later`] (no frame may be prepared).
    pub fn release_retiring(&mut self) {
        for id in std::mem::take(&mut self.retiring) {
            if self
                .slots
                .get(id.slot())
                .is_some_and(|s| s.generation == id.generation && s.retiring)
            {
                self.free_slot(id);
            }
        }
    }

    /// Frees the slot of `id` (live or retiring): its texture and bind groups go to the release queue.
    fn free_slot(&mut self, id: TextureId) {
        let slot = &mut self.slots[id.slot()];
        if let Some(gpu) = slot.gpu.take() {
            self.retired.push(Retired::Texture(gpu.texture));
        }
        self.kept_bytes -= kept_len(&std::mem::take(&mut slot.restore));
        slot.generation = 0;
        slot.retiring = false;
        self.liveness += 1;
        self.free.push(id.slot() as u32);
        self.retire_groups_of(id);
    }

    /// Gives a live texture a new handle (a pooled render texture lent again): the old handle goes stale, so a
    /// sprite still showing it is skipped instead of showing the next borrower's pixels. Not while a prepared
    /// frame may still name the old handle's bind groups.
    pub fn renew(&mut self, id: TextureId) -> Result<TextureId> {
        self.check(id)?;
        let generation = next_generation();
        self.slots[id.slot()].generation = generation;
        self.liveness += 1;
        self.retire_groups_of(id);
        Ok(TextureId::new(id.slot() as u32, self.owner, generation))
    }

    /// Drops the cached bind groups that hold `id` (into the release queue).
    fn retire_groups_of(&mut self, id: TextureId) {
        let (groups, retired) = (&mut self.groups, &mut self.retired);
        self.groups_by_set.retain(|set, gid| {
            let keep = !set.ids().any(|t| t == id);
            if !keep {
                if let Some((group, ..)) = groups.remove(gid) {
                    retired.push(Retired::BindGroup(group));
                }
            }
            keep
        });
    }

    /// Whether textures made from pixels from now on keep a copy of them for [`TextureSystem::recover`] (on by
    /// default; off, such textures are stale after a device loss).
    pub fn set_keep_pixels(&mut self, on: bool) {
        self.keep_pixels = on;
    }

    /// The current id of slot `slot` if it holds a render texture's storage (for [`TextureSystem::recover`]).
    pub fn target_at(&self, slot: u32) -> Option<TextureId> {
        let s = self.slots.get(slot as usize)?;
        (s.generation != 0 && matches!(s.restore, Restore::Target))
            .then(|| TextureId::new(slot, self.owner, s.generation))
    }

    /// Bytes of pixels kept for recovery.
    pub fn kept_bytes(&self) -> u64 {
        self.kept_bytes
    }

    /// Moves every texture to a new device (the old one was lost): same ids, same generations, same owner, so
    /// every handle stays valid. Textures with kept pixels (the white one, images, sheets, fonts' pages) are made
    /// again from them; render textures' slots wait for [`TextureSystem::insert_external_at`]; the rest (glyph
    /// pages, filter outputs, textures without kept pixels) are freed, their handles stale. Returns the textures
    /// made again.
    pub fn recover(
        &mut self,
        device: wgpu::Device,
        queue: wgpu::Queue,
        slots_per_group: usize,
    ) -> usize {
        let entries: Vec<_> = (0..slots_per_group as u32)
            .flat_map(|i| crate::gpu::shader::texture_and_sampler(2 * i))
            .collect();
        self.layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("stage2d batch textures"),
            entries: &entries,
        });
        self.max_dimension = device
            .limits()
            .max_texture_dimension_2d
            .min(crate::base::texture::MAX_TEXTURE_SIDE);
        self.device = device;
        self.queue = queue;
        self.slots_per_group = slots_per_group;
        self.sampler_ids.clear();
        self.samplers.clear();
        self.groups_by_set.clear();
        self.groups.clear();
        self.retired.clear();
        self.retiring.clear();
        self.mipmaps = None;
        self.liveness += 1;
        let mut made = 0;
        for index in 0..self.slots.len() {
            let slot = &mut self.slots[index];
            slot.gpu = None;
            if slot.generation == 0 {
                continue;
            }
            let id = TextureId::new(index as u32, self.owner, slot.generation);
            if slot.retiring {
                slot.restore = Restore::Nothing;
            }
            match std::mem::take(&mut slot.restore) {
                Restore::Pixels {
                    pixels,
                    width,
                    height,
                    sampling,
                } => {
                    self.kept_bytes -= pixels.len() as u64;
                    let keep = self.keep_pixels;
                    self.keep_pixels = true;
                    self.fill_reserved_kept(id, width, height, sampling);
                    self.keep_pixels = keep;
                    self.write_region(id, [0, 0, width, height], &pixels);
                    if sampling.mipmaps {
                        self.generate_mipmaps(id);
                    }
                    made += 1;
                }
                Restore::Target => self.slots[index].restore = Restore::Target,
                Restore::Nothing => {
                    let s = &mut self.slots[index];
                    s.generation = 0;
                    s.retiring = false;
                    self.free.push(index as u32);
                }
            }
        }
        made
    }

    /// GPU objects let go of since the last call, for the release queue.
    pub fn take_retired(&mut self) -> std::vec::Drain<'_, Retired> {
        self.retired.drain(..)
    }

    /// Objects retired and not yet taken.
    pub fn retired_len(&self) -> usize {
        self.retired.len()
    }

    /// Textures holding GPU storage (the white one, glyph pages and textures waiting in
    /// [`TextureSystem::retire_later`] included).
    pub fn live_textures(&self) -> usize {
        self.slots.iter().filter(|s| s.gpu.is_some()).count()
    }

    /// Frames a cached bind group is kept without use. Sprites drawn in changing order put the same textures
    /// into batches in changing orders, each a set of its own, so without eviction the cache would grow for as
    /// long as the textures live.
    pub const MAX_IDLE_FRAMES: u64 = 60;

    /// Ends a frame: bind groups unused for [`TextureSystem::MAX_IDLE_FRAMES`] frames go to the release queue.
    /// Only between frames (a prepared frame names its bind groups by id).
    pub fn trim(&mut self) {
        let now = self.frame;
        let idle = |last: u64| now.saturating_sub(last) > Self::MAX_IDLE_FRAMES;
        if self.groups.values().any(|g| idle(g.2)) {
            let (groups, retired) = (&mut self.groups, &mut self.retired);
            self.groups_by_set.retain(|_, gid| match groups.get(gid) {
                Some(g) if idle(g.2) => {
                    if let Some((group, ..)) = groups.remove(gid) {
                        retired.push(Retired::BindGroup(group));
                    }
                    false
                }
                _ => true,
            });
        }
        self.frame += 1;
    }

    /// Cached batch bind groups.
    pub fn bind_groups(&self) -> usize {
        self.groups.len()
    }

    /// Whether any texture of the set has mip levels (its batch samples with derivatives).
    pub fn any_mipmapped(&self, set: &TextureSet) -> bool {
        set.ids().any(|id| {
            self.slots
                .get(id.slot())
                .and_then(|s| s.gpu.as_ref())
                .is_some_and(|g| g.texture.mip_level_count() > 1)
        })
    }

    /// The cached bind group for a batch's textures, created on first use.
    ///
    /// # Panics
    /// If a texture in `set` is not live: [`crate::frame::collect`] drops such nodes before batching.
    pub fn bind_group(&mut self, set: &TextureSet) -> BindGroupId {
        if let Some(&id) = self.groups_by_set.get(set) {
            self.stats.bind_group_cache_hits += 1;
            if let Some(g) = self.groups.get_mut(&id) {
                g.2 = self.frame;
            }
            return id;
        }
        let ids: Vec<TextureId> = set.ids().collect();
        let mut entries = Vec::with_capacity(self.slots_per_group * 2);
        for i in 0..self.slots_per_group {
            let tid = ids.get(i).copied().unwrap_or(self.white.id());
            let gpu = self.slots[tid.slot()]
                .gpu
                .as_ref()
                .expect("batched textures are live");
            entries.push(wgpu::BindGroupEntry {
                binding: 2 * i as u32,
                resource: wgpu::BindingResource::TextureView(&gpu.view),
            });
            entries.push(wgpu::BindGroupEntry {
                binding: 2 * i as u32 + 1,
                resource: wgpu::BindingResource::Sampler(&self.samplers[gpu.sampler]),
            });
        }
        let group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("stage2d batch textures"),
            layout: &self.layout,
            entries: &entries,
        });
        self.stats.bind_groups_created += 1;
        let id = BindGroupId(self.next_group);
        self.next_group += 1;
        self.groups.insert(id, (group, *set, self.frame));
        self.groups_by_set.insert(*set, id);
        id
    }

    /// A bind group handed out by [`TextureSystem::bind_group`].
    ///
    /// # Panics
    /// If it was dropped since (a texture in it was destroyed after the batch was prepared).
    pub fn get_bind_group(&self, id: BindGroupId) -> &wgpu::BindGroup {
        &self.groups[&id].0
    }
}
