// stage2d mesh prelude: prepended to every custom mesh shader.
//
// The shader provides `@vertex fn mainVertex(...)`, reading the geometry's attributes by location (the position
// at @location(0) and texture coordinate at @location(1), both vec2<f32>, then the geometry's own), and
// `@fragment fn mainFragment(...) -> @location(0) vec4<f32>` returning premultiplied colour. Its own uniform
// struct goes at @group(1) @binding(0) and its textures, each with a sampler, at @group(1) @binding(1 + 2k) and
// @binding(2 + 2k).
//
// globals.uTransform   the node's space to clip space: clip = uTransform * vec3(position, 1)
// globals.uColor       the node's tint times its alpha, premultiplied (multiply your colour by it)
// globals.uResolution  the target's size in pixels (xy) and its inverse (zw)
// globals.uFrame       the mesh texture's frame in its texture: top-left (xy) and size (zw), in 0..1
// uTexture, uSampler   the mesh's texture

struct MeshGlobals {
    uTransform: mat3x3<f32>,
    uColor: vec4<f32>,
    uResolution: vec4<f32>,
    uFrame: vec4<f32>,
};

@group(0) @binding(0) var<uniform> globals: MeshGlobals;
@group(0) @binding(1) var uTexture: texture_2d<f32>;
@group(0) @binding(2) var uSampler: sampler;

// A position in the node's space to clip space.
fn toClip(position: vec2<f32>) -> vec4<f32> {
    return vec4<f32>((globals.uTransform * vec3<f32>(position, 1.0)).xy, 0.0, 1.0);
}

// A texture coordinate of the geometry (0..1 over the frame) to the texture's.
fn frameUv(uv: vec2<f32>) -> vec2<f32> {
    return globals.uFrame.xy + uv * globals.uFrame.zw;
}
