//! Visiting one node: its world transform, colour and blend mode, and what it draws (a sprite's quad, a shape's
//! mesh, a text's glyphs) handed to the batcher, with the checks that skip bad input. Shared by the walk
//! (`mod.rs`), render-group recordings (`group.rs`) and the quads computed ahead (`parallel.rs`).

use crate::base::stats::{FrameStats, SkipList};
use crate::frame::batcher::Batcher;
use crate::gpu::pipeline::Topology;
use crate::graphics::TessellationCache;
use crate::scene::cull::Aabb;
use crate::scene::sprite::LocalQuad;
use crate::scene::Scene;
#[cfg(feature = "text")]
use crate::text::{GlyphKey, TextSystem};
use crate::{BlendMode, Color, NodeId, NodeKind, TextureId};
use glam::{Affine2, Vec2};

/// What a node passes down to its children.
#[derive(Clone, Copy, Debug)]
pub(super) struct Inherited {
    /// Node space to clip space.
    pub(super) matrix: Affine2,
    /// Tint with alpha multiplied in.
    pub(super) color: Color,
    /// `color` packed for vertices (computed once per node whose colour differs from its parent's).
    pub(super) packed: u32,
    pub(super) blend: BlendMode,
}

impl Inherited {
    /// What a walk's start passes down before the view is applied (a placeholder).
    pub(super) const ROOT: Inherited = Inherited {
        matrix: Affine2::IDENTITY,
        color: Color::WHITE,
        packed: u32::MAX,
        blend: BlendMode::Normal,
    };
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
#[derive(Clone, Copy, Debug, PartialEq)]
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

    /// The view of a target of `width x height` physical pixels showing logical pixels `scale` physical pixels
    /// wide (a non-finite or non-positive scale counts as 1).
    pub fn scaled(width: u32, height: u32, scale: f32, white: TextureId) -> View {
        let s = if scale.is_finite() && scale > 0.0 {
            scale
        } else {
            1.0
        };
        let physical = Vec2::new(width as f32, height as f32);
        let logical = physical / s;
        View {
            to_clip: Affine2::from_cols(
                Vec2::new(2.0 / logical.x, 0.0),
                Vec2::new(0.0, -2.0 / logical.y),
                Vec2::new(-1.0, 1.0),
            ),
            half_size: physical / 2.0,
            white,
        }
    }

    /// A pixel position in clip space.
    #[cfg(feature = "text")]
    pub(super) fn clip_of(&self, p: Vec2) -> Vec2 {
        Vec2::new(p.x / self.half_size.x - 1.0, 1.0 - p.y / self.half_size.y)
    }

    /// A target pixel position in clip space.
    pub(super) fn clip_of_px(&self, p: Vec2) -> Vec2 {
        Vec2::new(p.x / self.half_size.x - 1.0, 1.0 - p.y / self.half_size.y)
    }

    /// Target pixels to clip space.
    pub(super) fn px_to_clip(&self) -> Affine2 {
        Affine2::from_cols(
            Vec2::new(1.0 / self.half_size.x, 0.0),
            Vec2::new(0.0, -1.0 / self.half_size.y),
            Vec2::new(-1.0, 1.0),
        )
    }

    pub(super) fn size(&self) -> Vec2 {
        self.half_size * 2.0
    }

    /// A clip-space point in pixels.
    pub(super) fn pixels_of(&self, p: Vec2) -> Vec2 {
        Vec2::new(
            (p.x + 1.0) * self.half_size.x,
            (1.0 - p.y) * self.half_size.y,
        )
    }
}

/// What the walk keeps between frames: tessellated meshes, text layouts and the glyph atlas.
#[derive(Debug, Default)]
pub struct Caches {
    /// Meshes of graphics contexts.
    pub tessellation: TessellationCache,
    /// Text layouts and the glyph atlas.
    #[cfg(feature = "text")]
    pub(crate) text: TextSystem,
    /// The texture of each glyph-atlas page (reserved ahead of the walk).
    #[cfg(feature = "text")]
    pub(crate) pages: crate::gpu::glyph_pages::GlyphPages,
    /// This walk's custom-shader meshes.
    pub(crate) custom_meshes: crate::gpu::meshes::CustomMeshes,
}

