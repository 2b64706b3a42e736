//! Pixel tests on the software adapter: exact probes where the value is known, goldens for the rest.

mod common;
use common::*;
use stage2d::glam::Vec2;
use stage2d::{BlendMode, Color, Node, Renderer, RendererOptions, Sampling, Scene, Texture};

#[test]
fn opaque_red_sprite_covers_exactly_its_pixels() {
    let mut r = renderer();
    let white = r.white_texture();
    let mut s = Scene::new();
    s.add(
        s.root(),
        Node::sprite(white)
            .sized(20.0, 20.0)
            .at(10.0, 10.0)
            .tinted(Color::RED),
    )
    .unwrap();
    let img = render(&mut r, &s, 64, 64, Color::BLACK);
    for (x, y) in [(10, 10), (29, 29), (10, 29), (29, 10), (20, 20)] {
        probe(&img, x, y, [255, 0, 0, 255], 0);
    }
    for (x, y) in [
        (9, 9),
        (30, 30),
        (30, 10),
        (10, 30),
        (9, 20),
        (0, 0),
        (63, 63),
    ] {
        probe(&img, x, y, [0, 0, 0, 255], 0);
    }
}

#[test]
fn empty_scene_is_the_clear_colour_and_odd_sizes_read_back() {
    let mut r = renderer();
    let white = r.white_texture();
    let mut s = Scene::new();
    s.add(
        s.root(),
        Node::sprite(white).at(12.0, 6.0).tinted(Color::GREEN),
    )
    .unwrap();
    // 13 x 7: rows of 52 bytes padded to 256 in the readback buffer.
    let img = render(&mut r, &s, 13, 7, Color::rgb(0.0, 0.0, 1.0));
    assert_eq!(img.dimensions(), (13, 7));
    probe(&img, 12, 6, [0, 255, 0, 255], 0);
    probe(&img, 11, 6, [0, 0, 255, 255], 0);
    probe(&img, 0, 0, [0, 0, 255, 255], 0);
    let clear_count = img.pixels().filter(|p| p.0 == [0, 0, 255, 255]).count();
    assert_eq!(clear_count, 13 * 7 - 1);
}

#[test]
fn sprite_anchor_rotation_scale_tint_alpha() {
    let mut r = renderer();
    let card = card(&mut r, 16, 16);
    let mut s = Scene::new();
    let root = s.root();
    // Scaled 2x, unrotated: quadrants land at known places.
    let big = s.add(root, Node::sprite(card).at(60.0, 60.0)).unwrap();
    s.transform_mut(big).unwrap().scale = Vec2::splat(2.0);
    // Rotated about its centre anchor, non-uniform scale.
    let rot = s
        .add(root, Node::sprite(card).anchor(0.5, 0.5).at(24.0, 24.0))
        .unwrap();
    {
        let n = s.transform_mut(rot).unwrap();
        n.rotation = 0.5;
        n.scale = Vec2::new(2.0, 1.5);
    }
    // Tinted and translucent.
    s.add(
        root,
        Node::sprite(card)
            .at(64.0, 8.0)
            .tinted(Color::rgb(0.5, 1.0, 1.0))
            .with_alpha(0.5),
    )
    .unwrap();
    // Flipped horizontally around its right edge via a pivot.
    let flip = s.add(root, Node::sprite(card).at(8.0, 72.0)).unwrap();
    {
        let n = s.transform_mut(flip).unwrap();
        n.scale = Vec2::new(-1.0, 1.0);
        n.pivot = Vec2::new(16.0, 0.0);
    }
    let img = render(&mut r, &s, 96, 96, Color::BLACK);
    probe(&img, 64, 64, [255, 0, 0, 255], 0);
    probe(&img, 88, 64, [0, 255, 0, 255], 0);
    probe(&img, 64, 88, [0, 0, 255, 255], 0);
    probe(&img, 88, 88, [255, 255, 0, 255], 0);
    probe(&img, 60, 60, [255, 255, 255, 255], 0);
    // Tinted half-alpha red quadrant over black: red*0.5 tint... (0.5, 0, 0) * alpha 0.5 -> 64.
    probe(&img, 68, 12, [64, 0, 0, 255], 1);
    // Flipped: the pivot (16, 0) lands at (8, 72) and the card extends to the right, mirrored: green on the left.
    probe(&img, 12, 76, [0, 255, 0, 255], 0);
    probe(&img, 20, 76, [255, 0, 0, 255], 0);
    golden("sprite_transforms", &img);
}

