//! The scene: the CPU-side model and what works on it alone. It owns the node arena ([`Scene`], here), nodes and
//! their properties (`node.rs`), sprites (`sprite.rs`), sheet animations (`animation.rs`), bounds and the culling
//! cache (`aabb.rs`, `cull.rs`), hit testing (`hit.rs`), interaction types and caches (`interact.rs`), pointer
//! events (`events.rs`), particle containers (`particles.rs`), render layers (`layers.rs`) and bulk transform
//! updates (`bulk.rs`). It may use `base/`, `graphics/` and `text/`; never `assets/`, `frame/`, `gpu/` or
//! `renderer/`: nothing here touches wgpu.
//!
//! The scene graph: nodes in an arena addressed by generational [`NodeId`] handles.
//!
//! Nodes live in parallel per-slot arrays and refer to children by id, so a frame walks contiguous memory and
//! adding, removing or reordering children never reallocates nodes. A removed node's slot is reused with a new
//! generation, so old handles to it are detected instead of reaching the new node.
//!
//! Layout: an update loop moving many sprites and the next frame's walk both stream through the nodes, so what
//! they touch is kept in dense arrays of its own: an 8-byte slot (generation, child count, mask bit) and the
//! 28-byte [`Transform`]. A node's other properties ([`NodeProps`]: colour, visibility, what it draws, about 80
//! bytes) sit in a third array that a loop moving sprites through [`Scene::transform_mut`] never touches, and that
//! a frame patching those sprites' quads never reads. Links (parent, child list) live in a parallel array that the
//! walk reads only for nodes with children.

pub(crate) mod aabb;
pub(crate) mod animation;
pub(crate) mod bulk;
pub(crate) mod cull;
pub(crate) mod events;
pub(crate) mod hit;
pub(crate) mod interact;
pub(crate) mod layers;
pub(crate) mod node;
pub(crate) mod particles;
pub(crate) mod pointer;
pub(crate) mod sprite;

use crate::base::handle::{next_generation, Owner, MAX_SLOTS};
use crate::scene::interact::QueryCache;
use crate::scene::pointer::{Cursor, EventMode, HitArea, Rect};
use crate::{Error, Node, NodeId, NodeProps, Result, Transform};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// When a node, and what lies below it, last changed (walk epochs; see [`Scene::begin_walk`]). Only nodes with
/// children are read (subtree bounds, render groups, cached hit-test bounds), so a leaf's own changes are not
/// stamped, which keeps an update loop over many sprites at one store a sprite: they mark its ancestors, and a leaf
/// that gains a child is marked below then.
#[derive(Clone, Copy, Debug, Default)]
struct Stamps {
    own: u64,
    below: u64,
}

/// A node's interaction and ordering settings, kept beside the slots (most nodes never set them, and the walk
/// reads only `z` through the already sorted child lists).
#[derive(Clone, Debug, Default)]
pub(crate) struct Interact {
    pub event_mode: EventMode,
    /// `interactive_children = false`.
    pub no_child_hits: bool,
    /// Children are kept sorted by `z` (stable).
    pub sortable: bool,
    pub cursor: Option<Cursor>,
    pub z: i32,
    pub hit_area: Option<Arc<HitArea>>,
    /// How many nodes use this one as their mask (see [`Scene::set_mask`]): while any do, it is not drawn as
    /// content.
    pub mask_users: u32,
}

/// No parent (the root, a detached node or a vacant slot) in [`Scene`]'s compact parent array (and no layer in
/// its layer array).
pub(crate) const NO_PARENT: u32 = u32::MAX;

/// One node's handle check and shape in the tree. A vacant slot has generation 0, which no handle carries (and an
/// empty container with the identity transform); a new node takes a process-unique generation, so a handle check
/// is one comparison.
#[derive(Clone, Copy, Debug)]
struct Slot {
    generation: u32,
    /// Number of children (the walk's leaf test, without reading the links) in the low bits, and [`MASKED`].
    counts: u32,
}

/// A node as the walk reads it: its slot's counts, its transform and its other properties.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SlotRef<'a> {
    counts: u32,
    pub(crate) transform: &'a Transform,
    pub(crate) node: &'a NodeProps,
}

impl SlotRef<'_> {
    /// Number of children.
    #[inline(always)]
    pub(crate) fn child_count(&self) -> u32 {
        self.counts & !FLAGS
    }

    /// Whether the node has filters.
    #[inline(always)]
    pub(crate) fn filtered(&self) -> bool {
        self.counts & FILTERED != 0
    }

    /// Whether the node has a mask.
    #[inline(always)]
    pub(crate) fn masked(&self) -> bool {
        self.counts & MASKED != 0
    }

    /// Whether another node uses this one as its mask (it is then not drawn as content).
    #[inline(always)]
    pub(crate) fn is_mask(&self) -> bool {
        self.counts & IS_MASK != 0
    }

    /// Whether the node is attached to a render layer.
    #[inline(always)]
    pub(crate) fn layered(&self) -> bool {
        self.counts & LAYERED != 0
    }

    /// Whether the node has a mask or is one, has filters, or is attached to a render layer: the walk's fast
    /// paths leave such nodes to the full visit.
    #[inline(always)]
    pub(crate) fn masks_involved(&self) -> bool {
        self.counts & FLAGS != 0
    }
}

/// The bit of a logged change (see [`Scene::changes_since`]) saying only the leaf's transform changed (through
/// [`Scene::transform_mut`]); without it any of the node's properties may have.
pub(crate) const TRANSFORM_ONLY: u32 = 1 << 31;
const _: () = assert!(MAX_SLOTS <= TRANSFORM_ONLY && MAX_SLOTS <= MASKED);

/// The bit of a logged change saying every child of the node in its slot changed its transform only, each a leaf
/// when it was logged (one entry for [`Scene::child_transforms_mut`]; see `bulk.rs`). Set with [`TRANSFORM_ONLY`].
pub(crate) const CHILDREN_MOVED: u32 = 1 << 30;
const _: () = assert!(MAX_SLOTS <= CHILDREN_MOVED);

/// The bit of a slot's `counts` saying the node has a mask (in `Scene::masks`): the walk's test, read with the
/// node. Slots stop at 2^24, so the child count never reaches it.
const MASKED: u32 = 1 << 31;

/// The bit of a slot's `counts` saying another node uses this one as its mask.
const IS_MASK: u32 = 1 << 30;
const _: () = assert!(MAX_SLOTS <= IS_MASK);

/// The bit of a slot's `counts` saying the node has filters (in `Scene::filters`).
const FILTERED: u32 = 1 << 29;
const _: () = assert!(MAX_SLOTS <= FILTERED);

/// The bit of a slot's `counts` saying the node is attached to a render layer (in `Scene::layer_of`).
pub(crate) const LAYERED: u32 = 1 << 28;
const _: () = assert!(MAX_SLOTS <= LAYERED);

/// Bits of a slot's `counts` that are flags, not the child count.
const FLAGS: u32 = MASKED | IS_MASK | FILTERED | LAYERED;

/// A node's filters and the area they cover, and its texture cache.
#[derive(Clone, Debug, Default)]
pub(crate) struct Filtered {
    pub filters: Vec<crate::Filter>,
    /// PixiJS's `filterArea`, in the node's own coordinates.
    pub area: Option<Rect>,
    /// PixiJS's `cacheAsTexture`.
    pub cache: Option<crate::CacheAsTexture>,
    /// Bumped by [`Scene::update_cache_texture`].
    pub cache_serial: u64,
}

impl Filtered {
    fn in_use(&self) -> bool {
        !self.filters.is_empty() || self.area.is_some() || self.cache.is_some()
    }
}

