//! Warm starts: the pipeline-cache file is written, read back, and replayed so that a second run creates no
//! pipeline on demand; bad files are ignored with a reason and rewritten.

mod common;
use common::*;
use stage2d::internals::persist;
use stage2d::{BlendMode, Color, GraphicsContext, Node, Renderer, RendererOptions, Scene};
use std::path::PathBuf;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("stage2d-warm-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn with_cache(d: &std::path::Path) -> Renderer {
    let _ = env_logger::builder().is_test(true).try_init();
    Renderer::new_headless(RendererOptions::default().with_pipeline_cache(d.to_path_buf())).unwrap()
}

/// A scene needing several pipelines: two blend modes and a stencil mask.
fn scene(r: &Renderer) -> Scene {
    let white = r.white_texture();
    let mut s = Scene::new();
    let c = s.add(s.root(), Node::container()).unwrap();
    s.add(c, Node::sprite(white).sized(16.0, 16.0).tinted(Color::RED))
        .unwrap();
    s.add(
        c,
        Node::sprite(white).sized(8.0, 8.0).blended(BlendMode::Add),
    )
    .unwrap();
    let mut g = GraphicsContext::new();
    g.circle(8.0, 8.0, 6.0).fill(Color::WHITE);
    let m = s.add_detached(Node::graphics(g));
    s.set_mask(c, m, false).unwrap();
    s.add(s.root(), Node::sprite(white).sized(2.0, 2.0))
        .unwrap();
    s
}

/// Runs a cold renderer with a cache in `d` through one frame, drops it (saving the file) and returns the file.
fn written_file(d: &std::path::Path) -> PathBuf {
    first_frame_pipelines(&mut with_cache(d));
    std::fs::read_dir(d)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
}

fn first_frame_pipelines(r: &mut Renderer) -> u64 {
    let s = scene(r);
    let t = r.create_render_target(16, 16).unwrap();
    r.render(&s, &t, Some(Color::BLACK)).unwrap();
    r.stats().last_frame.pipelines_created
}

