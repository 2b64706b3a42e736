// The batch shader: sprites, glyphs and shape meshes share it, so they share batches and draw calls.
//
// Group 0 (changes when a batch's texture set changes, i.e. rarely): texture + sampler pairs. The layout holds as
// many as the device's per-stage limit allows (16 at most); this source is expanded once per texture count k and
// declares and samples only the first k, so a batch of k textures runs a switch of k arms (CPU rasterisers run
// every arm for every fragment).
// Group 1 (changes when a stream's buffer grows): the quad stream and the mesh-vertex stream. There is no vertex
// buffer: the index says what to fetch. With the quad bit set (bit 31, or bit 23 where indices stop at 2^24 - 1)
// it is corner `index & 3` of quad `(index - QUAD_BIT) >> 2` (48 bytes a sprite instead of four 24-byte vertices);
// without, it is mesh vertex `index`.
//
// Positions arrive in clip space (the CPU applies the view), colour as straight-alpha RGBA8 tint * alpha; the
// vertex shader premultiplies it, textures are stored premultiplied, so the output is premultiplied. The high
// bits of `texture` (from bit 8) pick a group transform: render groups keep their geometry in group space and
// move, tint and fade through their entry; entry 0, which everything else uses, is the identity.

//{{BINDINGS}}

const QUAD_BIT: u32 = /*{{QUAD_BIT}}*/0x80000000u;

// Corner c: origin (+ x_edge if c is 1 or 2) (+ y_edge if c is 2 or 3); uv0 / uv1 picked the same way.
struct Quad {
    origin: vec2<f32>,
    x_edge: vec2<f32>,
    y_edge: vec2<f32>,
    uv0: vec2<f32>,
    uv1: vec2<f32>,
    color: u32,
    texture: u32,
};

struct MeshVertex {
    position: vec2<f32>,
    uv: vec2<f32>,
    color: u32,
    texture: u32,
};

struct GroupTransform {
    x_axis: vec2<f32>,
    y_axis: vec2<f32>,
    translation: vec2<f32>,
    color: u32,
    pad: u32,
};

@group(1) @binding(0) var<storage, read> quads: array<Quad>;
@group(1) @binding(1) var<storage, read> mesh: array<MeshVertex>;
@group(1) @binding(2) var<storage, read> transforms: array<GroupTransform>;

struct VertexOut {
    @builtin(position) position: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) color: vec4<f32>,
    @location(2) @interpolate(flat) texture: u32,
};

@vertex
fn vs_main(@builtin(vertex_index) index: u32) -> VertexOut {
    var position: vec2<f32>;
    var uv: vec2<f32>;
    var color: u32;
    var texture: u32;
    if (index & QUAD_BIT) != 0u {
        let q = quads[(index - QUAD_BIT) >> 2u];
        let corner = index & 3u;
        let right = corner == 1u || corner == 2u;
        let bottom = corner >= 2u;
        position = q.origin;
        if right {
            position = position + q.x_edge;
        }
        if bottom {
            position = position + q.y_edge;
        }
        uv = vec2<f32>(select(q.uv0.x, q.uv1.x, right), select(q.uv0.y, q.uv1.y, bottom));
        color = q.color;
        texture = q.texture;
    } else {
        let v = mesh[index];
        position = v.position;
        uv = v.uv;
        color = v.color;
        texture = v.texture;
    }
    let g = transforms[texture >> 8u];
    position = g.x_axis * position.x + g.y_axis * position.y + g.translation;
    let c = unpack4x8unorm(color) * unpack4x8unorm(g.color);
    var out: VertexOut;
    out.position = vec4<f32>(position, 0.0, 1.0);
    out.uv = uv;
    out.color = vec4<f32>(c.rgb * c.a, c.a);
    out.texture = texture & 0xffu;
    return out;
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    // Textures have one mip level, so level 0 is what implicit derivatives would pick, and an explicit level is
    // allowed inside the (non-uniform) switch without computing derivatives first.
    var texel: vec4<f32>;
    switch in.texture {
//{{CASES}}
        default: { texel = textureSampleLevel(t0, s0, in.uv, 0.0); }
    }
    return texel * in.color;
}
