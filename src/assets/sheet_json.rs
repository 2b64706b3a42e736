//! TexturePacker spritesheet JSON, in the "JSON Hash" and "JSON Array" forms that PixiJS's `Spritesheet`
//! accepts, parsed into plain data ([`SheetData`]) and checked against the decoded image
//! ([`check_against_image`]).
//!
//! The meaning of each member follows PixiJS v8's `Spritesheet._processFrames`: coordinates and sizes are
//! floored; `frame.w` and `frame.h` are the sprite's size before rotation, and a `rotated` frame occupies `h` by
//! `w` pixels of the image (TexturePacker turns it 90 degrees clockwise); `sourceSize` (the untrimmed size) and
//! `spriteSourceSize` (where the trimmed pixels sit in the untrimmed rectangle) apply unless `trimmed` is
//! `false`; the default anchor is `anchor`, else `pivot`.
//!
//! Frames come out in the sheet's order: the array's order in the array form and, in the hash form, the order in
//! which `serde_json` iterates the `frames` object, which is key order (names sorted byte-wise) unless serde_json's
//! `preserve_order` feature is on in the build (then it is the document's order). Animations come out in the
//! same order as the `animations` object's keys.
//!
//! Optional members that are `null` count as absent. Every error names the JSON member at fault
//! ([`SheetError::field`]), and limits on sizes and counts keep hostile documents cheap to reject.

use std::collections::HashMap;
use std::fmt;

use serde_json::{Map, Value};

/// The largest document accepted, in bytes (a hash of the most frames a sheet may hold is about 13 MB).
pub(crate) const MAX_DOCUMENT_BYTES: usize = 16 << 20;
/// The most values (counted by their separators, before parsing) a document may hold: a sheet of 65,536 frames
/// has about 2,000,000; the parsed tree of this many takes about 128 MiB.
const MAX_VALUES: usize = 4_000_000;
/// The most frames a sheet may hold.
const MAX_FRAMES: usize = 65_536;
/// The longest frame or animation name, in bytes.
const MAX_NAME_BYTES: usize = 1024;
/// The most animations a sheet may name.
const MAX_ANIMATIONS: usize = 4096;
/// The most frame references over all animations together.
const MAX_ANIMATION_ENTRIES: usize = 1_000_000;
/// The largest coordinate or size accepted (before flooring).
const MAX_COORDINATE: f64 = 65_536.0;
/// The field named by errors about the document as a whole.
const DOCUMENT: &str = "(document)";

/// One frame as the sheet describes it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FrameData {
    /// The frame's name: its key in the hash form, its `filename` in the array form.
    pub name: String,
    /// The region in the image: x, y, width, height as stored (width and height already swapped for rotated frames).
    pub region: [u32; 4],
    /// Stored rotated 90 degrees clockwise in the image.
    pub rotated: bool,
    /// The untrimmed size.
    pub source_size: [u32; 2],
    /// Where the trimmed pixels sit inside the untrimmed rectangle.
    pub trim_offset: [u32; 2],
    /// The default anchor (`anchor`, else `pivot`), normalised to the untrimmed size.
    pub anchor: Option<[f32; 2]>,
}

/// A whole sheet.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SheetData {
    /// `meta.image`, if given.
    pub image: Option<String>,
    /// `meta.size`, if given.
    pub size: Option<[u32; 2]>,
    /// `meta.scale` (the sheet's resolution, PixiJS's), 1 if not given.
    pub scale: f32,
    /// The frames, in the sheet's order (see the module's documentation).
    pub frames: Vec<FrameData>,
    /// Named animations: each a list of indices into `frames`, in the sheet's order.
    pub animations: Vec<(String, Vec<usize>)>,
}

/// What is wrong, and where: `field` is a JSON path such as `frames["hero.png"].frame.w` or `frames[3].rotated`
/// or `animations.walk[2]` or `meta.size`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SheetError {
    /// The JSON path of the member at fault, or `(document)` for the document as a whole.
    pub field: String,
    /// What is wrong with it.
    pub reason: String,
}

impl fmt::Display for SheetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.reason)
    }
}

impl std::error::Error for SheetError {}

/// Parses a TexturePacker sheet in the hash or the array form.
pub(crate) fn parse(json: &[u8]) -> Result<SheetData, SheetError> {
    if json.len() > MAX_DOCUMENT_BYTES {
        return Err(error(
            DOCUMENT,
            format!(
                "the document is {} bytes long; at most {MAX_DOCUMENT_BYTES} are accepted",
                json.len()
            ),
        ));
    }
    // Every value but the first follows a `,` or opens after `[` or `{`: an upper bound on the parsed tree's size,
    // taken before serde_json builds it.
    let values = json
        .iter()
        .filter(|&&b| matches!(b, b',' | b'[' | b'{'))
        .count();
    if values > MAX_VALUES {
        return Err(error(
            DOCUMENT,
            format!("the document holds about {values} values; at most {MAX_VALUES} are accepted"),
        ));
    }
    let document: Value =
        serde_json::from_slice(json).map_err(|e| error(DOCUMENT, e.to_string()))?;
    let Some(root) = document.as_object() else {
        return Err(error(
            "frames",
            format!(
                "the document is {}, not an object holding `frames`",
                kind(&document)
            ),
        ));
    };
    let frames = match member(root, "frames") {
        Some(Value::Object(map)) => hash_frames(map)?,
        Some(Value::Array(list)) => array_frames(list)?,
        Some(other) => {
            return Err(error(
                "frames",
                format!(
                    "expected an object (JSON Hash) or an array (JSON Array) of frames, found {}",
                    kind(other)
                ),
            ))
        }
        None => return Err(error("frames", "missing (a sheet must list its frames)")),
    };
    let index = index_names(&frames)?;
    let (image, size, scale) = parse_meta(root)?;
    let animations = parse_animations(root, &index)?;
    Ok(SheetData {
        image,
        size,
        scale,
        frames,
        animations,
    })
}

