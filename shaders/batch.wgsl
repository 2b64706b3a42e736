// The batch shader: sprites, shape meshes and glyphs share it, so they share batches.
//
// Group 0 (changes when a batch's texture set changes, i.e. rarely): N texture + sampler pairs, generated from
// the device's per-stage limit. The vertex carries the slot to sample (flat).
//
// Vertices arrive in clip space (the CPU applies the view), colour as straight-alpha RGBA8 tint * alpha; the
// vertex shader premultiplies it, textures are stored premultiplied, so the output is premultiplied.

//{{BINDINGS}}

struct VertexIn {
    @location(0) position: vec2<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) color: vec4<f32>,
    @location(3) texture: u32,
};

struct VertexOut {
    @builtin(position) position: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) color: vec4<f32>,
    @location(2) @interpolate(flat) texture: u32,
};

@vertex
fn vs_main(in: VertexIn) -> VertexOut {
    var out: VertexOut;
    out.position = vec4<f32>(in.position, 0.0, 1.0);
    out.uv = in.uv;
    out.color = vec4<f32>(in.color.rgb * in.color.a, in.color.a);
    out.texture = in.texture;
    return out;
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    // Derivatives before the switch: inside it, control flow is non-uniform.
    let dx = dpdx(in.uv);
    let dy = dpdy(in.uv);
    var texel: vec4<f32>;
    switch in.texture {
//{{CASES}}
        default: { texel = textureSampleGrad(t0, s0, in.uv, dx, dy); }
    }
    return texel * in.color;
}
