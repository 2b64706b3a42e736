@fragment
fn mainFragment(in: VSOutput) -> @location(0) vec4<f32> {
    return textureSample(uTexture, uSampler, in.uv);
}
