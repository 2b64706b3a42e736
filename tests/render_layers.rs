//! Render layers: attached nodes draw where the layer sits with what they inherit where they stand; detach,
//! sorting by z-index, layers inside masks, render groups and render textures; hit testing in draw order;
//! removal; bad attachments; PixiJS's render-layer scenes.

mod common;

use common::*;
use stage2d::glam::Vec2;
use stage2d::{Color, ColorMatrix, Error, EventMode, Filter, GraphicsContext, Node, NodeId, Scene};

fn square(x: f32, y: f32, side: f32, color: u32) -> Node {
    let mut g = GraphicsContext::new();
    g.rect(0.0, 0.0, side, side).fill(Color::hex(color));
    Node::graphics(g).at(x, y)
}

const RED: [u8; 4] = [255, 0, 0, 255];
const BLUE: [u8; 4] = [0, 0, 255, 255];
const GREEN: [u8; 4] = [0, 255, 0, 255];
const BLACK: [u8; 4] = [0, 0, 0, 255];

/// PixiJS's `container/render-layer` scene: a blue square under a red one in the tree, drawn over it by a layer
/// added after both.
#[test]
fn pixijs_render_layer() {
    let mut r = renderer();
    let mut s = Scene::new();
    let front = s.add(s.root(), square(0.0, 0.0, 50.0, 0x0000ff)).unwrap();
    s.add(s.root(), square(0.0, 0.0, 100.0, 0xff0000)).unwrap();
    let layer = s.add(s.root(), Node::render_layer()).unwrap();
    s.attach_to_layer(layer, front).unwrap();
    let img = render_pixijs(&mut r, &s);
    probe(&img, 25, 25, BLUE, 0);
    pixijs("render-layer", &img, 100);
}

/// PixiJS's `container/render-filter-layer` scene: the same with a white front square tinted yellow by a colour
/// matrix, drawn by the layer with its filter.
#[test]
fn pixijs_render_filter_layer() {
    let mut r = renderer();
    let mut s = Scene::new();
    let front = s.add(s.root(), square(0.0, 0.0, 50.0, 0xffffff)).unwrap();
    s.add(s.root(), square(0.0, 0.0, 100.0, 0xff0000)).unwrap();
    let layer = s.add(s.root(), Node::render_layer()).unwrap();
    let mut m = ColorMatrix::default();
    m.tint(Color::hex(0xffff00), false);
    s.set_filters(front, vec![Filter::color_matrix(m)]).unwrap();
    s.attach_to_layer(layer, front).unwrap();
    pixijs("render-filter-layer", &render_pixijs(&mut r, &s), 100);
}

/// PixiJS's `mask/layer-mask` scene: a container masked by a framed rounded rectangle of its own children,
/// holding a framed background and a bar wider than the mask.
#[test]
fn pixijs_layer_mask() {
    let mut r = renderer();
    let mut s = Scene::new();
    let (w, h, border, radius) = (108.0, 108.0, 4.0, 4.0);
    let wrapper = s.add(s.root(), Node::container().at(10.0, 10.0)).unwrap();
    let framed = |outer: u32, inner: u32| {
        let mut g = GraphicsContext::new();
        g.round_rect(0.0, 0.0, w, h, radius + border)
            .fill(Color::hex(outer));
        g.round_rect(border, border, w - 2.0 * border, h - 2.0 * border, radius)
            .fill(Color::hex(inner));
        Node::graphics(g)
    };
    let mask = s.add(wrapper, framed(0xff0000, 0xffffff)).unwrap();
    s.add(wrapper, framed(0xffffff, 0x0000ff)).unwrap();
    let mut bar = GraphicsContext::new();
    bar.rect(0.0, 0.0, 1000.0, 20.0).fill(Color::hex(0x00ff00));
    s.add(wrapper, Node::graphics(bar)).unwrap();
    s.set_mask(wrapper, mask, false).unwrap();
    pixijs("layer-mask", &render_pixijs(&mut r, &s), 100);
}

/// A scene of a red square at the back, a container moved by (10, 0) and half transparent holding a blue
/// square, then a green square over both, and a layer on top.
fn stack() -> (Scene, NodeId, NodeId, NodeId, NodeId) {
    let mut s = Scene::new();
    let back = s.add(s.root(), square(0.0, 0.0, 40.0, 0xff0000)).unwrap();
    let holder = s
        .add(s.root(), Node::container().at(10.0, 0.0).with_alpha(0.5))
        .unwrap();
    let blue = s.add(holder, square(0.0, 0.0, 20.0, 0x0000ff)).unwrap();
    s.add(s.root(), square(5.0, 5.0, 10.0, 0x00ff00)).unwrap();
    let layer = s.add(s.root(), Node::render_layer()).unwrap();
    (s, back, holder, blue, layer)
}

