//! The assets: an asset cache in PixiJS's `Assets` style (textures loaded once per path, or name for bytes,
//! unloaded on request, bundles decoded in the background), TexturePacker spritesheets (`spritesheet.rs`) and
//! their JSON (`sheet_json.rs`). It owns the cache's maps and the decoding workers, and may use `base/`,
//! `scene/` (a sheet hands out sprites and animations) and `text/` (it caches bitmap fonts); never `frame/`,
//! `gpu/` or `renderer/`. What needs the GPU
//! (the uploads in [`Assets::load`], [`Assets::poll`] and the others that take a [`Renderer`](crate::Renderer),
//! and [`Assets::unload`]'s destroying) is in `renderer/assets.rs`.
//!
//! Reading and decoding run on a thread of their own a file (a read that blocks holds only its file; decodes
//! at once are limited to half the cores, and none runs on the pool the frame's walk uses); the GPU upload stays on the thread
//! that owns the renderer, in [`Assets::poll`], which the app calls once a frame (a bounded number of uploads
//! each time, so a large bundle does not stall a frame). A bundle's progress goes from 0 to 1 as its files are
//! uploaded or fail; a file that fails is an [`Error::ImageFile`] naming it, and the others still load.
//!
//! Spritesheets load the same way: a `.json` path (TexturePacker's format) in a bundle, or
//! [`Assets::load_spritesheet`], reads the JSON and decodes the image it names on a worker; the upload makes a
//! [`Spritesheet`] available through [`Assets::spritesheet`]. Its image is cached under its own path too.

pub(crate) mod sheet_json;
pub(crate) mod spritesheet;

use crate::base::handle::{next_generation, Owner};
use crate::{Error, Sampling, Spritesheet, Texture};
use rustc_hash::FxHashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, Sender};

/// Names a bundle started with [`Assets::load_bundle`], of the cache that started it: another cache answers it
/// with [`Error::ForeignBundle`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BundleId {
    /// A process-wide generation (no two bundles share one until the counter wraps).
    pub(crate) index: u32,
    pub(crate) owner: Owner,
}

impl Work {
    /// Bytes of pixels the upload of this work writes.
    pub(crate) fn upload_bytes(&self) -> usize {
        match self {
            Work::Image(i) => i.as_raw().len(),
            Work::Sheet { image, .. } => image.as_ref().map_or(0, |i| i.as_raw().len()),
        }
    }
}

/// What a worker made of a file.
#[derive(Debug)]
pub(crate) enum Work {
    /// An image, decoded.
    Image(image::RgbaImage),
    /// A spritesheet: its parsed JSON, and its image's cache key with the image decoded (or `None` if that
    /// image is cached already).
    Sheet {
        data: crate::assets::sheet_json::SheetData,
        image_key: PathBuf,
        image: Option<image::RgbaImage>,
    },
}

/// A decoded file on its way from a worker to the GPU: its cache key and the work or what failed.
pub(crate) type Decoded = (PathBuf, std::result::Result<Work, Error>);

