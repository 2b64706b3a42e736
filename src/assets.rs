//! An asset cache in PixiJS's `Assets` style: textures loaded once per path (or name, for bytes), unloaded on
//! request, and bundles decoded in the background.
//!
//! Decoding (the slow part: PNG inflate, JPEG) runs on rayon's worker threads; the GPU upload stays on the thread
//! that owns the [`Renderer`], in [`Assets::poll`], which the app calls once a frame (a bounded number of uploads
//! each time, so a large bundle does not stall a frame). A bundle's progress goes from 0 to 1 as its files are
//! uploaded or fail; a file that fails is an [`Error::ImageFile`] naming it, and the others still load.

use crate::{Error, Renderer, Result, Sampling, Texture};
use rustc_hash::FxHashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, Sender};

/// Names a bundle started with [`Assets::load_bundle`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BundleId(u64);

/// A decoded file on its way from a worker to the GPU.
type Decoded = (
    PathBuf,
    std::result::Result<image::RgbaImage, image::ImageError>,
);

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
            return Ok(*t);
        }
        let t = renderer.load_texture(path.as_ref(), sampling)?;
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
    pub fn unload(&mut self, renderer: &mut Renderer, path: impl AsRef<Path>) -> Result<bool> {
        match self.textures.remove(&key(path.as_ref())) {
            Some(t) => renderer.destroy_texture(t).map(|_| true),
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
            if self.textures.contains_key(&k) {
                bundle.done += 1;
                continue;
            }
            let waiting = self.in_flight.entry(k.clone()).or_default();
            waiting.push(id);
            if waiting.len() == 1 {
                let send = self.send.clone();
                rayon::spawn(move || {
                    let decoded = image::open(&given).map(|i| i.to_rgba8());
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
            let result = decoded
                .map_err(|source| Error::ImageFile {
                    path: k.clone(),
                    source,
                })
                .and_then(|img| renderer.texture_from_image(&img, sampling));
            let error = match result {
                Ok(t) => {
                    self.textures.insert(k.clone(), t);
                    None
                }
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
