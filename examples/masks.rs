//! Masks: animated nested masks over sprites and shapes, an inverse mask, and a rectangle (scissor) mask.
//!
//! `cargo run --release --example masks` opens a window; `-- --headless --out masks.png` (or no display) writes the
//! picture after `--frames F` animation steps (default 60).

mod common;
use stage2d::glam::Vec2;
use stage2d::{
    Color, GraphicsContext, Node, NodeId, Renderer, RendererOptions, Sampling, Scene, StrokeStyle,
};

/// The masks scene and its animated parts.
pub struct MasksScene {
    scene: Scene,
    spinning: NodeId,
    orbiting: NodeId,
    t: f32,
}

impl MasksScene {
    pub fn new(r: &mut Renderer) -> stage2d::Result<MasksScene> {
        let bunnies: Vec<_> = (0..4)
            .map(|i| r.load_texture(common::asset(&format!("bunny{i}.png")), Sampling::NEAREST))
            .collect::<stage2d::Result<_>>()?;
        let mut scene = Scene::new();
        let root = scene.root();
        // A field of bunnies and stripes to mask.
        let field =
            |scene: &mut Scene, parent: NodeId, w: f32, h: f32, hue: u32| -> stage2d::Result<()> {
                let mut stripes = GraphicsContext::new();
                for i in 0..(w as i32 / 20) {
                    stripes
                        .rect(i as f32 * 20.0, 0.0, 10.0, h)
                        .fill(Color::hex(hue));
                }
                scene.add(parent, Node::graphics(stripes))?;
                for i in 0..((w * h) / 1600.0) as usize {
                    let x = (i as f32 * 37.0) % w;
                    let y = (i as f32 * 53.0) % h;
                    scene.add(
                        parent,
                        Node::sprite(bunnies[i % 4]).anchor(0.5, 0.5).at(x, y),
                    )?;
                }
                Ok(())
            };

        // Left: nested masks, a spinning star inside a circle.
        let outer = scene.add(root, Node::container().at(20.0, 20.0))?;
        let inner = scene.add(outer, Node::container())?;
        field(&mut scene, inner, 360.0, 360.0, 0x2980b9)?;
        let mut circle = GraphicsContext::new();
        circle.circle(180.0, 180.0, 170.0).fill(Color::WHITE);
        // The masks are children of what they mask (PixiJS's pattern): they move with it and are not drawn.
        let circle = scene.add(outer, Node::graphics(circle))?;
        let mut star = GraphicsContext::new();
        star.star(0.0, 0.0, 6, 200.0, 90.0, 0.0).fill(Color::WHITE);
        let spinning = scene.add(inner, Node::graphics(star).at(180.0, 180.0))?;
        scene.set_mask(outer, circle, false)?;
        scene.set_mask(inner, spinning, false)?;

        // Right top: an inverse mask (a moving hole) over a field.
        let inv = scene.add(root, Node::container().at(420.0, 20.0))?;
        field(&mut scene, inv, 360.0, 260.0, 0x27ae60)?;
        let mut hole = GraphicsContext::new();
        hole.circle(0.0, 0.0, 70.0).fill(Color::WHITE);
        // A detached mask: its position is in the target's space (here, the scene's), wherever the field is.
        let orbiting = scene.add_detached(Node::graphics(hole).at(600.0, 150.0));
        scene.set_mask(inv, orbiting, true)?;

        // Right bottom: a rectangle mask, served by the scissor rectangle.
        let rect_masked = scene.add(root, Node::container().at(420.0, 300.0))?;
        field(&mut scene, rect_masked, 360.0, 280.0, 0xc0392b)?;
        let mut rect = GraphicsContext::new();
        rect.rect(450.0, 330.0, 300.0, 220.0).fill(Color::WHITE);
        let rect = scene.add_detached(Node::graphics(rect));
        scene.set_mask(rect_masked, rect, false)?;
        // Outline the rectangle so the clip is visible.
        let mut frame = GraphicsContext::new();
        frame
            .rect(450.0, 330.0, 300.0, 220.0)
            .stroke(StrokeStyle::new(3.0, Color::WHITE));
        scene.add(root, Node::graphics(frame))?;
        Ok(MasksScene {
            scene,
            spinning,
            orbiting,
            t: 0.0,
        })
    }

    pub fn update(&mut self, dt: f32) {
        self.t += dt;
        if let Some(n) = self.scene.transform_mut(self.spinning) {
            n.rotation = self.t * 0.5;
        }
        if let Some(n) = self.scene.transform_mut(self.orbiting) {
            n.position = Vec2::new(
                600.0 + (self.t * 0.8).cos() * 110.0,
                150.0 + (self.t * 0.8).sin() * 60.0,
            );
        }
    }
}

impl common::Demo for MasksScene {
    fn build(renderer: &mut Renderer) -> stage2d::Result<Self> {
        MasksScene::new(renderer)
    }
    fn scene(&self) -> &Scene {
        &self.scene
    }
    fn update(&mut self, _renderer: &mut Renderer, dt: f32) {
        MasksScene::update(self, dt);
    }
}

fn main() {
    let options = RendererOptions::default().with_msaa(true);
    common::show::<MasksScene>("masks", options, Color::hex(0x1e1e2e));
}
