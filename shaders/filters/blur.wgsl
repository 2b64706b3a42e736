// One pass of PixiJS's separable Gaussian blur; KERNEL_TAPS and DIRECTION are filled in per kernel size and axis.
struct BlurUniforms { uStrength: f32, };
@group(1) @binding(0) var<uniform> blurUniforms: BlurUniforms;

const WEIGHTS = array<f32, KERNEL_SIZE>(KERNEL_WEIGHTS);

@fragment
fn mainFragment(in: VSOutput) -> @location(0) vec4<f32> {
    let step = DIRECTION * blurUniforms.uStrength;
    var color = vec4<f32>(0.0);
    for (var i = 0; i < KERNEL_SIZE; i++) {
        let offset = f32(i - KERNEL_HALF) * step;
        color += textureSampleLevel(uTexture, uSampler, in.uv + offset, 0.0) * WEIGHTS[i];
    }
    return color;
}
