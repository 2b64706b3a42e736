//! Spritesheets: named frames of one texture, as TexturePacker describes them in JSON (the "hash" and "array"
//! forms PixiJS reads), with trimmed and rotated frames, anchors and named animations.
//!
//! Every frame is a [`Texture`] handle on the sheet's one texture, so sprites of a sheet share a batch slot and
//! switching frames (an `AnimatedSprite`) changes no bind group. The JSON is parsed
//! by `sheet_json.rs`; here its frames are checked against the image and turned into handles.

use crate::assets::sheet_json::{self, SheetError};
use crate::scene::animation::Frames;
use crate::{AnimatedSprite, Error, NodeId, Result, Sprite, Texture};
use glam::Vec2;
use rustc_hash::FxHashMap;
use std::path::{Path, PathBuf};

/// One named animation: its frames' indices, handles and anchors (the last two shared by every
/// `AnimatedSprite` playing it, so a crowd reads one copy).
#[derive(Clone, Debug)]
pub(crate) struct Animation {
    name: String,
    indices: Vec<usize>,
    pub(crate) frames: std::sync::Arc<Frames>,
}

/// Named frames of one texture, and named animations (lists of frames), from TexturePacker JSON. Every frame is
/// a [`Texture`] on the sheet's one texture (trimmed and rotated frames keep their untrimmed size and draw
/// upright), so a sheet's sprites batch together. Each frame carries the anchor the sheet gives it.
///
/// ```
/// use stage2d::{Node, Renderer, Sampling, Scene, Spritesheet};
/// # fn main() -> stage2d::Result<()> {
/// let mut renderer = Renderer::new_headless(Default::default())?;
/// let image = renderer.load_texture("assets/critters.png", Sampling::NEAREST)?;
/// let json = std::fs::read("assets/critters.json").unwrap();
/// let sheet = Spritesheet::from_json(&json, image, "critters.json")?;
/// let mut scene = Scene::new();
/// // Anchored bottom-centre, as the sheet says.
/// let bird = scene.add(scene.root(), Node::sprite(sheet.try_frame("bird_flap_0.png")?).at(50.0, 80.0))?;
/// assert_eq!(sheet.animation_names().count(), 3);
/// # let _ = bird;
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Spritesheet {
    texture: Texture,
    /// Name, handle, anchor from the sheet.
    frames: Vec<(String, Texture, Option<Vec2>)>,
    by_name: FxHashMap<String, usize>,
    animations: Vec<Animation>,
    /// The image file the JSON names (`meta.image`), if any.
    image: Option<String>,
    /// The sheet's path (or the label it was given), for errors.
    name: PathBuf,
}

fn sheet_error(sheet: &Path, e: SheetError) -> Error {
    Error::Spritesheet {
        sheet: sheet.to_owned(),
        field: e.field,
        reason: e.reason,
    }
}

impl Spritesheet {
    /// Parses TexturePacker JSON (`json`; hash or array form) describing frames of `texture`. `name` (the
    /// sheet's path, or any label) appears in errors: malformed JSON, a value of the wrong type, or a frame that
    /// lies outside the texture is [`Error::Spritesheet`] naming the JSON field.
    pub fn from_json(json: &[u8], texture: Texture, name: impl AsRef<Path>) -> Result<Spritesheet> {
        let name = name.as_ref();
        let data = sheet_json::parse(json).map_err(|e| sheet_error(name, e))?;
        Spritesheet::from_data(data, texture, name)
    }

    /// The sheet of parsed JSON (parsed on a loader's worker).
    pub(crate) fn from_data(
        data: sheet_json::SheetData,
        texture: Texture,
        name: &Path,
    ) -> Result<Spritesheet> {
        sheet_json::check_against_image(&data, texture.source_size())
            .map_err(|e| sheet_error(name, e))?;
        // The sheet's `meta.scale` is its frames' resolution (PixiJS's), unless the texture has one of its own
        // (a `@2x` image name).
        let texture = match texture.resolution() == 1.0 && data.scale != 1.0 {
            true => texture.with_resolution(data.scale),
            false => texture,
        };
        let mut frames = Vec::with_capacity(data.frames.len());
        let mut by_name = FxHashMap::default();
        for (i, f) in data.frames.into_iter().enumerate() {
            let t = texture
                .packed_frame(f.region, f.rotated, f.source_size, f.trim_offset)
                .map_err(|e| {
                    sheet_error(
                        name,
                        SheetError {
                            field: format!("frames[{:?}]", f.name),
                            reason: e.to_string(),
                        },
                    )
                })?;
            by_name.insert(f.name.clone(), i);
            let anchor = f.anchor.map(Vec2::from);
            // The frame carries its anchor, so a sprite made of it starts anchored (PixiJS's defaultAnchor).
            let t = t.with_default_anchor(anchor.unwrap_or(Vec2::ZERO));
            frames.push((f.name, t, anchor));
        }
        let animations = data
            .animations
            .into_iter()
            .map(|(name, indices)| Animation {
                frames: std::sync::Arc::new(Frames {
                    textures: indices.iter().map(|&i| frames[i].1).collect(),
                    anchors: Some(indices.iter().map(|&i| frames[i].2).collect()),
                }),
                name,
                indices,
            })
            .collect();
        Ok(Spritesheet {
            texture,
            frames,
            by_name,
            animations,
            image: data.image,
            name: name.to_owned(),
        })
    }

