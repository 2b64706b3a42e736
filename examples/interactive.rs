//! Pointer events: buttons with hover and pressed states, bunnies to drag inside a masked panel (the one dragged
//! comes to the front by z-index), and a ring whose hole lets the pointer through.
//!
//! `cargo run --release --example interactive` opens a window (Escape closes it; `--frames F` stops after F frames);
//! on closing it prints one JSON line of what the handlers saw. `-- --headless --out interactive.png` (or no
//! display) replays a scripted pointer sequence through the same dispatcher instead, writes the final picture,
//! and prints the same line.

mod common;

use common::Flags;
use glam::Vec2;
use stage2d::app::{App, AppContext, WindowOptions};
use stage2d::{
    Color, Cursor, EventKind, EventMode, Events, Font, GraphicsContext, Node, NodeId, PointerInput,
    Renderer, RendererOptions, Sampling, Scene, Text,
};

/// What the handlers change besides the scene.
#[derive(Debug, Default)]
pub struct UiState {
    /// Clicks per button.
    pub clicks: [u32; 3],
    /// The bunny being dragged and the grab offset (its position minus the pointer's).
    pub dragging: Option<(NodeId, Vec2)>,
    /// Drags finished.
    pub drops: u32,
    /// Whether the ring is hovered.
    pub ring_hovered: bool,
    /// The next z-index for a bunny brought to the front.
    pub next_z: i32,
}

/// The scene, its dispatcher, and the nodes a script or test looks at.
pub struct Ui {
    pub scene: Scene,
    pub events: Events<UiState>,
    pub state: UiState,
    pub buttons: [NodeId; 3],
    pub bunnies: Vec<NodeId>,
    pub ring: NodeId,
    pub label: NodeId,
}

const BUTTON: Color = Color::rgba(0.2, 0.45, 0.8, 1.0);
const HOVER: Color = Color::rgba(1.25, 1.25, 1.25, 1.0);
const PRESSED: Color = Color::rgba(0.6, 0.6, 0.6, 1.0);

/// The pointer in the space of `id`'s parent (where its position lives).
fn in_parent(cx: &stage2d::EventContext<'_, UiState>, id: NodeId) -> Option<Vec2> {
    let parent = cx.scene.parent(id)?;
    cx.event.local_position(cx.scene, parent)
}

fn asset(name: &str) -> std::path::PathBuf {
    common::asset(name)
}

