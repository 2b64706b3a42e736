//! The tessellation cache: one mesh per (context id, context version, tolerance bucket), reused every frame
//! until the context changes; entries unused for [`TessellationCache::MAX_IDLE_FRAMES`] frames are dropped.
//!
//! The tolerance follows the on-screen scale in powers of two: a node drawn at scale `s` is tessellated with
//! tolerance `0.25 / 2^ceil(log2 s)` local pixels, so curves stay within a quarter pixel on screen, and an
//! animated scale re-tessellates only when it crosses a power of two.

use super::context::GraphicsContext;
use super::tessellate::{tessellate, Mesh};
use std::sync::Arc;

/// On-screen tolerance, in pixels.
pub const SCREEN_TOLERANCE: f32 = 0.25;

/// The power-of-two bucket for an on-screen scale, and the local tolerance it uses.
pub fn tolerance_bucket(scale: f32) -> (i8, f32) {
    let s = if scale.is_finite() && scale > 0.0 {
        scale
    } else {
        1.0
    };
    let b = s.log2().ceil().clamp(-8.0, 16.0) as i8;
    (b, SCREEN_TOLERANCE / 2f32.powi(b as i32))
}

#[derive(Debug)]
struct Entry {
    version: u64,
    mesh: Arc<Mesh>,
    last_used: u64,
}

/// Cached meshes of graphics contexts.
#[derive(Debug, Default)]
pub struct TessellationCache {
    /// Per (context id, scale bucket); an entry whose version is outdated is replaced.
    entries: crate::pipeline::cache::IntMap<(u64, i8), Entry>,
    frame: u64,
    /// Tessellations run since the last [`TessellationCache::trim`].
    pub tessellations: u64,
    /// Instructions skipped as invalid since the last trim.
    pub skipped_instructions: u64,
}

impl TessellationCache {
    /// Frames an unused mesh is kept.
    pub const MAX_IDLE_FRAMES: u64 = 120;

    /// The mesh of `ctx` at on-screen `scale`, tessellated only if this (context, version, bucket) is new.
    pub fn get(&mut self, ctx: &GraphicsContext, scale: f32) -> Arc<Mesh> {
        let (bucket, tol) = tolerance_bucket(scale);
        let frame = self.frame;
        let key = (ctx.id(), bucket);
        if let Some(e) = self.entries.get_mut(&key) {
            if e.version == ctx.version() {
                e.last_used = frame;
                return e.mesh.clone();
            }
        }
        let (mesh, report) = tessellate(ctx, tol);
        self.tessellations += 1;
        self.skipped_instructions +=
            report.skipped_instructions as u64 + report.dropped_subpaths as u64;
        let mesh = Arc::new(mesh);
        self.entries.insert(
            key,
            Entry {
                version: ctx.version(),
                mesh: mesh.clone(),
                last_used: frame,
            },
        );
        mesh
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
        assert_eq!(tolerance_bucket(1e30).0, 16);
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
}
