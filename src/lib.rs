//! # stage2d
//!
//! A batching 2D renderer on wgpu in the style of PixiJS v8: a scene graph of containers, sprites, vector shapes
//! ([`GraphicsContext`]) and text ([`Text`]), clipped by stencil or scissor masks, drawn into windows
//! (`app`, with the `app` feature), render textures ([`RenderTarget`]) or a render pass of another program, in as
//! few draw calls as their textures and blend modes allow, through a two-tier pipeline cache (with a warm-start
//! file) and an encoder that skips redundant state changes, with built-in statistics ([`Stats`]).
//!
//! ## The source, by layer
//! Each folder of `src/` is a layer and may use only layers listed before it here, and only those its row of
//! `LAYERS` in `.ci/module_cycles.py` names (CI checks it, and refuses cycles):
//! - `base/`: the vocabulary every layer speaks: [`Error`], [`Color`], [`BlendMode`], handles, the [`Texture`]
//!   value, the counters ([`Stats`]).
//! - `graphics/` and `text/`: shapes ([`GraphicsContext`]: paths, tessellation, the tessellation cache) and text
//!   (fonts, layout, the glyph atlas), on the CPU.
//! - `scene/`: the CPU-side model: the [`Scene`] arena, nodes, sprites, animation, bounds and culling, hit testing,
//!   interaction and pointer [`Events`].
//! - `assets/`: the [`Assets`] cache, bundles decoded on worker threads, [`Spritesheet`]s and their JSON.
//! - `gpu/`: the systems that own GPU state: the device, the two-tier PipelineSystem with its shader-module and
//!   vertex-layout caches and warm-start file (`gpu/pipeline/`), textures and batch bind groups, render textures
//!   and attachments, grow-only buffers and the staging belt, deferred release, readback, the GPU timer, mipmaps,
//!   shader sources and glyph-atlas pages. They never see a scene or a frame.
//! - `frame/`: the phases of one frame (below): the walk (`frame/collect/`), the batcher (`frame/batcher/`), the
//!   element layouts, tracked streams and their upload, the kept walk's placement, the mask state machine and the
//!   Encoder.
//! - `renderer/`: the [`Renderer`], a small owner of the systems and the frame, and the public entry points;
//!   `app.rs` (windows) sits above it.
//!
//! ## A frame
//! 1. **Collect** (`frame/collect/`): walk the [`Scene`] in tree order, resolve world transforms, alpha, tint and
//!    blend modes, push and pop masks, tessellate changed shapes, lay out changed text. Bad nodes (NaN transforms,
//!    destroyed textures, degenerate paths) are skipped with a warning. Subtrees whose cached bounds lie outside
//!    the target are culled (`scene/cull.rs`); render groups ([`NodeProps::render_group`]) replay their recorded
//!    geometry through one transform (`frame/collect/group.rs`); the leaf sprites of containers with 32,768
//!    children or more are computed on every core first where there are four or more
//!    (`frame/collect/parallel.rs`).
//! 2. **Batch** (`frame/batcher/`; render groups' recordings in `frame/batcher/recording.rs`; the element layouts
//!    in `frame/elements.rs`): sprites, glyphs and nine-slice parts as 48-byte quads (a tiling sprite as two: its
//!    quad and its tile coordinates) and shapes as mesh vertices in grow-only streams drawn by one index stream;
//!    batches break only on blend mode, topology, stencil state or texture overflow (16 textures per batch by
//!    default).
//! 3. **Upload** (`frame/streams.rs` through `gpu/upload.rs`): the byte ranges that changed since the last frame,
//!    copied ahead of the pass (of a sprite that only moved, its quad's corners).
//! 4. **Prepare** (`frame/mod.rs`): pipelines from the PipelineSystem and bind groups from the TextureSystem
//!    (created on first use only). A batch of k textures uses the batch shader built for k slots.
//! 5. **Record**: `set_*` and draw calls into one render pass; the Encoder (`frame/encoder.rs`) issues a `set_*`
//!    only when state changes.
//! 6. **Submit**, then **trim**: the counters go into [`Stats`], per-frame caches are trimmed.
//!
//! ## Between frames
//! Assets (`assets/`): [`Assets`] loads textures and TexturePacker [`Spritesheet`]s once per path, in bundles
//! decoded on worker threads with progress; a sheet's frames are [`Texture`] handles (trimmed and rotated frames
//! included) on one texture, so its sprites batch together; [`AnimatedSprite`] turns a node's frames by the
//! app's clock. [`TilingSprite`] and [`NineSliceSprite`] nodes batch with sprites.
//!
//! Bounds and hit testing run on the scene alone (`scene/hit.rs`, with the types and caches in
//! `scene/interact.rs`): [`Scene::local_bounds`], [`Scene::world_bounds`], [`Scene::hit_test`] and
//! [`Scene::hit_test_all`], in draw order with [`Scene::set_z_index`]. [`Events`] dispatches [`PointerInput`]s to
//! handlers per node and [`EventKind`] in PixiJS's model (capture, target, bubble); the app layer feeds it from
//! winit (`app::App::pointer`).
//!
//! ## Two ways to drive it
//! The one-call path owns the device and the frame:
//! ```no_run
//! use stage2d::{Color, Node, Renderer, RendererOptions, Sampling, Scene};
//! # fn main() -> stage2d::Result<()> {
//! let mut renderer = Renderer::new_headless(RendererOptions::default())?;
//! let bunny = renderer.load_texture("assets/bunny0.png", Sampling::NEAREST)?;
//! let mut scene = Scene::new();
//! let sprite = scene.add(scene.root(), Node::sprite(bunny).at(100.0, 80.0).anchor(0.5, 1.0))?;
//! scene.transform_mut(sprite).unwrap().rotation = 0.3;
//! let target = renderer.create_render_target(800, 600)?;
//! renderer.render(&scene, &target, Some(Color::hex(0x1099bb)))?;
//! let pixels = renderer.read_pixels(&target)?; // or save_png(&target, "frame.png") with the png feature
//! println!("draw calls: {}", renderer.stats().last_frame.draw_calls);
//! # Ok(()) }
//! ```
//! Embedded, the caller owns the device, the encoder and the pass (glyphon's shape): [`Renderer::from_device`],
//! then per frame [`Renderer::prepare`] (CPU work and uploads), [`Renderer::record`] into the caller's pass,
//! the caller's submit, and [`Renderer::trim`]:
//! ```no_run
//! # fn f(device: wgpu::Device, queue: wgpu::Queue, view: wgpu::TextureView, scene: stage2d::Scene)
//! # -> stage2d::Result<()> {
//! let mut renderer = stage2d::Renderer::from_device(device.clone(), queue.clone(), Default::default())?;
//! let target = stage2d::TargetDesc::from_view(&view);
//! renderer.prepare(&scene, &target)?;
//! let mut encoder = device.create_command_encoder(&Default::default());
//! {
//!     let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
//!         color_attachments: &[Some(wgpu::RenderPassColorAttachment {
//!             view: &view,
//!             depth_slice: None,
//!             resolve_target: None,
//!             ops: wgpu::Operations { load: wgpu::LoadOp::Load, store: wgpu::StoreOp::Store },
//!         })],
//!         ..Default::default()
//!     });
//!     // ... the caller's own draws ...
//!     renderer.record(&mut pass, &target)?;
//! }
//! queue.submit([encoder.finish()]);
//! renderer.trim();
//! # Ok(()) }
//! ```
//!
//! Colours are sRGB-encoded values blended as stored, with premultiplied alpha throughout; targets are
//! `Rgba8Unorm`/`Bgra8Unorm`. The origin is top-left, y points down, pixel centres are at +0.5.
//!
//! ## Features
//! - `app` (default): windows through winit (the `app` module).
//! - `text` (default): text through fontdue.
//! - `png`, `jpeg` (default): image formats for loading textures and saving PNGs.
//!
//! wgpu is built with its default backends: Vulkan, Metal, DX12 and GL.

