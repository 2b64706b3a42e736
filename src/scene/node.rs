//! Scene nodes: a transform, kept apart from the node's colour, visibility and what it draws.

use crate::graphics::GraphicsContext;
use crate::scene::sprite::LocalQuad;
use crate::{BlendMode, Color, NodeId, Sprite, Texture};
use glam::{Affine2, Vec2};
use std::sync::Arc;

/// A mask on a node (set with [`crate::Scene::set_mask`] or [`crate::Scene::set_alpha_mask`], read with
/// [`crate::Scene::mask`]): its content and children show only inside (or, if `inverse`, outside) the mask.
/// A stencil mask (`channel: None`) is the shape of the mask node's subtree (sprites count as their quads,
/// graphics as their fills and strokes); an alpha mask is its pixels' alpha or red channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mask {
    /// The node whose shape or pixels mask.
    pub node: crate::NodeId,
    /// Show what lies outside the mask instead.
    pub inverse: bool,
    /// The channel of an alpha mask; `None` for a stencil mask.
    pub channel: Option<MaskChannel>,
}

/// Which channel of an alpha mask's pixels masks (PixiJS's `setMask({ channel })`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MaskChannel {
    /// Alpha (PixiJS's default).
    #[default]
    Alpha,
    /// Red (a greyscale mask picture).
    Red,
}

/// What a render layer node ([`Node::render_layer`](crate::Node::render_layer)) holds: the nodes attached to it
/// (through [`Scene::attach_to_layer`](crate::Scene::attach_to_layer)), in the order they were attached.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RenderLayer {
    /// Draw the attached nodes sorted by z-index (stably: equal ones in attach order), PixiJS's
    /// `sortableChildren` on a layer; otherwise in attach order.
    pub sort_children: bool,
    pub(crate) attached: Vec<NodeId>,
}

impl RenderLayer {
    /// The attached nodes, in attach order.
    pub fn attached(&self) -> &[NodeId] {
        &self.attached
    }
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
    /// A texture on the user's triangles (boxed: larger than a sprite); the geometry may be shared.
    Mesh(Box<crate::Mesh>),
    /// A text label or paragraph (boxed: it is larger than the other kinds, and every node pays for the largest).
    #[cfg(feature = "text")]
    Text(Box<crate::Text>),
    /// Particles of one texture, drawn in one instanced draw (boxed: larger than a sprite).
    Particles(Box<crate::ParticleContainer>),
    /// A render layer: the nodes attached to it (see [`Scene::attach_to_layer`](crate::Scene::attach_to_layer)) draw here, in its
    /// place in the draw order, instead of where they stand in the tree.
    RenderLayer(crate::RenderLayer),
}

impl NodeKind {
    /// The kind's name, for messages.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            NodeKind::Container => "container",
            NodeKind::Sprite(_) => "sprite",
            NodeKind::NineSlice(_) => "nine-slice",
            NodeKind::Tiling(_) => "tiling",
            NodeKind::Graphics(_) => "graphics",
            NodeKind::Mesh(_) => "mesh",
            #[cfg(feature = "text")]
            NodeKind::Text(_) => "text",
            NodeKind::Particles(_) => "particle container",
            NodeKind::RenderLayer(_) => "render layer",
        }
    }
}

/// Where a node sits in its parent: `translate(position) · rotate(rotation) · scale(scale) · translate(-pivot)`, in
/// pixels with the origin top-left and y down; `rotation` is in radians, clockwise on screen.
///
/// A scene keeps every node's transform in one dense array apart from the node's other properties ([`NodeProps`]):
/// an update loop that moves many sprites through [`Scene::transform_mut`](crate::Scene::transform_mut) touches the
/// transform and an 8-byte slot of each, not the rest, and a next frame that keeps its walk (see
/// [`Scene::get_mut`](crate::Scene::get_mut)) recomputes only those sprites' corners.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)] // Position first: what an update loop writes.
pub struct Transform {
    /// Position of the pivot in the parent's space, in pixels.
    pub position: Vec2,
    /// Scale along the local axes.
    pub scale: Vec2,
    /// The local point that `position` places and that rotation and scale turn around.
    pub pivot: Vec2,
    /// Rotation in radians (clockwise on screen, since y points down).
    pub rotation: f32,
}

impl Default for Transform {
    fn default() -> Self {
        Transform::IDENTITY
    }
}

impl Transform {
    /// No move, no turn, scale 1.
    pub const IDENTITY: Transform = Transform {
        position: Vec2::ZERO,
        scale: Vec2::ONE,
        pivot: Vec2::ZERO,
        rotation: 0.0,
    };

