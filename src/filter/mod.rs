//! Filters, as values: what a [`Filter`] does ([`Effect`]: the built-in effects with PixiJS's parameters and
//! defaults, or a custom WGSL shader), its common settings (padding, resolution, antialiasing, blend mode), the
//! colour-matrix presets, and how an effect becomes GPU passes (`passes.rs`: programs and their uniform bytes).
//! CPU only: it may use `base/`. The walk (`frame/collect/filters/`) draws a filtered subtree into an
//! intermediate texture; the GPU side (`gpu/filters.rs`) runs the passes.

mod color_matrix;
pub(crate) mod passes;

pub use color_matrix::ColorMatrix;

/// Most pixels a glow or outline reaches (their shaders loop over it).
pub(crate) const MAX_REACH: f32 = 64.0;
/// Most padding a filter may ask for.
pub(crate) const MAX_PADDING: f32 = 4096.0;

use crate::{BlendMode, Color, NodeId, Texture};
use glam::Vec2;

/// A custom filter shader made by [`Renderer::create_filter_shader`](crate::Renderer::create_filter_shader): a
/// handle to the checked, cached WGSL of one renderer. Only stage2d makes them; one from another renderer is
/// refused (the filter is skipped and counted).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FilterShader {
    pub(crate) index: u32,
    /// The tag of the renderer that made it.
    pub(crate) owner: u32,
    /// Bytes the shader's `@group(1) @binding(0)` uniform struct holds (0 without one).
    pub(crate) uniform_size: u32,
    /// Textures the shader declares after its uniforms (`@group(1) @binding(1 + 2k)`, with a sampler each).
    pub(crate) textures: u8,
}

impl FilterShader {
    /// Bytes the shader's uniform struct holds (what [`CustomFilter::uniforms`] must give); 0 without one.
    pub fn uniform_size(&self) -> usize {
        self.uniform_size as usize
    }

    /// How many textures the shader samples beside its input.
    pub fn texture_count(&self) -> usize {
        self.textures as usize
    }
}

/// PixiJS's `BlurFilter`: a separable Gaussian blur, horizontal then vertical, each axis `quality` passes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Blur {
    /// Horizontal strength (PixiJS's `strengthX`), in pixels; 0 skips the horizontal passes.
    pub strength_x: f32,
    /// Vertical strength (`strengthY`); 0 skips the vertical passes.
    pub strength_y: f32,
    /// Passes per axis (PixiJS's `quality`), 1 to 32.
    pub quality: u32,
    /// Taps per pass: 5, 7, 9, 11, 13 or 15 (others round to the nearest).
    pub kernel_size: u32,
    /// PixiJS's legacy mode: every pass at `strength / quality` instead of halving.
    pub legacy: bool,
}

impl Default for Blur {
    fn default() -> Self {
        Blur {
            strength_x: 8.0,
            strength_y: 8.0,
            quality: 4,
            kernel_size: 5,
            legacy: false,
        }
    }
}

impl Blur {
    /// A blur of `strength` on both axes with PixiJS's other defaults (quality 4, kernel 5).
    pub fn new(strength: f32) -> Blur {
        Blur {
            strength_x: strength,
            strength_y: strength,
            ..Blur::default()
        }
    }
}

/// PixiJS's `DisplacementFilter`: pixels are moved by the red (x) and green (y) channels of a map sprite's
/// texture, as the sprite lies on the target.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Displacement {
    /// A sprite node whose texture and world transform give the map (usually detached or hidden: it is read,
    /// not drawn, by the filter).
    pub map: NodeId,
    /// Displacement in pixels at full channel value (PixiJS's default 20).
    pub scale: Vec2,
}

/// A drop shadow (the pixi-filters `DropShadowFilter`): the content's alpha, offset, coloured and blurred, drawn
/// under the content.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DropShadow {
    /// Offset of the shadow in pixels (default 4, 4).
    pub offset: Vec2,
    /// Shadow colour (default black).
    pub color: Color,
    /// Shadow opacity (default 0.5).
    pub alpha: f32,
    /// Blur strength in pixels (default 2).
    pub blur: f32,
    /// Blur passes per axis (default 3).
    pub quality: u32,
    /// Draw only the shadow, not the content.
    pub shadow_only: bool,
}

impl Default for DropShadow {
    fn default() -> Self {
        DropShadow {
            offset: Vec2::splat(4.0),
            color: Color::BLACK,
            alpha: 0.5,
            blur: 2.0,
            quality: 3,
            shadow_only: false,
        }
    }
}

/// A glow (the pixi-filters `GlowFilter`): light of `color` spread `distance` pixels around (and into) the
/// content's opaque parts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Glow {
    /// How far the glow reaches, in pixels (default 10, at most 64).
    pub distance: f32,
    /// Strength of the glow outside the content (default 4).
    pub outer_strength: f32,
    /// Strength of the glow inside the content (default 0).
    pub inner_strength: f32,
    /// Glow colour (default white).
    pub color: Color,
    /// Glow opacity (default 1).
    pub alpha: f32,
    /// Sampling density, 0 to 1 (default 0.1): more angles at higher quality.
    pub quality: f32,
    /// Draw only the glow, not the content.
    pub knockout: bool,
}

