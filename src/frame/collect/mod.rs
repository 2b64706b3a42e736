//! Collect: walks the scene in tree order, resolves world transforms, alpha, tint and blend modes, and feeds each
//! drawable to the [`Batcher`]. Masks are pushed before a masked node and popped after its subtree through the
//! [`MaskStack`] state machine. Pure CPU work: no GPU calls.
//!
//! Bad input is skipped, never fatal: a node with a non-finite transform, alpha, tint or size, or a sprite whose
//! texture was destroyed, is left out with its subtree, counted in [`FrameStats::nodes_skipped`], and the first such
//! node of a frame is logged with `log::warn!`. Everything else still draws.

mod cells;
mod context;
pub(crate) mod filters;
mod group;
mod layers;
mod masks;
mod parallel;
mod retain;
#[cfg(feature = "text")]
mod text;
mod visit;

pub use context::{Caches, View};
pub(crate) use retain::Key as WalkKey;
use visit::{push_ready, skip, visit_leaf_sprite, visit_slot, Ctx, Inherited};

use crate::base::stats::{FrameStats, SkipList};
use crate::frame::batcher::Batcher;
use crate::frame::mask::{MaskStack, MaskStep};
use crate::frame::placement::Placement;
use crate::scene::cull::{Aabb, Bounds, BoundsCache};
use crate::scene::Scene;
use crate::{BlendMode, Color, NodeId, NodeKind, TextureId};
use glam::{Affine2, Vec2};

/// A mask to pop when a frame's subtree is done.
#[derive(Clone, Copy, Debug)]
enum Pop {
    None,
    Scissor,
    Stencil {
        mask: NodeId,
        matrix: Affine2,
    },
    /// An alpha mask: its masked segment closes.
    Alpha,
}

/// What a subtree root does about its bounds while the walk is inside it.
#[derive(Clone, Copy, Debug)]
enum Measure {
    /// Nothing.
    None,
    /// Its bounds are stale: the walk measures what it draws; `acc`, `track` and `incomplete` are the outer
    /// measurement's.
    Measuring {
        acc: Aabb,
        track: bool,
        incomplete: bool,
    },
    /// Its bounds are known (already added to any outer measurement): measuring pauses inside.
    Paused { track: bool },
}

#[derive(Clone, Copy, Debug)]
struct Frame {
    node: NodeId,
    cursor: usize,
    inherited: Inherited,
    pop: Pop,
    measure: Measure,
    /// The level of quads computed ahead for this node's children, and the child it begins at.
    ahead: Option<(usize, usize)>,
    /// What the children inherit, as noted for a later frame that keeps the walk (see `retain/`).
    kept: u32,
    /// Filter, mask or cache segments the node opened (closed when its subtree is done).
    segments: u8,
    /// For a render layer: the nodes it draws before its children, `layer_lists[start..end]`, and the next.
    layer: Option<(u32, u32)>,
}

/// Mask counters of one walk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MaskCounters {
    /// Masks pushed (both kinds).
    pub pushed: u64,
    /// Masks served by a scissor rectangle.
    pub scissor: u64,
    /// Whether any stencil mask was used (the pass needs a stencil attachment).
    pub used_stencil: bool,
}

/// Walks a scene into a batcher; keeps its stacks and the tessellation cache between frames so steady state
/// allocates nothing.
#[derive(Debug)]
pub struct Collector {
    stack: Vec<Frame>,
    mask_walk: Vec<Frame>,
    masks: MaskStack,
    steps: Vec<MaskStep>,
    /// Meshes of graphics contexts and text layouts with their glyph atlas.
    pub caches: Caches,
    /// Mask counters of the last walk.
    pub mask_counters: MaskCounters,
    /// The first nodes the last walk skipped, and why.
    pub skipped: SkipList,
    /// The node the walk in progress started from: masks inside its subtree are placed relative to it.
    start: Option<NodeId>,
    /// Whether the last walk met a sprite showing the texture being drawn into (see `collect_from`).
    pub feedback_loop: bool,
    /// Subtree bounds for culling.
    bounds: BoundsCache,
    /// Render groups' kept geometry.
    groups: group::Groups,
    /// Leaf sprites computed on every core ahead of the walk.
    ahead: parallel::Ahead,
    /// Children left in a container from which they are computed ahead (see `parallel.rs`).
    parallel_min: usize,
    /// The last walk, for frames that keep it.
    kept: retain::Kept,
    /// Filtered nodes of the last walk: their groups, passes and segments.
    pub(crate) filters: filters::FilterWalk,
    /// The nodes of the render layers this walk entered, in their draw order (see [`Frame::layer`]).
    layer_lists: Vec<NodeId>,
    /// What the walk's start inherits (the view).
    root_inherited: Inherited,
}

