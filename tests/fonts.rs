//! Hostile font bytes: every load returns (an error or a font) within a second, without a GPU.
//!
//! The fonts are DejaVu Sans with one table swapped for a corrupt one, so everything but the table under test is
//! real.

use stage2d::{Error, Font};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const DEJAVU: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");

fn be16(d: &[u8], at: usize) -> usize {
    u16::from_be_bytes([d[at], d[at + 1]]) as usize
}

fn be32(d: &[u8], at: usize) -> usize {
    u32::from_be_bytes([d[at], d[at + 1], d[at + 2], d[at + 3]]) as usize
}

/// `font` with table `tag` replaced by `data` (tables are rewritten in order, four-byte aligned; checksums are
/// left as they were, which no parser here verifies).
fn with_table(font: &[u8], tag: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let n = be16(font, 4);
    let mut out = font[..12 + 16 * n].to_vec();
    for i in 0..n {
        let rec = 12 + 16 * i;
        let (offset, len) = (be32(font, rec + 8), be32(font, rec + 12));
        let body = if &font[rec..rec + 4] == tag {
            data
        } else {
            &font[offset..offset + len]
        };
        let at = out.len() as u32;
        out[rec + 8..rec + 12].copy_from_slice(&at.to_be_bytes());
        out[rec + 12..rec + 16].copy_from_slice(&(body.len() as u32).to_be_bytes());
        out.extend_from_slice(body);
        while !out.len().is_multiple_of(4) {
            out.push(0);
        }
    }
    out
}

/// A `cmap` table of `records` encoding records (Windows, Unicode full repertoire) that all point at `subtable`.
fn cmap(records: u16, subtable: &[u8]) -> Vec<u8> {
    let mut t = vec![0, 0];
    t.extend(records.to_be_bytes());
    let offset = 4 + 8 * u32::from(records);
    for _ in 0..records {
        t.extend([0, 3, 0, 10]);
        t.extend(offset.to_be_bytes());
    }
    t.extend(subtable);
    t
}

/// A format 12 subtable of `(first, last, first glyph)` groups.
fn format12(groups: impl ExactSizeIterator<Item = (u32, u32, u32)>) -> Vec<u8> {
    groups_subtable(12, groups)
}

/// A format 12 (sequential) or 13 (many-to-one) subtable of `(first, last, glyph)` groups.
fn groups_subtable(format: u8, groups: impl ExactSizeIterator<Item = (u32, u32, u32)>) -> Vec<u8> {
    let n = groups.len() as u32;
    let mut s = vec![0, format, 0, 0];
    s.extend((16 + 12 * n).to_be_bytes());
    s.extend(0u32.to_be_bytes());
    s.extend(n.to_be_bytes());
    for (a, b, g) in groups {
        s.extend(a.to_be_bytes());
        s.extend(b.to_be_bytes());
        s.extend(g.to_be_bytes());
    }
    s
}

/// A format 4 subtable whose segments all map `0..=0xFFFE` with delta 1 (then the `0xFFFF` terminator).
fn format4_full(segments: u16) -> Vec<u8> {
    let seg = segments + 1;
    let mut s = vec![0, 4, 0, 0, 0, 0];
    s.extend((seg * 2).to_be_bytes());
    s.extend([0; 6]);
    for i in 0..seg {
        s.extend(if i < segments { 0xFFFEu16 } else { 0xFFFF }.to_be_bytes());
    }
    s.extend([0, 0]);
    for i in 0..seg {
        s.extend(if i < segments { 0u16 } else { 0xFFFF }.to_be_bytes());
    }
    for _ in 0..seg {
        s.extend(1u16.to_be_bytes()); // idDelta
    }
    s.extend(vec![0; 2 * usize::from(seg)]); // idRangeOffset
    let len = s.len() as u16;
    s[2..4].copy_from_slice(&len.to_be_bytes());
    s
}

