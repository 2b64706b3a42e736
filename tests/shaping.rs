//! Shaping: ligatures, marks, Arabic joining, Devanagari reordering, bidirectional lines, CJK line breaks, font
//! fallback chains, hostile strings, and a golden of four scripts drawn through a fallback chain.

mod common;
use common::*;
use stage2d::text::{Align, LayoutStyle, Shaping};
use stage2d::{Color, Font, Node, Scene, TagStyle, Text};
use std::time::{Duration, Instant};

fn asset(name: &str) -> Font {
    Font::load(format!("{}/assets/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn dejavu() -> Font {
    asset("DejaVuSans.ttf")
}
fn cjk() -> Font {
    asset("fonts/DroidSansFallback-Subset.ttf")
}
fn devanagari() -> Font {
    asset("fonts/Lohit-Devanagari-Subset.ttf")
}
fn emoji() -> Font {
    asset("fonts/Symbola-Emoji-Subset.ttf")
}

/// Glyph indices of `s` in `font`, one per character, as a glyph-by-glyph layout looks them up.
fn cmap(font: &Font, s: &str) -> Vec<u16> {
    s.chars()
        .map(|c| font.fontdue().unwrap().lookup_glyph_index(c))
        .collect()
}

#[test]
fn latin_text_is_not_shaped_unless_asked_and_then_gets_its_ligatures() {
    let f = dejavu();
    let mut t = Text::new("office fit", &f, 20.0);
    assert!(!t.is_shaped(), "Latin text is laid out glyph by glyph");
    let plain = t.layout();
    assert_eq!(plain.glyphs.len(), 10);
    t.set_shaping(Shaping::Full);
    assert!(t.is_shaped());
    let shaped = t.layout();
    // DejaVu Sans has "ffi" and "fi" ligatures (its `liga` feature): "office" is o + ffi + c + e.
    assert!(
        shaped.glyphs.len() < plain.glyphs.len(),
        "{} glyphs shaped, {} plain",
        shaped.glyphs.len(),
        plain.glyphs.len()
    );
    // The same advances either way, within a pixel (kerning from GPOS and `kern` agree).
    assert!(
        (shaped.size[0] - plain.size[0]).abs() < 1.0,
        "{:?} {:?}",
        shaped.size,
        plain.size
    );
}

#[test]
fn arabic_joins_and_runs_right_to_left() {
    let f = dejavu();
    let word = "سلام";
    let t = Text::new(word, &f, 24.0);
    assert!(t.is_shaped());
    let l = t.layout();
    // Lam and alef become one ligature: three glyphs for four characters.
    assert_eq!(l.glyphs.len(), 3);
    assert_eq!(l.missing, 0);
    // Joined forms, not the isolated ones the character map gives.
    let isolated = cmap(&f, word);
    let shaped: Vec<u16> = l.glyphs.iter().map(|g| g.glyph).collect();
    // The initial seen and the lam-alef ligature are not the character map's glyphs; the meem, after an alef
    // (which joins on one side only), stays isolated.
    assert!(
        !isolated.contains(&shaped[1]) && !isolated.contains(&shaped[2]),
        "contextual forms: {shaped:?} {isolated:?}"
    );
    assert_eq!(shaped[0], isolated[3]);
    // Visual order: the last character (a final meem) is leftmost, the first (an initial seen) rightmost.
    let xs: Vec<f32> = l.glyphs.iter().map(|g| g.x).collect();
    assert!(xs.windows(2).all(|w| w[1] > w[0]), "{xs:?}");
    // Mixed: Latin left to right, the Arabic word reversed inside it.
    let mixed = Text::new("ab سلام cd", &f, 24.0).layout();
    let order: Vec<u16> = mixed.glyphs.iter().map(|g| g.glyph).collect();
    let a = cmap(&f, "a")[0];
    let d = cmap(&f, "d")[0];
    assert_eq!(order[0], a);
    assert_eq!(*order.last().unwrap(), d);
    assert_eq!(
        &order[3..6],
        &shaped[..],
        "the Arabic run keeps its shapes and visual order"
    );
    // Right alignment of a right-to-left line sits flush right, as any line does.
    let r = Text::new(word, &f, 24.0)
        .wrapped(200.0)
        .aligned(Align::Right)
        .layout();
    let right = r.glyphs.iter().map(|g| g.x).fold(0.0, f32::max);
    assert!(right > 150.0, "{right}");
}

#[test]
fn devanagari_reorders_its_vowel_sign_and_marks_sit_on_their_base() {
    let f = devanagari();
    // क + ि (the i vowel sign is written after ka but drawn before it).
    let l = Text::new("कि", &f, 32.0).layout();
    assert_eq!(l.glyphs.len(), 2);
    let ka = cmap(&f, "क")[0];
    let i_sign = l.glyphs.iter().position(|g| g.glyph != ka).unwrap();
    let ka_at = l.glyphs.iter().position(|g| g.glyph == ka).unwrap();
    assert!(
        l.glyphs[i_sign].x < l.glyphs[ka_at].x,
        "the vowel sign is left of ka: {:?}",
        l.glyphs
    );
    // A conjunct: क्ष (ka, virama, ssa) becomes one glyph.
    assert_eq!(Text::new("क्ष", &f, 32.0).layout().glyphs.len(), 1);
    // A combining acute on x (no precomposed form; DejaVu Sans places it from GPOS) sits over the x, and takes
    // no room of its own.
    let d = dejavu();
    let l = Text::new("x\u{301}y", &d, 32.0).layout();
    let plain = Text::new("xy", &d, 32.0).layout();
    assert_eq!(l.glyphs.len(), 3);
    let (x, mark, y) = (l.glyphs[0], l.glyphs[1], l.glyphs[2]);
    assert!(mark.x < y.x && mark.x >= x.x - 1.0, "{l:?}");
    assert!((y.x - plain.glyphs[1].x).abs() < 0.5, "{l:?} {plain:?}");
    // Precomposed when the font has it: e + acute is é, one glyph.
    assert_eq!(Text::new("e\u{301}", &d, 32.0).layout().glyphs.len(), 1);
}

#[test]
fn fallback_fonts_draw_what_the_first_lacks_and_missing_characters_are_counted() {
    let latin = Font::builtin();
    let text = "Score 你好 😀 नमस्ते";
    let alone = Text::new(text, &latin, 20.0);
    let l = alone.layout();
    assert!(l.missing >= 6, "{}", l.missing);
    let t = Text::new(text, &latin, 20.0).with_fallbacks(&[cjk(), emoji(), devanagari()]);
    assert!(t.is_shaped());
    let l = t.layout();
    assert_eq!(l.missing, 0, "{l:?}");
    let fonts: Vec<u8> = l.glyphs.iter().map(|g| g.font).collect();
    // "Score " in the first font, the ideographs in the CJK font, the emoji in the emoji font, the Hindi in
    // Devanagari (the spaces between keep their neighbour's font).
    assert_eq!(&fonts[..5], &[0; 5]);
    assert!(
        fonts.contains(&1) && fonts.contains(&2) && fonts.contains(&3),
        "{fonts:?}"
    );
    assert_eq!(t.font_at(1), Some(&t.fallbacks()[0]));
    assert!(t.font_at(9).is_none());
    // A character no font has is drawn as the first font's missing glyph and counted.
    let l = Text::new("a\u{10FFFD}b", &latin, 20.0)
        .with_fallbacks(&[cjk()])
        .layout();
    assert_eq!((l.missing, l.glyphs.len()), (1, 3));
}

#[test]
fn cjk_lines_break_between_ideographs_but_not_before_closing_punctuation() {
    let t = Text::new("你好世界，这是一个用于测试的中文段落。", &cjk(), 20.0).wrapped(100.0);
    let l = t.layout();
    assert!(l.line_widths.len() >= 4, "{:?}", l.line_widths);
    assert!(
        l.line_widths.iter().all(|&w| w <= 100.0 + 0.01),
        "{:?}",
        l.line_widths
    );
    // No line starts with the full-width comma or full stop (UAX #14 keeps them with what precedes).
    let comma = cmap(&cjk(), "，")[0];
    let stop = cmap(&cjk(), "。")[0];
    let mut first_of_line = vec![l.glyphs[0].glyph];
    for w in l.glyphs.windows(2) {
        if w[1].baseline != w[0].baseline {
            first_of_line.push(w[1].glyph);
        }
    }
    assert!(
        !first_of_line.contains(&comma) && !first_of_line.contains(&stop),
        "{first_of_line:?}"
    );
}

#[test]
fn hostile_strings_lay_out_in_bounded_time() {
    let f = dejavu();
    // A megabyte of bidi controls, combining marks, Arabic and right-to-left overrides, unbroken.
    let unit = "\u{202E}\u{301}\u{302}ب\u{2067}\u{200F}a\u{64B}\u{64C}\u{2069}\u{202C}";
    let big = unit.repeat(1_000_000 / unit.len());
    for break_words in [false, true] {
        let mut t = Text::new(big.as_str(), &f, 16.0).wrapped(500.0);
        t.set_break_words(break_words);
        let start = Instant::now();
        let l = t.layout();
        let took = start.elapsed();
        assert!(took < Duration::from_secs(5), "{took:?}");
        assert!(!l.glyphs.is_empty());
        assert!(l
            .glyphs
            .iter()
            .all(|g| g.x.is_finite() && g.baseline.is_finite()));
    }
    // Text in a script no font covers: every character counted missing, drawn as missing glyphs.
    let l = Text::new("ᚠᚢᚦᚨᚱᚲ", &Font::builtin(), 16.0)
        .with_fallbacks(&[cjk()])
        .layout();
    assert_eq!(l.missing, 6);
}

#[test]
fn four_scripts_through_a_fallback_chain() {
    let mut r = renderer();
    let chain = [dejavu(), cjk(), devanagari(), emoji()];
    let latin = Font::builtin();
    let mut s = Scene::new();
    let lines = [
        ("Hello, world! ☺ 😀", 0xffffff),
        ("مرحبا بالعالم", 0xffd700),
        ("abc שלום 123 def", 0x80ff80),
        ("你好世界，日本語のテキスト", 0x80c0ff),
        ("नमस्ते दुनिया", 0xff9090),
    ];
    for (i, (line, color)) in lines.iter().enumerate() {
        s.add(
            s.root(),
            Node::text(
                Text::new(*line, &latin, 22.0)
                    .with_fallbacks(&chain)
                    .colored(Color::hex(*color)),
            )
            .at(6.0, 4.0 + 30.0 * i as f32),
        )
        .unwrap();
    }
    // A right-aligned, wrapped bidirectional paragraph.
    s.add(
        s.root(),
        Node::text(
            Text::new("Press ابدأ to start الآن, or 返回", &latin, 16.0)
                .with_fallbacks(&chain)
                .wrapped(150.0)
                .aligned(Align::Right),
        )
        .at(250.0, 6.0),
    )
    .unwrap();
    let img = render(&mut r, &s, 410, 160, Color::hex(0x202040));
    let f = r.stats().last_frame;
    assert_eq!(f.texts, 6);
    assert_eq!(
        f.draw_calls, 1,
        "every script's glyphs share the atlas page"
    );
    golden("shaping_scripts", &img);
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config::with_cases(64))]
    /// Any mix of Latin, Arabic, Hebrew, CJK, marks, digits, spaces, breaks and bidi controls, through a fallback
    /// chain, wrapped or not, each alignment, breaking words or not: finite positions, nothing missing, at most a
    /// glyph a character, and with `break_words` every line within the wrap width (a cluster wider than it aside).
    #[test]
    fn shaped_layouts_stay_finite_and_in_their_block(
        text in "[ab سلام שלום 你好。12\u{301}\u{64B}\u{202E}\u{2067}\u{2069}\n]{0,60}",
        wrap in proptest::option::of(20.0f32..200.0),
        align in 0usize..4,
        break_words: bool,
    ) {
        let fonts = fonts();
        let mut t = Text::new(text.as_str(), &fonts[0], 16.0).with_fallbacks(&fonts[1..]);
        let mut style: LayoutStyle = *t.style();
        style.wrap_width = wrap;
        style.break_words = break_words;
        style.align = [Align::Left, Align::Centre, Align::Right, Align::Justify][align];
        style.shaping = Shaping::Full;
        t.set_style(style);
        let l = t.layout();
        proptest::prop_assert_eq!(l.missing, 0);
        proptest::prop_assert!(l.glyphs.len() <= text.chars().count());
        for g in &l.glyphs {
            proptest::prop_assert!(g.x.is_finite() && g.baseline.is_finite());
        }
        if let (Some(w), true) = (wrap, break_words) {
            for lw in &l.line_widths {
                // One cluster may be wider than the width (a glyph of 16 px against 20 px fits).
                proptest::prop_assert!(*lw <= w.max(40.0) + 1e-3, "{} > {}", lw, w);
            }
        }
    }
}

