//! Text outlines with sharp corners (PixiJS's stroke `join: 'miter'` and `'bevel'`): the glyph's outline, read
//! from the font's `glyf` or `CFF` table, stroked by lyon with that join and drawn into the glyph's grown bitmap
//! by 16 samples a pixel (the union of the stroke's triangles and the glyph's own coverage). Round joins grow the
//! bitmap by the distance to the glyph instead (`glyph_effects.rs`), which needs no outline.

use super::glyph_effects::{StrokeJob, Stroked};
use lyon::math::point;
use lyon::path::Path;
use lyon::tessellation::{
    BuffersBuilder, StrokeOptions, StrokeTessellator, StrokeVertex, VertexBuffers,
};

/// Samples a pixel along each axis.
const SAMPLES: usize = 4;

/// Most triangles a glyph's stroke may have (a hostile glyph of many points is drawn by the distance instead).
const MAX_TRIANGLES: usize = 200_000;

/// The glyph `glyph` of the font in `data`, at `scale` pixels a font unit, with the stroke `job` asks for: its
/// fill (the job's bitmap) and the stroke of its outline in one bitmap, as large as the stroke reaches plus the
/// job's margin.
pub(crate) fn draw(data: &[u8], glyph: u16, scale: f32, job: StrokeJob<'_>) -> Stroked {
    let Ok(face) = ttf_parser::Face::parse(data, 0) else {
        return Stroked::NoOutline;
    };
    if !(scale.is_finite() && scale > 0.0) {
        return Stroked::NoOutline;
    }
    // Glyph space in pixels, y down from the baseline.
    let mut outline = Outline {
        builder: Path::builder(),
        open: false,
        scale,
    };
    if face
        .outline_glyph(ttf_parser::GlyphId(glyph), &mut outline)
        .is_none()
    {
        return Stroked::NoOutline;
    }
    if outline.open {
        outline.builder.end(true);
    }
    let path = outline.builder.build();
    let options = StrokeOptions::default()
        .with_line_width(2.0 * job.spread)
        .with_line_join(match job.join {
            crate::LineJoin::Miter => lyon::tessellation::LineJoin::Miter,
            crate::LineJoin::Bevel => lyon::tessellation::LineJoin::Bevel,
            crate::LineJoin::Round => lyon::tessellation::LineJoin::Round,
        })
        .with_miter_limit(job.miter_limit.max(StrokeOptions::MINIMUM_MITER_LIMIT))
        .with_tolerance(0.02);
    let mut mesh: VertexBuffers<[f32; 2], u32> = VertexBuffers::new();
    let made = StrokeTessellator::new().tessellate_path(
        &path,
        &options,
        &mut BuffersBuilder::new(&mut mesh, |v: StrokeVertex| v.position().to_array()),
    );
    if made.is_err() || mesh.indices.len() / 3 > MAX_TRIANGLES {
        return Stroked::NoOutline;
    }
    // The bitmap: the fill's and the stroke's extents, plus the margin, on whole pixels.
    let fill = job.fill;
    let (fw, fh) = (fill.width as usize, fill.height as usize);
    let fill_top = -(fill.ymin + fh as f32);
    let (mut lo, mut hi) = ([fill.xmin, fill_top], [fill.xmin + fw as f32, -fill.ymin]);
    for v in &mesh.vertices {
        if v[0].is_finite() && v[1].is_finite() {
            lo = [lo[0].min(v[0]), lo[1].min(v[1])];
            hi = [hi[0].max(v[0]), hi[1].max(v[1])];
        }
    }
    let m = job.margin as f32;
    let (left, top) = ((lo[0].floor() - m), (lo[1].floor() - m));
    let (w, h) = ((hi[0].ceil() + m - left), (hi[1].ceil() + m - top));
    let max = job.max_side as f32;
    if !(w.is_finite() && h.is_finite() && w <= max && h <= max) {
        return Stroked::TooLarge;
    }
    let (w, h) = (w as usize, h as usize);
    let mut coverage = vec![0.0f32; w * h];
    // The fill, at whole pixels (its corner is on whole pixels too).
    let (ox, oy) = ((fill.xmin - left) as usize, (fill_top - top) as usize);
    for y in 0..fh {
        for x in 0..fw {
            coverage[(y + oy) * w + x + ox] = fill.coverage[y * fw + x] as f32 / 255.0;
        }
    }
    let (sw, sh) = (w * SAMPLES, h * SAMPLES);
    let mut inside = vec![false; sw * sh];
    let s = SAMPLES as f32;
    for t in mesh.indices.chunks_exact(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|i| mesh.vertices[i as usize]);
        // In sample units of the bitmap; each sample at its cell's centre.
        let [a, mut b, mut c] = [a, b, c].map(|p| [(p[0] - left) * s, (p[1] - top) * s]);
        let area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
        if !area.is_finite() || area == 0.0 {
            continue;
        }
        if area < 0.0 {
            std::mem::swap(&mut b, &mut c);
        }
        let lo_x = a[0].min(b[0]).min(c[0]).floor().max(0.0) as usize;
        let hi_x = (a[0].max(b[0]).max(c[0]).ceil().max(0.0) as usize).min(sw);
        let lo_y = a[1].min(b[1]).min(c[1]).floor().max(0.0) as usize;
        let hi_y = (a[1].max(b[1]).max(c[1]).ceil().max(0.0) as usize).min(sh);
        let edge = |p: [f32; 2], q: [f32; 2], x: f32, y: f32| {
            (q[0] - p[0]) * (y - p[1]) - (q[1] - p[1]) * (x - p[0])
        };
        for y in lo_y..hi_y {
            let py = y as f32 + 0.5;
            for x in lo_x..hi_x {
                let px = x as f32 + 0.5;
                if edge(a, b, px, py) >= 0.0
                    && edge(b, c, px, py) >= 0.0
                    && edge(c, a, px, py) >= 0.0
                {
                    inside[y * sw + x] = true;
                }
            }
        }
    }
    let per = (SAMPLES * SAMPLES) as f32;
    for y in 0..h {
        for x in 0..w {
            let mut n = 0;
            for j in 0..SAMPLES {
                let row = &inside[(y * SAMPLES + j) * sw + x * SAMPLES..][..SAMPLES];
                n += row.iter().filter(|&&i| i).count();
            }
            let c = &mut coverage[y * w + x];
            *c = c.max(n as f32 / per);
        }
    }
    Stroked::Drawn {
        coverage,
        width: w,
        height: h,
        xmin: left,
        ymin: -(top + h as f32),
    }
}