/// Loads `bytes` on a thread and fails the test if that takes longer than `limit` (the thread is left behind).
#[track_caller]
fn load_within(bytes: Vec<u8>, limit: Duration) -> Result<Font, Error> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(Font::from_bytes(&bytes));
    });
    match rx.recv_timeout(limit) {
        Ok(r) => r,
        Err(_) => panic!("Font::from_bytes did not return within {limit:?}"),
    }
}

const SECOND: Duration = Duration::from_secs(1);

#[track_caller]
fn refused(bytes: Vec<u8>, reason: &str) {
    match load_within(bytes, SECOND) {
        Err(Error::Font(msg)) => assert!(msg.contains(reason), "{msg:?} does not say {reason:?}"),
        Err(e) => panic!("expected Error::Font, got {e:?}"),
        Ok(_) => panic!("a hostile font was accepted"),
    }
}

#[test]
fn the_real_font_and_a_rebuilt_copy_load() {
    let t = Instant::now();
    let f = load_within(DEJAVU.to_vec(), SECOND).unwrap();
    assert_ne!(f.fontdue().unwrap().lookup_glyph_index('A'), 0);
    eprintln!("DejaVu Sans loads in {:?}", t.elapsed());
    // The rebuilding helper keeps a font intact.
    let cmap = &DEJAVU[48896..48896 + 7056];
    let same = load_within(with_table(DEJAVU, b"cmap", cmap), SECOND).unwrap();
    assert_eq!(
        same.fontdue().unwrap().lookup_glyph_index('A'),
        f.fontdue().unwrap().lookup_glyph_index('A')
    );
}

#[test]
fn a_well_formed_map_covering_unicode_from_four_records_loads() {
    // Every codepoint of Unicode once maps onto glyph 3 (a last-resort font does this), from four records.
    let sub = groups_subtable(13, [(0, 0x10_FFFF, 3)].into_iter());
    let t = Instant::now();
    let f = load_within(with_table(DEJAVU, b"cmap", &cmap(4, &sub)), 4 * SECOND).unwrap();
    eprintln!(
        "a font mapping all of Unicode from four records loads in {:?}",
        t.elapsed()
    );
    assert_eq!(f.fontdue().unwrap().lookup_glyph_index('\u{10FFFF}'), 3);
}

#[test]
fn a_cmap_12_group_over_two_billion_codepoints_is_refused_quickly() {
    let sub = format12([(0, 0x7FFF_FFFF, 1)].into_iter());
    let t = Instant::now();
    refused(with_table(DEJAVU, b"cmap", &cmap(1, &sub)), "character map");
    assert!(t.elapsed() < SECOND);
}

#[test]
fn many_groups_or_records_sharing_one_subtable_are_refused() {
    // 300,000 groups of 64 codepoints: 19 million lookups from 3.6 MB.
    let sub = format12((0..300_000u32).map(|i| (i * 64, i * 64 + 63, 1)));
    refused(with_table(DEJAVU, b"cmap", &cmap(1, &sub)), "character map");
    // 5,000 records pointing at one subtable that covers Unicode: each record is walked again.
    let sub = format12([(0, 0x10_FFFF, 1)].into_iter());
    refused(
        with_table(DEJAVU, b"cmap", &cmap(5000, &sub)),
        "character map",
    );
    // Format 4: 2,000 segments of 0..=0xFFFE each.
    refused(
        with_table(DEJAVU, b"cmap", &cmap(1, &format4_full(2000))),
        "character map",
    );
}

#[test]
fn kern_tables_that_spin_or_explode_are_refused() {
    // AAT kern with 2^32 - 1 subtables of length zero: fontdue would read the same header four billion times.
    let mut spin = vec![0, 1, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF];
    spin.extend([0, 0, 0, 0, 0, 2, 0, 0]);
    refused(with_table(DEJAVU, b"kern", &spin), "kern");
    // AAT format 3 over 65535 glyphs, all in class 0: a map of four billion pairs from 128 KB.
    let mut pairs = vec![0, 1, 0, 0, 0, 0, 0, 1];
    pairs.extend([0, 2, 0, 0, 0, 3, 0, 0]); // length, coverage, format 3, tuple index
    pairs.extend([0xFF, 0xFF, 1, 1, 1, 0]); // glyphs, values, left classes, right classes, flags
    pairs.extend([0, 0]); // the one kerning value
    pairs.extend(vec![0; 2 * 0xFFFF + 1]); // left and right classes, one index
    refused(with_table(DEJAVU, b"kern", &pairs), "kern");
}

