//! Rich text, pure: markup with named tags (PixiJS's `tagStyles`: `"<b>Gold</b> x3"`) parsed into characters, each
//! with the stack of tags open over it, and the styles of those stacks resolved.

use super::layout::WhiteSpace;
use super::Font;
use crate::Color;

/// What a tag of rich text sets over the text's own style (PixiJS's `tagStyles` entry); unset fields are
/// inherited from the enclosing tag, or the text. A tag nested in another overrides what it sets.
///
/// ```
/// use stage2d::text::TagStyle;
/// use stage2d::{Color, Font, Text};
/// let bold = Font::builtin(); // Font::load("MyFont-Bold.ttf")? in a real game
/// let t = Text::rich("<b>Gold</b> x3, <red>-1 life</red>", &Font::builtin(), 20.0)
///     .with_tag_style("b", TagStyle::new().font(&bold).color(Color::hex(0xffd700)))
///     .with_tag_style("red", TagStyle::new().color(Color::hex(0xff4040)).size(16.0));
/// assert_eq!(t.plain_text(), "Gold x3, -1 life");
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct TagStyle {
    /// Font (its fallbacks are the text's).
    pub font: Option<Font>,
    /// Size in pixels.
    pub size: Option<f32>,
    /// Fill colour (multiplied by the node's tint and alpha).
    pub color: Option<Color>,
    /// Extra space after every character, in pixels.
    pub letter_spacing: Option<f32>,
    /// An outline of the run's own (PixiJS's tag style `stroke`).
    pub stroke: Option<super::TextStroke>,
    /// A shadow of the run's own (PixiJS's tag style `dropShadow`).
    pub shadow: Option<super::TextShadow>,
}

impl TagStyle {
    /// A tag that changes nothing yet.
    pub fn new() -> TagStyle {
        TagStyle::default()
    }
    /// With a font.
    pub fn font(mut self, font: &Font) -> TagStyle {
        self.font = Some(font.clone());
        self
    }
    /// With a size in pixels.
    pub fn size(mut self, size: f32) -> TagStyle {
        self.size = Some(size);
        self
    }
    /// With a fill colour.
    pub fn color(mut self, color: Color) -> TagStyle {
        self.color = Some(color);
        self
    }
    /// With a letter spacing in pixels.
    pub fn letter_spacing(mut self, spacing: f32) -> TagStyle {
        self.letter_spacing = Some(spacing);
        self
    }
    /// With an outline of its own.
    pub fn stroke(mut self, stroke: super::TextStroke) -> TagStyle {
        self.stroke = Some(stroke);
        self
    }
    /// With a shadow of its own.
    pub fn shadow(mut self, shadow: super::TextShadow) -> TagStyle {
        self.shadow = Some(shadow);
        self
    }
}

/// Deepest nesting of tags; a tag opened deeper is kept as text.
pub const MAX_TAG_DEPTH: usize = 32;

/// Most distinct stacks of open tags a text may have; a tag that would make another is kept as text.
pub const MAX_TAG_RUNS: usize = 1024;

/// Markup parsed: each character with the index of the stack of tags open over it (0: none), and the stacks (as
/// indices into the tag list).
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Parsed {
    pub chars: Vec<(char, u16)>,
    pub stacks: Vec<Vec<u16>>,
}