pub(super) struct Ctx<'a, F: Fn(TextureId) -> bool> {
    pub(super) scene: &'a Scene,
    pub(super) view: View,
    pub(super) batcher: &'a mut Batcher,
    pub(super) is_live: F,
    pub(super) stats: &'a mut FrameStats,
    /// The first nodes skipped, with their reasons.
    pub(super) skips: &'a mut SkipList,
    pub(super) forbidden: Option<TextureId>,
    pub(super) feedback_loop: bool,
    /// The last texture found live (sprites in a row mostly share one).
    pub(super) live: Option<TextureId>,
    /// Bounds of what was drawn since the innermost measured subtree began (clip space), while `track` is set.
    pub(super) acc: Aabb,
    pub(super) track: bool,
    /// Whether something since the innermost measured subtree began was left out or drawn provisionally for
    /// reasons of this frame or target (a mask empty here, the target's own texture, a shape still on the
    /// tessellation worker): bounds and recordings made now must not be kept.
    pub(super) incomplete: bool,
    /// Culling margin in clip units (a few pixels: shapes flatten differently at other scales).
    pub(super) pad: Vec2,
    /// The scene epoch this walk sees (cache stamps).
    pub(super) epoch: u64,
    /// Whether the walk drew something that depends on this frame (a shape still being tessellated, a
    /// subtree left out for this frame's reasons): a later frame cannot keep it (see `retain/`).
    pub(super) volatile: bool,
}

pub(super) fn skip(
    stats: &mut FrameStats,
    skips: &mut SkipList,
    id: NodeId,
    why: &'static str,
) -> Option<(Inherited, bool)> {
    skips.push(id, why);
    if stats.nodes_skipped == 0 {
        log::warn!("skipping node {id:?} and its subtree: {why} (further skips this frame are only counted)");
    }
    stats.nodes_skipped += 1;
    None
}

/// Whether every component of `a`, `b` and `c` is finite: `x * 0` is 0 for finite `x` and NaN otherwise, and NaN
/// survives the sum (one vector sum instead of six branches).
#[inline(always)]
pub(super) fn all_finite(a: Vec2, b: Vec2, c: Vec2) -> bool {
    let z = a * 0.0 + b * 0.0 + c * 0.0;
    z.x + z.y == 0.0
}

/// A sprite that has no children and no mask, the bulk of most frames: [`visit_slot`] without working out what
/// children would inherit. Returns the rectangle and blend mode it was drawn with, if it was drawn.
#[inline(always)]
pub(super) fn visit_leaf_sprite<F: Fn(TextureId) -> bool>(
    cx: &mut Ctx<'_, F>,
    id: NodeId,
    transform: &crate::Transform,
    node: &crate::NodeProps,
    sprite: &crate::Sprite,
    parent: &Inherited,
) -> Option<(LocalQuad, BlendMode)> {
    if !node.visible {
        return None;
    }
    let Some((_, packed)) = node_color(node, parent) else {
        skip(cx.stats, cx.skips, id, "non-finite alpha or tint");
        return None;
    };
    let blend = node.blend_mode.resolve(parent.blend);
    // A non-finite transform shows in the quad's corners, which `push_sprite` checks.
    let place = |l: &LocalQuad| transform.place(l, &parent.matrix);
    let local = push_sprite(cx, id, sprite, place, packed, blend, false)?;
    Some((local, blend))
}

/// Draws children whose quads were computed ahead (`ids[i]` drew `quads[i]`, showing `meta[i]`): the checks of
/// [`push_sprite`] against renderer state, then the quads in bulk.
pub(super) fn push_ready<F: Fn(TextureId) -> bool>(
    cx: &mut Ctx<'_, F>,
    ids: &[NodeId],
    quads: &[crate::frame::batcher::Quad],
    meta: &[crate::frame::batcher::QuadMeta],
) {
    let flush = |cx: &mut Ctx<'_, F>, quads: &[crate::frame::batcher::Quad], meta: &[_]| {
        if quads.is_empty() {
            return;
        }
        if cx.track {
            for q in quads.iter() {
                cx.acc
                    .add_quad(q.origin.into(), q.x_edge.into(), q.y_edge.into());
            }
        }
        cx.batcher.push_prepared(quads, meta);
        cx.stats.sprites += quads.len() as u64;
    };
    let mut from = 0;
    for k in 0..ids.len() {
        if !texture_usable(cx, ids[k], meta[k].texture) {
            flush(cx, &quads[from..k], &meta[from..k]);
            from = k + 1;
        }
    }
    flush(cx, &quads[from..], &meta[from..]);
}

/// The colour `node` draws with and passes down (its tint with its alpha, times its parent's) and that colour
/// packed for vertices; `None` if its tint or alpha is not finite.
#[inline(always)]
pub(super) fn node_color(node: &crate::NodeProps, parent: &Inherited) -> Option<(Color, u32)> {
    let mut own = node.tint;
    own.a *= node.alpha;
    if own == Color::WHITE {
        // Untinted and opaque (most nodes): the parent's colour as it is.
        Some((parent.color, parent.packed))
    } else if own.is_finite() {
        let color = parent.color * own;
        Some((color, color.to_rgba8_u32()))
    } else {
        None
    }
}

