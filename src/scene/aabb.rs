//! An axis-aligned box, for subtree bounds (culling, hit testing).

use glam::{Affine2, Vec2};

/// An axis-aligned box; empty when `min > max`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Aabb {
    pub min: Vec2,
    pub max: Vec2,
}

impl Default for Aabb {
    fn default() -> Self {
        Aabb::EMPTY
    }
}

impl Aabb {
    pub const EMPTY: Aabb = Aabb {
        min: Vec2::splat(f32::INFINITY),
        max: Vec2::splat(f32::NEG_INFINITY),
    };

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        !(self.min.x <= self.max.x && self.min.y <= self.max.y)
    }

    #[inline(always)]
    pub fn add_point(&mut self, p: Vec2) {
        self.min = self.min.min(p);
        self.max = self.max.max(p);
    }

    /// Widens the box to hold the parallelogram `origin`, `origin + dx`, `origin + dy`, `origin + dx + dy`.
    #[inline(always)]
    pub fn add_quad(&mut self, origin: Vec2, dx: Vec2, dy: Vec2) {
        let lo = origin + dx.min(Vec2::ZERO) + dy.min(Vec2::ZERO);
        let hi = origin + dx.max(Vec2::ZERO) + dy.max(Vec2::ZERO);
        self.min = self.min.min(lo);
        self.max = self.max.max(hi);
    }

    pub fn union(&mut self, other: Aabb) {
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// The box holding this one mapped through `m` (empty stays empty).
    pub fn transformed(&self, m: &Affine2) -> Aabb {
        if self.is_empty() {
            return Aabb::EMPTY;
        }
        let size = self.max - self.min;
        let mut out = Aabb::EMPTY;
        out.add_quad(
            m.transform_point2(self.min),
            m.matrix2.x_axis * size.x,
            m.matrix2.y_axis * size.y,
        );
        out
    }

    /// Whether the box (clip space) touches the view `[-1, 1]²` widened by `pad` (clip units).
    #[inline]
    pub fn touches_view(&self, pad: Vec2) -> bool {
        self.min.x <= 1.0 + pad.x
            && self.max.x >= -1.0 - pad.x
            && self.min.y <= 1.0 + pad.y
            && self.max.y >= -1.0 - pad.y
    }

    /// Whether `p` lies inside (edges included).
    #[inline]
    pub fn contains(&self, p: Vec2) -> bool {
        p.x >= self.min.x && p.y >= self.min.y && p.x <= self.max.x && p.y <= self.max.y
    }
}
