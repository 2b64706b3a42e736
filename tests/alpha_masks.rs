//! Alpha masks: PixiJS's alpha-mask scenes ported (matched against its WebGPU snapshots at its measure), both
//! channels, inverse, nested with stencil masks and filters, sheet frames, and bad input.

mod common;

use common::*;
use stage2d::glam::{Affine2, Vec2};
use stage2d::{Color, Filter, GraphicsContext, MaskChannel, Node, Sampling, Scene};
use std::sync::Arc;

fn red_rect(scene: &mut Scene) -> stage2d::NodeId {
    let mut g = GraphicsContext::new();
    g.rect(0.0, 0.0, 100.0, 100.0).fill(Color::hex(0xff0000));
    scene
        .add(scene.root(), Node::graphics(Arc::new(g)))
        .unwrap()
}

/// PixiJS `mask/alpha-mask`: a white sprite masks a red rectangle.
#[test]
fn pixijs_alpha_mask() {
    let mut r = renderer();
    let mut scene = Scene::new();
    let rect = red_rect(&mut scene);
    let white = r.white_texture();
    let masky = scene
        .add(
            scene.root(),
            Node::sprite(white)
                .sized(50.0, 50.0)
                .anchor(0.5, 0.5)
                .at(64.0, 64.0),
        )
        .unwrap();
    scene
        .set_alpha_mask(rect, masky, MaskChannel::Alpha, false)
        .unwrap();
    let img = render_pixijs(&mut r, &scene);
    probe(&img, 64, 64, [255, 0, 0, 255], 0);
    probe(&img, 30, 30, [16, 153, 187, 255], 0);
    probe(&img, 95, 95, [16, 153, 187, 255], 0);
    pixijs("alpha-mask", &img, 100);
}

/// PixiJS `mask/alpha-channel-mask`: a blue circle's alpha (not its red) masks.
#[test]
fn pixijs_alpha_channel_mask() {
    let mut r = renderer();
    let mut circle = GraphicsContext::new();
    circle.circle(0.0, 0.0, 25.0).fill(Color::hex(0x0000ff));
    let mut holder = Scene::new();
    let c = holder.add_detached(Node::graphics(Arc::new(circle)));
    let tex = r.create_render_target(50, 50).unwrap();
    r.render_node_transformed(
        &holder,
        c,
        &tex,
        Affine2::from_translation(Vec2::splat(25.0)),
        Some(Color::TRANSPARENT),
    )
    .unwrap();
    let mut scene = Scene::new();
    let rect = red_rect(&mut scene);
    let mask = scene
        .add(
            scene.root(),
            Node::sprite(tex.texture()).anchor(0.5, 0.5).at(64.0, 64.0),
        )
        .unwrap();
    scene
        .set_alpha_mask(rect, mask, MaskChannel::Alpha, false)
        .unwrap();
    let img = render_pixijs(&mut r, &scene);
    probe(&img, 64, 64, [255, 0, 0, 255], 0);
    pixijs("alpha-channel-mask", &img, 100);
    // The red channel of a blue circle is 0: nothing shows.
    scene
        .set_alpha_mask(rect, mask, MaskChannel::Red, false)
        .unwrap();
    let img = render_pixijs(&mut r, &scene);
    probe(&img, 64, 64, [16, 153, 187, 255], 0);
}

/// PixiJS `mask/alpha-inverse-mask`: a blurred circle's alpha, inverted.
#[test]
fn pixijs_alpha_inverse_mask() {
    let mut r = renderer();
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/pixijs/blurredCircle.png"
    );
    let circle = r.load_texture(path, Sampling::LINEAR).unwrap();
    let mut scene = Scene::new();
    let rect = red_rect(&mut scene);
    let mask = scene
        .add(
            scene.root(),
            Node::sprite(circle)
                .sized(50.0, 50.0)
                .anchor(0.5, 0.5)
                .at(64.0, 64.0),
        )
        .unwrap();
    scene
        .set_alpha_mask(rect, mask, MaskChannel::Alpha, true)
        .unwrap();
    let img = render_pixijs(&mut r, &scene);
    probe(&img, 20, 20, [255, 0, 0, 255], 0);
    pixijs("alpha-inverse-mask", &img, 100);
}

/// PixiJS `mask/alpha-mask-multiple-render-to-texture`: two shape masks of different sizes.
#[test]
fn pixijs_alpha_mask_multiple() {
    let mut r = renderer();
    let mut scene = Scene::new();
    let shape = |w: f32, h: f32, c: u32| {
        let mut g = GraphicsContext::new();
        g.rect(0.0, 0.0, w, h).fill(Color::hex(c));
        Arc::new(g)
    };
    let root = scene.root();
    let a = scene
        .add(
            root,
            Node::graphics(shape(60.0, 60.0, 0x00cc66)).at(2.0, 5.0),
        )
        .unwrap();
    let b = scene
        .add(
            root,
            Node::graphics(shape(60.0, 60.0, 0x3388ff)).at(60.0, 5.0),
        )
        .unwrap();
    let ma = scene
        .add(
            root,
            Node::graphics(shape(50.0, 40.0, 0xffffff)).at(5.0, 10.0),
        )
        .unwrap();
    let mb = scene
        .add(
            root,
            Node::graphics(shape(35.0, 55.0, 0xffffff)).at(68.0, 8.0),
        )
        .unwrap();
    scene
        .set_alpha_mask(a, ma, MaskChannel::Alpha, false)
        .unwrap();
    scene
        .set_alpha_mask(b, mb, MaskChannel::Alpha, false)
        .unwrap();
    let img = render_pixijs(&mut r, &scene);
    pixijs("alpha-mask-multiple-render-to-texture", &img, 100);
}

