//! SVG documents in and out of a [`GraphicsContext`] (PixiJS's `Graphics.svg` and `graphicsContextToSvg`).
//!
//! Reading goes through usvg, which resolves CSS, `use`, units, `objectBoundingBox` gradients, basic shapes and
//! nested transforms into a tree of paths; each visible path becomes a fill and a stroke here, with its absolute
//! transform, its fill rule, its colours or gradients, and its opacity times its groups'. What a graphics context
//! cannot hold (images, text, patterns, clip paths, masks, filters) is skipped or drawn without, and counted in
//! the [`SvgReport`]. Untrusted documents are bounded before usvg sees them: size ([`MAX_SVG_BYTES`]), element
//! nesting ([`MAX_SVG_DEPTH`]), no compressed (`svgz`) input, and no reference outside the document (image and
//! file references are refused).
//!
//! Writing gives a standalone SVG document of the context's fills and strokes: paths (arcs as cubic curves),
//! colours and opacities, fill rules, holes (as even-odd subpaths), stroke widths, joins and caps, and gradients
//! in `<defs>`.

use super::context::{GraphicsContext, Instruction};
use super::gradient::{FillGradient, GradientKind, GradientWrap, TextureSpace};
use super::path::PathCommand;
use super::style::{FillPattern, FillRule, FillStyle, LineCap, LineJoin, StrokeStyle};
use crate::{Color, Error, Result};
use glam::{Affine2, Vec2};
use std::fmt::Write;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// Largest SVG document read, in bytes (32 MiB).
pub const MAX_SVG_BYTES: usize = 32 << 20;

/// Deepest element nesting read: a document nested deeper is refused before it is parsed (the parser and the
/// tree it builds recurse once a level).
pub const MAX_SVG_DEPTH: usize = 256;

/// Most XML nodes (elements, text, attributes' parts) a document may hold: more is refused by the parser.
const MAX_SVG_NODES: u32 = 4_000_000;

/// What reading an SVG document found and left out.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SvgReport {
    /// The document's size (its `width` and `height`, or its view box's).
    pub size: Vec2,
    /// From the document's user coordinates (what the context holds) to its `size`: the root's `viewBox`
    /// mapping, as a browser draws the document as an image.
    pub view_box: Affine2,
    /// Paths added (each a fill, a stroke, or both).
    pub paths: u32,
    /// Images (and, in a build without text, text elements) skipped: a graphics context holds neither.
    pub skipped_elements: u32,
    /// Fills and strokes with a pattern paint, skipped.
    pub skipped_paints: u32,
    /// Groups whose clip path, mask or filter was ignored (their content is drawn without it).
    pub ignored_effects: u32,
    /// Gradients with more stops than [`MAX_FILL_GRADIENT_STOPS`](super::gradient::MAX_FILL_GRADIENT_STOPS)
    /// (the rest dropped) or a reflected spread (drawn repeating).
    pub approximated_gradients: u32,
}

/// Refuses what must not reach the parser: too large, compressed, or nested too deep.
fn check_document(svg: &str) -> Result<()> {
    if svg.len() > MAX_SVG_BYTES {
        return Err(Error::InvalidSvg(format!(
            "{} bytes, more than MAX_SVG_BYTES ({MAX_SVG_BYTES})",
            svg.len()
        )));
    }
    let bytes = svg.as_bytes();
    let (mut depth, mut i) = (0usize, 0usize);
    while let Some(k) = bytes[i..].iter().position(|&b| b == b'<') {
        i += k + 1;
        let rest = &bytes[i..];
        let skip_to = |end: &[u8]| {
            rest.windows(end.len())
                .position(|w| w == end)
                .map(|p| p + end.len())
        };
        match rest.first() {
            Some(b'!') if rest.starts_with(b"!--") => i += skip_to(b"-->").unwrap_or(rest.len()),
            Some(b'!') if rest.starts_with(b"![CDATA[") => {
                i += skip_to(b"]]>").unwrap_or(rest.len())
            }
            Some(b'!') | Some(b'?') => {}
            Some(b'/') => depth = depth.saturating_sub(1),
            Some(_) => {
                // An element: nested unless it closes itself.
                let end = rest.iter().position(|&b| b == b'>').unwrap_or(rest.len());
                if end == 0 || rest[end - 1] != b'/' {
                    depth += 1;
                    if depth > MAX_SVG_DEPTH {
                        return Err(Error::InvalidSvg(format!(
                            "elements nested more than MAX_SVG_DEPTH ({MAX_SVG_DEPTH}) deep"
                        )));
                    }
                }
                i += end;
            }
            None => break,
        }
    }
    Ok(())
}

