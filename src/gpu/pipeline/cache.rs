//! The pure two-tier pipeline cache: tier 1 maps a target state to a tier-2 map, tier 2 maps a graphics key to a
//! pipeline id. `pipe_cache` is the index of the current tier-2 map; only [`PipeCache::set_target_state`] moves it.
//!
//! Nothing here touches wgpu: the cache hands out and stores [`PipelineId`]s, and the caller creates pipelines on a
//! miss. That keeps the lookup logic testable in microseconds.

use super::key::{GlobalKey, GlobalState, GraphicsKey};
use crate::base::IntMap;
use std::collections::HashMap;

/// A small id for a created pipeline; indexes the pipeline store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PipelineId(pub u32);

/// Everything besides the graphics key that a pipeline depends on: the packed global state and the colour format
/// of the target. Two targets of different formats never share a tier-2 map, so never share a pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TierKey {
    /// The packed 12-bit global state.
    pub global: GlobalKey,
    /// The colour format of every colour target.
    pub color_format: wgpu::TextureFormat,
}

impl TierKey {
    /// The key of `state` on a target of `color_format`.
    pub fn new(state: GlobalState, color_format: wgpu::TextureFormat) -> TierKey {
        TierKey {
            global: state.key(),
            color_format,
        }
    }

    /// The unpacked global state.
    pub fn state(&self) -> GlobalState {
        GlobalState::from_key(self.global).expect("tier keys are built from valid global states")
    }
}

/// Lookup counters, in the spirit of Babylon.js's `WebGPUCacheRenderPipeline` statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheCounters {
    /// Lookups answered from the last result without hashing (no state changed since).
    pub hits_without_hash: u64,
    /// Lookups answered by hashing into the current tier-2 map.
    pub hits_with_hash: u64,
    /// Lookups that found nothing (a pipeline had to be created).
    pub misses: u64,
    /// Times the `pipe_cache` pointer moved to another tier-2 map.
    pub pipe_cache_switches: u64,
}

impl CacheCounters {
    /// All lookups.
    pub fn lookups(&self) -> u64 {
        self.hits_without_hash + self.hits_with_hash + self.misses
    }
}

/// The two-tier map from (target state, graphics key) to pipeline id.
#[derive(Debug)]
pub struct PipeCache {
    /// Tier 2 maps, one per tier key ever seen; never removed, so switching back finds old pipelines.
    tiers: Vec<IntMap<GraphicsKey, PipelineId>>,
    /// Tier 1: which tier-2 map belongs to which target state.
    tier_index: HashMap<TierKey, usize>,
    /// `pipe_cache`: index of the current tier-2 map.
    pipe_cache: usize,
    current: Option<TierKey>,
    /// Babylon's fast path: the last lookup, valid until the pointer moves.
    last: Option<(GraphicsKey, PipelineId)>,
    counters: CacheCounters,
}

impl Default for PipeCache {
    fn default() -> Self {
        Self::new()
    }
}

impl PipeCache {
    /// An empty cache with no current target state.
    pub fn new() -> Self {
        PipeCache {
            tiers: Vec::new(),
            tier_index: HashMap::new(),
            pipe_cache: 0,
            current: None,
            last: None,
            counters: CacheCounters::default(),
        }
    }

    /// Points `pipe_cache` at the tier-2 map for `key`, creating an empty one the first time. Returns whether the
    /// pointer moved; setting the same state again costs one comparison.
    pub fn set_target_state(&mut self, key: TierKey) -> bool {
        if self.current == Some(key) {
            return false;
        }
        let next = self.tiers.len();
        let index = *self.tier_index.entry(key).or_insert(next);
        if index == next {
            self.tiers.push(IntMap::default());
        }
        self.pipe_cache = index;
        self.current = Some(key);
        self.last = None;
        self.counters.pipe_cache_switches += 1;
        true
    }

    /// The current target state, if one was set.
    pub fn current(&self) -> Option<TierKey> {
        self.current
    }

    /// Looks `key` up in the current tier-2 map only; on a miss calls `create` (with the current target state) and
    /// stores its id. Errors from `create` are passed through and nothing is stored.
    ///
    /// # Panics
    /// If no target state was set: a draw outside a render pass is a broken invariant.
    pub fn get_or_insert_with<E>(
        &mut self,
        key: GraphicsKey,
        create: impl FnOnce(TierKey) -> Result<PipelineId, E>,
    ) -> Result<PipelineId, E> {
        if let Some((last_key, id)) = self.last {
            if last_key == key {
                self.counters.hits_without_hash += 1;
                return Ok(id);
            }
        }
        let tier_key = self
            .current
            .expect("set_target_state before looking up pipelines");
        let map = &mut self.tiers[self.pipe_cache];
        let id = match map.get(&key) {
            Some(&id) => {
                self.counters.hits_with_hash += 1;
                id
            }
            None => {
                let id = create(tier_key)?;
                self.counters.misses += 1;
                self.tiers[self.pipe_cache].insert(key, id);
                id
            }
        };
        self.last = Some((key, id));
        Ok(id)
    }

    /// Lookup counters since creation.
    pub fn counters(&self) -> CacheCounters {
        self.counters
    }

    /// Number of tier-2 maps (distinct target states seen).
    pub fn tier_count(&self) -> usize {
        self.tiers.len()
    }

