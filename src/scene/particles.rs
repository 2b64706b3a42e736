//! Particles: PixiJS's `ParticleContainer`. Many small quads of one source texture, kept in dense columns (one a
//! property) and drawn in one instanced draw whose corners the GPU computes from each particle's properties.

use crate::scene::pointer::Rect;
use crate::scene::sprite::{LocalQuad, Sprite};
use crate::{Color, Error, Result, Texture};
use glam::Vec2;
use std::sync::atomic::{AtomicU64, Ordering};

/// The most particles one container holds: asking for more is an [`Error::TooManyParticles`] before anything is
/// allocated (at 48 bytes of GPU data a particle, 2^25 particles need 1.5 GiB).
pub const MAX_PARTICLES: usize = 1 << 25;

/// One particle of a [`ParticleContainer`], as it is added, read and replaced (the container keeps each property in
/// a column of its own). Not a node: no handle, no children, no events, no mask of its own.
///
/// Its quad is its frame's (see [`ParticleContainer::add_frame`]) at its own size, placed by `anchor`, scaled by
/// `scale`, turned by `rotation` (radians, clockwise on screen) around the anchor and moved to `position`, in the
/// container's space.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct Particle {
    /// Where the anchor sits, in the container's space.
    pub position: Vec2,
    /// Scale along the particle's axes.
    pub scale: Vec2,
    /// Which point of the frame sits at `position`: `(0, 0)` top-left (the default, as PixiJS's), `(0.5, 0.5)`
    /// the centre.
    pub anchor: Vec2,
    /// Rotation in radians, clockwise on screen, around the anchor.
    pub rotation: f32,
    /// Colour multiplied into the texture, `0xRRGGBB` as PixiJS's `tint` (white: none).
    pub tint: u32,
    /// Opacity in `0..=1`.
    pub alpha: f32,
    /// The frame drawn: an index into the container's frames (0: its texture).
    pub frame: u32,
}

impl Default for Particle {
    fn default() -> Self {
        Particle::new(0.0, 0.0)
    }
}

impl Particle {
    /// A particle of frame 0 at `(x, y)`: scale 1, anchor top-left, no rotation, no tint, opaque.
    pub const fn new(x: f32, y: f32) -> Particle {
        Particle {
            position: Vec2::new(x, y),
            scale: Vec2::ONE,
            anchor: Vec2::ZERO,
            rotation: 0.0,
            tint: 0xff_ffff,
            alpha: 1.0,
            frame: 0,
        }
    }

    /// Sets the scale on both axes (builder style).
    pub fn scaled(mut self, scale: f32) -> Particle {
        self.scale = Vec2::splat(scale);
        self
    }

    /// Sets the anchor (builder style).
    pub fn anchored(mut self, x: f32, y: f32) -> Particle {
        self.anchor = Vec2::new(x, y);
        self
    }

    /// Sets the rotation in radians (builder style).
    pub fn rotated(mut self, radians: f32) -> Particle {
        self.rotation = radians;
        self
    }

    /// Sets the tint from a colour (its alpha is ignored; builder style).
    pub fn tinted(mut self, tint: Color) -> Particle {
        self.tint = tint.to_rgba8_u32().swap_bytes() >> 8;
        self
    }

    /// Sets the alpha (builder style).
    pub fn with_alpha(mut self, alpha: f32) -> Particle {
        self.alpha = alpha;
        self
    }

    /// Sets the frame index (builder style).
    pub fn with_frame(mut self, frame: u32) -> Particle {
        self.frame = frame;
        self
    }
}

/// Which of a particle's properties are uploaded every frame (dynamic) rather than only when the container's
/// particles are added, removed, reordered or [`ParticleContainer::update`]d (static): PixiJS's
/// `dynamicProperties`. The default is PixiJS's: only `position` is dynamic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParticleProperties {
    /// Scale, anchor and frame size (the quad's corners around the anchor).
    pub vertex: bool,
    /// Position.
    pub position: bool,
    /// Rotation.
    pub rotation: bool,
    /// The frame's texture coordinates.
    pub uvs: bool,
    /// Tint and alpha.
    pub color: bool,
}

