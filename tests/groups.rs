//! Render groups and culling on the software adapter: a group draws what the plain walk draws, while it moves,
//! tints, fades and changes; culled subtrees draw nothing and come back when they return to the view.

mod common;
use common::*;
use stage2d::glam::Vec2;
use stage2d::graphics::GraphicsContext;
use stage2d::{BlendMode, Color, Node, NodeId, Scene};

/// A scene with one container `g` holding sprites on two textures, a shape and a nested container; `group` makes
/// `g` a render group.
fn scene(r: &mut stage2d::Renderer, group: bool) -> (Scene, NodeId, NodeId) {
    let card = card(r, 16, 16);
    let green = solid(r, 4, 4, [0, 255, 0, 255]);
    let mut s = Scene::new();
    let mut g = Node::container()
        .at(20.0, 10.0)
        .tinted(Color::rgb(1.0, 1.0, 0.5));
    g.render_group = group;
    let g = s.add(s.root(), g).unwrap();
    s.add(g, Node::sprite(card).at(2.0, 3.0)).unwrap();
    s.add(
        g,
        Node::sprite(green)
            .at(30.0, 5.0)
            .sized(10.0, 20.0)
            .with_alpha(0.5),
    )
    .unwrap();
    let mut ctx = GraphicsContext::new();
    ctx.circle(0.0, 0.0, 9.0).fill(Color::rgb(1.0, 0.0, 1.0));
    s.add(g, Node::graphics(ctx).at(20.0, 40.0)).unwrap();
    let inner = s
        .add(g, Node::container().at(44.0, 30.0).blended(BlendMode::Add))
        .unwrap();
    let leaf = s.add(inner, Node::sprite(card).anchor(0.5, 0.5)).unwrap();
    (s, g, leaf)
}

/// Pixels whose channels differ by more than `tol` between two pictures.
fn differing(a: &stage2d::image::RgbaImage, b: &stage2d::image::RgbaImage, tol: u8) -> usize {
    a.pixels()
        .zip(b.pixels())
        .filter(|(x, y)| x.0.iter().zip(y.0).any(|(p, q)| p.abs_diff(q) > tol))
        .count()
}

#[test]
fn a_render_group_draws_what_the_plain_walk_draws_through_moves_tints_and_changes() {
    // One renderer each, so each sees its own scene's frames in a row (as an app does).
    let (mut r1, mut r2) = (renderer(), renderer());
    let (mut plain, pg, pleaf) = scene(&mut r1, false);
    let (mut grouped, gg, gleaf) = scene(&mut r2, true);
    let (t1, t2) = (
        r1.create_render_target(96, 96).unwrap(),
        r2.create_render_target(96, 96).unwrap(),
    );
    let draw = |r: &mut stage2d::Renderer, s: &Scene, t: &stage2d::RenderTarget| {
        r.render(s, t, Some(Color::BLACK)).unwrap();
        (r.read_pixels(t).unwrap(), r.stats().last_frame)
    };
    // Frame 0 records, frame 1 replays; then the group moves, turns, fades; then a child changes.
    type Step = fn(&mut Scene, NodeId, NodeId);
    let steps: [Step; 4] = [
        |_, _, _| {},
        |_, _, _| {},
        |s, g, _| {
            let n = s.get_mut(g).unwrap();
            n.position = Vec2::new(60.0, 20.0);
            n.rotation = 0.5;
            n.scale = Vec2::new(0.8, 1.2);
            n.alpha = 0.6;
        },
        |s, _, leaf| s.get_mut(leaf).unwrap().position.x = -20.0,
    ];
    for (i, step) in steps.iter().enumerate() {
        step(&mut plain, pg, pleaf);
        step(&mut grouped, gg, gleaf);
        let (a, _) = draw(&mut r1, &plain, &t1);
        let (b, stats) = draw(&mut r2, &grouped, &t2);
        // The group's colour is applied on the GPU to 8-bit vertex colours (a step of rounding), and its
        // transform on the GPU too: where an edge passes within float rounding of a pixel centre, that pixel
        // may fall the other way (more often with 4x MSAA, where each edge pixel has four samples to flip).
        let (off, flipped) = (differing(&a, &b, 2), differing(&a, &b, 100));
        if off > 0 {
            a.save(format!("target/group_step{i}_plain.png")).unwrap();
            b.save(format!("target/group_step{i}_group.png")).unwrap();
        }
        assert!(off <= 40 && flipped <= 12, "step {i}: {off} pixels differ");
        assert!(b.pixels().any(|p| p.0 != [0, 0, 0, 255]), "step {i} drew");
        assert_eq!(stats.groups_replayed, 1, "step {i}");
        assert_eq!(stats.sprites, 3, "step {i}");
        let rebuilt = u64::from(i == 0 || i == 3);
        assert_eq!(stats.groups_rebuilt, rebuilt, "step {i}");
        if i == 2 {
            // Moving the group re-sends one 32-byte transform, no quads.
            assert!(stats.bytes_uploaded <= 64, "{}", stats.bytes_uploaded);
        }
    }
}