impl Slot {
    /// Number of children.
    #[inline(always)]
    fn child_count(&self) -> u32 {
        self.counts & !FLAGS
    }

    fn set_child_count(&mut self, n: u32) {
        self.counts = (self.counts & FLAGS) | (n & !FLAGS);
    }

    fn set_filtered(&mut self, on: bool) {
        self.counts = (self.counts & !FILTERED) | if on { FILTERED } else { 0 };
    }

    fn set_masked(&mut self, on: bool) {
        self.counts = (self.counts & !MASKED) | if on { MASKED } else { 0 };
    }

    fn set_is_mask(&mut self, on: bool) {
        self.counts = (self.counts & !IS_MASK) | if on { IS_MASK } else { 0 };
    }
}

/// What [`Scene::child_transforms_mut`] found of a container's children, true while the scene's child lists and
/// child counts are as they were (`shape`): every child a leaf, and where they sit.
#[derive(Clone, Copy, Debug)]
struct BulkMemo {
    /// The container's slot.
    slot: u32,
    /// The scene's `shape` when it was found.
    shape: u64,
    /// The first child's slot, when the children sit in consecutive slots in order.
    run: Option<u32>,
}

/// Where a node sits in the tree.
#[derive(Debug, Default)]
struct Links {
    parent: Option<NodeId>,
    children: Vec<NodeId>,
}

/// A tree of [`Node`]s under one root container: what a [`Renderer`](crate::Renderer) draws. Nodes are
/// addressed by [`NodeId`] handles; [`Scene::transform_mut`] moves one, [`Scene::get_mut`] changes the rest.
///
/// ```
/// use stage2d::{Color, GraphicsContext, Node, Scene};
/// let mut scene = Scene::new();
/// // A container at (100, 50) holding a shape, moved and turned as one.
/// let card = scene.add(scene.root(), Node::container().at(100.0, 50.0))?;
/// let mut g = GraphicsContext::new();
/// g.round_rect(0.0, 0.0, 80.0, 120.0, 8.0).fill(Color::hex(0xfafafa));
/// let face = scene.add(card, Node::graphics(g))?;
/// scene.transform_mut(card).unwrap().rotation = 0.1;
/// scene.get_mut(face).unwrap().alpha = 0.8;
/// assert_eq!(scene.parent(face), Some(card));
/// // Bounds and hit testing work on the scene alone.
/// let bounds = scene.world_bounds(face).unwrap();
/// assert!(bounds.min.x > 80.0 && bounds.max.y > 150.0);
/// scene.remove(card)?; // and its children
/// assert!(!scene.contains(face));
/// # Ok::<(), stage2d::Error>(())
/// ```
#[derive(Debug)]
pub struct Scene {
    slots: Vec<Slot>,
    /// Per slot: the node's transform.
    transforms: Vec<Transform>,
    /// Per slot: the node's other properties.
    props: Vec<NodeProps>,
    links: Vec<Links>,
    free: Vec<u32>,
    root: NodeId,
    len: usize,
    /// The tag on this scene's handles.
    owner: Owner,
    /// Change tracking (see [`Scene::begin_walk`]): the epoch every change made now is stamped with.
    epoch: AtomicU64,
    /// Per slot: the epochs of the last change to the node itself (through [`Scene::get_mut`],
    /// [`Scene::transform_mut`] or a setter such as [`Scene::set_z_index`]) and of
    /// the last change below it (a descendant changed, or a child list did).
    stamps: Vec<Stamps>,
    /// Per slot: the parent's slot, or [`NO_PARENT`] (what change marks climb).
    up: Vec<u32>,
    /// The log of leaf nodes changed through [`Scene::get_mut`], a setter such as [`Scene::set_z_index`], or
    /// [`Scene::transform_mut`] (marked [`TRANSFORM_ONLY`]), in order (a node changed twice is listed twice):
    /// `changes[i]` is entry `changes_base + i` of the log since the scene began. Entries before the last render
    /// walk's position (see [`Scene::begin_render_walk`]) are dropped when the list is full; when it still is
    /// (past twice the slots, nodes changed many times over) the whole list is, and walks that began before
    /// cannot use it.
    changes: Vec<u32>,
    changes_base: u64,
    /// The log position the last render walk began at.
    last_walk: AtomicU64,
    /// Bumped by every change to a child list or to a node's number of children (see [`Scene::mark_structure`]).
    shape: u64,
    /// What [`Scene::child_transforms_mut`] learnt of a container's children at `shape` (see `bulk.rs`).
    bulk_memo: Option<BulkMemo>,
    /// The log position of the last entry marked [`CHILDREN_MOVED`], or `u64::MAX` for none.
    last_children_moved: u64,
    /// The epoch of the last change that is not a leaf's own: a node added, removed or moved, a child order or
    /// mask changed, or a node with children changed.
    structural: u64,
    /// Per slot: event mode, hit area, cursor, z-index.
    interact: Vec<Interact>,
    /// Per slot: the mask set with [`Scene::set_mask`] (the slot's `masked` says whether to look).
    masks: Vec<Option<crate::Mask>>,
    /// Per slot: the filters set with [`Scene::set_filters`] and the filter area (the slot's `FILTERED` bit
    /// says whether to look).
    filters: Vec<Option<Box<Filtered>>>,
    /// Bounds and hit-test caches (see `hit.rs`), filled by queries through `&self`.
    query: Mutex<QueryCache>,
    /// Nodes removed so far (event handlers of removed nodes are dropped when it moves).
    removals: u64,
    /// Live nodes in [`EventMode::Dynamic`].
    dynamic: usize,
    /// Per slot: interactive nodes (static or dynamic) in the subtree, the node included, whatever their
    /// visibility: a hit test skips a subtree with none without looking at its bounds.
    interactive_below: Vec<u32>,
    /// Per slot: the slot of the render layer the node is attached to, or [`NO_PARENT`] (see `layers.rs`).
    layer_of: Vec<u32>,
}

impl Default for Scene {
    fn default() -> Self {
        Self::new()
    }
}

impl Scene {
    /// A scene holding only its root container.
    pub fn new() -> Scene {
        let owner = Owner::next();
        let root = NodeId::new(0, owner, next_generation());
        Scene {
            slots: vec![Slot {
                generation: root.generation,
                counts: 0,
            }],
            transforms: vec![Transform::IDENTITY],
            props: vec![NodeProps::CONTAINER],
            links: vec![Links::default()],
            free: Vec::new(),
            root,
            len: 1,
            owner,
            epoch: AtomicU64::new(1),
            stamps: vec![Stamps { own: 1, below: 1 }],
            up: vec![NO_PARENT],
            changes: Vec::new(),
            changes_base: 0,
            last_walk: AtomicU64::new(0),
            shape: 0,
            bulk_memo: None,
            last_children_moved: u64::MAX,
            structural: 1,
            interact: vec![Interact::default()],
            masks: vec![None],
            filters: vec![None],
            query: Mutex::default(),
            removals: 0,
            dynamic: 0,
            interactive_below: vec![0],
            layer_of: vec![NO_PARENT],
        }
    }

    /// Starts a walk that reads change stamps: returns the epoch whose changes it sees (everything stamped with
    /// it or earlier) and moves the scene to the next one, so a change made after this call is stamped later.
    /// A consumer that walked at epoch `e` knows a node is unchanged since if its stamps are at most `e`.
    pub(crate) fn begin_walk(&self) -> u64 {
        self.epoch.fetch_add(1, Ordering::Relaxed)
    }

    /// The epoch of the last change to the node in `slot` itself, or below it (its subtree's contents and
    /// shape), whichever is later.
    #[inline]
    pub(crate) fn changed_at(&self, slot: usize) -> u64 {
        let s = self.stamps[slot];
        s.own.max(s.below)
    }

