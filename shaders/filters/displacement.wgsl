struct DisplacementUniforms {
    // Pixels of the filter's texture to the map's texture coordinates: columns x, y, translation.
    uFilterMatrix: mat3x3<f32>,
    uScale: vec2<f32>,
    // The map sprite's rotation as a 2x2 matrix, columns (x, y) and (z, w) (a vec4: GL's std140 pads matrix
    // columns differently).
    uRotation: vec4<f32>,
};
@group(1) @binding(0) var<uniform> filterUniforms: DisplacementUniforms;
@group(1) @binding(1) var uMapTexture: texture_2d<f32>;
@group(1) @binding(2) var uMapSampler: sampler;

@fragment
fn mainFragment(in: VSOutput) -> @location(0) vec4<f32> {
    let filterUv = (filterUniforms.uFilterMatrix * vec3<f32>(in.uv * gfu.uInputSize.xy, 1.0)).xy;
    let map = textureSample(uMapTexture, uMapSampler, filterUv);
    let r = filterUniforms.uRotation;
    let offset = gfu.uInputSize.zw * (mat2x2<f32>(r.xy, r.zw) * (map.xy - 0.5)) * filterUniforms.uScale;
    return textureSample(uTexture, uSampler, clamp(in.uv + offset, gfu.uInputClamp.xy, gfu.uInputClamp.zw));
}
