//! Handles with owners and targets that cannot be drawn: another scene's node, another renderer's texture or
//! target, a destroyed target, a pooled texture's old handle, a removed mask, a view that differs from what the
//! call says. Each is an `Error` or a logged skip, never a wgpu panic or another object, and the next frame
//! draws correctly.

mod common;
use common::*;
use stage2d::{
    Color, Error, GraphicsContext, Node, RenderTarget, RenderTextureOptions, Renderer,
    RendererOptions, Scene, TargetDesc,
};

const RED: [u8; 4] = [255, 0, 0, 255];
const GREEN: [u8; 4] = [0, 255, 0, 255];
const BLACK: [u8; 4] = [0, 0, 0, 255];

#[test]
fn a_node_handle_from_another_scene_is_foreign_not_the_node_in_its_slot() {
    let mut a = Scene::new();
    let mut b = Scene::new();
    let in_a = a.add(a.root(), Node::container()).unwrap();
    let in_b = b.add(b.root(), Node::container().at(5.0, 5.0)).unwrap();
    // Same slot in both scenes.
    assert!(b.get(in_a).is_none() && b.get_mut(in_a).is_none());
    assert!(!b.contains(in_a));
    assert!(matches!(b.remove(in_a), Err(Error::ForeignNode(_))));
    assert!(matches!(
        b.add(in_a, Node::container()),
        Err(Error::ForeignNode(_))
    ));
    assert!(matches!(
        b.set_parent(in_b, a.root(), 0),
        Err(Error::ForeignNode(_))
    ));
    assert!(matches!(
        b.set_mask(in_b, in_a, false),
        Err(Error::ForeignNode(_))
    ));
    assert!(matches!(b.check(a.root()), Err(Error::ForeignNode(_))));
    assert_eq!(
        b.transform(in_b).unwrap().position.x,
        5.0,
        "b's node untouched"
    );
    assert_eq!(b.len(), 2);
}

#[test]
fn moving_the_root_and_masking_a_node_by_itself_say_so() {
    let mut s = Scene::new();
    let a = s.add(s.root(), Node::container()).unwrap();
    assert!(matches!(
        s.set_parent(s.root(), a, 0),
        Err(Error::RootNode(_))
    ));
    assert!(matches!(
        s.set_child_index(s.root(), 0),
        Err(Error::RootNode(_))
    ));
    assert!(matches!(s.set_mask(a, a, false), Err(Error::SelfMask(_))));
    s.remove(a).unwrap();
    assert!(matches!(s.set_mask(a, a, false), Err(Error::StaleNode(_))));
}

#[test]
fn another_renderers_texture_is_skipped_not_drawn_as_ours() {
    let mut a = renderer();
    let mut b = renderer();
    // Both renderers put their first texture in the same slot.
    let green_a = solid(&mut a, 1, 1, GREEN);
    let red_b = solid(&mut b, 1, 1, RED);
    assert_eq!(green_a.id().index(), red_b.id().index());
    assert!(matches!(
        a.destroy_texture(red_b),
        Err(Error::ForeignTexture(_))
    ));
    let mut s = Scene::new();
    s.add(s.root(), Node::sprite(red_b).sized(4.0, 4.0))
        .unwrap();
    s.add(s.root(), Node::sprite(green_a).sized(4.0, 4.0).at(4.0, 0.0))
        .unwrap();
    let img = render(&mut a, &s, 8, 4, Color::BLACK);
    probe(&img, 1, 1, BLACK, 0); // not a's green
    probe(&img, 5, 1, GREEN, 0);
    assert_eq!(a.stats().last_frame.dead_textures, 1);
    // The skip says foreign, as the error does; a destroyed texture of ours says destroyed.
    let first = s.children(s.root())[0];
    let skipped: Vec<_> = a.stats().skipped.iter().copied().collect();
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert_eq!(skipped[0].node, first);
    assert!(
        skipped[0].reason.contains("another renderer"),
        "{}",
        skipped[0].reason
    );
    a.destroy_texture(green_a).unwrap();
    render(&mut a, &s, 8, 4, Color::BLACK);
    let reasons: Vec<_> = a.stats().skipped.iter().map(|k| k.reason).collect();
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert!(reasons[1].contains("destroyed"), "{reasons:?}");
}

