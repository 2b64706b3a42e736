//! The glyph atlas, pure: glyphs rasterised once per (font, glyph, size) are packed on shelves into square pages
//! with one pixel of transparent padding. New bitmaps wait in [`GlyphAtlas::take_uploads`] until the renderer
//! writes them; page textures are owned by the renderer, which keeps spare page ids ready
//! ([`GlyphAtlas::set_available_pages`]) so that the walk never creates a GPU object.
//!
//! Eviction: a page whose glyphs all went unused for [`GlyphAtlas::MAX_IDLE_FRAMES`] is emptied at
//! [`GlyphAtlas::trim`]; when every page is full, the least recently used page not needed this frame is emptied
//! and reused. Blank glyphs and glyphs refused as larger than a page hold no page space; they are forgotten after
//! the same idle time, so text whose size changes every frame does not grow the atlas without bound.
//!
//! Glyphs larger than a page (text of thousands of pixels) are not drawn: the rasteriser is told the largest
//! bitmap that fits and refuses before allocating, the atlas remembers the refusal (one warning, no rasterising
//! again next frame) and counts each skipped glyph in [`GlyphAtlas::too_large_this_frame`]. Text that large would
//! be drawn well only as tessellated outlines, not as atlas bitmaps.

/// Which glyph bitmap: font, glyph index, size (f32 bits), effect ([`effect_key`](super::glyph_effects::effect_key):
/// 0 the glyph itself).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GlyphKey {
    /// Font id.
    pub font: u32,
    /// Glyph index.
    pub glyph: u16,
    /// Size in pixels, as `f32::to_bits`.
    pub size_bits: u32,
    /// A stroke's or shadow's spread, blur and join (`glyph_effects::effect_key`), 0 for the glyph itself.
    pub effect: u32,
}

/// Where a glyph's bitmap lies and how to place it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AtlasGlyph {
    /// Page number.
    pub page: u32,
    /// Bitmap rectangle in the page `[x, y, w, h]` (padding excluded); zero-sized for blank glyphs (spaces).
    pub rect: [u32; 4],
    /// Offset of the bitmap's top-left from the pen position on the baseline, y down.
    pub offset: [f32; 2],
    /// Of a packed bitmap: texels on each side that only its shadow covers.
    pub inset: u32,
}

/// A bitmap to write into a page: `[x, y, w, h]` with padding, premultiplied white RGBA8.
#[derive(Clone, Debug, PartialEq)]
pub struct GlyphUpload {
    /// Page number.
    pub page: u32,
    /// Region written, padding included.
    pub rect: [u32; 4],
    /// `w * h * 4` bytes.
    pub rgba: Vec<u8>,
}

/// A rasterised glyph: coverage bitmap and placement (fontdue's metrics, y up).
#[derive(Clone, Debug, Default)]
pub struct Raster {
    /// Bitmap width.
    pub width: u32,
    /// Bitmap height.
    pub height: u32,
    /// Left of the bitmap from the pen.
    pub xmin: f32,
    /// Bottom of the bitmap above the baseline.
    pub ymin: f32,
    /// Coverage, one byte a pixel, row-major from the top; four where `packed`.
    pub coverage: Vec<u8>,
    /// A styled glyph's layers in one bitmap ([`pack_layers`](super::glyph_effects::pack_layers)): each pixel
    /// the fill's, the outline's and the shadow's coverage and their maximum, the page's RGBA as they are.
    pub packed: bool,
    /// Of a packed bitmap: texels on each side that only its shadow covers (its fill and outline are drawn
    /// from the box inside them).
    pub inset: u32,
}

#[derive(Clone, Copy, Debug)]
struct Shelf {
    y: u32,
    height: u32,
    x: u32,
}

#[derive(Clone, Debug, Default)]
struct Page {
    shelves: Vec<Shelf>,
    next_y: u32,
    last_used: u64,
}

