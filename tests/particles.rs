//! Particle containers: particles draw as sprites of the same properties would (frames, trimmed and turned sheet
//! frames, anchor, scale, rotation, tint, alpha), static and dynamic properties alike, only dynamic ones uploaded
//! each frame, static ones after `update()` or `particle_mut`; PixiJS's particle scenes; the container as a node
//! (transform, alpha, masks, filters, render textures, culling and hit testing by its bounds area); bad input.

mod common;

use common::*;
use stage2d::glam::Vec2;
use stage2d::{
    Assets, ColorMatrix, Error, Filter, GraphicsContext, Node, Particle, ParticleContainer,
    ParticleProperties, Rect, RenderTextureOptions, Renderer, Sampling, Scene, Texture,
};
use stage2d::{Color, EventMode};

/// A 32x32 card and frames of it: its four quadrants, a trimmed one and one stored turned.
fn frames(r: &mut Renderer) -> (Texture, Vec<Texture>) {
    let card = card(r, 32, 32);
    let mut f = vec![card];
    for (x, y) in [(0, 0), (16, 0), (0, 16), (16, 16)] {
        f.push(card.frame(x, y, 16, 16).unwrap());
    }
    // Trimmed: the green quadrant's pixels inside a 24x20 sprite, 4 in and 2 down.
    f.push(
        card.packed_frame([16, 0, 16, 16], false, [24, 20], [4, 2])
            .unwrap(),
    );
    // Turned: the left half (16 wide, 32 high) stored turned, an upright 32x16 sprite.
    f.push(
        card.packed_frame([0, 0, 16, 32], true, [32, 16], [0, 0])
            .unwrap(),
    );
    (card, f)
}

/// Particles of every frame with anchors, scales, rotations, tints and alphas.
fn particles() -> Vec<Particle> {
    let mut v = Vec::new();
    for i in 0..28u32 {
        let (x, y) = ((i % 7) as f32 * 36.0 + 20.0, (i / 7) as f32 * 36.0 + 20.0);
        let mut p = Particle::new(x, y).with_frame(i % 7);
        p.anchor = Vec2::new((i % 3) as f32 * 0.5, (i % 2) as f32);
        p.scale = Vec2::new(0.75 + (i % 4) as f32 * 0.25, 1.0 - (i % 3) as f32 * 0.2);
        p.rotation = match i % 4 {
            0 => 0.0,
            1 => std::f32::consts::FRAC_PI_2,
            2 => 0.4,
            _ => -2.0,
        };
        if i % 5 == 1 {
            p = p.tinted(Color::hex(0x80ff40));
        }
        if i % 6 == 2 {
            p.alpha = 0.5;
        }
        v.push(p);
    }
    v
}

/// The same particles as sprite nodes.
fn as_sprites(s: &mut Scene, parent: stage2d::NodeId, frames: &[Texture], ps: &[Particle]) {
    for p in ps {
        let [_, r, g, b] = p.tint.to_be_bytes();
        let node = Node::sprite(frames[p.frame as usize])
            .anchor(p.anchor.x, p.anchor.y)
            .at(p.position.x, p.position.y)
            .rotated(p.rotation)
            .tinted(Color::rgba8(r, g, b, 255))
            .with_alpha(p.alpha);
        let id = s.add(parent, node).unwrap();
        s.transform_mut(id).unwrap().scale = p.scale;
    }
}

fn container(frames: &[Texture], dynamic: ParticleProperties) -> ParticleContainer {
    let mut pc = ParticleContainer::new(frames[0]).with_dynamic(dynamic);
    for f in &frames[1..] {
        pc.add_frame(*f).unwrap();
    }
    pc.extend(particles()).unwrap();
    pc
}

