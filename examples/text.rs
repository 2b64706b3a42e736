//! Text: paragraphs at several sizes, alignments, wrapping and a live counter.
//!
//! `cargo run --release --example text` opens a window; `-- --headless --out text.png` (or no display) writes the
//! picture instead.
//! `cargo run --release --example text -- --headless --bench` runs the text benchmark: 1,000 text nodes of 20
//! characters, half of them changing every frame, printing one JSON line.

mod common;
use common::{Flags, Samples};
use stage2d::{Align, Color, Font, Node, NodeId, Renderer, RendererOptions, Scene, Text};
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
        Node::text(Text::new("stage2d text", f, 48.0).colored(Color::hex(0xf1c40f))).at(24.0, 16.0),
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

fn bench(flags: &Flags) -> stage2d::Result<()> {
    let f = font()?;
    let (n, frames) = (
        flags.num("--texts", 1000usize),
        flags.num("--frames", 300usize),
    );
    let mut r = Renderer::new_headless(RendererOptions::default())?;
    let mut s = Scene::new();
    let ids: Vec<NodeId> = (0..n)
        .map(|i| {
            let t = Text::new(format!("label {i:05} value 000"), &f, 12.0);
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
    for frame in 0..30 {
        step(&mut s, frame);
        r.render(&s, &target, Some(Color::BLACK))?;
        r.wait_idle()?;
    }
    let warm = r.stats().total;
    let (mut cpu, mut wall) = (Samples::default(), Samples::default());
    for frame in 30..30 + frames {
        let t0 = Instant::now();
        step(&mut s, frame);
        r.render(&s, &target, Some(Color::BLACK))?;
        cpu.push_since(t0);
        r.wait_idle()?;
        wall.push_since(t0);
    }
    let t = r.stats().total;
    let per = |a: u64, b: u64| (a - b) as f64 / frames as f64;
    let info = r.adapter_info();
    println!(
        "{{\"scene\":\"text\",\"texts\":{n},\"changing\":{},\"chars_each\":20,\"frames\":{frames},\"adapter\":\"{}\",\"backend\":\"{:?}\",\"cpu_ms_median\":{:.4},\"cpu_ms_p95\":{:.4},\"frame_ms_median\":{:.4},\"draw_calls_per_frame\":{},\"text_layouts_per_frame\":{},\"glyph_uploads_per_frame_after_warmup\":{},\"textures_created_after_warmup\":{},\"collect_ms_mean\":{:.4}}}",
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
    );
    Ok(())
}

struct TextPage {
    scene: Scene,
    counter: NodeId,
    frame: u64,
}

impl common::Demo for TextPage {
    fn build(_renderer: &mut Renderer) -> stage2d::Result<Self> {
        let (scene, counter) = page(&font()?)?;
        Ok(TextPage {
            scene,
            counter,
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