#[test]
fn nested_containers_compose_transform_alpha_and_tint() {
    let mut r = renderer();
    let card = card(&mut r, 16, 16);
    let white = r.white_texture();
    let mut s = Scene::new();
    let outer = s
        .add(
            s.root(),
            Node::container()
                .at(48.0, 48.0)
                .with_alpha(0.5)
                .tinted(Color::rgb(1.0, 1.0, 0.0)),
        )
        .unwrap();
    {
        let n = s.transform_mut(outer).unwrap();
        n.rotation = std::f32::consts::FRAC_PI_4;
        n.scale = Vec2::splat(1.5);
    }
    let inner = s
        .add(outer, Node::container().at(10.0, 0.0).with_alpha(0.5))
        .unwrap();
    s.add(inner, Node::sprite(card).anchor(0.5, 0.5)).unwrap();
    // An unrotated probe target: a white square under a scaled, half-alpha container.
    let plain = s
        .add(s.root(), Node::container().at(4.0, 4.0).with_alpha(0.5))
        .unwrap();
    s.transform_mut(plain).unwrap().scale = Vec2::splat(2.0);
    let leaf = s
        .add(plain, Node::sprite(white).sized(4.0, 4.0).with_alpha(0.5))
        .unwrap();
    s.get_mut(leaf).unwrap().tint = Color::rgb(0.0, 1.0, 1.0);
    let img = render(&mut r, &s, 96, 96, Color::BLACK);
    // Alpha 0.5 * 0.5 = 0.25 of cyan over black, on the 8x8 area the 2x scale gives.
    probe(&img, 5, 5, [0, 64, 64, 255], 1);
    probe(&img, 11, 11, [0, 64, 64, 255], 1);
    probe(&img, 12, 12, [0, 0, 0, 255], 0);
    golden("nested_containers", &img);
}

/// Blue opaque background, then a half-alpha red sprite with each blend mode; premultiplied results from the
/// blend equations (1 LSB of rounding allowed).
#[test]
fn each_blend_mode_matches_its_equation() {
    let mut r = renderer();
    let white = r.white_texture();
    let mut s = Scene::new();
    let modes = [
        (BlendMode::Normal, [128, 0, 127, 255]),
        (BlendMode::Add, [128, 0, 255, 255]),
        (BlendMode::Multiply, [0, 0, 127, 255]),
        (BlendMode::Screen, [128, 0, 255, 255]),
        (BlendMode::Erase, [0, 0, 127, 127]),
        (BlendMode::None, [128, 0, 0, 128]),
    ];
    for (i, (mode, _)) in modes.iter().enumerate() {
        let x = i as f32 * 16.0;
        s.add(
            s.root(),
            Node::sprite(white)
                .sized(16.0, 16.0)
                .at(x, 0.0)
                .tinted(Color::BLUE),
        )
        .unwrap();
        s.add(
            s.root(),
            Node::sprite(white)
                .sized(8.0, 16.0)
                .at(x + 4.0, 0.0)
                .tinted(Color::RED)
                .with_alpha(0.5)
                .blended(*mode),
        )
        .unwrap();
    }
    let target = r.create_render_target(96, 16).unwrap();
    r.render(&s, &target, Some(Color::TRANSPARENT)).unwrap();
    let img = r.read_pixels_premultiplied(&target).unwrap();
    for (i, (mode, want)) in modes.iter().enumerate() {
        let x = i as u32 * 16;
        let got = px(&img, x + 8, 8);
        assert!(
            got.iter().zip(want).all(|(&g, &w)| g.abs_diff(w) <= 1),
            "{mode:?}: got {got:?}, expected {want:?}"
        );
        probe(&img, x + 1, 8, [0, 0, 255, 255], 0);
    }
    golden("blend_modes", &img);
}

