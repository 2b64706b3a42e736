//! Glyph effects, pure: the bitmaps of a glyph's outline (stroke) and shadow, made from its fill's coverage.
//! A round join grows the coverage by the exact distance to the glyph (a linear-time distance transform); a
//! miter or bevel draws the glyph's stroked outline (`stroke.rs`) united with the fill; a shadow's blur is three
//! box passes. The effect is part of the atlas key ([`effect_key`]), so each (glyph, size, effect) is made once.

use super::atlas::Raster;

/// The effect part of a [`GlyphKey`]: the coverage grown by `spread` raster pixels (a stroke of twice that width
/// around the outline, in quarter pixels up to 63.75) with corners as `join` has them (a miter at most
/// `miter_limit` times the spread long, in quarters from 1 to 63.75), then blurred by `blur` raster pixels (in half
/// pixels up to 127.5). Non-finite or negative values count as 0 (a miter limit as 1). A round join, or no spread,
/// keeps the join bits 0.
pub fn effect_key(spread: f32, blur: f32, join: crate::LineJoin, miter_limit: f32) -> u32 {
    let q = |v: f32, steps: f32| {
        if v.is_finite() && v > 0.0 {
            (v * steps).round().min(255.0) as u32
        } else {
            0
        }
    };
    let s = q(spread, 4.0);
    let (j, limit) = match join {
        _ if s == 0 => (0, 0),
        crate::LineJoin::Round => (0, 0),
        crate::LineJoin::Miter => (1, q(miter_limit, 4.0).max(4)),
        crate::LineJoin::Bevel => (2, 0),
    };
    s | q(blur, 2.0) << 8 | j << 16 | limit << 18
}

/// The spread of an effect, in raster pixels.
fn effect_spread(effect: u32) -> f32 {
    (effect & 0xff) as f32 / 4.0
}

/// The blur of an effect, in raster pixels.
fn effect_blur(effect: u32) -> f32 {
    ((effect >> 8) & 0xff) as f32 / 2.0
}

/// The join of an effect and its miter limit.
pub fn effect_join(effect: u32) -> (crate::LineJoin, f32) {
    match (effect >> 16) & 3 {
        1 => (crate::LineJoin::Miter, ((effect >> 18) & 0xff) as f32 / 4.0),
        2 => (crate::LineJoin::Bevel, 1.0),
        _ => (crate::LineJoin::Round, 1.0),
    }
}

/// Pixels an effect adds on each side of a glyph bitmap: the spread and the blur's reach (a miter's tips may add
/// more where its corners are sharp: its bitmap is as large as they need, see [`apply_effect`]).
pub fn effect_pad(effect: u32) -> u32 {
    if effect == 0 {
        return 0;
    }
    effect_spread(effect).ceil() as u32 + blur_pad(effect) as u32 + 1
}

/// Pixels a blur adds on each side.
fn blur_pad(effect: u32) -> usize {
    2 * (effect_blur(effect) / 2.0).ceil() as usize
}

/// Squared distances along one line to the nearest zero of `f` (0 where covered, a large value elsewhere), by
/// the lower envelope of parabolas (Felzenszwalb and Huttenlocher), in linear time.
fn distance_1d(f: &[f32], d: &mut [f32], v: &mut [usize], z: &mut [f32]) {
    let n = f.len();
    if n == 0 {
        return;
    }
    let mut k = 0;
    v[0] = 0;
    z[0] = f32::NEG_INFINITY;
    z[1] = f32::INFINITY;
    for q in 1..n {
        loop {
            let p = v[k];
            let s = ((f[q] + (q * q) as f32) - (f[p] + (p * p) as f32)) / (2.0 * (q - p) as f32);
            if s <= z[k] && k > 0 {
                k -= 1;
                continue;
            }
            if s <= z[k] {
                // k == 0: the new parabola is lower everywhere to the left.
                v[0] = q;
                z[0] = f32::NEG_INFINITY;
                z[1] = f32::INFINITY;
                break;
            }
            k += 1;
            v[k] = q;
            z[k] = s;
            z[k + 1] = f32::INFINITY;
            break;
        }
    }
    k = 0;
    for (q, out) in d.iter_mut().enumerate() {
        while z[k + 1] < q as f32 {
            k += 1;
        }
        let p = v[k];
        *out = (q as f32 - p as f32).powi(2) + f[p];
    }
}

