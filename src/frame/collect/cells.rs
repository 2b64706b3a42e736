//! Culling inside a render group: its recording cut into cells (runs of up to [`CELL_QUADS`] quads' worth of
//! indices, in draw order) with their bounds in group space, and cells into a tree of nodes of up to [`FANOUT`]
//! children each. Each frame the tree is walked from the top: a node wholly outside the target is left out with its
//! cells, one wholly inside is drawn whole, and the children of one across the edge are tested in turn; what is left
//! is a short list of index ranges the group's batches are cut to. So a frame tests the nodes along the view's edge,
//! a number that does not grow with the group. The geometry itself stays where it is in the streams (nothing is
//! uploaded). Where the group is only scaled and moved (no rotation), the view is taken into group space once and
//! each box is tested with four comparisons; otherwise each box is taken to clip space.
//!
//! Cells are runs of consecutive indices, not subtrees: they cull well where draw order follows space (tiles in
//! chunks, rows of sprites), and a cell whose quads are scattered merely has large bounds and is always drawn.

use crate::frame::batcher::recording::Recorded;
use crate::frame::batcher::DATA_FLAG;
use crate::frame::elements::{Element, Quad};
use crate::gpu::pipeline::Topology;
use crate::scene::cull::Aabb;
use glam::{Affine2, Vec2};

/// Quads' worth of indices (six a quad) in one cell; `CELL_INDICES` is a multiple of six and of three, so cells
/// end on a quad and on a triangle.
pub(super) const CELL_QUADS: u32 = 256;
const CELL_INDICES: usize = 6 * CELL_QUADS as usize;
/// Children of a node of the tree.
pub(super) const FANOUT: usize = 16;

/// One cell or node: an index range of the recording and the bounds of what it draws.
#[derive(Clone, Copy, Debug)]
struct Cell {
    start: u32,
    end: u32,
    /// Quads drawn (tiling data quads left out), counted at their second corner.
    quads: u32,
    /// Cells below (1 for a cell).
    cells: u32,
    bounds: Aabb,
}

/// A recording's cells, and the levels of the tree above them (none for a recording of at most two cells: its
/// bounds do).
#[derive(Debug, Default)]
pub(super) struct Cells {
    /// `levels[0]` are the cells; `levels[k + 1][i]` covers `levels[k][i * FANOUT..(i + 1) * FANOUT]`.
    levels: Vec<Vec<Cell>>,
    /// Quads drawn by the whole recording.
    quads: u64,
}

/// What [`Cells::visible`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Visible {
    /// Cells left out.
    pub culled: u64,
    /// Quads in the visible cells.
    pub quads: u64,
}

impl Visible {
    /// Every cell touches the view: draw the recording whole (the ranges are not needed).
    pub fn all(&self) -> bool {
        self.culled == 0
    }
}

/// Where a box lies against the view.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Out,
    Edge,
    In,
}

/// The view, as a test of group-space boxes.
enum View<'a> {
    /// Only scaled and moved: the view's box in group space.
    Group(Aabb),
    /// Anything else: boxes are taken to clip space and met with `[-1, 1]²` widened by the pad.
    Clip(&'a Affine2, Vec2),
}

impl View<'_> {
    #[inline]
    fn side(&self, b: &Aabb) -> Side {
        let (b, lo, hi) = match self {
            View::Group(v) => (*b, v.min, v.max),
            View::Clip(m, pad) => (
                b.transformed(m),
                Vec2::splat(-1.0) - *pad,
                Vec2::splat(1.0) + *pad,
            ),
        };
        if b.max.x < lo.x || b.max.y < lo.y || b.min.x > hi.x || b.min.y > hi.y || b.is_empty() {
            Side::Out
        } else if b.min.cmpge(lo).all() && b.max.cmple(hi).all() {
            Side::In
        } else {
            Side::Edge
        }
    }
}

