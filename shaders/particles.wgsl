// stage2d particle shader, after the mesh prelude.
//
// The particle shader: one instance a particle, its corners from the vertex index (0..4, two triangles by the
// index buffer), turned by its rotation around its anchor and moved to its position, in the container's space.
// A particle whose property the upload found not finite carries [`PARTICLE_SKIP`] and collapses off the target.

struct ParticleParams { round: vec4<f32> };
@group(1) @binding(0) var<uniform> params: ParticleParams;
struct ParticleOut {
    @builtin(position) position: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) color: vec4<f32>,
};
const SKIP: f32 = -3.0e38;
@vertex fn mainVertex(
    @builtin(vertex_index) v: u32,
    @location(0) aVertex: vec4<f32>,
    @location(1) aPosition: vec2<f32>,
    @location(2) aRotation: f32,
    @location(3) aUvs: vec4<f32>,
    @location(4) aColor: vec4<f32>,
) -> ParticleOut {
    let c = vec2<f32>(f32(v == 1u || v == 2u), f32(v >= 2u));
    // A frame stored turned (u0 > u1 marks it): upright (x, y) shows the stored (1 - y, x).
    let turned = aUvs.x > aUvs.z;
    let uv0 = vec2<f32>(min(aUvs.x, aUvs.z), aUvs.y);
    let uv1 = vec2<f32>(max(aUvs.x, aUvs.z), aUvs.w);
    let l = select(c, vec2<f32>(c.y, 1.0 - c.x), turned);
    let local = aVertex.xy + l * aVertex.zw;
    let s = sin(aRotation);
    let k = cos(aRotation);
    let p = vec2<f32>(local.x * k - local.y * s, local.x * s + local.y * k) + aPosition;
    var position = toClip(p);
    if (params.round.x > 0.5) {
        let size = globals.uResolution.xy;
        position = vec4<f32>((floor((position.xy * 0.5 + 0.5) * size + 0.5) / size) * 2.0 - 1.0, 0.0, 1.0);
    }
    if (aPosition.x == SKIP || aVertex.x == SKIP || aRotation == SKIP || aUvs.y == SKIP) {
        position = vec4<f32>(2.0, 2.0, 0.0, 1.0);
    }
    let color = vec4<f32>(aColor.rgb * aColor.a, aColor.a) * globals.uColor;
    return ParticleOut(position, uv0 + c * (uv1 - uv0), color);
}
@fragment fn mainFragment(in: ParticleOut) -> @location(0) vec4<f32> {
    return textureSample(uTexture, uSampler, in.uv) * in.color;
}
