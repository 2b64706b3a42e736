//! What the GPU holds of particle containers: a container's five property buffers, what recording a particle draw
//! binds, and the layout of those buffers. The mesh system makes and draws them (`meshes.rs`: the particle shader
//! is one of its built-in shaders); the frame writes them (`frame/particles.rs`).

use crate::gpu::buffer::BufferBinding;
use crate::gpu::texture_system::BindGroupId;

/// What the particle upload writes for a property that is not a finite number: the shader drops the particle.
pub(crate) const PARTICLE_SKIP: f32 = -3.0e38;

/// Bytes a particle takes in each of the five particle buffers: vertex (corners around the anchor, scaled),
/// position, rotation, frame texture coordinates, colour.
pub(crate) const PARTICLE_STRIDES: [u64; 5] = [16, 8, 4, 16, 4];

/// A particle container's GPU buffers, one a property.
#[derive(Debug)]
pub(crate) struct GpuParticles {
    pub buffers: [wgpu::Buffer; 5],
    /// Particles the buffers hold room for.
    pub capacity: u32,
    /// The container's version whose static properties the buffers hold (0: none yet), and how many particles.
    pub version: u64,
    pub count: u32,
    /// Which properties were dynamic when last uploaded.
    pub dynamic: [bool; 5],
    pub used: u64,
}

/// A particle container drawn: which node (its particles are read from the scene when the frame is prepared).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ParticleDraw {
    pub node: crate::NodeId,
}

/// What recording a particle draw binds.
pub(crate) struct ParticleBinding<'a> {
    pub groups: [(BindGroupId, &'a wgpu::BindGroup, u32); 2],
    pub buffers: &'a [wgpu::Buffer; 5],
    pub indices: (BufferBinding, &'a wgpu::Buffer),
    pub count: u32,
}
