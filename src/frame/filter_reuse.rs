//! Filter results kept between frames. A group's *fingerprint* hashes everything its result is drawn from: its
//! content's batches (state, indices, the quads and vertices they name, the transforms those carry), the textures
//! they sample (by the version of their pixels, or, for another group's output, by that group's fingerprint),
//! its passes (programs, uniform bytes, textures) and its size and place on the target. A filtered node whose
//! fingerprint held between two frames draws into a texture of its own (the walk's [`Kept`] entry); while it
//! still holds, the group's content pass and filter passes are not run again and its quad shows that texture.
//!
//! The frame still walks the node (its quad is placed from this frame's walk); only GPU work is saved. Nothing
//! is compared but hashes of data the frame builds anyway: a frame whose filtered nodes all change pays one
//! hash of their elements.

use crate::frame::batcher::{Batcher, TILING_FLAG, TRANSFORM_SHIFT};
use crate::frame::collect::filters::{FilterWalk, GroupKind, Kept};
use crate::frame::elements::{Element, Quad, DISTANCE_FIELD_FLAG, STYLED_FLAG};
use crate::gpu::meshes::CustomMeshes;
use crate::gpu::texture_system::TextureSystem;
use crate::TextureId;
use std::hash::{Hash, Hasher};

/// Spare kept textures held for the next node that becomes stable; more are destroyed.
const MAX_SPARES: usize = 8;

/// Prepares within which an equal fingerprint makes a group stable.
const RECENT: u64 = 8;

/// Prepares after which an entry no group led is dropped (its texture a spare, or destroyed).
const FORGET: u64 = 120;

/// The fingerprint of every group (`None`: it reads something whose pixels cannot be followed, or it failed to
/// get an output), computed deepest first so a group's fingerprint includes those of the groups it draws.
pub(super) fn fingerprints<'a>(
    (walk, batcher, meshes): (&FilterWalk, &Batcher, &CustomMeshes),
    order: &[usize],
    textures: &TextureSystem,
    target_px: (f32, f32),
    batches_of: impl Fn(usize) -> &'a [u32],
) -> Vec<Option<u64>> {
    let mut out: Vec<Option<u64>> = vec![None; walk.groups.len()];
    let outputs: rustc_hash::FxHashMap<TextureId, usize> = walk
        .groups
        .iter()
        .enumerate()
        .filter_map(|(i, g)| g.output.map(|t| (t, i)))
        .collect();
    for &gi in order {
        out[gi] = fingerprint(
            (walk, batcher, meshes),
            gi,
            &out,
            &outputs,
            textures,
            target_px,
            batches_of(gi),
        );
    }
    out
}

/// What a texture contributes: another group's fingerprint if a group of this frame draws it, else its pixels'
/// version.
fn texture_print(
    t: TextureId,
    prints: &[Option<u64>],
    outputs: &rustc_hash::FxHashMap<TextureId, usize>,
    textures: &TextureSystem,
) -> Option<(TextureId, u64)> {
    match outputs.get(&t) {
        Some(&g) => prints[g].map(|p| (t, p)),
        None => textures.content_version(t).map(|v| (t, v)),
    }
}

