//! Filters in the walk. A filtered node opens a *segment*: everything drawn until its subtree is done goes to
//! the pass of its *group* (an intermediate texture) and carries a transform index whose entry, written once the
//! group's texture is laid out, maps the elements from the target's clip space into the texture. When the
//! subtree is done its bounds are measured from what it drew (or taken from its filter area), cut to the
//! target and padded, the segment is placed in its group's texture, and one quad showing that place is drawn
//! where the node was, with the filters' blend mode.
//!
//! Segments whose filters have the same settings, at the same nesting depth and stencil depth, and only
//! position-independent effects (blur, colour matrix, alpha, glow, outline, drop shadow) share a group: they
//! are packed side by side into one texture (a shelf packer, with the padding as a gap) and every filter pass
//! runs once for all of them. Each other segment has a group of its own.
//!
//! Nothing here touches the GPU: a group's output texture is a handle reserved ahead of the walk
//! ([`FilterWalk::handles`]); a walk that needs more groups than handles notes the shortfall and the frame walks
//! again with more.

mod cache;
mod kept;
mod place;

use super::visit::Ctx;
use crate::filter::passes::{push_passes, ChainSettings, DisplacementMap, Pass};
use crate::filter::{Antialias, Effect, Filter};
use crate::frame::batcher::{Quad, DATA_FLAG, TRANSFORM_SHIFT};
use crate::scene::cull::Aabb;
use crate::{MaskChannel, NodeId, NodeKind, TextureId};
use glam::{Affine2, Vec2};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::ops::Range;

/// Most filtered nodes nested in one another; deeper ones are drawn unfiltered (counted).
pub(crate) const MAX_FILTER_DEPTH: usize = 64;

/// A group's texture: the widest it grows before the packer starts a new row.
const PAGE_WIDTH: u32 = 2048;

/// What a group's texture is for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum GroupKind {
    /// Its node's filters run over it.
    Filters,
    /// It holds an alpha mask's pixels (no passes, no quad of its own).
    MaskSource,
    /// A cached container's content, drawn in its own space into the cache's texture (kept between frames).
    Cache,
    /// A node with an advanced blend mode: its content, combined with its backdrop where its marker stands.
    Blend(crate::BlendMode),
    /// The whole frame, drawn into a texture so that advanced blend modes can copy their backdrop from it.
    Root,
    /// Its content is masked by the mask source segment `mask` (`None`: the mask drew nothing).
    Masked {
        mask: Option<u32>,
        channel: MaskChannel,
        inverse: bool,
    },
}

/// A group of segments drawn into one intermediate texture and filtered together.
#[derive(Clone, Debug)]
pub(crate) struct FilterGroup {
    pub kind: GroupKind,
    /// The node whose filters the group runs.
    pub node: NodeId,
    /// Nesting depth (deeper groups run first: their outputs are drawn into shallower ones).
    pub depth: u16,
    /// The stencil reference in effect when its segments began (the content pass clears its stencil to it).
    pub stencil_ref: u8,
    /// Texture pixels per target pixel.
    pub scale: f32,
    /// The reserved texture the result goes to; `None` when the walk ran out of handles.
    pub output: Option<TextureId>,
    /// The extent used so far, and the shelf packer's cursor (x, y, row height).
    pub extent: (u32, u32),
    cursor: (u32, u32, u32),
    gap: u32,
    /// The texture size (a multiple of 64 covering the extent), set when the walk ends.
    pub size: (u32, u32),
    /// Its passes in [`FilterWalk::passes`].
    pub passes: Range<usize>,
    /// Where the texture's origin lies on the target, in texture pixels (a group of one segment), for
    /// position-dependent filters.
    pub origin: Vec2,
    /// Segments drawn into it.
    pub segments: u32,
    /// Whether its content is multisampled.
    pub msaa: bool,
    /// How its texture is sampled where it is drawn.
    pub sampling: crate::Sampling,
    /// What its content pass clears to (the root's starts from the frame's clear colour).
    pub clear: Option<crate::Color>,
    /// The blend mode its result is drawn with.
    pub blend: crate::BlendMode,
    /// Its result goes to a texture kept between frames (its node's [`Kept`] entry), never straight into the
    /// pass holding it: while nothing it draws from changes, the frame draws that texture and runs nothing.
    pub keep: bool,
}

/// One filtered node's part of a group.
#[derive(Clone, Copy, Debug)]
struct Segment {
    group: u32,
    /// Its transform entry.
    xform: u32,
    /// Its place in the group's texture (pixels) and size.
    pos: (u32, u32),
    size: (u32, u32),
    /// The texture pixel at the target's origin: texture pixel = target pixel * scale - origin + pos.
    origin: Vec2,
    /// Its quad in the quad stream; `None` if it was not drawn.
    quad: Option<u32>,
    /// A cache's map from the target's clip space to its texture's pixels (it is drawn in its own space).
    local: Option<Affine2>,
    /// Its rectangle in target pixels, and the transform index of the pass it is drawn into.
    rect: (Vec2, Vec2),
    parent_xform: u32,
}

