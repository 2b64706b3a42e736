//! Bounds, hit testing, z-order and the pointer-event dispatcher, on the CPU (no window, no GPU): synthetic
//! inputs through the same dispatcher the app layer feeds, checking which handlers ran and in which order.

use glam::Vec2;
use proptest::prelude::*;
use stage2d::internals::bench_texture;
use stage2d::{
    Cursor, Error, EventKind, EventMode, Events, FillRule, FillStyle, GraphicsContext, HitArea,
    Node, NodeId, Phase, PointerInput, Scene, StrokeStyle,
};
use std::cell::RefCell;
use std::rc::Rc;

fn v(x: f32, y: f32) -> Vec2 {
    Vec2::new(x, y)
}

fn sprite(w: u32, h: u32) -> Node {
    Node::sprite(bench_texture(w, h))
}

fn interactive(scene: &mut Scene, parent: NodeId, node: Node) -> NodeId {
    let id = scene.add(parent, node).unwrap();
    scene.set_event_mode(id, EventMode::Static).unwrap();
    id
}

fn close(a: Vec2, b: Vec2) -> bool {
    (a - b).abs().max_element() < 1e-3
}

#[test]
fn bounds_of_sprites_shapes_and_containers_follow_changes() {
    let mut s = Scene::new();
    let group = s.add(s.root(), Node::container().at(100.0, 50.0)).unwrap();
    let a = s
        .add(group, sprite(10, 20).anchor(0.5, 0.5).at(5.0, 0.0))
        .unwrap();
    let lb = s.local_bounds(a).unwrap();
    assert!(
        close(lb.min, v(-5.0, -10.0)) && close(lb.max, v(5.0, 10.0)),
        "{lb:?}"
    );
    let wb = s.world_bounds(a).unwrap();
    assert!(
        close(wb.min, v(100.0, 40.0)) && close(wb.max, v(110.0, 60.0)),
        "{wb:?}"
    );

    // A stroked rectangle: the stroke's outer half counts (a centred 4 px stroke adds 2 px, corners diagonal).
    let mut g = GraphicsContext::new();
    g.rect(0.0, 0.0, 20.0, 10.0)
        .stroke(StrokeStyle::new(4.0, stage2d::Color::WHITE));
    let shape = s.add(group, Node::graphics(g).at(-50.0, 0.0)).unwrap();
    let sb = s.local_bounds(shape).unwrap();
    assert!(sb.min.x <= -2.0 && sb.min.x >= -3.0, "{sb:?}");
    assert!(sb.max.y >= 12.0 && sb.max.y <= 13.0, "{sb:?}");

    let gb = s.local_bounds(group).unwrap();
    assert!(close(
        Vec2::new(gb.max.x, gb.max.y),
        v(10.0, 12.0 + (gb.max.y - 12.0))
    ));
    assert!(gb.min.x <= -52.0);
    // Moving a child invalidates the cached container bounds.
    s.transform_mut(a).unwrap().position.x = 200.0;
    assert!(close(
        Vec2::new(s.local_bounds(group).unwrap().max.x, 0.0),
        v(205.0, 0.0)
    ));
    // Hiding it drops it from its parent's bounds.
    s.get_mut(a).unwrap().visible = false;
    assert!(s.local_bounds(group).unwrap().max.x < 30.0);
    // Rotating the group turns its world box.
    s.transform_mut(group).unwrap().rotation = std::f32::consts::FRAC_PI_2;
    let w = s.world_bounds(shape).unwrap();
    assert!(
        w.height() > w.width(),
        "{w:?}: a 20x10 rect turned a quarter is taller than wide"
    );
    s.remove(a).unwrap();
    assert_eq!(s.local_bounds(a), None);
    let empty = s.add(s.root(), Node::container()).unwrap();
    assert_eq!(s.local_bounds(empty), None);
}

