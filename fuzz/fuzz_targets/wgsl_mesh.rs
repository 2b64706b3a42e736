//! A custom mesh shader's WGSL source through the CPU check `Renderer::create_mesh_shader` makes before wgpu sees
//! it (`stage2d::internals::check_mesh_wgsl`: the mesh prelude and the source parsed and validated by naga, both
//! entry points required, group 1's bindings read). A shader it accepts declares at most the limits.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok((uniform_bytes, textures)) = stage2d::internals::check_mesh_wgsl(source) {
        assert!(uniform_bytes <= 4096 && textures <= 4);
    }
});
