//! Embedding: stage2d recording into a render pass that another program began on its own device.

#[path = "../examples/embed.rs"]
#[allow(dead_code)]
mod embed;

mod common;
use common::{attachment, host_pass, probe};

#[test]
fn the_embed_example_draws_the_hosts_triangle_and_stage2ds_scene_in_one_pass() {
    let img = embed::headless().expect("the embed example draws headless");
    // The host's clear colour and its red triangle.
    probe(&img, 4, 4, embed::CLEAR, 0);
    probe(&img, 80, 150, [255, 0, 0, 255], 0);
    // stage2d's green bar, yellow circle, and the magenta bar through its circular mask.
    probe(&img, 210, 40, [0, 255, 0, 255], 0);
    probe(&img, 230, 160, [255, 255, 0, 255], 0);
    probe(&img, 240, 100, [255, 0, 255, 255], 0);
    probe(&img, 190, 100, embed::CLEAR, 0);
    // The bunny (a textured sprite) and the text left pixels of their own.
    let bunny = (262..284).flat_map(|x| (22..55).map(move |y| (x, y)));
    assert!(
        bunny
            .filter(|&(x, y)| img.get_pixel(x, y).0 != embed::CLEAR)
            .count()
            > 300
    );
    let text = (148..320).flat_map(|x| (208..232).map(move |y| (x, y)));
    let lit = text
        .filter(|&(x, y)| img.get_pixel(x, y).0[0] > 200)
        .count();
    assert!(lit > 100, "the label drew {lit} bright pixels");
}

use stage2d::wgpu;
use stage2d::{Color, Error, GraphicsContext, Node, Renderer, RendererOptions, Scene, TargetDesc};

const W: u32 = 64;
const H: u32 = 48;

/// The first adapter of `backends`, if the machine has one.
fn adapter_on(backends: wgpu::Backends) -> Option<wgpu::Adapter> {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    desc.backends = backends;
    let instance = wgpu::Instance::new(desc);
    pollster::block_on(instance.enumerate_adapters(backends))
        .into_iter()
        .next()
}

/// A host device on `adapter`, as an embedding program would open it.
fn host_device(adapter: &wgpu::Adapter, limits: wgpu::Limits) -> (wgpu::Device, wgpu::Queue) {
    pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("host"),
        required_limits: limits,
        ..Default::default()
    }))
    .expect("a device")
}

/// Sprites, a shape, a stencil mask, a rectangle (scissor) mask, a card texture, particles (drawn in the
/// prepared frame from buffers prepare wrote) and a render layer drawing the first sprite on top of everything.
fn scene(r: &mut Renderer) -> Scene {
    let card = common::card(r, 16, 16);
    let white = r.white_texture();
    let mut s = Scene::new();
    let root = s.root();
    let first = s.add(root, Node::sprite(card).at(2.0, 2.0)).unwrap();
    let mut pc = stage2d::ParticleContainer::new(card);
    for i in 0..6 {
        pc.add(
            stage2d::Particle::new(4.0 + i as f32 * 9.0, 40.0)
                .scaled(0.5)
                .rotated(i as f32 * 0.3)
                .with_alpha(0.8),
        )
        .unwrap();
    }
    s.add(root, Node::particles(pc)).unwrap();
    let mut g = GraphicsContext::new();
    g.circle(0.0, 0.0, 12.0)
        .fill(Color::rgba(1.0, 0.0, 1.0, 0.5));
    s.add(root, Node::graphics(g).at(30.0, 20.0)).unwrap();
    let bar = s
        .add(
            root,
            Node::sprite(white)
                .sized(40.0, 20.0)
                .at(20.0, 26.0)
                .tinted(Color::hex(0x33cc99)),
        )
        .unwrap();
    let mut hole = GraphicsContext::new();
    hole.circle(40.0, 36.0, 9.0).fill(Color::WHITE);
    let mask = s.add_detached(Node::graphics(hole));
    s.set_mask(bar, mask, false).unwrap();
    let boxed = s
        .add(root, Node::sprite(card).sized(20.0, 20.0).at(44.0, 2.0))
        .unwrap();
    let mut rect = GraphicsContext::new();
    rect.rect(44.0, 2.0, 10.0, 10.0).fill(Color::WHITE);
    let clip = s.add_detached(Node::graphics(rect));
    s.set_mask(boxed, clip, false).unwrap();
    let layer = s.add(root, Node::render_layer()).unwrap();
    s.attach_to_layer(layer, first).unwrap();
    s
}

