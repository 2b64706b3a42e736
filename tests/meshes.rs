//! Meshes with the default shader: a plane draws its texture as a sprite would, ropes, perspective planes,
//! strips and shared geometry, batching with sprites, hit testing by triangles, masks and filters, bad input.

mod common;

use common::*;
use stage2d::glam::Vec2;
use stage2d::{
    Color, Error, Filter, GraphicsContext, MeshGeometry, MeshTopology, Node, Renderer, Scene,
};
use std::sync::Arc;

fn v(x: f32, y: f32) -> Vec2 {
    Vec2::new(x, y)
}

#[test]
fn a_plane_draws_its_texture_as_a_sprite_does() {
    let mut r = renderer_with_msaa(false);
    let tex = card(&mut r, 32, 32);
    let mut sprite = Scene::new();
    sprite
        .add(sprite.root(), Node::sprite(tex).at(8.0, 4.0))
        .unwrap();
    let mut mesh = Scene::new();
    let plane = MeshGeometry::plane(32.0, 32.0, 5, 3).unwrap();
    mesh.add(mesh.root(), Node::mesh(plane, tex).at(8.0, 4.0))
        .unwrap();
    let a = render(&mut r, &sprite, 48, 40, Color::BLACK);
    let b = render(&mut r, &mesh, 48, 40, Color::BLACK);
    assert_eq!(r.stats().last_frame.meshes, 1);
    let (diff, _) = pixelmatch(&a, &b, 0.0);
    assert!(diff <= 4, "{diff} pixels differ from the sprite");
    probe(&b, 12, 8, [255, 0, 0, 255], 0);
    probe(&b, 34, 30, [255, 255, 0, 255], 0);
}

#[test]
fn meshes_batch_with_sprites_and_share_geometry() {
    let mut r = renderer();
    let tex = card(&mut r, 16, 16);
    let mut scene = Scene::new();
    let shared = Arc::new(MeshGeometry::plane(8.0, 8.0, 2, 2).unwrap());
    for i in 0..100 {
        let (x, y) = ((i % 10) as f32 * 10.0, (i / 10) as f32 * 10.0);
        scene
            .add(scene.root(), Node::mesh(shared.clone(), tex).at(x, y))
            .unwrap();
        scene
            .add(scene.root(), Node::sprite(tex).at(x + 100.0, y).scaled(0.5))
            .unwrap();
    }
    let img = render(&mut r, &scene, 200, 100, Color::BLACK);
    let s = r.stats().last_frame;
    assert_eq!((s.meshes, s.sprites, s.draw_calls), (100, 100, 1));
    // Every mesh shows the card at its place: red top-left, yellow bottom-right.
    probe(&img, 91, 91, [255, 0, 0, 255], 0);
    probe(&img, 95, 95, [255, 255, 0, 255], 0);
    // Changing one node's geometry copies it: the others keep the shared one.
    let first = scene.children(scene.root())[0];
    let m = scene.get_mut(first).unwrap().mesh_mut().unwrap();
    m.geometry_mut()
        .update_positions(|p| p.iter_mut().for_each(|p| *p *= 0.5));
    assert_eq!(Arc::strong_count(&shared), 100);
    let img = render(&mut r, &scene, 200, 100, Color::BLACK);
    probe(&img, 6, 6, [0, 0, 0, 255], 0);
    probe(&img, 16, 6, [255, 255, 0, 255], 0);
}

#[test]
fn strips_draw_as_their_lists() {
    let mut r = renderer_with_msaa(false);
    let white = r.white_texture();
    let pts: Vec<Vec2> = (0..6)
        .map(|i| v((i / 2) as f32 * 10.0 + 2.0, (i % 2) as f32 * 12.0 + 2.0))
        .collect();
    let uvs = vec![Vec2::ZERO; pts.len()];
    let strip = MeshGeometry::new(
        pts.clone(),
        uvs.clone(),
        (0..6).collect(),
        MeshTopology::TriangleStrip,
    )
    .unwrap();
    let list = MeshGeometry::new(
        pts,
        uvs,
        vec![0, 1, 2, 2, 1, 3, 2, 3, 4, 4, 3, 5],
        MeshTopology::TriangleList,
    )
    .unwrap();
    let draw = |r: &mut Renderer, g: MeshGeometry| {
        let mut scene = Scene::new();
        scene
            .add(
                scene.root(),
                Node::mesh(g, white).tinted(Color::hex(0x00ff00)),
            )
            .unwrap();
        render(r, &scene, 32, 16, Color::BLACK)
    };
    let (a, b) = (draw(&mut r, strip), draw(&mut r, list));
    assert!(a == b);
    probe(&a, 12, 8, [0, 255, 0, 255], 0);
    probe(&a, 30, 8, [0, 0, 0, 255], 0);
}

