//! Warm start: the pipeline-cache file. At start-up the pipelines recorded by earlier runs are created before the
//! first frame (from wgpu's driver cache where the backend has one); [`save`] writes the pipelines used so far
//! and the driver cache back, atomically. The file is keyed by the adapter and driver and by the fingerprint of
//! the registered shaders, so a file from another machine or another stage2d is ignored (and rewritten).

use super::persist;
use super::PipelineSystem;
use crate::{Error, Result};
use std::path::PathBuf;

/// Most pipelines a warm start builds ahead: far more than stage2d's states use (tens), and a bound on the
/// start-up a hostile or runaway cache file can cost.
pub const MAX_PREWARM_PIPELINES: usize = 512;

/// Longest a warm start spends building pipelines ahead; the rest are built when first drawn.
pub const MAX_PREWARM_TIME: std::time::Duration = std::time::Duration::from_secs(1);

/// What the warm start did (see [`RendererOptions::pipeline_cache`](crate::RendererOptions::pipeline_cache)).
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct WarmStart {
    /// The cache file, if one is configured.
    pub path: Option<PathBuf>,
    /// Bytes of the cache file accepted at start (0: none, or rejected).
    pub bytes_loaded: u64,
    /// Why an existing file was ignored (it is rewritten on the next save).
    pub rejected: Option<String>,
    /// Whether wgpu's driver-level `PipelineCache` is in use.
    pub driver_cache: bool,
    /// Pipelines created from the recorded list before the first frame.
    pub pipelines_prewarmed: u64,
    /// Time spent creating them.
    pub prewarm_time: std::time::Duration,
}

/// The warm-start state a renderer keeps: what happened at start and the identity the file is saved under.
#[derive(Debug, Default)]
pub(crate) struct WarmState {
    pub status: WarmStart,
    key: String,
    driver: String,
}

/// Loads the pipeline-cache file from `dir` and creates the pipelines it lists.
pub(crate) fn warm_up(
    device: &wgpu::Device,
    pipelines: &mut PipelineSystem,
    dir: PathBuf,
    driver_cache: bool,
) -> Result<WarmState> {
    let info = device.adapter_info();
    let key = wgpu::util::pipeline_cache_key(&info)
        .unwrap_or_else(|| format!("{:?}_{}_{}", info.backend, info.vendor, info.device));
    // Saved graphics keys name shaders by id: the file is only valid for the same registered shader set.
    let driver = format!(
        "{} | {} | {} | shaders {:016x}",
        info.name,
        info.driver,
        info.driver_info,
        pipelines.fingerprint()
    );
    let file_name: String = key
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let path = dir.join(format!("stage2d-{file_name}.pipelines"));
    let mut status = WarmStart {
        path: Some(path.clone()),
        driver_cache,
        ..Default::default()
    };
    // A pipeline cache is small (a few hundred keys and the driver's blob): read up to a bound, not by the size
    // the file system reports.
    let read = crate::base::read::read_capped(&path, 256 << 20, None).map_err(|e| e.into_io());
    let file = match read {
        Ok(bytes) => match persist::decode(&bytes, &key, &driver) {
            Ok(f) => {
                status.bytes_loaded = bytes.len() as u64;
                Some(f)
            }
            Err(why) => {
                log::warn!(
                    "ignoring pipeline cache {}: {why}; it will be rewritten",
                    path.display()
                );
                status.rejected = Some(why.to_string());
                None
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            log::warn!("cannot read pipeline cache {}: {e}", path.display());
            status.rejected = Some(e.to_string());
            None
        }
    };
    if driver_cache {
        let data = file
            .as_ref()
            .map(|f| f.data.as_slice())
            .filter(|d| !d.is_empty());
        // SAFETY: `data` only comes from a file that passed `persist::decode`: it was written by `save` from
        // `PipelineCache::get_data` on an adapter with the same `pipeline_cache_key` and driver string, and its
        // checksum matches. `fallback: true` makes wgpu start an empty cache if the driver still refuses the data.
        #[allow(unsafe_code)]
        let cache = unsafe {
            device.create_pipeline_cache(&wgpu::PipelineCacheDescriptor {
                label: Some("stage2d pipeline cache"),
                data,
                fallback: true,
            })
        };
        pipelines.set_wgpu_cache(Some(cache));
    }
    if let Some(f) = file {
        let start = std::time::Instant::now();
        if f.entries.len() > MAX_PREWARM_PIPELINES {
            log::warn!(
                "pipeline cache {} lists {} pipelines; only the first {MAX_PREWARM_PIPELINES} are built ahead",
                path.display(),
                f.entries.len()
            );
        }
        for (tier, graphics) in f.entries.into_iter().take(MAX_PREWARM_PIPELINES) {
            if start.elapsed() > MAX_PREWARM_TIME {
                log::warn!(
                    "building pipelines ahead took over {MAX_PREWARM_TIME:?}; the rest are built when first drawn"
                );
                break;
            }
            // An entry this build cannot make (a key from a corrupt or foreign file) is skipped, not fatal.
            match pipelines.prewarm(tier, graphics) {
                Ok(true) => status.pipelines_prewarmed += 1,
                Ok(false) => {}
                Err(e) => log::warn!("skipping a pipeline-cache entry: {e}"),
            }
        }
        status.prewarm_time = start.elapsed();
    }
    Ok(WarmState {
        status,
        key,
        driver,
    })
}

/// Writes the pipeline-cache file (the pipelines used so far and wgpu's driver cache) atomically; `None` when no
/// cache directory is configured.
pub(crate) fn save(state: &WarmState, pipelines: &PipelineSystem) -> Result<Option<PathBuf>> {
    let Some(path) = state.status.path.clone() else {
        return Ok(None);
    };
    let file = persist::CacheFile {
        entries: pipelines.used_keys(),
        data: pipelines
            .wgpu_cache()
            .and_then(|c| c.get_data())
            .unwrap_or_default(),
    };
    let bytes = persist::encode(&file, &state.key, &state.driver);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::PipelineCache(format!("{}: {e}", dir.display())))?;
    }
    persist::write_atomic(&path, &bytes)
        .map_err(|e| Error::PipelineCache(format!("{}: {e}", path.display())))?;
    Ok(Some(path))
}
