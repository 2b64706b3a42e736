//! How a filter chain becomes GPU passes: each pass runs one program (a built-in WGSL fragment shader, or a
//! custom one) with its uniform bytes over the whole intermediate texture. Pure data: the GPU side
//! (`gpu/filters.rs`) turns programs into pipelines and bytes into uniform ranges.

use super::{Blur, Effect, Filter};
use crate::{BlendMode, TextureId};

pub(crate) use super::{MAX_PADDING, MAX_REACH};
/// Most blur passes per axis.
pub(crate) const MAX_QUALITY: u32 = 32;
/// Bytes of a built-in program's uniforms binding (every built-in struct fits).
pub(crate) const BUILTIN_UNIFORM_BYTES: u32 = 128;
/// Most bytes of a custom filter's uniform struct.
pub const MAX_CUSTOM_UNIFORM_BYTES: usize = 4096;
/// Most textures a custom filter may sample beside its input.
pub const MAX_CUSTOM_TEXTURES: usize = 4;

/// PixiJS's Gaussian weights per kernel size (the first half and the middle).
const GAUSSIAN: [&[f32]; 6] = [
    &[0.153388, 0.221461, 0.250301],
    &[0.071303, 0.131514, 0.189879, 0.214607],
    &[0.028532, 0.067234, 0.124009, 0.179044, 0.20236],
    &[0.0093, 0.028002, 0.065984, 0.121703, 0.175713, 0.198596],
    &[
        0.002406, 0.009255, 0.027867, 0.065666, 0.121117, 0.174868, 0.197641,
    ],
    &[
        0.000489, 0.002403, 0.009246, 0.02784, 0.065602, 0.120999, 0.174697, 0.197448,
    ],
];

/// A filter program: which WGSL fragment shader a pass runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Program {
    Alpha,
    /// One axis of the Gaussian blur with a kernel of `kernel` taps.
    Blur {
        horizontal: bool,
        kernel: u8,
    },
    ColorMatrix,
    Noise,
    Displacement,
    ShadowPrep,
    ShadowFinal,
    Glow,
    Outline,
    /// An alpha mask: the content times a mask texture's alpha or red channel.
    Mask,
    /// An advanced blend mode: the content over the backdrop copied under it.
    Blend,
    /// A user's shader: its index in the renderer's filter shaders.
    Custom(u32),
}

const PRELUDE: &str = include_str!("../../shaders/filters/prelude.wgsl");

impl Program {
    /// The full WGSL source (prelude included) and fragment entry point of a built-in program.
    pub(crate) fn builtin_source(self) -> Option<(String, &'static str)> {
        let body = match self {
            Program::Alpha => include_str!("../../shaders/filters/alpha.wgsl").to_string(),
            Program::ColorMatrix => {
                include_str!("../../shaders/filters/color_matrix.wgsl").to_string()
            }
            Program::Noise => include_str!("../../shaders/filters/noise.wgsl").to_string(),
            Program::Displacement => {
                include_str!("../../shaders/filters/displacement.wgsl").to_string()
            }
            Program::ShadowPrep | Program::ShadowFinal => {
                include_str!("../../shaders/filters/shadow.wgsl").to_string()
            }
            Program::Glow => include_str!("../../shaders/filters/glow.wgsl").to_string(),
            Program::Outline => include_str!("../../shaders/filters/outline.wgsl").to_string(),
            Program::Mask => include_str!("../../shaders/filters/mask.wgsl").to_string(),
            Program::Blend => include_str!("../../shaders/filters/blend.wgsl").to_string(),
            Program::Blur { horizontal, kernel } => blur_source(horizontal, kernel),
            Program::Custom(_) => return None,
        };
        let entry = match self {
            Program::ShadowFinal => "finalFragment",
            _ => "mainFragment",
        };
        Some((format!("{PRELUDE}\n{body}"), entry))
    }

    /// Textures the program binds in group 1 after its uniforms (built-ins: the displacement map).
    pub(crate) fn builtin_textures(self) -> u8 {
        match self {
            Program::Displacement | Program::Mask => 1,
            _ => 0,
        }
    }
}

