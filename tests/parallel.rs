//! The many-core paths (the walk computing leaf sprites ahead, kept walks patching quads in chunks, large uploads
//! written in pieces) draw exactly what one core draws. They switch on with four threads or more: this test runs
//! the same frames in a pool of one thread and one of four, whatever the machine has.

mod common;
use common::*;
use stage2d::{Color, Node, NodeId, Scene};

/// 40,000 2x2 sprites (1.9 MB of quads, over the 32,768 children a container needs to be walked on every core and
/// the 1 MiB from which uploads are split); a full walk, then two frames moving every sprite (kept walks), then
/// one hiding a sprite (a walk again). Returns each frame's pixels and whether it kept its walk.
fn frames() -> Vec<(Vec<u8>, u64)> {
    let mut r = renderer();
    let white = r.white_texture();
    let mut s = Scene::new();
    let ids: Vec<NodeId> = (0..40_000)
        .map(|i| {
            let c = Color::rgb((i % 7) as f32 / 7.0, (i % 11) as f32 / 11.0, 0.5);
            let node = Node::sprite(white)
                .sized(2.0, 2.0)
                .at((i % 200) as f32 * 0.3, (i / 200) as f32 * 0.3)
                .tinted(c);
            s.add(s.root(), node).unwrap()
        })
        .collect();
    let target = r.create_render_target(64, 64).unwrap();
    let mut out = Vec::new();
    for f in 0..4 {
        match f {
            1 | 2 => {
                for (i, id) in ids.iter().enumerate() {
                    s.transform_mut(*id).unwrap().position.x += ((i % 5) as f32 - 2.0) * 0.7;
                }
            }
            3 => s.get_mut(ids[123]).unwrap().visible = false,
            _ => {}
        }
        r.render(&s, &target, Some(Color::BLACK)).unwrap();
        let kept = r.stats().last_frame.walks_kept;
        out.push((r.read_pixels(&target).unwrap().into_raw(), kept));
    }
    out
}

#[test]
fn four_threads_draw_what_one_draws() {
    let pool = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    };
    let one = pool(1).install(frames);
    let four = pool(4).install(frames);
    let kept: Vec<u64> = one.iter().map(|f| f.1).collect();
    assert_eq!(kept, vec![0, 1, 1, 0], "which frames kept their walk");
    for (k, (a, b)) in one.iter().zip(&four).enumerate() {
        assert_eq!(a.1, b.1, "frame {k}: kept");
        assert!(a.0 == b.0, "frame {k}: pixels differ");
    }
}
