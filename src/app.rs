//! The desktop app layer over winit 0.30's `ApplicationHandler`: the user writes a scene and an update function,
//! [`run`] does the rest.
//!
//! It opens a window, creates the wgpu surface (`Bgra8Unorm`/`Rgba8Unorm`, never `*Srgb`: colours are blended as
//! stored), picks the present mode (vsync by default), follows resizes and the scale factor (the scene is laid out
//! in logical pixels and drawn at physical resolution), skips rendering while minimised or occluded, reconfigures
//! on an outdated surface and recreates a lost one, and closes cleanly. A [`Ticker`] gives delta time and FPS;
//! mouse and keyboard events reach the app through [`App::window_event`] and the [`Input`] snapshot, and mouse and
//! touch input, translated to [`PointerInput`] in logical pixels, through [`App::pointer`], ready for an
//! [`Events`](crate::Events) dispatcher; the cursor the app sets with [`AppContext::set_cursor`] is shown.

use crate::{Color, Cursor, Error, PointerInput, Renderer, RendererOptions, Result, Scene};
use glam::Vec2;
use std::sync::Arc;
use std::time::{Duration, Instant};
use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseButton, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::window::{Window, WindowId};

/// How the window opens: `WindowOptions::default()`, then set the fields you need.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct WindowOptions {
    /// Title bar text.
    pub title: String,
    /// Inner width in logical pixels.
    pub width: u32,
    /// Inner height in logical pixels.
    pub height: u32,
    /// Whether the user may resize the window.
    pub resizable: bool,
    /// Wait for vertical blank (`Fifo`); off: `Immediate` or `Mailbox` where supported.
    pub vsync: bool,
    /// Renderer options (MSAA, adapter preference).
    pub renderer: RendererOptions,
    /// Close after this many rendered frames (smoke tests, benchmarks).
    pub max_frames: Option<u64>,
    /// Clear colour of every frame.
    pub clear_color: Color,
}

impl Default for WindowOptions {
    fn default() -> Self {
        WindowOptions {
            title: "stage2d".into(),
            width: 800,
            height: 600,
            resizable: true,
            vsync: true,
            renderer: RendererOptions::default(),
            max_frames: None,
            clear_color: Color::BLACK,
        }
    }
}

impl WindowOptions {
    /// The defaults (800x600 logical pixels, resizable, vsync, black) with `title`.
    pub fn new(title: impl Into<String>) -> WindowOptions {
        WindowOptions {
            title: title.into(),
            ..WindowOptions::default()
        }
    }

    /// Sets the inner size in logical pixels.
    pub fn with_size(mut self, width: u32, height: u32) -> WindowOptions {
        self.width = width;
        self.height = height;
        self
    }

    /// Sets whether the user may resize the window.
    pub fn with_resizable(mut self, resizable: bool) -> WindowOptions {
        self.resizable = resizable;
        self
    }

    /// Sets whether presenting waits for vertical blank.
    pub fn with_vsync(mut self, vsync: bool) -> WindowOptions {
        self.vsync = vsync;
        self
    }

    /// Sets the renderer's options.
    pub fn with_renderer(mut self, renderer: RendererOptions) -> WindowOptions {
        self.renderer = renderer;
        self
    }

    /// Closes the window after `frames` rendered frames.
    pub fn with_max_frames(mut self, frames: u64) -> WindowOptions {
        self.max_frames = Some(frames);
        self
    }

    /// Sets the clear colour of every frame.
    pub fn with_clear_color(mut self, color: Color) -> WindowOptions {
        self.clear_color = color;
        self
    }
}

/// Frame timing: delta time (clamped, like PixiJS's `Ticker.maxFPS` floor) and a smoothed FPS.
#[derive(Clone, Debug)]
pub struct Ticker {
    last: Option<Instant>,
    /// Seconds since the previous tick, at most [`Ticker::MAX_DELTA`].
    pub delta_seconds: f32,
    /// Exponentially smoothed frames per second.
    pub fps: f32,
    /// Unclamped milliseconds of the last frame.
    pub frame_ms: f32,
    /// Ticks so far.
    pub frames: u64,
}