#[test]
fn a_second_run_creates_no_pipeline_on_demand() {
    let d = dir("replay");
    let created = {
        let mut cold = with_cache(&d);
        assert_eq!(cold.warm_start().bytes_loaded, 0);
        let n = first_frame_pipelines(&mut cold);
        assert!(n >= 5, "two blend modes across the stencil states: {n}");
        n
        // Dropping the renderer saves the file.
    };
    let path = std::fs::read_dir(&d)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    assert!(path.to_string_lossy().ends_with(".pipelines"));
    let mut warm = with_cache(&d);
    let w = warm.warm_start().clone();
    assert!(w.rejected.is_none(), "{:?}", w.rejected);
    assert!(w.bytes_loaded > 0);
    assert_eq!(w.pipelines_prewarmed, created);
    assert_eq!(
        first_frame_pipelines(&mut warm),
        0,
        "every pipeline was pre-warmed"
    );
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn corrupt_truncated_and_foreign_files_are_ignored_and_rewritten() {
    let d = dir("bad");
    let path = written_file(&d);
    let good = std::fs::read(&path).unwrap();
    let foreign = persist::encode(
        &persist::CacheFile::default(),
        "another_adapter",
        "another driver",
    );
    for (what, bytes) in [
        ("corrupt", b"this is no cache file at all".to_vec()),
        ("truncated", good[..good.len() / 2].to_vec()),
        ("foreign", foreign),
    ] {
        std::fs::write(&path, &bytes).unwrap();
        {
            let mut r = with_cache(&d);
            let w = r.warm_start().clone();
            assert!(w.rejected.is_some(), "{what} file accepted");
            assert_eq!(w.pipelines_prewarmed, 0);
            assert!(
                first_frame_pipelines(&mut r) > 0,
                "{what}: pipelines are created on demand instead"
            );
        }
        // Rewritten on drop: the next start accepts it.
        let r = with_cache(&d);
        assert!(
            r.warm_start().rejected.is_none(),
            "{what} file was not rewritten"
        );
        assert!(r.warm_start().pipelines_prewarmed > 0);
    }
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_file_from_another_shader_set_is_not_replayed() {
    // Saved keys name shaders by id; a renderer registering other shaders (here: 4 batch slots instead of 16, so
    // 4 batch shaders instead of 16) must not replay them as its own.
    let d = dir("shaders");
    {
        let mut r = with_cache(&d);
        first_frame_pipelines(&mut r);
    }
    let narrow = || {
        Renderer::new_headless(
            RendererOptions::default()
                .with_pipeline_cache(d.clone())
                .with_max_textures_per_batch(4),
        )
        .unwrap()
    };
    {
        let mut r = narrow();
        let w = r.warm_start().clone();
        assert!(
            w.rejected
                .as_deref()
                .is_some_and(|why| why.contains("shaders")),
            "{:?}",
            w.rejected
        );
        assert_eq!(w.pipelines_prewarmed, 0);
        assert!(first_frame_pipelines(&mut r) > 0);
    }
    // The same shader set accepts the file the narrow renderer rewrote.
    let mut r = narrow();
    assert!(
        r.warm_start().rejected.is_none(),
        "{:?}",
        r.warm_start().rejected
    );
    assert!(r.warm_start().pipelines_prewarmed > 0);
    assert_eq!(first_frame_pipelines(&mut r), 0);
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_leftover_temporary_from_an_interrupted_save_does_not_matter() {
    let d = dir("tmp");
    let path = written_file(&d);
    std::fs::write(path.with_extension("tmp-99999"), b"half a file").unwrap();
    let r = with_cache(&d);
    assert!(r.warm_start().rejected.is_none());
    assert!(r.warm_start().pipelines_prewarmed > 0);
    drop(r);
    assert!(
        persist::decode(&std::fs::read(&path).unwrap(), "x", "y").is_err(),
        "identity is checked"
    );
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn without_a_cache_directory_nothing_is_written() {
    let mut r = renderer();
    first_frame_pipelines(&mut r);
    assert!(r.save_pipeline_cache().unwrap().is_none());
    assert!(r.warm_start().path.is_none());
}

#[test]
fn a_valid_file_listing_100000_pipelines_is_replayed_within_its_caps() {
    // A cache file with a valid checksum can still be hostile: 100,000 distinct pipeline keys. Before the caps,
    // every one was built before the first frame (2,000 already took seconds).
    let d = dir("huge");
    let path = written_file(&d);
    let bytes = std::fs::read(&path).unwrap();
    // The file names its adapter key and driver after the 8-byte magic, each length-prefixed.
    let field = |at: usize| {
        let n = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        (
            String::from_utf8(bytes[at + 4..at + 4 + n].to_vec()).unwrap(),
            at + 4 + n,
        )
    };
    let (key, next) = field(8);
    let (driver, _) = field(next);
    let mut file = persist::decode(&bytes, &key, &driver).unwrap();
    let real = std::mem::take(&mut file.entries);
    assert!(!real.is_empty());
    // Distinct keys: the real ones with other colour masks, blend modes and state flags.
    'fill: for mask in 0..16u16 {
        for flags in 0..64u32 {
            for blend in 0..16u32 {
                for &(tier, g) in &real {
                    let mut tier = tier;
                    tier.global.0 = (tier.global.0 & !(0b1111 << 8)) | (mask << 8);
                    let k =
                        (g.0 & !(0b111111 << 8) & !(0b11111 << 3)) | (flags << 8) | (blend << 3);
                    file.entries
                        .push((tier, stage2d::internals::GraphicsKey(k)));
                    if file.entries.len() == 100_000 {
                        break 'fill;
                    }
                }
            }
        }
    }
    while file.entries.len() < 100_000 {
        file.entries.push(real[file.entries.len() % real.len()]);
    }
    std::fs::write(&path, persist::encode(&file, &key, &driver)).unwrap();
    let start = std::time::Instant::now();
    let r = with_cache(&d);
    let took = start.elapsed();
    let w = r.warm_start().clone();
    eprintln!(
        "{} of 100,000 entries built ahead in {:?}; renderer ready in {took:?}",
        w.pipelines_prewarmed, w.prewarm_time
    );
    assert!(w.rejected.is_none(), "{:?}", w.rejected);
    assert!(w.pipelines_prewarmed > 0);
    assert!(w.pipelines_prewarmed as usize <= stage2d::MAX_PREWARM_PIPELINES);
    assert!(
        w.prewarm_time < stage2d::MAX_PREWARM_TIME + std::time::Duration::from_millis(1500),
        "{:?}",
        w.prewarm_time
    );
    assert!(took < std::time::Duration::from_secs(10), "{took:?}");
    drop(r);
    std::fs::remove_dir_all(&d).ok();
}
