//! What the walk carries: the view it draws for, what a node passes to its children, the caches kept between
//! frames, the walk's context and the counted skip. Shared by the walk's files (`visit.rs`, `text.rs` and the
//! others), so that each can use them without naming another.

use crate::base::stats::{FrameStats, SkipList};
use crate::frame::batcher::Batcher;
use crate::graphics::TessellationCache;
use crate::scene::cull::Aabb;
use crate::scene::Scene;
#[cfg(feature = "text")]
use crate::text::TextSystem;
use crate::{BlendMode, Color, NodeId, TextureId};
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
    /// Scratch of a rich text's passes by run (`text.rs`), kept so that a frame allocates none.
    #[cfg(feature = "text")]
    pub(super) run_passes: Vec<[Option<(u32, u32, Vec2)>; 3]>,
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
    /// The node attached to a render layer that the layer is drawing now (drawn, not skipped in place).
    pub(super) layer_entry: Option<NodeId>,
    /// Inside a cache being drawn (its content goes into a texture in the cached node's own space): clip space to
    /// that space, back, and the cache's texels per unit of it. Text is rasterised for those texels.
    pub(super) cache_space: Option<(Affine2, Affine2, f32)>,
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
