//! Texture resolution (PixiJS's `resolution`): `@2x` images draw at half their pixel size, as sprites, tiles,
//! nine-slice sprites and patterns; `Assets` reads the file-name suffixes and a sheet's `meta.scale`; PixiJS's
//! `tiling-sprite-tile-position-resolution` scene against its snapshot.

mod common;
use common::*;
use stage2d::glam::{Affine2, Vec2};
use stage2d::{
    Assets, Color, FillPattern, GraphicsContext, NineSliceSprite, Node, RenderTextureOptions,
    Sampling, Scene, TilingSprite,
};

/// A 4x4 texture: red left half, blue right half; nearest sampling.
fn halves(r: &mut stage2d::Renderer) -> stage2d::Texture {
    let mut px = Vec::new();
    for _ in 0..4 {
        for x in 0..4 {
            px.extend(if x < 2 {
                [255, 0, 0, 255]
            } else {
                [0, 0, 255, 255]
            });
        }
    }
    r.create_texture(4, 4, &px, Sampling::NEAREST).unwrap()
}

const RED: [u8; 4] = [255, 0, 0, 255];
const BLUE: [u8; 4] = [0, 0, 255, 255];
const BLACK: [u8; 4] = [0, 0, 0, 255];

#[test]
fn a_texture_at_resolution_two_draws_at_half_its_pixel_size() {
    let mut r = renderer();
    let t = halves(&mut r);
    let t2 = t.with_resolution(2.0);
    assert_eq!(
        (t2.size(), t2.source_size(), t2.resolution()),
        ([2.0, 2.0], [4, 4], 2.0)
    );
    assert_eq!(
        t2.frame(0, 0, 2, 4).unwrap().size(),
        [1.0, 2.0],
        "frames keep the resolution"
    );
    // Sprites of it: scaled 8x, the 4-pixel image covers 16 pixels.
    let mut s = Scene::new();
    s.add(s.root(), Node::sprite(t2).scaled(8.0)).unwrap();
    // A tiling sprite tiles it every 2 units (16 pixels at 8x).
    s.add(
        s.root(),
        Node::tiling(TilingSprite::new(t2, 4.0, 2.0))
            .at(0.0, 20.0)
            .scaled(8.0),
    )
    .unwrap();
    let img = render(&mut r, &s, 40, 40, Color::BLACK);
    probe(&img, 4, 4, RED, 0);
    probe(&img, 12, 4, BLUE, 0);
    probe(&img, 20, 4, BLACK, 0);
    probe(&img, 4, 24, RED, 0);
    probe(&img, 12, 24, BLUE, 0);
    probe(&img, 20, 24, RED, 0); // the second tile
    probe(&img, 28, 24, BLUE, 0);
    // A pattern in global space tiles at its size in units too.
    let mut g = GraphicsContext::new();
    g.rect(0.0, 0.0, 32.0, 8.0)
        .fill(FillPattern::new(t2).with_matrix(Affine2::from_scale(Vec2::splat(4.0))));
    let mut s = Scene::new();
    s.add(s.root(), Node::graphics(g)).unwrap();
    let img = render(&mut r, &s, 32, 8, Color::BLACK);
    for (x, want) in [(2, RED), (6, BLUE), (10, RED), (14, BLUE), (26, RED)] {
        probe(&img, x, 4, want, 0);
    }
    // Nine-slice: borders in units (1 = 2 pixels): the left column shows the red half.
    let mut s = Scene::new();
    let mut n = NineSliceSprite::new(t2, [1.0, 0.0, 1.0, 0.0]);
    assert_eq!(n.size, Vec2::splat(2.0));
    n.size = Vec2::new(10.0, 2.0);
    s.add(s.root(), Node::nine_slice(n).scaled(4.0)).unwrap();
    let img = render(&mut r, &s, 40, 8, Color::BLACK);
    probe(&img, 2, 4, RED, 0);
    probe(&img, 37, 4, BLUE, 0);
}

#[test]
fn resolution_edge_values() {
    let mut r = renderer();
    let t = halves(&mut r);
    for bad in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        assert_eq!(t.with_resolution(bad).resolution(), 1.0, "{bad}");
    }
    assert_eq!(t.with_resolution(0.5).size(), [8.0, 8.0]);
    assert_eq!(t.with_resolution(1e9).resolution(), 255.0);
    assert!((t.with_resolution(1.0125).resolution() - 1.0125).abs() < 1.0 / 256.0);
}

