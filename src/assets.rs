//! An asset cache in PixiJS's `Assets` style: textures loaded once per path (or name, for bytes), unloaded on
//! request, and bundles decoded in the background.
//!
//! Decoding (the slow part: PNG inflate, JPEG) runs on rayon's worker threads; the GPU upload stays on the thread
//! that owns the [`Renderer`], in [`Assets::poll`], which the app calls once a frame (a bounded number of uploads
//! each time, so a large bundle does not stall a frame). A bundle's progress goes from 0 to 1 as its files are
//! uploaded or fail; a file that fails is an [`Error::ImageFile`] naming it, and the others still load.
//!
//! Spritesheets load the same way: a `.json` path (TexturePacker's format) in a bundle, or
//! [`Assets::load_spritesheet`], reads the JSON and decodes the image it names on a worker; the upload makes a
//! [`Spritesheet`] available through [`Assets::spritesheet`]. Its image is cached under its own path too.

use crate::{Error, Renderer, Result, Sampling, Spritesheet, Texture};
use rustc_hash::FxHashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, Sender};

/// Names a bundle started with [`Assets::load_bundle`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BundleId(u64);

/// What a worker made of a file.
#[derive(Debug)]
enum Work {
    /// An image, decoded.
    Image(image::RgbaImage),
    /// A spritesheet: its parsed JSON, and its image's cache key with the image decoded (or `None` if that
    /// image is cached already).
    Sheet {
        data: crate::sheet_json::SheetData,
        image_key: PathBuf,
        image: Option<image::RgbaImage>,
    },
}

/// A decoded file on its way from a worker to the GPU: its cache key and the work or what failed.
type Decoded = (PathBuf, std::result::Result<Work, Error>);

/// Uploads an image the worker premultiplied.
fn upload(renderer: &mut Renderer, img: &image::RgbaImage, sampling: Sampling) -> Result<Texture> {
    renderer.texture_from_premultiplied(img.width(), img.height(), img.as_raw(), sampling)
}