/// Box blur of radius `r` along rows (`stride` 1) or columns, with running sums.
fn box_pass(src: &[f32], dst: &mut [f32], w: usize, h: usize, r: usize, rows: bool) {
    let (lines, len) = if rows { (h, w) } else { (w, h) };
    let at = |line: usize, i: usize| if rows { line * w + i } else { i * w + line };
    let n = (2 * r + 1) as f32;
    for line in 0..lines {
        let mut sum = 0.0f32;
        for i in 0..r.min(len) {
            sum += src[at(line, i)];
        }
        for i in 0..len {
            if i + r < len {
                sum += src[at(line, i + r)];
            }
            if i > r {
                sum -= src[at(line, i - r - 1)];
            }
            dst[at(line, i)] = sum / n;
        }
    }
}

/// A stroke with sharp corners to draw around a glyph ([`apply_effect`]'s `outline`).
pub struct StrokeJob<'a> {
    /// The glyph's own bitmap.
    pub fill: &'a Raster,
    /// Half the stroke's width, in pixels.
    pub spread: f32,
    pub join: crate::LineJoin,
    pub miter_limit: f32,
    /// Empty pixels to leave around the stroke (for the blur that follows).
    pub margin: usize,
    /// Largest bitmap side the atlas takes.
    pub max_side: u32,
}

/// What `outline` made of a [`StrokeJob`].
pub enum Stroked {
    /// The glyph and its stroke: coverage in 0..=1, row-major from the top, placed as a [`Raster`] is.
    Drawn {
        coverage: Vec<f32>,
        width: usize,
        height: usize,
        xmin: f32,
        ymin: f32,
    },
    /// Larger than [`StrokeJob::max_side`] either way: not drawn.
    TooLarge,
    /// No outline to stroke (the glyph is grown by the distance instead).
    NoOutline,
}

/// Grows `cov` (`w x h`) by `spread` pixels: a disk, by the exact distance to the covered pixels, soft at its
/// edge.
fn grow_by_distance(cov: &mut [f32], w: usize, h: usize, spread: f32) {
    let big = ((w + h) * (w + h)) as f32;
    let mut dist: Vec<f32> = cov
        .iter()
        .map(|&c| if c >= 0.5 { 0.0 } else { big })
        .collect();
    let longest = w.max(h);
    let (mut f, mut d) = (vec![0.0f32; longest], vec![0.0f32; longest]);
    let (mut v, mut z) = (vec![0usize; longest], vec![0.0f32; longest + 1]);
    for x in 0..w {
        for y in 0..h {
            f[y] = dist[y * w + x];
        }
        distance_1d(&f[..h], &mut d[..h], &mut v, &mut z);
        for y in 0..h {
            dist[y * w + x] = d[y];
        }
    }
    for y in 0..h {
        f[..w].copy_from_slice(&dist[y * w..(y + 1) * w]);
        distance_1d(&f[..w], &mut d[..w], &mut v, &mut z);
        dist[y * w..(y + 1) * w].copy_from_slice(&d[..w]);
    }
    for (c, d2) in cov.iter_mut().zip(&dist) {
        // Distances run between pixel centres; a covered pixel's centre lies half a pixel inside the edge.
        *c = c.max((spread + 1.0 - d2.sqrt()).clamp(0.0, 1.0));
    }
}