#[test]
fn the_topmost_interactive_node_in_draw_order_is_hit() {
    let mut s = Scene::new();
    let r = s.root();
    let bottom = interactive(&mut s, r, sprite(100, 100));
    let top = interactive(&mut s, r, sprite(50, 50).at(25.0, 25.0));
    let passive = s.add(r, sprite(10, 10).at(40.0, 40.0)).unwrap();
    assert_eq!(
        s.hit_test(v(45.0, 45.0)),
        Some(top),
        "passive content over it is transparent"
    );
    assert_eq!(s.hit_test(v(10.0, 10.0)), Some(bottom));
    assert_eq!(s.hit_test(v(150.0, 10.0)), None);
    assert_eq!(s.hit_test_all(v(45.0, 45.0)), vec![top, bottom]);
    // Z-order: with sortable children, a higher z-index draws and hits on top.
    s.set_sortable_children(r, true).unwrap();
    s.set_z_index(bottom, 5).unwrap();
    assert_eq!(s.children(r), &[top, passive, bottom]);
    assert_eq!(s.hit_test(v(45.0, 45.0)), Some(bottom));
    // Equal z-indices keep their order (stable), and a new child lands after its equals.
    s.set_z_index(bottom, 0).unwrap();
    assert_eq!(s.children(r), &[top, passive, bottom]);
    let high = s.add(r, sprite(1, 1)).unwrap();
    s.set_z_index(top, 1).unwrap();
    assert_eq!(s.children(r), &[passive, bottom, high, top]);
    // Invisible and event-mode-none nodes are not hit.
    s.get_mut(top).unwrap().visible = false;
    assert_eq!(s.hit_test(v(45.0, 45.0)), Some(bottom));
    s.set_event_mode(bottom, EventMode::None).unwrap();
    assert_eq!(s.hit_test(v(45.0, 45.0)), None);
}

#[test]
fn passive_content_hits_for_its_interactive_ancestor_and_interactive_children_stops_descent() {
    let mut s = Scene::new();
    let r = s.root();
    let button = s.add(r, Node::container().at(10.0, 10.0)).unwrap();
    s.set_event_mode(button, EventMode::Static).unwrap();
    let bg = s.add(button, sprite(80, 30)).unwrap();
    let icon = interactive(&mut s, button, sprite(10, 10).at(5.0, 5.0));
    assert_eq!(s.hit_test(v(50.0, 20.0)), Some(button), "its background");
    assert_eq!(s.hit_test(v(17.0, 17.0)), Some(icon));
    assert_eq!(s.hit_test_all(v(17.0, 17.0)), vec![icon, button]);
    assert_eq!(
        s.hit_test(v(5.0, 5.0)),
        None,
        "a container has no area of its own"
    );
    s.set_interactive_children(button, false).unwrap();
    assert_eq!(s.hit_test(v(17.0, 17.0)), None, "no descent, no own area");
    s.set_hit_area(
        button,
        Some(HitArea::Rect {
            x: -5.0,
            y: -5.0,
            width: 100.0,
            height: 40.0,
        }),
    )
    .unwrap();
    assert_eq!(s.hit_test(v(17.0, 17.0)), Some(button));
    assert_eq!(
        s.hit_test(v(6.0, 6.0)),
        Some(button),
        "inside the hit area only"
    );
    let _ = bg;
}

