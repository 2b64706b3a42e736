//! Checks untrusted font bytes before fontdue loads them, pure.
//!
//! fontdue 0.9's `Font::from_bytes` does work proportional to numbers the file states, not to its size: it visits
//! every codepoint each character-map subtable claims (a format 12 group `0..=0x7FFF_FFFF` is two billion lookups
//! from twelve bytes, and every encoding record may point at the same subtable), and it expands a format 3 `kern`
//! subtable into one map entry per glyph pair and follows `kern` subtable lengths that may be zero. A few hundred
//! bytes then hang the caller or exhaust memory. It also outlines every mapped glyph, expanding composite glyphs
//! into their components, which may share data: a few kilobytes of nested composites are billions of points. [`check`] walks the same structures with ttf-parser (which fontdue
//! itself parses with), adds up the work fontdue would do without doing it, and refuses the font beyond fixed
//! bounds that real fonts stay far below. fontdue also loads every glyph that GSUB substitutes, walking each lookup's
//! subtables, whose offsets may all point at one subtable and whose coverage ranges may each span every glyph; the
//! shaper walks GSUB's and GPOS's subtables too: [`layout_work`] bounds both.

use ttf_parser::{Face, Tag};

/// Most codepoints fontdue may visit over all character-map subtables: every Unicode codepoint
/// (0x110000) in each of four subtables (real fonts carry a few subtables that cover the same characters).
pub(crate) const MAX_CMAP_CODEPOINTS: u64 = 4 * 0x11_0000;

/// Most glyph pairs a format 3 `kern` subtable may expand to (2048 glyphs squared, about 50 MB in fontdue's map).
pub(crate) const MAX_KERN_PAIRS: u64 = 1 << 22;

/// Most `kern` subtable headers fontdue may read (a zero length makes it read the same header again and again).
pub(crate) const MAX_KERN_SUBTABLES: u64 = 1 << 16;

/// Most outline points fontdue may build over all glyphs, composites expanded (about a second of its work).
pub(crate) const MAX_OUTLINE_POINTS: u64 = 1 << 24;

/// Most lookup subtables (GSUB's and GPOS's, repeats counted) plus GSUB substitute glyphs fontdue and the shaper
/// may visit (real fonts: tens of thousands).
pub(crate) const MAX_LAYOUT_WORK: u64 = 1 << 22;

/// Deepest composite-glyph nesting ttf-parser follows.
const MAX_COMPOSITE_DEPTH: u8 = 32;

/// Why `bytes` must not reach fontdue, or `Ok` if fontdue's loading work is bounded.
pub(crate) fn check(bytes: &[u8]) -> Result<(), String> {
    let face = Face::parse(bytes, 0).map_err(|e| format!("not a font: {e}"))?;
    if face.number_of_glyphs() == 0 {
        return Err("the font has no glyphs".into());
    }
    let raw = face.raw_face();
    if let Some(cmap) = raw.table(Tag::from_bytes(b"cmap")) {
        let n = cmap_codepoints(cmap, MAX_CMAP_CODEPOINTS);
        if n > MAX_CMAP_CODEPOINTS {
            return Err(format!(
                "the character map claims more than {MAX_CMAP_CODEPOINTS} codepoints over its subtables \
                 (Unicode has 1114112): a corrupt font"
            ));
        }
    }
    if let Some(kern) = raw.table(Tag::from_bytes(b"kern")) {
        check_kern(kern)?;
    }
    if layout_work(&face) > MAX_LAYOUT_WORK {
        return Err(format!(
            "the GSUB and GPOS tables state more than {MAX_LAYOUT_WORK} subtables and substitutes: a corrupt font"
        ));
    }
    if !full_name_is_utf16(&face) {
        return Err("the font's full name is not UTF-16: a corrupt font".into());
    }
    if !glyph_boxes_fit(&face) {
        return Err(
            "a glyph's bounding box is wider or taller than 32767 units: a corrupt font".into(),
        );
    }
    if !shaper_coverages_sound(&face) {
        return Err(
            "a GSUB or GPOS coverage table runs a range backwards or does not parse: a corrupt font".into(),
        );
    }
    if let (Some(glyf), Some(loca), Some(head)) = (
        raw.table(Tag::from_bytes(b"glyf")),
        raw.table(Tag::from_bytes(b"loca")),
        raw.table(Tag::from_bytes(b"head")),
    ) {
        let long = u16_at(head, 50) == Some(1);
        let points = outline_points(glyf, loca, long, face.number_of_glyphs())?;
        if points > MAX_OUTLINE_POINTS {
            return Err(format!(
                "the glyph outlines expand to more than {MAX_OUTLINE_POINTS} points: a corrupt font"
            ));
        }
    }
    Ok(())
}

