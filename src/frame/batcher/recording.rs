//! A render group's recording: the quads, mesh vertices, indices and batches its own walk made (in group space),
//! kept between frames, put in one texture order, and replayed into the frame's streams, whole or cut to the index
//! ranges that culling leaves (`collect/cells.rs`).

use super::{Batch, Batcher, MAX_BATCH_TEXTURES, TRANSFORM_SHIFT};
use crate::frame::elements::{Element, Quad, Vertex, STYLED_INDEX_BIT};

/// A render group's geometry as its own walk batched it (group space, transform 0), kept between frames and
/// replayed into the frame's streams by [`Batcher::replay`].
#[derive(Debug, Default)]
pub struct Recorded {
    /// Quads, quad indices counting from 0.
    pub quads: Vec<Quad>,
    /// Mesh vertices, mesh indices counting from 0.
    pub vertices: Vec<Vertex>,
    /// Indices (quad corners with the quad bit, mesh vertices without).
    pub indices: Vec<u32>,
    /// Batches, index ranges counting from 0; their pass state is the replaying frame's.
    pub batches: Vec<Batch>,
    /// Where the last replay put it, to keep it there without copying while it does not move.
    placed: Option<Placement>,
}

/// Where a [`Recorded`] lies in the frame's streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Placement {
    quads: usize,
    vertices: usize,
    indices: usize,
    transform: u32,
    /// The batcher's frame counter when it was placed.
    frame: u64,
}

impl Recorded {
    /// Takes what `b` batched (a walk into a batcher of its own, finished) as the recording, keeping this one's
    /// storage.
    pub fn take_from(&mut self, b: &Batcher) {
        self.quads.clear();
        self.quads.extend_from_slice(b.quads.as_slice());
        self.vertices.clear();
        self.vertices.extend_from_slice(b.vertices.as_slice());
        self.indices.clear();
        self.indices.extend_from_slice(b.indices.as_slice());
        self.batches.clear();
        self.batches.extend_from_slice(b.batches());
        self.placed = None;
    }

    /// Puts each batch's textures in one order (by id), moving its quads' and vertices' slots with them, so that
    /// recordings showing the same textures share one bind group whatever order their walks met them in (a tile
    /// map's chunks would otherwise make a bind group for each order as the view reaches them). `seen` is scratch.
    pub fn sort_slots(&mut self, quad_bit: u32, seen: &mut Vec<bool>) {
        const SLOT: u32 = crate::frame::elements::SLOT_BITS;
        // A mesh vertex belongs to one batch: one pass over the vertices' marks serves every batch.
        seen.clear();
        seen.resize(self.vertices.len(), false);
        for b in &mut self.batches {
            let len = b.textures.len();
            let mut order: [u8; MAX_BATCH_TEXTURES] = std::array::from_fn(|i| i as u8);
            let ids = b.textures.ids;
            order[..len].sort_unstable_by_key(|&i| ids[i as usize]);
            if order[..len]
                .iter()
                .enumerate()
                .all(|(i, &o)| i == o as usize)
            {
                continue;
            }
            // `to[old slot]` is the new slot.
            let mut to = [0u32; MAX_BATCH_TEXTURES];
            for (new, &old) in order[..len].iter().enumerate() {
                to[old as usize] = new as u32;
                b.textures.ids[new] = ids[old as usize];
            }
            let slot = |w: &mut u32| {
                let s = (*w & SLOT) as usize;
                if s < len {
                    *w = (*w & !SLOT) | to[s];
                }
            };
            let (start, end) = (
                b.index_start as usize,
                (b.index_start + b.index_count) as usize,
            );
            for &i in self.indices.get(start..end).unwrap_or(&[]) {
                match Element::of(i, quad_bit) {
                    // Each quad once: at its second corner in its fill (or only) pass, which its indices name once.
                    Element::Corner {
                        quad,
                        corner: 1,
                        pass: 0,
                    } => {
                        if let Some(q) = self.quads.get_mut(quad as usize) {
                            slot(&mut q.texture);
                        }
                    }
                    Element::Corner { .. } => {}
                    Element::Vertex(i) => {
                        if let Some(v) = self.vertices.get_mut(i as usize) {
                            if !std::mem::replace(&mut seen[i as usize], true) {
                                slot(&mut v.texture);
                            }
                        }
                    }
                }
            }
        }
    }
}