    /// The epoch of the last change below the node in `slot` (not counting the node itself).
    #[inline]
    pub(crate) fn changed_below(&self, slot: usize) -> u64 {
        self.stamps[slot].below
    }

    /// Stamps the node in `slot` as changed now, and marks its ancestors (in the common case, where the parent
    /// was marked this epoch already, one comparison). A leaf is listed among the changes a renderer's next walk
    /// patches (see [`Scene::changes_since`]); a node with children counts as a structural change.
    /// `tag` is [`TRANSFORM_ONLY`] or 0.
    #[inline(always)]
    fn touch(&mut self, slot: usize, tag: u32) {
        let e = *self.epoch.get_mut();
        if self.slots[slot].child_count() != 0 {
            self.stamps[slot].own = e;
            self.structural = e;
        } else if self.changes.len() < self.changes.capacity() {
            // The common case, kept small so that `transform_mut` stays inlined in the caller's loop.
            self.changes.push(slot as u32 | tag);
        } else {
            self.list_change(slot as u32 | tag);
        }
        let up = self.up[slot];
        if up != NO_PARENT && self.stamps[up as usize].below != e {
            self.mark_up(up, e);
        }
    }

    /// Lists a changed leaf when the list is full: entries before the last render walk's position go first (no
    /// walk can use them: a frame keeps only its own last walk); then the list grows, up to twice the slots; past
    /// that it starts again empty.
    #[cold]
    #[inline(never)]
    fn list_change(&mut self, slot: u32) {
        self.make_room(1);
        self.changes.push(slot);
    }

    /// Marks `slot` and its ancestors as changed below, as a structural change (see [`Scene::changes_since`]).
    fn mark_structure(&mut self, slot: u32) {
        let e = *self.epoch.get_mut();
        self.structural = e;
        self.shape = self.shape.wrapping_add(1);
        self.mark_up(slot, e);
    }

    /// Starts a renderer's walk: [`Scene::begin_walk`]'s epoch, and the position in the log of changed leaves
    /// from which [`Scene::changes_since`] lists what changes after it.
    pub(crate) fn begin_render_walk(&self) -> (u64, u64) {
        let at = self.changes_base + self.changes.len() as u64;
        self.last_walk.store(at, Ordering::Relaxed);
        (self.begin_walk(), at)
    }

    /// The leaf slots changed since a render walk that began at log position `at` and saw epoch `epoch`, if they
    /// are all that changed: `None` when something structural changed since or the list no longer reaches back
    /// that far. Slots may repeat; an entry marked [`TRANSFORM_ONLY`] changed only the node's transform, any other
    /// any of its properties.
    pub(crate) fn changes_since(&self, at: u64, epoch: u64) -> Option<&[u32]> {
        if self.structural > epoch || at < self.changes_base {
            return None;
        }
        let from = (at - self.changes_base) as usize;
        self.changes.get(from..)
    }