#[test]
fn the_skip_list_keeps_the_first_reasons_and_the_counter_counts_all() {
    let mut r = renderer();
    let green = solid(&mut r, 1, 1, GREEN);
    let mut s = Scene::new();
    let mut bad = Vec::new();
    for i in 0..12 {
        let mut n = Node::sprite(green).sized(4.0, 4.0);
        n.transform.position.x = if i % 2 == 0 { f32::NAN } else { i as f32 };
        let id = s.add(s.root(), n).unwrap();
        if i % 2 == 0 {
            bad.push(id);
        }
    }
    render(&mut r, &s, 8, 4, Color::BLACK);
    let stats = r.stats();
    assert_eq!(stats.last_frame.nodes_skipped, 6);
    let got: Vec<_> = stats.skipped.iter().map(|k| k.node).collect();
    assert_eq!(got, bad);
    assert!(stats
        .skipped
        .iter()
        .all(|k| k.reason.contains("non-finite")));
    // More skips than the list holds: the first CAPACITY kept, all counted.
    for id in s.children(s.root()).to_vec() {
        s.transform_mut(id).unwrap().position.y = f32::INFINITY;
    }
    render(&mut r, &s, 8, 4, Color::BLACK);
    let stats = r.stats();
    assert_eq!(stats.last_frame.nodes_skipped, 12);
    assert_eq!(stats.skipped.len(), stage2d::SkipList::CAPACITY);
    // A frame with nothing skipped lists nothing.
    render(&mut r, &Scene::new(), 8, 4, Color::BLACK);
    assert!(r.stats().skipped.is_empty());
}

#[test]
fn another_renderers_target_is_an_error_for_render_and_read() {
    let mut a = renderer();
    let mut b = renderer();
    let t_b = b.create_render_target(8, 8).unwrap();
    let s = Scene::new();
    assert!(matches!(
        a.render(&s, &t_b, Some(Color::BLACK)),
        Err(Error::ForeignTexture(_))
    ));
    assert!(matches!(a.read_pixels(&t_b), Err(Error::ForeignTexture(_))));
    // Both renderers go on.
    b.render(&s, &t_b, Some(Color::WHITE)).unwrap();
    probe(&b.read_pixels(&t_b).unwrap(), 3, 3, [255; 4], 0);
    probe(&render(&mut a, &s, 4, 4, Color::RED), 1, 1, RED, 0);
}

#[test]
fn a_target_whose_texture_was_destroyed_is_an_error_and_the_next_frame_draws() {
    let mut r = renderer();
    let t = r.create_render_target(8, 8).unwrap();
    let mut s = Scene::new();
    let white = r.white_texture();
    s.add(s.root(), Node::sprite(white).sized(4.0, 4.0))
        .unwrap();
    r.destroy_texture(t.texture()).unwrap();
    assert!(matches!(
        r.render(&s, &t, Some(Color::BLACK)),
        Err(Error::StaleTexture(_))
    ));
    assert!(matches!(r.read_pixels(&t), Err(Error::StaleTexture(_))));
    drop(t); // its id was freed already: dropping it must not free anything else
    probe(&render(&mut r, &s, 8, 8, Color::BLACK), 1, 1, [255; 4], 0);
}

/// Whether `e` is `Error::StaleTexture`.
fn stale<T>(e: &stage2d::Result<T>) -> bool {
    matches!(e, Err(Error::StaleTexture(_)))
}

/// Records the prepared frame into a pass on `host` (cleared to black) and submits it.
fn record_into(r: &Renderer, host: &RenderTarget, desc: &TargetDesc) {
    let mut encoder = r.device().create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &host.view(),
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(Color::BLACK.to_wgpu_premultiplied()),
                    store: wgpu::StoreOp::Store,
                },
            })],
            ..Default::default()
        });
        r.record(&mut pass, desc).unwrap();
    }
    r.queue().submit([encoder.finish()]);
}

