//! Built-in counters: what the last frame did and what all frames did together.
//!
//! PixiJS users have asked for draw-call and cache statistics since 2013; here they are part of the renderer.

/// Counters for one frame (or, in [`Stats::total`], summed over all frames).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct FrameStats {
    /// `draw_indexed` calls recorded.
    pub draw_calls: u64,
    /// Sprites drawn (of a render group drawn in part, those in its visible cells; see `group_cells_culled`).
    pub sprites: u64,
    /// Graphics nodes drawn (those of a render group drawn in part all counted).
    pub shapes: u64,
    /// Mesh nodes drawn.
    pub meshes: u64,
    /// Graphics contexts tessellated (0 in steady state: unchanged contexts reuse their mesh).
    pub tessellations: u64,
    /// Graphics contexts on the background tessellation thread when the frame ended (large fills are
    /// triangulated there; meanwhile the context's previous mesh, or nothing, is drawn). In
    /// [`Stats::total`], summed over frames.
    pub tessellations_pending: u64,
    /// Fill or stroke instructions skipped as degenerate, invalid or over
    /// [`MAX_PATH_SEGMENTS`](crate::MAX_PATH_SEGMENTS) while tessellating.
    pub shape_instructions_skipped: u64,
    /// Text nodes drawn.
    pub texts: u64,
    /// Text layouts computed (0 while no text changes).
    pub text_layouts: u64,
    /// Glyph bitmaps rasterised and uploaded (0 while no new glyph appears).
    pub glyph_uploads: u64,
    /// Glyphs rasterised, kept or not (0 while no new glyph appears; above `glyph_uploads` when the atlas is full).
    pub glyph_rasterizations: u64,
    /// Glyphs not drawn because their bitmap would be larger than a glyph-atlas page (text of thousands of
    /// pixels); each is refused once, with a warning, and skipped cheaply after that.
    pub glyphs_too_large: u64,
    /// Glyphs of outlined or shadowed text drawn as one quad for all their passes (shadow, outline, fill) from
    /// one bitmap holding the three.
    pub styled_glyphs: u64,
    /// Masks pushed (stencil and scissor).
    pub masks_pushed: u64,
    /// Masks served by a scissor rectangle instead of the stencil.
    pub scissor_masks: u64,
    /// Masked subtrees hidden because masks nested deeper than the 8-bit stencil allows.
    pub masks_too_deep: u64,
    /// Stencil-mode changes between draws (each moves `pipe_cache`).
    pub stencil_mode_switches: u64,
    /// Sprites skipped because their texture was destroyed or is the target being drawn.
    pub dead_textures: u64,
    /// Nodes (and their subtrees) skipped for bad input, each with a warning.
    pub nodes_skipped: u64,
    /// Subtrees not walked because their cached bounds lie wholly outside the target (culling).
    pub culled: u64,
    /// Cells of render groups' kept geometry (runs of up to 256 quads in draw order) left out because they lie
    /// wholly outside the target while the group's own bounds touch it (a group none of whose cells touch it is
    /// counted in `culled`).
    pub group_cells_culled: u64,
    /// Render groups drawn from their kept geometry (see [`NodeProps::render_group`](crate::NodeProps::render_group)).
    pub groups_replayed: u64,
    /// Render groups whose geometry was rebuilt because something below them changed.
    pub groups_rebuilt: u64,
    /// Frames that kept the last frame's walk and batches, computing again only the quads of the sprites that
    /// changed (1 or 0 a frame; see [`Scene::get_mut`](crate::Scene::get_mut)).
    pub walks_kept: u64,
    /// Sprite quads computed again in frames that kept their walk.
    pub sprites_updated: u64,
    /// Render passes begun.
    pub render_passes: u64,
    /// `set_pipeline` calls sent to wgpu.
    pub set_pipeline_issued: u64,
    /// `set_pipeline` calls skipped because the pipeline was already bound.
    pub set_pipeline_skipped: u64,
    /// `set_bind_group` calls sent.
    pub set_bind_group_issued: u64,
    /// `set_bind_group` calls skipped.
    pub set_bind_group_skipped: u64,
    /// `set_vertex_buffer` / `set_index_buffer` calls sent.
    pub set_buffer_issued: u64,
    /// `set_vertex_buffer` / `set_index_buffer` calls skipped.
    pub set_buffer_skipped: u64,
    /// `set_stencil_reference` calls sent.
    pub set_stencil_reference_issued: u64,
    /// `set_stencil_reference` calls skipped.
    pub set_stencil_reference_skipped: u64,
    /// Pipeline lookups answered from the last result without hashing.
    pub pipeline_hits_without_hash: u64,
    /// Pipeline lookups answered by hashing into the current tier-2 map.
    pub pipeline_hits_with_hash: u64,
    /// Pipeline lookups that had to create a pipeline.
    pub pipeline_misses: u64,
    /// Times `pipe_cache` moved to another tier-2 map.
    pub pipe_cache_switches: u64,
    /// Render pipelines created.
    pub pipelines_created: u64,
    /// Shader modules created.
    pub shader_modules_created: u64,
    /// Bind groups created.
    pub bind_groups_created: u64,
    /// Bind groups served from the cache.
    pub bind_group_cache_hits: u64,
    /// GPU buffers created.
    pub buffers_created: u64,
    /// GPU textures created.
    pub textures_created: u64,
    /// Bytes written to GPU buffers and textures.
    pub bytes_uploaded: u64,
    /// Nanoseconds spent walking the scene and batching (CPU only).
    pub collect_ns: u64,
    /// Nanoseconds spent uploading and preparing pipelines and bind groups.
    pub prepare_ns: u64,
    /// Nanoseconds spent recording render passes.
    pub record_ns: u64,
    /// Nanoseconds spent in `Queue::submit`.
    pub submit_ns: u64,
    /// Filtered nodes drawn (each into an intermediate texture, then back as one quad).
    pub filtered_nodes: u64,
    /// Intermediate textures the filtered nodes were packed into: nodes sharing their filters' settings share
    /// one, and its passes run once for all of them.
    pub filter_groups: u64,
    /// Filter passes run (each a render pass over an intermediate texture).
    pub filter_passes: u64,
    /// Filter groups not run again: their content, settings and uniforms equal what their kept result was
    /// drawn from (a filtered node that stays unchanged is filtered once, then drawn from that result).
    pub filter_groups_reused: u64,
    /// Render passes begun besides the frame's own (filtered content and filter passes): render-target
    /// switches.
    pub target_switches: u64,
    /// Filters skipped for bad input (non-finite settings, a custom filter's uniform bytes of the wrong size,
    /// a missing displacement map, a foreign shader), each logged once a frame.
    pub filters_skipped: u64,
    /// Bytes of filter uniforms written.
    pub uniform_bytes: u64,
    /// Particles drawn (of [`ParticleContainer`](crate::ParticleContainer)s).
    pub particles: u64,
    /// Particles left out for a property that is not a finite number or a frame index past the container's
    /// frames (counted once a property uploaded: a particle with two bad ones counts twice; logged once a frame).
    pub particles_skipped: u64,
}

