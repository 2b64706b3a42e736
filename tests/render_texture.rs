//! Render textures: draw a subtree into a texture, show it, chain them, pool them; pipeline counts across target
//! switches; the errors a user can run into.

mod common;
use common::*;
use stage2d::glam::Vec2;
use stage2d::{Color, Error, GraphicsContext, Node, RenderTextureOptions, Scene};

fn quadrants(r: &stage2d::Renderer, s: &mut Scene) -> stage2d::NodeId {
    let white = r.white_texture();
    let c = s.add(s.root(), Node::container()).unwrap();
    s.add(c, Node::sprite(white).sized(8.0, 8.0).tinted(Color::RED))
        .unwrap();
    s.add(
        c,
        Node::sprite(white)
            .sized(8.0, 8.0)
            .at(8.0, 0.0)
            .tinted(Color::GREEN),
    )
    .unwrap();
    s.add(
        c,
        Node::sprite(white)
            .sized(8.0, 8.0)
            .at(0.0, 8.0)
            .tinted(Color::BLUE),
    )
    .unwrap();
    c
}

#[test]
fn render_a_subtree_then_sample_it_as_a_sprite() {
    let mut r = renderer();
    let mut s = Scene::new();
    let src = quadrants(&r, &mut s);
    // The source is hidden in the main scene and moved: render_node ignores both.
    s.get_mut(src).unwrap().visible = false;
    let rt = r
        .create_render_texture(RenderTextureOptions::new(16, 16))
        .unwrap();
    r.render_node(&s, src, &rt, Some(Color::TRANSPARENT))
        .unwrap();
    let shown = s
        .add(s.root(), Node::sprite(rt.texture()).at(4.0, 4.0))
        .unwrap();
    s.transform_mut(shown).unwrap().scale = Vec2::splat(2.0);
    let img = render(&mut r, &s, 40, 40, Color::BLACK);
    probe(&img, 8, 8, [255, 0, 0, 255], 0);
    probe(&img, 24, 8, [0, 255, 0, 255], 0);
    probe(&img, 8, 24, [0, 0, 255, 255], 0);
    probe(&img, 24, 24, [0, 0, 0, 255], 0); // transparent quadrant shows the clear colour
    probe(&img, 2, 2, [0, 0, 0, 255], 0);
    golden("rt_sampled", &img);
}

#[test]
fn a_render_texture_drawn_from_another_render_texture() {
    let mut r = renderer();
    let mut s = Scene::new();
    let src = quadrants(&r, &mut s);
    let first = r
        .create_render_texture(RenderTextureOptions::new(16, 16))
        .unwrap();
    r.render_node(&s, src, &first, Some(Color::TRANSPARENT))
        .unwrap();
    // Second texture: the first one, rotated half a turn and tinted yellow.
    let mid = s.add_detached(Node::container());
    let n = s
        .add(
            mid,
            Node::sprite(first.texture())
                .anchor(0.5, 0.5)
                .at(8.0, 8.0)
                .tinted(Color::rgb(1.0, 1.0, 0.0)),
        )
        .unwrap();
    s.transform_mut(n).unwrap().rotation = std::f32::consts::PI;
    let second = r
        .create_render_texture(RenderTextureOptions::new(16, 16))
        .unwrap();
    r.render_node(&s, mid, &second, Some(Color::TRANSPARENT))
        .unwrap();
    let mut main = Scene::new();
    main.add(main.root(), Node::sprite(second.texture()))
        .unwrap();
    let img = render(&mut r, &main, 16, 16, Color::BLACK);
    probe(&img, 12, 12, [255, 0, 0, 255], 0); // red moved to the bottom right, tint keeps red
    probe(&img, 4, 12, [0, 255, 0, 255], 0); // green * yellow = green, rotated to the bottom left
    probe(&img, 12, 4, [0, 0, 0, 255], 0); // blue * yellow = black
    golden("rt_chained", &img);
}

