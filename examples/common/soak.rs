//! The soak churn, shared by `examples/soak.rs` and `tests/soak.rs`: every frame adds and removes sprites, redraws
//! and replaces shapes, changes text, sets, clears and removes masks, creates and drops render textures of sizes
//! cycling through [`RT_SIZES`] (some multisampled, some with a stencil attachment from the start, some masked),
//! borrows pooled render textures, creates and destroys loaded textures, and renders the scene into one target.
//!
//! Deterministic (a fixed xorshift seed), so two runs churn the same way. Every period is short next to a warm-up
//! of a few hundred frames, so what a long run holds after warm-up is what it held at the end of warm-up.
#![allow(dead_code)]

use stage2d::{
    Color, EventKind, EventMode, Events, Font, GraphicsContext, Node, NodeId, PointerInput,
    PooledRenderTexture, RenderTarget, RenderTextureOptions, Renderer, Sampling, Scene, Text,
    Texture,
};

/// Sizes render textures cycle through (23 of them: more than one pass of any other period).
pub const RT_SIZES: [(u32, u32); 23] = [
    (16, 16),
    (17, 31),
    (32, 8),
    (40, 40),
    (48, 20),
    (64, 64),
    (63, 65),
    (80, 30),
    (96, 96),
    (100, 50),
    (120, 7),
    (128, 128),
    (13, 130),
    (140, 70),
    (150, 150),
    (24, 160),
    (170, 90),
    (180, 33),
    (190, 190),
    (200, 100),
    (210, 45),
    (230, 120),
    (256, 256),
];

/// Sizes pooled render textures are borrowed at.
pub const POOL_SIZES: [(u32, u32); 5] = [(32, 32), (64, 32), (64, 64), (100, 60), (128, 128)];

/// Size of the target the scene is drawn into.
pub const TARGET_SIZE: (u32, u32) = (256, 192);

/// Render textures kept alive at once (older ones are dropped).
const LIVE_RTS: usize = 3;
/// Loaded textures kept alive at once (older ones are destroyed).
const LIVE_TEXTURES: usize = 6;
/// Loaded textures kept for the whole run (sprites in changing order show them in changing combinations).
const KEPT_TEXTURES: usize = 8;
/// Sprites, shapes and texts the scene holds in steady state.
const SPRITES: usize = 60;
const SHAPES: usize = 12;
const TEXTS: usize = 4;
/// Frames submitted between waits for the GPU.
const FRAMES_IN_FLIGHT: u64 = 4;

/// A tiny deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 32) as u32
    }
    fn below(&mut self, n: usize) -> usize {
        self.next() as usize % n.max(1)
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 8) as f32 / (1u32 << 24) as f32
    }
}

/// The churning scene and the resources it borrows from one renderer.
pub struct Soak {
    pub scene: Scene,
    font: Font,
    /// Where sprites, shapes and texts go: the root and containers that masks come and go on.
    layers: Vec<NodeId>,
    /// Mask nodes (detached graphics), oldest first.
    masks: Vec<NodeId>,
    sprites: Vec<NodeId>,
    shapes: Vec<NodeId>,
    texts: Vec<NodeId>,
    textures: Vec<Texture>,
    kept: Vec<Texture>,
    rts: Vec<RenderTarget>,
    /// A detached subtree drawn into render textures: a masked shape and a sprite.
    offscreen: NodeId,
    /// Short-lived render groups, on and off the target.
    groups: Vec<NodeId>,
    target: RenderTarget,
    rng: Rng,
    frame: u64,
    /// Pointer events: a click handler on every shape (dropped with it), a pointer moving and clicking.
    events: Events<u64>,
    clicks: u64,
    /// Asset loads: a bundle of shipped files every few frames, unloaded once done (or while loading).
    assets: stage2d::Assets,
    bundle: Option<(stage2d::BundleId, Vec<std::path::PathBuf>)>,
    bundles: u64,
    /// Bundles unloaded, forgotten once done.
    finished: Vec<stage2d::BundleId>,
}

