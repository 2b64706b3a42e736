//! Warm starts: the pipeline-cache file. Pure encoding, decoding and atomic writing; no GPU.
//!
//! One file per adapter and driver holds wgpu's `PipelineCache` data (Vulkan's compiled pipelines) and the list of
//! (target state, graphics key) pairs a run used, so the next start can create those pipelines before its first
//! frame. Keys name shaders by id, so the driver string also carries the `PipelineSystem::fingerprint` of
//! the registered shaders: another shader set is another driver. Layout, little-endian:
//!
//! ```text
//! "S2DPIPE1" | key len u32 | key | driver len u32 | driver | entries u32 | entries x (global u16, format u32,
//! graphics u32) | data len u64 | data | FNV-1a 64 of everything before
//! ```
//!
//! A file with another magic, a short or inconsistent length, a wrong checksum, or another key or driver is
//! rejected with a reason (the caller logs it and rewrites the file); such data never reaches wgpu. Writes go to a
//! temporary file that is then renamed over the old one, so an interrupted save leaves the old file intact.

use super::cache::TierKey;
use super::key::{GlobalKey, GlobalState, GraphicsKey};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"S2DPIPE1";

/// What a cache file holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CacheFile {
    /// The pipelines a run used.
    pub entries: Vec<(TierKey, GraphicsKey)>,
    /// wgpu's pipeline-cache data (empty where the backend has none).
    pub data: Vec<u8>,
}

/// Why a cache file was not used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rejected {
    /// Not a stage2d pipeline-cache file.
    BadMagic,
    /// Shorter than its lengths say (an interrupted write, a truncated copy).
    Truncated,
    /// Its contents do not match its checksum.
    Checksum,
    /// Written for another adapter or driver version.
    Foreign {
        /// The adapter key and driver the file names.
        found: String,
    },
}

impl std::fmt::Display for Rejected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rejected::BadMagic => write!(f, "not a stage2d pipeline cache"),
            Rejected::Truncated => write!(f, "truncated"),
            Rejected::Checksum => write!(f, "checksum mismatch (corrupt)"),
            Rejected::Foreign { found } => {
                write!(f, "written for another adapter or driver ({found})")
            }
        }
    }
}

