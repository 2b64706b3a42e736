//! Render layers: PixiJS's `RenderLayer`. A node attached to a layer keeps its place in the tree (its transform,
//! alpha, tint and blend mode come from its ancestors there) but draws, and is hit, where the layer sits in the
//! draw order.

use crate::scene::{Scene, LAYERED, NO_PARENT};
use crate::{Error, NodeId, NodeKind, Result};

impl Scene {
    /// Attaches `node` (and its subtree) to the render layer `layer` (PixiJS's `layer.attach(node)`): the node
    /// keeps its parent, transform, alpha, tint and blend mode from its place in the tree, but draws where the
    /// layer sits in the draw order (after the nodes drawn before the layer, before the layer's own children),
    /// inside the layer's masks, filters and render texture, not its own ancestors'. Attached nodes draw in
    /// attach order, or sorted by z-index when the layer's [`RenderLayer::sort_children`](crate::RenderLayer::sort_children) is set. Hit testing
    /// follows the draw order. A node that is not drawn where it stands (its ancestors hidden) is not drawn on
    /// the layer either; a layer that is not drawn draws none of its nodes.
    ///
    /// Errors: a handle that is not a live node of this scene; `layer` not a render layer; `node` the root,
    /// `layer` itself or an ancestor of it (the layer would draw itself); `node` already on a layer
    /// ([`Scene::detach_from_layer`] it first).
    pub fn attach_to_layer(&mut self, layer: NodeId, node: NodeId) -> Result<()> {
        self.check(layer)?;
        self.check(node)?;
        if !matches!(self.props[layer.slot()].kind, NodeKind::RenderLayer(_)) {
            return Err(Error::RenderLayer(format!(
                "{layer:?} is a {}, not a render layer",
                self.props[layer.slot()].kind.name()
            )));
        }
        if node == self.root {
            return Err(Error::RootNode(node));
        }
        let mut up = Some(layer);
        while let Some(a) = up {
            if a == node {
                return Err(Error::RenderLayer(format!(
                    "{node:?} holds the layer {layer:?}: the layer would draw itself"
                )));
            }
            up = self.parent(a);
        }
        if let Some(other) = self.layer_of(node) {
            return Err(Error::RenderLayer(format!(
                "{node:?} is already attached to layer {other:?}; detach it first"
            )));
        }
        if let NodeKind::RenderLayer(l) = &mut self.props[layer.slot()].kind {
            l.attached.push(node);
        }
        self.layer_of[node.slot()] = layer.slot() as u32;
        self.slots[node.slot()].counts |= LAYERED;
        self.mark_structure(layer.slot() as u32);
        self.mark_layer_parent(node);
        Ok(())
    }

    /// Detaches `node` from its render layer: it draws where it stands in the tree again. `Ok(false)` if it was
    /// on no layer.
    pub fn detach_from_layer(&mut self, node: NodeId) -> Result<bool> {
        self.check(node)?;
        Ok(self.unlayer(node.slot()))
    }

    /// The render layer `node` is attached to, if any.
    pub fn layer_of(&self, node: NodeId) -> Option<NodeId> {
        if !self.contains(node) {
            return None;
        }
        self.layer_slot(node.slot())
    }

    /// The live render layer of the node in `slot`, if it is attached to one.
    #[inline]
    pub(crate) fn layer_slot(&self, slot: usize) -> Option<NodeId> {
        match self.layer_of[slot] {
            NO_PARENT => None,
            l => {
                let l = l as usize;
                let id = NodeId::new(l as u32, self.owner, self.slots[l].generation);
                matches!(self.props[l].kind, NodeKind::RenderLayer(_)).then_some(id)
            }
        }
    }

    /// The nodes `layer` draws, in draw order (sorted by z-index if the layer says so); empty for anything else.
    pub fn layer_draw_order(&self, layer: NodeId) -> Vec<NodeId> {
        let mut v = Vec::new();
        self.layer_draw_order_into(layer, &mut v);
        v
    }

    /// [`Scene::layer_draw_order`] appended to `out` (the walks' own lists: nothing allocated once they have
    /// grown).
    pub(crate) fn layer_draw_order_into(&self, layer: NodeId, out: &mut Vec<NodeId>) {
        let Some(NodeKind::RenderLayer(l)) = self.get(layer).map(|n| &n.kind) else {
            return;
        };
        let start = out.len();
        out.extend(l.attached.iter().copied().filter(|&n| self.contains(n)));
        if l.sort_children {
            out[start..].sort_by_key(|n| self.interact[n.slot()].z);
        }
    }

    /// Takes the node in `slot` off its layer's list; whether it was on one.
    pub(crate) fn unlayer(&mut self, slot: usize) -> bool {
        let l = std::mem::replace(&mut self.layer_of[slot], NO_PARENT);
        self.slots[slot].counts &= !LAYERED;
        if l == NO_PARENT {
            return false;
        }
        let id = NodeId::new(slot as u32, self.owner, self.slots[slot].generation);
        if let NodeKind::RenderLayer(layer) = &mut self.props[l as usize].kind {
            layer.attached.retain(|&n| n != id && n.slot() != slot);
        }
        self.mark_structure(l);
        if self.slots[slot].generation != 0 {
            self.mark_layer_parent(id);
        }
        true
    }

    /// Lets go of a layer's nodes (the layer in `slot` is being removed or replaced): they draw in place again.
    pub(crate) fn release_layer(&mut self, slot: usize) {
        let NodeKind::RenderLayer(layer) = &mut self.props[slot].kind else {
            return;
        };
        for n in std::mem::take(&mut layer.attached) {
            if self.live(n) && self.layer_of[n.slot()] == slot as u32 {
                self.layer_of[n.slot()] = NO_PARENT;
                self.slots[n.slot()].counts &= !LAYERED;
                self.mark_layer_parent(n);
            }
        }
    }

    /// A node joining or leaving a layer changes what its parent draws.
    fn mark_layer_parent(&mut self, node: NodeId) {
        if let Some(p) = self.links[node.slot()].parent {
            self.mark_structure(p.slot() as u32);
        }
    }
}
