//! Text layout, pure: glyphs placed on lines with kerning and letter spacing, lines broken at `\n` and wrapped at
//! a width on whitespace (long words break between characters), and aligned left, centre or right within the
//! block (the wrap width if set, else the widest line).

/// Horizontal alignment of lines within the text block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Align {
    /// Flush left.
    #[default]
    Left,
    /// Centred.
    Centre,
    /// Flush right.
    Right,
    /// Both edges flush: the spaces of each line but a paragraph's last are widened to the block's width (the
    /// wrap width, or the widest line without wrapping), as PixiJS's `justify`.
    Justify,
}

/// How spaces and line breaks in the string are kept (PixiJS's `whiteSpace`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WhiteSpace {
    /// Every space and line break kept (PixiJS's `pre`, its default for text).
    #[default]
    Pre,
    /// Runs of spaces and tabs collapsed to one space, line breaks kept (`pre-line`).
    PreLine,
    /// Runs of whitespace, line breaks included, collapsed to one space (`normal`).
    Normal,
}

/// When a text is shaped (with the `shaping` feature, on by default): its characters split into runs of one font,
/// script and direction, each run shaped from the font's own tables, lines broken by Unicode's rules and put in
/// visual order (right-to-left and bidirectional paragraphs). Glyph-by-glyph layout places each character's glyph
/// with the `kern` table's kerning: cheaper, and the same for Latin, Greek and Cyrillic text in most fonts.
/// Bitmap fonts are always laid out glyph by glyph.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Shaping {
    /// Shaped when the text needs it: a character past Latin, Greek, Cyrillic and common punctuation (combining
    /// marks, Arabic, Hebrew, Indic scripts, CJK, emoji...), or one the text's font lacks and a fallback may have.
    #[default]
    Auto,
    /// Always shaped: Latin ligatures ("fi") and GPOS kerning too.
    Full,
    /// Never shaped: glyph by glyph, the first font only.
    Simple,
}

/// `text` with its whitespace collapsed as `mode` says (borrowed when nothing changes).
pub(crate) fn collapse(text: &str, mode: WhiteSpace) -> std::borrow::Cow<'_, str> {
    let keep_breaks = match mode {
        WhiteSpace::Pre => return std::borrow::Cow::Borrowed(text),
        WhiteSpace::PreLine => true,
        WhiteSpace::Normal => false,
    };
    let mut out = String::with_capacity(text.len());
    let mut in_space = false;
    for c in text.chars() {
        if c == '\n' && keep_breaks {
            // A break ends a run of spaces, which is dropped before it.
            while out.ends_with(' ') {
                out.pop();
            }
            out.push('\n');
            in_space = true;
        } else if c.is_whitespace() {
            if !in_space {
                out.push(' ');
            }
            in_space = true;
        } else {
            out.push(c);
            in_space = false;
        }
    }
    std::borrow::Cow::Owned(out)
}

/// What layout needs to know about a font.
pub trait GlyphSource {
    /// Glyph index of a character (0, the font's "missing" glyph, when absent).
    fn glyph(&self, c: char) -> u16;
    /// Advance width of a glyph at `px`.
    fn advance(&self, glyph: u16, px: f32) -> f32;
    /// Kerning between two glyphs at `px` (added to the left glyph's advance).
    fn kern(&self, left: u16, right: u16, px: f32) -> f32;
    /// Distance from the top of a line to its baseline at `px`.
    fn ascent(&self, px: f32) -> f32;
    /// Default distance between baselines at `px`.
    fn line_height(&self, px: f32) -> f32;
}