/// Checks every frame against the image's size (`image_size` = the decoded image's width, height): its region
/// must lie inside, be non-empty, and the trimmed rectangle (trim_offset + frame size before rotation) must lie
/// inside source_size. Also checks `meta.size`, if given, equals the image size. Errors name the field
/// (`frames["name"].frame`, `frames["name"].spriteSourceSize`, `meta.size`).
pub(crate) fn check_against_image(
    sheet: &SheetData,
    image_size: [u32; 2],
) -> Result<(), SheetError> {
    let [image_w, image_h] = image_size;
    if let Some([w, h]) = sheet.size.filter(|&size| size != image_size) {
        return Err(error(
            "meta.size",
            format!("the sheet says its image is {w}x{h}, but the image is {image_w}x{image_h}"),
        ));
    }
    for frame in &sheet.frames {
        let [x, y, w, h] = frame.region.map(u64::from);
        if w == 0 || h == 0 {
            return Err(error(
                format!("frames[\"{}\"].frame", frame.name),
                format!("the frame is empty ({w}x{h} pixels in the image)"),
            ));
        }
        if x + w > u64::from(image_w) || y + h > u64::from(image_h) {
            let stored = if frame.rotated {
                " (rotated, so stored with its width and height swapped)"
            } else {
                ""
            };
            return Err(error(
                format!("frames[\"{}\"].frame", frame.name),
                format!(
                    "the region {w}x{h} at ({x}, {y}){stored} reaches past the {image_w}x{image_h} image"
                ),
            ));
        }
        let [frame_w, frame_h] = if frame.rotated { [h, w] } else { [w, h] };
        let [offset_x, offset_y] = frame.trim_offset.map(u64::from);
        let [source_w, source_h] = frame.source_size.map(u64::from);
        if offset_x + frame_w > source_w || offset_y + frame_h > source_h {
            return Err(error(
                format!("frames[\"{}\"].spriteSourceSize", frame.name),
                format!(
                    "the trimmed {frame_w}x{frame_h} pixels at ({offset_x}, {offset_y}) reach past the \
                     untrimmed {source_w}x{source_h} rectangle"
                ),
            ));
        }
    }
    Ok(())
}

/// The frames of the hash form: `frames` maps each name to its frame.
fn hash_frames(map: &Map<String, Value>) -> Result<Vec<FrameData>, SheetError> {
    check_frame_count(map.len())?;
    let mut frames = Vec::with_capacity(map.len());
    for (name, value) in map {
        if name.len() > MAX_NAME_BYTES {
            return Err(error("frames", long_name(name)));
        }
        let at = format!("frames[\"{name}\"]");
        let object = as_object(value, &at)?;
        frames.push(parse_frame(name.clone(), object, &at)?);
    }
    Ok(frames)
}

/// The frames of the array form: each frame names itself with `filename`.
fn array_frames(list: &[Value]) -> Result<Vec<FrameData>, SheetError> {
    check_frame_count(list.len())?;
    let mut frames = Vec::with_capacity(list.len());
    for (index, value) in list.iter().enumerate() {
        let at = format!("frames[{index}]");
        let object = as_object(value, &at)?;
        let name = match member(object, "filename") {
            Some(Value::String(name)) => name,
            Some(other) => {
                return Err(error(
                    format!("{at}.filename"),
                    format!("expected a string, found {}", kind(other)),
                ))
            }
            None => {
                return Err(error(
                    format!("{at}.filename"),
                    "missing (the array form names each frame with `filename`)",
                ))
            }
        };
        if name.len() > MAX_NAME_BYTES {
            return Err(error(format!("{at}.filename"), long_name(name)));
        }
        frames.push(parse_frame(name.clone(), object, &at)?);
    }
    Ok(frames)
}

fn check_frame_count(count: usize) -> Result<(), SheetError> {
    if count > MAX_FRAMES {
        return Err(error(
            "frames",
            format!("the sheet has {count} frames; at most {MAX_FRAMES} are accepted"),
        ));
    }
    Ok(())
}

/// One frame's members; `at` is the frame's path (`frames["name"]` or `frames[3]`).
fn parse_frame(
    name: String,
    object: &Map<String, Value>,
    at: &str,
) -> Result<FrameData, SheetError> {
    let Some(frame) = object_member(object, "frame", at)? else {
        return Err(error(
            format!("{at}.frame"),
            "missing (every frame needs its rectangle in the image)",
        ));
    };
    let frame_at = format!("{at}.frame");
    let x = coordinate(frame, "x", &frame_at)?;
    let y = coordinate(frame, "y", &frame_at)?;
    let w = coordinate(frame, "w", &frame_at)?;
    let h = coordinate(frame, "h", &frame_at)?;
    let rotated = flag(object, "rotated", at)?.unwrap_or(false);
    let trimmed = flag(object, "trimmed", at)?.unwrap_or(true);

    let trim_offset = match object_member(object, "spriteSourceSize", at)? {
        Some(sprite_source) => {
            let sprite_at = format!("{at}.spriteSourceSize");
            let offset_x = coordinate(sprite_source, "x", &sprite_at)?;
            let offset_y = coordinate(sprite_source, "y", &sprite_at)?;
            for key in ["w", "h"] {
                if member(sprite_source, key).is_some() {
                    coordinate(sprite_source, key, &sprite_at)?;
                }
            }
            Some([offset_x, offset_y])
        }
        None => None,
    };
    let source_size = match object_member(object, "sourceSize", at)? {
        Some(source) => {
            let source_at = format!("{at}.sourceSize");
            Some([
                coordinate(source, "w", &source_at)?,
                coordinate(source, "h", &source_at)?,
            ])
        }
        None => None,
    };
    let anchor = point(object, "anchor", at)?;
    let pivot = point(object, "pivot", at)?;

    let (source_size, trim_offset) = if trimmed {
        (source_size.unwrap_or([w, h]), trim_offset.unwrap_or([0, 0]))
    } else {
        ([w, h], [0, 0])
    };
    Ok(FrameData {
        name,
        region: if rotated { [x, y, h, w] } else { [x, y, w, h] },
        rotated,
        source_size,
        trim_offset,
        anchor: anchor.or(pivot),
    })
}

/// Each frame's index by name; two frames with one name are an error.
fn index_names(frames: &[FrameData]) -> Result<HashMap<&str, usize>, SheetError> {
    let mut index = HashMap::with_capacity(frames.len());
    for (i, frame) in frames.iter().enumerate() {
        if let Some(first) = index.insert(frame.name.as_str(), i) {
            return Err(error(
                format!("frames[{i}].filename"),
                format!(
                    "the name \"{}\" is already used by frames[{first}]",
                    preview(&frame.name)
                ),
            ));
        }
    }
    Ok(index)
}

