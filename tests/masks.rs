//! Masks: stencil (single, nested, overlapping, inverse), scissor rectangles, limits and bad input.

mod common;
use common::*;
use stage2d::glam::Vec2;
use stage2d::{
    Color, GraphicsContext, Node, NodeId, Renderer, RendererOptions, Scene, StrokeStyle,
};

const BG: Color = Color::BLACK;

fn circle(x: f32, y: f32, r: f32) -> Node {
    let mut g = GraphicsContext::new();
    g.circle(x, y, r).fill(Color::WHITE);
    Node::graphics(g)
}

/// A container holding a full-target red square.
fn content(r: &Renderer, s: &mut Scene, size: f32, color: Color) -> NodeId {
    let white = r.white_texture();
    let c = s.add(s.root(), Node::container()).unwrap();
    s.add(c, Node::sprite(white).sized(size, size).tinted(color))
        .unwrap();
    c
}

#[test]
fn a_circle_mask_clips_content_and_is_not_drawn_itself() {
    let mut r = renderer();
    let mut s = Scene::new();
    let c = content(&r, &mut s, 64.0, Color::RED);
    let m = s.add_detached(circle(32.0, 32.0, 16.0));
    s.set_mask(c, m, false).unwrap();
    let img = render(&mut r, &s, 64, 64, BG);
    probe(&img, 32, 32, [255, 0, 0, 255], 0);
    probe(&img, 32, 17, [255, 0, 0, 255], 0);
    probe(&img, 32, 14, [0, 0, 0, 255], 0);
    probe(&img, 4, 4, [0, 0, 0, 255], 0);
    probe(&img, 60, 60, [0, 0, 0, 255], 0);
    let f = r.stats().last_frame;
    assert_eq!(f.masks_pushed, 1);
    assert_eq!(f.scissor_masks, 0);
    assert_eq!(
        f.stencil_mode_switches, 3,
        "add, active, remove (nothing draws unmasked after)"
    );
    golden("mask_single", &img);
}

#[test]
fn pipelines_for_a_masked_frame_are_the_expected_set_and_a_second_frame_creates_none() {
    let mut r = renderer();
    let mut s = Scene::new();
    let c = content(&r, &mut s, 64.0, Color::RED);
    let m = s.add_detached(circle(32.0, 32.0, 16.0));
    s.set_mask(c, m, false).unwrap();
    let white = r.white_texture();
    s.add(
        s.root(),
        Node::sprite(white).sized(4.0, 4.0).tinted(Color::BLUE),
    )
    .unwrap();
    let target = r.create_render_target(64, 64).unwrap();
    r.render(&s, &target, Some(BG)).unwrap();
    // One pipeline per stencil state: add, active, remove and disabled (for the sprite after the mask), where
    // PixiJS keeps "mask active" after the last pop and builds the unmasked set twice.
    assert_eq!(r.stats().last_frame.pipelines_created, 4);
    assert_eq!(r.stats().last_frame.stencil_mode_switches, 4);
    probe(&r.read_pixels(&target).unwrap(), 1, 1, [0, 0, 255, 255], 0);
    r.render(&s, &target, Some(BG)).unwrap();
    let f = r.stats().last_frame;
    assert_eq!(f.pipelines_created, 0);
    assert_eq!(f.textures_created, 0, "the stencil attachment is reused");
    assert_eq!(f.pipeline_misses, 0);
    // Without the mask the target keeps its stencil attachment, so the unmasked pipeline is found again.
    s.clear_mask(c).unwrap();
    r.render(&s, &target, Some(BG)).unwrap();
    assert_eq!(r.stats().last_frame.pipelines_created, 0);
    assert_eq!(r.stats().last_frame.stencil_mode_switches, 0);
}