#[test]
fn shapes_hit_on_their_fill_by_rule_and_on_their_stroke() {
    let mut s = Scene::new();
    let r = s.root();
    // A square with a square hole.
    let mut g = GraphicsContext::new();
    g.rect(0.0, 0.0, 100.0, 100.0)
        .fill(0xff0000)
        .rect(30.0, 30.0, 40.0, 40.0)
        .cut();
    let holed = interactive(&mut s, r, Node::graphics(g));
    assert_eq!(s.hit_test(v(10.0, 10.0)), Some(holed));
    assert_eq!(s.hit_test(v(50.0, 50.0)), None, "the hole");
    // A five-pointed star drawn as one self-crossing outline: even-odd leaves the centre out, nonzero fills it.
    let star: Vec<Vec2> = (0..5)
        .map(|i| {
            let a = std::f32::consts::TAU * (i as f32 * 2.0) / 5.0 - std::f32::consts::FRAC_PI_2;
            v(300.0 + 50.0 * a.cos(), 50.0 + 50.0 * a.sin())
        })
        .collect();
    let mut eo = GraphicsContext::new();
    eo.poly(&star)
        .fill(FillStyle::from(0x00ff00).with_fill_rule(FillRule::EvenOdd));
    let eo_id = interactive(&mut s, r, Node::graphics(eo));
    assert_eq!(s.hit_test(v(300.0, 52.0)), None, "even-odd centre");
    assert_eq!(s.hit_test(v(300.0, 8.0)), Some(eo_id), "a point");
    let mut nz = GraphicsContext::new();
    nz.poly(&star).fill(0x00ff00);
    let nz_id = interactive(&mut s, r, Node::graphics(nz).at(0.0, 200.0));
    assert_eq!(s.hit_test(v(300.0, 252.0)), Some(nz_id), "nonzero centre");
    // A stroked, unfilled circle: its ring hits, its inside does not.
    let mut ring = GraphicsContext::new();
    ring.circle(0.0, 0.0, 40.0)
        .stroke(StrokeStyle::new(10.0, stage2d::Color::WHITE));
    let ring_id = interactive(&mut s, r, Node::graphics(ring).at(500.0, 500.0));
    assert_eq!(s.hit_test(v(541.0, 500.0)), Some(ring_id));
    assert_eq!(s.hit_test(v(546.0, 500.0)), None);
    assert_eq!(s.hit_test(v(500.0, 500.0)), None);
    // Joins and caps as drawn: a rectangle stroked 10 px wide with miter joins has square corners; with bevel
    // joins it does not; an open line with butt caps ends at its end points, with square caps half a width past.
    let stroke = |join, cap| {
        let mut st = StrokeStyle::new(10.0, stage2d::Color::WHITE);
        st.join = join;
        st.cap = cap;
        st
    };
    use stage2d::{LineCap, LineJoin};
    let mut mitred = GraphicsContext::new();
    mitred
        .rect(0.0, 0.0, 40.0, 40.0)
        .stroke(stroke(LineJoin::Miter, LineCap::Butt));
    let m_id = interactive(&mut s, r, Node::graphics(mitred).at(1000.0, 0.0));
    assert_eq!(s.hit_test(v(996.0, -4.0)), Some(m_id), "the miter corner");
    assert_eq!(s.hit_test(v(1020.0, 20.0)), None, "inside the outline");
    let mut bevelled = GraphicsContext::new();
    bevelled
        .rect(0.0, 0.0, 40.0, 40.0)
        .stroke(stroke(LineJoin::Bevel, LineCap::Butt));
    let b_id = interactive(&mut s, r, Node::graphics(bevelled).at(1100.0, 0.0));
    assert_eq!(s.hit_test(v(1096.0, -4.0)), None, "cut off by the bevel");
    assert_eq!(s.hit_test(v(1098.0, -1.0)), Some(b_id), "inside the bevel");
    let mut line = GraphicsContext::new();
    line.move_to(0.0, 0.0)
        .line_to(100.0, 0.0)
        .stroke(stroke(LineJoin::Miter, LineCap::Butt));
    let l_id = interactive(&mut s, r, Node::graphics(line).at(1200.0, 100.0));
    assert_eq!(s.hit_test(v(1299.0, 104.0)), Some(l_id));
    assert_eq!(
        s.hit_test(v(1303.0, 100.0)),
        None,
        "a butt cap ends at the end point"
    );
    let mut square = GraphicsContext::new();
    square
        .move_to(0.0, 0.0)
        .line_to(100.0, 0.0)
        .stroke(stroke(LineJoin::Miter, LineCap::Square));
    let q_id = interactive(&mut s, r, Node::graphics(square).at(1200.0, 200.0));
    assert_eq!(
        s.hit_test(v(1304.0, 204.0)),
        Some(q_id),
        "a square cap reaches half a width"
    );
    assert_eq!(s.hit_test(v(1306.0, 200.0)), None);
    // Scaled and rotated: the point is carried into local space.
    let mut sq = GraphicsContext::new();
    sq.rect(0.0, 0.0, 10.0, 10.0).fill(0xffffff);
    let mut n = Node::graphics(sq).at(800.0, 100.0);
    n.transform.scale = v(4.0, 2.0);
    n.transform.rotation = std::f32::consts::FRAC_PI_2;
    let turned = interactive(&mut s, r, n);
    // x axis now points down (4x), y axis points left (2x): the square covers x 780..800, y 100..140.
    assert_eq!(s.hit_test(v(790.0, 130.0)), Some(turned));
    assert_eq!(s.hit_test(v(805.0, 130.0)), None);
}

#[test]
fn masks_clip_hits_and_hit_areas_replace_content() {
    let mut s = Scene::new();
    let r = s.root();
    let panel = s.add(r, Node::container()).unwrap();
    let mut m = GraphicsContext::new();
    m.rect(0.0, 0.0, 50.0, 50.0).fill(0xffffff);
    let mask = s.add_detached(Node::graphics(m));
    s.set_mask(panel, mask, false).unwrap();
    let big = interactive(&mut s, panel, sprite(200, 200));
    assert_eq!(s.hit_test(v(25.0, 25.0)), Some(big));
    assert_eq!(s.hit_test(v(100.0, 100.0)), None, "outside the mask");
    s.set_mask(panel, mask, true).unwrap();
    assert_eq!(s.hit_test(v(25.0, 25.0)), None, "inverse mask");
    assert_eq!(s.hit_test(v(100.0, 100.0)), Some(big));
    s.remove(mask).unwrap();
    assert_eq!(
        s.hit_test(v(100.0, 100.0)),
        None,
        "a removed mask: not drawn, not hit"
    );
    s.clear_mask(panel).unwrap();

    let c = interactive(&mut s, r, sprite(10, 10).at(300.0, 300.0));
    s.set_hit_area(
        c,
        Some(HitArea::Circle {
            center: v(5.0, 5.0),
            radius: 20.0,
        }),
    )
    .unwrap();
    assert_eq!(s.hit_test(v(320.0, 305.0)), Some(c));
    let poly = HitArea::Polygon(vec![v(0.0, 0.0), v(10.0, 0.0), v(0.0, 10.0)]);
    s.set_hit_area(c, Some(poly)).unwrap();
    assert_eq!(s.hit_test(v(302.0, 302.0)), Some(c));
    assert_eq!(s.hit_test(v(308.0, 308.0)), None);
    assert!(matches!(
        s.set_hit_area(c, Some(HitArea::Polygon(vec![v(0.0, 0.0), v(1.0, 1.0)]))),
        Err(Error::InvalidHitArea(_))
    ));
    assert!(matches!(
        s.set_hit_area(
            c,
            Some(HitArea::Circle {
                center: v(f32::NAN, 0.0),
                radius: 1.0
            })
        ),
        Err(Error::InvalidHitArea(_))
    ));
    assert!(s.hit_area(c).is_some(), "a refused area changes nothing");
}

