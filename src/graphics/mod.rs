//! Vector shapes, PixiJS `Graphics` style.
//!
//! A [`GraphicsContext`] records Canvas-style shapes and their fills and strokes ([`context`]). Paths are
//! flattened to polylines ([`path`]), triangulated once per context change by lyon ([`mod@tessellate`]) and cached per
//! on-screen scale bucket ([`cache`]). Each frame the mesh is transformed on the CPU into the same vertex stream
//! as sprites, with the renderer's white texture (or the fill texture) in a batch slot, so shapes and sprites
//! share batches and draw calls.

pub mod cache;
pub mod context;
pub mod path;
pub mod tessellate;

pub use cache::TessellationCache;
pub use context::{
    FillStyle, GraphicsContext, Instruction, LineCap, LineJoin, StrokeAlignment, StrokeStyle,
};
pub use path::{PathCommand, Polyline, ShapePath};
pub use tessellate::{tessellate, Mesh, MeshPart, TessellationReport};
