//! Scene nodes: a transform, colour and visibility shared by every kind, and what the node draws.

use crate::graphics::GraphicsContext;
use crate::{BlendMode, Color, Sprite, Texture};
use glam::{Affine2, Vec2};
use std::sync::Arc;

/// A mask on a node (set with [`crate::Scene::set_mask`], read with [`crate::Scene::mask`]): its content and children show only inside (or, if `inverse`, outside) the shape of the
/// mask node's subtree (sprites count as their quads, graphics as their fills and strokes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mask {
    /// The node whose shape masks.
    pub node: crate::NodeId,
    /// Show what lies outside the mask instead.
    pub inverse: bool,
}

/// What a node draws besides its children.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum NodeKind {
    /// Nothing: a group for its children.
    Container,
    /// A textured quad.
    Sprite(Sprite),
    /// A texture stretched with its borders kept (boxed: larger than a sprite).
    NineSlice(Box<crate::NineSliceSprite>),
    /// A texture repeated over a rectangle (boxed: larger than a sprite).
    Tiling(Box<crate::TilingSprite>),
    /// Vector shapes; the context may be shared with other nodes.
    Graphics(Arc<GraphicsContext>),
    /// A text label or paragraph (boxed: it is larger than the other kinds, and every node pays for the largest).
    #[cfg(feature = "text")]
    Text(Box<crate::Text>),
}

/// One node of the scene tree. Children inherit its transform, alpha, tint and blend mode; draw order is tree
/// order (a child after its parent, later siblings on top).
///
/// The local transform is `translate(position) · rotate(rotation) · scale(scale) · translate(-pivot)`, in pixels
/// with the origin top-left and y down; `rotation` is in radians, clockwise on screen.
#[derive(Clone, Debug, PartialEq)]
#[repr(C)] // Fields in the order the update and the walk read them (see the scene's slot layout).
pub struct Node {
    /// Position of the pivot in the parent's space, in pixels.
    pub position: Vec2,
    /// Scale along the local axes.
    pub scale: Vec2,
    /// The local point that `position` places and that rotation and scale turn around.
    pub pivot: Vec2,
    /// Rotation in radians (clockwise on screen, since y points down).
    pub rotation: f32,
    /// Opacity in `0..=1`, multiplied down the tree.
    pub alpha: f32,
    /// Colour multiplied into this node and its children.
    pub tint: Color,
    /// Whether the node and its children are drawn.
    pub visible: bool,
    /// Keeps the children's batched geometry between frames (PixiJS's `isRenderGroup`): while nothing below the
    /// node changes, a frame replays it instead of walking it, and moving, tinting or fading the node itself
    /// changes one transform on the GPU. Anything below it changing rebuilds the whole group once, as does zooming
    /// it by more than 2x when it holds shapes (they are flattened for the scale they were recorded at). Of a large
    /// group only the runs of its geometry (256 quads each, in draw order) that touch the target are drawn, so a
    /// view over a small part of a huge group costs what that part costs. A group below a group is part of the
    /// outer one; a group holding masks or text is walked as a plain container.
    pub render_group: bool,
    /// Blend mode; [`BlendMode::Inherit`] (the default) takes the parent's.
    pub blend_mode: BlendMode,
    /// What the node draws.
    pub kind: NodeKind,
}

impl Default for Node {
    fn default() -> Self {
        Node::container()
    }
}

impl Node {
    /// An empty container.
    pub fn container() -> Node {
        Node {
            position: Vec2::ZERO,
            scale: Vec2::ONE,
            rotation: 0.0,
            pivot: Vec2::ZERO,
            alpha: 1.0,
            tint: Color::WHITE,
            visible: true,
            render_group: false,
            blend_mode: BlendMode::Inherit,
            kind: NodeKind::Container,
        }
    }

    /// A sprite node showing `texture`, anchored top-left.
    pub fn sprite(texture: Texture) -> Node {
        Node {
            kind: NodeKind::Sprite(Sprite::new(texture)),
            ..Node::container()
        }
    }

    /// A nine-slice sprite node (see [`NineSliceSprite`](crate::NineSliceSprite)).
    pub fn nine_slice(sprite: crate::NineSliceSprite) -> Node {
        Node {
            kind: NodeKind::NineSlice(Box::new(sprite)),
            ..Node::container()
        }
    }

    /// A tiling sprite node (see [`TilingSprite`](crate::TilingSprite)).
    pub fn tiling(sprite: crate::TilingSprite) -> Node {
        Node {
            kind: NodeKind::Tiling(Box::new(sprite)),
            ..Node::container()
        }
    }

    /// The nine-slice sprite, if this node is one.
    pub fn as_nine_slice_mut(&mut self) -> Option<&mut crate::NineSliceSprite> {
        match &mut self.kind {
            NodeKind::NineSlice(s) => Some(s),
            _ => None,
        }
    }

