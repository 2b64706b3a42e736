//! The mask state machine: turns mask pushes and pops into pass-state changes and mask draws. Pure logic.
//!
//! **Stencil masks** (PixiJS's scheme, with its defects fixed). The stencil value of a pixel counts the masks it
//! is inside. Pushing a mask at depth `d` draws the mask's geometry with compare `equal d` and `increment-clamp`
//! (colour writes off), so only pixels inside every outer mask reach `d + 1`; content then draws with `equal d+1`.
//! Popping draws the geometry again with `equal d+1` and `decrement-clamp`. After the outermost pop the stencil
//! mode is `Disabled` again (PixiJS stays in "mask active", building every pipeline twice).
//!
//! **Inverse masks** become an ordinary level: a quad over the whole target first raises every pixel at `d` to
//! `d + 1`, then the mask's geometry lowers those inside it back to `d`. Content draws with `equal d+1`, and masks
//! nested inside an inverse mask intersect correctly (PixiJS's `not-equal` inverse ignores its parent and its
//! children).
//!
//! **Rectangle masks**: an axis-aligned rectangle in target space becomes a scissor rectangle instead, intersected
//! with any outer one: no draws, no stencil, no pipeline switch.
//!
//! Invariants (debug-asserted): pops match pushes; the depth returns to 0 and the state to `Disabled` at the end.

use crate::frame::batcher::PassState;
use crate::gpu::pipeline::StencilMode;

/// The most stencil masks that can nest (8-bit stencil).
pub const MAX_STENCIL_DEPTH: u8 = 255;

/// One thing the collector must do for a mask push or pop, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaskStep {
    /// Draw what follows under this state.
    State(PassState),
    /// Draw the mask node's geometry.
    DrawMask,
    /// Draw a quad covering the whole target.
    DrawFullscreen,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Entry {
    Scissor { previous: Option<[u32; 4]> },
    Stencil { inverse: bool },
}

/// Why a mask could not be pushed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaskRefusal {
    /// Stencil masks nest deeper than [`MAX_STENCIL_DEPTH`]: the masked content is hidden.
    TooDeep,
    /// The scissor rectangle is empty: the masked content would not show.
    Empty,
}

/// The stack of active masks of one render pass.
#[derive(Clone, Debug, Default)]
pub struct MaskStack {
    depth: u8,
    scissor: Option<[u32; 4]>,
    entries: Vec<Entry>,
}

impl MaskStack {
    /// Forgets everything (a new pass).
    pub fn reset(&mut self) {
        self.depth = 0;
        self.scissor = None;
        self.entries.clear();
    }

    /// Active stencil masks.
    #[cfg(test)]
    pub fn depth(&self) -> u8 {
        self.depth
    }

    /// Whether no mask is active.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The state content draws under now.
    pub fn content_state(&self) -> PassState {
        PassState {
            stencil: if self.depth == 0 {
                StencilMode::Disabled
            } else {
                StencilMode::MaskActive
            },
            stencil_ref: self.depth,
            scissor: self.scissor,
        }
    }

    fn with(&self, stencil: StencilMode, stencil_ref: u8) -> PassState {
        PassState {
            stencil,
            stencil_ref,
            scissor: self.scissor,
        }
    }

    /// Pushes a stencil mask; `out` receives the steps.
    pub fn push_stencil(
        &mut self,
        inverse: bool,
        out: &mut Vec<MaskStep>,
    ) -> Result<(), MaskRefusal> {
        let d = self.depth;
        if d == MAX_STENCIL_DEPTH {
            return Err(MaskRefusal::TooDeep);
        }
        if inverse {
            out.push(MaskStep::State(self.with(StencilMode::MaskAdd, d)));
            out.push(MaskStep::DrawFullscreen);
            out.push(MaskStep::State(self.with(StencilMode::MaskRemove, d + 1)));
            out.push(MaskStep::DrawMask);
        } else {
            out.push(MaskStep::State(self.with(StencilMode::MaskAdd, d)));
            out.push(MaskStep::DrawMask);
        }
        self.depth = d + 1;
        self.entries.push(Entry::Stencil { inverse });
        out.push(MaskStep::State(self.content_state()));
        Ok(())
    }