/// Layout settings: `LayoutStyle::default()`, then set the fields you need.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct LayoutStyle {
    /// Font size in pixels.
    pub size: f32,
    /// Alignment of lines.
    pub align: Align,
    /// Distance between baselines; `None` uses the font's.
    pub line_height: Option<f32>,
    /// Extra space between lines, in pixels (PixiJS's `leading`).
    pub leading: f32,
    /// Extra space after every character, in pixels.
    pub letter_spacing: f32,
    /// Wrap lines longer than this many pixels.
    pub wrap_width: Option<f32>,
    /// Whether a word longer than the wrap width breaks between its characters (PixiJS's `breakWords`, off by
    /// default as there: the word overflows its line instead). Shaped text also breaks where Unicode allows a
    /// line to (between CJK ideographs, say) either way.
    pub break_words: bool,
    /// How spaces and line breaks are kept.
    pub white_space: WhiteSpace,
    /// When the text is shaped.
    pub shaping: Shaping,
    /// Whether the block is cut to what its glyphs (with their outline and shadow) cover, that box's top-left
    /// at the block's origin (PixiJS's `trim`). Outline fonts only.
    pub trim: bool,
    /// PixiJS's `padding`, in pixels: room PixiJS keeps around a text's canvas so that nothing is cut off. Nothing
    /// is cut off here, and PixiJS's own bounds and placement of canvas text ignore it, so outline-font text draws
    /// as without it; a bitmap-font text is drawn `padding` pixels up and to the left, as PixiJS draws its
    /// `BitmapText`. Non-finite values count as 0.
    pub padding: f32,
}

impl Default for LayoutStyle {
    fn default() -> Self {
        LayoutStyle {
            size: 16.0,
            align: Align::Left,
            line_height: None,
            leading: 0.0,
            letter_spacing: 0.0,
            wrap_width: None,
            break_words: false,
            white_space: WhiteSpace::Pre,
            shaping: Shaping::Auto,
            trim: false,
            padding: 0.0,
        }
    }
}

/// One placed glyph: its pen position on the baseline.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlacedGlyph {
    /// Glyph index.
    pub glyph: u16,
    /// Which font draws it: 0 the text's font, 1 its first fallback, and so on, then its tags' fonts
    /// ([`Text::font_at`](crate::Text::font_at)).
    pub font: u8,
    /// Its run of rich text: an index into [`TextLayout::runs`] (0 for plain text).
    pub run: u16,
    /// x of the glyph's origin, in pixels from the block's left.
    pub x: f32,
    /// y of the glyph's origin, in pixels from the block's top: its line's baseline (moved by the shaper for a
    /// mark placed above or below its base).
    pub baseline: f32,
}

/// A laid-out text block.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TextLayout {
    /// Glyphs, in order (whitespace at line ends included only where it affects nothing visible).
    pub glyphs: Vec<PlacedGlyph>,
    /// Width of each line.
    pub line_widths: Vec<f32>,
    /// Block width and height.
    pub size: [f32; 2],
    /// Characters no font of the text has (drawn as its font's missing glyph, as a browser draws them).
    pub missing: u32,
    /// A rich text's run styles, as its glyphs' [`PlacedGlyph::run`] index them (empty for plain text).
    pub runs: Vec<TextRun>,
}

/// A run style of rich text as laid out: what its glyphs are drawn with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextRun {
    /// Size in pixels.
    pub size: f32,
    /// Fill colour; `None`: the text's.
    pub color: Option<crate::Color>,
    /// Outline; `None`: the text's.
    pub stroke: Option<super::TextStroke>,
    /// Shadow; `None`: the text's.
    pub shadow: Option<super::TextShadow>,
}

struct Line {
    glyphs: Vec<(u16, f32)>, // glyph, pen x
    width: f32,
    /// Whether the line ends a paragraph (justified lines do not).
    last: bool,
}

