//! Shared helpers for GPU tests: a headless renderer on whatever adapter the environment picks (lavapipe in CI),
//! golden-image comparison with a tolerance, and pixel probes.
//!
//! Goldens live in `tests/golden/NAME.png`. On a mismatch the test writes `NAME.actual.png` and `NAME.diff.png`
//! beside it. `STAGE2D_BLESS=1 cargo test` rewrites the goldens from the current output.
#![allow(dead_code)]

use stage2d::image::{Rgba, RgbaImage};
use stage2d::{Color, Renderer, RendererOptions, Sampling, Scene, Texture};
use std::path::PathBuf;

/// An example binary: `cargo test` builds examples into target/<profile>/examples, beside the test binaries'
/// target/<profile>/deps.
pub fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap();
    dir.join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
}

/// The standard output of a finished example run, after asserting it succeeded (its output in the message if not).
#[track_caller]
pub fn succeeded(run: std::process::Output) -> String {
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        run.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    stdout
}

/// Runs example `name` with no display, `args` and `--out` a temporary PNG; asserts it succeeded and returns what
/// it printed and the picture it wrote.
#[track_caller]
pub fn run_headless(name: &str, args: &[&str]) -> (String, RgbaImage) {
    let bin = example(name);
    assert!(bin.exists(), "{} is built by `cargo test`", bin.display());
    let out = std::env::temp_dir().join(format!("stage2d-{name}-{}.png", std::process::id()));
    let run = std::process::Command::new(bin)
        .args(args)
        .arg("--out")
        .arg(&out)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    let stdout = succeeded(run);
    let img = stage2d::image::open(&out).unwrap().to_rgba8();
    let _ = std::fs::remove_file(&out);
    (stdout, img)
}

/// Whether the GPU tests run with 4x MSAA (`STAGE2D_TEST_MSAA=1`; CI runs them with and without, on Vulkan and
/// on GL). Goldens then compare against `NAME.msaa.png`.
pub fn test_msaa() -> bool {
    std::env::var("STAGE2D_TEST_MSAA").is_ok_and(|v| v == "1")
}

pub fn renderer() -> Renderer {
    renderer_with_msaa(test_msaa())
}

/// A renderer with MSAA pinned on or off, for tests whose probes assume one or the other (exact in-or-out edge
/// pixels, or the switch between the two).
pub fn renderer_with_msaa(on: bool) -> Renderer {
    let _ = env_logger::builder().is_test(true).try_init();
    Renderer::new_headless(RendererOptions::default().with_msaa(on))
        .expect("a GPU adapter (install mesa-vulkan-drivers)")
}

/// Renders `scene` into a fresh `w x h` target cleared to `clear` and reads it back (straight alpha).
pub fn render(r: &mut Renderer, scene: &Scene, w: u32, h: u32, clear: Color) -> RgbaImage {
    let target = r.create_render_target(w, h).unwrap();
    r.render(scene, &target, Some(clear)).unwrap();
    r.read_pixels(&target).unwrap()
}

/// A solid-colour texture of `w x h`.
pub fn solid(r: &mut Renderer, w: u32, h: u32, c: [u8; 4]) -> Texture {
    let px: Vec<u8> = c
        .iter()
        .copied()
        .cycle()
        .take((w * h * 4) as usize)
        .collect();
    r.create_texture(w, h, &px, Sampling::NEAREST).unwrap()
}

/// A `w x h` test card: four coloured quadrants (red, green, blue, yellow) and a white 1-pixel border, so
/// orientation, flips and frames are visible.
pub fn card(r: &mut Renderer, w: u32, h: u32) -> Texture {
    let img = RgbaImage::from_fn(w, h, |x, y| {
        if x == 0 || y == 0 || x == w - 1 || y == h - 1 {
            Rgba([255, 255, 255, 255])
        } else {
            match (x < w / 2, y < h / 2) {
                (true, true) => Rgba([255, 0, 0, 255]),
                (false, true) => Rgba([0, 255, 0, 255]),
                (true, false) => Rgba([0, 0, 255, 255]),
                (false, false) => Rgba([255, 255, 0, 255]),
            }
        }
    });
    r.texture_from_image(&img, Sampling::NEAREST).unwrap()
}

pub fn px(img: &RgbaImage, x: u32, y: u32) -> [u8; 4] {
    img.get_pixel(x, y).0
}