/// A filtered node drawn by its last filter pass straight into the pass that holds it (PixiJS's way: no
/// intermediate result and no quad), where its quad stood. Groups of one segment draw this way.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FinalDraw {
    pub group: u32,
    /// The group whose pass it is drawn in; `None` for the frame's own.
    pub parent: Option<u32>,
    /// Its rectangle in that pass's pixels: x, y, width, height.
    pub rect: [f32; 4],
    /// The size of that pass's target (the frame's own: set by the frame).
    pub parent_size: Option<(u32, u32)>,
    /// Its content's size in its group's texture.
    pub size: (u32, u32),
}

/// An advanced blend mode's draw: where the pass of `parent` (a group; the root when the frame has such modes)
/// is split, its rectangle there copied, and segment `seg`'s content combined with it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BlendDraw {
    pub seg: u32,
    /// The group whose pass it is drawn in (set when the walk ends).
    pub parent: Option<u32>,
    /// The group holding its content.
    pub group: u32,
    pub mode: crate::BlendMode,
    /// Its rectangle in the parent's texture pixels: x, y, width, height.
    pub rect: [u32; 4],
}

/// A segment being walked.
#[derive(Clone, Copy, Debug)]
pub(super) struct Open {
    node: NodeId,
    group: u32,
    xform: u32,
    prev_target: u16,
    prev_xform: u32,
    prev_pad: Vec2,
    quads: usize,
    vertices: usize,
    points: usize,
    /// Node space to clip space (for the filter area).
    matrix: Affine2,
    settings: ChainSettings,
    /// A cache being drawn: its settings, serial, and the colour and blend mode its texture is drawn with.
    cache: Option<(crate::CacheAsTexture, u64, u32, crate::BlendMode)>,
    /// The walk's [`Ctx::cache_space`] before it opened.
    prev_cache_space: Option<(Affine2, Affine2, f32)>,
}

/// The filters of one walk.
#[derive(Debug, Default)]
pub(crate) struct FilterWalk {
    /// Output textures reserved for groups, in order of use.
    pub handles: Vec<TextureId>,
    /// Groups the last walk could not give a handle.
    pub shortfall: usize,
    pub groups: Vec<FilterGroup>,
    segments: Vec<Segment>,
    /// Packable groups of this walk by (settings hash, depth, stencil reference).
    by_key: HashMap<(u64, u16, u8), u32>,
    pub(super) stack: Vec<Open>,
    /// The passes of every group, and their uniform bytes.
    pub passes: Vec<Pass>,
    pub arena: Vec<u8>,
    /// Largest texture side.
    pub max_side: u32,
    /// Target pixels per scene pixel (the target's scale factor).
    pub target_scale: f32,
    /// Whether the target is multisampled (for [`Antialias::Inherit`]).
    pub msaa: bool,
    /// The tag of the custom filter shaders the renderer made (others are skipped).
    pub shader_owner: u32,
    /// Cached containers' textures, by slot, kept between walks.
    caches: crate::base::IntMap<u32, CacheEntry>,
    /// Texture handles reserved for new caches; a walk that needed more notes the shortfall (those caches
    /// draw uncached once).
    pub cache_spares: Vec<TextureId>,
    pub cache_shortfall: usize,
    /// Of those, new caches (drawn uncached for want of a handle: the frame walks again with one).
    pub new_cache_shortfall: usize,
    /// Handles of caches dropped, for the frame to destroy.
    pub cache_released: Vec<TextureId>,
    /// Walks begun.
    walks: u64,
    /// Advanced blend draws of this walk.
    pub blends: Vec<BlendDraw>,
    /// Whether walks draw the whole frame into a texture first (while advanced blend modes are drawn), and
    /// whether this walk met one without it (the frame walks again with it).
    pub root_wanted: bool,
    pub needs_root: bool,
    /// Walks since the last advanced blend mode (after a while the root texture is let go).
    pub walks_without_blend: u32,
    /// The root group's index, while it is open or after.
    pub root: Option<u32>,
    /// The frame's clear colour (the root texture starts from it, so blend modes see it).
    pub clear: Option<crate::Color>,
    /// The caller's target as its earlier work left it, for an embedded frame drawn over it
    /// ([`Renderer::prepare_over`](crate::Renderer::prepare_over)): the root texture starts from it, so blend
    /// modes see it, and replaces the target.
    pub backdrop: Option<TextureId>,
    /// Filtered nodes drawn by their last pass, and where their quads are replaced by markers.
    pub finals: Vec<FinalDraw>,
    pub final_splits: Vec<(u32, u32)>,
    /// Per group: its final draw, if it draws that way.
    pub direct: Vec<Option<u32>>,
    /// Filtered nodes' results kept between frames, by the slot of the node leading the group.
    pub kept: crate::base::IntMap<u32, Kept>,
    /// Frames whose filters were prepared (what [`Kept::seen`] counts in).
    pub prepares: u64,
    /// Whether unchanged results are kept (`RendererOptions::keep_filter_results`).
    pub keep_results: bool,
}

