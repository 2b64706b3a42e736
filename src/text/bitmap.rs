//! Bitmap fonts: AngelCode BMFont `.fnt` descriptions (the text form and the XML form, as BMFont, Hiero,
//! msdf-bmfont and most game tools write them) over page images whose regions are the glyphs. Parsed on the CPU
//! here; [`crate::Renderer::load_bitmap_font`] loads the pages, and a [`Font`](super::Font) made of it lays out
//! and draws like any other: its glyphs are sprites' quads cut from the pages, in the same batches.
//!
//! Both forms are lists of *tags* with `key=value` attributes (`char id=65 x=2 ...` a line, or
//! `<char id="65" x="2" .../>`), so one reader serves both. Every number is checked: ids, sizes and counts are
//! bounded, glyph regions must lie in their page, and the whole description is refused (with the tag and
//! attribute at fault) rather than drawn wrong.

use crate::{Error, Result, Texture};
use rustc_hash::FxHashMap;

/// Largest `.fnt` description read.
pub const MAX_FNT_BYTES: usize = 8 << 20;

/// Most glyphs one bitmap font holds.
pub const MAX_BITMAP_GLYPHS: usize = 65_535;

/// Most kerning pairs one bitmap font holds.
pub const MAX_KERNING_PAIRS: usize = 262_144;

/// Most page images one bitmap font names.
pub const MAX_PAGES: usize = 256;

/// Largest coordinate, size or offset in a description (pixels).
const MAX_COORD: i64 = 1 << 16;

/// A distance-field font's field (msdf-bmfont's `distanceField` tag).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DistanceField {
    /// `sdf` (one channel) or `msdf` (three).
    pub multi_channel: bool,
    /// The field's range in page pixels.
    pub range: f32,
}

/// One glyph: its region in a page and how it sits on the line, in the font's pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BitmapGlyph {
    pub page: u16,
    /// Region in the page: x, y, width, height.
    pub rect: [u16; 4],
    /// From the pen position to the region's top-left, the pen on the line's top.
    pub offset: [f32; 2],
    pub advance: f32,
}

/// A parsed `.fnt` description, pages not yet loaded.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FntData {
    pub face: String,
    /// The size the glyphs were made at.
    pub size: f32,
    pub line_height: f32,
    /// From the line's top to the baseline.
    pub base: f32,
    /// Page file names, by page id.
    pub pages: Vec<String>,
    pub glyphs: Vec<(char, BitmapGlyph)>,
    pub kerning: Vec<(char, char, f32)>,
    pub distance_field: Option<DistanceField>,
}

fn fault(tag: &str, why: impl std::fmt::Display) -> Error {
    Error::Font(format!("bitmap font: <{tag}>: {why}"))
}

/// A tag's attributes, in order.
struct Tag<'a> {
    name: &'a str,
    attrs: Vec<(&'a str, &'a str)>,
}

impl<'a> Tag<'a> {
    fn get(&self, key: &str) -> Option<&'a str> {
        self.attrs.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }

    /// An integer attribute within `lo..=hi`; missing is `default` (or an error without one).
    fn int(&self, key: &str, lo: i64, hi: i64, default: Option<i64>) -> Result<i64> {
        let Some(v) = self.get(key) else {
            return default.ok_or_else(|| fault(self.name, format!("no `{key}`")));
        };
        // Some tools write integers as `12.0`.
        let n = v
            .parse::<i64>()
            .ok()
            .or_else(|| {
                v.parse::<f64>()
                    .ok()
                    .filter(|f| f.is_finite() && f.fract() == 0.0 && f.abs() < 1e15)
                    .map(|f| f as i64)
            })
            .ok_or_else(|| fault(self.name, format!("`{key}` is {v:?}, not an integer")))?;
        if !(lo..=hi).contains(&n) {
            return Err(fault(
                self.name,
                format!("`{key}` is {n}, outside {lo}..={hi}"),
            ));
        }
        Ok(n)
    }
}