/// Pushes the quad of `sprite` drawn through `matrix` and returns its rectangle before the transform; `None` if it
/// was skipped (a destroyed texture, the texture being drawn into, or non-finite corners from the transform, size
/// or anchor).
#[inline(always)]
pub(super) fn push_sprite<F: Fn(TextureId) -> bool>(
    cx: &mut Ctx<'_, F>,
    id: NodeId,
    sprite: &crate::Sprite,
    place: impl FnOnce(&LocalQuad) -> (Vec2, Vec2, Vec2),
    packed: u32,
    blend: BlendMode,
    mask: bool,
) -> Option<LocalQuad> {
    let id_tex = sprite.texture.id();
    if !texture_usable(cx, id, id_tex) {
        return None;
    }
    let local = sprite.local_quad();
    let (p0, dx, dy) = place(&local);
    if !all_finite(p0, dx, dy) {
        skip(
            cx.stats,
            cx.skips,
            id,
            "non-finite transform, sprite size or anchor",
        );
        return None;
    }
    if cx.track {
        cx.acc.add_quad(p0, dx, dy);
    }
    cx.batcher.push_quad(
        id_tex,
        [p0.into(), dx.into(), dy.into()],
        sprite.texture.uvs(),
        packed,
        blend,
    );
    if !mask {
        cx.stats.sprites += 1;
    }
    Some(local)
}

/// The scale glyphs of a `size`-pixel text are rasterised at when one of its pixels covers `world` target pixels:
/// `world` rounded up to a quarter octave (1, 1.19, 1.41, 1.68, 2, ...), so a zoom from 1 to 2 makes five sizes,
/// within 1/8 to 8, and glyphs at most 256 pixels (larger text keeps its own size). 1 for a non-finite scale.
#[cfg(feature = "text")]
pub(crate) fn raster_scale(world: f32, size: f32) -> f32 {
    if !(world.is_finite() && world > 0.0) {
        return 1.0;
    }
    let steps = (world.log2() * 4.0 - 1e-3).ceil().clamp(-12.0, 12.0);
    let r = (steps / 4.0).exp2();
    let cap = (256.0 / size).max(1.0);
    r.min(cap)
}

/// Why a texture that is not live cannot be drawn: another renderer made it (the renderer's `white` texture is
/// this renderer's), or it was destroyed.
fn dead_texture(tex: TextureId, white: TextureId) -> &'static str {
    match tex.same_owner(white) {
        true => "its texture was destroyed",
        false => "its texture belongs to another renderer; load or create it with this one",
    }
}

/// Whether a node's texture may be drawn (not destroyed, not the target being drawn); counted and logged if
/// not. `cx.live` remembers the last texture found usable, so a run of sprites of one texture asks once.
#[inline(always)]
fn texture_usable<F: Fn(TextureId) -> bool>(
    cx: &mut Ctx<'_, F>,
    id: NodeId,
    tex: TextureId,
) -> bool {
    if cx.live == Some(tex) {
        return true;
    }
    if Some(tex) == cx.forbidden {
        cx.feedback_loop = true;
        cx.incomplete = true;
        cx.volatile = true;
        skip(
            cx.stats,
            cx.skips,
            id,
            "its texture is the target being drawn",
        );
        return false;
    }
    if !(cx.is_live)(tex) {
        cx.stats.dead_textures += 1;
        skip(cx.stats, cx.skips, id, dead_texture(tex, cx.view.white));
        return false;
    }
    cx.live = Some(tex);
    true
}