/// What is known of a filtered node's group across frames. Its *fingerprint* hashes everything its result is
/// drawn from (its content's elements, transforms, textures and their versions, its passes and uniforms, its
/// size and place); once it held between two frames, the group draws into a texture of its own, and while it
/// holds after that, the group is not run again (PixiJS filters every frame).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Kept {
    pub generation: u32,
    /// The texture its result is kept in (while stable).
    pub handle: Option<TextureId>,
    /// Its fingerprint at the last prepare (`None`: it reads something whose pixels cannot be followed).
    pub fingerprint: Option<u64>,
    /// The prepare that last saw it.
    pub seen: u64,
    /// Whether its fingerprint was equal in the last two prepares.
    pub stable: bool,
    /// The fingerprint of what `handle` holds, once a run drew it.
    pub rendered: Option<u64>,
}

impl Kept {
    /// What is known of a node first seen leading a group (of generation `generation`).
    pub fn new(generation: u32) -> Kept {
        Kept {
            generation,
            handle: None,
            fingerprint: None,
            seen: 0,
            stable: false,
            rendered: None,
        }
    }
}

/// A cached container's texture and what it was drawn from.
#[derive(Clone, Copy, Debug)]
struct CacheEntry {
    generation: u32,
    handle: TextureId,
    /// Its content's rectangle in the node's space.
    local: (Vec2, Vec2),
    /// The scene epoch it was drawn at, the update serial, settings and target scale.
    epoch: u64,
    serial: u64,
    settings: crate::CacheAsTexture,
    target_scale: f32,
    /// The walk that last used it.
    seen: u64,
}

/// What the walk does with a cached container.
#[derive(Clone, Copy, Debug)]
pub(super) enum Cached {
    /// Its texture was drawn (its subtree is not walked); the node's transform to clip space, if usable.
    Drawn(Option<Affine2>),
    /// A segment is open: walk its subtree into the cache's texture.
    Render,
    /// Not cached (no cache set, no children, no handle this walk): walk it as usual.
    Plain,
}

/// A hash of what a chain of filters does with its pixels (the settings of every enabled filter).
fn settings_hash(filters: &[Filter]) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    for f in filters.iter().filter(|f| f.enabled) {
        match &f.effect {
            Effect::Alpha(a) => {
                1u8.hash(&mut h);
                a.to_bits().hash(&mut h);
            }
            Effect::Blur(b) => {
                2u8.hash(&mut h);
                (b.strength_x.to_bits(), b.strength_y.to_bits()).hash(&mut h);
                b.quality.hash(&mut h);
                b.kernel_size.hash(&mut h);
                b.legacy.hash(&mut h);
            }
            Effect::ColorMatrix(m) => {
                3u8.hash(&mut h);
                m.matrix.iter().for_each(|v| v.to_bits().hash(&mut h));
                m.alpha.to_bits().hash(&mut h);
            }
            Effect::DropShadow(d) => {
                4u8.hash(&mut h);
                for v in [
                    d.offset.x, d.offset.y, d.alpha, d.blur, d.color.r, d.color.g,
                ] {
                    v.to_bits().hash(&mut h);
                }
                (
                    d.color.b.to_bits(),
                    d.color.a.to_bits(),
                    d.quality,
                    d.shadow_only,
                )
                    .hash(&mut h);
            }
            Effect::Glow(g) => {
                5u8.hash(&mut h);
                for v in [
                    g.distance,
                    g.outer_strength,
                    g.inner_strength,
                    g.alpha,
                    g.quality,
                ] {
                    v.to_bits().hash(&mut h);
                }
                for v in [g.color.r, g.color.g, g.color.b, g.color.a] {
                    v.to_bits().hash(&mut h);
                }
                g.knockout.hash(&mut h);
            }
            Effect::Outline(o) => {
                6u8.hash(&mut h);
                for v in [
                    o.thickness,
                    o.alpha,
                    o.quality,
                    o.color.r,
                    o.color.g,
                    o.color.b,
                ] {
                    v.to_bits().hash(&mut h);
                }
                o.knockout.hash(&mut h);
            }
            // Not packable: never looked up.
            _ => 7u8.hash(&mut h),
        }
        f.padding.map(f32::to_bits).hash(&mut h);
        f.resolution.map(f32::to_bits).hash(&mut h);
        (f.antialias, f.blend_mode, f.clip_to_viewport).hash(&mut h);
    }
    h.finish()
}

