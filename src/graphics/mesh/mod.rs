//! Meshes: a texture on the user's own triangles (PixiJS's `Mesh`, `MeshGeometry`), and the geometries PixiJS
//! builds for it: a grid of movable vertices (`MeshPlane`), a strip along a list of points (`MeshRope`) and a
//! plane mapped onto four corners (`PerspectiveMesh`).
//!
//! A mesh node holds its geometry behind an `Arc`: nodes may share one, and changing it through
//! [`NodeProps::mesh_mut`](crate::NodeProps::mesh_mut) copies it first only while it is shared. With the default
//! shader, meshes are drawn like shapes: their vertices join the frame's vertex stream and batch with sprites and
//! shapes (one draw call for many meshes of a few textures), and only the vertices that changed are uploaded.

use crate::{Error, Result, Texture};
use glam::Vec2;
use std::sync::Arc;

mod builders;

/// Most vertices one geometry holds (a 2048x2048 plane).
pub const MAX_MESH_VERTICES: usize = 1 << 22;

/// How a geometry's indices make triangles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MeshTopology {
    /// Each three indices make a triangle.
    #[default]
    TriangleList,
    /// Each index after the second makes a triangle with the two before it.
    TriangleStrip,
}

/// A mesh's vertices (positions and texture coordinates, in the node's space and in 0..1 of the texture's
/// frame) and the indices that join them into triangles. Checked when made: [`MeshGeometry::new`].
#[derive(Clone, Debug, PartialEq)]
pub struct MeshGeometry {
    positions: Vec<Vec2>,
    uvs: Vec<Vec2>,
    indices: Vec<u32>,
    topology: MeshTopology,
    /// The indices as a triangle list (a strip's triangles, each turned to keep its winding).
    list: Vec<u32>,
    /// The positions' bounds, `None` when some position is not finite (the mesh is then not drawn).
    bounds: Option<(Vec2, Vec2)>,
    /// Further vertex attributes for custom shaders, by shader location.
    attributes: Vec<MeshAttribute>,
    /// Changes with every change to the vertices or indices (custom-shader meshes upload their buffers again).
    version: u64,
}

/// A vertex attribute beside the position (`@location(0)`, `vec2<f32>`) and texture coordinate (`@location(1)`,
/// `vec2<f32>`), for custom shaders: one value of `format` a vertex, at `location` (2 to 15).
#[derive(Clone, Debug, PartialEq)]
pub struct MeshAttribute {
    /// The shader location.
    pub location: u32,
    /// The format of each value.
    pub format: wgpu::VertexFormat,
    /// The values, one a vertex, tightly packed.
    pub data: Vec<u8>,
}

/// The vertex layout of a geometry: each attribute's location and format (position and texture coordinate
/// first). Custom mesh shaders are made for one ([`MeshGeometry::layout`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MeshLayout {
    pub(crate) attributes: Vec<(u32, wgpu::VertexFormat)>,
}

impl MeshLayout {
    /// The attributes: (shader location, format), position and texture coordinate first.
    pub fn attributes(&self) -> &[(u32, wgpu::VertexFormat)] {
        &self.attributes
    }

    /// Bytes a vertex takes, interleaved, each attribute aligned to 4 bytes.
    pub(crate) fn stride(&self) -> u64 {
        self.attributes
            .iter()
            .map(|(_, f)| f.size().next_multiple_of(4))
            .sum()
    }
}