    /// Reads a sheet's JSON file (at most 16 MiB) and parses it: what a loader's worker does.
    pub(crate) fn read(json_path: &Path) -> Result<sheet_json::SheetData> {
        let unreadable = |e: std::io::Error| Error::AssetLoad {
            path: json_path.to_owned(),
            reason: e.to_string(),
        };
        // Read up to the limit, not by the size the file system reports (a device file reports 0 and never ends).
        let max = sheet_json::MAX_DOCUMENT_BYTES;
        let json = match crate::base::read::read_capped(json_path, max, None) {
            Ok(bytes) => bytes,
            Err(crate::base::read::ReadError::Io(e)) => return Err(unreadable(e)),
            Err(_) => {
                return Err(sheet_error(
                    json_path,
                    SheetError {
                        field: "(document)".into(),
                        reason: format!(
                            "the document is longer than {max} bytes, the most accepted"
                        ),
                    },
                ))
            }
        };
        sheet_json::parse(&json).map_err(|e| sheet_error(json_path, e))
    }

    /// The image file parsed JSON names, resolved next to the JSON file.
    pub(crate) fn image_path_of(json_path: &Path, data: &sheet_json::SheetData) -> Result<PathBuf> {
        let image = data.image.clone().ok_or_else(|| Error::Spritesheet {
            sheet: json_path.to_owned(),
            field: "meta.image".into(),
            reason: "missing: name the sheet's image".into(),
        })?;
        Ok(json_path.parent().unwrap_or(Path::new("")).join(image))
    }

    /// The whole texture the frames are cut from.
    pub fn texture(&self) -> Texture {
        self.texture
    }

    /// The image file the JSON names (`meta.image`), as written there.
    pub fn image(&self) -> Option<&str> {
        self.image.as_deref()
    }

    /// The frame called `name` (as in the JSON, e.g. `"hero_walk_0.png"`), carrying the sheet's anchor for it as
    /// its [default anchor](Texture::default_anchor): `Node::sprite(frame)` is anchored as the sheet says.
    pub fn frame(&self, name: &str) -> Option<Texture> {
        self.by_name.get(name).map(|&i| self.frames[i].1)
    }

    /// The frame called `name`, or [`Error::NotInSheet`] naming it with the sheet's closest frame names (for a
    /// typo):
    ///
    /// ```
    /// # fn f(sheet: &stage2d::Spritesheet) {
    /// match sheet.try_frame("hero_wlak_0.png") {
    ///     Ok(texture) => { /* ... */ }
    ///     // spritesheet hero.json: no frame named "hero_wlak_0.png"; did you mean "hero_walk_0.png"?
    ///     Err(e) => eprintln!("{e}"),
    /// }
    /// # }
    /// ```
    pub fn try_frame(&self, name: &str) -> Result<Texture> {
        self.frame(name)
            .ok_or_else(|| self.not_found("frame", name, self.frame_names()))
    }

    /// [`Spritesheet::sprite`], or [`Error::NotInSheet`] as [`Spritesheet::try_frame`] gives it.
    pub fn try_sprite(&self, name: &str) -> Result<Sprite> {
        self.sprite(name)
            .ok_or_else(|| self.not_found("frame", name, self.frame_names()))
    }