impl FilterWalk {
    /// Sets what the next walks draw into: the largest texture side, the target's scale factor and whether it
    /// is multisampled.
    pub fn configure(&mut self, max_side: u32, target_scale: f32, msaa: bool) {
        self.max_side = max_side;
        self.msaa = msaa;
        self.target_scale = target_scale;
    }

    /// Starts a walk.
    pub(super) fn begin(&mut self) {
        self.shortfall = 0;
        self.cache_shortfall = 0;
        self.new_cache_shortfall = 0;
        self.blends.clear();
        self.finals.clear();
        self.final_splits.clear();
        self.direct.clear();
        self.needs_root = false;
        self.root = None;
        self.walks_without_blend = self.walks_without_blend.saturating_add(1);
        self.walks += 1;
        if self.walks.is_multiple_of(64) {
            let walks = self.walks;
            let released = &mut self.cache_released;
            self.caches.retain(|_, e| {
                let keep = walks - e.seen < 120;
                if !keep {
                    released.push(e.handle);
                }
                keep
            });
        }
        self.groups.clear();
        self.segments.clear();
        self.by_key.clear();
        self.stack.clear();
        self.passes.clear();
        self.arena.clear();
        if self.max_side == 0 {
            self.max_side = 8192;
        }
        if !(self.target_scale.is_finite() && self.target_scale > 0.0) {
            self.target_scale = 1.0;
        }
    }

    /// Opens a segment for the filtered node `id` (transform `matrix` to clip space) before it is drawn;
    /// `false` when it is drawn unfiltered (no filter enabled, nesting too deep, no transform entry left).
    pub(super) fn open<F: Fn(TextureId) -> bool>(
        &mut self,
        cx: &mut Ctx<'_, F>,
        id: NodeId,
        matrix: Affine2,
    ) -> bool {
        let Some(f) = cx.scene.filtered(id) else {
            return false;
        };
        let Some(settings) = ChainSettings::of(&f.filters) else {
            return false;
        };
        let hash = settings_hash(&f.filters);
        self.open_with(cx, id, matrix, settings, GroupKind::Filters, hash)
    }

    /// The settings of an alpha mask's textures: the target's resolution, no padding.
    fn mask_settings() -> ChainSettings {
        ChainSettings {
            resolution: None,
            padding: 0.0,
            antialias: Antialias::Inherit,
            clip_to_viewport: true,
            blend: crate::BlendMode::Normal,
            packable: false,
        }
    }

    /// Opens the segment of a node with an advanced blend mode; `false` when it draws normally (drawn into the
    /// frame's own pass, which cannot be split: the frame walks again with the root texture).
    pub(super) fn blend_open<F: Fn(TextureId) -> bool>(
        &mut self,
        cx: &mut Ctx<'_, F>,
        id: NodeId,
        mode: crate::BlendMode,
    ) -> bool {
        let Some(parent) = self.stack.last() else {
            self.needs_root = true;
            return false;
        };
        let parent_scale = self.groups[parent.group as usize].scale;
        self.walks_without_blend = 0;
        let settings = ChainSettings {
            resolution: Some(parent_scale * self.target_scale),
            padding: 0.0,
            antialias: Antialias::Off,
            clip_to_viewport: true,
            blend: crate::BlendMode::Normal,
            packable: false,
        };
        self.open_with(
            cx,
            id,
            Affine2::IDENTITY,
            settings,
            GroupKind::Blend(mode),
            0,
        )
    }

    /// Opens the root segment: the whole frame drawn into a texture, started from the clear colour, then drawn
    /// over the target (replacing it when there is a clear colour).
    pub(super) fn open_root<F: Fn(TextureId) -> bool>(
        &mut self,
        cx: &mut Ctx<'_, F>,
        start: NodeId,
    ) {
        let settings = ChainSettings {
            resolution: None,
            padding: 0.0,
            antialias: Antialias::Inherit,
            clip_to_viewport: true,
            blend: match (self.clear, self.backdrop) {
                (None, None) => crate::BlendMode::Normal,
                _ => crate::BlendMode::None,
            },
            packable: false,
        };
        if self.open_with(cx, start, Affine2::IDENTITY, settings, GroupKind::Root, 0) {
            let g = self.stack.last().expect("just opened").group;
            self.groups[g as usize].clear = Some(self.clear.unwrap_or(crate::Color::TRANSPARENT));
            self.root = Some(g);
            if let Some(b) = self.backdrop.filter(|&b| (cx.is_live)(b)) {
                // The caller's target, the whole of it in clip space, under everything the frame draws.
                let whole = [[-1.0, 1.0], [2.0, 0.0], [0.0, -2.0]];
                let uv = [0.0, 0.0, 1.0, 1.0];
                let replace = crate::BlendMode::None;
                cx.batcher.push_quad(b, whole, uv, u32::MAX, replace);
            }
        }
    }

