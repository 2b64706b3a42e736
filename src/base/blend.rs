//! Blend modes and their premultiplied-alpha blend states.
//!
//! Every colour in stage2d is premultiplied by its alpha, so the factors below assume a premultiplied source.

/// How a node's pixels combine with what is already in the target.
///
/// A node's mode is resolved down the tree: [`BlendMode::Inherit`] (the default) takes the parent's mode, and the
/// root resolves to [`BlendMode::Normal`]. Only resolved modes reach the pipeline key.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
#[non_exhaustive]
pub enum BlendMode {
    /// Source over destination: `src + dst * (1 - src.a)`.
    Normal = 0,
    /// Additive: `src + dst` in colour.
    Add = 1,
    /// Multiply: `src * dst + dst * (1 - src.a)`.
    Multiply = 2,
    /// Screen: `src + dst * (1 - src)`.
    Screen = 3,
    /// Erase: the destination is cut away where the source is opaque, `dst * (1 - src.a)`.
    Erase = 4,
    /// No blending: the source replaces the destination, alpha included.
    None = 5,
    /// Take the parent's blend mode (the default for every node).
    #[default]
    Inherit = 31,
}

impl BlendMode {
    /// Every mode that can appear in a pipeline key, in id order.
    pub const RESOLVED: [BlendMode; 6] = [
        BlendMode::Normal,
        BlendMode::Add,
        BlendMode::Multiply,
        BlendMode::Screen,
        BlendMode::Erase,
        BlendMode::None,
    ];

    /// This mode with [`BlendMode::Inherit`] replaced by `parent`.
    #[inline]
    pub fn resolve(self, parent: BlendMode) -> BlendMode {
        if self == BlendMode::Inherit {
            parent
        } else {
            self
        }
    }

    /// The 5-bit id used in the graphics key.
    #[inline]
    pub fn id(self) -> u8 {
        self as u8
    }

    /// The mode with the given id, if any.
    pub fn from_id(id: u8) -> Option<BlendMode> {
        Self::RESOLVED.get(id as usize).copied()
    }

    /// The wgpu blend state for a premultiplied source, or `None` for no blending.
    pub fn blend_state(self) -> Option<wgpu::BlendState> {
        use wgpu::{BlendComponent as C, BlendFactor as F, BlendOperation as Op};
        let c = |src_factor, dst_factor| C {
            src_factor,
            dst_factor,
            operation: Op::Add,
        };
        let over = c(F::One, F::OneMinusSrcAlpha);
        Some(match self {
            BlendMode::Normal | BlendMode::Inherit => wgpu::BlendState {
                color: over,
                alpha: over,
            },
            BlendMode::Add => wgpu::BlendState {
                color: c(F::One, F::One),
                alpha: over,
            },
            BlendMode::Multiply => wgpu::BlendState {
                color: c(F::Dst, F::OneMinusSrcAlpha),
                alpha: over,
            },
            BlendMode::Screen => wgpu::BlendState {
                color: c(F::One, F::OneMinusSrc),
                alpha: over,
            },
            BlendMode::Erase => wgpu::BlendState {
                color: c(F::Zero, F::OneMinusSrcAlpha),
                alpha: c(F::Zero, F::OneMinusSrcAlpha),
            },
            BlendMode::None => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_fit_five_bits() {
        for m in BlendMode::RESOLVED {
            assert!(m.id() < 32);
            assert_eq!(BlendMode::from_id(m.id()), Some(m));
        }
        assert_eq!(BlendMode::from_id(6), None);
    }

    #[test]
    fn inherit_resolves_to_parent() {
        assert_eq!(BlendMode::Inherit.resolve(BlendMode::Add), BlendMode::Add);
        assert_eq!(BlendMode::Screen.resolve(BlendMode::Add), BlendMode::Screen);
    }

    #[test]
    fn none_disables_blending() {
        assert!(BlendMode::None.blend_state().is_none());
        assert!(BlendMode::Normal.blend_state().is_some());
    }
}
