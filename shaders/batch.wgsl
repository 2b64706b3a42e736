// The batch shader: sprites, glyphs and shape meshes share it, so they share batches and draw calls.
//
// Group 0 (changes when a batch's texture set changes, i.e. rarely): texture + sampler pairs. The layout holds as
// many as the device's per-stage limit allows (16 at most); this source is expanded once per texture count k and
// declares and samples only the first k, so a batch of k textures runs a switch of k arms (CPU rasterisers run
// every arm for every fragment).
// Group 1 (changes when a stream's buffer grows): the quad stream (two arrays: each quad's corners, and the rest of
// it, so that a moved sprite uploads only its corners) and the mesh-vertex stream. There is no vertex buffer: the
// index says what to fetch. With the quad bit set (bit 31, or bit 23 where indices stop at 2^24 - 1) it is corner
// `index & 3` of quad `(index - QUAD_BIT) >> 2` (48 bytes a sprite instead of four 24-byte vertices); without, it
// is mesh vertex `index`.
//
// Positions arrive in clip space (the CPU applies the view), colour as straight-alpha RGBA8 tint * alpha; the
// vertex shader premultiplies it, textures are stored premultiplied, so the output is premultiplied. The high
// bits of `texture` (from bit 8) pick a group transform: render groups keep their geometry in group space and
// move, tint and fade through their entry; entry 0, which everything else uses, is the identity.

//{{BINDINGS}}

const QUAD_BIT: u32 = /*{{QUAD_BIT}}*/0x80000000u;
// With it, a styled glyph's corner: `corner | pass << 2 | quad << 4` (0 where indices have no room for it).
const STYLED_BIT: u32 = /*{{STYLED_BIT}}*/0x40000000u;
// Flags in a quad's `texture` below the transform index: TILING quads (tiling sprites) take their corners'
// texture coordinates, in tiles, from the next quad (a DATA quad, which draws nothing) and wrap them into their
// frame `uv0..uv1` per fragment. DISTANCE_FIELD quads (distance-field glyphs) sample a signed distance field (one
// channel, or the median of three) and draw its coverage, with the next quad's origin.x as the screen pixels the
// field's 0..1 range spans. The slot is the low 4 bits.
const TILING: u32 = 0x80u;
const DATA: u32 = 0x40u;
const DISTANCE_FIELD: u32 = 0x20u;
// STYLED quads (a styled text's glyphs) are drawn once a pass, pass 0 its fill, 1 its outline, 2 its shadow, each
// from that channel (r, g, b) of a packed bitmap. Their frame is 16-bit fractions of the page (u0 | v0 << 16,
// u1 | v1 << 16; `uv1.y` in the same units what only the shadow covers on each side, left out of the other passes)
// and their text's data quad lies `uv1.x` quads back: its `uv0` the outline's and the shadow's colours, `uv1.x`
// the passes, its origin the shadow's offset. The fragment stage gets the channel from bit 8 on.
const STYLED: u32 = 0x10u;
const SLOT_MASK: u32 = 0x0fu;

// Corner c: origin (+ x_edge if c is 1 or 2) (+ y_edge if c is 2 or 3); uv0 / uv1 picked the same way.
struct Corners {
    origin: vec2<f32>,
    x_edge: vec2<f32>,
    y_edge: vec2<f32>,
};

// Texture coordinates as bits: a styled glyph's are not floats.
struct QuadRest {
    uv0: vec2<u32>,
    uv1: vec2<u32>,
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

@group(1) @binding(0) var<storage, read> corners: array<Corners>;
@group(1) @binding(1) var<storage, read> quad_rest: array<QuadRest>;
// Mesh vertices in two regions of one buffer of room for `n = arrayLength / 6` vertices: each position (2 words)
// from the start, the rest of each (uv: 2 words, colour, texture word) from word 2n. A moved vertex uploads its
// position alone.
@group(1) @binding(2) var<storage, read> mesh: array<u32>;
@group(1) @binding(3) var<storage, read> transforms: array<GroupTransform>;

struct VertexOut {
    @builtin(position) position: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) color: vec4<f32>,
    @location(2) @interpolate(flat) texture: u32,
    // A tiling quad's frame: u0, v0, u1, v1.
    @location(3) @interpolate(flat) frame: vec4<f32>,
    // A distance-field glyph's screen distance factor.
    @location(4) @interpolate(flat) distance: f32,
};