/// Attributes whose numbers usvg turns from `f64` into `f32` and then asserts finite (in debug builds): a stop's
/// offset, a saturating colour matrix's values, a stroke's miter limit (also set in `style` and style sheets).
const F32_ASSERTED: [&str; 4] = ["offset", "values", "stroke-miterlimit", "style"];

/// Refuses a number past `f32`'s range where usvg would assert on it (see [`F32_ASSERTED`]), in those attributes
/// and in `<style>` sheets.
fn check_numbers(doc: &usvg::roxmltree::Document) -> Result<()> {
    for node in doc.descendants() {
        let in_sheet = node.is_text() && node.parent().is_some_and(|p| p.has_tag_name("style"));
        let sheet = in_sheet.then(|| ("<style>", node.text().unwrap_or("")));
        let attributes = node
            .attributes()
            .filter(|a| F32_ASSERTED.contains(&a.name()))
            .map(|a| (a.name(), a.value()));
        for (name, value) in attributes.chain(sheet) {
            if let Some(n) = number_past_f32(value) {
                return Err(Error::InvalidSvg(format!(
                    "{name} holds {n}, a number past f32's range"
                )));
            }
        }
    }
    Ok(())
}

/// The first number in `s` (digits, a fraction, an exponent) too large for an `f32`.
fn number_past_f32(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    let digits = |mut i: usize| {
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let mut i = 0;
    while i < b.len() {
        let starts =
            b[i].is_ascii_digit() || (b[i] == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit));
        if !starts {
            i += 1;
            continue;
        }
        let start = i;
        i = digits(i);
        if b.get(i) == Some(&b'.') {
            i = digits(i + 1);
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            let sign = usize::from(matches!(b.get(i + 1), Some(b'+' | b'-')));
            if b.get(i + 1 + sign).is_some_and(u8::is_ascii_digit) {
                i = digits(i + 1 + sign);
            }
        }
        let n = &s[start..i];
        if n.parse::<f64>().is_ok_and(|v| !(v as f32).is_finite()) {
            return Some(n);
        }
    }
    None
}

/// Refuses path data with an arc whose radius, stated or needed to reach its end, is past
/// `MAX_SHAPE_COORDINATE` (1e9) (where shapes are not drawn anyway): usvg
/// turns an arc into cubic curves, more the larger its radius (millions past 1e35), taking each off the front of a
/// `Vec`, which hung on one arc 1e38 long.
fn check_arcs(doc: &usvg::roxmltree::Document) -> Result<()> {
    let max = super::tessellate::MAX_SHAPE_COORDINATE;
    for node in doc.descendants().filter(|n| n.has_tag_name("path")) {
        if node.attribute("d").is_some_and(|d| arc_past(d, max)) {
            return Err(Error::InvalidSvg(format!(
                "a path's arc has a radius past {max} (stated, or to reach its end)"
            )));
        }
    }
    Ok(())
}

/// Whether an arc of path data `d` needs a radius past `max`. Read as usvg reads it, up to the first error. The
/// current point is bounded from above (an absolute coordinate raises the bound, a relative one adds to it), so an
/// arc is refused only if its radius or that bound is past `max`.
fn arc_past(d: &str, max: f32) -> bool {
    use super::svg_path::{arity, number};
    let b = d.as_bytes();
    let (mut i, mut reach, mut last) = (0usize, 0.0f32, None::<u8>);
    let mut args = [0.0f32; 7];
    let skip = |i: &mut usize| {
        while b
            .get(*i)
            .is_some_and(|c| c.is_ascii_whitespace() || *c == b',')
        {
            *i += 1;
        }
    };
    loop {
        skip(&mut i);
        let Some(&c) = b.get(i) else {
            return false;
        };
        let cmd = match (c.is_ascii_alphabetic(), last) {
            (true, _) if arity(c).is_some() => {
                i += 1;
                c
            }
            (false, Some(b'M')) => b'L',
            (false, Some(b'm')) => b'l',
            (false, Some(l)) if !l.eq_ignore_ascii_case(&b'Z') => l,
            _ => return false,
        };
        last = Some(cmd);
        let arc = cmd.eq_ignore_ascii_case(&b'A');
        let n = arity(cmd).unwrap_or(0);
        for (k, arg) in args.iter_mut().enumerate().take(n) {
            skip(&mut i);
            let (v, len) = match (arc && (k == 3 || k == 4), b.get(i)) {
                (true, Some(f @ (b'0' | b'1'))) => (f32::from(f - b'0'), 1),
                (true, _) => return false,
                (false, _) => match number(&b[i..]) {
                    Some(n) => n,
                    None => return false,
                },
            };
            *arg = v;
            i += len;
        }
        // The end point's coordinates (an arc's last two numbers; all of a curve's, controls included).
        let coords = if arc { &args[5..7] } else { &args[..n] };
        let step = coords.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        reach = match cmd.is_ascii_uppercase() {
            true => reach.max(step),
            false => reach + step,
        };
        let radius = args[0].abs().max(args[1].abs());
        let span = radius.max(reach * std::f32::consts::SQRT_2);
        if arc && (span.is_nan() || span > max) {
            return true;
        }
    }
}