fn next_version() -> u64 {
    static VERSION: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    VERSION.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

fn invalid(why: impl Into<String>) -> Error {
    Error::InvalidMesh(why.into())
}

/// Bounds of `points`, `None` if one is not finite.
fn bounds_of(points: &[Vec2]) -> Option<(Vec2, Vec2)> {
    let mut lo = Vec2::splat(f32::INFINITY);
    let mut hi = Vec2::splat(f32::NEG_INFINITY);
    for p in points {
        if !p.is_finite() {
            return None;
        }
        lo = lo.min(*p);
        hi = hi.max(*p);
    }
    Some((lo, hi))
}

impl MeshGeometry {
    /// A geometry of `positions` with their texture coordinates `uvs` (one each), joined by `indices`.
    ///
    /// Errors ([`Error::InvalidMesh`]): positions and texture coordinates of different lengths, more than
    /// [`MAX_MESH_VERTICES`], an index past the last vertex, a list whose length is not a multiple of three, a
    /// strip of one or two indices, a position or texture coordinate that is not finite.
    pub fn new(
        positions: Vec<Vec2>,
        uvs: Vec<Vec2>,
        indices: Vec<u32>,
        topology: MeshTopology,
    ) -> Result<MeshGeometry> {
        if positions.len() != uvs.len() {
            return Err(invalid(format!(
                "{} positions but {} texture coordinates",
                positions.len(),
                uvs.len()
            )));
        }
        if positions.len() > MAX_MESH_VERTICES {
            return Err(invalid(format!(
                "{} vertices (at most {MAX_MESH_VERTICES})",
                positions.len()
            )));
        }
        if let Some(i) = indices.iter().find(|&&i| i as usize >= positions.len()) {
            return Err(invalid(format!(
                "index {i} past the last of {} vertices",
                positions.len()
            )));
        }
        match topology {
            MeshTopology::TriangleList if !indices.len().is_multiple_of(3) => {
                return Err(invalid(format!(
                    "a triangle list of {} indices (not a multiple of 3)",
                    indices.len()
                )))
            }
            MeshTopology::TriangleStrip if matches!(indices.len(), 1 | 2) => {
                return Err(invalid(format!(
                    "a triangle strip of {} indices (at least 3)",
                    indices.len()
                )))
            }
            _ => {}
        }
        if uvs.iter().any(|u| !u.is_finite()) {
            return Err(invalid("a texture coordinate is not a finite number"));
        }
        let bounds = bounds_of(&positions);
        if bounds.is_none() {
            return Err(invalid("a position is not a finite number"));
        }
        let mut g = MeshGeometry {
            positions,
            uvs,
            indices,
            topology,
            list: Vec::new(),
            bounds,
            attributes: Vec::new(),
            version: next_version(),
        };
        g.make_list();
        Ok(g)
    }

    /// Adds a vertex attribute for custom shaders (see [`MeshAttribute`]): `data` holds one value of `format`
    /// for each vertex. Errors: a location outside 2..=15 or already used, data of another length.
    pub fn with_attribute(
        mut self,
        location: u32,
        format: wgpu::VertexFormat,
        data: Vec<u8>,
    ) -> Result<MeshGeometry> {
        if !(2..=15).contains(&location) || self.attributes.iter().any(|a| a.location == location) {
            return Err(invalid(format!(
                "attribute location {location} (2 to 15, each once; 0 and 1 are the position and texture coordinate)"
            )));
        }
        let want = format.size() as usize * self.positions.len();
        if data.len() != want {
            return Err(invalid(format!(
                "attribute {location}: {} bytes for {} vertices of {format:?} ({want} expected)",
                data.len(),
                self.positions.len()
            )));
        }
        self.attributes.push(MeshAttribute {
            location,
            format,
            data,
        });
        self.attributes.sort_by_key(|a| a.location);
        self.version = next_version();
        Ok(self)
    }

    /// The further attributes, by location.
    pub fn attributes(&self) -> &[MeshAttribute] {
        &self.attributes
    }

    /// The vertex layout custom shaders for this geometry are made for.
    pub fn layout(&self) -> MeshLayout {
        let mut attributes = vec![
            (0, wgpu::VertexFormat::Float32x2),
            (1, wgpu::VertexFormat::Float32x2),
        ];
        attributes.extend(self.attributes.iter().map(|a| (a.location, a.format)));
        MeshLayout { attributes }
    }

    /// Whether [`MeshGeometry::layout`] is `layout` (without building it).
    pub(crate) fn has_layout(&self, layout: &MeshLayout) -> bool {
        let a = &layout.attributes;
        a.len() == self.attributes.len() + 2
            && a[0] == (0, wgpu::VertexFormat::Float32x2)
            && a[1] == (1, wgpu::VertexFormat::Float32x2)
            && a[2..]
                .iter()
                .zip(&self.attributes)
                .all(|(l, m)| *l == (m.location, m.format))
    }

    /// A number that changes whenever the vertices or indices change.
    pub(crate) fn version(&self) -> u64 {
        self.version
    }

    /// The vertices interleaved in [`MeshGeometry::layout`]'s order (each attribute padded to 4 bytes).
    pub(crate) fn interleaved(&self) -> Vec<u8> {
        let stride = self.layout().stride() as usize;
        let mut out = Vec::with_capacity(stride * self.positions.len());
        for i in 0..self.positions.len() {
            out.extend_from_slice(bytemuck::bytes_of(&self.positions[i]));
            out.extend_from_slice(bytemuck::bytes_of(&self.uvs[i]));
            for a in &self.attributes {
                let n = a.format.size() as usize;
                out.extend_from_slice(&a.data[i * n..(i + 1) * n]);
                out.resize(out.len().next_multiple_of(4), 0);
            }
        }
        out
    }

    fn make_list(&mut self) {
        self.list.clear();
        match self.topology {
            MeshTopology::TriangleList => self.list.extend_from_slice(&self.indices),
            MeshTopology::TriangleStrip => {
                for (k, w) in self.indices.windows(3).enumerate() {
                    // Odd triangles of a strip are wound the other way: turn them back.
                    match k % 2 {
                        0 => self.list.extend_from_slice(&[w[0], w[1], w[2]]),
                        _ => self.list.extend_from_slice(&[w[1], w[0], w[2]]),
                    }
                }
            }
        }
    }

    /// The vertex positions, in the node's space.
    pub fn positions(&self) -> &[Vec2] {
        &self.positions
    }

    /// The texture coordinates, 0..1 across the texture's frame.
    pub fn uvs(&self) -> &[Vec2] {
        &self.uvs
    }

    /// The indices, as given.
    pub fn indices(&self) -> &[u32] {
        &self.indices
    }

    /// How the indices make triangles.
    pub fn topology(&self) -> MeshTopology {
        self.topology
    }

    /// The indices as a triangle list (a strip's triangles in order).
    pub(crate) fn triangles(&self) -> &[u32] {
        &self.list
    }

    /// The positions' bounding box (min, max); `None` when a position is not finite (the mesh is then skipped
    /// when drawn, counted in `FrameStats::nodes_skipped`).
    pub fn bounds(&self) -> Option<(Vec2, Vec2)> {
        self.bounds
    }

    /// Changes the positions in place (a waving plane, a moving rope): the vertex count stays. Only the
    /// vertices that changed are uploaded.
    pub fn update_positions(&mut self, f: impl FnOnce(&mut [Vec2])) {
        f(&mut self.positions);
        self.bounds = bounds_of(&self.positions);
        self.version = next_version();
    }

    /// Changes the texture coordinates in place; one that is not finite becomes 0.
    pub fn update_uvs(&mut self, f: impl FnOnce(&mut [Vec2])) {
        f(&mut self.uvs);
        for u in &mut self.uvs {
            if !u.is_finite() {
                *u = Vec2::ZERO;
            }
        }
        self.version = next_version();
    }

    /// PixiJS's `buildGeometryFromPath`: the triangles of `context`'s fills and strokes (curves within a quarter
    /// of a local pixel) as one geometry, texture coordinates spanning its bounds (0..1); colours and fill
    /// textures are not kept (the mesh's texture and tint draw it). Errors: a context with nothing to triangulate,
    /// or more than [`MAX_MESH_VERTICES`].
    pub fn from_graphics(context: &crate::GraphicsContext) -> Result<MeshGeometry> {
        let (mesh, _) = crate::graphics::tessellate::tessellate(context, 0.25);
        if mesh.positions.is_empty() {
            return Err(invalid("a graphics context with nothing to triangulate"));
        }
        let (lo, hi) = bounds_of(&mesh.positions)
            .ok_or_else(|| invalid("a graphics context of positions that are not finite"))?;
        let size = (hi - lo).max(Vec2::splat(f32::MIN_POSITIVE));
        let uvs = mesh.positions.iter().map(|p| (*p - lo) / size).collect();
        MeshGeometry::new(
            mesh.positions,
            uvs,
            mesh.indices,
            MeshTopology::TriangleList,
        )
    }

    /// Whether the local point `p` lies in one of the triangles.
    pub fn contains(&self, p: Vec2) -> bool {
        let Some((lo, hi)) = self.bounds else {
            return false;
        };
        if !(p.cmpge(lo).all() && p.cmple(hi).all()) {
            return false;
        }
        self.list.chunks_exact(3).any(|t| {
            let [a, b, c] = [0, 1, 2].map(|k| self.positions[t[k] as usize]);
            in_triangle(p, a, b, c)
        })
    }
}

/// Whether `p` lies in the triangle `a b c` (either winding, edges included).
fn in_triangle(p: Vec2, a: Vec2, b: Vec2, c: Vec2) -> bool {
    let d1 = (b - a).perp_dot(p - a);
    let d2 = (c - b).perp_dot(p - b);
    let d3 = (a - c).perp_dot(p - c);
    let neg = d1 < 0.0 || d2 < 0.0 || d3 < 0.0;
    let pos = d1 > 0.0 || d2 > 0.0 || d3 > 0.0;
    !(neg && pos)
}

/// A mesh node's content: a geometry (shared between nodes through the `Arc`) showing a texture.
#[derive(Clone, Debug, PartialEq)]
pub struct Mesh {
    /// The triangles; change them with `Arc::make_mut` (copied first while shared).
    pub geometry: Arc<MeshGeometry>,
    /// The texture (or sheet frame) the texture coordinates span.
    pub texture: Texture,
    /// A custom shader with its uniforms and textures (`None`: the default shader, batched with sprites).
    pub shader: Option<MeshShading>,
}

/// A custom mesh shader made by [`Renderer::create_mesh_shader`](crate::Renderer::create_mesh_shader): a handle
/// to the checked, cached WGSL of one renderer, made for one vertex layout. One from another renderer, or used
/// on a geometry of another layout, is skipped and counted.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MeshShader {
    pub(crate) index: u32,
    pub(crate) owner: u32,
    pub(crate) uniform_size: u32,
    pub(crate) textures: u8,
    pub(crate) layout: MeshLayout,
}