    /// The node in `slot` (live or not) with its child count and mask bit.
    #[inline(always)]
    pub(crate) fn slot_at(&self, slot: usize) -> SlotRef<'_> {
        SlotRef {
            counts: self.slots[slot].counts,
            transform: &self.transforms[slot],
            node: &self.props[slot],
        }
    }

    /// The transform of the node in `slot` (live or not).
    #[inline(always)]
    pub(crate) fn transform_at(&self, slot: usize) -> &Transform {
        &self.transforms[slot]
    }

    /// Every slot's transform.
    pub(crate) fn transforms(&self) -> &[Transform] {
        &self.transforms
    }

    /// Marks `slot` and its ancestors as changed below. Stops at the first already marked this epoch: its
    /// ancestors were marked with it (every mark climbs to the top, and a moved node's new ancestors are marked
    /// when it moves).
    #[inline(never)]
    fn mark_up(&mut self, mut slot: u32, e: u64) {
        while slot != NO_PARENT && self.stamps[slot as usize].below != e {
            self.stamps[slot as usize].below = e;
            slot = self.up[slot as usize];
        }
    }

    /// The root container.
    pub fn root(&self) -> NodeId {
        self.root
    }

    /// Number of live nodes, the root included.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the scene holds only its root.
    pub fn is_empty(&self) -> bool {
        self.len == 1
    }

    /// Whether `id` names the node in its slot.
    #[inline(always)]
    fn live(&self, id: NodeId) -> bool {
        self.slots
            .get(id.slot())
            .is_some_and(|s| s.generation == id.generation)
            && id.owned_by(self.owner)
    }

    #[inline]
    pub(crate) fn slot(&self, id: NodeId) -> Option<SlotRef<'_>> {
        self.live(id).then(|| self.slot_at(id.slot()))
    }

    /// `Ok` for a live node of this scene; [`Error::ForeignNode`] for a handle from another scene,
    /// [`Error::StaleNode`] for a removed one.
    pub fn check(&self, id: NodeId) -> Result<()> {
        if !id.owned_by(self.owner) {
            Err(Error::ForeignNode(id))
        } else if !self.live(id) {
            Err(Error::StaleNode(id))
        } else {
            Ok(())
        }
    }

    /// Whether `id` names a live node.
    pub fn contains(&self, id: NodeId) -> bool {
        self.live(id)
    }

    /// The node's properties (all but its transform), or `None` if it was removed.
    #[inline]
    pub fn get(&self, id: NodeId) -> Option<&NodeProps> {
        self.live(id).then(|| &self.props[id.slot()])
    }

    /// The node's properties (all but its transform) for changing, or `None` if it was removed.
    ///
    /// The node counts as changed: caches built from it (its subtree's bounds, a render group holding it) are
    /// rebuilt by the next frame that meets them. Read through [`Scene::get`] what you do not change, and move
    /// nodes through [`Scene::transform_mut`].
    ///
    /// While the only nodes changed between two frames are sprites without children that stay visible, show the
    /// same texture (any frame of it) with the same blend mode, and nothing is added, removed, moved, re-ordered or
    /// masked, the next frame keeps the last one's batches and computes only those sprites' quads again
    /// ([`FrameStats::walks_kept`](crate::FrameStats::walks_kept)); anything else walks the scene again. A frame
    /// that keeps its walk does not cull: sprites moved out of view are drawn off the target until the next walk.
    #[inline]
    pub fn get_mut(&mut self, id: NodeId) -> Option<&mut NodeProps> {
        if !self.live(id) {
            return None;
        }
        self.touch(id.slot(), 0);
        Some(&mut self.props[id.slot()])
    }

    /// The node's transform, or `None` if it was removed.
    #[inline]
    pub fn transform(&self, id: NodeId) -> Option<&Transform> {
        self.live(id).then(|| &self.transforms[id.slot()])
    }

    /// The node's transform for changing, or `None` if it was removed: the way to move, turn and scale nodes.
    ///
    /// The transforms live in a dense array of their own, so a loop moving many sprites touches the transform and
    /// the 8-byte slot of each (and logs it), and the next frame, if it keeps its walk (see [`Scene::get_mut`]),
    /// recomputes those sprites' corners without reading their other properties. Their corners are then uploaded
    /// whether or not they moved (24 bytes a sprite, a run of consecutive quads at a time); read a transform
    /// through [`Scene::transform`] where you may not change it.
    #[inline(always)] // Called once a sprite in update loops: a call there costs more than its body.
    pub fn transform_mut(&mut self, id: NodeId) -> Option<&mut Transform> {
        if !self.live(id) {
            return None;
        }
        self.touch(id.slot(), TRANSFORM_ONLY);
        Some(&mut self.transforms[id.slot()])
    }

    /// Makes room in the change log for `n` more entries: entries before the last render walk's position go
    /// first (no walk can use them: a frame keeps only its own last walk); then it grows, up to twice the slots;
    /// past that it starts again empty (walks that began before cannot use it).
    #[cold]
    fn make_room(&mut self, n: usize) {
        let last = *self.last_walk.get_mut();
        let old = (last.saturating_sub(self.changes_base) as usize).min(self.changes.len());
        self.changes.drain(..old);
        self.changes_base += old as u64;
        let bound = 2 * self.slots.len() + 64;
        if self.changes.len() + n > bound {
            self.changes_base += self.changes.len() as u64;
            self.changes.clear();
        }
        let want = (self.changes.len() + n).min(bound);
        self.changes
            .reserve(want.saturating_sub(self.changes.len()));
    }

    /// The node's children, in draw order (empty for a removed node).
    pub fn children(&self, id: NodeId) -> &[NodeId] {
        match self.contains(id) {
            true => &self.links[id.slot()].children,
            false => &[],
        }
    }

    /// The node's parent (`None` for the root, a detached node or a removed node).
    pub fn parent(&self, id: NodeId) -> Option<NodeId> {
        self.contains(id)
            .then(|| self.links[id.slot()].parent)
            .flatten()
    }

    /// Adds `node` as the last (topmost) child of `parent`. A scene holds at most 16,777,216 nodes
    /// ([`Error::TooManyIds`] beyond); a graphics node whose paths flatten to more than
    /// [`MAX_PATH_SEGMENTS`](crate::graphics::MAX_PATH_SEGMENTS) segments is [`Error::PathTooComplex`].
    ///
    /// That complexity check is made here only: a context changed later (through [`Scene::get_mut`]) is
    /// checked when a frame tessellates it, where the shapes past the limit are skipped with a warning and
    /// counted in [`FrameStats::shape_instructions_skipped`](crate::FrameStats::shape_instructions_skipped).
    pub fn add(&mut self, parent: NodeId, mut node: Node) -> Result<NodeId> {
        self.check(parent)?;
        if let crate::NodeKind::Graphics(ctx) = &node.props.kind {
            ctx.check_complexity()?;
        }
        if let Some(area) = node.interaction.as_ref().and_then(|i| i.hit_area.as_ref()) {
            area.validate()?;
        }
        let interaction = node.interaction.take();
        let id = self.insert(node, Some(parent))?;
        if let Some(i) = &interaction {
            self.interact[id.slot()].z = i.z_index;
        }
        self.attach(parent, id, usize::MAX);
        if let Some(i) = interaction {
            self.apply_interaction(id, *i);
        }
        Ok(id)
    }

    /// What a node's builder set beside it: event mode, cursor, hit area (validated by the caller).
    fn apply_interaction(&mut self, id: NodeId, i: crate::scene::node::Interaction) {
        if let Some(mode) = i.event_mode {
            let _ = self.set_event_mode(id, mode);
        }
        if i.cursor.is_some() {
            let _ = self.set_cursor(id, i.cursor);
        }
        if let Some(area) = i.hit_area {
            self.interact[id.slot()].hit_area = Some(Arc::new(area));
        }
    }

    /// Adds `node` outside the tree: it is not drawn, but can hold children, serve as a mask, and be attached
    /// later with [`Scene::set_parent`]. Its transform is relative to the scene's origin.
    ///
    /// In a full scene (16,777,216 nodes) the node is dropped with a logged error and the handle returned names
    /// no node: using it is [`Error::StaleNode`].
    pub fn add_detached(&mut self, mut node: Node) -> NodeId {
        let mut interaction = node.interaction.take();
        if let Some(i) = &mut interaction {
            if let Some(e) = i.hit_area.as_ref().and_then(|a| a.validate().err()) {
                log::warn!("{e}; the detached node was added without its hit area");
                i.hit_area = None;
            }
        }
        let id = self.insert(node, None).unwrap_or_else(|e| {
            log::error!("{e}; the detached node was dropped");
            NodeId::new(0, self.owner, 0)
        });
        if let (Some(i), true) = (interaction, self.contains(id)) {
            self.interact[id.slot()].z = i.z_index;
            self.apply_interaction(id, *i);
        }
        id
    }

    fn insert(&mut self, mut node: Node, parent: Option<NodeId>) -> Result<NodeId> {
        // A layer starts empty: attachments are the scene's, not carried by a copied node.
        if let crate::NodeKind::RenderLayer(l) = &mut node.props.kind {
            l.attached.clear();
        }
        let generation = next_generation();
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize] = Slot {
                    generation,
                    counts: 0,
                };
                self.transforms[slot as usize] = node.transform;
                self.props[slot as usize] = node.props;
                self.masks[slot as usize] = None;
                self.filters[slot as usize] = None;
                self.links[slot as usize].parent = parent;
                self.up[slot as usize] = parent.map_or(NO_PARENT, |p| p.slot() as u32);
                self.interact[slot as usize] = Interact::default();
                self.interactive_below[slot as usize] = 0;
                self.layer_of[slot as usize] = NO_PARENT;
                slot
            }
            None if self.slots.len() as u32 >= MAX_SLOTS => {
                return Err(Error::TooManyIds {
                    kind: "nodes in one scene",
                    max: MAX_SLOTS,
                })
            }
            None => {
                self.slots.push(Slot {
                    generation,
                    counts: 0,
                });
                self.transforms.push(node.transform);
                self.props.push(node.props);
                self.masks.push(None);
                self.filters.push(None);
                self.links.push(Links {
                    parent,
                    children: Vec::new(),
                });
                self.stamps.push(Stamps::default());
                self.up.push(parent.map_or(NO_PARENT, |p| p.slot() as u32));
                self.interact.push(Interact::default());
                self.interactive_below.push(0);
                self.layer_of.push(NO_PARENT);
                self.slots.len() as u32 - 1
            }
        };
        let e = *self.epoch.get_mut();
        self.structural = e;
        let st = &mut self.stamps[slot as usize];
        st.own = e;
        st.below = e;
        self.len += 1;
        Ok(NodeId::new(slot, self.owner, generation))
    }

    /// Lists `child` among `parent`'s children at `index` (clamped). A child with a z-index turns on sorting for
    /// `parent`, as PixiJS's `addChild` does.
    fn attach(&mut self, parent: NodeId, child: NodeId, index: usize) {
        if self.interact[child.slot()].z != 0 {
            self.make_sortable(parent);
        }
        let index = self.sorted_index(parent, child, index);
        let kids = &mut self.links[parent.slot()].children;
        kids.insert(index.min(kids.len()), child);
        self.slots[parent.slot()].set_child_count(kids.len() as u32);
        self.links[child.slot()].parent = Some(parent);
        self.up[child.slot()] = parent.slot() as u32;
        self.mark_structure(parent.slot() as u32);
        let n = self.interactive_below[child.slot()];
        self.add_interactive(parent.slot(), n as i64);
    }

    /// Where `child` may go among a sortable `parent`'s children (which are sorted and do not hold it) when asked
    /// for `index`: within the run of its z-index, so the list stays sorted without a sort (a binary search). Other
    /// containers take `index` as it is.
    fn sorted_index(&self, parent: NodeId, child: NodeId, index: usize) -> usize {
        if !self.interact[parent.slot()].sortable {
            return index;
        }
        let z = self.interact[child.slot()].z;
        let kids = &self.links[parent.slot()].children;
        let lo = kids.partition_point(|c| self.interact[c.slot()].z < z);
        let hi = kids.partition_point(|c| self.interact[c.slot()].z <= z);
        index.clamp(lo, hi)
    }

    /// Adds `delta` to the interactive-node counts of `slot` and its ancestors.
    fn add_interactive(&mut self, mut slot: usize, delta: i64) {
        if delta == 0 {
            return;
        }
        loop {
            let c = &mut self.interactive_below[slot];
            *c = (i64::from(*c) + delta).max(0) as u32;
            match self.up[slot] {
                NO_PARENT => break,
                u => slot = u as usize,
            }
        }
    }

    /// Sorts a sortable container's children by z-index, keeping the order of equal ones (a no-op for others).
    fn sort_children(&mut self, parent: NodeId) {
        if !self.interact[parent.slot()].sortable {
            return;
        }
        let interact = &self.interact;
        let kids = &mut self.links[parent.slot()].children;
        if kids.is_sorted_by_key(|c| interact[c.slot()].z) {
            return;
        }
        kids.sort_by_key(|c| interact[c.slot()].z);
        self.mark_structure(parent.slot() as u32);
    }

    /// Takes `child` out of its parent's list (it keeps no parent).
    fn detach(&mut self, child: NodeId) {
        if let Some(parent) = self.links[child.slot()].parent.take() {
            let n = self.interactive_below[child.slot()];
            self.add_interactive(parent.slot(), -i64::from(n));
            let kids = &mut self.links[parent.slot()].children;
            kids.retain(|&c| c != child);
            self.slots[parent.slot()].set_child_count(kids.len() as u32);
            self.mark_structure(parent.slot() as u32);
        }
        self.up[child.slot()] = NO_PARENT;
    }

    /// Removes `id` and its whole subtree. Removing the root only removes its children.
    pub fn remove(&mut self, id: NodeId) -> Result<()> {
        self.check(id)?;
        self.detach(id);
        let mut stack = std::mem::take(&mut self.links[id.slot()].children);
        self.slots[id.slot()].set_child_count(0);
        self.mark_structure(id.slot() as u32);
        if id != self.root {
            stack.push(id);
        }
        while let Some(n) = stack.pop() {
            let i = n.slot();
            stack.append(&mut self.links[i].children);
            self.links[i].parent = None;
            self.up[i] = NO_PARENT;
            // Off its layer; a layer lets go of its nodes.
            self.unlayer(i);
            self.release_layer(i);
            // Old handles die at once; the resources the node held are dropped now.
            self.slots[i] = Slot {
                generation: 0,
                counts: 0,
            };
            self.transforms[i] = Transform::IDENTITY;
            self.props[i] = NodeProps::CONTAINER;
            if let Some(m) = self.masks[i].take() {
                self.mask_used(m.node, false);
            }
            self.filters[i] = None;
            if self.interact[i].event_mode == EventMode::Dynamic {
                self.dynamic -= 1;
            }
            self.interact[i] = Interact::default();
            self.interactive_below[i] = 0;
            self.removals += 1;
            self.free.push(n.slot() as u32);
            self.len -= 1;
        }
        if id == self.root {
            let own = self.interact[id.slot()].event_mode.is_interactive();
            self.interactive_below[id.slot()] = u32::from(own);
        }
        Ok(())
    }

    /// Moves `id` (with its subtree) under `new_parent` at `index` among its children (clamped; `usize::MAX`
    /// for topmost); a detached node becomes part of the tree. Moving a node under itself or its own descendant
    /// is [`Error::CyclicParent`]; moving the root is [`Error::RootNode`].
    pub fn set_parent(&mut self, id: NodeId, new_parent: NodeId, index: usize) -> Result<()> {
        self.check(id)?;
        self.check(new_parent)?;
        if id == self.root {
            return Err(Error::RootNode(id));
        }
        let mut up = Some(new_parent);
        while let Some(a) = up {
            if a == id {
                return Err(Error::CyclicParent(id));
            }
            up = self.parent(a);
        }
        self.detach(id);
        self.attach(new_parent, id, index);
        Ok(())
    }

    /// The node's transform to scene space (pixels): the product of the local transforms of its ancestors (the
    /// root's included, or up to a detached node) and its own. `None` if the node was removed.
    pub fn world_transform(&self, id: NodeId) -> Option<glam::Affine2> {
        self.transform_under(None, id)
    }

    /// The product of the local transforms from `start` (its own included) down to `id`'s, if `start` is `id` or
    /// an ancestor of it; otherwise (and with `None`) `id`'s world transform. `None` if a node on the way was
    /// removed. A walk from `start` draws `id` with this transform.
    pub(crate) fn transform_under(
        &self,
        start: Option<NodeId>,
        id: NodeId,
    ) -> Option<glam::Affine2> {
        let mut m = self.transform(id)?.matrix();
        let mut at = id;
        while Some(at) != start {
            let Some(p) = self.parent(at) else {
                break;
            };
            m = self.transform(p)?.matrix() * m;
            at = p;
        }
        Some(m)
    }

    /// Masks `target` (its content and children) by the shape of `mask`; `inverse` shows what lies outside it.
    /// One mask may serve several targets. As in PixiJS, a node used as a mask is not drawn as content (nor are
    /// its children) for as long as it masks something, and it is placed where it stands:
    ///
    /// - **In the tree** (the usual way, and PixiJS's): add the mask as a child of the masked container (or
    ///   anywhere in the tree); it moves, turns and scales with its parent, also when the subtree is drawn
    ///   somewhere else ([`Renderer::render_node`](crate::Renderer::render_node) and
    ///   [`Renderer::render_node_transformed`](crate::Renderer::render_node_transformed) place a mask inside the
    ///   drawn subtree as they place the subtree).
    /// - **Detached** ([`Scene::add_detached`]): its transform is in the space of the target being drawn (scene
    ///   space for [`Renderer::render`](crate::Renderer::render)), whatever subtree is drawn.
    ///
    /// ```
    /// use stage2d::{Color, GraphicsContext, Node, Scene};
    /// let mut scene = Scene::new();
    /// let panel = scene.add(scene.root(), Node::container().at(100.0, 50.0))?;
    /// let mut circle = GraphicsContext::new();
    /// circle.circle(60.0, 60.0, 60.0).fill(Color::WHITE);
    /// // A child of the panel: it moves with the panel, and only masks (it is not drawn).
    /// let mask = scene.add(panel, Node::graphics(circle))?;
    /// scene.set_mask(panel, mask, false)?;
    /// # Ok::<(), stage2d::Error>(())
    /// ```
    ///
    /// A node cannot mask itself ([`Error::SelfMask`]). If the mask node is removed later, the target is not drawn
    /// (skipped with a warning) rather than drawn unmasked.
    pub fn set_mask(&mut self, target: NodeId, mask: NodeId, inverse: bool) -> Result<()> {
        self.put_mask(target, mask, inverse, None)
    }

    /// Masks `target` by the pixels of `mask`'s subtree (PixiJS's `setMask({ mask, channel, inverse })`, and what
    /// PixiJS does for a sprite mask): where the mask's `channel` is 1 the target shows, where it is 0 it does
    /// not, and partly between (soft edges, gradients, a sheet frame's own pixels, trimmed or rotated). The mask
    /// and the target are each drawn into a texture of their own and combined by one pass (`filter/`), so alpha
    /// masks nest with stencil masks, filters and each other. The mask is placed as a stencil mask is (see
    /// [`Scene::set_mask`]) and is not drawn as content.
    ///
    /// ```
    /// use stage2d::{Color, GraphicsContext, MaskChannel, Node, Scene};
    /// let mut scene = Scene::new();
    /// let photo = scene.add(scene.root(), Node::container())?;
    /// let mut soft = GraphicsContext::new();
    /// soft.circle(50.0, 50.0, 40.0).fill(Color::rgba(1.0, 1.0, 1.0, 0.5));
    /// let mask = scene.add(photo, Node::graphics(soft))?;
    /// scene.set_alpha_mask(photo, mask, MaskChannel::Alpha, false)?;
    /// assert_eq!(scene.mask(photo).unwrap().channel, Some(MaskChannel::Alpha));
    /// # Ok::<(), stage2d::Error>(())
    /// ```
    ///
    /// A node cannot mask itself, nor be masked by its own ancestor (whose pixels include its own):
    /// [`Error::SelfMask`].
    pub fn set_alpha_mask(
        &mut self,
        target: NodeId,
        mask: NodeId,
        channel: crate::MaskChannel,
        inverse: bool,
    ) -> Result<()> {
        self.check(target)?;
        self.check(mask)?;
        let mut up = self.parent(target);
        while let Some(p) = up {
            if p == mask {
                return Err(Error::SelfMask(mask));
            }
            up = self.parent(p);
        }
        self.put_mask(target, mask, inverse, Some(channel))
    }

    fn put_mask(
        &mut self,
        target: NodeId,
        mask: NodeId,
        inverse: bool,
        channel: Option<crate::MaskChannel>,
    ) -> Result<()> {
        self.check(target)?;
        self.check(mask)?;
        if mask == target {
            return Err(Error::SelfMask(mask));
        }
        self.get_mut(target).ok_or(Error::StaleNode(target))?;
        if let Some(old) = self.masks[target.slot()].take() {
            self.mask_used(old.node, false);
        }
        self.masks[target.slot()] = Some(crate::Mask {
            node: mask,
            inverse,
            channel,
        });
        self.mask_used(mask, true);
        self.slots[target.slot()].set_masked(true);
        self.structural = *self.epoch.get_mut();
        Ok(())
    }

    /// Counts one more (`true`) or one fewer user of `mask` as a mask, if it is still a live node.
    fn mask_used(&mut self, mask: NodeId, used: bool) {
        if self.slot(mask).is_none() {
            return;
        }
        let i = mask.slot();
        let users = &mut self.interact[i].mask_users;
        *users = if used {
            *users + 1
        } else {
            users.saturating_sub(1)
        };
        let on = *users > 0;
        self.slots[i].set_is_mask(on);
        self.touch(i, 0);
    }

    /// Whether another node uses `id` as its mask (it is then not drawn as content).
    pub fn is_mask(&self, id: NodeId) -> bool {
        self.slot(id).is_some_and(|s| s.is_mask())
    }

    /// Removes `target`'s mask; the mask node is drawn as content again once nothing else uses it as a mask.
    pub fn clear_mask(&mut self, target: NodeId) -> Result<()> {
        self.check(target)?;
        self.get_mut(target).ok_or(Error::StaleNode(target))?;
        if let Some(old) = self.masks[target.slot()].take() {
            self.mask_used(old.node, false);
        }
        self.slots[target.slot()].set_masked(false);
        self.structural = *self.epoch.get_mut();
        Ok(())
    }

    /// The mask set on `id` with [`Scene::set_mask`], if any (`None` for a removed node too).
    pub fn mask(&self, id: NodeId) -> Option<crate::Mask> {
        let slot = self.slot(id)?;
        if slot.masked() {
            self.masks[id.slot()]
        } else {
            None
        }
    }

    /// Sets the filters of `id` (PixiJS's `filters`), applied in order to the node and its subtree: they are
    /// drawn into an intermediate texture, each enabled filter runs over it, and the result is drawn where the
    /// node was. An empty list removes them. Filters nest (a filtered node inside a filtered node) and work
    /// under masks, in render textures and in embedded frames, where their passes run in
    /// [`Renderer::prepare`](crate::Renderer::prepare). See [`Filter`](crate::Filter).
    ///
    /// ```
    /// use stage2d::{Filter, Node, Scene};
    /// let mut scene = Scene::new();
    /// let panel = scene.add(scene.root(), Node::container()).unwrap();
    /// scene.set_filters(panel, vec![Filter::blur(4.0), Filter::alpha(0.8)]).unwrap();
    /// assert_eq!(scene.filters(panel).len(), 2);
    /// ```
    pub fn set_filters(&mut self, id: NodeId, filters: Vec<crate::Filter>) -> Result<()> {
        self.check(id)?;
        self.get_mut(id).ok_or(Error::StaleNode(id))?;
        let i = id.slot();
        match &mut self.filters[i] {
            Some(f) => f.filters = filters,
            None if !filters.is_empty() => {
                self.filters[i] = Some(Box::new(Filtered {
                    filters,
                    ..Filtered::default()
                }))
            }
            None => {}
        }
        self.settle_filtered(i);
        self.structural = *self.epoch.get_mut();
        Ok(())
    }

    /// Keeps the side entry of slot `i` only while it holds something, and its `FILTERED` bit with it.
    fn settle_filtered(&mut self, i: usize) {
        if !self.filters[i].as_ref().is_some_and(|f| f.in_use()) {
            self.filters[i] = None;
        }
        let on = self.filters[i]
            .as_ref()
            .is_some_and(|f| !f.filters.is_empty() || f.cache.is_some());
        self.slots[i].set_filtered(on);
    }

    /// Caches the subtree of the container `id` as a texture (PixiJS's `cacheAsTexture(true | options)`): it is
    /// drawn once, in its own space, into a texture, and that texture is drawn where the node is, until something
    /// below the node changes or [`Scene::update_cache_texture`] is called (a texture it shows destroyed or drawn
    /// into is not a change of the scene: call it then). Moving, turning, scaling, fading or
    /// tinting the node itself redraws nothing (its own alpha, tint and blend mode apply when the texture is
    /// drawn; its children's are in the texture). Filters and masks below it are cached with it. `None` turns
    /// the cache off. A node without children draws as it is.
    ///
    /// ```
    /// use stage2d::{CacheAsTexture, Node, Scene};
    /// let mut scene = Scene::new();
    /// let hud = scene.add(scene.root(), Node::container())?;
    /// scene.set_cache_as_texture(hud, Some(CacheAsTexture::default()))?;
    /// scene.update_cache_texture(hud)?; // after a change the cache cannot see
    /// # Ok::<(), stage2d::Error>(())
    /// ```
    pub fn set_cache_as_texture(
        &mut self,
        id: NodeId,
        cache: Option<crate::CacheAsTexture>,
    ) -> Result<()> {
        self.check(id)?;
        if let Some(r) = cache.and_then(|c| c.resolution) {
            if !(r.is_finite() && r > 0.0) {
                return Err(Error::InvalidFilter(format!(
                    "cache resolution {r} must be a positive number"
                )));
            }
        }
        self.get_mut(id).ok_or(Error::StaleNode(id))?;
        let i = id.slot();
        self.filters[i].get_or_insert_with(Default::default).cache = cache;
        self.settle_filtered(i);
        self.structural = *self.epoch.get_mut();
        Ok(())
    }

    /// The texture cache settings of `id`, if it is cached.
    pub fn cache_as_texture(&self, id: NodeId) -> Option<crate::CacheAsTexture> {
        self.slot(id)?;
        self.filters[id.slot()].as_ref()?.cache
    }

    /// Draws the cached subtree of `id` again at the next frame (PixiJS's `updateCacheTexture`): after a change
    /// the scene cannot see, such as a texture it shows destroyed or written to.
    pub fn update_cache_texture(&mut self, id: NodeId) -> Result<()> {
        self.check(id)?;
        self.slot(id).ok_or(Error::StaleNode(id))?;
        if let Some(f) = self.filters[id.slot()].as_mut() {
            f.cache_serial += 1;
        }
        Ok(())
    }

    /// The filters of `id` (empty for none, or a removed node).
    pub fn filters(&self, id: NodeId) -> &[crate::Filter] {
        match self.slot(id) {
            Some(s) if s.filtered() => self.filters[id.slot()]
                .as_ref()
                .map_or(&[], |f| f.filters.as_slice()),
            _ => &[],
        }
    }

    /// The filters of `id` for changing their settings (a blur's strength each frame): `None` for a node without
    /// filters or a removed one. Changing them creates nothing on the GPU.
    pub fn filters_mut(&mut self, id: NodeId) -> Option<&mut Vec<crate::Filter>> {
        if !self.slot(id)?.filtered() {
            return None;
        }
        self.get_mut(id)?;
        self.filters[id.slot()].as_mut().map(|f| &mut f.filters)
    }

    /// Sets the area the filters of `id` cover (PixiJS's `filterArea`), in the node's own coordinates, instead
    /// of its bounds; `None` goes back to the bounds. A non-finite or negative rectangle is an error.
    pub fn set_filter_area(&mut self, id: NodeId, area: Option<Rect>) -> Result<()> {
        self.check(id)?;
        if let Some(r) = area {
            let ok = r.min.is_finite() && r.max.is_finite() && r.min.cmple(r.max).all();
            if !ok {
                return Err(Error::InvalidFilter(format!(
                    "filter area {r:?} must be finite with min <= max"
                )));
            }
        }
        self.get_mut(id).ok_or(Error::StaleNode(id))?;
        let i = id.slot();
        self.filters[i].get_or_insert_with(Default::default).area = area;
        self.settle_filtered(i);
        self.structural = *self.epoch.get_mut();
        Ok(())
    }

    /// The filters and filter area of a filtered node, for the walk.
    #[inline]
    pub(crate) fn filtered(&self, id: NodeId) -> Option<&Filtered> {
        self.filters.get(id.slot())?.as_deref()
    }

    /// Moves `id` to `index` among its siblings (clamped): 0 is drawn first (bottom). The root and a detached
    /// node have no siblings: [`Error::RootNode`].
    pub fn set_child_index(&mut self, id: NodeId, index: usize) -> Result<()> {
        self.check(id)?;
        let parent = self.parent(id).ok_or(Error::RootNode(id))?;
        let kids = &mut self.links[parent.slot()].children;
        let from = kids
            .iter()
            .position(|&c| c == id)
            .expect("child listed in its parent");
        let child = kids.remove(from);
        let index = self.sorted_index(parent, child, index);
        let kids = &mut self.links[parent.slot()].children;
        kids.insert(index.min(kids.len()), child);
        self.mark_structure(parent.slot() as u32);
        Ok(())
    }

    /// Sets the node's z-index: children of a container are drawn and hit-tested in increasing z-index, those with
    /// equal ones in the order they were added or placed (PixiJS's `zIndex`). As in PixiJS v8, changing a z-index
    /// turns on [sorting](Scene::set_sortable_children) for the node's parent, and adding a child whose z-index is
    /// not 0 turns it on for the container it joins; [`Scene::set_sortable_children`] with `false` turns it off
    /// again (until a z-index changes). The children are sorted again only when a z-index changes.
    ///
    /// ```
    /// use stage2d::{Node, Scene};
    /// let mut scene = Scene::new();
    /// let back = scene.add(scene.root(), Node::container())?;
    /// let front = scene.add(scene.root(), Node::container())?;
    /// scene.set_z_index(back, 1)?; // drawn last now, over `front`
    /// assert!(scene.sortable_children(scene.root()));
    /// assert_eq!(scene.children(scene.root()), &[front, back]);
    /// # Ok::<(), stage2d::Error>(())
    /// ```
    pub fn set_z_index(&mut self, id: NodeId, z_index: i32) -> Result<()> {
        self.check(id)?;
        if self.interact[id.slot()].z != z_index {
            self.interact[id.slot()].z = z_index;
            self.touch(id.slot(), 0);
            if let Some(parent) = self.parent(id) {
                if self.interact[parent.slot()].sortable {
                    self.sort_children(parent);
                } else {
                    self.make_sortable(parent);
                }
            }
        }
        Ok(())
    }

    /// Turns on sorting for `parent` (sorting its children once), if it is off.
    fn make_sortable(&mut self, parent: NodeId) {
        if !self.interact[parent.slot()].sortable {
            self.interact[parent.slot()].sortable = true;
            self.sort_children(parent);
        }
    }

    /// The node's z-index (0 unless set; `None` for a removed node).
    pub fn z_index(&self, id: NodeId) -> Option<i32> {
        self.slot(id)?;
        Some(self.interact[id.slot()].z)
    }

    /// Keeps the node's children sorted by their [z-index](Scene::set_z_index) (PixiJS's `sortableChildren`);
    /// turning it on sorts them once. [`Scene::set_z_index`] turns it on by itself; `false` turns it off, and the
    /// children keep their order until a z-index changes again. [`Scene::set_child_index`] still moves a child
    /// among those of equal z-index.
    pub fn set_sortable_children(&mut self, id: NodeId, sortable: bool) -> Result<()> {
        self.check(id)?;
        self.interact[id.slot()].sortable = sortable;
        self.sort_children(id);
        Ok(())
    }

    /// Whether the node's children are kept sorted by z-index.
    pub fn sortable_children(&self, id: NodeId) -> bool {
        self.slot(id).is_some() && self.interact[id.slot()].sortable
    }

    /// Sets how the node takes part in hit testing and pointer events (see [`EventMode`]).
    pub fn set_event_mode(&mut self, id: NodeId, mode: EventMode) -> Result<()> {
        self.check(id)?;
        let old = self.interact[id.slot()].event_mode;
        if old != mode {
            self.dynamic = self.dynamic + usize::from(mode == EventMode::Dynamic)
                - usize::from(old == EventMode::Dynamic);
            let delta = i64::from(mode.is_interactive()) - i64::from(old.is_interactive());
            self.add_interactive(id.slot(), delta);
            self.interact[id.slot()].event_mode = mode;
            self.touch(id.slot(), 0);
        }
        Ok(())
    }

    /// The node's event mode ([`EventMode::Passive`] unless set; `None` for a removed node).
    pub fn event_mode(&self, id: NodeId) -> Option<EventMode> {
        self.slot(id)?;
        Some(self.interact[id.slot()].event_mode)
    }

    /// Whether hit testing descends into the node's children (PixiJS's `interactiveChildren`; on by default).
    pub fn set_interactive_children(&mut self, id: NodeId, on: bool) -> Result<()> {
        self.check(id)?;
        self.interact[id.slot()].no_child_hits = !on;
        self.touch(id.slot(), 0);
        Ok(())
    }

    /// Whether hit testing descends into the node's children (`false` for a removed node).
    pub fn interactive_children(&self, id: NodeId) -> bool {
        self.slot(id).is_some() && !self.interact[id.slot()].no_child_hits
    }

    /// Replaces the node's hit region (its sprite rectangle, shapes or text box) by `area`, in the node's local
    /// space; `None` restores it. An area with a non-finite number, a negative size or a polygon of fewer than
    /// three points is [`Error::InvalidHitArea`] and changes nothing.
    pub fn set_hit_area(&mut self, id: NodeId, area: Option<HitArea>) -> Result<()> {
        self.check(id)?;
        if let Some(a) = &area {
            a.validate()?;
        }
        self.interact[id.slot()].hit_area = area.map(Arc::new);
        self.touch(id.slot(), 0);
        Ok(())
    }

    /// The node's hit area, if one is set.
    pub fn hit_area(&self, id: NodeId) -> Option<&HitArea> {
        self.slot(id)?;
        self.interact[id.slot()].hit_area.as_deref()
    }

    /// Sets the cursor shown while a pointer is over the node (or over a child without a cursor of its own).
    pub fn set_cursor(&mut self, id: NodeId, cursor: Option<Cursor>) -> Result<()> {
        self.check(id)?;
        self.interact[id.slot()].cursor = cursor;
        Ok(())
    }

    /// The node's own cursor, if set.
    pub fn cursor(&self, id: NodeId) -> Option<Cursor> {
        self.slot(id)?;
        self.interact[id.slot()].cursor
    }

    /// The interaction settings of a live node's slot.
    #[inline]
    pub(crate) fn interact(&self, slot: usize) -> &Interact {
        &self.interact[slot]
    }

    /// Nodes removed so far.
    pub(crate) fn removals(&self) -> u64 {
        self.removals
    }

    /// Whether any live node is in [`EventMode::Dynamic`].
    pub(crate) fn has_dynamic(&self) -> bool {
        self.dynamic > 0
    }

    /// Interactive nodes in the subtree of a live slot, the node included.
    #[inline]
    pub(crate) fn interactive_below(&self, slot: usize) -> u32 {
        self.interactive_below[slot]
    }

    /// Slots in use or free (the length of per-slot tables).
    #[inline]
    pub(crate) fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// The number of children of the node in a live slot.
    #[inline]
    pub(crate) fn child_count(&self, slot: usize) -> usize {
        self.slots[slot].child_count() as usize
    }

    /// The children of the node in a live slot.
    #[inline]
    pub(crate) fn children_of_slot(&self, slot: usize) -> &[NodeId] {
        &self.links[slot].children
    }

    /// The properties of the node in a live slot.
    #[inline]
    pub(crate) fn node_at(&self, slot: usize) -> &NodeProps {
        &self.props[slot]
    }

    /// The bounds and hit-test caches, with the epoch a query starts at: an entry computed now is valid for
    /// changes stamped up to it (see [`Scene::begin_walk`]).
    pub(crate) fn query(&self) -> (MutexGuard<'_, QueryCache>, u64) {
        let guard = self.query.lock().unwrap_or_else(|p| p.into_inner());
        (guard, self.begin_walk())
    }

    /// The children of a live node, for the walk.
    #[inline]
    pub(crate) fn children_of(&self, id: NodeId) -> &[NodeId] {
        &self.links[id.slot()].children
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_get_remove_and_stale_handles() {
        let mut s = Scene::new();
        let a = s.add(s.root(), Node::container()).unwrap();
        let b = s.add(a, Node::container().at(1.0, 2.0)).unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(s.transform(b).unwrap().position.x, 1.0);
        assert_eq!(s.parent(b), Some(a));
        s.remove(a).unwrap();
        assert_eq!(s.len(), 1);
        assert!(s.get(a).is_none() && s.get(b).is_none());
        // The slot is reused with a new generation: the old handle stays dead.
        let c = s.add(s.root(), Node::container()).unwrap();
        assert!(s.get(c).is_some());
        assert!(s.get(a).is_none() && s.get(b).is_none());
        assert!(matches!(
            s.add(b, Node::container()),
            Err(Error::StaleNode(_))
        ));
        assert!(s.remove(b).is_err());
    }

    #[test]
    fn removal_drops_what_the_node_held_and_counts_children() {
        let shared = std::sync::Arc::new(crate::GraphicsContext::new());
        let mut s = Scene::new();
        let a = s.add(s.root(), Node::container()).unwrap();
        let b = s.add(a, Node::graphics(shared.clone())).unwrap();
        assert_eq!(s.slot(a).unwrap().child_count(), 1);
        assert_eq!(s.slot(s.root()).unwrap().child_count(), 1);
        assert_eq!(std::sync::Arc::strong_count(&shared), 2);
        s.remove(b).unwrap();
        assert_eq!(
            std::sync::Arc::strong_count(&shared),
            1,
            "released at removal, not at reuse"
        );
        assert_eq!(s.slot(a).unwrap().child_count(), 0);
        let c = s.add_detached(Node::container());
        s.set_parent(c, a, 0).unwrap();
        assert_eq!(s.slot(a).unwrap().child_count(), 1);
        s.set_parent(c, s.root(), 0).unwrap();
        assert_eq!(s.slot(a).unwrap().child_count(), 0);
        assert_eq!(s.slot(s.root()).unwrap().child_count(), 2);
        assert_eq!(s.parent(c), Some(s.root()));
    }

    #[test]
    fn reorder_and_reparent() {
        let mut s = Scene::new();
        let r = s.root();
        let ids: Vec<_> = (0..4)
            .map(|_| s.add(r, Node::container()).unwrap())
            .collect();
        s.set_child_index(ids[3], 0).unwrap();
        assert_eq!(s.children(r), &[ids[3], ids[0], ids[1], ids[2]]);
        s.set_parent(ids[0], ids[1], usize::MAX).unwrap();
        assert_eq!(s.children(r), &[ids[3], ids[1], ids[2]]);
        assert_eq!(s.children(ids[1]), &[ids[0]]);
        assert!(matches!(
            s.set_parent(ids[1], ids[0], 0),
            Err(Error::CyclicParent(_))
        ));
    }

    #[test]
    fn detached_nodes_world_transforms_and_masks() {
        let mut s = Scene::new();
        let r = s.root();
        s.transform_mut(r).unwrap().position = glam::Vec2::new(10.0, 0.0);
        let a = s.add(r, Node::container().at(5.0, 5.0)).unwrap();
        let b = s.add(a, Node::container().at(1.0, 2.0)).unwrap();
        assert_eq!(
            s.world_transform(b).unwrap().translation,
            glam::Vec2::new(16.0, 7.0)
        );
        let m = s.add_detached(Node::container().at(3.0, 3.0));
        assert_eq!(s.parent(m), None);
        assert!(!s.children(r).contains(&m));
        assert_eq!(
            s.world_transform(m).unwrap().translation,
            glam::Vec2::new(3.0, 3.0)
        );
        s.set_mask(a, m, true).unwrap();
        assert_eq!(
            s.mask(a),
            Some(crate::Mask {
                node: m,
                inverse: true,
                channel: None,
            })
        );
        assert!(s.set_mask(a, a, false).is_err());
        s.clear_mask(a).unwrap();
        assert_eq!(s.mask(a), None);
        s.set_parent(m, r, 0).unwrap();
        assert_eq!(s.children(r)[0], m);
        assert_eq!(s.len(), 4);
        s.remove(m).unwrap();
        assert_eq!(s.len(), 3);
    }

    #[test]
    fn removing_the_root_clears_the_scene_but_keeps_the_root() {
        let mut s = Scene::new();
        let r = s.root();
        s.add(r, Node::container()).unwrap();
        s.remove(r).unwrap();
        assert!(s.is_empty());
        assert!(s.add(r, Node::container()).is_ok());
    }
}
#[cfg(test)]
mod size_guard {
    /// An update loop streams through the slots and transforms, and a kept walk through the transforms: keep
    /// them small (see the module's layout note).
    #[test]
    fn slots_stay_small() {
        use std::mem::{offset_of, size_of};
        assert_eq!(size_of::<super::Slot>(), 8);
        assert_eq!(size_of::<crate::Transform>(), 28);
        assert_eq!(offset_of!(crate::Transform, position), 0);
        // A sprite is its 32-byte texture (the default anchor took 4 bytes), its anchor and its size: the kind
        // grew from 48 to 56 bytes into what was padding, and the properties a walk reads stay 80.
        assert!(size_of::<crate::NodeProps>() <= 80);
        assert!(size_of::<crate::NodeKind>() <= 56);
    }
}