#[test]
fn nested_masks_show_the_intersection() {
    let mut r = renderer();
    let mut s = Scene::new();
    let outer = s.add(s.root(), Node::container()).unwrap();
    let inner = s.add(outer, Node::container()).unwrap();
    let white = r.white_texture();
    s.add(
        inner,
        Node::sprite(white).sized(64.0, 64.0).tinted(Color::GREEN),
    )
    .unwrap();
    let m1 = s.add_detached(circle(24.0, 32.0, 16.0));
    let m2 = s.add_detached(circle(40.0, 32.0, 16.0));
    s.set_mask(outer, m1, false).unwrap();
    s.set_mask(inner, m2, false).unwrap();
    let img = render(&mut r, &s, 64, 64, BG);
    probe(&img, 32, 32, [0, 255, 0, 255], 0); // in both
    probe(&img, 12, 32, [0, 0, 0, 255], 0); // only in m1
    probe(&img, 52, 32, [0, 0, 0, 255], 0); // only in m2
    golden("mask_nested", &img);
}

#[test]
fn overlapping_self_intersecting_mask_geometry_counts_once() {
    let mut r = renderer();
    let mut s = Scene::new();
    let outer = s.add(s.root(), Node::container()).unwrap();
    let inner = s.add(outer, Node::container()).unwrap();
    let white = r.white_texture();
    s.add(
        inner,
        Node::sprite(white).sized(64.0, 64.0).tinted(Color::BLUE),
    )
    .unwrap();
    // Overlapping fills, a stroke over a fill, and a self-intersecting bow tie.
    let mut g = GraphicsContext::new();
    g.rect(8.0, 8.0, 32.0, 32.0)
        .fill(Color::WHITE)
        .stroke(StrokeStyle::new(6.0, Color::WHITE));
    g.rect(24.0, 24.0, 32.0, 32.0).fill(Color::WHITE);
    g.move_to(0.0, 44.0)
        .line_to(20.0, 64.0)
        .line_to(20.0, 44.0)
        .line_to(0.0, 64.0)
        .close_path()
        .fill(Color::WHITE);
    let m1 = s.add_detached(Node::graphics(g));
    // A nested mask over the overlap: content must show only where both masks cover.
    let mut g2 = GraphicsContext::new();
    g2.circle(32.0, 32.0, 10.0).fill(Color::WHITE);
    let m2 = s.add_detached(Node::graphics(g2));
    s.set_mask(outer, m1, false).unwrap();
    s.set_mask(inner, m2, false).unwrap();
    let img = render(&mut r, &s, 64, 64, BG);
    probe(&img, 32, 32, [0, 0, 255, 255], 0); // overlap of both rects and the circle: once, not twice
    probe(&img, 38, 38, [0, 0, 255, 255], 0);
    probe(&img, 4, 4, [0, 0, 0, 255], 0);
    probe(&img, 50, 50, [0, 0, 0, 255], 0); // in m1 only
                                            // The stencil is balanced afterwards: a later unmasked sprite draws everywhere.
    golden("mask_overlapping", &img);
}

#[test]
fn inverse_masks_show_the_outside_and_nest_with_their_parent() {
    let mut r = renderer();
    let mut s = Scene::new();
    let c = content(&r, &mut s, 64.0, Color::RED);
    let m = s.add_detached(circle(32.0, 32.0, 16.0));
    s.set_mask(c, m, true).unwrap();
    let img = render(&mut r, &s, 64, 64, BG);
    probe(&img, 32, 32, [0, 0, 0, 255], 0);
    probe(&img, 4, 4, [255, 0, 0, 255], 0);
    golden("mask_inverse", &img);

    // Inverse inside a normal mask: the parent's area minus the inner circle.
    let mut s = Scene::new();
    let outer = s.add(s.root(), Node::container()).unwrap();
    let inner = s.add(outer, Node::container()).unwrap();
    let white = r.white_texture();
    s.add(
        inner,
        Node::sprite(white).sized(64.0, 64.0).tinted(Color::GREEN),
    )
    .unwrap();
    let big = s.add_detached(circle(32.0, 32.0, 24.0));
    let hole = s.add_detached(circle(32.0, 32.0, 10.0));
    s.set_mask(outer, big, false).unwrap();
    s.set_mask(inner, hole, true).unwrap();
    // And a normal mask inside the inverse one, covering the left half.
    let deepest = s.add(inner, Node::container()).unwrap();
    s.add(
        deepest,
        Node::sprite(white).sized(64.0, 64.0).tinted(Color::BLUE),
    )
    .unwrap();
    let mut left = GraphicsContext::new();
    left.poly(&[
        Vec2::new(0.0, 0.0),
        Vec2::new(32.0, 0.0),
        Vec2::new(32.0, 64.0),
        Vec2::new(0.0, 60.0),
    ])
    .fill(Color::WHITE);
    let left = s.add_detached(Node::graphics(left));
    s.set_mask(deepest, left, false).unwrap();
    let img = render(&mut r, &s, 64, 64, BG);
    probe(&img, 32, 32, [0, 0, 0, 255], 0); // in the hole
    probe(&img, 2, 2, [0, 0, 0, 255], 0); // outside the parent: PixiJS's not-equal would draw here
    probe(&img, 48, 32, [0, 255, 0, 255], 0); // ring, right half: green only
    probe(&img, 14, 32, [0, 0, 255, 255], 0); // ring, left half: blue on top
    probe(&img, 28, 32, [0, 0, 0, 255], 0); // hole, left half: nothing
    golden("mask_inverse_nested", &img);
}

