//! Shaped layout: a paragraph split into runs of one font, script and direction (the first font of the text's
//! chain that has a character draws it; marks and joiners stay with their base), each run shaped by rustybuzz
//! (ligatures, kerning and mark positions from the font's GSUB and GPOS tables, Arabic joining, Indic
//! reordering), lines broken at Unicode's break opportunities (UAX #14: between words, between CJK ideographs,
//! never before closing punctuation), and each line put in visual order by the bidirectional algorithm (UAX #9).
//!
//! A run broken across lines keeps the shapes it had as a whole (the browser shapes each line's part again; for
//! Latin and CJK the two agree, for a word of Arabic broken mid-word they may not).

use super::layout::{finite, GlyphSource, LayoutStyle, PlacedGlyph, TextLayout};
use super::Font;
use unicode_bidi::BidiInfo;
use unicode_script::{Script, UnicodeScript};

/// Whether `c` is drawn by no glyph of its own and takes its neighbour's font: controls, joiners, bidi marks,
/// variation selectors.
fn ignorable(c: char) -> bool {
    c.is_control()
        || matches!(c as u32,
            0x00AD | 0x034F | 0x061C | 0x180B..=0x180F | 0x200B..=0x200F | 0x202A..=0x202E
            | 0x2060..=0x206F | 0xFE00..=0xFE0F | 0xFEFF | 0xE0000..=0xE0FFF)
}

/// Whether `c` needs the shaper: anything past Latin, Greek, Cyrillic and the common punctuation and currency
/// signs (combining marks included), as far as laying out glyph by glyph can tell.
fn complex(c: char) -> bool {
    let u = c as u32;
    u >= 0x0300
        && !matches!(u, 0x0370..=0x0482 | 0x048A..=0x052F | 0x1E00..=0x1FFF | 0x2010..=0x205E | 0x20A0..=0x20C0)
}

/// Whether a text of `fonts` (its font, then its fallbacks) needs shaping to draw `text` right: it holds a
/// character [`complex`] or one the first font lacks and a fallback may have.
pub(crate) fn needs_shaping(fonts: &[Font], text: &str) -> bool {
    let Some(first) = fonts.first() else {
        return false;
    };
    text.chars().any(|c| {
        complex(c)
            || (fonts.len() > 1 && !c.is_whitespace() && !ignorable(c) && first.glyph(c) == 0)
    })
}

/// One shaped glyph, in logical order.
#[derive(Clone, Copy)]
struct Shaped {
    font: u8,
    glyph: u16,
    advance: f32,
    dx: f32,
    dy: f32,
    /// Byte offset of its cluster in the paragraph.
    cluster: u32,
    level: u8,
    space: bool,
    /// Its run style.
    run: u16,
}

/// A run style of rich text, resolved: the font it starts its chain with (an index into the layout's fonts),
/// size and letter spacing. Plain text has one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RunStyle {
    pub font: u8,
    pub size: f32,
    pub spacing: f32,
}

/// The outline fonts of the chain, with their shaping faces (each parsed on first use in a layout).
struct Faces<'a> {
    /// The text's font and fallbacks (the chain, `chain` long), then its tags' fonts.
    fonts: &'a [Font],
    chain: usize,
    faces: Vec<std::cell::OnceCell<Option<rustybuzz::Face<'a>>>>,
}

/// Shape plans (the features a font's tables apply to a script and direction, slow to work out) by font id, right
/// to left, and script tag; emptied when it holds [`MAX_PLANS`].
type Plans = rustc_hash::FxHashMap<(u32, bool, u32), std::sync::Arc<rustybuzz::ShapePlan>>;
static PLANS: std::sync::Mutex<Option<Plans>> = std::sync::Mutex::new(None);
const MAX_PLANS: usize = 256;

/// The plan for `font`'s `face` in a direction and script, made once.
fn plan(
    font: &Font,
    face: &rustybuzz::Face<'_>,
    direction: rustybuzz::Direction,
    script: rustybuzz::Script,
) -> std::sync::Arc<rustybuzz::ShapePlan> {
    let rtl = direction == rustybuzz::Direction::RightToLeft;
    let key = (font.id(), rtl, script.tag().as_u32());
    let mut plans = PLANS.lock().unwrap_or_else(|e| e.into_inner());
    let plans = plans.get_or_insert_with(Default::default);
    if let Some(p) = plans.get(&key) {
        return p.clone();
    }
    if plans.len() >= MAX_PLANS {
        plans.clear();
    }
    let p = std::sync::Arc::new(rustybuzz::ShapePlan::new(
        face,
        direction,
        Some(script),
        None,
        &[],
    ));
    plans.insert(key, p.clone());
    p
}