impl Default for ParticleProperties {
    fn default() -> Self {
        ParticleProperties {
            vertex: false,
            position: true,
            rotation: false,
            uvs: false,
            color: false,
        }
    }
}

impl ParticleProperties {
    /// Every property dynamic.
    pub const ALL: ParticleProperties = ParticleProperties {
        vertex: true,
        position: true,
        rotation: true,
        uvs: true,
        color: true,
    };
    /// Every property static.
    pub const NONE: ParticleProperties = ParticleProperties {
        vertex: false,
        position: false,
        rotation: false,
        uvs: false,
        color: false,
    };

    /// The properties as flags in the GPU's order (vertex, position, rotation, uvs, color).
    pub(crate) fn flags(&self) -> [bool; 5] {
        [
            self.vertex,
            self.position,
            self.rotation,
            self.uvs,
            self.color,
        ]
    }
}

static NEXT_CONTAINER: AtomicU64 = AtomicU64::new(1);

/// A container's particles as columns, a slice a property, all of one length ([`ParticleContainer::particles`]).
#[derive(Clone, Copy, Debug)]
pub struct Particles<'a> {
    /// [`Particle::position`] of each particle.
    pub position: &'a [Vec2],
    /// [`Particle::scale`] of each particle.
    pub scale: &'a [Vec2],
    /// [`Particle::anchor`] of each particle.
    pub anchor: &'a [Vec2],
    /// [`Particle::rotation`] of each particle.
    pub rotation: &'a [f32],
    /// [`Particle::tint`] of each particle.
    pub tint: &'a [u32],
    /// [`Particle::alpha`] of each particle.
    pub alpha: &'a [f32],
    /// [`Particle::frame`] of each particle.
    pub frame: &'a [u32],
}

impl<'a> Particles<'a> {
    /// Number of particles.
    pub fn len(&self) -> usize {
        self.position.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.position.is_empty()
    }

    /// Particle `index` (its properties gathered from the columns); `None` past the end of any column.
    pub fn get(&self, index: usize) -> Option<Particle> {
        Some(Particle {
            position: *self.position.get(index)?,
            scale: *self.scale.get(index)?,
            anchor: *self.anchor.get(index)?,
            rotation: *self.rotation.get(index)?,
            tint: *self.tint.get(index)?,
            alpha: *self.alpha.get(index)?,
            frame: *self.frame.get(index)?,
        })
    }

    /// The particles in draw order, each gathered from the columns (as many as the shortest column holds).
    pub fn iter(&self) -> impl Iterator<Item = Particle> + 'a {
        let c = *self;
        (0..c.len()).map_while(move |i| c.get(i))
    }

    /// The particles in `range` (clamped to the particles there are).
    pub(crate) fn slice(&self, range: std::ops::Range<usize>) -> Particles<'a> {
        let n = self.len();
        let r = range.start.min(n)..range.end.min(n);
        Particles {
            position: &self.position[r.clone()],
            scale: &self.scale[r.clone()],
            anchor: &self.anchor[r.clone()],
            rotation: &self.rotation[r.clone()],
            tint: &self.tint[r.clone()],
            alpha: &self.alpha[r.clone()],
            frame: &self.frame[r],
        }
    }
}

