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
    g.props.render_group = group;
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
            let t = s.transform_mut(g).unwrap();
            t.position = Vec2::new(60.0, 20.0);
            t.rotation = 0.5;
            t.scale = Vec2::new(0.8, 1.2);
            s.get_mut(g).unwrap().alpha = 0.6;
        },
        |s, _, leaf| s.transform_mut(leaf).unwrap().position.x = -20.0,
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
    s.transform_mut(camera).unwrap().position.x = -250.0;
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
    s.transform_mut(chunks[0]).unwrap().position.x = 290.0;
    r.render(&s, &target, Some(Color::BLACK)).unwrap();
    let img = r.read_pixels(&target).unwrap();
    probe(&img, 45, 5, [0, 255, 0, 255], 0);
    probe(&img, 5, 5, [0, 0, 0, 255], 0);
    // A child moved inside a culled chunk makes it stale too: chunk 1 sits at -210, its first tile moves to 0.
    let far = s.children(chunks[1])[0];
    s.transform_mut(far).unwrap().position.x = 210.0;
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

mod differential {
    //! Random edits to a scene drawn with render groups and culling, against the same scene rebuilt from scratch
    //! each step (fresh handles, so nothing cached applies) and drawn without groups: the pictures must agree.
    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    enum Op {
        Move(usize, i8, i8),
        Tint(usize, u8),
        Visible(usize, bool),
        Group(usize, bool),
        AddSprite(usize, u8, u8, u8),
        AddContainer(usize, u8, u8),
        Remove(usize),
        Reparent(usize, usize),
        DestroyTexture(u8),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0..40usize, -40i8..40, -40i8..40).prop_map(|(i, x, y)| Op::Move(i, x, y)),
            2 => (0..40usize, 0..4u8).prop_map(|(i, c)| Op::Tint(i, c)),
            1 => (0..40usize, any::<bool>()).prop_map(|(i, v)| Op::Visible(i, v)),
            3 => (0..40usize, any::<bool>()).prop_map(|(i, g)| Op::Group(i, g)),
            4 => (0..40usize, 0..3u8, 0..64u8, 0..64u8).prop_map(|(p, t, x, y)| Op::AddSprite(p, t, x, y)),
            2 => (0..40usize, 0..64u8, 0..64u8).prop_map(|(p, x, y)| Op::AddContainer(p, x, y)),
            1 => (0..40usize).prop_map(Op::Remove),
            1 => (0..40usize, 0..40usize).prop_map(|(a, b)| Op::Reparent(a, b)),
            1 => (0..3u8).prop_map(Op::DestroyTexture),
        ]
    }

    /// One node of the model: index 0 is the root.
    #[derive(Clone, Debug)]
    struct M {
        parent: Option<usize>,
        pos: Vec2,
        tint: u8,
        visible: bool,
        group: bool,
        texture: Option<u8>,
        alive: bool,
    }

    const TINTS: [Color; 4] = [
        Color::WHITE,
        Color::rgb(1.0, 0.5, 0.5),
        Color::rgb(0.5, 1.0, 0.25),
        Color::rgba(1.0, 1.0, 1.0, 0.5),
    ];

    fn node(m: &M, textures: &[stage2d::Texture], group: bool) -> Node {
        // Texture 0 as a sprite, 1 as a nine-slice sprite, 2 (a test card) as a tiling sprite with turned tiles,
        // so recorded groups replay every kind of quad (a tiling sprite's two entries included).
        let mut n = match m.texture {
            Some(0) => Node::sprite(textures[0]).sized(6.0, 6.0),
            Some(1) => {
                let mut ns = stage2d::NineSliceSprite::new(textures[1], [1.0; 4]);
                ns.size = Vec2::new(7.0, 5.0);
                Node::nine_slice(ns)
            }
            Some(t) => {
                let mut ts = stage2d::TilingSprite::new(textures[t as usize], 9.0, 7.0);
                ts.tile_scale = Vec2::splat(1.5);
                ts.tile_rotation = 0.3;
                ts.tile_position = Vec2::new(1.0, 2.0);
                Node::tiling(ts)
            }
            None => Node::container(),
        };
        n.transform.position = m.pos;
        n.props.tint = TINTS[m.tint as usize];
        n.props.visible = m.visible;
        n.props.render_group = group && m.group;
        n
    }

    /// The live nodes in an order where parents come first.
    fn order(model: &[M]) -> Vec<usize> {
        let mut out = vec![0];
        let mut i = 0;
        while i < out.len() {
            let p = out[i];
            out.extend((1..model.len()).filter(|&c| model[c].alive && model[c].parent == Some(p)));
            i += 1;
        }
        out
    }

    fn rebuild(model: &[M], textures: &[stage2d::Texture]) -> Scene {
        let mut s = Scene::new();
        let root = s.root();
        let n = node(&model[0], textures, false);
        *s.transform_mut(root).unwrap() = n.transform;
        *s.get_mut(root).unwrap() = n.props;
        let mut ids = vec![root; model.len()];
        for i in order(model).into_iter().skip(1) {
            ids[i] = s
                .add(
                    ids[model[i].parent.unwrap()],
                    node(&model[i], textures, false),
                )
                .unwrap();
        }
        s
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
        #[test]
        fn render_groups_and_culling_never_show_a_stale_picture(ops in prop::collection::vec(op(), 1..24)) {
            let (mut rc, mut rp) = (renderer(), renderer());
            let colours = [[255, 0, 0, 255], [0, 0, 255, 255], [255, 255, 255, 255]];
            let mut tc: Vec<_> = colours[..2].iter().map(|&c| solid(&mut rc, 2, 2, c)).collect();
            let mut tp: Vec<_> = colours[..2].iter().map(|&c| solid(&mut rp, 2, 2, c)).collect();
            tc.push(card(&mut rc, 4, 4));
            tp.push(card(&mut rp, 4, 4));
            let (target_c, target_p) = (rc.create_render_target(64, 64).unwrap(), rp.create_render_target(64, 64).unwrap());
            let mut model = vec![M { parent: None, pos: Vec2::ZERO, tint: 0, visible: true, group: false, texture: None, alive: true }];
            let mut scene = Scene::new();
            let mut ids: Vec<NodeId> = vec![scene.root()];
            // A starting tree: two groups of sprites.
            let start = [Op::AddContainer(0, 4, 4), Op::Group(1, true), Op::AddSprite(1, 0, 2, 2),
                Op::AddSprite(1, 1, 20, 8), Op::AddContainer(0, 30, 30), Op::AddSprite(4, 2, 1, 1)];
            for (step, op) in start.iter().chain(&ops).enumerate() {
                let pick = |i: usize, model: &[M]| {
                    let live: Vec<usize> = (0..model.len()).filter(|&k| model[k].alive).collect();
                    live[i % live.len()]
                };
                match *op {
                    Op::Move(i, x, y) => {
                        let i = pick(i, &model);
                        model[i].pos += Vec2::new(x as f32, y as f32);
                        scene.transform_mut(ids[i]).unwrap().position = model[i].pos;
                    }
                    Op::Tint(i, c) => {
                        let i = pick(i, &model);
                        model[i].tint = c;
                        scene.get_mut(ids[i]).unwrap().tint = TINTS[c as usize];
                    }
                    Op::Visible(i, v) => {
                        let i = pick(i, &model);
                        if i != 0 {
                            model[i].visible = v;
                            scene.get_mut(ids[i]).unwrap().visible = v;
                        }
                    }
                    Op::Group(i, g) => {
                        let i = pick(i, &model);
                        model[i].group = g;
                        scene.get_mut(ids[i]).unwrap().render_group = g;
                    }
                    Op::AddSprite(p, _, x, y) | Op::AddContainer(p, x, y) => {
                        let p = pick(p, &model);
                        let texture = match *op { Op::AddSprite(_, t, ..) => Some(t), _ => None };
                        let m = M { parent: Some(p), pos: Vec2::new(x as f32, y as f32), tint: 0, visible: true,
                            group: false, texture, alive: true };
                        ids.push(scene.add(ids[p], node(&m, &tc, true)).unwrap());
                        model.push(m);
                    }
                    Op::Remove(i) => {
                        let i = pick(i, &model);
                        if i != 0 {
                            scene.remove(ids[i]).unwrap();
                            let mut gone = vec![i];
                            while let Some(g) = gone.pop() {
                                model[g].alive = false;
                                gone.extend((0..model.len()).filter(|&c| model[c].alive && model[c].parent == Some(g)));
                            }
                        }
                    }
                    Op::Reparent(a, b) => {
                        let (a, b) = (pick(a, &model), pick(b, &model));
                        let mut up = Some(b);
                        let mut cycle = false;
                        while let Some(u) = up {
                            cycle |= u == a;
                            up = model[u].parent;
                        }
                        if a != 0 && !cycle {
                            scene.set_parent(ids[a], ids[b], usize::MAX).unwrap();
                            model[a].parent = Some(b);
                            // The model's order lists children by index; the scene puts a moved node on top.
                            // Keep them alike: the moved subtree becomes the newest nodes of the model.
                            let moved = order_subtree(&model, a);
                            let base = model.len();
                            let mut remap = std::collections::HashMap::new();
                            for (k, &old) in moved.iter().enumerate() {
                                remap.insert(old, base + k);
                            }
                            for &old in &moved {
                                let mut m = model[old].clone();
                                m.parent = m.parent.map(|p| *remap.get(&p).unwrap_or(&p));
                                model.push(m);
                                ids.push(ids[old]);
                                model[old].alive = false;
                            }
                        }
                    }
                    Op::DestroyTexture(t) => {
                        let _ = rc.destroy_texture(tc[t as usize]);
                        let _ = rp.destroy_texture(tp[t as usize]);
                    }
                }
                rc.render(&scene, &target_c, Some(Color::BLACK)).unwrap();
                let plain = rebuild(&model, &tp);
                rp.render(&plain, &target_p, Some(Color::BLACK)).unwrap();
                let (a, b) = (rc.read_pixels(&target_c).unwrap(), rp.read_pixels(&target_p).unwrap());
                let off = differing(&a, &b, 3);
                prop_assert!(off == 0, "step {} ({:?}): {} pixels differ", step, op, off);
            }
        }
    }

    /// `a` and its live descendants, parents first.
    fn order_subtree(model: &[M], a: usize) -> Vec<usize> {
        let mut out = vec![a];
        let mut i = 0;
        while i < out.len() {
            let p = out[i];
            out.extend((0..model.len()).filter(|&c| model[c].alive && model[c].parent == Some(p)));
            i += 1;
        }
        out
    }
}

