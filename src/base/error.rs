//! The crate's one error type.
//!
//! Set-up and loading return [`Result`]. Inside a frame, bad input (a NaN transform, a node whose texture was
//! dropped) is skipped with a `log::warn!` and counted in [`crate::FrameStats::nodes_skipped`]; the rest draws.

use std::path::PathBuf;

/// Everything that can go wrong in stage2d, each variant saying what to do about it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No GPU adapter matched. Install a driver (on Linux without a GPU: `apt-get install mesa-vulkan-drivers`)
    /// or loosen `WGPU_BACKEND` / `WGPU_ADAPTER_NAME`.
    #[error("no GPU adapter found ({0}); install a Vulkan or GL driver (e.g. mesa-vulkan-drivers) or check WGPU_BACKEND / WGPU_ADAPTER_NAME")]
    NoAdapter(String),
    /// The adapter cannot run the batch shader: it needs two storage buffers in the vertex stage (every desktop
    /// Vulkan, Metal, DX12 and GLES 3.1+ driver has them; WebGL2 does not).
    #[error("adapter {0} lacks storage buffers in the vertex stage; pick another with WGPU_ADAPTER_NAME / WGPU_BACKEND")]
    UnsupportedAdapter(String),
    /// A device given to [`Renderer::from_device`](crate::Renderer::from_device) lacks what the batch shader needs.
    #[error("device {0}")]
    UnsupportedDevice(String),
    /// The GPU device was lost (a driver reset, a GPU removed or switched, or [`wgpu::Device::destroy`]): nothing
    /// more is drawn on it. [`Renderer::recover`](crate::Renderer::recover) (or
    /// [`Renderer::recover_with_device`](crate::Renderer::recover_with_device) when embedded) goes on on a new
    /// device with the same handles; `app::run` does so by itself.
    #[error("the GPU device was lost: {0}")]
    DeviceLost(String),
    /// wgpu reported a validation or out-of-memory error while stage2d created its objects.
    #[error("wgpu error while {0}")]
    Wgpu(String),
    /// A [`TargetDesc`](crate::TargetDesc) that stage2d cannot draw into.
    #[error("cannot draw into this target: {0}")]
    UnsupportedTarget(String),
    /// [`Renderer::record`](crate::Renderer::record) was given a pass that differs from the target the frame was
    /// prepared for.
    #[error("the pass differs from the prepared target: it has {0}; prepare for the target the pass draws into")]
    PassMismatch(String),
    /// [`Renderer::record`](crate::Renderer::record) without a prepared frame.
    #[error("no frame is prepared; call Renderer::prepare before Renderer::record (after trim, prepare again)")]
    NotPrepared,
    /// A frame was prepared while the previous one was neither recorded nor trimmed.
    #[error("a prepared frame was never recorded; call Renderer::record for it, or Renderer::trim to drop it, before preparing another")]
    AlreadyPrepared,
    /// A frame was prepared while the previous one, recorded, was not trimmed.
    #[error("the previous frame was recorded but not trimmed; call Renderer::trim once the work that records it is submitted, then prepare the next")]
    NotTrimmed,
    /// The scene uses stencil masks and the caller's pass has no stencil attachment.
    #[error("the scene has stencil masks but the target has no stencil attachment; begin the pass with a Depth24PlusStencil8 or Stencil8 attachment cleared to 0 and say so with TargetDesc::with_depth_stencil")]
    StencilRequired,
    /// One frame's quad or vertex stream outgrew the device's storage-buffer binding limit; the frame was not
    /// drawn. Split the scene over several render targets or draw fewer elements.
    #[error("the frame's {stream} stream needs {bytes} bytes, over the device's limit of {max}")]
    FrameTooLarge {
        /// Which stream ("quad", "vertex", "index").
        stream: &'static str,
        /// Bytes it needed.
        bytes: u64,
        /// Largest binding the device allows.
        max: u64,
    },
    /// A graphics context holds more path segments than [`MAX_PATH_SEGMENTS`](crate::MAX_PATH_SEGMENTS) (see
    /// [`GraphicsContext::check_complexity`](crate::GraphicsContext::check_complexity)); drawn as it is, the
    /// shapes past the limit are skipped.
    #[error("the graphics context has {segments} path segments, over the limit of {max}; split it over several contexts, simplify its paths, or draw large curves as fewer arcs")]
    PathTooComplex {
        /// Segments counted (counting stops a little past the limit).
        segments: u64,
        /// The limit, [`MAX_PATH_SEGMENTS`](crate::MAX_PATH_SEGMENTS).
        max: u32,
    },
    /// A fill whose outlines cross themselves so often that triangulating it would take more than about a second
    /// (see [`MAX_FILL_WORK`](crate::MAX_FILL_WORK)); a frame skips such a fill with a warning.
    #[error("a fill of {segments} segments crosses itself too often to triangulate in bounded time; simplify or split the path, or draw it as several fills")]
    FillTooComplex {
        /// Segments of the fill's outlines and holes.
        segments: u64,
    },
    /// The adapter refused to create a device.
    #[error("could not create a GPU device: {0}")]
    RequestDevice(#[from] wgpu::RequestDeviceError),
    /// An image file could not be read or decoded.
    #[error("could not load image {path}: {source}")]
    ImageFile {
        /// The file that failed.
        path: PathBuf,
        /// Why it failed.
        source: image::ImageError,
    },
    /// Image bytes could not be decoded (corrupt or unsupported format).
    #[error("could not decode image: {0}")]
    ImageDecode(#[from] image::ImageError),
    /// A texture with a zero width or height was requested.
    #[error("texture size {width}x{height} is empty; both sides must be at least 1 pixel")]
    ZeroSizeTexture {
        /// Requested width in pixels.
        width: u32,
        /// Requested height in pixels.
        height: u32,
    },
    /// A texture is larger than the device allows.
    #[error("texture size {width}x{height} exceeds the device limit of {max} pixels per side; downscale it or split it into tiles")]
    TextureTooLarge {
        /// Requested width in pixels.
        width: u32,
        /// Requested height in pixels.
        height: u32,
        /// The device's `max_texture_dimension_2d` (at most [`crate::MAX_TEXTURE_SIDE`]).
        max: u32,
    },
    /// Raw pixel data does not match the stated size.
    #[error("pixel data has {got} bytes, expected {expected} for the stated size")]
    PixelDataSize {
        /// Bytes given.
        got: usize,
        /// Bytes expected (`width * height * 4`).
        expected: usize,
    },
    /// A frame that cannot be used: a packed frame ([`Texture::packed_frame`](crate::Texture::packed_frame))
    /// whose stored pixels do not fit its untrimmed size, or an animation without frames or on a node that cannot
    /// show them. The message says which.
    #[error("{0}")]
    InvalidFrame(String),
    /// A spritesheet has no frame or animation of that name. `closest` holds up to three of its names most like
    /// the one asked for (by edit distance), for a typo.
    #[error("spritesheet {sheet}: no {what} named {name:?}{}", did_you_mean(.closest))]
    NotInSheet {
        /// The sheet's file (or name, for bytes).
        sheet: PathBuf,
        /// `"frame"` or `"animation"`.
        what: &'static str,
        /// The name asked for.
        name: String,
        /// The sheet's names most like it, closest first (empty when none is close).
        closest: Vec<String>,
    },
    /// A spritesheet's JSON is malformed, or describes frames its image does not have. `field` is the JSON path
    /// of the offending value, such as `frames["hero.png"].frame.w`.
    #[error("spritesheet {sheet}: {field}: {reason}")]
    Spritesheet {
        /// The sheet's file (or name, for bytes).
        sheet: PathBuf,
        /// Where in the JSON.
        field: String,
        /// What is wrong there.
        reason: String,
    },
    /// A frame rectangle lies outside its texture.
    #[error(
        "frame {x},{y} {width}x{height} lies outside its {texture_width}x{texture_height} texture"
    )]
    FrameOutOfBounds {
        /// Frame left edge in pixels.
        x: u32,
        /// Frame top edge in pixels.
        y: u32,
        /// Frame width in pixels.
        width: u32,
        /// Frame height in pixels.
        height: u32,
        /// Width of the texture.
        texture_width: u32,
        /// Height of the texture.
        texture_height: u32,
    },
    /// A texture handle refers to a texture that was destroyed.
    #[error("texture handle {0:?} is stale (the texture was destroyed)")]
    StaleTexture(crate::TextureId),
    /// A node handle refers to a node that was removed.
    #[error("node handle {0:?} is stale (the node was removed)")]
    StaleNode(crate::NodeId),
    /// A node handle was made by another [`Scene`](crate::Scene).
    #[error(
        "node handle {0:?} belongs to another scene; use the handles this scene's add returned"
    )]
    ForeignNode(crate::NodeId),
    /// A texture or render-target handle was made by another [`Renderer`](crate::Renderer).
    #[error("texture handle {0:?} belongs to another renderer; create or load the texture with this renderer")]
    ForeignTexture(crate::TextureId),
    /// The root, or a node that is not in the tree (detached: added with
    /// [`Scene::add_detached`](crate::Scene::add_detached), a mask for example), cannot be moved by
    /// [`Scene::set_parent`](crate::Scene::set_parent) (the root) or reordered among siblings.
    #[error("node {0:?} is the root or is not in the tree (detached); it has no siblings to be reordered among, and the root cannot be moved")]
    RootNode(crate::NodeId),
    /// A node cannot mask itself, nor be alpha-masked by its own ancestor.
    #[error("node {0:?} cannot mask itself or its own descendants; mask with another node")]
    SelfMask(crate::NodeId),
    /// A node cannot become a child of itself or of its own descendant.
    #[error("node {0:?} cannot be moved under itself or its own descendant")]
    CyclicParent(crate::NodeId),
    /// A registry of ids is full: a pipeline-key field, or a scene's or renderer's handle slots.
    #[error("too many {kind}: at most {max} fit")]
    TooManyIds {
        /// What ran out ("shaders", "geometry layouts").
        kind: &'static str,
        /// How many fit.
        max: u32,
    },
    /// A file of an asset bundle could not be loaded (see [`Assets::errors`](crate::Assets::errors)).
    #[error("could not load {path}: {reason}")]
    AssetLoad {
        /// The file that failed.
        path: PathBuf,
        /// Why it failed.
        reason: String,
    },
    /// A hit area with a non-finite number, a negative size or radius, or a polygon of fewer than three points.
    #[error("invalid hit area: {0}")]
    InvalidHitArea(&'static str),
    /// A transform given to a call (such as
    /// [`Renderer::render_node_transformed`](crate::Renderer::render_node_transformed)) with a non-finite entry.
    #[error("invalid transform: {0}")]
    InvalidTransform(&'static str),
    /// A pointer input with a non-finite position or wheel delta.
    #[error("invalid pointer input: {0}")]
    InvalidPointer(&'static str),
    /// Reading pixels back from the GPU failed.
    #[error("reading pixels back from the GPU failed: {0}")]
    Readback(String),
    /// Font bytes could not be parsed, or state more work than any real font (a corrupt or hostile file).
    #[error("could not read font: {0}")]
    Font(String),
    /// A font file could not be read or parsed.
    #[error("could not load font {path}: {reason}")]
    FontFile {
        /// The file that failed.
        path: PathBuf,
        /// Why it failed.
        reason: String,
    },
    /// A window could not be opened or driven (no display, no surface support).
    #[error("window: {0}")]
    Window(String),
    /// A render texture's own texture was drawn into it (it cannot be sampled while it is the target).
    #[error("texture {0:?} is drawn into itself: a render texture cannot be sampled while it is the target")]
    FeedbackLoop(crate::TextureId),
    /// A render-texture format stage2d does not draw into.
    #[error("render textures must be Rgba8Unorm or Bgra8Unorm, not {0:?}")]
    UnsupportedFormat(wgpu::TextureFormat),
    /// The pipeline-cache file could not be written.
    #[error("could not save the pipeline cache: {0}")]
    PipelineCache(String),
    /// Writing a PNG failed.
    #[error("could not write {path}: {source}")]
    SaveImage {
        /// The file that failed.
        path: PathBuf,
        /// Why it failed.
        source: image::ImageError,
    },
    /// A custom filter shader that does not parse, validate or bind what a filter may bind; `line` counts in
    /// the source given (the prelude is not counted).
    #[error("filter shader{}: {message}", .line.map(|l| format!(" line {l}")).unwrap_or_default())]
    FilterShader {
        /// The line of the source given, when the error has one.
        line: Option<u32>,
        /// naga's message (or what binding is wrong).
        message: String,
    },
    /// A filter or filter setting that cannot be used.
    #[error("invalid filter: {0}")]
    InvalidFilter(String),
    /// A custom mesh shader that does not parse, validate, bind what a mesh shader may, or read the attributes
    /// of the layout it is made for: naga's message, with the line in the shader's own source where known.
    #[error("mesh shader{}: {message}", .line.map(|l| format!(" line {l}")).unwrap_or_default())]
    MeshShader {
        /// The line in the source given (1-based), where the error points at one.
        line: Option<u32>,
        /// What is wrong.
        message: String,
    },
    /// A mesh geometry that cannot be drawn (see [`MeshGeometry::new`](crate::MeshGeometry::new)).
    #[error("invalid mesh: {0}")]
    InvalidMesh(String),
    /// SVG path data that does not parse (see [`GraphicsContext::svg_path`](crate::GraphicsContext::svg_path)).
    #[error("invalid SVG path data: {0}")]
    InvalidSvgPath(String),
    /// An SVG document that does not parse, is larger than `MAX_SVG_BYTES` or nested
    /// deeper than its limit, or is compressed (see `GraphicsContext::svg`).
    #[error("invalid SVG document: {0}")]
    InvalidSvg(String),
    /// More particles asked of one [`ParticleContainer`](crate::ParticleContainer) than it may hold
    /// ([`MAX_PARTICLES`](crate::MAX_PARTICLES)); nothing was allocated or added.
    #[error("{asked} particles asked for; a particle container holds at most {max}")]
    TooManyParticles {
        /// How many the container would have held.
        asked: usize,
        /// The most it may.
        max: usize,
    },
    /// A frame that cannot join a particle container (see
    /// [`ParticleContainer::add_frame`](crate::ParticleContainer::add_frame)).
    #[error("particle frame: {0}")]
    ParticleFrame(String),
    /// A bundle id of another [`Assets`](crate::Assets) cache (its number).
    #[error("bundle {0} is of another Assets cache")]
    ForeignBundle(u32),
    /// A bundle id whose record was forgotten ([`Assets::forget_bundle`](crate::Assets::forget_bundle)).
    #[error("bundle {0} was forgotten")]
    UnknownBundle(u32),
    /// A render-layer attachment that cannot be made (see [`Scene::attach_to_layer`](crate::Scene::attach_to_layer)).
    #[error("render layer: {0}")]
    RenderLayer(String),
}

/// `Result` with stage2d's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// `"; did you mean "a" or "b"?"` for a non-empty list, else nothing.
fn did_you_mean(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
    match quoted.split_last() {
        None => String::new(),
        Some((last, [])) => format!("; did you mean {last}?"),
        Some((last, rest)) => format!("; did you mean {} or {last}?", rest.join(", ")),
    }
}