#[test]
fn a_multisampled_render_texture_is_resolved() {
    let mut r = renderer();
    let mut s = Scene::new();
    let mut g = GraphicsContext::new();
    g.circle(16.0, 16.0, 12.0).fill(Color::WHITE);
    let c = s.add(s.root(), Node::graphics(g)).unwrap();
    let plain = r
        .create_render_texture(RenderTextureOptions::new(32, 32))
        .unwrap();
    let msaa = r
        .create_render_texture(RenderTextureOptions::new(32, 32).with_msaa(true))
        .unwrap();
    r.render_node(&s, c, &plain, Some(Color::BLACK)).unwrap();
    r.render_node(&s, c, &msaa, Some(Color::BLACK)).unwrap();
    let edge = |img: &stage2d::image::RgbaImage| {
        img.pixels().filter(|p| p.0[0] > 10 && p.0[0] < 245).count()
    };
    let a = r.read_pixels(&plain).unwrap();
    let b = r.read_pixels(&msaa).unwrap();
    assert_eq!(edge(&a), 0);
    assert!(edge(&b) > 30);
    probe(&b, 16, 16, [255, 255, 255, 255], 0);
    golden("rt_msaa_resolved", &b);
}

#[test]
fn pipelines_follow_the_target_format_and_switching_back_finds_them() {
    let mut r = renderer();
    let mut s = Scene::new();
    let src = quadrants(&r, &mut s);
    let rgba = r
        .create_render_texture(RenderTextureOptions::new(16, 16))
        .unwrap();
    let bgra = r
        .create_render_texture(
            RenderTextureOptions::new(16, 16).with_format(stage2d::wgpu::TextureFormat::Bgra8Unorm),
        )
        .unwrap();
    r.render_node(&s, src, &rgba, Some(Color::BLACK)).unwrap();
    assert_eq!(r.stats().last_frame.pipelines_created, 1);
    r.render_node(&s, src, &bgra, Some(Color::BLACK)).unwrap();
    let f = r.stats().last_frame;
    assert_eq!(
        f.pipelines_created, 1,
        "another colour format never shares a pipeline"
    );
    assert_eq!(f.pipe_cache_switches, 1);
    r.render_node(&s, src, &rgba, Some(Color::BLACK)).unwrap();
    let f = r.stats().last_frame;
    assert_eq!(
        (f.pipelines_created, f.pipe_cache_switches),
        (0, 1),
        "switching back finds the old pipelines"
    );
    assert_eq!(r.stats().total.pipelines_created, 2);
    // BGRA targets read back in RGBA order.
    let img = r.read_pixels(&bgra).unwrap();
    probe(&img, 2, 2, [255, 0, 0, 255], 0);
    probe(&img, 10, 2, [0, 255, 0, 255], 0);
    probe(&img, 2, 10, [0, 0, 255, 255], 0);
    assert!(matches!(
        r.create_render_texture(
            RenderTextureOptions::new(4, 4)
                .with_format(stage2d::wgpu::TextureFormat::Rgba8UnormSrgb)
        ),
        Err(Error::UnsupportedFormat(_))
    ));
}

#[test]
fn drawing_a_texture_into_itself_is_an_error_not_a_panic() {
    let mut r = renderer();
    let rt = r
        .create_render_texture(RenderTextureOptions::new(8, 8))
        .unwrap();
    let mut s = Scene::new();
    s.add(s.root(), Node::sprite(rt.texture())).unwrap();
    match r.render(&s, &rt, Some(Color::BLACK)) {
        Err(Error::FeedbackLoop(id)) => assert_eq!(id, rt.texture().id()),
        other => panic!("expected FeedbackLoop, got {other:?}"),
    }
    // Drawing it elsewhere works.
    let white = r.white_texture();
    let mut src = Scene::new();
    src.add(
        src.root(),
        Node::sprite(white).sized(8.0, 8.0).tinted(Color::GREEN),
    )
    .unwrap();
    r.render(&src, &rt, Some(Color::BLACK)).unwrap();
    probe(
        &render(&mut r, &s, 8, 8, Color::BLACK),
        4,
        4,
        [0, 255, 0, 255],
        0,
    );
}

