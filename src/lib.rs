//! # stage2d
//!
//! A batching 2D renderer on wgpu in the style of PixiJS v8: a scene graph of containers, sprites, vector shapes
//! ([`graphics`]) and text ([`text`]), clipped by stencil or scissor masks ([`mask`]), drawn into windows
//! ([`app`]) or render textures ([`RenderTarget`]) in as few draw calls as their textures and blend modes allow,
//! through a two-tier pipeline cache ([`pipeline`], with a warm-start file) and an encoder that skips redundant
//! state changes, with built-in statistics ([`Stats`]).
//!
//! ## A frame
//! 1. **Collect** ([`collect`]): walk the [`Scene`] in tree order, resolve world transforms, alpha, tint and
//!    blend modes, push and pop masks, tessellate changed shapes, lay out changed text. Bad nodes (NaN transforms,
//!    destroyed textures, degenerate paths) are skipped with a warning.
//! 2. **Batch** ([`batcher`]): append sprites and glyphs as 48-byte quads and shapes as mesh vertices to grow-only
//!    streams drawn by one index stream (the vertex shader pulls both from storage buffers, so they share
//!    batches); break batches only on blend mode, topology or texture overflow (16 textures per batch by default).
//! 3. **Upload**: write only the byte ranges that changed since the last frame.
//! 4. **Prepare**: look up pipelines in the [`PipelineSystem`] and bind groups in the [`TextureSystem`] (created on
//!    first use only). A batch of k textures uses the batch shader built for k slots (on software rasterisers every
//!    arm of the shader's texture `switch` runs for every fragment).
//! 5. **Record**: one render pass per target; the [`Encoder`] issues `set_*` calls only when state changes.
//! 6. **Submit**, then **trim**: fold the counters into [`Stats`].
//!
//! ## Usage
//! ```no_run
//! use stage2d::{Color, Node, Renderer, RendererOptions, Sampling, Scene};
//! # fn main() -> stage2d::Result<()> {
//! let mut renderer = Renderer::new_headless(RendererOptions::default())?;
//! let bunny = renderer.load_texture("assets/bunny0.png", Sampling::NEAREST)?;
//! let mut scene = Scene::new();
//! let sprite = scene.add(scene.root(), Node::sprite(bunny).at(100.0, 80.0).anchor(0.5, 1.0))?;
//! scene.get_mut(sprite).unwrap().rotation = 0.3;
//! let target = renderer.create_render_target(800, 600)?;
//! renderer.render(&scene, &target, Some(Color::hex(0x1099bb)))?;
//! renderer.save_png(&target, "frame.png")?;
//! println!("draw calls: {}", renderer.stats().last_frame.draw_calls);
//! # Ok(()) }
//! ```
//!
//! Colours are sRGB-encoded values blended as stored, with premultiplied alpha throughout; targets are
//! `Rgba8Unorm`/`Bgra8Unorm`. The origin is top-left, y points down, pixel centres are at +0.5.

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod app;
pub mod batcher;
mod blend;
pub mod collect;
mod color;
pub mod encoder;
mod error;
pub mod graphics;
pub mod mask;
mod node;
pub mod pipeline;
mod renderer;
mod scene;
pub mod shader;
mod sprite;
mod stats;
mod target;
pub mod text;
mod texture;
mod texture_system;
pub mod upload;

pub use batcher::{Batch, Batcher, Quad, Vertex};
pub use blend::BlendMode;
pub use color::Color;
pub use encoder::{BoundState, Encoder};
pub use error::{Error, Result};
pub use graphics::{FillStyle, GraphicsContext, LineCap, LineJoin, StrokeAlignment, StrokeStyle};
pub use node::{Mask, Node, NodeKind};
pub use pipeline::PipelineSystem;
pub use renderer::{instance_descriptor, select_adapter, Renderer, RendererOptions, WarmStart};
pub use scene::{NodeId, Scene};
pub use sprite::Sprite;
pub use stats::{FrameStats, Stats};
pub use target::{PooledRenderTexture, RenderTarget, RenderTextureOptions, TexturePool};
pub use text::{Align, Font, Text};
pub use texture::{Filter, Sampling, Texture, TextureId, Wrap, MAX_TEXTURE_SIDE};
pub use texture_system::TextureSystem;

pub use glam;
pub use image;
pub use wgpu;
