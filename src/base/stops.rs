//! The colour stops of a linear gradient, pure: what text and shape gradients share (kept sorted, at most
//! [`MAX_COLOR_STOPS`], `Copy`), the colour at an offset, and a point's offset along the gradient.

use super::color::Color;

/// Most colour stops a gradient holds.
pub const MAX_COLOR_STOPS: usize = 8;

/// Up to [`MAX_COLOR_STOPS`] (offset, colour) stops, sorted by offset.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ColorStops {
    stops: [(f32, Color); MAX_COLOR_STOPS],
    len: u8,
}

impl ColorStops {
    /// `stops` sorted by offset; those past [`MAX_COLOR_STOPS`] or with a non-finite offset dropped, offsets
    /// clamped to 0..1.
    pub fn new(stops: &[(f32, Color)]) -> ColorStops {
        let mut s = ColorStops {
            stops: [(0.0, Color::TRANSPARENT); MAX_COLOR_STOPS],
            len: 0,
        };
        for &(t, c) in stops
            .iter()
            .filter(|s| s.0.is_finite())
            .take(MAX_COLOR_STOPS)
        {
            s.stops[s.len as usize] = (t.clamp(0.0, 1.0), c);
            s.len += 1;
        }
        s.stops[..s.len as usize].sort_by(|a, b| a.0.total_cmp(&b.0));
        s
    }

    /// The stops, sorted by offset.
    pub fn as_slice(&self) -> &[(f32, Color)] {
        &self.stops[..self.len as usize]
    }

    /// The colour at offset `t`, interpolated as stored between stops; before the first and after the last
    /// (and at NaN) the end stops' colours; no stop at all is transparent.
    pub fn at(&self, t: f32) -> Color {
        let stops = self.as_slice();
        let (Some(first), Some(last)) = (stops.first(), stops.last()) else {
            return Color::TRANSPARENT;
        };
        if t.is_nan() || t <= first.0 {
            return first.1;
        }
        for w in stops.windows(2) {
            let ((t0, c0), (t1, c1)) = (w[0], w[1]);
            if t <= t1 {
                let f = if t1 > t0 { (t - t0) / (t1 - t0) } else { 1.0 };
                return Color {
                    r: c0.r + (c1.r - c0.r) * f,
                    g: c0.g + (c1.g - c0.g) * f,
                    b: c0.b + (c1.b - c0.b) * f,
                    a: c0.a + (c1.a - c0.a) * f,
                };
            }
        }
        last.1
    }
}

/// The offset of `point` along `start` → `end`: its projection, clamped to 0..1 (0 when the two coincide or a
/// value is not finite).
#[cfg(feature = "text")]
pub(crate) fn linear_offset(start: glam::Vec2, end: glam::Vec2, point: glam::Vec2) -> f32 {
    match linear_projection(start, end)(point) {
        t if t.is_finite() => t.clamp(0.0, 1.0),
        _ => 0.0,
    }
}

/// The unclamped offset along `start` → `end` (1 at `end`; 0 everywhere when the two coincide or are not finite).
pub(crate) fn linear_projection(start: glam::Vec2, end: glam::Vec2) -> impl Fn(glam::Vec2) -> f32 {
    let d = end - start;
    let len2 = d.length_squared();
    let ok = len2 > 0.0 && len2.is_finite() && start.is_finite();
    move |p: glam::Vec2| match ok {
        true => (p - start).dot(d) / len2,
        false => 0.0,
    }
}
