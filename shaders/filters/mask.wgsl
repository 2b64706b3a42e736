// An alpha mask (PixiJS's MaskFilter): the content times the mask's alpha or red channel, the mask drawn into a
// texture of its own, which `uMap` (this pass's texture pixels to the mask texture's coordinates) reaches.
struct MaskUniforms {
    // x axis (xy), y axis (zw) of the map.
    uMap0: vec4<f32>,
    // translation (xy), red channel (z, 1 or 0), inverse (w, 1 or 0).
    uMap1: vec4<f32>,
    // The mask's content in its texture: min (xy), max (zw) coordinates.
    uMaskClamp: vec4<f32>,
};
@group(1) @binding(0) var<uniform> maskUniforms: MaskUniforms;
@group(1) @binding(1) var uMask: texture_2d<f32>;
@group(1) @binding(2) var uMaskSampler: sampler;

@fragment
fn mainFragment(in: VSOutput) -> @location(0) vec4<f32> {
    let px = in.uv * gfu.uInputSize.xy;
    let m0 = maskUniforms.uMap0;
    let m1 = maskUniforms.uMap1;
    let muv = vec2<f32>(m0.x * px.x + m0.z * px.y + m1.x, m0.y * px.x + m0.w * px.y + m1.y);
    let m = textureSampleLevel(uMask, uMaskSampler, muv, 0.0);
    let c = maskUniforms.uMaskClamp;
    let inside = all(muv >= c.xy) && all(muv <= c.zw);
    var a = select(m.a, m.r, m1.z > 0.5);
    a = select(0.0, a, inside);
    a = select(a, 1.0 - a, m1.w > 0.5);
    return textureSample(uTexture, uSampler, in.uv) * a;
}