/// Outline points fontdue builds when it outlines every glyph, with composite glyphs expanded into their
/// components (which may share data, so a small file can describe billions of points); stops early past the
/// limit. A composite that contains itself or nests deeper than ttf-parser follows is refused.
pub(crate) fn outline_points(
    glyf: &[u8],
    loca: &[u8],
    long: bool,
    glyphs: u16,
) -> Result<u64, String> {
    let range = |g: u16| -> Option<&[u8]> {
        let i = usize::from(g);
        let (a, b) = if long {
            (
                u32_at(loca, i * 4)? as usize,
                u32_at(loca, i * 4 + 4)? as usize,
            )
        } else {
            (
                usize::from(u16_at(loca, i * 2)?) * 2,
                usize::from(u16_at(loca, i * 2 + 2)?) * 2,
            )
        };
        glyf.get(a..b)
    };
    // Per glyph: None unvisited, Some(None) being expanded, Some(Some(points)) done.
    let mut memo: Vec<Option<Option<u64>>> = vec![None; usize::from(glyphs)];
    fn points<'a>(
        g: u16,
        depth: u8,
        range: &dyn Fn(u16) -> Option<&'a [u8]>,
        memo: &mut Vec<Option<Option<u64>>>,
    ) -> Result<u64, String> {
        match memo.get(usize::from(g)) {
            None => return Ok(0),
            Some(Some(Some(n))) => return Ok(*n),
            Some(Some(None)) => return Err(format!("composite glyph {g} contains itself")),
            Some(None) => {}
        }
        if depth >= MAX_COMPOSITE_DEPTH {
            return Err(format!(
                "composite glyphs nest deeper than {MAX_COMPOSITE_DEPTH}"
            ));
        }
        memo[usize::from(g)] = Some(None);
        let data = range(g).unwrap_or(&[]);
        let contours = u16_at(data, 0).map_or(0, |c| c as i16);
        let n = if contours >= 0 {
            // A simple glyph: the last contour's end point index, plus one.
            let last = 10 + 2 * usize::from(contours as u16);
            u64::from(contours > 0) * u16_at(data, last - 2).map_or(0, |e| u64::from(e) + 1)
        } else {
            let mut n = 0u64;
            let mut at = 10;
            while let (Some(flags), Some(child)) = (u16_at(data, at), u16_at(data, at + 2)) {
                n = n.saturating_add(points(child, depth + 1, range, memo)?);
                if n > MAX_OUTLINE_POINTS {
                    break;
                }
                // As ttf-parser reads them: offsets only when ARGS_ARE_XY_VALUES, then the transform.
                at += 4 + match (flags & 0x02 != 0, flags & 0x01 != 0) {
                    (false, _) => 0,
                    (true, true) => 4,
                    (true, false) => 2,
                };
                at += if flags & 0x08 != 0 {
                    2
                } else if flags & 0x40 != 0 {
                    4
                } else if flags & 0x80 != 0 {
                    8
                } else {
                    0
                };
                if flags & 0x20 == 0 {
                    break;
                }
            }
            n
        };
        memo[usize::from(g)] = Some(Some(n));
        Ok(n)
    }
    let mut total = 0u64;
    for g in 0..glyphs {
        total = total.saturating_add(points(g, 0, &range, &mut memo)?);
        if total > MAX_OUTLINE_POINTS {
            break;
        }
    }
    Ok(total)
}