/// Splits `key=value key="quoted value"` pairs.
fn attributes(s: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let mut rest = s.trim_start();
    while let Some(eq) = rest.find('=') {
        let key = rest[..eq].trim();
        // A key is the last word before `=`.
        let key = key.rsplit(char::is_whitespace).next().unwrap_or(key);
        let after = rest[eq + 1..].trim_start();
        let (value, next) = match after.chars().next() {
            Some(q @ ('"' | '\'')) => match after[1..].find(q) {
                Some(end) => (&after[1..1 + end], &after[2 + end..]),
                None => (&after[1..], ""),
            },
            _ => {
                let end = after.find(char::is_whitespace).unwrap_or(after.len());
                (&after[..end], &after[end..])
            }
        };
        out.push((key, value));
        rest = next.trim_start();
    }
    out
}

/// The tags of either form.
fn tags(text: &str) -> Vec<Tag<'_>> {
    let xml = text.trim_start().starts_with('<');
    let mut out = Vec::new();
    if xml {
        let mut rest = text;
        while let Some(open) = rest.find('<') {
            // The tag ends at the first `>` outside quotes (`char=">"` is an attribute).
            let mut quote = None;
            let close = rest[open..].char_indices().find_map(|(i, c)| {
                match (quote, c) {
                    (None, '"' | '\'') => quote = Some(c),
                    (Some(q), c) if c == q => quote = None,
                    (None, '>') => return Some(i),
                    _ => {}
                }
                None
            });
            let Some(close) = close else {
                break;
            };
            let inner = rest[open + 1..open + close].trim().trim_end_matches('/');
            rest = &rest[open + close + 1..];
            if inner.starts_with(['?', '!', '/']) {
                continue;
            }
            let name_end = inner.find(char::is_whitespace).unwrap_or(inner.len());
            out.push(Tag {
                name: &inner[..name_end],
                attrs: attributes(&inner[name_end..]),
            });
        }
    } else {
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let name_end = line.find(char::is_whitespace).unwrap_or(line.len());
            out.push(Tag {
                name: &line[..name_end],
                attrs: attributes(&line[name_end..]),
            });
        }
    }
    out
}