#[test]
fn rectangle_masks_use_the_scissor_without_stencil_or_pipeline_switches() {
    // MSAA off: the probes check the scissor's exact edges. (With 4x MSAA, Mesa 22.3's llvmpipe, Vulkan and GL
    // alike, tests the scissor per sample as if the rectangle began half a pixel earlier, so the pixels just
    // outside its top and left edges get 2 of 4 samples; a sprite with the same edges gets none. On an H100 the
    // same frame is exact on every edge.)
    let mut r = renderer_with_msaa(false);
    let mut s = Scene::new();
    let c = content(&r, &mut s, 64.0, Color::RED);
    let mut g = GraphicsContext::new();
    g.rect(10.0, 12.0, 20.0, 30.0).fill(Color::WHITE);
    let m = s.add_detached(Node::graphics(g));
    s.set_mask(c, m, false).unwrap();
    let img = render(&mut r, &s, 64, 64, BG);
    probe(&img, 10, 12, [255, 0, 0, 255], 0);
    probe(&img, 29, 41, [255, 0, 0, 255], 0);
    probe(&img, 9, 12, [0, 0, 0, 255], 0);
    probe(&img, 30, 41, [0, 0, 0, 255], 0);
    probe(&img, 29, 42, [0, 0, 0, 255], 0);
    let f = r.stats().last_frame;
    assert_eq!((f.masks_pushed, f.scissor_masks), (1, 1));
    assert_eq!(f.stencil_mode_switches, 0);
    assert_eq!(
        f.pipe_cache_switches, 1,
        "only the frame's first target state"
    );
    assert_eq!(f.pipelines_created, 1);
    assert_eq!(f.draw_calls, 1);

    // A sprite quad without rotation is a rectangle too; nested rectangles intersect.
    let white = r.white_texture();
    let mut s = Scene::new();
    let a = content(&r, &mut s, 64.0, Color::GREEN);
    let inner = s.add(a, Node::container()).unwrap();
    s.add(
        inner,
        Node::sprite(white).sized(64.0, 64.0).tinted(Color::BLUE),
    )
    .unwrap();
    let m1 = s.add_detached(Node::sprite(white).sized(40.0, 40.0).at(4.0, 4.0));
    let m2 = s.add_detached(Node::sprite(white).sized(40.0, 40.0).at(24.0, 24.0));
    s.set_mask(a, m1, false).unwrap();
    s.set_mask(inner, m2, false).unwrap();
    let img = render(&mut r, &s, 64, 64, BG);
    probe(&img, 8, 8, [0, 255, 0, 255], 0);
    probe(&img, 30, 30, [0, 0, 255, 255], 0);
    probe(&img, 43, 43, [0, 0, 255, 255], 0);
    probe(&img, 44, 44, [0, 0, 0, 255], 0);
    probe(&img, 50, 30, [0, 0, 0, 255], 0);
    assert_eq!(r.stats().last_frame.scissor_masks, 2);
    golden("mask_scissor_nested", &img);
}

