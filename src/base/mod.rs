//! The vocabulary every layer speaks: [`Error`](crate::Error) and [`Result`](crate::Result), [`Color`](crate::Color)
//! (with the premultiplying of pixel rows), [`BlendMode`](crate::BlendMode), the generational handles
//! ([`NodeId`](crate::NodeId), [`TextureId`](crate::TextureId)), the [`Texture`](crate::Texture) value a sprite
//! holds (an id, a frame and a sampling, not the GPU texture), the frame counters ([`Stats`](crate::Stats)) and
//! [`IntMap`], the hash map for integer keys; [`LineJoin`](crate::LineJoin), which shapes' strokes and text outlines share.
//!
//! It owns no state and may use nothing else in the crate: every other folder builds on it.

pub(crate) mod blend;
pub(crate) mod color;
pub(crate) mod error;
pub(crate) mod handle;
pub(crate) mod join;
pub(crate) mod read;
pub(crate) mod stats;
pub(crate) mod stops;
pub(crate) mod texture;

pub(crate) use hash::IntMap;

mod hash;