impl Cells {
    /// Cuts `rec` (indices with quad bit `bit`) into cells, keeping this one's storage.
    pub fn build(&mut self, rec: &Recorded, bit: u32) {
        let mut levels = std::mem::take(&mut self.levels);
        levels.iter_mut().for_each(Vec::clear);
        self.quads = 0;
        // Cuts fall on triangles only where every batch is a triangle list of whole triangles (quads and
        // tessellated shapes are); anything else is drawn whole.
        let cuttable = rec.batches.iter().all(|b| {
            b.topology == Topology::TriangleList
                && b.index_start.is_multiple_of(3)
                && b.index_count.is_multiple_of(3)
        });
        if rec.indices.len() <= 2 * CELL_INDICES || !cuttable {
            self.levels = levels;
            return;
        }
        if levels.is_empty() {
            levels.push(Vec::new());
        }
        for (i, chunk) in rec.indices.chunks(CELL_INDICES).enumerate() {
            let mut cell = Cell {
                start: (i * CELL_INDICES) as u32,
                end: (i * CELL_INDICES + chunk.len()) as u32,
                quads: 0,
                cells: 1,
                bounds: Aabb::EMPTY,
            };
            for &s in chunk {
                match Element::of(s, bit) {
                    Element::Corner { quad, corner, pass } => {
                        let Some(q) = rec.quads.get(quad as usize) else {
                            continue;
                        };
                        if q.texture & DATA_FLAG != 0 {
                            continue;
                        }
                        cell.quads += (corner == 1 && pass == 0) as u32;
                        let mut p = Vec2::from(q.corner(corner as usize).0);
                        if pass == 2 {
                            p += Vec2::from(Quad::shadow_offset(&rec.quads, quad as usize));
                        }
                        cell.bounds.add_point(p);
                    }
                    Element::Vertex(v) => {
                        if let Some(v) = rec.vertices.get(v as usize) {
                            cell.bounds.add_point(Vec2::from(v.position));
                        }
                    }
                }
            }
            self.quads += cell.quads as u64;
            levels[0].push(cell);
        }
        let mut k = 0;
        while levels[k].len() > FANOUT {
            if levels.len() == k + 1 {
                levels.push(Vec::new());
            }
            let (below, above) = levels.split_at_mut(k + 1);
            for run in below[k].chunks(FANOUT) {
                let mut node = Cell {
                    start: run[0].start,
                    end: run[run.len() - 1].end,
                    quads: 0,
                    cells: 0,
                    bounds: Aabb::EMPTY,
                };
                for c in run {
                    node.quads += c.quads;
                    node.cells += c.cells;
                    node.bounds.union(c.bounds);
                }
                above[0].push(node);
            }
            k += 1;
        }
        levels.truncate(k + 1);
        self.levels = levels;
    }

    /// Quads drawn by the whole recording.
    pub fn quads(&self) -> u64 {
        self.quads
    }

    /// Finds the cells that touch the view (`[-1, 1]²` widened by `pad`) through `to_clip`, as index ranges of the
    /// recording into `ranges` (in order, adjacent ones merged).
    pub fn visible(&self, to_clip: &Affine2, pad: Vec2, ranges: &mut Vec<(u32, u32)>) -> Visible {
        ranges.clear();
        let mut seen = Visible {
            culled: 0,
            quads: self.quads,
        };
        let Some(top) = self.levels.last().filter(|l| !l.is_empty()) else {
            return seen;
        };
        seen.quads = 0;
        let m = to_clip.matrix2;
        let view =
            if m.x_axis.y == 0.0 && m.y_axis.x == 0.0 && m.x_axis.x != 0.0 && m.y_axis.y != 0.0 {
                // clip = diag * p + t, so the view's corners in group space are (±(1 + pad) - t) / diag.
                let t = to_clip.translation;
                let diag = Vec2::new(m.x_axis.x, m.y_axis.y);
                let a = (Vec2::splat(-1.0) - pad - t) / diag;
                let b = (Vec2::splat(1.0) + pad - t) / diag;
                View::Group(Aabb {
                    min: a.min(b),
                    max: a.max(b),
                })
            } else {
                View::Clip(to_clip, pad)
            };
        let top_level = self.levels.len() - 1;
        for i in 0..top.len() {
            self.visit(&view, top_level, i, ranges, &mut seen);
        }
        seen
    }

