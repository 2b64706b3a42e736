//! The floor the full-screen blur of `examples/filters.rs --bench` is measured against: a hand-written separable
//! Gaussian blur on raw wgpu, with no scene graph and no filter system. The same kernel as stage2d's (and
//! PixiJS's) `BlurFilter` at strength 8, quality 4: 4 horizontal then 4 vertical 5-tap passes with halving
//! strengths, ping-ponging between two textures, the last pass writing the 1920x1080 target. Its source is a
//! 1920x1080 picture already in a texture (stage2d first draws the filtered sprite into its intermediate
//! texture, one pass more).
//!
//! `cargo bench --bench bare_blur -- [--frames F] [--warmup W] [--width W --height H]` prints one JSON line:
//! GPU ms (timestamps around all the passes, where the adapter has them) and CPU ms (encode and submit).

#[path = "../examples/common/mod.rs"]
mod common;

use std::time::Instant;

const KERNEL: [f32; 3] = [0.153388, 0.221461, 0.250301];

const SHADER: &str = r#"
struct Pass { step: vec2<f32>, _pad: vec2<f32> };
@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var s: sampler;
@group(0) @binding(2) var<uniform> pass_: Pass;
struct Out { @builtin(position) position: vec4<f32>, @location(0) uv: vec2<f32> };
@vertex
fn vs(@builtin(vertex_index) v: u32) -> Out {
    let c = vec2<f32>(f32(v & 1u), f32(v >> 1u));
    var o: Out;
    o.position = vec4<f32>(c.x * 2.0 - 1.0, 1.0 - c.y * 2.0, 0.0, 1.0);
    o.uv = c;
    return o;
}
@fragment
fn fs(i: Out) -> @location(0) vec4<f32> {
    var c = vec4<f32>(0.0);
    c += textureSampleLevel(t, s, i.uv - 2.0 * pass_.step, 0.0) * K0;
    c += textureSampleLevel(t, s, i.uv - pass_.step, 0.0) * K1;
    c += textureSampleLevel(t, s, i.uv, 0.0) * K2;
    c += textureSampleLevel(t, s, i.uv + pass_.step, 0.0) * K1;
    c += textureSampleLevel(t, s, i.uv + 2.0 * pass_.step, 0.0) * K0;
    return c;
}
"#;

