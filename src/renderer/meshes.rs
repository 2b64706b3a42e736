//! Custom mesh shaders: [`Renderer::create_mesh_shader`].

use super::Renderer;
use crate::{MeshLayout, MeshShader, Result};

impl Renderer {
    /// Checks and caches a custom mesh shader (PixiJS's `Shader` on a `Mesh`) for geometries of `layout`
    /// ([`MeshGeometry::layout`](crate::MeshGeometry::layout)).
    ///
    /// The source is appended to a prelude (`shaders/mesh_prelude.wgsl`) that declares the globals
    /// `globals.uTransform` (the node's space to clip space), `uColor` (tint times alpha, premultiplied),
    /// `uResolution` and `uFrame` (the texture's frame), the mesh's texture `uTexture` with `uSampler`, and the
    /// helpers `toClip(position)` and `frameUv(uv)`. The shader provides `@vertex fn mainVertex` reading the
    /// geometry's attributes by location (position at 0 and texture coordinate at 1, `vec2<f32>` each, then
    /// the geometry's own) and `@fragment fn mainFragment` returning premultiplied colour; its own uniform struct
    /// goes at `@group(1) @binding(0)` (at most 4,096 bytes) and up to four textures, each with a sampler, at
    /// `@group(1) @binding(1 + 2k)` and `@binding(2 + 2k)`.
    ///
    /// The module is cached by source and the vertex layout by its attributes (both ids go into the
    /// PipelineSystem's graphics key). A shader that does not parse or validate, binds what a mesh shader may
    /// not, or reads an attribute the layout lacks (or as another type) is
    /// [`Error::MeshShader`](crate::Error::MeshShader) with naga's message and the line where known.
    ///
    /// ```
    /// # fn main() -> stage2d::Result<()> {
    /// use stage2d::{Mesh, MeshGeometry, Node, Scene};
    /// let mut renderer = stage2d::Renderer::new_headless(Default::default())?;
    /// let plane = MeshGeometry::plane(64.0, 64.0, 8, 8)?;
    /// let shader = renderer.create_mesh_shader(
    ///     "struct Params { time: f32 };
    ///      @group(1) @binding(0) var<uniform> params: Params;
    ///      struct Out { @builtin(position) position: vec4<f32>, @location(0) uv: vec2<f32> };
    ///      @vertex fn mainVertex(@location(0) p: vec2<f32>, @location(1) uv: vec2<f32>) -> Out {
    ///          return Out(toClip(p + vec2<f32>(0.0, sin(params.time + p.x * 0.1) * 4.0)), uv);
    ///      }
    ///      @fragment fn mainFragment(in: Out) -> @location(0) vec4<f32> {
    ///          return textureSample(uTexture, uSampler, frameUv(in.uv)) * globals.uColor;
    ///      }",
    ///     &plane.layout(),
    /// )?;
    /// let mut scene = Scene::new();
    /// let mesh = Mesh::new(plane, renderer.white_texture()).with_shader(shader, &0.5f32.to_le_bytes(), &[]);
    /// scene.add(scene.root(), Node::mesh_of(mesh))?;
    /// # Ok(()) }
    /// ```
    pub fn create_mesh_shader(&mut self, source: &str, layout: &MeshLayout) -> Result<MeshShader> {
        self.alive()?;
        self.frame
            .meshes
            .create_shader(&mut self.pipelines, source, layout)
    }
}