/// The prelude prepended to custom filter shaders.
pub(crate) fn prelude() -> &'static str {
    PRELUDE
}

fn blur_source(horizontal: bool, kernel: u8) -> String {
    let k = kernel as usize;
    let half = GAUSSIAN[(k - 5) / 2];
    let taps: Vec<String> = (0..k)
        .map(|i| {
            let j = if i < half.len() { i } else { k - i - 1 };
            let offset = i as f32 - (half.len() as f32 - 1.0);
            format!(
                "    color += textureSampleLevel(uTexture, uSampler, in.uv + {offset:.1} * step, 0.0) * {:?};",
                half[j]
            )
        })
        .collect();
    let direction = if horizontal {
        "vec2<f32>(gfu.uInputSize.z, 0.0)"
    } else {
        "vec2<f32>(0.0, gfu.uInputSize.w)"
    };
    include_str!("../../shaders/filters/blur.wgsl")
        .replace("%TAPS%", &taps.join("\n"))
        .replace("DIRECTION", direction)
}

/// One pass of a filter chain.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Pass {
    pub program: Program,
    /// Its uniform bytes in the chain's byte arena.
    pub params: (u32, u32),
    /// Textures bound after the uniforms (displacement map, a custom filter's textures).
    pub textures: [Option<TextureId>; MAX_CUSTOM_TEXTURES],
    /// Whether this pass begins a filter (its input is the filter's original, bound as `uOriginal` by the
    /// filter's later passes).
    pub first_of_filter: bool,
}

/// Where a displacement map lies, for [`push_passes`]: the filter's texture coordinates to the map's, the
/// rotation of the map sprite, and its texture.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DisplacementMap {
    /// Columns of the 3x3 matrix (x, y, translation), as WGSL's `mat3x3<f32>` lays them out (padded to 4).
    pub matrix: [[f32; 4]; 3],
    pub rotation: [f32; 4],
    pub texture: TextureId,
}

fn push_f32s(arena: &mut Vec<u8>, values: &[f32]) -> (u32, u32) {
    let start = arena.len() as u32;
    for v in values {
        arena.extend_from_slice(&v.to_le_bytes());
    }
    (start, arena.len() as u32 - start)
}

fn finite(values: &[f32]) -> bool {
    values.iter().all(|v| v.is_finite())
}

/// The passes of a blur of `blur` (after checks) into `out`; `px` texture pixels per scene pixel.
fn blur_passes(blur: &Blur, px: f32, out: &mut Vec<Pass>, arena: &mut Vec<u8>, first: &mut bool) {
    let kernel = match blur.kernel_size {
        0..=5 => 5,
        6..=7 => 7,
        8..=9 => 9,
        10..=11 => 11,
        12..=13 => 13,
        _ => 15,
    };
    let passes = blur.quality.clamp(1, MAX_QUALITY);
    for (horizontal, strength) in [(true, blur.strength_x), (false, blur.strength_y)] {
        let s = strength.abs().min(MAX_PADDING);
        if s == 0.0 {
            continue;
        }
        let s = s * px;
        let mut pass_strength = if blur.legacy {
            s / passes as f32
        } else {
            // PixiJS's optimised blur: halving strengths whose squares sum to the strength's.
            let (mut sum, mut c) = (1.0f32, 0.5f32);
            for _ in 1..passes {
                sum += c * c;
                c *= 0.5;
            }
            s / sum.sqrt()
        };
        for _ in 0..passes {
            let params = push_f32s(arena, &[pass_strength]);
            out.push(Pass {
                program: Program::Blur { horizontal, kernel },
                params,
                textures: [None; MAX_CUSTOM_TEXTURES],
                first_of_filter: std::mem::take(first),
            });
            if !blur.legacy {
                pass_strength *= 0.5;
            }
        }
    }
}

