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
    /// The smaller of source and destination, per channel (fixed-function).
    Min = 6,
    /// The larger of source and destination, per channel (fixed-function).
    Max = 7,
    /// Advanced (W3C compositing) modes, which read what lies under the node: the node is drawn into a texture
    /// of its own and combined with a copy of its backdrop by one pass (`shaders/filters/blend.wgsl`), as PixiJS
    /// does. They apply to a node and its subtree as a whole.
    ColorBurn = 8,
    /// Advanced: see [`BlendMode::ColorBurn`].
    ColorDodge = 9,
    /// Advanced: the darker of source and backdrop.
    Darken = 10,
    /// Advanced: `|backdrop - source|`.
    Difference = 11,
    /// Advanced: backdrop divided by source.
    Divide = 12,
    /// Advanced: a softer difference.
    Exclusion = 13,
    /// Advanced: multiply or screen by the source.
    HardLight = 14,
    /// Advanced: each channel 0 or 1 by the sum of source and backdrop.
    HardMix = 15,
    /// Advanced: the lighter of source and backdrop.
    Lighten = 16,
    /// Advanced: `backdrop + source - 1`.
    LinearBurn = 17,
    /// Advanced: `backdrop + source`.
    LinearDodge = 18,
    /// Advanced: linear burn or linear dodge by the source.
    LinearLight = 19,
    /// Advanced: the source's luminosity with the backdrop's hue and saturation.
    Luminosity = 20,
    /// Advanced: `1 - |1 - backdrop - source|`.
    Negation = 21,
    /// Advanced: multiply or screen by the backdrop.
    Overlay = 22,
    /// Advanced: darken or lighten by the source.
    PinLight = 23,
    /// Advanced: the source's saturation with the backdrop's hue and luminosity.
    Saturation = 24,
    /// Advanced: a softer hard light.
    SoftLight = 25,
    /// Advanced: `backdrop - source`.
    Subtract = 26,
    /// Advanced: colour burn or colour dodge by the source.
    VividLight = 27,
    /// Advanced: the source's hue and saturation with the backdrop's luminosity.
    Color = 28,
    /// Advanced: the source's hue with the backdrop's saturation and luminosity.
    Hue = 29,
    /// Take the parent's blend mode (the default for every node).
    #[default]
    Inherit = 31,
}

impl BlendMode {
    /// Every mode that can appear in a pipeline key (the fixed-function ones), in id order.
    pub const RESOLVED: [BlendMode; 8] = [
        BlendMode::Normal,
        BlendMode::Add,
        BlendMode::Multiply,
        BlendMode::Screen,
        BlendMode::Erase,
        BlendMode::None,
        BlendMode::Min,
        BlendMode::Max,
    ];

    /// The advanced modes, in id order.
    pub const ADVANCED: [BlendMode; 22] = [
        BlendMode::ColorBurn,
        BlendMode::ColorDodge,
        BlendMode::Darken,
        BlendMode::Difference,
        BlendMode::Divide,
        BlendMode::Exclusion,
        BlendMode::HardLight,
        BlendMode::HardMix,
        BlendMode::Lighten,
        BlendMode::LinearBurn,
        BlendMode::LinearDodge,
        BlendMode::LinearLight,
        BlendMode::Luminosity,
        BlendMode::Negation,
        BlendMode::Overlay,
        BlendMode::PinLight,
        BlendMode::Saturation,
        BlendMode::SoftLight,
        BlendMode::Subtract,
        BlendMode::VividLight,
        BlendMode::Color,
        BlendMode::Hue,
    ];

    /// Whether the mode needs what lies under the node (drawn through a pass of its own, not the pipeline's
    /// fixed-function blending).
    #[inline]
    pub fn is_advanced(self) -> bool {
        (8..=29).contains(&(self as u8))
    }

    /// This mode with [`BlendMode::Inherit`] replaced by `parent`; an advanced mode resolves to
    /// [`BlendMode::Normal`] (the node's pass does the advanced part, and what it holds draws normally into it).
    #[inline]
    pub fn resolve(self, parent: BlendMode) -> BlendMode {
        if self == BlendMode::Inherit {
            parent
        } else if self.is_advanced() {
            BlendMode::Normal
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
            BlendMode::Min | BlendMode::Max => {
                let operation = match self {
                    BlendMode::Min => Op::Min,
                    _ => Op::Max,
                };
                let m = C {
                    src_factor: F::One,
                    dst_factor: F::One,
                    operation,
                };
                wgpu::BlendState { color: m, alpha: m }
            }
            // Advanced modes never reach a pipeline: their pass replaces what lies under them.
            _ => return None,
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
        assert_eq!(BlendMode::from_id(8), None);
        assert!(BlendMode::ADVANCED.iter().all(|m| m.is_advanced()));
        assert!(BlendMode::RESOLVED.iter().all(|m| !m.is_advanced()));
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