#[test]
fn a_rotated_rectangle_uses_the_stencil_and_a_scissor_nests_in_a_stencil_mask() {
    let mut r = renderer();
    let white = r.white_texture();
    let mut s = Scene::new();
    let outer = content(&r, &mut s, 64.0, Color::RED);
    let inner = s.add(outer, Node::container()).unwrap();
    s.add(
        inner,
        Node::sprite(white).sized(64.0, 64.0).tinted(Color::GREEN),
    )
    .unwrap();
    let rotated = s.add_detached(
        Node::sprite(white)
            .sized(40.0, 40.0)
            .anchor(0.5, 0.5)
            .at(32.0, 32.0),
    );
    s.transform_mut(rotated).unwrap().rotation = std::f32::consts::FRAC_PI_4;
    let rect = s.add_detached(Node::sprite(white).sized(64.0, 16.0).at(0.0, 24.0));
    s.set_mask(outer, rotated, false).unwrap();
    s.set_mask(inner, rect, false).unwrap();
    let img = render(&mut r, &s, 64, 64, BG);
    let f = r.stats().last_frame;
    assert_eq!((f.masks_pushed, f.scissor_masks), (2, 1));
    probe(&img, 32, 32, [0, 255, 0, 255], 0); // diamond and band
    probe(&img, 32, 16, [255, 0, 0, 255], 0); // diamond only: outer content
    probe(&img, 3, 30, [0, 0, 0, 255], 0); // band only, outside the diamond
    probe(&img, 4, 4, [0, 0, 0, 255], 0);
    golden("mask_scissor_in_stencil", &img);
}

#[test]
fn masked_content_spanning_several_batches() {
    let mut r = renderer();
    let mut s = Scene::new();
    let c = s.add(s.root(), Node::container()).unwrap();
    for i in 0..20u32 {
        let t = solid(
            &mut r,
            1,
            1,
            [(i * 12) as u8, 255 - (i * 12) as u8, 128, 255],
        );
        s.add(c, Node::sprite(t).sized(4.0, 64.0).at(i as f32 * 4.0, 0.0))
            .unwrap();
    }
    let m = s.add_detached(circle(40.0, 32.0, 20.0));
    s.set_mask(c, m, false).unwrap();
    let img = render(&mut r, &s, 80, 64, BG);
    let f = r.stats().last_frame;
    assert_eq!(
        f.draw_calls, 4,
        "mask add, two content batches, mask remove"
    );
    probe(&img, 40, 32, [120, 135, 128, 255], 0);
    probe(&img, 26, 32, [72, 183, 128, 255], 0);
    probe(&img, 40, 8, [0, 0, 0, 255], 0);
    probe(&img, 2, 32, [0, 0, 0, 255], 0);
}

#[test]
fn one_mask_serves_several_containers_and_can_be_animated() {
    let mut r = renderer();
    let white = r.white_texture();
    let mut s = Scene::new();
    let a = s.add(s.root(), Node::container()).unwrap();
    s.add(a, Node::sprite(white).sized(64.0, 32.0).tinted(Color::RED))
        .unwrap();
    let b = s.add(s.root(), Node::container().at(0.0, 32.0)).unwrap();
    s.add(
        b,
        Node::sprite(white).sized(64.0, 32.0).tinted(Color::GREEN),
    )
    .unwrap();
    let m = s.add_detached(circle(0.0, 0.0, 12.0).at(16.0, 32.0));
    s.set_mask(a, m, false).unwrap();
    s.set_mask(b, m, false).unwrap();
    let target = r.create_render_target(64, 64).unwrap();
    r.render(&s, &target, Some(BG)).unwrap();
    let img = r.read_pixels(&target).unwrap();
    probe(&img, 16, 26, [255, 0, 0, 255], 0);
    probe(&img, 16, 38, [0, 255, 0, 255], 0);
    probe(&img, 48, 32, [0, 0, 0, 255], 0);
    // Move the mask: the clip follows, nothing is re-tessellated or re-created.
    s.transform_mut(m).unwrap().position = Vec2::new(48.0, 32.0);
    r.render(&s, &target, Some(BG)).unwrap();
    let img = r.read_pixels(&target).unwrap();
    probe(&img, 16, 26, [0, 0, 0, 255], 0);
    probe(&img, 48, 26, [255, 0, 0, 255], 0);
    probe(&img, 48, 38, [0, 255, 0, 255], 0);
    let f = r.stats().last_frame;
    assert_eq!(
        (f.tessellations, f.pipelines_created, f.textures_created),
        (0, 0, 0)
    );
}

