//! The assets' GPU side: the [`Assets`] methods that upload decoded images into the renderer's textures (at once,
//! or a bounded number a frame in [`Assets::poll`]) and destroy them on unload. The cache itself (paths, bundles,
//! decoding workers) is CPU-only, in `assets/`.

use super::Renderer;
use crate::assets::{decode, is_sheet, key, Work};
use crate::{Assets, Error, Result, Sampling, Spritesheet, Texture};
use std::path::{Path, PathBuf};

/// Uploads an image the worker premultiplied.
fn upload(renderer: &mut Renderer, img: &image::RgbaImage, sampling: Sampling) -> Result<Texture> {
    renderer.texture_from_premultiplied(img.width(), img.height(), img.as_raw(), sampling)
}

/// An `.svg` file drawn into a texture at its own size times `resolution` ([`Renderer::texture_from_svg`]); larger than
/// [`MAX_SVG_BYTES`](crate::MAX_SVG_BYTES) or unreadable is [`Error::AssetLoad`].
#[cfg(feature = "svg")]
fn load_svg(
    renderer: &mut Renderer,
    path: &Path,
    resolution: f32,
    sampling: Sampling,
) -> Result<Texture> {
    use std::io::Read;
    let fail = |reason: String| Error::AssetLoad {
        path: path.to_owned(),
        reason,
    };
    let file = std::fs::File::open(path).map_err(|e| fail(e.to_string()))?;
    let mut text = String::new();
    let limit = crate::MAX_SVG_BYTES as u64;
    file.take(limit + 1)
        .read_to_string(&mut text)
        .map_err(|e| fail(e.to_string()))?;
    if text.len() as u64 > limit {
        return Err(fail(format!("larger than MAX_SVG_BYTES ({limit} bytes)")));
    }
    renderer.texture_from_svg(&text, resolution, sampling)
}

/// The resolution a file name states as PixiJS's do: `hero@2x.png` is 2, `icon@0.5x.webp` 0.5 (the last `@…x`
/// before the extension); `None` without one.
pub(crate) fn resolution_in_name(path: &Path) -> Option<f32> {
    let stem = path.file_stem()?.to_str()?;
    let (_, tail) = stem.rsplit_once('@')?;
    let number = tail.strip_suffix('x').or_else(|| tail.strip_suffix('X'))?;
    match number.parse::<f32>() {
        Ok(r) if r.is_finite() && r > 0.0 => Some(r),
        _ => None,
    }
}

/// `texture` at the resolution its file name states, if any.
fn named(texture: Texture, path: &Path) -> Texture {
    match resolution_in_name(path) {
        Some(r) => texture.with_resolution(r),
        None => texture,
    }
}

impl Assets {
    /// The texture of the image file at `path`, loaded now if it is not cached: the same path gives the same
    /// texture until [`Assets::unload`]. A missing or corrupt file is [`Error::ImageFile`] naming it; a
    /// spritesheet's `.json` is [`Error::AssetLoad`] saying to load it with [`Assets::load_spritesheet`].
    pub fn load(
        &mut self,
        renderer: &mut Renderer,
        path: impl AsRef<Path>,
        sampling: Sampling,
    ) -> Result<Texture> {
        if is_sheet(path.as_ref()) {
            return Err(Error::AssetLoad {
                path: path.as_ref().to_owned(),
                reason: "a spritesheet's JSON, not an image: load it with Assets::load_spritesheet, then take \
                         its frames (Spritesheet::frame) or its whole texture (Spritesheet::texture)"
                    .into(),
            });
        }
        let k = key(path.as_ref());
        if let Some(t) = self.textures.get(&k) {
            self.explicit.insert(k);
            return Ok(*t);
        }
        let t = match path.as_ref().extension().and_then(|e| e.to_str()) {
            #[cfg(feature = "svg")]
            Some(e) if e.eq_ignore_ascii_case("svg") => {
                let resolution = resolution_in_name(path.as_ref()).unwrap_or(1.0);
                load_svg(renderer, path.as_ref(), resolution, sampling)?
            }
            _ => renderer.load_texture(path.as_ref(), sampling)?,
        };
        let t = named(t, path.as_ref());
        self.explicit.insert(k.clone());
        self.textures.insert(k, t);
        Ok(t)
    }