impl<'a> Faces<'a> {
    fn new(fonts: &'a [Font], chain: usize) -> Faces<'a> {
        Faces {
            fonts,
            chain: chain.clamp(1, fonts.len()),
            faces: fonts.iter().map(|_| Default::default()).collect(),
        }
    }

    /// The shaping face of font `i`, `None` for a bitmap font or one the shaper cannot read.
    fn face(&self, i: usize) -> Option<&rustybuzz::Face<'a>> {
        let font = self.fonts.get(i)?;
        self.faces[i]
            .get_or_init(|| font.data().and_then(|d| rustybuzz::Face::from_slice(d, 0)))
            .as_ref()
    }

    /// The font that draws `c`: `prev` when it has it (or `c` draws nothing), else the first of `first` and the
    /// fallbacks that has it, else `None`.
    fn pick(&self, c: char, prev: Option<u8>, first: u8) -> Option<u8> {
        let has = |i: usize| {
            self.fonts
                .get(i)
                .and_then(Font::fontdue)
                .is_some_and(|f| f.has_glyph(c))
        };
        if let Some(p) = prev {
            if has(p as usize) || ignorable(c) {
                return Some(p);
            }
        }
        // A mark its base's font lacks comes from the first font that has it (else it is missing).
        std::iter::once(first as usize)
            .chain(1..self.chain.min(255))
            .find(|&i| has(i))
            .map(|i| i as u8)
    }
}

/// Whether `c` is of a right-to-left script or a control that opens a right-to-left run.
fn may_be_rtl(c: char) -> bool {
    matches!(c as u32,
        0x0590..=0x08FF | 0xFB1D..=0xFDFF | 0xFE70..=0xFEFF | 0x10800..=0x10FFF | 0x1E800..=0x1EFFF
        | 0x200F | 0x202B | 0x202E | 0x2067)
}

/// Characters no font of the chain has, drawn as the first font's missing glyph.
#[derive(Default)]
struct Missing(u32);

/// Shapes one paragraph (no `\n`) into glyphs in logical order.
fn shape_paragraph(
    faces: &Faces<'_>,
    para: &str,
    styles: &[u16],
    runs: &[RunStyle],
    missing: &mut Missing,
) -> Vec<Shaped> {
    let mut out = Vec::with_capacity(para.len());
    if para.is_empty() {
        return out;
    }
    // Levels only where a character may run right to left; otherwise every level is 0.
    let bidi = para
        .chars()
        .any(may_be_rtl)
        .then(|| BidiInfo::new(para, None));
    // Each character's font, script (common and inherited characters take their run's) and level.
    let mut chars: Vec<(usize, char, u8, Script, u8, u16)> = Vec::with_capacity(para.len());
    let mut prev_font = None;
    let mut prev_run = 0;
    for (n, (i, c)) in para.char_indices().enumerate() {
        let run = styles.get(n).copied().unwrap_or(0);
        if run != prev_run {
            // A new run style starts its own chain.
            prev_font = None;
            prev_run = run;
        }
        let first = runs.get(run as usize).map_or(0, |r| r.font);
        let font = match faces.pick(c, prev_font, first) {
            Some(f) => f,
            None => {
                if !c.is_whitespace() && !ignorable(c) {
                    missing.0 += 1;
                }
                first
            }
        };
        prev_font = Some(font);
        let level = bidi.as_ref().map_or(0, |b| b.levels[i].number());
        chars.push((i, c, font, c.script(), level, run));
    }
    let mut last = None;
    for ch in chars.iter_mut() {
        if matches!(ch.3, Script::Common | Script::Inherited | Script::Unknown) {
            if let Some(s) = last {
                ch.3 = s;
            }
        } else {
            last = Some(ch.3);
        }
    }
    let mut next = None;
    for ch in chars.iter_mut().rev() {
        if matches!(ch.3, Script::Common | Script::Inherited | Script::Unknown) {
            if let Some(s) = next {
                ch.3 = s;
            }
        } else {
            next = Some(ch.3);
        }
    }
    let mut start = 0;
    let mut buffer = rustybuzz::UnicodeBuffer::new();
    while start < chars.len() {
        let (_, _, font, script, level, run) = chars[start];
        let mut end = start + 1;
        while end < chars.len()
            && (chars[end].2, chars[end].3, chars[end].4, chars[end].5)
                == (font, script, level, run)
        {
            end += 1;
        }
        let (px, spacing) = runs
            .get(run as usize)
            .map_or((16.0, 0.0), |r| (r.size, r.spacing));
        let Some(face) = faces.face(font as usize) else {
            // Only outline fonts shape; a bitmap font in the chain draws nothing here.
            start = end;
            continue;
        };
        for &(i, c, ..) in &chars[start..end] {
            buffer.add(c, i as u32);
        }
        let byte_start = chars[start].0;
        let byte_end = chars.get(end).map_or(para.len(), |c| c.0);
        // A few characters either side, for joining across runs (HarfBuzz reads at most five).
        let pre = &para[..byte_start];
        let cut = pre.char_indices().rev().nth(4).map_or(0, |(i, _)| i);
        buffer.set_pre_context(&pre[cut..]);
        let post = &para[byte_end..];
        let cut = post.char_indices().nth(5).map_or(post.len(), |(i, _)| i);
        buffer.set_post_context(&post[..cut]);
        let rtl = level % 2 == 1;
        buffer.set_direction(if rtl {
            rustybuzz::Direction::RightToLeft
        } else {
            rustybuzz::Direction::LeftToRight
        });
        if let Some(s) =
            rustybuzz::Script::from_iso15924_tag(rustybuzz::ttf_parser::Tag::from_bytes(
                script.short_name().as_bytes().try_into().unwrap_or(b"Zyyy"),
            ))
        {
            buffer.set_script(s);
        }
        buffer.guess_segment_properties();
        let plan = plan(
            &faces.fonts[font as usize],
            face,
            buffer.direction(),
            buffer.script(),
        );
        let glyphs = rustybuzz::shape_with_plan(face, &plan, buffer);
        let scale = px / face.units_per_em().max(1) as f32;
        let first = out.len();
        for (info, pos) in glyphs.glyph_infos().iter().zip(glyphs.glyph_positions()) {
            let space = para[info.cluster as usize..]
                .chars()
                .next()
                .is_some_and(char::is_whitespace);
            let advance = pos.x_advance as f32 * scale;
            out.push(Shaped {
                font,
                glyph: u16::try_from(info.glyph_id).unwrap_or(0),
                advance: if advance != 0.0 {
                    advance + spacing
                } else {
                    0.0
                },
                dx: pos.x_offset as f32 * scale,
                dy: pos.y_offset as f32 * scale,
                cluster: info.cluster,
                level,
                space,
                run,
            });
        }
        if rtl {
            out[first..].reverse();
        }
        buffer = glyphs.clear();
        start = end;
    }
    out
}

