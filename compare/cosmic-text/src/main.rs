//! Lays out the text benchmark's 10,000-character paragraphs (wrapped at 600 pixels, 16 px) with stage2d's shaper
//! and with cosmic-text 0.19 (harfrust), alternating in one run, and prints a JSON line per case:
//! `cargo run --release` here (from `compare/cosmic-text`).

use cosmic_text::{fontdb, Attrs, Buffer, Family, FontSystem, Metrics, Shaping as CosmicShaping};
use stage2d::text::Shaping;
use stage2d::{Font, Text};
use std::time::Instant;

const LATIN: &str = "The quick brown fox jumps over the lazy dog, then naps in the warm afternoon sun. ";
const ARABIC: &str = "مرحبا بالعالم، هذا نص عربي للاختبار في الصباح. ";
const CJK: &str = "你好世界，这是一个用于测试的中文段落。日本語のテキストも表示できます。";

fn paragraph(parts: &[&str], chars: usize) -> String {
    parts.iter().cycle().flat_map(|p| p.chars()).take(chars).collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    // Run from the repository root or from here.
    let assets = if std::path::Path::new("assets/DejaVuSans.ttf").exists() {
        "assets/"
    } else {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/")
    };
    let dejavu_bytes = std::fs::read(format!("{assets}DejaVuSans.ttf")).unwrap();
    let cjk_bytes = std::fs::read(format!("{assets}fonts/DroidSansFallback-Subset.ttf")).unwrap();
    let dejavu = Font::from_bytes(&dejavu_bytes).unwrap();
    let cjk = Font::from_bytes(&cjk_bytes).unwrap();
    let latin = paragraph(&[LATIN], 10_000);
    let mixed = paragraph(&[LATIN, ARABIC, CJK], 10_000);

    let mut db = fontdb::Database::new();
    db.load_font_data(dejavu_bytes.clone());
    db.load_font_data(cjk_bytes.clone());
    let mut fs = FontSystem::new_with_locale_and_db("en-US".into(), db);
    let mut buffer = Buffer::new(&mut fs, Metrics::new(16.0, 19.0));
    buffer.set_size(Some(600.0), None);
    let attrs = Attrs::new().family(Family::Name("DejaVu Sans"));

    let rounds: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(3);
    let names = [
        "latin_stage2d_glyph_by_glyph",
        "latin_stage2d_shaped",
        "latin_cosmic_text",
        "mixed_stage2d_shaped",
        "mixed_cosmic_text",
    ];
    let mut ms: Vec<Vec<f64>> = vec![Vec::new(); names.len()];
    let mut glyphs = [0usize; 5];
    let mut lines = [0usize; 5];
    for _ in 0..rounds {
        for (i, name) in names.iter().enumerate() {
            for _ in 0..20 {
                let text = if name.starts_with("latin") { &latin } else { &mixed };
                let t0 = Instant::now();
                let (g, l) = if name.contains("cosmic") {
                    buffer.set_text(text, &attrs, CosmicShaping::Advanced, None);
                    buffer.shape_until_scroll(&mut fs, false);
                    let runs = buffer.layout_runs();
                    runs.fold((0, 0), |(g, l), r| (g + r.glyphs.len(), l + 1))
                } else {
                    let mut t = Text::new(text.as_str(), &dejavu, 16.0)
                        .wrapped(600.0)
                        .with_fallbacks(&[cjk.clone()]);
                    t.set_shaping(if name.contains("glyph_by_glyph") {
                        Shaping::Simple
                    } else {
                        Shaping::Full
                    });
                    let layout = t.layout();
                    (layout.glyphs.len(), layout.line_widths.len())
                };
                ms[i].push(t0.elapsed().as_secs_f64() * 1e3);
                glyphs[i] = g;
                lines[i] = l;
            }
        }
    }
    let base = median(ms[0].clone());
    for (i, name) in names.iter().enumerate() {
        let m = median(ms[i].clone());
        println!(
            "{{\"scene\":\"{name}\",\"chars\":10000,\"glyphs\":{},\"lines\":{},\"layouts\":{},\"ms_median\":{m:.4},\"glyphs_per_ms\":{:.0},\"vs_latin_glyph_by_glyph\":{:.2}}}",
            glyphs[i],
            lines[i],
            rounds * 20,
            glyphs[i] as f64 / m,
            m / base
        );
    }
}
