//! How stroke segments meet: shared by shapes' strokes and text outlines.

/// How stroke segments meet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LineJoin {
    /// Sharp corners, bevelled past the miter limit.
    #[default]
    Miter,
    /// Rounded corners.
    Round,
    /// Cut-off corners.
    Bevel,
}