#[test]
fn ropes_follow_their_points() {
    let mut r = renderer_with_msaa(false);
    let tex = card(&mut r, 16, 16);
    let mut scene = Scene::new();
    let pts = [v(4.0, 16.0), v(30.0, 16.0), v(60.0, 16.0)];
    let rope = MeshGeometry::rope(&pts, 8.0, 0.0).unwrap();
    let n = scene.add(scene.root(), Node::mesh(rope, tex)).unwrap();
    let img = render(&mut r, &scene, 64, 48, Color::BLACK);
    // Stretched along the rope: the card's top half (red, then green) above the points, the bottom half below.
    probe(&img, 10, 14, [255, 0, 0, 255], 0);
    probe(&img, 50, 14, [0, 255, 0, 255], 0);
    probe(&img, 10, 18, [0, 0, 255, 255], 0);
    probe(&img, 30, 4, [0, 0, 0, 255], 0);
    // The points move down: the same vertices, laid again.
    let moved = pts.map(|p| p + v(0.0, 20.0));
    let m = scene.get_mut(n).unwrap().mesh_mut().unwrap();
    m.geometry_mut().set_rope(&moved, 8.0, 0.0).unwrap();
    let img = render(&mut r, &scene, 64, 48, Color::BLACK);
    probe(&img, 10, 14, [0, 0, 0, 255], 0);
    probe(&img, 10, 34, [255, 0, 0, 255], 0);
    // Hit testing follows the triangles.
    scene.set_event_mode(n, stage2d::EventMode::Static).unwrap();
    assert_eq!(scene.hit_test(v(10.0, 34.0)), Some(n));
    assert_eq!(scene.hit_test(v(10.0, 14.0)), None);
}

#[test]
fn perspective_planes_map_the_frame_onto_their_corners() {
    let mut r = renderer_with_msaa(false);
    let tex = card(&mut r, 32, 32);
    let mut scene = Scene::new();
    let corners = [v(24.0, 4.0), v(40.0, 4.0), v(60.0, 60.0), v(4.0, 60.0)];
    let g = MeshGeometry::perspective(corners, 10, 10).unwrap();
    scene.add(scene.root(), Node::mesh(g, tex)).unwrap();
    let img = render(&mut r, &scene, 64, 64, Color::BLACK);
    // The golden shows a smooth gradient (linear sampling): adapters may round a texel boundary differently.
    let gradient = stage2d::image::RgbaImage::from_fn(32, 32, |x, y| {
        stage2d::image::Rgba([(x * 8) as u8, (y * 8) as u8, 160, 255])
    });
    let smooth = r
        .texture_from_image(&gradient, stage2d::Sampling::LINEAR)
        .unwrap();
    let mut g_scene = Scene::new();
    let g = MeshGeometry::perspective(corners, 10, 10).unwrap();
    g_scene.add(g_scene.root(), Node::mesh(g, smooth)).unwrap();
    golden(
        "mesh_perspective",
        &render(&mut r, &g_scene, 64, 64, Color::BLACK),
    );
    // The far (top) edge is short: the red and green quadrants meet on the centre line, and the split between
    // top and bottom halves lies above the middle height (a projective mapping, not an affine one).
    probe(&img, 28, 10, [255, 0, 0, 255], 0);
    probe(&img, 36, 10, [0, 255, 0, 255], 0);
    probe(&img, 20, 48, [0, 0, 255, 255], 0);
    probe(&img, 44, 48, [255, 255, 0, 255], 0);
    let split = (6..58)
        .find(|&y| px(&img, 31, y)[2] == 255)
        .expect("the bottom half");
    assert!(split < 28, "the halves meet at y = {split}");
    probe(&img, 4, 10, [0, 0, 0, 255], 0);
}

