//! Linear gradient fills (PixiJS's `FillGradient` of type `linear`), pure: the colour at a point, and a fill's
//! triangles cut along the lines where the gradient passes a stop, so that colours given at the vertices and
//! interpolated across each piece are exact.

use crate::base::stops::{linear_offset, ColorStops};
use crate::Color;
use glam::Vec2;

/// Most colour stops a [`FillGradient`] holds.
pub const MAX_FILL_GRADIENT_STOPS: usize = crate::base::stops::MAX_COLOR_STOPS;

/// Where a gradient's `start` and `end` are measured (PixiJS's `textureSpace`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TextureSpace {
    /// In fractions of the shape's bounding box: `(0, 0)` its top-left, `(1, 1)` its bottom-right (PixiJS's
    /// default).
    #[default]
    Local,
    /// In the graphics context's own coordinates.
    Global,
}

/// A linear gradient fill (PixiJS's `new FillGradient({ type: 'linear', start, end, colorStops, textureSpace })`):
/// colours between stops are interpolated as stored (sRGB-encoded, with their alpha), before `start` and past
/// `end` the end stops' colours. Fill a shape with it through [`GraphicsContext::fill`](crate::GraphicsContext::fill);
/// shapes filled with gradients batch with every other shape.
///
/// ```
/// use stage2d::{Color, FillGradient, GraphicsContext};
/// use stage2d::glam::Vec2;
/// let sky = FillGradient::linear(Vec2::ZERO, Vec2::Y, &[(0.0, Color::hex(0x1e3c72)), (1.0, Color::hex(0x2a5298))]);
/// let mut g = GraphicsContext::new();
/// g.rect(0.0, 0.0, 800.0, 300.0).fill(sky);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FillGradient {
    /// Where offset 0 lies.
    pub start: Vec2,
    /// Where offset 1 lies.
    pub end: Vec2,
    /// What `start` and `end` are measured in.
    pub space: TextureSpace,
    stops: ColorStops,
}

impl FillGradient {
    /// A gradient from `start` to `end` (in the shape's bounding box, [`TextureSpace::Local`]) through `stops`
    /// (offset from 0 to 1, colour), sorted by offset; stops past [`MAX_FILL_GRADIENT_STOPS`] or with a non-finite
    /// offset are dropped, offsets clamped to 0..1. No stop at all is transparent.
    pub fn linear(start: Vec2, end: Vec2, stops: &[(f32, Color)]) -> FillGradient {
        FillGradient {
            start,
            end,
            space: TextureSpace::Local,
            stops: ColorStops::new(stops),
        }
    }

    /// With `start` and `end` in `space`.
    pub fn in_space(mut self, space: TextureSpace) -> FillGradient {
        self.space = space;
        self
    }

    /// Its stops, sorted by offset.
    pub fn stops(&self) -> &[(f32, Color)] {
        self.stops.as_slice()
    }

    /// The offset of `point` (in the gradient's space): its projection on start→end, clamped to 0..1 (0 for a
    /// gradient whose start and end coincide or are not finite).
    pub fn offset_at(&self, point: Vec2) -> f32 {
        linear_offset(self.start, self.end, point)
    }

    /// The colour at offset `t`.
    pub fn color_at(&self, t: f32) -> Color {
        self.stops.at(t)
    }
}

/// Cuts triangles (`positions`, `indices`) along the lines where `offset` (affine in position) crosses each of
/// `cuts`, so that a colour linear in the offset between cuts is exact when interpolated across each new
/// triangle. Returns the new positions and indices: the old positions still used first, in their order, then the
/// pieces' corners (a vertex only the cut triangles used is dropped).
pub(crate) fn cut_triangles(
    positions: &[Vec2],
    indices: &[u32],
    offset: impl Fn(Vec2) -> f32,
    cuts: &[f32],
) -> (Vec<Vec2>, Vec<u32>) {
    let mut out_pos = positions.to_vec();
    let mut out_idx = Vec::with_capacity(indices.len());
    let mut pieces: Vec<Vec<Vec2>> = Vec::new();
    for tri in indices.chunks_exact(3) {
        let corners: Vec<Vec2> = tri.iter().map(|&i| positions[i as usize]).collect();
        let ts: Vec<f32> = corners.iter().map(|p| offset(*p)).collect();
        let (lo, hi) = ts
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), t| {
                (a.min(*t), b.max(*t))
            });
        let inside: Vec<f32> = cuts
            .iter()
            .copied()
            .filter(|c| *c > lo + 1e-6 && *c < hi - 1e-6)
            .collect();
        if inside.is_empty() || !(lo.is_finite() && hi.is_finite()) {
            out_idx.extend_from_slice(tri);
            continue;
        }
        // Slice the triangle into bands between consecutive cuts; each band is convex.
        pieces.clear();
        let mut rest = corners;
        for c in inside {
            let (below, above) = split_convex(&rest, &offset, c);
            if below.len() >= 3 {
                pieces.push(below);
            }
            rest = above;
        }
        if rest.len() >= 3 {
            pieces.push(rest);
        }
        for piece in &pieces {
            let base = out_pos.len() as u32;
            out_pos.extend_from_slice(piece);
            for k in 1..piece.len() as u32 - 1 {
                out_idx.extend([base, base + k, base + k + 1]);
            }
        }
    }
    // Drop the vertices only cut triangles used, keeping the others' order.
    let mut remap = vec![u32::MAX; out_pos.len()];
    let mut kept = Vec::with_capacity(out_pos.len());
    for i in out_idx.iter_mut() {
        let old = *i as usize;
        if remap[old] == u32::MAX {
            remap[old] = kept.len() as u32;
            kept.push(old);
        }
        *i = remap[old];
    }
    let out_pos = kept.iter().map(|&k| out_pos[k]).collect();
    (out_pos, out_idx)
}