/// Appends the passes of `filter` to `out` (uniform bytes to `arena`); `map` gives a displacement filter's map,
/// `px` the texture pixels per scene pixel (settings in pixels are scene pixels, as in PixiJS). `Err` names why
/// the filter cannot run (non-finite parameters, a custom filter's bytes of the wrong size, a missing map): the
/// caller skips it and counts.
pub(crate) fn push_passes(
    filter: &Filter,
    map: Option<DisplacementMap>,
    px: f32,
    out: &mut Vec<Pass>,
    arena: &mut Vec<u8>,
) -> Result<(), &'static str> {
    let single = |program, values: &[f32], out: &mut Vec<Pass>, arena: &mut Vec<u8>| {
        let params = push_f32s(arena, values);
        out.push(Pass {
            program,
            params,
            textures: [None; MAX_CUSTOM_TEXTURES],
            first_of_filter: true,
        });
    };
    match &filter.effect {
        Effect::Alpha(a) => {
            if !a.is_finite() {
                return Err("a non-finite alpha");
            }
            single(Program::Alpha, &[a.clamp(0.0, 1.0)], out, arena);
        }
        Effect::Blur(b) => {
            if !finite(&[b.strength_x, b.strength_y]) {
                return Err("a non-finite blur strength");
            }
            let before = out.len();
            let mut first = true;
            blur_passes(b, px, out, arena, &mut first);
            if out.len() == before {
                // No strength on either axis: the input as it is.
                single(Program::Alpha, &[1.0], out, arena);
            }
        }
        Effect::ColorMatrix(m) => {
            if !finite(&m.matrix) || !m.alpha.is_finite() {
                return Err("a non-finite colour matrix");
            }
            let mut v = [0.0f32; 24];
            v[..20].copy_from_slice(&m.matrix);
            v[20] = m.alpha.clamp(0.0, 1.0);
            single(Program::ColorMatrix, &v, out, arena);
        }
        Effect::Noise { noise, seed } => {
            if !finite(&[*noise, *seed]) {
                return Err("a non-finite noise or seed");
            }
            single(Program::Noise, &[*noise, *seed], out, arena);
        }
        Effect::Displacement(d) => {
            let Some(map) = map else {
                return Err("its displacement map is not a live sprite with a live texture");
            };
            if !finite(&[d.scale.x, d.scale.y]) {
                return Err("a non-finite displacement scale");
            }
            let m = map.matrix;
            let scale = d.scale.clamp(-PIXEL_BOUND, PIXEL_BOUND) * px;
            let v = [
                m[0][0],
                m[0][1],
                m[0][2],
                0.0,
                m[1][0],
                m[1][1],
                m[1][2],
                0.0,
                m[2][0],
                m[2][1],
                m[2][2],
                0.0,
                scale.x,
                scale.y,
                0.0,
                0.0,
                map.rotation[0],
                map.rotation[1],
                map.rotation[2],
                map.rotation[3],
            ];
            let params = push_f32s(arena, &v);
            let mut textures = [None; MAX_CUSTOM_TEXTURES];
            textures[0] = Some(map.texture);
            out.push(Pass {
                program: Program::Displacement,
                params,
                textures,
                first_of_filter: true,
            });
        }
        Effect::DropShadow(d) => {
            let c = d.color;
            if !finite(&[d.offset.x, d.offset.y, d.alpha, d.blur, c.r, c.g, c.b, c.a]) {
                return Err("a non-finite drop shadow setting");
            }
            let a = (d.alpha * c.a).clamp(0.0, 1.0);
            let offset = d.offset.clamp(-PIXEL_BOUND, PIXEL_BOUND) * px;
            let params = push_f32s(
                arena,
                &[
                    c.r * a,
                    c.g * a,
                    c.b * a,
                    a,
                    offset.x,
                    offset.y,
                    d.shadow_only as u8 as f32,
                    0.0,
                ],
            );
            out.push(Pass {
                program: Program::ShadowPrep,
                params,
                textures: [None; MAX_CUSTOM_TEXTURES],
                first_of_filter: true,
            });
            let mut first = false;
            let blur = Blur {
                strength_x: d.blur,
                strength_y: d.blur,
                quality: d.quality,
                kernel_size: 5,
                legacy: false,
            };
            blur_passes(&blur, px, out, arena, &mut first);
            out.push(Pass {
                program: Program::ShadowFinal,
                params,
                textures: [None; MAX_CUSTOM_TEXTURES],
                first_of_filter: false,
            });
        }
        Effect::Glow(g) => {
            let c = g.color;
            if !finite(&[
                g.distance,
                g.outer_strength,
                g.inner_strength,
                g.alpha,
                g.quality,
            ]) {
                return Err("a non-finite glow setting");
            }
            let distance = (g.distance * px).clamp(0.0, MAX_REACH).round();
            let quality = g.quality.clamp(0.01, 1.0);
            let step = (1.0 / (quality * distance.max(1.0))).clamp(0.05, std::f32::consts::TAU);
            single(
                Program::Glow,
                &[
                    c.r,
                    c.g,
                    c.b,
                    1.0,
                    distance,
                    step,
                    g.inner_strength.clamp(0.0, 1e4),
                    g.outer_strength.clamp(0.0, 1e4),
                    g.alpha.clamp(0.0, 1.0),
                    g.knockout as u8 as f32,
                    0.0,
                    0.0,
                ],
                out,
                arena,
            );
        }
        Effect::Outline(o) => {
            let c = o.color;
            if !finite(&[o.thickness, o.alpha, o.quality]) {
                return Err("a non-finite outline setting");
            }
            let samples = (o.quality.clamp(0.0, 1.0) * 100.0).max(1.0);
            single(
                Program::Outline,
                &[
                    c.r,
                    c.g,
                    c.b,
                    1.0,
                    (o.thickness * px).clamp(0.0, MAX_REACH),
                    std::f32::consts::TAU / samples,
                    o.alpha.clamp(0.0, 1.0),
                    o.knockout as u8 as f32,
                ],
                out,
                arena,
            );
        }
        Effect::Custom(c) => {
            if c.uniforms.len() != c.shader.uniform_size as usize {
                return Err("its uniform bytes are not the size of the shader's uniform struct");
            }
            if c.textures.len() != c.shader.textures as usize {
                return Err("it gives another number of textures than the shader samples");
            }
            let start = arena.len() as u32;
            arena.extend_from_slice(&c.uniforms);
            let mut textures = [None; MAX_CUSTOM_TEXTURES];
            for (t, tex) in textures.iter_mut().zip(&c.textures) {
                *t = Some(tex.id());
            }
            out.push(Pass {
                program: Program::Custom(c.shader.index),
                params: (start, c.uniforms.len() as u32),
                textures,
                first_of_filter: true,
            });
        }
    }
    Ok(())
}