/// Begins a pass on `view` cleared to black, with `stencil` (a Stencil8 attachment) cleared to 0.
fn stencil8_pass<'e>(
    encoder: &'e mut wgpu::CommandEncoder,
    view: &wgpu::TextureView,
    stencil: &wgpu::TextureView,
) -> wgpu::RenderPass<'e> {
    encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
            view: stencil,
            depth_ops: None,
            stencil_ops: Some(wgpu::Operations {
                load: wgpu::LoadOp::Clear(0),
                store: wgpu::StoreOp::Discard,
            }),
        }),
        ..Default::default()
    })
}

/// Begins the host's pass on `target` (cleared to `clear`), with a `Depth24PlusStencil8` attachment and, for
/// MSAA, a 4x colour attachment resolved into `target`; runs `draw` in it and submits.
fn stencil_desc(samples: u32) -> TargetDesc {
    TargetDesc::new(wgpu::TextureFormat::Rgba8Unorm, W, H)
        .with_sample_count(samples)
        .with_depth_stencil(wgpu::TextureFormat::Depth24PlusStencil8)
}

#[test]
fn an_embedded_frame_is_the_one_call_frame_on_vulkan_and_gl_with_and_without_msaa() {
    let clear = Color::hex(0x102030);
    for backends in [wgpu::Backends::VULKAN, wgpu::Backends::GL] {
        let Some(adapter) = adapter_on(backends) else {
            panic!("no {backends:?} adapter: install mesa-vulkan-drivers / libegl1 (CI has both)");
        };
        for msaa in [false, true] {
            let samples = if msaa { 4 } else { 1 };
            let mut own =
                Renderer::from_adapter(&adapter, RendererOptions::default().with_msaa(msaa))
                    .unwrap();
            let s = scene(&mut own);
            let t = own.create_render_target(W, H).unwrap();
            own.render(&s, &t, Some(clear)).unwrap();
            let want = own.read_pixels_premultiplied(&t).unwrap();

            let (device, queue) = host_device(&adapter, adapter.limits());
            let mut r =
                Renderer::from_device(device.clone(), queue.clone(), Default::default()).unwrap();
            let s = scene(&mut r);
            let target = r.create_render_target(W, H).unwrap();
            let desc = stencil_desc(samples);
            for frame in 0..2 {
                r.prepare(&s, &desc).unwrap();
                host_pass(&device, &queue, &target, samples, clear, |pass| {
                    r.record(pass, &desc).unwrap();
                });
                r.trim();
                let got = r.read_pixels_premultiplied(&target).unwrap();
                assert!(
                    got == want,
                    "{backends:?} msaa {msaa} frame {frame}: the embedded picture differs"
                );
            }
            let f = r.stats().last_frame;
            assert_eq!(r.stats().frames, 2);
            assert_eq!((f.render_passes, f.masks_pushed, f.particles), (1, 2, 6));
            assert_eq!(
                f.pipelines_created + f.bind_groups_created + f.buffers_created,
                0
            );
        }
    }
}

