//! Vector shapes, PixiJS `Graphics` style: contexts of shapes with their fills and strokes, flattened,
//! tessellated and cached on the CPU. It uses only stage2d's base types (colours, textures, errors); the frame
//! draws its meshes.
//!
//! A [`GraphicsContext`] records Canvas-style shapes and their fills and strokes (`context.rs`). Paths are
//! flattened to polylines (`path.rs`; PixiJS's further builders, rounded polygons and shapes, fillet and chamfer
//! rectangles, are in `shapes.rs`), triangulated once per context change by lyon (`tessellate.rs`) and cached
//! per on-screen scale bucket (`cache.rs`). Each frame the mesh is transformed on the CPU into the same vertex stream
//! as sprites, with the renderer's white texture (or the fill texture) in a batch slot, so shapes and sprites
//! share batches and draw calls.

pub(crate) mod cache;
mod context;
pub(crate) mod flatten;
pub(crate) mod gradient;
pub(crate) mod mesh;
pub(crate) mod path;
mod shapes;
pub(crate) mod style;
#[cfg(feature = "svg")]
pub(crate) mod svg;
mod svg_path;
pub(crate) mod tessellate;

pub(crate) use cache::TessellationCache;
pub(crate) use context::Instruction;
pub use context::{GraphicsContext, MAX_PATH_SEGMENTS, MAX_POLYGON_VERTICES};
pub use gradient::{
    FillGradient, GradientKind, GradientWrap, RadialGradient, TextureSpace,
    MAX_FILL_GRADIENT_STOPS, MAX_GRADIENT_PERIODS,
};
pub(crate) use path::PathCommand;
pub use path::MAX_FILL_WORK;
pub use shapes::RoundedPoint;
pub use style::{
    FillPattern, FillRule, FillStyle, LineCap, LineJoin, PatternRepeat, StrokeAlignment,
    StrokeStyle,
};
#[cfg(feature = "svg")]
pub use svg::{SvgReport, MAX_SVG_BYTES, MAX_SVG_DEPTH};
pub use svg_path::MAX_SVG_PATH_COMMANDS;