/// The bound of offsets and scales (pixels, either sign): far past any target, short of overflowing a texture
/// coordinate.
const PIXEL_BOUND: glam::Vec2 = glam::Vec2::splat(MAX_PADDING);

/// What a chain of filters shares: the lowest resolution of the enabled ones (`None`: the target's), the sum of
/// their paddings, antialiasing, viewport clipping and the last one's blend mode. `None` when none is enabled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ChainSettings {
    pub resolution: Option<f32>,
    pub padding: f32,
    pub antialias: super::Antialias,
    pub clip_to_viewport: bool,
    pub blend: BlendMode,
    pub packable: bool,
}

impl ChainSettings {
    pub(crate) fn of(filters: &[Filter]) -> Option<ChainSettings> {
        let mut s: Option<ChainSettings> = None;
        for f in filters.iter().filter(|f| f.enabled) {
            let res = f
                .resolution
                .filter(|r| r.is_finite() && *r > 0.0)
                .map(|r| r.clamp(1.0 / 64.0, 8.0));
            let c = s.get_or_insert(ChainSettings {
                resolution: res,
                padding: 0.0,
                antialias: f.antialias,
                clip_to_viewport: true,
                blend: BlendMode::Normal,
                packable: true,
            });
            c.resolution = match (c.resolution, res) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            c.padding = (c.padding + f.padding()).min(MAX_PADDING);
            c.antialias = match (c.antialias, f.antialias) {
                (super::Antialias::Off, _) | (_, super::Antialias::Off) => super::Antialias::Off,
                (super::Antialias::Inherit, _) | (_, super::Antialias::Inherit) => {
                    super::Antialias::Inherit
                }
                _ => super::Antialias::On,
            };
            c.clip_to_viewport &= f.clip_to_viewport;
            c.blend = f.blend_mode.resolve(BlendMode::Normal);
            c.packable &= f.packable();
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::{ColorMatrix, Filter};

    #[test]
    fn blur_passes_halve_their_strength_and_keep_the_total() {
        let mut out = Vec::new();
        let mut arena = Vec::new();
        push_passes(&Filter::blur(8.0), None, 1.0, &mut out, &mut arena).unwrap();
        assert_eq!(out.len(), 8, "4 horizontal, 4 vertical");
        assert!(out[0].first_of_filter && !out[1].first_of_filter);
        let s: Vec<f32> = out
            .iter()
            .map(|p| f32::from_le_bytes(arena[p.params.0 as usize..][..4].try_into().unwrap()))
            .collect();
        let total: f32 = s[..4].iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((total - 8.0).abs() < 1e-4, "{s:?}");
        assert_eq!(s[1], s[0] / 2.0);
        // Legacy: equal passes.
        let mut legacy = Filter::blur(8.0);
        if let Effect::Blur(b) = &mut legacy.effect {
            b.legacy = true;
        }
        out.clear();
        push_passes(&legacy, None, 1.0, &mut out, &mut arena).unwrap();
        assert_eq!(out.len(), 8);
    }

    #[test]
    fn bad_parameters_are_refused_not_run() {
        let mut out = Vec::new();
        let mut arena = Vec::new();
        assert!(push_passes(&Filter::alpha(f32::NAN), None, 1.0, &mut out, &mut arena).is_err());
        assert!(push_passes(
            &Filter::blur(f32::INFINITY),
            None,
            1.0,
            &mut out,
            &mut arena
        )
        .is_err());
        let mut m = ColorMatrix::default();
        m.matrix[3] = f32::NAN;
        assert!(push_passes(&Filter::color_matrix(m), None, 1.0, &mut out, &mut arena).is_err());
        assert!(out.is_empty());
        // Huge and negative values are clamped, not refused.
        let mut huge = crate::filter::Blur::new(-1e30);
        huge.quality = u32::MAX;
        push_passes(&Filter::blur_with(huge), None, 1.0, &mut out, &mut arena).unwrap();
        assert_eq!(out.len(), 2 * MAX_QUALITY as usize);
        assert_eq!(Filter::blur(f32::NAN).padding(), 0.0);
        assert_eq!(Filter::blur(1e30).padding(), MAX_PADDING);
    }

    #[test]
    fn chain_settings_take_the_lowest_resolution_and_the_sum_of_paddings() {
        let chain = [
            Filter::blur(4.0),
            Filter::alpha(0.5).with_resolution(0.5).with_padding(3.0),
            Filter::noise(0.5, 1.0).with_enabled(false),
        ];
        let s = ChainSettings::of(&chain).unwrap();
        assert_eq!(s.resolution, Some(0.5));
        assert_eq!(s.padding, 11.0);
        assert!(s.packable);
        assert!(ChainSettings::of(&[Filter::alpha(1.0).with_enabled(false)]).is_none());
        let s = ChainSettings::of(&[Filter::noise(0.5, 1.0)]).unwrap();
        assert!(!s.packable);
    }

    #[test]
    fn every_builtin_program_parses() {
        let programs = [
            Program::Alpha,
            Program::ColorMatrix,
            Program::Noise,
            Program::Displacement,
            Program::ShadowPrep,
            Program::ShadowFinal,
            Program::Glow,
            Program::Outline,
            Program::Mask,
            Program::Blend,
            Program::Blur {
                horizontal: true,
                kernel: 5,
            },
            Program::Blur {
                horizontal: false,
                kernel: 15,
            },
        ];
        for p in programs {
            let (src, entry) = p.builtin_source().unwrap();
            let module = naga::front::wgsl::parse_str(&src)
                .unwrap_or_else(|e| panic!("{p:?}: {}", e.emit_to_string(&src)));
            naga::valid::Validator::new(
                naga::valid::ValidationFlags::all(),
                naga::valid::Capabilities::default(),
            )
            .validate(&module)
            .unwrap_or_else(|e| panic!("{p:?}: {}", e.emit_to_string(&src)));
            assert!(module.entry_points.iter().any(|e| e.name == entry));
        }
    }
}
