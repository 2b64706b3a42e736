//! Embedding: stage2d recording into a render pass that another program began on its own device.

#[path = "../examples/embed.rs"]
#[allow(dead_code)]
mod embed;

mod common;
use common::probe;

#[test]
fn the_embed_example_draws_the_hosts_triangle_and_stage2ds_scene_in_one_pass() {
    let img = embed::headless().expect("the embed example draws headless");
    // The host's clear colour and its red triangle.
    probe(&img, 4, 4, embed::CLEAR, 0);
    probe(&img, 80, 150, [255, 0, 0, 255], 0);
    // stage2d's green bar, yellow circle, and the magenta bar through its circular mask.
    probe(&img, 210, 40, [0, 255, 0, 255], 0);
    probe(&img, 230, 160, [255, 255, 0, 255], 0);
    probe(&img, 240, 100, [255, 0, 255, 255], 0);
    probe(&img, 190, 100, embed::CLEAR, 0);
    // The bunny (a textured sprite) and the text left pixels of their own.
    let bunny = (262..284).flat_map(|x| (22..55).map(move |y| (x, y)));
    assert!(
        bunny
            .filter(|&(x, y)| img.get_pixel(x, y).0 != embed::CLEAR)
            .count()
            > 300
    );
    let text = (160..320).flat_map(|x| (208..232).map(move |y| (x, y)));
    let lit = text
        .filter(|&(x, y)| img.get_pixel(x, y).0[0] > 200)
        .count();
    assert!(lit > 100, "the label drew {lit} bright pixels");
}
