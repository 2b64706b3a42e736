//! Generational handles: a slot index and the generation of the object in it, so a handle to a removed node or a
//! destroyed texture is detected instead of reaching whatever took its slot. Only stage2d makes them. A leaf
//! module: the error type and every system name handles, and handles name nothing.

/// A handle to a node of a [`Scene`](crate::Scene).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId {
    pub(crate) index: u32,
    pub(crate) generation: u32,
}

/// A generational index into the renderer's texture storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TextureId {
    pub(crate) index: u32,
    pub(crate) generation: u32,
}

impl TextureId {
    /// The storage slot (dense, reused after a texture is destroyed).
    pub fn index(self) -> u32 {
        self.index
    }
}
