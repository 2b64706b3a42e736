//! A sequence of public `Scene` operations decoded from the input (adding every kind of node, removing, moving
//! between parents, transforms with any floats (NaN, infinities, huge), z-index, masks, visibility, alpha, blend
//! modes, filters, render groups, render layers, particle edits, hit tests, bounds), with CPU walks and batches of
//! the scene between them, as frames would (`stage2d::internals::{Collector, Batcher, View}`), kept walks
//! included. Textures are handles from `stage2d::internals::bench_texture`: nothing touches a GPU.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use stage2d::filter::{DropShadow, Glow};
use stage2d::glam::Vec2;
use stage2d::graphics::StrokeStyle;
use stage2d::internals::bench_texture;
use stage2d::{
    BlendMode, CacheAsTexture, Color, ColorMatrix, EventMode, Filter, Font, GraphicsContext,
    HitArea, MaskChannel, MeshGeometry, NineSliceSprite, Node, NodeId, Particle, ParticleContainer,
    Rect, Scene, Text, TilingSprite, Transform,
};

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Shape {
    Rect(f32, f32, f32, f32),
    Circle(f32, f32, f32),
    RoundRect(f32, f32, f32, f32, f32),
    Star(f32, f32, u8, f32, f32),
    Poly([(f32, f32); 5]),
    Arc(f32, f32, f32, f32, f32),
}