    /// Opens the segment an alpha mask's pixels are drawn into (closed with [`FilterWalk::close`], which
    /// returns it).
    pub(super) fn open_mask_source<F: Fn(TextureId) -> bool>(
        &mut self,
        cx: &mut Ctx<'_, F>,
        mask: NodeId,
    ) -> bool {
        let s = Self::mask_settings();
        self.open_with(cx, mask, Affine2::IDENTITY, s, GroupKind::MaskSource, 0)
    }

    /// Opens the segment of a node alpha-masked by the mask source segment `mask`.
    pub(super) fn open_masked<F: Fn(TextureId) -> bool>(
        &mut self,
        cx: &mut Ctx<'_, F>,
        id: NodeId,
        mask: Option<u32>,
        channel: MaskChannel,
        inverse: bool,
    ) -> bool {
        let kind = GroupKind::Masked {
            mask,
            channel,
            inverse,
        };
        let s = Self::mask_settings();
        self.open_with(cx, id, Affine2::IDENTITY, s, kind, 0)
    }

    fn open_with<F: Fn(TextureId) -> bool>(
        &mut self,
        cx: &mut Ctx<'_, F>,
        id: NodeId,
        matrix: Affine2,
        settings: ChainSettings,
        kind: GroupKind,
        hash: u64,
    ) -> bool {
        if self.stack.len() >= MAX_FILTER_DEPTH {
            skip_filters(
                cx,
                id,
                "filtered nodes nest deeper than 64: drawn unfiltered",
            );
            return false;
        }
        let Some(xform) = cx.batcher.push_transform(Affine2::ZERO, u32::MAX) else {
            skip_filters(cx, id, "too many transforms in one frame: drawn unfiltered");
            return false;
        };
        let depth = self.stack.len() as u16;
        let stencil_ref = cx.batcher.state().stencil_ref;
        let resolution = settings.resolution.unwrap_or(self.target_scale);
        let scale = resolution / self.target_scale;
        let key = (hash, depth, stencil_ref);
        let found = if settings.packable {
            let filters = cx.scene.filters(id);
            self.by_key.get(&key).copied().filter(|&g| {
                let g = &self.groups[g as usize];
                g.scale == scale && cx.scene.filters(g.node) == filters
            })
        } else {
            None
        };
        let group = match found {
            Some(g) => g,
            None => {
                let g = self.groups.len() as u32;
                let kept = match kind {
                    GroupKind::Filters => self.kept_handle(id),
                    _ => None,
                };
                let output = match kind {
                    // A cache draws into its own texture (set by `cached`).
                    GroupKind::Cache => None,
                    _ => kept.or_else(|| self.handles.get(g as usize).copied()),
                };
                if output.is_none() && kind != GroupKind::Cache {
                    self.shortfall += 1;
                }
                let msaa = match settings.antialias {
                    Antialias::Off => false,
                    Antialias::On => true,
                    Antialias::Inherit => self.msaa,
                };
                let pad = (settings.padding * resolution).ceil() as u32;
                self.groups.push(FilterGroup {
                    kind,
                    node: id,
                    depth,
                    stencil_ref,
                    scale,
                    output,
                    extent: (0, 0),
                    cursor: (0, 0, 0),
                    gap: pad.min(256) + 2,
                    size: (0, 0),
                    passes: 0..0,
                    origin: Vec2::ZERO,
                    segments: 0,
                    msaa,
                    sampling: crate::Sampling::LINEAR,
                    clear: None,
                    blend: settings.blend,
                    keep: kept.is_some(),
                });
                if settings.packable {
                    self.by_key.insert(key, g);
                }
                g
            }
        };
        // Inside, culling keeps what the padding may bring into view.
        let prev_pad = cx.pad;
        cx.pad += Vec2::splat(settings.padding * self.target_scale) / cx.view.half_size;
        self.stack.push(Open {
            node: id,
            group,
            xform,
            prev_target: cx.batcher.target(),
            prev_xform: cx.batcher.xform(),
            prev_pad,
            quads: cx.batcher.quads.len(),
            vertices: cx.batcher.vertices.len(),
            points: cx.batcher.extra_points.len(),
            matrix,
            settings,
            cache: None,
            prev_cache_space: cx.cache_space.take(),
        });
        cx.batcher.set_target(group as u16 + 1);
        cx.batcher.set_xform(xform);
        // A kept walk would patch the subtree's quads in the target's space: every frame walks.
        cx.volatile = true;
        true
    }