#[test]
fn bad_embedding_sequences_and_mismatched_passes_are_errors_and_lose_nothing() {
    let adapter = adapter_on(wgpu::Backends::all()).expect("an adapter");
    // wgpu's default error handler panics: any validation error reaching wgpu fails this test.
    let (device, queue) = host_device(&adapter, adapter.limits());
    let mut r = Renderer::from_device(device.clone(), queue.clone(), Default::default()).unwrap();
    let s = scene(&mut r);
    let target = r.create_render_target(W, H).unwrap();
    let desc = stencil_desc(1);
    let clear = Color::BLACK;

    // Recording before any prepare.
    host_pass(&device, &queue, &target, 1, clear, |pass| {
        assert!(matches!(r.record(pass, &desc), Err(Error::NotPrepared)));
    });
    // A scene with stencil masks and a target without a stencil attachment.
    let plain = TargetDesc::new(wgpu::TextureFormat::Rgba8Unorm, W, H);
    assert!(matches!(r.prepare(&s, &plain), Err(Error::StencilRequired)));
    // Targets stage2d cannot draw into.
    for bad in [
        TargetDesc::new(wgpu::TextureFormat::Depth24PlusStencil8, W, H),
        plain.with_sample_count(3),
        TargetDesc::new(wgpu::TextureFormat::Rgba8Unorm, 0, H),
        plain.with_depth_stencil(wgpu::TextureFormat::Depth32Float),
        plain.with_scale_factor(f32::NAN),
    ] {
        let e = r.prepare(&s, &bad).unwrap_err();
        assert!(matches!(e, Error::UnsupportedTarget(_)), "{bad:?}: {e}");
    }
    // Prepared twice without a record.
    r.prepare(&s, &desc).unwrap();
    assert!(matches!(r.prepare(&s, &desc), Err(Error::AlreadyPrepared)));
    let other = r.create_render_target(W, H).unwrap();
    assert!(matches!(
        r.render(&s, &other, Some(clear)),
        Err(Error::AlreadyPrepared)
    ));
    // Passes that differ from the prepared target: refused before wgpu sees anything.
    for wrong in [
        TargetDesc::new(wgpu::TextureFormat::Bgra8Unorm, W, H)
            .with_depth_stencil(wgpu::TextureFormat::Depth24PlusStencil8),
        stencil_desc(4),
        plain,
        TargetDesc::new(wgpu::TextureFormat::Rgba8Unorm, W + 1, H)
            .with_depth_stencil(wgpu::TextureFormat::Depth24PlusStencil8),
    ] {
        host_pass(&device, &queue, &target, 1, clear, |pass| {
            let e = r.record(pass, &wrong).unwrap_err();
            assert!(matches!(e, Error::PassMismatch(_)), "{wrong:?}: {e}");
        });
    }
    // The prepared frame is still intact: it records into the right pass and matches a one-call frame.
    host_pass(&device, &queue, &target, 1, clear, |pass| {
        r.record(pass, &desc).unwrap();
    });
    r.trim();
    let embedded = r.read_pixels_premultiplied(&target).unwrap();
    r.render(&s, &other, Some(clear)).unwrap();
    assert!(embedded == r.read_pixels_premultiplied(&other).unwrap());
    // After the one-call frame (which ends with trim) nothing is prepared.
    host_pass(&device, &queue, &target, 1, clear, |pass| {
        assert!(matches!(r.record(pass, &desc), Err(Error::NotPrepared)));
    });
    // A recorded frame is in flight until trimmed: the caller may not have submitted its pass yet, and another
    // prepare would overwrite what that pass reads.
    r.prepare(&s, &desc).unwrap();
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &target.view(),
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations::default(),
            })],
            ..Default::default()
        });
        let no_stencil = TargetDesc::from_view(&target.view());
        let e = r.record(&mut pass, &no_stencil).unwrap_err();
        assert!(matches!(e, Error::PassMismatch(_)), "{e}");
    }
    host_pass(&device, &queue, &target, 1, clear, |pass| {
        r.record(pass, &desc).unwrap();
    });
    // Recorded and not trimmed: the error says trim is missing, not that the frame was never recorded.
    let e = r.prepare(&s, &desc).unwrap_err();
    assert!(matches!(e, Error::NotTrimmed), "{e}");
    assert!(e.to_string().contains("Renderer::trim"), "{e}");
    assert!(matches!(
        r.render(&s, &other, Some(clear)),
        Err(Error::NotTrimmed)
    ));
    queue.submit([encoder.finish()]);
    r.trim();
    // trim drops a prepared frame that will not be recorded.
    r.prepare(&s, &desc).unwrap();
    r.trim();
    r.prepare(&s, &desc).unwrap();
    r.trim();
}

