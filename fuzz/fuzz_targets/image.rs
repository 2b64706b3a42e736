//! Image bytes (PNG, JPEG, WebP: the formats of the default features) through the decode an asset loader's
//! worker runs on a file (`stage2d::internals::decode_image`: the format sniffed from the bytes, converted to
//! RGBA8 and premultiplied), which is also what `Renderer::texture_from_bytes` decodes with before its upload.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(rgba) = stage2d::internals::decode_image(data) {
        assert_eq!(
            rgba.as_raw().len(),
            rgba.width() as usize * rgba.height() as usize * 4
        );
        // Premultiplied: no channel above alpha.
        assert!(rgba
            .pixels()
            .all(|p| p[0] <= p[3] && p[1] <= p[3] && p[2] <= p[3]));
    }
});