#[test]
fn meshes_work_under_masks_filters_and_in_render_textures() {
    let mut r = renderer_with_msaa(false);
    let white = r.white_texture();
    let mut scene = Scene::new();
    let g = MeshGeometry::plane(32.0, 32.0, 4, 4).unwrap();
    let m = scene
        .add(
            scene.root(),
            Node::mesh(g.clone(), white).tinted(Color::hex(0xff0000)),
        )
        .unwrap();
    // A triangle mesh as a stencil mask.
    let tri = MeshGeometry::new(
        vec![v(0.0, 0.0), v(32.0, 0.0), v(0.0, 32.0)],
        vec![Vec2::ZERO; 3],
        vec![0, 1, 2],
        MeshTopology::TriangleList,
    )
    .unwrap();
    let mask = scene.add_detached(Node::mesh(tri, white));
    scene.set_mask(m, mask, false).unwrap();
    // A filtered mesh beside it.
    let f = scene
        .add(
            scene.root(),
            Node::mesh(g, white)
                .at(32.0, 0.0)
                .tinted(Color::hex(0x0000ff)),
        )
        .unwrap();
    let mut neg = stage2d::ColorMatrix::default();
    neg.negative(false);
    scene
        .set_filters(f, vec![Filter::color_matrix(neg)])
        .unwrap();
    let img = render(&mut r, &scene, 64, 32, Color::BLACK);
    probe(&img, 6, 6, [255, 0, 0, 255], 0);
    probe(&img, 26, 26, [0, 0, 0, 255], 0);
    probe(&img, 48, 16, [255, 255, 0, 255], 1);
    let rt = r.create_render_target(64, 32).unwrap();
    r.render_node(&scene, scene.root(), &rt, Some(Color::BLACK))
        .unwrap();
    let img2 = r.read_pixels(&rt).unwrap();
    assert!(img == img2);
}

#[test]
fn bad_meshes_are_errors_or_counted_skips() {
    let mut r = renderer();
    let p = vec![v(0.0, 0.0), v(8.0, 0.0), v(0.0, 8.0)];
    let bad = [
        MeshGeometry::new(
            p.clone(),
            p[..2].to_vec(),
            vec![0, 1, 2],
            MeshTopology::TriangleList,
        ),
        MeshGeometry::new(
            p.clone(),
            p.clone(),
            vec![0, 1, 9],
            MeshTopology::TriangleList,
        ),
        MeshGeometry::new(
            p.clone(),
            p.clone(),
            vec![0, 1],
            MeshTopology::TriangleStrip,
        ),
        MeshGeometry::new(
            vec![v(0.0, 0.0), v(f32::NAN, 0.0), v(0.0, 8.0)],
            p.clone(),
            vec![0, 1, 2],
            MeshTopology::TriangleList,
        ),
        MeshGeometry::plane(8.0, 8.0, 0, 0),
        MeshGeometry::plane(8.0, 8.0, 100_000, 100_000),
        MeshGeometry::rope(&vec![v(1.0, 1.0); 10_000_000], 4.0, 0.0),
    ];
    for b in bad {
        assert!(matches!(b, Err(Error::InvalidMesh(_))), "{b:?}");
    }
    // Ropes of 0 and 1 points draw nothing.
    for n in [0, 1] {
        assert!(MeshGeometry::rope(&vec![v(1.0, 1.0); n], 4.0, 0.0).is_ok());
    }
    // A texture destroyed under a mesh, and positions made NaN in place: both skipped and counted, the rest drawn.
    let gone = solid(&mut r, 2, 2, [255, 0, 0, 255]);
    let white = r.white_texture();
    let mut scene = Scene::new();
    let g = MeshGeometry::plane(8.0, 8.0, 2, 2).unwrap();
    scene
        .add(scene.root(), Node::mesh(g.clone(), gone))
        .unwrap();
    let nan = scene
        .add(scene.root(), Node::mesh(g.clone(), white))
        .unwrap();
    scene
        .get_mut(nan)
        .unwrap()
        .mesh_mut()
        .unwrap()
        .geometry_mut()
        .update_positions(|p| p[0] = v(f32::NAN, 0.0));
    let mut ok = GraphicsContext::new();
    ok.rect(10.0, 0.0, 6.0, 6.0).fill(Color::WHITE);
    scene.add(scene.root(), Node::graphics(ok)).unwrap();
    r.destroy_texture(gone).unwrap();
    let img = render(&mut r, &scene, 16, 8, Color::BLACK);
    assert_eq!(r.stats().last_frame.nodes_skipped, 2);
    probe(&img, 12, 2, [255, 255, 255, 255], 0);
    probe(&img, 2, 2, [0, 0, 0, 255], 0);
}

