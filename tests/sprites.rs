//! Spritesheets (trimmed and rotated frames), animated, tiling and nine-slice sprites and mipmaps, drawn on the
//! software adapter and compared pixel by pixel with references computed here on the CPU.

mod common;

use common::{golden, probe, px, render, renderer};
use stage2d::image::{Rgba, RgbaImage};
use stage2d::{
    AnimatedSprite, Color, NineSliceSprite, Node, Sampling, Scene, Spritesheet, TilingSprite,
};
use std::path::Path;

const CLEAR: Color = Color {
    r: 0.0,
    g: 0.0,
    b: 0.0,
    a: 0.0,
};

fn manifest(p: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

fn critters(r: &mut stage2d::Renderer) -> Spritesheet {
    let json = std::fs::read(manifest("assets/critters.json")).unwrap();
    let texture = r
        .load_texture(manifest("assets/critters.png"), Sampling::NEAREST)
        .unwrap();
    Spritesheet::from_json(&json, texture, "critters.json").unwrap()
}

/// Frame `name` of the sheet as the untrimmed, upright image the JSON describes, made on the CPU from the PNG.
fn expected_frame(name: &str) -> RgbaImage {
    let sheet = stage2d::image::open(manifest("assets/critters.png"))
        .unwrap()
        .to_rgba8();
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(manifest("assets/critters.json")).unwrap()).unwrap();
    let f = &json["frames"][name];
    let n = |v: &serde_json::Value| v.as_f64().unwrap() as u32;
    let (x, y, w, h) = (
        n(&f["frame"]["x"]),
        n(&f["frame"]["y"]),
        n(&f["frame"]["w"]),
        n(&f["frame"]["h"]),
    );
    let rotated = f["rotated"].as_bool().unwrap_or(false);
    let (ox, oy) = (
        n(&f["spriteSourceSize"]["x"]),
        n(&f["spriteSourceSize"]["y"]),
    );
    let (sw, sh) = (n(&f["sourceSize"]["w"]), n(&f["sourceSize"]["h"]));
    let mut out = RgbaImage::new(sw, sh);
    for j in 0..h {
        for i in 0..w {
            // Stored turned clockwise: upright (i, j) sits at (h - 1 - j, i) of the region.
            let (sx, sy) = if rotated {
                (x + h - 1 - j, y + i)
            } else {
                (x + i, y + j)
            };
            out.put_pixel(ox + i, oy + j, *sheet.get_pixel(sx, sy));
        }
    }
    out
}

/// Whether two straight-alpha pixels show the same thing: premultiplied, equal within 2 (textures are stored
/// premultiplied in 8 bits, so a faint pixel's straight colour comes back coarse).
fn same(a: [u8; 4], b: [u8; 4]) -> bool {
    let pm = |p: [u8; 4]| [0, 1, 2].map(|i| p[i] as u32 * p[3] as u32 / 255);
    let (pa, pb) = (pm(a), pm(b));
    a[3].abs_diff(b[3]) <= 2 && (0..3).all(|i| pa[i].abs_diff(pb[i]) <= 2)
}

