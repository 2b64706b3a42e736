//! Handles with owners: a slot index tagged with the scene or renderer that made the handle, and a generation
//! drawn from a process-wide `u32` counter that every scene and renderer share. A handle to a removed node or a
//! destroyed texture is detected instead of reaching whatever took its slot, and a handle from another scene or
//! renderer is refused instead of naming the object in the same slot there. Only stage2d makes them. A leaf
//! module: the error type and every system name handles, and handles name nothing.
//!
//! Generations are unique only until the counter wraps: after 4,294,967,295 nodes and textures made (and
//! pooled render textures lent again) in one process, it starts over, and a handle kept that long could match
//! a new object in its old slot if that object drew the same generation. Until then a handle names exactly one
//! object ever made. The counter stays 32 bits so that a [`NodeId`] and a [`TextureId`] stay 8 bytes.

use std::sync::atomic::{AtomicU32, Ordering};

/// Bits of a handle's index that hold the slot; the 8 bits above hold the owner's tag.
const SLOT_BITS: u32 = 24;

/// Slots one scene or one renderer's texture storage can hold (16,777,216).
pub(crate) const MAX_SLOTS: u32 = 1 << SLOT_BITS;

/// A handle to a node of a [`Scene`](crate::Scene). It prints as its slot and generation: `Node#6v11`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId {
    /// The slot, with the owning scene's tag in the top 8 bits.
    pub(crate) index: u32,
    /// From the process-wide counter: no other node of any scene carries it until the counter wraps.
    pub(crate) generation: u32,
}

/// A handle to a texture of one [`Renderer`](crate::Renderer). It prints as its slot and generation:
/// `Texture#3v42`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TextureId {
    /// The slot, with the owning renderer's tag in the top 8 bits.
    pub(crate) index: u32,
    /// From the process-wide counter: no other texture of any renderer carries it until the counter wraps.
    pub(crate) generation: u32,
}

macro_rules! tagged {
    ($t:ty, $name:literal) => {
        impl std::fmt::Debug for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, concat!($name, "#{}v{}"), self.slot(), self.generation)
            }
        }
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Debug::fmt(self, f)
            }
        }
        impl $t {
            pub(crate) fn new(slot: u32, owner: Owner, generation: u32) -> Self {
                debug_assert!(slot < MAX_SLOTS);
                Self {
                    index: slot | (owner.0 << SLOT_BITS),
                    generation,
                }
            }
            /// The storage slot (dense, reused after its object is gone).
            #[inline]
            pub(crate) fn slot(self) -> usize {
                (self.index & (MAX_SLOTS - 1)) as usize
            }
            /// Whether `owner` made this handle.
            #[inline]
            pub(crate) fn owned_by(self, owner: Owner) -> bool {
                self.index >> SLOT_BITS == owner.0
            }
        }
    };
}
tagged!(NodeId, "Node");
tagged!(TextureId, "Texture");

impl TextureId {
    /// The storage slot (dense, reused after a texture is destroyed).
    pub fn index(self) -> u32 {
        self.slot() as u32
    }

    /// Whether `other` was made by the same renderer as this handle.
    #[inline]
    pub(crate) fn same_owner(self, other: TextureId) -> bool {
        self.index >> SLOT_BITS == other.index >> SLOT_BITS
    }
}

/// The tag a scene or renderer puts on its handles: 1..=255, handed out in turn (0 marks CPU-only benchmark
/// handles). Two owners share a tag only 255 owners apart; their handles still do not match each other's
/// objects (generations come from one process-wide counter; see the module docs for when it wraps), but a mix-up
/// between them reports a stale handle rather than a foreign one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Owner(u32);

static NEXT_OWNER: AtomicU32 = AtomicU32::new(0);
static NEXT_GENERATION: AtomicU32 = AtomicU32::new(1);

impl Owner {
    /// The tag of CPU-only benchmark handles.
    pub(crate) const NONE: Owner = Owner(0);

    /// The next owner tag.
    pub(crate) fn next() -> Owner {
        Owner(NEXT_OWNER.fetch_add(1, Ordering::Relaxed) % 255 + 1)
    }
}

/// The next generation of the process-wide counter: one no handle made before carries until the counter wraps
/// after 2^32 - 1 calls (0 is never returned: it marks vacant slots).
pub(crate) fn next_generation() -> u32 {
    loop {
        let g = NEXT_GENERATION.fetch_add(1, Ordering::Relaxed);
        if g != 0 {
            return g;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_and_owners_round_trip() {
        let a = Owner::next();
        let b = Owner::next();
        assert_ne!(a, b);
        let id = NodeId::new(MAX_SLOTS - 1, a, 7);
        assert_eq!(id.slot(), (MAX_SLOTS - 1) as usize);
        assert!(id.owned_by(a) && !id.owned_by(b));
        let t = TextureId::new(3, b, 9);
        assert_eq!(t.index(), 3);
        assert!(t.owned_by(b));
        assert_ne!(next_generation(), next_generation());
    }

    #[test]
    fn handles_print_as_slot_and_generation() {
        let id = NodeId::new(6, Owner::next(), 11);
        assert_eq!(format!("{id:?}"), "Node#6v11");
        assert_eq!(id.to_string(), "Node#6v11");
        let t = TextureId::new(3, Owner::next(), 42);
        assert_eq!(format!("{t:?}"), "Texture#3v42");
        assert_eq!(
            crate::Error::StaleNode(id).to_string(),
            "node handle Node#6v11 is stale (the node was removed)"
        );
    }
}