/// `meta.image`, `meta.size` and `meta.scale` (1 if absent).
#[allow(clippy::type_complexity)]
fn parse_meta(
    root: &Map<String, Value>,
) -> Result<(Option<String>, Option<[u32; 2]>, f32), SheetError> {
    let Some(meta) = object_member(root, "meta", "")? else {
        return Ok((None, None, 1.0));
    };
    let image = match member(meta, "image") {
        Some(Value::String(image)) => Some(image.clone()),
        Some(other) => {
            return Err(error(
                "meta.image",
                format!("expected a string, found {}", kind(other)),
            ))
        }
        None => None,
    };
    let size = match object_member(meta, "size", "meta")? {
        Some(size) => Some([
            coordinate(size, "w", "meta.size")?,
            coordinate(size, "h", "meta.size")?,
        ]),
        None => None,
    };
    let mut resolution = 1.0;
    if let Some(scale) = member(meta, "scale") {
        let number = match scale {
            Value::Number(number) => number.as_f64(),
            Value::String(text) => text.trim().parse::<f64>().ok(),
            _ => None,
        };
        match number {
            Some(n) if n.is_finite() && n > 0.0 => resolution = n as f32,
            _ => {
                return Err(error(
                    "meta.scale",
                    format!(
                        "expected a finite positive number or numeric string, found {}",
                        describe(scale)
                    ),
                ))
            }
        }
    }
    Ok((image, size, resolution))
}

/// `animations`: each name maps to a list of frame names, resolved to indices into the frames.
fn parse_animations(
    root: &Map<String, Value>,
    index: &HashMap<&str, usize>,
) -> Result<Vec<(String, Vec<usize>)>, SheetError> {
    let Some(map) = object_member(root, "animations", "")? else {
        return Ok(Vec::new());
    };
    if map.len() > MAX_ANIMATIONS {
        return Err(error(
            "animations",
            format!(
                "the sheet has {} animations; at most {MAX_ANIMATIONS} are accepted",
                map.len()
            ),
        ));
    }
    let mut animations = Vec::with_capacity(map.len());
    let mut total = 0usize;
    for (name, value) in map {
        if name.len() > MAX_NAME_BYTES {
            return Err(error("animations", long_name(name)));
        }
        let at = format!("animations.{name}");
        let Some(list) = value.as_array() else {
            return Err(error(
                at,
                format!("expected an array of frame names, found {}", kind(value)),
            ));
        };
        total += list.len();
        if total > MAX_ANIMATION_ENTRIES {
            return Err(error(
                "animations",
                format!(
                    "the animations list more than {MAX_ANIMATION_ENTRIES} frames in all; no more are accepted"
                ),
            ));
        }
        let mut frames = Vec::with_capacity(list.len());
        for (i, entry) in list.iter().enumerate() {
            let Some(frame_name) = entry.as_str() else {
                return Err(error(
                    format!("{at}[{i}]"),
                    format!("expected a frame name, found {}", kind(entry)),
                ));
            };
            let Some(&frame) = index.get(frame_name) else {
                return Err(error(
                    format!("{at}[{i}]"),
                    format!("no frame is named \"{}\"", preview(frame_name)),
                ));
            };
            frames.push(frame);
        }
        animations.push((name.clone(), frames));
    }
    Ok(animations)
}

/// A member that is present and not `null`.
fn member<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    object.get(key).filter(|value| !value.is_null())
}

/// The path of `key` inside the member at `parent` (the empty path being the document's top level).
fn path(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_owned()
    } else {
        format!("{parent}.{key}")
    }
}

/// A value that must be an object; `at` is its path.
fn as_object<'a>(value: &'a Value, at: &str) -> Result<&'a Map<String, Value>, SheetError> {
    value
        .as_object()
        .ok_or_else(|| error(at, format!("expected an object, found {}", kind(value))))
}

/// An optional member that must be an object.
fn object_member<'a>(
    object: &'a Map<String, Value>,
    key: &str,
    parent: &str,
) -> Result<Option<&'a Map<String, Value>>, SheetError> {
    member(object, key)
        .map(|inner| as_object(inner, &path(parent, key)))
        .transpose()
}

/// An optional member that must be `true` or `false`.
fn flag(object: &Map<String, Value>, key: &str, parent: &str) -> Result<Option<bool>, SheetError> {
    match member(object, key) {
        None => Ok(None),
        Some(Value::Bool(value)) => Ok(Some(*value)),
        Some(other) => Err(error(
            path(parent, key),
            format!("expected true or false, found {}", kind(other)),
        )),
    }
}

/// A required member that must be a number.
fn number(object: &Map<String, Value>, key: &str, parent: &str) -> Result<f64, SheetError> {
    let Some(value) = member(object, key) else {
        return Err(error(path(parent, key), "missing (a number is required)"));
    };
    value.as_f64().ok_or_else(|| {
        error(
            path(parent, key),
            format!("expected a number, found {}", describe(value)),
        )
    })
}

/// A required coordinate or size: a finite number from 0 to 65,536, floored.
fn coordinate(object: &Map<String, Value>, key: &str, parent: &str) -> Result<u32, SheetError> {
    let number = number(object, key, parent)?;
    if !number.is_finite() {
        return Err(error(
            path(parent, key),
            format!("{number} is not a finite number"),
        ));
    }
    if number < 0.0 {
        return Err(error(path(parent, key), format!("{number} is negative")));
    }
    if number > MAX_COORDINATE {
        return Err(error(
            path(parent, key),
            format!("{number} is larger than {MAX_COORDINATE}"),
        ));
    }
    Ok(number.floor() as u32)
}

/// An optional `{"x": .., "y": ..}` of finite numbers (an anchor or a pivot).
fn point(
    object: &Map<String, Value>,
    key: &str,
    parent: &str,
) -> Result<Option<[f32; 2]>, SheetError> {
    let Some(point) = object_member(object, key, parent)? else {
        return Ok(None);
    };
    let at = path(parent, key);
    Ok(Some([finite(point, "x", &at)?, finite(point, "y", &at)?]))
}

/// A required number that is finite as an `f32`.
fn finite(object: &Map<String, Value>, key: &str, parent: &str) -> Result<f32, SheetError> {
    let number = number(object, key, parent)?;
    let single = number as f32;
    if !single.is_finite() {
        return Err(error(
            path(parent, key),
            format!("{number} is not a finite 32-bit number"),
        ));
    }
    Ok(single)
}

fn error(field: impl Into<String>, reason: impl Into<String>) -> SheetError {
    SheetError {
        field: field.into(),
        reason: reason.into(),
    }
}

/// What kind of JSON value this is, for messages.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The kind of a value, with the value itself where it is short, for messages.
fn describe(value: &Value) -> String {
    match value {
        Value::String(text) => format!("the string \"{}\"", preview(text)),
        Value::Bool(flag) => format!("the boolean {flag}"),
        Value::Number(number) => format!("the number {number}"),
        other => kind(other).to_owned(),
    }
}

