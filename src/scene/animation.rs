//! Frame-by-frame sprite animation in the manner of PixiJS's `AnimatedSprite`: a list of textures (usually an
//! animation of a [`Spritesheet`](crate::Spritesheet)) shown one after another on a sprite node of a [`Scene`].
//!
//! An [`AnimatedSprite`] owns no node: it drives the texture (and, from a sheet, the anchor) of one. Advance it
//! with [`AnimatedSprite::update`] and the seconds since the last frame: the app's ticker
//! (`ctx.ticker.delta_seconds` in [`App::update`](crate::app::App::update)), or any clock when headless. The node
//! is changed only when the frame shown changes, so a crowd of animated sprites costs what the same crowd of
//! sprites costs plus one texture write each time a frame turns; frames of one sheet share one texture, so
//! turning adds no bind group and uploads nothing.

use crate::{Error, NodeId, NodeKind, Result, Scene, Texture};
use glam::Vec2;
use std::sync::Arc;

/// What happened during one [`AnimatedSprite::update`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AnimationStep {
    /// The frame shown changed.
    pub frame_changed: bool,
    /// Times a looping animation went past its end (or, backwards, its start).
    pub loops: u32,
    /// A non-looping animation reached its last frame (or, backwards, its first) and stopped.
    pub completed: bool,
}

/// Called when a non-looping animation completes, with the scene and the animated node.
type OnComplete = Box<dyn FnMut(&mut Scene, NodeId) + Send>;

/// An animation's frames, and one anchor per frame from a sheet (shared by the animations playing them).
#[derive(Debug)]
pub(crate) struct Frames {
    pub(crate) textures: Box<[Texture]>,
    pub(crate) anchors: Option<Box<[Option<Vec2>]>>,
}

/// Plays frames on a sprite node: it owns no node, it changes the texture (and, from a sheet, the anchor) of one
/// when the frame shown changes. Advance it with [`AnimatedSprite::update`] by the seconds since the last frame
/// (the app's `ctx.ticker.delta_seconds`, or any clock when headless).
///
/// 64 bytes, one cache line, with what every update reads first: a crowd of them streams through the least memory.
///
/// ```
/// use stage2d::{AnimatedSprite, AnimationStep, Node, Renderer, Sampling, Scene, Spritesheet};
/// # fn main() -> stage2d::Result<()> {
/// let mut renderer = Renderer::new_headless(Default::default())?;
/// let mut assets = stage2d::Assets::new();
/// let sheet = assets.load_spritesheet(&mut renderer, "assets/critters.json", Sampling::NEAREST)?.clone();
/// let mut scene = Scene::new();
/// let bird = scene.add(scene.root(), Node::sprite(sheet.try_frame("bird_flap_0.png")?).at(64.0, 64.0))?;
/// let mut flap = AnimatedSprite::from_sheet(bird, &sheet, "bird_flap")?.with_fps(12.0);
/// flap.play();
/// // Each frame, with the app's delta time:
/// let step = flap.update(&mut scene, 1.0 / 60.0)?;
/// # let _ = step;
/// # Ok(()) }
/// ```
#[repr(C, align(64))]
pub struct AnimatedSprite {
    /// Position in frames, `0..frames.len()`.
    position: f32,
    /// The frame shown.
    current: u32,
    /// Frames shown per second at `speed` 1.
    pub fps: f32,
    /// Multiplies `fps`; negative plays backwards.
    pub speed: f32,
    playing: bool,
    /// Start again after the last frame; otherwise stop on it and call the completion handler.
    pub looping: bool,
    /// Set the node's anchor to each frame's anchor from the sheet (as PixiJS's `updateAnchor`).
    pub update_anchor: bool,
    node: NodeId,
    /// The frames and their anchors, shared by every animation of one sheet animation.
    frames: Arc<Frames>,
    on_complete: Option<OnComplete>,
}

impl std::fmt::Debug for AnimatedSprite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnimatedSprite")
            .field("node", &self.node)
            .field("frames", &self.frames.textures.len())
            .field("fps", &self.fps)
            .field("speed", &self.speed)
            .field("looping", &self.looping)
            .field("playing", &self.playing)
            .field("current", &self.current)
            .finish_non_exhaustive()
    }
}

impl AnimatedSprite {
    /// Frames per second unless set: PixiJS's `animationSpeed` of 1 at 60 ticks a second would be 60; sheets are
    /// usually drawn for 12.
    pub const DEFAULT_FPS: f32 = 12.0;