impl Ui {
    pub fn build(renderer: &mut Renderer) -> stage2d::Result<Ui> {
        let font = Font::load(asset("DejaVuSans.ttf"))?;
        let mut scene = Scene::new();
        let root = scene.root();
        let mut events: Events<UiState> = Events::new();

        // Three buttons: a rounded rectangle and a label in a static container; the label is passive, so it
        // hits for its button.
        let mut buttons = [root; 3];
        for (i, b) in buttons.iter_mut().enumerate() {
            let button = scene.add(root, Node::container().at(40.0, 40.0 + i as f32 * 70.0))?;
            scene.set_event_mode(button, EventMode::Static)?;
            scene.set_cursor(button, Some(Cursor::Pointer))?;
            let mut bg = GraphicsContext::new();
            bg.round_rect(0.0, 0.0, 180.0, 50.0, 10.0).fill(BUTTON);
            scene.add(button, Node::graphics(bg))?;
            let text = Text::new(format!("Button {}", i + 1), &font, 22.0).anchored(0.5, 0.5);
            scene.add(button, Node::text(text).at(90.0, 25.0))?;
            // Hover, press and release states: each event sets the button's tint.
            for (kind, tint) in [
                (EventKind::PointerOver, HOVER),
                (EventKind::PointerOut, Color::WHITE),
                (EventKind::PointerDown, PRESSED),
                (EventKind::PointerUp, HOVER),
                (EventKind::PointerUpOutside, Color::WHITE),
            ] {
                events.on(button, kind, move |cx| {
                    let id = cx.event.current_target;
                    cx.scene.get_mut(id).unwrap().tint = tint;
                });
            }
            events.on(button, EventKind::Click, move |cx| cx.state.clicks[i] += 1);
            *b = button;
        }
        let label = scene.add(
            root,
            Node::text(Text::new("clicks: 0 0 0", &font, 18.0)).at(40.0, 260.0),
        )?;

        // A panel masked to a rectangle, with bunnies to drag; the panel sorts by z-index.
        let panel = scene.add(root, Node::container().at(300.0, 40.0))?;
        scene.set_sortable_children(panel, true)?;
        let mut frame = GraphicsContext::new();
        frame
            .rect(0.0, 0.0, 440.0, 300.0)
            .fill(Color::hex(0x1d2b3a));
        scene.add(panel, Node::graphics(frame))?;
        let mut clip = GraphicsContext::new();
        clip.rect(0.0, 0.0, 440.0, 300.0).fill(Color::WHITE);
        let mask = scene.add_detached(Node::graphics(clip).at(300.0, 40.0));
        scene.set_mask(panel, mask, false)?;
        let mut bunnies = Vec::new();
        for i in 0..6 {
            let tex =
                renderer.load_texture(asset(&format!("bunny{}.png", i * 2)), Sampling::NEAREST)?;
            let mut n = Node::sprite(tex)
                .anchor(0.5, 0.5)
                .at(60.0 + i as f32 * 64.0, 150.0 + (i % 2) as f32 * 40.0);
            n.transform.scale = Vec2::splat(2.0);
            let id = scene.add(panel, n)?;
            scene.set_event_mode(id, EventMode::Static)?;
            scene.set_cursor(id, Some(Cursor::Grab))?;
            events.on(id, EventKind::PointerDown, |cx| {
                let id = cx.event.current_target;
                let Some(parent_pos) = in_parent(cx, id) else {
                    return;
                };
                let pos = cx.scene.transform(id).unwrap().position;
                cx.state.dragging = Some((id, pos - parent_pos));
                cx.state.next_z += 1;
                let z = cx.state.next_z;
                cx.scene.set_z_index(id, z).unwrap();
                cx.scene.set_cursor(id, Some(Cursor::Grabbing)).unwrap();
                cx.event.stop_propagation();
            });
            bunnies.push(id);
        }
        // The drag follows every move, wherever the pointer is, and ends on any release.
        events.on(root, EventKind::GlobalPointerMove, |cx| {
            let Some((id, offset)) = cx.state.dragging else {
                return;
            };
            let Some(p) = in_parent(cx, id) else {
                return;
            };
            if let Some(n) = cx.scene.transform_mut(id) {
                n.position = p + offset;
            }
        });
        let drop = |cx: &mut stage2d::EventContext<'_, UiState>| {
            if let Some((id, _)) = cx.state.dragging.take() {
                let _ = cx.scene.set_cursor(id, Some(Cursor::Grab));
                cx.state.drops += 1;
            }
        };
        for b in &bunnies {
            events.on(*b, EventKind::PointerUp, drop);
            events.on(*b, EventKind::PointerUpOutside, drop);
        }

        // A ring: a filled circle with a circle cut out. Only the filled part hits.
        let mut ring_shape = GraphicsContext::new();
        ring_shape
            .circle(0.0, 0.0, 80.0)
            .fill(Color::hex(0xe67e22))
            .circle(0.0, 0.0, 45.0)
            .cut();
        let ring = scene.add(root, Node::graphics(ring_shape).at(520.0, 470.0))?;
        scene.set_event_mode(ring, EventMode::Static)?;
        scene.set_cursor(ring, Some(Cursor::Crosshair))?;
        events.on(ring, EventKind::PointerEnter, |cx| {
            cx.state.ring_hovered = true;
            let id = cx.event.current_target;
            cx.scene.get_mut(id).unwrap().tint = Color::hex(0x8e44ad);
        });
        events.on(ring, EventKind::PointerLeave, |cx| {
            cx.state.ring_hovered = false;
            let id = cx.event.current_target;
            cx.scene.get_mut(id).unwrap().tint = Color::WHITE;
        });

        Ok(Ui {
            scene,
            events,
            state: UiState::default(),
            buttons,
            bunnies,
            ring,
            label,
        })
    }

    /// Feeds one input, then refreshes the click label.
    pub fn input(&mut self, input: PointerInput) -> stage2d::Result<()> {
        self.events
            .dispatch(&mut self.scene, &mut self.state, input)?;
        let c = self.state.clicks;
        if let Some(t) = self.scene.get_mut(self.label).and_then(|n| n.as_text_mut()) {
            t.set_text(&format!("clicks: {} {} {}", c[0], c[1], c[2]));
        }
        Ok(())
    }
}