#[test]
fn a_texture_destroyed_while_a_frame_is_in_flight_is_released_when_the_next_frame_begins() {
    let adapter = adapter_on(wgpu::Backends::all()).expect("an adapter");
    let (device, queue) = host_device(&adapter, adapter.limits());
    let mut r = Renderer::from_device(device.clone(), queue.clone(), Default::default()).unwrap();
    let red = common::solid(&mut r, 8, 8, [255, 0, 0, 255]);
    let mut s = Scene::new();
    s.add(s.root(), Node::sprite(red).at(4.0, 4.0)).unwrap();
    let target = r.create_render_target(W, H).unwrap();
    let desc = stencil_desc(1);
    r.prepare(&s, &desc).unwrap();
    // Destroyed between prepare and record: the prepared draw and the pass still use it.
    r.destroy_texture(red).unwrap();
    let again = r.destroy_texture(red);
    assert!(matches!(again, Err(Error::StaleTexture(_))), "{again:?}");
    host_pass(&device, &queue, &target, 1, Color::BLACK, |pass| {
        r.record(pass, &desc).unwrap();
    });
    r.trim();
    common::probe(&r.read_pixels(&target).unwrap(), 6, 6, [255, 0, 0, 255], 0);
    // The next frame releases it: the sprite is skipped, the texture is gone.
    let t = r.create_render_target(W, H).unwrap();
    r.render(&s, &t, Some(Color::BLACK)).unwrap();
    common::probe(&r.read_pixels(&t).unwrap(), 6, 6, [0, 0, 0, 255], 0);
    assert_eq!(r.stats().last_frame.dead_textures, 1);
    assert!(matches!(
        r.destroy_texture(red),
        Err(Error::StaleTexture(_))
    ));
}

#[test]
fn a_device_without_vertex_storage_buffers_is_refused_with_a_reason() {
    let adapter = adapter_on(wgpu::Backends::all()).expect("an adapter");
    let (device, queue) = host_device(&adapter, wgpu::Limits::downlevel_webgl2_defaults());
    let e = Renderer::from_device(device, queue, Default::default()).unwrap_err();
    assert!(matches!(e, Error::UnsupportedDevice(_)), "{e}");
    assert!(e.to_string().contains("storage buffers"), "{e}");
}

#[test]
fn a_stencil8_pass_and_an_encoder_the_caller_submits_work_too() {
    let adapter = adapter_on(wgpu::Backends::all()).expect("an adapter");
    let (device, queue) = host_device(&adapter, adapter.limits());
    let mut r = Renderer::from_device(device.clone(), queue.clone(), Default::default()).unwrap();
    let s = scene(&mut r);
    let target = r.create_render_target(W, H).unwrap();
    let want = {
        let t = r.create_render_target(W, H).unwrap();
        r.render(&s, &t, Some(Color::BLACK)).unwrap();
        r.read_pixels_premultiplied(&t).unwrap()
    };
    let desc =
        TargetDesc::from_view(&target.view()).with_depth_stencil(wgpu::TextureFormat::Stencil8);
    let stencil = attachment(&device, wgpu::TextureFormat::Stencil8, (W, H), 1);
    for _ in 0..3 {
        let mut encoder = device.create_command_encoder(&Default::default());
        r.prepare_with_encoder(&mut encoder, &s, &desc).unwrap();
        {
            let mut pass = stencil8_pass(&mut encoder, &target.view(), &stencil);
            r.record(&mut pass, &desc).unwrap();
        }
        queue.submit([encoder.finish()]);
        r.trim();
        assert!(r.read_pixels_premultiplied(&target).unwrap() == want);
    }
    // An encoder dropped unsubmitted loses its uploads: the next frame uploads everything again.
    let mut g = GraphicsContext::new();
    g.rect(0.0, 0.0, 8.0, 8.0).fill(Color::GREEN);
    let mut s2 = scene(&mut r);
    s2.add(s2.root(), Node::graphics(g)).unwrap();
    let mut dropped = device.create_command_encoder(&Default::default());
    r.prepare_with_encoder(&mut dropped, &s2, &desc).unwrap();
    drop(dropped);
    r.trim();
    let t = r.create_render_target(W, H).unwrap();
    r.render(&s2, &t, Some(Color::BLACK)).unwrap();
    common::probe(&r.read_pixels(&t).unwrap(), 4, 4, [0, 255, 0, 255], 0);
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Prepare,
    /// `prepare_over` with the host target's texture as the backdrop (the scene has no advanced blend mode,
    /// so it is the frame of `prepare`).
    PrepareOver,
    Record {
        matching: bool,
    },
    Trim,
    RenderOneCall,
}

fn op() -> impl proptest::strategy::Strategy<Value = Op> {
    use proptest::prelude::*;
    prop_oneof![
        Just(Op::Prepare),
        Just(Op::PrepareOver),
        any::<bool>().prop_map(|matching| Op::Record { matching }),
        Just(Op::Trim),
        Just(Op::RenderOneCall),
    ]
}