/// What a frame leaves out for reasons of its own (a mask empty there, a shape still on the tessellation worker)
/// is not kept as the subtree's bounds or a group's recording: it shows once those reasons are gone.
#[test]
fn what_a_frame_left_out_is_not_cached_as_bounds_or_recordings() {
    let mut r = renderer();
    let white = r.white_texture();
    let green = Color::rgb(0.0, 1.0, 0.0);
    let mut s = Scene::new();
    let a = s.add(s.root(), Node::container()).unwrap();
    let t = s
        .add(
            a,
            Node::sprite(white)
                .sized(16.0, 16.0)
                .at(8.0, 8.0)
                .tinted(green),
        )
        .unwrap();
    // A rectangle mask (a scissor) that starts off the target, as in a reveal.
    let m = s.add_detached(Node::sprite(white).sized(32.0, 32.0).at(-100.0, 0.0));
    s.set_mask(t, m, false).unwrap();
    let target = r.create_render_target(64, 64).unwrap();
    for _ in 0..3 {
        r.render(&s, &target, Some(Color::BLACK)).unwrap();
    }
    probe(&r.read_pixels(&target).unwrap(), 12, 12, [0, 0, 0, 255], 0);
    s.transform_mut(m).unwrap().position.x = 0.0;
    r.render(&s, &target, Some(Color::BLACK)).unwrap();
    probe(
        &r.read_pixels(&target).unwrap(),
        12,
        12,
        [0, 255, 0, 255],
        0,
    );

    // A self-crossing star (tessellated on the worker) in a plain container and in a render group.
    let star: Vec<Vec2> = (0..200)
        .map(|i| {
            let a = (i * 77 % 200) as f32 / 200.0 * std::f32::consts::TAU;
            Vec2::new(16.0 + 14.0 * a.cos(), 16.0 + 14.0 * a.sin())
        })
        .collect();
    let mut g = GraphicsContext::new();
    g.poly(&star).fill(Color::rgb(1.0, 0.0, 0.0));
    let g = std::sync::Arc::new(g);
    let mut s = Scene::new();
    let plain = s.add(s.root(), Node::container()).unwrap();
    s.add(plain, Node::graphics(g.clone())).unwrap();
    let group = s
        .add(s.root(), Node::container().at(32.0, 0.0).as_render_group())
        .unwrap();
    s.add(group, Node::graphics(g)).unwrap();
    let start = std::time::Instant::now();
    let mut on_worker = false;
    loop {
        r.render(&s, &target, Some(Color::BLACK)).unwrap();
        let pending = r.stats().last_frame.tessellations_pending;
        on_worker |= pending > 0;
        if pending == 0 {
            break;
        }
        assert!(start.elapsed().as_secs() < 60, "the worker never finished");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert!(on_worker, "the star is tessellated on the worker");
    r.render(&s, &target, Some(Color::BLACK)).unwrap();
    let img = r.read_pixels(&target).unwrap();
    probe(&img, 16, 16, [255, 0, 0, 255], 0);
    probe(&img, 48, 16, [255, 0, 0, 255], 0);
}

/// A 64x64 grid of 4x4 sprites on four textures (met in another order in each row), as one container `g`,
/// a render group with `group`.
fn grid(r: &mut stage2d::Renderer, group: bool) -> (Scene, NodeId) {
    let colours = [
        [255, 0, 0, 255],
        [0, 255, 0, 255],
        [0, 0, 255, 255],
        [255, 255, 0, 255],
    ];
    let textures: Vec<_> = colours.iter().map(|&c| solid(r, 2, 2, c)).collect();
    let mut s = Scene::new();
    let mut g = Node::container();
    g.props.render_group = group;
    let g = s.add(s.root(), g).unwrap();
    for y in 0..64 {
        for x in 0..64 {
            let t = textures[(3 + x + y * 2) % 4];
            s.add(
                g,
                Node::sprite(t)
                    .sized(4.0, 4.0)
                    .at(x as f32 * 4.0, y as f32 * 4.0),
            )
            .unwrap();
        }
    }
    (s, g)
}

#[test]
fn a_large_group_in_part_of_the_view_draws_only_its_visible_cells_and_the_same_picture() {
    let (mut r1, mut r2) = (renderer(), renderer());
    let (mut plain, pg) = grid(&mut r1, false);
    let (mut grouped, gg) = grid(&mut r2, true);
    let (t1, t2) = (
        r1.create_render_target(96, 96).unwrap(),
        r2.create_render_target(96, 96).unwrap(),
    );
    // (position, scale, rotation, whether cells lie wholly outside the view).
    let views = [
        (Vec2::ZERO, 1.0, 0.0, true),
        (Vec2::new(-37.0, -101.0), 1.0, 0.0, true),
        (Vec2::new(-150.0, -170.0), 1.0, 0.0, true),
        (Vec2::new(-100.0, -60.0), 1.5, 0.3, true),
        (Vec2::new(120.0, 300.0), -1.0, 0.0, true),
        (Vec2::new(5.0, 5.0), 0.3, 0.0, false),
    ];
    for (i, &(at, scale, turn, partial)) in views.iter().enumerate() {
        for (s, g) in [(&mut plain, pg), (&mut grouped, gg)] {
            let t = s.transform_mut(g).unwrap();
            t.position = at;
            t.scale = Vec2::splat(scale);
            t.rotation = turn;
        }
        r1.render(&plain, &t1, Some(Color::BLACK)).unwrap();
        r2.render(&grouped, &t2, Some(Color::BLACK)).unwrap();
        let (a, b) = (r1.read_pixels(&t1).unwrap(), r2.read_pixels(&t2).unwrap());
        let st = r2.stats().last_frame;
        assert_eq!(st.groups_replayed, 1, "view {i}");
        // 4,096 quads make 16 cells; a partial view leaves some out and counts the sprites of the rest.
        assert_eq!(st.group_cells_culled > 0, partial, "view {i}");
        if partial {
            assert!(
                st.sprites < 4096 && st.sprites >= 256,
                "view {i}: {}",
                st.sprites
            );
        } else {
            assert_eq!(st.sprites, 4096, "view {i}");
        }
        // The bind group is shared: one texture order for every batch whatever order the rows meet them in.
        if i > 0 {
            assert_eq!(st.bind_groups_created, 0, "view {i}");
        }
        let (off, flipped) = (differing(&a, &b, 2), differing(&a, &b, 100));
        if off > 0 {
            a.save(format!("target/group_cells{i}_plain.png")).unwrap();
            b.save(format!("target/group_cells{i}_group.png")).unwrap();
        }
        let allowed = if turn == 0.0 && scale.abs() == 1.0 {
            0
        } else {
            60
        };
        assert!(
            off <= allowed && flipped <= allowed,
            "view {i}: {off} pixels differ"
        );
        // Something of each colour is on screen.
        for c in [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]] {
            assert!(b.pixels().any(|p| p.0 == c), "view {i}: {c:?} drawn");
        }
    }
}

