// One pass of PixiJS's separable Gaussian blur; the taps (one line each, unrolled as PixiJS generates them) and
// DIRECTION are filled in per kernel size and axis.
struct BlurUniforms { uStrength: f32, };
@group(1) @binding(0) var<uniform> blurUniforms: BlurUniforms;

@fragment
fn mainFragment(in: VSOutput) -> @location(0) vec4<f32> {
    let step = DIRECTION * blurUniforms.uStrength;
    var color = vec4<f32>(0.0);
%TAPS%
    return color;
}
