//! Collect: walks the scene in tree order, resolves world transforms, alpha, tint and blend modes, and feeds each
//! drawable to the [`Batcher`]. Pure CPU work: no GPU calls.
//!
//! Bad input is skipped, never fatal: a node with a non-finite transform, alpha, tint or size, or a sprite whose
//! texture was destroyed, is left out with its subtree, counted in [`FrameStats::nodes_skipped`], and the first such
//! node of a frame is logged with `log::warn!`. Everything else still draws.

use crate::batcher::Batcher;
use crate::graphics::TessellationCache;
use crate::pipeline::Topology;
use crate::scene::Scene;
use crate::stats::FrameStats;
use crate::{BlendMode, Color, NodeId, NodeKind, TextureId};
use glam::{Affine2, Vec2};

/// What a node passes down to its children.
#[derive(Clone, Copy, Debug)]
struct Inherited {
    /// Node space to clip space.
    matrix: Affine2,
    /// Tint with alpha multiplied in.
    color: Color,
    blend: BlendMode,
}

#[derive(Clone, Copy, Debug)]
struct Frame {
    node: NodeId,
    cursor: usize,
    inherited: Inherited,
}

/// The projection from pixels (origin top-left, y down) of a `width x height` target to clip space.
pub fn pixel_to_clip(width: u32, height: u32) -> Affine2 {
    Affine2::from_cols(
        Vec2::new(2.0 / width as f32, 0.0),
        Vec2::new(0.0, -2.0 / height as f32),
        Vec2::new(-1.0, 1.0),
    )
}

/// Where a walk draws to.
#[derive(Clone, Copy, Debug)]
pub struct View {
    /// Pixels to clip space.
    pub to_clip: Affine2,
    /// Half the target size in pixels (clip-space lengths times this are pixels).
    pub half_size: Vec2,
    /// The renderer's 1x1 white texture, used by solid shapes.
    pub white: TextureId,
}

impl View {
    /// The view of a `width x height` target.
    pub fn new(width: u32, height: u32, white: TextureId) -> View {
        View {
            to_clip: pixel_to_clip(width, height),
            half_size: Vec2::new(width as f32, height as f32) / 2.0,
            white,
        }
    }
}

/// Walks a scene into a batcher; keeps its stack and the tessellation cache between frames so steady state
/// allocates nothing.
#[derive(Debug, Default)]
pub struct Collector {
    stack: Vec<Frame>,
    /// Meshes of graphics contexts.
    pub tessellation: TessellationCache,
}

impl Collector {
    /// Walks `scene` from its root into `view`; `is_live` says whether a texture still exists.
    pub fn collect(
        &mut self,
        scene: &Scene,
        view: View,
        batcher: &mut Batcher,
        is_live: impl Fn(TextureId) -> bool,
        stats: &mut FrameStats,
    ) {
        let root = Inherited {
            matrix: view.to_clip,
            color: Color::WHITE,
            blend: BlendMode::Normal,
        };
        self.stack.clear();
        if let Some((inh, _)) = visit(
            scene,
            scene.root(),
            root,
            &mut self.tessellation,
            &view,
            batcher,
            &is_live,
            stats,
        ) {
            self.stack.push(Frame {
                node: scene.root(),
                cursor: 0,
                inherited: inh,
            });
        }
        while let Some(top) = self.stack.last_mut() {
            let kids = &scene
                .slot(top.node)
                .expect("parents outlive the walk")
                .children;
            let inh = top.inherited;
            let start = top.cursor;
            // Leaves are drawn in this inner loop; only a child with children of its own pushes a frame.
            let mut descend = None;
            for (i, &child) in kids.iter().enumerate().skip(start) {
                if let Some((child_inh, has_children)) = visit(
                    scene,
                    child,
                    inh,
                    &mut self.tessellation,
                    &view,
                    batcher,
                    &is_live,
                    stats,
                ) {
                    if has_children {
                        descend = Some((i + 1, child, child_inh));
                        break;
                    }
                }
            }
            match descend {
                Some((next, child, child_inh)) => {
                    top.cursor = next;
                    self.stack.push(Frame {
                        node: child,
                        cursor: 0,
                        inherited: child_inh,
                    });
                }
                None => {
                    self.stack.pop();
                }
            }
        }
    }
}