/// Parses `markup`: `<name>` opens and `</name>` closes a tag `tags` names (names of ASCII letters, digits, `-` and
/// `_`; a close also closes the tags opened inside it); `&lt;`, `&gt;` and `&amp;` are `<`, `>` and `&`; anything
/// else, unknown tags and unmatched closes included, is text.
pub(crate) fn parse(markup: &str, tags: &[(String, TagStyle)]) -> Parsed {
    let mut out = Parsed {
        chars: Vec::with_capacity(markup.len()),
        stacks: vec![Vec::new()],
    };
    let mut stack: Vec<u16> = Vec::new();
    let mut known: rustc_hash::FxHashMap<Vec<u16>, usize> = Default::default();
    known.insert(Vec::new(), 0);
    let mut state = 0u16;
    let mut rest = markup;
    let name_of = |s: &str| -> Option<(usize, bool, usize)> {
        // (tag index, closing, bytes the tag spans)
        let close = s.as_bytes().get(1) == Some(&b'/');
        let start = if close { 2 } else { 1 };
        // Names are short: look for the '>' only as far as the longest name reaches.
        let window = &s.as_bytes()[start.min(s.len())..s.len().min(start + 65)];
        let end = window.iter().position(|&b| b == b'>')? + start;
        let name = &s[start..end];
        if name.is_empty()
            || name.len() > 64
            || !name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return None;
        }
        let i = tags.iter().position(|(n, _)| n == name)?;
        Some((i, close, end + 1))
    };
    while let Some(c) = rest.chars().next() {
        if c == '<' {
            if let Some((tag, close, len)) = name_of(rest) {
                let tag = tag as u16;
                let next = if close {
                    stack
                        .iter()
                        .rposition(|&t| t == tag)
                        .map(|at| stack[..at].to_vec())
                } else if stack.len() < MAX_TAG_DEPTH {
                    let mut s = stack.clone();
                    s.push(tag);
                    Some(s)
                } else {
                    None
                };
                if let Some(next) = next {
                    let index = match known.get(&next) {
                        Some(&i) => Some(i),
                        None if out.stacks.len() < MAX_TAG_RUNS => {
                            out.stacks.push(next.clone());
                            known.insert(next.clone(), out.stacks.len() - 1);
                            Some(out.stacks.len() - 1)
                        }
                        None => None,
                    };
                    if let Some(i) = index {
                        stack = next;
                        state = i as u16;
                        rest = &rest[len..];
                        continue;
                    }
                }
            }
        } else if c == '&' {
            let entity = [("&lt;", '<'), ("&gt;", '>'), ("&amp;", '&')]
                .into_iter()
                .find(|(e, _)| rest.starts_with(e));
            if let Some((e, ch)) = entity {
                out.chars.push((ch, state));
                rest = &rest[e.len()..];
                continue;
            }
        }
        out.chars.push((c, state));
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// `chars` with their whitespace collapsed as `mode` says, each kept character keeping its style (as
/// [`super::layout`]'s collapse does for a plain string).
pub(crate) fn collapse(chars: Vec<(char, u16)>, mode: WhiteSpace) -> Vec<(char, u16)> {
    let keep_breaks = match mode {
        WhiteSpace::Pre => return chars,
        WhiteSpace::PreLine => true,
        WhiteSpace::Normal => false,
    };
    let mut out: Vec<(char, u16)> = Vec::with_capacity(chars.len());
    let mut in_space = false;
    for (c, s) in chars {
        if c == '\n' && keep_breaks {
            while out.last().is_some_and(|l| l.0 == ' ') {
                out.pop();
            }
            out.push(('\n', s));
            in_space = true;
        } else if c.is_whitespace() {
            if !in_space {
                out.push((' ', s));
            }
            in_space = true;
        } else {
            out.push((c, s));
            in_space = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags() -> Vec<(String, TagStyle)> {
        vec![
            ("b".into(), TagStyle::new().size(20.0)),
            (
                "red".into(),
                TagStyle::new().color(Color::rgb(1.0, 0.0, 0.0)),
            ),
        ]
    }

    fn text(p: &Parsed) -> String {
        p.chars.iter().map(|c| c.0).collect()
    }

    #[test]
    fn tags_open_nest_and_close() {
        let p = parse("a<b>b<red>c</red>d</b>e", &tags());
        assert_eq!(text(&p), "abcde");
        let states: Vec<u16> = p.chars.iter().map(|c| c.1).collect();
        assert_eq!(p.stacks[states[0] as usize], Vec::<u16>::new());
        assert_eq!(p.stacks[states[1] as usize], vec![0]);
        assert_eq!(p.stacks[states[2] as usize], vec![0, 1]);
        assert_eq!(
            states[3], states[1],
            "back to <b> alone: the same run style"
        );
        assert_eq!(states[4], 0);
        // Closing an outer tag closes the inner ones too.
        let p = parse("<b><red>x</b>y", &tags());
        assert_eq!(p.chars[1].1, 0);
    }

    #[test]
    fn unknown_tags_stray_closes_and_entities_are_text() {
        let p = parse("<i>x</i> </b> a<b c &lt;b&gt; &amp; &nbsp; <>", &tags());
        assert_eq!(text(&p), "<i>x</i> </b> a<b c <b> & &nbsp; <>");
        assert!(p.chars.iter().all(|c| c.1 == 0));
        assert_eq!(p.stacks.len(), 1);
    }

    #[test]
    fn hostile_markup_is_bounded() {
        // Deeper than allowed: the extra opens are text.
        let deep = "<b>".repeat(MAX_TAG_DEPTH + 5) + "x";
        let p = parse(&deep, &tags());
        assert_eq!(text(&p), "<b>".repeat(5) + "x");
        // Many distinct stacks: the ones past the limit are text, and parsing stays linear-ish.
        let many: String = (0..5000).map(|_| "<b><red></b>").collect();
        let t = std::time::Instant::now();
        let p = parse(&many, &tags());
        assert!(p.stacks.len() <= MAX_TAG_RUNS);
        assert!(t.elapsed() < std::time::Duration::from_secs(2));
        // A megabyte of '<' with no '>' after it.
        let lt = "<".repeat(1 << 20);
        let t = std::time::Instant::now();
        let p = parse(&lt, &tags());
        assert_eq!(p.chars.len(), 1 << 20);
        assert!(
            t.elapsed() < std::time::Duration::from_secs(2),
            "{:?}",
            t.elapsed()
        );
    }

    #[test]
    fn collapse_keeps_each_characters_style() {
        let chars: Vec<(char, u16)> = "a  b \n c".chars().zip([0, 0, 1, 1, 1, 1, 2, 2]).collect();
        let pre_line = collapse(chars.clone(), WhiteSpace::PreLine);
        assert_eq!(
            pre_line,
            vec![('a', 0), (' ', 0), ('b', 1), ('\n', 1), ('c', 2)]
        );
        let normal = collapse(chars, WhiteSpace::Normal);
        assert_eq!(
            normal,
            vec![('a', 0), (' ', 0), ('b', 1), (' ', 1), ('c', 2)]
        );
    }
}