#[test]
fn random_sequences_of_prepare_record_trim_and_render_follow_the_frame_state_machine() {
    use proptest::strategy::{Strategy, ValueTree};
    let adapter = adapter_on(wgpu::Backends::all()).expect("an adapter");
    let (device, queue) = host_device(&adapter, adapter.limits());
    let mut r = Renderer::from_device(device.clone(), queue.clone(), Default::default()).unwrap();
    let s = scene(&mut r);
    let target = r.create_render_target(W, H).unwrap();
    let other = r.create_render_target(W, H).unwrap();
    let desc = stencil_desc(1);
    let wrong = TargetDesc::new(wgpu::TextureFormat::Bgra8Unorm, W, H)
        .with_depth_stencil(wgpu::TextureFormat::Depth24PlusStencil8);
    let want = {
        r.render(&s, &other, Some(Color::BLACK)).unwrap();
        r.read_pixels_premultiplied(&other).unwrap()
    };
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    // The model: nothing prepared, prepared, or prepared and recorded.
    #[derive(Clone, Copy, PartialEq, Debug)]
    enum State {
        Idle,
        Prepared,
        Recorded,
    }
    for case in 0..24 {
        let ops = proptest::collection::vec(op(), 1..12)
            .new_tree(&mut runner)
            .unwrap()
            .current();
        let mut state = State::Idle;
        let frames_before = r.stats().frames;
        let mut frames = 0;
        for &o in &ops {
            let ctx = format!("case {case}, {ops:?}, at {o:?} in {state:?}");
            match o {
                Op::Prepare | Op::PrepareOver | Op::RenderOneCall => {
                    let got = match o {
                        Op::Prepare => r.prepare(&s, &desc),
                        Op::PrepareOver => {
                            let mut encoder = device.create_command_encoder(&Default::default());
                            let got =
                                r.prepare_over(&mut encoder, &s, &desc, &target.wgpu_texture());
                            queue.submit([encoder.finish()]);
                            got.map(|_| ())
                        }
                        _ => r.render(&s, &other, Some(Color::BLACK)),
                    };
                    // A frame in flight, recorded or not, must be trimmed first: a recorded pass may not
                    // have been submitted yet.
                    if state != State::Idle {
                        let want = match state {
                            State::Recorded => matches!(got, Err(Error::NotTrimmed)),
                            _ => matches!(got, Err(Error::AlreadyPrepared)),
                        };
                        assert!(want, "{ctx}: {got:?}");
                        continue;
                    }
                    got.unwrap_or_else(|e| panic!("{ctx}: {e}"));
                    frames += matches!(o, Op::RenderOneCall) as u64;
                    state = if matches!(o, Op::Prepare | Op::PrepareOver) {
                        State::Prepared
                    } else {
                        State::Idle
                    };
                }
                Op::Record { matching } => {
                    let used = if matching { &desc } else { &wrong };
                    let mut got = None;
                    host_pass(&device, &queue, &target, 1, Color::BLACK, |pass| {
                        got = Some(r.record(pass, used));
                    });
                    let got = got.unwrap();
                    match (state, matching) {
                        (State::Idle, _) => {
                            assert!(matches!(got, Err(Error::NotPrepared)), "{ctx}: {got:?}")
                        }
                        (_, false) => {
                            assert!(matches!(got, Err(Error::PassMismatch(_))), "{ctx}: {got:?}")
                        }
                        (_, true) => {
                            got.unwrap_or_else(|e| panic!("{ctx}: {e}"));
                            state = State::Recorded;
                            let img = r.read_pixels_premultiplied(&target).unwrap();
                            assert!(img == want, "{ctx}: the recorded picture differs");
                        }
                    }
                }
                Op::Trim => {
                    r.trim();
                    frames += (state != State::Idle) as u64;
                    state = State::Idle;
                }
            }
        }
        r.trim();
        frames += (state != State::Idle) as u64;
        assert_eq!(
            r.stats().frames - frames_before,
            frames,
            "case {case}: {ops:?}"
        );
    }
}

