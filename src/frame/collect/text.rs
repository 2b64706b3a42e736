//! The walk's text: a text node's glyphs as quads in the sprites' batches. Outline-font glyphs are rasterised
//! into the atlas at the size they cover on the target (outlines and shadows as bitmaps of their own, drawn as
//! passes under the fill), each text's atlas entries kept between frames; bitmap-font glyphs are regions of the
//! font's pages, placed as PixiJS places them, distance-field ones flagged for the batch shader.

use super::context::{skip, Caches, Ctx, Inherited};
use crate::frame::batcher::{Quad, PASS_FILL, PASS_OUTLINE, PASS_SHADOW};
use crate::text::GlyphKey;
use crate::{NodeId, TextureId};
use glam::{Affine2, Vec2};

/// Draws `text` (a node's, with what it inherits and its node-to-clip `matrix`); `None` when it is skipped (a page
/// of its bitmap font was destroyed), counted.
pub(super) fn draw_text<F: Fn(TextureId) -> bool>(
    cx: &mut Ctx<'_, F>,
    caches: &mut Caches,
    id: NodeId,
    text: &crate::Text,
    inh: &Inherited,
    matrix: Affine2,
    mask: bool,
) -> Option<()> {
    let layout = caches.text.layout(text);
    // The shared style's colour, outline and shadow when it has one (read once a frame).
    let style = text.effective_style();
    let color = if mask {
        u32::MAX
    } else {
        (inh.color * style.color).to_rgba8_u32()
    };
    let size = style.layout.size;
    let font = text.font();
    let origin = -text.anchor * Vec2::from(layout.size);
    if let Some(bm) = font.bitmap() {
        if bm.pages.iter().any(|p| !(cx.is_live)(p.id())) {
            skip(
                cx.stats,
                cx.skips,
                id,
                "a page of its bitmap font was destroyed",
            );
            return None;
        }
        let s = size / bm.size;
        // Placed as PixiJS places a bitmap text: in the font's units, each glyph's top-left rounded, lines
        // starting `lineHeight - base` down (PixiJS's baseLineOffset), moved down by half the line height
        // beyond the font size where that is more; the anchor spans the lines and that offset.
        let line_fu = style
            .layout
            .line_height
            .filter(|h| h.is_finite())
            .map_or(bm.line_height, |h| h / s);
        let size_fu = if style.layout.line_height.is_some() {
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
        // PixiJS moves a bitmap text up and left by its style's padding.
        let padding = Some(style.layout.padding)
            .filter(|p| p.is_finite())
            .unwrap_or(0.0);
        let origin = -text.anchor * block - Vec2::splat(padding);
        // A distance-field font: the screen pixels a unit of the field spans (PixiJS's uDistance: the
        // field's range in page pixels, times page pixels to the text's, times the text's to the target's).
        let distance = bm.distance_range.map(|range| {
            let (px_x, px_y) = pixels_per_unit(cx, matrix);
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
                Some(d) => {
                    cx.batcher
                        .push_distance_field(page.id(), corners, uv, color, inh.blend, d)
                }
                None => cx
                    .batcher
                    .push_quad(page.id(), corners, uv, color, inh.blend),
            }
        }
        if !mask {
            cx.stats.texts += 1;
        }
        return Some(());
    }
    // Glyphs are rasterised at the size they cover on the target (the node's world scale, which includes
    // a window's scale factor), bucketed so a continuous zoom makes a few sizes, not one per frame.
    // Where its pixels land: the target's, or a cache's texels.
    let (px_x, px_y) = pixels_per_unit(cx, matrix);
    let raster = raster_scale(px_x.length().max(px_y.length()), size);
    let raster_size = size * raster;
    let inv = 1.0 / raster;
    // Crisp text: when the node maps a rasterised pixel onto one target pixel, axis-aligned, glyphs land
    // on whole pixels.
    let snap = (px_x - Vec2::X * raster).abs().max_element() < 1e-4
        && (px_y + Vec2::Y * raster).abs().max_element() < 1e-4;
    let dx_unit = matrix.matrix2.x_axis * inv;
    let dy_unit = matrix.matrix2.y_axis * inv;
    // Shadow, then outline, then fill: each pass draws every glyph, so no glyph's shadow or outline
    // covers another's fill. Outlines and shadows are glyph bitmaps of their own (grown, blurred) in the
    // atlas, so a styled text still draws in the sprites' batches.
    // A text's passes: (effect, colour, offset) of its shadow, outline and fill.
    type Passes = [Option<(u32, u32, Vec2)>; 3];
    let passes_of = |stroke: Option<crate::text::TextStroke>,
                     shadow: Option<crate::text::TextShadow>,
                     fill: u32|
     -> Passes {
        let spread = stroke
            .filter(|s| !mask && s.width.is_finite() && s.width > 0.0)
            .map_or(0.0, |s| s.width / 2.0);
        // A shadow is the stroked glyph's: its corners as the stroke's.
        let (join, limit) =
            stroke.map_or((crate::LineJoin::Round, 1.0), |s| (s.join, s.miter_limit));
        let mut passes: Passes = [None; 3];
        if let Some(sh) = shadow.filter(|_| !mask) {
            let offset = Vec2::from_angle(sh.angle) * sh.distance;
            if offset.is_finite() {
                let c = inh.color * sh.color;
                let c = crate::Color {
                    a: c.a * sh.alpha.clamp(0.0, 1.0),
                    ..c
                };
                let effect =
                    crate::text::effect_key(spread * raster, sh.blur * raster, join, limit);
                passes[0] = Some((effect, c.to_rgba8_u32(), offset));
            }
        }
        if let Some(st) = stroke.filter(|_| spread > 0.0) {
            let c = (inh.color * st.color).to_rgba8_u32();
            let effect = crate::text::effect_key(spread * raster, 0.0, join, limit);
            passes[1] = Some((effect, c, Vec2::ZERO));
        }
        passes[2] = Some((0, fill, Vec2::ZERO));
        passes
    };
    let passes = passes_of(style.stroke, style.shadow, color);
    // A rich text's runs with an outline or shadow of their own: their passes, by run (the text's where a run
    // has none). Their fill colours are applied below, as for every run.
    let own = |r: &crate::text::TextRun| r.stroke.is_some() || r.shadow.is_some();
    let mut run_passes = std::mem::take(&mut caches.run_passes);
    run_passes.clear();
    if layout.runs.iter().any(own) {
        run_passes.extend(
            layout
                .runs
                .iter()
                .map(|r| passes_of(r.stroke.or(style.stroke), r.shadow.or(style.shadow), color)),
        );
    }
    let passes_at = |run: u16| *run_passes.get(run as usize).unwrap_or(&passes);
    // A text with an outline or a shadow (the same for all its runs, filled in colours): each glyph one bitmap
    // of its three layers and one quad drawn three times, pass by pass (`Batcher::begin_styled`). Otherwise each
    // pass's bitmaps are quads of their own.
    let styled = (passes[0].is_some() || passes[1].is_some())
        && run_passes.is_empty()
        && style.gradient.is_none()
        && cx.batcher.styled_room(layout.glyphs.len());
    // A pass's offset (a shadow's) on the target: whole pixels where the glyphs land on whole pixels.
    let offset_of = |cx: &Ctx<'_, F>, off: Vec2| {
        let v = matrix.matrix2 * off;
        match snap && v != Vec2::ZERO {
            true => snap_vector(cx, v),
            false => v,
        }
    };
    let shadow_offset = passes[0].map_or(Vec2::ZERO, |(_, _, off)| offset_of(cx, off));
    // The text's bitmaps, looked up in the atlas only when its layout, size, passes or font changed or
    // the atlas emptied a page since.
    let effects = match styled {
        true => [Some(packed_of(&passes)), None, None],
        false => passes.map(|p| p.map(|(e, _, _)| e)),
    };
    let text_sys = &mut caches.text;
    let evictions = text_sys.atlas.evictions;
    let valid = text_sys.placed.get(&text.id()).is_some_and(|p| {
        p.version == text.layout_key()
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
        for (pass, &text_effect) in effects.iter().enumerate() {
            for (i, g) in layout.glyphs.iter().enumerate() {
                let effect = match styled {
                    true => text_effect,
                    false => passes_at(g.run)[pass].map(|(e, _, _)| e),
                };
                let Some(effect) = effect else {
                    continue;
                };
                // A shaped text's glyph may be a fallback font's.
                let Some(font) = text.font_at(g.font) else {
                    continue;
                };
                // A rich text's run may have a size of its own.
                let glyph_size = layout
                    .runs
                    .get(g.run as usize)
                    .map_or(raster_size, |r| r.size * raster);
                let key = GlyphKey {
                    font: font.id(),
                    glyph: g.glyph,
                    size_bits: glyph_size.to_bits(),
                    effect,
                };
                let Some(e) = text_sys.atlas.get_or_insert(key, |max| {
                    if styled {
                        return font.rasterize_packed(g.glyph, glyph_size, effect, max);
                    }
                    // Refused before rasterising when the grown bitmap could not fit.
                    let pad = 2 * crate::text::effect_pad(effect);
                    let r = font.rasterize_within(g.glyph, glyph_size, max.checked_sub(pad)?)?;
                    font.apply_effect(g.glyph, glyph_size, r, effect, max)
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
        let complete =
            text_sys.atlas.deferred_this_frame == deferred && text_sys.atlas.evictions == evictions;
        placed.version = if complete {
            text.layout_key()
        } else {
            (u64::MAX, u64::MAX, u64::MAX)
        };
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
        return Some(());
    };
    placed.frame = *frame;
    for &page_id in &placed.pages {
        atlas.touch_page(page_id);
    }
    let page_size = atlas.page_size();
    // Where a glyph's bitmap `e` lands: its top-left corner on the target (on whole pixels where crisp), from
    // the glyph's pen position.
    let place =
        |cx: &Ctx<'_, F>, g: &crate::text::PlacedGlyph, e: &crate::text::atlas::AtlasGlyph| {
            let local = origin + Vec2::new(g.x, g.baseline) + Vec2::from(e.offset) * inv;
            let p0 = matrix.transform_point2(local);
            let p0 = match (snap, cx.cache_space) {
                (false, _) => p0,
                // On the cache's texels (its texture starts on a whole texel of its space).
                (true, Some((to_local, to_clip, res))) => {
                    to_clip.transform_point2((to_local.transform_point2(p0) * res).round() / res)
                }
                (true, None) => cx.view.clip_of(cx.view.pixels_of(p0).round()),
            };
            (local, p0)
        };
    // A run may fill in a colour of its own.
    let fill_of = |g: &crate::text::PlacedGlyph| {
        layout
            .runs
            .get(g.run as usize)
            .and_then(|r| r.color)
            .filter(|_| !mask)
            .map(|c| (inh.color * c).to_rgba8_u32())
    };
    if styled {
        let pass_color = |i: usize| passes[i].map_or(0, |(_, c, _)| c);
        let data = crate::frame::batcher::StyledData {
            passes: PASS_FILL
                | if passes[1].is_some() { PASS_OUTLINE } else { 0 }
                | if passes[0].is_some() { PASS_SHADOW } else { 0 },
            outline: pass_color(1),
            shadow: pass_color(0),
            offset: shadow_offset.into(),
        };
        let shadow = passes[0].is_some();
        if cx.batcher.begin_styled(placed.entries.len(), data) {
            for (_, i, e) in &placed.entries {
                let (Some(g), Some(tex)) = (
                    layout.glyphs.get(*i as usize),
                    caches.pages.get(e.page as usize),
                ) else {
                    continue;
                };
                let (_, p0) = place(cx, g, e);
                let dx = dx_unit * e.rect[2] as f32;
                let dy = dy_unit * e.rect[3] as f32;
                if cx.track {
                    cx.acc.add_quad(p0, dx, dy);
                    if shadow {
                        cx.acc.add_quad(p0 + shadow_offset, dx, dy);
                    }
                }
                cx.stats.styled_glyphs += 1;
                cx.batcher.push_styled(
                    tex,
                    [p0.into(), dx.into(), dy.into()],
                    Quad::styled_frame(e.rect, e.inset, page_size),
                    fill_of(g).unwrap_or(color),
                    inh.blend,
                );
            }
            cx.batcher.end_styled();
        }
        caches.run_passes = run_passes;
        if !mask {
            cx.stats.texts += 1;
        }
        return Some(());
    }
    let page = page_size as f32;
    for &(pass, i, e) in &placed.entries {
        let Some(g) = layout.glyphs.get(i as usize) else {
            continue;
        };
        let Some((_, mut color, offset)) = passes_at(g.run)[pass as usize] else {
            continue;
        };
        // A rich text's run may fill in a colour of its own; else a gradient colours the fill's corners.
        let mut gradient = None;
        if pass == 2 && !mask {
            match fill_of(g) {
                Some(c) => color = c,
                None => gradient = style.gradient,
            }
        }
        let Some(tex) = caches.pages.get(e.page as usize) else {
            continue;
        };
        let (local, mut p0) = place(cx, g, &e);
        p0 += offset_of(cx, offset);
        let local = local + offset;
        let dx = dx_unit * e.rect[2] as f32;
        let dy = dy_unit * e.rect[3] as f32;
        if cx.track {
            cx.acc.add_quad(p0, dx, dy);
        }
        let [x, y, w, h] = e.rect.map(|v| v as f32);
        let uv = [x / page, y / page, (x + w) / page, (y + h) / page];
        match gradient {
            Some(grad) => {
                // The gradient at the glyph's corners, in fractions of the block.
                let size = Vec2::from(layout.size).max(Vec2::splat(1e-6));
                let at = |p: Vec2| (inh.color * grad.at((p - origin) / size)).to_rgba8_u32();
                let (w, h) = (w * inv, h * inv);
                let colors = [
                    at(local),
                    at(local + Vec2::new(w, 0.0)),
                    at(local + Vec2::new(0.0, h)),
                    at(local + Vec2::new(w, h)),
                ];
                cx.batcher.push_vertex_quad(
                    tex,
                    [p0.into(), dx.into(), dy.into()],
                    uv,
                    colors,
                    inh.blend,
                );
            }
            None => {
                cx.batcher
                    .push_quad(tex, [p0.into(), dx.into(), dy.into()], uv, color, inh.blend)
            }
        }
    }
    caches.run_passes = run_passes;
    if !mask {
        cx.stats.texts += 1;
    }
    Some(())
}

/// The packed atlas key of a styled text's glyphs with `passes` (shadow, outline, fill): the shadow's effect (or
/// the outline's), and which layers it holds.
fn packed_of(passes: &[Option<(u32, u32, Vec2)>; 3]) -> u32 {
    use crate::text::glyph_effects::{PACKED_EFFECT, PACKED_OUTLINE, PACKED_SHADOW};
    let (shadow, outline) = (passes[0].map(|p| p.0), passes[1].map(|p| p.0));
    PACKED_EFFECT
        | shadow.or(outline).unwrap_or(0)
        | outline.map_or(0, |_| PACKED_OUTLINE)
        | shadow.map_or(0, |_| PACKED_SHADOW)
}

/// A vector on the target (clip space, or a cache's) rounded to whole pixels (or texels) of it.
fn snap_vector<F: Fn(TextureId) -> bool>(cx: &Ctx<'_, F>, v: Vec2) -> Vec2 {
    match cx.cache_space {
        Some((to_local, to_clip, res)) => {
            to_clip.matrix2 * ((to_local.matrix2 * v * res).round() / res)
        }
        None => {
            let px = Vec2::new(v.x, -v.y) * cx.view.half_size;
            let px = px.round() / cx.view.half_size;
            Vec2::new(px.x, -px.y)
        }
    }
}

/// The pixels a unit of the text's x and y axes span where its glyphs land (`matrix`: text to clip space): the
/// target's pixels, or inside a cache being drawn the cache's texels (in the cached node's own space, y down,
/// hence the sign that makes both read as the target's: y up).
fn pixels_per_unit<F: Fn(TextureId) -> bool>(cx: &Ctx<'_, F>, matrix: Affine2) -> (Vec2, Vec2) {
    match cx.cache_space {
        Some((to_local, _, res)) => {
            let l = to_local.matrix2 * matrix.matrix2;
            (l.x_axis * res, -(l.y_axis * res))
        }
        None => (
            matrix.matrix2.x_axis * cx.view.half_size,
            matrix.matrix2.y_axis * cx.view.half_size,
        ),
    }
}

/// The scale glyphs of a `size`-pixel text are rasterised at when one of its pixels covers `world` target pixels:
/// `world` rounded up to a quarter octave (1, 1.19, 1.41, 1.68, 2, ...), so a zoom from 1 to 2 makes five sizes,
/// within 1/8 to 8, and glyphs at most 256 pixels (larger text keeps its own size). 1 for a non-finite scale.
pub(crate) fn raster_scale(world: f32, size: f32) -> f32 {
    if !(world.is_finite() && world > 0.0) {
        return 1.0;
    }
    let steps = (world.log2() * 4.0 - 1e-3).ceil().clamp(-12.0, 12.0);
    let r = (steps / 4.0).exp2();
    let cap = (256.0 / size).max(1.0);
    r.min(cap)
}

#[cfg(test)]
mod tests {
    use super::raster_scale;

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