/// usvg's options: images counted in `images` and dropped (a graphics context draws none), and references
/// outside the document refused.
fn options(images: &Arc<AtomicU32>) -> usvg::Options<'static> {
    let (data, string) = (images.clone(), images.clone());
    let image_href_resolver = usvg::ImageHrefResolver {
        resolve_data: Box::new(move |_, _, _| {
            data.fetch_add(1, Ordering::Relaxed);
            None
        }),
        resolve_string: Box::new(move |href, _| {
            log::warn!(
                "an SVG document refers to {href:?}: references outside the document are not read"
            );
            string.fetch_add(1, Ordering::Relaxed);
            None
        }),
    };
    usvg::Options {
        resources_dir: None,
        image_href_resolver,
        ..Default::default()
    }
}

fn affine(t: usvg::Transform) -> Affine2 {
    Affine2::from_cols_array(&[t.sx, t.ky, t.kx, t.sy, t.tx, t.ty])
}

fn color(c: usvg::Color, alpha: f32) -> Color {
    Color::rgba8(
        c.red,
        c.green,
        c.blue,
        (alpha.clamp(0.0, 1.0) * 255.0).round() as u8,
    )
}

/// A usvg paint as a fill style of `opacity`: a colour, or a gradient in the path's space. `None` for a pattern.
fn paint(p: &usvg::Paint, opacity: f32, report: &mut SvgReport) -> Option<FillStyle> {
    let gradient = |base: &usvg::BaseGradient, kind: GradientKind, report: &mut SvgReport| {
        let stops: Vec<(f32, Color)> = base
            .stops()
            .iter()
            .map(|s| (s.offset().get(), color(s.color(), s.opacity().get())))
            .collect();
        if stops.len() > super::gradient::MAX_FILL_GRADIENT_STOPS
            || base.spread_method() == usvg::SpreadMethod::Reflect
        {
            report.approximated_gradients += 1;
        }
        let mut g =
            FillGradient::linear(Vec2::ZERO, Vec2::X, &stops).in_space(TextureSpace::Global);
        g.kind = kind;
        if base.spread_method() != usvg::SpreadMethod::Pad {
            g = g.repeating();
        }
        g.placed = affine(base.transform());
        FillStyle::from(g).with_color(Color::rgba(1.0, 1.0, 1.0, opacity.clamp(0.0, 1.0)))
    };
    Some(match p {
        usvg::Paint::Color(c) => FillStyle::from(color(*c, opacity)),
        usvg::Paint::LinearGradient(l) => gradient(
            l,
            GradientKind::Linear {
                start: Vec2::new(l.x1(), l.y1()),
                end: Vec2::new(l.x2(), l.y2()),
            },
            report,
        ),
        usvg::Paint::RadialGradient(r) => gradient(
            r,
            GradientKind::Radial(super::gradient::RadialGradient {
                center: Vec2::new(r.fx(), r.fy()),
                inner_radius: 0.0,
                outer_center: Vec2::new(r.cx(), r.cy()),
                outer_radius: r.r().get(),
                rotation: 0.0,
                scale: 1.0,
            }),
            report,
        ),
        usvg::Paint::Pattern(_) => {
            report.skipped_paints += 1;
            return None;
        }
    })
}

