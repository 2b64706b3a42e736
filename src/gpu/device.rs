//! Device set-up: choosing an adapter, opening a device, and checking that a device (ours or a caller's) can run
//! stage2d. Backends (Vulkan, Metal, DX12, GL) are wgpu's business: nothing here names one except where a
//! backend lacks a capability the batch shader relies on.

use crate::gpu::shader::{MAX_BATCH_TEXTURES, QUAD_INDEX_BIT, QUAD_INDEX_BIT_24};
use crate::{Error, Result};

/// `base` with stage2d's instance flags, then the environment's (`WGPU_BACKEND`, `WGPU_VALIDATION`, …) over them.
///
/// stage2d issues no indirect draws, so wgpu's indirect-call validation (on by default in release builds) is left
/// off: with it, wgpu builds validation pipelines at device creation and keeps per-encoder state for indirect draws
/// that never come. `WGPU_VALIDATION_INDIRECT_CALL=1` still turns it on.
pub fn instance_descriptor(mut base: wgpu::InstanceDescriptor) -> wgpu::InstanceDescriptor {
    base.flags
        .remove(wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL);
    base.with_env()
}

/// Picks an adapter the way wgpu's helpers do: `WGPU_ADAPTER_NAME` (a case-insensitive substring) if set,
/// otherwise the preferred adapter, otherwise the fallback (software) adapter. Never panics.
pub fn select_adapter(
    instance: &wgpu::Instance,
    surface: Option<&wgpu::Surface<'_>>,
    power_preference: wgpu::PowerPreference,
) -> Result<wgpu::Adapter> {
    if let Ok(name) = std::env::var("WGPU_ADAPTER_NAME") {
        let wanted = name.to_lowercase();
        let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()));
        let mut seen = Vec::new();
        for a in adapters {
            let info = a.get_info();
            if surface.is_some_and(|s| !a.is_surface_supported(s)) {
                continue;
            }
            if info.name.to_lowercase().contains(&wanted) {
                return Ok(a);
            }
            seen.push(format!("{} ({:?})", info.name, info.backend));
        }
        return Err(Error::NoAdapter(format!(
            "WGPU_ADAPTER_NAME={name} matched none of: {}",
            seen.join(", ")
        )));
    }
    let power = wgpu::PowerPreference::from_env().unwrap_or(power_preference);
    for force_fallback_adapter in [false, true] {
        let req = instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: power,
            force_fallback_adapter,
            compatible_surface: surface,
            ..Default::default()
        });
        if let Ok(a) = pollster::block_on(req) {
            return Ok(a);
        }
    }
    Err(Error::NoAdapter("request_adapter found none".into()))
}

/// What a device offers stage2d, worked out once at start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Capabilities {
    /// The index bit that marks a quad (31 where 32-bit indices are fully supported, 23 otherwise).
    pub quad_bit: u32,
    /// Texture slots one batch binds (1..=16).
    pub slots: usize,
    /// Largest stream buffer the device binds.
    pub stream_max: u64,
    /// Whether wgpu's driver-level pipeline cache can be used.
    pub driver_cache: bool,
}

