//! Counters that prove the frame's work: redundant calls skipped, nothing created in steady state, cache hits.

mod common;
use common::*;
use stage2d::{BlendMode, Color, Node, Scene};

#[test]
fn a_second_identical_frame_creates_nothing_and_uploads_nothing() {
    let mut r = renderer();
    let white = r.white_texture();
    let mut s = Scene::new();
    for i in 0..50 {
        s.add(
            s.root(),
            Node::sprite(white).sized(2.0, 2.0).at(i as f32, 0.0),
        )
        .unwrap();
    }
    let target = r.create_render_target(64, 8).unwrap();
    r.render(&s, &target, Some(Color::BLACK)).unwrap();
    let first = r.stats().last_frame;
    assert_eq!(first.pipelines_created, 1);
    assert_eq!(first.bind_groups_created, 2, "texture set and streams");
    assert_eq!(
        first.buffers_created, 6,
        "quad (corners and the rest), mesh-vertex, index and group-transform streams, and one staging chunk"
    );
    assert_eq!(
        first.bytes_uploaded,
        50 * (48 + 24) + 32,
        "a quad and 6 indices each, and the identity group transform"
    );
    r.wait_idle().unwrap();
    r.render(&s, &target, Some(Color::BLACK)).unwrap();
    let second = r.stats().last_frame;
    assert_eq!(second.pipelines_created, 0);
    assert_eq!(second.bind_groups_created, 0);
    assert_eq!(second.buffers_created, 0);
    assert_eq!(second.textures_created, 0);
    assert_eq!(second.bytes_uploaded, 0, "a static scene uploads nothing");
    assert_eq!(
        second.pipeline_hits_with_hash + second.pipeline_hits_without_hash,
        1
    );
    assert_eq!(second.pipeline_misses, 0);
    // One sprite moves: only its quad's 24 bytes of corners go up.
    let c = s.children(s.root())[7];
    s.transform_mut(c).unwrap().position.y = 3.0;
    r.render(&s, &target, Some(Color::BLACK)).unwrap();
    assert_eq!(r.stats().last_frame.bytes_uploaded, 24);
    // One sprite fades: its whole 48-byte quad goes up.
    s.get_mut(c).unwrap().alpha = 0.5;
    r.render(&s, &target, Some(Color::BLACK)).unwrap();
    assert_eq!(r.stats().last_frame.bytes_uploaded, 48);
    assert_eq!(r.stats().frames, 4);
}

#[test]
fn alternating_blend_modes_issue_one_set_pipeline_per_switch() {
    let mut r = renderer();
    let white = r.white_texture();
    let mut s = Scene::new();
    for i in 0..10 {
        let mode = if i % 2 == 0 {
            BlendMode::Normal
        } else {
            BlendMode::Add
        };
        s.add(
            s.root(),
            Node::sprite(white).at(i as f32, 0.0).blended(mode),
        )
        .unwrap();
    }
    let target = r.create_render_target(16, 1).unwrap();
    r.render(&s, &target, None).unwrap();
    assert_eq!(r.stats().last_frame.pipelines_created, 2);
    r.render(&s, &target, None).unwrap();
    let f = r.stats().last_frame;
    assert_eq!(f.draw_calls, 10);
    assert_eq!(f.set_pipeline_issued, 10);
    assert_eq!(f.set_pipeline_skipped, 0);
    assert_eq!(f.pipeline_misses, 0);
    assert_eq!(
        f.pipeline_hits_with_hash, 10,
        "alternating keys hash every time"
    );
    assert_eq!(
        f.set_bind_group_issued, 2,
        "the same texture set stays bound (and the streams' group)"
    );
    assert_eq!(f.set_bind_group_skipped, 9);
    assert_eq!(f.set_buffer_issued, 1, "the index buffer; no vertex buffer");
    assert_eq!(f.render_passes, 1);
}

#[test]
fn totals_accumulate_and_the_pipe_cache_switches_once_per_target_format() {
    let mut r = renderer();
    let white = r.white_texture();
    let mut s = Scene::new();
    s.add(s.root(), Node::sprite(white)).unwrap();
    let a = r.create_render_target(4, 4).unwrap();
    let b = r.create_render_target(4, 4).unwrap();
    r.render(&s, &a, None).unwrap();
    r.render(&s, &b, None).unwrap();
    r.render(&s, &a, None).unwrap();
    let t = r.stats().total;
    assert_eq!(t.draw_calls, 3);
    assert_eq!(t.pipelines_created, 1);
    assert_eq!(
        t.pipe_cache_switches, 1,
        "same format and state: the pointer never moves again"
    );
    assert_eq!(t.pipeline_hits_without_hash, 2);
}