/// Whether a path names a spritesheet's JSON.
fn is_sheet(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

/// A worker's job: decode an image, or read a sheet and decode its image unless `cached` says it is loaded.
fn decode(given: &Path, cached: impl Fn(&Path) -> bool) -> std::result::Result<Work, Error> {
    // Premultiplied here, off the renderer's thread, and in place (no second copy of a large image).
    let image = |p: &Path| {
        image::open(p)
            .map(|i| {
                let mut rgba = i.to_rgba8();
                crate::readback::premultiply(&mut rgba);
                rgba
            })
            .map_err(|source| Error::ImageFile {
                path: p.to_owned(),
                source,
            })
    };
    if !is_sheet(given) {
        return image(given).map(Work::Image);
    }
    let data = Spritesheet::read(given)?;
    let image_path = Spritesheet::image_path_of(given, &data)?;
    let image_key = key(&image_path);
    let img = match cached(&image_key) {
        true => None,
        false => Some(image(&image_path)?),
    };
    Ok(Work::Sheet {
        data,
        image_key,
        image: img,
    })
}

#[derive(Debug)]
struct Bundle {
    /// Files of the bundle (cache keys).
    files: Vec<PathBuf>,
    sampling: Sampling,
    /// Files uploaded or failed.
    done: usize,
    errors: Vec<Error>,
}

/// Textures by path, loaded once, and bundles loading in the background. Hold one per [`Renderer`].
#[derive(Debug)]
pub struct Assets {
    textures: FxHashMap<PathBuf, Texture>,
    /// Spritesheets by the path of their JSON.
    sheets: FxHashMap<PathBuf, Spritesheet>,
    /// Images loaded by their own path (not only as a sheet's image): unloading a sheet keeps them.
    explicit: rustc_hash::FxHashSet<PathBuf>,
    /// Files being decoded, and the bundles waiting for each.
    in_flight: FxHashMap<PathBuf, Vec<BundleId>>,
    bundles: FxHashMap<u64, Bundle>,
    next_bundle: u64,
    send: Sender<Decoded>,
    receive: Receiver<Decoded>,
    /// Decoded files waiting for an upload.
    ready: Vec<Decoded>,
}

impl Default for Assets {
    fn default() -> Self {
        let (send, receive) = channel();
        Assets {
            textures: FxHashMap::default(),
            sheets: FxHashMap::default(),
            explicit: Default::default(),
            in_flight: FxHashMap::default(),
            bundles: FxHashMap::default(),
            next_bundle: 1,
            send,
            receive,
            ready: Vec::new(),
        }
    }
}

/// The cache key of a path: canonical where the file exists (so `./a.png` and `a.png` are one asset).
fn key(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
}

impl Assets {
    /// Uploads at most this many decoded files per [`Assets::poll`].
    pub const UPLOADS_PER_POLL: usize = 8;

    /// An empty cache.
    pub fn new() -> Assets {
        Assets::default()
    }

    /// The texture of the image file at `path`, loaded now if it is not cached: the same path gives the same
    /// texture until [`Assets::unload`]. A missing or corrupt file is [`Error::ImageFile`] naming it.
    pub fn load(
        &mut self,
        renderer: &mut Renderer,
        path: impl AsRef<Path>,
        sampling: Sampling,
    ) -> Result<Texture> {
        let k = key(path.as_ref());
        if let Some(t) = self.textures.get(&k) {
            self.explicit.insert(k);
            return Ok(*t);
        }
        let t = renderer.load_texture(path.as_ref(), sampling)?;
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
        let t = renderer.texture_from_image(&img.to_rgba8(), sampling)?;
        self.textures.insert(k, t);
        Ok(t)
    }

    /// The cached texture of `path` (or a name given to [`Assets::load_bytes`]), if loaded.
    pub fn get(&self, path: impl AsRef<Path>) -> Option<Texture> {
        self.textures.get(&key(path.as_ref())).copied()
    }

    /// Number of textures cached.
    pub fn len(&self) -> usize {
        self.textures.len()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.textures.is_empty()
    }

    /// Forgets `path` and destroys its texture (sprites still showing it are skipped; its memory is freed once
    /// the GPU is done with it). `false` if it was not loaded.
    ///
    /// Unloading a spritesheet's JSON forgets the sheet and unloads its image.
    pub fn unload(&mut self, renderer: &mut Renderer, path: impl AsRef<Path>) -> Result<bool> {
        let k = key(path.as_ref());
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

    /// Starts loading `paths` in the background: decoded on worker threads, uploaded by [`Assets::poll`].
    /// Files already cached count as loaded; a file already being decoded is not decoded twice.
    pub fn load_bundle<P: AsRef<Path>>(
        &mut self,
        paths: impl IntoIterator<Item = P>,
        sampling: Sampling,
    ) -> BundleId {
        let id = BundleId(self.next_bundle);
        self.next_bundle += 1;
        let mut bundle = Bundle {
            files: Vec::new(),
            sampling,
            done: 0,
            errors: Vec::new(),
        };
        for p in paths {
            let (given, k) = (p.as_ref().to_owned(), key(p.as_ref()));
            if bundle.files.contains(&k) {
                continue;
            }
            bundle.files.push(k.clone());
            if self.textures.contains_key(&k) || self.sheets.contains_key(&k) {
                if !is_sheet(&k) {
                    self.explicit.insert(k.clone());
                }
                bundle.done += 1;
                continue;
            }
            let waiting = self.in_flight.entry(k.clone()).or_default();
            waiting.push(id);
            if waiting.len() == 1 {
                let send = self.send.clone();
                let cached: Vec<PathBuf> = match is_sheet(&k) {
                    true => self.textures.keys().cloned().collect(),
                    false => Vec::new(),
                };
                rayon::spawn(move || {
                    let decoded = decode(&given, |p| cached.iter().any(|c| c == p));
                    // The cache may be gone; then nobody waits for the result.
                    let _ = send.send((k, decoded));
                });
            }
        }
        self.bundles.insert(id.0, bundle);
        id
    }

    /// Uploads decoded files of the bundles in flight (at most [`Assets::UPLOADS_PER_POLL`]); call it once a
    /// frame on the renderer's thread. Returns how many files were finished (uploaded or failed).
    pub fn poll(&mut self, renderer: &mut Renderer) -> usize {
        self.ready.extend(self.receive.try_iter());
        let n = self.ready.len().min(Self::UPLOADS_PER_POLL);
        let batch: Vec<Decoded> = self.ready.drain(..n).collect();
        for (k, decoded) in batch {
            let waiting = self.in_flight.remove(&k).unwrap_or_default();
            let sampling = waiting
                .first()
                .and_then(|b| self.bundles.get(&b.0))
                .map_or(Sampling::LINEAR, |b| b.sampling);
            let error = match decoded.and_then(|w| self.finish(renderer, &k, w, sampling)) {
                Ok(()) => None,
                Err(e) => {
                    log::warn!("{e}");
                    Some(e.to_string())
                }
            };
            for b in waiting {
                if let Some(bundle) = self.bundles.get_mut(&b.0) {
                    bundle.done += 1;
                    if let Some(msg) = &error {
                        bundle.errors.push(Error::AssetLoad {
                            path: k.clone(),
                            reason: msg.clone(),
                        });
                    }
                }
            }
        }
        n
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
                    let t = upload(renderer, &img, sampling)?;
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
                    (None, Some(img)) => (upload(renderer, &img, sampling)?, true),
                    // Unloaded while the worker read the JSON: decode it here.
                    (None, None) => (renderer.load_texture(&image_key, sampling)?, true),
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
            let work = decode(path.as_ref(), |p| textures.contains_key(p))?;
            self.finish(renderer, &k, work, sampling)?;
        }
        Ok(&self.sheets[&k])
    }

    /// The cached spritesheet of the JSON at `path`, if loaded (by [`Assets::load_spritesheet`] or a bundle).
    pub fn spritesheet(&self, path: impl AsRef<Path>) -> Option<&Spritesheet> {
        self.sheets.get(&key(path.as_ref()))
    }

    /// How far a bundle is, from 0 to 1 (1 for an unknown or empty bundle): its files uploaded or failed, over
    /// its files.
    pub fn progress(&self, bundle: BundleId) -> f32 {
        match self.bundles.get(&bundle.0) {
            Some(b) if !b.files.is_empty() => b.done as f32 / b.files.len() as f32,
            _ => 1.0,
        }
    }

    /// Whether every file of the bundle was uploaded or failed.
    pub fn is_done(&self, bundle: BundleId) -> bool {
        self.bundles
            .get(&bundle.0)
            .is_none_or(|b| b.done >= b.files.len())
    }

    /// The bundle's failures so far, each naming its file.
    pub fn errors(&self, bundle: BundleId) -> &[Error] {
        self.bundles.get(&bundle.0).map_or(&[], |b| &b.errors)
    }

    /// The textures of the bundle's files that loaded, in the order given.
    pub fn bundle_textures(&self, bundle: BundleId) -> Vec<(PathBuf, Texture)> {
        self.bundles.get(&bundle.0).map_or(Vec::new(), |b| {
            b.files
                .iter()
                .filter_map(|k| Some((k.clone(), *self.textures.get(k)?)))
                .collect()
        })
    }
}