    /// Pushes a scissor rectangle `[x, y, width, height]`, intersected with the current one.
    pub fn push_scissor(
        &mut self,
        rect: [u32; 4],
        out: &mut Vec<MaskStep>,
    ) -> Result<(), MaskRefusal> {
        let r = match self.scissor {
            Some(s) => intersect(s, rect),
            None => rect,
        };
        if r[2] == 0 || r[3] == 0 {
            return Err(MaskRefusal::Empty);
        }
        self.entries.push(Entry::Scissor {
            previous: self.scissor,
        });
        self.scissor = Some(r);
        out.push(MaskStep::State(self.content_state()));
        Ok(())
    }

    /// Pops the innermost mask; `out` receives the steps.
    ///
    /// # Panics
    /// In debug builds, if no mask is active (pops must match pushes).
    pub fn pop(&mut self, out: &mut Vec<MaskStep>) {
        let Some(top) = self.entries.pop() else {
            debug_assert!(false, "mask pop without push");
            return;
        };
        match top {
            Entry::Scissor { previous } => self.scissor = previous,
            Entry::Stencil { inverse } => {
                let d = self.depth - 1;
                if inverse {
                    out.push(MaskStep::State(self.with(StencilMode::MaskAdd, d)));
                    out.push(MaskStep::DrawMask);
                    out.push(MaskStep::State(self.with(StencilMode::MaskRemove, d + 1)));
                    out.push(MaskStep::DrawFullscreen);
                } else {
                    out.push(MaskStep::State(self.with(StencilMode::MaskRemove, d + 1)));
                    out.push(MaskStep::DrawMask);
                }
                self.depth = d;
            }
        }
        out.push(MaskStep::State(self.content_state()));
        debug_assert!(!self.entries.is_empty() || (self.depth == 0 && self.scissor.is_none()));
    }
}