/// A mesh with a custom shader: checked against its shader, then a marker where it draws and its draw for the
/// frame (drawn on its own, in order).
fn custom_mesh<F: Fn(TextureId) -> bool>(
    cx: &mut Ctx<'_, F>,
    caches: &mut Caches,
    id: NodeId,
    m: &crate::Mesh,
    inh: &Inherited,
    (lo, hi): (Vec2, Vec2),
) -> Option<()> {
    let cm = &mut caches.custom_meshes;
    let why = if let Some(sh) = &m.shader {
        custom_shader_fault(cx, m, sh, cm.owner)
    } else {
        None
    };
    if let Some(why) = why {
        skip(cx.stats, cx.skips, id, why);
        return None;
    }
    let matrix = inh.matrix;
    let x = cx.batcher.xform();
    for c in [lo, Vec2::new(hi.x, lo.y), hi, Vec2::new(lo.x, hi.y)] {
        let p = matrix.transform_point2(c);
        cx.batcher.extra_points.push((p.into(), x));
        if cx.track {
            cx.acc.add_point(p);
        }
    }
    let start = cm.arena.len();
    let mut textures = [None; crate::filter::passes::MAX_CUSTOM_TEXTURES];
    let shader = match &m.shader {
        Some(sh) => {
            cm.arena.extend_from_slice(&sh.uniforms);
            for (slot, t) in textures.iter_mut().zip(&sh.textures) {
                *slot = Some(t.id());
            }
            sh.shader.index
        }
        None => {
            let rotated = if m.texture.is_rotated() { 1.0f32 } else { 0.0 };
            cm.arena
                .extend_from_slice(bytemuck::bytes_of(&[rotated, 0.0, 0.0, 0.0]));
            crate::gpu::meshes::DEFAULT_MESH_SHADER
        }
    };
    let [u0, v0, u1, v1] = m.texture.uvs();
    let c = inh.color;
    let tag = cm.draws.len() as u32;
    cm.draws.push(crate::gpu::meshes::MeshDraw {
        geometry: Some(m.geometry.clone()),
        geometry_id: m.geometry.id(),
        geometry_version: m.geometry.version(),
        shader,
        flags: crate::gpu::pipeline::StateFlags::culling(m.cull, m.clockwise_front_face),
        texture: m.texture.id(),
        frame: [u0, v0, u1 - u0, v1 - v0],
        textures,
        uniforms: start..cm.arena.len(),
        transform: inh.matrix,
        color: [c.r * c.a, c.g * c.a, c.b * c.a, c.a],
        blend: inh.blend,
        xform: cx.batcher.xform(),
    });
    cx.batcher.push_mesh_marker(tag);
    // Drawn from this walk's list: a kept walk or a kept render-group recording would lose it.
    cx.volatile = true;
    cx.incomplete = true;
    cx.stats.meshes += 1;
    Some(())
}

/// Why a custom-shader mesh cannot be drawn, if it cannot.
fn custom_shader_fault<F: Fn(TextureId) -> bool>(
    cx: &Ctx<'_, F>,
    m: &crate::Mesh,
    sh: &crate::MeshShading,
    owner: u32,
) -> Option<&'static str> {
    if sh.shader.owner != owner {
        Some("its mesh shader belongs to another renderer")
    } else if sh.uniforms.len() != sh.shader.uniform_size as usize {
        Some("its mesh shader's uniform bytes are not the size of the shader's uniform struct")
    } else if sh.textures.len() != sh.shader.textures as usize {
        Some("its mesh shader is given another number of textures than it declares")
    } else if !m.geometry.has_layout(&sh.shader.layout) {
        Some("its geometry has another vertex layout than its mesh shader was made for")
    } else if sh.textures.iter().any(|t| !(cx.is_live)(t.id())) {
        Some("a texture of its mesh shader was destroyed")
    } else {
        None
    }
}

/// Draws one node; returns what its children inherit and whether it has any, or `None` if the subtree is not
/// drawn. In `mask` mode only the shape is drawn: colour, alpha and blend mode are ignored.
#[inline(always)]
pub(super) fn visit<F: Fn(TextureId) -> bool>(
    cx: &mut Ctx<'_, F>,
    caches: &mut Caches,
    id: NodeId,
    parent: Inherited,
    mask: bool,
) -> Option<(Inherited, bool)> {
    let slot = cx.scene.slot(id)?;
    visit_slot(cx, caches, id, slot, parent, mask, mask)
}

