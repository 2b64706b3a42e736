//! The floor the bunnymark is measured against: a bare instanced-quad renderer on raw wgpu, with no scene graph,
//! no batching and no change tracking. It moves the same bunnies under the same gravity, writes 32 bytes a sprite
//! into one instance buffer (`Queue::write_buffer`), and records one pass with one draw. Timed like
//! `bunnymark --headless`: `cpu_ms` is update + upload + encode + submit, `frame_ms` adds the wait for the GPU.
//!
//! `cargo bench --bench bare_quads -- --sprites N --frames F [--warmup W]` prints one JSON line. `--draws K` splits
//! the sprites over K draw calls; `--bundle` records the pass's commands once as a `wgpu::RenderBundle` and replays
//! it each frame (what a render bundle saves against recording the same draws every frame).

#[path = "../examples/common/mod.rs"]
mod common;

use bytemuck::{Pod, Zeroable};
use common::Rng;
use std::time::Instant;

const WIDTH: u32 = 800;
const HEIGHT: u32 = 600;
const GRAVITY: f32 = 0.75;

/// One sprite: 32 bytes.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Instance {
    /// Anchor point (bottom centre) in pixels.
    position: [f32; 2],
    size: [f32; 2],
    uv: [f32; 2],
    color: u32,
    _pad: u32,
}

const SHADER: &str = r#"
struct Instance {
    @location(0) position: vec2<f32>,
    @location(1) size: vec2<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) color: vec4<f32>,
};
struct Out {
    @builtin(position) position: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) color: vec4<f32>,
};
@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var s: sampler;
@vertex
fn vs(@builtin(vertex_index) v: u32, i: Instance) -> Out {
    let corner = vec2<f32>(f32((v == 1u) || (v == 2u) || (v == 4u)), f32((v == 2u) || (v >= 4u)));
    let px = i.position + (corner - vec2<f32>(0.5, 1.0)) * i.size;
    var o: Out;
    o.position = vec4<f32>(px.x / 400.0 - 1.0, 1.0 - px.y / 300.0, 0.0, 1.0);
    o.uv = corner * i.uv;
    o.color = vec4<f32>(i.color.rgb * i.color.a, i.color.a);
    return o;
}
@fragment
fn fs(i: Out) -> @location(0) vec4<f32> {
    return textureSample(t, s, i.uv) * i.color;
}
"#;

