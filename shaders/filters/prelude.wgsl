// stage2d filter prelude: prepended to every filter's fragment source (built-in or custom).
//
// A filter pass draws one quad over `gfu.uOutputFrame` of its output texture, sampling its input texture. The
// names follow PixiJS v8's filter globals, so PixiJS WGSL fragment code ports with few changes.
//
// Built-in filters read these in texture pixels. Custom filters read them in PixiJS's units: sizes and frames in
// scene pixels (texture pixels divided by the filter's resolution), so PixiJS filter code ports unchanged at any
// resolution; uInputPixel, uInputClamp and uGlobalFrame are the same for both.
//
// gfu.uInputSize     input texture size (xy) and its inverse (zw)
// gfu.uInputPixel    input texture size in texture pixels (xy) and its inverse (zw)
// gfu.uInputClamp    texture coordinates bounding the filtered content: min (xy), max (zw), half a pixel inside
// gfu.uOutputFrame   the filtered area in the output texture: x, y, width, height
// gfu.uGlobalFrame   where the output texture's origin lies on the target (xy, in texture pixels) and the
//                    target's size in texture pixels (zw)
// gfu.uOutputTexture the output texture's size (xy), 1.0 (z), the filter resolution relative to the target (w)
// gfu.uInputFrame    the area read from the input (usually the output frame)

struct GlobalFilterUniforms {
    uInputSize: vec4<f32>,
    uInputPixel: vec4<f32>,
    uInputClamp: vec4<f32>,
    uOutputFrame: vec4<f32>,
    uGlobalFrame: vec4<f32>,
    uOutputTexture: vec4<f32>,
    uInputFrame: vec4<f32>,
};

@group(0) @binding(0) var<uniform> gfu: GlobalFilterUniforms;
@group(0) @binding(1) var uTexture: texture_2d<f32>;
@group(0) @binding(2) var uSampler: sampler;
// The input of the filter's first pass (multi-pass filters that combine their result with what they began from).
@group(0) @binding(3) var uOriginal: texture_2d<f32>;

struct VSOutput {
    @builtin(position) position: vec4<f32>,
    // Texture coordinates in the input texture.
    @location(0) uv: vec2<f32>,
};

@vertex
fn mainVertex(@builtin(vertex_index) index: u32) -> VSOutput {
    let corner = vec2<f32>(f32(index & 1u), f32(index >> 1u));
    let px = gfu.uOutputFrame.xy + corner * gfu.uOutputFrame.zw;
    let clip = vec2<f32>(px.x / gfu.uOutputTexture.x * 2.0 - 1.0, 1.0 - px.y / gfu.uOutputTexture.y * 2.0);
    let input = gfu.uInputFrame.xy + corner * gfu.uInputFrame.zw;
    return VSOutput(vec4<f32>(clip, 0.0, 1.0), input * gfu.uInputSize.zw);
}

// Texture coordinates of the input to pixels of the filtered area (0,0 is its top-left corner; scene pixels in a
// custom filter).
fn filterToPixel(uv: vec2<f32>) -> vec2<f32> {
    return uv * gfu.uInputSize.xy - gfu.uInputFrame.xy;
}

// Pixels of the filtered area (as `filterToPixel` gives them) to texture coordinates of the input.
fn pixelToFilter(px: vec2<f32>) -> vec2<f32> {
    return (px + gfu.uInputFrame.xy) * gfu.uInputSize.zw;
}

// Texture coordinates of the input to the target's pixels (filter resolution: divide by gfu.uOutputTexture.w for
// the target's own pixels).
fn filterToScreen(uv: vec2<f32>) -> vec2<f32> {
    return uv * gfu.uInputPixel.xy + gfu.uGlobalFrame.xy;
}

// The target's pixels (filter resolution) to texture coordinates of the input.
fn screenToFilter(px: vec2<f32>) -> vec2<f32> {
    return (px - gfu.uGlobalFrame.xy) * gfu.uInputPixel.zw;
}

// Samples the input at `uv`, clamped to the filtered content.
fn sampleInput(uv: vec2<f32>) -> vec4<f32> {
    return textureSampleLevel(uTexture, uSampler, clamp(uv, gfu.uInputClamp.xy, gfu.uInputClamp.zw), 0.0);
}
