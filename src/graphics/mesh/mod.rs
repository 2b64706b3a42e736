//! Meshes: a texture on the user's own triangles (PixiJS's `Mesh`, `MeshGeometry`), and the geometries PixiJS
//! builds for it: a grid of movable vertices (`MeshPlane`), a strip along a list of points (`MeshRope`) and a
//! plane mapped onto four corners (`PerspectiveMesh`).
//!
//! A mesh node holds its geometry behind an `Arc`: nodes may share one, and changing it through
//! [`NodeProps::mesh_mut`](crate::NodeProps::mesh_mut) copies it first only while it is shared. With the default
//! shader, small meshes (at most [`MESH_BATCH_VERTICES`] vertices; PixiJS's `batchMode: 'auto'` with another
//! line) are drawn like shapes: their vertices join the frame's vertex stream and batch with sprites and shapes
//! (one draw call for many meshes of a few textures). Larger ones, and meshes with a custom shader or face culling,
//! draw on their own from buffers of their own that stay on the GPU: a move costs a uniform, and a change to the
//! geometry uploads only the byte ranges that changed.

use crate::{Error, Result, Texture};
use glam::Vec2;
use std::sync::Arc;

mod builders;

/// Most vertices one geometry holds (a 2048x2048 plane).
pub const MAX_MESH_VERTICES: usize = 1 << 22;

/// Most vertices of a default-shader mesh batched with sprites under [`MeshBatchMode::Auto`]. PixiJS batches up to
/// 100; here drawing on its own starts to pay between 128 and 256 vertices (1,000 moving ropes on an H200: at 128
/// vertices 3.8 ms batched, 6.7 ms alone; at 256, 8.6 ms batched, 8.0 ms alone), so the line is at 200.
pub const MESH_BATCH_VERTICES: usize = 200;

/// Most instances one geometry draws.
pub const MAX_MESH_INSTANCES: usize = 1 << 20;

/// Whether a default-shader mesh joins the sprite batches (PixiJS's `MeshGeometry.batchMode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MeshBatchMode {
    /// Batched when it has at most [`MESH_BATCH_VERTICES`] vertices, drawn on its own otherwise.
    #[default]
    Auto,
    /// Always batched: its vertices, transformed on the CPU, join the frame's vertex stream.
    Batch,
    /// Always drawn on its own, from buffers that stay on the GPU.
    Own,
}

/// Which triangles a mesh drawn on its own leaves out (PixiJS's `State.culling`). Batched meshes are never
/// culled: a culling mesh draws on its own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CullMode {
    /// Both faces drawn.
    #[default]
    None,
    /// Triangles facing away left out.
    Back,
    /// Triangles facing the viewer left out.
    Front,
}

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
#[derive(Debug)]
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
    /// Instances drawn (1 without per-instance attributes).
    instances: u32,
    batch_mode: MeshBatchMode,
    /// This geometry's identity: its GPU buffers are found by it (a clone is another geometry).
    id: u64,
    /// Changes with every change to the vertices or indices.
    version: u64,
    /// What changed since `changes.base`: meshes drawn on their own upload just those ranges.
    changes: Changes,
}

/// The parts of a geometry's vertex data, each a block of its own in the GPU buffer: positions, texture
/// coordinates, then the further attributes in location order.
pub(crate) type Block = u8;

/// A short log of the ranges changed, by version.
#[derive(Clone, Debug, Default)]
struct Changes {
    /// The oldest version the log reaches back to: a buffer at this version or later catches up from the log.
    base: u64,
    /// (version made, block, first and past-last element changed).
    list: Vec<(u64, Block, u32, u32)>,
}

/// Changes logged before the oldest is forgotten (and a buffer that far behind is uploaded whole).
const LOGGED_CHANGES: usize = 16;

impl Clone for MeshGeometry {
    fn clone(&self) -> MeshGeometry {
        let version = next_version();
        MeshGeometry {
            positions: self.positions.clone(),
            uvs: self.uvs.clone(),
            indices: self.indices.clone(),
            topology: self.topology,
            list: self.list.clone(),
            bounds: self.bounds,
            attributes: self.attributes.clone(),
            instances: self.instances,
            batch_mode: self.batch_mode,
            id: next_version(),
            version,
            changes: Changes {
                base: version,
                list: Vec::new(),
            },
        }
    }
}