#[test]
fn trimmed_and_rotated_frames_draw_upright_at_their_untrimmed_place() {
    let mut r = renderer();
    let sheet = critters(&mut r);
    let names: Vec<String> = sheet.frame_names().map(String::from).collect();
    let rotated = names
        .iter()
        .filter(|n| sheet.frame(n).unwrap().is_rotated())
        .count();
    let trimmed = names
        .iter()
        .filter(|n| sheet.frame(n).unwrap().is_trimmed())
        .count();
    assert!(
        rotated >= 4 && trimmed >= 12,
        "{rotated} rotated, {trimmed} trimmed"
    );
    // Every frame in its own 48x48 cell, anchored top-left over the sheet's anchor (which is tested below).
    let mut scene = Scene::new();
    let cols = 6;
    for (i, n) in names.iter().enumerate() {
        let t = sheet.frame(n).unwrap();
        assert_eq!(t.size(), [48.0, 48.0], "{n}: the untrimmed size");
        let (cx, cy) = ((i % cols) as f32 * 48.0, (i / cols) as f32 * 48.0);
        scene
            .add(scene.root(), Node::sprite(t).anchor(0.0, 0.0).at(cx, cy))
            .unwrap();
    }
    let rows = names.len().div_ceil(cols) as u32;
    let img = render(&mut r, &scene, 48 * cols as u32, 48 * rows, CLEAR);
    for (i, n) in names.iter().enumerate() {
        let want = expected_frame(n);
        let (cx, cy) = ((i % cols) as u32 * 48, (i / cols) as u32 * 48);
        let mut bad = 0;
        for (x, y, p) in want.enumerate_pixels() {
            if !same(px(&img, cx + x, cy + y), p.0) {
                bad += 1;
            }
        }
        assert_eq!(
            bad, 0,
            "{n}: {bad} pixels differ from the upright untrimmed frame"
        );
    }
    golden("sheet_frames", &img);
}

#[test]
fn sheet_anchors_and_scaled_trimmed_frames() {
    let mut r = renderer();
    let sheet = critters(&mut r);
    let name = "beetle_crawl_1.png";
    assert_eq!(sheet.anchor(name), Some(glam::Vec2::new(0.5, 1.0)));
    let mut scene = Scene::new();
    // Anchored bottom-centre at (48, 96), drawn at twice the size: the untrimmed 96x96 box spans 0..96, 0..96.
    // The frame carries its anchor (PixiJS's defaultAnchor): Node::sprite of it is anchored as the sheet says.
    let frame = sheet.frame(name).unwrap();
    assert_eq!(frame.default_anchor(), glam::Vec2::new(0.5, 1.0));
    let node = Node::sprite(frame).at(48.0, 96.0).sized(96.0, 96.0);
    let id = scene.add(scene.root(), node).unwrap();
    let img = render(&mut r, &scene, 96, 96, CLEAR);
    let want = expected_frame(name);
    for (x, y, p) in want.enumerate_pixels() {
        for (dx, dy) in [(0, 0), (1, 1)] {
            assert!(
                same(px(&img, 2 * x + dx, 2 * y + dy), p.0),
                "({x},{y}) at 2x"
            );
        }
    }
    // Bounds and hits use the untrimmed box, as PixiJS's do.
    let b = scene.world_bounds(id).unwrap();
    assert_eq!((b.min.x, b.min.y, b.max.x, b.max.y), (0.0, 0.0, 96.0, 96.0));
}

#[test]
fn animation_frames_turn_without_bind_groups_or_uploads() {
    let mut r = renderer();
    let sheet = critters(&mut r);
    let mut scene = Scene::new();
    let first = sheet.animation("bird_flap").unwrap()[0];
    let mut anims = Vec::new();
    for i in 0..50 {
        let n = scene
            .add(
                scene.root(),
                Node::sprite(first)
                    .at((i % 10) as f32 * 24.0 + 24.0, (i / 10) as f32 * 24.0 + 48.0),
            )
            .unwrap();
        let mut a = AnimatedSprite::from_sheet(n, &sheet, "bird_flap").unwrap();
        a.play();
        anims.push(a);
    }
    let target = r.create_render_target(280, 180).unwrap();
    r.render(&scene, &target, Some(CLEAR)).unwrap();
    r.render(&scene, &target, Some(CLEAR)).unwrap();
    let before = r.stats().total;
    let mut shown = std::collections::HashSet::new();
    for _ in 0..12 {
        for a in &mut anims {
            a.update(&mut scene, 1.0 / 12.0).unwrap();
        }
        shown.insert(anims[0].current_frame());
        r.render(&scene, &target, Some(CLEAR)).unwrap();
    }
    let after = r.stats().total;
    assert_eq!(shown.len(), 6, "every frame of the flap was shown");
    assert_eq!(after.textures_created, before.textures_created);
    assert_eq!(after.bind_groups_created, before.bind_groups_created);
    assert_eq!(r.stats().last_frame.draw_calls, 1);
    // The anchors came from the sheet.
    let s = match &scene.get(anims[0].node()).unwrap().kind {
        stage2d::NodeKind::Sprite(s) => *s,
        _ => unreachable!(),
    };
    assert_eq!(s.anchor, glam::Vec2::new(0.5, 1.0));
}

