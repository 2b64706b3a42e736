//! Sprites: a textured quad sized by its texture frame (or an explicit size) and placed by its anchor.

use crate::Texture;
use glam::Vec2;

/// A textured quad. Tint, alpha, blend mode and transform live on the [`Node`](crate::Node) that holds it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprite {
    /// The texture or atlas frame drawn.
    pub texture: Texture,
    /// Which point of the quad sits at the node's origin: `(0, 0)` top-left, `(0.5, 0.5)` centre.
    pub anchor: Vec2,
    /// Size in pixels before the node's scale; `None` uses the frame's size.
    pub size: Option<Vec2>,
}

impl Sprite {
    /// A sprite of the whole `texture` (or frame), anchored at its top-left corner.
    pub fn new(texture: Texture) -> Sprite {
        Sprite {
            texture,
            anchor: Vec2::ZERO,
            size: None,
        }
    }

    /// The quad's size in pixels before scaling.
    #[inline]
    pub fn size_in_pixels(&self) -> Vec2 {
        self.size.unwrap_or_else(|| Vec2::from(self.texture.size()))
    }
}