impl Batcher {
    /// Draws a recorded render group through transform `transform`, in batches of its own under the current pass
    /// state, all of it or (`visible`) only the index ranges given, in order, counting from the recording's first
    /// index. Where last frame placed it at the same stream offsets with the same transform, its elements are kept
    /// as they are (nothing compared or uploaded); elsewhere they are copied in, rebased. Returns `false` (drawing
    /// nothing) if it does not fit the frame's quad or vertex limits.
    pub fn replay(
        &mut self,
        rec: &mut Recorded,
        transform: u32,
        visible: Option<&[(u32, u32)]>,
    ) -> bool {
        // A recording's styled glyphs stay below 2^26 quads wherever it lands (their indices have no more room).
        let styled_room = match self.styled_supported() {
            true => STYLED_INDEX_BIT as usize >> 4,
            false => usize::MAX,
        };
        if self.quads.len() + rec.quads.len() > self.max_quads().min(styled_room)
            || self.vertices.len() + rec.vertices.len() > self.quad_bit as usize
        {
            log::warn!("a render group does not fit the frame's streams: it is not drawn");
            return false;
        }
        self.before_push();
        self.end_run();
        self.break_batch();
        let here = Placement {
            quads: self.quads.len(),
            vertices: self.vertices.len(),
            indices: self.indices.len(),
            transform,
            frame: self.frame.wrapping_sub(1),
        };
        let kept = rec.placed == Some(here)
            && self.quads.keep(rec.quads.len())
            && self.vertices.keep(rec.vertices.len())
            && self.indices.keep(rec.indices.len());
        if !kept {
            // `keep` may have kept a prefix of the streams: rewind to where the group starts.
            self.quads.truncate(here.quads);
            self.vertices.truncate(here.vertices);
            self.indices.truncate(here.indices);
            let t = transform << TRANSFORM_SHIFT;
            for q in &rec.quads {
                self.quads.push_value::<12>(Quad {
                    texture: q.texture | t,
                    ..*q
                });
            }
            for v in &rec.vertices {
                self.vertices.push_value_split::<6, 2>(Vertex {
                    texture: v.texture | t,
                    ..*v
                });
            }
            let (qb, vb) = (here.quads as u32, here.vertices as u32);
            let bit = self.quad_bit;
            let mut buf = [0u32; 64];
            for chunk in rec.indices.chunks(64) {
                for (d, &s) in buf.iter_mut().zip(chunk) {
                    *d = Element::rebase(s, bit, qb, vb);
                }
                self.indices.push_slice(&buf[..chunk.len()]);
            }
        }
        rec.placed = Some(Placement {
            frame: self.frame,
            ..here
        });
        let base = here.indices as u32;
        // Each batch cut to the visible ranges (both in order; all of it: one range): a piece of a batch a draw.
        let all = [(0, rec.indices.len() as u32)];
        let ranges = visible.unwrap_or(&all);
        if let Some(v) = visible {
            debug_assert!(v.windows(2).all(|w| w[0].1 <= w[1].0));
            debug_assert!(v
                .iter()
                .all(|&(s, e)| s < e && e as usize <= rec.indices.len()));
        }
        let mut r = 0;
        for b in &rec.batches {
            let end = b.index_start + b.index_count;
            while r < ranges.len() && ranges[r].1 <= b.index_start {
                r += 1;
            }
            for &(s, e) in ranges[r..].iter().take_while(|v| v.0 < end) {
                let s = s.max(b.index_start);
                self.batches.push(Batch {
                    index_start: s + base,
                    index_count: e.min(end) - s,
                    state: self.state,
                    target: self.target(),
                    ..*b
                });
            }
        }
        self.start_batch();
        true
    }
}

