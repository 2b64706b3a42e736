//! A lost GPU device (destroyed mid-run, as a driver reset or an unplugged GPU loses it): every call answers
//! `Error::DeviceLost`, never a panic, and after `Renderer::recover` frames equal a fresh renderer's pixels for a
//! scene of sprites, sheet frames, shapes, text, masks, render textures, filters, a custom filter shader, meshes
//! with a custom shader, and particles. Runs on whatever adapter the environment picks (CI: lavapipe and GL, MSAA
//! off and on).
mod common;

use common::test_msaa;
use stage2d::{
    Assets, Color, Error, Filter, Font, GraphicsContext, Mesh, MeshGeometry, Node, Particle,
    ParticleContainer, RenderTarget, RenderTextureOptions, Renderer, RendererOptions, Sampling,
    Scene, Text, Texture,
};

const INVERT: &str = "struct Params { amount: f32 };
@group(1) @binding(0) var<uniform> params: Params;
@fragment fn mainFragment(in: VSOutput) -> @location(0) vec4<f32> {
    let c = textureSample(uTexture, uSampler, in.uv);
    return vec4<f32>(mix(c.rgb, c.a - c.rgb, params.amount), c.a);
}";

const WAVE: &str = "struct Params { shift: f32 };
@group(1) @binding(0) var<uniform> params: Params;
struct Out { @builtin(position) position: vec4<f32>, @location(0) uv: vec2<f32> };
@vertex fn mainVertex(@location(0) p: vec2<f32>, @location(1) uv: vec2<f32>) -> Out {
    return Out(toClip(p + vec2<f32>(params.shift, 0.0)), uv);
}
@fragment fn mainFragment(in: Out) -> @location(0) vec4<f32> {
    return vec4<f32>(in.uv.x, in.uv.y, 0.5, 1.0);
}";

fn options() -> RendererOptions {
    RendererOptions::default().with_msaa(test_msaa())
}