/// A `w x h` texture whose every pixel has its own colour (x and y in red and green).
fn ramp(w: u32, h: u32) -> RgbaImage {
    RgbaImage::from_fn(w, h, |x, y| {
        Rgba([
            (x * 255 / w.max(2)) as u8,
            (y * 255 / h.max(2)) as u8,
            128,
            255,
        ])
    })
}

/// `ramp(8, 8)` as a texture sampled nearest.
fn ramp_texture(r: &mut stage2d::Renderer) -> stage2d::Texture {
    r.texture_from_image(&ramp(8, 8), Sampling::NEAREST)
        .unwrap()
}

#[test]
fn tiling_sprites_repeat_whole_textures_and_frames() {
    let mut r = renderer();
    let tile = ramp(16, 8);
    let whole = r.texture_from_image(&tile, Sampling::NEAREST).unwrap();
    // The same pixels as a frame of an atlas, and again stored rotated.
    let mut atlas = RgbaImage::from_pixel(40, 40, Rgba([255, 0, 255, 255]));
    for (x, y, p) in tile.enumerate_pixels() {
        atlas.put_pixel(3 + x, 5 + y, *p);
        // Clockwise: upright (x, y) at (h - 1 - y, x) of the region at (20, 2), 8 wide and 16 tall.
        atlas.put_pixel(20 + 7 - y, 2 + x, *p);
    }
    let atlas = r.texture_from_image(&atlas, Sampling::NEAREST).unwrap();
    let frame = atlas.frame(3, 5, 16, 8).unwrap();
    let turned = atlas
        .packed_frame([20, 2, 8, 16], true, [16, 8], [0, 0])
        .unwrap();
    let offset = glam::Vec2::new(5.0, 3.0);
    for (name, t) in [
        ("whole", whole),
        ("frame", frame),
        ("rotated frame", turned),
    ] {
        let mut scene = Scene::new();
        let mut ts = TilingSprite::new(t, 70.0, 50.0);
        ts.tile_position = offset;
        scene
            .add(scene.root(), Node::tiling(ts).at(4.0, 2.0))
            .unwrap();
        let img = render(&mut r, &scene, 80, 60, CLEAR);
        for y in 0..60u32 {
            for x in 0..80u32 {
                let inside = (4..74).contains(&x) && (2..52).contains(&y);
                let got = px(&img, x, y);
                if !inside {
                    assert_eq!(got[3], 0, "{name}: ({x},{y}) outside");
                    continue;
                }
                let lx = (x as f32 + 0.5 - 4.0 - offset.x).rem_euclid(16.0) as u32;
                let ly = (y as f32 + 0.5 - 2.0 - offset.y).rem_euclid(8.0) as u32;
                assert_eq!(got, tile.get_pixel(lx, ly).0, "{name}: ({x},{y})");
            }
        }
    }
    // Scaled and turned tiles: a tile pixel at twice the size, a quarter turn.
    let mut scene = Scene::new();
    let mut ts = TilingSprite::new(whole, 64.0, 64.0);
    ts.tile_scale = glam::Vec2::splat(2.0);
    ts.tile_rotation = std::f32::consts::FRAC_PI_2;
    scene.add(scene.root(), Node::tiling(ts)).unwrap();
    let img = render(&mut r, &scene, 64, 64, CLEAR);
    for (x, y) in [(1u32, 1u32), (10, 20), (33, 47), (63, 63), (17, 2)] {
        // Inverse of rotate(90°) · scale(2): tile = (y, -x) / 2.
        let (cx, cy) = (x as f32 + 0.5, y as f32 + 0.5);
        let (tx, ty) = (cy / 2.0, -cx / 2.0);
        let want = tile
            .get_pixel(tx.rem_euclid(16.0) as u32, ty.rem_euclid(8.0) as u32)
            .0;
        probe(&img, x, y, want, 0);
    }
    golden("tiling_turned", &img);
}

