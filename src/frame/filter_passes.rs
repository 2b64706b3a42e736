//! The prepare phase's filter work: after the walk and the upload, each filter group's content is drawn into an
//! intermediate texture (its own render pass, the batches of its target, through the [`Encoder`]), then its
//! passes run, ping-ponging between pooled textures, the last one writing the group's output texture, which
//! the quads drawn in the walk show. Deeper groups run first, so a nested group's output is ready when the
//! group holding it draws its content. All of it is recorded into the prepare encoder, before the frame's own
//! pass (or the caller's).

use super::{Draw, Frame};
use crate::base::stats::FrameStats;
use crate::frame::collect::filters::{FilterGroup, GroupKind};
use crate::frame::encoder::{BoundState, Encoder};
use crate::gpu::filters::{FilterSystem, Globals, ScratchId, FILTER_FORMAT};
use crate::gpu::pipeline::{DepthStencil, GlobalState, PipelineSystem, StencilMode};
use crate::gpu::texture_system::TextureSystem;
use crate::Result;

/// What a content pass draws: a batch, or an advanced blend draw (where the pass is split).
#[derive(Clone, Debug)]
enum Item {
    Draw(Draw),
    Blend {
        tag: u32,
        pipeline: crate::gpu::pipeline::PipelineId,
        stencil_ref: u32,
    },
    /// A custom-shader mesh drawn here.
    Mesh {
        tag: u32,
        pipeline: crate::gpu::pipeline::PipelineId,
        stencil_ref: u32,
    },
    /// A nested filtered node's last pass, drawn here.
    Final {
        tag: u32,
        pipeline: crate::gpu::pipeline::PipelineId,
        stencil_ref: u32,
    },
}

/// The pass of an advanced blend draw (its uniforms at `params`).
fn blend_pass(params: (u32, u32)) -> crate::filter::passes::Pass {
    crate::filter::passes::Pass {
        program: crate::filter::passes::Program::Blend,
        params,
        textures: [None; crate::filter::passes::MAX_CUSTOM_TEXTURES],
        first_of_filter: true,
    }
}

/// One filter pass to record: its pass index, uniform offsets.
#[derive(Clone, Copy, Debug)]
struct PassUniforms {
    offsets: (u32, u32),
}

impl Frame {
    /// Gives every group's output texture storage of its size (before any bind group names it).
    pub(super) fn size_filter_outputs(&mut self, textures: &mut TextureSystem) {
        let walk = &mut self.collector.filters;
        for g in &walk.groups {
            if let Some(out) = g.output {
                textures.set_render_storage(out, g.size, g.sampling);
            }
        }
        for h in walk.cache_released.drain(..) {
            let _ = textures.destroy(h);
        }
    }