#[test]
fn alpha_masks_are_soft_nest_with_stencil_masks_and_filters() {
    let mut r = renderer_with_msaa(false);
    let mut scene = Scene::new();
    // A white square masked by a half-transparent circle: half white over black.
    let mut sq = GraphicsContext::new();
    sq.rect(0.0, 0.0, 64.0, 64.0).fill(Color::WHITE);
    let sq = Arc::new(sq);
    let outer = scene.add(scene.root(), Node::container()).unwrap();
    let content = scene.add(outer, Node::graphics(sq.clone())).unwrap();
    let mut soft = GraphicsContext::new();
    soft.circle(32.0, 32.0, 24.0)
        .fill(Color::rgba(1.0, 1.0, 1.0, 0.5));
    let soft = scene.add(outer, Node::graphics(Arc::new(soft))).unwrap();
    scene
        .set_alpha_mask(content, soft, MaskChannel::Alpha, false)
        .unwrap();
    // ... inside a stencil mask keeping the left half.
    let mut left = GraphicsContext::new();
    left.rect(0.0, 0.0, 32.0, 64.0).fill(Color::WHITE);
    let left = scene.add_detached(Node::graphics(Arc::new(left)));
    scene.set_mask(outer, left, false).unwrap();
    // Beside it, an alpha-masked square under a colour-matrix filter (negative: the square turns black over a
    // grey background).
    let neg_holder = scene
        .add(scene.root(), Node::container().at(64.0, 0.0))
        .unwrap();
    let inner = scene.add(neg_holder, Node::graphics(sq.clone())).unwrap();
    let mut m = stage2d::ColorMatrix::default();
    m.negative(false);
    scene
        .set_filters(neg_holder, vec![Filter::color_matrix(m)])
        .unwrap();
    let mut small = GraphicsContext::new();
    small.rect(16.0, 16.0, 32.0, 32.0).fill(Color::WHITE);
    let small = scene
        .add(neg_holder, Node::graphics(Arc::new(small)))
        .unwrap();
    scene
        .set_alpha_mask(inner, small, MaskChannel::Red, false)
        .unwrap();
    let img = render(&mut r, &scene, 128, 64, Color::rgb(0.5, 0.5, 0.5));
    probe(&img, 20, 32, [191, 191, 191, 255], 2); // half white over grey, inside the circle and the left half
    probe(&img, 44, 32, [128, 128, 128, 255], 1); // right half: the stencil mask hides it
    probe(&img, 2, 2, [128, 128, 128, 255], 1); // outside the circle
    probe(&img, 96, 32, [0, 0, 0, 255], 1); // the masked square, negated
    probe(&img, 68, 4, [127, 127, 127, 255], 1); // outside the small mask: negated transparent grey
    golden("alpha_masks_nested", &img);
    // The mask nodes are not drawn as content.
    assert_eq!(r.stats().last_frame.masks_pushed, 3);
}

#[test]
fn a_sheet_frame_masks_by_its_own_pixels() {
    let mut r = renderer_with_msaa(false);
    // A 4x4 atlas: its left half opaque, its right half transparent; the frame is the right column of the
    // left half and a transparent column: only the opaque texels mask.
    let mut img = stage2d::image::RgbaImage::new(4, 4);
    for (x, _, p) in img.enumerate_pixels_mut() {
        *p = stage2d::image::Rgba(if x < 2 { [255; 4] } else { [0; 4] });
    }
    let atlas = r.texture_from_image(&img, Sampling::NEAREST).unwrap();
    let frame = atlas.frame(1, 0, 2, 4).unwrap();
    let mut scene = Scene::new();
    let mut g = GraphicsContext::new();
    g.rect(0.0, 0.0, 32.0, 32.0).fill(Color::hex(0x00ff00));
    let target = scene
        .add(scene.root(), Node::graphics(Arc::new(g)))
        .unwrap();
    let mask = scene
        .add(scene.root(), Node::sprite(frame).sized(32.0, 32.0))
        .unwrap();
    scene
        .set_alpha_mask(target, mask, MaskChannel::Alpha, false)
        .unwrap();
    let out = render(&mut r, &scene, 32, 32, Color::BLACK);
    probe(&out, 8, 16, [0, 255, 0, 255], 0);
    probe(&out, 24, 16, [0, 0, 0, 255], 0);
}

#[test]
fn an_alpha_mask_cannot_be_the_targets_ancestor() {
    let mut scene = Scene::new();
    let a = scene.add(scene.root(), Node::container()).unwrap();
    let b = scene.add(a, Node::container()).unwrap();
    assert!(matches!(
        scene.set_alpha_mask(b, a, MaskChannel::Alpha, false),
        Err(stage2d::Error::SelfMask(_))
    ));
    assert!(scene
        .set_alpha_mask(b, b, MaskChannel::Alpha, false)
        .is_err());
    // Moved under its mask later: drawn in bounded time, the rest of the frame too.
    let c = scene.add(scene.root(), Node::container()).unwrap();
    scene
        .set_alpha_mask(c, b, MaskChannel::Alpha, false)
        .unwrap();
    scene.set_parent(c, b, 0).unwrap();
    let mut r = renderer_with_msaa(false);
    let mut g = GraphicsContext::new();
    g.rect(0.0, 0.0, 8.0, 8.0).fill(Color::WHITE);
    scene
        .add(scene.root(), Node::graphics(Arc::new(g)))
        .unwrap();
    let img = render(&mut r, &scene, 16, 16, Color::BLACK);
    probe(&img, 4, 4, [255, 255, 255, 255], 0);
}
