//! The two pipeline keys: the 12-bit global key (tier 1) and the 30-bit graphics key (tier 2).
//!
//! Both are packed so that every field has its own bits: no two distinct valid states share a key. PixiJS packs
//! the raw MSAA sample count (4 = `0b100`) into a 1-bit field and the colour-target count (1..=4) into a 2-bit field,
//! and so collides; here MSAA is one bit (`samples > 1`) and the target count is stored as `count - 1`. Graphics-key
//! ids are `u8`s handed out by [`IdRegistry`], which refuses a 257th id instead of letting it spill into the next
//! field.

use crate::{BlendMode, Error, Result};
use std::collections::HashMap;
use std::hash::Hash;

/// Stencil test configuration of the current render target. Indexes arrays; 3 bits in the global key.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum StencilMode {
    /// No stencil test, no stencil writes.
    #[default]
    Disabled = 0,
    /// Drawing a mask: where stencil == ref, increment (clamped); colour writes off.
    MaskAdd = 1,
    /// Drawing masked content: pass where stencil == ref.
    MaskActive = 2,
    /// Drawing inverse-masked content: pass where stencil != ref.
    InverseMaskActive = 3,
    /// Removing a mask: where stencil == ref, decrement (clamped); colour writes off.
    MaskRemove = 4,
}

impl StencilMode {
    /// Every stencil mode, in id order.
    pub const ALL: [StencilMode; 5] = [
        StencilMode::Disabled,
        StencilMode::MaskAdd,
        StencilMode::MaskActive,
        StencilMode::InverseMaskActive,
        StencilMode::MaskRemove,
    ];

    /// Whether this mode writes colour (mask drawing does not).
    pub fn writes_colour(self) -> bool {
        !matches!(self, StencilMode::MaskAdd | StencilMode::MaskRemove)
    }
}

/// Which depth-stencil attachment the render target has. 2 bits in the global key.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum DepthStencil {
    /// No depth-stencil attachment.
    #[default]
    None = 0,
    /// A `Depth24PlusStencil8` attachment.
    Depth24PlusStencil8 = 1,
    /// A `Stencil8` attachment.
    Stencil8 = 2,
}

impl DepthStencil {
    /// Every attachment kind, in id order.
    pub const ALL: [DepthStencil; 3] = [
        DepthStencil::None,
        DepthStencil::Depth24PlusStencil8,
        DepthStencil::Stencil8,
    ];

    /// The wgpu format of the attachment, if any.
    pub fn format(self) -> Option<wgpu::TextureFormat> {
        match self {
            DepthStencil::None => None,
            DepthStencil::Depth24PlusStencil8 => Some(wgpu::TextureFormat::Depth24PlusStencil8),
            DepthStencil::Stencil8 => Some(wgpu::TextureFormat::Stencil8),
        }
    }
}

/// Primitive topology. 3 bits in the graphics key.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Topology {
    /// Points.
    PointList = 0,
    /// Separate lines.
    LineList = 1,
    /// A connected line strip.
    LineStrip = 2,
    /// Separate triangles (sprites and shapes).
    #[default]
    TriangleList = 3,
    /// A triangle strip.
    TriangleStrip = 4,
}

impl Topology {
    /// Every topology, in id order.
    pub const ALL: [Topology; 5] = [
        Topology::PointList,
        Topology::LineList,
        Topology::LineStrip,
        Topology::TriangleList,
        Topology::TriangleStrip,
    ];

    /// The wgpu topology.
    pub fn to_wgpu(self) -> wgpu::PrimitiveTopology {
        match self {
            Topology::PointList => wgpu::PrimitiveTopology::PointList,
            Topology::LineList => wgpu::PrimitiveTopology::LineList,
            Topology::LineStrip => wgpu::PrimitiveTopology::LineStrip,
            Topology::TriangleList => wgpu::PrimitiveTopology::TriangleList,
            Topology::TriangleStrip => wgpu::PrimitiveTopology::TriangleStrip,
        }
    }
}

/// The global (per render-target and per stencil-state) part of pipeline state.
///
/// Build it with [`GlobalState::new`], which rejects impossible combinations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GlobalState {
    color_mask: u8,
    stencil: StencilMode,
    depth_stencil: DepthStencil,
    color_targets: u8,
    msaa: bool,
}

