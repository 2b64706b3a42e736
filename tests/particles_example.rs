//! The particles example's headless run: a fountain rises from the bottom centre, falling back in arcs, with the
//! renderer's figures on a panel at the top left.
#![cfg(all(feature = "app", feature = "text", feature = "png"))]

mod common;

#[test]
fn the_example_draws_a_fountain_of_particles() {
    let (_, img) = common::run_headless(
        "particles",
        &["--headless", "--particles", "50000", "--frames", "30"],
    );
    let lit = |x0: u32, x1: u32, y0: u32, y1: u32| {
        (y0..y1)
            .flat_map(|y| (x0..x1).map(move |x| (x, y)))
            .filter(|&(x, y)| {
                let p = img.get_pixel(x, y).0;
                p[0] as u32 + p[1] as u32 + p[2] as u32 > 120
            })
            .count()
    };
    // The column above the spout is full of particles; the bottom corners, beyond the fountain's reach, are not.
    let column = lit(380, 420, 300, 580);
    assert!(column > 40 * 280 / 4, "{column} lit pixels above the spout");
    assert!(lit(0, 40, 560, 600) < 20, "bottom-left corner lit");
    assert!(lit(760, 800, 560, 600) < 20, "bottom-right corner lit");
    // The figures' panel: dark, with light text in it.
    assert!(lit(16, 330, 14, 70) > 200, "the panel's text");
}