#[test]
fn pooled_textures_return_on_drop_and_are_reused() {
    let mut r = renderer();
    let opts = RenderTextureOptions::new(32, 16);
    let created = r.stats().total.textures_created;
    let id = {
        let t = r.acquire_render_texture(opts).unwrap();
        assert_eq!((t.width(), t.height()), (32, 16));
        t.texture().id()
    };
    assert_eq!(r.pooled_render_textures(), 1);
    let again = r.acquire_render_texture(opts).unwrap();
    // The same storage, lent under a new handle: the old one is stale.
    assert_eq!(again.texture().id().index(), id.index());
    assert_ne!(again.texture().id(), id);
    assert_eq!(r.pool_hits(), 1);
    assert_eq!(r.stats().total.textures_created, created + 1);
    let other = r
        .acquire_render_texture(RenderTextureOptions::new(8, 8))
        .unwrap();
    assert_ne!(
        other.texture().id().index(),
        id.index(),
        "another size is another texture"
    );
}

#[test]
fn resizing_makes_a_new_texture_and_the_old_handle_stale() {
    let mut r = renderer();
    let mut rt = r
        .create_render_texture(RenderTextureOptions::new(8, 8))
        .unwrap();
    let old = rt.texture();
    r.resize_render_texture(&mut rt, 20, 10).unwrap();
    assert_eq!((rt.width(), rt.height()), (20, 10));
    assert_eq!(rt.texture().source_size(), [20, 10]);
    let white = r.white_texture();
    let mut src = Scene::new();
    src.add(
        src.root(),
        Node::sprite(white).sized(20.0, 10.0).tinted(Color::BLUE),
    )
    .unwrap();
    r.render(&src, &rt, None).unwrap();
    let mut s = Scene::new();
    s.add(s.root(), Node::sprite(old)).unwrap();
    s.add(s.root(), Node::sprite(rt.texture()).at(0.0, 10.0))
        .unwrap();
    let img = render(&mut r, &s, 20, 20, Color::BLACK);
    probe(&img, 4, 4, [0, 0, 0, 255], 0);
    probe(&img, 18, 18, [0, 0, 255, 255], 0);
    assert_eq!(r.stats().last_frame.nodes_skipped, 1);
}

#[test]
fn masks_work_inside_a_render_texture_with_its_own_stencil() {
    let mut r = renderer();
    let mut s = Scene::new();
    let white = r.white_texture();
    let c = s.add(s.root(), Node::container()).unwrap();
    s.add(c, Node::sprite(white).sized(32.0, 32.0).tinted(Color::RED))
        .unwrap();
    let mut g = GraphicsContext::new();
    g.circle(16.0, 16.0, 10.0).fill(Color::WHITE);
    let m = s.add_detached(Node::graphics(g));
    s.set_mask(c, m, false).unwrap();
    let rt = r
        .create_render_texture(RenderTextureOptions::new(32, 32).with_depth_stencil(true))
        .unwrap();
    r.render(&s, &rt, Some(Color::BLACK)).unwrap();
    let img = r.read_pixels(&rt).unwrap();
    probe(&img, 16, 16, [255, 0, 0, 255], 0);
    probe(&img, 2, 2, [0, 0, 0, 255], 0);
    // A different-sized main target masks with its own stencil attachment.
    let img = render(&mut r, &s, 48, 40, Color::BLACK);
    probe(&img, 16, 16, [255, 0, 0, 255], 0);
    probe(&img, 30, 30, [0, 0, 0, 255], 0);
}