/// The work fontdue's GSUB walk (every substitute glyph, a coverage range counted glyph by glyph) and the shaper's
/// lookup tables (every subtable of every lookup, GSUB's and GPOS's) do, counted by lengths without visiting the
/// glyphs; stops early past [`MAX_LAYOUT_WORK`].
pub(crate) fn layout_work(face: &Face) -> u64 {
    use ttf_parser::gsub::{SingleSubstitution, SubstitutionSubtable};
    use ttf_parser::opentype_layout::Coverage;
    let mut n = 0u64;
    if let Some(gpos) = face.tables().gpos {
        for lookup in gpos.lookups {
            n = n.saturating_add(1 + u64::from(lookup.subtables.len()));
            if n > MAX_LAYOUT_WORK {
                return n;
            }
        }
    }
    let Some(gsub) = face.tables().gsub else {
        return n;
    };
    for lookup in gsub.lookups {
        n = n.saturating_add(1);
        for table in lookup.subtables.into_iter::<SubstitutionSubtable>() {
            let glyphs = match table {
                SubstitutionSubtable::Single(SingleSubstitution::Format1 { coverage, .. }) => {
                    match coverage {
                        Coverage::Format1 { glyphs } => u64::from(glyphs.len()),
                        Coverage::Format2 { records } => records
                            .into_iter()
                            .map(|r| 1 + u64::from(r.end.0.saturating_sub(r.start.0)))
                            .sum(),
                    }
                }
                SubstitutionSubtable::Single(SingleSubstitution::Format2 {
                    substitutes, ..
                }) => u64::from(substitutes.len()),
                SubstitutionSubtable::Multiple(m) => m
                    .sequences
                    .into_iter()
                    .map(|s| 1 + u64::from(s.substitutes.len()))
                    .sum(),
                SubstitutionSubtable::Alternate(a) => a
                    .alternate_sets
                    .into_iter()
                    .map(|s| 1 + u64::from(s.alternates.len()))
                    .sum(),
                SubstitutionSubtable::Ligature(l) => l
                    .ligature_sets
                    .into_iter()
                    .map(|s| 1 + u64::from(s.len()))
                    .sum(),
                SubstitutionSubtable::ReverseChainSingle(r) => u64::from(r.substitutes.len()),
                _ => 0,
            };
            n = n.saturating_add(1 + glyphs);
            if n > MAX_LAYOUT_WORK {
                return n;
            }
        }
    }
    n
}

/// Whether the full name fontdue decodes (the first Unicode `name` record of id 4) is well-formed UTF-16: fontdue
/// reads past an odd length or a lone surrogate (a panic) and subtracts surrogates unchecked, making a `char` of
/// an invalid code (an overflow panic in debug builds, undefined behaviour in release builds).
pub(crate) fn full_name_is_utf16(face: &Face) -> bool {
    let Some(name) = face
        .names()
        .into_iter()
        .find(|n| n.name_id == 4 && n.is_unicode())
    else {
        return true;
    };
    let units = name
        .name
        .chunks_exact(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]));
    name.name.len() % 2 == 0 && char::decode_utf16(units).all(|c| c.is_ok())
}

/// Whether every glyph's bounding box (its `glyf` header) is at most 32767 units wide and tall: the shaper
/// subtracts its sides in 16 bits (rustybuzz 0.20's `glyph_extents`, an overflow panic in debug builds).
pub(crate) fn glyph_boxes_fit(face: &Face) -> bool {
    let Some(glyf) = face.tables().glyf else {
        return true;
    };
    let fits = |a: i16, b: i16| (i32::from(a) - i32::from(b)).abs() <= i32::from(i16::MAX);
    (0..face.number_of_glyphs())
        .filter_map(|g| glyf.bbox(ttf_parser::GlyphId(g)))
        .all(|b| fits(b.x_max, b.x_min) && fits(b.y_max, b.y_min))
}

