//! A short soak: the churn of `examples/soak.rs` for a few hundred frames on one renderer. What the renderer holds
//! must stay flat after warm-up, and once everything is let go of, attachments, pooled textures, bind groups and
//! pending releases must go back to what an idle scene holds.

#[path = "../examples/common/soak.rs"]
mod soak;

mod common;

use stage2d::{Color, RenderTextureOptions, Stats};

const WARMUP: u64 = 200;
const FRAMES: u64 = 600;
/// Frames after which idle attachments, bind groups and pooled textures have been evicted, with a margin.
const IDLE: u64 = 64;

fn font() -> stage2d::Font {
    stage2d::Font::from_bytes(include_bytes!("../assets/DejaVuSans.ttf")).unwrap()
}

fn max_counts(a: &mut [(&'static str, u64); 5], s: &Stats, loading: usize) {
    for (m, c) in a.iter_mut().zip(soak::live_counts(s, loading)) {
        *m = (c.0, m.1.max(c.1));
    }
}

#[test]
fn live_counts_stay_flat_and_everything_let_go_is_released() {
    let mut r = common::renderer();
    let mut s = soak::Soak::new(&mut r, font()).unwrap();
    // The baseline: the scene's containers and the churn's first textures, drawn long enough for first-frame
    // objects to age out.
    for _ in 0..IDLE {
        s.render_only(&mut r).unwrap();
    }
    r.wait_idle().unwrap();
    s.render_only(&mut r).unwrap();
    let before = r.stats().live;
    let held = s.textures_held();

    let mut warm = [("", 0); 5];
    let mut late = [("", 0); 5];
    for f in 1..=FRAMES {
        s.step(&mut r).unwrap();
        let stats = r.stats();
        if f > WARMUP / 2 && f <= WARMUP {
            max_counts(&mut warm, &stats, s.loading_textures());
        } else if f > FRAMES / 2 {
            max_counts(&mut late, &stats, s.loading_textures());
        }
    }
    let failures = soak::growth_failures(&warm, &late);
    assert!(
        failures.is_empty(),
        "{failures:?} (warm-up {warm:?}, second half {late:?})"
    );
    // The churn did what it says: asset bundles loaded and unloaded, render textures and attachments live.
    assert!(s.bundles() >= FRAMES / 8, "{} bundles", s.bundles());
    assert!(
        s.bundle_records() <= 3,
        "{} bundle records kept",
        s.bundle_records()
    );
    let during = r.stats().live;
    assert!(
        during.render_targets > before.render_targets + 3,
        "{during:?}"
    );
    assert!(during.attachments > before.attachments + 10, "{during:?}");
    assert!(r.pool_hits() > FRAMES, "pooled textures were lent again");
    // Click handlers of removed shapes were dropped.
    assert!(s.event_handlers() > 0 && s.event_handlers() <= soak::Soak::SHAPES);
    assert!(
        r.stats().total.dead_textures > 0,
        "sprites outlived their textures"
    );

    // Let everything go; after IDLE frames what is left is the idle baseline (and the glyph page text created).
    s.release_all(&mut r).unwrap();
    for _ in 0..IDLE {
        s.render_only(&mut r).unwrap();
    }
    r.wait_idle().unwrap();
    s.render_only(&mut r).unwrap();
    r.wait_idle().unwrap();
    s.render_only(&mut r).unwrap();
    let after = r.stats().live;
    assert_eq!(
        r.pooled_render_textures(),
        0,
        "idle pooled textures are dropped"
    );
    assert_eq!(after.render_targets, before.render_targets, "{after:?}");
    // The target drawn every frame keeps the stencil attachment masks made it use (by design: its pipelines stay
    // in one tier); every other attachment is gone.
    assert!(
        after.attachments <= before.attachments + 1,
        "{before:?} -> {after:?}"
    );
    assert_eq!(after.pending_releases, 0, "{after:?}");
    assert!(
        after.bind_groups <= before.bind_groups + 1,
        "{before:?} -> {after:?}"
    );
    // The churn's loaded textures are gone; a glyph-atlas page stays (text drew glyphs); nothing else does.
    assert!(
        after.textures <= before.textures - held + 1,
        "{before:?} -> {after:?} ({held} loaded textures destroyed)"
    );
}

#[test]
fn pooled_textures_of_one_off_sizes_do_not_pile_up() {
    let mut r = common::renderer();
    let scene = stage2d::Scene::new();
    let target = r.create_render_target(8, 8).unwrap();
    let base = r.stats().live.render_targets;
    for i in 0..3 * IDLE as u32 {
        // A new size every frame: nothing borrowed is ever lent again.
        let t = r
            .acquire_render_texture(RenderTextureOptions::new(8 + i, 8))
            .unwrap();
        r.render(&scene, &t, Some(Color::RED)).unwrap();
        drop(t);
        r.render(&scene, &target, None).unwrap();
    }
    let live = r.stats().live.render_targets - base;
    assert!(
        live <= IDLE + 2,
        "{live} pooled render textures held after {} one-off sizes",
        3 * IDLE
    );
    assert!(r.pooled_render_textures() as u64 <= IDLE + 2);
    // And one borrowed again within the idle window is still a pool hit.
    let t = r
        .acquire_render_texture(RenderTextureOptions::new(8 + 3 * IDLE as u32 - 1, 8))
        .unwrap();
    drop(t);
    assert_eq!(r.pool_hits(), 1);
}