fn main() {
    let flags = common::Flags::from_env();
    let frames = flags.num("--frames", 200u64);
    let warmup = flags.num("--warmup", 20u64);
    let (w, h) = (
        flags.num("--width", 1920u32),
        flags.num("--height", 1080u32),
    );
    let instance = wgpu::Instance::new(stage2d::instance_descriptor(
        wgpu::InstanceDescriptor::new_without_display_handle(),
    ));
    let adapter = stage2d::select_adapter(&instance, None, wgpu::PowerPreference::HighPerformance)
        .expect("an adapter");
    let timing = adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY);
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_features: if timing {
            wgpu::Features::TIMESTAMP_QUERY
        } else {
            wgpu::Features::empty()
        },
        ..Default::default()
    }))
    .expect("a device");
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let texture = |label, usage| {
        device.create_texture(&wgpu::TextureDescriptor {
            label: Some(label),
            size: wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage,
            view_formats: &[],
        })
    };
    let rw = wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING;
    let source = texture(
        "source",
        wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
    );
    // The same picture as the stage2d scene.
    let mut pixels = vec![0u8; (w * h * 4) as usize];
    for y in 0..h {
        for x in 0..w {
            let i = ((y * w + x) * 4) as usize;
            let v = (((x / 16) + (y / 16)) % 2 * 200) as u8;
            pixels[i..i + 4].copy_from_slice(&[v, (x % 256) as u8, (y % 256) as u8, 255]);
        }
    }
    queue.write_texture(
        source.as_image_copy(),
        &pixels,
        wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(w * 4),
            rows_per_image: None,
        },
        source.size(),
    );
    let (a, b, target) = (
        texture("ping", rw),
        texture("pong", rw),
        texture("target", rw),
    );
    let views: Vec<_> = [&source, &a, &b, &target]
        .iter()
        .map(|t| t.create_view(&Default::default()))
        .collect();
    let source_code = SHADER
        .replace("K0", &format!("{:?}", KERNEL[0]))
        .replace("K1", &format!("{:?}", KERNEL[1]))
        .replace("K2", &format!("{:?}", KERNEL[2]));
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("bare blur"),
        source: wgpu::ShaderSource::Wgsl(source_code.into()),
    });
    let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("bare blur"),
        layout: None,
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vs"),
            compilation_options: Default::default(),
            buffers: &[],
        },
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fs"),
            compilation_options: Default::default(),
            targets: &[Some(format.into())],
        }),
        primitive: wgpu::PrimitiveState {
            topology: wgpu::PrimitiveTopology::TriangleStrip,
            ..Default::default()
        },
        depth_stencil: None,
        multisample: Default::default(),
        multiview_mask: None,
        cache: None,
    });
    let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
        mag_filter: wgpu::FilterMode::Linear,
        min_filter: wgpu::FilterMode::Linear,
        ..Default::default()
    });
    // PixiJS's optimised passes: strengths whose squares sum to 8's, halving; per axis.
    let passes = 4;
    let (mut sum, mut c) = (1.0f32, 0.5f32);
    for _ in 1..passes {
        sum += c * c;
        c *= 0.5;
    }
    let mut steps = Vec::new();
    for horizontal in [true, false] {
        let mut s = 8.0 / sum.sqrt();
        for _ in 0..passes {
            steps.push(if horizontal {
                [s / w as f32, 0.0, 0.0, 0.0]
            } else {
                [0.0, s / h as f32, 0.0, 0.0]
            });
            s *= 0.5;
        }
    }
    let align = device.limits().min_uniform_buffer_offset_alignment as u64;
    let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("steps"),
        size: align * steps.len() as u64,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    for (i, s) in steps.iter().enumerate() {
        queue.write_buffer(&uniforms, align * i as u64, bytemuck::cast_slice(s));
    }
    // Pass k reads `inputs[k]` and writes `outputs[k]`: source -> a -> b -> a ... -> target.
    let (mut inputs, mut outputs) = (Vec::new(), Vec::new());
    let mut from = 0usize;
    for k in 0..steps.len() {
        let to = if k + 1 == steps.len() {
            3
        } else if from == 1 {
            2
        } else {
            1
        };
        inputs.push(from);
        outputs.push(to);
        from = to;
    }
    let groups: Vec<_> = (0..steps.len())
        .map(|k| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout: &pipeline.get_bind_group_layout(0),
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::TextureView(&views[inputs[k]]),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::Sampler(&sampler),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: &uniforms,
                            offset: align * k as u64,
                            size: std::num::NonZeroU64::new(16),
                        }),
                    },
                ],
            })
        })
        .collect();
    let queries = timing.then(|| {
        device.create_query_set(&wgpu::QuerySetDescriptor {
            label: None,
            ty: wgpu::QueryType::Timestamp,
            count: 2,
        })
    });
    let resolve = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 16,
        usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 16,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let period = queue.get_timestamp_period() as f64;
    let (mut cpu, mut gpu) = (common::Samples::default(), common::Samples::default());
    for frame in 0..warmup + frames {
        let t0 = Instant::now();
        let mut encoder = device.create_command_encoder(&Default::default());
        for k in 0..steps.len() {
            let last = k + 1 == steps.len();
            let ts = queries.as_ref().filter(|_| k == 0 || last).map(|q| {
                wgpu::RenderPassTimestampWrites {
                    query_set: q,
                    beginning_of_pass_write_index: (k == 0).then_some(0),
                    end_of_pass_write_index: last.then_some(1),
                }
            });
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: None,
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &views[outputs[k]],
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: ts,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &groups[k], &[]);
            pass.draw(0..4, 0..1);
        }
        if let Some(q) = &queries {
            encoder.resolve_query_set(q, 0..2, &resolve, 0);
            encoder.copy_buffer_to_buffer(&resolve, 0, &readback, 0, 16);
        }
        queue.submit([encoder.finish()]);
        let cpu_ms = t0.elapsed().as_secs_f64() * 1e3;
        if queries.is_some() {
            readback.slice(..).map_async(wgpu::MapMode::Read, |_| {});
        }
        let _ = device.poll(wgpu::PollType::wait_indefinitely());
        if frame >= warmup {
            cpu.push(cpu_ms);
            if queries.is_some() {
                let data = readback.slice(..).get_mapped_range().expect("mapped");
                let t: [u64; 2] = bytemuck::pod_read_unaligned(&data[..16]);
                drop(data);
                if t[1] > t[0] {
                    gpu.push((t[1] - t[0]) as f64 * period / 1e6);
                }
            }
        }
        if queries.is_some() {
            readback.unmap();
        }
    }
    let info = adapter.get_info();
    let gpu_ms = match gpu.is_empty() {
        true => "null".to_string(),
        false => format!("{:.4}", gpu.median()),
    };
    println!(
        "{{\"bench\":\"bare_blur\",\"adapter\":\"{}\",\"width\":{w},\"height\":{h},\"passes\":{},\"frames\":{frames},\"cpu_ms_median\":{:.4},\"gpu_ms_median\":{gpu_ms}}}",
        info.name.replace('"', "'"),
        steps.len(),
        cpu.median(),
    );
}
