//! The interactive example's headless run: its scripted pointer session through the real dispatcher and renderer,
//! checked by what the handlers report and by pixels of the picture it writes (the hovered ring's tint, its hole
//! letting the background through, the dragged bunny cut by the panel's mask).
#![cfg(all(feature = "app", feature = "text", feature = "png"))]

mod common;

#[test]
fn the_scripted_session_clicks_drags_and_hovers() {
    let (stdout, img) = common::run_headless("interactive", &["--headless"]);
    // Button 2 clicked twice; button 3 pressed and left (no click); one drag; the ring hovered last.
    assert!(stdout.contains("\"clicks\":[0, 2, 0]"), "{stdout}");
    assert!(stdout.contains("\"drops\":1"), "{stdout}");
    assert!(
        stdout.contains("\"dragged_bunny_at\":[740.0,300.0]"),
        "{stdout}"
    );
    assert!(stdout.contains("\"ring_hovered\":true"), "{stdout}");
    assert!(stdout.contains("\"cursor\":\"Crosshair\""), "{stdout}");
    let px = |x: u32, y: u32| img.get_pixel(x, y).0;
    let near = |a: [u8; 4], b: [u8; 4]| {
        a.iter()
            .zip(b)
            .all(|(p, q)| (i32::from(*p) - i32::from(q)).abs() <= 3)
    };
    let clear = [0x2c, 0x3e, 0x50, 255];
    // The ring's body, orange 0xe67e22 tinted by the hover colour 0x8e44ad.
    assert!(near(px(582, 470), [128, 34, 23, 255]), "{:?}", px(582, 470));
    assert!(near(px(520, 470), clear), "the hole: {:?}", px(520, 470));
    // The bunny dragged to the panel's right edge (x 740): drawn inside, cut outside.
    assert!(
        !near(px(735, 318), [0x1d, 0x2b, 0x3a, 255]),
        "bunny inside: {:?}",
        px(735, 318)
    );
    assert!(
        near(px(745, 318), clear),
        "masked outside: {:?}",
        px(745, 318)
    );
}