impl GraphicsContext {
    /// A context holding SVG document `svg` (see [`GraphicsContext::svg`]).
    pub fn from_svg(svg: &str) -> Result<GraphicsContext> {
        let mut g = GraphicsContext::new();
        g.svg(svg)?;
        Ok(g)
    }

    /// Adds SVG document `svg` (PixiJS's `Graphics.svg`): its paths, basic shapes and `use`d elements, with
    /// their groups' transforms (after this context's own), fill and stroke colours, gradients, fill rules and
    /// opacities, in document order. As in PixiJS, shapes keep the document's user coordinates: the root's
    /// `viewBox`, `width` and `height` do not move or scale them. What a context cannot draw is left out and counted in the report (see
    /// [`SvgReport`]). A document that does not parse, or is too large or too deeply nested
    /// ([`MAX_SVG_BYTES`], [`MAX_SVG_DEPTH`]), or gives a gradient stop's offset, a colour matrix's values or a
    /// miter limit a number past `f32`'s range, or has a path arc of a radius past
    /// `MAX_SHAPE_COORDINATE` (1e9), is [`Error::InvalidSvg`] and adds
    /// nothing.
    ///
    /// ```
    /// # use stage2d::GraphicsContext;
    /// let mut g = GraphicsContext::new();
    /// let report = g.svg(r##"<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64">
    ///     <g transform="translate(32 32)">
    ///         <circle r="24" fill="#e74c3c" stroke="white" stroke-width="4"/>
    ///     </g>
    /// </svg>"##)?;
    /// assert_eq!(report.paths, 1);
    /// # Ok::<(), stage2d::Error>(())
    /// ```
    pub fn svg(&mut self, svg: &str) -> Result<SvgReport> {
        check_document(svg)?;
        let xml = usvg::roxmltree::ParsingOptions {
            allow_dtd: true,
            nodes_limit: MAX_SVG_NODES,
        };
        let doc = usvg::roxmltree::Document::parse_with_options(svg, xml)
            .map_err(|e| Error::InvalidSvg(e.to_string()))?;
        check_numbers(&doc)?;
        check_arcs(&doc)?;
        let view_box: Option<Vec<f32>> = doc.root_element().attribute("viewBox").map(|v| {
            v.split(|c: char| c == ',' || c.is_whitespace())
                .filter(|t| !t.is_empty())
                .filter_map(|t| t.parse().ok())
                .collect()
        });
        let images = Arc::new(AtomicU32::new(0));
        let tree = usvg::Tree::from_xmltree(&doc, &options(&images))
            .map_err(|e| Error::InvalidSvg(e.to_string()))?;
        // usvg maps the view box onto the document's size through a group of its own, unless that is no change.
        let size = tree.size();
        let wrapped = match view_box.as_deref() {
            Some(&[x, y, w, h]) => {
                (x, y, w - size.width(), h - size.height()) != (0.0, 0.0, 0.0, 0.0)
            }
            _ => false,
        };
        let mut report = SvgReport {
            skipped_elements: images.load(Ordering::Relaxed),
            ..Default::default()
        };
        // The walk sets each path's transform; the context's own is put back after (not through save/restore,
        // whose stack a caller may have filled).
        let outer = self.get_transform();
        // As PixiJS reads documents: in their own user coordinates, the root's view box not applied (usvg puts it
        // in a group of its own around the document).
        report.size = Vec2::new(size.width(), size.height());
        let (root, base) = match tree.root().children() {
            [usvg::Node::Group(g)] if wrapped && g.id().is_empty() => {
                let t = affine(g.abs_transform());
                let undo = super::gradient::inverse_or_identity(t);
                report.view_box = t;
                (g.as_ref(), outer * undo)
            }
            _ => (tree.root(), outer),
        };
        walk(self, root, base, 1.0, &mut report);
        self.set_transform(outer);
        Ok(report)
    }

