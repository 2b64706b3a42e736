//! The assets example's headless run: the bundle loads behind the loading bar, then the sheet's critters, the
//! tiling background, the nine-slice panel and the title draw in one call, as the picture it writes shows.
#![cfg(all(feature = "app", feature = "text", feature = "png"))]

mod common;

#[test]
fn the_example_loads_its_bundle_and_draws_the_critters_in_one_call() {
    let (stdout, img) = common::run_headless(
        "assets",
        &["--headless", "--critters", "40", "--frames", "30"],
    );
    assert!(stdout.contains("\"critters\":40"), "{stdout}");
    assert!(stdout.contains("\"draw_calls\":1,"), "{stdout}");
    // 40 critters, the background and the panel.
    assert!(stdout.contains("\"sprites\":42"), "{stdout}");
    let px = |x: u32, y: u32| img.get_pixel(x, y).0;
    // Grass outside the panel (green dominant), the panel's gold border, its dark translucent centre.
    for (x, y) in [(20, 300), (780, 580), (400, 570)] {
        let p = px(x, y);
        assert!(p[1] > p[0] && p[1] > p[2], "grass at ({x},{y}): {p:?}");
    }
    let border = px(84, 300);
    assert!(
        border[0] > 150 && border[1] > 100 && border[2] < 100,
        "border: {border:?}"
    );
    // Below the lowest critter (feet at y 510 at most) and above the bottom border (y 518).
    for x in [95, 400, 700] {
        let centre = px(x, 514);
        assert!(
            centre[0] < 90 && centre[2] < 110,
            "panel centre at x {x}: {centre:?}"
        );
    }
    // Critters drew in the panel: many pixels far from the panel's colour.
    let busy = (170..500)
        .step_by(4)
        .flat_map(|y| (120..690).step_by(4).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let p = px(x, y);
            p[0] > 150 || p[1] > 150
        })
        .count();
    assert!(busy > 200, "only {busy} bright samples in the panel");
}