/// `n` white `size`-pixel sprites, `columns` a row, one pixel apart.
fn grid(
    r: &stage2d::Renderer,
    s: &mut Scene,
    n: usize,
    columns: usize,
    size: f32,
) -> Vec<stage2d::NodeId> {
    let white = r.white_texture();
    (0..n)
        .map(|i| {
            let at = ((i % columns) as f32, (i / columns) as f32);
            let node = Node::sprite(white).sized(size, size).at(at.0, at.1);
            s.add(s.root(), node).unwrap()
        })
        .collect()
}

#[test]
fn moving_the_first_and_last_of_1000_sprites_uploads_two_quads() {
    let mut r = renderer();
    let mut s = Scene::new();
    let ids = grid(&r, &mut s, 1000, 40, 2.0);
    let target = r.create_render_target(64, 64).unwrap();
    for _ in 0..2 {
        r.render(&s, &target, Some(Color::BLACK)).unwrap();
    }
    assert_eq!(r.stats().last_frame.bytes_uploaded, 0);
    for id in [ids[0], ids[999]] {
        s.transform_mut(id).unwrap().position.x += 1.0;
    }
    r.render(&s, &target, Some(Color::BLACK)).unwrap();
    // Two quads' 24 bytes of corners, each its own range, instead of the 1,000 quads between them.
    assert_eq!(r.stats().last_frame.bytes_uploaded, 2 * 24);
}

#[test]
fn gpu_frame_time_is_reported_where_the_device_writes_timestamps() {
    // Off by default: no timing, nothing requested.
    let mut plain = renderer();
    let t = plain.create_render_target(8, 8).unwrap();
    for _ in 0..3 {
        plain.render(&Scene::new(), &t, None).unwrap();
        plain.wait_idle().unwrap();
    }
    assert_eq!(plain.stats().gpu_ms, None);
    let options = stage2d::RendererOptions::default().with_gpu_timing(true);
    let mut r = stage2d::Renderer::new_headless(options).unwrap();
    let white = r.white_texture();
    let mut s = Scene::new();
    s.add(s.root(), Node::sprite(white).sized(32.0, 32.0))
        .unwrap();
    let target = r.create_render_target(64, 64).unwrap();
    assert_eq!(r.stats().gpu_ms, None, "nothing timed yet");
    r.render(&s, &target, Some(Color::BLACK)).unwrap();
    let created = r.stats().total;
    for _ in 0..4 {
        r.render(&s, &target, Some(Color::BLACK)).unwrap();
        r.wait_idle().unwrap();
    }
    let timestamps = r
        .device()
        .features()
        .contains(wgpu::Features::TIMESTAMP_QUERY);
    let gpu = r.stats().gpu_ms;
    assert_eq!(gpu.is_some(), timestamps, "{gpu:?}");
    if let Some(ms) = gpu {
        assert!(ms > 0.0 && ms < 10_000.0, "{ms}");
    }
    // Timing creates nothing per frame after the first.
    let after = r.stats().total;
    assert_eq!(after.buffers_created, created.buffers_created);
    assert_eq!(after.textures_created, created.textures_created);
}

#[test]
fn frames_in_flight_create_nothing_after_warm_up_and_draw_the_last_frame() {
    let mut r = renderer();
    r.wait_frames_in_flight(1).unwrap(); // nothing submitted yet
    let mut s = Scene::new();
    let ids = grid(&r, &mut s, 200, 20, 1.0);
    let target = r.create_render_target(32, 32).unwrap();
    let mut baseline = None;
    for frame in 0..30 {
        for &id in &ids {
            s.transform_mut(id).unwrap().position.y += 0.5;
        }
        r.render(&s, &target, Some(Color::BLACK)).unwrap();
        // At most one frame on the GPU while the next is prepared.
        r.wait_frames_in_flight(1).unwrap();
        if frame == 5 {
            baseline = Some(r.stats().total);
        }
    }
    r.wait_frames_in_flight(0).unwrap();
    let (before, after) = (baseline.unwrap(), r.stats().total);
    assert_eq!(after.buffers_created, before.buffers_created);
    assert_eq!(after.textures_created, before.textures_created);
    assert_eq!(after.bind_groups_created, before.bind_groups_created);
    // The last frame: rows moved down 15 px, so row 0..15 is empty and the sprites fill 15..25.
    let img = r.read_pixels(&target).unwrap();
    probe(&img, 5, 5, [0, 0, 0, 255], 0);
    probe(&img, 5, 20, [255, 255, 255, 255], 0);
}