#[test]
fn particles_draw_as_sprites_of_the_same_properties_static_or_dynamic() {
    let mut r = renderer();
    let (_, f) = frames(&mut r);
    let mut sprites = Scene::new();
    let root = sprites.root();
    as_sprites(&mut sprites, root, &f, &particles());
    let want = render(&mut r, &sprites, 260, 160, Color::BLACK);
    for dynamic in [
        ParticleProperties::NONE,
        ParticleProperties::default(),
        ParticleProperties::ALL,
    ] {
        let mut s = Scene::new();
        s.add(s.root(), Node::particles(container(&f, dynamic)))
            .unwrap();
        let got = render(&mut r, &s, 260, 160, Color::BLACK);
        let last = r.stats().last_frame;
        assert_eq!((last.particles, last.particles_skipped), (28, 0));
        assert_eq!(last.draw_calls, 1, "one instanced draw");
        let (n, _) = pixelmatch(&got, &want, 0.1);
        assert!(n <= 40, "{dynamic:?}: {n} pixels differ from the sprites");
        golden("particles", &got);
    }
    // Exact probes: the unturned, unscaled frame-0 card at (20, 20) anchored top-left is red there.
    let mut s = Scene::new();
    let mut pc = ParticleContainer::new(f[0]);
    pc.add(Particle::new(4.0, 4.0)).unwrap();
    // The turned frame, upright: the card's left half lying on its side (its top, red, on the right).
    pc.add_frame(f[6]).unwrap();
    pc.add(Particle::new(40.0, 4.0).with_frame(1)).unwrap();
    s.add(s.root(), Node::particles(pc)).unwrap();
    let img = render(&mut r, &s, 80, 40, Color::BLACK);
    probe(&img, 8, 8, [255, 0, 0, 255], 0);
    probe(&img, 30, 30, [255, 255, 0, 255], 0);
    let mut sprite = Scene::new();
    sprite
        .add(sprite.root(), Node::sprite(f[6]).at(40.0, 4.0))
        .unwrap();
    let want = render(&mut r, &sprite, 80, 40, Color::BLACK);
    for (x, y) in [(44, 8), (68, 8), (44, 16), (68, 16)] {
        assert_eq!(px(&img, x, y), px(&want, x, y), "turned frame at ({x},{y})");
    }
}

#[test]
fn only_dynamic_properties_are_uploaded_and_static_ones_follow_update() {
    let mut r = renderer_with_msaa(false);
    let white = r.white_texture();
    let mut pc = ParticleContainer::new(white);
    pc.extend((0..1000).map(|i| {
        Particle::new((i % 40) as f32 * 4.0, (i / 40) as f32 * 4.0)
            .scaled(2.0)
            .tinted(Color::hex(0x0000ff))
    }))
    .unwrap();
    let mut s = Scene::new();
    let id = s.add(s.root(), Node::particles(pc)).unwrap();
    let target = r.create_render_target(160, 100).unwrap();
    let clear = Some(Color::BLACK);
    r.render(&s, &target, clear).unwrap();
    r.render(&s, &target, clear).unwrap();
    // Steady state: the positions (8 bytes a particle) and the draw's uniforms, nothing created.
    let t0 = r.stats().total;
    r.render(&s, &target, clear).unwrap();
    let t1 = r.stats().total;
    let bytes = t1.bytes_uploaded - t0.bytes_uploaded;
    assert!(
        (8000..8000 + 2048).contains(&bytes),
        "{bytes} bytes a frame"
    );
    assert_eq!(t1.buffers_created, t0.buffers_created);
    // A static property changed in the slice shows only after update().
    let pc = s.get_mut(id).unwrap().as_particles_mut().unwrap();
    pc.particles_mut().tint[0] = 0xff0000;
    pc.particles_mut().position[0].x += 1.0; // dynamic: shows at once
    r.render(&s, &target, clear).unwrap();
    let img = r.read_pixels(&target).unwrap();
    probe(&img, 1, 0, [0, 0, 255, 255], 0);
    s.get_mut(id).unwrap().as_particles_mut().unwrap().update();
    r.render(&s, &target, clear).unwrap();
    let img = r.read_pixels(&target).unwrap();
    probe(&img, 1, 0, [255, 0, 0, 255], 0);
    // Through particle_mut: at once, and only that range goes up with the positions.
    let t0 = r.stats().total;
    let pc = s.get_mut(id).unwrap().as_particles_mut().unwrap();
    pc.particle_mut(41).unwrap().tint = 0x00ff00;
    r.render(&s, &target, clear).unwrap();
    let t1 = r.stats().total;
    let bytes = t1.bytes_uploaded - t0.bytes_uploaded;
    assert!(
        (8000 + 16 + 16 + 4..8000 + 2048).contains(&bytes),
        "{bytes}"
    );
    let img = r.read_pixels(&target).unwrap();
    probe(&img, 5, 5, [0, 255, 0, 255], 0);
    // Fewer particles, then more than the buffers hold: drawn right either way.
    let pc = s.get_mut(id).unwrap().as_particles_mut().unwrap();
    pc.remove_range(1..1000);
    r.render(&s, &target, clear).unwrap();
    let img = r.read_pixels(&target).unwrap();
    probe(&img, 5, 5, [0, 0, 0, 255], 0);
    probe(&img, 1, 0, [255, 0, 0, 255], 0);
    let pc = s.get_mut(id).unwrap().as_particles_mut().unwrap();
    pc.extend((0..5000).map(|i| Particle::new((i % 80) as f32 * 2.0, 40.0 + (i / 80) as f32)))
        .unwrap();
    r.render(&s, &target, clear).unwrap();
    assert_eq!(r.stats().last_frame.particles, 5001);
    let img = r.read_pixels(&target).unwrap();
    probe(&img, 100, 60, [255, 255, 255, 255], 0);
}