/// A solid colour shape at a random place.
fn shape(rng: &mut Rng, frame: u64) -> GraphicsContext {
    let mut g = GraphicsContext::new();
    let c = Color::rgba(rng.unit(), rng.unit(), rng.unit(), 1.0);
    let (x, y, s) = (
        rng.unit() * 200.0,
        rng.unit() * 150.0,
        4.0 + rng.unit() * 30.0,
    );
    match frame % 3 {
        0 => g.circle(x, y, s).fill(c),
        1 => g.rect(x, y, s, s * 0.5).fill(c),
        _ => g
            .star(x, y, 5, s, s * 0.5, 0.0)
            .stroke(stage2d::StrokeStyle::new(2.0, c)),
    };
    g
}

impl Soak {
    /// The scene, its font, the first loaded textures and the target.
    pub fn new(r: &mut Renderer, font: Font) -> stage2d::Result<Soak> {
        let mut scene = Scene::new();
        let root = scene.root();
        let mut layers = vec![root];
        for _ in 0..3 {
            layers.push(scene.add(root, Node::container())?);
        }
        let offscreen = scene.add_detached(Node::container());
        let mut g = GraphicsContext::new();
        g.rect(0.0, 0.0, 60.0, 60.0).fill(Color::rgb(0.2, 0.8, 0.3));
        let body = scene.add(offscreen, Node::graphics(g))?;
        let mut m = GraphicsContext::new();
        m.circle(30.0, 30.0, 25.0).fill(Color::WHITE);
        let mask = scene.add_detached(Node::graphics(m));
        scene.set_mask(body, mask, false)?;
        let white = r.white_texture();
        scene.add(offscreen, Node::sprite(white).sized(10.0, 10.0))?;
        let (w, h) = TARGET_SIZE;
        let target = r.create_render_target(w, h)?;
        let mut soak = Soak {
            scene,
            font,
            layers,
            masks: Vec::new(),
            sprites: Vec::new(),
            shapes: Vec::new(),
            texts: Vec::new(),
            textures: Vec::new(),
            kept: Vec::new(),
            rts: Vec::new(),
            offscreen,
            groups: Vec::new(),
            target,
            rng: Rng(0x9e37_79b9_7f4a_7c15),
            frame: 0,
            events: Events::new(),
            clicks: 0,
            assets: stage2d::Assets::new(),
            bundle: None,
            bundles: 0,
            finished: Vec::new(),
        };
        for _ in 0..LIVE_TEXTURES + KEPT_TEXTURES {
            soak.new_texture(r)?;
        }
        soak.kept = soak.textures.split_off(LIVE_TEXTURES);
        Ok(soak)
    }

    /// Event handlers held (one per live shape; those of removed shapes must be dropped).
    pub fn event_handlers(&self) -> usize {
        self.events.handler_count()
    }

    /// The most shapes the churn keeps (so the most event handlers it should hold).
    pub const SHAPES: usize = SHAPES;

    /// The target the scene is drawn into.
    pub fn target(&self) -> &RenderTarget {
        &self.target
    }

    /// Loaded textures the churn holds now.
    pub fn textures_held(&self) -> u64 {
        (self.textures.len() + self.kept.len()) as u64
    }

    /// Textures the asset cache holds now (files of the bundle in flight that have arrived).
    pub fn loading_textures(&self) -> usize {
        self.assets.len()
    }

    /// Asset bundles loaded (and unloaded) so far.
    pub fn bundles(&self) -> u64 {
        self.bundles
    }

    /// Bundle records the cache holds now (forgotten once done: stays small).
    pub fn bundle_records(&self) -> usize {
        self.finished.len() + usize::from(self.bundle.is_some())
    }

    /// Frames churned so far.
    pub fn frame(&self) -> u64 {
        self.frame
    }

    /// A loaded texture of a size cycling with the frame.
    fn new_texture(&mut self, r: &mut Renderer) -> stage2d::Result<()> {
        let side = 1 + (self.frame % 17) as u32;
        let c = [self.rng.next() as u8, 128, 64, 255];
        let px: Vec<u8> = c
            .iter()
            .copied()
            .cycle()
            .take((side * side * 4) as usize)
            .collect();
        let t = r.create_texture(side, side, &px, Sampling::NEAREST)?;
        self.textures.push(t);
        Ok(())
    }

