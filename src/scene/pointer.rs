//! What a node is to the pointer: its event mode, cursor and hit area (set on the scene, or in the `Node`
//! builder), and the [`Rect`] bounds and hit tests answer with. Plain values: nothing here reads the scene.

use crate::scene::aabb::Aabb;
use crate::{Error, Result};
use glam::Vec2;

/// How a node takes part in hit testing and pointer events (PixiJS's `eventMode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum EventMode {
    /// Neither the node nor anything below it is hit-tested or receives events.
    None,
    /// The default: the node receives no events and is not a hit target, but its interactive children are. Below
    /// an interactive ancestor its content still counts as part of that ancestor (a button's label hits the
    /// button).
    #[default]
    Passive,
    /// The node is hit-tested and receives events.
    Static,
    /// As [`EventMode::Static`], and a pointer that stays still also sees it move in or out from under it
    /// (over, out, enter and leave events from [`Events::tick`](crate::Events::tick)).
    Dynamic,
}

impl EventMode {
    /// Whether a node in this mode can be a hit target (static or dynamic).
    pub fn is_interactive(self) -> bool {
        matches!(self, EventMode::Static | EventMode::Dynamic)
    }
}

/// A mouse cursor shape, shown while a pointer is over a node that sets it (see [`Scene::set_cursor`](crate::Scene::set_cursor)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Cursor {
    /// The platform's arrow.
    #[default]
    Default,
    /// A hand: something to click.
    Pointer,
    /// An open hand: something to drag.
    Grab,
    /// A closed hand: something being dragged.
    Grabbing,
    /// An I-beam over text.
    Text,
    /// Moving something.
    Move,
    /// A crosshair.
    Crosshair,
    /// The action is not allowed.
    NotAllowed,
    /// Busy.
    Wait,
    /// Help.
    Help,
    /// Resizing left and right.
    EwResize,
    /// Resizing up and down.
    NsResize,
}

/// A node's own hit region in its local space, replacing its content's (PixiJS's `hitArea`). Children outside
/// it are not hit either.
#[derive(Clone, Debug, PartialEq)]
pub enum HitArea {
    /// An axis-aligned rectangle.
    Rect {
        /// Top-left corner.
        x: f32,
        /// Top.
        y: f32,
        /// Width (not negative).
        width: f32,
        /// Height (not negative).
        height: f32,
    },
    /// A circle.
    Circle {
        /// Centre.
        center: Vec2,
        /// Radius (not negative).
        radius: f32,
    },
    /// An ellipse with axes along x and y.
    Ellipse {
        /// Centre.
        center: Vec2,
        /// Half-width and half-height (not negative).
        radii: Vec2,
    },
    /// A closed polygon (at least three points), filled by the even-odd rule as PixiJS's `Polygon`.
    Polygon(Vec<Vec2>),
}

impl HitArea {
    /// `Ok` for a usable area; [`Error::InvalidHitArea`] for non-finite numbers, negative sizes or a polygon of
    /// fewer than three points.
    pub fn validate(&self) -> Result<()> {
        let ok = match self {
            HitArea::Rect {
                x,
                y,
                width,
                height,
            } => {
                [*x, *y, *width, *height].iter().all(|v| v.is_finite())
                    && *width >= 0.0
                    && *height >= 0.0
            }
            HitArea::Circle { center, radius } => {
                center.is_finite() && radius.is_finite() && *radius >= 0.0
            }
            HitArea::Ellipse { center, radii } => {
                center.is_finite() && radii.is_finite() && radii.x >= 0.0 && radii.y >= 0.0
            }
            HitArea::Polygon(points) => {
                if points.len() < 3 {
                    return Err(Error::InvalidHitArea(
                        "a polygon needs at least three points",
                    ));
                }
                points.iter().all(|p| p.is_finite())
            }
        };
        match ok {
            true => Ok(()),
            false => Err(Error::InvalidHitArea(
                "non-finite coordinates or a negative size",
            )),
        }
    }

    /// Whether the local point `p` lies in the area (edges included).
    pub fn contains(&self, p: Vec2) -> bool {
        match self {
            HitArea::Rect {
                x,
                y,
                width,
                height,
            } => p.x >= *x && p.y >= *y && p.x <= x + width && p.y <= y + height,
            HitArea::Circle { center, radius } => p.distance_squared(*center) <= radius * radius,
            HitArea::Ellipse { center, radii } => {
                if radii.x <= 0.0 || radii.y <= 0.0 {
                    return false;
                }
                let d = (p - *center) / *radii;
                d.length_squared() <= 1.0
            }
            HitArea::Polygon(points) => winding(points, p, true) != 0,
        }
    }

    pub(crate) fn bounds(&self) -> Aabb {
        let mut b = Aabb::EMPTY;
        match self {
            HitArea::Rect {
                x,
                y,
                width,
                height,
            } => {
                b.add_point(Vec2::new(*x, *y));
                b.add_point(Vec2::new(x + width, y + height));
            }
            HitArea::Circle { center, radius } => {
                b.add_point(*center - *radius);
                b.add_point(*center + *radius);
            }
            HitArea::Ellipse { center, radii } => {
                b.add_point(*center - *radii);
                b.add_point(*center + *radii);
            }
            HitArea::Polygon(points) => points.iter().for_each(|p| b.add_point(*p)),
        }
        b
    }
}

/// An axis-aligned rectangle in pixels: a node's bounds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    /// Top-left corner.
    pub min: Vec2,
    /// Bottom-right corner.
    pub max: Vec2,
}

impl Rect {
    /// The rectangle at `(x, y)` (top-left) of `width x height` (PixiJS's `new Rectangle(x, y, w, h)`).
    pub fn new(x: f32, y: f32, width: f32, height: f32) -> Rect {
        Rect {
            min: Vec2::new(x, y),
            max: Vec2::new(x + width, y + height),
        }
    }

    /// Width.
    pub fn width(&self) -> f32 {
        self.max.x - self.min.x
    }

    /// Height.
    pub fn height(&self) -> f32 {
        self.max.y - self.min.y
    }

    /// Whether `p` lies inside (edges included).
    pub fn contains(&self, p: Vec2) -> bool {
        p.x >= self.min.x && p.y >= self.min.y && p.x <= self.max.x && p.y <= self.max.y
    }

    pub(crate) fn from_aabb(b: Aabb) -> Option<Rect> {
        (!b.is_empty() && b.min.is_finite() && b.max.is_finite()).then_some(Rect {
            min: b.min,
            max: b.max,
        })
    }
}

/// Winding number of the closed outline `points` around `p` (the crossing parity alone when `even_odd`).
pub(crate) fn winding(points: &[Vec2], p: Vec2, even_odd: bool) -> i32 {
    let n = points.len();
    if n < 3 {
        return 0;
    }
    let mut w = 0;
    let mut j = n - 1;
    for i in 0..n {
        let (a, b) = (points[j], points[i]);
        if (a.y <= p.y) != (b.y <= p.y) {
            // The edge crosses the horizontal through `p`: count it if the crossing lies to the right.
            let side = (b - a).perp_dot(p - a);
            let upward = b.y > a.y;
            if (upward && side > 0.0) || (!upward && side < 0.0) {
                w += if upward || even_odd { 1 } else { -1 };
            }
        }
        j = i;
    }
    if even_odd {
        w & 1
    } else {
        w
    }
}