fn asset(name: &str) -> String {
    format!("{}/assets/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// What the app holds besides the scene: the render texture it draws into and the node it draws there.
struct World {
    scene: Scene,
    /// A render texture shown by a sprite of the scene, its contents drawn from `badge`.
    rt: RenderTarget,
    badge: stage2d::NodeId,
}

impl World {
    /// Draws the render texture's contents (the app's job, again after a loss).
    fn draw_rt(&self, r: &mut Renderer) -> stage2d::Result<()> {
        r.render_node(&self.scene, self.badge, &self.rt, Some(Color::TRANSPARENT))
    }
}

fn world(r: &mut Renderer, assets: &mut Assets) -> World {
    let bunny = r
        .load_texture(asset("bunny0.png"), Sampling::NEAREST)
        .unwrap();
    let pixels: Vec<u8> = (0..16 * 16)
        .flat_map(|i| [(i * 16) as u8, (255 - i) as u8, 128, 255])
        .collect();
    let gradient = r.create_texture(16, 16, &pixels, Sampling::LINEAR).unwrap();
    let sheet = assets
        .load_spritesheet(r, asset("critters.json"), Sampling::NEAREST)
        .unwrap();
    let frames: Vec<Texture> = sheet
        .frame_names()
        .take(3)
        .map(|n| sheet.frame(n).unwrap())
        .collect();
    let font = Font::load(asset("DejaVuSans.ttf")).unwrap();
    let invert = r.create_filter_shader(INVERT).unwrap();
    let plane = MeshGeometry::plane(24.0, 24.0, 3, 3).unwrap();
    let wave = r.create_mesh_shader(WAVE, &plane.layout()).unwrap();
    let rt = r
        .create_render_texture(RenderTextureOptions::new(32, 32).with_msaa(test_msaa()))
        .unwrap();

    let mut scene = Scene::new();
    let root = scene.root();
    // The render texture's content, kept out of the drawn tree.
    let mut g = GraphicsContext::new();
    g.circle(16.0, 16.0, 14.0).fill(Color::hex(0xe74c3c));
    let badge = scene.add_detached(Node::graphics(g));
    scene
        .add(root, Node::sprite(rt.texture()).at(0.0, 0.0))
        .unwrap();
    scene.add(root, Node::sprite(bunny).at(40.0, 4.0)).unwrap();
    scene
        .add(root, Node::sprite(gradient).at(72.0, 4.0).scaled(2.0))
        .unwrap();
    for (i, f) in frames.iter().enumerate() {
        scene
            .add(root, Node::sprite(*f).at(4.0 + 36.0 * i as f32, 40.0))
            .unwrap();
    }
    let mut shapes = GraphicsContext::new();
    shapes
        .rect(4.0, 80.0, 30.0, 20.0)
        .fill(Color::hex(0x2ecc71))
        .stroke(stage2d::StrokeStyle::new(2.0, Color::WHITE));
    shapes
        .star(56.0, 90.0, 5, 12.0, 6.0, 0.0)
        .fill(Color::hex(0xf1c40f));
    scene.add(root, Node::graphics(shapes)).unwrap();
    // A masked container: a sprite clipped by a circle.
    let clip = scene.add(root, Node::container().at(80.0, 76.0)).unwrap();
    scene.add(clip, Node::sprite(gradient).scaled(2.0)).unwrap();
    let mut disc = GraphicsContext::new();
    disc.circle(16.0, 16.0, 12.0).fill(Color::WHITE);
    let mask = scene.add(clip, Node::graphics(disc)).unwrap();
    scene.set_mask(clip, mask, false).unwrap();
    scene
        .add(
            root,
            Node::text(Text::new("lost?", &font, 14.0)).at(4.0, 104.0),
        )
        .unwrap();
    // Filtered: a blurred bunny and one through the custom shader.
    let blurred = scene
        .add(root, Node::sprite(bunny).at(52.0, 104.0))
        .unwrap();
    scene.set_filters(blurred, vec![Filter::blur(2.0)]).unwrap();
    let inverted = scene
        .add(root, Node::sprite(bunny).at(104.0, 40.0))
        .unwrap();
    let custom = Filter::custom(invert, &1.0f32.to_le_bytes(), &[]);
    scene.set_filters(inverted, vec![custom]).unwrap();
    let mesh = Mesh::new(plane, r.white_texture()).with_shader(wave, &2.0f32.to_le_bytes(), &[]);
    scene
        .add(root, Node::mesh_of(mesh).at(100.0, 100.0))
        .unwrap();
    let mut particles = ParticleContainer::new(bunny);
    for i in 0..6 {
        let p = Particle::new(84.0 + 6.0 * i as f32, 8.0 + 2.0 * i as f32)
            .scaled(0.5)
            .rotated(0.3 * i as f32)
            .tinted(Color::hex(0xff8080));
        particles.add(p).unwrap();
    }
    scene.add(root, Node::particles(particles)).unwrap();
    World { scene, rt, badge }
}

/// Asserts two frames are the same pixels; on a mismatch writes both beside the goldens and says how many
/// pixels differ.
#[track_caller]
fn same(a: &stage2d::image::RgbaImage, b: &stage2d::image::RgbaImage, what: &str) {
    let differ = a.pixels().zip(b.pixels()).filter(|(p, q)| p != q).count();
    if differ > 0 {
        let dir = std::env::temp_dir();
        let name = what.replace(' ', "_");
        a.save(dir.join(format!("{name}.a.png"))).unwrap();
        b.save(dir.join(format!("{name}.b.png"))).unwrap();
        panic!("{what}: {differ} pixels differ (both in {})", dir.display());
    }
}

fn frame(r: &mut Renderer, w: &World, target: &RenderTarget) -> stage2d::image::RgbaImage {
    r.render(&w.scene, target, Some(Color::hex(0x1099bb)))
        .unwrap();
    r.read_pixels(target).unwrap()
}

/// Destroys the device and drives the renderer until it has noticed; every call meanwhile answers `Ok` or
/// `DeviceLost`, nothing else.
fn lose(r: &mut Renderer, w: &World, target: &RenderTarget) {
    r.device().destroy();
    for _ in 0..3 {
        if r.is_device_lost() {
            break;
        }
        match r.render(&w.scene, target, None) {
            Ok(()) | Err(Error::DeviceLost(_)) => {}
            Err(e) => panic!("a frame on a lost device: {e}"),
        }
        let _ = r.wait_idle();
    }
    assert!(r.is_device_lost(), "the loss was not noticed");
}

#[test]
fn after_recover_frames_equal_a_fresh_renderers() {
    let mut r = Renderer::new_headless(options()).unwrap();
    let mut assets = Assets::new();
    let w = world(&mut r, &mut assets);
    let target = r.create_render_target(128, 128).unwrap();
    w.draw_rt(&mut r).unwrap();
    let before = frame(&mut r, &w, &target);
    assert!(r.stats().live.kept_texture_bytes > 0);

    lose(&mut r, &w, &target);
    // Every call that needs the device answers DeviceLost, and loses nothing it holds.
    let lost = |e: stage2d::Result<_>| matches!(e, Err(Error::DeviceLost(_)));
    assert!(lost(r.render(&w.scene, &target, None)));
    assert!(lost(r.read_pixels(&target).map(|_| ())));
    assert!(lost(
        r.create_texture(1, 1, &[0; 4], Sampling::NEAREST)
            .map(|_| ())
    ));
    assert!(lost(r.create_render_target(8, 8).map(|_| ())));
    assert!(lost(r.create_filter_shader(INVERT).map(|_| ())));
    assert!(lost(
        r.load_texture(asset("bunny1.png"), Sampling::NEAREST)
            .map(|_| ())
    ));
    assert!(lost(w.draw_rt(&mut r)));
    let desc = stage2d::TargetDesc::new(stage2d::wgpu::TextureFormat::Rgba8Unorm, 64, 64);
    assert!(lost(r.prepare(&w.scene, &desc)));

    let started = std::time::Instant::now();
    r.recover().unwrap();
    assert!(!r.is_device_lost());
    assert_eq!(r.stats().device_recoveries, 1);
    // The render texture came back cleared and says so until the app draws it again.
    assert!(w.rt.contents_lost());
    w.draw_rt(&mut r).unwrap();
    assert!(!w.rt.contents_lost());
    let after = frame(&mut r, &w, &target);
    eprintln!(
        "recovery to the first good frame: {:.1} ms",
        started.elapsed().as_secs_f64() * 1e3
    );

    let mut fresh = Renderer::new_headless(options()).unwrap();
    let mut fresh_assets = Assets::new();
    let fw = world(&mut fresh, &mut fresh_assets);
    let fresh_target = fresh.create_render_target(128, 128).unwrap();
    fw.draw_rt(&mut fresh).unwrap();
    let expected = frame(&mut fresh, &fw, &fresh_target);
    same(&after, &expected, "recovered and fresh");
    same(&after, &before, "recovered and before");
    // Nothing was skipped: every handle of the old device is valid on the new one.
    assert_eq!(r.stats().last_frame.nodes_skipped, 0);
    assert_eq!(r.stats().last_frame.dead_textures, 0);
    // New resources work after recovery.
    let t = r
        .create_texture(2, 2, &[255; 16], Sampling::NEAREST)
        .unwrap();
    r.destroy_texture(t).unwrap();
    assert_eq!(
        r.stats().live.kept_texture_bytes,
        fresh.stats().live.kept_texture_bytes
    );
}

#[test]
fn without_kept_pixels_textures_go_stale_and_the_rest_draws() {
    let mut r = Renderer::new_headless(options().with_kept_texture_pixels(false)).unwrap();
    let bunny = r
        .load_texture(asset("bunny0.png"), Sampling::NEAREST)
        .unwrap();
    assert_eq!(r.stats().live.kept_texture_bytes, 4); // the white texture's pixel only
    let mut scene = Scene::new();
    scene.add(scene.root(), Node::sprite(bunny)).unwrap();
    let white = r.white_texture();
    scene
        .add(
            scene.root(),
            Node::sprite(white)
                .sized(8.0, 8.0)
                .at(20.0, 20.0)
                .tinted(Color::hex(0xff0000)),
        )
        .unwrap();
    let target = r.create_render_target(32, 32).unwrap();
    r.render(&scene, &target, Some(Color::BLACK)).unwrap();
    let w = World {
        rt: r.create_render_target(4, 4).unwrap(),
        badge: scene.root(),
        scene,
    };
    lose(&mut r, &w, &target);
    r.recover().unwrap();
    let img = frame(&mut r, &w, &target);
    // The bunny's handle is stale (skipped, counted), the white sprite draws.
    assert_eq!(r.stats().last_frame.dead_textures, 1);
    assert_eq!(common::px(&img, 24, 24), [255, 0, 0, 255]);
    assert_eq!(common::px(&img, 2, 2), [16, 153, 187, 255]);
    assert!(matches!(
        r.destroy_texture(bunny),
        Err(Error::StaleTexture(_))
    ));
}

/// A white square in difference mode over the left half of a 32x32 target.
fn difference_square() -> Scene {
    let mut over = Scene::new();
    let mut square = stage2d::GraphicsContext::new();
    square.rect(0.0, 0.0, 16.0, 32.0).fill(Color::WHITE);
    over.add(
        over.root(),
        Node::graphics(square).blended(stage2d::BlendMode::Difference),
    )
    .unwrap();
    over
}

/// An embedded frame of `over` drawn over `target`'s pixels ([`Renderer::prepare_over`]).
fn over_frame(
    r: &mut Renderer,
    device: &stage2d::wgpu::Device,
    queue: &stage2d::wgpu::Queue,
    over: &Scene,
    target: &RenderTarget,
) {
    let desc = stage2d::TargetDesc::from_view(&target.view());
    let mut encoder = device.create_command_encoder(&Default::default());
    r.prepare_over(&mut encoder, over, &desc, &target.wgpu_texture())
        .unwrap();
    {
        let view = target.view();
        let mut pass = encoder.begin_render_pass(&stage2d::wgpu::RenderPassDescriptor {
            color_attachments: &[Some(stage2d::wgpu::RenderPassColorAttachment {
                view: &view,
                depth_slice: None,
                resolve_target: None,
                ops: stage2d::wgpu::Operations {
                    load: stage2d::wgpu::LoadOp::Load,
                    store: stage2d::wgpu::StoreOp::Store,
                },
            })],
            ..Default::default()
        });
        r.record(&mut pass, &desc).unwrap();
    }
    queue.submit([encoder.finish()]);
    r.trim();
}

#[test]
fn an_embedded_renderer_recovers_on_the_callers_new_device() {
    let open = || {
        let instance = stage2d::wgpu::Instance::new(stage2d::instance_descriptor(
            stage2d::wgpu::InstanceDescriptor::new_without_display_handle(),
        ));
        let adapter = stage2d::select_adapter(&instance, None, Default::default()).unwrap();
        pollster::block_on(adapter.request_device(&stage2d::wgpu::DeviceDescriptor {
            required_limits: adapter.limits(),
            ..Default::default()
        }))
        .unwrap()
    };
    let (device, queue) = open();
    let mut r =
        Renderer::from_device(device.clone(), queue.clone(), RendererOptions::default()).unwrap();
    // The caller's lost callback tells the renderer (wgpu keeps one callback a device: the caller's).
    let tell = r.device_lost_handler();
    device.set_device_lost_callback(tell);
    let bunny = r
        .load_texture(asset("bunny0.png"), Sampling::NEAREST)
        .unwrap();
    let mut scene = Scene::new();
    scene
        .add(scene.root(), Node::sprite(bunny).at(2.0, 2.0))
        .unwrap();
    let target = r.create_render_target(32, 32).unwrap();
    r.render(&scene, &target, Some(Color::BLACK)).unwrap();
    let before = r.read_pixels(&target).unwrap();
    // A frame over the caller's pixels: its backdrop (the target's texture) is imported on this device.
    let over = difference_square();
    over_frame(&mut r, &device, &queue, &over, &target);
    assert_ne!(r.read_pixels(&target).unwrap(), before);
    // The caller's device is lost: every call answers Ok or DeviceLost until the renderer has heard of it.
    device.destroy();
    let mut noticed = false;
    for _ in 0..4 {
        match r
            .render(&scene, &target, None)
            .and_then(|_| r.read_pixels(&target))
        {
            Err(Error::DeviceLost(_)) => {
                noticed = true;
                break;
            }
            Ok(_) => {}
            Err(e) => panic!("a call on a lost device: {e}"),
        }
    }
    assert!(noticed && r.is_device_lost());
    let (device, queue) = open();
    let tell = r.device_lost_handler();
    device.set_device_lost_callback(tell);
    r.recover_with_device(device.clone(), queue.clone())
        .unwrap();
    r.render(&scene, &target, Some(Color::BLACK)).unwrap();
    same(&r.read_pixels(&target).unwrap(), &before, "embedded");
    // A frame over the caller's pixels again, its backdrop imported from the new device's texture (the old
    // import went with the old device): the white square in difference mode inverts what lies under it.
    over_frame(&mut r, &device, &queue, &over, &target);
    let inverted = r.read_pixels(&target).unwrap();
    for (x, y) in [(1, 1), (8, 8), (12, 20)] {
        let b = before.get_pixel(x, y).0;
        let want = [255 - b[0], 255 - b[1], 255 - b[2], 255];
        let got = inverted.get_pixel(x, y).0;
        assert!(
            (0..3).all(|i| got[i].abs_diff(want[i]) <= 2),
            "({x}, {y}): {got:?} for {want:?}"
        );
    }
    assert_eq!(inverted.get_pixel(24, 24).0, before.get_pixel(24, 24).0);
}

#[test]
fn ten_losses_in_a_row_keep_what_the_renderer_holds_flat() {
    let mut r = Renderer::new_headless(options()).unwrap();
    let mut assets = Assets::new();
    let w = world(&mut r, &mut assets);
    let target = r.create_render_target(128, 128).unwrap();
    w.draw_rt(&mut r).unwrap();
    let first = frame(&mut r, &w, &target);
    let live = r.stats().live;
    for i in 0..10 {
        lose(&mut r, &w, &target);
        r.recover().unwrap();
        w.draw_rt(&mut r).unwrap();
        let img = frame(&mut r, &w, &target);
        same(&img, &first, &format!("after loss {i}"));
        let now = r.stats().live;
        assert_eq!(now.textures, live.textures, "after loss {i}");
        assert_eq!(now.render_targets, live.render_targets);
        assert_eq!(now.kept_texture_bytes, live.kept_texture_bytes);
    }
    assert_eq!(r.stats().device_recoveries, 10);
}

#[test]
fn a_device_lost_before_the_first_frame_answers_without_a_panic() {
    // Staging memory of a lost device cannot be mapped: the first frame's uploads meet that.
    let mut r = Renderer::new_headless(options()).unwrap();
    let mut assets = Assets::new();
    let w = world(&mut r, &mut assets);
    let target = r.create_render_target(128, 128).unwrap();
    lose(&mut r, &w, &target);
    r.recover().unwrap();
    w.draw_rt(&mut r).unwrap();
    let img = frame(&mut r, &w, &target);
    let mut fresh = Renderer::new_headless(options()).unwrap();
    let mut fresh_assets = Assets::new();
    let fw = world(&mut fresh, &mut fresh_assets);
    let fresh_target = fresh.create_render_target(128, 128).unwrap();
    fw.draw_rt(&mut fresh).unwrap();
    same(
        &img,
        &frame(&mut fresh, &fw, &fresh_target),
        "first frame after an early loss",
    );
}

#[test]
fn recovery_lets_go_of_every_object_of_the_lost_device() {
    // One instance throughout: wgpu's registry report counts the devices, textures, buffers and pipelines alive
    // in it, so an object of a lost device that something still held would show.
    let instance = stage2d::wgpu::Instance::new(stage2d::instance_descriptor(
        stage2d::wgpu::InstanceDescriptor::new_without_display_handle(),
    ));
    let adapter = stage2d::select_adapter(&instance, None, Default::default()).unwrap();
    let mut r = Renderer::from_adapter(&adapter, options()).unwrap();
    let mut assets = Assets::new();
    let w = world(&mut r, &mut assets);
    let target = r.create_render_target(128, 128).unwrap();
    let counts = |r: &Renderer| {
        r.wait_idle().unwrap();
        let report = instance.generate_report().expect("a wgpu-core instance");
        let hub = report.hub_report();
        [
            ("devices", hub.devices.num_allocated),
            ("textures", hub.textures.num_allocated),
            ("views", hub.texture_views.num_allocated),
            ("buffers", hub.buffers.num_allocated),
            ("bind groups", hub.bind_groups.num_allocated),
            ("pipelines", hub.render_pipelines.num_allocated),
            ("modules", hub.shader_modules.num_allocated),
        ]
    };
    w.draw_rt(&mut r).unwrap();
    frame(&mut r, &w, &target);
    let first = counts(&r);
    assert_eq!(first[0].1, 1, "{first:?}");
    for i in 0..3 {
        lose(&mut r, &w, &target);
        r.recover_on(&adapter).unwrap();
        w.draw_rt(&mut r).unwrap();
        frame(&mut r, &w, &target);
        let now = counts(&r);
        // Everything as before; pipelines made as frames need them (a filter shader's is made when it is
        // created, so one fewer until it draws in a pass of its own format).
        assert_eq!(now[..5], first[..5], "after loss {i}");
        assert!(
            now[5].1 <= first[5].1 && now[6] == first[6],
            "after loss {i}: {now:?}"
        );
    }
}

#[test]
fn a_bundle_loading_across_a_loss_arrives_on_the_new_device() {
    let mut r = Renderer::new_headless(options()).unwrap();
    let mut assets = Assets::new();
    let w = world(&mut r, &mut assets);
    let target = r.create_render_target(128, 128).unwrap();
    lose(&mut r, &w, &target);
    let files: Vec<String> = (4..10).map(|i| asset(&format!("bunny{i}.png"))).collect();
    let bundle = assets.load_bundle(&files, Sampling::NEAREST);
    // While the device is lost, decoded files wait: nothing fails, nothing is uploaded.
    let started = std::time::Instant::now();
    while started.elapsed().as_secs() < 2 {
        assert_eq!(assets.poll(&mut r), 0);
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(assets.errors(bundle).unwrap().is_empty());
    r.recover().unwrap();
    while !assets.is_done(bundle).unwrap() {
        assets.poll(&mut r);
        assert!(
            started.elapsed().as_secs() < 30,
            "the bundle did not finish"
        );
    }
    assert!(assets.errors(bundle).unwrap().is_empty());
    let loaded = assets.bundle_textures(bundle).unwrap();
    assert_eq!(loaded.len(), 6);
    // They draw on the new device.
    let mut scene = Scene::new();
    scene.add(scene.root(), Node::sprite(loaded[0].1)).unwrap();
    let img = frame(
        &mut r,
        &World {
            scene,
            rt: w.rt,
            badge: w.badge,
        },
        &target,
    );
    assert_eq!(r.stats().last_frame.dead_textures, 0);
    assert_ne!(common::px(&img, 13, 20), [16, 153, 187, 255]);
}

#[test]
fn a_warm_start_renderer_recovers_and_drops_on_a_lost_device_without_a_panic() {
    let dir = std::env::temp_dir().join(format!("stage2d-loss-cache-{}", std::process::id()));
    let opts = options().with_pipeline_cache(&dir);
    let mut r = Renderer::new_headless(opts.clone()).unwrap();
    let mut assets = Assets::new();
    let w = world(&mut r, &mut assets);
    let target = r.create_render_target(128, 128).unwrap();
    w.draw_rt(&mut r).unwrap();
    let before = frame(&mut r, &w, &target);
    r.save_pipeline_cache().unwrap();
    lose(&mut r, &w, &target);
    // Saving on a lost device writes nothing it cannot read, and fails cleanly if at all.
    let _ = r.save_pipeline_cache();
    r.recover().unwrap();
    // The warm start ran again on the new device, from the file saved before the loss.
    assert!(
        r.warm_start().pipelines_prewarmed > 0,
        "{:?}",
        r.warm_start()
    );
    w.draw_rt(&mut r).unwrap();
    same(&frame(&mut r, &w, &target), &before, "warm recovered");
    // A renderer dropped while its device is lost (its drop saves the cache).
    lose(&mut r, &w, &target);
    drop(w);
    drop(target);
    drop(r);
    let _ = std::fs::remove_dir_all(&dir);
}