/// A target destroyed while a frame is prepared (its release waits for the next frame) is stale at once: it can
/// no longer be drawn into, read or destroyed again, while the prepared frame that shows it still records.
#[test]
fn a_target_destroyed_while_a_frame_is_prepared_is_stale_at_once() {
    let mut r = renderer();
    let rt = r
        .create_render_texture(RenderTextureOptions::new(8, 8))
        .unwrap();
    r.render(&Scene::new(), &rt, Some(Color::GREEN)).unwrap();
    let host = r
        .create_render_texture(RenderTextureOptions::new(8, 8))
        .unwrap();
    let mut s = Scene::new();
    s.add(s.root(), Node::sprite(rt.texture()).sized(8.0, 8.0))
        .unwrap();
    let desc = TargetDesc::new(wgpu::TextureFormat::Rgba8Unorm, 8, 8);
    r.prepare(&s, &desc).unwrap();
    r.destroy_texture(rt.texture()).unwrap();
    assert!(stale(&r.read_pixels(&rt)), "read while prepared");
    assert!(stale(&r.destroy_texture(rt.texture())), "destroyed twice");
    // The prepared frame still draws what it was prepared with.
    record_into(&r, &host, &desc);
    r.trim();
    probe(&r.read_pixels(&host).unwrap(), 4, 4, GREEN, 0);
    // Stale before the next frame frees its slot, and after.
    assert!(stale(&r.read_pixels(&rt)), "read after trim");
    let e = r.render(&s, &rt, Some(Color::RED));
    assert!(stale(&e), "{e:?}");
    assert!(stale(&r.read_pixels(&rt)), "read after the next frame");
    assert!(stale(&r.destroy_texture(rt.texture())), "destroyed again");
    // The sprite showing it is skipped; nothing else was freed.
    r.render(&s, &host, Some(Color::BLACK)).unwrap();
    probe(&r.read_pixels(&host).unwrap(), 4, 4, BLACK, 0);
    assert_eq!(r.stats().last_frame.dead_textures, 1);
    drop(rt);
    r.render(&Scene::new(), &host, Some(Color::RED)).unwrap();
    probe(&r.read_pixels(&host).unwrap(), 4, 4, RED, 0);
}

#[test]
fn render_node_with_a_removed_or_foreign_node_is_an_error() {
    let mut r = renderer();
    let t = r.create_render_target(4, 4).unwrap();
    let mut s = Scene::new();
    let a = s.add(s.root(), Node::container()).unwrap();
    s.remove(a).unwrap();
    assert!(matches!(
        r.render_node(&s, a, &t, None),
        Err(Error::StaleNode(_))
    ));
    let other = Scene::new();
    assert!(matches!(
        r.render_node(&s, other.root(), &t, None),
        Err(Error::ForeignNode(_))
    ));
    r.render_node(&s, s.root(), &t, Some(Color::BLACK)).unwrap();
}

#[test]
fn a_pooled_render_textures_old_handle_does_not_show_the_next_borrower() {
    let mut r = renderer();
    let opts = RenderTextureOptions::new(4, 4);
    let old = {
        let first = r.acquire_render_texture(opts).unwrap();
        r.render(&Scene::new(), &first, Some(Color::GREEN)).unwrap();
        first.texture()
    };
    let second = r.acquire_render_texture(opts).unwrap();
    assert_eq!(r.pool_hits(), 1, "the same storage was lent again");
    r.render(&Scene::new(), &second, Some(Color::RED)).unwrap();
    let mut s = Scene::new();
    s.add(s.root(), Node::sprite(old).sized(4.0, 4.0)).unwrap();
    s.add(
        s.root(),
        Node::sprite(second.texture()).sized(4.0, 4.0).at(4.0, 0.0),
    )
    .unwrap();
    let img = render(&mut r, &s, 8, 4, Color::BLACK);
    probe(&img, 1, 1, BLACK, 0); // the old handle is stale: skipped
    probe(&img, 5, 1, RED, 0);
    assert_eq!(r.stats().last_frame.dead_textures, 1);
}

#[test]
fn a_node_whose_mask_was_removed_is_not_drawn_unmasked() {
    let mut r = renderer();
    let white = r.white_texture();
    let mut s = Scene::new();
    let mut g = GraphicsContext::new();
    g.rect(0.0, 0.0, 2.0, 2.0).fill(Color::WHITE);
    let m = s.add_detached(Node::graphics(g));
    let big = s
        .add(
            s.root(),
            Node::sprite(white).sized(8.0, 8.0).tinted(Color::RED),
        )
        .unwrap();
    s.set_mask(big, m, false).unwrap();
    s.add(
        s.root(),
        Node::sprite(white)
            .sized(2.0, 2.0)
            .at(6.0, 6.0)
            .tinted(Color::GREEN),
    )
    .unwrap();
    let img = render(&mut r, &s, 8, 8, Color::BLACK);
    probe(&img, 1, 1, RED, 0);
    probe(&img, 4, 4, BLACK, 0);
    s.remove(m).unwrap();
    let img = render(&mut r, &s, 8, 8, Color::BLACK);
    probe(&img, 1, 1, BLACK, 0);
    probe(&img, 4, 4, BLACK, 0);
    probe(&img, 7, 7, GREEN, 0);
    assert_eq!(r.stats().last_frame.nodes_skipped, 1);
}