/// Packed glyph bitmaps in pages.
#[derive(Debug)]
pub struct GlyphAtlas {
    page_size: u32,
    max_pages: usize,
    available: usize,
    pages: Vec<Page>,
    glyphs: crate::base::IntMap<GlyphKey, (AtlasGlyph, u64)>,
    /// Glyphs refused as larger than a page, with the last frame they were asked for.
    too_large: crate::base::IntMap<GlyphKey, u64>,
    uploads: Vec<GlyphUpload>,
    frame: u64,
    /// Glyph bitmaps rasterised and queued since the last trim.
    pub uploads_this_frame: u64,
    /// Glyphs rasterised since the last trim, kept or not (a glyph deferred for want of room is rasterised again).
    pub rasterized_this_frame: u64,
    /// Glyphs asked for since the last trim that are larger than a page and so not drawn.
    pub too_large_this_frame: u64,
    /// Pages emptied for reuse, in total.
    pub evictions: u64,
    /// Glyphs that found no room this frame (shown from the next frame on).
    pub deferred_this_frame: u64,
}

const PAD: u32 = 1;

impl GlyphAtlas {
    /// Frames a page may go unused before it is emptied.
    pub const MAX_IDLE_FRAMES: u64 = 600;

    /// Frames between sweeps of idle blank and too-large glyphs (a sweep visits every glyph).
    pub const SWEEP_INTERVAL: u64 = 64;

    /// An atlas of pages `page_size` pixels square, at most `max_pages` of them.
    pub fn new(page_size: u32, max_pages: usize) -> Self {
        GlyphAtlas {
            page_size,
            max_pages: max_pages.max(1),
            available: 0,
            pages: Vec::new(),
            glyphs: Default::default(),
            too_large: Default::default(),
            uploads: Vec::new(),
            frame: 0,
            uploads_this_frame: 0,
            rasterized_this_frame: 0,
            too_large_this_frame: 0,
            evictions: 0,
            deferred_this_frame: 0,
        }
    }

    /// Side of a page in pixels.
    pub fn page_size(&self) -> u32 {
        self.page_size
    }

    /// Pages holding glyphs (each needs a texture).
    pub fn pages_in_use(&self) -> usize {
        self.pages.len()
    }

    /// Pages the atlas may want before the next walk: those in use plus two spares, within the maximum.
    pub fn pages_wanted(&self) -> usize {
        (self.pages.len() + 2).min(self.max_pages)
    }

    /// How many pages have textures ready.
    pub fn set_available_pages(&mut self, n: usize) {
        self.available = n.min(self.max_pages);
    }