#[test]
fn tiling_sprites_batch_with_sprites() {
    let mut r = renderer();
    let t = ramp_texture(&mut r);
    let mut scene = Scene::new();
    for i in 0..4 {
        scene
            .add(scene.root(), Node::sprite(t).at(i as f32 * 10.0, 0.0))
            .unwrap();
        scene
            .add(
                scene.root(),
                Node::tiling(TilingSprite::new(t, 30.0, 10.0)).at(0.0, 10.0 + i as f32 * 10.0),
            )
            .unwrap();
    }
    render(&mut r, &scene, 64, 64, CLEAR);
    assert_eq!(r.stats().last_frame.draw_calls, 1);
}

#[test]
fn nine_slices_keep_their_borders_at_any_size() {
    let mut r = renderer();
    // 12x12: a 3-pixel red left border, 2-pixel green top, 4-pixel blue right, 1-pixel yellow bottom, white centre.
    let (l, t, rr, b) = (3u32, 2u32, 4u32, 1u32);
    let img = RgbaImage::from_fn(12, 12, |x, y| {
        Rgba(if x < l {
            [255, 0, 0, 255]
        } else if x >= 12 - rr {
            [0, 0, 255, 255]
        } else if y < t {
            [0, 255, 0, 255]
        } else if y >= 12 - b {
            [255, 255, 0, 255]
        } else {
            [255, 255, 255, 255]
        })
    });
    let tex = r.texture_from_image(&img, Sampling::NEAREST).unwrap();
    for (w, h) in [(100.0f32, 40.0f32), (12.0, 12.0), (7.0, 3.0), (40.0, 100.0)] {
        let mut scene = Scene::new();
        let mut n = NineSliceSprite::new(tex, [l as f32, t as f32, rr as f32, b as f32]);
        n.size = glam::Vec2::new(w, h);
        scene
            .add(scene.root(), Node::nine_slice(n).at(2.0, 2.0))
            .unwrap();
        let out = render(&mut r, &scene, 110, 110, CLEAR);
        // Below the borders' sum (7 = 3 + 4 wide, 3 = 2 + 1 tall) the borders shrink by the same factor.
        let k = (w / (l + rr) as f32).min(h / (t + b) as f32).min(1.0);
        let (bl, bt, br, bb) = (l as f32 * k, t as f32 * k, rr as f32 * k, b as f32 * k);
        for y in 0..110u32 {
            for x in 0..110u32 {
                let (cx, cy) = (x as f32 + 0.5 - 2.0, y as f32 + 0.5 - 2.0);
                let got = px(&out, x, y);
                if cx < 0.0 || cy < 0.0 || cx > w || cy > h {
                    assert_eq!(got[3], 0, "{w}x{h}: ({x},{y}) outside");
                    continue;
                }
                let near = |a: f32, e: f32| (a - e).abs() < 0.51;
                if [bl, w - br].iter().any(|&e| near(cx, e))
                    || [bt, h - bb].iter().any(|&e| near(cy, e))
                {
                    continue; // on a seam
                }
                let want = if cx < bl {
                    [255, 0, 0, 255]
                } else if cx > w - br {
                    [0, 0, 255, 255]
                } else if cy < bt {
                    [0, 255, 0, 255]
                } else if cy > h - bb {
                    [255, 255, 0, 255]
                } else {
                    [255, 255, 255, 255]
                };
                assert_eq!(got, want, "{w}x{h}: ({x},{y})");
            }
        }
    }
}

/// A `size` checkerboard of single black and white texels.
fn checker(size: u32) -> RgbaImage {
    RgbaImage::from_fn(size, size, |x, y| {
        let v = if (x + y) % 2 == 0 { 255 } else { 0 };
        Rgba([v, v, v, 255])
    })
}

