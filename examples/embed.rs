//! stage2d inside another program's frame: the program owns the wgpu instance, adapter, device and queue, begins
//! its own render pass, draws its own triangle with its own pipeline, and then stage2d records a scene (sprites, a
//! shape, text and a stencil mask) into the same pass.
//!
//! `cargo run --release --example embed` opens a window when a display exists (`--frames N` closes it after N
//! frames); without one (or with `--headless`) it draws one frame offscreen and writes `embed.png` (or the file
//! named by `--out`).

use stage2d::{
    Color, Font, GraphicsContext, Node, Renderer, RendererOptions, Sampling, Scene, TargetDesc,
    Text,
};

/// The size of the headless picture.
pub const SIZE: (u32, u32) = (320, 240);
/// The host's clear colour, as stored in an `Rgba8Unorm` target.
pub const CLEAR: [u8; 4] = [32, 32, 64, 255];
/// The host's stencil attachment (stage2d's masks need one).
pub const STENCIL: wgpu::TextureFormat = wgpu::TextureFormat::Depth24PlusStencil8;

/// The host program: its device and its own triangle pipeline.
pub struct Host {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pipeline: wgpu::RenderPipeline,
}

const TRIANGLE: &str = r#"
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    var p = array<vec2<f32>, 3>(vec2(-0.9, -0.8), vec2(-0.1, -0.8), vec2(-0.5, 0.8));
    return vec4(p[i], 0.0, 1.0);
}
@fragment fn fs() -> @location(0) vec4<f32> { return vec4(1.0, 0.0, 0.0, 1.0); }
"#;

impl Host {
    /// The host's device on `adapter` (with the adapter's limits) and its triangle pipeline for `format`.
    pub fn new(adapter: &wgpu::Adapter, format: wgpu::TextureFormat) -> Host {
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("host"),
            required_limits: adapter.limits(),
            ..Default::default()
        }))
        .expect("a device");
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("host triangle"),
            source: wgpu::ShaderSource::Wgsl(TRIANGLE.into()),
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("host triangle"),
            layout: None,
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            primitive: Default::default(),
            depth_stencil: Some(wgpu::DepthStencilState {
                format: STENCIL,
                depth_write_enabled: Some(false),
                depth_compare: Some(wgpu::CompareFunction::Always),
                stencil: Default::default(),
                bias: Default::default(),
            }),
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs"),
                compilation_options: Default::default(),
                targets: &[Some(format.into())],
            }),
            multiview_mask: None,
            cache: None,
        });
        Host {
            device,
            queue,
            pipeline,
        }
    }

    /// A stencil attachment for a `size` target.
    pub fn stencil(&self, size: (u32, u32)) -> wgpu::TextureView {
        self.device
            .create_texture(&wgpu::TextureDescriptor {
                label: Some("host stencil"),
                size: wgpu::Extent3d {
                    width: size.0,
                    height: size.1,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: STENCIL,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                view_formats: &[],
            })
            .create_view(&Default::default())
    }
}

/// stage2d's part: a renderer on the host's device and a scene.
pub struct Overlay {
    pub renderer: Renderer,
    pub scene: Scene,
}

impl Overlay {
    /// A green bar, a bunny, a yellow circle, a line of text, and a magenta bar seen through a circular mask.
    pub fn new(host: &Host) -> stage2d::Result<Overlay> {
        let mut renderer = Renderer::from_device(
            host.device.clone(),
            host.queue.clone(),
            RendererOptions::default(),
        )?;
        let bunny = renderer.load_texture(asset("bunny0.png"), Sampling::NEAREST)?;
        let white = renderer.white_texture();
        let font = Font::load(asset("DejaVuSans.ttf"))?;
        let mut scene = Scene::new();
        let root = scene.root();
        scene.add(
            root,
            Node::sprite(white)
                .sized(60.0, 40.0)
                .at(180.0, 20.0)
                .tinted(Color::hex(0x00ff00)),
        )?;
        scene.add(root, Node::sprite(bunny).at(260.0, 20.0))?;
        let mut circle = GraphicsContext::new();
        circle.circle(0.0, 0.0, 30.0).fill(Color::hex(0xffff00));
        scene.add(root, Node::graphics(circle).at(230.0, 160.0))?;
        let label = Text::new("stage2d in your pass", &font, 14.0).colored(Color::WHITE);
        scene.add(root, Node::text(label).at(148.0, 210.0))?;
        let bar = scene.add(
            root,
            Node::sprite(white)
                .sized(120.0, 40.0)
                .at(180.0, 80.0)
                .tinted(Color::hex(0xff00ff)),
        )?;
        let mut hole = GraphicsContext::new();
        hole.circle(240.0, 100.0, 18.0).fill(Color::WHITE);
        let mask = scene.add_detached(Node::graphics(hole));
        scene.set_mask(bar, mask, false)?;
        Ok(Overlay { renderer, scene })
    }
}

