//! Texture caches in the walk (`Scene::set_cache_as_texture`): drawn from their texture while nothing they show
//! changed, drawn again into it otherwise, in the container's own space.

use super::super::visit::{node_color, Ctx, Inherited};
use super::{Antialias, CacheEntry, Cached, ChainSettings, FilterWalk, GroupKind, Open, Segment};
use crate::frame::batcher::{Quad, DATA_FLAG, TRANSFORM_SHIFT};
use crate::scene::cull::Aabb;
use crate::{NodeId, TextureId};
use glam::{Affine2, Vec2};

impl FilterWalk {
    /// Forgets that the last walk drew caches (its passes never ran: the frame walks again, or failed).
    pub fn forget_drawn_caches(&mut self) {
        let walks = self.walks;
        for e in self.caches.values_mut() {
            if e.seen == walks {
                e.epoch = 0;
            }
        }
        let prepares = self.prepares;
        for e in self.kept.values_mut() {
            if e.seen == prepares {
                e.rendered = None;
            }
        }
    }

    /// A cached container (see [`Scene::set_cache_as_texture`](crate::Scene::set_cache_as_texture)): draws its
    /// texture when nothing it shows changed since it was drawn, or opens a segment to draw it again.
    pub(in crate::frame::collect) fn cached<F: Fn(TextureId) -> bool>(
        &mut self,
        cx: &mut Ctx<'_, F>,
        id: NodeId,
        slot: crate::scene::SlotRef<'_>,
        parent: &Inherited,
    ) -> Cached {
        let Some(f) = cx.scene.filtered(id) else {
            return Cached::Plain;
        };
        let (Some(cfg), serial) = (f.cache, f.cache_serial) else {
            return Cached::Plain;
        };
        if slot.child_count() == 0 {
            return Cached::Plain;
        }
        let m = parent.matrix * slot.transform.matrix();
        if !(m.matrix2.is_finite() && m.translation.is_finite()) {
            return Cached::Plain;
        }
        let Some((_, packed)) = node_color(slot.node, parent) else {
            return Cached::Plain;
        };
        let blend = slot.node.blend_mode.resolve(parent.blend);
        let key = id.slot() as u32;
        let entry = self
            .caches
            .get(&key)
            .filter(|e| e.generation == id.generation)
            .copied();
        // Its quad is placed from the node's transform each frame: no kept walk.
        cx.volatile = true;
        if let Some(e) = entry {
            let fresh = cx.scene.changed_below(id.slot()) <= e.epoch
                && e.serial == serial
                && e.settings == cfg
                && e.target_scale == self.target_scale
                && (cx.is_live)(e.handle);
            if fresh {
                draw_cache(cx, m, e.local, e.handle, (packed, blend));
                if let Some(e) = self.caches.get_mut(&key) {
                    e.seen = self.walks;
                }
                return Cached::Drawn(Some(m));
            }
        }
        if m.matrix2.determinant() == 0.0 {
            return Cached::Plain;
        }
        let handle = match entry {
            Some(e) => e.handle,
            None => match self.cache_spares.pop() {
                Some(h) => h,
                None => {
                    self.cache_shortfall += 1;
                    self.new_cache_shortfall += 1;
                    return Cached::Plain;
                }
            },
        };
        self.caches.insert(
            key,
            CacheEntry {
                generation: id.generation,
                handle,
                local: (Vec2::ZERO, Vec2::ZERO),
                // Drawn again until it closes.
                epoch: 0,
                serial,
                settings: cfg,
                target_scale: self.target_scale,
                seen: self.walks,
            },
        );
        let settings = ChainSettings {
            resolution: Some(cfg.resolution.unwrap_or(self.target_scale)),
            padding: 0.0,
            antialias: if cfg.antialias {
                Antialias::On
            } else {
                Antialias::Off
            },
            clip_to_viewport: false,
            blend: crate::BlendMode::Normal,
            packable: false,
        };
        if !self.open_with(cx, id, m, settings, GroupKind::Cache, 0) {
            return Cached::Plain;
        }
        let open = self.stack.last_mut().expect("just opened");
        open.cache = Some((cfg, serial, packed, blend));
        // Its content lands in its own space, at its resolution: text inside is rasterised for that.
        let res = cfg.resolution.unwrap_or(self.target_scale);
        cx.cache_space = Some((m.inverse(), m, res));
        let g = &mut self.groups[open.group as usize];
        g.output = Some(handle);
        g.sampling = match cfg.scale_mode {
            crate::ScaleMode::Nearest => crate::Sampling::NEAREST,
            _ => crate::Sampling::LINEAR,
        };
        Cached::Render
    }