#[test]
fn mipmaps_average_textures_drawn_small() {
    let mut r = renderer();
    let board = checker(256);
    let plain = r.texture_from_image(&board, Sampling::LINEAR).unwrap();
    let mipped = r.texture_from_image(&board, Sampling::TRILINEAR).unwrap();
    let mut scene = Scene::new();
    // Scales 1/2, 1/4, 1/8 (and 1/5.3, between levels) side by side, without and with mipmaps.
    let scales = [0.5f32, 0.25, 0.125, 0.19];
    let mut x = 0.0;
    for &s in &scales {
        for (row, t) in [(0.0, plain), (140.0, mipped)] {
            let mut n = Node::sprite(t).at(x, row);
            n.transform.scale = glam::Vec2::splat(s);
            scene.add(scene.root(), n).unwrap();
        }
        x += 256.0 * s + 4.0;
    }
    let img = render(&mut r, &scene, 300, 280, Color::rgb(1.0, 0.0, 0.0));
    // With mipmaps every covered pixel is the board's average; without, a scale of 1/8 picks a few texels.
    let mut x = 0.0f32;
    let mut plain_spread = 0;
    for &s in &scales {
        let side = (256.0 * s) as u32;
        for (row, mipped) in [(0u32, false), (140, true)] {
            let (mut lo, mut hi) = (255u8, 0u8);
            for y in 1..side - 1 {
                for xx in 1..side - 1 {
                    let p = px(&img, x as u32 + xx, row + y);
                    lo = lo.min(p[0]);
                    hi = hi.max(p[0]);
                }
            }
            if mipped {
                assert!(
                    hi - lo <= 24 && (104..=152).contains(&lo),
                    "scale {s} with mipmaps: {lo}..{hi}"
                );
            } else if s <= 0.25 {
                plain_spread = plain_spread.max(hi - lo);
            }
        }
        x += 256.0 * s + 4.0;
    }
    assert!(
        plain_spread > 100,
        "without mipmaps the board shimmers: spread {plain_spread}"
    );
    golden("mipmaps", &img);
}

#[test]
fn hostile_tiling_and_nine_slice_values_are_skipped_and_the_rest_draws() {
    let mut r = renderer();
    let t = ramp_texture(&mut r);
    let white = r.white_texture();
    let mut scene = Scene::new();
    let tilings = [
        (f32::NAN, 1.0, 0.0),
        (0.0, 1.0, 0.0),
        (1e-30, 1.0, 0.0),
        (1e30, 1e30, 0.0),
        (1.0, 1.0, f32::NAN),
        (1.0, 1.0, 1e30),
    ];
    for (i, (sx, sy, rot)) in tilings.into_iter().enumerate() {
        let mut ts = TilingSprite::new(t, 10.0, 10.0);
        ts.tile_scale = glam::Vec2::new(sx, sy);
        ts.tile_rotation = rot;
        scene
            .add(scene.root(), Node::tiling(ts).at(i as f32 * 10.0, 0.0))
            .unwrap();
    }
    for size in [f32::NAN, f32::INFINITY, -5.0, 1e30, 0.0] {
        let mut ts = TilingSprite::new(t, size, 4.0);
        ts.tile_position = glam::Vec2::splat(size);
        scene.add(scene.root(), Node::tiling(ts)).unwrap();
        let mut ns = NineSliceSprite::new(t, [size, -3.0, f32::MAX, 2.0]);
        ns.size = glam::Vec2::new(size, 5.0);
        scene.add(scene.root(), Node::nine_slice(ns)).unwrap();
    }
    // A plain red quad after all of them still draws.
    scene
        .add(
            scene.root(),
            Node::sprite(white)
                .sized(6.0, 6.0)
                .at(60.0, 20.0)
                .tinted(Color::rgb(1.0, 0.0, 0.0)),
        )
        .unwrap();
    let started = std::time::Instant::now();
    let img = render(&mut r, &scene, 80, 40, CLEAR);
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    probe(&img, 63, 23, [255, 0, 0, 255], 0);
    // An animation with a non-finite rate does nothing.
    let id = scene.add(scene.root(), Node::sprite(t)).unwrap();
    let mut a = AnimatedSprite::new(id, vec![t, white]).unwrap();
    a.fps = f32::NAN;
    a.play();
    assert!(!a.update(&mut scene, 0.5).unwrap().frame_changed);
}