/// Lays out `text` with `font` and `style`. Non-finite or non-positive sizes give an empty layout; a
/// non-finite letter spacing counts as 0, a non-finite, zero or negative wrap width as no wrapping, a
/// non-finite line height as the font's. Glyphs pushed past the range of `f32` (by an enormous size, spacing
/// or line height) are left out, so every position and the block size are finite.
pub fn layout(font: &impl GlyphSource, text: &str, style: &LayoutStyle) -> TextLayout {
    let px = style.size;
    if !(px.is_finite() && px > 0.0) {
        return TextLayout::default();
    }
    let spacing = if style.letter_spacing.is_finite() {
        style.letter_spacing
    } else {
        0.0
    };
    let wrap = style.wrap_width.filter(|w| w.is_finite() && *w > 0.0);
    let text = collapse(text, style.white_space);
    let mut lines: Vec<Line> = Vec::new();
    for paragraph in text.split('\n') {
        let mut line = Line {
            glyphs: Vec::new(),
            width: 0.0,
            last: false,
        };
        let mut pen = 0.0f32;
        let mut prev: Option<u16> = None;
        // Index in `line.glyphs` just after the last whitespace, for wrapping.
        let mut break_at: Option<usize> = None;
        let chars: Vec<char> = paragraph.chars().collect();
        for &c in &chars {
            let g = font.glyph(c);
            if let Some(p) = prev {
                pen += font.kern(p, g, px);
            }
            let advance = font.advance(g, px) + spacing;
            if let Some(w) = wrap {
                let split = break_at
                    .filter(|&b| b > 0 && b <= line.glyphs.len())
                    .or(style.break_words.then_some(line.glyphs.len()));
                if let Some(split) = split
                    .filter(|_| pen + advance > w && !c.is_whitespace() && !line.glyphs.is_empty())
                {
                    // Wrap: move the word after the last break to a new line (or break the word here).
                    let carried: Vec<u16> = line.glyphs.drain(split..).map(|(g, _)| g).collect();
                    trim_trailing_space(font, &mut line, px, spacing);
                    lines.push(line);
                    line = Line {
                        glyphs: Vec::new(),
                        width: 0.0,
                        last: false,
                    };
                    pen = 0.0;
                    prev = None;
                    for cg in carried {
                        if let Some(p) = prev {
                            pen += font.kern(p, cg, px);
                        }
                        line.glyphs.push((cg, pen));
                        pen += font.advance(cg, px) + spacing;
                        prev = Some(cg);
                    }
                    if let Some(p) = prev {
                        pen += font.kern(p, g, px);
                    }
                    break_at = None;
                }
            }
            line.glyphs.push((g, pen));
            pen += advance;
            line.width = pen;
            if c.is_whitespace() {
                break_at = Some(line.glyphs.len());
            }
            prev = Some(g);
        }
        line.width = pen;
        line.last = true;
        trim_trailing_space(font, &mut line, px, spacing);
        lines.push(line);
    }
    let line_height = style
        .line_height
        .filter(|h| h.is_finite())
        .unwrap_or_else(|| font.line_height(px))
        + leading(style);
    let ascent = font.ascent(px);
    let block_width = wrap.unwrap_or_else(|| lines.iter().map(|l| l.width).fold(0.0, f32::max));
    let mut out = TextLayout::default();
    let space = font.glyph(' ');
    for (i, l) in lines.iter().enumerate() {
        let offset = match style.align {
            Align::Left | Align::Justify => 0.0,
            Align::Centre => (block_width - l.width) / 2.0,
            Align::Right => block_width - l.width,
        };
        // Justified: each space of the line widened by an equal share of what it lacks.
        let spaces = l.glyphs.iter().filter(|g| g.0 == space).count();
        let widen = match style.align {
            Align::Justify if !l.last && spaces > 0 && block_width > l.width => {
                (block_width - l.width) / spaces as f32
            }
            _ => 0.0,
        };
        let baseline = ascent + i as f32 * line_height;
        let mut seen = 0.0;
        out.glyphs.extend(l.glyphs.iter().map(|&(glyph, x)| {
            let g = PlacedGlyph {
                glyph,
                font: 0,
                run: 0,
                x: x + offset + seen * widen,
                baseline,
            };
            if glyph == space {
                seen += 1.0;
            }
            g
        }));
        let width = if widen > 0.0 { block_width } else { l.width };
        out.line_widths.push(width);
    }
    let height = if lines.is_empty() {
        0.0
    } else {
        (lines.len() - 1) as f32 * line_height + font.line_height(px)
    };
    out.glyphs
        .retain(|g| g.x.is_finite() && g.baseline.is_finite());
    out.line_widths.iter_mut().for_each(|w| *w = finite(*w));
    out.size = [finite(block_width), finite(height)];
    out
}

