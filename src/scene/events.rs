//! Pointer events in PixiJS's model: raw pointer input goes in ([`PointerInput`]), is hit-tested against the
//! scene, and reaches handlers registered per node and event kind, through a capture phase (root to target), the
//! target, and a bubble phase (target to root), with `stop_propagation`.
//!
//! The dispatcher is plain Rust over a [`Scene`]: no window, no GPU. The app layer feeds it winit's events
//! ([`crate::app`]); tests feed it synthetic ones. Handlers get the scene mutably and may add, remove or move
//! nodes, the one being dispatched to included: the propagation path is fixed when an event starts, and a node
//! removed on the way is skipped.

use crate::scene::pointer::{Cursor, EventMode};
use crate::{Error, NodeId, Result, Scene};
use glam::Vec2;
use rustc_hash::{FxHashMap, FxHashSet};

/// What happened to a pointer, in scene pixels (logical pixels in a window). `pointer` tells pointers apart:
/// the app layer gives the mouse 0 and each touch its own id.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PointerInput {
    /// The pointer moved.
    Move {
        /// Which pointer.
        pointer: u64,
        /// Where it is now.
        position: Vec2,
    },
    /// A button was pressed (or a touch began).
    Down {
        /// Which pointer.
        pointer: u64,
        /// Where.
        position: Vec2,
        /// As the DOM numbers them: 0 main (left, or a touch), 1 middle, 2 right, 3 back, 4 forward.
        button: u16,
    },
    /// A button was released (or a touch ended).
    Up {
        /// Which pointer.
        pointer: u64,
        /// Where.
        position: Vec2,
        /// As in [`PointerInput::Down`].
        button: u16,
    },
    /// The wheel turned (or a touchpad scrolled), by `delta` pixels.
    Wheel {
        /// Which pointer.
        pointer: u64,
        /// Where the pointer is.
        position: Vec2,
        /// Scroll distance in pixels (positive y: down).
        delta: Vec2,
    },
    /// The pointer left the window: whatever it was over sees it leave (a button held keeps its press, so a
    /// release later still ends it).
    Leave {
        /// Which pointer.
        pointer: u64,
    },
    /// The pointer is gone for good (a touch cancelled): it leaves what it was over, and its presses are
    /// forgotten without up, click or up-outside events.
    Cancel {
        /// Which pointer.
        pointer: u64,
    },
}

/// The kinds of events handlers listen for (PixiJS's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// A button went down over the target.
    PointerDown,
    /// A button went up over the target.
    PointerUp,
    /// The pointer moved over the target.
    PointerMove,
    /// The pointer came over the target (bubbles).
    PointerOver,
    /// The pointer left the target (bubbles).
    PointerOut,
    /// The pointer came over the node or one of its descendants (does not bubble; the target first, then its
    /// ancestors the pointer was not over yet, as PixiJS sends them).
    PointerEnter,
    /// The pointer left the node and its descendants (does not bubble).
    PointerLeave,
    /// A button went down and up over the target (PixiJS's `click`, `tap` for touch): sent to the nearest common
    /// ancestor of where it went down and where it went up.
    Click,
    /// A button went down over the target and up elsewhere.
    PointerUpOutside,
    /// The wheel turned over the target.
    Wheel,
    /// The pointer moved, wherever it is: every node listening gets it, hit or not (PixiJS's
    /// `globalpointermove`; what a drag follows).
    GlobalPointerMove,
}

impl EventKind {
    fn bubbles(self) -> bool {
        !matches!(
            self,
            EventKind::PointerEnter | EventKind::PointerLeave | EventKind::GlobalPointerMove
        )
    }
}

/// Where an event is on its way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Going down from the root to the target (handlers added with [`Events::on_capture`]).
    Capture,
    /// At the target.
    Target,
    /// Going up from the target to the root.
    Bubble,
}

/// An event as a handler sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct PointerEvent {
    /// What happened.
    pub kind: EventKind,
    /// The node the event is for.
    pub target: NodeId,
    /// The node whose handler runs now (the target or an ancestor).
    pub current_target: NodeId,
    /// Where the event is on its way.
    pub phase: Phase,
    /// Which pointer.
    pub pointer: u64,
    /// The pointer's position in scene pixels.
    pub position: Vec2,
    /// The button, for down, up, click and up-outside events (0 otherwise).
    pub button: u16,
    /// The scroll distance of a wheel event.
    pub delta: Vec2,
    stop: bool,
    stop_now: bool,
}

