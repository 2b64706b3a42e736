//! A state machine over the scene and renderer API: random sequences of adds, removes (live, stale, foreign and
//! root ids), reparents (cycles and the root included), masks (self masks, removed mask nodes), textures (double
//! destroys, foreign ones), render textures (created, dropped, borrowed from the pool, destroyed) and renders and
//! readbacks into live, destroyed and foreign targets, z-indices, sortable children, event modes and hit tests
//! (whatever is hit is live and interactive; sortable children stay in z order), filters (bad ones included),
//! alpha masks (ancestors refused), texture caches and advanced blend modes, and embedded frames (prepare, record
//! into a matching pass,
//! trim, with any of the above between them; preparing twice, recording without a prepared frame), each checked
//! against a small model: no panic, each call's `Ok` or error variant as the model says, `Scene::len`, the live
//! render-target count and the pool's hits as the model says, and afterwards a probe sprite still draws.

mod common;

use proptest::prelude::*;
use proptest::strategy::{Strategy, ValueTree};
use stage2d::{
    Color, Error, GraphicsContext, Node, NodeId, PooledRenderTexture, RenderTarget,
    RenderTextureOptions, Renderer, Scene, TargetDesc, Texture,
};
use std::collections::HashMap;

/// Which node an operation names.
#[derive(Clone, Copy, Debug)]
enum N {
    Live(usize),
    Removed(usize),
    Foreign,
    Root,
}

/// Which texture an operation names.
#[derive(Clone, Copy, Debug)]
enum T {
    Live(usize),
    Destroyed(usize),
    Foreign,
}

/// Which target a render or readback goes to.
#[derive(Clone, Copy, Debug)]
enum Tg {
    Rt(usize),
    Pooled(usize),
    Foreign,
}

#[derive(Clone, Debug)]
enum Op {
    AddSprite(N, T),
    AddShape(N),
    AddContainer(N),
    /// A tiling sprite (turned tiles) or a nine-slice sprite of a texture.
    AddTiling(N, T),
    AddNineSlice(N, T),
    /// A mesh of a texture: a plane (0), a rope (1), a perspective plane (2), or a plane whose positions are then
    /// made NaN in place (3).
    AddMesh(N, T, u8),
    Remove(N),
    Reparent(N, N),
    SetMask(N, N),
    ClearMask(N),
    CreateTexture,
    DestroyTexture(T),
    CreateRt(u8, bool),
    DropRt(usize),
    DestroyRtTexture(usize),
    Acquire(u8),
    DropPooled(usize),
    Render(N, Tg),
    ReadPixels(Tg),
    /// `Renderer::prepare` for the host's pass.
    Prepare,
    /// `Renderer::record` into the host's pass (which matches what is prepared), submitted.
    Record,
    Trim,
    /// `Scene::set_z_index`.
    SetZ(N, i8),
    /// `Scene::set_sortable_children`.
    Sortable(N, bool),
    /// `Scene::set_event_mode` (0 none, 1 passive, 2 static, 3 dynamic).
    EventMode(N, u8),
    /// `Scene::hit_test` and `hit_test_all` at a point of the 16x16 target (or outside it).
    HitTest(i8, i8),
    /// `Scene::set_filters` with filters of kind `k` (0 none, 1 a blur, 2 a glow, 3 a colour matrix and an
    /// alpha, 4 a blur that is not a number, 5 a displacement mapped by the node itself, 6 a disabled one).
    SetFilters(N, u8),
    /// `Scene::set_alpha_mask` (red channel, inverse or not).
    SetAlphaMask(N, N, bool),
    /// `Scene::set_cache_as_texture` on or off.
    Cache(N, bool),
    /// A blend mode through `Scene::get_mut`: normal, max, or an advanced one.
    SetBlend(N, u8),
    /// A mesh node's geometry changed in place (a few vertices, texture coordinates, or all of it), or its culling.
    EditMesh(N, u8),
    /// A text: the built-in font (0), the MSDF bitmap font (1), the same at an absurd size (2) or letter spacing
    /// (3). Nothing without the `text` feature.
    AddText(N, u8),
    /// Changes the shared text style: size 3, 6 or NaN, trimmed or not, or an outline and a shadow.
    Restyle(u8),
    /// A particle container of a texture: a few particles (0), one of them not finite (1), all properties
    /// dynamic (2), with a bounds area (3).
    AddParticles(N, T, u8),
    /// A particle container changed: positions moved in the slice (0), one tinted through `particle_mut` (1),
    /// particles added (2), cleared (3), sorted (4), `update()` (5).
    EditParticles(N, u8),
    /// `Scene::child_transforms_mut`: a node's children moved at once (as a slice when they are one), then their
    /// positions read back.
    BulkMove(N, i8),
    /// A render layer added under a node.
    AddLayer(N),
    /// `Scene::attach_to_layer(layer, node)`.
    Attach(N, N),
    /// `Scene::detach_from_layer`.
    Detach(N),
    /// The GPU device is lost (destroyed, as a driver reset loses it), calls answer `DeviceLost`, and
    /// `Renderer::recover` goes on on a new device: every handle stays valid, the prepared frame is gone, render
    /// targets say their contents were lost.
    LoseDevice,
}

fn node() -> impl Strategy<Value = N> {
    prop_oneof![
        6 => any::<usize>().prop_map(N::Live),
        2 => any::<usize>().prop_map(N::Removed),
        1 => Just(N::Foreign),
        1 => Just(N::Root),
    ]
}

fn tex() -> impl Strategy<Value = T> {
    prop_oneof![
        4 => any::<usize>().prop_map(T::Live),
        1 => any::<usize>().prop_map(T::Destroyed),
        1 => Just(T::Foreign),
    ]
}

