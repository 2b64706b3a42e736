//! The geometries PixiJS builds for meshes: `MeshPlane`'s grid, `MeshRope`'s strip and `PerspectiveMesh`'s
//! projected grid.

use super::{invalid, MeshGeometry, MeshTopology, MAX_MESH_VERTICES};
use crate::Result;
use glam::Vec2;

impl MeshGeometry {
    /// PixiJS's `PlaneGeometry` (`MeshPlane`): a `width` x `height` rectangle from the origin, as a grid of
    /// `verts_x` x `verts_y` vertices (at least 2 each) showing the whole texture frame.
    pub fn plane(width: f32, height: f32, verts_x: u32, verts_y: u32) -> Result<MeshGeometry> {
        Self::grid(verts_x, verts_y, |u| u * Vec2::new(width, height))
    }

    /// PixiJS's `PerspectivePlaneGeometry` (`PerspectiveMesh`): the texture frame mapped projectively onto the
    /// quadrilateral `corners` (top-left, top-right, bottom-right, bottom-left), through a grid of `verts_x` x
    /// `verts_y` vertices placed by the projection (more vertices, less of the affine seam inside each cell).
    pub fn perspective(corners: [Vec2; 4], verts_x: u32, verts_y: u32) -> Result<MeshGeometry> {
        let h = Homography::square_to_quad(corners)
            .ok_or_else(|| invalid("perspective corners that are not finite or fold over"))?;
        Self::grid(verts_x, verts_y, |u| h.apply(u))
    }

    /// Moves a perspective geometry made by [`MeshGeometry::perspective`] onto new corners.
    pub fn set_corners(&mut self, corners: [Vec2; 4]) -> Result<()> {
        let h = Homography::square_to_quad(corners)
            .ok_or_else(|| invalid("perspective corners that are not finite or fold over"))?;
        let uvs = std::mem::take(&mut self.uvs);
        self.update_positions(|positions| {
            for (p, u) in positions.iter_mut().zip(&uvs) {
                *p = h.apply(*u);
            }
        });
        self.uvs = uvs;
        Ok(())
    }

    fn grid(verts_x: u32, verts_y: u32, place: impl Fn(Vec2) -> Vec2) -> Result<MeshGeometry> {
        if verts_x < 2 || verts_y < 2 {
            return Err(invalid(format!(
                "a plane of {verts_x}x{verts_y} vertices (at least 2x2)"
            )));
        }
        let n = verts_x as u64 * verts_y as u64;
        if n > MAX_MESH_VERTICES as u64 {
            return Err(invalid(format!(
                "a plane of {verts_x}x{verts_y} vertices (at most {MAX_MESH_VERTICES} in all)"
            )));
        }
        let mut positions = Vec::with_capacity(n as usize);
        let mut uvs = Vec::with_capacity(n as usize);
        let (sx, sy) = ((verts_x - 1) as f32, (verts_y - 1) as f32);
        for y in 0..verts_y {
            for x in 0..verts_x {
                let u = Vec2::new(x as f32 / sx, y as f32 / sy);
                positions.push(place(u));
                uvs.push(u);
            }
        }
        let mut indices = Vec::with_capacity(((verts_x - 1) * (verts_y - 1) * 6) as usize);
        for y in 0..verts_y - 1 {
            for x in 0..verts_x - 1 {
                let a = y * verts_x + x;
                let (b, c, d) = (a + 1, a + verts_x, a + verts_x + 1);
                indices.extend_from_slice(&[a, b, c, b, d, c]);
            }
        }
        MeshGeometry::new(positions, uvs, indices, MeshTopology::TriangleList)
    }

    /// PixiJS's `RopeGeometry` (`MeshRope`): a strip `width` wide along `points`, two vertices a point. With a
    /// `texture_scale` above 0 the texture repeats every `width * texture_scale` pixels of the rope's length
    /// (and the strip is `width * texture_scale` wide, as PixiJS draws it); at 0 it is stretched over the whole
    /// rope. Fewer than 2 points make an empty geometry.
    pub fn rope(points: &[Vec2], width: f32, texture_scale: f32) -> Result<MeshGeometry> {
        if points.len() > MAX_MESH_VERTICES / 2 {
            return Err(invalid(format!(
                "a rope of {} points (at most {})",
                points.len(),
                MAX_MESH_VERTICES / 2
            )));
        }
        if !(width.is_finite() && texture_scale.is_finite()) {
            return Err(invalid("a rope width or texture scale that is not finite"));
        }
        let mut g = MeshGeometry::empty();
        g.set_rope(points, width, texture_scale)?;
        Ok(g)
    }