/// A glyph bitmap with `effect` ([`effect_key`]) applied: its coverage grown by the spread, then blurred by two
/// box passes each way (about a Gaussian of that radius). A round join grows it by a disk, by the exact distance
/// to the glyph, soft at its edge, padded by [`effect_pad`] (linear in the padded bitmap's size); a miter or
/// bevel join has `outline` stroke the glyph's outline, in a bitmap as large as the stroke reaches (by the
/// distance when there is no outline). `None` when that bitmap would be larger than `max_side` either way.
pub fn apply_effect(
    r: Raster,
    effect: u32,
    max_side: u32,
    outline: impl FnOnce(StrokeJob<'_>) -> Stroked,
) -> Option<Raster> {
    if effect == 0 {
        return Some(r);
    }
    let spread = effect_spread(effect);
    let box_r = (effect_blur(effect) / 2.0).ceil() as usize;
    let (join, miter_limit) = effect_join(effect);
    let stroked = match spread > 0.0 && join != crate::LineJoin::Round {
        true => outline(StrokeJob {
            fill: &r,
            spread,
            join,
            miter_limit,
            margin: blur_pad(effect) + 1,
            max_side,
        }),
        false => Stroked::NoOutline,
    };
    let (mut cov, w, h, xmin, ymin) = match stroked {
        Stroked::TooLarge => return None,
        Stroked::Drawn {
            coverage,
            width,
            height,
            xmin,
            ymin,
        } => (coverage, width, height, xmin, ymin),
        Stroked::NoOutline => {
            let pad = effect_pad(effect) as usize;
            let (w0, h0) = (r.width as usize, r.height as usize);
            let (w, h) = (w0 + 2 * pad, h0 + 2 * pad);
            let mut cov = vec![0.0f32; w * h];
            for y in 0..h0 {
                for x in 0..w0 {
                    cov[(y + pad) * w + x + pad] = r.coverage[y * w0 + x] as f32 / 255.0;
                }
            }
            if spread > 0.0 {
                grow_by_distance(&mut cov, w, h, spread);
            }
            (cov, w, h, r.xmin - pad as f32, r.ymin - pad as f32)
        }
    };
    if box_r > 0 {
        let mut tmp = vec![0.0f32; cov.len()];
        for _ in 0..2 {
            box_pass(&cov, &mut tmp, w, h, box_r, true);
            box_pass(&tmp, &mut cov, w, h, box_r, false);
        }
    }
    Some(Raster {
        width: w as u32,
        height: h as u32,
        xmin,
        ymin,
        coverage: cov
            .iter()
            .map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8)
            .collect(),
        packed: false,
        inset: 0,
    })
}

/// In a packed [`effect_key`]: the key is a styled glyph's packed bitmap ([`pack_layers`]), its effect bits the
/// shadow's (the outline's with no blur), or the outline's where it has no shadow.
pub const PACKED_EFFECT: u32 = 1 << 31;
/// In a packed key: the bitmap holds an outline.
pub const PACKED_OUTLINE: u32 = 1 << 30;
/// In a packed key: the bitmap holds a shadow.
pub const PACKED_SHADOW: u32 = 1 << 29;

/// The effects a packed key's layers take: the outline's and the shadow's [`effect_key`]s, where it has them.
pub fn packed_layers(key: u32) -> (Option<u32>, Option<u32>) {
    let bits = key & !(PACKED_EFFECT | PACKED_OUTLINE | PACKED_SHADOW);
    let outline = (key & PACKED_OUTLINE != 0).then_some(bits & !(0xff << 8));
    let shadow = (key & PACKED_SHADOW != 0).then_some(bits);
    (outline, shadow)
}

/// Pixels a packed key's bitmap adds on each side of the glyph's (the larger layer's, see [`effect_pad`]).
pub fn packed_pad(key: u32) -> u32 {
    let (outline, shadow) = packed_layers(key);
    outline
        .map_or(0, effect_pad)
        .max(shadow.map_or(0, effect_pad))
}