    /// A texture for a new sprite: a kept one (half the time), a loaded one, a live render texture's, or the
    /// white one.
    fn pick_texture(&mut self, r: &Renderer) -> Texture {
        if self.rng.below(2) == 0 {
            return self.kept[self.rng.below(self.kept.len())];
        }
        let n = self.textures.len() + self.rts.len() + 1;
        let i = self.rng.below(n);
        if i < self.textures.len() {
            self.textures[i]
        } else if i - self.textures.len() < self.rts.len() {
            self.rts[i - self.textures.len()].texture()
        } else {
            r.white_texture()
        }
    }

    fn layer(&mut self) -> NodeId {
        self.layers[self.rng.below(self.layers.len())]
    }

    /// One frame of churn, then the scene drawn into the target.
    pub fn step(&mut self, r: &mut Renderer) -> stage2d::Result<()> {
        self.frame += 1;
        let f = self.frame;

        // Loaded textures: one new, the oldest destroyed (sprites still showing it are skipped).
        self.new_texture(r)?;
        if self.textures.len() > LIVE_TEXTURES {
            let old = self.textures.remove(0);
            r.destroy_texture(old)?;
        }

        // Assets: a bundle of two shipped files loading in the background every few frames; unloaded once done,
        // every third one while it still loads.
        self.assets.poll(r);
        let assets = &mut self.assets;
        self.finished.retain(|&id| match assets.is_done(id) {
            Ok(true) => assets.forget_bundle(id).is_err(),
            _ => true,
        });
        match &self.bundle {
            None if f.is_multiple_of(4) => {
                let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/assets"));
                let files = vec![
                    dir.join(format!("bunny{}.png", f % 12)),
                    dir.join("critters.json"),
                ];
                let id = self.assets.load_bundle(&files, Sampling::NEAREST);
                self.bundles += 1;
                self.bundle = Some((id, files));
            }
            Some((id, files)) => {
                let early = self.bundles.is_multiple_of(3);
                if early || self.assets.is_done(*id)? {
                    for p in files {
                        self.assets.unload(r, p)?;
                    }
                    // Its record is forgotten once what still loaded arrives (dropped).
                    self.finished.push(*id);
                    self.bundle = None;
                }
            }
            None => {}
        }

        // Sprites: a few added, the oldest removed.
        for _ in 0..4 {
            let t = self.pick_texture(r);
            let (x, y) = (self.rng.unit() * 240.0, self.rng.unit() * 180.0);
            let parent = self.layer();
            let node = Node::sprite(t).at(x, y).sized(12.0, 12.0);
            self.sprites.push(self.scene.add(parent, node)?);
        }
        while self.sprites.len() > SPRITES {
            let s = self.sprites.remove(0);
            // A sprite under a removed subtree is gone already: stale is expected here.
            let _ = self.scene.remove(s);
        }

        // Shapes: one redrawn in place, one replaced.
        if let Some(&s) = self.shapes.get(self.rng.below(self.shapes.len())) {
            let g2 = shape(&mut self.rng, f);
            if let Some(g) = self.scene.get_mut(s).and_then(|n| n.graphics_mut()) {
                *g = g2;
            }
        }
        let parent = self.layer();
        let g = shape(&mut self.rng, f);
        let id = self.scene.add(parent, Node::graphics(g))?;
        self.scene.set_event_mode(id, EventMode::Static)?;
        self.events.on(id, EventKind::Click, |cx| *cx.state += 1);
        self.shapes.push(id);
        while self.shapes.len() > SHAPES {
            let s = self.shapes.remove(0);
            let _ = self.scene.remove(s);
        }

        // Text: one string changed every frame, one node replaced every 7 frames.
        if self.texts.len() < TEXTS || f.is_multiple_of(7) {
            let size = [10.0, 12.0, 16.0][(f % 3) as usize];
            let text = Text::new(format!("t{f}"), &self.font, size).colored(Color::WHITE);
            let (x, y) = (self.rng.unit() * 200.0, self.rng.unit() * 170.0);
            let parent = self.layer();
            self.texts
                .push(self.scene.add(parent, Node::text(text).at(x, y))?);
            if self.texts.len() > TEXTS {
                let t = self.texts.remove(0);
                let _ = self.scene.remove(t);
            }
        }
        if let Some(&t) = self.texts.get((f % TEXTS as u64) as usize) {
            if let Some(text) = self.scene.get_mut(t).and_then(|n| n.as_text_mut()) {
                text.set_text(&format!("frame {f} #{}", self.rng.below(1000)));
            }
        }

        // Masks on the containers: a new one set every 5 frames (circle: stencil; rectangle: scissor), a mask
        // cleared every 11, the oldest mask node removed while a container may still name it.
        if f.is_multiple_of(5) {
            let mut m = GraphicsContext::new();
            let (x, y) = (self.rng.unit() * 150.0, self.rng.unit() * 100.0);
            if f.is_multiple_of(2) {
                m.circle(x, y, 60.0).fill(Color::WHITE);
            } else {
                m.rect(x, y, 100.0, 80.0).fill(Color::WHITE);
            }
            let mask = self.scene.add_detached(Node::graphics(m));
            let target = self.layers[1 + self.rng.below(self.layers.len() - 1)];
            self.scene.set_mask(target, mask, f.is_multiple_of(3))?;
            self.masks.push(mask);
        }
        if f.is_multiple_of(11) {
            let target = self.layers[1 + self.rng.below(self.layers.len() - 1)];
            self.scene.clear_mask(target)?;
        }
        if self.masks.len() > 4 {
            let m = self.masks.remove(0);
            self.scene.remove(m)?;
        }

        // Render groups and culling: a layer turns into a render group and back every 50 frames; a group of three
        // sprites is added each frame, every third one off the target (culled), and removed 20 frames later, so
        // recordings and cached bounds come and go.
        if f.is_multiple_of(50) {
            if let Some(n) = self.scene.get_mut(self.layers[2]) {
                n.render_group = !n.render_group;
            }
        }
        let x = if f.is_multiple_of(3) {
            2000.0
        } else {
            self.rng.unit() * 200.0
        };
        let y = self.rng.unit() * 160.0;
        let group = self
            .scene
            .add(self.layers[1], Node::container().at(x, y).as_render_group())?;
        for i in 0..3 {
            let t = self.pick_texture(r);
            self.scene.add(
                group,
                Node::sprite(t).sized(8.0, 8.0).at(i as f32 * 9.0, 0.0),
            )?;
        }
        self.groups.push(group);
        if self.groups.len() > 20 {
            let g = self.groups.remove(0);
            let _ = self.scene.remove(g);
        }

        // Render textures: a new one every frame, of the next size; every third multisampled, every fourth with a
        // stencil attachment from the start; the masked subtree drawn into it; the oldest dropped.
        let (w, h) = RT_SIZES[(f % RT_SIZES.len() as u64) as usize];
        let o = RenderTextureOptions::new(w, h)
            .with_msaa(f.is_multiple_of(3))
            .with_depth_stencil(f.is_multiple_of(4));
        let rt = r.create_render_texture(o)?;
        r.render_node(&self.scene, self.offscreen, &rt, Some(Color::TRANSPARENT))?;
        self.rts.push(rt);
        if self.rts.len() > LIVE_RTS {
            self.rts.remove(0);
        }

        // Pooled render textures: one borrowed, drawn into and returned every frame; a second one every other.
        let (pw, ph) = POOL_SIZES[(f % POOL_SIZES.len() as u64) as usize];
        let pooled: PooledRenderTexture = r.acquire_render_texture(
            RenderTextureOptions::new(pw, ph).with_msaa(f.is_multiple_of(2)),
        )?;
        r.render_node(&self.scene, self.offscreen, &pooled, None)?;
        let second = if f.is_multiple_of(2) {
            Some(r.acquire_render_texture(RenderTextureOptions::new(ph, pw))?)
        } else {
            None
        };
        drop(pooled);
        drop(second);

        // A pointer wandering and clicking over the churn, and a hit test of the whole stack.
        let p = stage2d::glam::Vec2::new(self.rng.unit() * 240.0, self.rng.unit() * 180.0);
        self.events.dispatch(
            &mut self.scene,
            &mut self.clicks,
            PointerInput::Move {
                pointer: 0,
                position: p,
            },
        )?;
        for input in [
            PointerInput::Down {
                pointer: 0,
                position: p,
                button: 0,
            },
            PointerInput::Up {
                pointer: 0,
                position: p,
                button: 0,
            },
        ] {
            self.events
                .dispatch(&mut self.scene, &mut self.clicks, input)?;
        }
        let _ = self.scene.hit_test_all(p);

        // The frame; every fourth waits for the GPU, as a swap chain would hold a program back.
        r.render(&self.scene, &self.target, Some(Color::rgb(0.1, 0.1, 0.2)))?;
        if f.is_multiple_of(FRAMES_IN_FLIGHT) {
            r.wait_idle()?;
        }
        Ok(())
    }