fn main() {
    let flags = common::Flags::from_env();
    let sprites: usize = flags.num("--sprites", 1000);
    let frames: usize = flags.num("--frames", 300);
    let warmup: usize = flags.num("--warmup", 30);
    let draws: usize = flags.num("--draws", 1usize).clamp(1, sprites.max(1));
    let use_bundle = flags.has("--bundle");

    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&Default::default()))
        .expect("an adapter (install mesa-vulkan-drivers)");
    let info = adapter.get_info();
    let (device, queue) =
        pollster::block_on(adapter.request_device(&Default::default())).expect("a device");

    let img = image::open(common::asset("bunny0.png"))
        .expect("assets/bunny0.png")
        .to_rgba8();
    let (bw, bh) = img.dimensions();
    let mut rgba = img.into_raw();
    for px in rgba.chunks_exact_mut(4) {
        let a = px[3] as u32;
        for c in &mut px[..3] {
            *c = ((*c as u32 * a + 127) / 255) as u8;
        }
    }
    let size = wgpu::Extent3d {
        width: bw,
        height: bh,
        depth_or_array_layers: 1,
    };
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: None,
        size,
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8Unorm,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    queue.write_texture(
        texture.as_image_copy(),
        &rgba,
        wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(bw * 4),
            rows_per_image: None,
        },
        size,
    );
    let target = device.create_texture(&wgpu::TextureDescriptor {
        label: None,
        size: wgpu::Extent3d {
            width: WIDTH,
            height: HEIGHT,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8Unorm,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
        view_formats: &[],
    });
    let target_view = target.create_view(&Default::default());
    let sampler = device.create_sampler(&Default::default());
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: None,
        source: wgpu::ShaderSource::Wgsl(SHADER.into()),
    });
    let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: None,
        layout: None,
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vs"),
            compilation_options: Default::default(),
            buffers: &[Some(wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<Instance>() as u64,
                step_mode: wgpu::VertexStepMode::Instance,
                attributes: &wgpu::vertex_attr_array![0 => Float32x2, 1 => Float32x2, 2 => Float32x2, 3 => Unorm8x4],
            })],
        },
        primitive: Default::default(),
        depth_stencil: None,
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fs"),
            compilation_options: Default::default(),
            targets: &[Some(wgpu::ColorTargetState {
                format: wgpu::TextureFormat::Rgba8Unorm,
                blend: Some(wgpu::BlendState::PREMULTIPLIED_ALPHA_BLENDING),
                write_mask: wgpu::ColorWrites::ALL,
            })],
        }),
        multiview_mask: None,
        cache: None,
    });
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(
                    &texture.create_view(&Default::default()),
                ),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::Sampler(&sampler),
            },
        ],
    });
    let instances_buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: (sprites.max(1) * std::mem::size_of::<Instance>()) as u64,
        usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });

    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    // (position, velocity) per bunny, and the instance data written from them each frame.
    let mut bunnies: Vec<([f32; 2], [f32; 2])> = (0..sprites)
        .map(|_| {
            let p = [rng.next() * WIDTH as f32, rng.next() * HEIGHT as f32 * 0.5];
            (p, [rng.next() * 10.0, rng.next() * 10.0 - 5.0])
        })
        .collect();
    let mut data = vec![Instance::zeroed(); sprites];
    // Draw `k` covers instances `ranges[k]`.
    let ranges: Vec<_> = (0..draws)
        .map(|k| (k * sprites / draws) as u32..((k + 1) * sprites / draws) as u32)
        .collect();
    let bundle = use_bundle.then(|| {
        let mut b = device.create_render_bundle_encoder(&wgpu::RenderBundleEncoderDescriptor {
            label: None,
            color_formats: &[Some(wgpu::TextureFormat::Rgba8Unorm)],
            depth_stencil: None,
            sample_count: 1,
            multiview: None,
        });
        b.set_pipeline(&pipeline);
        b.set_bind_group(0, &bind_group, &[]);
        b.set_vertex_buffer(0, instances_buffer.slice(..));
        for r in &ranges {
            b.draw(0..6, r.clone());
        }
        b.finish(&wgpu::RenderBundleDescriptor { label: None })
    });
    let (w, h) = (WIDTH as f32, HEIGHT as f32);
    // Mean ms of the update loop (moving the sprites and writing their instances) and of the rest (upload,
    // encode, submit), to set beside the bunnymark's phases.
    let (update_ms, submit_ms) = (std::cell::Cell::new(0.0f64), std::cell::Cell::new(0.0f64));
    let mut frame = |rng: &mut Rng| {
        let t_update = Instant::now();
        for ((p, v), out) in bunnies.iter_mut().zip(&mut data) {
            p[0] += v[0];
            p[1] += v[1];
            v[1] += GRAVITY;
            if p[0] > w {
                v[0] = -v[0];
                p[0] = w;
            } else if p[0] < 0.0 {
                v[0] = -v[0];
                p[0] = 0.0;
            }
            if p[1] > h {
                v[1] *= -0.85;
                p[1] = h;
                if rng.next() > 0.5 {
                    v[1] -= rng.next() * 6.0;
                }
            } else if p[1] < 0.0 {
                v[1] = 0.0;
                p[1] = 0.0;
            }
            *out = Instance {
                position: *p,
                size: [bw as f32, bh as f32],
                uv: [1.0, 1.0],
                color: u32::MAX,
                _pad: 0,
            };
        }
        let t_submit = Instant::now();
        update_ms.set(update_ms.get() + (t_submit - t_update).as_secs_f64() * 1e3);
        queue.write_buffer(&instances_buffer, 0, bytemuck::cast_slice(&data));
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: None,
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &target_view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color {
                            r: 0.06,
                            g: 0.6,
                            b: 0.73,
                            a: 1.0,
                        }),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            if let Some(b) = &bundle {
                pass.execute_bundles([b]);
            } else {
                pass.set_pipeline(&pipeline);
                pass.set_bind_group(0, &bind_group, &[]);
                pass.set_vertex_buffer(0, instances_buffer.slice(..));
                for r in &ranges {
                    pass.draw(0..6, r.clone());
                }
            }
        }
        queue.submit([encoder.finish()]);
        submit_ms.set(submit_ms.get() + t_submit.elapsed().as_secs_f64() * 1e3);
    };
    let wait = || {
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("the GPU finishes");
    };
    for _ in 0..warmup {
        frame(&mut rng);
        wait();
    }
    let (mut cpu, mut total) = (common::Samples::default(), common::Samples::default());
    update_ms.set(0.0);
    submit_ms.set(0.0);
    for _ in 0..frames {
        let t0 = Instant::now();
        frame(&mut rng);
        let t1 = Instant::now();
        wait();
        let t2 = Instant::now();
        cpu.push((t1 - t0).as_secs_f64() * 1e3);
        total.push((t2 - t0).as_secs_f64() * 1e3);
    }
    println!(
        "{{\"bench\":\"bare_quads\",\"sprites\":{sprites},\"draws\":{draws},\"bundle\":{use_bundle},\"frames\":{frames},\"adapter\":\"{}\",\"backend\":\"{:?}\",\"cpu_ms_median\":{:.4},\"cpu_ms_p95\":{:.4},\"frame_ms_median\":{:.4},\"frame_ms_p95\":{:.4},\"bytes_uploaded_per_frame\":{},\"update_ms_mean\":{:.4},\"submit_ms_mean\":{:.4}}}",
        info.name,
        info.backend,
        cpu.percentile(0.5),
        cpu.percentile(0.95),
        total.percentile(0.5),
        total.percentile(0.95),
        sprites * std::mem::size_of::<Instance>(),
        update_ms.get() / frames as f64,
        submit_ms.get() / frames as f64,
    );
}