/// Intersection of two `[x, y, w, h]` rectangles (empty ones have zero width or height).
pub fn intersect(a: [u32; 4], b: [u32; 4]) -> [u32; 4] {
    let x0 = a[0].max(b[0]);
    let y0 = a[1].max(b[1]);
    let x1 = (a[0] + a[2]).min(b[0] + b[2]);
    let y1 = (a[1] + a[3]).min(b[1] + b[3]);
    [x0, y0, x1.saturating_sub(x0), y1.saturating_sub(y0)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use MaskStep::*;

    fn st(stencil: StencilMode, r: u8) -> MaskStep {
        State(PassState {
            stencil,
            stencil_ref: r,
            scissor: None,
        })
    }

    #[test]
    fn push_and_pop_one_mask_ends_disabled() {
        let mut m = MaskStack::default();
        let mut out = Vec::new();
        m.push_stencil(false, &mut out).unwrap();
        assert_eq!(
            out,
            vec![
                st(StencilMode::MaskAdd, 0),
                DrawMask,
                st(StencilMode::MaskActive, 1)
            ]
        );
        out.clear();
        m.pop(&mut out);
        assert_eq!(
            out,
            vec![
                st(StencilMode::MaskRemove, 1),
                DrawMask,
                st(StencilMode::Disabled, 0)
            ]
        );
        assert_eq!(m.content_state(), PassState::default());
    }

    #[test]
    fn nested_masks_compare_against_the_parent_depth() {
        let mut m = MaskStack::default();
        let mut out = Vec::new();
        m.push_stencil(false, &mut out).unwrap();
        out.clear();
        m.push_stencil(false, &mut out).unwrap();
        assert_eq!(
            out,
            vec![
                st(StencilMode::MaskAdd, 1),
                DrawMask,
                st(StencilMode::MaskActive, 2)
            ]
        );
        out.clear();
        m.pop(&mut out);
        assert_eq!(
            out,
            vec![
                st(StencilMode::MaskRemove, 2),
                DrawMask,
                st(StencilMode::MaskActive, 1)
            ]
        );
        out.clear();
        m.pop(&mut out);
        assert_eq!(out.last(), Some(&st(StencilMode::Disabled, 0)));
        assert!(m.is_empty());
    }

    #[test]
    fn inverse_masks_are_an_ordinary_level() {
        let mut m = MaskStack::default();
        let mut out = Vec::new();
        m.push_stencil(true, &mut out).unwrap();
        assert_eq!(
            out,
            vec![
                st(StencilMode::MaskAdd, 0),
                DrawFullscreen,
                st(StencilMode::MaskRemove, 1),
                DrawMask,
                st(StencilMode::MaskActive, 1)
            ]
        );
        out.clear();
        m.pop(&mut out);
        assert_eq!(
            out,
            vec![
                st(StencilMode::MaskAdd, 0),
                DrawMask,
                st(StencilMode::MaskRemove, 1),
                DrawFullscreen,
                st(StencilMode::Disabled, 0)
            ]
        );
    }

    /// Simulates the stencil buffer of one pixel through any sequence of pushes and pops and checks that content
    /// passes exactly when the pixel is inside (or, for inverse masks, outside) every active mask.
    #[test]
    fn simulated_stencil_matches_the_intended_set_for_every_nesting() {
        // Each case: a sequence of (inverse) masks, and for one pixel whether it lies inside each mask.
        for bits in 0u32..(1 << 8) {
            let depth = 4;
            let inverse: Vec<bool> = (0..depth).map(|i| bits & (1 << i) != 0).collect();
            let inside: Vec<bool> = (0..depth).map(|i| bits & (1 << (i + 4)) != 0).collect();
            let mut m = MaskStack::default();
            let mut stencil = 0u8;
            let mut state = PassState::default();
            let apply =
                |steps: &[MaskStep], level: usize, stencil: &mut u8, state: &mut PassState| {
                    for s in steps {
                        let covered = match s {
                            State(p) => {
                                *state = *p;
                                continue;
                            }
                            DrawMask => inside[level],
                            DrawFullscreen => true,
                        };
                        if covered && *stencil == state.stencil_ref {
                            match state.stencil {
                                StencilMode::MaskAdd => *stencil = stencil.saturating_add(1),
                                StencilMode::MaskRemove => *stencil = stencil.saturating_sub(1),
                                _ => panic!("mask drawn in content state"),
                            }
                        }
                    }
                };
            for level in 0..depth {
                let mut out = Vec::new();
                m.push_stencil(inverse[level], &mut out).unwrap();
                apply(&out, level, &mut stencil, &mut state);
                let visible = (0..=level).all(|l| inside[l] != inverse[l]);
                let passes =
                    state.stencil == StencilMode::MaskActive && stencil == state.stencil_ref;
                assert_eq!(
                    passes, visible,
                    "inverse {inverse:?} inside {inside:?} level {level}"
                );
            }
            for level in (0..depth).rev() {
                let mut out = Vec::new();
                m.pop(&mut out);
                apply(&out, level, &mut stencil, &mut state);
                if level > 0 {
                    let visible = (0..level).all(|l| inside[l] != inverse[l]);
                    let passes = stencil == state.stencil_ref;
                    assert_eq!(passes, visible);
                }
            }
            assert_eq!(stencil, 0, "balanced pops leave the stencil clear");
            assert_eq!(state, PassState::default());
        }
    }

    #[test]
    fn scissors_intersect_and_restore() {
        let mut m = MaskStack::default();
        let mut out = Vec::new();
        m.push_scissor([10, 10, 100, 100], &mut out).unwrap();
        m.push_scissor([50, 0, 100, 30], &mut out).unwrap();
        assert_eq!(m.content_state().scissor, Some([50, 10, 60, 20]));
        assert_eq!(
            m.push_scissor([0, 0, 5, 5], &mut out),
            Err(MaskRefusal::Empty)
        );
        m.pop(&mut out);
        assert_eq!(m.content_state().scissor, Some([10, 10, 100, 100]));
        // A stencil mask inside a scissor keeps the scissor.
        out.clear();
        m.push_stencil(false, &mut out).unwrap();
        assert!(out.iter().all(|s| match s {
            State(p) => p.scissor == Some([10, 10, 100, 100]),
            _ => true,
        }));
        m.pop(&mut out);
        m.pop(&mut out);
        assert_eq!(m.content_state(), PassState::default());
    }

    #[test]
    fn too_deep_is_refused_without_changing_state() {
        let mut m = MaskStack::default();
        let mut out = Vec::new();
        for _ in 0..MAX_STENCIL_DEPTH {
            m.push_stencil(false, &mut out).unwrap();
        }
        let before = m.content_state();
        assert_eq!(m.push_stencil(false, &mut out), Err(MaskRefusal::TooDeep));
        assert_eq!(m.content_state(), before);
        assert_eq!(m.depth(), 255);
    }

    #[test]
    fn rectangles_intersect() {
        assert_eq!(intersect([0, 0, 10, 10], [5, 5, 10, 10]), [5, 5, 5, 5]);
        assert_eq!(intersect([0, 0, 10, 10], [20, 20, 5, 5])[2], 0);
    }
}