/// An embedded renderer reads the caller's own texture back (`Renderer::read_texture`): the same picture as its
/// own render target's, in a Bgra8 texture; a texture it cannot read is an error saying what it lacks.
#[test]
fn read_texture_reads_the_callers_own_texture_back() {
    let adapter = adapter_on(wgpu::Backends::all()).expect("an adapter");
    let (device, queue) = host_device(&adapter, adapter.limits());
    let mut r = Renderer::from_device(device.clone(), queue.clone(), Default::default()).unwrap();
    let s = scene(&mut r);
    let want = {
        let t = r.create_render_target(W, H).unwrap();
        r.render(&s, &t, Some(Color::BLACK)).unwrap();
        r.read_pixels(&t).unwrap()
    };
    let make = |format, usage| caller_texture(&device, (W, H), format, usage);
    let usage = wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC;
    let texture = make(wgpu::TextureFormat::Bgra8Unorm, usage);
    let view = texture.create_view(&Default::default());
    let desc = TargetDesc::from_view(&view).with_depth_stencil(wgpu::TextureFormat::Stencil8);
    let stencil = attachment(&device, wgpu::TextureFormat::Stencil8, (W, H), 1);
    r.prepare(&s, &desc).unwrap();
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = stencil8_pass(&mut encoder, &view, &stencil);
        r.record(&mut pass, &desc).unwrap();
    }
    queue.submit([encoder.finish()]);
    r.trim();
    let got = r.read_texture(&texture).unwrap();
    assert!(
        got == want,
        "the caller's texture differs from the renderer's own target"
    );
    // Without COPY_SRC, or of a format it cannot read: errors that say so.
    let no_copy = make(
        wgpu::TextureFormat::Rgba8Unorm,
        wgpu::TextureUsages::RENDER_ATTACHMENT,
    );
    let e = r.read_texture(&no_copy).unwrap_err();
    assert!(
        matches!(&e, Error::UnsupportedTarget(m) if m.contains("COPY_SRC")),
        "{e}"
    );
    let float = make(wgpu::TextureFormat::Rgba16Float, usage);
    let e = r.read_texture(&float).unwrap_err();
    assert!(
        matches!(&e, Error::UnsupportedTarget(m) if m.contains("Rgba16Float")),
        "{e}"
    );
}

/// A texture of the caller's own, single-sampled.
fn caller_texture(
    device: &wgpu::Device,
    (width, height): (u32, u32),
    format: wgpu::TextureFormat,
    usage: wgpu::TextureUsages,
) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some("the caller's texture"),
        size: wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage,
        view_formats: &[],
    })
}

/// Opaque pixels of four quadrants (the caller's picture under stage2d's frame), `W x H`, RGBA.
fn quadrants() -> Vec<u8> {
    let mut px = Vec::with_capacity((W * H * 4) as usize);
    for y in 0..H {
        for x in 0..W {
            px.extend_from_slice(match (x < W / 2, y < H / 2) {
                (true, true) => &[230, 120, 30, 255],
                (false, true) => &[20, 90, 200, 255],
                (true, false) => &[40, 180, 60, 255],
                (false, false) => &[250, 240, 220, 255],
            });
        }
    }
    px
}

/// Nodes with advanced blend modes over the whole picture and across its quadrants.
fn blended(r: &mut Renderer, s: &mut Scene) {
    let card = common::card(r, 16, 16);
    let root = s.root();
    let mut g = GraphicsContext::new();
    g.rect(4.0, 4.0, 40.0, 30.0).fill(Color::hex(0x80c040));
    s.add(
        root,
        Node::graphics(g).blended(stage2d::BlendMode::Difference),
    )
    .unwrap();
    s.add(
        root,
        Node::sprite(card)
            .at(24.0, 16.0)
            .sized(32.0, 24.0)
            .blended(stage2d::BlendMode::Overlay),
    )
    .unwrap();
    let mut c = GraphicsContext::new();
    c.circle(48.0, 36.0, 10.0).fill(Color::hex(0x4060ff));
    s.add(
        root,
        Node::graphics(c).blended(stage2d::BlendMode::ColorBurn),
    )
    .unwrap();
}

