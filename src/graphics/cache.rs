//! The tessellation cache: one mesh per (context id, context version, tolerance bucket), reused every frame
//! until the context changes; entries unused for [`TessellationCache::MAX_IDLE_FRAMES`] frames are dropped.
//!
//! The tolerance follows the on-screen scale in powers of two: a node drawn at scale `s` is tessellated with
//! tolerance `0.25 / 2^ceil(log2 s)` local pixels, so curves stay within a quarter pixel on screen at any finite
//! scale, and an animated scale re-tessellates only when it crosses a power of two.
//!
//! Large fills run off the frame. Flattening is linear and always runs in the frame, but lyon's fill of a
//! self-crossing path grows faster than quadratically (see [`BACKGROUND_FILL_SEGMENTS`]). A context whose
//! largest fill has more segments than that is triangulated on a worker thread; until the result arrives the
//! frame draws the context's previous mesh (an older version, or another scale bucket), or nothing, and never
//! waits. At most one job per (context, bucket) is in flight; a result older than the mesh already cached is
//! dropped, and a context changed while its job ran is tessellated again once the job is back.

use super::context::{GraphicsContext, SCREEN_TOLERANCE};
use super::flatten::{flatten_context, FlatContext, TessellationReport};
use super::tessellate::{tessellate_flat, Mesh};
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::{Arc, Mutex};

/// Fills that cost more than this many segments of a self-crossing outline
/// ([`fill_cost`](super::flatten::fill_cost): convex outlines count 128 times less) are triangulated on the
/// worker thread.
///
/// Measured on the development machine (dev profile, which builds lyon at `opt-level = 2`), lyon's fill of a
/// random self-crossing polygon takes 0.5 ms at 64 segments, 2 ms at 128, 13 ms at 256, 90 ms at 512, 0.58 s at
/// 1,000 and 4.4 s at 2,000 (about the cube), while a convex polygon takes 0.5 ms at 4,096 segments and 10 ms at
/// 65,536. 128 keeps the worst case in the frame near 2 ms; convex outlines up to 16,384 segments (a circle of
/// radius 3,000 pixels needs about 400 at a quarter pixel) stay in the frame too.
pub const BACKGROUND_FILL_SEGMENTS: u64 = 128;

/// The power-of-two bucket for an on-screen scale, and the local tolerance it uses. Any positive finite scale
/// gets its own bucket (an infinite one the largest); zero, negative or NaN scales count as 1.
pub fn tolerance_bucket(scale: f32) -> (i16, f32) {
    let s = if scale > 0.0 && !scale.is_nan() {
        scale.min(f32::MAX)
    } else {
        1.0
    };
    // f32 scales lie in 2^-149..2^128; below 2^-64 nothing is bigger than a pixel anyway.
    let b = s.log2().ceil().clamp(-64.0, 128.0) as i16;
    let tol = f64::from(SCREEN_TOLERANCE) * 2f64.powi(-i32::from(b));
    (b, tol as f32)
}

type Key = (u64, i16);

#[derive(Debug)]
struct Entry {
    version: u64,
    mesh: Arc<Mesh>,
    last_used: u64,
}

struct Job {
    key: Key,
    version: u64,
    flat: FlatContext,
}

struct Done {
    key: Key,
    version: u64,
    result: Option<(Mesh, TessellationReport)>,
}

/// The worker thread's two ends. The thread ends when the cache (and so the sender) is dropped, after its
/// current job.
#[derive(Debug)]
struct Worker {
    jobs: Sender<Job>,
    /// Behind a mutex only so that the cache stays `Sync`.
    done: Mutex<Receiver<Done>>,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Job({:?}, v{})", self.key, self.version)
    }
}

impl std::fmt::Debug for Done {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Done({:?}, v{})", self.key, self.version)
    }
}

impl Worker {
    fn spawn() -> Option<Worker> {
        let (jobs, inbox) = mpsc::channel::<Job>();
        let (outbox, done) = mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("stage2d-tessellation".into())
            .spawn(move || {
                for job in inbox {
                    // A panic inside lyon loses this shape, not the worker.
                    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        tessellate_flat(&job.flat)
                    }))
                    .ok();
                    let done = Done {
                        key: job.key,
                        version: job.version,
                        result,
                    };
                    if outbox.send(done).is_err() {
                        break;
                    }
                }
            });
        match spawned {
            Ok(_) => Some(Worker {
                jobs,
                done: Mutex::new(done),
            }),
            Err(e) => {
                log::warn!("cannot start the tessellation thread ({e}); large shapes are tessellated in the frame");
                None
            }
        }
    }
}