fn target() -> impl Strategy<Value = Tg> {
    prop_oneof![
        3 => any::<usize>().prop_map(Tg::Rt),
        2 => any::<usize>().prop_map(Tg::Pooled),
        1 => Just(Tg::Foreign),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (node(), tex()).prop_map(|(n, t)| Op::AddSprite(n, t)),
        node().prop_map(Op::AddShape),
        node().prop_map(Op::AddContainer),
        (node(), tex()).prop_map(|(n, t)| Op::AddTiling(n, t)),
        (node(), tex()).prop_map(|(n, t)| Op::AddNineSlice(n, t)),
        (node(), tex(), 0u8..7).prop_map(|(n, t, k)| Op::AddMesh(n, t, k)),
        node().prop_map(Op::Remove),
        (node(), node()).prop_map(|(a, b)| Op::Reparent(a, b)),
        (node(), node()).prop_map(|(a, b)| Op::SetMask(a, b)),
        node().prop_map(Op::ClearMask),
        Just(Op::CreateTexture),
        tex().prop_map(Op::DestroyTexture),
        (0u8..4, any::<bool>()).prop_map(|(s, m)| Op::CreateRt(s, m)),
        any::<usize>().prop_map(Op::DropRt),
        any::<usize>().prop_map(Op::DestroyRtTexture),
        (0u8..3).prop_map(Op::Acquire),
        any::<usize>().prop_map(Op::DropPooled),
        (node(), target()).prop_map(|(n, t)| Op::Render(n, t)),
        target().prop_map(Op::ReadPixels),
        Just(Op::Prepare),
        Just(Op::Record),
        Just(Op::Trim),
        (node(), -2i8..3).prop_map(|(n, z)| Op::SetZ(n, z)),
        (node(), any::<bool>()).prop_map(|(n, b)| Op::Sortable(n, b)),
        (node(), 0u8..4).prop_map(|(n, m)| Op::EventMode(n, m)),
        (-4i8..20, -4i8..20).prop_map(|(x, y)| Op::HitTest(x, y)),
        (node(), 0u8..7).prop_map(|(n, k)| Op::SetFilters(n, k)),
        (node(), node(), any::<bool>()).prop_map(|(a, b, i)| Op::SetAlphaMask(a, b, i)),
        (node(), any::<bool>()).prop_map(|(n, on)| Op::Cache(n, on)),
        (node(), 0u8..5).prop_map(|(n, b)| Op::SetBlend(n, b)),
        (node(), 0u8..4).prop_map(|(n, k)| Op::EditMesh(n, k)),
        (node(), 0u8..6).prop_map(|(n, k)| Op::AddText(n, k)),
        (0u8..16).prop_map(Op::Restyle),
        (node(), tex(), 0u8..4).prop_map(|(n, t, k)| Op::AddParticles(n, t, k)),
        (node(), 0u8..6).prop_map(|(n, k)| Op::EditParticles(n, k)),
        (node(), -3i8..4).prop_map(|(n, d)| Op::BulkMove(n, d)),
        node().prop_map(Op::AddLayer),
        (node(), node()).prop_map(|(a, b)| Op::Attach(a, b)),
        node().prop_map(Op::Detach),
        Just(Op::LoseDevice),
    ]
}

/// What a call should return: `Ok` or the error variant.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
enum Want {
    Ok,
    StaleNode,
    ForeignNode,
    StaleTexture,
    ForeignTexture,
    RootNode,
    SelfMask,
    CyclicParent,
    AlreadyPrepared,
    NotTrimmed,
    NotPrepared,
    RenderLayer,
}

fn got<V>(r: &stage2d::Result<V>) -> Want {
    match r {
        Ok(_) => Want::Ok,
        Err(Error::StaleNode(_)) => Want::StaleNode,
        Err(Error::ForeignNode(_)) => Want::ForeignNode,
        Err(Error::StaleTexture(_)) => Want::StaleTexture,
        Err(Error::ForeignTexture(_)) => Want::ForeignTexture,
        Err(Error::RootNode(_)) => Want::RootNode,
        Err(Error::SelfMask(_)) => Want::SelfMask,
        Err(Error::CyclicParent(_)) => Want::CyclicParent,
        Err(Error::AlreadyPrepared) => Want::AlreadyPrepared,
        Err(Error::NotTrimmed) => Want::NotTrimmed,
        Err(Error::NotPrepared) => Want::NotPrepared,
        Err(Error::RenderLayer(_)) => Want::RenderLayer,
        Err(e) => panic!("unexpected error: {e}"),
    }
}

const POOL_SIZES: [(u32, u32); 3] = [(8, 8), (16, 8), (8, 16)];
const RT_SIZES: [(u32, u32); 4] = [(4, 4), (9, 7), (16, 16), (31, 5)];

/// The other scene and renderer, for foreign ids; and the host's pass for embedded frames.
struct Foreign {
    /// A multi-channel distance-field bitmap font of the renderer under test.
    #[cfg(feature = "text")]
    msdf: stage2d::Font,
    /// A style shared by the texts `AddText` 4 and 5 make, changed by `Restyle`.
    #[cfg(feature = "text")]
    hud: stage2d::SharedTextStyle,
    /// A full font, a fallback of those texts (Arabic and Hebrew, which the built-in font lacks).
    #[cfg(feature = "text")]
    dejavu: stage2d::Font,
    node: NodeId,
    texture: Texture,
    target: RenderTarget,
    /// The host's colour target (of the renderer under test).
    host: RenderTarget,
}

const HOST: (u32, u32) = (16, 16);

/// The target the host's pass draws into.
fn host_desc() -> TargetDesc {
    TargetDesc::new(wgpu::TextureFormat::Rgba8Unorm, HOST.0, HOST.1)
        .with_depth_stencil(wgpu::TextureFormat::Depth24PlusStencil8)
}

/// Begins the host's pass, records the prepared frame into it and submits it.
fn host_record(r: &Renderer, f: &Foreign) -> stage2d::Result<()> {
    let (d, q) = (r.device(), r.queue());
    common::host_pass(d, q, &f.host, 1, Color::BLACK, |pass| {
        r.record(pass, &host_desc())
    })
}

/// The model: live nodes with their parents, removed ids, textures, targets and the pool.
struct Model {
    parent: HashMap<NodeId, Option<NodeId>>,
    live: Vec<NodeId>,
    removed: Vec<NodeId>,
    textures: Vec<Texture>,
    destroyed: Vec<Texture>,
    /// Render targets and whether their texture was destroyed.
    rts: Vec<(RenderTarget, bool)>,
    pooled: Vec<(PooledRenderTexture, u8)>,
    /// The pool's free textures in its order: size index, and whether its handle still needs renewing (returned
    /// since the last frame began: not lent while a frame is prepared).
    pool: Vec<(u8, bool)>,
    /// Whether a frame is prepared (recorded or not) and not yet trimmed.
    prepared: bool,
    /// Whether the prepared frame was recorded (a prepare then says trim is missing).
    recorded: bool,
    /// Calls seen while a frame was prepared: textures destroyed, pooled textures acquired or returned, passes
    /// recorded, and second prepares (so the run can check that the embedded frame was exercised).
    in_flight: [u32; 4],
    /// Render targets the renderer held when the case began.
    base_targets: u64,
    /// Each masked node's mask node (`Scene::mask` must agree after every operation).
    masks: HashMap<NodeId, NodeId>,
    /// Render layers, and each attached node's layer (`Scene::layer_of` must agree after every operation).
    layer_nodes: std::collections::HashSet<NodeId>,
    layers: HashMap<NodeId, NodeId>,
}