impl Default for Glow {
    fn default() -> Self {
        Glow {
            distance: 10.0,
            outer_strength: 4.0,
            inner_strength: 0.0,
            color: Color::WHITE,
            alpha: 1.0,
            quality: 0.1,
            knockout: false,
        }
    }
}

/// An outline (the pixi-filters `OutlineFilter`) of `thickness` pixels around the content.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outline {
    /// Thickness in pixels (default 1, at most 64).
    pub thickness: f32,
    /// Outline colour (default black).
    pub color: Color,
    /// Outline opacity (default 1).
    pub alpha: f32,
    /// Sampling density, 0 to 1 (default 0.1): more angles at higher quality.
    pub quality: f32,
    /// Draw only the outline, not the content.
    pub knockout: bool,
}

impl Default for Outline {
    fn default() -> Self {
        Outline {
            thickness: 1.0,
            color: Color::BLACK,
            alpha: 1.0,
            quality: 0.1,
            knockout: false,
        }
    }
}

/// A filter running a user's WGSL fragment shader (see [`Renderer::create_filter_shader`](crate::Renderer::create_filter_shader)
/// for what the shader may use), with its uniform bytes and textures.
#[derive(Clone, Debug, PartialEq)]
pub struct CustomFilter {
    /// The shader.
    pub shader: FilterShader,
    /// The bytes of the shader's uniform struct, exactly [`FilterShader::uniform_size`] long (laid out as WGSL
    /// lays the struct out: use `bytemuck` on a `#[repr(C)]` struct with the same fields and padding).
    pub uniforms: Vec<u8>,
    /// The textures the shader samples, in binding order ([`FilterShader::texture_count`] of them).
    pub textures: Vec<Texture>,
}

/// What a filter does.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Effect {
    /// PixiJS's `AlphaFilter`: the whole filtered subtree at one opacity (no overlap shows through).
    Alpha(f32),
    /// PixiJS's `BlurFilter`.
    Blur(Blur),
    /// PixiJS's `ColorMatrixFilter`.
    ColorMatrix(ColorMatrix),
    /// PixiJS's `DisplacementFilter`.
    Displacement(Displacement),
    /// PixiJS's `NoiseFilter`: `noise` (0 to 1, default 0.5) of random brightness, from `seed`.
    Noise {
        /// Amount of noise.
        noise: f32,
        /// Seed of the pattern.
        seed: f32,
    },
    /// A drop shadow.
    DropShadow(DropShadow),
    /// A glow.
    Glow(Glow),
    /// An outline.
    Outline(Outline),
    /// A user's WGSL shader.
    Custom(CustomFilter),
}

/// How a container is cached as a texture ([`Scene::set_cache_as_texture`](crate::Scene::set_cache_as_texture),
/// PixiJS's `cacheAsTexture({ resolution, antialias, scaleMode })`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CacheAsTexture {
    /// Texture pixels per pixel of the node's own space; `None` takes the target's scale factor.
    pub resolution: Option<f32>,
    /// Multisample the texture's content.
    pub antialias: bool,
    /// How the texture is filtered when drawn scaled.
    pub scale_mode: crate::ScaleMode,
}

/// Whether a filter's intermediate texture is multisampled (PixiJS's `antialias`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Antialias {
    /// Never (PixiJS's default).
    #[default]
    Off,
    /// Always (4x MSAA).
    On,
    /// As the target being drawn into.
    Inherit,
}

/// A filter on a node ([`Scene::set_filters`](crate::Scene::set_filters)): the node and its subtree are drawn
/// into an intermediate texture the size of their bounds plus the filters' padding, each filter runs as one or
/// more full-texture passes, and the result is drawn where the node was, with the last filter's blend mode.
///
/// ```
/// use stage2d::{Blur, ColorMatrix, Filter};
/// let mut grade = ColorMatrix::default();
/// grade.sepia(false);
/// let filters = vec![Filter::blur(4.0), Filter::color_matrix(grade).with_resolution(0.5)];
/// assert_eq!(filters[0].padding(), 8.0);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Filter {
    /// What the filter does.
    pub effect: Effect,
    /// Extra room around the bounds, in pixels; `None` takes the effect's own (a blur's reach, a glow's
    /// distance). PixiJS's `padding`.
    pub padding: Option<f32>,
    /// Pixels of the intermediate texture per scene pixel (PixiJS's `resolution`, default 1); `None` inherits
    /// the target's scale factor. A chain runs at the lowest resolution of its enabled filters.
    pub resolution: Option<f32>,
    /// Multisampling of the intermediate texture.
    pub antialias: Antialias,
    /// A disabled filter is skipped; a node whose filters are all disabled draws as if it had none.
    pub enabled: bool,
    /// How the result is drawn over what lies under it (the last enabled filter's counts).
    pub blend_mode: BlendMode,
    /// Whether the filtered area is cut to the target before the padding is added (PixiJS's
    /// `clipToViewport`, default on).
    pub clip_to_viewport: bool,
}