/// A glyph outline from ttf-parser as a lyon path in pixels, y down from the baseline.
struct Outline {
    builder: lyon::path::path::Builder,
    open: bool,
    scale: f32,
}

impl Outline {
    fn at(&self, x: f32, y: f32) -> lyon::math::Point {
        point(x * self.scale, -y * self.scale)
    }
}

impl ttf_parser::OutlineBuilder for Outline {
    fn move_to(&mut self, x: f32, y: f32) {
        if self.open {
            self.builder.end(true);
        }
        let p = self.at(x, y);
        self.builder.begin(p);
        self.open = true;
    }

    fn line_to(&mut self, x: f32, y: f32) {
        if self.open {
            let p = self.at(x, y);
            self.builder.line_to(p);
        }
    }

    fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
        if self.open {
            let (c, p) = (self.at(x1, y1), self.at(x, y));
            self.builder.quadratic_bezier_to(c, p);
        }
    }

    fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
        if self.open {
            let (c1, c2, p) = (self.at(x1, y1), self.at(x2, y2), self.at(x, y));
            self.builder.cubic_bezier_to(c1, c2, p);
        }
    }

    fn close(&mut self) {
        if self.open {
            self.builder.end(true);
            self.open = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::text::glyph_effects::effect_key;
    use crate::text::layout::GlyphSource;
    use crate::text::Font;
    use crate::LineJoin;

    /// Glyph `c` of the built-in font at 40 px with a stroke of half width 3 joined as `join`.
    fn stroked(c: char, join: LineJoin) -> super::super::atlas::Raster {
        let font = Font::builtin();
        let glyph = font.glyph(c);
        let r = font.rasterize_within(glyph, 40.0, 1024).unwrap();
        font.apply_effect(glyph, 40.0, r, effect_key(3.0, 0.0, join, 10.0), 1024)
            .unwrap()
    }

    fn total(r: &super::super::atlas::Raster) -> u32 {
        r.coverage.iter().map(|&c| c as u32).sum()
    }

    /// Coverage at glyph-space pixel `(x, y)` (x right of the pen, y up from the baseline), 0 outside.
    fn at(r: &super::super::atlas::Raster, x: i32, y: i32) -> u8 {
        let (cx, cy) = (x - r.xmin as i32, r.ymin as i32 + r.height as i32 - 1 - y);
        if cx < 0 || cy < 0 || cx >= r.width as i32 || cy >= r.height as i32 {
            return 0;
        }
        r.coverage[cy as usize * r.width as usize + cx as usize]
    }

    /// The extent of the pixels over half covered: (left, bottom, right, top), in glyph space.
    fn ink(r: &super::super::atlas::Raster) -> (i32, i32, i32, i32) {
        let (mut lo_x, mut lo_y, mut hi_x, mut hi_y) = (i32::MAX, i32::MAX, i32::MIN, i32::MIN);
        for y in r.ymin as i32..r.ymin as i32 + r.height as i32 {
            for x in r.xmin as i32..r.xmin as i32 + r.width as i32 {
                if at(r, x, y) > 127 {
                    (lo_x, lo_y, hi_x, hi_y) = (lo_x.min(x), lo_y.min(y), hi_x.max(x), hi_y.max(y));
                }
            }
        }
        (lo_x, lo_y, hi_x, hi_y)
    }

    #[test]
    fn straight_edges_grow_alike_and_corners_as_joined() {
        // 'I' is a bar: every join grows its sides by the same 3 pixels; only its four corners differ.
        let [m, b, r] =
            [LineJoin::Miter, LineJoin::Bevel, LineJoin::Round].map(|j| stroked('I', j));
        let (x0, y0, x1, y1) = ink(&r);
        assert_eq!(ink(&m), (x0, y0, x1, y1));
        assert_eq!(ink(&b), (x0, y0, x1, y1));
        // Along the middle row, miter, bevel and round agree to within antialiasing: the stroke is where the
        // distance puts it.
        let row = (y0 + y1) / 2;
        for x in x0 - 2..=x1 + 2 {
            let (a, c) = (at(&m, x, row) as i32, at(&r, x, row) as i32);
            // The distance grows by up to half a pixel more (it measures from covered pixels' centres).
            assert!((a - c).abs() <= 128, "x {x}: miter {a}, round {c}");
            assert!((a - at(&b, x, row) as i32).abs() <= 2, "x {x}");
        }
        // A miter squares the bar's corners off; a round join rounds them; a bevel cuts them.
        // The 3x3 pixels at two opposite corners of the ink.
        let corner = |r| {
            let mut sum = 0;
            for k in 0..9 {
                let (dx, dy) = (k % 3, k / 3);
                sum += at(r, x0 + dx, y0 + dy) as i32 + at(r, x1 - dx, y1 - dy) as i32;
            }
            sum
        };
        assert!(corner(&m) > corner(&r), "{} {}", corner(&m), corner(&r));
        assert!(corner(&r) > corner(&b), "{} {}", corner(&r), corner(&b));
        assert!(total(&m) > total(&r) && total(&r) > total(&b));
    }

    #[test]
    fn sharp_corners_reach_out_with_a_miter_and_are_cut_by_a_bevel() {
        // 'M' has acute corners at the top of its outer strokes, 'K' at the ends of its arms.
        let [m, r, b] =
            [LineJoin::Miter, LineJoin::Round, LineJoin::Bevel].map(|j| stroked('M', j));
        let top = |r| ink(r).3;
        assert!(
            top(&m) >= top(&r) + 4 && top(&r) >= top(&b),
            "the top of the ink: miter {}, round {}, bevel {}",
            top(&m),
            top(&r),
            top(&b)
        );
        let [m, r, b] =
            [LineJoin::Miter, LineJoin::Round, LineJoin::Bevel].map(|j| stroked('K', j));
        let right = |r| ink(r).2;
        assert!(right(&m) >= right(&r) + 2 && right(&r) >= right(&b));
        // A miter limit of 1 bevels every corner.
        let font = Font::builtin();
        let glyph = font.glyph('M');
        let raster = font.rasterize_within(glyph, 40.0, 1024).unwrap();
        let limited = font
            .apply_effect(
                glyph,
                40.0,
                raster,
                effect_key(3.0, 0.0, LineJoin::Miter, 1.0),
                1024,
            )
            .unwrap();
        assert_eq!(ink(&limited), ink(&stroked('M', LineJoin::Bevel)));
    }

    #[test]
    fn no_outline_falls_back_to_the_distance_and_too_large_is_refused() {
        // Garbage bytes have no outline: the stroke is grown by the distance, as a round join is.
        let font = Font::builtin();
        let glyph = font.glyph('I');
        let r = font.rasterize_within(glyph, 40.0, 1024).unwrap();
        let effect = effect_key(3.0, 0.0, LineJoin::Miter, 10.0);
        let fallback = super::super::glyph_effects::apply_effect(r.clone(), effect, 1024, |job| {
            super::draw(&[1, 2, 3], glyph, 0.1, job)
        })
        .unwrap();
        let round = font
            .apply_effect(
                glyph,
                40.0,
                r.clone(),
                effect_key(3.0, 0.0, LineJoin::Round, 1.0),
                1024,
            )
            .unwrap();
        assert_eq!(fallback.coverage, round.coverage);
        // A miter's bitmap is as large as its tips reach: 'I' has none beyond the spread, 'M' has.
        assert!(stroked('I', LineJoin::Miter).width <= round.width + 1);
        // Past the largest side the atlas takes: refused.
        assert!(font.apply_effect(glyph, 40.0, r, effect, 20).is_none());
        let m = font.glyph('M');
        let r = font.rasterize_within(m, 40.0, 1024).unwrap();
        let huge = effect_key(63.75, 0.0, LineJoin::Miter, 63.75);
        let spiky = font.apply_effect(m, 40.0, r.clone(), huge, 1024).unwrap();
        assert!(spiky.height > 300, "{}", spiky.height);
        assert!(font
            .apply_effect(m, 40.0, r, huge, spiky.height - 1)
            .is_none());
    }
}
