struct AlphaUniforms { uAlpha: f32, };
@group(1) @binding(0) var<uniform> alphaUniforms: AlphaUniforms;

@fragment
fn mainFragment(in: VSOutput) -> @location(0) vec4<f32> {
    return textureSample(uTexture, uSampler, in.uv) * alphaUniforms.uAlpha;
}