/// Cached meshes of graphics contexts.
#[derive(Debug)]
pub struct TessellationCache {
    /// Per (context id, scale bucket); an entry whose version is outdated is replaced.
    entries: crate::base::IntMap<Key, Entry>,
    /// Jobs on the worker: the version each (context, bucket) job tessellates.
    in_flight: crate::base::IntMap<Key, u64>,
    worker: Option<Worker>,
    /// Fills above this many segments go to the worker.
    background_fill_segments: u64,
    empty: Arc<Mesh>,
    frame: u64,
    /// Tessellations finished since the last [`TessellationCache::trim`] (in the frame or on the worker).
    pub tessellations: u64,
    /// Instructions skipped as invalid or too complex since the last trim.
    pub skipped_instructions: u64,
    /// Jobs handed to the worker, ever.
    pub jobs_started: u64,
    /// Whether the last [`TessellationCache::get`] answered with a stand-in (an older mesh, another scale's, or
    /// nothing) while the worker tessellates: what was drawn with it must not be cached as final.
    pub last_was_stand_in: bool,
    /// Worker results received, ever (installed or dropped as outdated).
    pub jobs_finished: u64,
}

impl Default for TessellationCache {
    fn default() -> Self {
        Self::with_background_threshold(BACKGROUND_FILL_SEGMENTS)
    }
}

impl TessellationCache {
    /// Frames an unused mesh is kept.
    pub const MAX_IDLE_FRAMES: u64 = 120;

    /// A cache that sends contexts whose largest fill has more than `segments` segments to the worker thread
    /// (`u64::MAX`: never).
    pub fn with_background_threshold(segments: u64) -> Self {
        TessellationCache {
            entries: Default::default(),
            in_flight: Default::default(),
            worker: None,
            background_fill_segments: segments,
            empty: Arc::default(),
            last_was_stand_in: false,
            frame: 0,
            tessellations: 0,
            skipped_instructions: 0,
            jobs_started: 0,
            jobs_finished: 0,
        }
    }

    /// The mesh of `ctx` at on-screen `scale`, tessellated only if this (context, version, bucket) is new. A
    /// large context being tessellated on the worker gives its previous mesh, or an empty one, meanwhile.
    pub fn get(&mut self, ctx: &GraphicsContext, scale: f32) -> Arc<Mesh> {
        self.last_was_stand_in = false;
        self.receive();
        let (bucket, tol) = tolerance_bucket(scale);
        let frame = self.frame;
        let key = (ctx.id(), bucket);
        if let Some(e) = self.entries.get_mut(&key) {
            e.last_used = frame;
            if e.version == ctx.version() {
                return e.mesh.clone();
            }
        }
        if self.in_flight.contains_key(&key) {
            return self.stand_in(key);
        }
        let flat = flatten_context(ctx, tol);
        if flat.max_fill_cost > self.background_fill_segments {
            if self.worker.is_none() {
                self.worker = Worker::spawn();
            }
            if let Some(w) = &self.worker {
                let job = Job {
                    key,
                    version: ctx.version(),
                    flat,
                };
                match w.jobs.send(job) {
                    Ok(()) => {
                        self.in_flight.insert(key, ctx.version());
                        self.jobs_started += 1;
                        return self.stand_in(key);
                    }
                    Err(mpsc::SendError(job)) => {
                        // The worker is gone: run this one here, start a new worker next time.
                        self.worker = None;
                        return self.install(key, ctx.version(), tessellate_flat(&job.flat));
                    }
                }
            }
        }
        let done = tessellate_flat(&flat);
        self.install(key, ctx.version(), done)
    }

    /// Stores a finished tessellation unless a newer one is cached, and returns what is cached for `key`.
    fn install(
        &mut self,
        key: Key,
        version: u64,
        (mesh, report): (Mesh, TessellationReport),
    ) -> Arc<Mesh> {
        self.tessellations += 1;
        self.skipped_instructions +=
            report.skipped_instructions as u64 + report.dropped_subpaths as u64;
        let frame = self.frame;
        let e = self.entries.entry(key).or_insert_with(|| Entry {
            version,
            mesh: Arc::default(),
            last_used: frame,
        });
        if e.version <= version {
            e.version = version;
            e.mesh = Arc::new(mesh);
        }
        e.mesh.clone()
    }

    /// What to draw for `key` while its job runs: its cached mesh of an older version, else the newest mesh of
    /// the same context at another scale, else nothing.
    fn stand_in(&mut self, key: Key) -> Arc<Mesh> {
        self.last_was_stand_in = true;
        if let Some(e) = self.entries.get(&key) {
            return e.mesh.clone();
        }
        let frame = self.frame;
        let other = self
            .entries
            .iter_mut()
            .filter(|((id, _), _)| *id == key.0)
            .max_by_key(|((_, b), e)| (e.version, -(b - key.1).abs()));
        match other {
            Some((_, e)) => {
                e.last_used = frame;
                e.mesh.clone()
            }
            None => self.empty.clone(),
        }
    }