    /// Lets go of everything the churn holds (render textures, loaded textures, scene content) and keeps only the
    /// scene's containers and the target: what is left after this is the renderer's baseline.
    pub fn release_all(&mut self, r: &mut Renderer) -> stage2d::Result<()> {
        self.rts.clear();
        // Loads in flight finish (or fail) and everything loaded is unloaded.
        if let Some((id, files)) = self.bundle.take() {
            let t0 = std::time::Instant::now();
            while !self.assets.is_done(id)? && t0.elapsed().as_secs() < 10 {
                self.assets.poll(r);
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            for p in files {
                self.assets.unload(r, p)?;
            }
        }
        for t in self.textures.drain(..).chain(self.kept.drain(..)) {
            r.destroy_texture(t)?;
        }
        for id in self
            .sprites
            .drain(..)
            .chain(self.shapes.drain(..))
            .chain(self.texts.drain(..))
            .chain(self.masks.drain(..))
        {
            let _ = self.scene.remove(id);
        }
        for &l in &self.layers[1..] {
            self.scene.clear_mask(l)?;
        }
        Ok(())
    }

    /// Draws the scene into the target only (no churn): frames that let idle objects age out.
    pub fn render_only(&mut self, r: &mut Renderer) -> stage2d::Result<()> {
        r.render(&self.scene, &self.target, Some(Color::BLACK))
    }
}

/// The live counts that must not grow, by name. `loading` is the textures the soak's asset cache holds now (the
/// bundle in flight's files that have arrived), counted apart: a bundle's two files arrive in one poll or in two,
/// so a frame may end with one of them cached and the other on its way.
pub fn live_counts(s: &stage2d::Stats, loading: usize) -> [(&'static str, u64); 5] {
    let l = s.live;
    [
        ("textures", l.textures.saturating_sub(loading as u64)),
        ("bind_groups", l.bind_groups),
        ("render_targets", l.render_targets),
        ("attachments", l.attachments),
        ("pipelines", l.pipelines),
    ]
}

/// How far a live count may rise above its maximum over the end of warm-up without counting as a leak, and why.
/// Counts the churn holds exactly flat (textures, render targets) and those it moves through in short fixed
/// periods (attachments) get none.
pub fn allowed_growth(name: &str, warm_max: u64) -> u64 {
    match name {
        // The bind-group cache holds the texture sets drawn in the last 60 frames; how many distinct sets random
        // sprite orders make in 60 frames varies from window to window, so a longer window sees a higher maximum.
        // Bounded (sets idle for 60 frames are evicted): twice the warm-up maximum.
        "bind_groups" => warm_max,
        // Pipelines are created once per state reached (textures per batch, stencil state, MSAA, blend) and kept:
        // random sprites reach rare combinations late. Bounded by the states a scene can reach.
        "pipelines" => 16,
        _ => 0,
    }
}

/// The counts of `late` (maxima after warm-up) that exceed `warm` (maxima over the end of warm-up) by more than
/// [`allowed_growth`], as messages.
pub fn growth_failures(warm: &[(&str, u64)], late: &[(&str, u64)]) -> Vec<String> {
    warm.iter()
        .zip(late)
        .filter(|(w, l)| l.1 > w.1 + allowed_growth(w.0, w.1))
        .map(|(w, l)| {
            let slack = allowed_growth(w.0, w.1);
            format!("{} grew from {} to {} (allowed: +{slack})", w.0, w.1, l.1)
        })
        .collect()
}

/// Resident memory of this process in KiB (`VmRSS` of `/proc/self/status`), where the system has it.
pub fn rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