impl Filter {
    /// A filter doing `effect` with PixiJS's default settings.
    pub fn new(effect: Effect) -> Filter {
        Filter {
            effect,
            padding: None,
            resolution: Some(1.0),
            antialias: Antialias::Off,
            enabled: true,
            blend_mode: BlendMode::Normal,
            clip_to_viewport: true,
        }
    }

    /// PixiJS's `AlphaFilter`.
    pub fn alpha(alpha: f32) -> Filter {
        Filter::new(Effect::Alpha(alpha))
    }

    /// PixiJS's `BlurFilter` with `strength` on both axes (quality 4, kernel 5).
    pub fn blur(strength: f32) -> Filter {
        Filter::new(Effect::Blur(Blur::new(strength)))
    }

    /// A blur with every setting given.
    pub fn blur_with(blur: Blur) -> Filter {
        Filter::new(Effect::Blur(blur))
    }

    /// PixiJS's `ColorMatrixFilter`.
    pub fn color_matrix(matrix: ColorMatrix) -> Filter {
        Filter::new(Effect::ColorMatrix(matrix))
    }

    /// PixiJS's `DisplacementFilter` with the sprite `map` and `scale` pixels of displacement.
    pub fn displacement(map: NodeId, scale: f32) -> Filter {
        Filter::new(Effect::Displacement(Displacement {
            map,
            scale: Vec2::splat(scale),
        }))
    }

    /// PixiJS's `NoiseFilter`.
    pub fn noise(noise: f32, seed: f32) -> Filter {
        Filter::new(Effect::Noise { noise, seed })
    }

    /// A drop shadow.
    pub fn drop_shadow(shadow: DropShadow) -> Filter {
        Filter::new(Effect::DropShadow(shadow))
    }

    /// A glow.
    pub fn glow(glow: Glow) -> Filter {
        Filter::new(Effect::Glow(glow))
    }

    /// An outline of `thickness` pixels in `color`.
    pub fn outline(thickness: f32, color: Color) -> Filter {
        Filter::new(Effect::Outline(Outline {
            thickness,
            color,
            ..Outline::default()
        }))
    }

    /// A custom WGSL filter with its uniform bytes (none: an empty slice) and textures.
    pub fn custom(shader: FilterShader, uniforms: &[u8], textures: &[Texture]) -> Filter {
        Filter::new(Effect::Custom(CustomFilter {
            shader,
            uniforms: uniforms.to_vec(),
            textures: textures.to_vec(),
        }))
    }

    /// With `padding` pixels of room instead of the effect's own.
    pub fn with_padding(mut self, padding: f32) -> Filter {
        self.padding = Some(padding);
        self
    }

    /// At `resolution` pixels per scene pixel (`None`: the target's).
    pub fn with_resolution(mut self, resolution: impl Into<Option<f32>>) -> Filter {
        self.resolution = resolution.into();
        self
    }

    /// With multisampling as given.
    pub fn with_antialias(mut self, antialias: Antialias) -> Filter {
        self.antialias = antialias;
        self
    }

    /// Enabled or not.
    pub fn with_enabled(mut self, enabled: bool) -> Filter {
        self.enabled = enabled;
        self
    }

    /// Drawn with `mode`.
    pub fn with_blend_mode(mut self, mode: BlendMode) -> Filter {
        self.blend_mode = mode;
        self
    }

    /// Cut to the target before padding, or not.
    pub fn with_clip_to_viewport(mut self, clip: bool) -> Filter {
        self.clip_to_viewport = clip;
        self
    }

    /// The padding in effect: the one set, or the effect's own (PixiJS's rules: a blur's is twice its
    /// strength, a glow's its distance, an outline's its thickness). Never negative or non-finite.
    pub fn padding(&self) -> f32 {
        let own = match &self.effect {
            Effect::Blur(b) => b.strength_x.abs().max(b.strength_y.abs()) * 2.0,
            Effect::DropShadow(d) => d.offset.abs().max_element() + d.blur.abs() * 2.0 + 1.0,
            Effect::Glow(g) => g.distance.clamp(0.0, MAX_REACH),
            Effect::Outline(o) => o.thickness.clamp(0.0, MAX_REACH) + 1.0,
            _ => 0.0,
        };
        let p = self.padding.unwrap_or(own);
        if p.is_finite() {
            p.clamp(0.0, MAX_PADDING)
        } else {
            0.0
        }
    }

    /// Whether the filter's result depends only on the pixels around each pixel (not on where it lies on the
    /// target or on other textures): such filters may run once over many nodes packed into one texture.
    pub(crate) fn packable(&self) -> bool {
        matches!(
            self.effect,
            Effect::Alpha(_)
                | Effect::Blur(_)
                | Effect::ColorMatrix(_)
                | Effect::DropShadow(_)
                | Effect::Glow(_)
                | Effect::Outline(_)
        )
    }
}