/// One line: a range of the paragraph's glyphs and its width without trailing spaces.
struct Line {
    range: std::ops::Range<usize>,
    width: f32,
    last: bool,
}

/// Breaks a paragraph's glyphs into lines of at most `wrap` pixels at its break opportunities (a word longer
/// than the width breaks between its clusters with `break_words`, else overflows its line).
fn break_lines(
    para: &str,
    glyphs: &[Shaped],
    wrap: Option<f32>,
    break_words: bool,
    lines: &mut Vec<(Line, usize)>,
    para_id: usize,
) {
    let width_of = |r: std::ops::Range<usize>| {
        let mut end = r.end;
        while end > r.start && glyphs[end - 1].space {
            end -= 1;
        }
        glyphs[r.start..end].iter().map(|g| g.advance).sum::<f32>()
    };
    let Some(w) = wrap else {
        lines.push((
            Line {
                range: 0..glyphs.len(),
                width: width_of(0..glyphs.len()),
                last: true,
            },
            para_id,
        ));
        return;
    };
    // Glyphs a line may start at: the first of a cluster that begins at a break opportunity.
    let mut allowed = vec![false; para.len() + 1];
    for (i, _) in unicode_linebreak::linebreaks(para) {
        allowed[i] = true;
    }
    let boundary = |i: usize| i > 0 && glyphs[i].cluster != glyphs[i - 1].cluster;
    let mut start = 0;
    let mut pen = 0.0f32;
    // The last glyph after `start` a line may start at: at a break opportunity, and at any cluster boundary.
    let (mut word, mut cluster) = (None::<usize>, None::<usize>);
    for (i, g) in glyphs.iter().enumerate() {
        if boundary(i) {
            cluster = Some(i);
            if allowed[g.cluster as usize] {
                word = Some(i);
            }
        }
        // A line that still overflows after moving a word down breaks again (at a cluster, with break_words).
        while pen + g.advance > w && !g.space && i > start {
            let split = word
                .filter(|&j| j > start)
                .or_else(|| cluster.filter(|&j| break_words && j > start));
            let Some(split) = split else {
                break;
            };
            {
                lines.push((
                    Line {
                        range: start..split,
                        width: width_of(start..split),
                        last: false,
                    },
                    para_id,
                ));
                start = split;
                pen = glyphs[split..i].iter().map(|g| g.advance).sum();
            }
        }
        pen += g.advance;
    }
    lines.push((
        Line {
            range: start..glyphs.len(),
            width: width_of(start..glyphs.len()),
            last: true,
        },
        para_id,
    ));
}