#[derive(Arbitrary, Debug, Clone)]
enum Kind {
    Container,
    Sprite {
        w: u16,
        h: u16,
        frame: Option<(u16, u16, u16, u16)>,
        anchor: (f32, f32),
        size: Option<(f32, f32)>,
    },
    Graphics {
        shapes: Vec<(Shape, bool, f32)>,
    },
    Text {
        text: String,
        size: f32,
        wrap: Option<f32>,
        rich: bool,
    },
    Particles {
        count: u8,
        spread: f32,
        frames: u8,
    },
    Layer {
        sort: bool,
    },
    Tiling {
        w: f32,
        h: f32,
    },
    NineSlice {
        borders: [f32; 4],
        w: f32,
        h: f32,
    },
    Mesh {
        w: f32,
        h: f32,
        vx: u8,
        vy: u8,
    },
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum FilterOp {
    Alpha(f32),
    Blur(f32),
    Noise(f32, f32),
    Outline(f32),
    Displacement(u8, f32),
    ColorMatrix(f32),
    Shadow(f32, f32, f32),
    Glow(f32, f32),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum ParticleOp {
    Add(f32, f32, f32, f32),
    Remove(u16),
    RemoveRange(u16, u16),
    Edit(u16, f32, f32, f32, u32),
    Clear,
    Sort,
    Update,
    Bounds,
    /// Every position moved through the columns.
    Shift(f32, f32),
    /// One particle replaced whole.
    Set(u16, f32, f32, u32),
}

#[derive(Arbitrary, Debug, Clone)]
enum Op {
    Add {
        parent: u8,
        kind: Kind,
        at: (f32, f32),
    },
    Detached {
        kind: Kind,
    },
    Remove(u8),
    Reparent {
        node: u8,
        parent: u8,
        index: u8,
    },
    ChildIndex {
        node: u8,
        index: u8,
    },
    Transform {
        node: u8,
        position: (f32, f32),
        scale: (f32, f32),
        pivot: (f32, f32),
        rotation: f32,
    },
    Nudge {
        node: u8,
        dx: f32,
    },
    BulkMove {
        parent: u8,
        dx: f32,
    },
    ZIndex {
        node: u8,
        z: i32,
    },
    Sortable {
        node: u8,
        on: bool,
    },
    Mask {
        target: u8,
        mask: u8,
        inverse: bool,
        alpha: Option<bool>,
    },
    ClearMask(u8),
    Visible {
        node: u8,
        on: bool,
    },
    Alpha {
        node: u8,
        alpha: f32,
        tint: u32,
    },
    Blend {
        node: u8,
        mode: u8,
    },
    RenderGroup {
        node: u8,
        on: bool,
    },
    Filters {
        node: u8,
        filters: Vec<(FilterOp, Option<f32>, bool)>,
    },
    FilterArea {
        node: u8,
        area: Option<(f32, f32, f32, f32)>,
    },
    Cache {
        node: u8,
        resolution: Option<f32>,
        update: bool,
    },
    Attach {
        layer: u8,
        node: u8,
    },
    Detach(u8),
    Particles {
        node: u8,
        op: ParticleOp,
    },
    Events {
        node: u8,
        mode: u8,
        area: Option<(f32, f32, f32, f32)>,
    },
    HitTest(f32, f32),
    Bounds(u8),
    Walk {
        width: u16,
        height: u16,
        scale: f32,
        kept: bool,
    },
}

const BLENDS: [BlendMode; 8] = [
    BlendMode::Normal,
    BlendMode::Add,
    BlendMode::Multiply,
    BlendMode::Screen,
    BlendMode::Erase,
    BlendMode::None,
    BlendMode::Min,
    BlendMode::ColorBurn,
];

fn pick(nodes: &[NodeId], i: u8) -> NodeId {
    nodes[i as usize % nodes.len()]
}

fn graphics(shapes: &[(Shape, bool, f32)]) -> GraphicsContext {
    let mut g = GraphicsContext::new();
    for &(shape, stroke, width) in shapes.iter().take(8) {
        match shape {
            Shape::Rect(x, y, w, h) => g.rect(x, y, w, h),
            Shape::Circle(x, y, r) => g.circle(x, y, r),
            Shape::RoundRect(x, y, w, h, r) => g.round_rect(x, y, w, h, r),
            Shape::Star(x, y, n, outer, inner) => g.star(x, y, n as u32 % 16, outer, inner, 0.0),
            Shape::Poly(p) => g.poly(&p.map(Vec2::from)),
            Shape::Arc(x, y, r, a, b) => g.arc(x, y, r, a, b, false),
        };
        if stroke {
            g.stroke(StrokeStyle::new(width, Color::WHITE));
        } else {
            g.fill(Color::hex(0xff8800));
        }
    }
    g
}

fn node_of(kind: &Kind) -> Option<Node> {
    Some(match kind {
        Kind::Container => Node::container(),
        Kind::Sprite {
            w,
            h,
            frame,
            anchor,
            size,
        } => {
            let (w, h) = (*w as u32 % 4096 + 1, *h as u32 % 4096 + 1);
            let mut t = bench_texture(w, h);
            if let Some((x, y, fw, fh)) = *frame {
                t = t.frame(x as u32, y as u32, fw as u32, fh as u32).ok()?;
            }
            let mut n = Node::sprite(t).anchor(anchor.0, anchor.1);
            if let Some((sw, sh)) = *size {
                n = n.sized(sw, sh);
            }
            n
        }
        Kind::Graphics { shapes } => {
            let g = graphics(shapes);
            // What `Scene::add` refuses is not drawn; keep the walk to contexts it takes.
            g.check_complexity().ok()?;
            Node::graphics(g)
        }
        Kind::Text {
            text,
            size,
            wrap,
            rich,
        } => {
            let text: String = text.chars().take(48).collect();
            let mut t = if *rich {
                Text::rich(text, &Font::builtin(), *size)
            } else {
                Text::new(text, &Font::builtin(), *size)
            };
            let mut style = *t.style();
            style.wrap_width = *wrap;
            t.set_style(style);
            Node::text(t)
        }
        Kind::Particles {
            count,
            spread,
            frames,
        } => {
            let mut c = ParticleContainer::new(bench_texture(64, 64));
            for i in 0..*frames % 4 {
                let _ = c.add_frame(bench_texture(64, 64).frame(i as u32 * 16, 0, 16, 16).ok()?);
            }
            let n = *count as usize % 64;
            let _ = c.extend((0..n).map(|i| {
                Particle::new(i as f32 * spread, (i % 7) as f32 * spread)
                    .with_frame(i as u32 % (*frames as u32 % 4 + 1))
            }));
            Node::particles(c)
        }
        Kind::Layer { sort } => {
            let mut n = Node::render_layer();
            if let Some(l) = n.props.as_layer_mut() {
                l.sort_children = *sort;
            }
            n
        }
        Kind::Tiling { w, h } => Node::tiling(TilingSprite::new(bench_texture(32, 32), *w, *h)),
        Kind::NineSlice { borders, w, h } => {
            Node::nine_slice(NineSliceSprite::new(bench_texture(48, 48), *borders)).sized(*w, *h)
        }
        Kind::Mesh { w, h, vx, vy } => {
            let geometry = MeshGeometry::plane(*w, *h, *vx as u32 % 16, *vy as u32 % 16).ok()?;
            Node::mesh(geometry, bench_texture(32, 32))
        }
    })
}

fn filter(op: FilterOp, nodes: &[NodeId]) -> Filter {
    match op {
        FilterOp::Alpha(a) => Filter::alpha(a),
        FilterOp::Blur(s) => Filter::blur(s),
        FilterOp::Noise(n, s) => Filter::noise(n, s),
        FilterOp::Outline(t) => Filter::outline(t, Color::BLACK),
        FilterOp::Displacement(map, s) => Filter::displacement(pick(nodes, map), s),
        FilterOp::ColorMatrix(h) => Filter::color_matrix(*ColorMatrix::default().hue(h, false)),
        FilterOp::Shadow(x, y, blur) => Filter::drop_shadow(DropShadow {
            offset: Vec2::new(x, y),
            blur,
            ..DropShadow::default()
        }),
        FilterOp::Glow(distance, outer) => Filter::glow(Glow {
            distance,
            outer_strength: outer,
            ..Glow::default()
        }),
    }
}

fn particles(scene: &mut Scene, id: NodeId, op: ParticleOp) {
    let Some(c) = scene.get_mut(id).and_then(|p| p.as_particles_mut()) else {
        return;
    };
    match op {
        ParticleOp::Add(x, y, s, r) => {
            let _ = c.add(Particle::new(x, y).scaled(s).rotated(r));
        }
        ParticleOp::Remove(i) => {
            let _ = c.remove(i as usize);
        }
        ParticleOp::RemoveRange(a, b) => {
            let (a, b) = (a as usize, b as usize);
            if a <= b && b <= c.len() {
                c.remove_range(a..b);
            }
        }
        ParticleOp::Edit(i, x, a, alpha, frame) => {
            if let Some(mut p) = c.particle_mut(i as usize) {
                p.position.x = x;
                p.anchor = Vec2::splat(a);
                p.alpha = alpha;
                p.frame = frame;
            }
        }
        ParticleOp::Clear => c.clear(),
        ParticleOp::Sort => c.sort_by(|a, b| a.position.x.total_cmp(&b.position.x)),
        ParticleOp::Update => c.update(),
        ParticleOp::Bounds => {
            let _ = c.compute_bounds();
        }
        ParticleOp::Shift(dx, dy) => {
            for p in c.particles_mut().position {
                *p += Vec2::new(dx, dy);
            }
        }
        ParticleOp::Set(i, x, r, frame) => {
            let _ = c.set(i as usize, Particle::new(x, x).rotated(r).with_frame(frame));
        }
    }
}

fuzz_target!(|ops: Vec<Op>| {
    let mut scene = Scene::new();
    let mut nodes = vec![scene.root()];
    let mut walker = stage2d_fuzz::Walker::default();
    for op in ops.into_iter().take(64) {
        match op {
            Op::Add { parent, kind, at } => {
                if let Some(n) = node_of(&kind) {
                    if let Ok(id) = scene.add(pick(&nodes, parent), n.at(at.0, at.1)) {
                        nodes.push(id);
                    }
                }
            }
            Op::Detached { kind } => {
                if let Some(n) = node_of(&kind) {
                    nodes.push(scene.add_detached(n));
                }
            }
            Op::Remove(n) => {
                let _ = scene.remove(pick(&nodes, n));
            }
            Op::Reparent {
                node,
                parent,
                index,
            } => {
                let _ = scene.set_parent(pick(&nodes, node), pick(&nodes, parent), index as usize);
            }
            Op::ChildIndex { node, index } => {
                let _ = scene.set_child_index(pick(&nodes, node), index as usize);
            }
            Op::Transform {
                node,
                position,
                scale,
                pivot,
                rotation,
            } => {
                if let Some(t) = scene.transform_mut(pick(&nodes, node)) {
                    *t = Transform {
                        position: position.into(),
                        scale: scale.into(),
                        pivot: pivot.into(),
                        rotation,
                    };
                }
            }
            Op::Nudge { node, dx } => {
                if let Some(t) = scene.transform_mut(pick(&nodes, node)) {
                    t.position.x += dx;
                }
            }
            Op::BulkMove { parent, dx } => {
                if let Ok(mut children) = scene.child_transforms_mut(pick(&nodes, parent)) {
                    children.for_each(|_, t| t.position.y += dx);
                }
            }
            Op::ZIndex { node, z } => {
                let _ = scene.set_z_index(pick(&nodes, node), z);
            }
            Op::Sortable { node, on } => {
                let _ = scene.set_sortable_children(pick(&nodes, node), on);
            }
            Op::Mask {
                target,
                mask,
                inverse,
                alpha,
            } => {
                let (target, mask) = (pick(&nodes, target), pick(&nodes, mask));
                let _ = match alpha {
                    None => scene.set_mask(target, mask, inverse),
                    Some(red) => {
                        let channel = if red {
                            MaskChannel::Red
                        } else {
                            MaskChannel::Alpha
                        };
                        scene.set_alpha_mask(target, mask, channel, inverse)
                    }
                };
            }
            Op::ClearMask(n) => {
                let _ = scene.clear_mask(pick(&nodes, n));
            }
            Op::Visible { node, on } => {
                if let Some(p) = scene.get_mut(pick(&nodes, node)) {
                    p.visible = on;
                }
            }
            Op::Alpha { node, alpha, tint } => {
                if let Some(p) = scene.get_mut(pick(&nodes, node)) {
                    p.alpha = alpha;
                    p.tint = Color::hex(tint);
                }
            }
            Op::Blend { node, mode } => {
                if let Some(p) = scene.get_mut(pick(&nodes, node)) {
                    p.blend_mode = BLENDS[mode as usize % BLENDS.len()];
                }
            }
            Op::RenderGroup { node, on } => {
                if let Some(p) = scene.get_mut(pick(&nodes, node)) {
                    p.render_group = on;
                }
            }
            Op::Filters { node, filters } => {
                let list = filters
                    .into_iter()
                    .take(4)
                    .map(|(f, padding, enabled)| {
                        let f = filter(f, &nodes).with_enabled(enabled);
                        match padding {
                            Some(p) => f.with_padding(p),
                            None => f,
                        }
                    })
                    .collect();
                let _ = scene.set_filters(pick(&nodes, node), list);
            }
            Op::FilterArea { node, area } => {
                let area = area.map(|(x, y, w, h)| Rect::new(x, y, w, h));
                let _ = scene.set_filter_area(pick(&nodes, node), area);
            }
            Op::Cache {
                node,
                resolution,
                update,
            } => {
                let id = pick(&nodes, node);
                let cache = CacheAsTexture {
                    resolution,
                    ..CacheAsTexture::default()
                };
                let _ = scene.set_cache_as_texture(id, Some(cache));
                if update {
                    let _ = scene.update_cache_texture(id);
                }
            }
            Op::Attach { layer, node } => {
                let _ = scene.attach_to_layer(pick(&nodes, layer), pick(&nodes, node));
            }
            Op::Detach(n) => {
                let _ = scene.detach_from_layer(pick(&nodes, n));
            }
            Op::Particles { node, op } => particles(&mut scene, pick(&nodes, node), op),
            Op::Events { node, mode, area } => {
                let id = pick(&nodes, node);
                let mode = [
                    EventMode::None,
                    EventMode::Passive,
                    EventMode::Static,
                    EventMode::Dynamic,
                ][mode as usize % 4];
                let _ = scene.set_event_mode(id, mode);
                let area = area.map(|(x, y, width, height)| HitArea::Rect {
                    x,
                    y,
                    width,
                    height,
                });
                let _ = scene.set_hit_area(id, area);
            }
            Op::HitTest(x, y) => {
                let p = Vec2::new(x, y);
                let hit = scene.hit_test(p);
                let all = scene.hit_test_all(p);
                if let Some(h) = hit {
                    assert!(
                        scene.contains(h),
                        "a hit test named a node not in the scene"
                    );
                }
                assert!(all.iter().all(|&n| scene.contains(n)));
            }
            Op::Bounds(n) => {
                let id = pick(&nodes, n);
                let _ = (
                    scene.local_bounds(id),
                    scene.world_bounds(id),
                    scene.world_transform(id),
                );
                if scene.contains(id) {
                    let _ = scene.layer_draw_order(id);
                }
            }
            Op::Walk {
                width,
                height,
                scale,
                kept,
            } => {
                walker.walk(&scene, width as u32, height as u32, scale, kept);
            }
        }
    }
    walker.walk(&scene, 800, 600, 1.0, true);
    walker.walk(&scene, 800, 600, 1.0, false);
});
