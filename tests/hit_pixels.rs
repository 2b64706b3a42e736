//! Hit tests agree with the pixels: shapes (fills by rule, holes, strokes with every join, cap and alignment,
//! sharp corners past the miter limit) are drawn white on black, and at every pixel centre away from an edge
//! (its 3x3 neighbourhood all covered or all empty) `Scene::hit_test` must say what the picture shows.

mod common;

use glam::Vec2;
use stage2d::{
    Color, EventMode, FillRule, FillStyle, GraphicsContext, LineCap, LineJoin, Node, Scene,
    StrokeAlignment, StrokeStyle,
};

const W: u32 = 160;
const H: u32 = 120;

fn stroke(
    width: f32,
    join: LineJoin,
    cap: LineCap,
    limit: f32,
    align: StrokeAlignment,
) -> StrokeStyle {
    let mut s = StrokeStyle::new(width, Color::WHITE);
    s.join = join;
    s.cap = cap;
    s.miter_limit = limit;
    s.alignment = align;
    s
}

/// Draws `g` (on a node placed by `setup`) and compares hits with coverage; returns the pixels compared.
fn agree(
    r: &mut stage2d::Renderer,
    name: &str,
    g: GraphicsContext,
    setup: impl Fn(&mut Node),
) -> usize {
    let mut scene = Scene::new();
    let mut node = Node::graphics(g);
    setup(&mut node);
    let id = scene.add(scene.root(), node).unwrap();
    scene.set_event_mode(id, EventMode::Static).unwrap();
    let img = common::render(r, &scene, W, H, Color::BLACK);
    let covered = |x: i64, y: i64| -> Option<bool> {
        if x < 0 || y < 0 || x >= W as i64 || y >= H as i64 {
            return None;
        }
        Some(img.get_pixel(x as u32, y as u32).0[0] > 128)
    };
    let (mut compared, mut wrong) = (0, Vec::new());
    for y in 0..H as i64 {
        for x in 0..W as i64 {
            let c = covered(x, y).unwrap();
            let clear = (-1..=1).all(|dy| (-1..=1).all(|dx| covered(x + dx, y + dy) == Some(c)));
            if !clear {
                continue;
            }
            compared += 1;
            let hit = scene
                .hit_test(Vec2::new(x as f32 + 0.5, y as f32 + 0.5))
                .is_some();
            if hit != c {
                wrong.push((x, y, c));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{name}: {} of {compared} pixels disagree, e.g. {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(8)]
    );
    assert!(
        compared > (W * H / 2) as usize,
        "{name}: only {compared} pixels away from edges"
    );
    compared
}

#[test]
fn hits_match_the_drawn_pixels() {
    let mut r = common::renderer();
    let zigzag = |g: &mut GraphicsContext| {
        g.move_to(10.0, 100.0)
            .line_to(40.0, 20.0)
            .line_to(60.0, 100.0)
            .line_to(75.0, 30.0)
            .line_to(150.0, 40.0)
            .line_to(90.0, 110.0);
    };
    for (join, limit) in [
        (LineJoin::Miter, 10.0),
        (LineJoin::Miter, 2.0),
        (LineJoin::Miter, 1.0),
        (LineJoin::Bevel, 10.0),
        (LineJoin::Round, 10.0),
    ] {
        for cap in [LineCap::Butt, LineCap::Square, LineCap::Round] {
            let mut g = GraphicsContext::new();
            zigzag(&mut g);
            g.stroke(stroke(9.0, join, cap, limit, StrokeAlignment::Centre));
            agree(
                &mut r,
                &format!("zigzag {join:?} {limit} {cap:?}"),
                g,
                |_| {},
            );
        }
    }
    // Inner and outer strokes, closed and open.
    for align in [StrokeAlignment::Inner, StrokeAlignment::Outer] {
        let mut g = GraphicsContext::new();
        g.poly(&[
            Vec2::new(30.0, 20.0),
            Vec2::new(130.0, 30.0),
            Vec2::new(80.0, 100.0),
        ])
        .stroke(stroke(12.0, LineJoin::Miter, LineCap::Butt, 10.0, align));
        agree(&mut r, &format!("triangle {align:?}"), g, |_| {});
        let mut g = GraphicsContext::new();
        g.move_to(20.0, 60.0).line_to(140.0, 60.0).stroke(stroke(
            16.0,
            LineJoin::Miter,
            LineCap::Butt,
            10.0,
            align,
        ));
        agree(&mut r, &format!("open line {align:?}"), g, |_| {});
    }
    // Fills: a self-crossing star by both rules, a ring with a hole, under a rotated and scaled node.
    let star: Vec<Vec2> = (0..5)
        .map(|i| {
            let a = std::f32::consts::TAU * (i as f32 * 2.0) / 5.0 - std::f32::consts::FRAC_PI_2;
            Vec2::new(80.0 + 55.0 * a.cos(), 62.0 + 55.0 * a.sin())
        })
        .collect();
    for rule in [FillRule::NonZero, FillRule::EvenOdd] {
        let mut g = GraphicsContext::new();
        g.poly(&star)
            .fill(FillStyle::from(0xffffff).with_fill_rule(rule));
        agree(&mut r, &format!("star {rule:?}"), g, |_| {});
    }
    let mut g = GraphicsContext::new();
    g.circle(0.0, 0.0, 40.0)
        .fill(0xffffff)
        .circle(5.0, 0.0, 18.0)
        .cut()
        .rect(-30.0, -30.0, 15.0, 10.0)
        .stroke(stroke(
            4.0,
            LineJoin::Miter,
            LineCap::Butt,
            10.0,
            StrokeAlignment::Centre,
        ));
    agree(&mut r, "ring under a turned node", g, |n| {
        n.transform.position = Vec2::new(80.0, 60.0);
        n.transform.rotation = 0.6;
        n.transform.scale = Vec2::new(1.4, 0.9);
    });
}

/// A red 40x40 sprite at the origin of `parent` and a blue one over its lower right, both hit-testable; their
/// overlap is around (30, 30).
fn red_under_blue(
    r: &mut stage2d::Renderer,
    scene: &mut Scene,
    parent: stage2d::NodeId,
) -> (stage2d::NodeId, stage2d::NodeId) {
    let red = common::solid(r, 2, 2, [255, 0, 0, 255]);
    let blue = common::solid(r, 2, 2, [0, 0, 255, 255]);
    let sprite = |t, at: f32| {
        Node::sprite(t)
            .sized(40.0, 40.0)
            .at(at, at)
            .with_event_mode(EventMode::Static)
    };
    let a = scene.add(parent, sprite(red, 0.0)).unwrap();
    let b = scene.add(parent, sprite(blue, 20.0)).unwrap();
    (a, b)
}

#[test]
fn z_index_orders_drawing_and_hits_alike() {
    let mut r = common::renderer();
    let mut scene = Scene::new();
    let root = scene.root();
    // Inside a render group too: a reorder rebuilds it.
    let layer = scene
        .add(root, Node::container().as_render_group())
        .unwrap();
    scene.set_sortable_children(layer, true).unwrap();
    let (a, b) = red_under_blue(&mut r, &mut scene, layer);
    let overlap = Vec2::new(30.5, 30.5);
    let img = common::render(&mut r, &scene, 64, 64, Color::BLACK);
    common::probe(&img, 30, 30, [0, 0, 255, 255], 0);
    assert_eq!(scene.hit_test(overlap), Some(b));
    scene.set_z_index(a, 1).unwrap();
    let img = common::render(&mut r, &scene, 64, 64, Color::BLACK);
    common::probe(&img, 30, 30, [255, 0, 0, 255], 0);
    assert_eq!(scene.hit_test(overlap), Some(a));
    // Equal z-indices keep their current order (a stable sort, as PixiJS's).
    scene.set_z_index(b, 1).unwrap();
    let img = common::render(&mut r, &scene, 64, 64, Color::BLACK);
    common::probe(&img, 30, 30, [255, 0, 0, 255], 0);
    assert_eq!(scene.hit_test(overlap), Some(a));
    scene.set_z_index(b, 2).unwrap();
    let img = common::render(&mut r, &scene, 64, 64, Color::BLACK);
    common::probe(&img, 30, 30, [0, 0, 255, 255], 0);
    assert_eq!(scene.hit_test(overlap), Some(b));
}

#[test]
fn a_z_index_sorts_its_parent_without_a_second_call_as_in_pixijs() {
    let mut r = common::renderer();
    let red = common::solid(&mut r, 2, 2, [255, 0, 0, 255]);
    let blue = common::solid(&mut r, 2, 2, [0, 0, 255, 255]);
    let mut scene = Scene::new();
    let root = scene.root();
    let layer = scene.add(root, Node::container()).unwrap();
    let (a, b) = red_under_blue(&mut r, &mut scene, layer);
    let overlap = Vec2::new(30.5, 30.5);
    // PixiJS v8: setting zIndex sets the parent's sortableChildren.
    scene.set_z_index(a, 1).unwrap();
    assert!(scene.sortable_children(layer));
    let img = common::render(&mut r, &scene, 64, 64, Color::BLACK);
    common::probe(&img, 30, 30, [255, 0, 0, 255], 0);
    assert_eq!(scene.hit_test(overlap), Some(a));
    // Turned off, the children keep their order and take indices as given.
    scene.set_sortable_children(layer, false).unwrap();
    scene.set_child_index(b, 1).unwrap();
    let img = common::render(&mut r, &scene, 64, 64, Color::BLACK);
    common::probe(&img, 30, 30, [0, 0, 255, 255], 0);
    assert_eq!(scene.hit_test(overlap), Some(b));
    // A child with a z-index joining a container turns sorting on there (PixiJS's addChild).
    let other = scene.add(root, Node::container()).unwrap();
    let c = scene.add_detached(Node::sprite(red).sized(40.0, 40.0));
    let d = scene
        .add(other, Node::sprite(blue).sized(40.0, 40.0))
        .unwrap();
    scene.set_z_index(c, -1).unwrap();
    scene.set_parent(c, other, 1).unwrap();
    assert!(scene.sortable_children(other));
    assert_eq!(scene.children(other), &[c, d]);
}