    /// The identity moved to `(x, y)`.
    pub fn at(x: f32, y: f32) -> Transform {
        Transform {
            position: Vec2::new(x, y),
            ..Transform::IDENTITY
        }
    }

    /// The matrix `T(position) · R(rotation) · S(scale) · T(-pivot)`.
    #[inline]
    pub fn matrix(&self) -> Affine2 {
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

    /// `local` under `parent · self.matrix()` as `(origin, x_edge, y_edge)`, as [`LocalQuad::place`] gives it up to
    /// rounding, without forming that matrix (about half the arithmetic): a leaf sprite's corners, whichever walk
    /// computes them, so that a kept walk's moved sprite matches a full walk's to the bit.
    #[inline(always)]
    pub(crate) fn place(&self, local: &LocalQuad, parent: &Affine2) -> (Vec2, Vec2, Vec2) {
        let t = self;
        let m = parent.matrix2;
        let a = t.scale * (local.origin - t.pivot);
        let size = t.scale * local.size;
        let (v, dx, dy) = if t.rotation == 0.0 {
            (t.position + a, m.x_axis * size.x, m.y_axis * size.y)
        } else {
            let (sin, cos) = t.rotation.sin_cos();
            (
                t.position + Vec2::new(cos * a.x - sin * a.y, sin * a.x + cos * a.y),
                m * Vec2::new(cos, sin) * size.x,
                m * Vec2::new(-sin, cos) * size.y,
            )
        };
        let p0 = m * v + parent.translation;
        if local.rotated {
            (p0 + dy, -dy, dx)
        } else {
            (p0, dx, dy)
        }
    }
}

/// Everything about a node but its [`Transform`]: colour, visibility, blending and what it draws. Children inherit
/// its alpha, tint and blend mode; draw order is tree order (a child after its parent, later siblings on top).
///
/// Read and changed through [`Scene::get`](crate::Scene::get) and [`Scene::get_mut`](crate::Scene::get_mut).
#[derive(Clone, Debug, PartialEq)]
pub struct NodeProps {
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

impl Default for NodeProps {
    fn default() -> Self {
        NodeProps::CONTAINER
    }
}

impl NodeProps {
    /// An empty, visible, untinted container.
    pub const CONTAINER: NodeProps = NodeProps {
        alpha: 1.0,
        tint: Color::WHITE,
        visible: true,
        render_group: false,
        blend_mode: BlendMode::Inherit,
        kind: NodeKind::Container,
    };

