// Advanced blend modes (W3C Compositing and Blending, as PixiJS's blend-mode filters): the node's content
// (uTexture) over the backdrop it covered (uOriginal, a copy taken before it was drawn), both premultiplied. The
// pass writes the whole result (alpha included) over the backdrop's place.
struct BlendUniforms { uMode: vec4<f32>, };
@group(1) @binding(0) var<uniform> blendUniforms: BlendUniforms;

fn lum(c: vec3<f32>) -> f32 {
    return dot(c, vec3<f32>(0.3, 0.59, 0.11));
}

fn clipColor(c: vec3<f32>) -> vec3<f32> {
    let l = lum(c);
    let n = min(min(c.r, c.g), c.b);
    let x = max(max(c.r, c.g), c.b);
    var o = c;
    if (n < 0.0) {
        o = l + (o - l) * l / (l - n);
    }
    if (x > 1.0) {
        o = l + (o - l) * (1.0 - l) / (x - l);
    }
    return o;
}

fn setLum(c: vec3<f32>, l: f32) -> vec3<f32> {
    return clipColor(c + (l - lum(c)));
}

fn sat(c: vec3<f32>) -> f32 {
    return max(max(c.r, c.g), c.b) - min(min(c.r, c.g), c.b);
}

fn setSat(c: vec3<f32>, s: f32) -> vec3<f32> {
    let mx = max(max(c.r, c.g), c.b);
    let mn = min(min(c.r, c.g), c.b);
    if (mx <= mn) {
        return vec3<f32>(0.0);
    }
    return (c - mn) * s / (mx - mn);
}

fn burn(b: f32, s: f32) -> f32 {
    if (b >= 1.0) { return 1.0; }
    if (s <= 0.0) { return 0.0; }
    return 1.0 - min(1.0, (1.0 - b) / s);
}

fn dodge(b: f32, s: f32) -> f32 {
    if (b <= 0.0) { return 0.0; }
    if (s >= 1.0) { return 1.0; }
    return min(1.0, b / (1.0 - s));
}

fn softLight(b: f32, s: f32) -> f32 {
    if (s <= 0.5) {
        return b - (1.0 - 2.0 * s) * b * (1.0 - b);
    }
    var d = sqrt(b);
    if (b <= 0.25) {
        d = ((16.0 * b - 12.0) * b + 4.0) * b;
    }
    return b + (2.0 * s - 1.0) * (d - b);
}

fn hardLight(b: f32, s: f32) -> f32 {
    if (s <= 0.5) {
        return b * 2.0 * s;
    }
    let t = 2.0 * s - 1.0;
    return b + t - b * t;
}

fn separable(mode: i32, b: f32, s: f32) -> f32 {
    switch mode {
        case 8: { return burn(b, s); }
        case 9: { return dodge(b, s); }
        case 10: { return min(b, s); }
        case 11: { return abs(b - s); }
        case 12: { if (s <= 0.0) { return 1.0; } return min(b / s, 1.0); }
        case 13: { return b + s - 2.0 * b * s; }
        case 14: { return hardLight(b, s); }
        case 15: { return select(0.0, 1.0, b + s >= 1.0); }
        case 16: { return max(b, s); }
        case 17: { return max(b + s - 1.0, 0.0); }
        case 18: { return min(b + s, 1.0); }
        case 19: { return clamp(b + 2.0 * s - 1.0, 0.0, 1.0); }
        case 21: { return 1.0 - abs(1.0 - b - s); }
        case 22: { return hardLight(s, b); }
        case 23: {
            if (s < 0.5) { return min(b, 2.0 * s); }
            return max(b, 2.0 * s - 1.0);
        }
        case 25: { return softLight(b, s); }
        case 26: { return max(b - s, 0.0); }
        case 27: {
            if (s < 0.5) { return burn(b, 2.0 * s); }
            return dodge(b, 2.0 * (s - 0.5));
        }
        default: { return s; }
    }
}

fn blendColor(mode: i32, b: vec3<f32>, s: vec3<f32>) -> vec3<f32> {
    switch mode {
        case 20: { return setLum(b, lum(s)); }
        case 24: { return setLum(setSat(b, sat(s)), lum(b)); }
        case 28: { return setLum(s, lum(b)); }
        case 29: { return setLum(setSat(s, sat(b)), lum(b)); }
        default: {
            return vec3<f32>(separable(mode, b.r, s.r), separable(mode, b.g, s.g), separable(mode, b.b, s.b));
        }
    }
}

@fragment
fn mainFragment(in: VSOutput) -> @location(0) vec4<f32> {
    let src = textureSample(uTexture, uSampler, in.uv);
    let dst = textureSample(uOriginal, uSampler, in.uv);
    let mode = i32(blendUniforms.uMode.x + 0.5);
    let cs = select(vec3<f32>(0.0), src.rgb / src.a, src.a > 0.0);
    let cb = select(vec3<f32>(0.0), dst.rgb / dst.a, dst.a > 0.0);
    let mixed = clamp(blendColor(mode, cb, cs), vec3<f32>(0.0), vec3<f32>(1.0));
    let rgb = src.a * (1.0 - dst.a) * cs + src.a * dst.a * mixed + (1.0 - src.a) * dst.rgb;
    return vec4<f32>(rgb, src.a + dst.a * (1.0 - src.a));
}