impl Model {
    /// Whether `a` is an ancestor of `b` in the model's tree.
    fn is_ancestor(&self, a: NodeId, b: NodeId) -> bool {
        let mut at = self.parent.get(&b).copied().flatten();
        while let Some(p) = at {
            if p == a {
                return true;
            }
            at = self.parent.get(&p).copied().flatten();
        }
        false
    }

    fn pick(&self, scene: &Scene, f: &Foreign, n: N) -> Option<(NodeId, Want)> {
        Some(match n {
            N::Live(i) => (*self.live.get(i % self.live.len().max(1))?, Want::Ok),
            N::Removed(i) => (
                *self.removed.get(i % self.removed.len().max(1))?,
                Want::StaleNode,
            ),
            N::Foreign => (f.node, Want::ForeignNode),
            N::Root => (scene.root(), Want::Ok),
        })
    }

    fn texture(&self, f: &Foreign, t: T) -> Option<(Texture, Want)> {
        Some(match t {
            T::Live(i) => (
                *self.textures.get(i % self.textures.len().max(1))?,
                Want::Ok,
            ),
            T::Destroyed(i) => (
                *self.destroyed.get(i % self.destroyed.len().max(1))?,
                Want::StaleTexture,
            ),
            T::Foreign => (f.texture, Want::ForeignTexture),
        })
    }

    fn target<'a>(&'a self, f: &'a Foreign, t: Tg) -> Option<(&'a RenderTarget, Want)> {
        Some(match t {
            Tg::Rt(i) => {
                let (rt, dead) = self.rts.get(i % self.rts.len().max(1))?;
                (rt, if *dead { Want::StaleTexture } else { Want::Ok })
            }
            Tg::Pooled(i) => (&*self.pooled.get(i % self.pooled.len().max(1))?.0, Want::Ok),
            Tg::Foreign => (&f.target, Want::ForeignTexture),
        })
    }

    /// Whether `a` is `b` or one of its ancestors.
    fn is_ancestor_or_self(&self, a: NodeId, mut b: NodeId) -> bool {
        loop {
            if a == b {
                return true;
            }
            match self.parent.get(&b).copied().flatten() {
                Some(p) => b = p,
                None => return false,
            }
        }
    }

    fn remove_subtree(&mut self, root: NodeId, scene_root: NodeId) {
        let doomed: Vec<NodeId> = self
            .live
            .iter()
            .copied()
            .filter(|&n| n != root && self.is_ancestor_or_self(root, n))
            .collect();
        for n in doomed
            .into_iter()
            .chain((root != scene_root).then_some(root))
        {
            self.masks.remove(&n);
            self.layers.remove(&n);
            self.layers.retain(|_, l| *l != n);
            self.layer_nodes.remove(&n);
            self.parent.remove(&n);
            self.live.retain(|&l| l != n);
            self.removed.push(n);
        }
    }

    fn render_targets(&self) -> u64 {
        self.base_targets
            + self.rts.len() as u64
            + self.pooled.len() as u64
            + self.pool.len() as u64
    }

    /// A frame began: pooled textures returned meanwhile got new handles.
    /// What beginning another frame is answered with while one is prepared: trim is missing after a record.
    fn in_flight_error(&self) -> Want {
        match self.recorded {
            true => Want::NotTrimmed,
            false => Want::AlreadyPrepared,
        }
    }

    fn frame_began(&mut self) {
        for (_, stale) in &mut self.pool {
            *stale = false;
        }
    }
}

fn add(model: &mut Model, scene: &mut Scene, f: &Foreign, n: N, node: Node) {
    let Some((p, want)) = model.pick(scene, f, n) else {
        return;
    };
    let r = scene.add(p, node);
    assert_eq!(got(&r), want, "add under {n:?}");
    if let Ok(id) = r {
        model.parent.insert(id, Some(p));
        model.live.push(id);
    }
}

/// Both checks of a pair in order: the first failure wins.
fn first(a: Want, b: Want) -> Want {
    if a != Want::Ok {
        a
    } else {
        b
    }
}

