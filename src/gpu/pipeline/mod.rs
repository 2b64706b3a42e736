//! The PipelineSystem: a two-tier render-pipeline cache.
//!
//! **Tier 1** is keyed by the target state: a 12-bit [`GlobalKey`] (colour mask 4, stencil mode 3, depth-stencil
//! attachment 2, colour-target count 2, MSAA 1) together with the target's colour format. It selects a tier-2 map,
//! and `pipe_cache` points at that map. The pointer moves only when the render target, stencil mode, colour mask
//! or MSAA changes ([`PipelineSystem::set_target_state`]); setting the same state again is one comparison.
//!
//! **Tier 2** is keyed per draw by a 30-bit [`GraphicsKey`] (geometry layout 8, shader 8, state 6, blend mode 5,
//! topology 3), looked up in the current map only. When the key equals the previous lookup's and the pointer has
//! not moved, the last pipeline is returned without hashing (Babylon.js's "hit without hash").
//!
//! Invariants, each tested: no two distinct valid states share a global or graphics key; ids are range-checked
//! (a 257th shader or layout is an error, not a collision); a pipeline built for one colour format is never
//! returned for another; switching back to a state finds its pipelines again.
//!
//! [`key`] and [`cache`] are pure; [`system`] creates wgpu objects.

pub mod cache;
pub mod key;
pub mod persist;
pub mod system;
pub(crate) mod warm;

pub use cache::{PipeCache, PipelineId, TierKey};
pub use key::{
    DepthStencil, GeometryLayoutId, GlobalState, GraphicsKey, GraphicsState, ShaderId, StateFlags,
    StencilMode, Topology,
};
pub use system::{GeometryLayout, PipelineCounters, PipelineSystem, ShaderDesc};