/// PixiJS's `mesh/perspective-mesh` scene: a 750x750 picture on a 10x10 perspective plane with the corners
/// (0, 30), (128, 0), (128, 128), (0, 98).
#[test]
fn pixijs_perspective_mesh() {
    let mut r = renderer();
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/pixijs/bg_scene_rotate.jpg"
    );
    let tex = r.load_texture(path, stage2d::Sampling::LINEAR).unwrap();
    let mut scene = Scene::new();
    let corners = [v(0.0, 30.0), v(128.0, 0.0), v(128.0, 128.0), v(0.0, 98.0)];
    let g = MeshGeometry::perspective(corners, 10, 10).unwrap();
    scene.add(scene.root(), Node::mesh(g, tex)).unwrap();
    let img = render_pixijs(&mut r, &scene);
    pixijs("perspective-mesh", &img, 100);
}

fn pixijs_texture(r: &mut Renderer, name: &str) -> stage2d::Texture {
    let path = format!("{}/tests/pixijs/{name}", env!("CARGO_MANIFEST_DIR"));
    r.load_texture(path, stage2d::Sampling::LINEAR).unwrap()
}

/// PixiJS's `mesh/meshplane` scene: a 100x100-vertex plane of the bunny, drawn once, then given another texture
/// (a plane sizes itself to its texture).
#[test]
fn pixijs_meshplane() {
    let mut r = renderer();
    let bunny = pixijs_texture(&mut r, "bunny.png");
    let texture = pixijs_texture(&mut r, "texture.png");
    let mut scene = Scene::new();
    let plane = MeshGeometry::plane(26.0, 37.0, 100, 100).unwrap();
    let n = scene.add(scene.root(), Node::mesh(plane, bunny)).unwrap();
    render_pixijs(&mut r, &scene);
    let m = scene.get_mut(n).unwrap().mesh_mut().unwrap();
    m.texture = texture;
    *m.geometry_mut() = MeshGeometry::plane(181.0, 397.0, 100, 100).unwrap();
    let img = render_pixijs(&mut r, &scene);
    pixijs("meshplane", &img, 100);
}

/// PixiJS's `mesh/meshrope` scene: a snake (918x117) on a rope of 20 points laid along a sine, in a container
/// scaled by 0.15 and turned -45 degrees.
#[test]
fn pixijs_meshrope() {
    let mut r = renderer();
    let snake = pixijs_texture(&mut r, "snake.png");
    let mut scene = Scene::new();
    let holder = scene
        .add(
            scene.root(),
            Node::container()
                .at(0.0, 115.0)
                .scaled(0.15)
                .rotated(-45f32.to_radians()),
        )
        .unwrap();
    let step = 918.0 / 20.0;
    let count = 0.1f32;
    let points: Vec<Vec2> = (0..20)
        .map(|i| {
            let i = i as f32;
            v(
                i * step + ((i * 0.3) + count).cos() * 20.0,
                ((i * 0.5) + count).sin() * 30.0,
            )
        })
        .collect();
    // The width defaults to the texture's height; a texture scale of 0 stretches it over the rope.
    let rope = MeshGeometry::rope(&points, 117.0, 0.0).unwrap();
    scene.add(holder, Node::mesh(rope, snake)).unwrap();
    let img = render_pixijs(&mut r, &scene);
    pixijs("meshrope", &img, 100);
}