    /// Takes in the worker's finished jobs without waiting.
    fn receive(&mut self) {
        if self.in_flight.is_empty() {
            return;
        }
        let Some(w) = &self.worker else {
            self.in_flight.clear();
            return;
        };
        let mut finished = Vec::new();
        let mut lost = false;
        {
            let rx = w.done.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                match rx.try_recv() {
                    Ok(d) => finished.push(d),
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => {
                        lost = true;
                        break;
                    }
                }
            }
        }
        for d in finished {
            self.jobs_finished += 1;
            if self.in_flight.get(&d.key) == Some(&d.version) {
                self.in_flight.remove(&d.key);
            }
            match d.result {
                Some(done) => {
                    // Dropped when a newer mesh is already cached. (A first result has no entry yet: nothing was
                    // cached while it ran, and the frames drew the stand-in.)
                    let newer = self
                        .entries
                        .get(&d.key)
                        .is_some_and(|e| e.version > d.version);
                    if !newer {
                        self.install(d.key, d.version, done);
                    }
                }
                None => {
                    log::warn!(
                        "tessellating graphics context {} failed on the worker; it is skipped",
                        d.key.0
                    );
                    self.skipped_instructions += 1;
                    self.install(d.key, d.version, Default::default());
                }
            }
        }
        if lost {
            self.worker = None;
            self.in_flight.clear();
        }
    }

    /// Jobs on the worker thread now.
    pub fn pending(&self) -> usize {
        self.in_flight.len()
    }

    /// Ends a frame: drops meshes unused for too long and resets the counters.
    pub fn trim(&mut self) {
        let frame = self.frame;
        self.entries
            .retain(|_, e| frame.saturating_sub(e.last_used) <= Self::MAX_IDLE_FRAMES);
        self.frame += 1;
        self.tessellations = 0;
        self.skipped_instructions = 0;
    }

    /// Number of cached meshes.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Color;

    #[test]
    fn buckets_are_powers_of_two() {
        assert_eq!(tolerance_bucket(1.0), (0, 0.25));
        assert_eq!(tolerance_bucket(10.0), (4, 0.25 / 16.0));
        assert_eq!(tolerance_bucket(0.3).0, -1);
        assert_eq!(tolerance_bucket(f32::NAN), (0, 0.25));
        assert_eq!(tolerance_bucket(1e30).0, 100);
        assert_eq!(tolerance_bucket(f32::INFINITY).0, 128);
        assert!(tolerance_bucket(f32::INFINITY).1 > 0.0);
        assert_eq!(tolerance_bucket(1e-30).0, -64);
        assert!(tolerance_bucket(1e-30).1.is_finite());
    }

    #[test]
    fn unchanged_contexts_are_not_re_tessellated() {
        let mut c = TessellationCache::default();
        let mut g = GraphicsContext::new();
        g.circle(0.0, 0.0, 5.0).fill(Color::RED);
        let a = c.get(&g, 1.0);
        let b = c.get(&g, 1.0);
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(c.tessellations, 1);
        c.get(&g, 1.2); // other bucket
        assert_eq!(c.tessellations, 2);
        g.rect(0.0, 0.0, 1.0, 1.0).fill(Color::BLUE);
        c.get(&g, 1.0); // new version
        assert_eq!(c.tessellations, 3);
        assert_eq!(c.len(), 2, "the new version replaced the old one");
    }

    #[test]
    fn a_circle_scaled_up_ten_times_is_tessellated_finer() {
        let mut c = TessellationCache::default();
        let mut g = GraphicsContext::new();
        g.circle(0.0, 0.0, 5.0).fill(Color::RED);
        let small = c.get(&g, 1.0);
        let big = c.get(&g, 10.0);
        assert!(big.positions.len() > 2 * small.positions.len());
        // At 10x, the chord error on screen stays under a quarter pixel: with N evenly spaced rim vertices the
        // sagitta is r (1 - cos(pi / N)).
        let rim = big
            .positions
            .iter()
            .filter(|p| (p.length() - 5.0).abs() < 1e-3)
            .count() as f32;
        let sagitta = 5.0 * (1.0 - (std::f32::consts::PI / rim).cos());
        assert!(
            sagitta * 10.0 <= 0.25 + 1e-3,
            "{rim} rim vertices, {sagitta} local error"
        );
    }

    #[test]
    fn idle_meshes_are_evicted() {
        let mut c = TessellationCache::default();
        let mut g = GraphicsContext::new();
        g.circle(0.0, 0.0, 5.0).fill(Color::RED);
        c.get(&g, 1.0);
        for _ in 0..=TessellationCache::MAX_IDLE_FRAMES + 1 {
            c.trim();
        }
        assert!(c.is_empty());
    }
    /// Calls `get` until the worker has nothing in flight (at most 60 s).
    fn settle(c: &mut TessellationCache, g: &GraphicsContext, scale: f32) -> Arc<Mesh> {
        let t = std::time::Instant::now();
        loop {
            let m = c.get(g, scale);
            if c.pending() == 0 {
                return m;
            }
            assert!(t.elapsed().as_secs() < 60, "the worker never finished");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    #[test]
    fn large_fills_go_to_the_worker_and_the_previous_mesh_stands_in() {
        let mut c = TessellationCache::with_background_threshold(0);
        let mut g = GraphicsContext::new();
        g.rect(0.0, 0.0, 10.0, 10.0).fill(Color::RED);
        let first = c.get(&g, 1.0);
        assert!(
            first.parts.is_empty(),
            "nothing to show before the first result"
        );
        assert_eq!((c.pending(), c.jobs_started), (1, 1));
        // Still the stand-in, unless the worker has finished meanwhile (it races this thread).
        let again = c.get(&g, 1.0);
        assert!(again.parts.is_empty() || c.pending() == 0);
        assert_eq!(
            c.jobs_started, 1,
            "one job per context and bucket in flight"
        );
        let v1 = settle(&mut c, &g, 1.0);
        assert_eq!(v1.parts.len(), 1);
        assert_eq!(c.jobs_finished, 1);
        // A new version: the old mesh stands in until the new one is back.
        g.circle(50.0, 50.0, 5.0).fill(Color::BLUE);
        assert!(Arc::ptr_eq(&c.get(&g, 1.0), &v1));
        assert_eq!(c.pending(), 1);
        let v2 = settle(&mut c, &g, 1.0);
        assert_eq!(v2.parts.len(), 2);
        // Another scale bucket shows the same context's mesh at the old bucket meanwhile.
        assert!(Arc::ptr_eq(&c.get(&g, 64.0), &v2));
        let fine = settle(&mut c, &g, 64.0);
        assert!(fine.positions.len() > v2.positions.len());
    }

    #[test]
    fn results_older_than_the_cached_mesh_are_dropped_and_changes_during_a_job_are_redone() {
        let mut c = TessellationCache::with_background_threshold(0);
        let mut g = GraphicsContext::new();
        g.rect(0.0, 0.0, 10.0, 10.0).fill(Color::RED);
        c.get(&g, 1.0); // job for version 1
        g.rect(20.0, 0.0, 10.0, 10.0).fill(Color::RED);
        g.rect(40.0, 0.0, 10.0, 10.0).fill(Color::RED);
        // Version 3 waits for the version-1 job, which (newer than nothing) is shown, then is tessellated.
        let m = settle(&mut c, &g, 1.0);
        assert_eq!(c.jobs_started, 2);
        assert_eq!(m.parts.len(), 3);
        // A late result for an older version than the cached mesh does not replace it.
        let key = (g.id(), 0);
        let stale = (Mesh::default(), TessellationReport::default());
        let newer = c.entries[&key].version;
        let worker = c.worker.as_ref().unwrap();
        let (tx, rx) = mpsc::channel();
        tx.send(Done {
            key,
            version: newer - 1,
            result: Some(stale),
        })
        .unwrap();
        *worker.done.lock().unwrap() = rx;
        c.in_flight.insert(key, newer - 1);
        assert_eq!(c.get(&g, 1.0).parts.len(), 3);
        assert_eq!(c.pending(), 0);
    }

    #[test]
    fn small_fills_stay_in_the_frame() {
        let mut c = TessellationCache::default();
        let mut g = GraphicsContext::new();
        g.circle(0.0, 0.0, 500.0).fill(Color::RED);
        g.star(0.0, 0.0, 20, 50.0, 20.0, 0.0).fill(Color::RED);
        assert_eq!(c.get(&g, 1.0).parts.len(), 2);
        assert_eq!((c.pending(), c.jobs_started), (0, 0));
    }

    #[test]
    fn a_small_circle_under_a_scale_of_4096_is_round_on_screen() {
        for scale in [4096.0, 1e6, 3e9] {
            let mut c = TessellationCache::with_background_threshold(u64::MAX);
            let mut g = GraphicsContext::new();
            let r = 0.01;
            g.circle(0.0, 0.0, r).fill(Color::RED);
            let m = c.get(&g, scale);
            let rim = m.positions.len() as f64;
            // The chord error of N evenly spaced rim vertices is r (1 - cos(pi / N)); on screen, times the scale.
            let err = f64::from(r) * (1.0 - (std::f64::consts::PI / rim).cos()) * f64::from(scale);
            assert!(
                rim >= 8.0 && err <= 0.3,
                "scale {scale}: {rim} vertices, {err} px"
            );
        }
    }
}