impl MeshShader {
    /// Bytes the shader's `@group(1) @binding(0)` uniform struct holds (0 without one).
    pub fn uniform_size(&self) -> usize {
        self.uniform_size as usize
    }

    /// How many textures the shader declares in group 1 (beside the mesh's own texture).
    pub fn texture_count(&self) -> usize {
        self.textures as usize
    }

    /// The vertex layout it was made for.
    pub fn layout(&self) -> &MeshLayout {
        &self.layout
    }
}

/// A custom shader on a mesh: the shader, its uniform bytes (the shader's uniform struct, as laid out in WGSL;
/// change them every frame: nothing is created) and its textures.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshShading {
    /// The shader.
    pub shader: MeshShader,
    /// Its uniform struct's bytes ([`MeshShader::uniform_size`] of them).
    pub uniforms: Vec<u8>,
    /// Its textures ([`MeshShader::texture_count`] of them), at `@group(1) @binding(1 + 2k)`.
    pub textures: Vec<Texture>,
}

impl Mesh {
    /// A mesh of `geometry` showing `texture`.
    pub fn new(geometry: impl Into<Arc<MeshGeometry>>, texture: Texture) -> Mesh {
        Mesh {
            geometry: geometry.into(),
            texture,
            shader: None,
        }
    }

    /// With a custom shader, its uniform bytes and textures (PixiJS's `Mesh({ geometry, shader })`).
    pub fn with_shader(
        mut self,
        shader: MeshShader,
        uniforms: &[u8],
        textures: &[Texture],
    ) -> Mesh {
        self.shader = Some(MeshShading {
            shader,
            uniforms: uniforms.to_vec(),
            textures: textures.to_vec(),
        });
        self
    }