fn skip(stats: &mut FrameStats, id: NodeId, why: &str) -> Option<(Inherited, bool)> {
    if stats.nodes_skipped == 0 {
        log::warn!("skipping node {id:?} and its subtree: {why} (further skips this frame are only counted)");
    }
    stats.nodes_skipped += 1;
    None
}

/// Draws one node; returns what its children inherit and whether it has any, or `None` if the subtree is not
/// drawn.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn visit(
    scene: &Scene,
    id: NodeId,
    parent: Inherited,
    tessellation: &mut TessellationCache,
    view: &View,
    batcher: &mut Batcher,
    is_live: &impl Fn(TextureId) -> bool,
    stats: &mut FrameStats,
) -> Option<(Inherited, bool)> {
    let slot = scene.slot(id)?;
    let node = slot.node.as_ref()?;
    if !node.visible {
        return None;
    }
    let matrix = parent.matrix * node.local_transform();
    if !(matrix.matrix2.is_finite() && matrix.translation.is_finite()) {
        return skip(stats, id, "non-finite transform");
    }
    let mut own = node.tint;
    own.a *= node.alpha;
    if !own.is_finite() {
        return skip(stats, id, "non-finite alpha or tint");
    }
    let inh = Inherited {
        matrix,
        color: parent.color * own,
        blend: node.blend_mode.resolve(parent.blend),
    };
    match &node.kind {
        NodeKind::Container => {}
        NodeKind::Sprite(sprite) => {
            let id_tex = sprite.texture.id();
            if !is_live(id_tex) {
                return skip(stats, id, "its texture was destroyed");
            }
            let size = sprite.size_in_pixels();
            if !(size.is_finite() && sprite.anchor.is_finite()) {
                return skip(stats, id, "non-finite sprite size or anchor");
            }
            let p0 = matrix.transform_point2(-sprite.anchor * size);
            let dx = matrix.matrix2.x_axis * size.x;
            let dy = matrix.matrix2.y_axis * size.y;
            let p1 = p0 + dx;
            let p2 = p1 + dy;
            let p3 = p0 + dy;
            batcher.push_quad(
                id_tex,
                [p0.into(), p1.into(), p2.into(), p3.into()],
                sprite.texture.uvs(),
                inh.color.to_rgba8_u32(),
                inh.blend,
            );
            stats.sprites += 1;
        }
        NodeKind::Graphics(ctx) => {
            let scale = (matrix.matrix2.x_axis * view.half_size)
                .length()
                .max((matrix.matrix2.y_axis * view.half_size).length());
            let mesh = tessellation.get(ctx, scale);
            for part in &mesh.parts {
                let (tex, uv) = match part.texture {
                    Some(t) if is_live(t.id()) => (t.id(), t.uvs()),
                    Some(_) => {
                        skip(stats, id, "a fill texture was destroyed");
                        continue;
                    }
                    None => (view.white, [0.0, 0.0, 1.0, 1.0]),
                };
                let (uv0, uvd) = (
                    Vec2::new(uv[0], uv[1]),
                    Vec2::new(uv[2] - uv[0], uv[3] - uv[1]),
                );
                let r = part.vertices.start as usize..part.vertices.end as usize;
                let verts = mesh.positions[r.clone()]
                    .iter()
                    .zip(&mesh.local_uv[r])
                    .map(|(p, l)| (matrix.transform_point2(*p).into(), (uv0 + *l * uvd).into()));
                let base = part.vertices.start;
                let idx = &mesh.indices[part.indices.start as usize..part.indices.end as usize];
                batcher.push_mesh_offset(
                    tex,
                    verts,
                    idx,
                    base,
                    (inh.color * part.color).to_rgba8_u32(),
                    inh.blend,
                    Topology::TriangleList,
                );
            }
            stats.shapes += 1;
        }
    }
    Some((inh, !slot.children.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Node, Texture};

    fn tex(i: u32) -> Texture {
        Texture::new(
            TextureId {
                index: i,
                generation: 0,
            },
            10,
            10,
        )
    }

    fn run(scene: &Scene) -> (Batcher, FrameStats) {
        let mut b = Batcher::new(16);
        let mut s = FrameStats::default();
        b.begin();
        let view = View {
            to_clip: Affine2::IDENTITY,
            half_size: Vec2::ONE,
            white: TextureId {
                index: 99,
                generation: 0,
            },
        };
        Collector::default().collect(scene, view, &mut b, |t| t.index < 100, &mut s);
        b.finish();
        (b, s)
    }

    #[test]
    fn children_inherit_transform_alpha_tint_and_blend() {
        let mut scene = Scene::new();
        let group = scene
            .add(
                scene.root(),
                Node::container()
                    .at(100.0, 0.0)
                    .with_alpha(0.5)
                    .tinted(Color::rgb(1.0, 0.0, 1.0))
                    .blended(BlendMode::Add),
            )
            .unwrap();
        scene.get_mut(group).unwrap().scale = Vec2::splat(2.0);
        scene.add(group, Node::sprite(tex(0)).at(5.0, 0.0)).unwrap();
        let (b, s) = run(&scene);
        assert_eq!(s.sprites, 1);
        let v = b.vertices.as_slice();
        assert_eq!(v[0].position, [110.0, 0.0]);
        assert_eq!(v[2].position, [130.0, 20.0]);
        // tint (1,0,1) alpha 0.5 -> 0x80ff00ff
        assert_eq!(v[0].color, 0x80ff_00ff);
        assert_eq!(b.batches()[0].blend, BlendMode::Add);
    }

    #[test]
    fn draw_order_is_tree_order() {
        let mut scene = Scene::new();
        let r = scene.root();
        let a = scene.add(r, Node::sprite(tex(1))).unwrap();
        scene.add(a, Node::sprite(tex(2))).unwrap();
        scene.add(r, Node::sprite(tex(3))).unwrap();
        let (b, _) = run(&scene);
        let order: Vec<_> = b.batches()[0].textures.ids().map(|t| t.index).collect();
        assert_eq!(order, vec![1, 2, 3]);
    }

    #[test]
    fn anchor_and_size() {
        let mut scene = Scene::new();
        scene
            .add(
                scene.root(),
                Node::sprite(tex(0))
                    .anchor(0.5, 1.0)
                    .sized(20.0, 40.0)
                    .at(50.0, 50.0),
            )
            .unwrap();
        let (b, _) = run(&scene);
        let v = b.vertices.as_slice();
        assert_eq!(v[0].position, [40.0, 10.0]);
        assert_eq!(v[2].position, [60.0, 50.0]);
    }

    #[test]
    fn nan_and_dead_textures_skip_only_their_subtree() {
        let mut scene = Scene::new();
        let r = scene.root();
        let bad = scene.add(r, Node::container().at(f32::NAN, 0.0)).unwrap();
        scene.add(bad, Node::sprite(tex(0))).unwrap();
        scene
            .add(r, Node::sprite(tex(0)).with_alpha(f32::INFINITY))
            .unwrap();
        scene.add(r, Node::sprite(tex(500))).unwrap();
        scene
            .add(r, Node::sprite(tex(1)).sized(f32::NAN, 1.0))
            .unwrap();
        scene.add(r, Node::sprite(tex(2))).unwrap();
        let (b, s) = run(&scene);
        assert_eq!(s.nodes_skipped, 4);
        assert_eq!(s.sprites, 1);
        assert_eq!(b.batches()[0].textures.ids().next().unwrap().index, 2);
    }

    #[test]
    fn invisible_subtrees_are_not_drawn() {
        let mut scene = Scene::new();
        let g = scene.add(scene.root(), Node::container()).unwrap();
        scene.get_mut(g).unwrap().visible = false;
        scene.add(g, Node::sprite(tex(0))).unwrap();
        let (_, s) = run(&scene);
        assert_eq!(s.sprites, 0);
        assert_eq!(s.nodes_skipped, 0);
    }

    #[test]
    fn projection_maps_corners() {
        let p = pixel_to_clip(800, 600);
        assert_eq!(p.transform_point2(Vec2::ZERO), Vec2::new(-1.0, 1.0));
        assert_eq!(
            p.transform_point2(Vec2::new(800.0, 600.0)),
            Vec2::new(1.0, -1.0)
        );
    }
}