#[cfg(test)]
impl Recorded {
    /// What `b` batched (finished), as a new recording.
    pub(crate) fn of(b: &Batcher) -> Recorded {
        let mut rec = Recorded::default();
        rec.take_from(b);
        rec
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{quad, tex};
    use super::super::QUAD_INDEX_BIT;
    use super::*;
    use crate::gpu::pipeline::Topology;
    use crate::BlendMode;

    /// Records quads on textures 3, 1, 3 (normal), then 2, 0 (add): two batches, textures met out of order.
    fn two_batch_recording() -> Recorded {
        let mut b = Batcher::new(16);
        b.begin();
        for (t, blend) in [
            (3, BlendMode::Normal),
            (1, BlendMode::Normal),
            (3, BlendMode::Normal),
            (2, BlendMode::Add),
            (0, BlendMode::Add),
        ] {
            quad(&mut b, t, blend);
        }
        b.finish();
        Recorded::of(&b)
    }

    #[test]
    fn sorted_slots_order_each_batch_by_texture_and_move_the_quads_with_them() {
        let mut rec = two_batch_recording();
        let slots = |r: &Recorded| r.quads.iter().map(|q| q.texture & 0x3f).collect::<Vec<_>>();
        assert_eq!(slots(&rec), [0, 1, 0, 0, 1]);
        rec.sort_slots(QUAD_INDEX_BIT, &mut Vec::new());
        let ids = |b: &Batch| b.textures.ids().map(|t| t.index).collect::<Vec<_>>();
        assert_eq!(
            (ids(&rec.batches[0]), ids(&rec.batches[1])),
            (vec![1, 3], vec![0, 2])
        );
        // Each quad still shows its texture.
        assert_eq!(slots(&rec), [1, 0, 1, 1, 0]);
    }

    #[test]
    fn sorted_slots_turn_a_cycle_of_three_and_move_mesh_vertices_once() {
        let mut b = Batcher::new(16);
        b.begin();
        // Textures met as 7, 5, 6 (slots 0, 1, 2); sorted, each texture's slot is its rank: 7 -> 2, 5 -> 0, 6 -> 1.
        quad(&mut b, 7, BlendMode::Normal);
        quad(&mut b, 5, BlendMode::Normal);
        // A square of two triangles sharing two vertices, on texture 6.
        let corners = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
        b.push_mesh(
            tex(6),
            corners.iter().map(|&p| (p, p)),
            &[0, 1, 2, 0, 2, 3],
            u32::MAX,
            BlendMode::Normal,
            Topology::TriangleList,
        );
        quad(&mut b, 7, BlendMode::Normal);
        b.finish();
        let mut rec = Recorded::of(&b);
        assert_eq!(rec.batches.len(), 1);
        rec.sort_slots(QUAD_INDEX_BIT, &mut Vec::new());
        let ids: Vec<_> = rec.batches[0].textures.ids().map(|t| t.index).collect();
        assert_eq!(ids, [5, 6, 7]);
        let quads: Vec<_> = rec.quads.iter().map(|q| q.texture & 0x3f).collect();
        assert_eq!(quads, [2, 0, 2]);
        // Every vertex moved once (from slot 2 to 1), shared ones included.
        assert!(rec.vertices.iter().all(|v| v.texture & 0x3f == 1));
    }

    #[test]
    fn a_replay_cut_to_ranges_draws_the_pieces_of_each_batch_in_them() {
        let mut rec = two_batch_recording();
        let mut b = Batcher::new(16);
        b.begin();
        quad(&mut b, 5, BlendMode::Normal);
        // Quads 1..4 of the recording (indices 6..24) span both batches (quads 0..3 and 3..5); quad 0 and 4 are out.
        assert!(b.replay(&mut rec, 1, Some(&[(6, 12), (12, 24)])));
        b.finish();
        let got: Vec<_> = b.batches()[1..]
            .iter()
            .map(|x| (x.index_start, x.index_count, x.blend))
            .collect();
        // The recording starts at index 6 of the frame (after the one quad before it).
        assert_eq!(
            got,
            [
                (12, 6, BlendMode::Normal),
                (18, 6, BlendMode::Normal),
                (24, 6, BlendMode::Add)
            ]
        );
    }
}