    /// Whether no glyph is held.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.glyphs.is_empty()
    }

    /// Largest bitmap side that fits a page with its padding.
    pub fn max_glyph_side(&self) -> u32 {
        self.page_size.saturating_sub(2 * PAD)
    }

    /// The glyph, rasterising and packing it on first use; `None` if it is larger than a page or no page has
    /// room this frame.
    ///
    /// `rasterize` gets the largest bitmap side that fits ([`GlyphAtlas::max_glyph_side`]) and returns `None`,
    /// before rasterising, for a glyph larger than that; the refusal is remembered, so the glyph is not asked
    /// for again while it keeps being used.
    pub fn get_or_insert(
        &mut self,
        key: GlyphKey,
        rasterize: impl FnOnce(u32) -> Option<Raster>,
    ) -> Option<AtlasGlyph> {
        let frame = self.frame;
        if let Some((g, used)) = self.glyphs.get_mut(&key) {
            *used = frame;
            if g.rect[2] > 0 {
                self.pages[g.page as usize].last_used = frame;
            }
            return Some(*g);
        }
        if let Some(used) = self.too_large.get_mut(&key) {
            *used = frame;
            self.too_large_this_frame += 1;
            return None;
        }
        let max = self.max_glyph_side();
        let r = match rasterize(max) {
            Some(r)
                if r.width <= max
                    && r.height <= max
                    && r.coverage.len()
                        >= (r.width * r.height) as usize * if r.packed { 4 } else { 1 } =>
            {
                self.rasterized_this_frame += 1;
                r
            }
            refused => {
                self.rasterized_this_frame += u64::from(refused.is_some());
                if self.too_large_this_frame == 0 {
                    log::warn!(
                        "glyph {} of font {} at {} px is larger than a {} px glyph-atlas page: not drawn \
                         (further glyphs too large this frame are not logged)",
                        key.glyph,
                        key.font,
                        f32::from_bits(key.size_bits),
                        self.page_size
                    );
                }
                self.too_large.insert(key, frame);
                self.too_large_this_frame += 1;
                return None;
            }
        };
        let offset = [r.xmin, -(r.ymin + r.height as f32)];
        if r.width == 0 || r.height == 0 {
            let g = AtlasGlyph {
                page: 0,
                rect: [0; 4],
                offset,
                inset: 0,
            };
            self.glyphs.insert(key, (g, frame));
            return Some(g);
        }
        let (w, h) = (r.width + 2 * PAD, r.height + 2 * PAD);
        let (page, x, y) = match self.allocate(w, h) {
            Some(a) => a,
            None => {
                self.deferred_this_frame += 1;
                return None;
            }
        };
        self.pages[page].last_used = frame;
        let mut rgba = vec![0u8; (w * h * 4) as usize];
        for row in 0..r.height {
            for col in 0..r.width {
                let at = (row * r.width + col) as usize;
                let i = (((row + PAD) * w + col + PAD) * 4) as usize;
                if r.packed {
                    rgba[i..i + 4].copy_from_slice(&r.coverage[4 * at..4 * at + 4]);
                } else {
                    let c = r.coverage[at];
                    rgba[i..i + 4].copy_from_slice(&[c, c, c, c]);
                }
            }
        }
        self.uploads.push(GlyphUpload {
            page: page as u32,
            rect: [x, y, w, h],
            rgba,
        });
        self.uploads_this_frame += 1;
        let g = AtlasGlyph {
            page: page as u32,
            rect: [x + PAD, y + PAD, r.width, r.height],
            offset,
            inset: r.inset,
        };
        self.glyphs.insert(key, (g, frame));
        Some(g)
    }

    fn place(&mut self, page: usize, w: u32, h: u32) -> Option<(u32, u32)> {
        let size = self.page_size;
        let p = &mut self.pages[page];
        // Best shelf: tall enough, not wastefully taller, with room left.
        let best = p
            .shelves
            .iter_mut()
            .filter(|s| s.height >= h && s.height <= h + h / 2 + 2 && s.x + w <= size)
            .min_by_key(|s| s.height);
        if let Some(s) = best {
            let x = s.x;
            s.x += w;
            return Some((x, s.y));
        }
        if p.next_y + h <= size {
            let y = p.next_y;
            p.shelves.push(Shelf { y, height: h, x: w });
            p.next_y += h;
            return Some((0, y));
        }
        None
    }

    fn allocate(&mut self, w: u32, h: u32) -> Option<(usize, u32, u32)> {
        for page in 0..self.pages.len() {
            if let Some((x, y)) = self.place(page, w, h) {
                return Some((page, x, y));
            }
        }
        if self.pages.len() < self.available {
            self.pages.push(Page::default());
            let page = self.pages.len() - 1;
            return self.place(page, w, h).map(|(x, y)| (page, x, y));
        }
        // Full: empty the least recently used page not needed this frame.
        let frame = self.frame;
        let victim = (0..self.pages.len())
            .filter(|&i| self.pages[i].last_used < frame)
            .min_by_key(|&i| self.pages[i].last_used)?;
        self.clear_page(victim);
        self.place(victim, w, h).map(|(x, y)| (victim, x, y))
    }

    /// Keeps `page` in use this frame (its glyphs were drawn from a text's placed bitmaps).
    pub fn touch_page(&mut self, page: u32) {
        if let Some(p) = self.pages.get_mut(page as usize) {
            p.last_used = self.frame;
        }
    }

    fn clear_page(&mut self, page: usize) {
        self.glyphs
            .retain(|_, (g, _)| g.page as usize != page || g.rect[2] == 0);
        self.uploads.retain(|u| u.page as usize != page);
        self.pages[page] = Page::default();
        self.evictions += 1;
    }

    /// The bitmaps queued since the last call, to write into the page textures.
    pub fn take_uploads(&mut self) -> Vec<GlyphUpload> {
        std::mem::take(&mut self.uploads)
    }

    /// Ends a frame: empties pages idle for too long, forgets idle blank and too-large glyphs (every
    /// [`GlyphAtlas::SWEEP_INTERVAL`] frames) and resets the per-frame counters.
    pub fn trim(&mut self) {
        let frame = self.frame;
        for page in 0..self.pages.len() {
            let p = &self.pages[page];
            if p.next_y > 0 && frame.saturating_sub(p.last_used) > Self::MAX_IDLE_FRAMES {
                self.clear_page(page);
            }
        }
        if frame.is_multiple_of(Self::SWEEP_INTERVAL) {
            let idle = |used: u64| frame.saturating_sub(used) > Self::MAX_IDLE_FRAMES;
            self.glyphs
                .retain(|_, (g, used)| g.rect[2] > 0 || !idle(*used));
            self.too_large.retain(|_, used| !idle(*used));
        }
        self.frame += 1;
        self.uploads_this_frame = 0;
        self.rasterized_this_frame = 0;
        self.too_large_this_frame = 0;
        self.deferred_this_frame = 0;
    }

    /// Glyphs held, blank and too-large ones included.
    #[cfg(test)]
    pub fn glyph_count(&self) -> usize {
        self.glyphs.len() + self.too_large.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(glyph: u16) -> GlyphKey {
        GlyphKey {
            font: 1,
            glyph,
            size_bits: 16f32.to_bits(),
            effect: 0,
        }
    }

    fn raster(w: u32, h: u32) -> Raster {
        Raster {
            width: w,
            height: h,
            xmin: 1.0,
            ymin: -2.0,
            coverage: vec![200; (w * h) as usize],
            packed: false,
            inset: 0,
        }
    }

    #[test]
    fn glyphs_are_rasterised_once_and_do_not_overlap() {
        let mut a = GlyphAtlas::new(64, 2);
        a.set_available_pages(2);
        let mut rects = Vec::new();
        for g in 0..20u16 {
            let e = a.get_or_insert(key(g), |_| Some(raster(10, 12))).unwrap();
            rects.push((e.page, e.rect));
        }
        let again = a
            .get_or_insert(key(3), |_| panic!("rasterised twice"))
            .unwrap();
        assert_eq!((again.page, again.rect), rects[3]);
        assert_eq!(a.take_uploads().len(), 20);
        for (i, (pa, ra)) in rects.iter().enumerate() {
            assert!(ra[0] + ra[2] < 64 && ra[1] + ra[3] < 64);
            for (pb, rb) in &rects[i + 1..] {
                let overlap = pa == pb
                    && ra[0] < rb[0] + rb[2] + 1
                    && rb[0] < ra[0] + ra[2] + 1
                    && ra[1] < rb[1] + rb[3] + 1
                    && rb[1] < ra[1] + ra[3] + 1;
                assert!(!overlap, "{ra:?} and {rb:?} touch without padding");
            }
        }
        assert_eq!(a.pages_in_use(), 1);
    }

    #[test]
    fn uploads_carry_padding_and_premultiplied_white() {
        let mut a = GlyphAtlas::new(64, 1);
        a.set_available_pages(1);
        let g = a.get_or_insert(key(1), |_| Some(raster(2, 2))).unwrap();
        assert_eq!(g.offset, [1.0, 0.0]);
        let u = &a.take_uploads()[0];
        assert_eq!(u.rect[2..], [4, 4]);
        assert_eq!(&u.rgba[0..4], &[0, 0, 0, 0], "padding is transparent");
        assert_eq!(&u.rgba[(4 + 1) * 4..(4 + 1) * 4 + 4], &[200, 200, 200, 200]);
    }

    #[test]
    fn blank_glyphs_take_no_space_and_huge_ones_are_refused() {
        let mut a = GlyphAtlas::new(32, 1);
        a.set_available_pages(1);
        let space = a.get_or_insert(key(1), |_| Some(raster(0, 0))).unwrap();
        assert_eq!(space.rect[2], 0);
        assert_eq!(a.pages_in_use(), 0);
        assert!(a.get_or_insert(key(2), |_| Some(raster(40, 4))).is_none());
    }

    #[test]
    fn a_full_atlas_grows_pages_then_evicts_the_least_recently_used() {
        let mut a = GlyphAtlas::new(32, 2);
        a.set_available_pages(1);
        // 14x14 + padding = 16: four per page.
        for g in 0..4 {
            a.get_or_insert(key(g), |_| Some(raster(14, 14))).unwrap();
        }
        assert!(
            a.get_or_insert(key(4), |_| Some(raster(14, 14))).is_none(),
            "no spare page yet"
        );
        assert_eq!(a.deferred_this_frame, 1);
        a.set_available_pages(2);
        assert_eq!(
            a.get_or_insert(key(4), |_| Some(raster(14, 14)))
                .unwrap()
                .page,
            1
        );
        for g in 5..8 {
            a.get_or_insert(key(g), |_| Some(raster(14, 14))).unwrap();
        }
        a.trim();
        // Next frame: page 1's glyphs are used again, page 0's are not; a new glyph evicts page 0.
        a.get_or_insert(key(6), |_| panic!()).unwrap();
        let e = a.get_or_insert(key(100), |_| Some(raster(14, 14))).unwrap();
        assert_eq!(e.page, 0);
        assert_eq!(a.evictions, 1);
        assert!(a.get_or_insert(key(7), |_| panic!("kept")).is_some());
        let mut rerasterised = false;
        a.get_or_insert(key(0), |_| {
            rerasterised = true;
            Some(raster(14, 14))
        });
        assert!(rerasterised, "evicted glyphs are rasterised again");
    }

    #[test]
    fn glyphs_larger_than_a_page_are_refused_once_and_remembered() {
        let mut a = GlyphAtlas::new(32, 1);
        a.set_available_pages(1);
        let mut offered = 0;
        assert!(a
            .get_or_insert(key(1), |max| {
                offered = max;
                None
            })
            .is_none());
        assert_eq!(offered, 30, "the page less its padding");
        assert_eq!((a.too_large_this_frame, a.rasterized_this_frame), (1, 0));
        for _ in 0..3 {
            a.trim();
            assert!(a.get_or_insert(key(1), |_| panic!("asked again")).is_none());
            assert_eq!(a.too_large_this_frame, 1);
        }
        // A rasteriser that ignores the limit is refused all the same, and counted as rasterised.
        assert!(a.get_or_insert(key(2), |_| Some(raster(31, 2))).is_none());
        assert_eq!((a.too_large_this_frame, a.rasterized_this_frame), (2, 1));
        assert_eq!(a.pages_in_use(), 0);
        assert!(a.take_uploads().is_empty());
    }

    #[test]
    fn idle_blank_and_too_large_glyphs_are_forgotten() {
        let mut a = GlyphAtlas::new(32, 1);
        a.set_available_pages(1);
        // A text whose size changes every frame: a new key each time.
        for size in 0..1000u32 {
            let k = GlyphKey {
                font: 1,
                glyph: 3,
                size_bits: size,
                effect: 0,
            };
            a.get_or_insert(k, |_| Some(raster(0, 0)));
            a.get_or_insert(GlyphKey { glyph: 4, ..k }, |_| None);
            a.trim();
        }
        let bound = 2 * (GlyphAtlas::MAX_IDLE_FRAMES + GlyphAtlas::SWEEP_INTERVAL + 1) as usize;
        assert!(a.glyph_count() <= bound, "{} glyphs held", a.glyph_count());
        for _ in 0..GlyphAtlas::MAX_IDLE_FRAMES + 2 * GlyphAtlas::SWEEP_INTERVAL {
            a.trim();
        }
        assert_eq!(a.glyph_count(), 0);
    }

    #[test]
    fn idle_pages_are_emptied_at_trim() {
        let mut a = GlyphAtlas::new(32, 1);
        a.set_available_pages(1);
        a.get_or_insert(key(1), |_| Some(raster(4, 4))).unwrap();
        for _ in 0..=GlyphAtlas::MAX_IDLE_FRAMES + 1 {
            a.trim();
        }
        assert!(a.is_empty());
        assert_eq!(a.evictions, 1);
    }
}