#[test]
fn assets_read_resolution_suffixes_and_sheet_scales() {
    let mut r = renderer();
    let dir = std::env::temp_dir().join(format!("stage2d-resolution-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bunny = format!("{}/tests/pixijs/bunny.png", env!("CARGO_MANIFEST_DIR"));
    for name in ["bunny@2x.png", "bunny@0.5x.png", "bunny@x.png", "bunny.png"] {
        std::fs::copy(&bunny, dir.join(name)).unwrap();
    }
    let mut assets = Assets::new();
    let mut load = |name: &str| {
        assets
            .load(&mut r, dir.join(name), Sampling::LINEAR)
            .unwrap()
    };
    assert_eq!(load("bunny@2x.png").size(), [13.0, 18.5]);
    assert_eq!(load("bunny@0.5x.png").size(), [52.0, 74.0]);
    assert_eq!(load("bunny@x.png").size(), [26.0, 37.0], "not a resolution");
    assert_eq!(load("bunny.png").resolution(), 1.0);
    let bytes = std::fs::read(&bunny).unwrap();
    let named = assets
        .load_bytes(&mut r, "hero@2x.png", &bytes, Sampling::LINEAR)
        .unwrap();
    assert_eq!(named.size(), [13.0, 18.5], "names given to bytes count too");
    // A sheet's meta.scale: its frames at that resolution.
    let sheet = r#"{"frames": {"b": {"frame": {"x": 0, "y": 0, "w": 26, "h": 37}}},
        "meta": {"image": "bunny.png", "size": {"w": 26, "h": 37}, "scale": "2"}}"#;
    std::fs::write(dir.join("sheet.json"), sheet).unwrap();
    let s = assets
        .load_spritesheet(&mut r, dir.join("sheet.json"), Sampling::LINEAR)
        .unwrap();
    assert_eq!(s.frame("b").unwrap().size(), [13.0, 18.5]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// PixiJS's `sprite/tiling-sprite-tile-position-resolution` scene: a 16x16 tile (red left half, blue right)
/// drawn at resolution 2 (`generateTexture({ resolution: 2 })`: 32x32 pixels), tiled over 128x64, and again
/// shifted by `tile_position` of 8 units.
#[test]
fn pixijs_tiling_sprite_tile_position_resolution() {
    let mut r = renderer();
    let mut g = GraphicsContext::new();
    g.rect(0.0, 0.0, 8.0, 16.0).fill(Color::hex(0xff2244));
    g.rect(8.0, 0.0, 8.0, 16.0).fill(Color::hex(0x2288ff));
    let mut s = Scene::new();
    let source = s.add_detached(Node::graphics(g));
    let rt = r
        .create_render_texture(RenderTextureOptions::new(32, 32))
        .unwrap();
    r.render_node_transformed(
        &s,
        source,
        &rt,
        Affine2::from_scale(Vec2::splat(2.0)),
        Some(Color::TRANSPARENT),
    )
    .unwrap();
    let tile = rt.texture().with_resolution(2.0);
    assert_eq!(tile.size(), [16.0, 16.0]);
    s.add(s.root(), Node::tiling(TilingSprite::new(tile, 128.0, 64.0)))
        .unwrap();
    let mut shifted = TilingSprite::new(tile, 128.0, 64.0);
    shifted.tile_position = Vec2::new(8.0, 0.0);
    s.add(s.root(), Node::tiling(shifted).at(0.0, 64.0))
        .unwrap();
    let img = render_pixijs(&mut r, &s);
    pixijs("tiling-sprite-tile-position-resolution", &img, 100);
    // The shift is half a tile in units: the lower row starts with blue.
    probe(&img, 2, 2, [0xff, 0x22, 0x44, 255], 0);
    probe(&img, 2, 66, [0x22, 0x88, 0xff, 255], 0);
}

/// PixiJS's `sprite/tiling-sprite-clamp-offset` scene: the bunny drawn into textures at resolution 1 and 2
/// (`generateTexture`), each tiled over 100x50 with a clamp offset of half its pixel width. The tiles wrap half
/// a tile in and sample the texture wrapped again, as PixiJS's repeating tiling sources do (the render textures
/// here repeat: `with_sampling(Sampling::LINEAR.repeat())`), so the picture is the plain tiling.
#[test]
fn pixijs_tiling_sprite_clamp_offset() {
    let mut r = renderer();
    let bunny = pixijs_texture(&mut r, "bunny.png");
    let mut s = Scene::new();
    let sprite = s.add_detached(Node::sprite(bunny));
    let mut targets = Vec::new();
    for (k, res) in [1.0f32, 2.0].into_iter().enumerate() {
        let (w, h) = ((26.0 * res) as u32, (37.0 * res) as u32);
        let options = RenderTextureOptions::new(w, h).with_sampling(Sampling::LINEAR.repeat());
        let rt = r.create_render_texture(options).unwrap();
        r.render_node_transformed(
            &s,
            sprite,
            &rt,
            Affine2::from_scale(Vec2::splat(res)),
            Some(Color::TRANSPARENT),
        )
        .unwrap();
        let mut tiling = TilingSprite::new(rt.texture().with_resolution(res), 100.0, 50.0);
        tiling.clamp_offset = w as f32 / 2.0;
        s.add(s.root(), Node::tiling(tiling).at(0.0, 50.0 * k as f32))
            .unwrap();
        targets.push(rt);
    }
    pixijs(
        "tiling-sprite-clamp-offset",
        &render_pixijs(&mut r, &s),
        100,
    );
}

/// A clamp offset moves where a frame wraps, reading the pixels packed past its far edge: a 2-pixel frame of a
/// 4-pixel strip (red, green, blue, white) tiles red, green; offset by one pixel (half a tile), a tile's first
/// half reads one tile on (blue), its second the frame (green).
#[test]
fn a_clamp_offset_shifts_where_a_frame_wraps() {
    let mut r = renderer();
    let px = [
        [255, 0, 0, 255],
        [0, 255, 0, 255],
        [0, 0, 255, 255],
        [255, 255, 255, 255],
    ]
    .concat();
    let strip = r.create_texture(4, 1, &px, Sampling::NEAREST).unwrap();
    let frame = strip.frame(0, 0, 2, 1).unwrap();
    let mut s = Scene::new();
    let mut plain = TilingSprite::new(frame, 8.0, 1.0);
    s.add(s.root(), Node::tiling(plain).scaled(4.0)).unwrap();
    plain.clamp_offset = 1.0;
    s.add(s.root(), Node::tiling(plain).at(0.0, 4.0).scaled(4.0))
        .unwrap();
    let img = render(&mut r, &s, 32, 8, Color::BLACK);
    let green = [0, 255, 0, 255];
    for (x, a, b) in [
        (2, RED, BLUE),
        (6, green, green),
        (10, RED, BLUE),
        (14, green, green),
    ] {
        probe(&img, x, 2, a, 0);
        probe(&img, x, 6, b, 0);
    }
}

/// PixiJS's `textures/render-texture` scene: `profile-abel@0.5x.jpg` (64x64 pixels at resolution 0.5: 128x128)
/// through `Assets` as the background, sized to the view, and a red circle drawn into a 100x100 render texture
/// shown centred.
#[test]
fn pixijs_render_texture() {
    let mut r = renderer();
    let mut assets = Assets::new();
    let path = format!(
        "{}/tests/pixijs/profile-abel@0.5x.jpg",
        env!("CARGO_MANIFEST_DIR")
    );
    let bg = assets.load(&mut r, path, Sampling::LINEAR).unwrap();
    assert_eq!((bg.size(), bg.resolution()), ([128.0, 128.0], 0.5));
    let mut circle = GraphicsContext::new();
    circle.circle(0.0, 0.0, 50.0).fill(Color::hex(0xff0000));
    let mut s = Scene::new();
    let c = s.add_detached(Node::graphics(circle).at(50.0, 50.0));
    let rt = r
        .create_render_texture(RenderTextureOptions::new(100, 100))
        .unwrap();
    r.render_node(&s, c, &rt, Some(Color::TRANSPARENT)).unwrap();
    s.add(s.root(), Node::sprite(bg).sized(128.0, 128.0))
        .unwrap();
    s.add(
        s.root(),
        Node::sprite(rt.texture()).anchor(0.5, 0.5).at(64.0, 64.0),
    )
    .unwrap();
    pixijs("render-texture", &render_pixijs(&mut r, &s), 100);
}

/// PixiJS's `textures/extract` scene: a sprite of `profile-abel@0.5x.jpg` (128x128 units) extracted four ways
/// (as a canvas, an image, pixels: here `read_pixels` into a new texture; as a texture: a render texture), each
/// shown at a quarter scale in a grid of 35-pixel cells.
#[test]
fn pixijs_extract() {
    let mut r = renderer();
    let mut assets = Assets::new();
    let path = format!(
        "{}/tests/pixijs/profile-abel@0.5x.jpg",
        env!("CARGO_MANIFEST_DIR")
    );
    let abel = assets.load(&mut r, path, Sampling::LINEAR).unwrap();
    let mut s = Scene::new();
    let container = s.add_detached(Node::sprite(abel));
    let b = s.world_bounds(container).unwrap();
    assert_eq!((b.width(), b.height()), (128.0, 128.0));
    let rt = r
        .create_render_texture(RenderTextureOptions::new(128, 128))
        .unwrap();
    r.render_node(&s, container, &rt, Some(Color::TRANSPARENT))
        .unwrap();
    let pixels = r.read_pixels(&rt).unwrap();
    let cell = 35.0;
    for (k, (x, y)) in [(0.0, 0.0), (cell, 0.0), (cell * 2.0, 0.0)]
        .into_iter()
        .enumerate()
    {
        // Canvas, image and pixels: each a texture of the read pixels.
        let t = r.texture_from_image(&pixels, Sampling::LINEAR).unwrap();
        assert_eq!(t.size(), [128.0, 128.0], "{k}");
        s.add(s.root(), Node::sprite(t).at(x, y).scaled(0.25))
            .unwrap();
    }
    s.add(
        s.root(),
        Node::sprite(rt.texture()).at(0.0, cell).scaled(0.25),
    )
    .unwrap();
    pixijs("extract", &render_pixijs(&mut r, &s), 100);
}