fn fonts() -> &'static [Font] {
    static FONTS: std::sync::OnceLock<Vec<Font>> = std::sync::OnceLock::new();
    FONTS.get_or_init(|| vec![dejavu(), cjk()])
}

#[test]
fn rich_text_runs_take_their_tags_size_colour_and_font_and_wrap_as_one_paragraph() {
    let regular = Font::builtin();
    let other = dejavu();
    let gold = Color::hex(0xffd700);
    let t = Text::rich("<b>Gold</b> x3 &lt;ok&gt; <i>plain</i>", &regular, 16.0)
        .with_tag_style("b", TagStyle::new().size(32.0).color(gold).font(&other));
    assert_eq!(t.plain_text(), "Gold x3 <ok> <i>plain</i>");
    let l = t.layout();
    assert_eq!(l.runs.len(), 2);
    assert_eq!(l.runs[1].size, 32.0);
    assert_eq!(l.runs[1].color, Some(gold));
    assert_eq!(l.runs[0].color, None, "the text's own colour");
    let runs: Vec<u16> = l.glyphs.iter().map(|g| g.run).collect();
    assert_eq!(&runs[..4], &[1; 4]);
    assert!(runs[4..].iter().all(|&r| r == 0));
    // "Gold" in the tag's font (table index 1: after the text's font), the rest in the text's.
    assert!(l.glyphs[..4].iter().all(|g| g.font == 1));
    assert_eq!(t.font_at(1), Some(&other));
    // One line, its baseline as low as the large run's ascent, as tall as that run.
    let baseline = l.glyphs[0].baseline;
    assert!(l.glyphs.iter().all(|g| g.baseline == baseline));
    let plain = Text::new("Gold", &other, 32.0).layout();
    assert_eq!(baseline, plain.glyphs[0].baseline);
    assert_eq!(l.size[1], plain.size[1]);
    // Wider glyphs: "Gold" at 32 px spans about twice its 16 px width.
    let small = Text::new("Gold", &other, 16.0).layout();
    assert!(l.glyphs[4].x > 1.8 * small.size[0], "{:?}", l.glyphs[4]);
    // Wrapped as one paragraph: runs flow across lines, and a line of only small text is short.
    let mut w = Text::rich(
        "<b>big words</b> then small words after them",
        &regular,
        16.0,
    )
    .with_tag_style("b", TagStyle::new().size(32.0))
    .wrapped(150.0);
    w.set_break_words(true);
    let l = w.layout();
    assert!(l.line_widths.len() >= 3, "{:?}", l.line_widths);
    let lines: Vec<f32> = {
        let mut b: Vec<f32> = l.glyphs.iter().map(|g| g.baseline).collect();
        b.dedup();
        b
    };
    let gaps: Vec<f32> = lines.windows(2).map(|p| p[1] - p[0]).collect();
    assert!(
        gaps[0] > gaps[gaps.len() - 1],
        "a line of large text is taller: {gaps:?}"
    );
    // Removing the tag makes it text.
    let mut t = t;
    t.set_tag_style("b", None);
    assert_eq!(t.plain_text(), "<b>Gold</b> x3 <ok> <i>plain</i>");
}

