//! Text: a title with a gradient fill and a soft shadow, paragraphs at several sizes, alignments, wrapping, a line of Arabic, Chinese and Hindi shaped through a
//! fallback chain, rich text with tagged runs, a live counter, and a label in a multi-channel distance-field bitmap font (Roboto,
//! `assets/fonts/msdf/`) zooming without blurring.
//!
//! `cargo run --release --example text` opens a window; `-- --headless --out text.png` (or no display) writes the
//! picture instead.
//! `cargo run --release --example text -- --headless --bench` runs the text benchmarks, a JSON line each: 1,000
//! text nodes of 20 characters, half of them changing every frame, plain and outlined with a shadow (alternating,
//! twice); then 1,000 texts zooming (their container's
//! scale changing every frame) in the MSDF bitmap font, and the same in the TTF font (rasterised again at the
//! sizes the zoom reaches); then a 10,000-character paragraph of Latin, Arabic and CJK sentences shaped and laid
//! out through a fallback chain, against a Latin paragraph of the same length laid out glyph by glyph (as text
//! was before shaping) and shaped (alternating, `--paragraph-rounds`, 20 layouts each). `--only NAME` runs that scene
//! alone (`text`, `text_styled`, `text_zoom_msdf`, ...), `--only 'PREFIX*'` those whose name starts so.

mod common;
use common::{Flags, Samples};
use stage2d::{
    Align, Color, Font, Node, NodeId, Renderer, RendererOptions, Scene, TagStyle, Text,
    TextGradient, TextShadow,
};
use std::time::Instant;

fn font() -> stage2d::Result<Font> {
    Font::load(common::asset("DejaVuSans.ttf"))
}

const LOREM: &str =
    "stage2d lays out text with kerning, line breaks and word wrap, then draws every glyph as a \
                     textured quad from a shared atlas, in the same batches as sprites and shapes.";

fn page(f: &Font) -> stage2d::Result<(Scene, NodeId)> {
    let mut s = Scene::new();
    let root = s.root();
    s.add(
        root,
        Node::text(
            Text::new("stage2d text", f, 48.0)
                .filled(TextGradient::vertical(
                    Color::hex(0xf9e79f),
                    Color::hex(0xe67e22),
                ))
                .shadowed(TextShadow {
                    distance: 3.0,
                    blur: 2.0,
                    alpha: 0.6,
                    ..Default::default()
                }),
        )
        .at(24.0, 16.0),
    )?;
    let mut y = 90.0;
    for size in [10.0, 12.0, 16.0, 24.0] {
        s.add(
            root,
            Node::text(Text::new(
                format!("{size} px: The quick brown fox jumps over the lazy dog"),
                f,
                size,
            ))
            .at(24.0, y),
        )?;
        y += size * 1.6;
    }
    for (i, align) in [Align::Left, Align::Centre, Align::Right]
        .into_iter()
        .enumerate()
    {
        let t = Text::new(LOREM, f, 14.0)
            .wrapped(230.0)
            .aligned(align)
            .colored(Color::hex(0xecf0f1));
        s.add(root, Node::text(t).at(24.0 + i as f32 * 255.0, 250.0))?;
    }
    // Three scripts and an emoji in one shaped line: the Latin font first, then its fallbacks.
    let fallbacks = [
        Font::load(common::asset("fonts/DroidSansFallback-Subset.ttf"))?,
        Font::load(common::asset("fonts/Lohit-Devanagari-Subset.ttf"))?,
        Font::load(common::asset("fonts/Symbola-Emoji-Subset.ttf"))?,
    ];
    s.add(
        root,
        Node::text(
            Text::new("Shaped: مرحبا بالعالم · 你好世界 · नमस्ते दुनिया 😀", f, 20.0)
                .with_fallbacks(&fallbacks)
                .colored(Color::hex(0xd7bde2)),
        )
        .at(24.0, 196.0),
    )?;
    // Rich text: tagged runs with their own size, colour and spacing, wrapped as one paragraph.
    let rich = Text::rich(
        "<b>Gold</b> x3 · <red>-1 life</red> · press <key>E</key> to open the chest",
        f,
        18.0,
    )
    .with_tag_style("b", TagStyle::new().size(26.0).color(Color::hex(0xf1c40f)))
    .with_tag_style("red", TagStyle::new().color(Color::hex(0xe74c3c)))
    .with_tag_style(
        "key",
        TagStyle::new()
            .color(Color::hex(0x2ecc71))
            .letter_spacing(2.0),
    )
    .stroked(Color::hex(0x1a252f), 3.0);
    s.add(root, Node::text(rich).at(24.0, 400.0))?;
    let counter = s.add(
        root,
        Node::text(
            Text::new("frame 0", f, 32.0)
                .colored(Color::hex(0x2ecc71))
                .anchored(0.5, 0.5),
        )
        .at(400.0, 480.0),
    )?;
    Ok((s, counter))
}

