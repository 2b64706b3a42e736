struct ColorMatrixUniforms { uColorMatrix: array<vec4<f32>, 5>, uAlpha: f32, };
@group(1) @binding(0) var<uniform> colorMatrixUniforms: ColorMatrixUniforms;

@fragment
fn mainFragment(in: VSOutput) -> @location(0) vec4<f32> {
    var c = textureSample(uTexture, uSampler, in.uv);
    if (colorMatrixUniforms.uAlpha == 0.0) {
        return c;
    }
    if (c.a > 0.0) {
        c = vec4<f32>(c.rgb / c.a, c.a);
    }
    let cm = colorMatrixUniforms.uColorMatrix;
    var result = vec4<f32>(0.0);
    result.r = cm[0][0] * c.r + cm[0][1] * c.g + cm[0][2] * c.b + cm[0][3] * c.a + cm[1][0];
    result.g = cm[1][1] * c.r + cm[1][2] * c.g + cm[1][3] * c.b + cm[2][0] * c.a + cm[2][1];
    result.b = cm[2][2] * c.r + cm[2][3] * c.g + cm[3][0] * c.b + cm[3][1] * c.a + cm[3][2];
    result.a = cm[3][3] * c.r + cm[4][0] * c.g + cm[4][1] * c.b + cm[4][2] * c.a + cm[4][3];
    var rgb = mix(c.rgb, result.rgb, colorMatrixUniforms.uAlpha);
    let a = clamp(result.a, 0.0, 1.0);
    return vec4<f32>(clamp(rgb, vec3<f32>(0.0), vec3<f32>(1.0)) * a, a);
}
