//! Filtered nodes' results kept between frames (see `frame/filter_reuse.rs`): the texture a node leading a
//! group draws into once its fingerprint holds ([`Kept`](super::Kept) is what is known of it).

use super::FilterWalk;
use crate::{NodeId, TextureId};

impl FilterWalk {
    /// The kept texture of the group `id` leads, while its fingerprint holds (a spare handle when it first
    /// does; none left: noted, and the group draws as usual this frame). A node whose fingerprint changed gives
    /// its texture back.
    pub(super) fn kept_handle(&mut self, id: NodeId) -> Option<TextureId> {
        if !self.keep_results {
            return None;
        }
        let e = self
            .kept
            .get_mut(&(id.slot() as u32))
            .filter(|e| e.generation == id.generation)?;
        if !e.stable {
            if let Some(h) = e.handle.take() {
                e.rendered = None;
                self.cache_spares.push(h);
            }
            return None;
        }
        if e.handle.is_none() {
            match self.cache_spares.pop() {
                Some(h) => e.handle = Some(h),
                None => {
                    self.cache_shortfall += 1;
                    return None;
                }
            }
        }
        e.handle
    }
}