#[test]
fn groups_holding_masks_or_text_are_walked_and_still_draw() {
    let mut r = renderer();
    let white = r.white_texture();
    let mut s = Scene::new();
    let g = s
        .add(s.root(), Node::container().as_render_group())
        .unwrap();
    let m = s.add_detached(Node::sprite(white).sized(8.0, 8.0));
    let masked = s
        .add(
            g,
            Node::sprite(white)
                .sized(32.0, 32.0)
                .tinted(Color::rgb(1.0, 0.0, 0.0)),
        )
        .unwrap();
    s.set_mask(masked, m, false).unwrap();
    let img = render(&mut r, &s, 32, 32, Color::BLACK);
    probe(&img, 4, 4, [255, 0, 0, 255], 0);
    probe(&img, 12, 12, [0, 0, 0, 255], 0);
    let st = r.stats().last_frame;
    assert_eq!((st.groups_replayed, st.groups_rebuilt), (0, 0));
}

#[test]
fn subtrees_outside_the_target_are_culled_and_return() {
    let mut r = renderer();
    let white = r.white_texture();
    let mut s = Scene::new();
    let camera = s.add(s.root(), Node::container()).unwrap();
    let mut chunks = Vec::new();
    for i in 0..8 {
        let c = s
            .add(camera, Node::container().at(i as f32 * 40.0, 0.0))
            .unwrap();
        for k in 0..4 {
            s.add(
                c,
                Node::sprite(white)
                    .sized(10.0, 10.0)
                    .at(k as f32 * 10.0, 0.0)
                    .tinted(Color::rgb(0.0, 1.0, 0.0)),
            )
            .unwrap();
        }
        chunks.push(c);
    }
    let target = r.create_render_target(64, 16).unwrap();
    // The first frame measures every chunk; the second culls the six beyond x = 64 (chunks 2..8 start at 80).
    for _ in 0..2 {
        r.render(&s, &target, Some(Color::BLACK)).unwrap();
    }
    let st = r.stats().last_frame;
    assert_eq!(st.culled, 6);
    assert_eq!(st.sprites, 8);
    let img = r.read_pixels(&target).unwrap();
    probe(&img, 5, 5, [0, 255, 0, 255], 0);
    probe(&img, 63, 5, [0, 255, 0, 255], 0);
    // The camera pans: chunks 6 and 7 (at -10 and 30) come into view, the first ones go.
    s.get_mut(camera).unwrap().position.x = -250.0;
    r.render(&s, &target, Some(Color::BLACK)).unwrap();
    let st = r.stats().last_frame;
    assert_eq!((st.culled, st.sprites), (6, 8));
    let img = r.read_pixels(&target).unwrap();
    probe(&img, 5, 5, [0, 255, 0, 255], 0);
    probe(&img, 45, 5, [0, 255, 0, 255], 0);
    // Hide them: nothing on screen.
    for c in [chunks[6], chunks[7]] {
        s.get_mut(c).unwrap().visible = false;
    }
    r.render(&s, &target, Some(Color::BLACK)).unwrap();
    let img = r.read_pixels(&target).unwrap();
    probe(&img, 5, 5, [0, 0, 0, 255], 0);
    probe(&img, 45, 5, [0, 0, 0, 255], 0);
    // A culled chunk that moves is walked again (its bounds are stale), and drawn where it now is (40..80).
    s.get_mut(chunks[0]).unwrap().position.x = 290.0;
    r.render(&s, &target, Some(Color::BLACK)).unwrap();
    let img = r.read_pixels(&target).unwrap();
    probe(&img, 45, 5, [0, 255, 0, 255], 0);
    probe(&img, 5, 5, [0, 0, 0, 255], 0);
    // A child moved inside a culled chunk makes it stale too: chunk 1 sits at -210, its first tile moves to 0.
    let far = s.children(chunks[1])[0];
    s.get_mut(far).unwrap().position.x = 210.0;
    r.render(&s, &target, Some(Color::BLACK)).unwrap();
    let img = r.read_pixels(&target).unwrap();
    probe(&img, 5, 5, [0, 255, 0, 255], 0);
    probe(&img, 15, 5, [0, 0, 0, 255], 0);
}

#[test]
fn culled_render_groups_and_render_textures_cull_against_their_own_target() {
    let mut r = renderer();
    let white = r.white_texture();
    let mut s = Scene::new();
    let g = s
        .add(s.root(), Node::container().at(100.0, 0.0).as_render_group())
        .unwrap();
    s.add(g, Node::sprite(white).sized(10.0, 10.0)).unwrap();
    let small = r.create_render_target(50, 50).unwrap();
    let big = r.create_render_target(200, 50).unwrap();
    for _ in 0..2 {
        r.render(&s, &small, Some(Color::BLACK)).unwrap();
    }
    assert_eq!(r.stats().last_frame.culled, 1);
    r.render(&s, &big, Some(Color::BLACK)).unwrap();
    let st = r.stats().last_frame;
    assert_eq!((st.culled, st.groups_replayed), (0, 1));
    probe(
        &r.read_pixels(&big).unwrap(),
        105,
        5,
        [255, 255, 255, 255],
        0,
    );
}