impl Default for Ticker {
    fn default() -> Self {
        Ticker {
            last: None,
            delta_seconds: 0.0,
            fps: 0.0,
            frame_ms: 0.0,
            frames: 0,
        }
    }
}

impl Ticker {
    /// Longest delta handed to the app (a stall, a debugger pause): 100 ms, as in PixiJS.
    pub const MAX_DELTA: f32 = 0.1;

    /// Advances to `now`.
    pub fn tick_at(&mut self, now: Instant) {
        if let Some(last) = self.last {
            let dt = now.saturating_duration_since(last).as_secs_f32();
            self.frame_ms = dt * 1000.0;
            self.delta_seconds = dt.min(Self::MAX_DELTA);
            if dt > 0.0 {
                let instant = 1.0 / dt;
                self.fps = if self.fps == 0.0 {
                    instant
                } else {
                    self.fps * 0.9 + instant * 0.1
                };
            }
        }
        self.last = Some(now);
        self.frames += 1;
    }

    /// Advances to the current time.
    pub fn tick(&mut self) {
        self.tick_at(Instant::now());
    }
}

/// Mouse and keyboard state, in logical pixels.
#[derive(Clone, Debug, Default)]
pub struct Input {
    /// Cursor position in logical pixels.
    pub mouse_position: Vec2,
    /// Left, right and middle buttons held.
    pub mouse_down: [bool; 3],
    /// Keys held.
    pub keys_down: std::collections::HashSet<winit::keyboard::KeyCode>,
}

/// The logical size of a window of `physical` pixels at `scale_factor`.
pub(crate) fn logical_size(physical: (u32, u32), scale_factor: f64) -> Vec2 {
    let s = if scale_factor.is_finite() && scale_factor > 0.0 {
        scale_factor
    } else {
        1.0
    };
    Vec2::new(
        (physical.0 as f64 / s) as f32,
        (physical.1 as f64 / s) as f32,
    )
}

/// The surface size to configure for a window of `physical` pixels, or `None` while it is minimised (zero area)
/// or larger than the device allows (clamped).
pub(crate) fn surface_size(physical: (u32, u32), max_dimension: u32) -> Option<(u32, u32)> {
    if physical.0 == 0 || physical.1 == 0 {
        return None;
    }
    Some((physical.0.min(max_dimension), physical.1.min(max_dimension)))
}

/// What the app sees each frame.
pub struct AppContext<'a> {
    /// The renderer (load textures, read stats).
    pub renderer: &'a mut Renderer,
    /// Frame timing.
    pub ticker: &'a Ticker,
    /// Mouse and keyboard state.
    pub input: &'a Input,
    /// Window size in logical pixels.
    pub size: Vec2,
    /// Physical pixels per logical pixel.
    pub scale_factor: f32,
    exit: &'a mut bool,
    cursor: &'a mut Cursor,
    window: &'a Window,
}

impl AppContext<'_> {
    /// The window: its title (`set_title`), size (`request_inner_size`), fullscreen (`set_fullscreen`), cursor
    /// visibility and the rest of winit's [`Window`] API.
    pub fn window(&self) -> &Window {
        self.window
    }

    /// Closes the window after this frame.
    pub fn exit(&mut self) {
        *self.exit = true;
    }

    /// Shows `cursor` over the window (typically [`Events::cursor`](crate::Events::cursor) after a pointer
    /// input).
    pub fn set_cursor(&mut self, cursor: Cursor) {
        *self.cursor = cursor;
    }
}

/// winit's cursor icon for a [`Cursor`].
pub(crate) fn cursor_icon(c: Cursor) -> winit::window::CursorIcon {
    use winit::window::CursorIcon as W;
    match c {
        Cursor::Default => W::Default,
        Cursor::Pointer => W::Pointer,
        Cursor::Grab => W::Grab,
        Cursor::Grabbing => W::Grabbing,
        Cursor::Text => W::Text,
        Cursor::Move => W::Move,
        Cursor::Crosshair => W::Crosshair,
        Cursor::NotAllowed => W::NotAllowed,
        Cursor::Wait => W::Wait,
        Cursor::Help => W::Help,
        Cursor::EwResize => W::EwResize,
        Cursor::NsResize => W::NsResize,
    }
}