impl Default for GlobalState {
    fn default() -> Self {
        GlobalState {
            color_mask: 0b1111,
            stencil: StencilMode::Disabled,
            depth_stencil: DepthStencil::None,
            color_targets: 1,
            msaa: false,
        }
    }
}

/// The 12-bit packed [`GlobalState`]: `color_mask << 8 | stencil << 5 | depth_stencil << 3 | (targets-1) << 1 | msaa`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GlobalKey(pub u16);

impl GlobalState {
    /// A global state, or `None` where the combination cannot exist: a colour mask over 4 bits, a colour-target
    /// count outside 1..=4, or a stencil mode other than `Disabled` without a depth-stencil attachment.
    pub fn new(
        color_mask: u8,
        stencil: StencilMode,
        depth_stencil: DepthStencil,
        color_targets: u8,
        msaa: bool,
    ) -> Option<GlobalState> {
        let valid = color_mask <= 0b1111
            && (1..=4).contains(&color_targets)
            && (stencil == StencilMode::Disabled || depth_stencil != DepthStencil::None);
        valid.then_some(GlobalState {
            color_mask,
            stencil,
            depth_stencil,
            color_targets,
            msaa,
        })
    }

    /// The colour write mask (bit 0 red .. bit 3 alpha, as `wgpu::ColorWrites`).
    pub fn color_mask(&self) -> u8 {
        self.color_mask
    }
    /// The stencil mode.
    pub fn stencil(&self) -> StencilMode {
        self.stencil
    }
    /// The depth-stencil attachment kind.
    pub fn depth_stencil(&self) -> DepthStencil {
        self.depth_stencil
    }
    /// The number of colour targets, 1..=4.
    pub fn color_targets(&self) -> u8 {
        self.color_targets
    }
    /// Whether the target is multisampled (4 samples).
    pub fn msaa(&self) -> bool {
        self.msaa
    }
    /// The sample count pipelines need for this state.
    pub fn sample_count(&self) -> u32 {
        if self.msaa {
            4
        } else {
            1
        }
    }

    /// Packs the state into its 12-bit key.
    #[inline]
    pub fn key(&self) -> GlobalKey {
        GlobalKey(
            (self.color_mask as u16) << 8
                | (self.stencil as u16) << 5
                | (self.depth_stencil as u16) << 3
                | ((self.color_targets - 1) as u16) << 1
                | self.msaa as u16,
        )
    }

    /// Unpacks a key made by [`GlobalState::key`]; `None` for bit patterns no valid state produces.
    pub fn from_key(key: GlobalKey) -> Option<GlobalState> {
        let k = key.0;
        if k >> 12 != 0 {
            return None;
        }
        let stencil = *StencilMode::ALL.get(((k >> 5) & 0b111) as usize)?;
        let depth_stencil = *DepthStencil::ALL.get(((k >> 3) & 0b11) as usize)?;
        GlobalState::new(
            (k >> 8) as u8 & 0b1111,
            stencil,
            depth_stencil,
            ((k >> 1) & 0b11) as u8 + 1,
            k & 1 == 1,
        )
    }

    /// This state with another stencil mode (and the attachment it needs kept).
    pub fn with_stencil(mut self, stencil: StencilMode) -> GlobalState {
        debug_assert!(stencil == StencilMode::Disabled || self.depth_stencil != DepthStencil::None);
        self.stencil = stencil;
        self
    }

    /// This state with another colour mask (low 4 bits used).
    pub fn with_color_mask(mut self, mask: u8) -> GlobalState {
        self.color_mask = mask & 0b1111;
        self
    }
}

/// Small per-draw state bits (6 bits in the graphics key): face culling in the low three (bits 0-1: 0 none,
/// 1 back faces, 2 front faces; bit 2: clockwise triangles face front), the rest reserved (depth), 0 in 2D.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StateFlags(u8);

impl StateFlags {
    /// Flags from their 6-bit value, or `None` if it does not fit.
    #[cfg(test)]
    pub fn new(bits: u8) -> Option<StateFlags> {
        (bits < 64).then_some(StateFlags(bits))
    }

    /// The flags of a face-culling state (PixiJS's `State.culling` and `clockwiseFrontFace`).
    pub fn culling(cull: crate::CullMode, clockwise_front: bool) -> StateFlags {
        let face = match cull {
            crate::CullMode::None => 0,
            crate::CullMode::Back => 1,
            crate::CullMode::Front => 2,
        };
        StateFlags(face | (clockwise_front as u8) << 2)
    }