/// Asserts a pixel equals `want` within `tol` per channel.
#[track_caller]
pub fn probe(img: &RgbaImage, x: u32, y: u32, want: [u8; 4], tol: u8) {
    let got = px(img, x, y);
    let ok = got.iter().zip(want).all(|(&g, w)| g.abs_diff(w) <= tol);
    assert!(ok, "pixel ({x},{y}) is {got:?}, expected {want:?} ±{tol}");
}

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Compares `img` with the golden `name`: at most 0.5% of pixels may differ by more than 3 in any channel, and
/// none by more than 64 (edge rasterisation may differ between adapters; content may not).
#[track_caller]
pub fn golden(name: &str, img: &RgbaImage) {
    let dir = golden_dir();
    let name = &match test_msaa() {
        true => format!("{name}.msaa"),
        false => name.to_string(),
    };
    let path = dir.join(format!("{name}.png"));
    if std::env::var_os("STAGE2D_BLESS").is_some() {
        img.save(&path).unwrap();
        return;
    }
    let want = match stage2d::image::open(&path) {
        Ok(i) => i.to_rgba8(),
        Err(e) => {
            img.save(dir.join(format!("{name}.actual.png"))).unwrap();
            panic!(
                "golden {name}: cannot read {}: {e}; run with STAGE2D_BLESS=1 to create it",
                path.display()
            );
        }
    };
    assert_eq!(
        want.dimensions(),
        img.dimensions(),
        "golden {name}: size differs"
    );
    let mut diff = RgbaImage::new(img.width(), img.height());
    let (mut over, mut worst) = (0u32, 0u8);
    for (x, y, p) in img.enumerate_pixels() {
        let q = want.get_pixel(x, y);
        let d =
            p.0.iter()
                .zip(q.0)
                .map(|(&a, b)| a.abs_diff(b))
                .max()
                .unwrap();
        worst = worst.max(d);
        if d > 3 {
            over += 1;
            diff.put_pixel(x, y, Rgba([255, 0, 255, 255]));
        } else {
            let g = p.0[0] / 4 + p.0[1] / 4 + p.0[2] / 4;
            diff.put_pixel(x, y, Rgba([g, g, g, 255]));
        }
    }
    let limit = (img.width() * img.height()) / 200;
    if over > limit || worst > 64 {
        img.save(dir.join(format!("{name}.actual.png"))).unwrap();
        diff.save(dir.join(format!("{name}.diff.png"))).unwrap();
        panic!(
            "golden {name}: {over} pixels differ by more than 3 (limit {limit}), worst {worst}; wrote {name}.actual.png and {name}.diff.png"
        );
    }
}

/// A host program's `size` render attachment of `format` with `samples` samples.
pub fn attachment(
    device: &wgpu::Device,
    format: wgpu::TextureFormat,
    size: (u32, u32),
    samples: u32,
) -> wgpu::TextureView {
    device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some("host attachment"),
            size: wgpu::Extent3d {
                width: size.0,
                height: size.1,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: samples,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        })
        .create_view(&Default::default())
}

/// What a host program does around an embedded frame: begins its own pass on `target` (through a multisampled
/// colour attachment when `samples > 1`) with a cleared `Depth24PlusStencil8` attachment, lets `draw` record into
/// it, and submits.
pub fn host_pass<T>(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    target: &stage2d::RenderTarget,
    samples: u32,
    clear: Color,
    draw: impl FnOnce(&mut wgpu::RenderPass<'_>) -> T,
) -> T {
    let size = (target.width(), target.height());
    let texture = |format, samples| attachment(device, format, size, samples);
    let msaa = (samples > 1).then(|| texture(target.format(), samples));
    let stencil = texture(wgpu::TextureFormat::Depth24PlusStencil8, samples);
    let mut encoder = device.create_command_encoder(&Default::default());
    let target_view = target.view();
    let out = {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: msaa.as_ref().unwrap_or(&target_view),
                depth_slice: None,
                resolve_target: msaa.as_ref().map(|_| &target_view),
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(clear.to_wgpu_premultiplied()),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &stencil,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Discard,
                }),
                stencil_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(0),
                    store: wgpu::StoreOp::Discard,
                }),
            }),
            ..Default::default()
        });
        draw(&mut pass)
    };
    queue.submit([encoder.finish()]);
    out
}

/// PixiJS's visual-test background.
pub const PIXIJS_BACKGROUND: u32 = 0x1099bb;