#[test]
fn dropped_render_textures_free_their_slots() {
    let mut r = renderer();
    let white = r.white_texture();
    let mut s = Scene::new();
    s.add(s.root(), Node::sprite(white)).unwrap();
    let mut max_index = 0;
    for _ in 0..50 {
        let rt = r
            .create_render_texture(RenderTextureOptions::new(4, 4))
            .unwrap();
        max_index = max_index.max(rt.texture().id().index());
        r.render(&s, &rt, None).unwrap();
    }
    assert!(
        max_index < 5,
        "slots are reused, not leaked (max index {max_index})"
    );
}

#[test]
fn a_frame_dropped_by_an_error_does_not_leave_stale_geometry_on_the_gpu() {
    // The streams upload only what changed since the last frame. A frame that fails after collecting (here a
    // feedback loop) never reaches the GPU, so the next frame must not count on its contents being there.
    let mut r = renderer();
    let white = r.white_texture();
    let target = r.create_render_target(8, 8).unwrap();
    let rt = r
        .create_render_texture(RenderTextureOptions::new(8, 8))
        .unwrap();
    let sprite = |c: Color| Node::sprite(white).sized(8.0, 8.0).tinted(c);
    let mut green = Scene::new();
    green.add(green.root(), sprite(Color::GREEN)).unwrap();
    r.render(&green, &target, Some(Color::BLACK)).unwrap();
    let mut red = Scene::new();
    red.add(red.root(), sprite(Color::RED)).unwrap();
    let mut looped = Scene::new();
    looped.add(looped.root(), sprite(Color::RED)).unwrap();
    looped
        .add(looped.root(), Node::sprite(rt.texture()))
        .unwrap();
    assert!(matches!(
        r.render(&looped, &rt, Some(Color::BLACK)),
        Err(Error::FeedbackLoop(_))
    ));
    r.render(&red, &target, Some(Color::BLACK)).unwrap();
    probe(&r.read_pixels(&target).unwrap(), 4, 4, [255, 0, 0, 255], 0);
}

#[test]
fn render_node_with_a_transform_draws_a_minimap_without_changing_the_scene() {
    let mut r = renderer();
    let mut s = Scene::new();
    // A 16x16 world of quadrants at (40, 40), minimapped at a quarter of its size with a 2-pixel margin.
    let world = quadrants(&r, &mut s);
    s.transform_mut(world).unwrap().position = Vec2::new(40.0, 40.0);
    let before = *s.transform(world).unwrap();
    let minimap = r
        .create_render_texture(RenderTextureOptions::new(8, 8))
        .unwrap();
    let t = stage2d::glam::Affine2::from_scale_angle_translation(
        Vec2::splat(0.25),
        0.0,
        Vec2::new(-8.0, -8.0),
    );
    r.render_node_transformed(&s, world, &minimap, t, Some(Color::BLACK))
        .unwrap();
    let img = r.read_pixels(&minimap).unwrap();
    // The world (its own transform applied, at 40..56) lands at 2..6: red, green, blue quadrants of 2 pixels.
    probe(&img, 2, 2, [255, 0, 0, 255], 0);
    probe(&img, 4, 2, [0, 255, 0, 255], 0);
    probe(&img, 2, 4, [0, 0, 255, 255], 0);
    probe(&img, 4, 4, [0, 0, 0, 255], 0);
    probe(&img, 1, 1, [0, 0, 0, 255], 0);
    probe(&img, 6, 6, [0, 0, 0, 255], 0);
    // The same picture as the subtree scaled in the scene, and the scene is as it was.
    assert_eq!(*s.transform(world).unwrap(), before);
    let mut scaled = Scene::new();
    let holder = scaled
        .add(scaled.root(), Node::container().at(-8.0, -8.0).scaled(0.25))
        .unwrap();
    let copy = quadrants(&r, &mut scaled);
    scaled.set_parent(copy, holder, 0).unwrap();
    scaled.transform_mut(copy).unwrap().position = Vec2::new(40.0, 40.0);
    let reference = r
        .create_render_texture(RenderTextureOptions::new(8, 8))
        .unwrap();
    r.render_node(&scaled, holder, &reference, Some(Color::BLACK))
        .unwrap();
    assert!(img == r.read_pixels(&reference).unwrap());
    // A non-finite transform is an error, and nothing was drawn.
    let nan = stage2d::glam::Affine2::from_scale(Vec2::new(f32::NAN, 1.0));
    let e = r
        .render_node_transformed(&s, world, &minimap, nan, Some(Color::WHITE))
        .unwrap_err();
    assert!(matches!(e, Error::InvalidTransform(_)), "{e}");
    assert!(img == r.read_pixels(&minimap).unwrap());
}