/// A container's particles as columns to change in place, a slice a property
/// ([`ParticleContainer::particles_mut`]): an update loop over a million positions is a loop over one slice of
/// 8-byte values. Dynamic properties show next frame; static ones after [`ParticleContainer::update`].
#[derive(Debug)]
pub struct ParticlesMut<'a> {
    /// [`Particle::position`] of each particle.
    pub position: &'a mut [Vec2],
    /// [`Particle::scale`] of each particle.
    pub scale: &'a mut [Vec2],
    /// [`Particle::anchor`] of each particle.
    pub anchor: &'a mut [Vec2],
    /// [`Particle::rotation`] of each particle.
    pub rotation: &'a mut [f32],
    /// [`Particle::tint`] of each particle.
    pub tint: &'a mut [u32],
    /// [`Particle::alpha`] of each particle.
    pub alpha: &'a mut [f32],
    /// [`Particle::frame`] of each particle.
    pub frame: &'a mut [u32],
}

impl ParticlesMut<'_> {
    /// Number of particles.
    pub fn len(&self) -> usize {
        self.position.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.position.is_empty()
    }
}

/// One particle being changed ([`ParticleContainer::particle_mut`]): a copy of its properties, written back into
/// the container's columns when this is dropped.
#[derive(Debug)]
pub struct ParticleMut<'a> {
    columns: &'a mut Columns,
    index: usize,
    particle: Particle,
}

impl std::ops::Deref for ParticleMut<'_> {
    type Target = Particle;
    fn deref(&self) -> &Particle {
        &self.particle
    }
}

impl std::ops::DerefMut for ParticleMut<'_> {
    fn deref_mut(&mut self) -> &mut Particle {
        &mut self.particle
    }
}

impl Drop for ParticleMut<'_> {
    fn drop(&mut self) {
        self.columns.set(self.index, self.particle);
    }
}

/// The particles' properties, a vector each, all of one length.
#[derive(Clone, Debug, Default, PartialEq)]
struct Columns {
    position: Vec<Vec2>,
    scale: Vec<Vec2>,
    anchor: Vec<Vec2>,
    rotation: Vec<f32>,
    tint: Vec<u32>,
    alpha: Vec<f32>,
    frame: Vec<u32>,
}

/// Applies `$body` (a closure-like `|v| ...`) to each column vector of `$c`.
macro_rules! each_column {
    ($c:expr, |$v:ident| $body:expr) => {
        each_column!(@ $c, $v, $body, position scale anchor rotation tint alpha frame)
    };
    (@ $c:expr, $v:ident, $body:expr, $($field:ident)*) => {{
        let c = $c;
        $({
            let $v = &mut c.$field;
            $body;
        })*
    }};
}

impl Columns {
    fn len(&self) -> usize {
        self.position.len()
    }

    fn push(&mut self, p: Particle) {
        self.position.push(p.position);
        self.scale.push(p.scale);
        self.anchor.push(p.anchor);
        self.rotation.push(p.rotation);
        self.tint.push(p.tint);
        self.alpha.push(p.alpha);
        self.frame.push(p.frame);
    }

    fn set(&mut self, i: usize, p: Particle) {
        self.position[i] = p.position;
        self.scale[i] = p.scale;
        self.anchor[i] = p.anchor;
        self.rotation[i] = p.rotation;
        self.tint[i] = p.tint;
        self.alpha[i] = p.alpha;
        self.frame[i] = p.frame;
    }

    fn view(&self) -> Particles<'_> {
        Particles {
            position: &self.position,
            scale: &self.scale,
            anchor: &self.anchor,
            rotation: &self.rotation,
            tint: &self.tint,
            alpha: &self.alpha,
            frame: &self.frame,
        }
    }

    fn reserve(&mut self, n: usize) {
        each_column!(self, |v| v.reserve(n));
    }

    fn truncate(&mut self, n: usize) {
        each_column!(self, |v| v.truncate(n));
    }

    fn drain(&mut self, r: std::ops::Range<usize>) {
        each_column!(self, |v| drop(v.drain(r.clone())));
    }

    /// Keeps the particles whose flag in `keep` is set, in order.
    fn retain_flags(&mut self, keep: &[bool]) {
        each_column!(self, |v| {
            let mut i = 0;
            v.retain(|_| {
                i += 1;
                keep[i - 1]
            })
        });
    }

    /// Puts the particles in the order `order` (a permutation of their indices) gives.
    fn permute(&mut self, order: &[u32]) {
        each_column!(self, |v| {
            let sorted: Vec<_> = order.iter().map(|&i| v[i as usize]).collect();
            // Into the column's own memory, keeping what `reserve` set aside.
            v.clear();
            v.extend_from_slice(&sorted);
        });
    }
}

