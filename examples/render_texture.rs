//! Render textures: a small animated scene (a spinning star and bouncing bunnies, masked to a circle) is drawn
//! into a texture every frame, then shown many times, rotated and tinted.
//!
//! `cargo run --release --example render_texture` opens a window; `-- --headless --out render_texture.png` (or no
//! display) writes the picture instead.

mod common;
use stage2d::glam::Vec2;
use stage2d::{
    Color, GraphicsContext, Node, NodeId, RenderTarget, RenderTextureOptions, Renderer,
    RendererOptions, Sampling, Scene, StrokeStyle,
};

struct Showcase {
    /// The small scene drawn into the texture (hidden in the main scene's tree, drawn only through the texture).
    source: NodeId,
    star: NodeId,
    bunnies: Vec<NodeId>,
    target: RenderTarget,
    scene: Scene,
    copies: Vec<NodeId>,
    t: f32,
}

impl common::Demo for Showcase {
    fn build(r: &mut Renderer) -> stage2d::Result<Self> {
        let target =
            r.create_render_texture(RenderTextureOptions::new(160, 160).with_msaa(true))?;
        let mut scene = Scene::new();
        let root = scene.root();
        // The source subtree lives hidden in the scene; render_node draws it anyway.
        let source = scene.add(root, Node::container())?;
        scene.get_mut(source).unwrap().visible = false;
        let mut bg = GraphicsContext::new();
        bg.circle(80.0, 80.0, 78.0)
            .fill(Color::hex(0x34495e))
            .stroke(StrokeStyle::new(4.0, Color::WHITE));
        scene.add(source, Node::graphics(bg))?;
        let mut star = GraphicsContext::new();
        star.star(0.0, 0.0, 5, 60.0, 26.0, 0.0)
            .fill(Color::hex(0xf1c40f));
        let star = scene.add(source, Node::graphics(star).at(80.0, 80.0))?;
        let mut bunnies = Vec::new();
        for i in 0..3 {
            let t = r.load_texture(
                common::asset(&format!("bunny{}.png", i * 3)),
                Sampling::NEAREST,
            )?;
            bunnies.push(
                scene.add(
                    source,
                    Node::sprite(t)
                        .anchor(0.5, 1.0)
                        .at(40.0 + i as f32 * 40.0, 120.0),
                )?,
            );
        }
        let mut clip = GraphicsContext::new();
        clip.circle(80.0, 80.0, 76.0).fill(Color::WHITE);
        let clip = scene.add_detached(Node::graphics(clip));
        scene.set_mask(source, clip, false)?;
        // Many copies of the texture, rotated and tinted.
        let tex = target.texture();
        let mut copies = Vec::new();
        for i in 0..24 {
            let a = i as f32 / 24.0 * std::f32::consts::TAU;
            let p = Vec2::new(400.0, 300.0) + Vec2::new(a.cos(), a.sin()) * 230.0;
            let tint = Color::rgb(0.6 + 0.4 * a.cos().abs(), 0.6 + 0.4 * a.sin().abs(), 1.0);
            let n = scene.add(
                root,
                Node::sprite(tex).anchor(0.5, 0.5).at(p.x, p.y).tinted(tint),
            )?;
            scene.transform_mut(n).unwrap().scale = Vec2::splat(0.45);
            copies.push(n);
        }
        let centre = scene.add(root, Node::sprite(tex).anchor(0.5, 0.5).at(400.0, 300.0))?;
        scene.transform_mut(centre).unwrap().scale = Vec2::splat(1.6);
        copies.push(centre);
        Ok(Showcase {
            source,
            star,
            bunnies,
            target,
            scene,
            copies,
            t: 0.0,
        })
    }

    fn scene(&self) -> &Scene {
        &self.scene
    }

    fn update(&mut self, r: &mut Renderer, dt: f32) {
        self.t += dt;
        let t = self.t;
        if let Some(n) = self.scene.transform_mut(self.star) {
            n.rotation = t;
        }
        for (i, b) in self.bunnies.iter().enumerate() {
            if let Some(n) = self.scene.transform_mut(*b) {
                n.position.y = 120.0 - ((t * 3.0 + i as f32).sin().abs() * 50.0);
            }
        }
        for (i, c) in self.copies.iter().enumerate() {
            if let Some(n) = self.scene.transform_mut(*c) {
                n.rotation = -t * 0.5 + i as f32 * 0.26;
            }
        }
        // Draw the source subtree into the texture; the main frame then samples it.
        if let Err(e) = r.render_node(
            &self.scene,
            self.source,
            &self.target,
            Some(Color::TRANSPARENT),
        ) {
            log::warn!("render texture: {e}");
        }
    }
}

fn main() {
    common::show::<Showcase>(
        "render_texture",
        RendererOptions::default(),
        Color::hex(0x1e272e),
    );
}