#[test]
fn advanced_blend_modes_of_an_embedded_frame_see_the_callers_pixels_through_prepare_over() {
    let pixels = quadrants();
    for backends in [wgpu::Backends::VULKAN, wgpu::Backends::GL] {
        let Some(adapter) = adapter_on(backends) else {
            panic!("no {backends:?} adapter: install mesa-vulkan-drivers / libegl1 (CI has both)");
        };
        for msaa in [false, true] {
            let samples = if msaa { 4 } else { 1 };
            // What stage2d draws itself: the caller's picture as a sprite, then the blended nodes.
            let options = RendererOptions::default().with_msaa(msaa);
            let mut own = Renderer::from_adapter(&adapter, options).unwrap();
            let picture = own
                .create_texture(W, H, &pixels, stage2d::Sampling::NEAREST)
                .unwrap();
            let mut s = Scene::new();
            s.add(s.root(), Node::sprite(picture)).unwrap();
            blended(&mut own, &mut s);
            let t = own.create_render_target(W, H).unwrap();
            own.render(&s, &t, Some(Color::BLACK)).unwrap();
            let want = own.read_pixels(&t).unwrap();

            // Embedded: the caller's texture holds the picture; stage2d's frame goes over it.
            let (device, queue) = host_device(&adapter, adapter.limits());
            let mut r =
                Renderer::from_device(device.clone(), queue.clone(), Default::default()).unwrap();
            let mut s = Scene::new();
            blended(&mut r, &mut s);
            let usage = wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_DST
                | wgpu::TextureUsages::COPY_SRC;
            let texture = caller_texture(&device, (W, H), wgpu::TextureFormat::Rgba8Unorm, usage);
            let view = texture.create_view(&Default::default());
            let desc = TargetDesc::from_view(&view).with_sample_count(samples);
            let msaa_view = (samples > 1)
                .then(|| attachment(&device, wgpu::TextureFormat::Rgba8Unorm, (W, H), samples));
            for frame in 0..2 {
                queue.write_texture(
                    texture.as_image_copy(),
                    &pixels,
                    wgpu::TexelCopyBufferLayout {
                        offset: 0,
                        bytes_per_row: Some(W * 4),
                        rows_per_image: None,
                    },
                    wgpu::Extent3d {
                        width: W,
                        height: H,
                        depth_or_array_layers: 1,
                    },
                );
                let mut encoder = device.create_command_encoder(&Default::default());
                assert!(r.prepare_over(&mut encoder, &s, &desc, &texture).unwrap());
                {
                    let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                            view: msaa_view.as_ref().unwrap_or(&view),
                            depth_slice: None,
                            resolve_target: msaa_view.as_ref().map(|_| &view),
                            ops: wgpu::Operations {
                                load: wgpu::LoadOp::Load,
                                store: wgpu::StoreOp::Store,
                            },
                        })],
                        ..Default::default()
                    });
                    r.record(&mut pass, &desc).unwrap();
                }
                queue.submit([encoder.finish()]);
                r.trim();
                let got = r.read_texture(&texture).unwrap();
                let worst = got
                    .pixels()
                    .zip(want.pixels())
                    .map(|(a, b)| (0..4).map(|i| a.0[i].abs_diff(b.0[i])).max().unwrap())
                    .max()
                    .unwrap();
                assert!(
                    worst <= 2,
                    "{backends:?} msaa {msaa} frame {frame}: the embedded picture differs by {worst}"
                );
                if frame == 1 {
                    let f = r.stats().last_frame;
                    let made = f.pipelines_created + f.bind_groups_created + f.buffers_created;
                    assert_eq!(
                        (made, f.textures_created),
                        (0, 0),
                        "the same backdrop again"
                    );
                }
            }
            // The blended nodes did change the caller's pixels (a backdrop that was not seen would differ).
            let got = r.read_texture(&texture).unwrap();
            assert_ne!(got.get_pixel(10, 10).0, [230, 120, 30, 255]);
            probe(&got, 60, 2, [20, 90, 200, 255], 0);

            // A backdrop that does not match the target is refused, and nothing is prepared.
            let small = caller_texture(
                &device,
                (W / 2, H),
                wgpu::TextureFormat::Rgba8Unorm,
                wgpu::TextureUsages::TEXTURE_BINDING,
            );
            let mut encoder = device.create_command_encoder(&Default::default());
            let err = r.prepare_over(&mut encoder, &s, &desc, &small).unwrap_err();
            assert!(matches!(err, Error::PassMismatch(_)), "{err}");
            assert!(matches!(
                r.prepare_over(&mut encoder, &s, &desc.with_sample_count(1), &small),
                Err(Error::PassMismatch(_))
            ));
            // The frame after goes on as before.
            assert!(r.prepare_with_encoder(&mut encoder, &s, &desc).is_ok());
            r.trim();
        }
    }
}