    /// Closes the innermost segment: measures it, places it in its group's texture and draws its quad.
    pub(super) fn close<F: Fn(TextureId) -> bool>(&mut self, cx: &mut Ctx<'_, F>) -> Option<u32> {
        let open = self.stack.pop()?;
        // Results of nested filtered nodes still waiting are part of this one's content.
        cx.batcher.flush_deferred(Some(open.group as u16 + 1));
        cx.batcher.set_target(open.prev_target);
        cx.batcher.set_xform(open.prev_xform);
        cx.pad = open.prev_pad;
        cx.cache_space = open.prev_cache_space;
        if let Some(cache) = open.cache {
            return self.close_cache(cx, open, cache);
        }
        let view = cx.view;
        // The box of what the segment drew, in target pixels: its own elements (nested segments carry their
        // own transform and are drawn here through their quads).
        let mut clip = Aabb::EMPTY;
        let area = cx.scene.filtered(open.node).and_then(|f| f.area);
        match area {
            Some(r) => {
                let size = r.max - r.min;
                clip.add_quad(
                    open.matrix.transform_point2(r.min),
                    open.matrix.matrix2.x_axis * size.x,
                    open.matrix.matrix2.y_axis * size.y,
                );
            }
            None => {
                let k = open.xform;
                let quads = cx.batcher.quads.as_slice();
                for (i, q) in quads.iter().enumerate().skip(open.quads) {
                    if q.texture >> TRANSFORM_SHIFT == k && q.texture & DATA_FLAG == 0 {
                        clip.add_quad(q.origin.into(), q.x_edge.into(), q.y_edge.into());
                        // A styled glyph's shadow too.
                        let s = Vec2::from(Quad::shadow_offset(quads, i));
                        if s != Vec2::ZERO {
                            let o = Vec2::from(q.origin) + s;
                            clip.add_quad(o, q.x_edge.into(), q.y_edge.into());
                        }
                    }
                }
                for v in &cx.batcher.vertices.as_slice()[open.vertices..] {
                    if v.texture >> TRANSFORM_SHIFT == k {
                        clip.add_point(v.position.into());
                    }
                }
                for (p, x) in &cx.batcher.extra_points[open.points..] {
                    if *x == k {
                        clip.add_point((*p).into());
                    }
                }
            }
        }
        let group = &mut self.groups[open.group as usize];
        let settings = open.settings;
        let s = group.scale;
        let drop = |cx: &mut Ctx<'_, F>| {
            // Nothing of it shows: its elements are mapped to nothing (the entry stays zero).
            let g = crate::frame::elements::GroupTransform::new(Affine2::ZERO, 0);
            cx.batcher.transforms.set_value::<8>(open.xform as usize, g);
        };
        let root = group.kind == GroupKind::Root;
        if !root && (clip.is_empty() || !(clip.min.is_finite() && clip.max.is_finite())) {
            drop(cx);
            return None;
        }
        let (a, b) = (view.pixels_of(clip.min), view.pixels_of(clip.max));
        let (mut lo, mut hi) = match root {
            // The whole target.
            true => (Vec2::ZERO, view.size()),
            false => (a.min(b), a.max(b)),
        };
        if settings.clip_to_viewport {
            lo = lo.max(Vec2::ZERO);
            hi = hi.min(view.size());
            if !(lo.x < hi.x && lo.y < hi.y) {
                drop(cx);
                return None;
            }
        }
        // In texture pixels: snapped outwards, then padded (PixiJS's order).
        let pad = (settings.padding * self.target_scale * s).ceil();
        let mut min = (lo * s).floor() - Vec2::splat(pad);
        let mut max = (hi * s).ceil() + Vec2::splat(pad);
        // No larger than the device allows, nor much larger than the target (a huge node not cut to the target
        // is filtered at a lower resolution instead).
        let max_side = (self.max_side as f32).min((view.size().max_element() * 2.0).max(512.0));
        let mut scale = s;
        let size = max - min;
        if size.x > max_side || size.y > max_side {
            // Larger than a texture (a huge node not cut to the target): drawn at a lower resolution.
            let shrink = (max_side / size.x).min(max_side / size.y);
            scale = s * shrink;
            min = (lo * scale).floor() - Vec2::splat((pad * shrink).ceil());
            max = ((hi * scale).ceil() + Vec2::splat((pad * shrink).ceil())).min(min + max_side);
        }
        let size = (max - min).max(Vec2::ONE);
        let (w, h) = (size.x as u32, size.y as u32);
        if scale != group.scale && group.segments > 0 {
            // A packed group keeps one scale: this segment cannot join it.
            skip_filters(cx, open.node, "a filtered node too large for a texture");
            drop(cx);
            return None;
        }
        group.scale = scale;
        // The shelf packer.
        let (mut x, mut y, mut row) = group.cursor;
        if x > 0 && x + w > PAGE_WIDTH.min(self.max_side) {
            y += row + group.gap;
            x = 0;
            row = 0;
        }
        if y + h > self.max_side {
            skip_filters(
                cx,
                open.node,
                "its filter group's texture is full (too many large filtered nodes with the same filters)",
            );
            drop(cx);
            return None;
        }
        let pos = (x, y);
        group.cursor = (x + w + group.gap, y, row.max(h));
        group.extent = (group.extent.0.max(x + w), group.extent.1.max(y + h));
        group.segments += 1;
        group.origin = min;
        cx.stats.filtered_nodes += 1;
        // The quad showing the result, drawn where the node was (deferred: the results of filtered siblings join
        // one batch while their contents join another).
        let seg = self.segments.len() as u32;
        let composite = !matches!(group.kind, GroupKind::MaskSource | GroupKind::Blend(_));
        if let GroupKind::Blend(mode) = group.kind {
            // An invisible quad over its place, so that the pass holding it measures it, and the marker where its
            // draw happens.
            let to_clip = |p: Vec2| view.clip_of_px(p);
            let p0 = to_clip(min / scale);
            let p1 = to_clip(Vec2::new(max.x, min.y) / scale);
            let p3 = to_clip(Vec2::new(min.x, max.y) / scale);
            let g = [p0.into(), (p1 - p0).into(), (p3 - p0).into()];
            cx.batcher
                .push_quad(view.white, g, [0.0; 4], 0, crate::BlendMode::Normal);
            if cx.track {
                cx.acc.add_quad(p0, p1 - p0, p3 - p0);
            }
            cx.batcher.push_marker(self.blends.len() as u32);
            self.blends.push(BlendDraw {
                seg: self.segments.len() as u32,
                parent: None,
                group: open.group,
                mode,
                rect: [0; 4],
            });
        }
        if let (Some(t), true) = (group.output, composite) {
            let to_clip = |p: Vec2| view.clip_of_px(p);
            let p0 = to_clip(min / scale);
            let p1 = to_clip(Vec2::new(max.x, min.y) / scale);
            let p3 = to_clip(Vec2::new(min.x, max.y) / scale);
            cx.batcher.defer_quad(
                seg,
                t,
                [p0.into(), (p1 - p0).into(), (p3 - p0).into()],
                [0.0; 4],
                u32::MAX,
                settings.blend,
            );
            if cx.track {
                cx.acc.add_quad(p0, p1 - p0, p3 - p0);
            }
        }
        let first = group.segments == 1;
        self.segments.push(Segment {
            group: open.group,
            xform: open.xform,
            pos,
            size: (w, h),
            origin: min,
            quad: None,
            local: None,
            rect: (min / scale, max / scale),
            parent_xform: open.prev_xform,
        });
        if first {
            self.make_passes(cx, open.group as usize, min);
        }
        Some(seg)
    }

    /// The passes of group `g`, from its node's filters (`origin`: where its texture lies on the target).
    fn make_passes<F: Fn(TextureId) -> bool>(
        &mut self,
        cx: &mut Ctx<'_, F>,
        g: usize,
        origin: Vec2,
    ) {
        let node = self.groups[g].node;
        let scale = self.groups[g].scale;
        let start = self.passes.len();
        match self.groups[g].kind {
            GroupKind::Filters => {}
            GroupKind::MaskSource | GroupKind::Cache | GroupKind::Blend(_) | GroupKind::Root => {
                return
            }
            GroupKind::Masked { mask, .. } => {
                // Its uniforms are written when the walk ends and the mask's texture has its size.
                let at = self.arena.len() as u32;
                self.arena.extend_from_slice(&[0u8; 48]);
                let mut textures = [None; crate::filter::passes::MAX_CUSTOM_TEXTURES];
                let source = mask
                    .and_then(|m| self.segments.get(m as usize))
                    .map(|m| m.group);
                textures[0] = source
                    .and_then(|m| self.groups[m as usize].output)
                    .or(self.groups[g].output);
                self.passes.push(Pass {
                    program: crate::filter::passes::Program::Mask,
                    params: (at, 48),
                    textures,
                    first_of_filter: true,
                });
                self.groups[g].passes = start..self.passes.len();
                return;
            }
        }
        let filters = cx.scene.filters(node);
        for f in filters.iter().filter(|f| f.enabled) {
            if let Effect::Custom(c) = &f.effect {
                if c.shader.owner != self.shader_owner {
                    skip_filters(cx, node, "its custom filter shader is another renderer's");
                    continue;
                }
            }
            let map = match &f.effect {
                Effect::Displacement(d) => displacement_map(cx, d.map, origin, scale),
                _ => None,
            };
            let px = scale * self.target_scale;
            if let Err(why) = push_passes(f, map, px, &mut self.passes, &mut self.arena) {
                skip_filters(cx, node, why);
            }
        }
        self.groups[g].passes = start..self.passes.len();
    }

    /// Ends the walk: sizes each group's texture and writes each segment's transform and quad frame.
    pub(super) fn finish(
        &mut self,
        batcher: &mut crate::frame::batcher::Batcher,
        view: &super::View,
    ) {
        batcher.flush_deferred(None);
        for &(seg, quad) in &batcher.flushed {
            if let Some(s) = self.segments.get_mut(seg as usize) {
                s.quad = Some(quad);
            }
        }
        for g in &mut self.groups {
            if g.kind == GroupKind::Cache {
                continue; // sized exactly when it closed
            }
            let (w, h) = g.extent;
            g.size = (
                w.max(1).next_multiple_of(64).min(self.max_side),
                h.max(1).next_multiple_of(64).min(self.max_side),
            );
        }
        self.place_blends(view);
        self.place_finals(view);
        for i in 0..self.segments.len() {
            let s = self.segments[i];
            let g = self.groups[s.group as usize].clone();
            let (tw, th) = (g.size.0 as f32, g.size.1 as f32);
            // clip -> target pixels -> texture pixels -> texture clip.
            let to_px = Affine2::from_cols(
                Vec2::new(view.half_size.x, 0.0),
                Vec2::new(0.0, -view.half_size.y),
                view.half_size,
            );
            let offset = Vec2::new(s.pos.0 as f32, s.pos.1 as f32) - s.origin;
            let to_tex =
                Affine2::from_translation(offset) * Affine2::from_scale(Vec2::splat(g.scale));
            let to_tex_clip = Affine2::from_cols(
                Vec2::new(2.0 / tw, 0.0),
                Vec2::new(0.0, -2.0 / th),
                Vec2::new(-1.0, 1.0),
            );
            let m = match s.local {
                Some(local) => to_tex_clip * local,
                None => to_tex_clip * to_tex * to_px,
            };
            batcher.transforms.set_value::<8>(
                s.xform as usize,
                crate::frame::elements::GroupTransform::new(m, u32::MAX),
            );
            if let GroupKind::Masked {
                mask,
                channel,
                inverse,
            } = g.kind
            {
                self.write_mask_params(s, g, mask, channel, inverse);
            }
            if let Some(q) = s.quad {
                let (x, y) = (s.pos.0 as f32, s.pos.1 as f32);
                let (w, h) = (s.size.0 as f32, s.size.1 as f32);
                let uv = [x / tw, y / th, (x + w) / tw, (y + h) / th];
                if let Some(quad) = batcher.quads.get(q as usize).copied() {
                    let geometry = [quad.origin, quad.x_edge, quad.y_edge];
                    batcher.patch_quad(q as usize, geometry, uv, quad.color);
                }
            }
        }
    }
}

