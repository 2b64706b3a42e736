//! Render targets: offscreen colour textures that a frame is drawn into and read back from.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Gives a pooled target a new handle (the old one goes stale).
fn renew(
    target: &mut RenderTarget,
    textures: &mut crate::gpu::texture_system::TextureSystem,
) -> crate::Result<()> {
    let id = textures.renew(target.handle.id())?;
    target.handle = crate::Texture::new(id, target.options.width, target.options.height);
    Ok(())
}

/// How a render texture is made: `RenderTextureOptions::new(256, 256).with_msaa(true)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct RenderTextureOptions {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `Rgba8Unorm` (default) or `Bgra8Unorm`; colours are blended as stored, so no `*Srgb` formats.
    pub format: wgpu::TextureFormat,
    /// Draw with 4x multisampling, resolved into the texture at the end of each pass.
    pub msaa: bool,
    /// Keep a stencil attachment from the start (otherwise it is created the first time a mask needs it).
    pub depth_stencil: bool,
    /// How sprites showing the texture sample it (PixiJS's `scaleMode`): [`Sampling::LINEAR`](crate::Sampling)
    /// unless set; `Sampling::NEAREST` keeps a pixel-art minimap crisp when scaled up.
    pub sampling: crate::Sampling,
}

impl RenderTextureOptions {
    /// A `width x height` `Rgba8Unorm` texture without MSAA.
    pub fn new(width: u32, height: u32) -> Self {
        RenderTextureOptions {
            width,
            height,
            format: wgpu::TextureFormat::Rgba8Unorm,
            msaa: false,
            depth_stencil: false,
            sampling: crate::Sampling::LINEAR,
        }
    }

    /// With sprites sampling the texture as `sampling` says (filter and wrap; mipmaps are not kept for render
    /// textures and are ignored).
    pub fn with_sampling(mut self, sampling: crate::Sampling) -> Self {
        self.sampling = sampling;
        self
    }

    /// With colour format `format` (`Rgba8Unorm` or `Bgra8Unorm`).
    pub fn with_format(mut self, format: wgpu::TextureFormat) -> Self {
        self.format = format;
        self
    }

    /// With 4x multisampling on or off.
    pub fn with_msaa(mut self, on: bool) -> Self {
        self.msaa = on;
        self
    }

    /// With a stencil attachment from the start (or not).
    pub fn with_depth_stencil(mut self, on: bool) -> Self {
        self.depth_stencil = on;
        self
    }
}

/// An offscreen colour target that is also a texture: draw into it with
/// [`Renderer::render`](crate::Renderer::render) or [`Renderer::render_node`](crate::Renderer::render_node), show
/// it with a sprite of [`RenderTarget::texture`], read it back with
/// [`Renderer::read_pixels`](crate::Renderer::read_pixels).
#[derive(Debug)]
pub struct RenderTarget {
    /// Its GPU storage, shared with the renderer, which replaces it on a new device after a loss.
    pub(crate) cell: Arc<TargetCell>,
    pub(crate) options: RenderTextureOptions,
    pub(crate) handle: crate::Texture,
    /// Where its texture id goes when it is dropped (the renderer frees the slot next frame).
    pub(crate) release: Option<Arc<Returns>>,
}

/// A render target's GPU storage and what a device loss did to it.
#[derive(Debug)]
pub(crate) struct TargetCell {
    gpu: Mutex<(wgpu::Texture, wgpu::TextureView)>,
    /// Set when the storage was made again on a new device (its pixels gone), cleared when drawn into.
    lost: AtomicBool,
    /// Its texture slot (the same across renewed handles).
    slot: u32,
    options: RenderTextureOptions,
}