impl PartialEq for MeshGeometry {
    /// Equal content: the same vertices, attributes, indices, topology and batch mode.
    fn eq(&self, other: &MeshGeometry) -> bool {
        self.positions == other.positions
            && self.uvs == other.uvs
            && self.indices == other.indices
            && self.topology == other.topology
            && self.attributes == other.attributes
            && self.instances == other.instances
            && self.batch_mode == other.batch_mode
    }
}

/// A vertex attribute beside the position (`@location(0)`, `vec2<f32>`) and texture coordinate (`@location(1)`,
/// `vec2<f32>`), for custom shaders: one value of `format` a vertex (or an instance), at `location` (2 to 15).
#[derive(Clone, Debug, PartialEq)]
pub struct MeshAttribute {
    /// The shader location.
    pub location: u32,
    /// The format of each value.
    pub format: wgpu::VertexFormat,
    /// The values, one a vertex (or an instance), tightly packed.
    pub data: Vec<u8>,
    /// One value an instance rather than a vertex (PixiJS's `instance: true`).
    pub per_instance: bool,
}

/// The vertex layout of a geometry: each attribute's location and format (position and texture coordinate
/// first), and which attributes step per instance. Custom mesh shaders are made for one
/// ([`MeshGeometry::layout`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MeshLayout {
    pub(crate) attributes: Vec<(u32, wgpu::VertexFormat)>,
    /// Bit `location` set: that attribute steps per instance.
    pub(crate) per_instance: u16,
}

impl MeshLayout {
    /// The attributes: (shader location, format), position and texture coordinate first.
    pub fn attributes(&self) -> &[(u32, wgpu::VertexFormat)] {
        &self.attributes
    }

    /// Whether the attribute at `location` holds one value an instance.
    pub fn is_per_instance(&self, location: u32) -> bool {
        location < 16 && self.per_instance & (1 << location) != 0
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
        let mut g = MeshGeometry::empty();
        g.positions = positions;
        g.uvs = uvs;
        g.indices = indices;
        g.topology = topology;
        g.bounds = bounds;
        g.make_list();
        Ok(g)
    }

    /// No vertices, a triangle list.
    pub(crate) fn empty() -> MeshGeometry {
        let version = next_version();
        MeshGeometry {
            positions: Vec::new(),
            uvs: Vec::new(),
            indices: Vec::new(),
            topology: MeshTopology::TriangleList,
            list: Vec::new(),
            bounds: Some((Vec2::ZERO, Vec2::ZERO)),
            attributes: Vec::new(),
            instances: 1,
            batch_mode: MeshBatchMode::Auto,
            id: next_version(),
            version,
            changes: Changes {
                base: version,
                list: Vec::new(),
            },
        }
    }

    /// With another batch mode (see [`MeshBatchMode`]).
    pub fn with_batch_mode(mut self, mode: MeshBatchMode) -> MeshGeometry {
        self.batch_mode = mode;
        self
    }

    /// The batch mode.
    pub fn batch_mode(&self) -> MeshBatchMode {
        self.batch_mode
    }

    /// Whether a default-shader mesh of this geometry joins the sprite batches.
    pub(crate) fn batched(&self) -> bool {
        match self.batch_mode {
            MeshBatchMode::Auto => self.positions.len() <= MESH_BATCH_VERTICES,
            MeshBatchMode::Batch => true,
            MeshBatchMode::Own => false,
        }
    }

    /// A new version for a change to everything (buffers are uploaded whole).
    pub(crate) fn reshaped(&mut self) {
        self.version = next_version();
        self.changes.base = self.version;
        self.changes.list.clear();
    }

    /// A new version for a change to elements `range` of `block`.
    fn touched(&mut self, block: Block, range: std::ops::Range<usize>) {
        self.version = next_version();
        let c = &mut self.changes;
        if c.list.len() == LOGGED_CHANGES {
            c.base = c.list.remove(0).0;
        }
        c.list
            .push((self.version, block, range.start as u32, range.end as u32));
    }