/// The pointer inputs a window event stands for, in logical pixels (`scale`: physical per logical). The mouse
/// is pointer 0 and a touch `id + 1`; a wheel turned by lines moves 40 pixels a line, as browsers do.
pub(crate) fn pointer_inputs(
    event: &WindowEvent,
    mouse: Vec2,
    scale: f64,
    out: &mut Vec<PointerInput>,
) {
    use winit::event::{MouseScrollDelta, TouchPhase};
    let s = if scale.is_finite() && scale > 0.0 {
        scale
    } else {
        1.0
    };
    let logical = |x: f64, y: f64| Vec2::new((x / s) as f32, (y / s) as f32);
    match event {
        WindowEvent::CursorMoved { position, .. } => out.push(PointerInput::Move {
            pointer: 0,
            position: logical(position.x, position.y),
        }),
        WindowEvent::CursorLeft { .. } => out.push(PointerInput::Leave { pointer: 0 }),
        WindowEvent::MouseInput { state, button, .. } => {
            let button = match button {
                MouseButton::Left => 0,
                MouseButton::Middle => 1,
                MouseButton::Right => 2,
                MouseButton::Back => 3,
                MouseButton::Forward => 4,
                MouseButton::Other(n) => n.saturating_add(5),
            };
            out.push(match state {
                ElementState::Pressed => PointerInput::Down {
                    pointer: 0,
                    position: mouse,
                    button,
                },
                ElementState::Released => PointerInput::Up {
                    pointer: 0,
                    position: mouse,
                    button,
                },
            });
        }
        WindowEvent::MouseWheel { delta, .. } => {
            let delta = match delta {
                MouseScrollDelta::LineDelta(x, y) => Vec2::new(-x, -y) * 40.0,
                MouseScrollDelta::PixelDelta(p) => -logical(p.x, p.y),
            };
            out.push(PointerInput::Wheel {
                pointer: 0,
                position: mouse,
                delta,
            });
        }
        WindowEvent::Touch(t) => {
            let pointer = t.id.saturating_add(1);
            let position = logical(t.location.x, t.location.y);
            match t.phase {
                TouchPhase::Started => out.push(PointerInput::Down {
                    pointer,
                    position,
                    button: 0,
                }),
                TouchPhase::Moved => out.push(PointerInput::Move { pointer, position }),
                TouchPhase::Ended => {
                    out.push(PointerInput::Up {
                        pointer,
                        position,
                        button: 0,
                    });
                    out.push(PointerInput::Leave { pointer });
                }
                TouchPhase::Cancelled => out.push(PointerInput::Cancel { pointer }),
            }
        }
        _ => {}
    }
}

/// A desktop application: a scene and the code that changes it.
pub trait App {
    /// Called once the window and renderer exist (load textures here).
    fn init(&mut self, _ctx: &mut AppContext) -> Result<()> {
        Ok(())
    }
    /// Called every frame before drawing.
    fn update(&mut self, ctx: &mut AppContext) -> Result<()>;
    /// The scene to draw.
    fn scene(&self) -> &Scene;
    /// Every window event (mouse, keyboard, resize), after [`Input`] was updated.
    fn window_event(&mut self, _ctx: &mut AppContext, _event: &WindowEvent) {}
    /// Every mouse and touch input in logical pixels (after [`App::window_event`]): hand it to an
    /// [`Events`](crate::Events) dispatcher, then [`AppContext::set_cursor`] to its cursor.
    fn pointer(&mut self, _ctx: &mut AppContext, _input: PointerInput) {}
    /// The window's size in logical pixels changed (a resize, or a move to a display of another scale factor):
    /// lay the scene out again here. [`AppContext::size`] holds the new size too.
    fn resized(&mut self, _ctx: &mut AppContext, _size: Vec2) {}
}

/// How a run ended.
#[derive(Clone, Copy, Debug, Default)]
#[non_exhaustive]
pub struct RunSummary {
    /// Frames presented.
    pub frames_presented: u64,
    /// Frames skipped (minimised, occluded, timed out, or the surface was reconfigured).
    pub frames_skipped: u64,
    /// Surface reconfigurations (resize, outdated, lost).
    pub reconfigurations: u64,
    /// Times the GPU device was lost and the run went on on a new one ([`Renderer::recover_on`]).
    pub device_recoveries: u64,
    /// Wall time of the run.
    pub seconds: f64,
}