impl TargetCell {
    fn lock(&self) -> std::sync::MutexGuard<'_, (wgpu::Texture, wgpu::TextureView)> {
        self.gpu.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// What dropped render targets leave for the renderer.
#[derive(Debug, Default)]
pub(crate) struct Returns {
    /// Texture ids to free when the next frame begins.
    ids: Mutex<Vec<crate::TextureId>>,
    /// Render targets made and not yet dropped.
    live_targets: AtomicU64,
}

impl Drop for RenderTarget {
    fn drop(&mut self) {
        if let Some(returns) = self.release.take() {
            returns.live_targets.fetch_sub(1, Ordering::Relaxed);
            returns
                .ids
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(self.handle.id());
        }
    }
}

impl RenderTarget {
    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.options.width
    }
    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.options.height
    }
    /// Colour format.
    pub fn format(&self) -> wgpu::TextureFormat {
        self.options.format
    }
    /// How it was made.
    pub fn options(&self) -> RenderTextureOptions {
        self.options
    }
    /// The texture handle for sprites (after [`Renderer::resize_render_texture`](crate::Renderer::resize_render_texture)
    /// take it again: the old handle goes stale).
    pub fn texture(&self) -> crate::Texture {
        self.handle
    }
    /// The texture view drawn into (a handle to it: after [`Renderer::recover`](crate::Renderer::recover) take it
    /// again, the old one is of the lost device).
    pub fn view(&self) -> wgpu::TextureView {
        self.cell.lock().1.clone()
    }
    /// The underlying wgpu texture (as [`RenderTarget::view`], of the device it was last made on).
    pub fn wgpu_texture(&self) -> wgpu::Texture {
        self.cell.lock().0.clone()
    }
    /// Whether its pixels were lost with a GPU device: true from
    /// [`Renderer::recover`](crate::Renderer::recover), which makes it again cleared to transparent, until
    /// something is drawn into it. What was drawn into a render texture is the app's to draw again (PixiJS's
    /// render textures after a lost context are the same).
    pub fn contents_lost(&self) -> bool {
        self.cell.lost.load(Ordering::Relaxed)
    }
    /// Notes that it was drawn into.
    pub(crate) fn drawn(&self) {
        if self.cell.lost.load(Ordering::Relaxed) {
            self.cell.lost.store(false, Ordering::Relaxed);
        }
    }
}

/// Temporary render textures by (size, format, MSAA), handed out by
/// [`Renderer::acquire_render_texture`](crate::Renderer::acquire_render_texture) and returned on drop. A returned
/// texture gets a new handle before it is lent again (its old handle goes stale), so a sprite that kept the old
/// handle is skipped instead of showing the next borrower's pixels. A texture that waits in the pool for more than
/// [`TexturePool::MAX_IDLE_FRAMES`] frames is dropped, so borrowing at ever new sizes does not pile textures up.
#[derive(Debug, Default, Clone)]
pub(crate) struct TexturePool {
    /// Free textures, each with whether its handle must be renewed before it is lent, and the frame it was
    /// renewed at (when it came back).
    free: Arc<Mutex<Vec<(RenderTarget, bool, u64)>>>,
}

type PoolEntries = Vec<(RenderTarget, bool, u64)>;

impl TexturePool {
    /// Frames a returned texture waits in the pool before it is dropped.
    pub const MAX_IDLE_FRAMES: u64 = 60;

    fn lock(&self) -> std::sync::MutexGuard<'_, PoolEntries> {
        self.free.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Puts a texture back (its handle is renewed when the next frame begins, or when it is lent again).
    pub fn put(&self, target: RenderTarget) {
        self.lock().push((target, true, 0));
    }

    /// Textures waiting in the pool.
    pub fn len(&self) -> usize {
        self.lock().len()
    }
}

/// A render texture on loan from the renderer's pool; it goes back to the pool when dropped.
#[derive(Debug)]
pub struct PooledRenderTexture {
    target: Option<RenderTarget>,
    pool: TexturePool,
}

impl PooledRenderTexture {
    pub(crate) fn new(target: RenderTarget, pool: TexturePool) -> Self {
        PooledRenderTexture {
            target: Some(target),
            pool,
        }
    }
}

impl std::ops::Deref for PooledRenderTexture {
    type Target = RenderTarget;
    fn deref(&self) -> &RenderTarget {
        self.target.as_ref().expect("present until drop")
    }
}

impl Drop for PooledRenderTexture {
    fn drop(&mut self) {
        if let Some(t) = self.target.take() {
            self.pool.put(t);
        }
    }
}

/// The render-texture system: creates render textures, lends pooled ones, and frees the texture slots of targets
/// the user dropped.
#[derive(Debug, Default)]
pub(crate) struct RenderTextures {
    pub pool: TexturePool,
    pub pool_hits: u64,
    /// Frames begun (for the pool's idle eviction).
    frame: u64,
    /// Texture ids of render targets dropped by the user, freed at the next frame.
    released: Arc<Returns>,
    /// Every render target made, to be made again on a new device (dropped ones pruned as new ones come).
    cells: Vec<std::sync::Weak<TargetCell>>,
}