/// Checks that a device can run the batch shader: two read-only storage buffers in the vertex stage and at least
/// one sampled texture. `full_index` says whether 32-bit indices are fully supported (from the adapter's downlevel
/// flags where they are known). A device that falls short is [`Error::UnsupportedDevice`] saying what it lacks.
pub(crate) fn capabilities(
    device: &wgpu::Device,
    full_index: bool,
    max_textures_per_batch: usize,
) -> Result<Capabilities> {
    let limits = device.limits();
    let lacks = |what: &str| {
        Err(Error::UnsupportedDevice(format!(
            "{} ({:?}) {what}",
            device.adapter_info().name,
            device.adapter_info().backend
        )))
    };
    if limits.max_storage_buffers_per_shader_stage < 4 {
        return lacks(
            "allows fewer than 4 storage buffers per shader stage; request the adapter's limits \
             (`adapter.limits()`) rather than downlevel WebGL2 limits when creating the device",
        );
    }
    if limits.max_sampled_textures_per_shader_stage < 1 || limits.max_samplers_per_shader_stage < 1
    {
        return lacks("allows no sampled texture in the fragment stage");
    }
    let slots = max_textures_per_batch
        .min(limits.max_sampled_textures_per_shader_stage as usize)
        .min(limits.max_samplers_per_shader_stage as usize)
        .clamp(1, MAX_BATCH_TEXTURES);
    Ok(Capabilities {
        quad_bit: if full_index {
            QUAD_INDEX_BIT
        } else {
            QUAD_INDEX_BIT_24
        },
        slots,
        stream_max: limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size),
        driver_cache: device.features().contains(wgpu::Features::PIPELINE_CACHE),
    })
}

/// Whether a device on this backend draws with full 32-bit indices when the adapter's downlevel flags are not at
/// hand (a caller's device): every backend but GL guarantees them.
pub(crate) fn full_index_by_backend(device: &wgpu::Device) -> bool {
    device.adapter_info().backend != wgpu::Backend::Gl
}

/// Opens a device on `adapter` with the adapter's own limits (stage2d's batches bind as many textures as the
/// adapter allows) and wgpu's pipeline cache when `driver_cache` is asked for and supported.
pub(crate) fn open_device(
    adapter: &wgpu::Adapter,
    driver_cache: bool,
    timestamps: bool,
) -> Result<(wgpu::Device, wgpu::Queue)> {
    let downlevel = adapter.get_downlevel_capabilities().flags;
    if !downlevel.contains(wgpu::DownlevelFlags::VERTEX_STORAGE) {
        return Err(Error::UnsupportedAdapter(adapter.get_info().name));
    }
    let mut features = wgpu::Features::empty();
    if driver_cache && adapter.features().contains(wgpu::Features::PIPELINE_CACHE) {
        features |= wgpu::Features::PIPELINE_CACHE;
    }
    // GPU frame times (`Stats::gpu_ms`), if asked for, where the adapter can write timestamps.
    if timestamps {
        features |= adapter.features() & wgpu::Features::TIMESTAMP_QUERY;
    }
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("stage2d"),
        required_features: features,
        required_limits: adapter.limits(),
        ..Default::default()
    }))?;
    // stage2d's calls run inside error scopes (see `checked`) and return wgpu's errors as `Error::Wgpu`; anything
    // reported outside them (asynchronous work, a device lost) is logged instead of wgpu's default panic.
    device.on_uncaptured_error(std::sync::Arc::new(|e| {
        log::error!("wgpu reported an error outside a stage2d call: {e}");
    }));
    Ok((device, queue))
}

/// Runs `f` inside a validation error scope and turns a wgpu validation or out-of-memory error into
/// [`Error::Wgpu`] instead of the device's uncaptured-error handler (a panic by default).
pub(crate) fn checked<T>(
    device: &wgpu::Device,
    what: &str,
    f: impl FnOnce() -> Result<T>,
) -> Result<T> {
    let memory = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let out = f();
    let v = pollster::block_on(validation.pop());
    let m = pollster::block_on(memory.pop());
    match v.or(m) {
        Some(e) => Err(Error::Wgpu(format!("{what}: {e}"))),
        None => out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instances_leave_indirect_call_validation_off_unless_the_environment_asks() {
        let flags =
            instance_descriptor(wgpu::InstanceDescriptor::new_without_display_handle()).flags;
        let asked = std::env::var("WGPU_VALIDATION_INDIRECT_CALL").is_ok_and(|v| v != "0");
        assert_eq!(
            flags.contains(wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL),
            asked
        );
        // The other flags still follow the build and the environment.
        let mut expected = wgpu::InstanceFlags::from_build_config().with_env();
        expected.set(wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL, asked);
        assert_eq!(flags, expected);
    }
}