fn apply(r: &mut Renderer, scene: &mut Scene, model: &mut Model, f: &Foreign, op: &Op) {
    let root = scene.root();
    if model.prepared {
        let kind = match op {
            Op::DestroyTexture(_) | Op::DestroyRtTexture(_) => Some(0),
            Op::Acquire(_) | Op::DropPooled(_) => Some(1),
            Op::Record => Some(2),
            Op::Prepare => Some(3),
            _ => None,
        };
        if let Some(k) = kind {
            model.in_flight[k] += 1;
        }
    }
    match *op {
        Op::AddSprite(n, t) => {
            // A sprite may show any texture, dead or foreign: drawing skips what it cannot show.
            let tex = model.texture(f, t).map_or(r.white_texture(), |t| t.0);
            add(model, scene, f, n, Node::sprite(tex).sized(4.0, 4.0));
        }
        Op::AddShape(n) => {
            let mut g = GraphicsContext::new();
            g.circle(3.0, 3.0, 3.0).fill(Color::GREEN);
            // PixiJS's further builders under a saved, rotated and scaled transform.
            g.save()
                .translate(2.0, 2.0)
                .rotate(0.5)
                .scale(0.5, 0.25)
                .fillet_rect(0.0, 0.0, 4.0, 4.0, -1.0)
                .round_poly(1.0, 1.0, 2.0, 5, 0.5, 0.0)
                .fill(stage2d::FillGradient::linear(
                    stage2d::glam::Vec2::ZERO,
                    stage2d::glam::Vec2::ONE,
                    &[
                        (0.0, Color::BLUE),
                        (0.5, Color::RED),
                        (f32::NAN, Color::GREEN),
                    ],
                ))
                .restore()
                .chamfer_rect(0.0, 0.0, 2.0, 2.0, 0.5)
                .stroke(stage2d::StrokeStyle::new(0.5, Color::RED));
            g.move_to(0.0, 5.0)
                .line_to(5.0, 0.0)
                .stroke(stage2d::StrokeStyle::pixel_line(Color::WHITE));
            g.svg_path("M0 0 l3 3 a2 1 30 1 0 -3 0 q1 -2 2 0 t1 0 z")
                .unwrap()
                .fill(Color::GREEN);
            // An SVG document (a group's transform, an even-odd path, a gradient and opacity), a repeating pattern,
            // a radial gradient stroke and a repeating global gradient.
            #[cfg(feature = "svg")]
            g.svg(
                r##"<svg xmlns="http://www.w3.org/2000/svg" width="6" height="6"><defs><radialGradient id="r">
                <stop offset="0" stop-color="#fff"/><stop offset="1" stop-color="#00f"/></radialGradient></defs>
                <g transform="rotate(10) scale(0.5)" opacity="0.7"><path d="M0 0h8v8H0zM2 2h4v4H2z"
                fill-rule="evenodd" fill="url(#r)" stroke="red"/></g></svg>"##,
            )
            .unwrap();
            let mut ring = stage2d::StrokeStyle::new(1.0, Color::WHITE);
            ring.gradient = Some(stage2d::FillGradient::radial(
                stage2d::glam::Vec2::splat(0.5),
                0.1,
                stage2d::glam::Vec2::splat(0.6),
                0.5,
                &[(0.0, Color::RED), (1.0, Color::BLUE)],
            ));
            g.rect(0.0, 0.0, 5.0, 5.0)
                .fill(
                    stage2d::FillPattern::new(r.white_texture())
                        .with_matrix(stage2d::glam::Affine2::from_angle(0.3)),
                )
                .stroke(ring);
            g.circle(2.0, 2.0, 2.0).fill(
                stage2d::FillGradient::linear(
                    stage2d::glam::Vec2::ZERO,
                    stage2d::glam::Vec2::X,
                    &[(0.0, Color::RED), (1.0, Color::GREEN)],
                )
                .in_space(stage2d::TextureSpace::Global)
                .repeating(),
            );
            add(model, scene, f, n, Node::graphics(g));
        }
        Op::AddContainer(n) => add(model, scene, f, n, Node::container()),
        Op::AddTiling(n, t) => {
            let tex = model.texture(f, t).map_or(r.white_texture(), |t| t.0);
            let mut ts = stage2d::TilingSprite::new(tex, 6.0, 5.0);
            ts.tile_rotation = 0.7;
            ts.tile_scale = glam::Vec2::new(0.5, 2.0);
            add(model, scene, f, n, Node::tiling(ts));
        }
        Op::AddNineSlice(n, t) => {
            let tex = model.texture(f, t).map_or(r.white_texture(), |t| t.0);
            let mut ns = stage2d::NineSliceSprite::new(tex, [1.0, 1.0, 2.0, 1.0]);
            ns.size = glam::Vec2::new(7.0, 2.0);
            add(model, scene, f, n, Node::nine_slice(ns));
        }
        Op::AddMesh(n, t, k) => {
            let tex = model.texture(f, t).map_or(r.white_texture(), |t| t.0);
            let v = glam::Vec2::new;
            let mut g = match k {
                1 => {
                    stage2d::MeshGeometry::rope(&[v(0.0, 0.0), v(4.0, 3.0), v(9.0, 1.0)], 3.0, 0.5)
                }
                2 => stage2d::MeshGeometry::perspective(
                    [v(2.0, 0.0), v(6.0, 0.0), v(8.0, 8.0), v(0.0, 8.0)],
                    4,
                    4,
                ),
                // Drawn on its own: more than 200 vertices.
                4 => stage2d::MeshGeometry::plane(9.0, 7.0, 16, 16),
                // Per-instance data (the default shader draws one).
                6 => stage2d::MeshGeometry::plane(7.0, 5.0, 3, 3).and_then(|g| {
                    g.with_instance_attribute(2, stage2d::wgpu::VertexFormat::Float32, vec![0; 12])
                }),
                _ => stage2d::MeshGeometry::plane(7.0, 5.0, 3, 3),
            }
            .unwrap();
            if k == 3 {
                g.update_positions(|p| p[1].x = f32::NAN);
            }
            let mut mesh = stage2d::Mesh::new(g, tex);
            if k == 5 {
                // Culling: drawn on its own, the plane's triangles all facing front.
                mesh = mesh.with_culling(stage2d::CullMode::Back, true);
            }
            add(model, scene, f, n, Node::mesh_of(mesh));
        }
        Op::Remove(n) => {
            let Some((id, want)) = model.pick(scene, f, n) else {
                return;
            };
            assert_eq!(got(&scene.remove(id)), want, "{op:?}");
            if want == Want::Ok {
                model.remove_subtree(id, root);
            }
        }
        Op::Reparent(a, b) => {
            let (Some((id, wa)), Some((p, wb))) =
                (model.pick(scene, f, a), model.pick(scene, f, b))
            else {
                return;
            };
            let want = match first(wa, wb) {
                Want::Ok if id == root => Want::RootNode,
                Want::Ok if model.is_ancestor_or_self(id, p) => Want::CyclicParent,
                w => w,
            };
            assert_eq!(got(&scene.set_parent(id, p, 0)), want, "{op:?}");
            if want == Want::Ok {
                model.parent.insert(id, Some(p));
            }
        }
        Op::SetMask(a, b) => {
            let (Some((t, wa)), Some((m, wb))) = (model.pick(scene, f, a), model.pick(scene, f, b))
            else {
                return;
            };
            let want = match first(wa, wb) {
                Want::Ok if t == m => Want::SelfMask,
                w => w,
            };
            assert_eq!(got(&scene.set_mask(t, m, false)), want, "{op:?}");
            if want == Want::Ok {
                model.masks.insert(t, m);
            }
        }
        Op::SetFilters(n, k) => {
            let Some((id, want)) = model.pick(scene, f, n) else {
                return;
            };
            let filters = match k {
                0 => vec![],
                1 => vec![stage2d::Filter::blur(2.0)],
                2 => vec![stage2d::Filter::glow(Default::default())],
                3 => vec![
                    stage2d::Filter::color_matrix(Default::default()),
                    stage2d::Filter::alpha(0.5),
                ],
                4 => vec![stage2d::Filter::blur(f32::NAN)],
                5 => vec![stage2d::Filter::displacement(id, 4.0)],
                _ => vec![stage2d::Filter::noise(0.5, 0.2).with_enabled(false)],
            };
            assert_eq!(got(&scene.set_filters(id, filters)), want, "{op:?}");
        }
        Op::SetAlphaMask(a, b, inverse) => {
            let (Some((t, wa)), Some((m, wb))) = (model.pick(scene, f, a), model.pick(scene, f, b))
            else {
                return;
            };
            let want = match first(wa, wb) {
                Want::Ok if t == m || model.is_ancestor(m, t) => Want::SelfMask,
                w => w,
            };
            let channel = stage2d::MaskChannel::Red;
            assert_eq!(
                got(&scene.set_alpha_mask(t, m, channel, inverse)),
                want,
                "{op:?}"
            );
            if want == Want::Ok {
                model.masks.insert(t, m);
            }
        }
        Op::Cache(n, on) => {
            let Some((id, want)) = model.pick(scene, f, n) else {
                return;
            };
            let cache = on.then(stage2d::CacheAsTexture::default);
            assert_eq!(got(&scene.set_cache_as_texture(id, cache)), want, "{op:?}");
        }
        #[cfg(not(feature = "text"))]
        Op::AddText(n, k) => {
            let _ = (n, k);
        }
        #[cfg(not(feature = "text"))]
        Op::Restyle(k) => {
            let _ = k;
        }
        #[cfg(feature = "text")]
        Op::Restyle(k) => f.hud.update(|s| match k {
            0 => s.layout.size = 3.0,
            1 => s.layout.size = 6.0,
            2 => s.layout.size = f32::NAN,
            3 => s.layout.trim = !s.layout.trim,
            _ => {
                // Each join: a miter (PixiJS's default, at a limit of 1, 10 or NaN), a bevel, a round one.
                let join = [
                    stage2d::LineJoin::Miter,
                    stage2d::LineJoin::Bevel,
                    stage2d::LineJoin::Round,
                ][k as usize % 3];
                let limit = [1.0, 10.0, f32::NAN][k as usize / 3 % 3];
                s.stroke = Some(
                    stage2d::TextStroke::new(stage2d::Color::BLACK, 1.0 + k as f32 % 4.0)
                        .with_join(join)
                        .with_miter_limit(limit),
                );
                s.shadow = Some(stage2d::TextShadow {
                    distance: 1.0,
                    ..Default::default()
                });
            }
        }),
        #[cfg(feature = "text")]
        Op::AddText(n, k) => {
            let text = match k {
                0 => stage2d::Text::new("Ab\nc", &stage2d::Font::builtin(), 4.0),
                1 => stage2d::Text::new("MXA", &f.msdf, 9.0).anchored(0.5, 0.5),
                2 => stage2d::Text::new("M", &f.msdf, 1e30),
                // Shaped: right-to-left runs and a fallback font, in the shared style.
                4 => stage2d::Text::new("a سلام שלום", &stage2d::Font::builtin(), 4.0)
                    .with_fallbacks(std::slice::from_ref(&f.dejavu))
                    .with_shared_style(&f.hud),
                // Rich: a run of its own size, colour, beveled outline and shadow, an unknown tag, in the shared
                // style.
                5 => stage2d::Text::rich("<b>fi</b>\u{301} <i>x", &stage2d::Font::builtin(), 4.0)
                    .with_tag_style(
                        "b",
                        stage2d::TagStyle::new()
                            .size(6.0)
                            .color(stage2d::Color::hex(0xff0000))
                            .stroke(
                                stage2d::TextStroke::new(stage2d::Color::BLACK, 2.0)
                                    .with_join(stage2d::LineJoin::Bevel),
                            )
                            .shadow(stage2d::TextShadow {
                                distance: 1.0,
                                ..Default::default()
                            }),
                    )
                    .with_shared_style(&f.hud),
                _ => {
                    let mut t = stage2d::Text::new("AB", &f.msdf, 8.0);
                    t.set_letter_spacing(1e9);
                    t
                }
            };
            // At the origin, small: clear of the final probe's (14, 14).
            add(model, scene, f, n, Node::text(text));
        }
        Op::EditMesh(n, k) => {
            let Some((id, _)) = model.pick(scene, f, n) else {
                return;
            };
            let Some(m) = scene.get_mut(id).and_then(|p| p.mesh_mut()) else {
                return;
            };
            match k {
                0 => m.geometry_mut().update_positions(|p| {
                    if let Some(p) = p.first_mut() {
                        p.x += 1.0;
                    }
                }),
                1 => m
                    .geometry_mut()
                    .update_uvs(|u| u.iter_mut().for_each(|u| u.y *= 0.5)),
                2 => {
                    let points = [glam::Vec2::ZERO, glam::Vec2::new(6.0, 2.0)];
                    let _ = m.geometry_mut().set_rope(&points, 2.0, 0.0);
                }
                _ => {
                    m.cull = match m.cull {
                        stage2d::CullMode::None => stage2d::CullMode::Front,
                        _ => stage2d::CullMode::None,
                    }
                }
            }
        }
        Op::AddParticles(n, t, k) => {
            let tex = model.texture(f, t).map_or(r.white_texture(), |t| t.0);
            let mut pc = stage2d::ParticleContainer::new(tex);
            for i in 0..4 {
                let mut p = stage2d::Particle::new(i as f32, (i % 2) as f32)
                    .rotated(i as f32 * 0.3)
                    .with_alpha(0.75)
                    .tinted(Color::BLUE);
                p.scale = glam::Vec2::splat(3.0 / tex.size()[0].max(1.0));
                if k == 1 && i == 2 {
                    p.position.y = f32::NAN;
                }
                pc.add(p).unwrap();
            }
            if k == 2 {
                pc.set_dynamic(stage2d::ParticleProperties::ALL);
            }
            if k == 3 {
                pc.bounds_area = pc.compute_bounds();
            }
            add(model, scene, f, n, Node::particles(pc));
        }
        Op::EditParticles(n, k) => {
            let Some((id, _)) = model.pick(scene, f, n) else {
                return;
            };
            let Some(pc) = scene.get_mut(id).and_then(|p| p.as_particles_mut()) else {
                return;
            };
            match k {
                0 => pc
                    .particles_mut()
                    .position
                    .iter_mut()
                    .for_each(|p| p.x += 0.5),
                1 => {
                    if let Some(mut p) = pc.particle_mut(0) {
                        p.tint = 0x00ff00;
                    }
                }
                2 => pc
                    .extend((0..3).map(|i| stage2d::Particle::new(i as f32, 3.0).scaled(0.1)))
                    .unwrap(),
                3 => pc.clear(),
                4 => pc.sort_by(|a, b| b.position.x.total_cmp(&a.position.x)),
                _ => pc.update(),
            }
        }
        Op::AddLayer(n) => {
            let before = model.live.len();
            add(model, scene, f, n, Node::render_layer());
            if model.live.len() > before {
                model.layer_nodes.insert(*model.live.last().unwrap());
            }
        }
        Op::Attach(a, b) => {
            let (Some((layer, wa)), Some((node, wb))) =
                (model.pick(scene, f, a), model.pick(scene, f, b))
            else {
                return;
            };
            let want = match first(wa, wb) {
                Want::Ok if !model.layer_nodes.contains(&layer) => Want::RenderLayer,
                Want::Ok if node == root => Want::RootNode,
                Want::Ok if node == layer || model.is_ancestor(node, layer) => Want::RenderLayer,
                Want::Ok if model.layers.contains_key(&node) => Want::RenderLayer,
                w => w,
            };
            assert_eq!(got(&scene.attach_to_layer(layer, node)), want, "{op:?}");
            if want == Want::Ok {
                model.layers.insert(node, layer);
            }
        }
        Op::Detach(n) => {
            let Some((id, want)) = model.pick(scene, f, n) else {
                return;
            };
            let r = scene.detach_from_layer(id);
            assert_eq!(got(&r), want, "{op:?}");
            if want == Want::Ok {
                assert_eq!(r.unwrap(), model.layers.remove(&id).is_some(), "{op:?}");
            }
        }
        Op::SetBlend(n, b) => {
            let Some((id, _)) = model.pick(scene, f, n) else {
                return;
            };
            if let Some(p) = scene.get_mut(id) {
                p.blend_mode = [
                    stage2d::BlendMode::Normal,
                    stage2d::BlendMode::Max,
                    stage2d::BlendMode::Overlay,
                    stage2d::BlendMode::Difference,
                    stage2d::BlendMode::Hue,
                ][b as usize % 5];
            }
        }
        Op::ClearMask(n) => {
            let Some((t, want)) = model.pick(scene, f, n) else {
                return;
            };
            assert_eq!(got(&scene.clear_mask(t)), want, "{op:?}");
            if want == Want::Ok {
                model.masks.remove(&t);
            }
        }
        Op::CreateTexture => {
            model
                .textures
                .push(common::solid(r, 3, 2, [0, 0, 255, 255]));
        }
        Op::DestroyTexture(t) => {
            let Some((tex, want)) = model.texture(f, t) else {
                return;
            };
            assert_eq!(got(&r.destroy_texture(tex)), want, "{op:?}");
            if want == Want::Ok {
                model.textures.retain(|&x| x != tex);
                model.destroyed.push(tex);
            }
        }
        Op::CreateRt(s, msaa) => {
            let (w, h) = RT_SIZES[s as usize];
            let o = RenderTextureOptions::new(w, h).with_msaa(msaa);
            model.rts.push((r.create_render_texture(o).unwrap(), false));
        }
        Op::DropRt(i) => {
            if !model.rts.is_empty() {
                let i = i % model.rts.len();
                model.rts.remove(i);
            }
        }
        Op::DestroyRtTexture(i) => {
            let n = model.rts.len().max(1);
            if let Some((rt, dead)) = model.rts.get_mut(i % n) {
                let want = if *dead { Want::StaleTexture } else { Want::Ok };
                assert_eq!(got(&r.destroy_texture(rt.texture())), want, "{op:?}");
                *dead = true;
            }
        }
        Op::Acquire(s) => {
            let (w, h) = POOL_SIZES[s as usize];
            let hits = r.pool_hits();
            let t = r
                .acquire_render_texture(RenderTextureOptions::new(w, h))
                .unwrap();
            let in_flight = model.prepared;
            let lent = model
                .pool
                .iter()
                .position(|&(size, stale)| size == s && !(stale && in_flight));
            assert_eq!(r.pool_hits() - hits, u64::from(lent.is_some()), "{op:?}");
            if let Some(i) = lent {
                model.pool.swap_remove(i);
            }
            model.pooled.push((t, s));
        }
        Op::DropPooled(i) => {
            if !model.pooled.is_empty() {
                let (_, s) = model.pooled.remove(i % model.pooled.len());
                model.pool.push((s, true));
            }
        }
        Op::Render(n, t) => {
            let (Some((id, wn)), Some((target, wt))) =
                (model.pick(scene, f, n), model.target(f, t))
            else {
                return;
            };
            let res = r.render_node(scene, id, target, Some(Color::BLACK));
            // The node is checked first, then no frame may be prepared, then the frame begins and the target
            // is checked.
            let want = match wn {
                Want::Ok if model.prepared => model.in_flight_error(),
                w => first(w, wt),
            };
            assert_eq!(got(&res), want, "{op:?}");
            if wn == Want::Ok && !model.prepared {
                model.frame_began();
            }
        }
        Op::ReadPixels(t) => {
            let Some((target, want)) = model.target(f, t) else {
                return;
            };
            let res = r.read_pixels(target);
            assert_eq!(got(&res), want, "{op:?}");
            if let Ok(img) = res {
                assert_eq!(img.dimensions(), (target.width(), target.height()));
            }
        }
        Op::Prepare => {
            let want = if model.prepared {
                model.in_flight_error()
            } else {
                Want::Ok
            };
            assert_eq!(got(&r.prepare(scene, &host_desc())), want, "{op:?}");
            if want == Want::Ok {
                model.frame_began();
                model.prepared = true;
            }
        }
        Op::Record => {
            let want = if model.prepared {
                Want::Ok
            } else {
                Want::NotPrepared
            };
            assert_eq!(got(&host_record(r, f)), want, "{op:?}");
            model.recorded |= want == Want::Ok;
        }
        Op::Trim => {
            r.trim();
            model.prepared = false;
            model.recorded = false;
        }
        Op::LoseDevice => {
            r.device().destroy();
            for _ in 0..4 {
                if r.is_device_lost() {
                    break;
                }
                let _ = r.wait_idle();
            }
            assert!(r.is_device_lost(), "{op:?}");
            let lost = |e: stage2d::Result<()>| matches!(e, Err(Error::DeviceLost(_)));
            assert!(lost(r.read_pixels(&f.host).map(|_| ())), "{op:?}");
            assert!(lost(r.prepare(scene, &host_desc())), "{op:?}");
            assert!(lost(host_record(r, f)), "{op:?}");
            r.recover().unwrap();
            // The prepared frame went with the device; every handle is valid on the new one.
            model.prepared = false;
            model.recorded = false;
            for (rt, destroyed) in &model.rts {
                assert!(*destroyed || rt.contents_lost(), "{op:?}");
            }
        }
        Op::SetZ(n, z) => {
            let Some((id, want)) = model.pick(scene, f, n) else {
                return;
            };
            let before = scene.z_index(id);
            assert_eq!(got(&scene.set_z_index(id, z.into())), want, "{op:?}");
            // A changed z-index turns on sorting for the parent (PixiJS v8's `depthOfChildModified`).
            if let (Some(old), Some(parent)) = (before, scene.parent(id)) {
                if old != i32::from(z) {
                    assert!(scene.sortable_children(parent), "{op:?}");
                }
            }
        }
        Op::BulkMove(n, d) => {
            let Some((id, want)) = model.pick(scene, f, n) else {
                return;
            };
            let d = f32::from(d);
            use stage2d::glam::Vec2;
            let before: Vec<Vec2> = scene
                .children(id)
                .iter()
                .map(|&c| scene.transform(c).unwrap().position)
                .collect();
            let res = scene.child_transforms_mut(id).map(|mut ts| {
                assert_eq!(ts.len(), before.len(), "{op:?}");
                match ts.as_mut_slice() {
                    Some(slice) => slice.iter_mut().for_each(|t| t.position.x += d),
                    None => ts.for_each(|_, t| t.position.x += d),
                }
            });
            assert_eq!(got(&res), want, "{op:?}");
            let after: Vec<Vec2> = scene
                .children(id)
                .iter()
                .map(|&c| scene.transform(c).unwrap().position)
                .collect();
            if want == Want::Ok {
                let bits = |v: &[Vec2]| -> Vec<[u32; 2]> {
                    v.iter().map(|p| p.to_array().map(f32::to_bits)).collect()
                };
                let moved: Vec<Vec2> = before.iter().map(|p| *p + Vec2::new(d, 0.0)).collect();
                assert_eq!(
                    bits(&after),
                    bits(&moved),
                    "{op:?}: each child moved once, in draw order"
                );
            }
        }
        Op::Sortable(n, on) => {
            let Some((id, want)) = model.pick(scene, f, n) else {
                return;
            };
            assert_eq!(got(&scene.set_sortable_children(id, on)), want, "{op:?}");
        }
        Op::EventMode(n, m) => {
            let Some((id, want)) = model.pick(scene, f, n) else {
                return;
            };
            let mode = [
                stage2d::EventMode::None,
                stage2d::EventMode::Passive,
                stage2d::EventMode::Static,
                stage2d::EventMode::Dynamic,
            ][m as usize];
            assert_eq!(got(&scene.set_event_mode(id, mode)), want, "{op:?}");
        }
        Op::HitTest(x, y) => {
            let p = glam::Vec2::new(x.into(), y.into());
            let all = scene.hit_test_all(p);
            let top = scene.hit_test(p);
            // Whatever is hit is live and interactive, and the topmost hit heads the stack.
            for id in top.iter().chain(&all) {
                assert!(model.live.contains(id) || *id == root, "{op:?}: {id:?}");
                assert!(scene.event_mode(*id).unwrap().is_interactive(), "{op:?}");
            }
            assert_eq!(
                all.first().copied(),
                top,
                "{op:?}: the topmost hit heads the stack"
            );
        }
    }
    // Sortable containers keep their children in z-index order.
    for &n in model.live.iter().chain([&root]) {
        if scene.sortable_children(n) {
            let z: Vec<i32> = scene
                .children(n)
                .iter()
                .map(|c| scene.z_index(*c).unwrap())
                .collect();
            assert!(z.is_sorted(), "after {op:?}: {z:?}");
        }
    }
    assert_eq!(scene.len(), model.live.len() + 1, "after {op:?}");
    assert_eq!(
        r.stats().live.render_targets,
        model.render_targets(),
        "after {op:?}"
    );
}