#[test]
fn blend_mode_is_inherited_from_the_parent() {
    let mut r = renderer();
    let white = r.white_texture();
    let mut s = Scene::new();
    s.add(
        s.root(),
        Node::sprite(white)
            .sized(8.0, 8.0)
            .tinted(Color::rgb(0.0, 0.5, 0.0)),
    )
    .unwrap();
    let g = s
        .add(s.root(), Node::container().blended(BlendMode::Add))
        .unwrap();
    s.add(
        g,
        Node::sprite(white)
            .sized(8.0, 8.0)
            .tinted(Color::rgb(0.5, 0.5, 0.0)),
    )
    .unwrap();
    let img = render(&mut r, &s, 8, 8, Color::BLACK);
    probe(&img, 4, 4, [128, 255, 0, 255], 1);
    assert_eq!(r.stats().last_frame.draw_calls, 2);
}

#[test]
fn atlas_frames_show_their_sub_rectangles_and_share_a_slot() {
    let mut r = renderer();
    let atlas = card(&mut r, 16, 16);
    let frames = [
        (atlas.frame(1, 1, 7, 7).unwrap(), [255, 0, 0, 255]),
        (atlas.frame(8, 1, 7, 7).unwrap(), [0, 255, 0, 255]),
        (atlas.frame(1, 8, 7, 7).unwrap(), [0, 0, 255, 255]),
        (atlas.frame(8, 8, 7, 7).unwrap(), [255, 255, 0, 255]),
    ];
    let mut s = Scene::new();
    for (i, (f, _)) in frames.iter().enumerate() {
        s.add(
            s.root(),
            Node::sprite(*f).sized(14.0, 14.0).at(i as f32 * 16.0, 0.0),
        )
        .unwrap();
    }
    let img = render(&mut r, &s, 64, 16, Color::BLACK);
    for (i, (_, want)) in frames.iter().enumerate() {
        let x = i as u32 * 16;
        for (dx, dy) in [(0, 0), (13, 13), (7, 7)] {
            probe(&img, x + dx, dy, *want, 0);
        }
    }
    assert_eq!(r.stats().last_frame.draw_calls, 1);
    golden("atlas_frames", &img);
}

/// `n` distinct opaque colours and a 1x1 texture of each.
fn distinct_textures(r: &mut Renderer, n: u32) -> (Vec<[u8; 4]>, Vec<Texture>) {
    let colours: Vec<[u8; 4]> = (0..n)
        .map(|i| {
            [
                (i * 12) as u8,
                (255 - i * 12) as u8,
                ((i * 37) % 255) as u8,
                255,
            ]
        })
        .collect();
    let texs = colours.iter().map(|c| solid(r, 1, 1, *c)).collect();
    (colours, texs)
}

/// Draws `texs` as a row of 4x4 sprites on a `4 * len x 4` target and probes each for its colour.
fn draw_row(r: &mut Renderer, texs: &[Texture], colours: &[[u8; 4]]) {
    let mut s = Scene::new();
    for (i, t) in texs.iter().enumerate() {
        s.add(
            s.root(),
            Node::sprite(*t).sized(4.0, 4.0).at(i as f32 * 4.0, 0.0),
        )
        .unwrap();
    }
    let img = render(r, &s, 4 * texs.len() as u32, 4, Color::BLACK);
    for (i, c) in colours.iter().enumerate() {
        probe(&img, i as u32 * 4 + 2, 2, *c, 0);
    }
}

#[test]
fn more_textures_than_one_batch_holds_draw_in_two_batches() {
    let mut r = renderer();
    assert_eq!(r.max_textures_per_batch(), 16);
    let (colours, texs) = distinct_textures(&mut r, 20);
    draw_row(&mut r, &texs, &colours);
    let f = r.stats().last_frame;
    assert_eq!(f.draw_calls, 2);
    // The first batch samples 16 slots, the second 4: each runs the shader for its texture count.
    assert_eq!(f.set_pipeline_issued, 2);
    assert_eq!(f.set_pipeline_skipped, 0);
    // Two texture sets, and the stream buffers' group once.
    assert_eq!(f.set_bind_group_issued, 3);
}