/// The style's leading, 0 if not finite.
pub(crate) fn leading(style: &LayoutStyle) -> f32 {
    if style.leading.is_finite() {
        style.leading
    } else {
        0.0
    }
}

/// `v` if finite, else the nearest finite value (0 for NaN).
pub(crate) fn finite(v: f32) -> f32 {
    if v.is_nan() {
        0.0
    } else {
        v.clamp(f32::MIN, f32::MAX)
    }
}

/// Trailing whitespace does not count towards a line's width (so alignment ignores it).
fn trim_trailing_space(font: &impl GlyphSource, line: &mut Line, px: f32, spacing: f32) {
    let space = font.glyph(' ');
    while let Some(&(g, x)) = line.glyphs.last() {
        if g != space {
            break;
        }
        line.glyphs.pop();
        line.width = x;
    }
    if let Some(&(g, x)) = line.glyphs.last() {
        line.width = line.width.min(x + font.advance(g, px) + spacing).max(x);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A monospace test font: every glyph 10 px wide at size 10 (scales with size); 'A' followed by 'V' kerns by
    /// -2 px; glyph = char code.
    pub struct Mono;
    impl GlyphSource for Mono {
        fn glyph(&self, c: char) -> u16 {
            c as u16
        }
        fn advance(&self, _g: u16, px: f32) -> f32 {
            px
        }
        fn kern(&self, l: u16, r: u16, px: f32) -> f32 {
            if l == 'A' as u16 && r == 'V' as u16 {
                -0.2 * px
            } else {
                0.0
            }
        }
        fn ascent(&self, px: f32) -> f32 {
            px * 0.8
        }
        fn line_height(&self, px: f32) -> f32 {
            px * 1.5
        }
    }

    fn style() -> LayoutStyle {
        LayoutStyle {
            size: 10.0,
            ..Default::default()
        }
    }

    fn xs(l: &TextLayout) -> Vec<f32> {
        l.glyphs.iter().map(|g| g.x).collect()
    }

    #[test]
    fn justified_lines_widen_their_spaces_but_the_last() {
        // Wrapped at 100: "ab cd" (50) / "efgh ij" (70) / "k" (10, a paragraph's last) then "l m" after a break.
        let s = LayoutStyle {
            wrap_width: Some(75.0),
            align: Align::Justify,
            ..style()
        };
        let l = layout(&Mono, "ab cd efgh\nl m", &s);
        assert_eq!(l.line_widths.len(), 3, "{:?}", l.line_widths);
        // Line 1: "ab cd" stretched to 75: its one space widened by 25, so "cd" starts at 30 + 25.
        let line1: Vec<f32> = l
            .glyphs
            .iter()
            .filter(|g| g.baseline == 8.0)
            .map(|g| g.x)
            .collect();
        assert_eq!(line1, vec![0.0, 10.0, 20.0, 55.0, 65.0]);
        assert_eq!(l.line_widths[0], 75.0);
        // "efgh" ends its paragraph: not stretched; "l m" ends the text: not stretched.
        assert_eq!(l.line_widths[1], 40.0);
        assert_eq!(l.line_widths[2], 30.0);
        // A line without spaces is left as it is.
        let l = layout(&Mono, "abcdefghij", &s);
        assert_eq!(xs(&l)[..2], [0.0, 10.0]);
    }

    proptest::proptest! {
        /// Any mix of words, spaces, tabs and breaks, in every alignment and white-space mode, wrapped or not:
        /// finite positions; with a wrap width, justified and other lines stay inside the block (a single glyph
        /// wider than it aside), and each line's glyphs run left to right.
        #[test]
        fn layouts_stay_in_their_block(
            text in "[ab \t\n]{0,40}",
            wrap in proptest::option::of(15.0f32..80.0),
            align in 0usize..4,
            mode in 0usize..3,
        ) {
            let s = LayoutStyle {
                wrap_width: wrap,
                break_words: true,
                align: [Align::Left, Align::Centre, Align::Right, Align::Justify][align],
                white_space: [WhiteSpace::Pre, WhiteSpace::PreLine, WhiteSpace::Normal][mode],
                ..style()
            };
            let l = layout(&Mono, &text, &s);
            for g in &l.glyphs {
                proptest::prop_assert!(g.x.is_finite() && g.baseline.is_finite());
                if g.glyph != ' ' as u16 && g.glyph != '\t' as u16 {
                    if let Some(w) = wrap {
                        proptest::prop_assert!(g.x + 10.0 <= w.max(10.0) + 1e-3, "{g:?} past {w}");
                    }
                }
            }
            for pair in l.glyphs.windows(2) {
                if pair[0].baseline == pair[1].baseline {
                    proptest::prop_assert!(pair[1].x >= pair[0].x);
                }
            }
        }
    }

    #[test]
    fn white_space_modes_collapse_as_pixijs() {
        let text = "a  b\t\tc \n  d\n\ne";
        let count = |mode| {
            let s = LayoutStyle {
                white_space: mode,
                ..style()
            };
            let l = layout(&Mono, text, &s);
            (l.glyphs.len(), l.line_widths.len())
        };
        // pre: everything kept; three breaks make four lines.
        assert_eq!(count(WhiteSpace::Pre).1, 4);
        // pre-line: runs of spaces become one, none at a line's start or end; the breaks (and the empty line) stay.
        assert_eq!(collapse(text, WhiteSpace::PreLine), "a b c\nd\n\ne");
        assert_eq!(count(WhiteSpace::PreLine).1, 4);
        // normal: one line, single spaces.
        assert_eq!(collapse(text, WhiteSpace::Normal), "a b c d e");
        assert_eq!(count(WhiteSpace::Normal), (9, 1));
        assert!(matches!(
            collapse("no change", WhiteSpace::Pre),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn leading_adds_to_the_distance_between_lines() {
        let s = LayoutStyle {
            leading: 5.0,
            ..style()
        };
        let l = layout(&Mono, "a\nb\nc", &s);
        let baselines: Vec<f32> = l.glyphs.iter().map(|g| g.baseline).collect();
        assert_eq!(baselines, vec![8.0, 28.0, 48.0]);
        assert_eq!(l.size[1], 2.0 * 20.0 + 15.0);
        let bad = layout(
            &Mono,
            "a\nb",
            &LayoutStyle {
                leading: f32::NAN,
                ..style()
            },
        );
        assert_eq!(bad.glyphs[1].baseline, 23.0, "a NaN leading is none");
    }

    #[test]
    fn kerning_is_applied() {
        let l = layout(&Mono, "AVA", &style());
        assert_eq!(xs(&l), vec![0.0, 8.0, 18.0]);
        assert_eq!(l.size[0], 28.0);
    }

    #[test]
    fn newlines_break_lines_and_line_height_applies() {
        let l = layout(&Mono, "ab\ncde", &style());
        let baselines: Vec<f32> = l.glyphs.iter().map(|g| g.baseline).collect();
        assert_eq!(baselines, vec![8.0, 8.0, 23.0, 23.0, 23.0]);
        assert_eq!(l.line_widths, vec![20.0, 30.0]);
        assert_eq!(l.size, [30.0, 30.0]);
        let custom = layout(
            &Mono,
            "a\nb",
            &LayoutStyle {
                line_height: Some(40.0),
                ..style()
            },
        );
        assert_eq!(custom.glyphs[1].baseline - custom.glyphs[0].baseline, 40.0);
    }

    #[test]
    fn word_wrap_at_width_on_whitespace() {
        let s = LayoutStyle {
            wrap_width: Some(75.0),
            ..style()
        };
        let l = layout(&Mono, "one two three", &s);
        // "one two" is 70 px; "three" moves down.
        assert_eq!(l.line_widths, vec![70.0, 50.0]);
        assert_eq!(l.glyphs.last().unwrap().baseline, 23.0);
        assert_eq!(l.size[0], 75.0, "the block is the wrap width");
        // A word longer than the width breaks between characters with `break_words`, and overflows its line
        // without (PixiJS's default), the next word still wrapping.
        let long = |break_words| {
            layout(
                &Mono,
                "abcdefghij kl",
                &LayoutStyle {
                    wrap_width: Some(35.0),
                    break_words,
                    ..style()
                },
            )
            .line_widths
        };
        assert_eq!(long(true), vec![30.0, 30.0, 30.0, 10.0, 20.0]);
        assert_eq!(long(false), vec![100.0, 20.0]);
    }

    #[test]
    fn alignment_offsets() {
        for (align, first_x) in [
            (Align::Left, 0.0),
            (Align::Centre, 10.0),
            (Align::Right, 20.0),
        ] {
            let l = layout(&Mono, "ab\nabcd", &LayoutStyle { align, ..style() });
            assert_eq!(l.glyphs[0].x, first_x, "{align:?}");
            assert_eq!(l.glyphs[2].x, 0.0);
        }
        // Trailing spaces do not shift right-aligned text.
        let l = layout(
            &Mono,
            "ab  \nabcd",
            &LayoutStyle {
                align: Align::Right,
                ..style()
            },
        );
        assert_eq!(l.glyphs[0].x, 20.0);
    }

    #[test]
    fn hostile_styles_give_finite_layouts() {
        let long = "a b\tc\r\u{0}d\u{7f}e ".repeat(2000);
        let styles = [
            LayoutStyle {
                letter_spacing: f32::MAX,
                ..style()
            },
            LayoutStyle {
                letter_spacing: f32::NAN,
                line_height: Some(f32::MAX),
                ..style()
            },
            LayoutStyle {
                size: f32::MAX,
                align: Align::Centre,
                ..style()
            },
            LayoutStyle {
                size: 1e30,
                wrap_width: Some(1e-30),
                align: Align::Right,
                ..style()
            },
        ];
        for s in &styles {
            let l = layout(&Mono, &long, s);
            assert!(
                l.glyphs
                    .iter()
                    .all(|g| g.x.is_finite() && g.baseline.is_finite()),
                "{s:?}"
            );
            assert!(
                l.size.iter().chain(&l.line_widths).all(|v| v.is_finite()),
                "{s:?}"
            );
        }
        // The first glyphs of an enormous spacing still land; the ones past f32::MAX are dropped.
        let l = layout(&Mono, "abc", &styles[0]);
        assert_eq!(xs(&l), vec![0.0, f32::MAX]);
        // Wrap widths that are not positive and finite do not wrap; a NaN spacing is no spacing.
        for w in [0.0, -5.0, f32::NAN, f32::INFINITY] {
            let l = layout(
                &Mono,
                "ab cd",
                &LayoutStyle {
                    wrap_width: Some(w),
                    letter_spacing: f32::NAN,
                    ..style()
                },
            );
            assert_eq!(l.line_widths, vec![50.0], "wrap {w}");
        }
    }

    #[test]
    fn letter_spacing_and_empty_and_bad_sizes() {
        let l = layout(
            &Mono,
            "ab",
            &LayoutStyle {
                letter_spacing: 2.0,
                ..style()
            },
        );
        assert_eq!(xs(&l), vec![0.0, 12.0]);
        assert_eq!(l.size[0], 24.0);
        let e = layout(&Mono, "", &style());
        assert!(e.glyphs.is_empty());
        assert_eq!(e.size[0], 0.0);
        for bad in [0.0, -3.0, f32::NAN, f32::INFINITY] {
            let l = layout(
                &Mono,
                "abc",
                &LayoutStyle {
                    size: bad,
                    ..style()
                },
            );
            assert!(l.glyphs.is_empty());
        }
    }
}
