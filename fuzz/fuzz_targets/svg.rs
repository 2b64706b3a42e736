//! SVG through `GraphicsContext::svg` (a document: input starting with `<`) or `GraphicsContext::svg_path` (path
//! data, filled and stroked), then what `Scene::add` does with a graphics node (`check_complexity`) and, for a
//! context it accepts, the tessellation a frame runs (`stage2d::internals::tessellate` at the 1:1 tolerance).
//! A document that reads is also written back with `to_svg`, which must read again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stage2d::graphics::StrokeStyle;
use stage2d::{Color, GraphicsContext};

fn draw(g: &GraphicsContext) {
    if g.check_complexity().is_ok() {
        let (mesh, _report) = stage2d::internals::tessellate(g, 0.25);
        let n = mesh.positions.len() as u32;
        assert!(
            mesh.indices.iter().all(|&i| i < n),
            "an index past the vertices"
        );
        let _ = mesh.bounds();
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut g = GraphicsContext::new();
    if text.trim_start().starts_with('<') {
        if g.svg(text).is_err() {
            return;
        }
        draw(&g);
        let written = g.to_svg();
        if let Err(e) = GraphicsContext::from_svg(&written) {
            panic!("to_svg wrote a document that does not read: {e}\n{written}");
        }
    } else {
        let Ok(path) = g.svg_path(text) else {
            return;
        };
        path.fill(Color::hex(0x3498db))
            .stroke(StrokeStyle::new(3.0, Color::WHITE));
        draw(&g);
    }
});