    /// Plays `frames` on the sprite node `node`, looping at [`AnimatedSprite::DEFAULT_FPS`], stopped on frame 0
    /// until [`AnimatedSprite::play`]. No frames is [`Error::InvalidFrame`].
    pub fn new(node: NodeId, frames: impl Into<Vec<Texture>>) -> Result<AnimatedSprite> {
        let frames = Frames {
            textures: frames.into().into_boxed_slice(),
            anchors: None,
        };
        AnimatedSprite::with_frames(node, Arc::new(frames))
    }

    pub(crate) fn with_frames(node: NodeId, frames: Arc<Frames>) -> Result<AnimatedSprite> {
        if frames.textures.is_empty() || frames.textures.len() > u32::MAX as usize {
            return Err(Error::InvalidFrame("an animation needs a frame".into()));
        }
        Ok(AnimatedSprite {
            node,
            frames,
            fps: Self::DEFAULT_FPS,
            speed: 1.0,
            looping: true,
            update_anchor: false,
            playing: false,
            position: 0.0,
            current: 0,
            on_complete: None,
        })
    }

    /// Sets frames per second (builder style).
    pub fn with_fps(mut self, fps: f32) -> AnimatedSprite {
        self.fps = fps;
        self
    }

    /// Plays once and stops on the last frame (builder style).
    pub fn once(mut self) -> AnimatedSprite {
        self.looping = false;
        self
    }

    /// Calls `f` when a non-looping animation completes (PixiJS's `onComplete`).
    pub fn on_complete(&mut self, f: impl FnMut(&mut Scene, NodeId) + Send + 'static) {
        self.on_complete = Some(Box::new(f));
    }

    /// The node it animates.
    pub fn node(&self) -> NodeId {
        self.node
    }

    /// The frames.
    pub fn frames(&self) -> &[Texture] {
        &self.frames.textures
    }

    /// The frame shown (its index).
    pub fn current_frame(&self) -> usize {
        self.current as usize
    }

    /// Whether it advances on [`AnimatedSprite::update`].
    pub fn is_playing(&self) -> bool {
        self.playing
    }

    /// Starts (or resumes) playing. A completed non-looping animation starts again from its first frame (its
    /// last, backwards).
    pub fn play(&mut self) {
        if !self.playing && !self.looping && self.at_end() {
            self.position = if self.speed < 0.0 {
                (self.frames.textures.len() as f32).next_down()
            } else {
                0.0
            };
        }
        self.playing = true;
    }

    /// Stops on the frame shown.
    pub fn stop(&mut self) {
        self.playing = false;
    }

    fn at_end(&self) -> bool {
        if self.speed < 0.0 {
            self.current == 0
        } else {
            self.current as usize + 1 == self.frames.textures.len()
        }
    }

    /// Shows frame `index` (clamped) now and stops.
    pub fn goto_and_stop(&mut self, scene: &mut Scene, index: usize) -> Result<()> {
        self.playing = false;
        self.show(scene, index.min(self.frames.textures.len() - 1), true)
    }

    /// Shows frame `index` (clamped) now and plays from it.
    pub fn goto_and_play(&mut self, scene: &mut Scene, index: usize) -> Result<()> {
        self.playing = true;
        self.show(scene, index.min(self.frames.textures.len() - 1), true)
    }

    /// Writes frame `index` into the node (if it changed, or `force`).
    fn show(&mut self, scene: &mut Scene, index: usize, force: bool) -> Result<()> {
        scene.check(self.node)?;
        if index == self.current as usize && !force {
            return Ok(());
        }
        if force {
            self.position = index as f32;
        }
        self.current = index as u32;
        let texture = self.frames.textures[index];
        let anchor = match (&self.frames.anchors, self.update_anchor) {
            (Some(a), true) => a[index],
            _ => None,
        };
        let node = scene
            .get_mut(self.node)
            .ok_or(Error::StaleNode(self.node))?;
        match &mut node.kind {
            NodeKind::Sprite(s) => {
                s.texture = texture;
                if let Some(a) = anchor {
                    s.anchor = a;
                }
            }
            NodeKind::Tiling(t) => t.texture = texture,
            NodeKind::NineSlice(n) => n.texture = texture,
            NodeKind::Mesh(m) => m.texture = texture,
            kind @ NodeKind::Container => {
                // A container becomes a sprite of the frame, keeping its transform.
                let mut s = crate::Sprite::new(texture);
                if let Some(a) = anchor {
                    s.anchor = a;
                }
                *kind = NodeKind::Sprite(s);
            }
            _ => {
                return Err(Error::InvalidFrame(
                    "an animation plays on a sprite, tiling, nine-slice or empty container node"
                        .into(),
                ))
            }
        }
        Ok(())
    }