impl PointerEvent {
    /// Stops the event after the current node's handlers.
    pub fn stop_propagation(&mut self) {
        self.stop = true;
    }

    /// Stops the event at once: no further handler runs, not even the current node's others.
    pub fn stop_immediate_propagation(&mut self) {
        self.stop = true;
        self.stop_now = true;
    }

    /// Whether propagation was stopped.
    pub fn propagation_stopped(&self) -> bool {
        self.stop
    }

    /// The pointer's position in `node`'s local space (`None` if it was removed or cannot be inverted).
    pub fn local_position(&self, scene: &Scene, node: NodeId) -> Option<Vec2> {
        let m = scene.world_transform(node)?;
        let p = m.inverse().transform_point2(self.position);
        p.is_finite().then_some(p)
    }
}

/// What a handler gets: the scene to change, the app's own state, and the event.
pub struct EventContext<'a, T> {
    /// The scene (handlers may add, remove and move nodes).
    pub scene: &'a mut Scene,
    /// The state passed to [`Events::dispatch`].
    pub state: &'a mut T,
    /// The event.
    pub event: &'a mut PointerEvent,
}

/// Names a handler, to remove it with [`Events::off`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HandlerId(u64);

type HandlerFn<T> = Box<dyn FnMut(&mut EventContext<'_, T>)>;

struct Handler<T> {
    id: HandlerId,
    kind: EventKind,
    capture: bool,
    f: HandlerFn<T>,
}

/// One pointer's state between inputs.
#[derive(Clone, Debug, Default)]
struct Track {
    position: Option<Vec2>,
    /// The path (root first) to what the pointer is over.
    over: Vec<NodeId>,
    /// Per pressed button: the path to where it went down.
    pressed: Vec<(u16, Vec<NodeId>)>,
}

/// The pointer-event dispatcher: handlers per node and event kind, and each pointer's hover and press state.
/// `T` is the app's own state, handed to every handler beside the scene. In a window, [`App::pointer`] hands the
/// inputs over; anywhere else, feed [`PointerInput`]s yourself:
///
/// ```
/// use stage2d::{Color, EventKind, EventMode, Events, Node, PointerInput, Scene};
/// use stage2d::glam::Vec2;
/// let mut scene = Scene::new();
/// let mut g = stage2d::GraphicsContext::new();
/// g.rect(0.0, 0.0, 40.0, 20.0).fill(Color::WHITE);
/// let button = scene.add(scene.root(), Node::graphics(g).at(10.0, 10.0).with_event_mode(EventMode::Static))?;
///
/// let mut clicks = 0u32; // the app's state
/// let mut events = Events::<u32>::new();
/// events.on(button, EventKind::Click, |cx| {
///     *cx.state += 1;
///     cx.event.stop_propagation();
/// });
/// let at = Vec2::new(20.0, 15.0);
/// events.dispatch(&mut scene, &mut clicks, PointerInput::Down { pointer: 1, position: at, button: 0 })?;
/// events.dispatch(&mut scene, &mut clicks, PointerInput::Up { pointer: 1, position: at, button: 0 })?;
/// assert_eq!(clicks, 1);
/// # Ok::<(), stage2d::Error>(())
/// ```
///
/// [`App::pointer`]: crate::app::App::pointer
pub struct Events<T = ()> {
    handlers: FxHashMap<NodeId, Vec<Handler<T>>>,
    global: Vec<NodeId>,
    tracks: FxHashMap<u64, Track>,
    next_id: u64,
    removals: u64,
    /// The pointer whose hover decides the cursor (the last one that moved).
    cursor_pointer: u64,
}

impl<T> Default for Events<T> {
    fn default() -> Self {
        Events {
            handlers: FxHashMap::default(),
            global: Vec::new(),
            tracks: FxHashMap::default(),
            next_id: 1,
            removals: 0,
            cursor_pointer: 0,
        }
    }
}

impl<T> std::fmt::Debug for Events<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Events")
            .field("nodes_with_handlers", &self.handlers.len())
            .field("pointers", &self.tracks.len())
            .finish()
    }
}