impl RenderTextures {
    /// A new render texture, registered with `textures` so sprites can show it.
    pub fn create(
        &mut self,
        device: &wgpu::Device,
        textures: &mut crate::gpu::texture_system::TextureSystem,
        options: RenderTextureOptions,
    ) -> crate::Result<RenderTarget> {
        textures.check_size(options.width, options.height)?;
        if !matches!(
            options.format,
            wgpu::TextureFormat::Rgba8Unorm | wgpu::TextureFormat::Bgra8Unorm
        ) {
            return Err(crate::Error::UnsupportedFormat(options.format));
        }
        let texture = make_texture(device, &options);
        let view = texture.create_view(&Default::default());
        let id = textures.insert_external(texture.clone(), options.sampling)?;
        let cell = Arc::new(TargetCell {
            gpu: Mutex::new((texture, view)),
            lost: AtomicBool::new(false),
            slot: id.slot() as u32,
            options,
        });
        if self.cells.len() >= 2 * (self.live() as usize).max(16) {
            self.cells.retain(|c| c.strong_count() > 0);
        }
        self.cells.push(Arc::downgrade(&cell));
        Ok(RenderTarget {
            cell,
            options,
            handle: crate::Texture::new(id, options.width, options.height),
            release: Some(self.released.clone()),
        })
        .inspect(|_| {
            self.released.live_targets.fetch_add(1, Ordering::Relaxed);
        })
    }

    /// Gives every render target not yet dropped (pooled ones too) new storage on a new device, cleared, with
    /// [`RenderTarget::contents_lost`] set; `stencil` is told of those kept with a stencil attachment. Returns how
    /// many were made again.
    pub fn recover(
        &mut self,
        device: &wgpu::Device,
        textures: &mut crate::gpu::texture_system::TextureSystem,
        mut stencil: impl FnMut(&RenderTextureOptions),
    ) -> usize {
        self.cells.retain(|c| c.strong_count() > 0);
        let mut made = 0;
        for cell in self.cells.iter().filter_map(|c| c.upgrade()) {
            let Some(id) = textures.target_at(cell.slot) else {
                continue;
            };
            let texture = make_texture(device, &cell.options);
            let view = texture.create_view(&Default::default());
            textures.insert_external_at(id, texture.clone(), cell.options.sampling);
            *cell.lock() = (texture, view);
            cell.lost.store(true, Ordering::Relaxed);
            if cell.options.depth_stencil {
                stencil(&cell.options);
            }
            made += 1;
        }
        made
    }

    /// A pooled render texture made with `options`, if the pool holds one ready to lend (counted as a hit). One
    /// whose handle still needs renewing is lent only outside a frame in flight (renewing drops bind groups a
    /// prepared frame may still name).
    pub fn take_pooled(
        &mut self,
        options: &RenderTextureOptions,
        textures: &mut crate::gpu::texture_system::TextureSystem,
        in_flight: bool,
    ) -> Option<RenderTarget> {
        let mut free = self.pool.lock();
        let i = free
            .iter()
            .position(|(t, stale, _)| t.options == *options && !(*stale && in_flight))?;
        let (mut target, stale, _) = free.swap_remove(i);
        drop(free);
        if stale && renew(&mut target, textures).is_err() {
            return None; // its texture was destroyed meanwhile: dropped here
        }
        self.pool_hits += 1;
        Some(target)
    }

    /// Renews the handles of textures returned to the pool, and drops those that waited longer than
    /// [`TexturePool::MAX_IDLE_FRAMES`] (at the start of a frame: their slots are freed at the next).
    pub fn renew_returned(&mut self, textures: &mut crate::gpu::texture_system::TextureSystem) {
        self.frame += 1;
        let now = self.frame;
        let mut free = self.pool.lock();
        let evicted: Vec<RenderTarget> = free
            .extract_if(.., |(target, stale, since)| {
                if *stale {
                    *stale = false;
                    *since = now;
                    return renew(target, textures).is_err();
                }
                now - *since > TexturePool::MAX_IDLE_FRAMES
            })
            .map(|(t, ..)| t)
            .collect();
        drop(free);
        drop(evicted);
    }

    /// Render targets not yet dropped.
    pub fn live(&self) -> u64 {
        self.released.live_targets.load(Ordering::Relaxed)
    }

    /// Frees the texture slots of render targets dropped since the last frame (a slot destroyed meanwhile, or
    /// renewed, has another generation and is left alone).
    pub fn release_dropped(&mut self, textures: &mut crate::gpu::texture_system::TextureSystem) {
        let ids: Vec<_> =
            std::mem::take(&mut *self.released.ids.lock().unwrap_or_else(|e| e.into_inner()));
        for id in ids {
            let _ = textures.destroy(id);
        }
    }
}

/// A render texture's colour storage.
fn make_texture(device: &wgpu::Device, options: &RenderTextureOptions) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some("stage2d render texture"),
        size: wgpu::Extent3d {
            width: options.width,
            height: options.height,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: options.format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT
            | wgpu::TextureUsages::COPY_SRC
            | wgpu::TextureUsages::TEXTURE_BINDING,
        view_formats: &[],
    })
}