    fn visit(
        &self,
        view: &View,
        level: usize,
        i: usize,
        ranges: &mut Vec<(u32, u32)>,
        seen: &mut Visible,
    ) {
        let c = &self.levels[level][i];
        match view.side(&c.bounds) {
            Side::Out => seen.culled += c.cells as u64,
            Side::Edge if level > 0 => {
                let below = self.levels[level - 1].len();
                for j in i * FANOUT..((i + 1) * FANOUT).min(below) {
                    self.visit(view, level - 1, j, ranges, seen);
                }
            }
            Side::In | Side::Edge => {
                seen.quads += c.quads as u64;
                match ranges.last_mut() {
                    Some(last) if last.1 == c.start => last.1 = c.end,
                    _ => ranges.push((c.start, c.end)),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::batcher::{Batcher, QUAD_INDEX_BIT};
    use crate::{BlendMode, TextureId};

    /// A recording of a `side` x `side` grid of unit quads in rows, one texture.
    fn grid(side: u32) -> Recorded {
        let mut b = Batcher::new(16);
        b.begin();
        let t = TextureId {
            index: 0,
            generation: 0,
        };
        for y in 0..side {
            for x in 0..side {
                let g = [[x as f32, y as f32], [1.0, 0.0], [0.0, 1.0]];
                b.push_quad(t, g, [0.0, 0.0, 1.0, 1.0], u32::MAX, BlendMode::Normal);
            }
        }
        b.finish();
        Recorded::of(&b)
    }

    #[test]
    fn a_view_over_part_of_a_grid_keeps_the_cells_it_touches() {
        let rec = grid(256);
        let mut cells = Cells::default();
        cells.build(&rec, QUAD_INDEX_BIT);
        // 65,536 quads: 256 cells of one row each, under 16 nodes.
        let sizes: Vec<_> = cells.levels.iter().map(Vec::len).collect();
        assert_eq!((sizes, cells.quads()), (vec![256, 16], 65_536));
        let mut ranges = Vec::new();
        // Everything in view.
        let all = Affine2::from_scale(Vec2::splat(1.0 / 256.0))
            * Affine2::from_translation(Vec2::splat(-128.0));
        let v = cells.visible(&all, Vec2::ZERO, &mut ranges);
        assert_eq!((v.all(), v.culled, v.quads), (true, 0, 65_536));
        // Rows 100..=110 (in y) in view: clip = (p - 105.5) / 5 maps 100.5..110.5 to -1..1 (edges mid-row).
        let part =
            Affine2::from_scale(Vec2::splat(0.2)) * Affine2::from_translation(Vec2::splat(-105.5));
        let v = cells.visible(&part, Vec2::ZERO, &mut ranges);
        assert!(!v.all());
        assert_eq!(ranges, vec![(100 * 1536, 111 * 1536)]);
        assert_eq!((v.culled, v.quads), (256 - 11, 11 * 256));
        // A pad of a fortieth of the view takes in a quarter of a row more on each side: no new row.
        cells.visible(&part, Vec2::splat(0.05), &mut ranges);
        assert_eq!(ranges, vec![(100 * 1536, 111 * 1536)]);
        // A pad of a fifth (a row) takes in rows 99 and 111.
        cells.visible(&part, Vec2::splat(0.2), &mut ranges);
        assert_eq!(ranges, vec![(99 * 1536, 112 * 1536)]);
        // Turned a quarter (boxes taken to clip space) and flipped (the group-space test with negative scale):
        // the same rows.
        let turned = Affine2::from_angle(std::f32::consts::FRAC_PI_2) * part;
        let flipped = Affine2::from_scale(Vec2::new(-1.0, -1.0)) * part;
        for m in [turned, flipped] {
            let v = cells.visible(&m, Vec2::ZERO, &mut ranges);
            assert_eq!(ranges, vec![(100 * 1536, 111 * 1536)]);
            assert_eq!(v.culled, 256 - 11);
        }
        // Wholly outside.
        let off = Affine2::from_translation(Vec2::splat(100.0)) * part;
        let v = cells.visible(&off, Vec2::ZERO, &mut ranges);
        assert!(ranges.is_empty());
        assert_eq!((v.culled, v.quads), (256, 0));
    }

    #[test]
    fn small_recordings_have_no_cells() {
        let rec = grid(20);
        let mut cells = Cells::default();
        cells.build(&rec, QUAD_INDEX_BIT);
        let mut ranges = vec![(1, 2)];
        assert!(cells
            .visible(&Affine2::IDENTITY, Vec2::ZERO, &mut ranges)
            .all());
        assert!(ranges.is_empty());
    }
}