struct Gpu {
    /// Kept to recreate a lost surface.
    instance: wgpu::Instance,
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    renderer: Renderer,
}

/// Builds the app once the window and renderer exist.
type Make<A> = Box<dyn FnOnce(&mut AppContext) -> Result<A>>;

struct Runner<A: App> {
    options: WindowOptions,
    /// The app, once made.
    app: Option<A>,
    make: Option<Make<A>>,
    gpu: Option<Gpu>,
    ticker: Ticker,
    input: Input,
    exit: bool,
    error: Option<Error>,
    summary: RunSummary,
    started: Instant,
    /// The cursor the app asked for, and the one the window shows.
    cursor: (Cursor, Cursor),
    pointer_inputs: Vec<PointerInput>,
}

fn win_err(e: impl std::fmt::Display) -> Error {
    Error::Window(e.to_string())
}

impl<A: App> Runner<A> {
    fn create(&mut self, event_loop: &ActiveEventLoop) -> Result<()> {
        let attrs = Window::default_attributes()
            .with_title(self.options.title.clone())
            .with_inner_size(winit::dpi::LogicalSize::new(
                self.options.width,
                self.options.height,
            ))
            .with_resizable(self.options.resizable);
        let window = Arc::new(event_loop.create_window(attrs).map_err(win_err)?);
        let desc = crate::instance_descriptor(wgpu::InstanceDescriptor::new_with_display_handle(
            Box::new(event_loop.owned_display_handle()),
        ));
        let instance = wgpu::Instance::new(desc);
        let surface = instance.create_surface(window.clone()).map_err(win_err)?;
        let adapter = crate::select_adapter(
            &instance,
            Some(&surface),
            self.options.renderer.power_preference,
        )?;
        let renderer = Renderer::from_adapter(&adapter, self.options.renderer.clone())?;
        let size = window.inner_size();
        let mut config = surface
            .get_default_config(&adapter, size.width.max(1), size.height.max(1))
            .ok_or_else(|| Error::Window("the adapter cannot present to this window".into()))?;
        let caps = surface.get_capabilities(&adapter);
        // Colours are blended as stored: prefer a non-sRGB format.
        config.format = caps
            .formats
            .iter()
            .copied()
            .find(|f| {
                matches!(
                    f,
                    wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Rgba8Unorm
                )
            })
            .unwrap_or(config.format.remove_srgb_suffix());
        config.present_mode = choose_present_mode(self.options.vsync, &caps.present_modes);
        config.alpha_mode = if caps.alpha_modes.contains(&wgpu::CompositeAlphaMode::Opaque) {
            wgpu::CompositeAlphaMode::Opaque
        } else {
            caps.alpha_modes[0]
        };
        if let Some((w, h)) = surface_size(
            (size.width, size.height),
            renderer.device().limits().max_texture_dimension_2d,
        ) {
            config.width = w;
            config.height = h;
            surface.configure(renderer.device(), &config);
        }
        let mut gpu = Gpu {
            instance,
            window,
            surface,
            config,
            renderer,
        };
        let mut ctx = context(
            &mut gpu,
            &self.ticker,
            &self.input,
            &mut self.exit,
            &mut self.cursor.0,
        );
        let mut app = match (self.app.take(), self.make.take()) {
            (Some(app), _) => app,
            (None, Some(make)) => make(&mut ctx)?,
            (None, None) => return Err(Error::Window("the app was already made".into())),
        };
        app.init(&mut ctx)?;
        self.app = Some(app);
        gpu.window.request_redraw();
        self.gpu = Some(gpu);
        Ok(())
    }

    fn reconfigure(&mut self, recreate: bool) {
        let Some(gpu) = self.gpu.as_mut() else { return };
        let size = gpu.window.inner_size();
        let max = gpu.renderer.device().limits().max_texture_dimension_2d;
        let Some((w, h)) = surface_size((size.width, size.height), max) else {
            return;
        };
        if recreate {
            match gpu.instance.create_surface(gpu.window.clone()) {
                Ok(s) => gpu.surface = s,
                Err(e) => {
                    log::warn!("could not recreate the lost surface: {e}");
                    return;
                }
            }
        }
        gpu.config.width = w;
        gpu.config.height = h;
        gpu.surface.configure(gpu.renderer.device(), &gpu.config);
        self.summary.reconfigurations += 1;
    }

