//! Threads: the scene, its contents and the asset types move between threads (and are shared for reading where
//! that is safe); the renderer moves to another thread. A scene built and changed on worker threads renders on the
//! main thread as the same scene built there.

mod common;

use common::*;
use stage2d::{Color, GraphicsContext, Node, Scene};

const fn send<T: Send>() {}
const fn sync<T: Sync>() {}

// Compile-time: these fail to build if a type stops being Send or Sync.
const _: () = {
    send::<Scene>();
    sync::<Scene>();
    send::<GraphicsContext>();
    sync::<GraphicsContext>();
    send::<stage2d::ParticleContainer>();
    sync::<stage2d::ParticleContainer>();
    send::<stage2d::Texture>();
    sync::<stage2d::Texture>();
    send::<stage2d::Spritesheet>();
    sync::<stage2d::Spritesheet>();
    send::<stage2d::Assets>();
    send::<stage2d::Renderer>();
    send::<stage2d::Error>();
    sync::<stage2d::Error>();
};

#[cfg(feature = "text")]
const _: () = {
    send::<stage2d::Text>();
    sync::<stage2d::Text>();
    send::<stage2d::Font>();
    sync::<stage2d::Font>();
};

/// Each worker builds a subtree in a scene of its own; the main thread copies them into one scene and renders
/// it: the same pixels as the same scene built on the main thread.
#[test]
fn scenes_built_on_worker_threads_render_on_the_main_thread() {
    let build = |i: usize| {
        let mut s = Scene::new();
        let mut g = GraphicsContext::new();
        g.rect(0.0, 0.0, 6.0, 6.0)
            .fill(Color::rgb(i as f32 / 8.0, 0.5, 1.0 - i as f32 / 8.0));
        s.add(s.root(), Node::graphics(g).at((i * 8) as f32, 4.0))
            .unwrap();
        s
    };
    let parts: Vec<Scene> = std::thread::scope(|t| {
        let handles: Vec<_> = (0..8).map(|i| t.spawn(move || build(i))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let assemble = |parts: &[Scene]| {
        let mut all = Scene::new();
        for p in parts {
            for &c in p.children(p.root()) {
                let node = Node::from_parts(*p.transform(c).unwrap(), p.get(c).unwrap().clone());
                all.add(all.root(), node).unwrap();
            }
        }
        all
    };
    let threaded = assemble(&parts);
    let local = assemble(&(0..8).map(build).collect::<Vec<_>>());
    // A scene shared for reading across threads: hit tests from several at once.
    std::thread::scope(|t| {
        for i in 0..4 {
            let s = &threaded;
            t.spawn(move || {
                assert!(s
                    .hit_test(stage2d::glam::Vec2::new(i as f32 * 8.0 + 3.0, 7.0))
                    .is_none());
                assert!(s.world_bounds(s.children(s.root())[i]).is_some());
            });
        }
    });
    let mut r = renderer();
    let a = render(&mut r, &threaded, 64, 16, Color::BLACK);
    // The renderer moves to a thread of its own and back.
    let (mut r, b) = std::thread::spawn(move || {
        let img = render(&mut r, &local, 64, 16, Color::BLACK);
        (r, img)
    })
    .join()
    .unwrap();
    assert_eq!(a.as_raw(), b.as_raw());
    probe(&a, 3, 7, [0, 128, 255, 255], 1);
    let _ = render(&mut r, &Scene::new(), 4, 4, Color::BLACK);
}