#[test]
fn a_mask_in_the_tree_is_not_drawn_while_it_masks_and_a_hidden_mask_still_masks() {
    let mut r = renderer();
    let mut s = Scene::new();
    let c = content(&r, &mut s, 32.0, Color::RED);
    let m = s.add(s.root(), circle(48.0, 16.0, 8.0)).unwrap();
    s.get_mut(m).unwrap().tint = Color::BLUE;
    s.set_mask(c, m, false).unwrap();
    assert!(s.is_mask(m));
    let img = render(&mut r, &s, 64, 32, BG);
    probe(&img, 48, 16, [0, 0, 0, 255], 0); // a mask, not content (PixiJS's masks are not drawn)
    probe(&img, 16, 16, [0, 0, 0, 255], 0); // content clipped away (the mask is elsewhere)
                                            // No longer a mask: drawn as content again, and the content unclipped.
    s.clear_mask(c).unwrap();
    assert!(!s.is_mask(m));
    let img = render(&mut r, &s, 64, 32, BG);
    probe(&img, 48, 16, [0, 0, 255, 255], 0);
    probe(&img, 16, 16, [255, 0, 0, 255], 0);
    // Hidden, it still masks.
    s.set_mask(c, m, false).unwrap();
    s.get_mut(m).unwrap().visible = false;
    let img = render(&mut r, &s, 64, 32, BG);
    probe(&img, 48, 16, [0, 0, 0, 255], 0);
    probe(&img, 16, 16, [0, 0, 0, 255], 0);
}

#[test]
fn empty_masks_hide_content_and_removed_nodes_are_safe() {
    let mut r = renderer();
    let white = r.white_texture();
    let mut s = Scene::new();
    let c = content(&r, &mut s, 16.0, Color::RED);
    let empty = s.add_detached(Node::graphics(GraphicsContext::new()));
    s.set_mask(c, empty, false).unwrap();
    let other = s
        .add(
            s.root(),
            Node::sprite(white)
                .sized(8.0, 8.0)
                .at(20.0, 0.0)
                .tinted(Color::GREEN),
        )
        .unwrap();
    let img = render(&mut r, &s, 32, 16, BG);
    probe(&img, 4, 4, [0, 0, 0, 255], 0);
    probe(&img, 22, 2, [0, 255, 0, 255], 0);
    // An empty rectangle mask (zero width) hides too.
    let mut zero = GraphicsContext::new();
    zero.rect(2.0, 2.0, 0.0, 8.0).fill(Color::WHITE);
    let zero = s.add_detached(Node::graphics(zero));
    s.set_mask(c, zero, false).unwrap();
    probe(&render(&mut r, &s, 32, 16, BG), 4, 4, [0, 0, 0, 255], 0);
    // Removing the mask node between frames: the content is skipped (drawing it unmasked would show what the
    // mask hid), the rest draws, nothing panics.
    s.remove(zero).unwrap();
    let img = render(&mut r, &s, 32, 16, BG);
    probe(&img, 4, 4, [0, 0, 0, 255], 0);
    probe(&img, 22, 2, [0, 255, 0, 255], 0);
    assert_eq!(r.stats().last_frame.nodes_skipped, 1);
    // Removing the masked node.
    s.set_mask(c, empty, false).unwrap();
    s.remove(c).unwrap();
    let img = render(&mut r, &s, 32, 16, BG);
    probe(&img, 22, 2, [0, 255, 0, 255], 0);
    assert!(s.contains(other));
}

