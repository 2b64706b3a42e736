//! Visiting one node: its world transform, colour and blend mode, and what it draws (a sprite's quad, a shape's
//! mesh, a text's glyphs) handed to the batcher, with the checks that skip bad input. Shared by the walk
//! (`mod.rs`), render-group recordings (`group.rs`) and the quads computed ahead (`parallel.rs`).

use crate::frame::batcher::{WRAP_X_FLAG, WRAP_Y_FLAG};
use crate::gpu::pipeline::Topology;
use crate::scene::sprite::LocalQuad;
use crate::{BlendMode, Color, NodeId, NodeKind, TextureId};
use glam::Vec2;

pub(super) use super::context::{skip, Caches, Ctx, Inherited, View};

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
    let [u0, v0, u1, v1] = m.texture.mesh_uvs();
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
        particles: None,
    });
    cx.batcher.push_mesh_marker(tag);
    // Drawn from this walk's list: a kept walk or a kept render-group recording would lose it.
    cx.volatile = true;
    cx.incomplete = true;
    cx.stats.meshes += 1;
    Some(())
}

/// A particle container: a marker where it draws and its draw for the frame (drawn on its own, in order; its
/// particles are read from the scene when the frame is prepared). Culled by its bounds area, if it has one.
fn particles<F: Fn(TextureId) -> bool>(
    cx: &mut Ctx<'_, F>,
    caches: &mut Caches,
    id: NodeId,
    pc: &crate::ParticleContainer,
    inh: &Inherited,
) -> Option<()> {
    if pc.is_empty() {
        return Some(());
    }
    let texture = pc.texture();
    if !texture_usable(cx, id, texture.id()) {
        return None;
    }
    let matrix = inh.matrix;
    if let Some(r) = pc.bounds_area {
        let clip = crate::scene::aabb::Aabb {
            min: r.min,
            max: r.max,
        }
        .transformed(&matrix);
        if cx.track {
            cx.acc.union(clip);
        }
        if !clip.touches_view(cx.pad) {
            cx.stats.culled += 1;
            return Some(());
        }
        // The bounds area's corners, for a filter's or render group's extent.
        let x = cx.batcher.xform();
        for c in [
            r.min,
            Vec2::new(r.max.x, r.min.y),
            r.max,
            Vec2::new(r.min.x, r.max.y),
        ] {
            cx.batcher
                .extra_points
                .push((matrix.transform_point2(c).into(), x));
        }
    }
    let cm = &mut caches.custom_meshes;
    let start = cm.arena.len();
    let round = if pc.round_pixels { 1.0f32 } else { 0.0 };
    cm.arena
        .extend_from_slice(bytemuck::bytes_of(&[round, 0.0, 0.0, 0.0]));
    let c = inh.color;
    let tag = cm.draws.len() as u32;
    cm.draws.push(crate::gpu::meshes::MeshDraw {
        geometry: None,
        geometry_id: pc.upload_state().uid,
        geometry_version: 0,
        shader: crate::gpu::meshes::PARTICLE_SHADER,
        flags: crate::gpu::pipeline::StateFlags::default(),
        texture: texture.id(),
        frame: [0.0, 0.0, 1.0, 1.0],
        textures: [None; crate::filter::passes::MAX_CUSTOM_TEXTURES],
        uniforms: start..cm.arena.len(),
        transform: matrix,
        color: [c.r * c.a, c.g * c.a, c.b * c.a, c.a],
        blend: inh.blend,
        xform: cx.batcher.xform(),
        particles: Some(crate::gpu::particles::ParticleDraw { node: id }),
    });
    cx.batcher.push_mesh_marker(tag);
    // Drawn from this walk's list: a kept walk or a kept render-group recording would lose it.
    cx.volatile = true;
    cx.incomplete = true;
    cx.stats.particles += pc.len() as u64;
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
                skip(
                    cx.stats,
                    cx.skips,
                    id,
                    "tile transform cannot be inverted, or over a million tiles span the sprite",
                );
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
                t.clamp_shift(),
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
                let idx = &mesh.indices[part.indices.start as usize..part.indices.end as usize];
                let color = if mask {
                    u32::MAX
                } else {
                    (inh.color * part.color).to_rgba8_u32()
                };
                let flags = (part.wrap & 1 != 0) as u32 * WRAP_X_FLAG
                    + (part.wrap & 2 != 0) as u32 * WRAP_Y_FLAG;
                let gradient = part.vertex_colors.as_ref().filter(|_| !mask);
                // A gradient: its colour at each vertex, times the part's and the node's.
                let tint = inh.color * part.color;
                let untinted = inh.color == Color::WHITE;
                let verts = mesh.positions[r.clone()]
                    .iter()
                    .zip(&mesh.local_uv[r.clone()])
                    .enumerate()
                    .map(|(k, (p, l))| {
                        let c = match gradient {
                            Some(_) if untinted => part.vertex_rgba8[k],
                            Some(colors) => (tint * colors[k]).to_rgba8_u32(),
                            None => color,
                        };
                        (
                            matrix.transform_point2(*p).into(),
                            (uv0 + *l * uvd).into(),
                            c,
                        )
                    });
                // Pixel lines are the GPU's one-pixel lines, as PixiJS draws them (their own batch).
                let topology = match part.pixel_lines {
                    true => Topology::LineList,
                    false => Topology::TriangleList,
                };
                cx.batcher.push_mesh_colored(
                    tex,
                    verts,
                    idx,
                    part.vertices.start,
                    inh.blend,
                    topology,
                    flags,
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
            let [u0, v0, u1, v1] = m.texture.mesh_uvs();
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
            super::text::draw_text(cx, caches, id, text, &inh, matrix, mask)?;
        }
        NodeKind::Particles(pc) => {
            if mask {
                skip(
                    cx.stats,
                    cx.skips,
                    id,
                    "a particle container cannot be a stencil mask",
                );
            } else {
                particles(cx, caches, id, pc, &inh)?;
            }
        }
        // What it draws, its attached nodes, the walk draws where it enters the layer.
        NodeKind::RenderLayer(_) => {}
    }
    Some((inh, slot.child_count() != 0))
}