/// The scripted session of the headless run: click button 2 twice, press button 3 and slide off it (no click),
/// drag the first bunny across the panel and past its edge, then hover the ring's hole (nothing) and its body.
pub fn script() -> Vec<PointerInput> {
    let mv = |x: f32, y: f32| PointerInput::Move {
        pointer: 0,
        position: Vec2::new(x, y),
    };
    let down = |x: f32, y: f32| PointerInput::Down {
        pointer: 0,
        position: Vec2::new(x, y),
        button: 0,
    };
    let up = |x: f32, y: f32| PointerInput::Up {
        pointer: 0,
        position: Vec2::new(x, y),
        button: 0,
    };
    let mut s = vec![mv(100.0, 130.0), down(100.0, 130.0), up(102.0, 131.0)];
    s.extend([down(120.0, 125.0), up(120.0, 125.0)]);
    s.extend([
        mv(100.0, 200.0),
        down(100.0, 200.0),
        mv(260.0, 200.0),
        up(260.0, 200.0),
    ]);
    // Drag the first bunny (at 360, 190 on screen) right and down onto the panel's right edge, where the mask
    // cuts it.
    s.extend([mv(360.0, 190.0), down(360.0, 190.0)]);
    for i in 1..=10 {
        s.push(mv(360.0 + i as f32 * 38.0, 190.0 + i as f32 * 11.0));
    }
    s.extend([up(740.0, 300.0), mv(520.0, 470.0), mv(520.0 + 60.0, 470.0)]);
    s
}

struct WindowApp(Option<Ui>);

impl App for WindowApp {
    fn init(&mut self, ctx: &mut AppContext) -> stage2d::Result<()> {
        self.0 = Some(Ui::build(ctx.renderer)?);
        Ok(())
    }
    fn update(&mut self, _ctx: &mut AppContext) -> stage2d::Result<()> {
        if let Some(ui) = self.0.as_mut() {
            ui.events.tick(&mut ui.scene, &mut ui.state);
        }
        Ok(())
    }
    fn scene(&self) -> &Scene {
        &self.0.as_ref().expect("built").scene
    }
    fn window_event(&mut self, ctx: &mut AppContext, event: &winit::event::WindowEvent) {
        if let winit::event::WindowEvent::KeyboardInput { event, .. } = event {
            if event.logical_key == winit::keyboard::Key::Named(winit::keyboard::NamedKey::Escape) {
                ctx.exit();
            }
        }
    }
    fn pointer(&mut self, ctx: &mut AppContext, input: PointerInput) {
        let Some(ui) = self.0.as_mut() else { return };
        if let Err(e) = ui.input(input) {
            log::warn!("{e}");
        }
        ctx.set_cursor(ui.events.cursor(&ui.scene));
    }
}

/// Replays [`script`] headless, rendering a frame after each input, and writes the last one to `out`.
pub fn replay(out: Option<&str>) -> stage2d::Result<(Ui, Renderer)> {
    let mut r = Renderer::new_headless(RendererOptions::default().with_msaa(true))?;
    let mut ui = Ui::build(&mut r)?;
    let target = r.create_render_target(800, 600)?;
    for input in script() {
        ui.input(input)?;
        r.render(&ui.scene, &target, Some(Color::hex(0x2c3e50)))?;
    }
    if let Some(out) = out {
        r.save_png(&target, out)?;
    }
    Ok((ui, r))
}

/// One JSON line of what the handlers saw.
fn report(ui: &Ui, mode: &str, out: Option<&str>) {
    let p = ui.scene.world_transform(ui.bunnies[0]).unwrap().translation;
    println!(
        "{{\"example\":\"interactive\",\"mode\":\"{mode}\",\"out\":\"{}\",\"clicks\":{:?},\"drops\":{},\"dragged_bunny_at\":[{:.1},{:.1}],\"ring_hovered\":{},\"cursor\":\"{:?}\"}}",
        out.unwrap_or(""),
        ui.state.clicks,
        ui.state.drops,
        p.x,
        p.y,
        ui.state.ring_hovered,
        ui.events.cursor(&ui.scene)
    );
}

#[allow(dead_code)]
fn main() {
    common::init_logging();
    let flags = Flags::from_env();
    let headless = flags.has("--headless") || !common::has_display();
    if !headless {
        let mut window = WindowOptions::default();
        window.title = "stage2d interactive".into();
        window.renderer = RendererOptions::default().with_msaa(true);
        window.clear_color = Color::hex(0x2c3e50);
        window.max_frames = flags.value("--frames").and_then(|f| f.parse().ok());
        match stage2d::app::run(window, WindowApp(None)) {
            Ok((app, _, _)) => {
                if let Some(ui) = app.0 {
                    report(&ui, "window", None);
                }
                return;
            }
            Err(stage2d::Error::Window(e)) => {
                eprintln!("interactive: cannot open a window ({e}); replaying the script headless")
            }
            Err(e) => {
                eprintln!("interactive: {e}");
                std::process::exit(1);
            }
        }
    }
    let out = flags
        .value("--out")
        .unwrap_or("interactive.png")
        .to_string();
    match replay(Some(&out)) {
        Ok((ui, _)) => report(&ui, "headless", Some(&out)),
        Err(e) => {
            eprintln!("interactive: {e}");
            std::process::exit(1);
        }
    }
}