impl<T> Events<T> {
    /// A dispatcher with no handlers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Calls `handler` when `kind` reaches `node` at the target or bubbling up. Handlers of one node run in the
    /// order they were added. A removed node's handlers never run again and are dropped.
    pub fn on(
        &mut self,
        node: NodeId,
        kind: EventKind,
        handler: impl FnMut(&mut EventContext<'_, T>) + 'static,
    ) -> HandlerId {
        self.add(node, kind, false, Box::new(handler))
    }

    /// As [`Events::on`], but in the capture phase: before the target's own handlers, root first.
    pub fn on_capture(
        &mut self,
        node: NodeId,
        kind: EventKind,
        handler: impl FnMut(&mut EventContext<'_, T>) + 'static,
    ) -> HandlerId {
        self.add(node, kind, true, Box::new(handler))
    }

    fn add(&mut self, node: NodeId, kind: EventKind, capture: bool, f: HandlerFn<T>) -> HandlerId {
        let id = HandlerId(self.next_id);
        self.next_id += 1;
        if kind == EventKind::GlobalPointerMove && !self.global.contains(&node) {
            self.global.push(node);
        }
        self.handlers.entry(node).or_default().push(Handler {
            id,
            kind,
            capture,
            f,
        });
        id
    }

    /// Removes a handler; `false` if it was not there.
    pub fn off(&mut self, id: HandlerId) -> bool {
        for list in self.handlers.values_mut() {
            if let Some(i) = list.iter().position(|h| h.id == id) {
                list.remove(i);
                return true;
            }
        }
        false
    }

    /// Number of handlers held.
    pub fn handler_count(&self) -> usize {
        self.handlers.values().map(Vec::len).sum()
    }

    /// Drops the handlers of nodes removed from `scene` (done by every dispatch after a removal).
    pub fn prune(&mut self, scene: &Scene) {
        self.removals = scene.removals();
        self.handlers
            .retain(|id, list| scene.contains(*id) && !list.is_empty());
        self.global.retain(|id| scene.contains(*id));
        for t in self.tracks.values_mut() {
            t.over.retain(|id| scene.contains(*id));
            for (_, path) in &mut t.pressed {
                path.retain(|id| scene.contains(*id));
            }
        }
    }

    /// The cursor for the window: the first cursor set on the path to what the last-moved pointer is over,
    /// from that node up.
    pub fn cursor(&self, scene: &Scene) -> Cursor {
        self.tracks
            .get(&self.cursor_pointer)
            .and_then(|t| {
                t.over
                    .iter()
                    .rev()
                    .filter(|id| scene.contains(**id))
                    .find_map(|id| scene.cursor(*id))
            })
            .unwrap_or_default()
    }

    /// The node a pointer is over, if any.
    pub fn over(&self, pointer: u64) -> Option<NodeId> {
        self.tracks.get(&pointer)?.over.last().copied()
    }

    /// Feeds one input: hit-tests it and runs the handlers it reaches. A non-finite position or delta is
    /// [`Error::InvalidPointer`] and changes nothing.
    pub fn dispatch(
        &mut self,
        scene: &mut Scene,
        state: &mut T,
        input: PointerInput,
    ) -> Result<()> {
        if self.removals != scene.removals() {
            self.prune(scene);
        }
        match input {
            PointerInput::Move { pointer, position } => {
                check(position)?;
                self.cursor_pointer = pointer;
                let path = self.hover(scene, state, pointer, position);
                if let Some(&target) = path.last() {
                    let e = event(EventKind::PointerMove, target, pointer, position);
                    self.propagate(scene, state, &path, e);
                }
                // By index: handlers cannot add listeners, and `prune` only runs after the loop.
                for i in 0..self.global.len() {
                    let node = self.global[i];
                    let mut e = event(EventKind::GlobalPointerMove, node, pointer, position);
                    if let Some(&t) = path.last() {
                        e.target = t;
                    }
                    self.notify(scene, state, node, &mut e, Phase::Target);
                }
            }
            PointerInput::Down {
                pointer, button, ..
            } => {
                let path = self.press(scene, state, EventKind::PointerDown, input)?;
                let t = self.tracks.entry(pointer).or_default();
                t.pressed.retain(|(b, _)| *b != button);
                if !path.is_empty() {
                    t.pressed.push((button, path));
                }
            }
            PointerInput::Up {
                pointer,
                position,
                button,
            } => {
                let path = self.press(scene, state, EventKind::PointerUp, input)?;
                let pressed = self.tracks.get_mut(&pointer).and_then(|t| {
                    let i = t.pressed.iter().position(|(b, _)| *b == button)?;
                    Some(t.pressed.remove(i).1)
                });
                // The pressed node: the deepest one of the press's path still in the scene, wherever it sits now
                // (a handler may have moved it; PixiJS's `findMountedTarget`).
                let pressed =
                    pressed.and_then(|down| down.into_iter().rev().find(|n| scene.contains(*n)));
                if let Some(pressed) = pressed {
                    let down = path_to(scene, Some(pressed));
                    let on_up: FxHashSet<NodeId> = path.iter().copied().collect();
                    // Up outside: the pressed node and its ancestors up to the first one the up path holds; the
                    // click goes to that common ancestor.
                    let common = down.iter().rposition(|n| on_up.contains(n));
                    let outside = &down[common.map_or(0, |c| c + 1)..];
                    let mut e = event(EventKind::PointerUpOutside, pressed, pointer, position);
                    e.button = button;
                    for (i, &node) in outside.iter().rev().enumerate() {
                        let phase = if i == 0 { Phase::Target } else { Phase::Bubble };
                        if self.notify(scene, state, node, &mut e, phase) {
                            break;
                        }
                    }
                    if let Some(c) = common {
                        let mut e = event(EventKind::Click, down[c], pointer, position);
                        e.button = button;
                        self.propagate(scene, state, &down[..=c], e);
                    }
                }
            }
            PointerInput::Wheel {
                pointer,
                position,
                delta,
            } => {
                check(position)?;
                if !delta.is_finite() {
                    return Err(Error::InvalidPointer("non-finite wheel delta"));
                }
                let path = self.hover(scene, state, pointer, position);
                if let Some(&target) = path.last() {
                    let mut e = event(EventKind::Wheel, target, pointer, position);
                    e.delta = delta;
                    self.propagate(scene, state, &path, e);
                }
            }
            PointerInput::Leave { pointer } | PointerInput::Cancel { pointer } => {
                let position = self
                    .tracks
                    .get(&pointer)
                    .and_then(|t| t.position)
                    .unwrap_or(Vec2::ZERO);
                self.retarget(scene, state, pointer, position, Vec::new());
                let cancel = matches!(input, PointerInput::Cancel { .. });
                if let Some(t) = self.tracks.get_mut(&pointer) {
                    t.position = None;
                    if cancel || t.pressed.is_empty() {
                        self.tracks.remove(&pointer);
                    }
                }
            }
        }
        // Handlers may have removed nodes: forget them now, so `over` names no removed node.
        if self.removals != scene.removals() {
            self.prune(scene);
        }
        Ok(())
    }

    /// A button going down or up: hit-tested, hover updated, `kind` sent to the target; returns the path to it.
    fn press(
        &mut self,
        scene: &mut Scene,
        state: &mut T,
        kind: EventKind,
        input: PointerInput,
    ) -> Result<Vec<NodeId>> {
        let (PointerInput::Down {
            pointer,
            position,
            button,
        }
        | PointerInput::Up {
            pointer,
            position,
            button,
        }) = input
        else {
            return Ok(Vec::new());
        };
        check(position)?;
        let path = self.hover(scene, state, pointer, position);
        if let Some(&target) = path.last() {
            let mut e = event(kind, target, pointer, position);
            e.button = button;
            self.propagate(scene, state, &path, e);
        }
        Ok(path)
    }

    /// Once a frame: in a scene with [`EventMode::Dynamic`] nodes, pointers that stayed still are hit-tested
    /// again, so nodes moving in or out from under them get over, out, enter and leave events.
    pub fn tick(&mut self, scene: &mut Scene, state: &mut T) {
        if !scene.has_dynamic() {
            return;
        }
        if self.removals != scene.removals() {
            self.prune(scene);
        }
        let still: Vec<(u64, Vec2)> = self
            .tracks
            .iter()
            .filter_map(|(id, t)| Some((*id, t.position?)))
            .collect();
        for (pointer, position) in still {
            let path = path_to(scene, scene.hit_test(position));
            let moved_dynamic = path
                .iter()
                .chain(self.tracks.get(&pointer).map_or(&[][..], |t| &t.over))
                .any(|n| scene.event_mode(*n) == Some(EventMode::Dynamic));
            if moved_dynamic {
                self.retarget(scene, state, pointer, position, path);
            }
        }
        if self.removals != scene.removals() {
            self.prune(scene);
        }
    }

    /// Hit-tests `position` for `pointer`, sends over, out, enter and leave where the target changed, and
    /// returns the path (root first) to the new target.
    fn hover(
        &mut self,
        scene: &mut Scene,
        state: &mut T,
        pointer: u64,
        position: Vec2,
    ) -> Vec<NodeId> {
        let path = path_to(scene, scene.hit_test(position));
        self.retarget(scene, state, pointer, position, path.clone());
        path
    }

    fn retarget(
        &mut self,
        scene: &mut Scene,
        state: &mut T,
        pointer: u64,
        position: Vec2,
        path: Vec<NodeId>,
    ) {
        let track = self.tracks.entry(pointer).or_default();
        track.position = Some(position);
        let old = std::mem::replace(&mut track.over, path.clone());
        if old.last() == path.last() {
            return;
        }
        // The old target's chain as it is now (a handler may have moved it), or what is left of the old path.
        let old = match old.last() {
            Some(&t) if scene.contains(t) => path_to(scene, Some(t)),
            _ => old.into_iter().filter(|n| scene.contains(*n)).collect(),
        };
        // Both chains start at the top: what they share neither leaves nor enters.
        let shared = old.iter().zip(&path).take_while(|(a, b)| a == b).count();
        if let Some(&t) = old.last() {
            self.propagate(
                scene,
                state,
                &old,
                event(EventKind::PointerOut, t, pointer, position),
            );
            for &node in old[shared..].iter().rev() {
                let mut e = event(EventKind::PointerLeave, node, pointer, position);
                self.notify(scene, state, node, &mut e, Phase::Target);
            }
        }
        if let Some(&t) = path.last() {
            self.propagate(
                scene,
                state,
                &path,
                event(EventKind::PointerOver, t, pointer, position),
            );
            // Innermost first, as PixiJS sends them.
            for &node in path[shared..].iter().rev() {
                let mut e = event(EventKind::PointerEnter, node, pointer, position);
                self.notify(scene, state, node, &mut e, Phase::Target);
            }
        }
    }

    /// Sends `e` along `path` (root first, ending at the target): capture, target, then bubble.
    fn propagate(
        &mut self,
        scene: &mut Scene,
        state: &mut T,
        path: &[NodeId],
        mut e: PointerEvent,
    ) {
        let Some((&target, above)) = path.split_last() else {
            return;
        };
        e.target = target;
        for &node in above {
            if self.notify(scene, state, node, &mut e, Phase::Capture) {
                return;
            }
        }
        if self.notify(scene, state, target, &mut e, Phase::Target) || !e.kind.bubbles() {
            return;
        }
        for &node in above.iter().rev() {
            if self.notify(scene, state, node, &mut e, Phase::Bubble) {
                return;
            }
        }
    }

    /// Runs `node`'s handlers for `e` in `phase`; returns whether propagation stopped. A removed node is
    /// skipped.
    fn notify(
        &mut self,
        scene: &mut Scene,
        state: &mut T,
        node: NodeId,
        e: &mut PointerEvent,
        phase: Phase,
    ) -> bool {
        if !scene.contains(node) {
            return e.stop;
        }
        let Some(mut list) = self.handlers.remove(&node) else {
            return e.stop;
        };
        e.current_target = node;
        e.phase = phase;
        for h in &mut list {
            let wanted = match phase {
                Phase::Capture => h.capture,
                Phase::Target => true,
                Phase::Bubble => !h.capture,
            };
            if h.kind != e.kind || !wanted {
                continue;
            }
            let mut cx = EventContext {
                scene: &mut *scene,
                state: &mut *state,
                event: &mut *e,
            };
            (h.f)(&mut cx);
            if e.stop_now {
                break;
            }
        }
        if scene.contains(node) {
            self.handlers.insert(node, list);
        }
        e.stop
    }
}

fn check(p: Vec2) -> Result<()> {
    match p.is_finite() {
        true => Ok(()),
        false => Err(Error::InvalidPointer("non-finite position")),
    }
}

fn event(kind: EventKind, target: NodeId, pointer: u64, position: Vec2) -> PointerEvent {
    PointerEvent {
        kind,
        target,
        current_target: target,
        phase: Phase::Target,
        pointer,
        position,
        button: 0,
        delta: Vec2::ZERO,
        stop: false,
        stop_now: false,
    }
}

/// The path from the top (the root, or a detached ancestor) down to `target`.
fn path_to(scene: &Scene, target: Option<NodeId>) -> Vec<NodeId> {
    let mut path = Vec::new();
    let mut at = target;
    while let Some(n) = at {
        path.push(n);
        at = scene.parent(n);
    }
    path.reverse();
    path
}