    /// The sprite, if this node is one.
    pub fn as_sprite_mut(&mut self) -> Option<&mut Sprite> {
        match &mut self.kind {
            NodeKind::Sprite(s) => Some(s),
            _ => None,
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

    /// The text, if this node shows one.
    #[cfg(feature = "text")]
    pub fn as_text(&self) -> Option<&crate::Text> {
        match &self.kind {
            NodeKind::Text(t) => Some(t),
            _ => None,
        }
    }

    /// The text, if this node shows one, to change.
    #[cfg(feature = "text")]
    pub fn as_text_mut(&mut self) -> Option<&mut crate::Text> {
        match &mut self.kind {
            NodeKind::Text(t) => Some(t),
            _ => None,
        }
    }

    /// The mesh, if this node is one.
    pub fn mesh(&self) -> Option<&crate::Mesh> {
        match &self.kind {
            NodeKind::Mesh(m) => Some(m),
            _ => None,
        }
    }

    /// The mesh for changing, if this node is one (its geometry through
    /// [`Mesh::geometry_mut`](crate::Mesh::geometry_mut), copied first if it is shared).
    pub fn mesh_mut(&mut self) -> Option<&mut crate::Mesh> {
        match &mut self.kind {
            NodeKind::Mesh(m) => Some(m),
            _ => None,
        }
    }

    /// The render layer, if this node is one.
    pub fn as_layer(&self) -> Option<&crate::RenderLayer> {
        match &self.kind {
            NodeKind::RenderLayer(l) => Some(l),
            _ => None,
        }
    }

    /// The render layer to change (its sorting), if this node is one.
    pub fn as_layer_mut(&mut self) -> Option<&mut crate::RenderLayer> {
        match &mut self.kind {
            NodeKind::RenderLayer(l) => Some(l),
            _ => None,
        }
    }

    /// The particle container, if this node is one.
    pub fn as_particles(&self) -> Option<&crate::ParticleContainer> {
        match &self.kind {
            NodeKind::Particles(p) => Some(p),
            _ => None,
        }
    }

    /// The particle container to change, if this node is one.
    pub fn as_particles_mut(&mut self) -> Option<&mut crate::ParticleContainer> {
        match &mut self.kind {
            NodeKind::Particles(p) => Some(p),
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
}

/// A node to add to a [`Scene`](crate::Scene): its transform and its other properties, which the scene keeps
/// apart (read and change them through [`Scene::transform_mut`](crate::Scene::transform_mut) and
/// [`Scene::get_mut`](crate::Scene::get_mut)). Built with the constructors and builder methods below:
///
/// ```
/// use stage2d::{BlendMode, Color, Cursor, EventMode, Node, Renderer, Scene};
/// # fn main() -> stage2d::Result<()> {
/// let renderer = Renderer::new_headless(Default::default())?;
/// let white = renderer.white_texture();
/// let mut scene = Scene::new();
/// let hud = scene.add(scene.root(), Node::container().at(10.0, 10.0))?;
/// let button = scene.add(
///     hud,
///     Node::sprite(white)
///         .sized(120.0, 32.0)
///         .anchor(0.5, 0.5)
///         .at(60.0, 16.0)
///         .tinted(Color::hex(0x3498db))
///         .with_alpha(0.9)
///         .blended(BlendMode::Normal)
///         .with_event_mode(EventMode::Static)
///         .with_cursor(Cursor::Pointer),
/// )?;
/// assert_eq!(scene.cursor(button), Some(Cursor::Pointer));
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Node {
    /// Where the node sits in its parent.
    pub transform: Transform,
    /// Colour, visibility, blending and what the node draws.
    pub props: NodeProps,
    /// Event mode, cursor, hit area and z-index set in the builder, applied when the node is added.
    pub(crate) interaction: Option<Box<Interaction>>,
}

/// What a [`Node`] builder sets that the scene keeps beside the node (see [`Scene::set_event_mode`] and the
/// others), applied by [`Scene::add`] and [`Scene::add_detached`].
///
/// [`Scene::set_event_mode`]: crate::Scene::set_event_mode
/// [`Scene::add`]: crate::Scene::add
/// [`Scene::add_detached`]: crate::Scene::add_detached
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Interaction {
    pub event_mode: Option<crate::EventMode>,
    pub cursor: Option<crate::Cursor>,
    pub hit_area: Option<crate::HitArea>,
    pub z_index: i32,
}

impl Node {
    /// An empty container.
    pub fn container() -> Node {
        Node::of(NodeKind::Container)
    }

    /// A node drawing `kind`, with the identity transform and default properties.
    pub fn of(kind: NodeKind) -> Node {
        Node {
            transform: Transform::IDENTITY,
            props: NodeProps {
                kind,
                ..NodeProps::CONTAINER
            },
            interaction: None,
        }
    }

    /// A node with `transform` and `props` (for a node copied from another scene: `scene.get(id)` and
    /// `scene.transform(id)`).
    pub fn from_parts(transform: Transform, props: NodeProps) -> Node {
        Node {
            transform,
            props,
            interaction: None,
        }
    }

    /// A sprite node showing `texture`, anchored at the texture's [default anchor](Texture::default_anchor) (a
    /// sheet frame's anchor; top-left otherwise), as PixiJS's sprites are.
    pub fn sprite(texture: Texture) -> Node {
        Node::of(NodeKind::Sprite(Sprite::new(texture)))
    }

    /// A nine-slice sprite node (see [`NineSliceSprite`](crate::NineSliceSprite)).
    pub fn nine_slice(sprite: crate::NineSliceSprite) -> Node {
        Node::of(NodeKind::NineSlice(Box::new(sprite)))
    }

    /// A tiling sprite node (see [`TilingSprite`](crate::TilingSprite)).
    pub fn tiling(sprite: crate::TilingSprite) -> Node {
        Node::of(NodeKind::Tiling(Box::new(sprite)))
    }

    /// A mesh node: `geometry` (pass an `Arc` to share one between nodes) showing `texture` (PixiJS's `Mesh`;
    /// [`MeshGeometry::plane`](crate::MeshGeometry::plane), [`rope`](crate::MeshGeometry::rope) and
    /// [`perspective`](crate::MeshGeometry::perspective) build PixiJS's `MeshPlane`, `MeshRope` and
    /// `PerspectiveMesh`).
    pub fn mesh(geometry: impl Into<Arc<crate::MeshGeometry>>, texture: crate::Texture) -> Node {
        Node::of(NodeKind::Mesh(Box::new(crate::Mesh::new(
            geometry, texture,
        ))))
    }

    /// A mesh node of a [`Mesh`](crate::Mesh) (one with a custom shader:
    /// [`Mesh::with_shader`](crate::Mesh::with_shader)).
    pub fn mesh_of(mesh: crate::Mesh) -> Node {
        Node::of(NodeKind::Mesh(Box::new(mesh)))
    }

    /// A node drawing the shapes of `context` (pass an `Arc` to share one context between nodes).
    pub fn graphics(context: impl Into<Arc<GraphicsContext>>) -> Node {
        Node::of(NodeKind::Graphics(context.into()))
    }

    /// A particle container node (see [`ParticleContainer`](crate::ParticleContainer)).
    pub fn particles(container: crate::ParticleContainer) -> Node {
        Node::of(NodeKind::Particles(Box::new(container)))
    }

    /// A render layer node (PixiJS's `RenderLayer`; see [`Scene::attach_to_layer`](crate::Scene::attach_to_layer)).
    pub fn render_layer() -> Node {
        Node::of(NodeKind::RenderLayer(crate::RenderLayer::default()))
    }

    /// A node showing `text`.
    #[cfg(feature = "text")]
    pub fn text(text: crate::Text) -> Node {
        Node::of(NodeKind::Text(Box::new(text)))
    }

    /// Sets the position (builder style).
    pub fn at(mut self, x: f32, y: f32) -> Node {
        self.transform.position = Vec2::new(x, y);
        self
    }

    /// Sets the scale on both axes (builder style).
    pub fn scaled(mut self, scale: f32) -> Node {
        self.transform.scale = Vec2::splat(scale);
        self
    }

    /// Sets the rotation in radians (builder style).
    pub fn rotated(mut self, radians: f32) -> Node {
        self.transform.rotation = radians;
        self
    }

    /// Sets the pivot (builder style).
    pub fn pivoted(mut self, x: f32, y: f32) -> Node {
        self.transform.pivot = Vec2::new(x, y);
        self
    }

    /// Sets the whole transform (builder style).
    pub fn with_transform(mut self, transform: Transform) -> Node {
        self.transform = transform;
        self
    }

    /// Sets which point of what the node draws sits at its origin, `(0, 0)` top-left to `(1, 1)` bottom-right
    /// (builder style; PixiJS's `anchor`): on sprites, tiling and nine-slice sprites, and text. A container or a
    /// shape has no anchor: there it is ignored with a logged warning (PixiJS's containers have none either;
    /// use [`Node::pivoted`]).
    pub fn anchor(mut self, x: f32, y: f32) -> Node {
        let a = Vec2::new(x, y);
        match &mut self.props.kind {
            NodeKind::Sprite(s) => s.anchor = a,
            NodeKind::Tiling(t) => t.anchor = a,
            NodeKind::NineSlice(n) => n.anchor = a,
            #[cfg(feature = "text")]
            NodeKind::Text(t) => t.anchor = a,
            other => log::warn!(
                "Node::anchor on a {} node does nothing: it has no anchor",
                other.name()
            ),
        }
        self
    }

    /// Sets the size in pixels of what the node draws, before its scale (builder style; PixiJS's `width` and
    /// `height`): a sprite's, tiling sprite's or nine-slice sprite's size. Text has no size of its own, so, as in
    /// PixiJS, its scale is set so that its laid-out block is `width x height` (a later
    /// [`Node::scaled`] replaces it). On a container or a shape it is ignored with a logged warning.
    pub fn sized(mut self, width: f32, height: f32) -> Node {
        let size = Vec2::new(width, height);
        match &mut self.props.kind {
            NodeKind::Sprite(s) => s.size = Some(size),
            NodeKind::Tiling(t) => t.size = size,
            NodeKind::NineSlice(n) => n.size = size,
            #[cfg(feature = "text")]
            NodeKind::Text(t) => {
                let [w, h] = t.layout().size;
                if w > 0.0 && h > 0.0 {
                    self.transform.scale = size / Vec2::new(w, h);
                }
            }
            other => log::warn!(
                "Node::sized on a {} node does nothing: it has no size",
                other.name()
            ),
        }
        self
    }

    /// Makes the node take part in hit testing and pointer events as `mode` says (builder style; see
    /// [`Scene::set_event_mode`](crate::Scene::set_event_mode)).
    pub fn with_event_mode(mut self, mode: crate::EventMode) -> Node {
        self.interaction.get_or_insert_default().event_mode = Some(mode);
        self
    }

    /// Shows `cursor` while a pointer is over the node (builder style; see
    /// [`Scene::set_cursor`](crate::Scene::set_cursor)).
    pub fn with_cursor(mut self, cursor: crate::Cursor) -> Node {
        self.interaction.get_or_insert_default().cursor = Some(cursor);
        self
    }

    /// Hit-tests the node against `area` instead of what it draws (builder style; see
    /// [`Scene::set_hit_area`](crate::Scene::set_hit_area)). An invalid area makes [`Scene::add`](crate::Scene::add)
    /// fail with [`Error::InvalidHitArea`](crate::Error::InvalidHitArea).
    pub fn with_hit_area(mut self, area: crate::HitArea) -> Node {
        self.interaction.get_or_insert_default().hit_area = Some(area);
        self
    }

    /// Sets the z-index (builder style; see [`Scene::set_z_index`](crate::Scene::set_z_index)): a non-zero one
    /// turns on sorting for the container the node joins.
    pub fn with_z_index(mut self, z_index: i32) -> Node {
        self.interaction.get_or_insert_default().z_index = z_index;
        self
    }

    /// Sets the tint (builder style).
    pub fn tinted(mut self, tint: Color) -> Node {
        self.props.tint = tint;
        self
    }

    /// Sets the alpha (builder style).
    pub fn with_alpha(mut self, alpha: f32) -> Node {
        self.props.alpha = alpha;
        self
    }

    /// Hides or shows the node (builder style).
    pub fn with_visible(mut self, visible: bool) -> Node {
        self.props.visible = visible;
        self
    }

    /// Makes the node a render group (builder style; see [`NodeProps::render_group`]).
    pub fn as_render_group(mut self) -> Node {
        self.props.render_group = true;
        self
    }

    /// Sets the blend mode (builder style).
    pub fn blended(mut self, mode: BlendMode) -> Node {
        self.props.blend_mode = mode;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::f32::consts::FRAC_PI_2;

    #[test]
    fn transform_order_is_translate_rotate_scale_unpivot() {
        let n = Transform {
            position: Vec2::new(100.0, 50.0),
            scale: Vec2::new(2.0, 3.0),
            rotation: FRAC_PI_2,
            pivot: Vec2::new(10.0, 0.0),
        };
        let m = n.matrix();
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

    fn close(a: Vec2, b: Vec2, scale: f32) -> bool {
        (a - b).abs().max_element() <= 1e-5 * scale
    }

    proptest! {
        /// The fused placement leaf sprites use is the matrix product's, up to rounding: unrotated and rotated
        /// nodes, turned frames, pivots, mirrored scales, parents that rotate and shear.
        #[test]
        fn transform_place_matches_the_matrix_product(
            parent in (prop::array::uniform4(-3.0f32..3.0), prop::array::uniform2(-500.0f32..500.0)),
            pos in prop::array::uniform2(-1000.0f32..1000.0),
            scale in prop::array::uniform2(-4.0f32..4.0),
            pivot in prop::array::uniform2(-100.0f32..100.0),
            rotation in prop_oneof![Just(0.0f32), -7.0f32..7.0],
            origin in prop::array::uniform2(-64.0f32..64.0),
            size in prop::array::uniform2(0.0f32..128.0),
            rotated in any::<bool>(),
        ) {
            let (m, t) = parent;
            let parent = Affine2::from_cols_array(&[m[0], m[1], m[2], m[3], t[0], t[1]]);
            let transform = Transform {
                position: pos.into(),
                scale: scale.into(),
                pivot: pivot.into(),
                rotation,
            };
            let local = LocalQuad { origin: origin.into(), size: size.into(), rotated };
            let want = local.place(&(parent * transform.matrix()));
            let got = transform.place(&local, &parent);
            // Rounding grows with the magnitudes multiplied: compare relative to the largest of them.
            let mag = 1.0 + 3.0 * 2.0 * (500.0 + 1000.0 + 4.0 * (100.0 + 64.0 + 128.0));
            prop_assert!(close(got.0, want.0, mag), "origin {:?} against {:?}", got.0, want.0);
            prop_assert!(close(got.1, want.1, mag), "x edge {:?} against {:?}", got.1, want.1);
            prop_assert!(close(got.2, want.2, mag), "y edge {:?} against {:?}", got.2, want.2);
        }
    }
}