#[test]
fn hostile_scenes_answer_without_panicking() {
    let mut s = Scene::new();
    let mut at = s.root();
    for _ in 0..10_000 {
        at = s.add(at, Node::container().at(0.001, 0.0)).unwrap();
    }
    let leaf = interactive(&mut s, at, sprite(10, 10));
    let t = std::time::Instant::now();
    assert_eq!(s.hit_test(v(15.0, 5.0)), Some(leaf));
    assert!(s.world_bounds(s.root()).is_some());
    // An event bubbles up all 10,001 levels.
    let seen = Rc::new(RefCell::new(0));
    let mut ev = Events::new();
    let root = s.root();
    let c = seen.clone();
    ev.on(root, EventKind::Click, move |_| *c.borrow_mut() += 1);
    ev.dispatch(&mut s, &mut (), down(15.0, 5.0)).unwrap();
    ev.dispatch(&mut s, &mut (), up(15.0, 5.0)).unwrap();
    assert_eq!(*seen.borrow(), 1);
    assert!(t.elapsed().as_secs_f32() < 1.0);
    assert_eq!(s.hit_test(v(f32::NAN, 0.0)), None);
    assert_eq!(s.hit_test(v(f32::INFINITY, 0.0)), None);
    // NaN and zero scales are skipped, not hit.
    let mut s = Scene::new();
    let root = s.root();
    let n = interactive(&mut s, root, sprite(10, 10));
    s.transform_mut(n).unwrap().position.x = f32::NAN;
    assert_eq!(s.hit_test(v(5.0, 5.0)), None);
    assert_eq!(s.world_bounds(n), None);
    s.transform_mut(n).unwrap().position.x = 0.0;
    s.transform_mut(n).unwrap().scale = Vec2::ZERO;
    assert_eq!(s.hit_test(v(0.0, 0.0)), None);
}

type Log = Rc<RefCell<Vec<String>>>;