/// Lays out `text` in `fonts` (a text's font, then its fallbacks) with shaping, as [`super::layout()`] does
/// glyph by glyph: the same white space, wrapping, alignment and line height, from the first font's metrics.
pub(crate) fn layout_shaped(fonts: &[Font], text: &str, style: &LayoutStyle) -> TextLayout {
    let spacing = if style.letter_spacing.is_finite() {
        style.letter_spacing
    } else {
        0.0
    };
    let run = RunStyle {
        font: 0,
        size: style.size,
        spacing,
    };
    let text = super::layout::collapse(text, style.white_space);
    layout_runs(fonts, fonts.len(), &text, &[], &[run], style)
}

/// Lays out `text` (its white space already collapsed) with shaping: each character in the run style `styles`
/// gives it (all run 0 when `styles` is empty), `fonts` the text's chain (`chain` long) then its tags' fonts.
/// A line is as tall as the tallest run on it (unless the style sets a line height), its baseline as low as the
/// lowest run's.
pub(crate) fn layout_runs(
    fonts: &[Font],
    chain: usize,
    text: &str,
    styles: &[u16],
    runs: &[RunStyle],
    style: &LayoutStyle,
) -> TextLayout {
    let px = style.size;
    if !(px.is_finite() && px > 0.0) || fonts.is_empty() || runs.is_empty() {
        return TextLayout::default();
    }
    let wrap = style.wrap_width.filter(|w| w.is_finite() && *w > 0.0);
    let faces = Faces::new(fonts, chain);
    let mut missing = Missing::default();
    let mut offset = 0;
    let paragraphs: Vec<(&str, Vec<Shaped>)> = text
        .split('\n')
        .map(|p| {
            let n = p.chars().count();
            let own = styles.get(offset..offset + n).unwrap_or(&[]);
            offset += n + 1;
            (p, shape_paragraph(&faces, p, own, runs, &mut missing))
        })
        .collect();
    let mut lines = Vec::new();
    for (id, (p, glyphs)) in paragraphs.iter().enumerate() {
        break_lines(p, glyphs, wrap, style.break_words, &mut lines, id);
    }
    // Each run's ascent and natural line height, from the font its chain starts with.
    let metrics: Vec<(f32, f32)> = runs
        .iter()
        .map(|r| {
            let f = fonts.get(r.font as usize).unwrap_or(&fonts[0]);
            (f.ascent(r.size), f.line_height(r.size))
        })
        .collect();
    let fixed = style.line_height.filter(|h| h.is_finite());
    let leading = super::layout::leading(style);
    let block_width =
        wrap.unwrap_or_else(|| lines.iter().map(|(l, _)| l.width).fold(0.0, f32::max));
    let mut out = TextLayout {
        missing: missing.0,
        ..Default::default()
    };
    let mut order = Vec::new();
    let mut top = 0.0f32;
    let mut height = 0.0f32;
    for (l, para) in &lines {
        let glyphs = &paragraphs[*para].1;
        // Trailing spaces are dropped; the rest goes in visual order.
        let mut end = l.range.end;
        while end > l.range.start && glyphs[end - 1].space {
            end -= 1;
        }
        let line = &glyphs[l.range.start..end];
        // The line's ascent and natural height: its runs' largest (run 0's on an empty line).
        let (ascent, natural) = if runs.len() == 1 || line.is_empty() {
            metrics[0]
        } else {
            line.iter().fold((0.0f32, 0.0f32), |(a, h), g| {
                let m = metrics[g.run as usize];
                (a.max(m.0), h.max(m.1))
            })
        };
        let levels: Vec<unicode_bidi::Level> = line
            .iter()
            .map(|g| {
                unicode_bidi::Level::new(g.level).unwrap_or_else(|_| unicode_bidi::Level::ltr())
            })
            .collect();
        order.clear();
        order.extend(BidiInfo::reorder_visual(&levels));
        let offset = match style.align {
            super::Align::Left | super::Align::Justify => 0.0,
            super::Align::Centre => (block_width - l.width) / 2.0,
            super::Align::Right => block_width - l.width,
        };
        let spaces = line.iter().filter(|g| g.space).count();
        let widen = match style.align {
            super::Align::Justify if !l.last && spaces > 0 && block_width > l.width => {
                (block_width - l.width) / spaces as f32
            }
            _ => 0.0,
        };
        let baseline = top + ascent;
        let mut pen = offset;
        for &v in &order {
            let g = line[v];
            out.glyphs.push(PlacedGlyph {
                glyph: g.glyph,
                font: g.font,
                run: g.run,
                x: pen + g.dx,
                baseline: baseline - g.dy,
            });
            pen += g.advance;
            if g.space {
                pen += widen;
            }
        }
        out.line_widths
            .push(finite(if widen > 0.0 { block_width } else { l.width }));
        height = top + natural;
        top += fixed.unwrap_or(natural) + leading;
    }
    out.glyphs
        .retain(|g| g.x.is_finite() && g.baseline.is_finite());
    out.size = [finite(block_width), finite(height)];
    out
}
