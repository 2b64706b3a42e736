//! Particle uploads: a particle container's properties written straight from its dense array into staging
//! memory of its GPU buffers (no copy between): each dynamic property every frame, the static ones when the
//! container changed them (all of them after a structural change or `update()`, or only the range of particles
//! changed through `particle_mut`).

use crate::base::stats::FrameStats;
use crate::gpu::meshes::{MeshSystem, ParticleDraw, PARTICLE_SKIP, PARTICLE_STRIDES};
use crate::{Error, Particle, ParticleContainer, Result, Scene};

/// Uploads what draw `draw` needs of its container's particles; returns how many particles were left out for
/// bad properties (their draw collapses them).
pub(crate) fn upload(
    meshes: &mut MeshSystem,
    scene: &Scene,
    draw: ParticleDraw,
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
        let ps = &pc.particles()[range.start as usize..range.end as usize];
        bad += write_property(k, pc, ps, view.slice(..));
        stats.bytes_uploaded += bytes;
    }
    g.version = st.version;
    g.count = n;
    g.dynamic = dynamic;
    Ok(bad)
}

/// Writes property `k` of `ps` into `out` (its stride a particle); returns how many were not finite (written
/// as [`PARTICLE_SKIP`]).
fn write_property(
    k: usize,
    pc: &ParticleContainer,
    ps: &[Particle],
    out: wgpu::WriteOnly<'_, [u8]>,
) -> u64 {
    let mut bad = 0u64;
    match k {
        0 => {
            let (out, _) = out.into_chunks::<16>();
            out.write_iter(ps.iter().map(|p| {
                let v = match pc.local_quad(p) {
                    Some(q) => {
                        let (o, s) = (q.origin * p.scale, q.size * p.scale);
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
            }));
        }
        1 => {
            // The hot loop (positions are dynamic by default): a select, no branch.
            let (out, _) = out.into_chunks::<8>();
            out.write_iter(ps.iter().map(|p| {
                let ok = p.position.is_finite();
                bad += u64::from(!ok);
                let v = match ok {
                    true => p.position.to_array(),
                    false => [PARTICLE_SKIP; 2],
                };
                bytemuck::cast::<[f32; 2], [u8; 8]>(v)
            }));
        }
        2 => {
            let (out, _) = out.into_chunks::<4>();
            out.write_iter(ps.iter().map(|p| {
                let r = match p.rotation.is_finite() {
                    true => p.rotation,
                    false => {
                        bad += 1;
                        PARTICLE_SKIP
                    }
                };
                r.to_ne_bytes()
            }));
        }
        3 => {
            let frames = pc.frames();
            let (out, _) = out.into_chunks::<16>();
            out.write_iter(ps.iter().map(|p| {
                let v = match frames.get(p.frame as usize) {
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
            out.write_iter(ps.iter().map(|p| {
                let a = match p.alpha.is_finite() {
                    true => (p.alpha.clamp(0.0, 1.0) * 255.0 + 0.5) as u8,
                    false => {
                        bad += 1;
                        0
                    }
                };
                let [_, r, g, b] = p.tint.to_be_bytes();
                [r, g, b, a]
            }));
        }
    }
    bad
}