#[test]
fn nine_slices_of_full_borders_and_of_rotated_frames() {
    let mut r = renderer();
    // 4x4 with 2-pixel borders on every side: nothing of the texture is left for the middle, which stretches the
    // texels at the seams (as PixiJS does) instead of leaving a hole.
    let img = RgbaImage::from_fn(4, 4, |x, y| Rgba([x as u8 * 60, y as u8 * 60, 200, 255]));
    let t = r.texture_from_image(&img, Sampling::NEAREST).unwrap();
    let mut scene = Scene::new();
    let mut n = NineSliceSprite::new(t, [2.0; 4]);
    n.size = glam::Vec2::new(20.0, 20.0);
    scene.add(scene.root(), Node::nine_slice(n)).unwrap();
    let out = render(&mut r, &scene, 20, 20, CLEAR);
    for y in 0..20 {
        for x in 0..20 {
            assert_eq!(px(&out, x, y)[3], 255, "({x},{y}) is drawn");
        }
    }
    // The middle shows the texel at the seam, (2, 2): the first of the right and bottom borders.
    probe(&out, 10, 10, [120, 120, 200, 255], 0);
    // A rotated frame slices like the same pixels stored upright.
    let tile = ramp(12, 8);
    let upright = r.texture_from_image(&tile, Sampling::NEAREST).unwrap();
    let mut atlas = RgbaImage::from_pixel(20, 20, Rgba([255, 0, 255, 255]));
    for (x, y, p) in tile.enumerate_pixels() {
        atlas.put_pixel(1 + 7 - y, 1 + x, *p);
    }
    let atlas = r.texture_from_image(&atlas, Sampling::NEAREST).unwrap();
    let turned = atlas
        .packed_frame([1, 1, 8, 12], true, [12, 8], [0, 0])
        .unwrap();
    let draw = |r: &mut stage2d::Renderer, t| {
        let mut scene = Scene::new();
        let mut n = NineSliceSprite::new(t, [3.0, 2.0, 4.0, 3.0]);
        n.size = glam::Vec2::new(40.0, 30.0);
        scene
            .add(scene.root(), Node::nine_slice(n).at(3.0, 2.0))
            .unwrap();
        render(r, &scene, 48, 36, CLEAR)
    };
    let (a, b) = (draw(&mut r, upright), draw(&mut r, turned));
    assert_eq!(a, b, "a rotated frame slices as the upright one");
}