/// Whether a path names a spritesheet's JSON.
pub(crate) fn is_sheet(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

/// A worker's job: decode an image, or read a sheet and decode its image unless `cached` says it is loaded.
pub(crate) fn decode(
    given: &Path,
    cached: impl Fn(&Path) -> bool,
    cancel: Option<&std::sync::atomic::AtomicBool>,
) -> std::result::Result<Work, Error> {
    // Premultiplied here, off the renderer's thread, and in place (no second copy of a large image).
    let image = |p: &Path| {
        crate::base::read::open_image(p, cancel)
            .map(|i| {
                let mut rgba = i.to_rgba8();
                crate::base::color::premultiply(&mut rgba);
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

/// A large image uploaded a band of rows a poll (see [`Assets::poll`]).
#[derive(Debug)]
pub(crate) struct Partial {
    pub(crate) key: PathBuf,
    pub(crate) texture: Texture,
    pub(crate) image: image::RgbaImage,
    /// The first row not yet written.
    pub(crate) next_row: u32,
    pub(crate) sampling: Sampling,
    /// The bundles waiting for it.
    pub(crate) waiting: Vec<BundleId>,
}

#[derive(Debug)]
pub(crate) struct Bundle {
    /// Files of the bundle (cache keys).
    pub(crate) files: Vec<PathBuf>,
    pub(crate) sampling: Sampling,
    /// Files uploaded or failed.
    pub(crate) done: usize,
    pub(crate) errors: Vec<Error>,
}

/// Textures by path, loaded once, and bundles loading in the background. Hold one per [`Renderer`](crate::Renderer).
///
/// ```
/// use stage2d::{Assets, Renderer, Sampling};
/// # fn main() -> stage2d::Result<()> {
/// let mut renderer = Renderer::new_headless(Default::default())?;
/// let mut assets = Assets::new();
/// // At once: the same path gives the same texture.
/// let bunny = assets.load(&mut renderer, "assets/bunny0.png", Sampling::NEAREST)?;
/// assert_eq!(assets.load(&mut renderer, "./assets/bunny0.png", Sampling::NEAREST)?, bunny);
/// // In the background: decoded on worker threads, uploaded a few a frame by `poll`.
/// let bundle = assets.load_bundle(["assets/bunny1.png", "assets/critters.json"], Sampling::LINEAR);
/// while !assets.is_done(bundle)? {
///     assets.poll(&mut renderer); // once a frame in an app
/// #   std::thread::sleep(std::time::Duration::from_millis(1));
/// }
/// assert!(assets.errors(bundle)?.is_empty());
/// let sheet = assets.spritesheet("assets/critters.json").unwrap();
/// let frame = sheet.try_frame("blob_walk_0.png")?;
/// # let _ = frame;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Assets {
    pub(crate) textures: FxHashMap<PathBuf, Texture>,
    /// Spritesheets by the path of their JSON.
    pub(crate) sheets: FxHashMap<PathBuf, Spritesheet>,
    /// Bitmap fonts by the path of their `.fnt`, with the paths of their pages.
    #[cfg(feature = "text")]
    pub(crate) fonts: FxHashMap<PathBuf, (crate::Font, Vec<PathBuf>)>,
    /// Images loaded by their own path (not only as a sheet's image): unloading a sheet keeps them.
    pub(crate) explicit: rustc_hash::FxHashSet<PathBuf>,
    /// Files being decoded, and the bundles waiting for each.
    pub(crate) in_flight: FxHashMap<PathBuf, Vec<BundleId>>,
    /// Per file in flight: set by an unload while it loads (its read stops; what arrives is dropped).
    pub(crate) cancels: FxHashMap<PathBuf, std::sync::Arc<std::sync::atomic::AtomicBool>>,
    pub(crate) bundles: FxHashMap<u32, Bundle>,
    /// The tag on this cache's bundle ids.
    pub(crate) owner: Owner,
    pub(crate) send: Sender<Decoded>,
    pub(crate) receive: Receiver<Decoded>,
    /// Decoded files waiting for an upload.
    pub(crate) ready: Vec<Decoded>,
    /// The large image whose upload is spread over polls, if any.
    pub(crate) partial: Option<Partial>,
}

impl Default for Assets {
    fn default() -> Self {
        let (send, receive) = channel();
        Assets {
            textures: FxHashMap::default(),
            sheets: FxHashMap::default(),
            #[cfg(feature = "text")]
            fonts: FxHashMap::default(),
            explicit: Default::default(),
            in_flight: FxHashMap::default(),
            cancels: FxHashMap::default(),
            bundles: FxHashMap::default(),
            owner: Owner::next(),
            send,
            receive,
            ready: Vec::new(),
            partial: None,
        }
    }
}

/// The cache key of a path: canonical where the file exists (so `./a.png` and `a.png` are one asset).
pub(crate) fn key(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
}

impl Assets {
    /// Uploads at most this many decoded files per [`Assets::poll`].
    pub const UPLOADS_PER_POLL: usize = 8;

    /// Bytes of decoded pixels [`Assets::poll`] uploads at most per call (a larger image goes a band of rows a
    /// call), so that a bundle of large images spreads its uploads over frames.
    pub const UPLOAD_BYTES_PER_POLL: usize = 8 << 20;

    /// An empty cache.
    pub fn new() -> Assets {
        Assets::default()
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

    /// Starts loading `paths` in the background: decoded on worker threads, uploaded by [`Assets::poll`].
    /// Files already cached count as loaded; a file already being decoded is not decoded twice.
    pub fn load_bundle<P: AsRef<Path>>(
        &mut self,
        paths: impl IntoIterator<Item = P>,
        sampling: Sampling,
    ) -> BundleId {
        let id = BundleId {
            index: next_generation(),
            owner: self.owner,
        };
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
            // Asked for again after an unload while it loaded: it is wanted after all (a read already stopped
            // arrives as failed).
            if let Some(c) = self.cancels.get(&k) {
                c.store(false, std::sync::atomic::Ordering::Relaxed);
            }
            let waiting = self.in_flight.entry(k.clone()).or_default();
            waiting.push(id);
            if waiting.len() == 1 {
                let send = self.send.clone();
                let cached: Vec<PathBuf> = match is_sheet(&k) {
                    true => self.textures.keys().cloned().collect(),
                    false => Vec::new(),
                };
                let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
                self.cancels.insert(k.clone(), cancel.clone());
                // A thread of its own: a read that blocks (a slow drive, a pipe) holds only this asset, and never
                // a thread of the pool the frame's walk uses; decoding takes a permit (half the cores at most).
                let (k2, send2) = (k.clone(), send.clone());
                let started = std::thread::Builder::new()
                    .name("stage2d-asset".into())
                    .spawn(move || {
                        let decoded =
                            decode(&given, |p| cached.iter().any(|c| c == p), Some(&cancel));
                        // The cache may be gone; then nobody waits for the result.
                        let _ = send2.send((k2, decoded));
                    });
                if let Err(e) = started {
                    let _ = send.send((
                        k.clone(),
                        Err(Error::AssetLoad {
                            path: k.clone(),
                            reason: format!("no thread to load it on: {e}"),
                        }),
                    ));
                }
            }
        }
        self.bundles.insert(id.index, bundle);
        id
    }

    /// The bundle `id` names: [`Error::ForeignBundle`] for another cache's id, [`Error::UnknownBundle`] for one
    /// forgotten.
    fn bundle(&self, id: BundleId) -> crate::Result<&Bundle> {
        if id.owner != self.owner {
            return Err(Error::ForeignBundle(id.index));
        }
        self.bundles
            .get(&id.index)
            .ok_or(Error::UnknownBundle(id.index))
    }

    /// Forgets a finished bundle's record (its progress and errors; what it loaded stays cached until
    /// [`Assets::unload`]): an app loading bundles all along keeps the records bounded. Using the id afterwards is
    /// [`Error::UnknownBundle`]; a bundle still loading is [`Error::AssetLoad`] (unload its files, or wait).
    pub fn forget_bundle(&mut self, id: BundleId) -> crate::Result<()> {
        let b = self.bundle(id)?;
        if b.done < b.files.len() {
            return Err(Error::AssetLoad {
                path: b.files.get(b.done).cloned().unwrap_or_default(),
                reason: "its bundle is still loading; forget the bundle once is_done".into(),
            });
        }
        self.bundles.remove(&id.index);
        Ok(())
    }

    /// The cached spritesheet of the JSON at `path`, if loaded (by [`Assets::load_spritesheet`] or a bundle).
    pub fn spritesheet(&self, path: impl AsRef<Path>) -> Option<&Spritesheet> {
        self.sheets.get(&key(path.as_ref()))
    }

    /// How far a bundle is, from 0 to 1 (1 for an empty bundle): its files uploaded or failed, over its files.
    /// Another cache's bundle is [`Error::ForeignBundle`].
    pub fn progress(&self, bundle: BundleId) -> crate::Result<f32> {
        let b = self.bundle(bundle)?;
        Ok(match b.files.is_empty() {
            true => 1.0,
            false => b.done as f32 / b.files.len() as f32,
        })
    }

    /// Whether every file of the bundle was uploaded or failed ([`Error::ForeignBundle`] for another cache's).
    pub fn is_done(&self, bundle: BundleId) -> crate::Result<bool> {
        let b = self.bundle(bundle)?;
        Ok(b.done >= b.files.len())
    }

    /// The bundle's failures so far, each naming its file ([`Error::ForeignBundle`] for another cache's).
    pub fn errors(&self, bundle: BundleId) -> crate::Result<&[Error]> {
        Ok(&self.bundle(bundle)?.errors)
    }

    /// The textures of the bundle's files that loaded, in the order given ([`Error::ForeignBundle`] for another
    /// cache's bundle).
    pub fn bundle_textures(&self, bundle: BundleId) -> crate::Result<Vec<(PathBuf, Texture)>> {
        let b = self.bundle(bundle)?;
        Ok(b.files
            .iter()
            .filter_map(|k| Some((k.clone(), *self.textures.get(k)?)))
            .collect())
    }
}