#[allow(clippy::too_many_arguments)]
fn fingerprint(
    (walk, batcher, meshes): (&FilterWalk, &Batcher, &CustomMeshes),
    gi: usize,
    prints: &[Option<u64>],
    outputs: &rustc_hash::FxHashMap<TextureId, usize>,
    textures: &TextureSystem,
    target_px: (f32, f32),
    batches: &[u32],
) -> Option<u64> {
    let g = &walk.groups[gi];
    g.output?;
    let mut h = rustc_hash::FxHasher::default();
    std::mem::discriminant(&g.kind).hash(&mut h);
    if let GroupKind::Blend(mode) = g.kind {
        (mode as u8).hash(&mut h);
    }
    (
        g.size,
        g.extent,
        g.msaa,
        g.stencil_ref,
        g.segments,
        g.sampling,
    )
        .hash(&mut h);
    (g.blend as u8, g.passes.len()).hash(&mut h);
    for v in [g.origin.x, g.origin.y, g.scale, target_px.0, target_px.1] {
        v.to_bits().hash(&mut h);
    }
    g.clear
        .map(|c| [c.r, c.g, c.b, c.a].map(f32::to_bits))
        .hash(&mut h);
    for p in &walk.passes[g.passes.clone()] {
        (p.program, p.first_of_filter).hash(&mut h);
        let (at, len) = (p.params.0 as usize, p.params.1 as usize);
        walk.arena.get(at..at + len)?.hash(&mut h);
        for &t in p.textures.iter().flatten() {
            texture_print(t, prints, outputs, textures)?.hash(&mut h);
        }
    }
    let (quads, vertices) = (batcher.quads.as_slice(), batcher.vertices.as_slice());
    let (indices, transforms) = (batcher.indices.as_slice(), batcher.transforms.as_slice());
    let all = batcher.batches();
    let bit = batcher.quad_bit();
    let mut xforms: Vec<u32> = Vec::new();
    for &i in batches {
        let b = &all[i as usize];
        (b.blend as u8, b.topology, b.state, b.marker).hash(&mut h);
        if b.marker & Batcher::MARKER_MESH != 0 && b.marker & Batcher::MARKER_FINAL == 0 {
            // A custom-shader mesh: its geometry (by identity and version), shader, uniforms, textures, transform
            // and colour.
            let d = meshes
                .draws
                .get((b.marker & !Batcher::MARKER_MESH) as usize)?;
            // Particles: their data is read from the scene when prepared, not followed here.
            if d.particles.is_some() {
                return None;
            }
            (
                d.geometry_id,
                d.geometry_version,
                d.shader,
                d.flags,
                d.blend as u8,
            )
                .hash(&mut h);
            meshes.arena.get(d.uniforms.clone())?.hash(&mut h);
            texture_print(d.texture, prints, outputs, textures)?.hash(&mut h);
            for &t in d.textures.iter().flatten() {
                texture_print(t, prints, outputs, textures)?.hash(&mut h);
            }
            let m = d.transform;
            for v in [m.matrix2.x_axis, m.matrix2.y_axis, m.translation] {
                (v.x.to_bits(), v.y.to_bits()).hash(&mut h);
            }
            (d.color.map(f32::to_bits), d.frame.map(f32::to_bits)).hash(&mut h);
            if !xforms.contains(&d.xform) {
                xforms.push(d.xform);
            }
            continue;
        }
        if b.marker & Batcher::MARKER_FINAL != 0 {
            // A nested filtered node's last pass drawn here: its group's result, at its place.
            let f = walk
                .finals
                .get((b.marker & !Batcher::MARKER_FINAL) as usize)?;
            prints[f.group as usize]?.hash(&mut h);
            f.rect.map(f32::to_bits).hash(&mut h);
            (f.size, f.parent_size).hash(&mut h);
            continue;
        }
        if b.marker != 0 {
            // An advanced blend draw: its content's group, at its place.
            let d = walk.blends.get(b.marker as usize - 1)?;
            prints[d.group as usize]?.hash(&mut h);
            (d.rect, d.mode as u8).hash(&mut h);
            continue;
        }
        for t in b.textures.ids() {
            texture_print(t, prints, outputs, textures)?.hash(&mut h);
        }
        let range = b.index_start as usize..(b.index_start + b.index_count) as usize;
        let idx = indices.get(range)?;
        bytemuck::cast_slice::<u32, u8>(idx).hash(&mut h);
        for &ix in idx {
            let tex = match Element::of(ix, bit) {
                Element::Corner { corner: 1.., .. } => continue,
                Element::Corner { quad, .. } => {
                    let q = quad as usize;
                    let quad = quads.get(q)?;
                    bytemuck::bytes_of(quad).hash(&mut h);
                    if quad.texture & STYLED_FLAG != 0 {
                        // What its passes draw with: its text's colours and shadow offset.
                        let d = Quad::styled_data(quads, q)?;
                        (d.passes, d.outline, d.shadow, d.offset.map(f32::to_bits)).hash(&mut h);
                    } else if quad.texture & (TILING_FLAG | DISTANCE_FIELD_FLAG) != 0 {
                        bytemuck::bytes_of(quads.get(q + 1)?).hash(&mut h);
                    }
                    quad.texture
                }
                Element::Vertex(v) => {
                    let v = vertices.get(v as usize)?;
                    bytemuck::bytes_of(v).hash(&mut h);
                    v.texture
                }
            };
            let k = tex >> TRANSFORM_SHIFT;
            if xforms.last() != Some(&k) && !xforms.contains(&k) {
                xforms.push(k);
            }
        }
    }
    for k in xforms {
        bytemuck::bytes_of(transforms.get(k as usize)?).hash(&mut h);
    }
    Some(h.finish())
}

/// Updates every kept entry from this frame's fingerprints and says which groups need not run: groups drawing
/// into their kept texture, which already holds the result of an equal fingerprint. Entries no group led for a
/// while are dropped (their textures become spares, or are destroyed).
pub(super) fn reusable(walk: &mut FilterWalk, prints: &[Option<u64>]) -> Vec<bool> {
    let now = walk.prepares;
    let mut reused = vec![false; walk.groups.len()];
    if !walk.keep_results {
        return reused;
    }
    for (gi, g) in walk.groups.iter().enumerate() {
        if g.kind != GroupKind::Filters || g.segments == 0 {
            continue;
        }
        let key = g.node.slot() as u32;
        let print = prints.get(gi).copied().flatten();
        let e = walk.kept.entry(key).or_insert(Kept::new(g.node.generation));
        if e.generation != g.node.generation {
            if let Some(h) = e.handle.take() {
                walk.cache_spares.push(h);
            }
            *e = Kept::new(g.node.generation);
        }
        if e.seen == now {
            // Led two groups this frame (cannot be): follow neither.
            e.stable = false;
            e.fingerprint = None;
            continue;
        }
        // Frames may prepare other targets in between (render textures): a recent equal print counts.
        e.stable =
            print.is_some() && e.seen > 0 && now - e.seen <= RECENT && e.fingerprint == print;
        e.fingerprint = print;
        e.seen = now;
        if !e.stable {
            e.rendered = None;
        }
        reused[gi] = g.keep && e.handle == g.output && print.is_some() && e.rendered == print;
    }
    let (spares, released) = (&mut walk.cache_spares, &mut walk.cache_released);
    walk.kept.retain(|_, e| {
        let keep = now - e.seen < FORGET;
        if let (false, Some(h)) = (keep, e.handle) {
            if spares.len() < MAX_SPARES {
                spares.push(h);
            } else {
                released.push(h);
            }
        }
        keep
    });
    reused
}

/// Notes that group `gi` was drawn: a kept group's texture now holds its fingerprint's result.
pub(super) fn drawn(walk: &mut FilterWalk, gi: usize, prints: &[Option<u64>]) {
    let g = &walk.groups[gi];
    if !g.keep {
        return;
    }
    if let Some(e) = walk.kept.get_mut(&(g.node.slot() as u32)) {
        if e.handle == g.output && e.stable {
            e.rendered = prints.get(gi).copied().flatten();
        }
    }
}