/// A label in the MSDF font, anchored at its centre, under a container the demo zooms.
fn zooming_label(r: &mut Renderer, s: &mut Scene) -> stage2d::Result<NodeId> {
    let msdf = r.load_bitmap_font(common::asset("fonts/msdf/Roboto-Regular.fnt"))?;
    let zoom = s.add(s.root(), Node::container().at(400.0, 550.0))?;
    s.add(
        zoom,
        Node::text(
            Text::new("MSDF: sharp at any scale", &msdf, 24.0)
                .colored(Color::hex(0xe67e22))
                .anchored(0.5, 0.5),
        ),
    )?;
    Ok(zoom)
}

fn bench(flags: &Flags) -> stage2d::Result<()> {
    let f = font()?;
    let (n, frames) = (
        flags.num("--texts", 1000usize),
        flags.num("--frames", 300usize),
    );
    // `--only NAME`: that scene alone (to profile it); `--only PREFIX*` the scenes whose name starts so.
    let only = flags.value("--only").unwrap_or("*");
    let wanted = |name: &str| match only.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => name == only,
    };
    let mut r = Renderer::new_headless(RendererOptions::default())?;
    // Plain, then outlined and shadowed (PixiJS's stroke and dropShadow), alternating twice in one run.
    for styled in [false, true, false, true] {
        if wanted(if styled { "text_styled" } else { "text" }) {
            changing_bench(&mut r, &f, n, frames, styled)?;
        }
    }
    let msdf = r.load_bitmap_font(common::asset("fonts/msdf/Roboto-Regular.fnt"))?;
    for (name, font) in [("text_zoom_msdf", &msdf), ("text_zoom_ttf", &f)] {
        if wanted(name) {
            zoom_bench(&mut r, name, font, n, frames)?;
        }
    }
    if wanted("paragraph_latin_glyph_by_glyph") {
        paragraph_bench(&f, flags.num("--paragraph-rounds", 3usize))?;
    }
    Ok(())
}

const LATIN: &str =
    "The quick brown fox jumps over the lazy dog, then naps in the warm afternoon sun. ";
const ARABIC: &str = "مرحبا بالعالم، هذا نص عربي للاختبار في الصباح. ";
const CJK: &str = "你好世界，这是一个用于测试的中文段落。日本語のテキストも表示できます。";

/// `parts` repeated in turn up to `chars` characters.
fn paragraph(parts: &[&str], chars: usize) -> String {
    parts
        .iter()
        .cycle()
        .flat_map(|p| p.chars())
        .take(chars)
        .collect()
}