    /// Advances by `dt` seconds and shows the frame reached. Skipped frames are not shown (a long `dt` jumps); a
    /// non-finite or negative `dt` counts as 0. Between turns of the frame the scene is not touched; a turn on a
    /// removed node is [`Error::StaleNode`] (another scene's, [`Error::ForeignNode`]).
    #[inline(always)]
    pub fn update(&mut self, scene: &mut Scene, dt: f32) -> Result<AnimationStep> {
        // The common case, a few instructions: playing, and still on the frame shown. Anything else (a turn, an
        // end, a stop, NaN or infinite numbers, which fail these comparisons) goes the careful way.
        let p = self.position + self.fps * self.speed * dt;
        let shown = self.current as f32;
        if self.playing && dt > 0.0 && p >= shown && p < shown + 1.0 {
            self.position = p;
            return Ok(AnimationStep::default());
        }
        self.advance(scene, dt)
    }

    /// [`AnimatedSprite::update`] past a frame boundary, at an end, or with numbers to check.
    #[cold]
    #[inline(never)]
    fn advance(&mut self, scene: &mut Scene, dt: f32) -> Result<AnimationStep> {
        let mut step = AnimationStep::default();
        if !(self.playing && dt.is_finite() && dt > 0.0) {
            return Ok(step);
        }
        let delta = f64::from(self.fps) * f64::from(self.speed) * f64::from(dt);
        if !delta.is_finite() || delta == 0.0 {
            return Ok(step);
        }
        let n = self.frames.textures.len() as f64;
        let mut p = f64::from(self.position) + delta;
        if self.looping {
            if !(0.0..n).contains(&p) {
                let wraps = (p / n).floor();
                step.loops = wraps.abs().min(f64::from(u32::MAX)) as u32;
                p = p.rem_euclid(n);
                if p >= n {
                    p = 0.0;
                }
            }
        } else if p >= n {
            // Past the last frame's time (as PixiJS: the last frame is shown for its whole time first).
            p = n - 1.0;
            self.playing = false;
            step.completed = true;
        } else if p < 0.0 {
            p = 0.0;
            self.playing = false;
            step.completed = true;
        }
        let index = (p.floor() as usize).min(self.frames.textures.len() - 1);
        step.frame_changed = index != self.current as usize;
        if step.frame_changed || step.completed {
            self.show(scene, index, false)?;
        }
        // Kept inside the frame shown (f32 may round up to the next one).
        let at = index as f32;
        self.position = (p as f32).clamp(at, (at + 1.0).next_down());
        if step.completed {
            if let Some(f) = self.on_complete.as_mut() {
                f(scene, self.node);
            }
        }
        Ok(step)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::texture::tests_support::texture;

    fn setup(frames: usize) -> (Scene, NodeId, Vec<Texture>) {
        let frames: Vec<Texture> = (0..frames).map(|i| texture(i as u32)).collect();
        let mut scene = Scene::new();
        let node = scene
            .add(scene.root(), crate::Node::sprite(frames[0]))
            .unwrap();
        (scene, node, frames)
    }

    fn shown(scene: &Scene, node: NodeId) -> Texture {
        match &scene.get(node).unwrap().kind {
            NodeKind::Sprite(s) => s.texture,
            _ => panic!("not a sprite"),
        }
    }

    #[test]
    fn frames_turn_at_the_rate_and_loop() {
        let (mut scene, node, frames) = setup(4);
        let mut a = AnimatedSprite::new(node, frames.clone())
            .unwrap()
            .with_fps(10.0);
        assert_eq!(
            a.update(&mut scene, 0.5).unwrap(),
            AnimationStep::default(),
            "stopped until played"
        );
        a.play();
        let s = a.update(&mut scene, 0.15).unwrap();
        assert!(s.frame_changed);
        assert_eq!(a.current_frame(), 1);
        assert_eq!(shown(&scene, node), frames[1]);
        let s = a.update(&mut scene, 0.04).unwrap();
        assert!(!s.frame_changed, "1.9 frames in: still frame 1");
        let s = a.update(&mut scene, 0.3).unwrap(); // 4.9 frames: wrapped once, frame 0
        assert_eq!((s.loops, a.current_frame()), (1, 0));
        assert_eq!(shown(&scene, node), frames[0]);
        let s = a.update(&mut scene, 1.0).unwrap(); // +10 frames: 14.9, two more loops
        assert_eq!((s.loops, a.current_frame()), (2, 2));
    }

    #[test]
    fn once_stops_on_the_last_frame_and_calls_back() {
        let (mut scene, node, frames) = setup(3);
        let mut a = AnimatedSprite::new(node, frames.clone())
            .unwrap()
            .with_fps(10.0)
            .once();
        let done = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
        let d = done.clone();
        a.on_complete(move |scene, n| {
            d.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            scene.get_mut(n).unwrap().alpha = 0.5;
        });
        a.play();
        let s = a.update(&mut scene, 10.0).unwrap();
        assert!(s.completed && !a.is_playing());
        assert_eq!(a.current_frame(), 2);
        assert_eq!(shown(&scene, node), frames[2]);
        assert_eq!(done.load(std::sync::atomic::Ordering::SeqCst), 1);
        assert_eq!(scene.get(node).unwrap().alpha, 0.5);
        // Stopped: further updates change nothing and do not call back again.
        assert!(!a.update(&mut scene, 1.0).unwrap().completed);
        assert_eq!(done.load(std::sync::atomic::Ordering::SeqCst), 1);
        // Playing again restarts from the first frame.
        a.play();
        a.update(&mut scene, 0.05).unwrap();
        assert_eq!(a.current_frame(), 0);
    }

    #[test]
    fn the_last_frame_shows_for_its_time_before_completing() {
        let (mut scene, node, frames) = setup(1);
        let mut a = AnimatedSprite::new(node, frames.clone())
            .unwrap()
            .with_fps(10.0)
            .once();
        a.play();
        assert!(
            !a.update(&mut scene, 0.05).unwrap().completed,
            "half its time"
        );
        assert!(a.update(&mut scene, 0.06).unwrap().completed);
        let (mut scene, node, frames) = setup(3);
        let mut a = AnimatedSprite::new(node, frames)
            .unwrap()
            .with_fps(10.0)
            .once();
        a.play();
        a.update(&mut scene, 0.25).unwrap();
        assert_eq!(
            (a.current_frame(), a.is_playing()),
            (2, true),
            "on the last frame"
        );
        assert!(a.update(&mut scene, 0.1).unwrap().completed);
        // Shapes and text are not animated.
        let g = scene
            .add(
                scene.root(),
                crate::Node::graphics(crate::GraphicsContext::new()),
            )
            .unwrap();
        let mut b = AnimatedSprite::new(g, vec![texture(0), texture(1)]).unwrap();
        assert!(b.goto_and_stop(&mut scene, 1).is_err());
    }

    #[test]
    fn an_animation_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<AnimatedSprite>(), 64);
    }

    #[test]
    fn backwards_and_goto() {
        let (mut scene, node, frames) = setup(5);
        let mut a = AnimatedSprite::new(node, frames.clone())
            .unwrap()
            .with_fps(10.0);
        a.speed = -1.0;
        a.goto_and_play(&mut scene, 2).unwrap();
        a.update(&mut scene, 0.15).unwrap();
        assert_eq!(a.current_frame(), 0);
        a.update(&mut scene, 0.1).unwrap();
        assert_eq!(a.current_frame(), 4, "wraps backwards to the end");
        a.goto_and_stop(&mut scene, 99).unwrap();
        assert_eq!((a.current_frame(), a.is_playing()), (4, false));
        assert_eq!(shown(&scene, node), frames[4]);
    }

    #[test]
    fn bad_time_and_removed_nodes() {
        let (mut scene, node, frames) = setup(2);
        let mut a = AnimatedSprite::new(node, frames).unwrap();
        a.play();
        for dt in [f32::NAN, f32::INFINITY, -1.0, 0.0] {
            assert!(!a.update(&mut scene, dt).unwrap().frame_changed);
        }
        a.speed = f32::INFINITY;
        assert!(!a.update(&mut scene, 0.1).unwrap().frame_changed);
        a.speed = 1e30;
        a.update(&mut scene, 0.1).unwrap(); // huge jumps wrap without overflow
        assert!(a.current_frame() < 2);
        scene.remove(node).unwrap();
        a.speed = 1.0;
        // One frame of two: the frame turns, on a removed node.
        let turn = a.update(&mut scene, 1.0 / 12.0);
        assert!(matches!(turn, Err(Error::StaleNode(_))), "{turn:?}");
        assert!(AnimatedSprite::new(node, Vec::new()).is_err());
    }
}