/// [`visit`] for a slot already looked up. A hidden node is drawn with `even_hidden` (the walk's start, and any
/// node in `mask` mode); otherwise left out with its subtree.
#[inline(always)]
pub(super) fn visit_slot<F: Fn(TextureId) -> bool>(
    cx: &mut Ctx<'_, F>,
    caches: &mut Caches,
    id: NodeId,
    slot: crate::scene::SlotRef<'_>,
    parent: Inherited,
    mask: bool,
    even_hidden: bool,
) -> Option<(Inherited, bool)> {
    let node = slot.node;
    if !node.visible && !even_hidden {
        return None;
    }
    let matrix = parent.matrix * slot.transform.matrix();
    if !all_finite(
        matrix.matrix2.x_axis,
        matrix.matrix2.y_axis,
        matrix.translation,
    ) {
        return skip(cx.stats, cx.skips, id, "non-finite transform");
    }
    let inh = if mask {
        Inherited { matrix, ..parent }
    } else {
        let Some((color, packed)) = node_color(node, &parent) else {
            return skip(cx.stats, cx.skips, id, "non-finite alpha or tint");
        };
        Inherited {
            matrix,
            color,
            packed,
            blend: node.blend_mode.resolve(parent.blend),
        }
    };
    match &node.kind {
        NodeKind::Container => {}
        NodeKind::Sprite(sprite) => {
            let place = |l: &LocalQuad| l.place(&matrix);
            push_sprite(cx, id, sprite, place, inh.packed, inh.blend, mask)?;
        }
        NodeKind::NineSlice(n) => {
            let Some((parts, count)) = n.parts() else {
                skip(
                    cx.stats,
                    cx.skips,
                    id,
                    "non-finite nine-slice size, anchor or border",
                );
                return None;
            };
            if !texture_usable(cx, id, n.texture.id()) {
                return None;
            }
            // All parts checked before any is pushed: a node is drawn whole or not at all.
            let mut quads = [(Vec2::ZERO, Vec2::ZERO, Vec2::ZERO); 9];
            for (q, (rect, _)) in quads.iter_mut().zip(&parts[..count]) {
                let p0 = matrix.transform_point2(Vec2::new(rect[0], rect[1]));
                let dx = matrix.matrix2.x_axis * (rect[2] - rect[0]);
                let dy = matrix.matrix2.y_axis * (rect[3] - rect[1]);
                if !all_finite(p0, dx, dy) {
                    skip(cx.stats, cx.skips, id, "non-finite transform");
                    return None;
                }
                *q = if n.texture.is_rotated() {
                    (p0 + dy, -dy, dx)
                } else {
                    (p0, dx, dy)
                };
            }
            for (&(p0, dx, dy), (_, part)) in quads.iter().zip(&parts[..count]) {
                if cx.track {
                    cx.acc.add_quad(p0, dx, dy);
                }
                cx.batcher.push_quad(
                    n.texture.id(),
                    [p0.into(), dx.into(), dy.into()],
                    n.texture.part_uvs(*part),
                    inh.packed,
                    inh.blend,
                );
            }
            if !mask {
                cx.stats.sprites += 1;
            }
        }
        NodeKind::Tiling(t) => {
            let Some(mut tile) = t.tile_coordinates() else {
                skip(cx.stats, cx.skips, id, "tile transform cannot be inverted");
                return None;
            };
            if !texture_usable(cx, id, t.texture.id()) {
                return None;
            }
            let p0 = matrix.transform_point2(-t.anchor * t.size);
            let dx = matrix.matrix2.x_axis * t.size.x;
            let dy = matrix.matrix2.y_axis * t.size.y;
            if !all_finite(p0, dx, dy) {
                skip(cx.stats, cx.skips, id, "non-finite transform or size");
                return None;
            }
            if t.texture.is_rotated() {
                // Stored coordinates of upright (u, v) in a frame turned clockwise: (1 - v, u).
                tile = [
                    Vec2::new(1.0 - tile[0].y, tile[0].x),
                    Vec2::new(-tile[1].y, tile[1].x),
                    Vec2::new(-tile[2].y, tile[2].x),
                ];
            }
            if cx.track {
                cx.acc.add_quad(p0, dx, dy);
            }
            let [w, h] = t.texture.trim_rect_size();
            cx.batcher.push_tiling(
                t.texture.id(),
                [p0.into(), dx.into(), dy.into()],
                t.texture.part_uvs([0.0, 0.0, w, h]),
                tile.map(Into::into),
                inh.packed,
                inh.blend,
            );
            if !mask {
                cx.stats.sprites += 1;
            }
        }
        NodeKind::Graphics(ctx) => {
            let scale = (matrix.matrix2.x_axis * cx.view.half_size)
                .length()
                .max((matrix.matrix2.y_axis * cx.view.half_size).length());
            let mesh = caches.tessellation.get(ctx, scale);
            cx.incomplete |= caches.tessellation.last_was_stand_in;
            cx.volatile |= caches.tessellation.last_was_stand_in;
            for part in &mesh.parts {
                let (tex, uv) = match part.texture {
                    Some(t) if (cx.is_live)(t.id()) => (t.id(), t.uvs()),
                    Some(t) => {
                        let why = match t.id().same_owner(cx.view.white) {
                            true => "a fill texture was destroyed",
                            false => "a fill texture belongs to another renderer; load or create it with this one",
                        };
                        skip(cx.stats, cx.skips, id, why);
                        continue;
                    }
                    None => (cx.view.white, [0.0, 0.0, 1.0, 1.0]),
                };
                let (uv0, uvd) = (
                    Vec2::new(uv[0], uv[1]),
                    Vec2::new(uv[2] - uv[0], uv[3] - uv[1]),
                );
                let r = part.vertices.start as usize..part.vertices.end as usize;
                if cx.track {
                    for p in &mesh.positions[r.clone()] {
                        cx.acc.add_point(matrix.transform_point2(*p));
                    }
                }
                let verts = mesh.positions[r.clone()]
                    .iter()
                    .zip(&mesh.local_uv[r])
                    .map(|(p, l)| (matrix.transform_point2(*p).into(), (uv0 + *l * uvd).into()));
                let idx = &mesh.indices[part.indices.start as usize..part.indices.end as usize];
                let color = if mask {
                    u32::MAX
                } else {
                    (inh.color * part.color).to_rgba8_u32()
                };
                cx.batcher.push_mesh_offset(
                    tex,
                    verts,
                    idx,
                    part.vertices.start,
                    color,
                    inh.blend,
                    Topology::TriangleList,
                );
            }
            if !mask {
                cx.stats.shapes += 1;
            }
        }
        NodeKind::Mesh(m) => {
            let g = &*m.geometry;
            let Some((lo, hi)) = g.bounds() else {
                return skip(
                    cx.stats,
                    cx.skips,
                    id,
                    "a mesh position is not a finite number",
                );
            };
            if !texture_usable(cx, id, m.texture.id()) {
                return None;
            }
            if !mask && m.draws_alone() {
                custom_mesh(cx, caches, id, m, &inh, (lo, hi))?;
                return Some((inh, slot.child_count() != 0));
            }
            if cx.track {
                let size = hi - lo;
                cx.acc.add_quad(
                    matrix.transform_point2(lo),
                    matrix.matrix2.x_axis * size.x,
                    matrix.matrix2.y_axis * size.y,
                );
            }
            let [u0, v0, u1, v1] = m.texture.uvs();
            let (uv0, uvd) = (Vec2::new(u0, v0), Vec2::new(u1 - u0, v1 - v0));
            // A rotated sheet frame stores upright (u, v) at (1 - v, u) of its stored pixels.
            let rotated = m.texture.is_rotated();
            let verts = g.positions().iter().zip(g.uvs()).map(|(p, l)| {
                let l = if rotated {
                    Vec2::new(1.0 - l.y, l.x)
                } else {
                    *l
                };
                (matrix.transform_point2(*p).into(), (uv0 + l * uvd).into())
            });
            let color = if mask { u32::MAX } else { inh.packed };
            cx.batcher.push_mesh(
                m.texture.id(),
                verts,
                g.triangles(),
                color,
                inh.blend,
                Topology::TriangleList,
            );
            if !mask {
                cx.stats.meshes += 1;
            }
        }
        #[cfg(feature = "text")]
        NodeKind::Text(text) => {
            let layout = caches.text.layout(text);
            let color = if mask {
                u32::MAX
            } else {
                (inh.color * text.color).to_rgba8_u32()
            };
            let size = text.style().size;
            let font = text.font();
            let origin = -text.anchor * Vec2::from(layout.size);
            if let Some(bm) = font.bitmap() {
                if let Some(page) = bm.pages.iter().find(|p| !(cx.is_live)(p.id())) {
                    let _ = page;
                    return skip(
                        cx.stats,
                        cx.skips,
                        id,
                        "a page of its bitmap font was destroyed",
                    );
                }
                let s = size / bm.size;
                // Placed as PixiJS places a bitmap text: in the font's units, each glyph's top-left rounded, lines
                // starting `lineHeight - base` down (PixiJS's baseLineOffset), moved down by half the line height
                // beyond the font size where that is more; the anchor spans the lines and that offset.
                let line_fu = text
                    .style()
                    .line_height
                    .filter(|h| h.is_finite())
                    .map_or(bm.line_height, |h| h / s);
                let size_fu = if text.style().line_height.is_some() {
                    size / s
                } else {
                    bm.size
                };
                let base_offset = bm.line_height - bm.base;
                let mut shift = (line_fu - size_fu) / 2.0;
                if shift - base_offset < 0.0 {
                    shift = 0.0;
                }
                let block = Vec2::from(layout.size) + Vec2::new(0.0, base_offset * s);
                let origin = -text.anchor * block;
                // A distance-field font: the screen pixels a unit of the field spans (PixiJS's uDistance: the
                // field's range in page pixels, times page pixels to the text's, times the text's to the target's).
                let distance = bm.distance_range.map(|range| {
                    let px_x = matrix.matrix2.x_axis * cx.view.half_size;
                    let px_y = matrix.matrix2.y_axis * cx.view.half_size;
                    range * s * (px_x.length() + px_y.length()) / 2.0
                });
                for g in &layout.glyphs {
                    let Some(bg) = bm.glyphs.get(g.glyph as usize) else {
                        continue;
                    };
                    let Some(page) = bm.pages.get(bg.page as usize) else {
                        continue;
                    };
                    if bg.rect[2] == 0 || bg.rect[3] == 0 {
                        continue;
                    }
                    let [x, y, w, h] = bg.rect.map(f32::from);
                    let line_top = (g.baseline - bm.base * s) / s + base_offset;
                    let local = origin
                        + Vec2::new(
                            (g.x / s + bg.offset[0]).round(),
                            (line_top + bg.offset[1] + shift).round(),
                        ) * s;
                    let p0 = matrix.transform_point2(local);
                    let dx = matrix.matrix2.x_axis * (w * s);
                    let dy = matrix.matrix2.y_axis * (h * s);
                    if cx.track {
                        cx.acc.add_quad(p0, dx, dy);
                    }
                    let [fx, fy, _, _] = page.frame_rect().map(|v| v as f32);
                    let [tw, th] = page.source_size().map(|v| v as f32);
                    let corners = [p0.into(), dx.into(), dy.into()];
                    let uv = [
                        (fx + x) / tw,
                        (fy + y) / th,
                        (fx + x + w) / tw,
                        (fy + y + h) / th,
                    ];
                    match distance {
                        Some(d) => cx.batcher.push_distance_field(
                            page.id(),
                            corners,
                            uv,
                            color,
                            inh.blend,
                            d,
                        ),
                        None => cx
                            .batcher
                            .push_quad(page.id(), corners, uv, color, inh.blend),
                    }
                }
                if !mask {
                    cx.stats.texts += 1;
                }
                return Some((inh, slot.child_count() != 0));
            }
            // Glyphs are rasterised at the size they cover on the target (the node's world scale, which includes
            // a window's scale factor), bucketed so a continuous zoom makes a few sizes, not one per frame.
            let px_x = matrix.matrix2.x_axis * cx.view.half_size;
            let px_y = matrix.matrix2.y_axis * cx.view.half_size;
            let raster = raster_scale(px_x.length().max(px_y.length()), size);
            let raster_size = size * raster;
            let inv = 1.0 / raster;
            // Crisp text: when the node maps a rasterised pixel onto one target pixel, axis-aligned, glyphs land
            // on whole pixels.
            let snap = (px_x - Vec2::X * raster).abs().max_element() < 1e-4
                && (px_y + Vec2::Y * raster).abs().max_element() < 1e-4;
            let page = caches.text.atlas.page_size() as f32;
            let dx_unit = matrix.matrix2.x_axis * inv;
            let dy_unit = matrix.matrix2.y_axis * inv;
            // Shadow, then outline, then fill: each pass draws every glyph, so no glyph's shadow or outline
            // covers another's fill. Outlines and shadows are glyph bitmaps of their own (grown, blurred) in the
            // atlas, so a styled text still draws in the sprites' batches.
            let spread = text
                .stroke
                .filter(|s| !mask && s.width.is_finite() && s.width > 0.0)
                .map_or(0.0, |s| s.width / 2.0);
            let mut passes: [Option<(u16, u32, Vec2)>; 3] = [None; 3];
            if let Some(sh) = text.shadow.filter(|_| !mask) {
                let offset = Vec2::from_angle(sh.angle) * sh.distance;
                if offset.is_finite() {
                    let c = inh.color * sh.color;
                    let c = crate::Color {
                        a: c.a * sh.alpha.clamp(0.0, 1.0),
                        ..c
                    };
                    let effect = crate::text::effect_key(spread * raster, sh.blur * raster);
                    passes[0] = Some((effect, c.to_rgba8_u32(), offset));
                }
            }
            if let Some(st) = text.stroke.filter(|_| spread > 0.0) {
                let c = (inh.color * st.color).to_rgba8_u32();
                passes[1] = Some((crate::text::effect_key(spread * raster, 0.0), c, Vec2::ZERO));
            }
            passes[2] = Some((0, color, Vec2::ZERO));
            // The text's bitmaps, looked up in the atlas only when its layout, size, passes or font changed or
            // the atlas emptied a page since.
            let effects = passes.map(|p| p.map(|(e, _, _)| e));
            let text_sys = &mut caches.text;
            let evictions = text_sys.atlas.evictions;
            let valid = text_sys.placed.get(&text.id()).is_some_and(|p| {
                p.version == text.version()
                    && p.raster_bits == raster_size.to_bits()
                    && p.effects == effects
                    && p.font == font.id()
                    && p.evictions == evictions
            });
            if !valid {
                let mut placed = text_sys.placed.remove(&text.id()).unwrap_or_default();
                placed.entries.clear();
                placed.pages.clear();
                let deferred = text_sys.atlas.deferred_this_frame;
                let too_large = text_sys.atlas.too_large_this_frame;
                for (pass, effect) in effects.iter().enumerate() {
                    let Some(effect) = *effect else {
                        continue;
                    };
                    for (i, g) in layout.glyphs.iter().enumerate() {
                        let key = GlyphKey {
                            font: font.id(),
                            glyph: g.glyph,
                            size_bits: raster_size.to_bits(),
                            effect,
                        };
                        let Some(e) = text_sys.atlas.get_or_insert(key, |max| {
                            // Refused before rasterising when the grown bitmap could not fit.
                            let pad = 2 * crate::text::effect_pad(effect);
                            let r =
                                font.rasterize_within(g.glyph, raster_size, max.checked_sub(pad)?)?;
                            Some(crate::text::apply_effect(r, effect))
                        }) else {
                            continue;
                        };
                        if e.rect[2] == 0 {
                            continue;
                        }
                        placed.entries.push((pass as u8, i as u32, e));
                        if !placed.pages.contains(&e.page) {
                            placed.pages.push(e.page);
                        }
                    }
                }
                // A glyph deferred for want of room is looked up again next frame; so is an emptied page's.
                let complete = text_sys.atlas.deferred_this_frame == deferred
                    && text_sys.atlas.evictions == evictions;
                placed.version = if complete { text.version() } else { u64::MAX };
                placed.raster_bits = raster_size.to_bits();
                placed.effects = effects;
                placed.font = font.id();
                placed.evictions = text_sys.atlas.evictions;
                placed.too_large = text_sys.atlas.too_large_this_frame - too_large;
                text_sys.placed.insert(text.id(), placed);
            } else if let Some(p) = text_sys.placed.get(&text.id()) {
                text_sys.atlas.too_large_this_frame += p.too_large;
            }
            let crate::text::TextSystem {
                atlas,
                placed,
                frame,
                ..
            } = text_sys;
            let Some(placed) = placed.get_mut(&text.id()) else {
                return Some((inh, slot.child_count() != 0));
            };
            placed.frame = *frame;
            for &page_id in &placed.pages {
                atlas.touch_page(page_id);
            }
            for &(pass, i, e) in &placed.entries {
                let (Some((_, color, offset)), Some(g)) =
                    (passes[pass as usize], layout.glyphs.get(i as usize))
                else {
                    continue;
                };
                let Some(tex) = caches.pages.get(e.page as usize) else {
                    continue;
                };
                let local =
                    origin + offset + Vec2::new(g.x, g.baseline) + Vec2::from(e.offset) * inv;
                let mut p0 = matrix.transform_point2(local);
                if snap {
                    p0 = cx.view.clip_of(cx.view.pixels_of(p0).round());
                }
                let dx = dx_unit * e.rect[2] as f32;
                let dy = dy_unit * e.rect[3] as f32;
                if cx.track {
                    cx.acc.add_quad(p0, dx, dy);
                }
                let [x, y, w, h] = e.rect.map(|v| v as f32);
                cx.batcher.push_quad(
                    tex,
                    [p0.into(), dx.into(), dy.into()],
                    [x / page, y / page, (x + w) / page, (y + h) / page],
                    color,
                    inh.blend,
                );
            }
            if !mask {
                cx.stats.texts += 1;
            }
        }
    }
    Some((inh, slot.child_count() != 0))
}