/// A 10,000-character paragraph wrapped at 600 pixels: Latin glyph by glyph, Latin shaped, and Latin, Arabic and
/// CJK shaped through a fallback chain; each laid out 20 times a round, the rounds alternating.
fn paragraph_bench(f: &Font, rounds: usize) -> stage2d::Result<()> {
    use stage2d::text::Shaping;
    let cjk = Font::load(common::asset("fonts/DroidSansFallback-Subset.ttf"))?;
    let chars = 10_000;
    let latin = paragraph(&[LATIN], chars);
    let mixed = paragraph(&[LATIN, ARABIC, CJK], chars);
    let mut simple = Text::new(latin.as_str(), f, 16.0).wrapped(600.0);
    simple.set_shaping(Shaping::Simple);
    let mut full = Text::new(latin.as_str(), f, 16.0).wrapped(600.0);
    full.set_shaping(Shaping::Full);
    let mixed = Text::new(mixed.as_str(), f, 16.0)
        .wrapped(600.0)
        .with_fallbacks(&[cjk]);
    let cases = [
        ("paragraph_latin_glyph_by_glyph", &simple),
        ("paragraph_latin_shaped", &full),
        ("paragraph_mixed_shaped", &mixed),
    ];
    let mut samples: Vec<Samples> = cases.iter().map(|_| Samples::default()).collect();
    let mut glyphs = [0usize; 3];
    let mut lines = [0usize; 3];
    for _ in 0..rounds {
        for (i, (_, t)) in cases.iter().enumerate() {
            for _ in 0..20 {
                let t0 = Instant::now();
                let l = std::hint::black_box(t.layout());
                samples[i].push_since(t0);
                glyphs[i] = l.glyphs.len();
                lines[i] = l.line_widths.len();
            }
        }
    }
    let base = samples[0].median();
    for (i, (name, t)) in cases.iter().enumerate() {
        let ms = samples[i].median();
        println!(
            "{{\"scene\":\"{name}\",\"chars\":{chars},\"shaped\":{},\"glyphs\":{},\"lines\":{},\"layouts\":{},\"ms_median\":{ms:.4},\"ms_p95\":{:.4},\"glyphs_per_ms\":{:.0},\"vs_latin_glyph_by_glyph\":{:.2}}}",
            t.is_shaped(),
            glyphs[i],
            lines[i],
            rounds * 20,
            samples[i].percentile(0.95),
            glyphs[i] as f64 / ms,
            ms / base,
        );
    }
    Ok(())
}

/// `n` texts of 20 characters, half of them changing every frame; `styled`: each with an outline and a shadow.
fn changing_bench(
    r: &mut Renderer,
    f: &Font,
    n: usize,
    frames: usize,
    styled: bool,
) -> stage2d::Result<()> {
    let mut s = Scene::new();
    let ids: Vec<NodeId> = (0..n)
        .map(|i| {
            let mut t = Text::new(format!("label {i:05} value 000"), f, 12.0);
            if styled {
                t = t.stroked(Color::BLACK, 2.0).shadowed(stage2d::TextShadow {
                    distance: 2.0,
                    blur: 1.0,
                    ..Default::default()
                });
            }
            s.add(
                s.root(),
                Node::text(t).at((i % 5) as f32 * 160.0, (i / 5 % 50) as f32 * 12.0),
            )
        })
        .collect::<stage2d::Result<_>>()?;
    let target = r.create_render_target(800, 600)?;
    let mut buf = String::new();
    let mut step = |s: &mut Scene, frame: usize| {
        for (i, id) in ids.iter().enumerate().filter(|(i, _)| i % 2 == 0) {
            use std::fmt::Write;
            buf.clear();
            let _ = write!(buf, "label {i:05} value {:03}", (frame + i) % 1000);
            s.get_mut(*id)
                .unwrap()
                .as_text_mut()
                .unwrap()
                .set_text(&buf);
        }
    };
    let (warm, cpu, wall) = run_frames(r, &mut s, &target, frames, &mut step)?;
    let t = r.stats().total;
    let per = |a: u64, b: u64| (a - b) as f64 / frames as f64;
    let info = r.adapter_info();
    println!(
        "{{\"scene\":\"{}\",\"texts\":{n},\"changing\":{},\"chars_each\":20,\"frames\":{frames},\"adapter\":\"{}\",\"backend\":\"{:?}\",\"cpu_ms_median\":{:.4},\"cpu_ms_p95\":{:.4},\"frame_ms_median\":{:.4},\"draw_calls_per_frame\":{},\"text_layouts_per_frame\":{},\"glyph_uploads_per_frame_after_warmup\":{},\"textures_created_after_warmup\":{},\"collect_ms_mean\":{:.4},\"prepare_ms_mean\":{:.4},\"bytes_uploaded_per_frame\":{:.0}}}",
        if styled { "text_styled" } else { "text" },
        n / 2 + n % 2,
        info.name,
        info.backend,
        cpu.median(),
        cpu.percentile(0.95),
        wall.median(),
        per(t.draw_calls, warm.draw_calls),
        per(t.text_layouts, warm.text_layouts),
        per(t.glyph_uploads, warm.glyph_uploads),
        t.textures_created - warm.textures_created,
        per(t.collect_ns, warm.collect_ns) / 1e6,
        per(t.prepare_ns, warm.prepare_ns) / 1e6,
        per(t.bytes_uploaded, warm.bytes_uploaded),
    );
    Ok(())
}