/// A convex polygon split along `offset(p) == c`: the part below, the part above.
fn split_convex(poly: &[Vec2], offset: &impl Fn(Vec2) -> f32, c: f32) -> (Vec<Vec2>, Vec<Vec2>) {
    let (mut below, mut above) = (Vec::new(), Vec::new());
    for i in 0..poly.len() {
        let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
        let (ta, tb) = (offset(a) - c, offset(b) - c);
        if ta <= 0.0 {
            below.push(a);
        }
        if ta >= 0.0 {
            above.push(a);
        }
        if (ta < 0.0 && tb > 0.0) || (ta > 0.0 && tb < 0.0) {
            let p = a + (b - a) * (ta / (ta - tb));
            below.push(p);
            above.push(p);
        }
    }
    (below, above)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_between_and_beyond_the_stops() {
        let g = FillGradient::linear(
            Vec2::ZERO,
            Vec2::new(10.0, 0.0),
            &[
                (1.0, Color::BLUE),
                (0.0, Color::RED),
                (f32::NAN, Color::GREEN),
            ],
        );
        assert_eq!(g.stops().len(), 2, "NaN offsets dropped, the rest sorted");
        assert_eq!(g.offset_at(Vec2::new(5.0, 7.0)), 0.5);
        assert_eq!(g.offset_at(Vec2::new(-5.0, 0.0)), 0.0);
        assert_eq!(g.color_at(0.5), Color::rgb(0.5, 0.0, 0.5));
        assert_eq!(g.color_at(2.0), Color::BLUE);
        assert_eq!(g.color_at(f32::NAN), Color::RED);
        let none = FillGradient::linear(Vec2::ZERO, Vec2::ZERO, &[]);
        assert_eq!(none.color_at(0.3), Color::TRANSPARENT);
        assert_eq!(none.offset_at(Vec2::ONE), 0.0, "start and end coincide");
    }

    #[test]
    fn triangles_are_cut_at_every_stop_and_keep_their_area() {
        // A square as two triangles, cut at x = 2.5, 5 and 7.5.
        let pos = [
            Vec2::ZERO,
            Vec2::new(10.0, 0.0),
            Vec2::new(10.0, 10.0),
            Vec2::new(0.0, 10.0),
        ];
        let idx = [0, 1, 2, 0, 2, 3];
        let (p, i) = cut_triangles(&pos, &idx, |v| v.x / 10.0, &[0.25, 0.5, 0.75]);
        let area = crate::graphics::tessellate::triangles_area(&p, &i);
        assert!((area - 100.0).abs() < 1e-3, "{area}");
        // No new triangle spans a cut.
        for t in i.chunks(3) {
            let xs = t.iter().map(|&k| p[k as usize].x / 10.0);
            let (lo, hi) = xs.fold((f32::MAX, f32::MIN), |(a, b), x| (a.min(x), b.max(x)));
            for c in [0.25, 0.5, 0.75] {
                assert!(
                    !(lo < c - 1e-4 && hi > c + 1e-4),
                    "a piece spans {c}: {lo}..{hi}"
                );
            }
        }
        // Every vertex is used: none left over from the cut triangles.
        let mut used = vec![false; p.len()];
        i.iter().for_each(|&k| used[k as usize] = true);
        assert!(used.iter().all(|u| *u));
        // Nothing to cut: the triangles as they were.
        let (p2, i2) = cut_triangles(&pos, &idx, |v| v.x / 10.0, &[0.0, 1.0]);
        assert_eq!((p2.len(), i2), (4, idx.to_vec()));
    }
}