/// Whether the coverage tables of GSUB and GPOS hold what the shaper assumes (rustybuzz 0.20 panics otherwise):
/// every subtable's coverage runs its ranges forwards (it subtracts their ends), and every coverage the format-3
/// context lookups and reverse chaining substitutions list parses (it unwraps them). Run after [`layout_work`] has
/// bounded the subtables; `false` past [`MAX_LAYOUT_WORK`] coverages and ranges.
pub(crate) fn shaper_coverages_sound(face: &Face) -> bool {
    use ttf_parser::gpos::PositioningSubtable;
    use ttf_parser::gsub::SubstitutionSubtable;
    use ttf_parser::opentype_layout::{ChainedContextLookup, ContextLookup, Coverage};
    // Lists of coverages (LazyOffsetArray16, a type ttf-parser does not name at its root), counted into `n`.
    macro_rules! all_parse {
        ($n:ident; $($list:expr),+) => {{
            $(*$n = $n.saturating_add(u64::from($list.len()));)+
            *$n <= MAX_LAYOUT_WORK $(&& (0..$list.len()).all(|i| $list.get(i).is_some()))+
        }};
    }
    fn context(n: &mut u64, c: ContextLookup) -> bool {
        match c {
            ContextLookup::Format3 { coverages, .. } => all_parse!(n; coverages),
            _ => true,
        }
    }
    fn chained(n: &mut u64, c: ChainedContextLookup) -> bool {
        match c {
            ChainedContextLookup::Format3 {
                backtrack_coverages: back,
                input_coverages: input,
                lookahead_coverages: ahead,
                ..
            } => all_parse!(n; back, input, ahead),
            _ => true,
        }
    }
    fn forwards(n: &mut u64, c: Coverage) -> bool {
        match c {
            Coverage::Format1 { .. } => true,
            Coverage::Format2 { records } => {
                *n = n.saturating_add(u64::from(records.len()));
                *n <= MAX_LAYOUT_WORK && records.into_iter().all(|r| r.start <= r.end)
            }
        }
    }
    let n = &mut 0u64;
    if let Some(gsub) = face.tables().gsub {
        for lookup in gsub.lookups {
            for table in lookup.subtables.into_iter::<SubstitutionSubtable>() {
                let ok = forwards(n, table.coverage())
                    && match table {
                        SubstitutionSubtable::Context(c) => context(n, c),
                        SubstitutionSubtable::ChainContext(c) => chained(n, c),
                        SubstitutionSubtable::ReverseChainSingle(r) => {
                            let (back, ahead) = (r.backtrack_coverages, r.lookahead_coverages);
                            all_parse!(n; back, ahead)
                        }
                        _ => true,
                    };
                if !ok {
                    return false;
                }
            }
        }
    }
    if let Some(gpos) = face.tables().gpos {
        for lookup in gpos.lookups {
            for table in lookup.subtables.into_iter::<PositioningSubtable>() {
                let ok = forwards(n, table.coverage())
                    && match table {
                        PositioningSubtable::Context(c) => context(n, c),
                        PositioningSubtable::ChainContext(c) => chained(n, c),
                        _ => true,
                    };
                if !ok {
                    return false;
                }
            }
        }
    }
    true
}

fn u16_at(d: &[u8], at: usize) -> Option<u16> {
    let b = d.get(at..at.checked_add(2)?)?;
    Some(u16::from_be_bytes([b[0], b[1]]))
}

