struct GlowUniforms {
    uColor: vec4<f32>,
    // Distance in pixels, angle step in radians, inner strength, outer strength.
    uGlow: vec4<f32>,
    // Alpha, knockout (1 or 0).
    uAlpha: vec2<f32>,
};
@group(1) @binding(0) var<uniform> glowUniforms: GlowUniforms;

const PI2: f32 = 6.28318530718;

@fragment
fn mainFragment(in: VSOutput) -> @location(0) vec4<f32> {
    let dist = glowUniforms.uGlow.x;
    let step = glowUniforms.uGlow.y;
    var total = 0.0;
    var maxTotal = 0.0;
    var angle = 0.0;
    loop {
        if (angle >= PI2) { break; }
        let dir = vec2<f32>(cos(angle), sin(angle)) * gfu.uInputSize.zw;
        var d = 0.0;
        loop {
            if (d >= dist) { break; }
            let c = textureSampleLevel(uTexture, uSampler, clamp(in.uv + dir * (d + 1.0), gfu.uInputClamp.xy, gfu.uInputClamp.zw), 0.0);
            total += (dist - d) * c.a;
            maxTotal += dist - d;
            d += 1.0;
        }
        angle += step;
    }
    let cur = textureSample(uTexture, uSampler, in.uv);
    let glow = vec4<f32>(glowUniforms.uColor.rgb, 1.0) * glowUniforms.uAlpha.x;
    let ratio = select(0.0, total / maxTotal, maxTotal > 0.0);
    let innerAlpha = (1.0 - ratio) * glowUniforms.uGlow.z * cur.a;
    let inner = mix(cur, glow, min(1.0, innerAlpha));
    let outerAlpha = ratio * glowUniforms.uGlow.w * (1.0 - cur.a);
    let outer = min(1.0 - inner.a, outerAlpha) * glow;
    if (glowUniforms.uAlpha.y > 0.5) {
        return outer;
    }
    return inner + outer;
}