/// Frames that let idle pooled textures and attachments of the last case go.
fn settle(r: &mut Renderer) {
    let scene = Scene::new();
    let t = r.create_render_target(4, 4).unwrap();
    for _ in 0..64 {
        r.render(&scene, &t, None).unwrap();
    }
    drop(t);
    // The next frame frees the dropped target's slot.
    let one = r.create_render_target(1, 1).unwrap();
    r.render(&scene, &one, None).unwrap();
}

/// Runs one case; returns [`Model::in_flight`].
fn run_case(r: &mut Renderer, f: &Foreign, ops: &[Op]) -> [u32; 4] {
    settle(r);
    assert_eq!(r.pooled_render_textures(), 0);
    let mut scene = Scene::new();
    let mut model = Model {
        parent: HashMap::from([(scene.root(), None)]),
        live: Vec::new(),
        removed: Vec::new(),
        textures: Vec::new(),
        destroyed: Vec::new(),
        rts: Vec::new(),
        pooled: Vec::new(),
        pool: Vec::new(),
        prepared: false,
        recorded: false,
        in_flight: [0; 4],
        base_targets: r.stats().live.render_targets,
        masks: HashMap::new(),
        layer_nodes: Default::default(),
        layers: HashMap::new(),
    };
    for op in ops {
        apply(r, &mut scene, &mut model, f, op);
        // Masks follow their targets: set, cleared, gone with a removed node (and not inherited by a slot's
        // next node).
        for &n in model.live.iter().chain([&scene.root()]) {
            let want = model.masks.get(&n).copied();
            assert_eq!(
                scene.mask(n).map(|m| m.node),
                want,
                "mask of {n:?} after {op:?}"
            );
        }
        for &n in &model.removed {
            assert_eq!(scene.mask(n), None, "a removed node has no mask");
            assert_eq!(scene.layer_of(n), None, "a removed node is on no layer");
        }
        // Attachments follow attach, detach and removal (of the node or its layer).
        for &n in model.live.iter().chain([&scene.root()]) {
            assert_eq!(
                scene.layer_of(n),
                model.layers.get(&n).copied(),
                "layer of {n:?} after {op:?}"
            );
        }
        // A node is a mask (and not drawn as content) exactly while a live node uses it as one.
        for &n in model.live.iter().chain([&scene.root()]) {
            let used = model.masks.values().any(|&m| m == n);
            assert_eq!(scene.is_mask(n), used, "is_mask({n:?}) after {op:?}");
        }
    }
    // A frame left prepared ends here (its pass, if recorded, was submitted).
    r.trim();
    // The probe: a red sprite on top of the root, unmasked, still draws after all that.
    let root = scene.root();
    scene.clear_mask(root).unwrap();
    // ... with the root's own effects off (a blur would soften the probe).
    scene.set_filters(root, vec![]).unwrap();
    scene.set_cache_as_texture(root, None).unwrap();
    scene.get_mut(root).unwrap().blend_mode = stage2d::BlendMode::Normal;
    let red = common::solid(r, 2, 2, [255, 0, 0, 255]);
    scene
        .add(root, Node::sprite(red).at(4.0, 4.0).sized(8.0, 8.0))
        .unwrap();
    let target = r.create_render_target(16, 16).unwrap();
    r.render(&scene, &target, Some(Color::BLACK)).unwrap();
    let img = r.read_pixels(&target).unwrap();
    common::probe(&img, 8, 8, [255, 0, 0, 255], 0);
    common::probe(&img, 14, 14, [0, 0, 0, 255], 0);
    r.destroy_texture(red).unwrap();
    for t in model.textures.drain(..) {
        r.destroy_texture(t).unwrap();
    }
    model.in_flight
}