/// One frame of the host: its pass cleared to [`CLEAR`], its triangle, then stage2d's scene in the same pass.
pub fn draw_frame(
    host: &Host,
    overlay: &mut Overlay,
    view: &wgpu::TextureView,
    stencil: &wgpu::TextureView,
) -> stage2d::Result<()> {
    let target = TargetDesc::from_view(view).with_depth_stencil(STENCIL);
    // CPU work and uploads, before the host's pass opens.
    overlay.renderer.prepare(&overlay.scene, &target)?;
    let mut encoder = host.device.create_command_encoder(&Default::default());
    {
        let [r, g, b, a] = CLEAR.map(|c| c as f64 / 255.0);
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("host pass"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color { r, g, b, a }),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: stencil,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Discard,
                }),
                stencil_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(0),
                    store: wgpu::StoreOp::Discard,
                }),
            }),
            ..Default::default()
        });
        pass.set_pipeline(&host.pipeline);
        pass.draw(0..3, 0..1);
        overlay.renderer.record(&mut pass, &target)?;
    }
    host.queue.submit([encoder.finish()]);
    overlay.renderer.trim();
    Ok(())
}

/// Draws one frame offscreen on an adapter the host picks and reads it back.
pub fn headless() -> stage2d::Result<image::RgbaImage> {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = stage2d::select_adapter(&instance, None, wgpu::PowerPreference::default())?;
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let host = Host::new(&adapter, format);
    let mut overlay = Overlay::new(&host)?;
    let texture = host.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("host target"),
        size: wgpu::Extent3d {
            width: SIZE.0,
            height: SIZE.1,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let view = texture.create_view(&Default::default());
    draw_frame(&host, &mut overlay, &view, &host.stencil(SIZE))?;
    Ok(read_back(&host, &texture))
}

/// The host's own readback of an opaque `Rgba8Unorm` texture.
fn read_back(host: &Host, texture: &wgpu::Texture) -> image::RgbaImage {
    let (w, h) = (texture.width(), texture.height());
    let row =
        (w * 4).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let buffer = host.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("host readback"),
        size: (row * h) as u64,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = host.device.create_command_encoder(&Default::default());
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(row),
                rows_per_image: Some(h),
            },
        },
        texture.size(),
    );
    host.queue.submit([encoder.finish()]);
    buffer
        .slice(..)
        .map_async(wgpu::MapMode::Read, |r| r.expect("mapped"));
    host.device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("the GPU finishes");
    let data = buffer.slice(..).get_mapped_range().expect("mapped");
    image::RgbaImage::from_fn(w, h, |x, y| {
        let i = (y * row + x * 4) as usize;
        image::Rgba([data[i], data[i + 1], data[i + 2], data[i + 3]])
    })
}