/// Renders 30 frames of `step`, then `frames` measured ones; returns the totals after warm-up and the CPU and
/// whole-frame samples.
fn run_frames(
    r: &mut Renderer,
    s: &mut Scene,
    target: &stage2d::RenderTarget,
    frames: usize,
    mut step: impl FnMut(&mut Scene, usize),
) -> stage2d::Result<(stage2d::FrameStats, Samples, Samples)> {
    for frame in 0..30 {
        step(s, frame);
        r.render(s, target, Some(Color::BLACK))?;
        r.wait_idle()?;
    }
    let warm = r.stats().total;
    let (mut cpu, mut wall) = (Samples::default(), Samples::default());
    for frame in 30..30 + frames {
        let t0 = Instant::now();
        step(s, frame);
        r.render(s, target, Some(Color::BLACK))?;
        cpu.push_since(t0);
        r.wait_idle()?;
        wall.push_since(t0);
    }
    Ok((warm, cpu, wall))
}

/// `n` static texts in `font` under a container whose scale sweeps 0.5..3 and back every 120 frames.
fn zoom_bench(
    r: &mut Renderer,
    name: &str,
    font: &Font,
    n: usize,
    frames: usize,
) -> stage2d::Result<()> {
    let mut s = Scene::new();
    let zoom = s.add(s.root(), Node::container().at(400.0, 300.0))?;
    for i in 0..n {
        let t = Text::new(format!("label {i:05} value 000"), font, 12.0);
        let (x, y) = (
            (i % 5) as f32 * 160.0 - 400.0,
            (i / 5 % 50) as f32 * 12.0 - 300.0,
        );
        s.add(zoom, Node::text(t).at(x, y))?;
    }
    let target = r.create_render_target(800, 600)?;
    let step = |s: &mut Scene, frame: usize| {
        let k = (frame % 120) as f32 / 120.0 * std::f32::consts::TAU;
        let scale = 1.75 - 1.25 * k.cos();
        if let Some(t) = s.transform_mut(zoom) {
            t.scale = stage2d::glam::Vec2::splat(scale);
        }
    };
    let (warm, cpu, _) = run_frames(r, &mut s, &target, frames, step)?;
    let t = r.stats().total;
    let per = |a: u64, b: u64| (a - b) as f64 / frames as f64;
    println!(
        "{{\"scene\":\"{name}\",\"texts\":{n},\"frames\":{frames},\"adapter\":\"{}\",\"cpu_ms_median\":{:.4},\"cpu_ms_p95\":{:.4},\"draw_calls_per_frame\":{},\"glyph_uploads_per_frame\":{},\"text_layouts_per_frame\":{},\"textures_created_after_warmup\":{}}}",
        r.adapter_info().name,
        cpu.median(),
        cpu.percentile(0.95),
        per(t.draw_calls, warm.draw_calls),
        per(t.glyph_uploads, warm.glyph_uploads),
        per(t.text_layouts, warm.text_layouts),
        t.textures_created - warm.textures_created,
    );
    Ok(())
}

struct TextPage {
    scene: Scene,
    counter: NodeId,
    zoom: NodeId,
    frame: u64,
}

impl common::Demo for TextPage {
    fn build(renderer: &mut Renderer) -> stage2d::Result<Self> {
        let (mut scene, counter) = page(&font()?)?;
        let zoom = zooming_label(renderer, &mut scene)?;
        Ok(TextPage {
            scene,
            counter,
            zoom,
            frame: 0,
        })
    }
    fn scene(&self) -> &Scene {
        &self.scene
    }
    fn update(&mut self, _renderer: &mut Renderer, _dt: f32) {
        self.frame += 1;
        if let Some(t) = self
            .scene
            .get_mut(self.counter)
            .and_then(|n| n.as_text_mut())
        {
            t.set_text(&format!("frame {}", self.frame));
        }
        let k = (self.frame % 240) as f32 / 240.0 * std::f32::consts::TAU;
        if let Some(t) = self.scene.transform_mut(self.zoom) {
            t.scale = stage2d::glam::Vec2::splat(1.5 - 0.9 * k.cos());
        }
    }
}

fn main() {
    let flags = Flags::from_env();
    if flags.has("--bench") {
        common::init_logging();
        if let Err(e) = bench(&flags) {
            eprintln!("text: {e}");
            std::process::exit(1);
        }
        return;
    }
    common::show::<TextPage>("text", RendererOptions::default(), Color::hex(0x2c3e50));
}