impl FrameStats {
    /// All pipeline lookups.
    pub fn pipeline_lookups(&self) -> u64 {
        self.pipeline_hits_without_hash + self.pipeline_hits_with_hash + self.pipeline_misses
    }

    /// Adds every counter of `other` to `self`.
    pub fn accumulate(&mut self, o: &FrameStats) {
        // Exhaustive destructuring: adding a field to `FrameStats` without summing it here does not compile.
        macro_rules! add { ($($f:ident),* $(,)?) => {
            let FrameStats { $($f),* } = *o;
            $( self.$f += $f; )*
        } }
        add!(
            draw_calls,
            sprites,
            shapes,
            meshes,
            tessellations,
            tessellations_pending,
            shape_instructions_skipped,
            texts,
            text_layouts,
            glyph_uploads,
            glyph_rasterizations,
            glyphs_too_large,
            styled_glyphs,
            masks_pushed,
            scissor_masks,
            masks_too_deep,
            stencil_mode_switches,
            dead_textures,
            nodes_skipped,
            culled,
            group_cells_culled,
            groups_replayed,
            groups_rebuilt,
            walks_kept,
            sprites_updated,
            render_passes,
            set_pipeline_issued,
            set_pipeline_skipped,
            set_bind_group_issued,
            set_bind_group_skipped,
            set_buffer_issued,
            set_buffer_skipped,
            set_stencil_reference_issued,
            set_stencil_reference_skipped,
            pipeline_hits_without_hash,
            pipeline_hits_with_hash,
            pipeline_misses,
            pipe_cache_switches,
            pipelines_created,
            shader_modules_created,
            bind_groups_created,
            bind_group_cache_hits,
            buffers_created,
            textures_created,
            bytes_uploaded,
            collect_ns,
            prepare_ns,
            record_ns,
            submit_ns,
            filtered_nodes,
            filter_groups,
            filter_passes,
            filter_groups_reused,
            target_switches,
            filters_skipped,
            uniform_bytes,
            particles,
            particles_skipped,
        );
    }
}