    /// Goes on on a new device after the last was lost: an adapter that presents to the window, the renderer
    /// recovered on it (see [`Renderer::recover_on`]), the surface made again and configured for it. The window
    /// stays open.
    fn recover_device(&mut self) -> Result<()> {
        let Some(gpu) = self.gpu.as_mut() else {
            return Ok(());
        };
        let power = self.options.renderer.power_preference;
        let adapter = crate::select_adapter(&gpu.instance, Some(&gpu.surface), power)?;
        gpu.renderer.recover_on(&adapter)?;
        self.summary.device_recoveries += 1;
        self.reconfigure(true);
        Ok(())
    }

    fn frame(&mut self) -> Result<()> {
        self.ticker.tick();
        if self
            .gpu
            .as_ref()
            .is_some_and(|g| g.renderer.is_device_lost())
        {
            self.summary.frames_skipped += 1;
            return self.recover_device();
        }
        let (Some(gpu), Some(app)) = (self.gpu.as_mut(), self.app.as_mut()) else {
            return Ok(());
        };
        {
            let mut ctx = context(
                gpu,
                &self.ticker,
                &self.input,
                &mut self.exit,
                &mut self.cursor.0,
            );
            match app.update(&mut ctx) {
                // What the app did on the lost device is its to do again after recovery (next frame).
                Err(Error::DeviceLost(_)) => {}
                other => other?,
            }
        }
        let size = gpu.window.inner_size();
        if surface_size((size.width, size.height), u32::MAX).is_none() {
            self.summary.frames_skipped += 1;
            std::thread::sleep(Duration::from_millis(16));
            return Ok(());
        }
        let acquired = gpu.surface.get_current_texture();
        if !matches!(
            acquired,
            wgpu::CurrentSurfaceTexture::Success(_) | wgpu::CurrentSurfaceTexture::Suboptimal(_)
        ) && gpu.renderer.notice_device_loss()
        {
            // A surface of a lost device: wgpu says to make the device and everything on it again.
            log::warn!("the GPU device was lost; going on on a new one");
            self.summary.frames_skipped += 1;
            drop(acquired);
            return self.recover_device();
        }
        let (texture, suboptimal) = match acquired {
            wgpu::CurrentSurfaceTexture::Success(t) => (t, false),
            wgpu::CurrentSurfaceTexture::Suboptimal(t) => (t, true),
            // As wgpu documents: skip the frame and try again (an occluded window a frame's time later, so a
            // minimised or covered window does not spin).
            wgpu::CurrentSurfaceTexture::Timeout => {
                self.summary.frames_skipped += 1;
                return Ok(());
            }
            wgpu::CurrentSurfaceTexture::Occluded => {
                self.summary.frames_skipped += 1;
                std::thread::sleep(Duration::from_millis(16));
                return Ok(());
            }
            wgpu::CurrentSurfaceTexture::Outdated => {
                self.summary.frames_skipped += 1;
                self.reconfigure(false);
                return Ok(());
            }
            wgpu::CurrentSurfaceTexture::Lost => {
                log::warn!("the window surface was lost; recreating it");
                self.summary.frames_skipped += 1;
                self.reconfigure(true);
                return Ok(());
            }
            wgpu::CurrentSurfaceTexture::Validation => {
                self.summary.frames_skipped += 1;
                return Ok(());
            }
        };
        let view = texture.texture.create_view(&wgpu::TextureViewDescriptor {
            format: Some(gpu.config.format),
            ..Default::default()
        });
        let scale = gpu.window.scale_factor() as f32;
        let drawn = gpu.renderer.render_scaled(
            app.scene(),
            &view,
            gpu.config.format,
            (gpu.config.width, gpu.config.height),
            scale,
            Some(self.options.clear_color),
        );
        if let Err(Error::DeviceLost(why)) = drawn {
            log::warn!("the GPU device was lost ({why}); going on on a new one");
            self.summary.frames_skipped += 1;
            drop(texture);
            return self.recover_device();
        }
        drawn?;
        gpu.window.pre_present_notify();
        gpu.renderer.queue().present(texture);
        self.summary.frames_presented += 1;
        if suboptimal {
            self.reconfigure(false);
        }
        if self
            .options
            .max_frames
            .is_some_and(|m| self.summary.frames_presented >= m)
        {
            self.exit = true;
        }
        Ok(())
    }