#![deny(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "app")]
pub mod app;
mod assets;
mod base;
mod frame;
mod gpu;
pub mod graphics;
mod renderer;
mod scene;
#[cfg(feature = "text")]
pub mod text;

pub use assets::spritesheet::Spritesheet;
pub use assets::{Assets, BundleId};
pub use base::blend::BlendMode;
pub use base::color::Color;
pub use base::error::{Error, Result};
pub use base::handle::{NodeId, TextureId};
pub use base::stats::{FrameStats, SkipList, Skipped, Stats};
pub use base::texture::{Filter, Sampling, Texture, Wrap, MAX_TEXTURE_SIDE, MAX_TRIM_OFFSET};
pub use frame::mask::MAX_STENCIL_DEPTH;
pub use gpu::device::{instance_descriptor, select_adapter};
pub use gpu::pipeline::warm::{WarmStart, MAX_PREWARM_PIPELINES, MAX_PREWARM_TIME};
pub use gpu::target::{PooledRenderTexture, RenderTarget, RenderTextureOptions};
pub use gpu::target_desc::TargetDesc;
pub use graphics::{
    FillRule, FillStyle, GraphicsContext, LineCap, LineJoin, StrokeAlignment, StrokeStyle,
    MAX_FILL_WORK, MAX_PATH_SEGMENTS, MAX_POLYGON_VERTICES,
};
pub use renderer::{Renderer, RendererOptions};
pub use scene::animation::{AnimatedSprite, AnimationStep};
pub use scene::events::{
    EventContext, EventKind, Events, HandlerId, Phase, PointerEvent, PointerInput,
};
pub use scene::interact::{Cursor, EventMode, HitArea, Rect};
pub use scene::node::{Mask, Node, NodeKind, NodeProps, Transform};
pub use scene::sprite::{NineSliceSprite, Sprite, TilingSprite};
pub use scene::Scene;
#[cfg(feature = "text")]
pub use text::{Align, Font, Text};

pub use glam;
pub use image;
pub use wgpu;
/// winit, whose types the app layer hands over ([`app::App::window_event`], [`app::Input`], the window).
#[cfg(feature = "app")]
pub use winit;

/// The pure core, for stage2d's own benchmarks and tests: the scene walk, the batcher, the pipeline-key cache, the
/// tessellator and the warm-start file format. Not part of the API: no stability promise.
#[doc(hidden)]
pub mod internals {
    pub use crate::frame::batcher::Batcher;
    pub use crate::frame::collect::{Collector, View};
    pub use crate::gpu::pipeline::persist;
    pub use crate::gpu::pipeline::{GlobalState, GraphicsKey, PipeCache, PipelineId, TierKey};
    pub use crate::graphics::tessellate::tessellate;

    /// A texture handle to storage slot 0 (a renderer's white texture) of the given size; for CPU-only
    /// benchmarks of the scene walk, which never touch the GPU.
    pub fn bench_texture(width: u32, height: u32) -> crate::Texture {
        crate::Texture::from_raw_parts_for_bench(width, height)
    }
}