#[test]
fn a_render_texture_samples_as_its_options_say() {
    let mut r = renderer();
    let white = r.white_texture();
    let mut src = Scene::new();
    src.add(
        src.root(),
        Node::sprite(white).sized(1.0, 1.0).tinted(Color::RED),
    )
    .unwrap();
    src.add(
        src.root(),
        Node::sprite(white)
            .sized(1.0, 1.0)
            .at(1.0, 0.0)
            .tinted(Color::BLUE),
    )
    .unwrap();
    let mut shown = Vec::new();
    for sampling in [stage2d::Sampling::NEAREST, stage2d::Sampling::LINEAR] {
        let rt = r
            .create_render_texture(RenderTextureOptions::new(2, 1).with_sampling(sampling))
            .unwrap();
        r.render(&src, &rt, Some(Color::BLACK)).unwrap();
        // Shown 8 times larger: pixel 6 lies between the two texels' centres (4 and 12).
        let mut s = Scene::new();
        s.add(s.root(), Node::sprite(rt.texture()).scaled(8.0))
            .unwrap();
        let img = render(&mut r, &s, 16, 8, Color::BLACK);
        shown.push(px(&img, 6, 4));
    }
    assert_eq!(shown[0], [255, 0, 0, 255], "nearest keeps the texel");
    assert!(
        shown[1][2] > 40 && shown[1][0] < 230,
        "linear blends: {:?}",
        shown[1]
    );
}

/// `render_node` of a node without a parent (PixiJS's `generateTexture(graphics)`) draws it with its own fill
/// colour, tint and alpha; it drew the node opaque white (the walk's start was drawn as a mask shape).
#[test]
fn render_node_of_a_detached_node_keeps_its_colour_tint_and_alpha() {
    let mut r = renderer();
    let white = r.white_texture();
    let mut s = Scene::new();
    let mut g = GraphicsContext::new();
    g.rect(0.0, 0.0, 8.0, 8.0).fill(Color::rgb(0.0, 1.0, 0.0));
    let shape = s.add_detached(Node::graphics(g));
    let sprite = s.add_detached(
        Node::sprite(white)
            .sized(8.0, 8.0)
            .tinted(Color::BLUE)
            .with_alpha(0.5),
    );
    let rt = r
        .create_render_texture(RenderTextureOptions::new(8, 8))
        .unwrap();
    r.render_node(&s, shape, &rt, Some(Color::BLACK)).unwrap();
    probe(&r.read_pixels(&rt).unwrap(), 4, 4, [0, 255, 0, 255], 0);
    r.render_node(&s, sprite, &rt, Some(Color::BLACK)).unwrap();
    probe(&r.read_pixels(&rt).unwrap(), 4, 4, [0, 0, 128, 255], 1);
    // The scene root's own tint passes down too.
    let mut t = Scene::new();
    t.get_mut(t.root()).unwrap().tint = Color::RED;
    t.add(t.root(), Node::sprite(white).sized(8.0, 8.0))
        .unwrap();
    r.render(&t, &rt, Some(Color::BLACK)).unwrap();
    probe(&r.read_pixels(&rt).unwrap(), 4, 4, [255, 0, 0, 255], 0);
}