    /// The tiling sprite, if this node is one.
    pub fn as_tiling_mut(&mut self) -> Option<&mut crate::TilingSprite> {
        match &mut self.kind {
            NodeKind::Tiling(s) => Some(s),
            _ => None,
        }
    }

    /// A node drawing the shapes of `context` (pass an `Arc` to share one context between nodes).
    pub fn graphics(context: impl Into<Arc<GraphicsContext>>) -> Node {
        Node {
            kind: NodeKind::Graphics(context.into()),
            ..Node::container()
        }
    }

    /// A node showing `text`.
    #[cfg(feature = "text")]
    pub fn text(text: crate::Text) -> Node {
        Node {
            kind: NodeKind::Text(Box::new(text)),
            ..Node::container()
        }
    }

    /// The text, if this node shows one.
    #[cfg(feature = "text")]
    pub fn as_text_mut(&mut self) -> Option<&mut crate::Text> {
        match &mut self.kind {
            NodeKind::Text(t) => Some(t),
            _ => None,
        }
    }

    /// The graphics context for changing, if this node draws shapes (cloned first if it is shared).
    pub fn graphics_mut(&mut self) -> Option<&mut GraphicsContext> {
        match &mut self.kind {
            NodeKind::Graphics(g) => Some(Arc::make_mut(g)),
            _ => None,
        }
    }

    /// Sets the position (builder style).
    pub fn at(mut self, x: f32, y: f32) -> Node {
        self.position = Vec2::new(x, y);
        self
    }

    /// Sets the anchor if this is a sprite (builder style).
    pub fn anchor(mut self, x: f32, y: f32) -> Node {
        if let NodeKind::Sprite(s) = &mut self.kind {
            s.anchor = Vec2::new(x, y);
        }
        self
    }

    /// Sets the sprite's size in pixels if this is a sprite (builder style).
    pub fn sized(mut self, width: f32, height: f32) -> Node {
        if let NodeKind::Sprite(s) = &mut self.kind {
            s.size = Some(Vec2::new(width, height));
        }
        self
    }

    /// Sets the tint (builder style).
    pub fn tinted(mut self, tint: Color) -> Node {
        self.tint = tint;
        self
    }

    /// Sets the alpha (builder style).
    pub fn with_alpha(mut self, alpha: f32) -> Node {
        self.alpha = alpha;
        self
    }

    /// Makes the node a render group (builder style; see [`Node::render_group`]).
    pub fn as_render_group(mut self) -> Node {
        self.render_group = true;
        self
    }

    /// Sets the blend mode (builder style).
    pub fn blended(mut self, mode: BlendMode) -> Node {
        self.blend_mode = mode;
        self
    }

    /// The sprite, if this node is one.
    pub fn as_sprite_mut(&mut self) -> Option<&mut Sprite> {
        match &mut self.kind {
            NodeKind::Sprite(s) => Some(s),
            _ => None,
        }
    }

    /// The local transform `T(position) · R(rotation) · S(scale) · T(-pivot)`.
    #[inline]
    pub fn local_transform(&self) -> Affine2 {
        let (sin, cos) = if self.rotation == 0.0 {
            (0.0, 1.0)
        } else {
            self.rotation.sin_cos()
        };
        let x_axis = Vec2::new(cos, sin) * self.scale.x;
        let y_axis = Vec2::new(-sin, cos) * self.scale.y;
        let translation = self.position - x_axis * self.pivot.x - y_axis * self.pivot.y;
        Affine2::from_cols(x_axis, y_axis, translation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f32::consts::FRAC_PI_2;

    #[test]
    fn transform_order_is_translate_rotate_scale_unpivot() {
        let n = Node {
            position: Vec2::new(100.0, 50.0),
            scale: Vec2::new(2.0, 3.0),
            rotation: FRAC_PI_2,
            pivot: Vec2::new(10.0, 0.0),
            ..Node::container()
        };
        let m = n.local_transform();
        let expected = Affine2::from_translation(n.position)
            * Affine2::from_angle(n.rotation)
            * Affine2::from_scale(n.scale)
            * Affine2::from_translation(-n.pivot);
        for p in [Vec2::ZERO, Vec2::new(10.0, 0.0), Vec2::new(3.0, -7.0)] {
            let (a, b) = (m.transform_point2(p), expected.transform_point2(p));
            assert!((a - b).length() < 1e-4, "{a} vs {b}");
        }
        // The pivot lands on the position.
        assert!((m.transform_point2(n.pivot) - n.position).length() < 1e-4);
        // With y down, +90 degrees turns +x towards +y (clockwise on screen).
        let dir = m.transform_vector2(Vec2::X);
        assert!(dir.x.abs() < 1e-4 && dir.y > 0.0);
    }
}
