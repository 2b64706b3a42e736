//! TexturePacker spritesheet JSON through `Spritesheet::from_json` (the public entry point a sheet file goes
//! through, after the loader has read it), against an image of the size the sheet says (`meta.size`, or 256x256)
//! and against the largest texture; then every frame and animation of a sheet that loads is used.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stage2d::internals::bench_texture;
use stage2d::{AnimatedSprite, Node, Scene, Spritesheet, MAX_TEXTURE_SIDE};

/// `meta.size` if the document states a usable one (the image a real sheet comes with).
fn stated_size(json: &[u8]) -> Option<(u32, u32)> {
    let v: serde_json::Value = serde_json::from_slice(json).ok()?;
    let size = v.get("meta")?.get("size")?;
    let side = |k: &str| {
        size.get(k)?
            .as_u64()
            .filter(|s| (1..=MAX_TEXTURE_SIDE as u64).contains(s))
    };
    Some((side("w")? as u32, side("h")? as u32))
}

fuzz_target!(|data: &[u8]| {
    let (w, h) = stated_size(data).unwrap_or((256, 256));
    for (w, h) in [(w, h), (MAX_TEXTURE_SIDE, MAX_TEXTURE_SIDE)] {
        let Ok(sheet) = Spritesheet::from_json(data, bench_texture(w, h), "fuzz.json") else {
            continue;
        };
        let _ = (
            sheet.texture(),
            sheet.image(),
            sheet.len(),
            sheet.is_empty(),
        );
        let names: Vec<String> = sheet.frame_names().map(str::to_owned).collect();
        for name in &names {
            let t = sheet.try_frame(name).expect("a listed frame is found");
            let _ = (t.source_size(), t.frame_rect(), sheet.anchor(name));
            let _ = sheet
                .try_sprite(name)
                .expect("a listed frame makes a sprite");
        }
        // Animations play on a sprite, as an app steps them a frame at a time.
        let mut scene = Scene::new();
        let node = scene
            .add(scene.root(), Node::sprite(sheet.texture()))
            .expect("a sprite is added to the root");
        let animations: Vec<String> = sheet.animation_names().map(str::to_owned).collect();
        for name in &animations {
            let frames = sheet.animation(name).expect("a listed animation is found");
            let names = sheet
                .animation_frame_names(name)
                .expect("a listed animation has names");
            assert_eq!(frames.len(), names.len());
            if let Ok(mut a) = AnimatedSprite::from_sheet(node, &sheet, name) {
                a.fps = 60.0;
                for _ in 0..3 {
                    let _ = a.update(&mut scene, 1.0 / 30.0);
                }
            }
        }
    }
});