#[cfg(all(test, feature = "text"))]
mod raster_tests {
    use crate::frame::collect::visit::raster_scale;

    #[test]
    fn raster_scales_are_quarter_octaves_rounded_up_and_bounded() {
        assert_eq!(raster_scale(1.0, 16.0), 1.0);
        assert_eq!(raster_scale(2.0, 16.0), 2.0);
        assert_eq!(raster_scale(1.1, 16.0), 2f32.powf(0.25));
        assert_eq!(raster_scale(0.5, 16.0), 0.5);
        for bad in [f32::NAN, f32::INFINITY, 0.0, -3.0] {
            assert_eq!(raster_scale(bad, 16.0), 1.0);
        }
        assert_eq!(raster_scale(1e6, 16.0), 8.0, "at most 8x");
        assert_eq!(raster_scale(1e6, 64.0), 4.0, "glyphs stop at 256 pixels");
        assert_eq!(raster_scale(4.0, 500.0), 1.0, "large text keeps its size");
        assert_eq!(raster_scale(1e-9, 16.0), 0.125);
        // Every scale from 1 to 2 lands on one of five sizes, none below the scale.
        let mut seen = std::collections::BTreeSet::new();
        for i in 0..=1000 {
            let w = 1.0 + i as f32 / 1000.0;
            let r = raster_scale(w, 16.0);
            assert!(r >= w * 0.999, "{w} -> {r}");
            seen.insert(r.to_bits());
        }
        assert_eq!(seen.len(), 5);
    }
}