    /// Number of pipelines stored, over all tiers.
    pub fn len(&self) -> usize {
        self.tiers.iter().map(|t| t.len()).sum()
    }

    /// Whether no pipeline is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every (tier key, graphics key) pair stored, for recording what a run used.
    pub fn entries(&self) -> impl Iterator<Item = (TierKey, GraphicsKey)> + '_ {
        self.tier_index
            .iter()
            .flat_map(move |(tk, &i)| self.tiers[i].keys().map(move |gk| (*tk, *gk)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::pipeline::key::{DepthStencil, StencilMode};
    use std::convert::Infallible;

    fn tier(stencil: StencilMode) -> TierKey {
        let ds = if stencil == StencilMode::Disabled {
            DepthStencil::None
        } else {
            DepthStencil::Depth24PlusStencil8
        };
        let g = GlobalState::new(15, stencil, ds, 1, false).unwrap();
        TierKey::new(g, wgpu::TextureFormat::Rgba8Unorm)
    }

    /// A creator that hands out sequential ids and counts calls.
    struct Creator(u32);
    impl Creator {
        fn create(&mut self) -> Result<PipelineId, Infallible> {
            self.0 += 1;
            Ok(PipelineId(self.0 - 1))
        }
    }

    #[test]
    fn miss_then_hit_with_hash_then_hit_without_hash() {
        let mut c = PipeCache::new();
        let mut cr = Creator(0);
        c.set_target_state(tier(StencilMode::Disabled));
        let a = c
            .get_or_insert_with(GraphicsKey(1), |_| cr.create())
            .unwrap();
        let b = c
            .get_or_insert_with(GraphicsKey(2), |_| cr.create())
            .unwrap();
        assert_ne!(a, b);
        assert_eq!(
            c.get_or_insert_with(GraphicsKey(1), |_| cr.create())
                .unwrap(),
            a
        );
        assert_eq!(
            c.get_or_insert_with(GraphicsKey(1), |_| cr.create())
                .unwrap(),
            a
        );
        let n = c.counters();
        assert_eq!((n.misses, n.hits_with_hash, n.hits_without_hash), (2, 1, 1));
        assert_eq!(cr.0, 2);
    }

    #[test]
    fn pointer_switches_only_on_change_and_switching_back_recreates_nothing() {
        let mut c = PipeCache::new();
        let mut cr = Creator(0);
        assert!(c.set_target_state(tier(StencilMode::Disabled)));
        assert!(!c.set_target_state(tier(StencilMode::Disabled)));
        let plain = c
            .get_or_insert_with(GraphicsKey(7), |_| cr.create())
            .unwrap();
        assert!(c.set_target_state(tier(StencilMode::MaskActive)));
        // Same graphics key, other global state: a different pipeline, and the fast path must not leak across.
        let masked = c
            .get_or_insert_with(GraphicsKey(7), |_| cr.create())
            .unwrap();
        assert_ne!(plain, masked);
        assert!(c.set_target_state(tier(StencilMode::Disabled)));
        assert_eq!(
            c.get_or_insert_with(GraphicsKey(7), |_| cr.create())
                .unwrap(),
            plain
        );
        assert_eq!(cr.0, 2, "switching back re-created a pipeline");
        assert_eq!(c.counters().pipe_cache_switches, 3);
        assert_eq!(c.tier_count(), 2);
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn formats_select_different_tiers() {
        let mut c = PipeCache::new();
        let mut cr = Creator(0);
        let g = GlobalState::default();
        c.set_target_state(TierKey::new(g, wgpu::TextureFormat::Rgba8Unorm));
        let a = c
            .get_or_insert_with(GraphicsKey(3), |_| cr.create())
            .unwrap();
        c.set_target_state(TierKey::new(g, wgpu::TextureFormat::Bgra8Unorm));
        let b = c.get_or_insert_with(GraphicsKey(3), |tk| {
            assert_eq!(tk.color_format, wgpu::TextureFormat::Bgra8Unorm);
            cr.create()
        });
        assert_ne!(a, b.unwrap());
    }

    #[test]
    fn failed_creation_stores_nothing() {
        let mut c = PipeCache::new();
        c.set_target_state(tier(StencilMode::Disabled));
        let r: Result<PipelineId, &str> = c.get_or_insert_with(GraphicsKey(1), |_| Err("boom"));
        assert!(r.is_err());
        assert!(c.is_empty());
        let ok: Result<PipelineId, &str> =
            c.get_or_insert_with(GraphicsKey(1), |_| Ok(PipelineId(9)));
        assert_eq!(ok.unwrap(), PipelineId(9));
    }

    #[test]
    fn entries_lists_every_pair() {
        let mut c = PipeCache::new();
        c.set_target_state(tier(StencilMode::Disabled));
        c.get_or_insert_with::<Infallible>(GraphicsKey(1), |_| Ok(PipelineId(0)))
            .unwrap();
        c.set_target_state(tier(StencilMode::MaskAdd));
        c.get_or_insert_with::<Infallible>(GraphicsKey(2), |_| Ok(PipelineId(1)))
            .unwrap();
        let mut e: Vec<_> = c
            .entries()
            .map(|(t, g)| (t.state().stencil(), g.0))
            .collect();
        e.sort_by_key(|x| x.1);
        assert_eq!(
            e,
            vec![(StencilMode::Disabled, 1), (StencilMode::MaskAdd, 2)]
        );
    }
}
