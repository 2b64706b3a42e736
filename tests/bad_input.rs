//! Bad input gets a clear error or a logged skip, never a panic, and loses nothing else in the frame.

mod common;
use common::*;
use stage2d::{Color, Error, Node, Sampling, Scene};

#[test]
fn corrupt_and_missing_images_are_errors_naming_the_file() {
    let mut r = renderer();
    let dir = std::env::temp_dir().join(format!("stage2d-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let corrupt = dir.join("corrupt.png");
    std::fs::write(&corrupt, b"\x89PNG\r\n\x1a\nthis is not a png").unwrap();
    match r.load_texture(&corrupt, Sampling::LINEAR) {
        Err(e @ Error::ImageFile { .. }) => assert!(e.to_string().contains("corrupt.png"), "{e}"),
        other => panic!("expected ImageFile, got {other:?}"),
    }
    let missing = dir.join("missing.png");
    match r.load_texture(&missing, Sampling::LINEAR) {
        Err(e @ Error::ImageFile { .. }) => assert!(e.to_string().contains("missing.png"), "{e}"),
        other => panic!("expected ImageFile, got {other:?}"),
    }
    assert!(matches!(
        r.texture_from_bytes(b"garbage", Sampling::LINEAR),
        Err(Error::ImageDecode(_))
    ));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn zero_size_oversized_and_short_pixel_data_are_errors() {
    let mut r = renderer();
    assert!(matches!(
        r.create_texture(0, 4, &[], Sampling::LINEAR),
        Err(Error::ZeroSizeTexture { .. })
    ));
    let max = r.device().limits().max_texture_dimension_2d;
    match r.create_texture(max + 1, 1, &[], Sampling::LINEAR) {
        Err(Error::TextureTooLarge { max: m, .. }) => assert_eq!(m, max),
        other => panic!("expected TextureTooLarge, got {other:?}"),
    }
    assert!(matches!(
        r.create_render_target(max + 1, 1),
        Err(Error::TextureTooLarge { .. })
    ));
    assert!(matches!(
        r.create_texture(2, 2, &[0; 15], Sampling::LINEAR),
        Err(Error::PixelDataSize {
            got: 15,
            expected: 16
        })
    ));
    // The renderer still works afterwards.
    let white = r.white_texture();
    let mut s = Scene::new();
    s.add(s.root(), Node::sprite(white).tinted(Color::RED))
        .unwrap();
    probe(
        &render(&mut r, &s, 2, 2, Color::BLACK),
        0,
        0,
        [255, 0, 0, 255],
        0,
    );
}

#[test]
fn nan_and_infinite_transforms_skip_only_that_node() {
    let mut r = renderer();
    let white = r.white_texture();
    let mut s = Scene::new();
    let root = s.root();
    s.add(root, Node::sprite(white).sized(4.0, 4.0).tinted(Color::RED))
        .unwrap();
    let bad = s
        .add(root, Node::sprite(white).sized(4.0, 4.0).at(f32::NAN, 0.0))
        .unwrap();
    s.add(bad, Node::sprite(white).sized(4.0, 4.0).at(4.0, 0.0))
        .unwrap();
    let inf = s
        .add(root, Node::sprite(white).sized(4.0, 4.0).at(4.0, 0.0))
        .unwrap();
    s.transform_mut(inf).unwrap().scale.x = f32::INFINITY;
    let rot = s
        .add(root, Node::sprite(white).sized(4.0, 4.0).at(8.0, 0.0))
        .unwrap();
    s.transform_mut(rot).unwrap().rotation = f32::NAN;
    s.add(
        root,
        Node::sprite(white)
            .sized(4.0, 4.0)
            .at(12.0, 0.0)
            .tinted(Color::GREEN),
    )
    .unwrap();
    let img = render(&mut r, &s, 16, 4, Color::BLACK);
    probe(&img, 1, 1, [255, 0, 0, 255], 0);
    probe(&img, 5, 1, [0, 0, 0, 255], 0);
    probe(&img, 9, 1, [0, 0, 0, 255], 0);
    probe(&img, 13, 1, [0, 255, 0, 255], 0);
    let f = r.stats().last_frame;
    assert_eq!(f.nodes_skipped, 3);
    assert_eq!(f.sprites, 2);
}

#[test]
fn destroyed_textures_skip_their_sprites_and_slots_are_reused_safely() {
    let mut r = renderer();
    let red = solid(&mut r, 1, 1, [255, 0, 0, 255]);
    let mut s = Scene::new();
    s.add(s.root(), Node::sprite(red).sized(4.0, 4.0)).unwrap();
    probe(
        &render(&mut r, &s, 8, 4, Color::BLACK),
        1,
        1,
        [255, 0, 0, 255],
        0,
    );
    r.destroy_texture(red).unwrap();
    assert!(matches!(
        r.destroy_texture(red),
        Err(Error::StaleTexture(_))
    ));
    // The new texture takes the freed slot with a new generation; the old handle must not show it.
    let green = solid(&mut r, 1, 1, [0, 255, 0, 255]);
    assert_eq!(green.id().index(), red.id().index());
    s.add(s.root(), Node::sprite(green).sized(4.0, 4.0).at(4.0, 0.0))
        .unwrap();
    let img = render(&mut r, &s, 8, 4, Color::BLACK);
    probe(&img, 1, 1, [0, 0, 0, 255], 0);
    probe(&img, 5, 1, [0, 255, 0, 255], 0);
    assert_eq!(r.stats().last_frame.nodes_skipped, 1);
    assert_eq!(
        r.stats().last_frame.bind_groups_created,
        1,
        "the old bind group was dropped, a new one made"
    );
}

#[test]
fn white_texture_cannot_be_destroyed_and_bad_frames_are_errors() {
    let mut r = renderer();
    let white = r.white_texture();
    assert!(r.destroy_texture(white).is_err());
    let t = solid(&mut r, 8, 8, [1, 2, 3, 255]);
    assert!(matches!(
        t.frame(4, 4, 8, 8),
        Err(Error::FrameOutOfBounds { .. })
    ));
}

#[test]
fn removed_nodes_and_stale_handles_are_errors_not_panics() {
    let mut s = Scene::new();
    let a = s.add(s.root(), Node::container()).unwrap();
    s.remove(a).unwrap();
    assert!(matches!(
        s.add(a, Node::container()),
        Err(Error::StaleNode(_))
    ));
    assert!(s.get_mut(a).is_none());
    assert!(s.set_child_index(a, 0).is_err());
}

/// Absurd magnitudes: a tiling sprite whose tiles sit 1e20-1e30 pixels away still draws its texture's texels (its
/// offset reduced to one tile), one whose tiles are too small to draw is a counted skip; a circle of radius 1e30
/// is a counted skip while the context's other shapes draw.
#[test]
fn tiling_sprites_and_shapes_at_absurd_magnitudes() {
    let mut r = renderer_with_msaa(false);
    let card = card(&mut r, 16, 16);
    let texels = [
        [255, 0, 0, 255],
        [0, 255, 0, 255],
        [0, 0, 255, 255],
        [255, 255, 0, 255],
        [255, 255, 255, 255],
    ];
    for (position, scale) in [(1e20f32, 1.0f32), (1e30, 1.0), (-3e25, 2.0), (7.5, 1e20)] {
        let mut t = stage2d::TilingSprite::new(card, 40.0, 40.0);
        t.tile_position = stage2d::glam::Vec2::new(position, -position);
        t.tile_scale = stage2d::glam::Vec2::splat(scale);
        let mut s = Scene::new();
        s.add(s.root(), Node::tiling(t)).unwrap();
        let img = render(&mut r, &s, 40, 40, Color::BLACK);
        assert_eq!(r.stats().last_frame.nodes_skipped, 0, "{position} {scale}");
        for (x, y) in [(1, 1), (20, 20), (38, 5), (5, 38)] {
            let p = px(&img, x, y);
            assert!(
                texels.contains(&p),
                "({x},{y}) at {position}, scale {scale}: {p:?}"
            );
        }
    }
    let mut t = stage2d::TilingSprite::new(card, 40.0, 40.0);
    t.tile_scale = stage2d::glam::Vec2::splat(1e-20);
    let mut s = Scene::new();
    s.add(s.root(), Node::tiling(t)).unwrap();
    s.add(s.root(), Node::sprite(card).at(20.0, 20.0)).unwrap();
    let img = render(&mut r, &s, 40, 40, Color::BLACK);
    assert_eq!(r.stats().last_frame.nodes_skipped, 1);
    probe(&img, 5, 5, [0, 0, 0, 255], 0);
    probe(&img, 22, 22, [255, 0, 0, 255], 0);
    // A circle of radius 1e30 beside a square.
    let mut g = stage2d::GraphicsContext::new();
    g.circle(0.0, 0.0, 1e30).fill(Color::hex(0x00ff00));
    g.rect(4.0, 4.0, 8.0, 8.0).fill(Color::hex(0x0000ff));
    let mut s = Scene::new();
    s.add(s.root(), Node::graphics(g)).unwrap();
    let t0 = std::time::Instant::now();
    let target = r.create_render_target(16, 16).unwrap();
    r.render(&s, &target, Some(Color::BLACK)).unwrap();
    while r.stats().last_frame.tessellations_pending > 0 && t0.elapsed().as_secs() < 5 {
        r.render(&s, &target, Some(Color::BLACK)).unwrap();
    }
    let img = r.read_pixels(&target).unwrap();
    assert!(t0.elapsed().as_secs() < 2);
    let last = r.stats().last_frame;
    assert!(last.shape_instructions_skipped >= 1, "{last:?}");
    probe(&img, 8, 8, [0, 0, 255, 255], 0);
    probe(&img, 14, 14, [0, 0, 0, 255], 0);
}