#[test]
fn groups_that_meet_the_same_textures_in_another_order_share_a_bind_group() {
    // Two render groups, each with a red and a green sprite; in the second the order of the two is `swapped`.
    let bind_groups = |swapped: bool| {
        let mut r = renderer();
        let red = solid(&mut r, 2, 2, [255, 0, 0, 255]);
        let green = solid(&mut r, 2, 2, [0, 255, 0, 255]);
        let mut s = Scene::new();
        for g in 0..2 {
            let group = s
                .add(
                    s.root(),
                    Node::container().at(0.0, g as f32 * 8.0).as_render_group(),
                )
                .unwrap();
            let (a, b) = if g == 1 && swapped {
                (green, red)
            } else {
                (red, green)
            };
            s.add(group, Node::sprite(a).sized(4.0, 4.0)).unwrap();
            s.add(group, Node::sprite(b).sized(4.0, 4.0).at(4.0, 0.0))
                .unwrap();
        }
        let img = render(&mut r, &s, 8, 16, Color::BLACK);
        probe(&img, 1, 1, [255, 0, 0, 255], 0);
        probe(&img, 5, 1, [0, 255, 0, 255], 0);
        let second = if swapped {
            [[0, 255, 0, 255], [255, 0, 0, 255]]
        } else {
            [[255, 0, 0, 255], [0, 255, 0, 255]]
        };
        probe(&img, 1, 9, second[0], 0);
        probe(&img, 5, 9, second[1], 0);
        r.stats().live.bind_groups
    };
    assert_eq!(bind_groups(true), bind_groups(false));
}