/// Parses a `.fnt` description (text or XML). Errors ([`Error::Font`]) name the tag and attribute at fault: a
/// description over [`MAX_FNT_BYTES`], not UTF-8, without `info`, `common` or a page, a page id past the pages,
/// numbers out of range, more than [`MAX_BITMAP_GLYPHS`] glyphs or [`MAX_KERNING_PAIRS`] pairs, a char id that is
/// not a Unicode scalar.
pub(crate) fn parse_fnt(bytes: &[u8]) -> Result<FntData> {
    if bytes.len() > MAX_FNT_BYTES {
        return Err(Error::Font(format!(
            "bitmap font: {} bytes (at most {MAX_FNT_BYTES})",
            bytes.len()
        )));
    }
    let text = std::str::from_utf8(bytes)
        .map_err(|e| Error::Font(format!("bitmap font: not UTF-8 text ({e})")))?;
    let mut data = FntData {
        face: String::new(),
        size: 0.0,
        line_height: 0.0,
        base: 0.0,
        pages: Vec::new(),
        glyphs: Vec::new(),
        kerning: Vec::new(),
        distance_field: None,
    };
    let (mut info, mut common, mut page_count) = (false, false, 0usize);
    for tag in tags(text) {
        match tag.name {
            "info" => {
                info = true;
                data.face = tag.get("face").unwrap_or("").chars().take(256).collect();
                // Negative sizes mean "match the character height" in BMFont: the size is its magnitude.
                data.size = tag.int("size", -MAX_COORD, MAX_COORD, None)?.unsigned_abs() as f32;
                if data.size == 0.0 {
                    return Err(fault("info", "`size` is 0"));
                }
            }
            "common" => {
                common = true;
                data.line_height = tag.int("lineHeight", 0, MAX_COORD, None)? as f32;
                data.base = tag.int("base", -MAX_COORD, MAX_COORD, Some(0))? as f32;
                page_count = tag.int("pages", 0, MAX_PAGES as i64, Some(1))? as usize;
            }
            "page" => {
                let id = tag.int("id", 0, MAX_PAGES as i64 - 1, None)? as usize;
                let file = tag
                    .get("file")
                    .ok_or_else(|| fault("page", "no `file`"))?
                    .to_string();
                if data.pages.len() <= id {
                    data.pages.resize(id + 1, String::new());
                }
                data.pages[id] = file;
            }
            "char" => {
                if data.glyphs.len() >= MAX_BITMAP_GLYPHS {
                    return Err(fault("char", format!("more than {MAX_BITMAP_GLYPHS}")));
                }
                let id = tag.int("id", 0, 0x10_ffff, None)? as u32;
                let c = char::from_u32(id)
                    .ok_or_else(|| fault("char", format!("`id` {id} is not a character")))?;
                let coord = |k| tag.int(k, 0, MAX_COORD - 1, Some(0)).map(|v| v as u16);
                let glyph = BitmapGlyph {
                    page: tag.int("page", 0, MAX_PAGES as i64 - 1, Some(0))? as u16,
                    rect: [coord("x")?, coord("y")?, coord("width")?, coord("height")?],
                    offset: [
                        tag.int("xoffset", -MAX_COORD, MAX_COORD, Some(0))? as f32,
                        tag.int("yoffset", -MAX_COORD, MAX_COORD, Some(0))? as f32,
                    ],
                    advance: tag.int("xadvance", -MAX_COORD, MAX_COORD, Some(0))? as f32,
                };
                data.glyphs.push((c, glyph));
            }
            "kerning" => {
                if data.kerning.len() >= MAX_KERNING_PAIRS {
                    return Err(fault("kerning", format!("more than {MAX_KERNING_PAIRS}")));
                }
                let c = |k| {
                    let id = tag.int(k, 0, 0x10_ffff, None)? as u32;
                    char::from_u32(id)
                        .ok_or_else(|| fault("kerning", format!("`{k}` {id} is not a character")))
                };
                let amount = tag.int("amount", -MAX_COORD, MAX_COORD, None)? as f32;
                data.kerning.push((c("first")?, c("second")?, amount));
            }
            "distanceField" => {
                let kind = tag.get("fieldType").unwrap_or("sdf");
                let multi_channel = match kind {
                    "sdf" | "psdf" => false,
                    "msdf" | "mtsdf" => true,
                    other => return Err(fault("distanceField", format!("`fieldType` {other:?}"))),
                };
                let range = tag.int("distanceRange", 1, 1024, None)? as f32;
                data.distance_field = Some(DistanceField {
                    multi_channel,
                    range,
                });
            }
            _ => {}
        }
    }
    if !info {
        return Err(fault("info", "missing"));
    }
    if !common {
        return Err(fault("common", "missing"));
    }
    if data.pages.is_empty() || data.pages.iter().any(String::is_empty) {
        return Err(fault(
            "page",
            "a page id without a file (pages are 0, 1, 2, ...)",
        ));
    }
    if page_count != 0 && page_count != data.pages.len() {
        return Err(fault(
            "common",
            format!(
                "`pages` is {page_count} but {} are listed",
                data.pages.len()
            ),
        ));
    }
    if let Some((c, g)) = data
        .glyphs
        .iter()
        .find(|(_, g)| g.page as usize >= data.pages.len())
    {
        return Err(fault(
            "char",
            format!("{c:?} is on page {}, past the last", g.page),
        ));
    }
    Ok(data)
}

/// Reads (at most [`MAX_FNT_BYTES`], whatever size the file system reports) and parses the description at `path`;
/// returns it with the directory its pages are named from. Errors are [`Error::FontFile`] naming the file.
pub(crate) fn read_fnt(path: &std::path::Path) -> Result<(FntData, std::path::PathBuf)> {
    use std::io::Read;
    let file_error = |reason: String| Error::FontFile {
        path: path.to_owned(),
        reason,
    };
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_FNT_BYTES as u64 + 1).read_to_end(&mut bytes))
        .map_err(|e| file_error(e.to_string()))?;
    let data = parse_fnt(&bytes).map_err(|e| file_error(e.to_string()))?;
    let dir = path.parent().unwrap_or(std::path::Path::new("")).to_owned();
    Ok((data, dir))
}

/// A bitmap font: its glyphs (index 0 the missing glyph: an empty one), their pages and kerning.
#[derive(Debug)]
pub(crate) struct BitmapFont {
    pub size: f32,
    pub line_height: f32,
    pub base: f32,
    pub glyphs: Vec<BitmapGlyph>,
    pub by_char: FxHashMap<char, u16>,
    pub kerning: FxHashMap<(u16, u16), f32>,
    pub pages: Vec<Texture>,
    /// A distance-field font's range in page pixels.
    pub distance_range: Option<f32>,
}