/// Counts and logs (the first of a frame through the skip list) a filter that cannot run.
fn skip_filters<F: Fn(TextureId) -> bool>(cx: &mut Ctx<'_, F>, id: NodeId, why: &'static str) {
    cx.stats.filters_skipped += 1;
    if cx.stats.filters_skipped == 1 {
        log::warn!("filter on {id:?} skipped: {why}");
    }
    // Listed with the skipped nodes, but not counted as one: the node still draws.
    cx.skips.push(id, why);
}

/// Where a displacement map sprite lies, for a group whose texture's origin is `origin` (texture pixels) at
/// `scale` texture pixels per target pixel.
fn displacement_map<F: Fn(TextureId) -> bool>(
    cx: &mut Ctx<'_, F>,
    map: NodeId,
    origin: Vec2,
    scale: f32,
) -> Option<DisplacementMap> {
    let slot = cx.scene.slot(map)?;
    let NodeKind::Sprite(sprite) = &slot.node.kind else {
        return None;
    };
    let texture = sprite.texture.id();
    if !(cx.is_live)(texture) {
        return None;
    }
    let world = cx.scene.world_transform(map)?;
    let to_clip = cx.view.to_clip * world;
    if to_clip.matrix2.determinant() == 0.0 || !to_clip.matrix2.is_finite() {
        return None;
    }
    let size = sprite.size_in_pixels();
    if !(size.x > 0.0 && size.y > 0.0) {
        return None;
    }
    // Texture pixels of the group -> target pixels -> clip -> the map's own space -> its texture coordinates.
    let from_px = cx.view.px_to_clip();
    let m = Affine2::from_translation(sprite.anchor)
        * Affine2::from_scale(1.0 / size)
        * to_clip.inverse()
        * from_px
        * Affine2::from_scale(Vec2::splat(1.0 / scale))
        * Affine2::from_translation(origin);
    // The shader gives it texture pixels (its texture coordinates times the texture size).
    let wt = world.matrix2;
    let (lx, ly) = (wt.x_axis.length(), wt.y_axis.length());
    let rotation = if lx > 0.0 && ly > 0.0 {
        [
            wt.x_axis.x / lx,
            wt.x_axis.y / lx,
            wt.y_axis.x / ly,
            wt.y_axis.y / ly,
        ]
    } else {
        [1.0, 0.0, 0.0, 1.0]
    };
    Some(DisplacementMap {
        matrix: [
            [m.matrix2.x_axis.x, m.matrix2.x_axis.y, 0.0, 0.0],
            [m.matrix2.y_axis.x, m.matrix2.y_axis.y, 0.0, 0.0],
            [m.translation.x, m.translation.y, 1.0, 0.0],
        ],
        rotation,
        texture,
    })
}