    /// The error for a `what` (frame or animation) called `name` that the sheet lacks, with up to three of
    /// `names` closest to it.
    pub(crate) fn not_found<'a>(
        &self,
        what: &'static str,
        name: &str,
        names: impl Iterator<Item = &'a str>,
    ) -> Error {
        Error::NotInSheet {
            sheet: self.name.clone(),
            what,
            name: name.to_owned(),
            closest: closest(name, names),
        }
    }

    /// The anchor the sheet gives frame `name` (its `anchor`, or else its `pivot`), if any.
    pub fn anchor(&self, name: &str) -> Option<Vec2> {
        self.by_name.get(name).and_then(|&i| self.frames[i].2)
    }

    /// A sprite of frame `name` with the sheet's anchor (top-left if it gives none).
    pub fn sprite(&self, name: &str) -> Option<Sprite> {
        let &i = self.by_name.get(name)?;
        let (_, t, a) = &self.frames[i];
        let mut s = Sprite::new(*t);
        s.anchor = a.unwrap_or(Vec2::ZERO);
        Some(s)
    }

    /// Number of frames.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// Whether the sheet has no frames.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// Frame names in the sheet's order (the array's order; for the hash form, sorted by name).
    pub fn frame_names(&self) -> impl Iterator<Item = &str> {
        self.frames.iter().map(|f| f.0.as_str())
    }

    /// Animation names, in the sheet's order.
    pub fn animation_names(&self) -> impl Iterator<Item = &str> {
        self.animations.iter().map(|a| a.name.as_str())
    }

    /// The frames of animation `name`, in order.
    pub fn animation(&self, name: &str) -> Option<Vec<Texture>> {
        self.animation_data(name)
            .map(|a| a.frames.textures.to_vec())
    }

    /// The names of animation `name`'s frames, in order.
    pub fn animation_frame_names(&self, name: &str) -> Option<Vec<&str>> {
        self.animation_data(name).map(|a| {
            a.indices
                .iter()
                .map(|&i| self.frames[i].0.as_str())
                .collect()
        })
    }

    pub(crate) fn animation_data(&self, name: &str) -> Option<&Animation> {
        self.animations.iter().find(|a| a.name == name)
    }
}

impl AnimatedSprite {
    /// Plays the animation `name` of `sheet` on `node`, with the sheet's anchors ([`AnimatedSprite::update_anchor`]
    /// on). An unknown name is [`Error::NotInSheet`] with the sheet's closest animation names.
    pub fn from_sheet(node: NodeId, sheet: &Spritesheet, name: &str) -> Result<AnimatedSprite> {
        let anim = sheet
            .animation_data(name)
            .ok_or_else(|| sheet.not_found("animation", name, sheet.animation_names()))?;
        let mut a = AnimatedSprite::with_frames(node, anim.frames.clone())?;
        a.update_anchor = true;
        Ok(a)
    }
}

/// Up to three of `names` closest to `name` by edit distance (case ignored), closest first; only names within a
/// third of `name`'s length (at least 2 edits) count, so an unrelated name suggests nothing.
fn closest<'a>(name: &str, names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let want: Vec<char> = name.to_lowercase().chars().collect();
    let limit = (want.len() / 3).max(2);
    let mut near: Vec<(usize, &str)> = names
        .filter_map(|n| {
            let d = edit_distance(&want, &n.to_lowercase().chars().collect::<Vec<_>>(), limit)?;
            Some((d, n))
        })
        .collect();
    near.sort();
    near.into_iter()
        .take(3)
        .map(|(_, n)| n.to_owned())
        .collect()
}

/// The Levenshtein distance between `a` and `b`, if at most `limit` (a row whose best is past it stops early).
fn edit_distance(a: &[char], b: &[char], limit: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        let mut best = row[0];
        for (j, cb) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = (diag + usize::from(ca != cb)).min(up + 1).min(row[j] + 1);
            diag = up;
            best = best.min(row[j + 1]);
        }
        if best > limit {
            return None;
        }
    }
    Some(row[b.len()]).filter(|&d| d <= limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_close_to_a_typo_are_suggested_closest_first() {
        let names = [
            "hero_walk_0.png",
            "hero_walk_1.png",
            "hero_idle.png",
            "tree.png",
        ];
        assert_eq!(
            closest("hero_wlak_0.png", names.into_iter()),
            ["hero_walk_0.png", "hero_walk_1.png"]
        );
        assert_eq!(
            closest("HERO_IDLE.PNG", names.into_iter()),
            ["hero_idle.png"]
        );
        assert!(closest("explosion", names.into_iter()).is_empty());
        let chars = |s: &str| s.chars().collect::<Vec<_>>();
        assert_eq!(
            edit_distance(&chars("kitten"), &chars("sitting"), 5),
            Some(3)
        );
        assert_eq!(edit_distance(&chars("kitten"), &chars("sitting"), 2), None);
        assert_eq!(edit_distance(&chars(""), &chars("ab"), 2), Some(2));
    }
}