#[test]
fn attached_nodes_draw_at_the_layer_with_what_they_inherit_and_detach_back() {
    let mut r = renderer_with_msaa(false);
    let (mut s, back, holder, blue, layer) = stack();
    let img = render(&mut r, &s, 48, 48, Color::BLACK);
    // In place: the green square over the half-transparent blue one.
    probe(&img, 12, 8, GREEN, 0);
    probe(&img, 25, 8, [128, 0, 128, 255], 1);
    s.attach_to_layer(layer, blue).unwrap();
    assert_eq!(s.layer_of(blue), Some(layer));
    let img = render(&mut r, &s, 48, 48, Color::BLACK);
    // On the layer: over the green square, still moved and half transparent by its container.
    probe(&img, 12, 8, [0, 128, 128, 255], 1);
    probe(&img, 25, 8, [128, 0, 128, 255], 1);
    probe(&img, 35, 8, RED, 0);
    // Moving its container moves it on the layer.
    s.transform_mut(holder).unwrap().position.x = 20.0;
    let img = render(&mut r, &s, 48, 48, Color::BLACK);
    probe(&img, 12, 8, GREEN, 0);
    probe(&img, 35, 8, [128, 0, 128, 255], 1);
    // Hidden where it stands: not drawn on the layer either.
    s.get_mut(holder).unwrap().visible = false;
    let img = render(&mut r, &s, 48, 48, Color::BLACK);
    probe(&img, 35, 8, RED, 0);
    s.get_mut(holder).unwrap().visible = true;
    // Detached: in place again.
    assert!(s.detach_from_layer(blue).unwrap());
    assert!(!s.detach_from_layer(blue).unwrap());
    s.transform_mut(holder).unwrap().position.x = 10.0;
    let img = render(&mut r, &s, 48, 48, Color::BLACK);
    probe(&img, 12, 8, GREEN, 0);
    // The layer removed: its nodes draw in place. A removed node leaves its layer.
    s.attach_to_layer(layer, blue).unwrap();
    s.attach_to_layer(layer, back).unwrap();
    s.remove(back).unwrap();
    assert_eq!(
        s.get(layer).unwrap().as_layer().unwrap().attached(),
        &[blue]
    );
    s.remove(layer).unwrap();
    assert_eq!(s.layer_of(blue), None);
    let img = render(&mut r, &s, 48, 48, Color::BLACK);
    probe(&img, 12, 8, GREEN, 0);
    probe(&img, 25, 8, [0, 0, 128, 255], 1);
}

#[test]
fn a_layer_sorts_by_z_index_when_asked_and_draws_before_its_children() {
    let mut r = renderer_with_msaa(false);
    let mut s = Scene::new();
    let a = s.add(s.root(), square(0.0, 0.0, 20.0, 0xff0000)).unwrap();
    let b = s.add(s.root(), square(0.0, 0.0, 20.0, 0x0000ff)).unwrap();
    let layer = s.add(s.root(), Node::render_layer()).unwrap();
    s.add(layer, square(10.0, 10.0, 20.0, 0x00ff00)).unwrap();
    s.attach_to_layer(layer, b).unwrap();
    s.attach_to_layer(layer, a).unwrap();
    let img = render(&mut r, &s, 32, 32, Color::BLACK);
    // Attach order: a (red) over b; the layer's own child over both.
    probe(&img, 5, 5, RED, 0);
    probe(&img, 15, 15, GREEN, 0);
    s.set_z_index(b, 1).unwrap();
    let img = render(&mut r, &s, 32, 32, Color::BLACK);
    probe(&img, 5, 5, RED, 0);
    s.get_mut(layer)
        .unwrap()
        .as_layer_mut()
        .unwrap()
        .sort_children = true;
    let img = render(&mut r, &s, 32, 32, Color::BLACK);
    probe(&img, 5, 5, BLUE, 0);
    assert_eq!(s.layer_draw_order(layer), vec![a, b]);
}