/// PixiJS's `ParticleContainer`: a node drawing many particles of one source texture in one instanced draw.
///
/// Particles are stored by property, a dense column each ([`ParticleContainer::particles_mut`] gives the columns
/// as slices: an update loop over a million positions is a loop over one slice of 8-byte values, and a frame's
/// upload of them is one copy). Each frame only the [dynamic properties](ParticleProperties) are uploaded (by
/// default the positions: 8 bytes a particle); the static ones are uploaded when particles are added, removed,
/// sorted or cleared, when one is changed through [`ParticleContainer::particle_mut`] or
/// [`ParticleContainer::set`], or on [`ParticleContainer::update`] (after static properties were changed through
/// `particles_mut`).
///
/// The container is a node like any other: its transform, alpha, tint, blend mode, mask, filters and render
/// texture apply to all its particles. As in PixiJS its bounds are not computed: set
/// [`ParticleContainer::bounds_area`] (or from [`ParticleContainer::compute_bounds`]) for culling and hit
/// testing, which then use that rectangle; without it the container is never culled and never hit.
///
/// ```
/// use stage2d::{Node, Particle, ParticleContainer, Renderer, Scene};
/// # fn main() -> stage2d::Result<()> {
/// let renderer = Renderer::new_headless(Default::default())?;
/// let mut particles = ParticleContainer::new(renderer.white_texture());
/// for i in 0..1000 {
///     particles.add(Particle::new((i % 40) as f32 * 20.0, (i / 40) as f32 * 20.0).scaled(4.0))?;
/// }
/// let mut scene = Scene::new();
/// let id = scene.add(scene.root(), Node::particles(particles))?;
/// // Each frame: move them (positions are dynamic by default).
/// let pc = scene.get_mut(id).and_then(|n| n.as_particles_mut()).unwrap();
/// for p in pc.particles_mut().position {
///     p.y += 1.0;
/// }
/// // One particle's static properties: uploaded again next frame.
/// pc.particle_mut(0).unwrap().alpha = 0.5;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct ParticleContainer {
    columns: Columns,
    frames: Vec<Texture>,
    dynamic: ParticleProperties,
    /// The container's bounds in its own space for culling and hit testing (PixiJS's `boundsArea`); `None`:
    /// never culled, never hit.
    pub bounds_area: Option<Rect>,
    /// Snap each particle's corners to whole target pixels (PixiJS's `roundPixels`).
    pub round_pixels: bool,
    /// Identity of this container's GPU buffers.
    uid: u64,
    /// Bumped by every change a renderer must upload.
    version: u64,
    /// The version of the last change that needs every static property uploaded again; changes since then are
    /// the particles in `dirty`.
    base: u64,
    dirty: std::ops::Range<u32>,
}

impl Clone for ParticleContainer {
    fn clone(&self) -> Self {
        ParticleContainer {
            columns: self.columns.clone(),
            frames: self.frames.clone(),
            dynamic: self.dynamic,
            bounds_area: self.bounds_area,
            round_pixels: self.round_pixels,
            uid: NEXT_CONTAINER.fetch_add(1, Ordering::Relaxed),
            version: 1,
            base: 1,
            dirty: 0..0,
        }
    }
}

impl PartialEq for ParticleContainer {
    fn eq(&self, o: &Self) -> bool {
        self.columns == o.columns
            && self.frames == o.frames
            && self.dynamic == o.dynamic
            && self.bounds_area == o.bounds_area
            && self.round_pixels == o.round_pixels
    }
}