#[test]
fn the_container_is_a_node_transform_alpha_mask_render_texture_and_culling() {
    let mut r = renderer();
    let white = r.white_texture();
    let mut pc = ParticleContainer::new(white);
    pc.extend(
        (0..16).map(|i| Particle::new((i % 4) as f32 * 10.0, (i / 4) as f32 * 10.0).scaled(10.0)),
    )
    .unwrap();
    let mut s = Scene::new();
    let c = s
        .add(
            s.root(),
            Node::particles(pc)
                .at(20.0, 10.0)
                .tinted(Color::hex(0xff0000))
                .with_alpha(0.5),
        )
        .unwrap();
    let img = render(&mut r, &s, 80, 60, Color::BLACK);
    probe(&img, 25, 15, [128, 0, 0, 255], 1);
    probe(&img, 55, 45, [128, 0, 0, 255], 1);
    probe(&img, 15, 15, [0, 0, 0, 255], 0);
    // Masked by a circle around its first particles.
    let mut g = GraphicsContext::new();
    g.rect(20.0, 10.0, 15.0, 15.0).fill(Color::WHITE);
    let m = s.add(s.root(), Node::graphics(g)).unwrap();
    s.set_mask(c, m, false).unwrap();
    let img = render(&mut r, &s, 80, 60, Color::BLACK);
    probe(&img, 25, 15, [128, 0, 0, 255], 1);
    probe(&img, 45, 35, [0, 0, 0, 255], 0);
    s.clear_mask(c).unwrap();
    s.remove(m).unwrap();
    // Into a render texture, shown by a sprite.
    let rt = r
        .create_render_texture(RenderTextureOptions::new(80, 60))
        .unwrap();
    r.render(&s, &rt, Some(Color::TRANSPARENT)).unwrap();
    let mut shown = Scene::new();
    shown.add(shown.root(), Node::sprite(rt.texture())).unwrap();
    let img = render(&mut r, &shown, 80, 60, Color::BLACK);
    probe(&img, 55, 45, [128, 0, 0, 255], 1);
    // Culled by its bounds area when that lies off the target; never without one.
    s.transform_mut(c).unwrap().position.x = 500.0;
    render(&mut r, &s, 80, 60, Color::BLACK);
    assert_eq!(r.stats().last_frame.particles, 16);
    s.get_mut(c)
        .unwrap()
        .as_particles_mut()
        .unwrap()
        .bounds_area = Some(Rect::new(0.0, 0.0, 40.0, 40.0));
    render(&mut r, &s, 80, 60, Color::BLACK);
    let last = r.stats().last_frame;
    assert_eq!((last.particles, last.culled, last.draw_calls), (0, 1, 0));
}