#[test]
fn nesting_deeper_than_the_stencil_allows_hides_the_excess_and_draws_the_rest() {
    let mut r = renderer();
    let white = r.white_texture();
    let mut s = Scene::new();
    let mut parent = s.root();
    let mask = s.add_detached(circle(8.0, 8.0, 6.0));
    for depth in 0..300 {
        let c = s.add(parent, Node::container()).unwrap();
        s.set_mask(c, mask, false).unwrap();
        if depth == 100 {
            s.add(
                c,
                Node::sprite(white).sized(16.0, 16.0).tinted(Color::GREEN),
            )
            .unwrap();
        }
        if depth == 280 {
            s.add(c, Node::sprite(white).sized(16.0, 16.0).tinted(Color::RED))
                .unwrap();
        }
        parent = c;
    }
    s.add(
        s.root(),
        Node::sprite(white)
            .sized(8.0, 8.0)
            .at(24.0, 0.0)
            .tinted(Color::BLUE),
    )
    .unwrap();
    let img = render(&mut r, &s, 32, 16, BG);
    probe(&img, 8, 8, [0, 255, 0, 255], 0); // depth 101: drawn
    probe(&img, 26, 2, [0, 0, 255, 255], 0); // after the deep subtree, the frame goes on
    let f = r.stats().last_frame;
    assert_eq!(f.masks_too_deep, 1);
    assert_eq!(f.masks_pushed, 255);
}

#[test]
fn masks_work_with_msaa() {
    let mut r = Renderer::new_headless(RendererOptions::default().with_msaa(true)).unwrap();
    let mut s = Scene::new();
    let c = content(&r, &mut s, 64.0, Color::RED);
    let m = s.add_detached(circle(32.0, 32.0, 16.0));
    s.set_mask(c, m, false).unwrap();
    let img = render(&mut r, &s, 64, 64, BG);
    probe(&img, 32, 32, [255, 0, 0, 255], 0);
    probe(&img, 4, 4, [0, 0, 0, 255], 0);
    let edge = img.pixels().filter(|p| p.0[0] > 10 && p.0[0] < 245).count();
    assert!(edge > 20, "multisampled stencil gives smooth mask edges");
}

/// PixiJS's pattern: the mask is a child of the masked container, so it moves and scales with it, is not drawn
/// as content, and clips the subtree wherever the subtree is drawn (a render texture of the container alone, a
/// minimap at half size).
#[test]
fn a_mask_inside_the_masked_container_follows_it_into_render_textures() {
    let mut r = renderer();
    let white = r.white_texture();
    let mut s = Scene::new();
    // The panel sits under a world container moved 100 pixels right.
    let world = s.add(s.root(), Node::container().at(100.0, 0.0)).unwrap();
    let panel = s.add(world, Node::container().at(8.0, 8.0)).unwrap();
    s.add(
        panel,
        Node::sprite(white).sized(32.0, 32.0).tinted(Color::RED),
    )
    .unwrap();
    let mask = s.add(panel, circle(16.0, 16.0, 8.0)).unwrap();
    s.set_mask(panel, mask, false).unwrap();
    let img = render(&mut r, &s, 160, 64, BG);
    probe(&img, 124, 24, [255, 0, 0, 255], 0); // inside the circle
    probe(&img, 110, 10, [0, 0, 0, 255], 0); // content outside the circle is clipped
    probe(&img, 129, 24, [255, 0, 0, 255], 0); // the white mask is not drawn over the content
                                               // Scaled with its container.
    s.transform_mut(panel).unwrap().scale = Vec2::splat(2.0);
    let img = render(&mut r, &s, 200, 80, BG);
    probe(&img, 140 + 12, 40, [255, 0, 0, 255], 0);
    probe(&img, 140 + 20, 40, [0, 0, 0, 255], 0);
    s.transform_mut(panel).unwrap().scale = Vec2::ONE;
    // The panel alone in a render texture: its own transform applies, its ancestors' do not, for the mask too.
    let rt = r
        .create_render_texture(stage2d::RenderTextureOptions::new(48, 48))
        .unwrap();
    r.render_node(&s, panel, &rt, Some(BG)).unwrap();
    let img = r.read_pixels(&rt).unwrap();
    probe(&img, 24, 24, [255, 0, 0, 255], 0);
    probe(&img, 10, 10, [0, 0, 0, 255], 0);
    // A half-size minimap of it.
    let half = stage2d::glam::Affine2::from_scale(Vec2::splat(0.5));
    r.render_node_transformed(&s, panel, &rt, half, Some(BG))
        .unwrap();
    let img = r.read_pixels(&rt).unwrap();
    probe(&img, 12, 12, [255, 0, 0, 255], 0);
    probe(&img, 5, 5, [0, 0, 0, 255], 0);
    probe(&img, 30, 30, [0, 0, 0, 255], 0);
}