/// What a renderer needs to know of a container's static data: see [`ParticleContainer::upload_state`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct UploadState {
    pub uid: u64,
    pub version: u64,
    pub base: u64,
    pub dirty: (u32, u32),
}

impl ParticleContainer {
    /// An empty container drawing frames of `texture`'s source; frame 0 is `texture` itself.
    pub fn new(texture: Texture) -> ParticleContainer {
        ParticleContainer {
            columns: Columns::default(),
            frames: vec![texture],
            dynamic: ParticleProperties::default(),
            bounds_area: None,
            round_pixels: false,
            uid: NEXT_CONTAINER.fetch_add(1, Ordering::Relaxed),
            version: 1,
            base: 1,
            dirty: 0..0,
        }
    }

    /// Sets which properties are uploaded every frame (builder style; see [`ParticleProperties`]).
    pub fn with_dynamic(mut self, dynamic: ParticleProperties) -> ParticleContainer {
        self.set_dynamic(dynamic);
        self
    }

    /// Sets which properties are uploaded every frame.
    pub fn set_dynamic(&mut self, dynamic: ParticleProperties) {
        self.dynamic = dynamic;
        self.changed_all();
    }

    /// Which properties are uploaded every frame.
    pub fn dynamic(&self) -> ParticleProperties {
        self.dynamic
    }

    /// The texture (frame 0) whose source every frame shares.
    pub fn texture(&self) -> Texture {
        self.frames[0]
    }

    /// Adds a frame particles can show ([`Particle::frame`] = the index returned). It must be a frame of the
    /// container's source texture (one texture is bound for all particles):
    /// [`Error::ParticleFrame`] otherwise.
    pub fn add_frame(&mut self, frame: Texture) -> Result<u32> {
        if frame.id() != self.frames[0].id() {
            return Err(Error::ParticleFrame(format!(
                "a frame of texture {:?} cannot join a container of texture {:?}: all frames share one source",
                frame.id(),
                self.frames[0].id()
            )));
        }
        if self.frames.len() >= u32::MAX as usize {
            return Err(Error::ParticleFrame("too many frames".into()));
        }
        self.frames.push(frame);
        self.changed_all();
        Ok(self.frames.len() as u32 - 1)
    }

    /// The frames particles show, by index.
    pub fn frames(&self) -> &[Texture] {
        &self.frames
    }

    /// Number of particles.
    pub fn len(&self) -> usize {
        self.columns.len()
    }

    /// Whether there are no particles.
    pub fn is_empty(&self) -> bool {
        self.columns.len() == 0
    }

    fn check_room(&self, more: usize) -> Result<()> {
        let asked = self.len().saturating_add(more);
        if asked > MAX_PARTICLES {
            return Err(Error::TooManyParticles {
                asked,
                max: MAX_PARTICLES,
            });
        }
        Ok(())
    }

    /// Makes room for `additional` more particles: [`Error::TooManyParticles`] past [`MAX_PARTICLES`], before
    /// anything is allocated.
    pub fn reserve(&mut self, additional: usize) -> Result<()> {
        self.check_room(additional)?;
        self.columns.reserve(additional);
        Ok(())
    }

    /// Adds a particle on top of the others; returns its index.
    pub fn add(&mut self, particle: Particle) -> Result<usize> {
        self.check_room(1)?;
        self.columns.push(particle);
        self.changed_all();
        Ok(self.len() - 1)
    }

    /// Adds particles on top of the others (all or none: [`Error::TooManyParticles`] adds none).
    pub fn extend(&mut self, particles: impl IntoIterator<Item = Particle>) -> Result<()> {
        let it = particles.into_iter();
        let before = self.len();
        self.check_room(it.size_hint().0)?;
        self.columns.reserve(it.size_hint().0);
        for p in it {
            if self.len() >= MAX_PARTICLES {
                self.columns.truncate(before);
                return self.check_room(1);
            }
            self.columns.push(p);
        }
        self.changed_all();
        Ok(())
    }