/// The start of a name that may be long, for messages.
fn preview(name: &str) -> String {
    const SHOWN: usize = 64;
    if name.len() <= SHOWN {
        return name.to_owned();
    }
    let mut end = SHOWN;
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &name[..end])
}

/// The reason given for a name over the limit.
fn long_name(name: &str) -> String {
    format!(
        "the name \"{}\" is {} bytes long; at most {MAX_NAME_BYTES} are accepted",
        preview(name),
        name.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::{any, Strategy};
    use serde_json::json;

    fn ok(text: &str) -> SheetData {
        match parse(text.as_bytes()) {
            Ok(sheet) => sheet,
            Err(e) => panic!("expected {text} to parse, got {e}"),
        }
    }

    fn fails(text: &str) -> SheetError {
        match parse(text.as_bytes()) {
            Ok(sheet) => panic!("expected {text} to fail, got {sheet:?}"),
            Err(e) => e,
        }
    }

    fn frame(name: &str, region: [u32; 4]) -> FrameData {
        FrameData {
            name: name.to_owned(),
            region,
            rotated: false,
            source_size: [region[2], region[3]],
            trim_offset: [0, 0],
            anchor: None,
        }
    }

    const HASH: &str = r#"{
        "frames": {
            "a.png": {"frame": {"x": 0, "y": 0, "w": 16, "h": 8}, "rotated": false, "trimmed": false,
                      "spriteSourceSize": {"x": 0, "y": 0, "w": 16, "h": 8}, "sourceSize": {"w": 16, "h": 8}},
            "b.png": {"frame": {"x": 16, "y": 0, "w": 10, "h": 4}, "rotated": true, "trimmed": true,
                      "spriteSourceSize": {"x": 3, "y": 5, "w": 10, "h": 4}, "sourceSize": {"w": 20, "h": 16}},
            "c.png": {"frame": {"x": 0, "y": 8, "w": 8, "h": 8}, "anchor": {"x": 0.5, "y": 1}}
        },
        "animations": {"idle": ["b.png"], "walk": ["c.png", "a.png", "c.png"]},
        "meta": {"image": "sheet.png", "size": {"w": 32, "h": 32}, "scale": "1"}
    }"#;

    const ARRAY: &str = r#"{
        "frames": [
            {"filename": "a.png", "frame": {"x": 0, "y": 0, "w": 16, "h": 8}, "rotated": false, "trimmed": false,
             "spriteSourceSize": {"x": 0, "y": 0, "w": 16, "h": 8}, "sourceSize": {"w": 16, "h": 8}},
            {"filename": "b.png", "frame": {"x": 16, "y": 0, "w": 10, "h": 4}, "rotated": true, "trimmed": true,
             "spriteSourceSize": {"x": 3, "y": 5, "w": 10, "h": 4}, "sourceSize": {"w": 20, "h": 16}},
            {"filename": "c.png", "frame": {"x": 0, "y": 8, "w": 8, "h": 8}, "anchor": {"x": 0.5, "y": 1}}
        ],
        "animations": {"idle": ["b.png"], "walk": ["c.png", "a.png", "c.png"]},
        "meta": {"image": "sheet.png", "size": {"w": 32, "h": 32}, "scale": 1}
    }"#;

    fn expected_frames() -> Vec<FrameData> {
        vec![
            frame("a.png", [0, 0, 16, 8]),
            FrameData {
                name: "b.png".to_owned(),
                region: [16, 0, 4, 10],
                rotated: true,
                source_size: [20, 16],
                trim_offset: [3, 5],
                anchor: None,
            },
            FrameData {
                anchor: Some([0.5, 1.0]),
                ..frame("c.png", [0, 8, 8, 8])
            },
        ]
    }

    #[test]
    fn hash_and_array_forms_parse_to_the_same_sheet() {
        let hash = ok(HASH);
        let array = ok(ARRAY);
        assert_eq!(hash, array);
        assert_eq!(hash.frames, expected_frames());
        assert_eq!(hash.image.as_deref(), Some("sheet.png"));
        assert_eq!(hash.size, Some([32, 32]));
        assert_eq!(check_against_image(&hash, [32, 32]), Ok(()));
    }

    #[test]
    fn animations_resolve_to_frame_indices() {
        let sheet = ok(HASH);
        assert_eq!(
            sheet.animations,
            vec![
                ("idle".to_owned(), vec![1]),
                ("walk".to_owned(), vec![2, 0, 2]),
            ]
        );
        let empty = ok(
            r#"{"frames": {"a": {"frame": {"x": 0, "y": 0, "w": 1, "h": 1}}}, "animations": {"none": []}}"#,
        );
        assert_eq!(empty.animations, vec![("none".to_owned(), Vec::new())]);
    }

    #[test]
    fn rotated_frames_swap_width_and_height_in_the_image() {
        let sheet = ok(
            r#"{"frames": [{"filename": "r", "frame": {"x": 2, "y": 3, "w": 10, "h": 4}, "rotated": true}]}"#,
        );
        let r = &sheet.frames[0];
        assert!(r.rotated);
        assert_eq!(r.region, [2, 3, 4, 10]);
        assert_eq!(r.source_size, [10, 4]);
        assert_eq!(r.trim_offset, [0, 0]);
    }

    #[test]
    fn trimmed_frames_take_the_offset_and_source_size() {
        for trimmed in [r#""trimmed": true,"#, ""] {
            let sheet = ok(&format!(
                r#"{{"frames": {{"t": {{"frame": {{"x": 1, "y": 1, "w": 10, "h": 4}}, {trimmed}
                    "spriteSourceSize": {{"x": 3, "y": 5, "w": 10, "h": 4}}, "sourceSize": {{"w": 20, "h": 16}}}}}}}}"#
            ));
            let t = &sheet.frames[0];
            assert_eq!(t.region, [1, 1, 10, 4]);
            assert_eq!(t.source_size, [20, 16]);
            assert_eq!(t.trim_offset, [3, 5]);
        }
        let only_source = ok(
            r#"{"frames": {"t": {"frame": {"x": 0, "y": 0, "w": 10, "h": 4}, "sourceSize": {"w": 12, "h": 6}}}}"#,
        );
        assert_eq!(only_source.frames[0].source_size, [12, 6]);
        assert_eq!(only_source.frames[0].trim_offset, [0, 0]);
        let only_offset = ok(
            r#"{"frames": {"t": {"frame": {"x": 0, "y": 0, "w": 10, "h": 4}, "spriteSourceSize": {"x": 1, "y": 2}}}}"#,
        );
        assert_eq!(only_offset.frames[0].source_size, [10, 4]);
        assert_eq!(only_offset.frames[0].trim_offset, [1, 2]);
    }

    #[test]
    fn untrimmed_frames_ignore_sprite_source_size_and_source_size() {
        let sheet = ok(
            r#"{"frames": {"u": {"frame": {"x": 0, "y": 0, "w": 10, "h": 4}, "trimmed": false,
            "spriteSourceSize": {"x": 3, "y": 5, "w": 10, "h": 4}, "sourceSize": {"w": 20, "h": 16}}}}"#,
        );
        let u = &sheet.frames[0];
        assert_eq!(u.source_size, [10, 4]);
        assert_eq!(u.trim_offset, [0, 0]);
    }

    #[test]
    fn numbers_are_floored() {
        let sheet = ok(
            r#"{"frames": {"f": {"frame": {"x": 1.9, "y": 2.0, "w": 10.5, "h": 65536},
            "spriteSourceSize": {"x": 0.99, "y": 3.5}, "sourceSize": {"w": 11.99, "h": 65536.0}}}}"#,
        );
        let f = &sheet.frames[0];
        assert_eq!(f.region, [1, 2, 10, 65536]);
        assert_eq!(f.trim_offset, [0, 3]);
        assert_eq!(f.source_size, [11, 65536]);
    }

    #[test]
    fn anchor_wins_over_pivot() {
        let both = ok(
            r#"{"frames": {"f": {"frame": {"x": 0, "y": 0, "w": 1, "h": 1},
            "anchor": {"x": 0.25, "y": 0.75}, "pivot": {"x": 0.5, "y": 0.5}}}}"#,
        );
        assert_eq!(both.frames[0].anchor, Some([0.25, 0.75]));
        let pivot = ok(
            r#"{"frames": {"f": {"frame": {"x": 0, "y": 0, "w": 1, "h": 1}, "pivot": {"x": -0.5, "y": 1.5}}}}"#,
        );
        assert_eq!(pivot.frames[0].anchor, Some([-0.5, 1.5]));
        let neither = ok(r#"{"frames": {"f": {"frame": {"x": 0, "y": 0, "w": 1, "h": 1}}}}"#);
        assert_eq!(neither.frames[0].anchor, None);
        let huge = fails(
            r#"{"frames": {"f": {"frame": {"x": 0, "y": 0, "w": 1, "h": 1}, "anchor": {"x": 1e39, "y": 0}}}}"#,
        );
        assert_eq!(huge.field, r#"frames["f"].anchor.x"#);
        let text = fails(
            r#"{"frames": {"f": {"frame": {"x": 0, "y": 0, "w": 1, "h": 1}, "pivot": {"x": 0, "y": "a"}}}}"#,
        );
        assert_eq!(text.field, r#"frames["f"].pivot.y"#);
    }

    #[test]
    fn null_optional_members_count_as_absent() {
        let sheet = ok(
            r#"{"frames": {"f": {"frame": {"x": 0, "y": 0, "w": 3, "h": 2}, "rotated": null, "trimmed": null,
            "spriteSourceSize": null, "sourceSize": null, "anchor": null, "pivot": null}},
            "animations": null, "meta": {"image": null, "size": null, "scale": null}}"#,
        );
        assert_eq!(sheet.frames, vec![frame("f", [0, 0, 3, 2])]);
        assert_eq!(sheet.image, None);
        assert_eq!(sheet.size, None);
        assert!(sheet.animations.is_empty());
        let bare = ok(r#"{"frames": []}"#);
        assert!(bare.frames.is_empty());
    }

    #[test]
    fn malformed_json_names_the_document() {
        let e = fails(r#"{"frames": {"#);
        assert_eq!(e.field, "(document)");
        assert!(e.reason.contains("line 1 column"), "{}", e.reason);
        assert_eq!(fails("").field, "(document)");
        assert_eq!(fails(r#"{"frames": []} x"#).field, "(document)");
        assert_eq!(fails(&"[".repeat(100_000)).field, "(document)");
    }

    #[test]
    fn the_top_level_must_hold_frames() {
        assert_eq!(fails("[]").field, "frames");
        assert_eq!(fails("3").field, "frames");
        assert_eq!(fails("{}").field, "frames");
        assert_eq!(fails(r#"{"frames": null}"#).field, "frames");
        assert_eq!(fails(r#"{"frames": "a.png"}"#).field, "frames");
    }

    #[test]
    fn negative_numbers_are_errors() {
        let hash =
            fails(r#"{"frames": {"hero.png": {"frame": {"x": -1, "y": 0, "w": 1, "h": 1}}}}"#);
        assert_eq!(hash.field, r#"frames["hero.png"].frame.x"#);
        assert!(hash.field.ends_with(".frame.x"));
        assert!(hash.reason.contains("negative"), "{}", hash.reason);
        let array = fails(
            r#"{"frames": [{"filename": "hero.png", "frame": {"x": -0.5, "y": 0, "w": 1, "h": 1}}]}"#,
        );
        assert_eq!(array.field, "frames[0].frame.x");
        let offset = fails(
            r#"{"frames": [{"filename": "a", "frame": {"x": 0, "y": 0, "w": 1, "h": 1},
            "spriteSourceSize": {"x": 0, "y": -3}}]}"#,
        );
        assert_eq!(offset.field, "frames[0].spriteSourceSize.y");
    }

    #[test]
    fn numbers_over_the_limit_are_errors() {
        let e = fails(r#"{"frames": {"a": {"frame": {"x": 0, "y": 0, "w": 65536.5, "h": 1}}}}"#);
        assert_eq!(e.field, r#"frames["a"].frame.w"#);
        let e = fails(
            r#"{"frames": {"a": {"frame": {"x": 0, "y": 0, "w": 1, "h": 1}, "sourceSize": {"w": 1, "h": 1e300}}}}"#,
        );
        assert_eq!(e.field, r#"frames["a"].sourceSize.h"#);
        let e = fails(
            r#"{"frames": {"a": {"frame": {"x": 0, "y": 0, "w": 1, "h": 18446744073709551615}}}}"#,
        );
        assert_eq!(e.field, r#"frames["a"].frame.h"#);
    }

    #[test]
    fn strings_where_numbers_are_expected_are_errors() {
        let e =
            fails(r#"{"frames": {"hero.png": {"frame": {"x": 0, "y": 0, "w": "10", "h": 1}}}}"#);
        assert_eq!(e.field, r#"frames["hero.png"].frame.w"#);
        assert!(e.reason.contains("string"), "{}", e.reason);
        let e = fails(
            r#"{"frames": [{"filename": "a", "frame": {"x": 0, "y": 0, "w": 1, "h": 1}}, {"filename": "b", "frame": {"x": 0, "y": [], "w": 1, "h": 1}}]}"#,
        );
        assert_eq!(e.field, "frames[1].frame.y");
        let e = fails(r#"{"frames": {"a": {"frame": {"x": 0, "y": 0, "w": 1}}}}"#);
        assert_eq!(e.field, r#"frames["a"].frame.h"#);
    }

    #[test]
    fn frames_must_be_objects_with_a_frame() {
        let e = fails(r#"{"frames": {"a.png": {"rotated": true}}}"#);
        assert_eq!(e.field, r#"frames["a.png"].frame"#);
        let e = fails(r#"{"frames": {"a.png": {"frame": [0, 0, 1, 1]}}}"#);
        assert_eq!(e.field, r#"frames["a.png"].frame"#);
        let e = fails(r#"{"frames": {"a.png": 7}}"#);
        assert_eq!(e.field, r#"frames["a.png"]"#);
        let e = fails(
            r#"{"frames": [{"filename": "a", "frame": {"x": 0, "y": 0, "w": 1, "h": 1}}, "b"]}"#,
        );
        assert_eq!(e.field, "frames[1]");
        let e = fails(
            r#"{"frames": [{"filename": "a", "frame": {"x": 0, "y": 0, "w": 1, "h": 1}}, {"frame": {"x": 0, "y": 0, "w": 1, "h": 1}}]}"#,
        );
        assert_eq!(e.field, "frames[1].filename");
        let e =
            fails(r#"{"frames": [{"filename": 5, "frame": {"x": 0, "y": 0, "w": 1, "h": 1}}]}"#);
        assert_eq!(e.field, "frames[0].filename");
        let e = fails(
            r#"{"frames": [{"filename": "a", "frame": {"x": 0, "y": 0, "w": 1, "h": 1}, "rotated": 1}]}"#,
        );
        assert_eq!(e.field, "frames[0].rotated");
        let e = fails(
            r#"{"frames": [{"filename": "a", "frame": {"x": 0, "y": 0, "w": 1, "h": 1}, "trimmed": "yes"}]}"#,
        );
        assert_eq!(e.field, "frames[0].trimmed");
        let e = fails(
            r#"{"frames": [{"filename": "a", "frame": {"x": 0, "y": 0, "w": 1, "h": 1}, "sourceSize": [1, 1]}]}"#,
        );
        assert_eq!(e.field, "frames[0].sourceSize");
        let e = fails(
            r#"{"frames": [{"filename": "a", "frame": {"x": 0, "y": 0, "w": 1, "h": 1}, "sourceSize": {"w": 1}}]}"#,
        );
        assert_eq!(e.field, "frames[0].sourceSize.h");
    }

    #[test]
    fn duplicate_names_are_errors() {
        let e = fails(
            r#"{"frames": [
                {"filename": "a", "frame": {"x": 0, "y": 0, "w": 1, "h": 1}},
                {"filename": "b", "frame": {"x": 0, "y": 0, "w": 1, "h": 1}},
                {"filename": "a", "frame": {"x": 1, "y": 0, "w": 1, "h": 1}}
            ]}"#,
        );
        assert_eq!(e.field, "frames[2].filename");
        assert!(e.reason.contains("frames[0]"), "{}", e.reason);
    }

    #[test]
    fn animations_must_name_known_frames() {
        let frames = r#""frames": {"a.png": {"frame": {"x": 0, "y": 0, "w": 1, "h": 1}}}"#;
        let e = fails(&format!(
            r#"{{{frames}, "animations": {{"walk": ["a.png", "b.png"]}}}}"#
        ));
        assert_eq!(e.field, "animations.walk[1]");
        assert!(e.reason.contains("b.png"), "{}", e.reason);
        let e = fails(&format!(
            r#"{{{frames}, "animations": {{"walk": "a.png"}}}}"#
        ));
        assert_eq!(e.field, "animations.walk");
        let e = fails(&format!(
            r#"{{{frames}, "animations": {{"walk": ["a.png", 3]}}}}"#
        ));
        assert_eq!(e.field, "animations.walk[1]");
        let e = fails(&format!(r#"{{{frames}, "animations": ["a.png"]}}"#));
        assert_eq!(e.field, "animations");
    }

    #[test]
    fn meta_is_validated() {
        let frames = r#""frames": {"a": {"frame": {"x": 0, "y": 0, "w": 1, "h": 1}}}"#;
        for scale in ["1", "\"1\"", "0.5", "\" 2 \"", "2", "\"0.5\""] {
            ok(&format!(r#"{{{frames}, "meta": {{"scale": {scale}}}}}"#));
        }
        for scale in [
            "0", "-1", "\"abc\"", "\"\"", "true", "[1]", "\"inf\"", "\"NaN\"", "\"-2\"",
        ] {
            let e = fails(&format!(r#"{{{frames}, "meta": {{"scale": {scale}}}}}"#));
            assert_eq!(e.field, "meta.scale", "scale {scale}");
        }
        assert_eq!(fails(&format!(r#"{{{frames}, "meta": 1}}"#)).field, "meta");
        assert_eq!(
            fails(&format!(r#"{{{frames}, "meta": {{"image": 1}}}}"#)).field,
            "meta.image"
        );
        assert_eq!(
            fails(&format!(r#"{{{frames}, "meta": {{"size": 1}}}}"#)).field,
            "meta.size"
        );
        assert_eq!(
            fails(&format!(
                r#"{{{frames}, "meta": {{"size": {{"w": -1, "h": 1}}}}}}"#
            ))
            .field,
            "meta.size.w"
        );
    }

    #[test]
    fn names_over_the_limit_are_errors() {
        let long = "n".repeat(MAX_NAME_BYTES + 1);
        let longest = "n".repeat(MAX_NAME_BYTES);
        let rect = r#"{"x": 0, "y": 0, "w": 1, "h": 1}"#;
        ok(&format!(
            r#"{{"frames": {{"{longest}": {{"frame": {rect}}}}}}}"#
        ));
        ok(&format!(
            r#"{{"frames": [{{"filename": "{longest}", "frame": {rect}}}]}}"#
        ));
        let e = fails(&format!(
            r#"{{"frames": {{"{long}": {{"frame": {rect}}}}}}}"#
        ));
        assert_eq!(e.field, "frames");
        assert!(e.reason.len() < 200, "{}", e.reason);
        let e = fails(&format!(
            r#"{{"frames": [{{"filename": "{long}", "frame": {rect}}}]}}"#
        ));
        assert_eq!(e.field, "frames[0].filename");
        let e = fails(&format!(
            r#"{{"frames": {{"a": {{"frame": {rect}}}}}, "animations": {{"{long}": ["a"]}}}}"#
        ));
        assert_eq!(e.field, "animations");
        let multibyte = "é".repeat(600);
        let e = fails(&format!(
            r#"{{"frames": {{"{multibyte}": {{"frame": {rect}}}}}}}"#
        ));
        assert_eq!(e.field, "frames");
    }

    #[test]
    fn too_many_frames_are_rejected() {
        let mut array = String::from(r#"{"frames": ["#);
        let mut hash = String::from(r#"{"frames": {"#);
        for i in 0..=MAX_FRAMES {
            if i > 0 {
                array.push(',');
                hash.push(',');
            }
            array.push_str("{}");
            hash.push_str(&format!(r#""{i}": {{}}"#));
        }
        array.push_str("]}");
        hash.push_str("}}");
        assert_eq!(fails(&array).field, "frames");
        assert_eq!(fails(&hash).field, "frames");
    }

    #[test]
    fn too_many_animations_or_entries_are_errors() {
        let frames = r#""frames": {"a": {"frame": {"x": 0, "y": 0, "w": 1, "h": 1}}}"#;
        let mut many = String::new();
        for i in 0..=MAX_ANIMATIONS {
            if i > 0 {
                many.push(',');
            }
            many.push_str(&format!(r#""anim{i}": []"#));
        }
        let e = fails(&format!(r#"{{{frames}, "animations": {{{many}}}}}"#));
        assert_eq!(e.field, "animations");

        let half = vec![r#""a""#; MAX_ANIMATION_ENTRIES / 2].join(",");
        let at_limit =
            format!(r#"{{{frames}, "animations": {{"one": [{half}], "two": [{half}]}}}}"#);
        assert_eq!(ok(&at_limit).animations.len(), 2);
        let over = format!(
            r#"{{{frames}, "animations": {{"one": [{half}], "two": [{half}], "three": ["a"]}}}}"#
        );
        assert_eq!(fails(&over).field, "animations");
    }

    #[test]
    fn documents_of_too_many_values_are_rejected_before_parsing() {
        let mut text = String::from(r#"{"frames": ["#);
        text.push_str(&"0,".repeat(MAX_VALUES));
        text.push_str("0]}");
        assert!(text.len() <= MAX_DOCUMENT_BYTES);
        let e = parse(text.as_bytes()).unwrap_err();
        assert_eq!(e.field, "(document)");
        assert!(e.reason.contains("values"), "{}", e.reason);
    }

    #[test]
    fn documents_over_the_limit_are_rejected() {
        let mut text = vec![b' '; MAX_DOCUMENT_BYTES + 1];
        text[..2].copy_from_slice(b"{}");
        let e = match parse(&text) {
            Ok(sheet) => panic!("parsed {sheet:?}"),
            Err(e) => e,
        };
        assert_eq!(e.field, "(document)");
    }

    fn one_frame(extra: &str, frame: &str) -> SheetData {
        ok(&format!(
            r#"{{"frames": {{"a.png": {{"frame": {frame}{extra}}}}}}}"#
        ))
    }

    #[test]
    fn frames_must_lie_inside_the_image() {
        let inside = one_frame("", r#"{"x": 56, "y": 0, "w": 8, "h": 64}"#);
        assert_eq!(check_against_image(&inside, [64, 64]), Ok(()));
        let past = one_frame("", r#"{"x": 60, "y": 0, "w": 8, "h": 8}"#);
        let e = check_against_image(&past, [64, 64]).expect_err("past the right edge");
        assert_eq!(e.field, r#"frames["a.png"].frame"#);
        let below = one_frame("", r#"{"x": 0, "y": 60, "w": 8, "h": 8}"#);
        assert!(check_against_image(&below, [64, 64]).is_err());
        let far = one_frame("", r#"{"x": 65536, "y": 65536, "w": 65536, "h": 65536}"#);
        assert!(check_against_image(&far, [u32::MAX, 64]).is_err());

        let upright = one_frame("", r#"{"x": 50, "y": 0, "w": 4, "h": 20}"#);
        assert_eq!(check_against_image(&upright, [64, 64]), Ok(()));
        let rotated = one_frame(
            r#", "rotated": true"#,
            r#"{"x": 50, "y": 0, "w": 4, "h": 20}"#,
        );
        let e = check_against_image(&rotated, [64, 64]).expect_err("rotated past the right edge");
        assert_eq!(e.field, r#"frames["a.png"].frame"#);
        assert!(e.reason.contains("rotated"), "{}", e.reason);
        let rotated_tall = one_frame(
            r#", "rotated": true"#,
            r#"{"x": 0, "y": 50, "w": 20, "h": 4}"#,
        );
        assert!(check_against_image(&rotated_tall, [64, 64]).is_err());

        let empty = one_frame("", r#"{"x": 0, "y": 0, "w": 0, "h": 8}"#);
        let e = check_against_image(&empty, [64, 64]).expect_err("empty frame");
        assert_eq!(e.field, r#"frames["a.png"].frame"#);
    }

    #[test]
    fn trimmed_pixels_must_lie_inside_the_source_size() {
        let rect = r#"{"x": 0, "y": 0, "w": 8, "h": 4}"#;
        let fits = one_frame(
            r#", "spriteSourceSize": {"x": 8, "y": 12}, "sourceSize": {"w": 16, "h": 16}"#,
            rect,
        );
        assert_eq!(check_against_image(&fits, [64, 64]), Ok(()));
        let outside = one_frame(
            r#", "spriteSourceSize": {"x": 12, "y": 0}, "sourceSize": {"w": 16, "h": 16}"#,
            rect,
        );
        let e = check_against_image(&outside, [64, 64]).expect_err("trim outside the source");
        assert_eq!(e.field, r#"frames["a.png"].spriteSourceSize"#);
        let small_source = one_frame(r#", "sourceSize": {"w": 4, "h": 4}"#, rect);
        assert!(check_against_image(&small_source, [64, 64]).is_err());

        let rotated_fits = one_frame(
            r#", "rotated": true, "spriteSourceSize": {"x": 8, "y": 12}, "sourceSize": {"w": 16, "h": 16}"#,
            rect,
        );
        assert_eq!(rotated_fits.frames[0].region, [0, 0, 4, 8]);
        assert_eq!(check_against_image(&rotated_fits, [64, 64]), Ok(()));
        let rotated_outside = one_frame(
            r#", "rotated": true, "spriteSourceSize": {"x": 9, "y": 0}, "sourceSize": {"w": 16, "h": 16}"#,
            rect,
        );
        assert!(check_against_image(&rotated_outside, [64, 64]).is_err());
    }

    #[test]
    fn meta_size_must_match_the_image() {
        let sheet = ok(HASH);
        let e = check_against_image(&sheet, [32, 64]).expect_err("size mismatch");
        assert_eq!(e.field, "meta.size");
        let undeclared = SheetData {
            size: None,
            ..sheet
        };
        assert_eq!(check_against_image(&undeclared, [32, 64]), Ok(()));
    }

    #[test]
    fn errors_display_field_and_reason() {
        let e = error("meta.size", "wrong");
        assert_eq!(e.to_string(), "meta.size: wrong");
    }

    /// Image-relative position and size, rotated/trimmed/pivot flags, trim padding, anchor.
    type Spec = (
        (f64, f64, f64, f64),
        (bool, bool, bool),
        [u32; 4],
        Option<(f32, f32)>,
    );

    fn spec() -> impl Strategy<Value = Spec> {
        (
            (0.0f64..1.0, 0.0f64..1.0, 0.0f64..1.0, 0.0f64..1.0),
            (any::<bool>(), any::<bool>(), any::<bool>()),
            proptest::array::uniform4(0u32..8),
            proptest::option::of((-2.0f32..2.0, -2.0f32..2.0)),
        )
    }

    /// A sheet's JSON text and the frames it describes.
    fn build(
        image: [u32; 2],
        specs: &[Spec],
        array_form: bool,
        declare_size: bool,
    ) -> (String, Vec<FrameData>) {
        let [image_w, image_h] = image;
        let mut expected = Vec::new();
        let mut entries = Vec::new();
        for (i, &((fx, fy, fw, fh), (rotated, trimmed, as_pivot), pad, anchor)) in
            specs.iter().enumerate()
        {
            let x = (fx * f64::from(image_w)) as u32 % image_w;
            let y = (fy * f64::from(image_h)) as u32 % image_h;
            let region_w = 1 + (fw * f64::from(image_w - x)) as u32 % (image_w - x);
            let region_h = 1 + (fh * f64::from(image_h - y)) as u32 % (image_h - y);
            let (w, h) = if rotated {
                (region_h, region_w)
            } else {
                (region_w, region_h)
            };
            let [left, top, right, bottom] = pad;
            let source = [w + left + right, h + top + bottom];
            let name = format!("f{i:03}.png");
            let mut value = json!({
                "frame": {"x": x, "y": y, "w": w, "h": h},
                "rotated": rotated,
                "trimmed": trimmed,
                "spriteSourceSize": {"x": left, "y": top, "w": w, "h": h},
                "sourceSize": {"w": source[0], "h": source[1]},
            });
            if let Some((ax, ay)) = anchor {
                let key = if as_pivot { "pivot" } else { "anchor" };
                value[key] = json!({"x": ax, "y": ay});
            }
            expected.push(FrameData {
                name: name.clone(),
                region: [x, y, region_w, region_h],
                rotated,
                source_size: if trimmed { source } else { [w, h] },
                trim_offset: if trimmed { [left, top] } else { [0, 0] },
                anchor: anchor.map(|(ax, ay)| [ax, ay]),
            });
            entries.push((name, value));
        }
        let frames = if array_form {
            Value::Array(
                entries
                    .into_iter()
                    .map(|(name, mut value)| {
                        value["filename"] = json!(name);
                        value
                    })
                    .collect(),
            )
        } else {
            Value::Object(entries.into_iter().collect())
        };
        let mut meta = json!({"image": "sheet.png", "scale": "1"});
        if declare_size {
            meta["size"] = json!({"w": image_w, "h": image_h});
        }
        let text = json!({"frames": frames, "meta": meta}).to_string();
        (text, expected)
    }

    const VALID: &str = r#"{"frames": [{"filename": "a", "frame": {"x": 1, "y": 2, "w": 3, "h": 4}, "rotated": true,
        "trimmed": true, "spriteSourceSize": {"x": 1, "y": 1, "w": 3, "h": 4}, "sourceSize": {"w": 5, "h": 6},
        "anchor": {"x": 0.5, "y": 0.5}}], "animations": {"w": ["a", "a"]}, "meta": {"size": {"w": 8, "h": 8}}}"#;

    proptest::proptest! {
        #[test]
        fn random_bytes_never_panic(
            bytes in proptest::collection::vec(any::<u8>(), 0..1024),
            image in (0u32..100, 0u32..100),
        ) {
            if let Ok(sheet) = parse(&bytes) {
                let _ = check_against_image(&sheet, [image.0, image.1]);
            }
        }

        #[test]
        fn corrupted_sheets_never_panic(
            edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..4),
            cut in any::<usize>(),
        ) {
            let mut bytes = VALID.as_bytes().to_vec();
            for (at, byte) in edits {
                let at = at % bytes.len();
                bytes[at] = byte;
            }
            bytes.truncate(bytes.len() - cut % 4);
            if let Ok(sheet) = parse(&bytes) {
                let _ = check_against_image(&sheet, [8, 8]);
            }
        }

        #[test]
        fn valid_sheets_round_trip(
            image in (1u32..=4096, 1u32..=4096),
            specs in proptest::collection::vec(spec(), 0..24),
            array_form in any::<bool>(),
            declare_size in any::<bool>(),
        ) {
            let image = [image.0, image.1];
            let (text, expected) = build(image, &specs, array_form, declare_size);
            let sheet = match parse(text.as_bytes()) {
                Ok(sheet) => sheet,
                Err(e) => return Err(proptest::test_runner::TestCaseError::fail(format!("{e} in {text}"))),
            };
            proptest::prop_assert_eq!(&sheet.frames, &expected);
            proptest::prop_assert_eq!(sheet.image.as_deref(), Some("sheet.png"));
            proptest::prop_assert_eq!(sheet.size, declare_size.then_some(image));
            proptest::prop_assert!(sheet.animations.is_empty());
            proptest::prop_assert_eq!(check_against_image(&sheet, image), Ok(()));
        }
    }
}
