//! Custom filter shaders: [`Renderer::create_filter_shader`].

use super::Renderer;
use crate::{FilterShader, Result};

impl Renderer {
    /// Checks and caches a custom filter's WGSL fragment shader, for [`Filter::custom`](crate::Filter::custom).
    ///
    /// The source is appended to a prelude (`shaders/filters/prelude.wgsl`) that declares, in PixiJS's names,
    /// the filter globals `gfu` (`uInputSize`, `uInputPixel`, `uInputClamp`, `uOutputFrame`, `uGlobalFrame`,
    /// `uOutputTexture`), the input `uTexture` with `uSampler`, `uOriginal` (the input of the filter's first
    /// pass), the vertex output `VSOutput { position, uv }` and helpers between texture coordinates and pixels
    /// (`filterToPixel`, `pixelToFilter`, `filterToScreen`, `screenToFilter`, `sampleInput`). The shader
    /// provides `@fragment fn mainFragment(in: VSOutput) -> @location(0) vec4<f32>` returning premultiplied
    /// colour, and may declare its own uniform struct at `@group(1) @binding(0)` (at most 4,096 bytes) and up to
    /// four textures, each with a sampler, at `@group(1) @binding(1 + 2k)` and `@binding(2 + 2k)`.
    ///
    /// The module is cached by source (creating the same shader twice compiles it once) and gets an id in the
    /// PipelineSystem's graphics key; its pipeline is created here. A shader that does not parse or validate
    /// is [`Error::FilterShader`](crate::Error::FilterShader) with naga's message and the line in `source`; one
    /// that binds what the prelude or a filter does not have is the same error naming the binding.
    ///
    /// ```
    /// # fn main() -> stage2d::Result<()> {
    /// let mut renderer = stage2d::Renderer::new_headless(Default::default())?;
    /// let invert = renderer.create_filter_shader(
    ///     "struct Params { amount: f32 };
    ///      @group(1) @binding(0) var<uniform> params: Params;
    ///      @fragment fn mainFragment(in: VSOutput) -> @location(0) vec4<f32> {
    ///          let c = textureSample(uTexture, uSampler, in.uv);
    ///          return vec4<f32>(mix(c.rgb, c.a - c.rgb, params.amount), c.a);
    ///      }",
    /// )?;
    /// assert_eq!(invert.uniform_size(), 4);
    /// let filter = stage2d::Filter::custom(invert, &1.0f32.to_le_bytes(), &[]);
    /// # let _ = filter;
    /// let err = renderer.create_filter_shader("@fragment fn mainFragment() -> vec4<f32> { return 1; }");
    /// assert!(err.is_err());
    /// # Ok(()) }
    /// ```
    pub fn create_filter_shader(&mut self, source: &str) -> Result<FilterShader> {
        self.alive()?;
        self.frame
            .filters
            .create_shader(&mut self.pipelines, source)
    }
}