@vertex
fn vs_main(@builtin(vertex_index) index: u32) -> VertexOut {
    var position: vec2<f32>;
    var uv: vec2<f32>;
    var color: u32;
    var texture: u32;
    var frame = vec4<f32>(0.0);
    var distance = 0.0;
    var channel = 0u;
    if (index & QUAD_BIT) != 0u {
        var qi = (index - QUAD_BIT) >> 2u;
        var layer = 0u;
        if (index & STYLED_BIT) != 0u {
            qi = (index & (STYLED_BIT - 1u)) >> 4u;
            layer = (index >> 2u) & 3u;
        }
        let q = quad_rest[qi];
        if (q.texture & DATA) != 0u {
            // Outside the clip volume: the triangle is dropped.
            var out: VertexOut;
            out.position = vec4<f32>(2.0, 2.0, 2.0, 1.0);
            return out;
        }
        let corner = index & 3u;
        let right = corner == 1u || corner == 2u;
        let bottom = corner >= 2u;
        let k = corners[qi];
        position = k.origin;
        if right {
            position = position + k.x_edge;
        }
        if bottom {
            position = position + k.y_edge;
        }
        let uv0 = bitcast<vec2<f32>>(q.uv0);
        let uv1 = bitcast<vec2<f32>>(q.uv1);
        uv = vec2<f32>(select(uv0.x, uv1.x, right), select(uv0.y, uv1.y, bottom));
        texture = q.texture;
        color = q.color;
        if (q.texture & STYLED) != 0u {
            var lo = vec2<f32>(vec2<u32>(q.uv0.x & 0xffffu, q.uv0.x >> 16u));
            var hi = vec2<f32>(vec2<u32>(q.uv0.y & 0xffffu, q.uv0.y >> 16u));
            let inset = f32(q.uv1.y);
            if layer < 2u && inset > 0.0 {
                // The fill and the outline: the box inside what only the shadow covers.
                let t = vec2<f32>(inset) / max(hi - lo, vec2<f32>(1.0));
                position = k.origin + k.x_edge * select(t.x, 1.0 - t.x, right) + k.y_edge * select(t.y, 1.0 - t.y, bottom);
                lo = lo + vec2<f32>(inset);
                hi = hi - vec2<f32>(inset);
            }
            lo = lo / 65536.0;
            hi = hi / 65536.0;
            uv = vec2<f32>(select(lo.x, hi.x, right), select(lo.y, hi.y, bottom));
            let di = qi - q.uv1.x;
            let d = quad_rest[di];
            if layer == 1u {
                color = d.uv0.x;
            } else if layer == 2u {
                color = d.uv0.y;
                position = position + corners[di].origin;
            }
            channel = layer;
        }
        if (q.texture & TILING) != 0u {
            let d = corners[qi + 1u];
            // Tiles wrap `shift` tiles on from their edge (PixiJS's clamp offset): the coordinates move back by
            // it and the frame on by it, so the fragment stage wraps as for any tile. Both axes wrap: DATA is set
            // in the fragment's copy of the flags for the vertical one.
            let shift = bitcast<vec2<f32>>(quad_rest[qi + 1u].uv0);
            uv = d.origin + select(vec2<f32>(0.0), d.x_edge, right) + select(vec2<f32>(0.0), d.y_edge, bottom) - shift;
            let size = uv1 - uv0;
            frame = vec4<f32>(uv0 + shift * size, uv1 + shift * size);
            texture = texture | DATA;
        }
        if (q.texture & DISTANCE_FIELD) != 0u {
            distance = corners[qi + 1u].origin.x;
        }
    } else {
        let p = 2u * index;
        let r = 2u * (arrayLength(&mesh) / 6u) + 4u * index;
        position = vec2<f32>(bitcast<f32>(mesh[p]), bitcast<f32>(mesh[p + 1u]));
        uv = vec2<f32>(bitcast<f32>(mesh[r]), bitcast<f32>(mesh[r + 1u]));
        color = mesh[r + 2u];
        texture = mesh[r + 3u];
        // A pattern: WRAP_X and WRAP_Y (the bits quads use for TILING and DATA) wrap each axis over the whole
        // texture.
        if (texture & (TILING | DATA)) != 0u {
            frame = vec4<f32>(0.0, 0.0, 1.0, 1.0);
        }
    }
    let g = transforms[texture >> 8u];
    position = g.x_axis * position.x + g.y_axis * position.y + g.translation;
    let c = unpack4x8unorm(color) * unpack4x8unorm(g.color);
    var out: VertexOut;
    out.position = vec4<f32>(position, 0.0, 1.0);
    out.uv = uv;
    out.color = vec4<f32>(c.rgb * c.a, c.a);
    out.texture = (texture & 0xffu) | (channel << 8u);
    out.frame = frame;
    out.distance = distance;
    return out;
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    // Derivatives are taken here, in uniform control flow; inside the (non-uniform) switch the sample is given
    // them explicitly in the variant for batches holding textures with mipmaps. The other variant samples level 0
    // (faster on GPUs) and the compiler drops the derivatives.
    var uv = in.uv;
    var ddx = dpdx(in.uv);
    var ddy = dpdy(in.uv);
    // TILING wraps across and DATA up and down (a tiling quad sets both, a pattern's mesh vertex either).
    let wrap = in.texture & (TILING | DATA);
    if wrap != 0u {
        // Tile coordinates wrapped into the frame; the derivatives of the unwrapped ones, so the seams pick the
        // same mip level as the rest.
        let size = in.frame.zw - in.frame.xy;
        let axes = vec2<bool>((wrap & TILING) != 0u, (wrap & DATA) != 0u);
        uv = select(in.uv, in.frame.xy + fract(in.uv) * size, axes);
        ddx = ddx * size;
        ddy = ddy * size;
    }
    var texel: vec4<f32>;
    switch in.texture & SLOT_MASK {
//{{CASES}}
        default: { texel = /*{{SAMPLE0}}*/; }
    }
    if (in.texture & DISTANCE_FIELD) != 0u {
        texel = vec4<f32>(field_coverage(texel, in.color, in.distance));
    }
    if (in.texture & STYLED) != 0u {
        let channel = in.texture >> 8u;
        texel = vec4<f32>(select(select(texel.r, texel.g, channel == 1u), texel.b, channel == 2u));
    }
    return texel * in.color;
}

// Coverage of a distance-field texel (PixiJS's msdf bit): the median of the three channels (a one-channel field
// has them equal), at most alpha; `distance` screen pixels per unit of the field; gamma-corrected by the colour's
// luma so that light text on dark stays as heavy as dark on light.
fn field_coverage(field: vec4<f32>, color: vec4<f32>, distance: f32) -> f32 {
    var median = field.r + field.g + field.b - min(field.r, min(field.g, field.b)) - max(field.r, max(field.g, field.b));
    median = min(median, field.a);
    var alpha = clamp(distance * (median - 0.5) + 0.5, 0.0, 1.0);
    if median < 0.01 {
        alpha = 0.0;
    } else if median > 0.99 {
        alpha = 1.0;
    }
    let luma = dot(color.rgb, vec3<f32>(0.299, 0.587, 0.114));
    let gamma = mix(1.0, 1.0 / 2.2, luma);
    return pow(color.a * alpha, gamma);
}
