// Drop shadow, first pass: the input's alpha moved by the offset, in the shadow's colour.
struct ShadowUniforms { uColor: vec4<f32>, uOffset: vec2<f32>, uShadowOnly: f32, };
@group(1) @binding(0) var<uniform> shadowUniforms: ShadowUniforms;

@fragment
fn mainFragment(in: VSOutput) -> @location(0) vec4<f32> {
    let s = textureSample(uTexture, uSampler, in.uv - shadowUniforms.uOffset * gfu.uInputSize.zw);
    return shadowUniforms.uColor * s.a;
}

// Drop shadow, last pass: the (blurred) shadow under the original.
@fragment
fn finalFragment(in: VSOutput) -> @location(0) vec4<f32> {
    let shadow = textureSample(uTexture, uSampler, in.uv);
    if (shadowUniforms.uShadowOnly > 0.5) {
        return shadow;
    }
    let original = textureSample(uOriginal, uSampler, in.uv);
    return original + shadow * (1.0 - original.a);
}
