struct NoiseUniforms { uNoise: f32, uSeed: f32, };
@group(1) @binding(0) var<uniform> noiseUniforms: NoiseUniforms;

fn rand(co: vec2<f32>) -> f32 {
    return fract(sin(dot(co, vec2<f32>(12.9898, 78.233))) * 43758.5453);
}

@fragment
fn mainFragment(in: VSOutput) -> @location(0) vec4<f32> {
    let pixelPosition = (in.position.xy + gfu.uGlobalFrame.xy) / gfu.uGlobalFrame.zw;
    var s = textureSample(uTexture, uSampler, in.uv);
    let diff = (rand(pixelPosition * noiseUniforms.uSeed) - 0.5) * noiseUniforms.uNoise;
    if (s.a > 0.0) {
        s = vec4<f32>(s.rgb / s.a, s.a);
    }
    return vec4<f32>(clamp(s.rgb + diff, vec3<f32>(0.0), vec3<f32>(1.0)) * s.a, s.a);
}