    /// This context as a standalone SVG document (PixiJS's `graphicsContextToSvg`): its fills and strokes in
    /// order, arcs written as cubic curves, holes as even-odd subpaths, gradients in `<defs>`; texture fills are
    /// written as their colour (an SVG document has no texture to refer to). The view box is the context's
    /// bounds grown by the widest stroke.
    pub fn to_svg(&self) -> String {
        let mut body = String::new();
        let mut defs = String::new();
        let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
        let mut pad = 0.0f32;
        for (n, ins) in self.instructions().iter().enumerate() {
            let (path, holes) = match ins {
                Instruction::Fill { path, holes, .. } | Instruction::Stroke { path, holes, .. } => {
                    (path, holes)
                }
            };
            let mut d = String::new();
            for c in path.commands().iter().chain(holes.commands()) {
                write_command(&mut d, c, &mut lo, &mut hi);
            }
            if d.is_empty() {
                continue;
            }
            match ins {
                Instruction::Fill { style, holes, .. } => {
                    let rule = match (style.fill_rule, holes.commands().is_empty()) {
                        (FillRule::NonZero, true) => "",
                        _ => " fill-rule=\"evenodd\"",
                    };
                    let fill = paint_attr(
                        &mut defs,
                        n,
                        style.color,
                        style.gradient,
                        style.pattern,
                        "fill",
                    );
                    let _ = writeln!(body, "  <path d=\"{}\"{fill}{rule}/>", d.trim_end());
                }
                Instruction::Stroke { style, .. } => {
                    pad = pad.max(style.width);
                    let _ = writeln!(
                        body,
                        "  <path d=\"{}\" fill=\"none\"{}/>",
                        d.trim_end(),
                        stroke_attrs(&mut defs, n, style)
                    );
                }
            }
        }
        let (lo, hi) = match lo.x <= hi.x {
            true => (lo - pad, hi + pad),
            false => (Vec2::ZERO, Vec2::ONE),
        };
        // An extent `num` would write as 0 (a flat shape) or not at all (past f32) is a size SVG readers refuse.
        let size = (hi - lo).map(|s| if s.is_finite() { s.max(0.001) } else { 1.0 });
        let mut out = String::new();
        let _ = writeln!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"{} {} {} {}\">",
            num(size.x),
            num(size.y),
            num(lo.x),
            num(lo.y),
            num(size.x),
            num(size.y)
        );
        if !defs.is_empty() {
            let _ = write!(out, "  <defs>\n{defs}  </defs>\n");
        }
        out.push_str(&body);
        out.push_str("</svg>\n");
        out
    }
}

/// Adds `group`'s visible paths to `g` under `transform`, at `opacity` (the groups' above multiplied).
fn walk(
    g: &mut GraphicsContext,
    group: &usvg::Group,
    outer: Affine2,
    opacity: f32,
    report: &mut SvgReport,
) {
    for node in group.children() {
        match node {
            usvg::Node::Group(inner) => {
                if inner.clip_path().is_some()
                    || inner.mask().is_some()
                    || !inner.filters().is_empty()
                {
                    report.ignored_effects += 1;
                }
                walk(g, inner, outer, opacity * inner.opacity().get(), report);
            }
            usvg::Node::Path(p) if p.is_visible() => {
                report.paths += 1;
                let t = outer * affine(p.abs_transform());
                g.set_transform(t);
                // The context's transform moves points, not stroke widths: the width is scaled here (by the
                // transform's mean scale; a stroke under a non-uniform scale keeps one width).
                let width_scale = t.matrix2.determinant().abs().sqrt();
                let fill = p.fill().and_then(|f| {
                    let mut style = paint(f.paint(), opacity * f.opacity().get(), report)?;
                    style.fill_rule = match f.rule() {
                        usvg::FillRule::NonZero => FillRule::NonZero,
                        usvg::FillRule::EvenOdd => FillRule::EvenOdd,
                    };
                    Some(style)
                });
                let stroke = p.stroke().and_then(|s| {
                    let look = paint(s.paint(), opacity * s.opacity().get(), report)?;
                    Some(StrokeStyle {
                        width: s.width().get() * width_scale,
                        color: look.color,
                        gradient: look.gradient,
                        join: match s.linejoin() {
                            usvg::LineJoin::Round => LineJoin::Round,
                            usvg::LineJoin::Bevel => LineJoin::Bevel,
                            usvg::LineJoin::Miter | usvg::LineJoin::MiterClip => LineJoin::Miter,
                        },
                        cap: match s.linecap() {
                            usvg::LineCap::Butt => LineCap::Butt,
                            usvg::LineCap::Round => LineCap::Round,
                            usvg::LineCap::Square => LineCap::Square,
                        },
                        miter_limit: s.miterlimit().get(),
                        ..Default::default()
                    })
                });
                if fill.is_none() && stroke.is_none() {
                    continue;
                }
                for seg in p.data().segments() {
                    use usvg::tiny_skia_path::PathSegment as S;
                    match seg {
                        S::MoveTo(a) => g.move_to(a.x, a.y),
                        S::LineTo(a) => g.line_to(a.x, a.y),
                        S::QuadTo(c, a) => g.quadratic_curve_to(c.x, c.y, a.x, a.y),
                        S::CubicTo(c1, c2, a) => {
                            g.bezier_curve_to(c1.x, c1.y, c2.x, c2.y, a.x, a.y)
                        }
                        S::Close => g.close_path(),
                    };
                }
                let stroke_first = p.paint_order() == usvg::PaintOrder::StrokeAndFill;
                if let (Some(s), true) = (stroke, stroke_first) {
                    g.stroke(s);
                }
                if let Some(f) = fill {
                    g.fill(f);
                }
                if let (Some(s), false) = (stroke, stroke_first) {
                    g.stroke(s);
                }
                // The next path starts afresh.
                g.begin_path();
            }
            usvg::Node::Path(_) => {}
            usvg::Node::Image(_) | usvg::Node::Text(_) => report.skipped_elements += 1,
        }
    }
}