/// A node left out of a frame with its subtree, and why: what [`Stats::skipped`] lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// The node left out.
    pub node: crate::NodeId,
    /// Why, in words (for example "its texture was destroyed").
    pub reason: &'static str,
}

/// The first nodes a frame left out, with their reasons: at most [`SkipList::CAPACITY`];
/// [`FrameStats::nodes_skipped`] counts them all. Readable without a logger:
///
/// ```no_run
/// # fn f(renderer: &stage2d::Renderer) {
/// for s in renderer.stats().skipped.iter() {
///     eprintln!("{:?} was not drawn: {}", s.node, s.reason);
/// }
/// # }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SkipList {
    entries: [Option<Skipped>; SkipList::CAPACITY],
    len: u8,
}

impl SkipList {
    /// Most skips kept.
    pub const CAPACITY: usize = 8;

    /// The skips kept, in the order met.
    pub fn iter(&self) -> impl Iterator<Item = &Skipped> + '_ {
        self.entries[..self.len as usize].iter().flatten()
    }

    /// Number of skips kept.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether no node was skipped.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Keeps `node` and `reason` if there is room.
    pub(crate) fn push(&mut self, node: crate::NodeId, reason: &'static str) {
        if let Some(e) = self.entries.get_mut(self.len as usize) {
            *e = Some(Skipped { node, reason });
            self.len += 1;
        }
    }
}

/// The last frame's counters and the running totals.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stats {
    /// Counters of the last completed frame.
    pub last_frame: FrameStats,
    /// The nodes the last frame left out and why (the first [`SkipList::CAPACITY`]; a frame that kept the last
    /// walk repeats its list, as it repeats its counters). Each skip is also logged once a frame at `warn`.
    pub skipped: SkipList,
    /// Counters summed over every frame, plus work done between frames (texture loads).
    pub total: FrameStats,
    /// Frames rendered.
    pub frames: u64,
    /// Times the renderer went on on a new device after a loss
    /// ([`Renderer::recover`](crate::Renderer::recover)).
    pub device_recoveries: u64,
    /// What the renderer holds now (after the last frame or resource call): flat in a program's steady state.
    pub live: LiveCounts,
    /// GPU milliseconds of the latest frame whose timing has come back (from the start to the end of its pass,
    /// read a frame or two later without waiting), with
    /// [`RendererOptions::gpu_timing`](crate::RendererOptions::gpu_timing) on. `None` when it is off, where the
    /// device lacks `TIMESTAMP_QUERY`, and for embedded frames, whose pass the caller begins.
    pub gpu_ms: Option<f32>,
}

/// GPU objects a renderer holds, so a long-running program (or a soak test) can check that nothing piles up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LiveCounts {
    /// Textures: loaded ones, render targets' own, glyph-atlas pages and the white texture.
    pub textures: u64,
    /// Cached batch bind groups (one per distinct set of textures drawn together).
    pub bind_groups: u64,
    /// Render targets and render textures not yet dropped, pooled ones included.
    pub render_targets: u64,
    /// MSAA colour and stencil attachments for the passes stage2d begins.
    pub attachments: u64,
    /// Render pipelines created so far: the count of pipelines ever created, read from the pipeline system's
    /// counter. Pipelines are kept for the renderer's life and never evicted, so this is also the number held,
    /// but it is not measured from what is held.
    pub pipelines: u64,
    /// Objects let go of and waiting for the GPU to finish the frames that used them.
    pub pending_releases: u64,
    /// Bytes of texture pixels kept in memory to make the textures again after a device loss
    /// ([`RendererOptions::keep_texture_pixels`](crate::RendererOptions::keep_texture_pixels)).
    pub kept_texture_bytes: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accumulate_adds_every_field() {
        let mut a = FrameStats {
            draw_calls: 1,
            bytes_uploaded: 10,
            pipeline_misses: 2,
            ..Default::default()
        };
        let b = FrameStats {
            draw_calls: 2,
            bytes_uploaded: 5,
            pipeline_hits_with_hash: 3,
            ..Default::default()
        };
        a.accumulate(&b);
        assert_eq!(a.draw_calls, 3);
        assert_eq!(a.bytes_uploaded, 15);
        assert_eq!(a.pipeline_lookups(), 5);
    }
}