fn logger<T>(
    log: &Log,
    name: &'static str,
) -> impl FnMut(&mut stage2d::EventContext<'_, T>) + 'static {
    let log = log.clone();
    move |cx| {
        let phase = match cx.event.phase {
            Phase::Capture => "capture",
            Phase::Target => "target",
            Phase::Bubble => "bubble",
        };
        log.borrow_mut()
            .push(format!("{name}:{:?}:{phase}", cx.event.kind));
    }
}

fn down(x: f32, y: f32) -> PointerInput {
    PointerInput::Down {
        pointer: 0,
        position: v(x, y),
        button: 0,
    }
}

fn up(x: f32, y: f32) -> PointerInput {
    PointerInput::Up {
        pointer: 0,
        position: v(x, y),
        button: 0,
    }
}

fn mv(x: f32, y: f32) -> PointerInput {
    PointerInput::Move {
        pointer: 0,
        position: v(x, y),
    }
}

#[test]
fn events_capture_target_bubble_and_stop() {
    let mut s = Scene::new();
    let r = s.root();
    let panel = s.add(r, Node::container()).unwrap();
    let a = interactive(&mut s, panel, sprite(10, 10));
    let log: Log = Default::default();
    let mut ev = Events::new();
    ev.on_capture(r, EventKind::PointerDown, logger(&log, "root"));
    ev.on(r, EventKind::PointerDown, logger(&log, "root"));
    ev.on(panel, EventKind::PointerDown, logger(&log, "panel"));
    ev.on(a, EventKind::PointerDown, logger(&log, "a"));
    ev.dispatch(&mut s, &mut (), down(5.0, 5.0)).unwrap();
    assert_eq!(
        *log.borrow(),
        [
            "root:PointerDown:capture",
            "a:PointerDown:target",
            "panel:PointerDown:bubble",
            "root:PointerDown:bubble"
        ]
    );
    log.borrow_mut().clear();
    ev.on(panel, EventKind::PointerUp, |cx| {
        cx.event.stop_propagation()
    });
    ev.on(r, EventKind::PointerUp, logger(&log, "root"));
    ev.on(a, EventKind::PointerUp, logger(&log, "a"));
    ev.on(a, EventKind::Click, logger(&log, "a"));
    ev.dispatch(&mut s, &mut (), up(5.0, 5.0)).unwrap();
    assert_eq!(*log.borrow(), ["a:PointerUp:target", "a:Click:target"]);
    log.borrow_mut().clear();
    // Immediate stop: the target's second handler does not run.
    ev.on(a, EventKind::Wheel, |cx| {
        cx.event.stop_immediate_propagation()
    });
    ev.on(a, EventKind::Wheel, logger(&log, "a"));
    let wheel = PointerInput::Wheel {
        pointer: 0,
        position: v(5.0, 5.0),
        delta: v(0.0, 3.0),
    };
    ev.dispatch(&mut s, &mut (), wheel).unwrap();
    assert!(log.borrow().is_empty());
}

#[test]
fn over_out_enter_leave_click_and_up_outside() {
    let mut s = Scene::new();
    let r = s.root();
    let panel = s.add(r, Node::container()).unwrap();
    let a = interactive(&mut s, panel, sprite(10, 10));
    let b = interactive(&mut s, panel, sprite(10, 10).at(20.0, 0.0));
    let log: Log = Default::default();
    let mut ev = Events::new();
    for (n, name) in [(panel, "panel"), (a, "a"), (b, "b")] {
        for k in [
            EventKind::PointerOver,
            EventKind::PointerOut,
            EventKind::PointerEnter,
            EventKind::PointerLeave,
            EventKind::Click,
            EventKind::PointerUpOutside,
        ] {
            ev.on(n, k, logger(&log, name));
        }
    }
    ev.dispatch(&mut s, &mut (), mv(5.0, 5.0)).unwrap();
    assert_eq!(
        *log.borrow(),
        [
            "a:PointerOver:target",
            "panel:PointerOver:bubble",
            "a:PointerEnter:target",
            "panel:PointerEnter:target"
        ]
    );
    log.borrow_mut().clear();
    ev.dispatch(&mut s, &mut (), mv(25.0, 5.0)).unwrap();
    assert_eq!(
        *log.borrow(),
        [
            "a:PointerOut:target",
            "panel:PointerOut:bubble",
            "a:PointerLeave:target",
            "b:PointerOver:target",
            "panel:PointerOver:bubble",
            "b:PointerEnter:target"
        ]
    );
    log.borrow_mut().clear();
    // Down on b, up on a: up-outside on b, click on their common ancestor.
    ev.dispatch(&mut s, &mut (), down(25.0, 5.0)).unwrap();
    ev.dispatch(&mut s, &mut (), up(5.0, 5.0)).unwrap();
    let l = log.borrow().clone();
    assert!(
        l.contains(&"b:PointerUpOutside:target".to_string()),
        "{l:?}"
    );
    assert!(l.contains(&"panel:Click:target".to_string()), "{l:?}");
    assert!(!l
        .iter()
        .any(|e| e.starts_with("a:Click") || e.starts_with("b:Click")));
    log.borrow_mut().clear();
    // Down and up outside everything: up-outside on a.
    ev.dispatch(&mut s, &mut (), down(5.0, 5.0)).unwrap();
    ev.dispatch(&mut s, &mut (), up(500.0, 5.0)).unwrap();
    let l = log.borrow().clone();
    assert!(
        l.contains(&"a:PointerUpOutside:target".to_string()),
        "{l:?}"
    );
    assert!(
        l.contains(&"panel:PointerUpOutside:bubble".to_string()),
        "{l:?}"
    );
    assert!(!l.iter().any(|e| e.contains("Click")), "{l:?}");
    log.borrow_mut().clear();
    ev.dispatch(&mut s, &mut (), mv(5.0, 5.0)).unwrap();
    log.borrow_mut().clear();
    ev.dispatch(&mut s, &mut (), PointerInput::Leave { pointer: 0 })
        .unwrap();
    assert_eq!(
        *log.borrow(),
        [
            "a:PointerOut:target",
            "panel:PointerOut:bubble",
            "a:PointerLeave:target",
            "panel:PointerLeave:target"
        ]
    );
}

#[test]
fn handlers_may_remove_their_own_node_or_an_ancestor() {
    let mut s = Scene::new();
    let r = s.root();
    let panel = s.add(r, Node::container()).unwrap();
    let a = interactive(&mut s, panel, sprite(10, 10));
    let log: Log = Default::default();
    let mut ev: Events<Vec<NodeId>> = Events::new();
    ev.on(a, EventKind::PointerDown, move |cx| {
        let t = cx.event.current_target;
        cx.scene.remove(t).unwrap();
        cx.state.push(t);
    });
    let l2 = log.clone();
    ev.on(a, EventKind::PointerDown, move |_| {
        l2.borrow_mut().push("second".into())
    });
    let l3 = log.clone();
    ev.on(panel, EventKind::PointerDown, move |cx| {
        l3.borrow_mut().push("panel".into());
        let p = cx.event.current_target;
        cx.scene.remove(p).unwrap();
        // Adding nodes in a handler is fine too.
        let root = cx.scene.root();
        cx.scene.add(root, Node::container()).unwrap();
    });
    let l4 = log.clone();
    ev.on(r, EventKind::PointerDown, move |_| {
        l4.borrow_mut().push("root".into())
    });
    let mut removed = Vec::new();
    ev.dispatch(&mut s, &mut removed, down(5.0, 5.0)).unwrap();
    assert_eq!(removed, vec![a]);
    assert_eq!(*log.borrow(), ["second", "panel", "root"]);
    assert!(!s.contains(a) && !s.contains(panel));
    ev.dispatch(&mut s, &mut removed, up(5.0, 5.0)).unwrap();
    ev.dispatch(&mut s, &mut removed, mv(5.0, 5.0)).unwrap();
    assert_eq!(
        ev.handler_count(),
        1,
        "the removed nodes' handlers are dropped"
    );
    assert!(matches!(
        ev.dispatch(&mut s, &mut removed, mv(f32::NAN, 0.0)),
        Err(Error::InvalidPointer(_))
    ));
    assert!(matches!(
        ev.dispatch(
            &mut s,
            &mut removed,
            PointerInput::Wheel {
                pointer: 0,
                position: v(0.0, 0.0),
                delta: v(f32::INFINITY, 0.0)
            }
        ),
        Err(Error::InvalidPointer(_))
    ));
}

#[test]
fn a_node_moved_by_its_pointerdown_handler_is_followed_by_click_and_leave() {
    let mut s = Scene::new();
    let r = s.root();
    let a = s.add(r, Node::container()).unwrap();
    let b = s.add(r, Node::container().at(0.0, 0.0)).unwrap();
    let item = interactive(&mut s, a, sprite(10, 10));
    let log: Log = Default::default();
    let mut ev: Events<NodeId> = Events::new();
    // The drag-layer pattern: on press, the item moves from container a to container b.
    ev.on(item, EventKind::PointerDown, |cx| {
        let layer = *cx.state;
        cx.scene
            .set_parent(cx.event.current_target, layer, usize::MAX)
            .unwrap();
    });
    for (n, name) in [(a, "a"), (b, "b")] {
        for k in [
            EventKind::Click,
            EventKind::PointerEnter,
            EventKind::PointerLeave,
        ] {
            ev.on(n, k, logger(&log, name));
        }
    }
    let mut layer = b;
    ev.dispatch(&mut s, &mut layer, mv(5.0, 5.0)).unwrap();
    assert_eq!(*log.borrow(), ["a:PointerEnter:target"]);
    log.borrow_mut().clear();
    ev.dispatch(&mut s, &mut layer, down(5.0, 5.0)).unwrap();
    ev.dispatch(&mut s, &mut layer, up(5.0, 5.0)).unwrap();
    let l = log.borrow().clone();
    assert!(l.contains(&"b:Click:bubble".to_string()), "{l:?}");
    assert!(!l.iter().any(|e| e.starts_with("a:Click")), "{l:?}");
    log.borrow_mut().clear();
    ev.dispatch(&mut s, &mut layer, mv(500.0, 5.0)).unwrap();
    assert_eq!(
        *log.borrow(),
        ["b:PointerLeave:target"],
        "leaves where it is now"
    );
    // A cancelled touch leaves and forgets its press: its later release clicks nothing.
    log.borrow_mut().clear();
    ev.dispatch(
        &mut s,
        &mut layer,
        PointerInput::Down {
            pointer: 3,
            position: v(5.0, 5.0),
            button: 0,
        },
    )
    .unwrap();
    ev.dispatch(&mut s, &mut layer, PointerInput::Cancel { pointer: 3 })
        .unwrap();
    ev.dispatch(
        &mut s,
        &mut layer,
        PointerInput::Up {
            pointer: 3,
            position: v(5.0, 5.0),
            button: 0,
        },
    )
    .unwrap();
    assert!(
        !log.borrow().iter().any(|e| e.contains("Click")),
        "{:?}",
        log.borrow()
    );
}

#[test]
fn adding_many_children_to_a_sortable_container_stays_linear() {
    let mut s = Scene::new();
    let r = s.root();
    s.set_sortable_children(r, true).unwrap();
    let t = std::time::Instant::now();
    let ids: Vec<NodeId> = (0..30_000)
        .map(|_| s.add(r, Node::container()).unwrap())
        .collect();
    assert!(t.elapsed().as_secs_f32() < 0.5, "{:?}", t.elapsed());
    // Equal z-indices keep the order they were added in; a raised one goes to the end of its run.
    assert_eq!(s.children(r)[0], ids[0]);
    s.set_z_index(ids[0], 1).unwrap();
    assert_eq!(*s.children(r).last().unwrap(), ids[0]);
    let late = s.add(r, Node::container()).unwrap();
    assert_eq!(
        s.children(r)[29_999],
        late,
        "a new child goes after its equals, before higher ones"
    );
    // set_child_index moves a child within its z-index run only.
    s.set_child_index(ids[0], 0).unwrap();
    assert_eq!(*s.children(r).last().unwrap(), ids[0]);
    s.set_child_index(late, 0).unwrap();
    assert_eq!(s.children(r)[0], late);
}

#[test]
fn several_pointers_keep_their_own_state_and_the_cursor_follows_the_hover() {
    let mut s = Scene::new();
    let r = s.root();
    let a = interactive(&mut s, r, sprite(10, 10));
    let b = interactive(&mut s, r, sprite(10, 10).at(20.0, 0.0));
    s.set_cursor(a, Some(Cursor::Pointer)).unwrap();
    let clicks: Rc<RefCell<Vec<(NodeId, u64)>>> = Default::default();
    let mut ev = Events::new();
    for n in [a, b] {
        let c = clicks.clone();
        ev.on(n, EventKind::Click, move |cx| {
            c.borrow_mut().push((cx.event.target, cx.event.pointer))
        });
    }
    let touch = |pointer, x: f32, is_down: bool| match is_down {
        true => PointerInput::Down {
            pointer,
            position: v(x, 5.0),
            button: 0,
        },
        false => PointerInput::Up {
            pointer,
            position: v(x, 5.0),
            button: 0,
        },
    };
    ev.dispatch(&mut s, &mut (), touch(1, 5.0, true)).unwrap();
    ev.dispatch(&mut s, &mut (), touch(2, 25.0, true)).unwrap();
    ev.dispatch(&mut s, &mut (), touch(1, 5.0, false)).unwrap();
    ev.dispatch(&mut s, &mut (), touch(2, 25.0, false)).unwrap();
    assert_eq!(*clicks.borrow(), vec![(a, 1), (b, 2)]);
    ev.dispatch(&mut s, &mut (), mv(5.0, 5.0)).unwrap();
    assert_eq!(ev.cursor(&s), Cursor::Pointer);
    ev.dispatch(&mut s, &mut (), mv(25.0, 5.0)).unwrap();
    assert_eq!(ev.cursor(&s), Cursor::Default);
    assert_eq!(ev.over(0), Some(b));
}

#[test]
fn dynamic_nodes_moving_under_a_still_pointer_get_over_and_out() {
    let mut s = Scene::new();
    let r = s.root();
    let a = s.add(r, sprite(10, 10).at(100.0, 0.0)).unwrap();
    s.set_event_mode(a, EventMode::Dynamic).unwrap();
    let log: Log = Default::default();
    let mut ev = Events::new();
    ev.on(a, EventKind::PointerOver, logger(&log, "a"));
    ev.on(a, EventKind::PointerOut, logger(&log, "a"));
    ev.dispatch(&mut s, &mut (), mv(5.0, 5.0)).unwrap();
    ev.tick(&mut s, &mut ());
    assert!(log.borrow().is_empty());
    s.transform_mut(a).unwrap().position.x = 0.0;
    ev.tick(&mut s, &mut ());
    assert_eq!(*log.borrow(), ["a:PointerOver:target"]);
    s.transform_mut(a).unwrap().position.x = 100.0;
    ev.tick(&mut s, &mut ());
    assert_eq!(
        *log.borrow(),
        ["a:PointerOver:target", "a:PointerOut:target"]
    );
}

/// A reference hit test: every node's world transform from `Scene::world_transform`, every node tested in draw
/// order, no pruning, no cache.
fn reference_hit(s: &Scene, p: Vec2) -> Option<NodeId> {
    fn walk(
        s: &Scene,
        id: NodeId,
        p: Vec2,
        tested: bool,
        out: &mut Option<(bool, Option<NodeId>)>,
    ) {
        if out.is_some() {
            return;
        }
        let n = s.get(id).unwrap();
        let mode = s.event_mode(id).unwrap();
        let descend = s.interactive_children(id);
        if !n.visible || mode == EventMode::None || (mode == EventMode::Passive && !descend) {
            return;
        }
        let interactive = mode.is_interactive();
        let m = s.world_transform(id).unwrap();
        let local = m.inverse().transform_point2(p);
        if !local.is_finite() {
            return;
        }
        let tested_below = tested || interactive;
        let kids = if descend { s.children(id) } else { &[] };
        for &c in kids.iter().rev() {
            walk(s, c, p, tested_below, out);
            if let Some((_, found)) = out {
                if found.is_none() && interactive {
                    *found = Some(id);
                }
                return;
            }
        }
        if tested_below {
            let inside = match &n.kind {
                stage2d::NodeKind::Sprite(sp) => {
                    let size = sp.size_in_pixels();
                    let o = -sp.anchor * size;
                    local.x >= o.x
                        && local.y >= o.y
                        && local.x <= o.x + size.x
                        && local.y <= o.y + size.y
                }
                _ => false,
            };
            if inside {
                *out = Some((true, interactive.then_some(id)));
            }
        }
    }
    let mut out = None;
    walk(s, s.root(), p, false, &mut out);
    out.and_then(|(_, t)| t)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Random trees of sprites and containers (rotated, scaled, pivoted, hidden, in any event mode, with
    /// z-indices), queried at random points and between changes: the cached, pruned walk agrees with the
    /// reference.
    #[test]
    fn hit_test_agrees_with_a_reference_walk(
        ops in proptest::collection::vec((0usize..64, 0u8..12, -100.0f32..300.0, -100.0f32..300.0, 0u8..4, -3i32..3), 1..80),
        points in proptest::collection::vec((-50.0f32..250.0, -50.0f32..250.0), 1..20),
    ) {
        let mut s = Scene::new();
        let mut ids = vec![s.root()];
        s.set_sortable_children(s.root(), true).unwrap();
        for (i, (pick, kind, x, y, mode, z)) in ops.into_iter().enumerate() {
            let parent = ids[pick % ids.len()];
            let node = match kind {
                0 | 1 => Node::container().at(x * 0.2, y * 0.2),
                2 => {
                    let mut n = sprite(30, 20).at(x, y).anchor(0.5, 0.5);
                    n.transform.rotation = x * 0.01;
                    n.transform.scale = v(1.0 + y.abs() * 0.005, 0.5);
                    n
                }
                3 => {
                    let mut n = sprite(40, 40).at(x, y);
                    n.transform.pivot = v(5.0, 10.0);
                    n
                }
                4 => {
                    // Change an existing node instead.
                    let id = ids[pick % ids.len()];
                    if id != s.root() {
                        s.transform_mut(id).unwrap().position += v(x * 0.05, y * 0.05);
                    }
                    if i % 3 == 0 {
                        let _ = s.set_z_index(id, z);
                    }
                    // Query between changes, so stale caches would show.
                    let _ = s.hit_test(v(x, y));
                    continue;
                }
                5 => {
                    let id = ids[pick % ids.len()];
                    if id != s.root() && ids.len() > 2 {
                        s.remove(id).unwrap();
                        ids.retain(|n| s.contains(*n));
                    }
                    continue;
                }
                6 => sprite(20, 20).at(x, y).with_alpha(0.5),
                8..=11 => {
                    // Change the tree or a node's settings after the fact, querying between changes.
                    let id = ids[pick % ids.len()];
                    let other = ids[(pick / 3 + (z + 3) as usize) % ids.len()];
                    let _ = match kind {
                        8 => s.set_parent(id, other, usize::MAX),
                        9 => s.set_child_index(id, (x.abs() as usize) % 5),
                        10 => s.get_mut(id).map(|n| n.visible = !n.visible).ok_or(Error::StaleNode(id)),
                        _ => {
                            let m = [EventMode::Passive, EventMode::Static, EventMode::None, EventMode::Dynamic];
                            s.set_event_mode(id, m[mode as usize])
                                .and_then(|_| s.set_interactive_children(id, z != -3))
                        }
                    };
                    let _ = s.hit_test(v(y, x));
                    continue;
                }
                _ => {
                    let mut n = sprite(25, 25).at(x, y);
                    n.props.visible = x > 0.0;
                    n
                }
            };
            let id = s.add(parent, node).unwrap();
            let mode = [EventMode::Passive, EventMode::Static, EventMode::Dynamic, EventMode::None][mode as usize];
            s.set_event_mode(id, mode).unwrap();
            s.set_sortable_children(id, z > 0).unwrap();
            s.set_z_index(id, z).unwrap();
            ids.push(id);
        }
        for (x, y) in points {
            let p = v(x, y);
            prop_assert_eq!(s.hit_test(p), reference_hit(&s, p), "at {:?}", p);
        }
    }
}