#[test]
fn every_texture_count_samples_the_right_slot() {
    // A batch of k textures runs the shader built for k slots: each sprite must show its own texture, the last
    // slot included (an off-by-one in the choice would send it to slot 0's texture).
    let mut r = renderer();
    let (colours, texs) = distinct_textures(&mut r, 16);
    let mut created = 0;
    for k in [1usize, 2, 3, 7, 15, 16] {
        draw_row(&mut r, &texs[..k], &colours[..k]);
        let f = r.stats().last_frame;
        assert_eq!((f.draw_calls, f.set_pipeline_issued), (1, 1), "k = {k}");
        created += f.pipelines_created;
    }
    assert_eq!(created, 6, "one pipeline per texture count");
}

#[test]
fn nearest_and_linear_sampling() {
    let mut r = renderer();
    let px2 = [0, 0, 0, 255, 255, 255, 255, 255];
    let nearest = r.create_texture(2, 1, &px2, Sampling::NEAREST).unwrap();
    let linear = r.create_texture(2, 1, &px2, Sampling::LINEAR).unwrap();
    let mut s = Scene::new();
    s.add(s.root(), Node::sprite(nearest).sized(64.0, 4.0))
        .unwrap();
    s.add(s.root(), Node::sprite(linear).sized(64.0, 4.0).at(0.0, 4.0))
        .unwrap();
    let img = render(&mut r, &s, 64, 8, Color::RED);
    probe(&img, 31, 2, [0, 0, 0, 255], 0);
    probe(&img, 32, 2, [255, 255, 255, 255], 0);
    // Linear: texel centres at 16 and 48; the middle is half way.
    probe(&img, 10, 6, [0, 0, 0, 255], 0);
    probe(&img, 54, 6, [255, 255, 255, 255], 0);
    let mid = px(&img, 32, 6)[0];
    assert!((120..=136).contains(&mid), "linear middle is {mid}");
}

