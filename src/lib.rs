//! # stage2d
//!
//! A batching 2D renderer on wgpu in the style of PixiJS v8: a scene graph of containers, sprites, vector shapes
//! ([`GraphicsContext`]) and text ([`Text`]), clipped by masks, drawn into windows (the `app` module), render
//! textures ([`RenderTarget`]) or a render pass of another program, in as few draw calls as their textures and
//! blend modes allow, with built-in statistics ([`Stats`]).
//!
//! ## Getting started
//! Draw a scene without a window and read the pixels back:
//! ```
//! use stage2d::{Color, Node, Renderer, RendererOptions, Sampling, Scene};
//! # fn main() -> stage2d::Result<()> {
//! let mut renderer = Renderer::new_headless(RendererOptions::default())?;
//! let bunny = renderer.load_texture("assets/bunny0.png", Sampling::NEAREST)?;
//!
//! let mut scene = Scene::new();
//! let sprite = scene.add(scene.root(), Node::sprite(bunny).at(100.0, 80.0).anchor(0.5, 1.0))?;
//! scene.transform_mut(sprite).unwrap().rotation = 0.3; // move nodes through their transform
//!
//! let target = renderer.create_render_target(200, 160)?;
//! renderer.render(&scene, &target, Some(Color::hex(0x1099bb)))?;
//! let pixels = renderer.read_pixels(&target)?; // or save_png(&target, "frame.png")
//! assert_eq!(pixels.dimensions(), (200, 160));
//! println!("draw calls: {}", renderer.stats().last_frame.draw_calls);
//! # Ok(()) }
//! ```
//! In a window, [`app::run_with`] opens one, builds your app once the renderer exists and calls its `update`
//! every frame (`examples/hello.rs` is a whole program in one file; `cargo run --example hello`).
//!
//! ## What a scene holds
//! - Nodes in a [`Scene`], addressed by [`NodeId`]s, built with [`Node`]: containers, sprites
//!   ([`Node::sprite`], [`Sprite`]), [`TilingSprite`]s, [`NineSliceSprite`]s, shapes ([`GraphicsContext`]) and
//!   text ([`Text`], with [`Font::builtin`] or a loaded [`Font`]). A node's [`Transform`] (position, scale,
//!   rotation, pivot) and [`NodeProps`] (alpha, tint, visibility, [`BlendMode`]) pass down to its children.
//! - Masks ([`Scene::set_mask`]): a shape or sprite node clips another; draw order by [`Scene::set_z_index`].
//! - Textures from files or bytes ([`Renderer::load_texture`], the [`Assets`] cache with background bundles),
//!   TexturePacker [`Spritesheet`]s and [`AnimatedSprite`]s.
//! - Pointer events ([`Events`], [`EventKind`]) and hit testing ([`Scene::hit_test`]), in PixiJS's model.
//! - Render textures ([`Renderer::create_render_texture`], [`Renderer::render_node`],
//!   [`Renderer::render_node_transformed`]) and render groups ([`Node::as_render_group`]) for large scenes.
//!
//! Bad input is an [`Error`] saying what to do, or a node skipped and listed in [`Stats::skipped`]; never a
//! panic. `docs/pixijs-guide.md` maps PixiJS's idioms (addChild, anchor, masks, zIndex, events, Assets,
//! generateTexture) to stage2d's spelling.
//!
//! ## Embedded in your own wgpu program
//! The caller owns the device, the encoder and the pass (glyphon's shape): [`Renderer::from_device`], then per
//! frame [`Renderer::prepare`] (CPU work and uploads, before the pass opens), [`Renderer::record`] into the
//! caller's pass, the caller's submit, and [`Renderer::trim`]; [`Renderer::read_texture`] reads the caller's
//! texture back:
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
//! [`Renderer::prepare`] has the same as a whole program that runs.
//!
//! Colours are sRGB-encoded values blended as stored, with premultiplied alpha throughout; targets are
//! `Rgba8Unorm`/`Bgra8Unorm`. The origin is top-left, y points down, pixel centres are at +0.5.
//!
//! ## How it works
//! The source is laid out by layer, each folder using only those before it (checked in CI): `base/` (errors,
//! colours, handles), `graphics/` and `text/` (shapes and text on the CPU), `scene/` (the scene model, hit
//! testing, events), `assets/` (the cache and spritesheets), `gpu/` (the systems that own GPU state: device,
//! the two-tier pipeline cache, textures, buffers), `frame/` (the phases of a frame: collect, batch, upload,
//! record) and `renderer/` (the [`Renderer`] and the entry points), with `app.rs` above. A frame walks the scene
//! into batches on the CPU, uploads only what changed, looks pipelines up in the two-tier PipelineSystem and
//! records draws through an encoder that skips redundant state changes. `ARCHITECTURE.md` follows a frame file
//! by file.
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
pub mod filter;
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
pub use base::read::{MAX_FONT_FILE_BYTES, MAX_IMAGE_FILE_BYTES};
pub use base::stats::{FrameStats, SkipList, Skipped, Stats};
pub use base::texture::{Sampling, ScaleMode, Texture, Wrap, MAX_TEXTURE_SIDE, MAX_TRIM_OFFSET};
pub use filter::{
    Antialias, Blur, CacheAsTexture, ColorMatrix, CustomFilter, Displacement, DropShadow, Effect,
    Filter, FilterShader, Glow, Outline,
};
pub use frame::mask::MAX_STENCIL_DEPTH;
pub use gpu::device::{instance_descriptor, select_adapter};
pub use gpu::pipeline::warm::{WarmStart, MAX_PREWARM_PIPELINES, MAX_PREWARM_TIME};
pub use gpu::target::{PooledRenderTexture, RenderTarget, RenderTextureOptions};
pub use gpu::target_desc::TargetDesc;
pub use graphics::mesh::{
    CullMode, Mesh, MeshAttribute, MeshBatchMode, MeshGeometry, MeshLayout, MeshShader,
    MeshShading, MeshTopology, MAX_MESH_INSTANCES, MAX_MESH_VERTICES, MESH_BATCH_VERTICES,
};
pub use graphics::{
    FillGradient, FillPattern, FillRule, FillStyle, GradientKind, GradientWrap, GraphicsContext,
    LineCap, LineJoin, PatternRepeat, RadialGradient, RoundedPoint, StrokeAlignment, StrokeStyle,
    TextureSpace, MAX_FILL_GRADIENT_STOPS, MAX_FILL_WORK, MAX_GRADIENT_PERIODS, MAX_PATH_SEGMENTS,
    MAX_POLYGON_VERTICES, MAX_SVG_PATH_COMMANDS,
};
#[cfg(feature = "svg")]
pub use graphics::{SvgReport, MAX_SVG_BYTES, MAX_SVG_DEPTH};
pub use renderer::{Renderer, RendererOptions};
pub use scene::animation::{AnimatedSprite, AnimationStep};
pub use scene::bulk::ChildTransformsMut;
pub use scene::events::{
    EventContext, EventKind, Events, HandlerId, Phase, PointerEvent, PointerInput,
};
pub use scene::node::{Mask, MaskChannel, Node, NodeKind, NodeProps, RenderLayer, Transform};
pub use scene::particles::{
    Particle, ParticleContainer, ParticleMut, ParticleProperties, Particles, ParticlesMut,
    MAX_PARTICLES,
};
pub use scene::pointer::{Cursor, EventMode, HitArea, Rect};
pub use scene::sprite::{NineSliceSprite, Sprite, TilingSprite};
pub use scene::Scene;
#[cfg(feature = "text")]
pub use text::{
    Align, Font, SharedTextStyle, TagStyle, Text, TextGradient, TextShadow, TextStroke, TextStyle,
    WhiteSpace,
};

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

    /// Image bytes decoded as an asset loader's worker decodes a file (format sniffed, RGBA8, premultiplied).
    #[doc(hidden)]
    pub fn decode_image(bytes: &[u8]) -> crate::Result<image::RgbaImage> {
        let mut rgba = crate::base::read::decode_image(std::path::Path::new(""), bytes)?.to_rgba8();
        crate::base::color::premultiply(&mut rgba);
        Ok(rgba)
    }

    /// `Renderer::create_filter_shader`'s CPU check (naga on prelude + `source`): (uniform bytes, textures).
    #[doc(hidden)]
    pub fn check_filter_wgsl(source: &str) -> crate::Result<(u32, u8)> {
        let full = format!("{}\n{source}", crate::filter::passes::prelude());
        crate::gpu::wgsl::check_user_wgsl(
            &full,
            source,
            &[("mainFragment", naga::ShaderStage::Fragment)],
            "no `@fragment fn mainFragment(in: VSOutput) -> @location(0) vec4<f32>`",
            "the prelude binds group 0 (0..=3), a filter binds",
        )
        .map(|w| (w.uniform_bytes, w.textures))
        .map_err(|(line, message)| crate::Error::FilterShader { line, message })
    }

    /// `Renderer::create_mesh_shader`'s CPU check before the layout's inputs: (uniform bytes, textures).
    #[doc(hidden)]
    pub fn check_mesh_wgsl(source: &str) -> crate::Result<(u32, u8)> {
        let prelude = include_str!("../shaders/mesh_prelude.wgsl");
        let full = format!("{prelude}\n{source}");
        crate::gpu::wgsl::check_user_wgsl(
            &full,
            source,
            &[
                ("mainVertex", naga::ShaderStage::Vertex),
                ("mainFragment", naga::ShaderStage::Fragment),
            ],
            "no `@vertex fn mainVertex` and `@fragment fn mainFragment`",
            "the prelude binds group 0 (0..=2), a mesh shader binds",
        )
        .map(|w| (w.uniform_bytes, w.textures))
        .map_err(|(line, message)| crate::Error::MeshShader { line, message })
    }
}