    /// Removes the particle at `index` (the ones above move down); `None` if there is none.
    pub fn remove(&mut self, index: usize) -> Option<Particle> {
        let p = self.get(index)?;
        self.columns.drain(index..index + 1);
        self.changed_all();
        Some(p)
    }

    /// Removes the particles in `range` (clamped to the particles there are).
    pub fn remove_range(&mut self, range: std::ops::Range<usize>) {
        let n = self.len();
        let (a, b) = (range.start.min(n), range.end.min(n));
        if a < b {
            self.columns.drain(a..b);
            self.changed_all();
        }
    }

    /// Keeps only the particles `keep` says yes to, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&Particle) -> bool) {
        let flags: Vec<bool> = self.particles().iter().map(|p| keep(&p)).collect();
        self.columns.retain_flags(&flags);
        self.changed_all();
    }

    /// Removes every particle (keeping the memory).
    pub fn clear(&mut self) {
        self.columns.truncate(0);
        self.changed_all();
    }

    /// Sorts the particles (draw order: later on top), stably.
    pub fn sort_by(&mut self, mut compare: impl FnMut(&Particle, &Particle) -> std::cmp::Ordering) {
        let all: Vec<Particle> = self.particles().iter().collect();
        let mut order: Vec<u32> = (0..all.len() as u32).collect();
        order.sort_by(|&a, &b| compare(&all[a as usize], &all[b as usize]));
        self.columns.permute(&order);
        self.changed_all();
    }

    /// The particles, in draw order, as columns (a slice a property).
    pub fn particles(&self) -> Particles<'_> {
        self.columns.view()
    }

    /// Particle `index`, gathered from the columns; `None` past the end.
    pub fn get(&self, index: usize) -> Option<Particle> {
        self.particles().get(index)
    }

    /// The particles' columns to change in place (a slice a property). Dynamic properties show next frame;
    /// static ones only after [`ParticleContainer::update`] (as in PixiJS), or change them through
    /// [`ParticleContainer::particle_mut`] or [`ParticleContainer::set`].
    pub fn particles_mut(&mut self) -> ParticlesMut<'_> {
        let c = &mut self.columns;
        ParticlesMut {
            position: &mut c.position,
            scale: &mut c.scale,
            anchor: &mut c.anchor,
            rotation: &mut c.rotation,
            tint: &mut c.tint,
            alpha: &mut c.alpha,
            frame: &mut c.frame,
        }
    }

    /// One particle to change (written back when the returned guard is dropped): its static properties are
    /// uploaded again next frame (only this particle's, and those of others changed this way since the last
    /// upload).
    pub fn particle_mut(&mut self, index: usize) -> Option<ParticleMut<'_>> {
        let particle = self.get(index)?;
        self.mark(index);
        Some(ParticleMut {
            columns: &mut self.columns,
            index,
            particle,
        })
    }

    /// Replaces particle `index` (as [`ParticleContainer::particle_mut`]); `false` if there is none.
    pub fn set(&mut self, index: usize, particle: Particle) -> bool {
        if index >= self.len() {
            return false;
        }
        self.mark(index);
        self.columns.set(index, particle);
        true
    }

    /// Notes particle `index`'s static properties as changed.
    fn mark(&mut self, index: usize) {
        let i = index as u32; // < MAX_PARTICLES
        self.version += 1;
        self.dirty = match self.dirty.is_empty() {
            true => i..i + 1,
            false => self.dirty.start.min(i)..self.dirty.end.max(i + 1),
        };
    }

    /// Uploads every static property again next frame (PixiJS's `update()`): after changing static properties
    /// through [`ParticleContainer::particles_mut`].
    pub fn update(&mut self) {
        self.changed_all();
    }

    fn changed_all(&mut self) {
        self.version += 1;
        self.base = self.version;
        self.dirty = 0..0;
    }

    /// The box around every particle's quad in the container's space (`None` with no particles, or when a
    /// property is not a finite number): set it as [`ParticleContainer::bounds_area`] to cull and hit-test the
    /// container. It looks at every particle, so it is worth calling once, not every frame.
    pub fn compute_bounds(&self) -> Option<Rect> {
        let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
        for p in self.particles().iter() {
            let q = self.local_quad(p.frame, p.anchor)?;
            let (sin, cos) = p.rotation.sin_cos();
            let a = q.origin * p.scale;
            let s = q.size * p.scale;
            for c in [Vec2::ZERO, Vec2::X, Vec2::ONE, Vec2::Y] {
                let l = a + c * s;
                let r = Vec2::new(cos * l.x - sin * l.y, sin * l.x + cos * l.y) + p.position;
                lo = lo.min(r);
                hi = hi.max(r);
            }
        }
        (lo.is_finite() && hi.is_finite()).then_some(Rect { min: lo, max: hi })
    }

    /// The quad of frame `frame` around `anchor`, before scale and rotation; `None` for a frame index past the
    /// frames.
    #[inline]
    pub(crate) fn local_quad(&self, frame: u32, anchor: Vec2) -> Option<LocalQuad> {
        let t = *self.frames.get(frame as usize)?;
        Some(
            Sprite {
                texture: t,
                anchor,
                size: None,
            }
            .local_quad(),
        )
    }

    /// The identity and versions a renderer compares against what it uploaded.
    pub(crate) fn upload_state(&self) -> UploadState {
        UploadState {
            uid: self.uid,
            version: self.version,
            base: self.base,
            dirty: (self.dirty.start, self.dirty.end),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texture() -> Texture {
        crate::base::texture::tests_support::texture(1)
    }

    /// Every structural change keeps the columns one length and each particle's properties together.
    #[test]
    fn columns_stay_together_through_every_change() {
        let mut c = ParticleContainer::new(texture());
        let p = |i: usize| {
            Particle::new(i as f32, -(i as f32))
                .scaled(i as f32 + 1.0)
                .anchored(0.5, i as f32)
                .rotated(i as f32 * 0.1)
                .with_alpha(i as f32 / 10.0)
                .with_frame(i as u32)
        };
        c.extend((0..10).map(p)).unwrap();
        assert_eq!(c.remove(2), Some(p(2)));
        c.remove_range(6..100);
        c.retain(|q| q.position.x != 4.0);
        c.add(p(9)).unwrap();
        c.sort_by(|a, b| b.rotation.total_cmp(&a.rotation));
        let want: Vec<Particle> = [9, 6, 5, 3, 1, 0].into_iter().map(p).collect();
        assert_eq!(c.particles().iter().collect::<Vec<_>>(), want);
        let cols = c.particles();
        for v in [
            cols.scale.len(),
            cols.anchor.len(),
            cols.rotation.len(),
            cols.tint.len(),
            cols.alpha.len(),
            cols.frame.len(),
        ] {
            assert_eq!(v, 6);
        }
        // A guard writes back when dropped; set replaces; both past the end are refused.
        c.particle_mut(1).unwrap().tint = 0x123456;
        assert_eq!(c.particles().tint[1], 0x123456);
        assert!(c.set(5, p(7)));
        assert_eq!(c.get(5), Some(p(7)));
        assert!(!c.set(6, p(0)));
        assert!(c.get(6).is_none());
        c.particles_mut().position[0].x = 42.0;
        assert_eq!(c.get(0).unwrap().position.x, 42.0);
        c.clear();
        assert!(c.is_empty() && c.particles().frame.is_empty());
        // A view built by hand with columns of different lengths reads as far as all of them go, never past.
        let v = [Vec2::ZERO; 2];
        let lopsided = Particles {
            position: &v,
            scale: &v[..1],
            anchor: &v,
            rotation: &[0.0; 2],
            tint: &[0; 2],
            alpha: &[1.0; 2],
            frame: &[0; 2],
        };
        assert!(lopsided.get(1).is_none());
        assert_eq!(lopsided.iter().count(), 1);
    }

    #[test]
    fn tint_from_a_colour_is_pixijs_hex() {
        assert_eq!(
            Particle::new(0.0, 0.0).tinted(Color::hex(0x12_3456)).tint,
            0x12_3456
        );
    }

    #[test]
    fn too_many_particles_is_an_error_before_allocating() {
        let mut c = ParticleContainer::new(texture());
        let e = c.reserve(100_000_000).unwrap_err();
        assert!(
            matches!(
                e,
                Error::TooManyParticles {
                    asked: 100_000_000,
                    ..
                }
            ),
            "{e}"
        );
        assert_eq!(c.columns.position.capacity(), 0);
        // An iterator that says it is huge adds nothing.
        let e = c.extend(std::iter::repeat_n(Particle::default(), MAX_PARTICLES + 1));
        assert!(e.is_err());
        assert!(c.is_empty());
    }

    #[test]
    fn static_changes_are_tracked_by_range_until_a_structural_change() {
        let mut c = ParticleContainer::new(texture());
        c.extend((0..10).map(|i| Particle::new(i as f32, 0.0)))
            .unwrap();
        let s0 = c.upload_state();
        assert_eq!(s0.base, s0.version);
        c.particle_mut(3).unwrap().alpha = 0.5;
        c.particle_mut(7).unwrap().alpha = 0.5;
        let s1 = c.upload_state();
        assert_eq!((s1.base, s1.dirty), (s0.version, (3, 8)));
        assert!(s1.version > s0.version);
        c.particles_mut().position[0].x = 5.0; // dynamic: no version
        assert_eq!(c.upload_state(), s1);
        // A whole particle replaced widens the range as particle_mut does.
        assert!(c.set(1, Particle::new(1.0, 1.0)));
        let s1 = c.upload_state();
        assert_eq!((s1.base, s1.dirty), (s0.version, (1, 8)));
        c.sort_by(|a, b| b.position.x.total_cmp(&a.position.x));
        let s2 = c.upload_state();
        assert_eq!((s2.base, s2.dirty), (s2.version, (0, 0)));
        assert!(c.particle_mut(10).is_none());
    }

    #[test]
    fn frames_must_share_the_source() {
        let mut c = ParticleContainer::new(texture());
        let f = texture().frame(0, 0, 1, 1).unwrap();
        assert_eq!(c.add_frame(f).unwrap(), 1);
        let other = crate::base::texture::tests_support::texture(2);
        assert!(matches!(c.add_frame(other), Err(Error::ParticleFrame(_))));
        assert_eq!(c.frames().len(), 2);
    }

    #[test]
    fn bounds_cover_turned_scaled_particles_and_refuse_nan() {
        let t = texture(); // 16 x 16
        let [w, h] = t.size();
        let mut c = ParticleContainer::new(t);
        c.add(Particle::new(100.0, 50.0).anchored(0.5, 0.5).scaled(2.0))
            .unwrap();
        let b = c.compute_bounds().unwrap();
        assert!(
            (b.min - Vec2::new(100.0 - w, 50.0 - h)).abs().max_element() < 1e-3,
            "{b:?}"
        );
        assert!(
            (b.max - Vec2::new(100.0 + w, 50.0 + h)).abs().max_element() < 1e-3,
            "{b:?}"
        );
        c.particle_mut(0).unwrap().rotation = std::f32::consts::FRAC_PI_4;
        let r = c.compute_bounds().unwrap();
        assert!(r.width() > b.width() * 1.4, "{r:?}");
        // A clone is a container of its own (its own GPU buffers), equal in content.
        assert_ne!(c.clone().upload_state().uid, c.upload_state().uid);
        assert!(c.clone() == c);
        c.particle_mut(0).unwrap().position.x = f32::NAN;
        assert!(c.compute_bounds().is_none());
    }
}
