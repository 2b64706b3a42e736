//! WGSL sources, loaded with `include_str!` from `shaders/`, and the expansion of the batch shader's texture slots.

/// The batch shader template (`shaders/batch.wgsl`).
pub const BATCH_TEMPLATE: &str = include_str!("../shaders/batch.wgsl");

/// The batch shader for `slots` texture + sampler pairs (at least 1).
pub fn batch_source(slots: usize) -> String {
    let slots = slots.max(1);
    let mut bindings = String::new();
    let mut cases = String::new();
    for i in 0..slots {
        bindings.push_str(&format!(
            "@group(0) @binding({}) var t{i}: texture_2d<f32>;\n@group(0) @binding({}) var s{i}: sampler;\n",
            2 * i,
            2 * i + 1
        ));
        if i > 0 {
            cases.push_str(&format!(
                "        case {i}u: {{ texel = textureSampleGrad(t{i}, s{i}, in.uv, dx, dy); }}\n"
            ));
        }
    }
    BATCH_TEMPLATE
        .replace("//{{BINDINGS}}", &bindings)
        .replace("//{{CASES}}\n", &cases)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_every_slot_and_parses() {
        for n in [1, 2, 16] {
            let src = batch_source(n);
            assert!(!src.contains("{{"), "unexpanded marker");
            assert_eq!(src.matches("texture_2d<f32>").count(), n);
            assert_eq!(src.matches("case ").count(), n - 1);
        }
    }
}