#[test]
fn nested_composite_glyphs_shared_by_every_glyph_are_refused() {
    // Glyph 0: three points. Glyphs 1..=4: 200 copies each of the glyph before (3 * 200^4 points). Every other
    // glyph shares glyph 4's data, so every character DejaVu maps outlines to five billion points.
    let mut glyf = vec![
        0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0x37, 0x37, 0x37, 1, 1, 1, 1, 1, 1, 0,
    ];
    let mut offsets = vec![0u32];
    for level in 1..=4u16 {
        offsets.push(glyf.len() as u32);
        glyf.extend([0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0]);
        for i in 0..200 {
            // ARGS_ARE_XY_VALUES with byte offsets, MORE_COMPONENTS but on the last.
            glyf.extend(if i < 199 { 0x22u16 } else { 0x02 }.to_be_bytes());
            glyf.extend((level - 1).to_be_bytes());
            glyf.extend([0, 0]);
        }
    }
    let last = glyf.len() as u32;
    let glyphs = be16(DEJAVU, 680_628 + 4);
    let mut loca: Vec<u8> = offsets.iter().flat_map(|o| o.to_be_bytes()).collect();
    for _ in offsets.len()..glyphs {
        loca.extend(offsets[4].to_be_bytes());
    }
    loca.extend(last.to_be_bytes());
    let font = with_table(&with_table(DEJAVU, b"glyf", &glyf), b"loca", &loca);
    refused(font, "outlines");
}

#[test]
fn truncated_fonts_are_errors() {
    let mut n = 0;
    for len in [
        0,
        1,
        4,
        11,
        12,
        100,
        331,
        48_900,
        56_000,
        400_000,
        DEJAVU.len() - 1,
    ] {
        match load_within(DEJAVU[..len].to_vec(), SECOND) {
            Err(Error::Font(_)) => n += 1,
            Err(e) => panic!("{len} bytes: {e:?}"),
            // A cut inside the last table's padding may still parse; it must not crash or hang.
            Ok(_) => {}
        }
    }
    assert!(n >= 10, "only {n} truncations were refused");
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

#[test]
fn random_bytes_are_errors() {
    let mut rng = Rng(0x5EED);
    for len in [16, 64, 1000, 100_000] {
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        assert!(matches!(load_within(bytes, SECOND), Err(Error::Font(_))));
    }
    // An sfnt header followed by noise.
    let mut bytes = vec![0, 1, 0, 0, 0, 12, 0, 0, 0, 0, 0, 0];
    bytes.extend((0..5000).map(|_| rng.next() as u8));
    assert!(load_within(bytes, SECOND).is_err());
}

#[test]
fn corrupted_table_headers_never_hang() {
    // Bytes flipped in the tables fontdue walks eagerly (cmap, kern, head, hhea, maxp, loca) and the directory.
    let regions = [
        (0, 332),
        (48_896, 48_896 + 7056),
        (639_232, 639_232 + 200),
        (614_156, 614_156 + 90),
        (680_628, 680_628 + 32),
        (655_612, 655_612 + 200),
    ];
    let mut rng = Rng(42);
    for round in 0..60 {
        let mut bytes = DEJAVU.to_vec();
        for _ in 0..8 {
            let (a, b) = regions[(rng.next() % regions.len() as u64) as usize];
            let at = a + (rng.next() as usize) % (b - a);
            bytes[at] = rng.next() as u8;
        }
        let t = Instant::now();
        let _ = load_within(bytes, Duration::from_secs(2));
        assert!(t.elapsed() < Duration::from_secs(2), "round {round}");
    }
}
