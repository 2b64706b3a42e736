//! The asset cache: one texture per path until unloaded, bundles decoded in the background with progress, and
//! failed files named while the rest of the bundle loads.
#![cfg(feature = "png")]

mod common;

use stage2d::{Assets, Error, Sampling};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn asset(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join(name)
}

/// Polls until every file of `bundle` is uploaded or failed (at most 20 s), checking progress only grows.
fn load_all(assets: &mut Assets, r: &mut stage2d::Renderer, bundle: stage2d::BundleId) {
    let (mut last, started) = (0.0, Instant::now());
    while !assets.is_done(bundle).unwrap() {
        assets.poll(r);
        let p = assets.progress(bundle).unwrap();
        assert!(p >= last, "progress goes one way");
        last = p;
        assert!(started.elapsed() < Duration::from_secs(20), "stuck at {p}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// A fresh temporary directory named for `tag` holding a copy of the shipped sheet's image.
fn dir_with_sheet_image(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stage2d-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(asset("critters.png"), dir.join("critters.png")).unwrap();
    dir
}

#[test]
fn a_path_loads_once_until_unloaded() {
    let mut r = common::renderer();
    let mut assets = Assets::new();
    let base = r.stats().live.textures;
    let a = assets
        .load(&mut r, asset("bunny0.png"), Sampling::NEAREST)
        .unwrap();
    // Another spelling of the same file is the same asset.
    let dotted = asset("../assets/bunny0.png");
    let b = assets.load(&mut r, &dotted, Sampling::NEAREST).unwrap();
    assert_eq!(a, b);
    assert_eq!(r.stats().live.textures, base + 1);
    assert_eq!(assets.get(asset("bunny0.png")), Some(a));
    assert!(assets.unload(&mut r, asset("bunny0.png")).unwrap());
    assert!(!assets.unload(&mut r, asset("bunny0.png")).unwrap());
    assert_eq!(assets.get(asset("bunny0.png")), None);
    // The unloaded texture is gone: its handle is stale, and loading again makes a new one.
    assert!(matches!(r.destroy_texture(a), Err(Error::StaleTexture(_))));
    let c = assets
        .load(&mut r, asset("bunny0.png"), Sampling::NEAREST)
        .unwrap();
    assert_ne!(a, c);
    // Bytes are cached by name; a missing file and corrupt bytes are errors naming them.
    let bytes = std::fs::read(asset("bunny1.png")).unwrap();
    let d = assets
        .load_bytes(&mut r, "bunny one", &bytes, Sampling::NEAREST)
        .unwrap();
    assert_eq!(
        assets
            .load_bytes(&mut r, "bunny one", b"not read again", Sampling::NEAREST)
            .unwrap(),
        d
    );
    let missing = assets
        .load(&mut r, asset("nope.png"), Sampling::NEAREST)
        .unwrap_err();
    assert!(missing.to_string().contains("nope.png"), "{missing}");
    let corrupt = assets
        .load_bytes(&mut r, "junk", b"\x89PNG broken", Sampling::NEAREST)
        .unwrap_err();
    assert!(corrupt.to_string().contains("junk"), "{corrupt}");
    assert_eq!(assets.len(), 2);
}

#[test]
fn a_bundle_loads_in_the_background_with_progress_and_names_its_failures() {
    let mut r = common::renderer();
    let mut assets = Assets::new();
    let dir = std::env::temp_dir().join(format!("stage2d-assets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let corrupt = dir.join("corrupt.png");
    std::fs::write(&corrupt, b"\x89PNG\r\n\x1a\n not really").unwrap();
    let already = assets
        .load(&mut r, asset("bunny2.png"), Sampling::NEAREST)
        .unwrap();
    let mut files: Vec<PathBuf> = (0..12).map(|i| asset(&format!("bunny{i}.png"))).collect();
    files.push(dir.join("missing.png"));
    files.push(corrupt.clone());
    files.push(asset("bunny3.png")); // listed twice: one file
    let bundle = assets.load_bundle(&files, Sampling::NEAREST);
    // bunny2 was cached already: 1 of 14 done before any poll.
    assert!((assets.progress(bundle).unwrap() - 1.0 / 14.0).abs() < 1e-6);
    load_all(&mut assets, &mut r, bundle);
    assert_eq!(assets.progress(bundle).unwrap(), 1.0);
    let errors = assets.errors(bundle).unwrap();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors.iter().any(|e| e.to_string().contains("missing.png")));
    assert!(errors.iter().any(|e| e.to_string().contains("corrupt.png")));
    let loaded = assets.bundle_textures(bundle).unwrap();
    assert_eq!(loaded.len(), 12);
    assert!(
        loaded.iter().any(|(_, t)| *t == already),
        "the cached texture is reused"
    );
    // The bundle's textures are the cache's: loading one of them again creates nothing.
    let before = r.stats().live.textures;
    assert_eq!(
        assets
            .load(&mut r, asset("bunny7.png"), Sampling::NEAREST)
            .unwrap(),
        assets.get(asset("bunny7.png")).unwrap()
    );
    assert_eq!(r.stats().live.textures, before);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn spritesheets_load_once_in_bundles_and_bad_sheets_name_the_field() {
    let mut r = common::renderer();
    let mut assets = Assets::new();
    let dir = dir_with_sheet_image("sheets");
    let good = std::fs::read_to_string(asset("critters.json")).unwrap();
    // Malformed JSON, a frame past the image's edge, and a sheet naming a missing image.
    std::fs::write(dir.join("malformed.json"), &good[..good.len() / 2]).unwrap();
    let outside = good.replacen("\"x\": ", "\"x\": 250", 1);
    assert_ne!(outside, good);
    std::fs::write(dir.join("outside.json"), &outside).unwrap();
    std::fs::write(
        dir.join("no_image.json"),
        good.replace("critters.png", "nowhere.png"),
    )
    .unwrap();
    let files = [
        asset("critters.json"),
        asset("grass_tile.png"),
        dir.join("malformed.json"),
        dir.join("outside.json"),
        dir.join("no_image.json"),
    ];
    let bundle = assets.load_bundle(&files, Sampling::LINEAR);
    load_all(&mut assets, &mut r, bundle);
    let errors: Vec<String> = assets
        .errors(bundle)
        .unwrap()
        .iter()
        .map(|e| e.to_string())
        .collect();
    assert_eq!(errors.len(), 3, "{errors:?}");
    let find = |file: &str| {
        errors
            .iter()
            .find(|e| e.contains(file))
            .cloned()
            .unwrap_or_default()
    };
    assert!(find("malformed.json").contains("(document)"), "{errors:?}");
    assert!(find("outside.json").contains(".frame"), "{errors:?}");
    assert!(find("no_image.json").contains("nowhere.png"), "{errors:?}");
    // The good sheet: 18 frames in three animations, its image cached under its own path.
    let sheet = assets.spritesheet(asset("critters.json")).unwrap().clone();
    assert_eq!(sheet.len(), 18);
    assert_eq!(sheet.animation_names().count(), 3);
    assert_eq!(assets.get(asset("critters.png")).unwrap(), sheet.texture());
    // Loading it again (another spelling of the path) makes nothing new.
    let live = r.stats().live.textures;
    let again = assets
        .load_spritesheet(&mut r, asset("../assets/critters.json"), Sampling::LINEAR)
        .unwrap();
    assert_eq!(again.texture(), sheet.texture());
    assert_eq!(r.stats().live.textures, live);
    // Synchronously, a bad sheet is the same error.
    let e = assets
        .load_spritesheet(&mut r, dir.join("outside.json"), Sampling::LINEAR)
        .unwrap_err();
    assert!(
        matches!(&e, Error::Spritesheet { field, .. } if field.contains(".frame")),
        "{e}"
    );
    // Unloading the sheet frees its image.
    assert!(assets.unload(&mut r, asset("critters.json")).unwrap());
    assert!(assets.spritesheet(asset("critters.json")).is_none());
    assert!(assets.get(asset("critters.png")).is_none());
    assert!(matches!(
        r.destroy_texture(sheet.texture()),
        Err(Error::StaleTexture(_))
    ));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn sheets_sharing_an_image_and_a_bundle_of_a_sheet_and_its_image() {
    let mut r = common::renderer();
    let mut assets = Assets::new();
    let dir = dir_with_sheet_image("shared");
    let json = std::fs::read(asset("critters.json")).unwrap();
    std::fs::write(dir.join("a.json"), &json).unwrap();
    std::fs::write(dir.join("b.json"), &json).unwrap();
    // The sheet and its own image in one bundle: one texture, cached once, shared.
    let bundle = assets.load_bundle(
        [
            dir.join("a.json"),
            dir.join("critters.png"),
            dir.join("b.json"),
        ],
        Sampling::NEAREST,
    );
    load_all(&mut assets, &mut r, bundle);
    assert!(
        assets.errors(bundle).unwrap().is_empty(),
        "{:?}",
        assets.errors(bundle).unwrap()
    );
    let image = assets.get(dir.join("critters.png")).unwrap();
    let a = assets.spritesheet(dir.join("a.json")).unwrap().texture();
    let b = assets.spritesheet(dir.join("b.json")).unwrap().texture();
    assert_eq!((a, b), (image, image));
    assert_eq!(assets.len(), 1, "one texture cached");
    // Unloading one sheet keeps the image the other shows (and that was loaded by its path).
    assert!(assets.unload(&mut r, dir.join("a.json")).unwrap());
    assert_eq!(assets.get(dir.join("critters.png")), Some(image));
    assert!(assets.unload(&mut r, dir.join("b.json")).unwrap());
    assert_eq!(
        assets.get(dir.join("critters.png")),
        Some(image),
        "loaded by its path"
    );
    // Unloading the image forgets sheets still showing it; a sheet alone takes its image with it.
    let c = assets
        .load_spritesheet(&mut r, dir.join("a.json"), Sampling::NEAREST)
        .unwrap()
        .texture();
    assert_eq!(c, image);
    assert!(assets.unload(&mut r, dir.join("critters.png")).unwrap());
    assert!(assets.spritesheet(dir.join("a.json")).is_none());
    let d = assets
        .load_spritesheet(&mut r, dir.join("b.json"), Sampling::NEAREST)
        .unwrap()
        .texture();
    assert_ne!(d, image);
    assert!(assets.unload(&mut r, dir.join("b.json")).unwrap());
    assert!(assets.is_empty());
    assert!(matches!(r.destroy_texture(d), Err(Error::StaleTexture(_))));
    // A sheet file past the size limit is refused without reading it all.
    let big = dir.join("big.json");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(64 << 20).unwrap();
    let e = assets
        .load_spritesheet(&mut r, &big, Sampling::NEAREST)
        .unwrap_err();
    assert!(
        matches!(&e, Error::Spritesheet { field, .. } if field == "(document)"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn missing_sheet_names_suggest_the_closest_and_a_sheets_json_is_not_an_image() {
    let mut r = common::renderer();
    let mut assets = Assets::new();
    // Assets::load of the JSON says what to call instead (it used to fail as an undecodable image).
    let e = assets
        .load(&mut r, asset("critters.json"), Sampling::LINEAR)
        .unwrap_err();
    assert!(matches!(e, Error::AssetLoad { .. }), "{e}");
    assert!(e.to_string().contains("load_spritesheet"), "{e}");
    let sheet = assets
        .load_spritesheet(&mut r, asset("critters.json"), Sampling::LINEAR)
        .unwrap()
        .clone();
    // A typo in a frame name: the error names the sheet, the name and the closest frames.
    let e = sheet.try_frame("blob_wlak_1.png").unwrap_err();
    let msg = e.to_string();
    assert!(
        matches!(&e, Error::NotInSheet { what: "frame", closest, .. } if closest[0] == "blob_walk_1.png"),
        "{msg}"
    );
    assert!(
        msg.contains("critters.json") && msg.contains("did you mean \"blob_walk_1.png\""),
        "{msg}"
    );
    assert_eq!(
        sheet.try_frame("blob_walk_1.png").unwrap(),
        sheet.frame("blob_walk_1.png").unwrap()
    );
    assert!(sheet.try_sprite("blob_walk_1.png").is_ok());
    // An unknown animation: no "invalid packed frame" prefix, and the closest animation names.
    let mut scene = stage2d::Scene::new();
    let node = scene.add(scene.root(), stage2d::Node::container()).unwrap();
    let e = stage2d::AnimatedSprite::from_sheet(node, &sheet, "bird_flop").unwrap_err();
    let msg = e.to_string();
    assert!(!msg.contains("packed"), "{msg}");
    assert!(msg.contains("no animation named \"bird_flop\""), "{msg}");
    assert!(msg.contains("did you mean \"bird_flap\"?"), "{msg}");
    // Nothing close: no suggestion.
    let e = sheet.try_frame("explosion").unwrap_err();
    assert!(!e.to_string().contains("did you mean"), "{e}");
}

/// WebP images load like PNGs (the `webp` feature, on by default): a lossless 4x4 of four colours, one half
/// transparent, from a file and from bytes.
#[cfg(feature = "webp")]
#[test]
fn webp_images_load_with_their_alpha() {
    let mut r = common::renderer();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/quadrants.webp");
    let from_file = r.load_texture(&path, Sampling::NEAREST).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let from_bytes = r.texture_from_bytes(&bytes, Sampling::NEAREST).unwrap();
    for tex in [from_file, from_bytes] {
        assert_eq!(tex.size(), [4.0, 4.0]);
        let mut s = stage2d::Scene::new();
        s.add(s.root(), stage2d::Node::sprite(tex).sized(8.0, 8.0))
            .unwrap();
        let img = common::render(&mut r, &s, 8, 8, stage2d::Color::BLACK);
        common::probe(&img, 1, 1, [255, 0, 0, 255], 1);
        common::probe(&img, 6, 1, [0, 255, 0, 255], 1);
        common::probe(&img, 1, 6, [0, 0, 255, 255], 1);
        common::probe(&img, 6, 6, [128, 128, 128, 255], 2);
    }
    // A truncated file is a clear error.
    assert!(r
        .texture_from_bytes(&bytes[..bytes.len() / 2], Sampling::NEAREST)
        .is_err());
}

/// A bundle id carries its cache: another cache answers it with an error, not with its own bundle of that number.
#[test]
fn bundle_ids_belong_to_their_cache() {
    let mut r = common::renderer();
    let (mut a, mut b) = (Assets::new(), Assets::new());
    let ia = a.load_bundle([asset("bunny0.png")], Sampling::NEAREST);
    let ib = b.load_bundle([asset("missing-file.png")], Sampling::NEAREST);
    load_all(&mut a, &mut r, ia);
    load_all(&mut b, &mut r, ib);
    assert_eq!(a.errors(ia).unwrap().len(), 0);
    assert_eq!(b.errors(ib).unwrap().len(), 1);
    assert!(matches!(a.errors(ib), Err(Error::ForeignBundle(_))));
    assert!(matches!(a.progress(ib), Err(Error::ForeignBundle(_))));
    assert!(matches!(b.is_done(ia), Err(Error::ForeignBundle(_))));
    assert!(matches!(
        b.bundle_textures(ia),
        Err(Error::ForeignBundle(_))
    ));
}

/// `unload` of a file still loading drops it when it arrives (PixiJS's unload waits, then unloads); `unload` with
/// another renderer is an error that keeps the entry, so the right renderer can still free it.
#[test]
fn unload_while_loading_and_with_the_wrong_renderer() {
    let mut r = common::renderer();
    let mut assets = Assets::new();
    let path = asset("bunny5.png");
    let bundle = assets.load_bundle([&path], Sampling::NEAREST);
    assert!(assets.unload(&mut r, &path).unwrap());
    load_all(&mut assets, &mut r, bundle);
    assert_eq!(assets.get(&path), None, "never cached");
    let errors = assets.errors(bundle).unwrap();
    assert!(
        errors.len() == 1 && errors[0].to_string().contains("unloaded while loading"),
        "{errors:?}"
    );
    // Loaded again afterwards: cached as usual.
    let again = assets.load_bundle([&path], Sampling::NEAREST);
    load_all(&mut assets, &mut r, again);
    let t = assets.get(&path).expect("loaded");
    // The wrong renderer: an error, the entry kept, the texture alive in its renderer.
    let mut other = common::renderer();
    assert!(matches!(
        assets.unload(&mut other, &path),
        Err(Error::ForeignTexture(_))
    ));
    assert_eq!(assets.get(&path), Some(t));
    let sheet = asset("critters.json");
    assets
        .load_spritesheet(&mut r, &sheet, Sampling::NEAREST)
        .unwrap();
    assert!(matches!(
        assets.unload(&mut other, &sheet),
        Err(Error::ForeignTexture(_))
    ));
    assert!(assets.spritesheet(&sheet).is_some());
    // The right one frees both.
    assert!(assets.unload(&mut r, &path).unwrap());
    assert!(assets.unload(&mut r, &sheet).unwrap());
    assert_eq!(assets.get(&path), None);
    assert!(r.destroy_texture(t).is_err(), "destroyed by the unload");
}

/// Reads are bounded while they are read: a device file that reports size 0 and never ends is refused at the
/// format's limit, alone or in a bundle, within a second or two; a read that blocks (a pipe with no writer) holds
/// only its own asset: frames render meanwhile, and other files of the same bundle load.
#[cfg(unix)]
#[test]
fn endless_and_blocking_reads_hold_only_their_asset() {
    let mut r = common::renderer();
    let mut assets = Assets::new();
    let t0 = Instant::now();
    let e = assets
        .load_spritesheet(&mut r, "/dev/zero", Sampling::NEAREST)
        .expect_err("refused");
    assert!(e.to_string().contains("longer than"), "{e}");
    assert!(t0.elapsed() < Duration::from_secs(5));
    let e = r
        .load_texture("/dev/zero", Sampling::NEAREST)
        .expect_err("refused");
    assert!(matches!(e, Error::ImageFile { .. }), "{e}");
    // A pipe nobody writes: its read blocks (opening it blocks until a writer comes).
    let dir = std::env::temp_dir().join(format!("stage2d-fifo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("slow.png");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("no mkfifo: the blocking half is skipped");
        return;
    }
    let json_zero = dir.join("zero.json");
    std::os::unix::fs::symlink("/dev/zero", &json_zero).unwrap();
    let bundle = assets.load_bundle(
        [fifo.clone(), asset("bunny1.png"), json_zero.clone()],
        Sampling::NEAREST,
    );
    let mut scene = stage2d::Scene::new();
    let white = r.white_texture();
    scene
        .add(scene.root(), stage2d::Node::sprite(white).sized(8.0, 8.0))
        .unwrap();
    let target = r.create_render_target(16, 16).unwrap();
    let t0 = Instant::now();
    // Frames go on while the pipe's read blocks; the bunny loads, the endless JSON fails.
    while assets.get(asset("bunny1.png")).is_none() || assets.errors(bundle).unwrap().is_empty() {
        assets.poll(&mut r);
        r.render(&scene, &target, Some(stage2d::Color::BLACK))
            .unwrap();
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "a blocked read held the others"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    assert!((assets.progress(bundle).unwrap() - 2.0 / 3.0).abs() < 1e-6);
    // Unloaded while blocked: it never arrives in the cache; a writer that comes and goes ends the read.
    assert!(assets.unload(&mut r, &fifo).unwrap());
    drop(std::fs::OpenOptions::new().write(true).open(&fifo).unwrap());
    load_all(&mut assets, &mut r, bundle);
    assert_eq!(assets.get(&fifo), None);
    assert_eq!(assets.errors(bundle).unwrap().len(), 2);
    let _ = std::fs::remove_dir_all(&dir);
}

/// An image larger than a poll's upload budget is uploaded a band of rows a poll, cached only once whole, and
/// draws as the same file loaded at once; unloaded halfway, it is dropped and its texture freed.
#[test]
fn large_images_upload_over_several_polls() {
    let mut r = common::renderer_with_msaa(false);
    let dir = std::env::temp_dir().join(format!("stage2d-large-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("large.png");
    let (w, h) = (1600u32, 1600u32); // 10.2 MB of pixels: two polls at 8 MiB a poll
    stage2d::image::RgbaImage::from_fn(w, h, |x, y| {
        stage2d::image::Rgba([(x % 251) as u8, (y % 241) as u8, ((x + y) % 239) as u8, 255])
    })
    .save(&path)
    .unwrap();
    let mut assets = Assets::new();
    let bundle = assets.load_bundle([&path], Sampling::NEAREST);
    let t0 = Instant::now();
    let mut polls_with_upload = 0;
    while !assets.is_done(bundle).unwrap() {
        let before = r.stats().total.bytes_uploaded;
        assets.poll(&mut r);
        if r.stats().total.bytes_uploaded > before {
            polls_with_upload += 1;
            if !assets.is_done(bundle).unwrap() {
                assert_eq!(assets.get(&path), None, "cached only once whole");
            }
        }
        assert!(t0.elapsed() < Duration::from_secs(30));
        std::thread::sleep(Duration::from_millis(2));
    }
    assert!(
        polls_with_upload >= 2,
        "{polls_with_upload} polls uploaded it"
    );
    assert!(assets.errors(bundle).unwrap().is_empty());
    let banded = assets.get(&path).unwrap();
    let whole = r.load_texture(&path, Sampling::NEAREST).unwrap();
    let draw = |r: &mut stage2d::Renderer, t: stage2d::Texture| {
        let mut s = stage2d::Scene::new();
        s.add(s.root(), stage2d::Node::sprite(t).at(-700.0, -700.0))
            .unwrap();
        common::render(r, &s, 256, 256, stage2d::Color::BLACK)
    };
    let (a, b) = (draw(&mut r, banded), draw(&mut r, whole));
    assert_eq!(
        a.as_raw(),
        b.as_raw(),
        "the banded upload draws as the whole one"
    );
    // Unloaded after its first band: dropped, the bundle says so, its texture freed.
    assert!(assets.unload(&mut r, &path).unwrap());
    let bundle = assets.load_bundle([&path], Sampling::NEAREST);
    while assets.get(&path).is_none() && !assets.is_done(bundle).unwrap() {
        let before = r.stats().total.bytes_uploaded;
        assets.poll(&mut r);
        if r.stats().total.bytes_uploaded > before {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let live = r.stats().live.textures;
    assert!(assets.unload(&mut r, &path).unwrap());
    assert!(assets.is_done(bundle).unwrap());
    assert!(assets.errors(bundle).unwrap()[0]
        .to_string()
        .contains("unloaded while loading"));
    assets.poll(&mut r);
    common::render(&mut r, &stage2d::Scene::new(), 4, 4, stage2d::Color::BLACK);
    assert!(r.stats().live.textures < live, "its texture freed");
    let _ = std::fs::remove_dir_all(&dir);
}