#[test]
fn hit_testing_uses_the_bounds_area_only() {
    let mut r = renderer();
    let white = r.white_texture();
    let mut pc = ParticleContainer::new(white);
    pc.add(Particle::new(0.0, 0.0).scaled(10.0)).unwrap();
    let mut s = Scene::new();
    let c = s
        .add(
            s.root(),
            Node::particles(pc)
                .at(100.0, 100.0)
                .with_event_mode(EventMode::Static),
        )
        .unwrap();
    // As PixiJS's: no bounds area, no bounds and no hits.
    assert_eq!(s.hit_test(Vec2::new(105.0, 105.0)), None);
    assert_eq!(s.local_bounds(c), None);
    let pc = s.get_mut(c).unwrap().as_particles_mut().unwrap();
    pc.bounds_area = pc.compute_bounds();
    assert_eq!(pc.bounds_area, Some(Rect::new(0.0, 0.0, 10.0, 10.0)));
    assert_eq!(s.hit_test(Vec2::new(105.0, 105.0)), Some(c));
    assert_eq!(s.hit_test(Vec2::new(115.0, 105.0)), None);
    let _ = render(&mut r, &s, 8, 8, Color::BLACK);
}

#[test]
fn bad_particles_are_skipped_and_counted_the_rest_drawn() {
    let mut r = renderer_with_msaa(false);
    let white = r.white_texture();
    let mut pc = ParticleContainer::new(white).with_dynamic(ParticleProperties::ALL);
    let good = Particle::new(2.0, 2.0).scaled(4.0);
    pc.add(good).unwrap();
    let mut nan_pos = good;
    nan_pos.position.x = f32::NAN;
    let mut inf_scale = good;
    inf_scale.scale.y = f32::INFINITY;
    let mut nan_rot = good;
    nan_rot.rotation = f32::NAN;
    let mut nan_alpha = good;
    nan_alpha.alpha = f32::NAN;
    let mut huge = good;
    huge.position = Vec2::splat(3.0e38);
    for p in [
        nan_pos,
        inf_scale,
        nan_rot,
        nan_alpha,
        huge,
        good.with_frame(7),
    ] {
        pc.add(p).unwrap();
    }
    pc.add(Particle::new(10.0, 2.0).scaled(4.0)).unwrap();
    let mut s = Scene::new();
    let id = s.add(s.root(), Node::particles(pc)).unwrap();
    for dynamic in [ParticleProperties::ALL, ParticleProperties::NONE] {
        s.get_mut(id)
            .unwrap()
            .as_particles_mut()
            .unwrap()
            .set_dynamic(dynamic);
        let t = std::time::Instant::now();
        let img = render(&mut r, &s, 16, 8, Color::BLACK);
        assert!(t.elapsed().as_secs() < 2);
        let last = r.stats().last_frame;
        assert_eq!(last.particles_skipped, 5, "{dynamic:?}");
        probe(&img, 3, 3, [255, 255, 255, 255], 0);
        probe(&img, 11, 3, [255, 255, 255, 255], 0);
        probe(&img, 8, 3, [0, 0, 0, 255], 0);
    }
    // A frame of another texture, and far too many particles: errors, nothing changed.
    let other = r.white_texture();
    let card = card(&mut r, 4, 4);
    let pc = s.get_mut(id).unwrap().as_particles_mut().unwrap();
    assert_eq!(pc.add_frame(other).unwrap(), 1);
    assert!(matches!(pc.add_frame(card), Err(Error::ParticleFrame(_))));
    let e = pc.reserve(100_000_000).unwrap_err();
    assert!(matches!(e, Error::TooManyParticles { .. }), "{e}");
    assert_eq!(pc.len(), 8);
    // A container of a destroyed texture: the node is skipped, the rest of the frame drawn.
    let tex = solid(&mut r, 2, 2, [255, 0, 0, 255]);
    let mut pc2 = ParticleContainer::new(tex);
    pc2.add(Particle::new(0.0, 0.0)).unwrap();
    s.add(s.root(), Node::particles(pc2)).unwrap();
    r.destroy_texture(tex).unwrap();
    let img = render(&mut r, &s, 16, 8, Color::BLACK);
    assert_eq!(r.stats().last_frame.nodes_skipped, 1);
    probe(&img, 11, 3, [255, 255, 255, 255], 0);
}

