//! Particle uploads: a particle container's properties written straight from its columns into staging
//! memory of its GPU buffers (no copy between): each dynamic property every frame, the static ones when the
//! container changed them (all of them after a structural change or `update()`, or only the range of particles
//! changed through `particle_mut`).

use crate::base::stats::FrameStats;
use crate::gpu::meshes::MeshSystem;
use crate::gpu::particles::{ParticleDraw, PARTICLE_SKIP, PARTICLE_STRIDES};
use crate::scene::particles::Particles;
use crate::{Error, ParticleContainer, Result, Scene};
use rayon::prelude::*;

/// Particles a property must have for its upload to be packed on every core (where the pool has four threads
/// or more; two gain nothing measurable, as for the walk's sprites).
const PARALLEL_MIN: usize = 65_536;

/// Particles one task packs.
const CHUNK: usize = 32_768;

/// Uploads what draw `draw` needs of its container's particles; returns how many particles were left out for
/// bad properties (their draw collapses them).
pub(crate) fn upload(
    meshes: &mut MeshSystem,
    scene: &Scene,
    draw: ParticleDraw,
    scratch: &mut Vec<u8>,
    stats: &mut FrameStats,
) -> Result<u64> {
    let pc = scene
        .get(draw.node)
        .and_then(|n| n.as_particles())
        .ok_or(Error::StaleNode(draw.node))?;
    let st = pc.upload_state();
    let n = pc.len() as u32;
    let dynamic = pc.dynamic().flags();
    let queue = meshes.queue().clone();
    let g = meshes.particle_buffers(st.uid, n, stats)?;
    let full = g.version < st.base || g.count != n || g.dynamic != dynamic;
    let statics = match (full, g.version == st.version) {
        (true, _) => 0..n,
        (false, true) => 0..0,
        (false, false) => st.dirty.0.min(n)..st.dirty.1.min(n),
    };
    let mut bad = 0;
    for (k, &dynamic) in dynamic.iter().enumerate() {
        let range = if dynamic { 0..n } else { statics.clone() };
        if range.is_empty() {
            continue;
        }
        let stride = PARTICLE_STRIDES[k];
        let bytes = stride * range.len() as u64;
        let size = wgpu::BufferSize::new(bytes).expect("not empty");
        let Some(mut view) =
            queue.write_buffer_with(&g.buffers[k], stride * range.start as u64, size)
        else {
            return Err(Error::Wgpu("a particle upload was refused".into()));
        };
        let ps = pc
            .particles()
            .slice(range.start as usize..range.end as usize);
        // Positions and rotations are their columns copied as they are: no packing to share out.
        let packed = !matches!(k, 1 | 2);
        bad += if packed && ps.len() >= PARALLEL_MIN && rayon::current_num_threads() >= 4 {
            // Packed on every core into memory of ours (staging memory cannot be handed to other threads), then
            // copied into staging at once.
            let len = bytes as usize;
            let n = pack_on_every_core(k, pc, ps, scratch, len);
            view.copy_from_slice(&scratch[..len]);
            n
        } else {
            write_property(k, pc, ps, view.slice(..))
        };
        stats.bytes_uploaded += bytes;
    }
    g.version = st.version;
    g.count = n;
    g.dynamic = dynamic;
    Ok(bad)
}

/// Packs property `k` of `ps` into `scratch[..len]` (grown as needed) in chunks on rayon's pool; returns how many
/// were not finite.
fn pack_on_every_core(
    k: usize,
    pc: &ParticleContainer,
    ps: Particles<'_>,
    scratch: &mut Vec<u8>,
    len: usize,
) -> u64 {
    if scratch.len() < len {
        scratch.resize(len, 0);
    }
    let stride = PARTICLE_STRIDES[k] as usize;
    scratch[..len]
        .par_chunks_mut(CHUNK * stride)
        .enumerate()
        .map(|(i, out)| {
            let chunk = ps.slice(i * CHUNK..(i + 1) * CHUNK);
            write_property(k, pc, chunk, wgpu::WriteOnly::from(out))
        })
        .sum()
}

/// Whether every value is a finite number (no early exit, so that it runs as wide vector compares).
fn all_finite(xs: &[f32]) -> bool {
    xs.chunks(256)
        .all(|c| c.iter().fold(true, |ok, x| ok & x.is_finite()))
}