impl Default for Collector {
    fn default() -> Self {
        Collector {
            stack: Vec::new(),
            mask_walk: Vec::new(),
            masks: MaskStack::default(),
            steps: Vec::new(),
            caches: Caches::default(),
            mask_counters: MaskCounters::default(),
            skipped: SkipList::default(),
            start: None,
            feedback_loop: false,
            bounds: BoundsCache::default(),
            groups: group::Groups::default(),
            ahead: parallel::Ahead::default(),
            kept: retain::Kept::default(),
            filters: filters::FilterWalk::default(),
            layer_lists: Vec::new(),
            root_inherited: Inherited::ROOT,
            // Two threads (a 2-vCPU VM, where the other one is busy) gain nothing measurable: see parallel.rs.
            parallel_min: if rayon::current_num_threads() >= 4 {
                parallel::PARALLEL_MIN
            } else {
                usize::MAX
            },
        }
    }
}

impl Collector {
    /// Sets how many children a container must have left for the walk to compute them on every core
    /// (`usize::MAX`: never; pools under four threads never do). Tests compare both walks.
    pub fn set_parallel_min(&mut self, min: usize) {
        self.parallel_min = if rayon::current_num_threads() >= 4 || cfg!(test) {
            min.max(1)
        } else {
            usize::MAX
        };
    }
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
        self.collect_from(scene, scene.root(), view, batcher, is_live, None, stats);
    }

    /// A renderer's frame: keeps the last walk if the scene allows it (see `retain/`: the quads of the leaf
    /// sprites changed since are computed again in place), and otherwise begins `batcher`, walks the subtree of
    /// `start` as [`Collector::collect_from`] and finishes it. `liveness` counts changes to which textures are
    /// live ([`TextureSystem::liveness`](crate::gpu::texture_system::TextureSystem::liveness)).
    #[allow(clippy::too_many_arguments)]
    pub fn collect_frame(
        &mut self,
        scene: &Scene,
        start: NodeId,
        view: View,
        batcher: &mut Batcher,
        is_live: impl Fn(TextureId) -> bool,
        forbidden: Option<TextureId>,
        liveness: u64,
        stats: &mut FrameStats,
    ) {
        let key = retain::Key {
            start,
            view,
            forbidden,
            liveness,
        };
        self.collect_frame_placing(scene, &key, batcher, is_live, None, stats);
    }

    /// How many moved sprites' corners the next [`Collector::collect_frame_placing`] under the same arguments may
    /// place straight into staging (`placement.rs`); 0 when it will not.
    pub(crate) fn moves_to_place(&mut self, scene: &Scene, key: &retain::Key) -> usize {
        self.kept.moves_to_place(scene, key, self.parallel_min)
    }

    /// [`Collector::collect_frame`], with `place` (staging for [`Collector::moves_to_place`] corners) for a kept
    /// frame's moved sprites.
    pub(crate) fn collect_frame_placing(
        &mut self,
        scene: &Scene,
        key: &retain::Key,
        batcher: &mut Batcher,
        is_live: impl Fn(TextureId) -> bool,
        place: Option<&mut Placement>,
        stats: &mut FrameStats,
    ) {
        let retain::Key {
            start,
            view,
            forbidden,
            ..
        } = *key;
        if self
            .kept
            .patch(scene, key, batcher, self.parallel_min, place, stats)
        {
            return;
        }
        batcher.begin();
        self.collect_from(scene, start, view, batcher, is_live, forbidden, stats);
        batcher.finish();
        // Every quad was written again: those whose corners earlier kept frames placed straight into staging are
        // uploaded with what changed.
        batcher.quads.heal_stale(|_, _| {});
        if let Some(r) = self.kept.patched.take() {
            // Quads a kept frame patched before it gave up for this walk never reached the GPU.
            batcher.quads.mark_dirty(r);
        }
        // Glyphs refused as too large are counted by the atlas until the upload; a kept frame repeats them.
        #[allow(unused_mut)]
        let mut seen = *stats;
        #[cfg(feature = "text")]
        {
            let atlas = &self.caches.text.atlas;
            seen.glyphs_too_large += atlas.too_large_this_frame;
            // A glyph put off for lack of atlas room is drawn by a later walk, which may make room.
            if atlas.deferred_this_frame > 0 {
                self.kept.volatile();
            }
        }
        self.kept.end_walk(*key, &seen);
    }

    /// Forgets the last walk for frames that would keep it (its streams never reached the GPU).
    pub fn forget_kept(&mut self) {
        self.kept.forget();
    }

    /// Walks the subtree of `start` (drawn even if hidden; its ancestors are ignored) into `view`, noting what a
    /// later frame needs to keep the walk. Sprites showing `forbidden` (the texture being drawn into) are skipped
    /// and flag [`Collector::feedback_loop`].
    #[allow(clippy::too_many_arguments)]
    pub fn collect_from(
        &mut self,
        scene: &Scene,
        start: NodeId,
        view: View,
        batcher: &mut Batcher,
        is_live: impl Fn(TextureId) -> bool,
        forbidden: Option<TextureId>,
        stats: &mut FrameStats,
    ) {
        let since = scene.begin_render_walk();
        self.kept.begin_walk(since);
        let mut skipped = SkipList::default();
        self.start = Some(start);
        let mut cx = Ctx {
            scene,
            view,
            batcher,
            is_live,
            stats,
            skips: &mut skipped,
            forbidden,
            feedback_loop: false,
            live: None,
            acc: Aabb::EMPTY,
            track: false,
            incomplete: false,
            pad: Vec2::splat(2.0) / view.half_size,
            epoch: since.0,
            volatile: false,
            layer_entry: None,
            cache_space: None,
        };
        self.bounds.begin();
        self.groups.begin();
        self.filters.begin();
        self.caches.custom_meshes.begin();
        self.masks.reset();
        self.ahead.reset();
        self.mask_counters = MaskCounters::default();
        self.stack.clear();
        self.layer_lists.clear();
        let root = Inherited {
            matrix: view.to_clip,
            color: Color::WHITE,
            packed: u32::MAX,
            blend: BlendMode::Normal,
        };
        self.root_inherited = root;
        if self.filters.root_wanted {
            self.filters.open_root(&mut cx, start);
        }
        self.enter(&mut cx, start, root, true);
        while let Some(top) = self.stack.last_mut() {
            // A render layer draws its attached nodes first, each with what it inherits where it stands.
            if let Some((at, end)) = top.layer {
                if at < end {
                    top.layer = Some((at + 1, end));
                    let child = self.layer_lists[at as usize];
                    if let Some(inh) = layers::inherited(scene, start, self.root_inherited, child) {
                        cx.layer_entry = Some(child);
                        self.enter(&mut cx, child, inh, false);
                        cx.layer_entry = None;
                    }
                    continue;
                }
            }
            let kids = scene.children_of(top.node);
            let inh = top.inherited;
            let top_kept = top.kept;
            let start = top.cursor;
            // Many children left: compute their leaf sprites on every core first (parallel.rs).
            if top.ahead.is_none() && kids.len() - start.min(kids.len()) >= self.parallel_min {
                let level = self.ahead.compute(scene, &kids[start..], &inh);
                top.ahead = Some((level, start));
            }
            let ahead = top.ahead;
            // Leaves without masks are drawn in this inner loop; anything else goes through `enter`.
            let mut next = None;
            let mut i = start;
            while i < kids.len() {
                if let Some((level, from)) = ahead {
                    let (quads, meta) = self.ahead.level(level);
                    let (k, end) = (i - from, kids.len() - from);
                    if meta[k].ready {
                        let j = k + meta[k..end].iter().take_while(|m| m.ready).count();
                        let first = cx.batcher.quads.len();
                        push_ready(&mut cx, &kids[i..i + (j - k)], &quads[k..j], &meta[k..j]);
                        if cx.batcher.quads.len() - first == j - k {
                            for (n, (id, m)) in
                                kids[i..i + (j - k)].iter().zip(&meta[k..j]).enumerate()
                            {
                                let q = (first + n) as u32;
                                self.kept
                                    .note(id.slot(), q, top_kept, m.texture, m.blend, m.local);
                            }
                        }
                        // Otherwise some were skipped: which, the walk does not know, so it notes none of them
                        // (a change to one of them walks).
                        i += j - k;
                        continue;
                    }
                }
                let child = kids[i];
                i += 1;
                let Some(slot) = scene.slot(child) else {
                    continue;
                };
                let simple = slot.child_count() == 0
                    && !slot.masks_involved()
                    && !slot.node.blend_mode.is_advanced()
                    && !matches!(slot.node.kind, NodeKind::RenderLayer(_));
                if simple {
                    if let NodeKind::Sprite(sprite) = &slot.node.kind {
                        let q = cx.batcher.quads.len() as u32;
                        if let Some((local, blend)) = visit_leaf_sprite(
                            &mut cx,
                            child,
                            slot.transform,
                            slot.node,
                            sprite,
                            &inh,
                        ) {
                            // Past the batcher's quad limit the quad was dropped: nothing to note.
                            if cx.batcher.quads.len() as u32 != q {
                                let t = sprite.texture.id();
                                self.kept.note(child.slot(), q, top_kept, t, blend, local);
                            }
                        }
                    } else {
                        visit_slot(&mut cx, &mut self.caches, child, slot, inh, false, false);
                    }
                } else {
                    next = Some((i, child));
                    break;
                }
            }
            match next {
                Some((cursor, child)) => {
                    self.stack.last_mut().expect("top").cursor = cursor;
                    self.enter(&mut cx, child, inh, false);
                }
                None => {
                    let done = self.stack.pop().expect("top");
                    if done.ahead.is_some() {
                        self.ahead.release();
                    }
                    for _ in 0..done.segments {
                        self.filters.close(&mut cx);
                    }
                    self.finish_measure(
                        &mut cx,
                        done.node,
                        done.measure,
                        Some(&done.inherited.matrix),
                    );
                    self.pop_mask(&mut cx, done.pop);
                }
            }
        }
        debug_assert!(self.masks.is_empty(), "every mask pushed was popped");
        if self.filters.root.is_some() {
            self.filters.close(&mut cx);
        }
        debug_assert!(self.filters.stack.is_empty(), "every segment was closed");
        self.filters.finish(cx.batcher, &view);
        cx.batcher.set_state(Default::default());
        self.feedback_loop = cx.feedback_loop;
        if cx.volatile {
            self.kept.volatile();
        }
        self.skipped = skipped;
    }

    /// Draws `id` (pushing its mask first) and, if it has children, pushes a frame for them; otherwise pops the
    /// mask at once.
    fn enter<F: Fn(TextureId) -> bool>(
        &mut self,
        cx: &mut Ctx<'_, F>,
        id: NodeId,
        parent: Inherited,
        root: bool,
    ) {
        let scene = cx.scene;
        let Some(slot) = scene.slot(id) else { return };
        let node = slot.node;
        // A node used as a mask is drawn only into the stencil (PixiJS's masks are not content), unless it is
        // the subtree asked for.
        if (!node.visible || slot.is_mask()) && !root {
            return;
        }
        // A node on a render layer is drawn where the layer is, not here.
        if slot.layered()
            && !root
            && cx.layer_entry != Some(id)
            && scene.layer_slot(id.slot()).is_some()
        {
            return;
        }
        // A layer drawn inside itself (through a node attached to another layer): not again.
        let layer = matches!(node.kind, NodeKind::RenderLayer(_));
        if layer && self.stack.iter().any(|f| f.node == id) {
            skip(
                cx.stats,
                cx.skips,
                id,
                "a render layer would draw inside itself",
            );
            return;
        }
        let mut measure = Measure::None;
        if !root && slot.child_count() != 0 {
            match self.bounds.lookup(cx.scene, id) {
                Bounds::Known(local) => {
                    let clip = local.transformed(&(parent.matrix * slot.transform.matrix()));
                    let finite = !(clip.min.is_nan() || clip.max.is_nan());
                    if finite {
                        if cx.track {
                            cx.acc.union(clip);
                        }
                        if !clip.touches_view(cx.pad) {
                            cx.stats.culled += !clip.is_empty() as u64;
                            return;
                        }
                        measure = Measure::Paused { track: cx.track };
                    }
                }
                Bounds::Measure => {
                    measure = Measure::Measuring {
                        acc: cx.acc,
                        track: cx.track,
                        incomplete: cx.incomplete,
                    }
                }
                Bounds::Skip => {}
            }
        }
        let pop = match if slot.masked() {
            cx.scene.mask(id)
        } else {
            None
        } {
            None => Pop::None,
            Some(mask) => match self.push_mask(cx, id, mask) {
                Some(p) => p,
                None => {
                    // Not drawn for a reason of this frame or target (the mask is empty here, or nests too
                    // deep): an enclosing measurement must not take its absence as final.
                    cx.incomplete = true;
                    cx.volatile = true;
                    return;
                }
            },
        };
        match measure {
            Measure::None => {}
            Measure::Measuring { .. } => {
                cx.acc = Aabb::EMPTY;
                cx.track = true;
                cx.incomplete = false;
            }
            Measure::Paused { .. } => cx.track = false,
        }
        let mut segments = 0u8;
        let mut content_parent = parent;
        let mut cache_render = false;
        // An advanced blend mode: the node (its cache, its filters' result) drawn into a texture and combined
        // with its backdrop.
        if node.blend_mode.is_advanced() && self.filters.blend_open(cx, id, node.blend_mode) {
            segments += 1;
        }
        if slot.filtered() {
            match self.filters.cached(cx, id, slot, &parent) {
                filters::Cached::Drawn(matrix) => {
                    for _ in 0..segments {
                        self.filters.close(cx);
                    }
                    self.finish_measure(cx, id, measure, matrix.as_ref());
                    self.pop_mask(cx, pop);
                    return;
                }
                filters::Cached::Render => {
                    segments += 1;
                    cache_render = true;
                    // Its own colour and blend mode apply when its texture is drawn.
                    content_parent = Inherited {
                        matrix: parent.matrix,
                        ..Inherited::ROOT
                    };
                }
                filters::Cached::Plain => {}
            }
        }
        let filtered = slot.filtered()
            && self
                .filters
                .open(cx, id, parent.matrix * slot.transform.matrix());
        segments += filtered as u8;
        // The walk's start is drawn even if hidden, with its own colour, alpha and blend mode.
        let visited = visit_slot(cx, &mut self.caches, id, slot, content_parent, false, root);
        // A layer's attached nodes, in draw order (attached nodes that moved to another scene are gone).
        let layer_list = match (&visited, layer) {
            (Some(_), true) => {
                let from = self.layer_lists.len() as u32;
                scene.layer_draw_order_into(id, &mut self.layer_lists);
                let to = self.layer_lists.len() as u32;
                // Nodes drawn from elsewhere in the tree: a later frame cannot keep this walk.
                cx.volatile |= to > from;
                (to > from).then_some((from, to))
            }
            _ => None,
        };
        let visited = match (visited, layer_list) {
            (Some((inh, _)), Some(_)) => Some((inh, true)),
            (v, _) => v,
        };
        match visited {
            Some((mut inh, true)) => {
                if cache_render {
                    // Its own colour is applied when its texture is drawn, not to its children in it.
                    inh = Inherited {
                        matrix: inh.matrix,
                        ..Inherited::ROOT
                    };
                }
                // A render group inside a filtered subtree (or filtered itself) is walked as a container: its
                // recording's transforms are the target's.
                let replay = node.render_group && segments == 0 && cx.batcher.xform() == 0;
                if replay && self.groups.draw(&mut self.caches, cx, id, &inh) {
                    self.finish_measure(cx, id, measure, Some(&inh.matrix));
                    self.pop_mask(cx, pop);
                } else {
                    self.stack.push(Frame {
                        node: id,
                        cursor: 0,
                        inherited: inh,
                        pop,
                        measure,
                        ahead: None,
                        kept: self.kept.container(inh),
                        segments,
                        layer: layer_list,
                    })
                }
            }
            Some((inh, false)) => {
                for _ in 0..segments {
                    self.filters.close(cx);
                }
                self.finish_measure(cx, id, measure, Some(&inh.matrix));
                self.pop_mask(cx, pop);
            }
            None => {
                for _ in 0..segments {
                    self.filters.close(cx);
                }
                self.finish_measure(cx, id, measure, None);
                self.pop_mask(cx, pop);
            }
        }
    }

    /// Ends what `enter` began about the bounds of `id`: stores the measured bounds (given the node's transform
    /// to clip space; without it, as for a node skipped for bad input, nothing is stored) and resumes the outer
    /// measurement.
    fn finish_measure<F: Fn(TextureId) -> bool>(
        &mut self,
        cx: &mut Ctx<'_, F>,
        id: NodeId,
        measure: Measure,
        matrix: Option<&Affine2>,
    ) {
        match measure {
            Measure::None => {}
            Measure::Paused { track } => cx.track = track,
            Measure::Measuring {
                acc,
                track,
                incomplete,
            } => {
                let mine = cx.acc;
                if let (Some(m), false) = (matrix, cx.incomplete) {
                    self.bounds.store(id, cx.epoch, mine, m);
                    // Measured wholly outside the target: the next walk culls it, so it must walk.
                    cx.volatile |= !mine.is_empty() && !mine.touches_view(cx.pad);
                }
                cx.acc = acc;
                cx.track = track;
                cx.incomplete |= incomplete;
                if track {
                    cx.acc.union(mine);
                }
            }
        }
    }
}