/// A number as SVG writes it: up to three decimals, no trailing zeros.
fn num(v: f32) -> String {
    let s = format!("{:.3}", if v.is_finite() { v } else { 0.0 });
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

fn write_command(d: &mut String, c: &PathCommand, lo: &mut Vec2, hi: &mut Vec2) {
    let mut pt = |d: &mut String, p: Vec2| {
        *lo = lo.min(p);
        *hi = hi.max(p);
        let _ = write!(d, "{} {} ", num(p.x), num(p.y));
    };
    match *c {
        PathCommand::MoveTo(p) => {
            d.push_str("M ");
            pt(d, p);
        }
        PathCommand::LineTo(p) => {
            d.push_str("L ");
            pt(d, p);
        }
        PathCommand::QuadTo(c1, p) => {
            d.push_str("Q ");
            pt(d, c1);
            pt(d, p);
        }
        PathCommand::CubicTo(c1, c2, p) => {
            d.push_str("C ");
            pt(d, c1);
            pt(d, c2);
            pt(d, p);
        }
        PathCommand::Arc {
            center,
            radii,
            start,
            sweep,
            matrix,
        } => {
            // Cubic curves of at most a quarter turn each (within 0.03 % of the radius).
            if !(sweep.is_finite() && start.is_finite()) {
                return;
            }
            let n = ((sweep.abs() / std::f32::consts::FRAC_PI_2).ceil() as usize).clamp(1, 64);
            let step = sweep / n as f32;
            let k = 4.0 / 3.0 * (step / 4.0).tan();
            let at = |a: f32| center + radii * Vec2::new(a.cos(), a.sin());
            let tangent = |a: f32| radii * Vec2::new(-a.sin(), a.cos());
            d.push_str(if d.is_empty() { "M " } else { "L " });
            pt(d, matrix.transform_point2(at(start)));
            for i in 0..n {
                let (a0, a1) = (start + step * i as f32, start + step * (i + 1) as f32);
                d.push_str("C ");
                pt(d, matrix.transform_point2(at(a0) + tangent(a0) * k));
                pt(d, matrix.transform_point2(at(a1) - tangent(a1) * k));
                pt(d, matrix.transform_point2(at(a1)));
            }
        }
        PathCommand::Close => d.push_str("Z "),
    }
}

fn hex(c: Color) -> String {
    let byte = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    format!("#{:02x}{:02x}{:02x}", byte(c.r), byte(c.g), byte(c.b))
}

/// ` fill="…"` (or `stroke`) and its opacity, with a gradient written into `defs` as `g{n}`.
fn paint_attr(
    defs: &mut String,
    n: usize,
    color: Color,
    gradient: Option<FillGradient>,
    pattern: Option<FillPattern>,
    what: &str,
) -> String {
    let alpha = color.a;
    let opacity = match alpha < 1.0 {
        true => format!(" {what}-opacity=\"{}\"", num(alpha)),
        false => String::new(),
    };
    let Some(g) = gradient else {
        if pattern.is_some() {
            log::debug!("a texture fill is written to SVG as its colour");
        }
        return format!(" {what}=\"{}\"{opacity}", hex(color));
    };
    let units = match g.space {
        TextureSpace::Local => "objectBoundingBox",
        TextureSpace::Global => "userSpaceOnUse",
    };
    let m = g.placed;
    let transform = match m == Affine2::IDENTITY {
        true => String::new(),
        false => {
            let c = m.to_cols_array();
            format!(" gradientTransform=\"matrix({})\"", c.map(num).join(" "))
        }
    };
    let spread = match g.wrap {
        GradientWrap::Repeat => " spreadMethod=\"repeat\"",
        GradientWrap::Clamp => "",
    };
    let id = format!("g{n}{}", &what[..1]);
    match g.kind {
        GradientKind::Linear { start, end } => {
            let _ = writeln!(
                defs,
                "    <linearGradient id=\"{id}\" gradientUnits=\"{units}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"{transform}{spread}>",
                num(start.x),
                num(start.y),
                num(end.x),
                num(end.y)
            );
            stops(defs, &g, color);
            defs.push_str("    </linearGradient>\n");
        }
        GradientKind::Radial(r) => {
            let turn = match (r.rotation, r.scale) {
                (0.0, 1.0) => String::new(),
                _ => format!(
                    " gradientTransform=\"translate({cx} {cy}) rotate({}) scale(1 {}) translate(-{cx} -{cy})\"",
                    num(r.rotation.to_degrees()),
                    num(r.scale),
                    cx = num(r.center.x),
                    cy = num(r.center.y)
                ),
            };
            let _ = writeln!(
                defs,
                "    <radialGradient id=\"{id}\" gradientUnits=\"{units}\" cx=\"{}\" cy=\"{}\" r=\"{}\" fx=\"{}\" fy=\"{}\" fr=\"{}\"{}{spread}>",
                num(r.outer_center.x),
                num(r.outer_center.y),
                num(r.outer_radius),
                num(r.center.x),
                num(r.center.y),
                num(r.inner_radius),
                if turn.is_empty() { transform } else { turn }
            );
            stops(defs, &g, color);
            defs.push_str("    </radialGradient>\n");
        }
    }
    format!(" {what}=\"url(#{id})\"")
}

fn stops(defs: &mut String, g: &FillGradient, tint: Color) {
    for &(t, c) in g.stops() {
        let c = tint * c;
        let _ = writeln!(
            defs,
            "      <stop offset=\"{}\" stop-color=\"{}\" stop-opacity=\"{}\"/>",
            num(t),
            hex(c),
            num(c.a)
        );
    }
}

fn stroke_attrs(defs: &mut String, n: usize, s: &StrokeStyle) -> String {
    let mut a = paint_attr(defs, n, s.color, s.gradient, s.pattern, "stroke");
    let _ = write!(
        a,
        " stroke-width=\"{}\"",
        num(if s.pixel_line { 1.0 } else { s.width })
    );
    if s.pixel_line {
        a.push_str(" vector-effect=\"non-scaling-stroke\"");
    }
    match s.join {
        LineJoin::Miter => {
            if s.miter_limit != 4.0 {
                let _ = write!(a, " stroke-miterlimit=\"{}\"", num(s.miter_limit));
            }
        }
        LineJoin::Round => a.push_str(" stroke-linejoin=\"round\""),
        LineJoin::Bevel => a.push_str(" stroke-linejoin=\"bevel\""),
    }
    match s.cap {
        LineCap::Butt => {}
        LineCap::Round => a.push_str(" stroke-linecap=\"round\""),
        LineCap::Square => a.push_str(" stroke-linecap=\"square\""),
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_and_size_are_checked_before_parsing() {
        let deep = "<g>".repeat(MAX_SVG_DEPTH + 1);
        assert!(matches!(check_document(&deep), Err(Error::InvalidSvg(_))));
        let flat = "<g/>".repeat(10_000) + "<!-- <g><g> --><![CDATA[<g>]]>";
        assert!(check_document(&flat).is_ok());
        let nested_ok = "<g>".repeat(MAX_SVG_DEPTH) + &"</g>".repeat(MAX_SVG_DEPTH);
        assert!(check_document(&nested_ok).is_ok());
    }

    #[test]
    fn numbers_are_written_short() {
        assert_eq!(num(1.5), "1.5");
        assert_eq!(num(2.0), "2");
        assert_eq!(num(-0.0001), "0");
        assert_eq!(num(f32::NAN), "0");
        assert_eq!(num(1.23456), "1.235");
    }
}