fn asset(name: &str) -> std::path::PathBuf {
    let local = std::path::Path::new("assets").join(name);
    if local.exists() {
        local
    } else {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("assets")
            .join(name)
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    env_logger::init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |name: &str| {
        let i = args.iter().position(|a| a == name)?;
        args.get(i + 1).cloned()
    };
    let frames = value("--frames").and_then(|v| v.parse().ok());
    let display =
        std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some();
    if display && !args.iter().any(|a| a == "--headless") {
        match window::run(frames) {
            Ok(()) => return Ok(()),
            Err(e) => eprintln!("no window ({e}); drawing headless"),
        }
    }
    let out = value("--out").unwrap_or_else(|| "embed.png".into());
    let img = headless()?;
    img.save(&out)?;
    println!("wrote {out} ({}x{})", img.width(), img.height());
    Ok(())
}

/// The same frame in a window: the host owns the surface and presents it.
mod window {
    use super::*;
    use std::sync::Arc;
    use winit::application::ApplicationHandler;
    use winit::event::WindowEvent;
    use winit::event_loop::{ActiveEventLoop, EventLoop};
    use winit::window::{Window, WindowId};

    struct Gpu {
        window: Arc<Window>,
        surface: wgpu::Surface<'static>,
        config: wgpu::SurfaceConfiguration,
        host: Host,
        overlay: Overlay,
        stencil: wgpu::TextureView,
    }

    #[derive(Default)]
    struct Demo {
        gpu: Option<Gpu>,
        error: Option<String>,
        /// Frames left to draw before closing, if limited.
        frames_left: Option<u32>,
    }

    impl Demo {
        fn open(
            &mut self,
            event_loop: &ActiveEventLoop,
        ) -> Result<Gpu, Box<dyn std::error::Error>> {
            let attrs = Window::default_attributes()
                .with_title("stage2d embedded")
                .with_inner_size(winit::dpi::PhysicalSize::new(SIZE.0, SIZE.1));
            let window = Arc::new(event_loop.create_window(attrs)?);
            let instance =
                wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle_from_env(
                    Box::new(event_loop.owned_display_handle()),
                ));
            let surface = instance.create_surface(window.clone())?;
            let adapter = stage2d::select_adapter(&instance, Some(&surface), Default::default())?;
            let size = window.inner_size();
            let mut config = surface
                .get_default_config(&adapter, size.width.max(1), size.height.max(1))
                .ok_or("the adapter cannot present to this window")?;
            config.format = config.format.remove_srgb_suffix();
            let host = Host::new(&adapter, config.format);
            surface.configure(&host.device, &config);
            let overlay = Overlay::new(&host)?;
            let stencil = host.stencil((config.width, config.height));
            Ok(Gpu {
                window,
                surface,
                config,
                host,
                overlay,
                stencil,
            })
        }
    }

    impl ApplicationHandler for Demo {
        fn resumed(&mut self, event_loop: &ActiveEventLoop) {
            if self.gpu.is_none() {
                match self.open(event_loop) {
                    Ok(g) => self.gpu = Some(g),
                    Err(e) => {
                        self.error = Some(e.to_string());
                        event_loop.exit();
                    }
                }
            }
        }

        fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
            let Some(g) = self.gpu.as_mut() else { return };
            match event {
                WindowEvent::CloseRequested => event_loop.exit(),
                WindowEvent::Resized(size) if size.width > 0 && size.height > 0 => {
                    g.config.width = size.width;
                    g.config.height = size.height;
                    g.surface.configure(&g.host.device, &g.config);
                    g.stencil = g.host.stencil((size.width, size.height));
                    g.window.request_redraw();
                }
                WindowEvent::RedrawRequested => {
                    let frame = match g.surface.get_current_texture() {
                        wgpu::CurrentSurfaceTexture::Success(f)
                        | wgpu::CurrentSurfaceTexture::Suboptimal(f) => f,
                        _ => {
                            g.surface.configure(&g.host.device, &g.config);
                            return;
                        }
                    };
                    let view = frame.texture.create_view(&Default::default());
                    if let Err(e) = draw_frame(&g.host, &mut g.overlay, &view, &g.stencil) {
                        self.error = Some(e.to_string());
                        event_loop.exit();
                        return;
                    }
                    g.window.pre_present_notify();
                    g.host.queue.present(frame);
                    match &mut self.frames_left {
                        Some(0 | 1) => event_loop.exit(),
                        Some(n) => *n -= 1,
                        None => {}
                    }
                    g.window.request_redraw();
                }
                _ => {}
            }
        }
    }

    pub fn run(frames: Option<u32>) -> Result<(), Box<dyn std::error::Error>> {
        let event_loop = EventLoop::new()?;
        let mut demo = Demo {
            frames_left: frames,
            ..Demo::default()
        };
        event_loop.run_app(&mut demo)?;
        match demo.error {
            Some(e) => Err(e.into()),
            None => Ok(()),
        }
    }
}