fn u32_at(d: &[u8], at: usize) -> Option<u32> {
    let b = d.get(at..at.checked_add(4)?)?;
    Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// Codepoints ttf-parser's `Subtable::codepoints` visits over every encoding record of `cmap`, counted without
/// visiting them; stops early once the count passes `cap` (the result is then only known to be over `cap`).
/// Subtables that ttf-parser would fail to parse may be counted: an overestimate only ever refuses a broken font.
pub(crate) fn cmap_codepoints(cmap: &[u8], cap: u64) -> u64 {
    let records = u16_at(cmap, 2).unwrap_or(0);
    let mut total = 0u64;
    for i in 0..usize::from(records) {
        let Some(offset) = u32_at(cmap, 4 + i * 8 + 4) else {
            break;
        };
        let Some(sub) = cmap.get(offset as usize..) else {
            continue;
        };
        total = total.saturating_add(subtable_codepoints(sub, cap.saturating_sub(total)));
        if total > cap {
            break;
        }
    }
    total
}

/// Codepoints one subtable visits (stopping early past `cap`).
fn subtable_codepoints(d: &[u8], cap: u64) -> u64 {
    match u16_at(d, 0) {
        Some(0) => 256,
        Some(2) => format2(d),
        Some(4) => format4(d),
        // Format 6: a u16 entry count.
        Some(6) => u16_at(d, 8).map_or(0, u64::from),
        // Format 10: a u32 count of two-byte glyph ids that must fit in the data.
        Some(10) => u32_at(d, 16).map_or(0, |n| {
            u64::from(n).min((d.len() as u64).saturating_sub(20) / 2)
        }),
        Some(12 | 13) => groups(d, cap),
        // Format 14 maps variation sequences (no codepoints visited); 8 is not supported by ttf-parser.
        _ => 0,
    }
}

/// Format 2: for each of the 256 high bytes, one codepoint (sub-header 0) or the sub-header's entry count.
fn format2(d: &[u8]) -> u64 {
    let sub_headers = 6 + 256 * 2;
    let mut n = 0u64;
    for high in 0..256 {
        let Some(key) = u16_at(d, 6 + high * 2) else {
            return n;
        };
        let i = usize::from(key / 8);
        n += if i == 0 {
            1
        } else {
            // SubHeader: firstCode, entryCount, idDelta, idRangeOffset.
            u16_at(d, sub_headers + i * 8 + 2).map_or(0, u64::from)
        };
    }
    n
}

/// Format 4: `start..=end` of every segment up to the `0xFFFF` terminator.
fn format4(d: &[u8]) -> u64 {
    let segments = usize::from(u16_at(d, 6).unwrap_or(0) / 2);
    let (ends, starts) = (14, 16 + segments * 2);
    let mut n = 0u64;
    for i in 0..segments {
        let (Some(start), Some(end)) = (u16_at(d, starts + i * 2), u16_at(d, ends + i * 2)) else {
            break;
        };
        if start == 0xFFFF && end == 0xFFFF {
            break;
        }
        if end >= start {
            n += u64::from(end - start) + 1;
        }
    }
    n
}

/// Formats 12 and 13: `start..=end` of every group (twelve bytes each: start, end, glyph).
fn groups(d: &[u8], cap: u64) -> u64 {
    let count = u32_at(d, 12).unwrap_or(0) as usize;
    // ttf-parser refuses a subtable whose groups do not all fit.
    if count > d.len().saturating_sub(16) / 12 {
        return 0;
    }
    let mut n = 0u64;
    for g in 0..count {
        let at = 16 + g * 12;
        let (Some(start), Some(end)) = (u32_at(d, at), u32_at(d, at + 4)) else {
            break;
        };
        if end >= start {
            n += u64::from(end - start) + 1;
        }
        if n > cap {
            break;
        }
    }
    n
}

/// Walks the `kern` table the way fontdue's `TableKern::new` does and refuses what it would spin or allocate on.
fn check_kern(kern: &[u8]) -> Result<(), String> {
    let (aat, count, mut at) = match u16_at(kern, 0) {
        Some(0) => (false, u16_at(kern, 2).map_or(0, u64::from), 4usize),
        Some(1) => (true, u32_at(kern, 4).map_or(0, u64::from), 8usize),
        _ => return Ok(()),
    };
    for step in 0..count {
        if step >= MAX_KERN_SUBTABLES {
            return Err(format!(
                "the kern table has more than {MAX_KERN_SUBTABLES} subtables: a corrupt font"
            ));
        }
        let start = at;
        // OpenType: version, length (u16), format, coverage; AAT: length (u32), coverage, format, tuple index.
        let (length, format, horizontal) = if aat {
            let (Some(length), Some(c)) = (u32_at(kern, at), u16_at(kern, at + 4)) else {
                return Ok(());
            };
            at += 8;
            (length as usize, c as u8, c >> 8 & 0x80 == 0)
        } else {
            let (Some(length), Some(fc)) = (u16_at(kern, at + 2), u16_at(kern, at + 4)) else {
                return Ok(());
            };
            at += 6;
            (usize::from(length), (fc >> 8) as u8, fc & 1 == 1)
        };
        match format {
            // Format 0 reads a u16 count of six-byte pairs and stops.
            0 if horizontal => return Ok(()),
            3 if horizontal => {
                let glyphs = u16_at(kern, at).map_or(0, u64::from);
                return if glyphs * glyphs > MAX_KERN_PAIRS {
                    Err(format!(
                        "the kern table's class subtable spans {glyphs} glyphs, {} pairs (at most {MAX_KERN_PAIRS})",
                        glyphs * glyphs
                    ))
                } else {
                    Ok(())
                };
            }
            _ => at = start.saturating_add(length),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmap_with(subtables: &[Vec<u8>]) -> Vec<u8> {
        let mut t = vec![0, 0];
        t.extend((subtables.len() as u16).to_be_bytes());
        let mut offset = 4 + 8 * subtables.len() as u32;
        for s in subtables {
            t.extend([0, 3, 0, 10]);
            t.extend(offset.to_be_bytes());
            offset += s.len() as u32;
        }
        for s in subtables {
            t.extend(s);
        }
        t
    }

    fn format12(groups: &[(u32, u32)]) -> Vec<u8> {
        let mut s = vec![0, 12, 0, 0];
        s.extend((16 + 12 * groups.len() as u32).to_be_bytes());
        s.extend(0u32.to_be_bytes());
        s.extend((groups.len() as u32).to_be_bytes());
        for &(a, b) in groups {
            s.extend(a.to_be_bytes());
            s.extend(b.to_be_bytes());
            s.extend(1u32.to_be_bytes());
        }
        s
    }

    fn format4(segments: &[(u16, u16)]) -> Vec<u8> {
        let n = segments.len() as u16;
        let mut s = vec![0, 4, 0, 0, 0, 0];
        s.extend((n * 2).to_be_bytes());
        s.extend([0; 6]);
        for &(_, e) in segments {
            s.extend(e.to_be_bytes());
        }
        s.extend([0, 0]);
        for &(a, _) in segments {
            s.extend(a.to_be_bytes());
        }
        s.extend(vec![0; 4 * segments.len()]);
        s
    }

    #[test]
    fn cmap_counts_follow_every_record_and_format() {
        let t = cmap_with(&[format12(&[(0x20, 0x7E), (0x4E00, 0x4E0F)])]);
        assert_eq!(cmap_codepoints(&t, u64::MAX), 95 + 16);
        let t = cmap_with(&[format4(&[(0x41, 0x5A), (0x30, 0x20), (0xFFFF, 0xFFFF)])]);
        assert_eq!(
            cmap_codepoints(&t, u64::MAX),
            26,
            "reversed segments visit nothing"
        );
        // Two records pointing at one subtable are visited twice.
        let mut t = cmap_with(&[format12(&[(0, 9)]), vec![]]);
        let first = t[8..12].to_vec();
        t[16..20].copy_from_slice(&first);
        assert_eq!(cmap_codepoints(&t, u64::MAX), 20);
    }

    #[test]
    fn huge_or_many_groups_are_over_the_cap_and_counting_stops_early() {
        let t = cmap_with(&[format12(&[(0, 0x7FFF_FFFF)])]);
        assert!(cmap_codepoints(&t, MAX_CMAP_CODEPOINTS) > MAX_CMAP_CODEPOINTS);
        let many: Vec<(u32, u32)> = (0..200_000).map(|i| (i * 100, i * 100 + 99)).collect();
        let t = cmap_with(&[format12(&many)]);
        assert!(cmap_codepoints(&t, MAX_CMAP_CODEPOINTS) > MAX_CMAP_CODEPOINTS);
        // A format 4 subtable of 0..=0xFFFF segments repeated.
        let t = cmap_with(&[format4(&vec![(0, 0xFFFE); 100])]);
        assert!(cmap_codepoints(&t, MAX_CMAP_CODEPOINTS) > MAX_CMAP_CODEPOINTS);
    }

    #[test]
    fn groups_that_do_not_fit_are_not_counted() {
        let mut s = format12(&[(0, 0xFFFF)]);
        s[12..16].copy_from_slice(&1000u32.to_be_bytes());
        assert_eq!(cmap_codepoints(&cmap_with(&[s]), u64::MAX), 0);
    }

    /// `glyf` and long `loca` for glyph 0, a 3-point simple glyph, and `levels` composites each made of `fan`
    /// copies of the glyph before it.
    fn nested(levels: u16, fan: u16) -> (Vec<u8>, Vec<u8>) {
        let mut glyf = vec![
            0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0x37, 0x37, 0x37, 1, 1, 1, 1, 1, 1,
        ];
        let mut loca = vec![0u32];
        for level in 1..=levels {
            loca.push(glyf.len() as u32);
            glyf.extend([0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0]);
            for i in 0..fan {
                let more: u16 = if i + 1 < fan { 0x22 } else { 0x02 };
                glyf.extend(more.to_be_bytes());
                glyf.extend((level - 1).to_be_bytes());
                glyf.extend([0, 0]);
            }
        }
        loca.push(glyf.len() as u32);
        (glyf, loca.iter().flat_map(|o| o.to_be_bytes()).collect())
    }

    #[test]
    fn composite_glyphs_are_counted_expanded_and_cycles_refused() {
        let (glyf, loca) = nested(2, 10);
        assert_eq!(outline_points(&glyf, &loca, true, 3), Ok(3 + 30 + 300));
        let (glyf, loca) = nested(5, 200);
        assert!(outline_points(&glyf, &loca, true, 6).unwrap() > MAX_OUTLINE_POINTS);
        // Glyph 1 made of itself.
        let (mut glyf, loca) = nested(1, 2);
        glyf[23 + 10 + 2..23 + 10 + 4].copy_from_slice(&1u16.to_be_bytes());
        assert!(outline_points(&glyf, &loca, true, 2)
            .unwrap_err()
            .contains("itself"));
    }

    #[test]
    fn kern_tables_that_spin_or_explode_are_refused() {
        // AAT kern, 2^32 - 1 subtables of length 0: fontdue reads the first header forever.
        let mut aat = vec![0, 1, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF];
        aat.extend([0, 0, 0, 0, 0, 2, 0, 0]);
        assert!(check_kern(&aat).unwrap_err().contains("subtables"));
        // AAT format 3 over 65535 glyphs: four billion pairs.
        let mut f3 = vec![0, 1, 0, 0, 0, 0, 0, 1];
        f3.extend([0, 0, 0, 100, 0, 3, 0, 0, 0xFF, 0xFF]);
        assert!(check_kern(&f3).unwrap_err().contains("pairs"));
        // OpenType format 0 with a few pairs is fine.
        let ot = [0, 0, 0, 1, 0, 0, 0, 20, 0, 1, 0, 1];
        assert_eq!(check_kern(&ot), Ok(()));
    }
}