#[test]
fn a_layer_inside_a_mask_a_render_group_and_a_render_texture() {
    let mut r = renderer();
    let (mut s, _, _, blue, layer) = stack();
    // The layer in a masked container: its nodes are clipped by the layer's mask, not their own ancestors'.
    let clip = s.add(s.root(), Node::container()).unwrap();
    s.set_parent(layer, clip, usize::MAX).unwrap();
    let mut g = GraphicsContext::new();
    g.rect(0.0, 0.0, 18.0, 48.0).fill(Color::WHITE);
    let m = s.add(s.root(), Node::graphics(g)).unwrap();
    s.set_mask(clip, m, false).unwrap();
    s.attach_to_layer(layer, blue).unwrap();
    let img = render(&mut r, &s, 48, 48, Color::BLACK);
    probe(&img, 14, 8, [0, 128, 128, 255], 1);
    probe(&img, 25, 8, RED, 0);
    // In a render group: the same picture.
    s.get_mut(clip).unwrap().render_group = true;
    let again = render(&mut r, &s, 48, 48, Color::BLACK);
    assert_eq!(pixelmatch(&img, &again, 0.0).0, 0);
    // Into a render texture.
    let rt = r
        .create_render_texture(stage2d::RenderTextureOptions::new(48, 48))
        .unwrap();
    r.render(&s, &rt, Some(Color::BLACK)).unwrap();
    let mut shown = Scene::new();
    shown.add(shown.root(), Node::sprite(rt.texture())).unwrap();
    let img = render(&mut r, &shown, 48, 48, Color::BLACK);
    probe(&img, 14, 8, [0, 128, 128, 255], 1);
    golden("render_layers", &again);
}

#[test]
fn hit_testing_follows_the_draw_order() {
    let (mut s, _, _, blue, layer) = stack();
    let green = s.children(s.root())[2];
    for n in [blue, green] {
        s.set_event_mode(n, EventMode::Static).unwrap();
    }
    let p = Vec2::new(12.0, 8.0);
    assert_eq!(s.hit_test(p), Some(green));
    s.attach_to_layer(layer, blue).unwrap();
    assert_eq!(s.hit_test(p), Some(blue));
    assert_eq!(s.hit_test_all(p), vec![blue, green]);
    // Where only the blue square is, it is hit through the layer, in its container's space.
    assert_eq!(s.hit_test(Vec2::new(28.0, 15.0)), Some(blue));
    assert_eq!(s.hit_test(Vec2::new(31.0, 15.0)), None);
    s.detach_from_layer(blue).unwrap();
    assert_eq!(s.hit_test(p), Some(green));
}

#[test]
fn bad_attachments_are_errors() {
    let (mut s, back, holder, blue, layer) = stack();
    let other_layer = s.add(s.root(), Node::render_layer()).unwrap();
    // Not a layer; the root; a node holding the layer; the layer itself.
    assert!(matches!(
        s.attach_to_layer(back, blue),
        Err(Error::RenderLayer(_))
    ));
    assert!(matches!(
        s.attach_to_layer(layer, s.root()),
        Err(Error::RootNode(_))
    ));
    let inner = s.add(holder, Node::render_layer()).unwrap();
    assert!(matches!(
        s.attach_to_layer(inner, holder),
        Err(Error::RenderLayer(_))
    ));
    assert!(matches!(
        s.attach_to_layer(layer, layer),
        Err(Error::RenderLayer(_))
    ));
    // Two layers.
    s.attach_to_layer(layer, blue).unwrap();
    assert!(matches!(
        s.attach_to_layer(other_layer, blue),
        Err(Error::RenderLayer(_))
    ));
    // Another scene's layer or node.
    let mut t = Scene::new();
    let foreign = t.add(t.root(), Node::render_layer()).unwrap();
    assert!(matches!(
        s.attach_to_layer(foreign, back),
        Err(Error::ForeignNode(_))
    ));
    assert!(matches!(
        t.attach_to_layer(foreign, back),
        Err(Error::ForeignNode(_))
    ));
    // A layer copied into another scene carries no attachments.
    let copy = Node::from_parts(*s.transform(layer).unwrap(), s.get(layer).unwrap().clone());
    let l2 = t.add(t.root(), copy).unwrap();
    assert!(t.get(l2).unwrap().as_layer().unwrap().attached().is_empty());
    // Layers that would draw each other: a node holding layer B on layer A, a node holding A on B.
    let mut s = Scene::new();
    let x = s.add(s.root(), Node::container()).unwrap();
    let y = s.add(s.root(), Node::container()).unwrap();
    let a = s.add(y, Node::render_layer()).unwrap();
    let b = s.add(x, Node::render_layer()).unwrap();
    s.add(x, square(0.0, 0.0, 4.0, 0xff0000)).unwrap();
    s.attach_to_layer(a, x).unwrap();
    s.attach_to_layer(b, y).unwrap();
    // Each layer lies in a subtree only the other draws: neither is reached, nothing is drawn, nothing hangs.
    let mut r = renderer();
    let t0 = std::time::Instant::now();
    let img = render(&mut r, &s, 8, 8, Color::BLACK);
    assert!(t0.elapsed().as_secs() < 2);
    probe(&img, 2, 2, BLACK, 0);
    probe(&img, 6, 6, BLACK, 0);
    assert_eq!(s.hit_test(Vec2::new(2.0, 2.0)), None);
}