#[test]
#[cfg(all(feature = "png", feature = "jpeg"))]
fn png_and_jpeg_load_from_files_and_bytes() {
    let mut r = renderer();
    let dir = std::env::temp_dir().join(format!("stage2d-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let img = stage2d::image::RgbaImage::from_pixel(4, 2, stage2d::image::Rgba([10, 200, 30, 255]));
    let png = dir.join("a.png");
    let jpg = dir.join("a.jpg");
    img.save(&png).unwrap();
    stage2d::image::DynamicImage::ImageRgba8(img.clone())
        .to_rgb8()
        .save(&jpg)
        .unwrap();
    let a = r.load_texture(&png, Sampling::NEAREST).unwrap();
    let b = r.load_texture(&jpg, Sampling::NEAREST).unwrap();
    let c = r
        .texture_from_bytes(&std::fs::read(&png).unwrap(), Sampling::NEAREST)
        .unwrap();
    assert_eq!(a.source_size(), [4, 2]);
    assert_eq!(b.source_size(), [4, 2]);
    let mut s = Scene::new();
    s.add(s.root(), Node::sprite(a)).unwrap();
    s.add(s.root(), Node::sprite(b).at(4.0, 0.0)).unwrap();
    s.add(s.root(), Node::sprite(c).at(8.0, 0.0)).unwrap();
    let out = render(&mut r, &s, 12, 2, Color::BLACK);
    probe(&out, 1, 1, [10, 200, 30, 255], 0);
    probe(&out, 5, 1, [10, 200, 30, 255], 8); // JPEG is lossy
    probe(&out, 9, 1, [10, 200, 30, 255], 0);
    let saved = dir.join("out.png");
    let target = r.create_render_target(3, 3).unwrap();
    r.render(&s, &target, Some(Color::rgba(1.0, 0.0, 0.0, 0.5)))
        .unwrap();
    r.save_png(&target, &saved).unwrap();
    // Saved with straight alpha.
    let back = stage2d::image::open(&saved).unwrap().to_rgba8();
    assert_eq!(back.get_pixel(2, 2).0, [255, 0, 0, 128]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
#[cfg(not(feature = "jpeg"))]
fn without_the_jpeg_feature_a_jpeg_file_is_an_error_naming_it() {
    let mut r = renderer();
    let dir = std::env::temp_dir().join(format!("stage2d-nojpeg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let jpg = dir.join("a.jpg");
    std::fs::write(
        &jpg,
        [0xff, 0xd8, 0xff, 0xe0, 0, 16, b'J', b'F', b'I', b'F', 0],
    )
    .unwrap();
    let e = r.load_texture(&jpg, Sampling::NEAREST).unwrap_err();
    assert!(
        matches!(&e, stage2d::Error::ImageFile { path, .. } if *path == jpg),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A renderer on the first adapter of `backends`, if the machine has one.
fn renderer_on(backends: stage2d::wgpu::Backends) -> Option<Renderer> {
    renderer_with(backends, RendererOptions::default())
}

/// Like [`renderer_on`], with `options`.
fn renderer_with(backends: stage2d::wgpu::Backends, options: RendererOptions) -> Option<Renderer> {
    let mut desc = stage2d::wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    desc.backends = backends;
    let instance = stage2d::wgpu::Instance::new(desc);
    let adapter = pollster::block_on(instance.enumerate_adapters(backends))
        .into_iter()
        .next()?;
    Some(Renderer::from_adapter(&adapter, options).unwrap())
}

#[test]
fn a_pass_whose_last_draw_is_scissored_resolves_the_whole_target_on_gl_and_vulkan_with_msaa() {
    // wgpu's GL backend resolves MSAA with the scissor test still on: the pass must end with the scissor reset.
    for backends in [stage2d::wgpu::Backends::VULKAN, stage2d::wgpu::Backends::GL] {
        let Some(mut r) = renderer_with(backends, RendererOptions::default().with_msaa(true))
        else {
            panic!("no {backends:?} adapter: install mesa-vulkan-drivers / libegl1 (CI has both)");
        };
        let white = r.white_texture();
        let mut s = Scene::new();
        let root = s.root();
        s.add(
            root,
            Node::sprite(white).sized(32.0, 32.0).tinted(Color::BLUE),
        )
        .unwrap();
        let boxed = s
            .add(
                root,
                Node::sprite(white).sized(32.0, 32.0).tinted(Color::GREEN),
            )
            .unwrap();
        let mut rect = stage2d::GraphicsContext::new();
        rect.rect(8.0, 8.0, 8.0, 8.0).fill(Color::WHITE);
        let clip = s.add_detached(Node::graphics(rect));
        s.set_mask(boxed, clip, false).unwrap();
        let img = render(&mut r, &s, 32, 32, Color::BLACK);
        assert_eq!(r.stats().last_frame.scissor_masks, 1, "{backends:?}");
        probe(&img, 12, 12, [0, 255, 0, 255], 0);
        probe(&img, 2, 2, [0, 0, 255, 255], 0);
        probe(&img, 28, 28, [0, 0, 255, 255], 0);
    }
}

#[test]
fn gl_and_vulkan_draw_the_same_quads_and_meshes_in_tree_order() {
    // GL (GLES on llvmpipe) stops indices at 2^24 - 1, so quads are marked with bit 23 there and bit 31 on
    // Vulkan: both must give the same picture of sprites and shapes interleaved in one batch.
    let backends = [stage2d::wgpu::Backends::VULKAN, stage2d::wgpu::Backends::GL];
    let mut images = Vec::new();
    for b in backends {
        let Some(mut r) = renderer_on(b) else {
            panic!("no {b:?} adapter: install mesa-vulkan-drivers / libegl1 (CI has both)");
        };
        let card = card(&mut r, 16, 16);
        let mut s = Scene::new();
        let root = s.root();
        let mut g = stage2d::GraphicsContext::new();
        g.circle(0.0, 0.0, 10.0).fill(Color::rgb(1.0, 0.0, 1.0));
        s.add(root, Node::sprite(card).at(4.0, 4.0)).unwrap();
        // The circle covers the card's bottom-right quadrant; the second card covers the circle's right half.
        s.add(root, Node::graphics(g).at(20.0, 20.0)).unwrap();
        let top = s
            .add(root, Node::sprite(card).anchor(0.5, 0.5).at(34.0, 20.0))
            .unwrap();
        s.transform_mut(top).unwrap().rotation = std::f32::consts::FRAC_PI_2;
        let img = render(&mut r, &s, 48, 40, Color::BLACK);
        let f = r.stats().last_frame;
        assert_eq!(f.draw_calls, 1, "{b:?}: quads and meshes share one draw");
        probe(&img, 6, 6, [255, 0, 0, 255], 0);
        probe(&img, 16, 16, [255, 0, 255, 255], 0); // circle over the first card
        probe(&img, 20, 27, [255, 0, 255, 255], 0); // circle below both cards
                                                    // Rotated a quarter turn clockwise: the red top-left quadrant is now top-right.
        probe(&img, 38, 16, [255, 0, 0, 255], 0);
        probe(&img, 30, 16, [0, 0, 255, 255], 0);
        images.push(img);
    }
    let differing = images[0]
        .pixels()
        .zip(images[1].pixels())
        .filter(|(a, b)| a.0.iter().zip(b.0).any(|(x, y)| x.abs_diff(y) > 3))
        .count();
    // Circle edges may rasterise differently between drivers; nothing else may.
    assert!(
        differing <= 24,
        "{differing} pixels differ between Vulkan and GL"
    );
}

/// A kept frame whose changes are all moves places the moved corners straight into staging; frames that then
/// write quads another way (sprites faded next to a placed one), or walk again (a sprite moved back where the quad
/// stream last had it, and one added), must still draw every sprite where it is. Each frame is compared with a
/// renderer that walks the scene afresh.
#[test]
fn moves_placed_in_staging_draw_what_a_fresh_walk_draws() {
    let mut r = renderer();
    let mut fresh = renderer();
    let (white, fresh_white) = (r.white_texture(), fresh.white_texture());
    let mut s = Scene::new();
    let grid = |i: usize| Vec2::new((i % 8) as f32 * 6.0 + 1.0, (i / 8) as f32 * 6.0 + 1.0);
    let ids: Vec<_> = (0..48)
        .map(|i| {
            let c = Color::rgb((i % 3) as f32 / 2.0, (i % 5) as f32 / 4.0, 1.0);
            let p = grid(i);
            let node = Node::sprite(white).sized(4.0, 4.0).at(p.x, p.y).tinted(c);
            s.add(s.root(), node).unwrap()
        })
        .collect();
    let target = r.create_render_target(52, 40).unwrap();
    let mut kept = Vec::new();
    for frame in 0..7 {
        match frame {
            1 | 2 | 5 => {
                for (i, &id) in ids.iter().enumerate() {
                    s.transform_mut(id).unwrap().position.x += (i % 3) as f32 - 1.0;
                }
            }
            // Sprite 9 stays where it was placed; its neighbours fade (one upload range bridging it).
            3 => {
                for i in [8, 10] {
                    s.get_mut(ids[i]).unwrap().alpha = 0.5;
                }
            }
            4 => s.transform_mut(ids[20]).unwrap().position.y += 3.0,
            6 => {
                s.transform_mut(ids[20]).unwrap().position.y -= 3.0;
                s.add(s.root(), Node::sprite(white).sized(3.0, 3.0))
                    .unwrap();
            }
            _ => {}
        }
        r.render(&s, &target, Some(Color::BLACK)).unwrap();
        kept.push(r.stats().last_frame.walks_kept);
        let got = r.read_pixels(&target).unwrap();
        // The same scene with the reference renderer's white texture: a new target each frame walks afresh.
        let mut other = Scene::new();
        copy_tree(&s, s.root(), &mut other, None, fresh_white);
        let want = render(&mut fresh, &other, 52, 40, Color::BLACK);
        assert_eq!(fresh.stats().last_frame.walks_kept, 0);
        assert!(
            got == want,
            "frame {frame}: pixels differ from a fresh walk's"
        );
    }
    assert_eq!(kept, [0, 1, 1, 1, 1, 1, 0], "which frames kept their walk");
}

/// Sprites moved through `Scene::child_transforms_mut` (one call a frame, as a slice while the children sit in
/// consecutive slots, then through `for_each` once they do not) draw where a fresh walk draws them, keeping the
/// walk while only leaves moved; a child with children of its own makes the next frame walk again.
#[test]
fn bulk_moves_draw_what_a_fresh_walk_draws() {
    let mut r = renderer();
    let mut fresh = renderer();
    let (white, fresh_white) = (r.white_texture(), fresh.white_texture());
    let mut s = Scene::new();
    let group = s.add(s.root(), Node::container().at(2.0, 1.0)).unwrap();
    let grid = |i: usize| Vec2::new((i % 8) as f32 * 6.0 + 1.0, (i / 8) as f32 * 6.0 + 1.0);
    let add = |s: &mut Scene, i: usize| {
        let c = Color::rgb((i % 3) as f32 / 2.0, (i % 5) as f32 / 4.0, 1.0);
        let p = grid(i);
        s.add(
            group,
            Node::sprite(white).sized(4.0, 4.0).at(p.x, p.y).tinted(c),
        )
        .unwrap()
    };
    let ids: Vec<_> = (0..40).map(|i| add(&mut s, i)).collect();
    let target = r.create_render_target(56, 44).unwrap();
    let mut kept = Vec::new();
    let mut slices = Vec::new();
    for frame in 0..7 {
        match frame {
            1 | 2 => {
                let mut ts = s.child_transforms_mut(group).unwrap();
                assert_eq!(ts.len(), 40);
                let slice = ts
                    .as_mut_slice()
                    .expect("children added in order are one slice");
                for (i, t) in slice.iter_mut().enumerate() {
                    t.position.x += (i % 3) as f32 - 1.0;
                }
                slices.push(frame);
            }
            // A child removed and one added: the children are no longer consecutive slots in order.
            3 => {
                s.remove(ids[5]).unwrap();
                s.add(s.root(), Node::container()).unwrap();
                add(&mut s, 45);
                s.set_z_index(ids[0], 1).unwrap();
                s.set_sortable_children(group, true).unwrap();
            }
            4 => {
                let mut ts = s.child_transforms_mut(group).unwrap();
                let n = ts.len();
                ts.for_each(|i, t| t.position.y += if i % 2 == 0 { 1.0 } else { -1.0 });
                assert!(ts.get_mut(n).is_none());
                if ts.as_mut_slice().is_some() {
                    slices.push(frame);
                }
            }
            // A child with a child of its own: moving it moves its subtree, so the frame walks.
            5 => {
                s.add(ids[10], Node::sprite(white).sized(2.0, 2.0).at(4.0, 0.0))
                    .unwrap();
            }
            6 => {
                s.child_transforms_mut(group)
                    .unwrap()
                    .for_each(|_, t| t.position.x -= 1.0);
            }
            _ => {}
        }
        r.render(&s, &target, Some(Color::BLACK)).unwrap();
        kept.push(r.stats().last_frame.walks_kept);
        let got = r.read_pixels(&target).unwrap();
        let mut other = Scene::new();
        copy_tree(&s, s.root(), &mut other, None, fresh_white);
        let want = render(&mut fresh, &other, 56, 44, Color::BLACK);
        assert!(
            got == want,
            "frame {frame}: pixels differ from a fresh walk's"
        );
    }
    assert_eq!(
        slices,
        [1, 2],
        "a slice only while the children are consecutive"
    );
    assert_eq!(kept, [0, 1, 1, 0, 1, 0, 0], "which frames kept their walk");
    // A removed parent is an error, not a slice.
    let gone = s.add(s.root(), Node::container()).unwrap();
    s.remove(gone).unwrap();
    assert!(s.child_transforms_mut(gone).is_err());
}

/// Copies the subtree under `id` of `s` into `other` (under `parent`, or as its root's children), sprites drawing
/// `white` instead of their texture.
fn copy_tree(
    s: &Scene,
    id: stage2d::NodeId,
    other: &mut Scene,
    parent: Option<stage2d::NodeId>,
    white: stage2d::Texture,
) {
    let to = match parent {
        None => other.root(),
        Some(p) => {
            let mut props = s.get(id).unwrap().clone();
            if let stage2d::NodeKind::Sprite(sp) = &mut props.kind {
                sp.texture = white;
            }
            other
                .add(p, Node::from_parts(*s.transform(id).unwrap(), props))
                .unwrap()
        }
    };
    if s.sortable_children(id) {
        other.set_sortable_children(to, true).unwrap();
    }
    for &c in s.children(id) {
        copy_tree(s, c, other, Some(to), white);
    }
}