/// The foreign handles (of another renderer and scene) and the host target for `r`.
fn foreign(r: &mut Renderer) -> Foreign {
    let mut other = common::renderer();
    let mut other_scene = Scene::new();
    Foreign {
        #[cfg(feature = "text")]
        msdf: r
            .load_bitmap_font(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/pixijs/fonts/msdf/Roboto-Regular.fnt"
            ))
            .unwrap(),
        #[cfg(feature = "text")]
        hud: stage2d::SharedTextStyle::new(stage2d::TextStyle::new(5.0)),
        #[cfg(feature = "text")]
        dejavu: stage2d::Font::load(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/DejaVuSans.ttf"
        ))
        .unwrap(),
        node: other_scene
            .add(other_scene.root(), Node::container())
            .unwrap(),
        texture: common::solid(&mut other, 1, 1, [9, 9, 9, 255]),
        target: other.create_render_target(4, 4).unwrap(),
        host: r
            .create_render_texture(RenderTextureOptions::new(HOST.0, HOST.1))
            .unwrap(),
    }
}

#[test]
fn random_scene_and_renderer_operations_match_the_model() {
    let mut r = common::renderer();
    let f = foreign(&mut r);
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut in_flight = [0; 4];
    let mut losses = 0;
    for case in 0..48 {
        let ops = proptest::collection::vec(op(), 1..48)
            .new_tree(&mut runner)
            .unwrap()
            .current();
        losses += ops.iter().filter(|o| matches!(o, Op::LoseDevice)).count();
        let result =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_case(&mut r, &f, &ops)));
        match result {
            Ok(seen) => {
                for (total, n) in in_flight.iter_mut().zip(seen) {
                    *total += n;
                }
            }
            Err(e) => {
                eprintln!("case {case} failed; its operations: {ops:#?}");
                std::panic::resume_unwind(e);
            }
        }
    }
    // Destroys, pool traffic, records and second prepares all happened while a frame was prepared.
    eprintln!(
        "calls while a frame was prepared: {in_flight:?}; devices lost and recovered: {losses}"
    );
    assert!(losses > 0);
    assert!(in_flight.iter().all(|&n| n > 0), "{in_flight:?}");
}