    /// Lays a rope geometry (see [`MeshGeometry::rope`]) along new `points`; the same number of points keeps
    /// the indices (and uploads only what moved).
    pub fn set_rope(&mut self, points: &[Vec2], width: f32, texture_scale: f32) -> Result<()> {
        if points.len() > MAX_MESH_VERTICES / 2 {
            return Err(invalid(format!("a rope of {} points", points.len())));
        }
        if points.iter().any(|p| !p.is_finite()) {
            return Err(invalid("a rope point is not a finite number"));
        }
        let n = points.len();
        let same = self.positions.len() == 2 * n.max(2) && self.attributes.is_empty() && n >= 2;
        if !same {
            self.attributes.clear();
            self.instances = 1;
            self.positions.clear();
            self.uvs.clear();
            self.indices.clear();
            self.list.clear();
            if n >= 2 {
                self.positions.resize(2 * n, Vec2::ZERO);
                self.uvs.resize(2 * n, Vec2::ZERO);
                for i in 0..(n - 1) as u32 {
                    let k = 2 * i;
                    self.indices
                        .extend_from_slice(&[k, k + 1, k + 2, k + 2, k + 1, k + 3]);
                }
            }
            self.topology = MeshTopology::TriangleList;
            self.make_list();
            self.reshaped();
            if n < 2 {
                self.bounds = Some((Vec2::ZERO, Vec2::ZERO));
                return Ok(());
            }
        }
        let repeat = texture_scale > 0.0;
        let texture_width = width * texture_scale;
        self.update_uvs(|uvs| {
            let mut amount = 0.0f32;
            let mut prev = points[0];
            for (i, p) in points.iter().enumerate() {
                if repeat {
                    amount += (prev - *p).length() / texture_width;
                    prev = *p;
                } else {
                    amount = i as f32 / (n - 1) as f32;
                }
                if !amount.is_finite() {
                    amount = 0.0;
                }
                uvs[2 * i] = Vec2::new(amount, 0.0);
                uvs[2 * i + 1] = Vec2::new(amount, 1.0);
            }
        });
        let half = if repeat { texture_width } else { width } / 2.0;
        self.update_positions(|positions| {
            let mut last = points[0];
            for (i, &p) in points.iter().enumerate() {
                let next = points.get(i + 1).copied().unwrap_or(p);
                let mut perp = Vec2::new(next.y - last.y, -(next.x - last.x));
                let len = perp.length();
                perp = if len < 1e-6 {
                    Vec2::ZERO
                } else {
                    perp / len * half
                };
                positions[2 * i] = p + perp;
                positions[2 * i + 1] = p - perp;
                last = p;
            }
        });
        Ok(())
    }
}

/// The projective map of the unit square onto a quadrilateral (Heckbert's square-to-quad).
#[derive(Clone, Copy, Debug)]
struct Homography {
    m: [f32; 8],
}

impl Homography {
    fn square_to_quad(c: [Vec2; 4]) -> Option<Homography> {
        if c.iter().any(|p| !p.is_finite()) {
            return None;
        }
        let [p0, p1, p2, p3] = c.map(|p| p.as_dvec2());
        // A convex quadrilateral of some area: every corner turns the same way.
        let turns = [(p0, p1, p2), (p1, p2, p3), (p2, p3, p0), (p3, p0, p1)]
            .map(|(a, b, c)| (b - a).perp_dot(c - b));
        let scale = (p2 - p0).length_squared().max((p3 - p1).length_squared());
        if !(turns.iter().all(|&t| t > 1e-9 * scale) || turns.iter().all(|&t| t < -1e-9 * scale))
            || scale == 0.0
        {
            return None;
        }
        let d1 = p1 - p2;
        let d2 = p3 - p2;
        let d3 = p0 - p1 + p2 - p3;
        let m = if d3.length_squared() < 1e-18 {
            let (a, b) = (p1 - p0, p2 - p1);
            [a.x, b.x, p0.x, a.y, b.y, p0.y, 0.0, 0.0]
        } else {
            let det = d1.x * d2.y - d2.x * d1.y;
            if det.abs() < 1e-12 {
                return None;
            }
            let g = (d3.x * d2.y - d2.x * d3.y) / det;
            let h = (d1.x * d3.y - d3.x * d1.y) / det;
            [
                p1.x - p0.x + g * p1.x,
                p3.x - p0.x + h * p3.x,
                p0.x,
                p1.y - p0.y + g * p1.y,
                p3.y - p0.y + h * p3.y,
                p0.y,
                g,
                h,
            ]
        };
        let m = m.map(|v| v as f32);
        m.iter().all(|v| v.is_finite()).then_some(Homography { m })
    }

    fn apply(&self, u: Vec2) -> Vec2 {
        let m = &self.m;
        let w = m[6] * u.x + m[7] * u.y + 1.0;
        Vec2::new(
            (m[0] * u.x + m[1] * u.y + m[2]) / w,
            (m[3] * u.x + m[4] * u.y + m[5]) / w,
        )
    }
}
