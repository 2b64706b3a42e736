//! Render layers in the walk: what a node attached to a layer inherits from where it stands in the tree, for the
//! layer to draw it with (see `scene/layers.rs`).

use super::visit::{node_color, Inherited};
use crate::scene::Scene;
use crate::NodeId;

/// Ancestors followed at most (a deeper node is drawn as if its chain ended there).
const MAX_DEPTH: usize = 1 << 16;

/// What `node` (attached to a layer) inherits from its ancestors, as the walk from `start` with `root` would
/// pass it down: `None` if the node is not in `start`'s subtree, or an ancestor below `start` is hidden, is a
/// mask, or has a transform, alpha or tint that is not finite (it is then not drawn where it stands either).
pub(super) fn inherited(
    scene: &Scene,
    start: NodeId,
    root: Inherited,
    node: NodeId,
) -> Option<Inherited> {
    let mut chain = Vec::new();
    let mut at = scene.parent(node);
    loop {
        let a = at?;
        chain.push(a);
        if a == start || chain.len() >= MAX_DEPTH {
            break;
        }
        at = scene.parent(a);
    }
    if chain.last() != Some(&start) {
        return None;
    }
    let mut inh = root;
    for &a in chain.iter().rev() {
        let props = scene.get(a)?;
        if a != start && (!props.visible || scene.is_mask(a)) {
            return None;
        }
        let matrix = inh.matrix * scene.transform(a)?.matrix();
        if !matrix.is_finite() {
            return None;
        }
        let (color, packed) = node_color(props, &inh)?;
        inh = Inherited {
            matrix,
            color,
            packed,
            blend: props.blend_mode.resolve(inh.blend),
        };
    }
    Some(inh)
}