/// A sequence the property test once failed on: a filtered node prepared for an embedded frame under a root cached
/// as a texture and masked (a filter output of zero width was made).
#[test]
fn a_found_sequence_prepares_without_error() {
    let mut r = common::renderer();
    let f = foreign(&mut r);
    let ops = vec![
        Op::AddShape(N::Foreign),
        Op::Sortable(N::Live(4316714946561763296usize), true),
        Op::Cache(N::Removed(1185229986248192273usize), true),
        Op::SetBlend(N::Live(9071054601568988838usize), 1),
        Op::AddShape(N::Removed(3491932790638690536usize)),
        Op::SetZ(N::Live(14807735633791728780usize), -1),
        Op::Reparent(N::Foreign, N::Root),
        Op::AddSprite(N::Foreign, T::Destroyed(5357016482746598635usize)),
        Op::Record,
        Op::DropRt(15898481387233857416),
        Op::EditMesh(N::Live(10693672584152690818usize), 3),
        Op::CreateTexture,
        Op::AddContainer(N::Root),
        Op::HitTest(7, 7),
        Op::SetZ(N::Live(10963470830320866228usize), 0),
        Op::SetZ(N::Live(8957225821053570627usize), 2),
        Op::AddTiling(
            N::Live(7003819937536454629usize),
            T::Live(7554316041025260402usize),
        ),
        Op::CreateRt(0, true),
        Op::CreateRt(2, true),
        Op::DestroyRtTexture(8785367487218751844),
        Op::Cache(N::Live(934820268499667290usize), true),
        Op::AddSprite(
            N::Live(11318834741648157842usize),
            T::Live(10040831906635759388usize),
        ),
        Op::Cache(N::Root, true),
        Op::DropRt(17846072145343220274),
        Op::SetBlend(N::Foreign, 4),
        Op::SetAlphaMask(
            N::Removed(9472188563689294302usize),
            N::Live(16918813119336864699usize),
            false,
        ),
        Op::AddMesh(N::Root, T::Live(7536168927521818524usize), 0),
        Op::SetFilters(N::Removed(6772016527980994372usize), 5),
        Op::SetMask(N::Root, N::Live(7986927830413362478usize)),
        Op::Sortable(N::Live(767525748200347277usize), false),
        Op::AddTiling(
            N::Removed(1755706238727246961usize),
            T::Live(8116226733533028065usize),
        ),
        Op::AddTiling(
            N::Live(4110347651606844956usize),
            T::Live(15926978050444261213usize),
        ),
        Op::SetFilters(N::Live(10390025750830182861usize), 2),
        Op::CreateRt(1, true),
        Op::SetFilters(N::Live(9217018834556036996usize), 6),
        Op::Render(
            N::Live(665464963233296205usize),
            Tg::Rt(15426925379715227223usize),
        ),
        Op::Trim,
        Op::DestroyTexture(T::Live(17327245936467094112usize)),
        Op::Remove(N::Live(16940188259734116713usize)),
        Op::AddTiling(N::Live(10107501757720817562usize), T::Foreign),
        Op::Prepare,
        Op::AddSprite(N::Live(6479283257491687364usize), T::Foreign),
    ];
    run_case(&mut r, &f, &ops);
}