/// PixiJS's `particle-container/particle` scene: 100 bunnies in a 10x10 grid, turning by 0.01 a particle,
/// fading in, every other one red, and a second container with one centred particle of a resolution-2 photo.
#[test]
fn pixijs_particle() {
    let mut r = renderer();
    let bunny = pixijs_texture(&mut r, "bunny.png");
    let mut assets = Assets::new();
    let path = format!(
        "{}/tests/pixijs/profile-abel@2x.jpg",
        env!("CARGO_MANIFEST_DIR")
    );
    let photo = assets.load(&mut r, path, Sampling::LINEAR).unwrap();
    let mut s = Scene::new();
    let mut pc = ParticleContainer::new(bunny);
    for i in 0..100 {
        let mut p = Particle::new((i % 10) as f32 * 10.0, (i / 10) as f32 * 10.0)
            .rotated(i as f32 * 0.01)
            .with_alpha(i as f32 / 100.0);
        if i % 2 == 0 {
            p = p.tinted(Color::hex(0xff0000));
        }
        pc.add(p).unwrap();
    }
    s.add(s.root(), Node::particles(pc)).unwrap();
    let mut pc2 = ParticleContainer::new(photo);
    pc2.add(Particle::new(64.0, 64.0).anchored(0.5, 0.5).scaled(0.6))
        .unwrap();
    s.add(s.root(), Node::particles(pc2)).unwrap();
    pixijs("particle", &render_pixijs(&mut r, &s), 100);
}

/// PixiJS's `particle-container/particle-filter` scene: nine bunnies in a container at (30, 30) under a
/// colour matrix turning hues by 90 degrees, with a filter area of (30, 30, 80, 80).
#[test]
fn pixijs_particle_filter() {
    let mut r = renderer();
    let bunny = pixijs_texture(&mut r, "bunny.png");
    let mut s = Scene::new();
    let mut pc = ParticleContainer::new(bunny);
    for i in 0..9 {
        pc.add(Particle::new((i % 3) as f32 * 20.0, (i / 3) as f32 * 20.0))
            .unwrap();
    }
    let c = s.add(s.root(), Node::particles(pc).at(30.0, 30.0)).unwrap();
    let mut m = ColorMatrix::default();
    m.hue(90.0, true);
    s.set_filters(c, vec![Filter::color_matrix(m)]).unwrap();
    s.set_filter_area(c, Some(Rect::new(30.0, 30.0, 80.0, 80.0)))
        .unwrap();
    pixijs("particle-filter", &render_pixijs(&mut r, &s), 100);
}

/// A particle container inside a render group draws (the group is walked as a container around it), and moves
/// with the group.
#[test]
fn particles_inside_a_render_group() {
    let mut r = renderer_with_msaa(false);
    let white = r.white_texture();
    let mut pc = ParticleContainer::new(white);
    pc.add(
        Particle::new(0.0, 0.0)
            .scaled(6.0)
            .tinted(Color::hex(0x00ff00)),
    )
    .unwrap();
    let mut s = Scene::new();
    let group = s
        .add(s.root(), Node::container().at(4.0, 4.0).as_render_group())
        .unwrap();
    s.add(group, Node::sprite(white).sized(4.0, 4.0).at(10.0, 0.0))
        .unwrap();
    s.add(group, Node::particles(pc)).unwrap();
    let img = render(&mut r, &s, 24, 16, Color::BLACK);
    probe(&img, 6, 6, [0, 255, 0, 255], 0);
    probe(&img, 15, 5, [255, 255, 255, 255], 0);
    s.transform_mut(group).unwrap().position.x = 12.0;
    let img = render(&mut r, &s, 24, 16, Color::BLACK);
    probe(&img, 6, 6, [0, 0, 0, 255], 0);
    probe(&img, 14, 6, [0, 255, 0, 255], 0);
}