#[test]
fn tiling_and_nine_slice_sprites_mask_and_are_masked() {
    let mut r = renderer();
    let white = r.white_texture();
    let t = ramp_texture(&mut r);
    let mut scene = Scene::new();
    let root = scene.root();
    // A red square masked by a tiling sprite covering its left half (a mask is its quad's rectangle).
    let red = scene
        .add(
            root,
            Node::sprite(white)
                .sized(20.0, 20.0)
                .at(2.0, 2.0)
                .tinted(Color::rgb(1.0, 0.0, 0.0)),
        )
        .unwrap();
    let mut ts = TilingSprite::new(t, 10.0, 20.0);
    ts.tile_rotation = 0.5;
    let m = scene.add_detached(Node::tiling(ts).at(2.0, 2.0));
    scene.set_mask(red, m, false).unwrap();
    // A nine-slice sprite masked by a 10x10 white rectangle inside it.
    let mut ns = NineSliceSprite::new(t, [2.0; 4]);
    ns.size = glam::Vec2::new(20.0, 20.0);
    let slice = scene.add(root, Node::nine_slice(ns).at(30.0, 2.0)).unwrap();
    let rect = scene.add_detached(Node::sprite(white).sized(10.0, 10.0).at(35.0, 7.0));
    scene.set_mask(slice, rect, false).unwrap();
    let img = render(&mut r, &scene, 56, 24, CLEAR);
    probe(&img, 5, 10, [255, 0, 0, 255], 0);
    assert_eq!(px(&img, 15, 10)[3], 0, "outside the tiling mask");
    assert_eq!(px(&img, 32, 4)[3], 0, "nine-slice outside its mask");
    assert_eq!(px(&img, 40, 12)[3], 255, "nine-slice inside its mask");
    // Hit testing agrees: the masked halves miss.
    scene
        .set_event_mode(red, stage2d::EventMode::Static)
        .unwrap();
    scene
        .set_event_mode(slice, stage2d::EventMode::Static)
        .unwrap();
    let at = |x: f32, y: f32| glam::Vec2::new(x, y);
    assert_eq!(scene.hit_test(at(5.0, 10.0)), Some(red));
    assert_eq!(scene.hit_test(at(15.0, 10.0)), None);
    assert_eq!(scene.hit_test(at(40.0, 12.0)), Some(slice));
    assert_eq!(scene.hit_test(at(32.0, 4.0)), None);
}

/// `Node::anchor` and `Node::sized` work on tiling and nine-slice sprites as on sprites (they did nothing there).
#[test]
fn anchor_and_sized_work_on_tiling_nine_slice_and_text_nodes() {
    let mut r = renderer();
    let white = r.white_texture();
    let mut s = Scene::new();
    // A 20x10 tiling sprite centred on (20, 20) and a 20x10 nine-slice sprite with its bottom-right corner at
    // (60, 40), both built in one expression.
    let tiling = s
        .add(
            s.root(),
            Node::tiling(TilingSprite::new(white, 4.0, 4.0))
                .sized(20.0, 10.0)
                .anchor(0.5, 0.5)
                .at(20.0, 20.0)
                .tinted(Color::RED),
        )
        .unwrap();
    let nine = s
        .add(
            s.root(),
            Node::nine_slice(NineSliceSprite::new(white, [0.0; 4]))
                .sized(20.0, 10.0)
                .anchor(1.0, 1.0)
                .at(60.0, 40.0)
                .tinted(Color::GREEN),
        )
        .unwrap();
    let rect = |id| {
        let b = s.world_bounds(id).unwrap();
        (b.min.x, b.min.y, b.max.x, b.max.y)
    };
    assert_eq!(rect(tiling), (10.0, 15.0, 30.0, 25.0));
    assert_eq!(rect(nine), (40.0, 30.0, 60.0, 40.0));
    let img = render(&mut r, &s, 64, 48, CLEAR);
    probe(&img, 10, 15, [255, 0, 0, 255], 0);
    probe(&img, 29, 24, [255, 0, 0, 255], 0);
    probe(&img, 9, 15, [0, 0, 0, 0], 0);
    probe(&img, 30, 24, [0, 0, 0, 0], 0);
    probe(&img, 40, 30, [0, 255, 0, 255], 0);
    probe(&img, 59, 39, [0, 255, 0, 255], 0);
    probe(&img, 39, 30, [0, 0, 0, 0], 0);
    // A container has no anchor or size: the builder leaves it as it was.
    let c = stage2d::Node::container().anchor(0.5, 0.5).sized(5.0, 5.0);
    assert_eq!(c.transform, stage2d::Transform::IDENTITY);
}

/// Text: `anchor` places it by its laid-out block, `sized` scales the block to the size (PixiJS's width/height).
#[cfg(feature = "text")]
#[test]
fn anchor_and_sized_work_on_text_nodes() {
    let mut s = Scene::new();
    // Anchored at its right edge, and sized to 100x20 by its scale.
    let font = stage2d::Font::from_bytes(include_bytes!("../assets/DejaVuSans.ttf")).unwrap();
    let label = s
        .add(
            s.root(),
            Node::text(stage2d::Text::new("Gold x3", &font, 16.0))
                .anchor(1.0, 0.0)
                .sized(100.0, 20.0)
                .at(200.0, 0.0),
        )
        .unwrap();
    let b = s.world_bounds(label).unwrap();
    assert!((b.max.x - 200.0).abs() < 0.01, "{b:?}");
    assert!((b.max.x - b.min.x - 100.0).abs() < 0.01, "{b:?}");
    assert!((b.max.y - b.min.y - 20.0).abs() < 0.01, "{b:?}");
}