    /// The faces culled.
    pub fn cull_mode(self) -> Option<wgpu::Face> {
        match self.0 & 0b11 {
            1 => Some(wgpu::Face::Back),
            2 => Some(wgpu::Face::Front),
            _ => None,
        }
    }

    /// Which winding faces front.
    pub fn front_face(self) -> wgpu::FrontFace {
        if self.0 & 0b100 != 0 {
            wgpu::FrontFace::Cw
        } else {
            wgpu::FrontFace::Ccw
        }
    }
}

/// A geometry (vertex-buffer) layout id, 8 bits in the graphics key. Handed out by [`IdRegistry`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GeometryLayoutId(pub u8);

/// A shader id, 8 bits in the graphics key. Handed out by [`IdRegistry`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ShaderId(pub u8);

/// Per-draw pipeline state: what makes one draw's pipeline differ from another's in the same global state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GraphicsState {
    /// Vertex-buffer layout.
    pub geometry: GeometryLayoutId,
    /// Shader program.
    pub shader: ShaderId,
    /// Small state bits.
    pub flags: StateFlags,
    /// Resolved blend mode (never [`BlendMode::Inherit`]).
    pub blend: BlendMode,
    /// Primitive topology.
    pub topology: Topology,
}

/// The 30-bit packed `GraphicsState`: `geometry << 22 | shader << 14 | flags << 8 | blend << 3 | topology`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GraphicsKey(pub u32);

impl GraphicsState {
    /// Packs the state into its 30-bit key.
    #[inline]
    pub fn key(&self) -> GraphicsKey {
        debug_assert!(
            self.blend != BlendMode::Inherit,
            "blend mode must be resolved"
        );
        GraphicsKey(
            (self.geometry.0 as u32) << 22
                | (self.shader.0 as u32) << 14
                | (self.flags.0 as u32) << 8
                | (self.blend.id() as u32 & 0b11111) << 3
                | self.topology as u32,
        )
    }

    /// Unpacks a key made by [`GraphicsState::key`]; `None` for bit patterns no valid state produces.
    pub fn from_key(key: GraphicsKey) -> Option<GraphicsState> {
        let k = key.0;
        if k >> 30 != 0 {
            return None;
        }
        Some(GraphicsState {
            geometry: GeometryLayoutId((k >> 22) as u8),
            shader: ShaderId((k >> 14) as u8),
            flags: StateFlags(((k >> 8) & 0b11_1111) as u8),
            blend: BlendMode::from_id(((k >> 3) & 0b11111) as u8)?,
            topology: *Topology::ALL.get((k & 0b111) as usize)?,
        })
    }
}

/// Hands out dense `u8` ids for distinct values, and refuses the 257th with [`Error::TooManyIds`].
#[derive(Debug)]
pub struct IdRegistry<T: Eq + Hash> {
    kind: &'static str,
    ids: HashMap<T, u8>,
}

impl<T: Eq + Hash> IdRegistry<T> {
    /// Most ids a registry can hold (they must fit 8 bits).
    pub const CAPACITY: usize = 256;

    /// An empty registry; `kind` names it in errors ("shaders").
    pub fn new(kind: &'static str) -> Self {
        IdRegistry {
            kind,
            ids: HashMap::new(),
        }
    }

    /// The id of `value`, giving it the next free id if it is new.
    pub fn get_or_insert(&mut self, value: T) -> Result<u8> {
        if let Some(&id) = self.ids.get(&value) {
            return Ok(id);
        }
        let next = self.ids.len();
        if next >= Self::CAPACITY {
            return Err(Error::TooManyIds {
                kind: self.kind,
                max: Self::CAPACITY as u32,
            });
        }
        self.ids.insert(value, next as u8);
        Ok(next as u8)
    }

    /// How many ids were handed out.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.ids.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashSet;

    fn all_valid_global_states() -> Vec<GlobalState> {
        let mut v = Vec::new();
        for mask in 0..16u8 {
            for s in StencilMode::ALL {
                for ds in DepthStencil::ALL {
                    for ct in 1..=4u8 {
                        for msaa in [false, true] {
                            if let Some(g) = GlobalState::new(mask, s, ds, ct, msaa) {
                                v.push(g);
                            }
                        }
                    }
                }
            }
        }
        v
    }