impl BitmapFont {
    /// The font of `data` over `pages` (one texture a page, in page order). Errors: another number of pages, a
    /// glyph region outside its page.
    pub fn new(data: FntData, pages: Vec<Texture>) -> Result<BitmapFont> {
        if pages.len() != data.pages.len() {
            return Err(Error::Font(format!(
                "bitmap font: {} page textures for {} pages",
                pages.len(),
                data.pages.len()
            )));
        }
        let empty = BitmapGlyph {
            page: 0,
            rect: [0; 4],
            offset: [0.0; 2],
            advance: 0.0,
        };
        let mut glyphs = vec![empty];
        let mut by_char = FxHashMap::default();
        for (c, g) in data.glyphs {
            let [_, _, w, h] = pages[g.page as usize].frame_rect();
            let [x, y, gw, gh] = g.rect.map(u32::from);
            if x + gw > w || y + gh > h {
                return Err(Error::Font(format!(
                    "bitmap font: <char> {c:?}: region {x},{y} {gw}x{gh} outside its {w}x{h} page {}",
                    g.page
                )));
            }
            // A repeated id: the last one wins, as in BMFont's readers.
            let index = *by_char.entry(c).or_insert_with(|| {
                glyphs.push(g);
                (glyphs.len() - 1) as u16
            });
            glyphs[index as usize] = g;
        }
        let mut kerning = FxHashMap::default();
        for (a, b, amount) in data.kerning {
            if let (Some(&l), Some(&r)) = (by_char.get(&a), by_char.get(&b)) {
                kerning.insert((l, r), amount);
            }
        }
        Ok(BitmapFont {
            size: data.size,
            line_height: data.line_height,
            base: data.base,
            glyphs,
            by_char,
            kerning,
            pages,
            distance_range: data.distance_field.map(|d| d.range),
        })
    }

    /// Font pixels to `px`.
    pub fn scale(&self, px: f32) -> f32 {
        px / self.size
    }
}

impl super::layout::GlyphSource for BitmapFont {
    fn glyph(&self, c: char) -> u16 {
        self.by_char.get(&c).copied().unwrap_or(0)
    }
    fn advance(&self, glyph: u16, px: f32) -> f32 {
        self.glyphs.get(glyph as usize).map_or(0.0, |g| g.advance) * self.scale(px)
    }
    fn kern(&self, left: u16, right: u16, px: f32) -> f32 {
        self.kerning.get(&(left, right)).copied().unwrap_or(0.0) * self.scale(px)
    }
    fn ascent(&self, px: f32) -> f32 {
        self.base * self.scale(px)
    }
    fn line_height(&self, px: f32) -> f32 {
        self.line_height * self.scale(px)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT_FORM: &str = r#"info face="Test Font" size=-16 bold=0 italic=0 charset="" unicode=1 padding=0,0,0,0 spacing=1,1
common lineHeight=20 base=14 scaleW=64 scaleH=32 pages=2 packed=0
page id=0 file="a.png"
page id=1 file="b c.png"
chars count=2
char id=65 x=0 y=0 width=8 height=10 xoffset=1 yoffset=4 xadvance=9 page=0 chnl=15
char id=66   x=10 y=2 width=6 height=10 xoffset=0 yoffset=4 xadvance=7 page=1 chnl=15
kernings count=1
kerning first=65 second=66 amount=-2
"#;

    const XML_FORM: &str = r#"<?xml version="1.0"?>
<font>
  <info face="Test Font" size="-16" bold="0"/>
  <common lineHeight="20" base="14" scaleW="64" scaleH="32" pages="2"/>
  <pages>
    <page id="0" file="a.png"/>
    <page id="1" file="b c.png"/>
  </pages>
  <chars count="2">
    <char id="65" x="0" y="0" width="8" height="10" xoffset="1" yoffset="4" xadvance="9" page="0"/>
    <char id="66" char=">" x="10" y="2" width="6" height="10" xoffset="0" yoffset="4" xadvance="7" page="1"/>
  </chars>
  <kernings count="1"><kerning first="65" second="66" amount="-2"/></kernings>
</font>"#;

    #[test]
    fn text_and_xml_forms_read_the_same() {
        let a = parse_fnt(TEXT_FORM.as_bytes()).unwrap();
        let b = parse_fnt(XML_FORM.as_bytes()).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.face, "Test Font");
        assert_eq!((a.size, a.line_height, a.base), (16.0, 20.0, 14.0));
        assert_eq!(a.pages, vec!["a.png".to_string(), "b c.png".to_string()]);
        assert_eq!(a.glyphs[1].0, 'B');
        assert_eq!(
            a.glyphs[1].1,
            BitmapGlyph {
                page: 1,
                rect: [10, 2, 6, 10],
                offset: [0.0, 4.0],
                advance: 7.0
            }
        );
        assert_eq!(a.kerning, vec![('A', 'B', -2.0)]);
        assert_eq!(a.distance_field, None);
        let df = XML_FORM.replace(
            "</font>",
            r#"<distanceField fieldType="msdf" distanceRange="4"/></font>"#,
        );
        assert_eq!(
            parse_fnt(df.as_bytes()).unwrap().distance_field,
            Some(DistanceField {
                multi_channel: true,
                range: 4.0
            })
        );
    }