    /// Records the filter groups' content passes and filter passes into `encoder`. A group that fails (a
    /// texture destroyed, a shader refused) is counted and its output cleared, so its quads show nothing.
    pub(super) fn run_filters(
        &mut self,
        device: &wgpu::Device,
        pipelines: &mut PipelineSystem,
        textures: &mut TextureSystem,
        encoder: &mut wgpu::CommandEncoder,
        target_px: (f32, f32),
        frame: &mut FrameStats,
    ) -> Result<()> {
        self.collector.filters.prepares += 1;
        let walk = &self.collector.filters;
        if walk.groups.is_empty() {
            super::filter_reuse::reusable(&mut self.collector.filters, &[]);
            return Ok(());
        }
        // Deeper groups first; the sort is stable so equal depths keep walk order.
        let mut order: Vec<usize> = (0..walk.groups.len()).collect();
        order.sort_by_key(|&g| std::cmp::Reverse(walk.groups[g].depth));
        // Batches by target, in draw order.
        let mut by_target: Vec<u32> = (0..self.batcher.batches().len() as u32)
            .filter(|&i| self.batcher.batches()[i as usize].target != 0)
            .collect();
        by_target.sort_by_key(|&i| self.batcher.batches()[i as usize].target);
        // Each group's batches: a range of `by_target`.
        let ranges: Vec<std::ops::Range<usize>> = (0..walk.groups.len())
            .map(|gi| {
                let target = gi as u16 + 1;
                let b = self.batcher.batches();
                let lo = by_target.partition_point(|&i| b[i as usize].target < target);
                let hi = by_target.partition_point(|&i| b[i as usize].target <= target);
                lo..hi
            })
            .collect();
        let fingerprints = super::filter_reuse::fingerprints(
            (walk, &self.batcher, &self.collector.caches.custom_meshes),
            &order,
            textures,
            target_px,
            |gi| &by_target[ranges[gi].clone()],
        );
        let reused = super::filter_reuse::reusable(&mut self.collector.filters, &fingerprints);
        let walk = &self.collector.filters;

        // Uniforms of every pass first: the ring is written once, before any pass binds it.
        self.filters.begin_frame();
        let mut uniforms: Vec<PassUniforms> = Vec::with_capacity(walk.passes.len());
        for (gi, g) in walk.groups.iter().enumerate() {
            let globals = group_globals(g, target_px);
            let last = g.passes.end.saturating_sub(1);
            for (k, p) in walk.passes[g.passes.clone()].iter().enumerate() {
                let mut globals = globals;
                // A last pass drawn into the pass holding its node: into its rectangle there.
                if let (Some(Some(tag)), true) = (walk.direct.get(gi), g.passes.start + k == last) {
                    let f = walk.finals[*tag as usize];
                    let (pw, ph) = f
                        .parent_size
                        .unwrap_or((target_px.0 as u32, target_px.1 as u32));
                    globals.output_frame = f.rect;
                    globals.output_texture[0] = pw as f32;
                    globals.output_texture[1] = ph as f32;
                    globals.input_frame = [0.0, 0.0, f.size.0 as f32, f.size.1 as f32];
                    // Fragment positions are now the holding pass's: its origin on the target.
                    let origin = f
                        .parent
                        .map_or(glam::Vec2::ZERO, |p| walk.groups[p as usize].origin);
                    globals.global_frame[0] = origin.x;
                    globals.global_frame[1] = origin.y;
                }
                if let crate::filter::passes::Program::Custom(_) = p.program {
                    // PixiJS's units: scene pixels, of the group's texture and of the one drawn into.
                    let res = g.scale * walk.target_scale;
                    let out = match walk.direct.get(gi) {
                        Some(Some(tag)) if g.passes.start + k == last => {
                            walk.finals[*tag as usize]
                                .parent
                                .map_or(1.0, |p| walk.groups[p as usize].scale)
                                * walk.target_scale
                        }
                        _ => res,
                    };
                    globals = globals.in_scene_units(res, out);
                }
                let offsets = self.filters.push_uniforms(&globals, p, &walk.arena);
                uniforms.push(PassUniforms { offsets });
            }
        }
        // Each advanced blend draw's: its content's texture to its place in the pass it is drawn in.
        let mut blend_uniforms = Vec::with_capacity(walk.blends.len());
        let mut arena = std::mem::take(&mut self.blend_arena);
        arena.clear();
        for d in &walk.blends {
            let g = &walk.groups[d.group as usize];
            let parent = d
                .parent
                .map(|p| walk.groups[p as usize].size)
                .unwrap_or((1, 1));
            let mut globals = group_globals(g, target_px);
            let [x, y, w, h] = d.rect;
            globals.output_frame = [x as f32, y as f32, w as f32, h as f32];
            globals.output_texture[0] = parent.0 as f32;
            globals.output_texture[1] = parent.1 as f32;
            globals.input_frame = [0.0, 0.0, w as f32, h as f32];
            let at = arena.len() as u32;
            arena.extend_from_slice(bytemuck::cast_slice(&[d.mode as u8 as f32, 0.0, 0.0, 0.0]));
            let pass = blend_pass((at, 16));
            blend_uniforms.push(self.filters.push_uniforms(&globals, &pass, &arena));
        }
        self.blend_arena = arena;
        self.filters.upload(frame);
        self.blend_inputs.clear();
        self.blend_inputs.resize(walk.groups.len(), None);
        self.final_bindings.clear();
        self.final_bindings.resize(walk.finals.len(), None);
        // Where each group's uniforms begin in `uniforms`.
        let mut first_uniform = Vec::with_capacity(walk.groups.len());
        let mut n = 0;
        for g in &walk.groups {
            first_uniform.push(n);
            n += g.passes.len();
        }

        for &gi in &order {
            let g = self.collector.filters.groups[gi].clone();
            let Some(out) = g.output else { continue };
            if g.segments == 0 {
                continue;
            }
            if reused[gi] {
                frame.filter_groups_reused += 1;
                continue;
            }
            frame.filter_groups += 1;
            let batches = &by_target[ranges[gi].clone()];
            let result = self.run_group(
                device,
                pipelines,
                textures,
                encoder,
                (gi, &g),
                out,
                batches,
                &uniforms[first_uniform[gi]..first_uniform[gi] + g.passes.len()],
                &blend_uniforms,
                frame,
            );
            textures.touch(out);
            match result {
                Ok(()) => {
                    super::filter_reuse::drawn(&mut self.collector.filters, gi, &fingerprints)
                }
                Err(e) => {
                    frame.filters_skipped += 1;
                    log::warn!("a filter group was not drawn: {e}");
                    if let Some((view, _)) = textures.view_and_sampler(out) {
                        clear(encoder, view);
                    }
                }
            }
        }
        Ok(())
    }