/// Writes property `k` of `ps` into `out` (its stride a particle); returns how many were not finite (written
/// as [`PARTICLE_SKIP`]).
fn write_property(
    k: usize,
    pc: &ParticleContainer,
    ps: Particles<'_>,
    mut out: wgpu::WriteOnly<'_, [u8]>,
) -> u64 {
    let mut bad = 0u64;
    match k {
        0 => {
            let (out, _) = out.into_chunks::<16>();
            out.write_iter(ps.frame.iter().zip(ps.anchor).zip(ps.scale).map(
                |((&frame, &anchor), &scale)| {
                    let v = match pc.local_quad(frame, anchor) {
                        Some(q) => {
                            let (o, s) = (q.origin * scale, q.size * scale);
                            [o.x, o.y, s.x, s.y]
                        }
                        // A frame past the container's: counted by its texture coordinates.
                        None => [PARTICLE_SKIP, 0.0, 0.0, 0.0],
                    };
                    let v = match v.iter().all(|x| x.is_finite()) {
                        true => v,
                        false => {
                            bad += 1;
                            [PARTICLE_SKIP, 0.0, 0.0, 0.0]
                        }
                    };
                    bytemuck::cast(v)
                },
            ));
        }
        1 => {
            // The hot path (positions are dynamic by default): one copy of the column when every value is a
            // number, as it nearly always is.
            let floats: &[f32] = bytemuck::cast_slice(ps.position);
            if all_finite(floats) {
                out.copy_from_slice(bytemuck::cast_slice(floats));
            } else {
                let (out, _) = out.into_chunks::<8>();
                out.write_iter(ps.position.iter().map(|p| {
                    let ok = p.is_finite();
                    bad += u64::from(!ok);
                    let v = match ok {
                        true => p.to_array(),
                        false => [PARTICLE_SKIP; 2],
                    };
                    bytemuck::cast::<[f32; 2], [u8; 8]>(v)
                }));
            }
        }
        2 => {
            if all_finite(ps.rotation) {
                out.copy_from_slice(bytemuck::cast_slice(ps.rotation));
            } else {
                let (out, _) = out.into_chunks::<4>();
                out.write_iter(ps.rotation.iter().map(|&r| {
                    let r = match r.is_finite() {
                        true => r,
                        false => {
                            bad += 1;
                            PARTICLE_SKIP
                        }
                    };
                    r.to_ne_bytes()
                }));
            }
        }
        3 => {
            let frames = pc.frames();
            let (out, _) = out.into_chunks::<16>();
            out.write_iter(ps.frame.iter().map(|&frame| {
                let v = match frames.get(frame as usize) {
                    Some(t) => {
                        let [u0, v0, u1, v1] = t.uvs();
                        // A frame stored turned is marked by its u's swapped.
                        match t.is_rotated() {
                            true => [u1, v0, u0, v1],
                            false => [u0, v0, u1, v1],
                        }
                    }
                    None => {
                        bad += 1;
                        [0.0, PARTICLE_SKIP, 0.0, 0.0]
                    }
                };
                bytemuck::cast(v)
            }));
        }
        _ => {
            let (out, _) = out.into_chunks::<4>();
            out.write_iter(ps.tint.iter().zip(ps.alpha).map(|(&tint, &alpha)| {
                let a = match alpha.is_finite() {
                    true => (alpha.clamp(0.0, 1.0) * 255.0 + 0.5) as u8,
                    false => {
                        bad += 1;
                        0
                    }
                };
                let [_, r, g, b] = tint.to_be_bytes();
                [r, g, b, a]
            }));
        }
    }
    bad
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Particle;
    use glam::Vec2;

    /// The chunked pack writes what the one-pass pack writes, bad particles included, for every property.
    #[test]
    fn packing_on_every_core_matches_one_pass() {
        let t = crate::base::texture::tests_support::texture(1);
        let mut pc = ParticleContainer::new(t);
        pc.add_frame(t.frame(0, 0, 8, 8).unwrap()).unwrap();
        let n = CHUNK * 2 + 1234;
        pc.extend((0..n).map(|i| {
            let mut p = Particle::new(i as f32, (i % 7) as f32)
                .rotated(i as f32 * 0.01)
                .with_frame((i % 3) as u32)
                .with_alpha((i % 5) as f32 * 0.25);
            p.scale = Vec2::new(1.0 + (i % 4) as f32, 0.5);
            if i % 1001 == 0 {
                p.position.y = f32::NAN;
                p.rotation = f32::INFINITY;
                p.alpha = f32::NAN;
            }
            if i % 1003 == 0 {
                p.scale.x = f32::NAN;
            }
            if i % 1005 == 0 {
                p.frame = 9;
            }
            p
        }))
        .unwrap();
        for (k, stride) in PARTICLE_STRIDES.iter().enumerate() {
            let len = *stride as usize * n;
            let mut one = vec![0u8; len];
            let bad_one =
                write_property(k, &pc, pc.particles(), wgpu::WriteOnly::from(&mut one[..]));
            let mut scratch = Vec::new();
            let bad = pack_on_every_core(k, &pc, pc.particles(), &mut scratch, len);
            assert_eq!(bad, bad_one, "property {k}");
            assert!(bad > 0, "property {k} counts its bad particles");
            assert_eq!(&scratch[..len], &one[..], "property {k}");
        }
    }

    /// Columns of numbers only are copied as they are: the bytes the renderer's shader reads, in order.
    #[test]
    fn finite_columns_upload_as_they_are() {
        let t = crate::base::texture::tests_support::texture(1);
        let mut pc = ParticleContainer::new(t);
        pc.extend((0..1000).map(|i| Particle::new(i as f32, -(i as f32)).rotated(i as f32)))
            .unwrap();
        for (k, want) in [
            (
                1usize,
                bytemuck::cast_slice::<_, u8>(pc.particles().position),
            ),
            (2, bytemuck::cast_slice(pc.particles().rotation)),
        ] {
            let mut out = vec![0u8; want.len()];
            let bad = write_property(k, &pc, pc.particles(), wgpu::WriteOnly::from(&mut out[..]));
            assert_eq!((bad, &out[..]), (0, want), "property {k}");
        }
        // One that is not a number is written as the skip value, the rest as they are.
        pc.particles_mut().position[7].y = f32::INFINITY;
        let mut out = vec![0u8; 8000];
        let bad = write_property(1, &pc, pc.particles(), wgpu::WriteOnly::from(&mut out[..]));
        let got: &[[f32; 2]] = bytemuck::cast_slice(&out);
        assert_eq!((bad, got[7], got[8]), (1, [PARTICLE_SKIP; 2], [8.0, -8.0]));
    }
}