/// A styled glyph's layers in one bitmap: the `fill`, its `outline` and its `shadow` (each placed where its own
/// `xmin` and `ymin` put it, whole pixels apart) in a box holding them all, four bytes a pixel: the fill's,
/// the outline's and the shadow's coverage, and their maximum. `None` when the box is larger than `max_side`.
pub fn pack_layers(
    fill: &Raster,
    outline: Option<&Raster>,
    shadow: Option<&Raster>,
    max_side: u32,
) -> Option<Raster> {
    let layers = [Some(fill), outline, shadow];
    // A layer covering nothing (a space's outline and shadow) is left out: a blank glyph packs to nothing.
    let drawn = || {
        layers
            .iter()
            .flatten()
            .filter(|r| r.width > 0 && r.height > 0 && r.coverage.iter().any(|&c| c > 0))
    };
    let Some(x0) = drawn().map(|r| r.xmin.round() as i64).min() else {
        return Some(Raster {
            packed: true,
            ..Raster::default()
        });
    };
    let y0 = drawn().map(|r| r.ymin.round() as i64).min().unwrap_or(0);
    let x1 = drawn()
        .map(|r| r.xmin.round() as i64 + i64::from(r.width))
        .max()
        .unwrap_or(x0);
    let y1 = drawn()
        .map(|r| r.ymin.round() as i64 + i64::from(r.height))
        .max()
        .unwrap_or(y0);
    let (w, h) = ((x1 - x0) as usize, (y1 - y0) as usize);
    if w > max_side as usize || h > max_side as usize {
        return None;
    }
    let mut out = vec![0u8; w * h * 4];
    for (layer, r) in layers.iter().enumerate() {
        let Some(r) =
            r.filter(|r| r.width > 0 && r.height > 0 && r.coverage.iter().any(|&c| c > 0))
        else {
            continue;
        };
        let (rw, rh) = (r.width as usize, r.height as usize);
        if r.coverage.len() < rw * rh {
            continue;
        }
        // Rows from the top: a layer's top is `ymin + height` above the baseline.
        let left = (r.xmin.round() as i64 - x0) as usize;
        let top = (y1 - (r.ymin.round() as i64 + rh as i64)) as usize;
        for y in 0..rh {
            for x in 0..rw {
                let c = r.coverage[y * rw + x];
                let i = ((top + y) * w + left + x) * 4;
                out[i + layer] = c;
                out[i + 3] = out[i + 3].max(c);
            }
        }
    }
    // How far inside the box the fill and outline lie on every side (what only the shadow covers).
    let inner = [Some(fill), outline]
        .into_iter()
        .flatten()
        .filter(|r| r.width > 0 && r.height > 0 && r.coverage.iter().any(|&c| c > 0));
    let inset = inner
        .map(|r| {
            let (l, b) = (r.xmin.round() as i64, r.ymin.round() as i64);
            let (rt, t) = (l + i64::from(r.width), b + i64::from(r.height));
            (l - x0).min(b - y0).min(x1 - rt).min(y1 - t)
        })
        .min()
        .unwrap_or(0)
        .max(0) as u32;
    Some(Raster {
        width: w as u32,
        height: h as u32,
        xmin: x0 as f32,
        ymin: y0 as f32,
        coverage: out,
        packed: true,
        inset,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Layers keep their places in the packed box (rows from the top, `ymin` above the baseline), each in its
    /// channel, their maximum in the fourth; blank layers are left out; a box past the limit is refused.
    #[test]
    fn layers_pack_into_one_bitmap_at_their_places() {
        let r = |w: u32, h: u32, xmin: f32, ymin: f32, c: u8| Raster {
            width: w,
            height: h,
            xmin,
            ymin,
            coverage: vec![c; (w * h) as usize],
            packed: false,
            inset: 0,
        };
        let fill = r(2, 2, 1.0, 0.0, 200);
        let outline = r(4, 4, 0.0, -1.0, 100);
        let shadow = r(6, 6, -1.0, -2.0, 50);
        let p = pack_layers(&fill, Some(&outline), Some(&shadow), 64).unwrap();
        assert!(p.packed);
        assert_eq!((p.width, p.height, p.xmin, p.ymin), (6, 6, -1.0, -2.0));
        assert_eq!(
            p.inset, 1,
            "the outline lies a texel inside the shadow's box"
        );
        let at = |x: usize, y: usize| &p.coverage[(y * 6 + x) * 4..(y * 6 + x) * 4 + 4];
        assert_eq!(at(0, 0), [0, 0, 50, 50]);
        assert_eq!(at(1, 1), [0, 100, 50, 100]);
        assert_eq!(at(2, 2), [200, 100, 50, 200]);
        assert_eq!(at(3, 3), [200, 100, 50, 200]);
        assert_eq!(at(4, 4), [0, 100, 50, 100]);
        assert_eq!(at(5, 5), [0, 0, 50, 50]);
        // Without a shadow the box is the outline's.
        let p = pack_layers(&fill, Some(&outline), None, 64).unwrap();
        assert_eq!((p.width, p.height, p.xmin, p.ymin), (4, 4, 0.0, -1.0));
        assert_eq!(p.inset, 0);
        // A space: nothing to draw.
        let blank = r(0, 0, 0.0, 0.0, 0);
        let p = pack_layers(&blank, Some(&r(3, 3, -1.0, -1.0, 0)), None, 64).unwrap();
        assert_eq!((p.width, p.height), (0, 0));
        assert!(pack_layers(&fill, Some(&outline), Some(&shadow), 5).is_none());
    }

    proptest::proptest! {
        /// The linear-time distances equal the brute-force nearest zero's.
        #[test]
        fn line_distances_are_exact(zeros in proptest::collection::vec(proptest::prelude::any::<bool>(), 1..40)) {
            let big = 1e6f32;
            let f: Vec<f32> = zeros.iter().map(|&z| if z { 0.0 } else { big }).collect();
            let n = f.len();
            let (mut d, mut v, mut z) = (vec![0.0; n], vec![0; n], vec![0.0; n + 1]);
            distance_1d(&f, &mut d, &mut v, &mut z);
            for (q, &got) in d.iter().enumerate() {
                let want = (0..n)
                    .filter(|&p| zeros[p])
                    .map(|p| (q as f32 - p as f32).powi(2))
                    .fold(f32::INFINITY, f32::min);
                if want.is_finite() {
                    proptest::prop_assert_eq!(got, want);
                } else {
                    proptest::prop_assert!(got >= big);
                }
            }
        }
    }

    /// A 2x2 solid square, its bottom 1 above the baseline.
    fn square() -> Raster {
        Raster {
            width: 2,
            height: 2,
            xmin: 3.0,
            ymin: 1.0,
            coverage: vec![255; 4],
            packed: false,
            inset: 0,
        }
    }

    #[test]
    fn effects_grow_and_soften_coverage() {
        let square = square();
        let round = |spread: f32, blur: f32| effect_key(spread, blur, crate::LineJoin::Round, 1.0);
        let none = |_: StrokeJob<'_>| -> Stroked { panic!("a round join draws no outline") };
        assert_eq!(round(0.0, 0.0), 0);
        assert_eq!(round(f32::NAN, -1.0), 0);
        assert_eq!(round(1e9, 1e9), 0xffff);
        let grown = apply_effect(square.clone(), round(2.0, 0.0), 1024, none).unwrap();
        // Padded by 3 each side, placed 3 further out.
        assert_eq!(
            (grown.width, grown.height, grown.xmin, grown.ymin),
            (8, 8, 0.0, -2.0)
        );
        let at = |r: &Raster, x: u32, y: u32| r.coverage[(y * r.width + x) as usize];
        // The square (at 3..5) and 2 pixels around it covered; the corners of the disk's reach not.
        assert_eq!(at(&grown, 3, 3), 255);
        assert_eq!(at(&grown, 1, 3), 255);
        assert_eq!(at(&grown, 6, 4), 255);
        assert_eq!(at(&grown, 0, 3), 0);
        assert!(at(&grown, 1, 1) < 255, "the disk's corner is soft");
        // A blur keeps the total coverage (within rounding) and spreads it.
        let soft = apply_effect(square.clone(), round(0.0, 4.0), 1024, none).unwrap();
        let total: u32 = soft.coverage.iter().map(|&c| c as u32).sum();
        assert!((total as i32 - 4 * 255).abs() < 4 * 255 / 10, "{total}");
        assert!(soft.coverage.iter().all(|&c| c < 255));
        assert_eq!(
            apply_effect(square.clone(), 0, 1024, none)
                .unwrap()
                .coverage,
            square.coverage
        );
    }

    #[test]
    fn joins_are_in_the_key_and_the_pad_covers_a_miter() {
        use crate::LineJoin::{Bevel, Miter, Round};
        let (m, b, r) = (
            effect_key(2.0, 0.0, Miter, 10.0),
            effect_key(2.0, 0.0, Bevel, 10.0),
            effect_key(2.0, 0.0, Round, 10.0),
        );
        assert!(m != b && b != r && m != r);
        assert_eq!(effect_join(m), (Miter, 10.0));
        assert_eq!(effect_join(b).0, Bevel);
        assert_eq!(effect_join(r).0, Round);
        // No spread: no join (a shadow of unstroked text is the same bitmap whatever the join).
        assert_eq!(
            effect_key(0.0, 3.0, Miter, 10.0),
            effect_key(0.0, 3.0, Round, 1.0)
        );
        // Limits below 1 or not finite count as 1; above 63.75 as 63.75.
        assert_eq!(effect_join(effect_key(2.0, 0.0, Miter, f32::NAN)).1, 1.0);
        assert_eq!(effect_join(effect_key(2.0, 0.0, Miter, 0.2)).1, 1.0);
        assert_eq!(effect_join(effect_key(2.0, 0.0, Miter, 1e9)).1, 63.75);
        // The pad is the spread's and the blur's whatever the join (a miter's bitmap is as large as it reaches).
        assert_eq!(effect_pad(m), 3);
        assert_eq!(effect_pad(r), 3);
        assert_eq!(effect_pad(effect_key(2.0, 4.0, Miter, 10.0)), 3 + 4);
        // A miter or bevel asks for the outline with a margin for the blur; without one it grows by the distance;
        // too large is refused.
        let square = square();
        let mut asked = None;
        let blurred = effect_key(2.0, 4.0, Bevel, 10.0);
        let grown = apply_effect(square.clone(), blurred, 512, |job| {
            asked = Some((
                job.spread,
                job.join,
                job.margin,
                job.max_side,
                job.fill.width,
            ));
            Stroked::NoOutline
        })
        .unwrap();
        assert_eq!(asked, Some((2.0, Bevel, 5, 512, 2)));
        let by_distance = apply_effect(
            square.clone(),
            effect_key(2.0, 4.0, Round, 1.0),
            512,
            |_| unreachable!(),
        );
        assert_eq!(grown.coverage, by_distance.unwrap().coverage);
        assert!(apply_effect(square.clone(), b, 512, |_| Stroked::TooLarge).is_none());
        let drawn = apply_effect(square, b, 512, |_| Stroked::Drawn {
            coverage: vec![1.0; 6],
            width: 3,
            height: 2,
            xmin: -1.0,
            ymin: 2.0,
        })
        .unwrap();
        assert_eq!(
            (
                drawn.width,
                drawn.height,
                drawn.xmin,
                drawn.ymin,
                drawn.coverage
            ),
            (3, 2, -1.0, 2.0, vec![255; 6])
        );
    }
}