    /// Closes a cache's segment: measures its content in the node's space, sizes its texture, maps its
    /// elements there and draws the texture where the node is.
    pub(super) fn close_cache<F: Fn(TextureId) -> bool>(
        &mut self,
        cx: &mut Ctx<'_, F>,
        open: Open,
        cache: (crate::CacheAsTexture, u64, u32, crate::BlendMode),
    ) -> Option<u32> {
        let (cfg, _, packed, blend) = cache;
        let m = open.matrix;
        let inv = m.inverse();
        let k = open.xform;
        let mut local = Aabb::EMPTY;
        let quads = cx.batcher.quads.as_slice();
        for (i, q) in quads.iter().enumerate().skip(open.quads) {
            if q.texture >> TRANSFORM_SHIFT == k && q.texture & DATA_FLAG == 0 {
                let (o, x, y) = (
                    Vec2::from(q.origin),
                    Vec2::from(q.x_edge),
                    Vec2::from(q.y_edge),
                );
                // A styled glyph's shadow too.
                let s = Vec2::from(Quad::shadow_offset(quads, i));
                for c in [o, o + x, o + y, o + x + y] {
                    local.add_point(inv.transform_point2(c));
                    local.add_point(inv.transform_point2(c + s));
                }
            }
        }
        for v in &cx.batcher.vertices.as_slice()[open.vertices..] {
            if v.texture >> TRANSFORM_SHIFT == k {
                local.add_point(inv.transform_point2(v.position.into()));
            }
        }
        for (p, x) in &cx.batcher.extra_points[open.points..] {
            if *x == k {
                local.add_point(inv.transform_point2((*p).into()));
            }
        }
        let key = open.node.slot() as u32;
        let drop = |cx: &mut Ctx<'_, F>| {
            let g = crate::frame::elements::GroupTransform::new(Affine2::ZERO, 0);
            cx.batcher.transforms.set_value::<8>(open.xform as usize, g);
        };
        if local.is_empty() || !(local.min.is_finite() && local.max.is_finite()) {
            // Nothing to cache: its texture is not drawn, but keeps a size a texture can have.
            let group = &mut self.groups[open.group as usize];
            group.size = (1, 1);
            group.extent = (1, 1);
            drop(cx);
            return None;
        }
        let mut res = cfg.resolution.unwrap_or(self.target_scale);
        // Room for the texel each side (below).
        let max_side = self.max_side as f32 - 2.0;
        let span = (local.max - local.min) * res;
        if span.x > max_side || span.y > max_side {
            res *= (max_side / span.x).min(max_side / span.y);
        }
        // A transparent texel around the content: a draw that samples between texels (the cache shown scaled or
        // turned) blends its edge with nothing rather than stopping at it.
        let lo = (local.min * res).floor() - Vec2::ONE;
        let hi = (local.max * res).ceil().max(lo + Vec2::ONE) + Vec2::ONE;
        let (w, h) = ((hi.x - lo.x) as u32, (hi.y - lo.y) as u32);
        let group = &mut self.groups[open.group as usize];
        group.size = (w.max(1), h.max(1));
        group.extent = group.size;
        group.segments = 1;
        cx.stats.filtered_nodes += 1;
        let handle = group.output.expect("a cache has its texture");
        // Clip -> the node's space -> texture pixels.
        let local_map =
            Affine2::from_translation(-lo) * Affine2::from_scale(Vec2::splat(res)) * inv;
        let seg = self.segments.len() as u32;
        self.segments.push(Segment {
            group: open.group,
            xform: open.xform,
            pos: (0, 0),
            size: group.size,
            origin: lo,
            quad: None,
            local: Some(local_map),
            rect: (Vec2::ZERO, Vec2::ZERO),
            parent_xform: open.prev_xform,
        });
        let (llo, lhi) = (lo / res, hi / res);
        draw_cache(cx, m, (llo, lhi), handle, (packed, blend));
        if let Some(e) = self.caches.get_mut(&key) {
            e.local = (llo, lhi);
            e.epoch = cx.epoch;
        }
        Some(seg)
    }
}

/// Draws a cache's texture `handle` over the rectangle `(lo, hi)` of the node's space (`m` to clip space), with
/// the node's colour and blend mode.
fn draw_cache<F: Fn(TextureId) -> bool>(
    cx: &mut Ctx<'_, F>,
    m: Affine2,
    (lo, hi): (Vec2, Vec2),
    handle: TextureId,
    (packed, blend): (u32, crate::BlendMode),
) {
    let size = hi - lo;
    let p0 = m.transform_point2(lo);
    let (dx, dy) = (m.matrix2.x_axis * size.x, m.matrix2.y_axis * size.y);
    if cx.track {
        cx.acc.add_quad(p0, dx, dy);
    }
    cx.batcher.push_quad(
        handle,
        [p0.into(), dx.into(), dy.into()],
        [0.0, 0.0, 1.0, 1.0],
        packed,
        blend,
    );
}
