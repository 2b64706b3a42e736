struct OutlineUniforms {
    uColor: vec4<f32>,
    // Thickness in pixels, angle step in radians, alpha, knockout (1 or 0).
    uOutline: vec4<f32>,
};
@group(1) @binding(0) var<uniform> outlineUniforms: OutlineUniforms;

const PI2: f32 = 6.28318530718;

@fragment
fn mainFragment(in: VSOutput) -> @location(0) vec4<f32> {
    let thickness = outlineUniforms.uOutline.x * gfu.uInputSize.zw;
    var maxAlpha = 0.0;
    var angle = 0.0;
    loop {
        if (angle > PI2 + 0.0001) { break; }
        let p = in.uv + thickness * vec2<f32>(cos(angle), sin(angle));
        maxAlpha = max(maxAlpha, textureSampleLevel(uTexture, uSampler, clamp(p, gfu.uInputClamp.xy, gfu.uInputClamp.zw), 0.0).a);
        angle += outlineUniforms.uOutline.y;
    }
    let source = textureSample(uTexture, uSampler, in.uv);
    let content = source * (1.0 - outlineUniforms.uOutline.w);
    let a = outlineUniforms.uOutline.z * maxAlpha * (1.0 - source.a);
    return content + vec4<f32>(outlineUniforms.uColor.rgb * a, a);
}