    fn track_input(&mut self, event: &WindowEvent) {
        let scale = self.gpu.as_ref().map_or(1.0, |g| g.window.scale_factor());
        match event {
            WindowEvent::CursorMoved { position, .. } => {
                self.input.mouse_position =
                    Vec2::new((position.x / scale) as f32, (position.y / scale) as f32);
            }
            WindowEvent::MouseInput { state, button, .. } => {
                let i = match button {
                    MouseButton::Left => 0,
                    MouseButton::Right => 1,
                    MouseButton::Middle => 2,
                    _ => return,
                };
                self.input.mouse_down[i] = *state == ElementState::Pressed;
            }
            WindowEvent::KeyboardInput { event, .. } => {
                if let winit::keyboard::PhysicalKey::Code(code) = event.physical_key {
                    if event.state == ElementState::Pressed {
                        self.input.keys_down.insert(code);
                    } else {
                        self.input.keys_down.remove(&code);
                    }
                }
            }
            WindowEvent::Focused(false) => {
                self.input.keys_down.clear();
                self.input.mouse_down = [false; 3];
            }
            _ => {}
        }
    }
}

fn context<'a>(
    gpu: &'a mut Gpu,
    ticker: &'a Ticker,
    input: &'a Input,
    exit: &'a mut bool,
    cursor: &'a mut Cursor,
) -> AppContext<'a> {
    let size = gpu.window.inner_size();
    let scale = gpu.window.scale_factor();
    AppContext {
        window: &gpu.window,
        renderer: &mut gpu.renderer,
        ticker,
        input,
        size: logical_size((size.width, size.height), scale),
        scale_factor: scale as f32,
        exit,
        cursor,
    }
}

/// `Fifo` with vsync; otherwise `Immediate`, then `Mailbox`, then `Fifo` (always supported).
pub(crate) fn choose_present_mode(
    vsync: bool,
    supported: &[wgpu::PresentMode],
) -> wgpu::PresentMode {
    if !vsync {
        for m in [wgpu::PresentMode::Immediate, wgpu::PresentMode::Mailbox] {
            if supported.contains(&m) {
                return m;
            }
        }
    }
    wgpu::PresentMode::Fifo
}

