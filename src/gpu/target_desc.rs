//! [`TargetDesc`]: what stage2d needs to know about the render pass it records into when it is embedded in
//! another program's frame, and the checks that keep a mismatched pass from reaching wgpu's validation.

use crate::{Error, Result};

/// The colour target (and stencil attachment) of a render pass that a caller begins, as
/// [`Renderer::prepare`](crate::Renderer::prepare) and [`Renderer::record`](crate::Renderer::record) need it:
/// pipelines are built for its colour format, sample count and stencil format, and the scene is laid out over
/// its size.
///
/// ```no_run
/// # fn f(view: &wgpu::TextureView) {
/// // From the view the pass draws into (format, size and sample count are read from its texture):
/// let desc = stage2d::TargetDesc::from_view(view);
/// // Or spelled out:
/// let desc = stage2d::TargetDesc::new(wgpu::TextureFormat::Bgra8Unorm, 800, 600)
///     .with_sample_count(4)
///     .with_depth_stencil(wgpu::TextureFormat::Stencil8);
/// # }
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct TargetDesc {
    /// The colour attachment's format (`Rgba8Unorm` or `Bgra8Unorm` for PixiJS's colours; `*Srgb` formats work
    /// but blend in linear space).
    pub format: wgpu::TextureFormat,
    /// The colour attachment's size in physical pixels.
    pub width: u32,
    /// See [`TargetDesc::width`].
    pub height: u32,
    /// The colour attachment's sample count: 1, or 4 for a multisampled attachment that the caller resolves.
    pub sample_count: u32,
    /// The pass's depth-stencil attachment, if it has one: `Depth24PlusStencil8` or `Stencil8`, cleared to stencil
    /// 0 when the pass begins. Scenes with stencil masks need one.
    pub depth_stencil: Option<wgpu::TextureFormat>,
    /// Physical pixels per logical pixel: the scene is laid out in logical pixels (HiDPI windows).
    pub scale_factor: f32,
}

impl TargetDesc {
    /// A single-sampled target of `format` and `width x height` pixels, without a stencil attachment.
    pub fn new(format: wgpu::TextureFormat, width: u32, height: u32) -> TargetDesc {
        TargetDesc {
            format,
            width,
            height,
            sample_count: 1,
            depth_stencil: None,
            scale_factor: 1.0,
        }
    }

    /// The target that `view` is a view of: its texture's format, size and sample count. For a view in another
    /// format than its texture's (an sRGB view of a surface) or of one mip level, use [`TargetDesc::new`] with the
    /// view's own format and size.
    pub fn from_view(view: &wgpu::TextureView) -> TargetDesc {
        let t = view.texture();
        TargetDesc {
            sample_count: t.sample_count(),
            ..TargetDesc::new(t.format(), t.width(), t.height())
        }
    }

    /// With a colour attachment of `samples` samples (1 or 4).
    pub fn with_sample_count(mut self, samples: u32) -> TargetDesc {
        self.sample_count = samples;
        self
    }

    /// With a depth-stencil attachment of `format` (`Depth24PlusStencil8` or `Stencil8`).
    pub fn with_depth_stencil(mut self, format: wgpu::TextureFormat) -> TargetDesc {
        self.depth_stencil = Some(format);
        self
    }

    /// With a scene laid out in logical pixels, `scale_factor` physical pixels each.
    pub fn with_scale_factor(mut self, scale_factor: f32) -> TargetDesc {
        self.scale_factor = scale_factor;
        self
    }

    /// The size in physical pixels.
    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// Checks what stage2d can draw into, against the device's features: a blendable colour format that is not
    /// depth or stencil, 1 or 4 samples (supported for that format), a known stencil format, a non-zero size, a
    /// finite positive scale factor.
    pub(crate) fn validate(&self, device: &wgpu::Device) -> Result<()> {
        let bad = |why: String| Err(Error::UnsupportedTarget(why));
        let features = self.format.guaranteed_format_features(device.features());
        let usable = features
            .allowed_usages
            .contains(wgpu::TextureUsages::RENDER_ATTACHMENT)
            && features
                .flags
                .contains(wgpu::TextureFormatFeatureFlags::BLENDABLE);
        if self.format.is_depth_stencil_format() || !usable {
            return bad(format!(
                "{:?} is not a blendable colour format; draw into Rgba8Unorm or Bgra8Unorm",
                self.format
            ));
        }
        if self.width == 0 || self.height == 0 {
            return bad(format!(
                "the target is {}x{}; both sides must be at least 1 pixel",
                self.width, self.height
            ));
        }
        match self.sample_count {
            1 => {}
            4 if features.flags.sample_count_supported(4) => {}
            n => {
                return bad(format!(
                    "{n} samples are not drawn into {:?} here; use 1, or 4 where the format supports it",
                    self.format
                ))
            }
        }
        if let Some(ds) = self.depth_stencil {
            if !matches!(
                ds,
                wgpu::TextureFormat::Depth24PlusStencil8 | wgpu::TextureFormat::Stencil8
            ) {
                return bad(format!(
                    "depth-stencil format {ds:?}: stage2d's masks use Depth24PlusStencil8 or Stencil8"
                ));
            }
        }
        if !(self.scale_factor.is_finite() && self.scale_factor > 0.0) {
            return bad(format!(
                "scale factor {} must be finite and above 0",
                self.scale_factor
            ));
        }
        Ok(())
    }

    /// Checks that a pass about to be recorded matches the target its frame was prepared for.
    pub(crate) fn check_matches(&self, prepared: &TargetDesc) -> Result<()> {
        let (p, g) = (prepared, self);
        let differs = if p.format != g.format {
            Some(format!("colour format {:?}, not {:?}", g.format, p.format))
        } else if p.sample_count != g.sample_count {
            Some(format!(
                "{} samples, not {}",
                g.sample_count, p.sample_count
            ))
        } else if p.depth_stencil != g.depth_stencil {
            Some(format!(
                "depth-stencil attachment {:?}, not {:?}",
                g.depth_stencil, p.depth_stencil
            ))
        } else if p.size() != g.size() {
            Some(format!(
                "size {}x{}, not {}x{}",
                g.width, g.height, p.width, p.height
            ))
        } else {
            None
        };
        match differs {
            Some(what) => Err(Error::PassMismatch(what)),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pass_that_differs_in_any_attachment_property_is_refused() {
        let p = TargetDesc::new(wgpu::TextureFormat::Rgba8Unorm, 64, 32);
        assert!(p.check_matches(&p).is_ok());
        let others = [
            TargetDesc::new(wgpu::TextureFormat::Bgra8Unorm, 64, 32),
            p.with_sample_count(4),
            p.with_depth_stencil(wgpu::TextureFormat::Stencil8),
            TargetDesc::new(wgpu::TextureFormat::Rgba8Unorm, 64, 33),
        ];
        for o in others {
            let e = o.check_matches(&p).unwrap_err();
            assert!(matches!(e, Error::PassMismatch(_)), "{o:?}: {e}");
        }
        // The scale factor only changes the layout, not what the pass can take.
        assert!(p.with_scale_factor(2.0).check_matches(&p).is_ok());
    }
}