#[test]
fn rich_text_golden() {
    let mut r = renderer();
    let f = dejavu();
    let mut s = Scene::new();
    let t = Text::rich(
        "<b>Gold</b> x3  <red>-1 life</red>\n<small>Press <key>E</key> to open, <rtl>افتح</rtl> 开</small>",
        &Font::builtin(),
        20.0,
    )
    .with_fallbacks(&[f.clone(), cjk()])
    .with_tag_style("b", TagStyle::new().size(28.0).color(Color::hex(0xffd700)))
    .with_tag_style("red", TagStyle::new().color(Color::hex(0xff5050)))
    .with_tag_style("small", TagStyle::new().size(14.0).color(Color::hex(0xc0c0c0)))
    .with_tag_style("key", TagStyle::new().color(Color::hex(0x80ff80)).letter_spacing(3.0))
    .with_tag_style("rtl", TagStyle::new().font(&f).color(Color::hex(0x80c0ff)));
    s.add(s.root(), Node::text(t).at(6.0, 4.0)).unwrap();
    let img = render(&mut r, &s, 260, 64, Color::hex(0x202040));
    assert_eq!(r.stats().last_frame.draw_calls, 1);
    golden("rich_text", &img);
}

/// A tag's own outline and shadow (PixiJS's tag styles take `stroke` and `dropShadow`): the run inside the tag is
/// outlined in the tag's colour and shadowed, the runs outside keep the text's (none here; then the text's own),
/// and the whole text still draws in one call.
#[test]
fn rich_text_runs_take_their_tags_outline_and_shadow() {
    let mut r = renderer();
    let f = dejavu();
    let red = Color::hex(0xff0000);
    let blue = Color::hex(0x0000ff);
    let tagged = |text_stroke: Option<stage2d::TextStroke>| {
        let mut t = Text::rich("HH<o>HH</o>HH", &f, 30.0).with_tag_style(
            "o",
            TagStyle::new().stroke(stage2d::TextStroke::new(red, 6.0)),
        );
        t.stroke = text_stroke;
        t
    };
    let mut s = Scene::new();
    s.add(s.root(), Node::text(tagged(None)).at(10.0, 5.0))
        .unwrap();
    let green = Color::hex(0x00ff00);
    s.add(
        s.root(),
        Node::text(tagged(Some(stage2d::TextStroke::new(green, 6.0)))).at(10.0, 55.0),
    )
    .unwrap();
    let shadowed = Text::rich("HH<s>HH</s>", &f, 30.0).with_tag_style(
        "s",
        TagStyle::new().shadow(stage2d::TextShadow {
            color: blue,
            distance: 4.0,
            angle: 0.0,
            ..Default::default()
        }),
    );
    s.add(s.root(), Node::text(shadowed).at(10.0, 105.0))
        .unwrap();
    let img = render(&mut r, &s, 220, 150, Color::BLACK);
    assert_eq!(r.stats().last_frame.draw_calls, 1);
    // Which columns hold a colour, within rows `ys`.
    let cols = |ys: std::ops::Range<u32>, want: fn([u8; 4]) -> bool| {
        (0..220)
            .filter(|&x| ys.clone().any(|y| want(px(&img, x, y))))
            .collect::<Vec<u32>>()
    };
    let is_red = |p: [u8; 4]| p[0] > 200 && p[1] < 60 && p[2] < 60;
    let is_green = |p: [u8; 4]| p[1] > 200 && p[0] < 60 && p[2] < 60;
    let is_blue = |p: [u8; 4]| p[2] > 200 && p[0] < 60 && p[1] < 60;
    // First text: red outline only around the middle "HH" (its columns between the outer pairs').
    let red1 = cols(0..50, is_red);
    let white1 = cols(0..50, |p| p == [255, 255, 255, 255]);
    let (lo, hi) = (white1[0], *white1.last().unwrap());
    assert!(!red1.is_empty());
    assert!(
        red1.iter().all(|&x| x > lo + 20 && x < hi - 20),
        "red outline at {red1:?}, text at {lo}..{hi}"
    );
    // Second text: the text's green outline around the outer pairs, the tag's red around the middle.
    let red2 = cols(50..100, is_red);
    let green2 = cols(50..100, is_green);
    assert!(!red2.is_empty() && !green2.is_empty());
    assert!(
        green2.iter().any(|&x| x < red2[0]) && green2.iter().any(|&x| x > *red2.last().unwrap())
    );
    // Third text: a blue shadow only right of the second pair.
    let blue3 = cols(100..150, is_blue);
    let white3 = cols(100..150, |p| p == [255, 255, 255, 255]);
    let mid = (white3[0] + white3.last().unwrap()) / 2;
    assert!(
        !blue3.is_empty() && blue3.iter().all(|&x| x > mid - 4),
        "{blue3:?} mid {mid}"
    );
    golden("rich_text_run_outlines", &img);
}