/// A `side` x `side` texture handle with index `i` (walks never touch the GPU), for the tests of the walk.
#[cfg(test)]
fn test_texture(i: u32, side: u32) -> crate::Texture {
    let id = TextureId {
        index: i,
        generation: 0,
    };
    crate::Texture::new(id, side, side)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graphics::GraphicsContext;
    use crate::{Node, Texture};

    fn tex(i: u32) -> Texture {
        test_texture(i, 10)
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

    /// Walks `scene` twice into fresh batchers, computing leaf sprites ahead in containers of at least `min`
    /// children or never, and over two frames each (the second compares with the first): everything the
    /// batcher and the counters hold must be the same.
    fn same_with_and_without_parallel(scene: &Scene, min: usize, textures: u32) {
        let view = View {
            to_clip: Affine2::from_scale(Vec2::splat(0.004)),
            half_size: Vec2::splat(250.0),
            white: TextureId {
                index: 99,
                generation: 0,
            },
        };
        let walk = |min: usize| {
            let mut c = Collector::default();
            c.set_parallel_min(min);
            let mut b = Batcher::new(textures as usize);
            let mut out = Vec::new();
            for _ in 0..2 {
                let mut s = FrameStats::default();
                b.begin();
                c.collect(scene, view, &mut b, |t| t.index < 100, &mut s);
                b.finish();
                out.push((
                    b.quads.as_slice().to_vec(),
                    b.vertices.as_slice().to_vec(),
                    b.indices.as_slice().to_vec(),
                    b.batches().to_vec(),
                    b.quads.dirty_ranges().to_vec(),
                    (s.sprites, s.shapes, s.nodes_skipped, s.dead_textures),
                ));
            }
            out
        };
        let (par, ser) = (walk(min), walk(usize::MAX));
        for (frame, (p, s)) in par.iter().zip(&ser).enumerate() {
            assert_eq!(p.5, s.5, "frame {frame}: counters");
            assert!(p.0 == s.0, "frame {frame}: quads");
            assert!(p.1 == s.1, "frame {frame}: vertices");
            assert!(p.2 == s.2, "frame {frame}: indices");
            assert!(p.3 == s.3, "frame {frame}: batches");
            // Quads computed ahead are compared with last frame's 16 at a time: the dirty ranges may be wider,
            // never narrower.
            for r in &s.4 {
                assert!(
                    p.4.iter().any(|q| q.start <= r.start && r.end <= q.end),
                    "frame {frame}: dirty quads {r:?} not uploaded ({:?})",
                    p.4
                );
            }
        }
    }

    #[test]
    fn leaf_sprites_computed_ahead_give_the_single_threaded_output() {
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u32| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % n as u64) as u32
        };
        for case in 0..12 {
            let mut scene = Scene::new();
            let r = scene.root();
            let big = scene
                .add(r, Node::container().at(3.0, 4.0).with_alpha(0.5))
                .unwrap();
            let mut parents = vec![r, big];
            let mut ctx = GraphicsContext::new();
            ctx.rect(0.0, 0.0, 5.0, 5.0).fill(Color::rgb(1.0, 0.0, 0.0));
            let ctx = std::sync::Arc::new(ctx);
            for i in 0..3000 {
                let parent = parents[next(parents.len() as u32) as usize];
                let node = match next(20) {
                    // Mostly plain sprites on a few textures (one destroyed), sometimes tinted or scaled.
                    0..=11 => Node::sprite(tex([0, 1, 2, 3, 500][next(5) as usize]))
                        .at(next(800) as f32, next(600) as f32)
                        .tinted(Color::rgb(1.0, next(2) as f32, 1.0)),
                    12 => Node::sprite(tex(1)).at(f32::NAN, 0.0),
                    13 => Node::sprite(tex(2)).with_alpha(f32::INFINITY),
                    14 => Node::sprite(tex(3)).with_visible(false),
                    15 => Node::sprite(tex(0)).blended(BlendMode::Add),
                    16 => Node::graphics(ctx.clone()).at(10.0, 10.0),
                    17 => Node::container().at(1.0, 2.0),
                    _ => Node::sprite(tex(next(4))).anchor(0.5, 1.0).sized(3.0, 7.0),
                };
                let id = scene.add(parent, node).unwrap();
                if matches!(scene.get(id).unwrap().kind, NodeKind::Container) || i % 97 == 0 {
                    parents.push(id);
                }
                if i % 401 == 0 {
                    let m = scene.add_detached(Node::sprite(tex(1)).sized(50.0, 50.0));
                    scene.set_mask(id, m, i % 2 == 0).unwrap();
                }
            }
            let min = [1, 2, 64, 1000][case % 4];
            let textures = [16, 3, 1][case % 3];
            same_with_and_without_parallel(&scene, min, textures);
        }
    }

    #[test]
    fn a_large_flat_container_copied_on_every_core_gives_the_single_threaded_output() {
        let mut scene = Scene::new();
        let r = scene.root();
        for i in 0..20_000u32 {
            let t = if i % 15_001 == 0 { 500 } else { i / 3000 % 20 };
            let mut n = Node::sprite(tex(t)).at((i % 700) as f32, (i / 700) as f32);
            if i % 777 == 0 {
                n = n.blended(BlendMode::Add);
            }
            scene.add(r, n).unwrap();
        }
        same_with_and_without_parallel(&scene, 1, 16);
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
        scene.transform_mut(group).unwrap().scale = Vec2::splat(2.0);
        scene.add(group, Node::sprite(tex(0)).at(5.0, 0.0)).unwrap();
        let (b, s) = run(&scene);
        assert_eq!(s.sprites, 1);
        let q = b.quads.as_slice()[0];
        assert_eq!(q.corner(0).0, [110.0, 0.0]);
        assert_eq!(q.corner(2).0, [130.0, 20.0]);
        // tint (1,0,1) alpha 0.5 -> 0x80ff00ff
        assert_eq!(q.color, 0x80ff_00ff);
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
        let q = b.quads.as_slice()[0];
        assert_eq!(q.corner(0).0, [40.0, 10.0]);
        assert_eq!(q.corner(2).0, [60.0, 50.0]);
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
    fn leaf_sprites_and_sprites_with_children_draw_and_skip_alike() {
        // Leaf sprites take a shorter path than sprites with children; both must give the same quads and skip
        // the same bad input.
        let shapes: [fn(Node) -> Node; 6] = [
            |n| n.at(3.0, 4.0).tinted(Color::rgba(1.0, 0.5, 0.25, 1.0)),
            |n| n.with_alpha(0.5).anchor(0.5, 1.0).sized(7.0, 3.0),
            |n| n.at(f32::NAN, 0.0),
            |n| n.anchor(f32::INFINITY, 0.0),
            |n| n.tinted(Color::rgba(f32::NAN, 1.0, 1.0, 1.0)),
            |n| n.sized(1e30, 1e30).scaled(1e30),
        ];
        for (i, shape) in shapes.iter().enumerate() {
            let mut leaf = Scene::new();
            let r = leaf.root();
            leaf.add(r, shape(Node::sprite(tex(1)))).unwrap();
            let mut parent = Scene::new();
            let r = parent.root();
            let p = parent.add(r, shape(Node::sprite(tex(1)))).unwrap();
            parent.add(p, Node::container()).unwrap();
            let (bl, sl) = run(&leaf);
            let (bp, sp) = run(&parent);
            assert_eq!(bl.quads.as_slice(), bp.quads.as_slice(), "case {i}");
            assert_eq!(
                (sl.sprites, sl.nodes_skipped),
                (sp.sprites, sp.nodes_skipped),
                "case {i}"
            );
            assert_eq!(sl.sprites + sl.nodes_skipped, 1, "case {i}");
            assert_eq!(sl.nodes_skipped == 1, i >= 2, "case {i}");
        }
    }

    #[test]
    fn a_sprite_with_a_destroyed_texture_skips_its_children() {
        let mut scene = Scene::new();
        let r = scene.root();
        let dead = scene.add(r, Node::sprite(tex(500))).unwrap();
        scene.add(dead, Node::sprite(tex(1))).unwrap();
        scene.add(r, Node::sprite(tex(2))).unwrap();
        let (b, s) = run(&scene);
        assert_eq!((s.sprites, s.nodes_skipped, s.dead_textures), (1, 1, 1));
        assert_eq!(b.batches()[0].textures.ids().next().unwrap().index, 2);
    }

    #[test]
    fn frames_of_one_atlas_in_a_row_keep_their_own_coordinates() {
        let mut scene = Scene::new();
        let r = scene.root();
        let atlas = tex(0);
        let frames = [
            atlas.frame(0, 0, 5, 5).unwrap(),
            atlas.frame(5, 0, 5, 5).unwrap(),
            atlas.frame(5, 0, 5, 5).unwrap(),
            atlas,
            atlas.frame(0, 5, 5, 5).unwrap(),
        ];
        for f in frames {
            scene.add(r, Node::sprite(f)).unwrap();
        }
        let (b, _) = run(&scene);
        let uvs: Vec<_> = b.quads.as_slice().iter().map(|q| [q.uv0, q.uv1]).collect();
        let expected: Vec<_> = frames
            .iter()
            .map(|f| {
                let [u0, v0, u1, v1] = f.uvs();
                [[u0, v0], [u1, v1]]
            })
            .collect();
        assert_eq!(uvs, expected);
        assert_eq!(uvs[1], [[0.5, 0.0], [1.0, 0.5]]);
        assert_eq!(
            b.batches()[0].textures.len(),
            1,
            "frames of one texture share a slot"
        );
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
        let p = context::pixel_to_clip(800, 600);
        assert_eq!(p.transform_point2(Vec2::ZERO), Vec2::new(-1.0, 1.0));
        assert_eq!(
            p.transform_point2(Vec2::new(800.0, 600.0)),
            Vec2::new(1.0, -1.0)
        );
    }
}