    #[test]
    fn global_keys_are_unique_over_every_valid_state() {
        let states = all_valid_global_states();
        // 16 masks x 4 targets x 2 msaa x (1 disabled-without-ds + 5 modes x 2 attachments).
        assert_eq!(states.len(), 16 * 4 * 2 * (1 + 5 * 2));
        let keys: HashSet<GlobalKey> = states.iter().map(|s| s.key()).collect();
        assert_eq!(
            keys.len(),
            states.len(),
            "two valid global states share a key"
        );
        for s in &states {
            assert!(s.key().0 < 1 << 12, "key {:?} exceeds 12 bits", s.key());
            assert_eq!(GlobalState::from_key(s.key()), Some(*s));
        }
    }

    #[test]
    fn pixi_collisions_do_not_happen_here() {
        // PixiJS: (targets 3, msaa 4) == (targets 1, msaa 4), and (targets 4, ds 0) == (targets 4, ds 1).
        let a = GlobalState::new(15, StencilMode::Disabled, DepthStencil::None, 3, true).unwrap();
        let b = GlobalState::new(15, StencilMode::Disabled, DepthStencil::None, 1, true).unwrap();
        assert_ne!(a.key(), b.key());
        let c = GlobalState::new(15, StencilMode::Disabled, DepthStencil::None, 4, false).unwrap();
        let d = GlobalState::new(
            15,
            StencilMode::Disabled,
            DepthStencil::Depth24PlusStencil8,
            4,
            false,
        )
        .unwrap();
        assert_ne!(c.key(), d.key());
    }

    #[test]
    fn invalid_global_states_are_refused() {
        assert!(
            GlobalState::new(16, StencilMode::Disabled, DepthStencil::None, 1, false).is_none()
        );
        assert!(
            GlobalState::new(15, StencilMode::Disabled, DepthStencil::None, 0, false).is_none()
        );
        assert!(
            GlobalState::new(15, StencilMode::Disabled, DepthStencil::None, 5, false).is_none()
        );
        assert!(
            GlobalState::new(15, StencilMode::MaskActive, DepthStencil::None, 1, false).is_none()
        );
        assert!(GlobalState::from_key(GlobalKey(1 << 12)).is_none());
        assert!(GlobalState::from_key(GlobalKey(7 << 5)).is_none()); // stencil id 7 does not exist
    }

    fn graphics_state() -> impl Strategy<Value = GraphicsState> {
        (
            any::<u8>(),
            any::<u8>(),
            0u8..64,
            0usize..BlendMode::RESOLVED.len(),
            0usize..Topology::ALL.len(),
        )
            .prop_map(|(g, s, f, b, t)| GraphicsState {
                geometry: GeometryLayoutId(g),
                shader: ShaderId(s),
                flags: StateFlags::new(f).unwrap(),
                blend: BlendMode::RESOLVED[b],
                topology: Topology::ALL[t],
            })
    }

    proptest! {
        #[test]
        fn graphics_key_round_trips(s in graphics_state()) {
            let k = s.key();
            prop_assert!(k.0 < 1 << 30);
            prop_assert_eq!(GraphicsState::from_key(k), Some(s));
        }

        #[test]
        fn distinct_graphics_states_have_distinct_keys(a in graphics_state(), b in graphics_state()) {
            prop_assert_eq!(a == b, a.key() == b.key());
        }
    }

    #[test]
    fn id_257_is_an_error_not_a_collision() {
        let mut reg = IdRegistry::new("shaders");
        for i in 0..256u32 {
            assert_eq!(reg.get_or_insert(i).unwrap() as u32, i);
        }
        // Known values still resolve once the registry is full.
        assert_eq!(reg.get_or_insert(17).unwrap(), 17);
        match reg.get_or_insert(256) {
            Err(Error::TooManyIds { kind, max }) => {
                assert_eq!(kind, "shaders");
                assert_eq!(max, 256);
            }
            other => panic!("expected TooManyIds, got {other:?}"),
        }
        assert_eq!(reg.len(), 256);
    }

    #[test]
    fn state_flags_are_six_bits() {
        assert!(StateFlags::new(63).is_some());
        assert!(StateFlags::new(64).is_none());
    }
}