    /// Draws one group's content and runs its passes. Its content pass is split at each advanced blend marker:
    /// the part before is drawn, the marker's rectangle copied, and the next part begins with the blend draw.
    #[allow(clippy::too_many_arguments)]
    fn run_group(
        &mut self,
        device: &wgpu::Device,
        pipelines: &mut PipelineSystem,
        textures: &mut TextureSystem,
        encoder: &mut wgpu::CommandEncoder,
        (gi, g): (usize, &FilterGroup),
        out: crate::TextureId,
        batches: &[u32],
        uniforms: &[PassUniforms],
        blend_uniforms: &[(u32, u32)],
        frame: &mut FrameStats,
    ) -> Result<()> {
        let size = g.size;
        let samples: u32 = if g.msaa { 4 } else { 1 };
        let uses_stencil = batches
            .iter()
            .any(|&i| self.batcher.batches()[i as usize].state.stencil != StencilMode::Disabled);
        let depth_stencil = if uses_stencil {
            DepthStencil::Depth24PlusStencil8
        } else {
            DepthStencil::None
        };
        // Draws of the content, under the intermediate texture's target state; blend markers become items of
        // their own, with their pipeline under the state they stand in.
        let base = GlobalState::new(0b1111, StencilMode::Disabled, depth_stencil, 1, samples > 1)
            .expect("a valid global state");
        pipelines.set_target_state(base, FILTER_FORMAT);
        let mut items: Vec<Item> = Vec::with_capacity(batches.len());
        let mut stencil = StencilMode::Disabled;
        for &i in batches {
            let b = self.batcher.batches()[i as usize];
            if b.state.stencil != stencil {
                stencil = b.state.stencil;
                frame.stencil_mode_switches += 1;
                pipelines.set_target_state(base.with_stencil(stencil), FILTER_FORMAT);
            }
            if b.marker & crate::frame::batcher::Batcher::MARKER_FINAL != 0 {
                let tag = b.marker & !crate::frame::batcher::Batcher::MARKER_FINAL;
                let walk = &self.collector.filters;
                if let Some(pipeline) = walk.final_pipeline(&mut self.filters, pipelines, tag)? {
                    items.push(Item::Final {
                        tag,
                        pipeline,
                        stencil_ref: b.state.stencil_ref as u32,
                    });
                }
                continue;
            }
            if b.marker & crate::frame::batcher::Batcher::MARKER_MESH != 0 {
                let tag = b.marker & !crate::frame::batcher::Batcher::MARKER_MESH;
                let draws = &self.collector.caches.custom_meshes.draws;
                if let Some(d) = draws.get(tag as usize) {
                    items.push(Item::Mesh {
                        tag,
                        pipeline: self.meshes.pipeline(pipelines, d)?,
                        stencil_ref: b.state.stencil_ref as u32,
                    });
                }
                continue;
            }
            if b.marker != 0 {
                let tag = b.marker - 1;
                let pipeline = self
                    .filters
                    .pipeline(pipelines, crate::filter::passes::Program::Blend)?;
                items.push(Item::Blend {
                    tag,
                    pipeline,
                    stencil_ref: b.state.stencil_ref as u32,
                });
                continue;
            }
            items.push(Item::Draw(self.batch_draw(pipelines, textures, &b, None)?));
        }
        let passes = g.passes.clone();
        let blend_group = matches!(g.kind, GroupKind::Blend(_));
        let mut scratch: Vec<ScratchId> = Vec::new();
        // The content goes straight to the output when no pass runs (a blend's content is read by its draw).
        let content = if passes.is_empty() && !blend_group {
            None
        } else {
            let c = self.filters.scratch(size, frame);
            scratch.push(c);
            Some(c)
        };
        let msaa = (samples > 1).then(|| {
            self.attachments
                .msaa_view(device, (FILTER_FORMAT, size.0, size.1), frame)
        });
        // The frame's first pass writes its beginning timestamp.
        let timestamps = self.first_timestamp.take();
        self.timestamp_begun |= timestamps.is_some();
        let stencil_view =
            uses_stencil.then(|| self.attachments.stencil_view(device, size, samples, frame));
        let out_view = textures
            .view_and_sampler(out)
            .map(|(v, _)| v.clone())
            .ok_or_else(|| crate::Error::InvalidFilter("a filter output was lost".into()))?;
        let view = match content {
            Some(c) => self.filters.scratch_view(c).clone(),
            None => out_view,
        };
        let clear = g
            .clear
            .map_or(wgpu::Color::TRANSPARENT, |c| c.to_wgpu_premultiplied());
        // The parts between markers: [start, end) of `items`, the blend draw that begins each.
        let mut start = 0;
        let mut pending: Option<(
            crate::gpu::filters::Binding,
            crate::gpu::pipeline::PipelineId,
            u32,
            usize,
        )> = None;
        let mut first = true;
        loop {
            let end = items[start..]
                .iter()
                .position(|i| matches!(i, Item::Blend { .. }))
                .map_or(items.len(), |k| start + k);
            {
                let load = |first: bool, c: wgpu::Color| match first {
                    true => wgpu::LoadOp::Clear(c),
                    false => wgpu::LoadOp::Load,
                };
                let mut rp = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("stage2d filtered content"),
                    color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                        view: msaa.as_ref().unwrap_or(&view),
                        depth_slice: None,
                        resolve_target: msaa.as_ref().map(|_| &view),
                        ops: wgpu::Operations {
                            load: load(first, clear),
                            store: wgpu::StoreOp::Store,
                        },
                    })],
                    depth_stencil_attachment: stencil_view.as_ref().map(|v| {
                        wgpu::RenderPassDepthStencilAttachment {
                            view: v,
                            depth_ops: Some(wgpu::Operations {
                                load: match first {
                                    true => wgpu::LoadOp::Clear(1.0),
                                    false => wgpu::LoadOp::Load,
                                },
                                store: wgpu::StoreOp::Store,
                            }),
                            stencil_ops: Some(wgpu::Operations {
                                load: match first {
                                    true => wgpu::LoadOp::Clear(g.stencil_ref as u32),
                                    false => wgpu::LoadOp::Load,
                                },
                                store: wgpu::StoreOp::Store,
                            }),
                        }
                    }),
                    timestamp_writes: match first {
                        true => timestamps
                            .as_ref()
                            .map(|(q, i)| wgpu::RenderPassTimestampWrites {
                                query_set: q,
                                beginning_of_pass_write_index: Some(*i),
                                end_of_pass_write_index: None,
                            }),
                        false => None,
                    },
                    occlusion_query_set: None,
                    multiview_mask: None,
                });
                if let Some((binding, pipeline, stencil_ref, tag)) = pending.take() {
                    rp.set_stencil_reference(stencil_ref);
                    self.filters.draw(
                        &mut rp,
                        pipelines.pipeline(pipeline),
                        &binding,
                        blend_uniforms[tag],
                    );
                    frame.draw_calls += 1;
                }
                let mut bound = BoundState::default();
                let mut enc = Encoder::new(&mut rp, &mut bound, frame, size);
                if items[start..end].iter().any(|i| matches!(i, Item::Draw(_))) {
                    self.streams.bind(&mut enc);
                }
                for item in &items[start..end] {
                    match item {
                        Item::Draw(d) => {
                            enc.set_stencil_reference(d.stencil_ref);
                            enc.set_pipeline(d.pipeline, pipelines.pipeline(d.pipeline));
                            enc.set_bind_group(
                                0,
                                d.bind_group,
                                textures.get_bind_group(d.bind_group),
                            );
                            enc.draw_indexed(d.indices.clone());
                        }
                        &Item::Final {
                            tag,
                            pipeline,
                            stencil_ref,
                        } => {
                            let Some(Some((binding, offsets))) =
                                self.final_bindings.get(tag as usize)
                            else {
                                continue;
                            };
                            enc.set_stencil_reference(stencil_ref);
                            let p = pipelines.pipeline(pipeline);
                            enc.raw(|rp| self.filters.draw(rp, p, binding, *offsets));
                            self.streams.bind(&mut enc);
                        }
                        &Item::Mesh {
                            tag,
                            pipeline,
                            stencil_ref,
                        } => {
                            enc.set_stencil_reference(stencil_ref);
                            self.record_mesh(&mut enc, pipelines, tag, pipeline);
                        }
                        Item::Blend { .. } => {}
                    }
                }
            }
            frame.target_switches += 1;
            first = false;
            let Some(&Item::Blend {
                tag,
                pipeline,
                stencil_ref,
            }) = items.get(end)
            else {
                break;
            };
            // The marker: copy what lies under it, and begin the next part with its draw.
            let walk = &self.collector.filters;
            let d = walk.blends[tag as usize];
            let input = self.blend_inputs.get(d.group as usize).copied().flatten();
            if let (Some(input), [x, y, w, h]) = (input, d.rect) {
                let source_size = walk.groups[d.group as usize].size;
                let backdrop = self.filters.scratch(source_size, frame);
                let src = match content {
                    Some(c) => self.filters.scratch_texture(c).clone(),
                    None => textures.wgpu_texture(out).cloned().ok_or_else(|| {
                        crate::Error::InvalidFilter("a filter output was lost".into())
                    })?,
                };
                let (w, h) = (
                    w.min(size.0.saturating_sub(x)),
                    h.min(size.1.saturating_sub(y)),
                );
                if w > 0 && h > 0 {
                    encoder.copy_texture_to_texture(
                        wgpu::TexelCopyTextureInfo {
                            texture: &src,
                            mip_level: 0,
                            origin: wgpu::Origin3d { x, y, z: 0 },
                            aspect: wgpu::TextureAspect::All,
                        },
                        self.filters.scratch_texture(backdrop).as_image_copy(),
                        wgpu::Extent3d {
                            width: w,
                            height: h,
                            depth_or_array_layers: 1,
                        },
                    );
                    let pass = blend_pass((0, 16));
                    let binding = self.filters.bind(textures, &pass, input, backdrop, frame)?;
                    pending = Some((binding, pipeline, stencil_ref, tag as usize));
                }
            }
            start = end + 1;
        }
        if blend_group {
            // Read by its blend draw in the pass that holds it (kept until the frame ends).
            self.blend_inputs[gi] = content;
            return Ok(());
        }

        // The passes: each reads the current texture (and its filter's original) and writes another.
        pipelines.set_target_state(FilterSystem::target_state(), FILTER_FORMAT);
        let walk = &self.collector.filters;
        let Some(mut cur) = content else {
            return Ok(());
        };
        let mut original = cur;
        let last = passes.len() - 1;
        for (k, (pass, u)) in walk.passes[passes].iter().zip(uniforms).enumerate() {
            if pass.first_of_filter {
                original = cur;
            }
            if let (Some(Some(tag)), true) = (walk.direct.get(gi), k == last) {
                // Drawn into the pass holding its node: bound now, its inputs kept for the rest of the frame.
                let tag = *tag as usize;
                let binding = self.filters.bind(textures, pass, cur, original, frame)?;
                self.final_bindings[tag] = Some((binding, u.offsets));
                frame.filter_passes += 1;
                return Ok(());
            }
            if k == last {
                let out_view = textures
                    .view_and_sampler(out)
                    .map(|(v, _)| v.clone())
                    .ok_or_else(|| {
                        crate::Error::InvalidFilter("a filter output was lost".into())
                    })?;
                self.filters.record(
                    pipelines, textures, encoder, pass, u.offsets, cur, original, &out_view, frame,
                )?;
            } else {
                let next = match scratch.iter().copied().find(|&s| s != cur && s != original) {
                    Some(s) => s,
                    None => {
                        let s = self.filters.scratch(size, frame);
                        scratch.push(s);
                        s
                    }
                };
                let view = self.filters.scratch_view(next).clone();
                self.filters.record(
                    pipelines, textures, encoder, pass, u.offsets, cur, original, &view, frame,
                )?;
                cur = next;
            }
            frame.target_switches += 1;
        }
        self.filters.release_scratch(&scratch);
        Ok(())
    }
}

/// The globals a group's passes share.
fn group_globals(g: &FilterGroup, target_px: (f32, f32)) -> Globals {
    Globals::new(
        g.size,
        [g.extent.0 as f32, g.extent.1 as f32],
        [g.origin.x, g.origin.y],
        [target_px.0 * g.scale, target_px.1 * g.scale],
        g.scale,
    )
}

/// Clears `view` to transparent.
fn clear(encoder: &mut wgpu::CommandEncoder, view: &wgpu::TextureView) {
    encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("stage2d filter output cleared"),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: None,
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    });
}