    proptest::proptest! {
        /// A description with bytes changed, cut or repeated parses or is refused, never panics, and a font made
        /// of what parses has every glyph inside its pages and every kerning pair between its glyphs.
        #[test]
        fn mangled_descriptions_never_panic(
            edits in proptest::collection::vec((0usize..2000, proptest::prelude::any::<u8>()), 0..12),
            cut in 0usize..2000,
            xml in proptest::prelude::any::<bool>(),
        ) {
            let mut bytes = if xml { XML_FORM } else { TEXT_FORM }.as_bytes().to_vec();
            for (at, b) in edits {
                let n = bytes.len();
                bytes[at % n] = b;
            }
            bytes.truncate(cut.max(1).min(bytes.len()));
            if let Ok(data) = parse_fnt(&bytes) {
                let n = data.pages.len();
                proptest::prop_assert!(data.glyphs.iter().all(|(_, g)| (g.page as usize) < n));
                proptest::prop_assert!(data.size > 0.0 && data.size.is_finite());
            }
        }
    }

    #[test]
    fn bad_descriptions_are_errors_naming_the_tag() {
        let cases: &[(&str, &str, &str)] = &[
            ("info face", "info size=0", "<info>"),
            ("common lineHeight=20", "common lineHeight=-3", "<common>"),
            (
                "page id=1 file=\"b c.png\"",
                "page id=3 file=\"b.png\"",
                "<page>",
            ),
            ("page id=1 file=\"b c.png\"", "", "<common>"),
            ("char id=65", "char id=1114112", "<char>"),
            ("char id=65", "char id=55296", "<char>"),
            ("char id=65", "char id=x", "<char>"),
            ("width=8", "width=99999", "<char>"),
            ("page=1 chnl", "page=7 chnl", "<char>"),
            ("amount=-2", "amount=1e9", "<kerning>"),
        ];
        for (from, to, names) in cases {
            let bad = if to.is_empty() {
                TEXT_FORM.replace(from, "")
            } else if *from == "info face" {
                TEXT_FORM.replace("info face=\"Test Font\" size=-16", to)
            } else {
                TEXT_FORM.replacen(from, to, 1)
            };
            match parse_fnt(bad.as_bytes()) {
                Err(Error::Font(m)) => assert!(m.contains(names), "{to}: {m}"),
                other => panic!("{to}: {other:?}"),
            }
        }
        assert!(parse_fnt(b"\xff\xfe").is_err());
        assert!(parse_fnt(b"").is_err());
        assert!(parse_fnt(&vec![b' '; MAX_FNT_BYTES + 1]).is_err());
        // A million kerning pairs: refused at the limit, quickly.
        let mut many = TEXT_FORM.to_string();
        for _ in 0..MAX_KERNING_PAIRS + 1 {
            many.push_str("kerning first=65 second=66 amount=1\n");
        }
        let t = std::time::Instant::now();
        assert!(parse_fnt(many.as_bytes()).is_err());
        assert!(t.elapsed().as_secs() < 2);
    }
}
