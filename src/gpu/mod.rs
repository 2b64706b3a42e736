//! The GPU systems: everything that owns wgpu state and is kept between frames. Adapter choice and device checks
//! (`device.rs`), the two-tier PipelineSystem with its module and layout caches and warm-start file (`pipeline/`),
//! textures, samplers and batch bind groups (`texture_system.rs`, mip chains drawn in `mipmaps.rs`), render
//! textures and their pool (`target.rs`), the description of a pass's target (`target_desc.rs`), MSAA and stencil
//! attachments (`attachments.rs`), grow-only buffers (`buffer.rs`) and the recycled staging belt (`upload.rs`),
//! deferred release (`release.rs`), readback (`readback.rs`), GPU timestamps (`timer.rs`), WGSL sources
//! (`shader.rs`), glyph-atlas pages as textures (`glyph_pages.rs`), custom and built-in mesh shaders with their
//! geometry buffers (`meshes.rs`) and particle containers' property buffers (`particles.rs`).
//!
//! It may use `base/` and the CPU parts of `graphics/` and `text/`; never `scene/`, `assets/`, `frame/` or
//! `renderer/`: a system is told what to hold, it does not walk a scene or a frame.

pub(crate) mod attachments;
pub(crate) mod buffer;
pub(crate) mod device;
pub(crate) mod filters;
#[cfg(feature = "text")]
pub(crate) mod glyph_pages;
pub(crate) mod health;
pub(crate) mod meshes;
pub(crate) mod mipmaps;
pub(crate) mod particles;
pub(crate) mod pipeline;
pub(crate) mod readback;
pub(crate) mod release;
pub(crate) mod shader;
pub(crate) mod target;
pub(crate) mod target_desc;
pub(crate) mod texture_system;
pub(crate) mod timer;
pub(crate) mod upload;
pub(crate) mod wgsl;