    /// The element ranges changed since `version`, at most one a block (block, start, end), or `None` when the
    /// log does not reach back that far (upload everything).
    pub(crate) fn changes_since(&self, version: u64, out: &mut Vec<(Block, u32, u32)>) -> bool {
        out.clear();
        if version < self.changes.base || version > self.version {
            return false;
        }
        for &(v, block, lo, hi) in &self.changes.list {
            if v <= version {
                continue;
            }
            match out.iter_mut().find(|e| e.0 == block) {
                Some(e) => {
                    e.1 = e.1.min(lo);
                    e.2 = e.2.max(hi);
                }
                None => out.push((block, lo, hi)),
            }
        }
        true
    }

    /// Runs `f` on `block`'s values and logs the range of elements (of `size` bytes) it changed.
    fn edit_block<T: bytemuck::Pod>(
        &mut self,
        block: Block,
        values: impl Fn(&mut MeshGeometry) -> &mut [T],
        size: usize,
        f: impl FnOnce(&mut [T]),
    ) {
        thread_local! {
            static BEFORE: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        BEFORE.with_borrow_mut(|before| {
            before.clear();
            before.extend_from_slice(bytemuck::cast_slice(values(self)));
            f(values(self));
            let after: &[u8] = bytemuck::cast_slice(values(self));
            let first = before.iter().zip(after).position(|(a, b)| a != b);
            if let Some(first) = first {
                let last = before
                    .iter()
                    .zip(after)
                    .rposition(|(a, b)| a != b)
                    .unwrap_or(first);
                let range = first / size..last / size + 1;
                self.touched(block, range);
            }
        });
    }

    /// Adds a vertex attribute for custom shaders (see [`MeshAttribute`]): `data` holds one value of `format`
    /// for each vertex. Errors: a location outside 2..=15 or already used, data of another length.
    pub fn with_attribute(
        self,
        location: u32,
        format: wgpu::VertexFormat,
        data: Vec<u8>,
    ) -> Result<MeshGeometry> {
        self.add_attribute(location, format, data, false)
    }

    /// Adds a per-instance attribute for custom shaders (PixiJS's `instance: true`): `data` holds one value of
    /// `format` an instance, and the geometry is drawn once for each (every per-instance attribute gives the
    /// same count). The default shader draws one instance. Errors: as [`MeshGeometry::with_attribute`], data
    /// that is not a whole number of values, a count other than the other per-instance attributes' or more
    /// than [`MAX_MESH_INSTANCES`].
    pub fn with_instance_attribute(
        self,
        location: u32,
        format: wgpu::VertexFormat,
        data: Vec<u8>,
    ) -> Result<MeshGeometry> {
        self.add_attribute(location, format, data, true)
    }

    fn add_attribute(
        mut self,
        location: u32,
        format: wgpu::VertexFormat,
        data: Vec<u8>,
        per_instance: bool,
    ) -> Result<MeshGeometry> {
        if !(2..=15).contains(&location) || self.attributes.iter().any(|a| a.location == location) {
            return Err(invalid(format!(
                "attribute location {location} (2 to 15, each once; 0 and 1 are the position and texture coordinate)"
            )));
        }
        let size = format.size() as usize;
        if per_instance {
            let n = data.len() / size;
            let instanced = self.attributes.iter().any(|a| a.per_instance);
            if !data.len().is_multiple_of(size) || n == 0 || n > MAX_MESH_INSTANCES {
                return Err(invalid(format!(
                    "instance attribute {location}: {} bytes is not 1 to {MAX_MESH_INSTANCES} values of {format:?}",
                    data.len()
                )));
            }
            if instanced && n as u32 != self.instances {
                return Err(invalid(format!(
                    "instance attribute {location}: {n} instances, the others have {}",
                    self.instances
                )));
            }
            self.instances = n as u32;
        } else {
            let want = size * self.positions.len();
            if data.len() != want {
                return Err(invalid(format!(
                    "attribute {location}: {} bytes for {} vertices of {format:?} ({want} expected)",
                    data.len(),
                    self.positions.len()
                )));
            }
        }
        self.attributes.push(MeshAttribute {
            location,
            format,
            data,
            per_instance,
        });
        self.attributes.sort_by_key(|a| a.location);
        self.reshaped();
        Ok(self)
    }

    /// Instances drawn with a custom shader (1 without per-instance attributes).
    pub fn instance_count(&self) -> u32 {
        self.instances
    }

    /// Changes the values of the attribute at `location` in place (their count stays); only the values that
    /// changed are uploaded. Errors: no attribute there.
    pub fn update_attribute(&mut self, location: u32, f: impl FnOnce(&mut [u8])) -> Result<()> {
        let k = self
            .attributes
            .iter()
            .position(|a| a.location == location)
            .ok_or_else(|| invalid(format!("no attribute at location {location}")))?;
        let size = self.attributes[k].format.size() as usize;
        self.edit_block(2 + k as Block, |g| &mut g.attributes[k].data, size, f);
        Ok(())
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
        let per_instance = self
            .attributes
            .iter()
            .filter(|a| a.per_instance)
            .fold(0u16, |m, a| m | 1 << a.location);
        MeshLayout {
            attributes,
            per_instance,
        }
    }

    /// Whether [`MeshGeometry::layout`] is `layout` (without building it).
    pub(crate) fn has_layout(&self, layout: &MeshLayout) -> bool {
        let a = &layout.attributes;
        a.len() == self.attributes.len() + 2
            && a[0] == (0, wgpu::VertexFormat::Float32x2)
            && a[1] == (1, wgpu::VertexFormat::Float32x2)
            && a[2..].iter().zip(&self.attributes).all(|(l, m)| {
                *l == (m.location, m.format) && layout.is_per_instance(m.location) == m.per_instance
            })
    }

    /// A number that changes whenever the vertices or indices change.
    pub(crate) fn version(&self) -> u64 {
        self.version
    }

    /// This geometry's identity (a clone has another).
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// The blocks of the GPU vertex buffer: (bytes a value, values) for the positions, the texture coordinates
    /// and each further attribute in location order; each value padded to 4 bytes.
    pub(crate) fn blocks(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        let n = self.positions.len() as u64;
        [(8, n), (8, n)]
            .into_iter()
            .chain(self.attributes.iter().map(move |a| {
                let count = if a.per_instance {
                    self.instances as u64
                } else {
                    n
                };
                (a.format.size().next_multiple_of(4), count)
            }))
    }

    /// Writes elements `range` of `block` into `out` as the GPU buffer holds them (each value padded to 4 bytes).
    pub(crate) fn block_bytes(
        &self,
        block: Block,
        range: std::ops::Range<usize>,
        out: &mut Vec<u8>,
    ) {
        match block {
            0 => out.extend_from_slice(bytemuck::cast_slice(&self.positions[range])),
            1 => out.extend_from_slice(bytemuck::cast_slice(&self.uvs[range])),
            k => {
                let a = &self.attributes[k as usize - 2];
                let size = a.format.size() as usize;
                let bytes = &a.data[range.start * size..range.end * size];
                if size.is_multiple_of(4) {
                    out.extend_from_slice(bytes);
                } else {
                    for v in bytes.chunks_exact(size) {
                        out.extend_from_slice(v);
                        out.resize(out.len().next_multiple_of(4), 0);
                    }
                }
            }
        }
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
    /// vertices that changed are uploaded (the range from the first to the last).
    pub fn update_positions(&mut self, f: impl FnOnce(&mut [Vec2])) {
        self.edit_block(0, |g| &mut g.positions, 8, f);
        self.bounds = bounds_of(&self.positions);
    }

    /// Changes the texture coordinates in place; one that is not finite becomes 0. Only the ones that changed
    /// are uploaded.
    pub fn update_uvs(&mut self, f: impl FnOnce(&mut [Vec2])) {
        self.edit_block(
            1,
            |g| &mut g.uvs,
            8,
            |uvs| {
                f(uvs);
                for u in uvs {
                    if !u.is_finite() {
                        *u = Vec2::ZERO;
                    }
                }
            },
        );
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
    /// The texture (or sheet frame) the texture coordinates span: 0..1 covers a trimmed frame's untrimmed
    /// rectangle, its stored pixels the trim rectangle within it (PixiJS's `TextureMatrix`).
    pub texture: Texture,
    /// A custom shader with its uniforms and textures (`None`: the default shader, batched with sprites).
    pub shader: Option<MeshShading>,
    /// Triangles left out by their winding (a culling mesh draws on its own; not applied as a mask).
    pub cull: CullMode,
    /// Whether clockwise triangles (on screen, y down) face front; counter-clockwise ones do by default
    /// (PixiJS's `State.clockwiseFrontFace`).
    pub clockwise_front_face: bool,
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
            cull: CullMode::None,
            clockwise_front_face: false,
        }
    }

    /// With face culling (PixiJS's `mesh.state.culling`, `clockwiseFrontFace`).
    pub fn with_culling(mut self, cull: CullMode, clockwise_front_face: bool) -> Mesh {
        self.cull = cull;
        self.clockwise_front_face = clockwise_front_face;
        self
    }

    /// Whether it draws on its own rather than in the sprite batches.
    pub(crate) fn draws_alone(&self) -> bool {
        self.shader.is_some() || self.cull != CullMode::None || !self.geometry.batched()
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

    #[test]
    fn the_change_log_merges_ranges_by_block_and_runs_out() {
        let mut g = MeshGeometry::plane(4.0, 4.0, 4, 4).unwrap();
        let v0 = g.version();
        let mut out = Vec::new();
        assert!(g.changes_since(v0, &mut out) && out.is_empty());
        g.update_positions(|p| p[3].x += 1.0);
        let v1 = g.version();
        g.update_positions(|p| p[7].y += 1.0);
        g.update_uvs(|u| u[1].x = 0.5);
        // Nothing changed: no new version.
        g.update_uvs(|_| {});
        assert!(g.changes_since(v0, &mut out));
        assert_eq!(out, vec![(0, 3, 8), (1, 1, 2)]);
        assert!(g.changes_since(v1, &mut out));
        assert_eq!(out, vec![(0, 7, 8), (1, 1, 2)]);
        // A NaN written in place changes the bits: logged, and the bounds become `None`.
        g.update_positions(|p| p[0].x = f32::NAN);
        assert!(g.bounds().is_none());
        for _ in 0..LOGGED_CHANGES {
            g.update_positions(|p| p[5].x += 1.0);
        }
        assert!(
            !g.changes_since(v0, &mut out),
            "the log no longer reaches v0"
        );
        g.update_positions(|p| p[0].x = 0.0);
        let mut c = g.clone();
        assert_ne!(c.id(), g.id());
        assert_eq!(c, g, "equal content");
        c.update_attribute(2, |_| {}).unwrap_err();
        let mut a = MeshGeometry::plane(4.0, 4.0, 2, 2)
            .unwrap()
            .with_attribute(3, wgpu::VertexFormat::Unorm8x2, vec![0; 8])
            .unwrap();
        let v = a.version();
        a.update_attribute(3, |d| d[5] = 9).unwrap();
        assert!(a.changes_since(v, &mut out));
        assert_eq!(out, vec![(2, 2, 3)]);
        let mut bytes = Vec::new();
        a.block_bytes(2, 2..3, &mut bytes);
        assert_eq!(bytes, vec![0, 9, 0, 0], "padded to 4 bytes");
        assert_eq!(a.blocks().collect::<Vec<_>>(), vec![(8, 4), (8, 4), (4, 4)]);
    }

    #[test]
    fn batch_modes_choose_by_vertex_count() {
        let small = MeshGeometry::plane(4.0, 4.0, 10, 20).unwrap();
        let large = MeshGeometry::plane(4.0, 4.0, 11, 20).unwrap();
        assert!(small.batched() && !large.batched());
        assert!(large.with_batch_mode(MeshBatchMode::Batch).batched());
        assert!(!small.clone().with_batch_mode(MeshBatchMode::Own).batched());
        let tex = Texture::new(
            crate::TextureId::new(0, crate::base::handle::Owner::NONE, 0),
            1,
            1,
        );
        assert!(!Mesh::new(small.clone(), tex).draws_alone());
        assert!(Mesh::new(small, tex)
            .with_culling(CullMode::Back, false)
            .draws_alone());
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