/// A straight-alpha pixel blended over white, as pixelmatch compares them.
fn blend_white(p: [u8; 4]) -> (f64, f64, f64) {
    let al = p[3] as f64 / 255.0;
    let c = |v: u8| 255.0 + (v as f64 - 255.0) * al;
    (c(p[0]), c(p[1]), c(p[2]))
}

fn yiq_y(r: f64, g: f64, b: f64) -> f64 {
    r * 0.29889531 + g * 0.58662247 + b * 0.11448223
}

/// pixelmatch's colour distance (YIQ, NTSC weights) between two straight-alpha pixels blended over white;
/// with `y_only`, the signed brightness difference.
fn yiq_delta(a: [u8; 4], b: [u8; 4], y_only: bool) -> f64 {
    if a == b {
        return 0.0;
    }
    let (r1, g1, b1) = blend_white(a);
    let (r2, g2, b2) = blend_white(b);
    let dy = yiq_y(r1, g1, b1) - yiq_y(r2, g2, b2);
    if y_only {
        return dy;
    }
    let i = |r: f64, g: f64, b: f64| r * 0.59597799 - g * 0.27417610 - b * 0.32180189;
    let q = |r: f64, g: f64, b: f64| r * 0.21147017 - g * 0.52261711 + b * 0.31114694;
    let di = i(r1, g1, b1) - i(r2, g2, b2);
    let dq = q(r1, g1, b1) - q(r2, g2, b2);
    0.5053 * dy * dy + 0.299 * di * di + 0.1957 * dq * dq
}

/// pixelmatch's `hasManySiblings`: more than two neighbours of (x, y) equal to it.
fn many_siblings(img: &RgbaImage, x: u32, y: u32) -> bool {
    let (w, h) = img.dimensions();
    let (x0, y0, x2, y2) = (
        x.saturating_sub(1),
        y.saturating_sub(1),
        (x + 1).min(w - 1),
        (y + 1).min(h - 1),
    );
    let mut zeroes = u32::from(x == x0 || x == x2 || y == y0 || y == y2);
    let p = img.get_pixel(x, y).0;
    for nx in x0..=x2 {
        for ny in y0..=y2 {
            if (nx, ny) != (x, y) && img.get_pixel(nx, ny).0 == p {
                zeroes += 1;
                if zeroes > 2 {
                    return true;
                }
            }
        }
    }
    false
}

/// pixelmatch's `antialiased`: whether (x, y) of `img` looks like an anti-aliased edge pixel (with `other` the
/// other picture).
fn antialiased(img: &RgbaImage, x: u32, y: u32, other: &RgbaImage) -> bool {
    let (w, h) = img.dimensions();
    let (x0, y0, x2, y2) = (
        x.saturating_sub(1),
        y.saturating_sub(1),
        (x + 1).min(w - 1),
        (y + 1).min(h - 1),
    );
    let mut zeroes = u32::from(x == x0 || x == x2 || y == y0 || y == y2);
    let (mut min, mut max) = (0.0f64, 0.0f64);
    let (mut lo, mut hi) = ((0, 0), (0, 0));
    let p = img.get_pixel(x, y).0;
    for nx in x0..=x2 {
        for ny in y0..=y2 {
            if (nx, ny) == (x, y) {
                continue;
            }
            let d = yiq_delta(p, img.get_pixel(nx, ny).0, true);
            if d == 0.0 {
                zeroes += 1;
                if zeroes > 2 {
                    return false;
                }
            } else if d < min {
                min = d;
                lo = (nx, ny);
            } else if d > max {
                max = d;
                hi = (nx, ny);
            }
        }
    }
    if min == 0.0 || max == 0.0 {
        return false;
    }
    (many_siblings(img, lo.0, lo.1) && many_siblings(other, lo.0, lo.1))
        || (many_siblings(img, hi.0, hi.1) && many_siblings(other, hi.0, hi.1))
}

/// Pixels whose pixelmatch distance passes `threshold`, anti-aliased edge pixels excepted as pixelmatch does
/// by default, with a picture marking them (red) and the excepted ones (yellow).
pub fn pixelmatch(a: &RgbaImage, b: &RgbaImage, threshold: f64) -> (u32, RgbaImage) {
    let max = 35215.0 * threshold * threshold;
    let mut diff = RgbaImage::new(a.width(), a.height());
    let mut n = 0;
    for (x, y, p) in a.enumerate_pixels() {
        let q = b.get_pixel(x, y);
        if yiq_delta(p.0, q.0, false) > max {
            if antialiased(a, x, y, b) || antialiased(b, x, y, a) {
                diff.put_pixel(x, y, Rgba([255, 255, 0, 255]));
            } else {
                n += 1;
                diff.put_pixel(x, y, Rgba([255, 0, 0, 255]));
            }
        } else {
            let g = p.0[0] / 4 + p.0[1] / 4 + p.0[2] / 4 + 64;
            diff.put_pixel(x, y, Rgba([g, g, g, 255]));
        }
    }
    (n, diff)
}