    /// The texture of encoded image bytes cached under `name` (the same name gives the same texture until
    /// unloaded; the bytes of a cached name are not decoded again). Corrupt bytes are [`Error::ImageFile`]
    /// naming it.
    pub fn load_bytes(
        &mut self,
        renderer: &mut Renderer,
        name: &str,
        bytes: &[u8],
        sampling: Sampling,
    ) -> Result<Texture> {
        let k = PathBuf::from(name);
        self.explicit.insert(k.clone());
        if let Some(t) = self.textures.get(&k) {
            return Ok(*t);
        }
        let img = image::load_from_memory(bytes).map_err(|source| Error::ImageFile {
            path: k.clone(),
            source,
        })?;
        let t = named(renderer.texture_from_image(&img.to_rgba8(), sampling)?, &k);
        self.textures.insert(k, t);
        Ok(t)
    }

    /// The bitmap font of the AngelCode BMFont description at `path` (PixiJS's `Assets.load('font.fnt')`), loaded
    /// now if it is not cached: its page images go through this cache (a page another font or a sprite loaded is
    /// shared), and the same path gives the same font until [`Assets::unload`]. See
    /// [`Renderer::load_bitmap_font`] for what it reads and refuses; nothing of a failed load stays cached.
    #[cfg(feature = "text")]
    pub fn load_bitmap_font(
        &mut self,
        renderer: &mut Renderer,
        path: impl AsRef<Path>,
    ) -> Result<crate::Font> {
        let k = key(path.as_ref());
        if let Some((font, _)) = self.fonts.get(&k) {
            return Ok(font.clone());
        }
        let (data, dir) = crate::text::bitmap::read_fnt(path.as_ref())?;
        let mut pages = Vec::with_capacity(data.pages.len());
        let mut paths = Vec::with_capacity(data.pages.len());
        let mut fresh = Vec::new();
        for name in &data.pages {
            let p = key(&dir.join(name));
            let t = match self.textures.get(&p) {
                Some(&t) => t,
                None => match renderer.load_texture(&p, Sampling::LINEAR) {
                    Ok(t) => {
                        self.textures.insert(p.clone(), t);
                        fresh.push(p.clone());
                        t
                    }
                    Err(e) => {
                        self.drop_pages(renderer, &fresh);
                        return Err(e);
                    }
                },
            };
            pages.push(t);
            paths.push(p);
        }
        match crate::Font::from_fnt_data(data, pages) {
            Ok(font) => {
                self.fonts.insert(k, (font.clone(), paths));
                Ok(font)
            }
            Err(e) => {
                self.drop_pages(renderer, &fresh);
                Err(e)
            }
        }
    }

    /// Forgets and destroys the page textures at `paths` that nothing else holds: not loaded by their own path,
    /// not a page of a cached font.
    #[cfg(feature = "text")]
    fn drop_pages(&mut self, renderer: &mut Renderer, paths: &[PathBuf]) {
        for p in paths {
            let used = self.explicit.contains(p)
                || self.fonts.values().any(|(_, pages)| pages.contains(p))
                || self
                    .sheets
                    .values()
                    .any(|s| Some(&s.texture()) == self.textures.get(p));
            if !used {
                if let Some(t) = self.textures.remove(p) {
                    let _ = renderer.destroy_texture(t);
                }
            }
        }
    }

