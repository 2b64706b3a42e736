//! Particles: PixiJS's `ParticleContainer`. Many small quads of one source texture, kept in one dense array and
//! drawn in one instanced draw whose corners the GPU computes from each particle's properties.

use crate::scene::pointer::Rect;
use crate::scene::sprite::{LocalQuad, Sprite};
use crate::{Color, Error, Result, Texture};
use glam::Vec2;
use std::sync::atomic::{AtomicU64, Ordering};

/// The most particles one container holds: asking for more is an [`Error::TooManyParticles`] before anything is
/// allocated (at 48 bytes of GPU data a particle, 2^25 particles need 1.5 GiB).
pub const MAX_PARTICLES: usize = 1 << 25;

/// One particle of a [`ParticleContainer`]: 40 bytes, position first (what an update loop writes). Not a node: no
/// handle, no children, no events, no mask of its own.
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

/// PixiJS's `ParticleContainer`: a node drawing many particles of one source texture in one instanced draw.
///
/// Particles live in one dense array ([`ParticleContainer::particles_mut`] is a slice: an update loop over a
/// million particles is a loop over it). Each frame only the [dynamic properties](ParticleProperties) are
/// uploaded (by default the positions: 8 bytes a particle); the static ones are uploaded when particles are added,
/// removed, sorted or cleared, when one is changed through [`ParticleContainer::particle_mut`], or on
/// [`ParticleContainer::update`] (after static properties were changed through `particles_mut`).
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
/// for p in pc.particles_mut() {
///     p.position.y += 1.0;
/// }
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct ParticleContainer {
    particles: Vec<Particle>,
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
            particles: self.particles.clone(),
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
        self.particles == o.particles
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
            particles: Vec::new(),
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
        self.particles.len()
    }

    /// Whether there are no particles.
    pub fn is_empty(&self) -> bool {
        self.particles.is_empty()
    }

    fn check_room(&self, more: usize) -> Result<()> {
        let asked = self.particles.len().saturating_add(more);
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
        self.particles.reserve(additional);
        Ok(())
    }

    /// Adds a particle on top of the others; returns its index.
    pub fn add(&mut self, particle: Particle) -> Result<usize> {
        self.check_room(1)?;
        self.particles.push(particle);
        self.changed_all();
        Ok(self.particles.len() - 1)
    }

    /// Adds particles on top of the others (all or none: [`Error::TooManyParticles`] adds none).
    pub fn extend(&mut self, particles: impl IntoIterator<Item = Particle>) -> Result<()> {
        let it = particles.into_iter();
        let before = self.particles.len();
        self.check_room(it.size_hint().0)?;
        for p in it {
            if self.particles.len() >= MAX_PARTICLES {
                self.particles.truncate(before);
                return self.check_room(1);
            }
            self.particles.push(p);
        }
        self.changed_all();
        Ok(())
    }

    /// Removes the particle at `index` (the ones above move down); `None` if there is none.
    pub fn remove(&mut self, index: usize) -> Option<Particle> {
        (index < self.particles.len()).then(|| {
            self.changed_all();
            self.particles.remove(index)
        })
    }

    /// Removes the particles in `range` (clamped to the particles there are).
    pub fn remove_range(&mut self, range: std::ops::Range<usize>) {
        let n = self.particles.len();
        let (a, b) = (range.start.min(n), range.end.min(n));
        if a < b {
            self.particles.drain(a..b);
            self.changed_all();
        }
    }

    /// Keeps only the particles `keep` says yes to, in order.
    pub fn retain(&mut self, keep: impl FnMut(&Particle) -> bool) {
        self.particles.retain(keep);
        self.changed_all();
    }

    /// Removes every particle (keeping the memory).
    pub fn clear(&mut self) {
        self.particles.clear();
        self.changed_all();
    }

    /// Sorts the particles (draw order: later on top), stably.
    pub fn sort_by(&mut self, compare: impl FnMut(&Particle, &Particle) -> std::cmp::Ordering) {
        self.particles.sort_by(compare);
        self.changed_all();
    }

    /// The particles, in draw order.
    pub fn particles(&self) -> &[Particle] {
        &self.particles
    }

    /// The particles to change in place. Dynamic properties show next frame; static ones only after
    /// [`ParticleContainer::update`] (as in PixiJS), or change them through [`ParticleContainer::particle_mut`].
    pub fn particles_mut(&mut self) -> &mut [Particle] {
        &mut self.particles
    }

    /// One particle to change: its static properties are uploaded again next frame (only this particle's, and
    /// those of others changed this way since the last upload).
    pub fn particle_mut(&mut self, index: usize) -> Option<&mut Particle> {
        let i = u32::try_from(index).ok()?;
        let p = self.particles.get_mut(index)?;
        self.version += 1;
        self.dirty = match self.dirty.is_empty() {
            true => i..i + 1,
            false => self.dirty.start.min(i)..self.dirty.end.max(i + 1),
        };
        Some(p)
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
        for p in &self.particles {
            let q = self.local_quad(p)?;
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

    /// Particle `p`'s frame quad around its anchor, before scale and rotation; `None` for a frame index past the
    /// frames.
    #[inline]
    pub(crate) fn local_quad(&self, p: &Particle) -> Option<LocalQuad> {
        let t = *self.frames.get(p.frame as usize)?;
        Some(
            Sprite {
                texture: t,
                anchor: p.anchor,
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

    #[test]
    fn particles_are_small_and_position_first() {
        assert_eq!(std::mem::size_of::<Particle>(), 40);
        assert_eq!(std::mem::offset_of!(Particle, position), 0);
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
        assert_eq!(c.particles.capacity(), 0);
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
        c.particles_mut()[0].position.x = 5.0; // dynamic: no version
        assert_eq!(c.upload_state(), s1);
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