/// Compares a 128x128 render of a ported PixiJS visual-test scene with PixiJS's WebGPU snapshot
/// (`tests/pixijs/snapshots/NAME-webgpu.png`, MIT, see `tests/pixijs/LICENSE`) at PixiJS's measure: pixelmatch
/// threshold 0.2 with its anti-aliasing allowance, at most `limit` differing pixels (PixiJS's default is 100). On failure writes
/// `NAME.actual.png` and `NAME.diff.png` into `tests/pixijs/`.
#[track_caller]
pub fn pixijs(name: &str, img: &RgbaImage, limit: u32) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/pixijs");
    let want = stage2d::image::open(dir.join(format!("snapshots/{name}-webgpu.png")))
        .unwrap()
        .to_rgba8();
    assert_eq!(want.dimensions(), img.dimensions(), "{name}: size differs");
    let (n, diff) = pixelmatch(img, &want, 0.2);
    let suffix = if test_msaa() { ".msaa" } else { "" };
    if std::env::var_os("STAGE2D_PIXIJS_REPORT").is_some() {
        eprintln!("pixijs {name}{suffix}: {n} pixels differ (limit {limit})");
    }
    if n > limit {
        img.save(dir.join(format!("{name}{suffix}.actual.png")))
            .unwrap();
        diff.save(dir.join(format!("{name}{suffix}.diff.png")))
            .unwrap();
        panic!("{name}: {n} pixels differ from PixiJS's snapshot (limit {limit}); wrote {name}{suffix}.actual.png and .diff.png");
    }
}

/// A texture of `tests/pixijs/NAME` (PixiJS's test assets), linearly sampled.
pub fn pixijs_texture(r: &mut Renderer, name: &str) -> Texture {
    let path = format!("{}/tests/pixijs/{name}", env!("CARGO_MANIFEST_DIR"));
    r.load_texture(path, Sampling::LINEAR).unwrap()
}

/// Renders `scene` at 128x128 on PixiJS's background, as PixiJS's visual tests do, once every shape is
/// tessellated (large fills are triangulated off the frame: the first frames draw without them).
pub fn render_pixijs(r: &mut Renderer, scene: &Scene) -> RgbaImage {
    let target = r.create_render_target(128, 128).unwrap();
    let clear = Some(Color::hex(PIXIJS_BACKGROUND));
    r.render(scene, &target, clear).unwrap();
    let t0 = std::time::Instant::now();
    while r.stats().last_frame.tessellations_pending > 0 && t0.elapsed().as_secs() < 30 {
        std::thread::sleep(std::time::Duration::from_millis(5));
        r.render(scene, &target, clear).unwrap();
    }
    r.read_pixels(&target).unwrap()
}

/// Liberation Sans Regular (metric-compatible with Arial; SIL OFL 1.1, `tests/pixijs/fonts/`), standing in for
/// the browser's Arial of PixiJS's canvas-text scenes.
#[cfg(feature = "text")]
pub fn pixijs_arial() -> stage2d::Font {
    stage2d::Font::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/pixijs/fonts/LiberationSans-Regular.ttf"
    ))
    .unwrap()
}

/// PixiJS's `CanvasTextMetrics.measureFont` of `font` at `size` pixels (the ink ascent and descent of `|ÉqÅM`),
/// and how far below the top of a stage2d text its first baseline must move to sit where PixiJS's canvas puts it
/// (stage2d puts it at the font's ascent; negative: up). Returns `(ascent, descent, shift)`.
#[cfg(feature = "text")]
pub fn canvas_metrics(font: &stage2d::Font, size: f32) -> (f32, f32, f32) {
    let face = font.fontdue().unwrap();
    let (mut ascent, mut descent) = (0f32, 0f32);
    for c in "|ÉqÅM".chars() {
        let b = face.metrics(c, size).bounds;
        ascent = ascent.max(b.ymin + b.height);
        descent = descent.max(-b.ymin);
    }
    let shift = ascent - face.horizontal_line_metrics(size).unwrap().ascent;
    (ascent, descent, shift)
}