/// FNV-1a 64 of `bytes`, continuing from `seed` (start with [`FNV_SEED`]).
pub(crate) fn fnv1a_from(seed: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(seed, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// The FNV-1a 64 offset basis.
pub(crate) const FNV_SEED: u64 = 0xcbf2_9ce4_8422_2325;

fn fnv1a(bytes: &[u8]) -> u64 {
    fnv1a_from(FNV_SEED, bytes)
}

/// Stable numbers for the colour formats a pipeline can target (0: not recorded).
fn format_id(f: wgpu::TextureFormat) -> u32 {
    use wgpu::TextureFormat::*;
    match f {
        Rgba8Unorm => 1,
        Bgra8Unorm => 2,
        Rgba8UnormSrgb => 3,
        Bgra8UnormSrgb => 4,
        Rgba16Float => 5,
        Rgb10a2Unorm => 6,
        _ => 0,
    }
}

fn format_from_id(id: u32) -> Option<wgpu::TextureFormat> {
    use wgpu::TextureFormat::*;
    Some(match id {
        1 => Rgba8Unorm,
        2 => Bgra8Unorm,
        3 => Rgba8UnormSrgb,
        4 => Bgra8UnormSrgb,
        5 => Rgba16Float,
        6 => Rgb10a2Unorm,
        _ => return None,
    })
}

/// Encodes a cache file for the adapter `key` and `driver`.
pub fn encode(file: &CacheFile, key: &str, driver: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + file.data.len() + file.entries.len() * 10);
    out.extend_from_slice(MAGIC);
    for s in [key, driver] {
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    let entries: Vec<_> = file
        .entries
        .iter()
        .filter(|(t, _)| format_id(t.color_format) != 0)
        .collect();
    out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    for (t, g) in entries {
        out.extend_from_slice(&t.global.0.to_le_bytes());
        out.extend_from_slice(&format_id(t.color_format).to_le_bytes());
        out.extend_from_slice(&g.0.to_le_bytes());
    }
    out.extend_from_slice(&(file.data.len() as u64).to_le_bytes());
    out.extend_from_slice(&file.data);
    let sum = fnv1a(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], Rejected> {
        if self.0.len() < n {
            return Err(Rejected::Truncated);
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Ok(a)
    }
    fn u16(&mut self) -> Result<u16, Rejected> {
        Ok(u16::from_le_bytes(
            self.take(2)?.try_into().expect("2 bytes"),
        ))
    }
    fn u32(&mut self) -> Result<u32, Rejected> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }
    fn u64(&mut self) -> Result<u64, Rejected> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }
    fn string(&mut self) -> Result<String, Rejected> {
        let n = self.u32()? as usize;
        Ok(String::from_utf8_lossy(self.take(n)?).into_owned())
    }
}

/// Decodes a cache file, accepting it only for the adapter `key` and `driver`. Entries naming impossible states
/// are dropped.
pub fn decode(bytes: &[u8], key: &str, driver: &str) -> Result<CacheFile, Rejected> {
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err(Rejected::BadMagic);
    }
    if bytes.len() < MAGIC.len() + 8 {
        return Err(Rejected::Truncated);
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    let mut r = Reader(&body[MAGIC.len()..]);
    let file_key = r.string()?;
    let file_driver = r.string()?;
    let n = r.u32()? as usize;
    let mut entries = Vec::with_capacity(n.min(1 << 16));
    for _ in 0..n {
        let global = GlobalKey(r.u16()?);
        let format = r.u32()?;
        let graphics = GraphicsKey(r.u32()?);
        if let (Some(_), Some(color_format)) =
            (GlobalState::from_key(global), format_from_id(format))
        {
            entries.push((
                TierKey {
                    global,
                    color_format,
                },
                graphics,
            ));
        }
    }
    let len = r.u64()? as usize;
    let data = r.take(len)?.to_vec();
    if !r.0.is_empty() {
        return Err(Rejected::Truncated);
    }
    if fnv1a(body).to_le_bytes() != sum {
        return Err(Rejected::Checksum);
    }
    if file_key != key || file_driver != driver {
        return Err(Rejected::Foreign {
            found: format!("{file_key} / {file_driver}"),
        });
    }
    Ok(CacheFile { entries, data })
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename, so that readers see the
/// old file or the new one, never a partial one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let tmp: PathBuf = path.with_extension(format!("tmp-{}", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::pipeline::key::{DepthStencil, StencilMode};

    fn sample() -> CacheFile {
        let g = GlobalState::new(
            15,
            StencilMode::MaskActive,
            DepthStencil::Depth24PlusStencil8,
            1,
            true,
        )
        .unwrap();
        CacheFile {
            entries: vec![
                (
                    TierKey::new(GlobalState::default(), wgpu::TextureFormat::Rgba8Unorm),
                    GraphicsKey(3 << 3 | 3),
                ),
                (
                    TierKey::new(g, wgpu::TextureFormat::Bgra8Unorm),
                    GraphicsKey(1 << 3 | 3),
                ),
            ],
            data: (0..200u8).collect(),
        }
    }

    #[test]
    fn round_trip() {
        let bytes = encode(&sample(), "vk_1_2", "mesa 22");
        assert_eq!(decode(&bytes, "vk_1_2", "mesa 22"), Ok(sample()));
    }

    #[test]
    fn corrupt_truncated_and_foreign_files_are_rejected() {
        let bytes = encode(&sample(), "vk_1_2", "mesa 22");
        assert_eq!(
            decode(b"garbage!garbage!", "vk_1_2", "mesa 22"),
            Err(Rejected::BadMagic)
        );
        assert_eq!(decode(b"", "vk_1_2", "mesa 22"), Err(Rejected::BadMagic));
        for cut in [9, 20, bytes.len() / 2, bytes.len() - 1] {
            let r = decode(&bytes[..cut], "vk_1_2", "mesa 22");
            assert!(
                matches!(r, Err(Rejected::Truncated) | Err(Rejected::Checksum)),
                "cut {cut}: {r:?}"
            );
        }
        let mut flipped = bytes.clone();
        flipped[bytes.len() / 2] ^= 0x40;
        assert!(decode(&flipped, "vk_1_2", "mesa 22").is_err());
        assert!(matches!(
            decode(&bytes, "vk_9_9", "mesa 22"),
            Err(Rejected::Foreign { .. })
        ));
        assert!(matches!(
            decode(&bytes, "vk_1_2", "mesa 23"),
            Err(Rejected::Foreign { .. })
        ));
    }

    #[test]
    fn impossible_entries_are_dropped() {
        let mut f = sample();
        f.entries.push((
            TierKey {
                global: GlobalState::default().key(),
                color_format: wgpu::TextureFormat::R8Unorm,
            },
            GraphicsKey(1),
        ));
        let back = decode(&encode(&f, "k", "d"), "k", "d").unwrap();
        assert_eq!(
            back.entries.len(),
            2,
            "unrecordable formats are not written"
        );
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("stage2d-persist-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("cache.bin");
        write_atomic(&p, b"old").unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
        let leftovers: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().contains("tmp"))
            .collect();
        assert!(leftovers.is_empty());
        // A failed write (the target is a directory) leaves the old state and no temporary behind.
        let sub = dir.join("sub.bin");
        std::fs::create_dir_all(sub.join("x")).unwrap();
        assert!(write_atomic(&sub, b"data").is_err());
        assert!(sub.is_dir());
        std::fs::remove_dir_all(&dir).ok();
    }
}
