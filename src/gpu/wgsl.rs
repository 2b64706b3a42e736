//! User WGSL (custom filters and mesh shaders): parsed and validated with naga before wgpu sees it, so a shader
//! that cannot run is an error with the line it points at in the user's source, and its resources are read from
//! the module. The user's source is appended to a prelude; group 0 is the prelude's, group 1 the user's: a
//! uniform struct at binding 0 and up to [`MAX_CUSTOM_TEXTURES`] texture/sampler pairs at `1 + 2k`, `2 + 2k`.

use crate::filter::passes::{MAX_CUSTOM_TEXTURES, MAX_CUSTOM_UNIFORM_BYTES};

/// A checked user shader: its module, the size of its uniform struct (0 without one) and its texture count.
pub(crate) struct UserWgsl {
    pub module: naga::Module,
    pub uniform_bytes: u32,
    pub textures: u8,
}

/// The line (1-based) of byte `offset` in `source`.
fn line_of(source: &str, offset: usize) -> u32 {
    source[..offset.min(source.len())].matches('\n').count() as u32 + 1
}

/// Parses and validates `full` (a prelude, a newline, then `source`), requires the entry points `entries`
/// (`missing` is the message when one lacks), and reads group 1. An error is (the line in `source`, message);
/// `binds` begins the message naming what may be bound ("the prelude binds group 0 (0..=3), a filter binds").
pub(crate) fn check_user_wgsl(
    full: &str,
    source: &str,
    entries: &[(&str, naga::ShaderStage)],
    missing: &str,
    binds: &str,
) -> Result<UserWgsl, (Option<u32>, String)> {
    let offset = full.len() - source.len();
    let located = |at: Option<naga::SourceLocation>, message: String| {
        let line = at.map(|l| {
            let abs = l.offset as usize;
            if abs >= offset {
                line_of(source, abs - offset)
            } else {
                0
            }
        });
        (line.filter(|l| *l > 0), message)
    };
    let module = naga::front::wgsl::parse_str(full)
        .map_err(|e| located(e.location(full), e.emit_to_string(full)))?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::empty(),
    )
    .validate(&module);
    if let Err(e) = info {
        let at = e.spans().next().map(|(span, _)| span.location(full));
        return Err(located(at, e.emit_to_string(full)));
    }
    for (name, stage) in entries {
        if !module
            .entry_points
            .iter()
            .any(|e| e.name == *name && e.stage == *stage)
        {
            return Err((None, missing.to_string()));
        }
    }
    let mut layouter = naga::proc::Layouter::default();
    layouter
        .update(module.to_ctx())
        .map_err(|e| (None, e.to_string()))?;
    let mut uniform_bytes = 0u32;
    let mut textures = 0u8;
    let mut samplers = 0u8;
    for (handle, var) in module.global_variables.iter() {
        let Some(b) = &var.binding else { continue };
        let at = module.global_variables.get_span(handle);
        let line = at.location(full);
        let bad = |what: &str| {
            located(
                Some(line),
                format!(
                    "@group({}) @binding({}) {what}; {binds} a uniform struct at @group(1) @binding(0) and texture/sampler pairs at @binding(1 + 2k)/(2 + 2k), k < {MAX_CUSTOM_TEXTURES}",
                    b.group, b.binding
                ),
            )
        };
        match (b.group, b.binding) {
            (0, _) if offset > line.offset as usize => {}
            (0, _) => return Err(bad("is the prelude's")),
            (1, 0) => {
                if var.space != naga::AddressSpace::Uniform {
                    return Err(bad("must be a uniform struct"));
                }
                uniform_bytes = layouter[var.ty].size;
                if uniform_bytes as usize > MAX_CUSTOM_UNIFORM_BYTES {
                    return Err(bad(&format!(
                        "holds {uniform_bytes} bytes, over the limit of {MAX_CUSTOM_UNIFORM_BYTES}"
                    )));
                }
            }
            (1, n) if n <= 2 * MAX_CUSTOM_TEXTURES as u32 => {
                let ty = &module.types[var.ty].inner;
                let is_texture = matches!(
                    ty,
                    naga::TypeInner::Image {
                        dim: naga::ImageDimension::D2,
                        arrayed: false,
                        class: naga::ImageClass::Sampled {
                            kind: naga::ScalarKind::Float,
                            multi: false
                        }
                    }
                );
                let is_sampler = matches!(ty, naga::TypeInner::Sampler { comparison: false });
                if n % 2 == 1 && is_texture {
                    textures = textures.max(n.div_ceil(2) as u8);
                } else if n % 2 == 0 && is_sampler {
                    samplers = samplers.max((n / 2) as u8);
                } else {
                    return Err(bad(
                        "has the wrong type: odd bindings are texture_2d<f32>, even ones samplers",
                    ));
                }
            }
            _ => return Err(bad("is not one it may use")),
        }
    }
    Ok(UserWgsl {
        module,
        uniform_bytes,
        textures: textures.max(samplers),
    })
}

/// A sampled 2D float texture, seen by both stages.
pub(crate) fn texture_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable: true },
            view_dimension: wgpu::TextureViewDimension::D2,
            multisampled: false,
        },
        count: None,
    }
}

/// A uniform buffer bound at a dynamic offset, seen by both stages.
pub(crate) fn uniform_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: true,
            min_binding_size: None,
        },
        count: None,
    }
}

/// A filtering sampler, seen by both stages.
pub(crate) fn sampler_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
        ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
        count: None,
    }
}

/// The group 1 layouts of user shaders: a uniform struct at binding 0 and `k` texture/sampler pairs after it, for
/// each `k` from 0 to [`MAX_CUSTOM_TEXTURES`] (entry `k`).
pub(crate) fn resource_layouts(device: &wgpu::Device, label: &str) -> Vec<wgpu::BindGroupLayout> {
    (0..=MAX_CUSTOM_TEXTURES as u32)
        .map(|n| {
            let mut entries = vec![uniform_entry(0)];
            for k in 0..n {
                entries.push(texture_entry(1 + 2 * k));
                entries.push(sampler_entry(2 + 2 * k));
            }
            device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(label),
                entries: &entries,
            })
        })
        .collect()
}

/// Makes sure `ring` (a uniform buffer of `capacity` bytes, bound at dynamic offsets) holds `need` bytes: a
/// smaller one goes to `retired` and a new one, a power of two of at least 16 KiB, replaces it. Returns whether
/// it was replaced (the caller drops the bind groups naming the old one).
pub(crate) fn fit_uniform_ring(
    device: &wgpu::Device,
    (ring, capacity): (&mut Option<wgpu::Buffer>, &mut u64),
    need: u64,
    label: &'static str,
    retired: &mut Vec<crate::gpu::release::Retired>,
    stats: &mut crate::base::stats::FrameStats,
) -> bool {
    if ring.is_some() && need <= *capacity {
        return false;
    }
    let size = need.next_power_of_two().max(16 * 1024);
    if let Some(old) = ring.take() {
        retired.push(crate::gpu::release::Retired::Buffer(old));
    }
    *ring = Some(device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    }));
    *capacity = size;
    stats.buffers_created += 1;
    true
}
