//! [`RendererOptions`]: how a [`Renderer`](crate::Renderer) is set up.

use std::path::PathBuf;

/// How to set up a [`Renderer`](crate::Renderer): `RendererOptions::default().with_msaa(true)`.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct RendererOptions {
    /// Most textures one batch binds; clamped to the device's per-stage sampled-texture and sampler limits and to
    /// 16.
    pub max_textures_per_batch: usize,
    /// Adapter preference when `WGPU_ADAPTER_NAME` is not set (`WGPU_POWER_PREF` overrides it).
    pub power_preference: wgpu::PowerPreference,
    /// Draw windows and new render targets with 4x multisampling (anti-aliased shape edges).
    pub msaa: bool,
    /// A directory for the pipeline-cache file: pipelines seen by earlier runs are created before the first frame,
    /// from wgpu's driver cache where the device has one. Saved by [`Renderer::save_pipeline_cache`](crate::Renderer::save_pipeline_cache) and when
    /// the renderer is dropped.
    pub pipeline_cache: Option<PathBuf>,
    /// Time each pass stage2d begins on the GPU ([`Stats::gpu_ms`](crate::Stats::gpu_ms)) where the device has
    /// `TIMESTAMP_QUERY` (requested when stage2d opens the device). Off by default: it costs a few microseconds of
    /// CPU a frame (a query resolve, a copy and a buffer map).
    pub gpu_timing: bool,
    /// Children a container must have left to walk for its leaf sprites to be computed on every core (rayon's
    /// pool, where it has four threads or more). `None` (the default) is the measured threshold (32,768); `usize::MAX`
    /// keeps the walk on one thread.
    pub parallel_collect_min: Option<usize>,
    /// Keep filter results between frames (on by default): a filtered node whose content, filters and uniforms
    /// did not change is drawn from its last result instead of being filtered again
    /// ([`FrameStats::filter_groups_reused`](crate::FrameStats::filter_groups_reused)). Off: every filtered node
    /// runs its passes every frame, as PixiJS does (for measuring filters' GPU cost).
    pub keep_filter_results: bool,
    /// Keep a copy of the pixels of every texture made from a file, bytes or pixels (on by default), so that
    /// [`Renderer::recover`](crate::Renderer::recover) makes them again on a new device after a loss. It costs
    /// their size in memory (4 bytes a pixel: `stats().live.kept_texture_bytes`).
    /// Off, such textures' handles are stale after a loss (sprites showing them are skipped) and the app loads
    /// them again.
    pub keep_texture_pixels: bool,
}

impl Default for RendererOptions {
    fn default() -> Self {
        RendererOptions {
            max_textures_per_batch: crate::gpu::shader::MAX_BATCH_TEXTURES,
            power_preference: wgpu::PowerPreference::HighPerformance,
            msaa: false,
            pipeline_cache: None,
            gpu_timing: false,
            parallel_collect_min: None,
            keep_filter_results: true,
            keep_texture_pixels: true,
        }
    }
}

impl RendererOptions {
    /// With textures' pixels kept for recovery after a device loss (on by default), or not.
    pub fn with_kept_texture_pixels(mut self, on: bool) -> Self {
        self.keep_texture_pixels = on;
        self
    }

    /// With at most `n` textures per batch.
    pub fn with_max_textures_per_batch(mut self, n: usize) -> Self {
        self.max_textures_per_batch = n;
        self
    }
    /// With an adapter preference.
    pub fn with_power_preference(mut self, p: wgpu::PowerPreference) -> Self {
        self.power_preference = p;
        self
    }
    /// With 4x multisampling on or off.
    pub fn with_msaa(mut self, on: bool) -> Self {
        self.msaa = on;
        self
    }
    /// With GPU frame timing on or off.
    pub fn with_gpu_timing(mut self, on: bool) -> Self {
        self.gpu_timing = on;
        self
    }
    /// With another threshold for computing leaf sprites on every core (see
    /// [`RendererOptions::parallel_collect_min`]).
    pub fn with_parallel_collect_min(mut self, children: usize) -> Self {
        self.parallel_collect_min = Some(children);
        self
    }
    /// With filter results kept between frames, or filtered again every frame (see
    /// [`RendererOptions::keep_filter_results`]).
    pub fn with_kept_filter_results(mut self, on: bool) -> Self {
        self.keep_filter_results = on;
        self
    }
    /// With a pipeline-cache directory (warm starts).
    pub fn with_pipeline_cache(mut self, dir: impl Into<PathBuf>) -> Self {
        self.pipeline_cache = Some(dir.into());
        self
    }
}