/// An 8x8 white sprite under a circle stencil mask.
fn masked_scene(r: &Renderer) -> Scene {
    let mut s = Scene::new();
    let mut g = GraphicsContext::new();
    g.circle(4.0, 4.0, 3.0).fill(Color::WHITE);
    let m = s.add_detached(Node::graphics(g));
    let sprite = Node::sprite(r.white_texture()).sized(8.0, 8.0);
    let n = s.add(s.root(), sprite).unwrap();
    s.set_mask(n, m, false).unwrap();
    s
}

/// A masked scene (stencil) drawn through `render_to_view` with calls that do not match the view.
#[test]
fn render_to_view_with_a_format_or_size_unlike_the_view_is_an_error() {
    for msaa in [false, true] {
        let mut r = Renderer::new_headless(RendererOptions::default().with_msaa(msaa)).unwrap();
        let s = masked_scene(&r);
        let t = r.create_render_target(8, 8).unwrap();
        let view = &t.view();
        let rgba = wgpu::TextureFormat::Rgba8Unorm;
        let bgra = wgpu::TextureFormat::Bgra8Unorm;
        // Each call is compared with the view before anything else is validated, so a 0x0 size is a
        // mismatch with the 8x8 view too (not `UnsupportedTarget`).
        for (format, size, what) in [
            (bgra, (8, 8), "colour format Rgba8Unorm, not Bgra8Unorm"),
            (rgba, (16, 8), "size 8x8, not 16x8"),
            (rgba, (0, 0), "size 8x8, not 0x0"),
            (rgba, (8, 9), "size 8x8, not 8x9"),
        ] {
            let e = r.render_to_view(&s, view, format, size, Some(Color::BLACK));
            match &e {
                Err(Error::PassMismatch(why)) => assert!(why.contains(what), "{why}"),
                _ => panic!("{format:?} {size:?}: {e:?}, not PassMismatch"),
            }
        }
        r.render_to_view(&s, view, rgba, (8, 8), Some(Color::BLACK))
            .unwrap();
        let img = r.read_pixels(&t).unwrap();
        probe(&img, 4, 4, [255; 4], 0);
        probe(&img, 0, 0, BLACK, 0);
    }
}

/// What validation cannot see coming (here: a view whose texture the caller destroyed) comes back from wgpu as
/// `Error::Wgpu`, not as a panic in wgpu's default error handler; the renderer keeps working.
#[test]
fn a_wgpu_validation_error_is_an_error_and_the_renderer_goes_on() {
    let mut r = renderer();
    let texture = r.device().create_texture(&wgpu::TextureDescriptor {
        label: Some("caller's target"),
        size: wgpu::Extent3d {
            width: 8,
            height: 8,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8Unorm,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
        view_formats: &[],
    });
    let view = texture.create_view(&Default::default());
    texture.destroy();
    let s = Scene::new();
    let e = r.render_to_view(
        &s,
        &view,
        wgpu::TextureFormat::Rgba8Unorm,
        (8, 8),
        Some(Color::BLACK),
    );
    assert!(matches!(e, Err(Error::Wgpu(_))), "{e:?}");
    probe(&render(&mut r, &s, 4, 4, Color::GREEN), 1, 1, GREEN, 0);
}

#[test]
fn live_counts_return_to_their_baseline_after_targets_of_many_sizes() {
    let mut r = Renderer::new_headless(RendererOptions::default().with_msaa(true)).unwrap();
    let s = masked_scene(&r);
    let base = r.create_render_target(8, 8).unwrap();
    r.render(&s, &base, None).unwrap();
    let before = r.stats().live;
    for size in 9..40 {
        let t = r.create_render_target(size, size).unwrap();
        r.render(&s, &t, None).unwrap();
    }
    let busy = r.stats().live;
    assert!(busy.attachments > before.attachments + 20, "{busy:?}");
    // Targets of those sizes are gone; after the idle limit their attachments are evicted and released.
    for _ in 0..70 {
        r.render(&s, &base, None).unwrap();
    }
    r.wait_idle().unwrap();
    r.render(&s, &base, None).unwrap();
    let after = r.stats().live;
    assert_eq!(after.attachments, before.attachments, "{after:?}");
    assert_eq!(after.textures, before.textures, "{after:?}");
    assert_eq!(after.render_targets, 1);
    assert!(after.pending_releases <= 2, "{after:?}");
}