impl<A: App> ApplicationHandler for Runner<A> {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.gpu.is_none() {
            if let Err(e) = self.create(event_loop) {
                self.error = Some(e);
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        self.track_input(&event);
        if let (Some(gpu), Some(app)) = (self.gpu.as_mut(), self.app.as_mut()) {
            let scale = gpu.window.scale_factor();
            let mut inputs = std::mem::take(&mut self.pointer_inputs);
            inputs.clear();
            pointer_inputs(&event, self.input.mouse_position, scale, &mut inputs);
            let mut ctx = context(
                gpu,
                &self.ticker,
                &self.input,
                &mut self.exit,
                &mut self.cursor.0,
            );
            app.window_event(&mut ctx, &event);
            for input in inputs.drain(..) {
                app.pointer(&mut ctx, input);
            }
            self.pointer_inputs = inputs;
        }
        match event {
            WindowEvent::CloseRequested => self.exit = true,
            WindowEvent::Resized(_) | WindowEvent::ScaleFactorChanged { .. } => {
                self.reconfigure(false);
                if let (Some(gpu), Some(app)) = (self.gpu.as_mut(), self.app.as_mut()) {
                    let mut ctx = context(
                        gpu,
                        &self.ticker,
                        &self.input,
                        &mut self.exit,
                        &mut self.cursor.0,
                    );
                    let size = ctx.size;
                    app.resized(&mut ctx, size);
                }
            }
            WindowEvent::RedrawRequested => {
                if let Err(e) = self.frame() {
                    self.error = Some(e);
                    self.exit = true;
                }
            }
            _ => {}
        }
        // The cursor the app set, in a pointer handler or an update.
        if let Some(gpu) = &self.gpu {
            if self.cursor.0 != self.cursor.1 {
                self.cursor.1 = self.cursor.0;
                gpu.window.set_cursor(cursor_icon(self.cursor.0));
            }
        }
        if self.exit {
            event_loop.exit();
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        if self.exit {
            event_loop.exit();
        } else if let Some(gpu) = &self.gpu {
            gpu.window.request_redraw();
        }
    }
}

/// Opens a window and runs `app` until the window closes, [`AppContext::exit`] is called or
/// [`WindowOptions::max_frames`] is reached. Returns the app (with its scene) and a summary. Fails with
/// [`Error::Window`] when no window can be opened (no display), so callers can fall back to headless rendering.
pub fn run<A: App>(options: WindowOptions, app: A) -> Result<(A, RunSummary, Option<Renderer>)> {
    run_app(options, Some(app), None)
}

/// Like [`run`], with the app made by `make` once the window and renderer exist, so that its state (textures,
/// the scene) is built there rather than held in `Option`s until [`App::init`]:
///
/// ```no_run
/// use stage2d::app::{run_with, App, AppContext, WindowOptions};
/// use stage2d::{Node, Sampling, Scene};
///
/// struct Game {
///     scene: Scene,
///     bunny: stage2d::NodeId,
/// }
///
/// impl App for Game {
///     fn update(&mut self, ctx: &mut AppContext) -> stage2d::Result<()> {
///         ctx.renderer.stats(); // the renderer, the ticker, input and the window are here
///         self.scene.transform_mut(self.bunny).unwrap().rotation += ctx.ticker.delta_seconds;
///         Ok(())
///     }
///     fn scene(&self) -> &Scene {
///         &self.scene
///     }
/// }
///
/// # fn main() -> stage2d::Result<()> {
/// run_with(WindowOptions::new("bunny").with_size(400, 300), |ctx| {
///     let texture = ctx.renderer.load_texture("assets/bunny0.png", Sampling::NEAREST)?;
///     let mut scene = Scene::new();
///     let bunny = scene.add(scene.root(), Node::sprite(texture).at(200.0, 150.0).anchor(0.5, 0.5))?;
///     Ok(Game { scene, bunny })
/// })?;
/// # Ok(()) }
/// ```
pub fn run_with<A: App + 'static>(
    options: WindowOptions,
    make: impl FnOnce(&mut AppContext) -> Result<A> + 'static,
) -> Result<(A, RunSummary, Option<Renderer>)> {
    run_app(options, None, Some(Box::new(make)))
}

fn run_app<A: App>(
    options: WindowOptions,
    app: Option<A>,
    make: Option<Make<A>>,
) -> Result<(A, RunSummary, Option<Renderer>)> {
    let event_loop = EventLoop::new().map_err(win_err)?;
    event_loop.set_control_flow(winit::event_loop::ControlFlow::Poll);
    let mut runner = Runner {
        options,
        app,
        make,
        gpu: None,
        ticker: Ticker::default(),
        input: Input::default(),
        exit: false,
        error: None,
        summary: RunSummary::default(),
        started: Instant::now(),
        cursor: (Cursor::Default, Cursor::Default),
        pointer_inputs: Vec::new(),
    };
    event_loop.run_app(&mut runner).map_err(win_err)?;
    if let Some(e) = runner.error {
        return Err(e);
    }
    runner.summary.seconds = runner.started.elapsed().as_secs_f64();
    let app = runner
        .app
        .ok_or_else(|| Error::Window("the window never opened".into()))?;
    Ok((app, runner.summary, runner.gpu.map(|g| g.renderer)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_options_build_in_one_expression() {
        const SKY: Color = Color::hex(0x1099bb);
        let o = WindowOptions::new("game")
            .with_size(320, 200)
            .with_resizable(false)
            .with_vsync(false)
            .with_max_frames(3)
            .with_clear_color(SKY)
            .with_renderer(RendererOptions::default().with_msaa(true));
        assert_eq!((o.title.as_str(), o.width, o.height), ("game", 320, 200));
        assert!(!o.resizable && !o.vsync);
        assert_eq!(o.max_frames, Some(3));
        assert_eq!(o.clear_color, Color::rgba8(0x10, 0x99, 0xbb, 255));
        assert!(o.renderer.msaa);
    }

    #[test]
    fn ticker_measures_and_clamps() {
        let mut t = Ticker::default();
        let t0 = Instant::now();
        t.tick_at(t0);
        assert_eq!(t.delta_seconds, 0.0);
        t.tick_at(t0 + Duration::from_millis(20));
        assert!((t.delta_seconds - 0.02).abs() < 1e-4);
        assert!((t.fps - 50.0).abs() < 0.5);
        t.tick_at(t0 + Duration::from_millis(520));
        assert_eq!(t.delta_seconds, Ticker::MAX_DELTA, "a stall is clamped");
        assert!((t.frame_ms - 500.0).abs() < 0.5);
        assert!(
            t.fps < 50.0 && t.fps > 40.0,
            "smoothed, not jumping to 2 fps"
        );
        assert_eq!(t.frames, 3);
    }

    #[test]
    fn resize_and_scale_arithmetic() {
        assert_eq!(logical_size((1600, 1200), 2.0), Vec2::new(800.0, 600.0));
        assert_eq!(logical_size((1000, 750), 1.25), Vec2::new(800.0, 600.0));
        assert_eq!(logical_size((800, 600), f64::NAN), Vec2::new(800.0, 600.0));
        assert_eq!(surface_size((0, 600), 8192), None, "minimised");
        assert_eq!(surface_size((800, 0), 8192), None);
        assert_eq!(surface_size((10000, 600), 8192), Some((8192, 600)));
        assert_eq!(surface_size((800, 600), 8192), Some((800, 600)));
    }

    #[test]
    fn window_events_become_pointer_inputs_in_logical_pixels() {
        use winit::dpi::PhysicalPosition;
        use winit::event::{DeviceId, MouseScrollDelta, Touch, TouchPhase};
        let mut out = Vec::new();
        let moved = WindowEvent::CursorMoved {
            device_id: DeviceId::dummy(),
            position: PhysicalPosition::new(200.0, 100.0),
        };
        pointer_inputs(&moved, Vec2::ZERO, 2.0, &mut out);
        assert_eq!(
            out,
            [PointerInput::Move {
                pointer: 0,
                position: Vec2::new(100.0, 50.0)
            }]
        );
        out.clear();
        let right = WindowEvent::MouseInput {
            device_id: DeviceId::dummy(),
            state: ElementState::Pressed,
            button: MouseButton::Right,
        };
        pointer_inputs(&right, Vec2::new(3.0, 4.0), 2.0, &mut out);
        assert_eq!(
            out,
            [PointerInput::Down {
                pointer: 0,
                position: Vec2::new(3.0, 4.0),
                button: 2
            }]
        );
        out.clear();
        let wheel = WindowEvent::MouseWheel {
            device_id: DeviceId::dummy(),
            delta: MouseScrollDelta::LineDelta(0.0, -1.0),
            phase: TouchPhase::Moved,
        };
        pointer_inputs(&wheel, Vec2::ZERO, f64::NAN, &mut out);
        assert!(
            matches!(out[0], PointerInput::Wheel { delta, .. } if delta == Vec2::new(0.0, 40.0)),
            "{out:?}"
        );
        out.clear();
        let ended = WindowEvent::Touch(Touch {
            device_id: DeviceId::dummy(),
            phase: TouchPhase::Ended,
            location: PhysicalPosition::new(10.0, 10.0),
            force: None,
            id: 7,
        });
        pointer_inputs(&ended, Vec2::ZERO, 1.0, &mut out);
        assert!(matches!(
            out[..],
            [
                PointerInput::Up { pointer: 8, .. },
                PointerInput::Leave { pointer: 8 }
            ]
        ));
    }

    #[test]
    fn present_modes() {
        use wgpu::PresentMode::*;
        assert_eq!(choose_present_mode(true, &[Fifo, Immediate]), Fifo);
        assert_eq!(choose_present_mode(false, &[Fifo, Immediate]), Immediate);
        assert_eq!(choose_present_mode(false, &[Fifo, Mailbox]), Mailbox);
        assert_eq!(choose_present_mode(false, &[Fifo]), Fifo);
    }
}