    /// The geometry for changing (copied first if another node shares it).
    pub fn geometry_mut(&mut self) -> &mut MeshGeometry {
        Arc::make_mut(&mut self.geometry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn bad_geometry_is_refused() {
        let p = vec![Vec2::ZERO, Vec2::X, Vec2::Y];
        let ok = MeshGeometry::new(
            p.clone(),
            p.clone(),
            vec![0, 1, 2],
            MeshTopology::TriangleList,
        );
        assert!(ok.is_ok());
        for (pos, uv, idx, top) in [
            (
                p.clone(),
                p[..2].to_vec(),
                vec![0, 1, 2],
                MeshTopology::TriangleList,
            ),
            (
                p.clone(),
                p.clone(),
                vec![0, 1, 3],
                MeshTopology::TriangleList,
            ),
            (p.clone(), p.clone(), vec![0, 1], MeshTopology::TriangleList),
            (
                p.clone(),
                p.clone(),
                vec![0, 1],
                MeshTopology::TriangleStrip,
            ),
            (
                vec![Vec2::ZERO, Vec2::NAN, Vec2::Y],
                p.clone(),
                vec![0, 1, 2],
                MeshTopology::TriangleList,
            ),
            (
                p.clone(),
                vec![Vec2::ZERO, Vec2::INFINITY, Vec2::Y],
                vec![0, 1, 2],
                MeshTopology::TriangleList,
            ),
        ] {
            assert!(matches!(
                MeshGeometry::new(pos, uv, idx, top),
                Err(Error::InvalidMesh(_))
            ));
        }
        assert!(MeshGeometry::plane(10.0, 10.0, 0, 0).is_err());
        assert!(MeshGeometry::plane(10.0, 10.0, 100_000, 100_000).is_err());
        assert!(MeshGeometry::rope(&vec![Vec2::ZERO; 10_000_000], 4.0, 0.0).is_err());
        assert_eq!(
            MeshGeometry::rope(&[], 4.0, 0.0).unwrap().triangles().len(),
            0
        );
        assert_eq!(
            MeshGeometry::rope(&[Vec2::ONE], 4.0, 0.0)
                .unwrap()
                .triangles()
                .len(),
            0
        );
        let folded = [Vec2::ZERO, Vec2::ZERO, Vec2::ZERO, Vec2::ZERO];
        assert!(MeshGeometry::perspective(folded, 4, 4).is_err());
    }

    #[test]
    fn strips_become_lists_with_one_winding() {
        let p: Vec<Vec2> = (0..5)
            .map(|i| Vec2::new((i / 2) as f32, (i % 2) as f32))
            .collect();
        let g = MeshGeometry::new(
            p.clone(),
            p,
            vec![0, 1, 2, 3, 4],
            MeshTopology::TriangleStrip,
        )
        .unwrap();
        assert_eq!(g.triangles(), &[0, 1, 2, 2, 1, 3, 2, 3, 4]);
        let area = |t: &[u32]| {
            let [a, b, c] = [0, 1, 2].map(|k| g.positions()[t[k] as usize]);
            (b - a).perp_dot(c - a)
        };
        let signs: Vec<bool> = g.triangles().chunks(3).map(|t| area(t) > 0.0).collect();
        assert!(signs.iter().all(|&s| s == signs[0]), "{signs:?}");
    }

    #[test]
    fn plane_rope_and_perspective_match_pixijs_layouts() {
        let g = MeshGeometry::plane(20.0, 10.0, 3, 2).unwrap();
        assert_eq!(g.positions()[2], Vec2::new(20.0, 0.0));
        assert_eq!(g.positions()[5], Vec2::new(20.0, 10.0));
        assert_eq!(g.indices(), &[0, 1, 3, 1, 4, 3, 1, 2, 4, 2, 5, 4]);
        // A rope along x: vertices above and below each point, half the width away.
        let r = MeshGeometry::rope(&[Vec2::ZERO, Vec2::new(10.0, 0.0)], 4.0, 0.0).unwrap();
        assert_eq!(
            r.positions(),
            &[
                Vec2::new(0.0, -2.0),
                Vec2::new(0.0, 2.0),
                Vec2::new(10.0, -2.0),
                Vec2::new(10.0, 2.0)
            ]
        );
        assert_eq!(r.uvs()[2], Vec2::new(1.0, 0.0));
        // Repeating every width * scale pixels of length.
        let r = MeshGeometry::rope(&[Vec2::ZERO, Vec2::new(10.0, 0.0)], 4.0, 0.5).unwrap();
        assert_eq!(r.uvs()[2].x, 5.0);
        // A perspective plane on a square is the plane.
        let s = [
            Vec2::ZERO,
            Vec2::new(8.0, 0.0),
            Vec2::new(8.0, 8.0),
            Vec2::new(0.0, 8.0),
        ];
        let p = MeshGeometry::perspective(s, 3, 3).unwrap();
        let q = MeshGeometry::plane(8.0, 8.0, 3, 3).unwrap();
        for (a, b) in p.positions().iter().zip(q.positions()) {
            assert!((*a - *b).length() < 1e-4, "{a} {b}");
        }
        // A trapezoid: the corners land on the corners, the middle row nearer the far (short) edge than halfway.
        let t = [
            Vec2::new(3.0, 0.0),
            Vec2::new(5.0, 0.0),
            Vec2::new(8.0, 8.0),
            Vec2::new(0.0, 8.0),
        ];
        let p = MeshGeometry::perspective(t, 3, 3).unwrap();
        assert!((p.positions()[0] - t[0]).length() < 1e-4);
        assert!((p.positions()[8] - t[2]).length() < 1e-4);
        assert!(p.positions()[4].y < 4.0, "{}", p.positions()[4]);
    }

    proptest! {
        #[test]
        fn contains_agrees_with_the_triangles(px in -2.0f32..12.0, py in -2.0f32..12.0) {
            let g = MeshGeometry::plane(10.0, 10.0, 4, 4).unwrap();
            let inside = (0.0..=10.0).contains(&px) && (0.0..=10.0).contains(&py);
            prop_assert_eq!(g.contains(Vec2::new(px, py)), inside);
        }
    }
}