/// Event mode, cursor, hit area and z-index set in the builder reach the scene when the node is added.
#[test]
fn the_node_builder_sets_event_mode_cursor_hit_area_and_z_index() {
    use stage2d::{Cursor, EventMode, HitArea};
    let mut r = renderer();
    let white = r.white_texture();
    let mut s = Scene::new();
    let top = s
        .add(
            s.root(),
            Node::sprite(white)
                .sized(10.0, 10.0)
                .tinted(Color::RED)
                .with_event_mode(EventMode::Static)
                .with_cursor(Cursor::Pointer)
                .with_hit_area(HitArea::Rect {
                    x: 0.0,
                    y: 0.0,
                    width: 20.0,
                    height: 20.0,
                })
                .with_z_index(1),
        )
        .unwrap();
    let under = s
        .add(
            s.root(),
            Node::sprite(white)
                .sized(10.0, 10.0)
                .tinted(Color::BLUE)
                .with_event_mode(EventMode::Static),
        )
        .unwrap();
    assert_eq!(s.event_mode(top), Some(EventMode::Static));
    assert_eq!(s.cursor(top), Some(Cursor::Pointer));
    assert_eq!(s.z_index(top), Some(1));
    // Drawn and hit over the node added after it (its z-index sorted the root), and hit by its larger area.
    assert_eq!(s.children(s.root()), &[under, top]);
    let img = render(&mut r, &s, 16, 16, CLEAR);
    probe(&img, 5, 5, [255, 0, 0, 255], 0);
    assert_eq!(s.hit_test(stage2d::glam::Vec2::new(5.0, 5.0)), Some(top));
    assert_eq!(s.hit_test(stage2d::glam::Vec2::new(15.0, 15.0)), Some(top));
    // An invalid hit area refuses the add and adds nothing.
    let before = s.len();
    let bad = Node::sprite(white).with_hit_area(HitArea::Rect {
        x: 0.0,
        y: 0.0,
        width: -1.0,
        height: 1.0,
    });
    assert!(matches!(
        s.add(s.root(), bad),
        Err(stage2d::Error::InvalidHitArea(_))
    ));
    assert_eq!(s.len(), before);
}

/// An animation from a sheet shows its first frame at the sheet's anchor from the first frame drawn, before any
/// update: the node made of the frame is anchored already, and the first update moves nothing.
#[test]
fn a_sheet_animation_stands_at_its_anchor_before_the_first_update() {
    let mut r = renderer();
    let sheet = critters(&mut r);
    let mut scene = Scene::new();
    let id = scene
        .add(
            scene.root(),
            Node::sprite(sheet.frame("blob_walk_0.png").unwrap()).at(48.0, 96.0),
        )
        .unwrap();
    let before = scene.world_bounds(id).unwrap();
    // Bottom-centre at (48, 96): the untrimmed 48x48 box spans 24..72, 48..96.
    assert_eq!(
        (before.min.x, before.min.y, before.max.x, before.max.y),
        (24.0, 48.0, 72.0, 96.0)
    );
    let first = render(&mut r, &scene, 96, 96, CLEAR);
    let mut anim = AnimatedSprite::from_sheet(id, &sheet, "blob_walk").unwrap();
    anim.play();
    anim.update(&mut scene, 0.0).unwrap();
    let after = scene.world_bounds(id).unwrap();
    assert_eq!(before, after, "the first update moved the sprite");
    assert!(first == render(&mut r, &scene, 96, 96, CLEAR));
}