/// A trimmed rich text's block covers its runs' own outlines and shadows, as the text's own ones: a tag outlining
/// the last letters 8 wide grows the block 4 pixels right (its first letter has none, so nothing on the left); a
/// tag's shadow 5 pixels down grows it 5 down; the same outline as the text's grows it as that does.
#[test]
fn trimmed_rich_text_covers_its_runs_outlines_and_shadows() {
    let f = dejavu();
    let trimmed = |markup: &str, tag: TagStyle| {
        let mut t = Text::rich(markup, &f, 30.0).with_tag_style("o", tag);
        t.set_trim(true);
        t.layout()
    };
    let plain = trimmed("HH<o>HH</o>", TagStyle::new());
    let stroke = stage2d::TextStroke::new(Color::WHITE, 8.0);
    let outlined = trimmed("HH<o>HH</o>", TagStyle::new().stroke(stroke));
    let close = |a: f32, b: f32| (a - b).abs() < 0.01;
    assert!(
        close(outlined.size[0], plain.size[0] + 4.0)
            && close(outlined.size[1], plain.size[1] + 8.0),
        "{:?} against {:?}",
        outlined.size,
        plain.size
    );
    // Its glyphs keep their place on the left: nothing grew there.
    assert!(close(outlined.glyphs[0].x, plain.glyphs[0].x));
    let shadow = stage2d::TextShadow {
        distance: 5.0,
        angle: std::f32::consts::FRAC_PI_2,
        ..Default::default()
    };
    let shadowed = trimmed("HH<o>HH</o>", TagStyle::new().shadow(shadow));
    assert!(
        close(shadowed.size[0], plain.size[0]) && close(shadowed.size[1], plain.size[1] + 5.0),
        "{:?} against {:?}",
        shadowed.size,
        plain.size
    );
    // The whole text in the tag: as if the outline were the text's.
    let all = trimmed("<o>HHHH</o>", TagStyle::new().stroke(stroke));
    let mut own = Text::rich("HHHH", &f, 30.0);
    own.stroke = Some(stroke);
    own.set_trim(true);
    let own = own.layout();
    assert!(close(all.size[0], own.size[0]) && close(all.size[1], own.size[1]));
}