    /// Forgets `path` and destroys its texture (sprites still showing it are skipped; its memory is freed once
    /// the GPU is done with it). `false` if it was not loaded.
    ///
    /// Unloading a spritesheet's JSON forgets the sheet and unloads its image; unloading a bitmap font's `.fnt`
    /// forgets the font and unloads its pages that nothing else holds.
    ///
    /// A file still loading in a bundle is unloaded as PixiJS's `unload` does after waiting for it: what arrives
    /// is dropped, never cached (`true`; the bundle counts it as failed, "unloaded while loading"). A `renderer`
    /// other than the one the texture was loaded with is [`Error::ForeignTexture`], and the cache keeps the entry.
    pub fn unload(&mut self, renderer: &mut Renderer, path: impl AsRef<Path>) -> Result<bool> {
        let k = key(path.as_ref());
        if self.partial.as_ref().is_some_and(|p| p.key == k) {
            let p = self.partial.take().expect("looked at");
            renderer.destroy_texture(p.texture)?;
            let why = Error::AssetLoad {
                path: k.clone(),
                reason: "unloaded while loading".into(),
            };
            self.settle(&k, p.waiting, Err(why));
            return Ok(true);
        }
        if self.in_flight.contains_key(&k) && !self.textures.contains_key(&k) {
            if let Some(c) = self.cancels.get(&k) {
                c.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            return Ok(true);
        }
        #[cfg(feature = "text")]
        if let Some((_, pages)) = self.fonts.remove(&k) {
            self.drop_pages(renderer, &pages);
            return Ok(true);
        }
        // Another renderer's texture: an error, and the cache keeps the entry (the right renderer can free it).
        let foreign = |t: Texture| match renderer.textures.check(t.id()) {
            Err(e @ Error::ForeignTexture(_)) => Err(e),
            _ => Ok(()),
        };
        if let Some(sheet) = self.sheets.get(&k) {
            foreign(sheet.texture())?;
        }
        if let Some(&t) = self.textures.get(&k) {
            foreign(t)?;
        }
        if let Some(sheet) = self.sheets.remove(&k) {
            // Its image goes too, unless another sheet shows it or it was loaded by its own path.
            let id = sheet.texture().id();
            let shared = self.sheets.values().any(|s| s.texture().id() == id);
            let image = self
                .textures
                .iter()
                .find(|(_, &t)| t.id() == id)
                .map(|(p, _)| p.clone());
            match image {
                Some(p) if !shared && !self.explicit.contains(&p) => {
                    self.textures.remove(&p);
                    renderer.destroy_texture(sheet.texture())?;
                }
                _ => {}
            }
            return Ok(true);
        }
        self.explicit.remove(&k);
        match self.textures.remove(&k) {
            Some(t) => {
                // Sheets showing it lose their frames' texture: forget them too.
                self.sheets.retain(|_, s| s.texture().id() != t.id());
                renderer.destroy_texture(t).map(|_| true)
            }
            None => Ok(false),
        }
    }

    /// Uploads decoded files of the bundles in flight (at most [`Assets::UPLOADS_PER_POLL`] files and
    /// [`Assets::UPLOAD_BYTES_PER_POLL`] bytes of pixels); call it once a frame on the renderer's thread. An image
    /// larger than that is uploaded a band of rows a call, over as many frames as it takes, and cached once whole.
    /// Returns how many files were finished (uploaded or failed). While the renderer's device is lost nothing is
    /// uploaded: decoded files wait for [`Renderer::recover`].
    pub fn poll(&mut self, renderer: &mut Renderer) -> usize {
        self.ready.extend(self.receive.try_iter());
        if renderer.is_device_lost() {
            return 0;
        }
        let mut budget = Self::UPLOAD_BYTES_PER_POLL;
        let mut finished = 0;
        // A large image in the middle of its upload goes on first, and alone.
        if self.partial.is_some() {
            finished += self.continue_partial(renderer, &mut budget);
            if self.partial.is_some() {
                return finished;
            }
        }
        let mut uploads = 0;
        while uploads < Self::UPLOADS_PER_POLL && !self.ready.is_empty() {
            let bytes = self.ready[0].1.as_ref().map_or(0, |w| w.upload_bytes());
            if bytes > budget && budget < Self::UPLOAD_BYTES_PER_POLL {
                break;
            }
            let (k, decoded) = self.ready.remove(0);
            uploads += 1;
            let waiting = self.in_flight.remove(&k).unwrap_or_default();
            let cancelled = self
                .cancels
                .remove(&k)
                .is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed));
            let sampling = waiting
                .first()
                .and_then(|b| self.bundles.get(&b.index))
                .map_or(Sampling::LINEAR, |b| b.sampling);
            // Unloaded while it loaded: dropped, never cached.
            let decoded = match cancelled {
                true => Err(Error::AssetLoad {
                    path: k.clone(),
                    reason: "unloaded while loading".into(),
                }),
                false => decoded,
            };
            // An image larger than a call's budget: begun here, finished over the next calls.
            let decoded = match decoded {
                Ok(Work::Image(img)) if bytes > budget && !self.textures.contains_key(&k) => {
                    match renderer.begin_texture(img.width(), img.height(), sampling) {
                        Ok(texture) => {
                            self.partial = Some(crate::assets::Partial {
                                key: k,
                                texture,
                                image: img,
                                next_row: 0,
                                sampling,
                                waiting,
                            });
                            finished += self.continue_partial(renderer, &mut budget);
                            break;
                        }
                        Err(e) => Err(e),
                    }
                }
                other => other,
            };
            budget = budget.saturating_sub(bytes);
            let result = decoded.and_then(|w| self.finish(renderer, &k, w, sampling));
            self.settle(&k, waiting, result);
            finished += 1;
        }
        finished
    }

    /// Uploads the next band of the large image in progress (as many rows as `budget` allows, at least one);
    /// caches it once whole. Returns 1 if it finished (or failed), else 0.
    fn continue_partial(&mut self, renderer: &mut Renderer, budget: &mut usize) -> usize {
        let Some(p) = &mut self.partial else {
            return 0;
        };
        let (w, h) = (p.image.width(), p.image.height());
        let row = w as usize * 4;
        let rows = ((*budget / row.max(1)) as u32).clamp(1, h - p.next_row);
        let (a, b) = (
            p.next_row as usize * row,
            (p.next_row + rows) as usize * row,
        );
        let band = &p.image.as_raw()[a..b];
        let written = renderer.write_texture_rows(p.texture, (p.next_row, rows), band, p.sampling);
        *budget = budget.saturating_sub(band.len());
        p.next_row += rows;
        if written.is_ok() && p.next_row < h {
            return 0;
        }
        let p = self.partial.take().expect("in progress");
        let result = written.map(|()| {
            let t = named(p.texture, &p.key);
            self.textures.insert(p.key.clone(), t);
            self.explicit.insert(p.key.clone());
        });
        if result.is_err() {
            let _ = renderer.destroy_texture(p.texture);
        }
        self.settle(&p.key, p.waiting, result);
        1
    }

    /// Counts a finished file in the bundles waiting for it, with its error if it failed.
    fn settle(&mut self, k: &Path, waiting: Vec<crate::BundleId>, result: Result<()>) {
        let error = match result {
            Ok(()) => None,
            Err(e) => {
                log::warn!("{e}");
                Some(e.to_string())
            }
        };
        for b in waiting {
            if let Some(bundle) = self.bundles.get_mut(&b.index) {
                bundle.done += 1;
                if let Some(msg) = &error {
                    bundle.errors.push(Error::AssetLoad {
                        path: k.to_owned(),
                        reason: msg.clone(),
                    });
                }
            }
        }
    }

    /// Uploads what a worker made of the file `k`.
    fn finish(
        &mut self,
        renderer: &mut Renderer,
        k: &Path,
        work: Work,
        sampling: Sampling,
    ) -> Result<()> {
        match work {
            Work::Image(img) => {
                // Loaded meanwhile (as a sheet's image): the cached texture stays, this copy is dropped.
                if !self.textures.contains_key(k) {
                    let t = named(upload(renderer, &img, sampling)?, k);
                    self.textures.insert(k.to_owned(), t);
                }
                self.explicit.insert(k.to_owned());
            }
            Work::Sheet {
                data,
                image_key,
                image,
            } => {
                let (texture, fresh) = match (self.textures.get(&image_key), image) {
                    (Some(&t), _) => (t, false),
                    (None, Some(img)) => {
                        (named(upload(renderer, &img, sampling)?, &image_key), true)
                    }
                    // Unloaded while the worker read the JSON: decode it here.
                    (None, None) => (
                        named(renderer.load_texture(&image_key, sampling)?, &image_key),
                        true,
                    ),
                };
                // Copied on this thread and the worker's copy freed: the sheet lives on, and strings a worker
                // allocated would keep its memory arena, with the freed image in it, resident (a 2048x2048 sheet's
                // peak memory on dev: 82 MiB added with the worker's copy kept, 50 MiB with this copy).
                let local = data.clone();
                drop(data);
                match Spritesheet::from_data(local, texture, k) {
                    Ok(sheet) => {
                        if fresh {
                            self.textures.insert(image_key, texture);
                        }
                        self.sheets.insert(k.to_owned(), sheet);
                    }
                    Err(e) => {
                        // An image uploaded only for this sheet goes with it.
                        if fresh {
                            renderer.destroy_texture(texture)?;
                        }
                        return Err(e);
                    }
                }
            }
        }
        Ok(())
    }

    /// The spritesheet described by the TexturePacker JSON at `path` (hash or array form), with the image it
    /// names (`meta.image`, next to the JSON) loaded through the cache, now if they are not cached. Malformed
    /// JSON or frames outside the image are [`Error::Spritesheet`] naming the field; a missing file is
    /// [`Error::AssetLoad`] or [`Error::ImageFile`] naming it.
    pub fn load_spritesheet(
        &mut self,
        renderer: &mut Renderer,
        path: impl AsRef<Path>,
        sampling: Sampling,
    ) -> Result<&Spritesheet> {
        let k = key(path.as_ref());
        if !self.sheets.contains_key(&k) {
            let textures = &self.textures;
            let work = decode(path.as_ref(), |p| textures.contains_key(p), None)?;
            self.finish(renderer, &k, work, sampling)?;
        }
        Ok(&self.sheets[&k])
    }
}
