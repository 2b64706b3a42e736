//! PixiJS's `ColorMatrixFilter` matrix and its presets.

use crate::Color;

/// A 5x4 colour matrix (PixiJS's `ColorMatrixFilter`): row `i` gives output channel `i` (red, green, blue,
/// alpha) from the straight-alpha input `r, g, b, a` and an offset, `out = m[5i]*r + m[5i+1]*g + m[5i+2]*b +
/// m[5i+3]*a + m[5i+4]`; the result is mixed with the input by `alpha`.
///
/// The presets follow PixiJS: each loads its matrix, or with `multiply` composes it with the current one (the
/// current matrix applied after the preset's, as PixiJS multiplies).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ColorMatrix {
    /// The matrix, row-major, 4 rows of 5.
    pub matrix: [f32; 20],
    /// How much of the result replaces the input (PixiJS's `alpha`): 0 leaves the input, 1 (default) the result.
    pub alpha: f32,
}

/// The identity matrix.
pub const IDENTITY: [f32; 20] = [
    1.0, 0.0, 0.0, 0.0, 0.0, //
    0.0, 1.0, 0.0, 0.0, 0.0, //
    0.0, 0.0, 1.0, 0.0, 0.0, //
    0.0, 0.0, 0.0, 1.0, 0.0,
];

impl Default for ColorMatrix {
    fn default() -> Self {
        ColorMatrix {
            matrix: IDENTITY,
            alpha: 1.0,
        }
    }
}

/// `a * b` as PixiJS's `_multiply(out, a, b)` computes it.
fn multiply(a: &[f32; 20], b: &[f32; 20]) -> [f32; 20] {
    let mut out = [0.0; 20];
    for row in 0..4 {
        let r = 5 * row;
        for col in 0..5 {
            let mut v = a[r] * b[col] + a[r + 1] * b[5 + col] + a[r + 2] * b[10 + col];
            v += a[r + 3] * b[15 + col];
            if col == 4 {
                v += a[r + 4];
            }
            out[r + col] = v;
        }
    }
    out
}

impl ColorMatrix {
    /// A matrix filter with `matrix` (alpha 1).
    pub fn new(matrix: [f32; 20]) -> ColorMatrix {
        ColorMatrix { matrix, alpha: 1.0 }
    }

    fn load(&mut self, m: [f32; 20], mul: bool) -> &mut Self {
        self.matrix = if mul { multiply(&self.matrix, &m) } else { m };
        self
    }

    /// Back to the identity.
    pub fn reset(&mut self) -> &mut Self {
        self.load(IDENTITY, false)
    }

    /// Scales red, green and blue by `b` (1 leaves them).
    pub fn brightness(&mut self, b: f32, multiply: bool) -> &mut Self {
        self.load(
            [
                b, 0.0, 0.0, 0.0, 0.0, 0.0, b, 0.0, 0.0, 0.0, 0.0, 0.0, b, 0.0, 0.0, 0.0, 0.0, 0.0,
                1.0, 0.0,
            ],
            multiply,
        )
    }

    /// Multiplies each channel by `color`'s.
    pub fn tint(&mut self, color: Color, multiply: bool) -> &mut Self {
        let (r, g, b) = (color.r, color.g, color.b);
        self.load(
            [
                r, 0.0, 0.0, 0.0, 0.0, 0.0, g, 0.0, 0.0, 0.0, 0.0, 0.0, b, 0.0, 0.0, 0.0, 0.0, 0.0,
                1.0, 0.0,
            ],
            multiply,
        )
    }

    /// Greyscale: every channel the sum of the three times `scale`.
    pub fn greyscale(&mut self, scale: f32, multiply: bool) -> &mut Self {
        let s = scale;
        self.load(
            [
                s, s, s, 0.0, 0.0, s, s, s, 0.0, 0.0, s, s, s, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0,
            ],
            multiply,
        )
    }

    /// Black and white (0.3 red, 0.6 green, 0.1 blue).
    pub fn black_and_white(&mut self, multiply: bool) -> &mut Self {
        self.load(
            [
                0.3, 0.6, 0.1, 0.0, 0.0, 0.3, 0.6, 0.1, 0.0, 0.0, 0.3, 0.6, 0.1, 0.0, 0.0, 0.0,
                0.0, 0.0, 1.0, 0.0,
            ],
            multiply,
        )
    }

    /// Rotates hue by `degrees` (PixiJS's RGB-cube rotation).
    pub fn hue(&mut self, degrees: f32, multiply: bool) -> &mut Self {
        let r = if degrees.is_finite() { degrees } else { 0.0 }.to_radians();
        let (c, s) = (r.cos(), r.sin());
        let w = 1.0f32 / 3.0;
        let sw = w.sqrt();
        let a00 = c + (1.0 - c) * w;
        let a01 = w * (1.0 - c) - sw * s;
        let a02 = w * (1.0 - c) + sw * s;
        self.load(
            [
                a00, a01, a02, 0.0, 0.0, a02, a00, a01, 0.0, 0.0, a01, a02, a00, 0.0, 0.0, 0.0,
                0.0, 0.0, 1.0, 0.0,
            ],
            multiply,
        )
    }

    /// Contrast: 0 leaves it, positive raises it.
    pub fn contrast(&mut self, amount: f32, multiply: bool) -> &mut Self {
        let v = amount + 1.0;
        let o = -0.5 * (v - 1.0);
        self.load(
            [
                v, 0.0, 0.0, 0.0, o, 0.0, v, 0.0, 0.0, o, 0.0, 0.0, v, 0.0, o, 0.0, 0.0, 0.0, 1.0,
                0.0,
            ],
            multiply,
        )
    }

    /// Saturation: 0 leaves it, positive raises it, -1 removes it.
    pub fn saturate(&mut self, amount: f32, multiply: bool) -> &mut Self {
        let x = amount * 2.0 / 3.0 + 1.0;
        let y = (x - 1.0) * -0.5;
        self.load(
            [
                x, y, y, 0.0, 0.0, y, x, y, 0.0, 0.0, y, y, x, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0,
            ],
            multiply,
        )
    }

    /// No saturation (PixiJS's `desaturate`: `saturate(-1)`, loaded).
    pub fn desaturate(&mut self) -> &mut Self {
        self.saturate(-1.0, false)
    }

    /// Negative.
    pub fn negative(&mut self, multiply: bool) -> &mut Self {
        self.load(
            [
                -1.0, 0.0, 0.0, 1.0, 0.0, 0.0, -1.0, 0.0, 1.0, 0.0, 0.0, 0.0, -1.0, 1.0, 0.0, 0.0,
                0.0, 0.0, 1.0, 0.0,
            ],
            multiply,
        )
    }

    /// Sepia.
    pub fn sepia(&mut self, multiply: bool) -> &mut Self {
        self.load(
            [
                0.393, 0.769, 0.189, 0.0, 0.0, 0.349, 0.686, 0.168, 0.0, 0.0, 0.272, 0.534, 0.131,
                0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0,
            ],
            multiply,
        )
    }

    /// Technicolor.
    pub fn technicolor(&mut self, multiply: bool) -> &mut Self {
        self.load(
            [
                1.912_527_8,
                -0.854_534_5,
                -0.091_555_08,
                0.0,
                0.046_249_426,
                -0.308_783_34,
                1.765_891,
                -0.106_017_43,
                0.0,
                -0.275_890_4,
                -0.231_103_38,
                -0.750_189_9,
                1.847_597_8,
                0.0,
                0.121_376_24,
                0.0,
                0.0,
                0.0,
                1.0,
                0.0,
            ],
            multiply,
        )
    }

    /// Polaroid.
    pub fn polaroid(&mut self, multiply: bool) -> &mut Self {
        self.load(
            [
                1.438, -0.062, -0.062, 0.0, 0.0, -0.122, 1.378, -0.122, 0.0, 0.0, -0.016, -0.016,
                1.483, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0,
            ],
            multiply,
        )
    }

    /// Red and blue swapped.
    pub fn to_bgr(&mut self, multiply: bool) -> &mut Self {
        self.load(
            [
                0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                0.0, 0.0, 1.0, 0.0,
            ],
            multiply,
        )
    }

    /// Kodachrome.
    pub fn kodachrome(&mut self, multiply: bool) -> &mut Self {
        self.load(
            [
                1.128_558_2,
                -0.396_738_23,
                -0.039_925_59,
                0.0,
                0.249_919_95,
                -0.164_043_4,
                1.083_525_2,
                -0.054_988_05,
                0.0,
                0.096_989_83,
                -0.167_860_1,
                -0.560_341_6,
                1.601_485_1,
                0.0,
                0.139_724_82,
                0.0,
                0.0,
                0.0,
                1.0,
                0.0,
            ],
            multiply,
        )
    }

    /// Browni.
    pub fn browni(&mut self, multiply: bool) -> &mut Self {
        self.load(
            [
                0.599_702_35,
                0.345_532_43,
                -0.270_829_87,
                0.0,
                0.186_007_56,
                -0.037_703_25,
                0.860_957_76,
                0.150_595_52,
                0.0,
                -0.144_974_18,
                0.241_136_35,
                -0.074_410_38,
                0.449_721_8,
                0.0,
                -0.029_655_197,
                0.0,
                0.0,
                0.0,
                1.0,
                0.0,
            ],
            multiply,
        )
    }

    /// Vintage.
    pub fn vintage(&mut self, multiply: bool) -> &mut Self {
        self.load(
            [
                0.627_934_6,
                0.320_218_34,
                -0.039_654_08,
                0.0,
                0.037_848_18,
                0.025_783_978,
                0.644_118_9,
                0.032_591_276,
                0.0,
                0.029_265_997,
                0.046_605_556,
                -0.085_123_3,
                0.524_164_8,
                0.0,
                0.020_232_12,
                0.0,
                0.0,
                0.0,
                1.0,
                0.0,
            ],
            multiply,
        )
    }

    /// A colour tone (PixiJS's `colorTone`): `desaturation` (0.2), `toned` (0.15), light and dark colours
    /// (0xffe580, 0x338000); zeros take the defaults, as in PixiJS.
    pub fn color_tone(
        &mut self,
        desaturation: f32,
        toned: f32,
        light: Color,
        dark: Color,
        multiply: bool,
    ) -> &mut Self {
        let d = if desaturation == 0.0 {
            0.2
        } else {
            desaturation
        };
        let t = if toned == 0.0 { 0.15 } else { toned };
        let (l, k) = (light, dark);
        self.load(
            [
                0.3,
                0.59,
                0.11,
                0.0,
                0.0,
                l.r,
                l.g,
                l.b,
                d,
                0.0,
                k.r,
                k.g,
                k.b,
                t,
                0.0,
                l.r - k.r,
                l.g - k.g,
                l.b - k.b,
                0.0,
                0.0,
            ],
            multiply,
        )
    }

    /// Night vision of `intensity` (0.1 when 0).
    pub fn night(&mut self, intensity: f32, multiply: bool) -> &mut Self {
        let i = if intensity == 0.0 { 0.1 } else { intensity };
        self.load(
            [
                i * -2.0,
                -i,
                0.0,
                0.0,
                0.0,
                -i,
                0.0,
                i,
                0.0,
                0.0,
                0.0,
                i,
                i * 2.0,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                1.0,
                0.0,
            ],
            multiply,
        )
    }

    /// Predator vision of `amount`.
    pub fn predator(&mut self, amount: f32, multiply: bool) -> &mut Self {
        let a = amount;
        self.load(
            [
                11.224_131 * a,
                -4.794_487 * a,
                -2.874_611_9 * a,
                0.0,
                0.403_424_38 * a,
                -3.633_069_8 * a,
                9.193_157 * a,
                -2.951_810_8 * a,
                0.0,
                -1.316_135 * a,
                -3.218_419_8 * a,
                -4.237_503 * a,
                7.476_448 * a,
                0.0,
                0.804_445_9 * a,
                0.0,
                0.0,
                0.0,
                1.0,
                0.0,
            ],
            multiply,
        )
    }

    /// LSD.
    pub fn lsd(&mut self, multiply: bool) -> &mut Self {
        self.load(
            [
                2.0, -0.4, 0.5, 0.0, 0.0, -0.5, 2.0, -0.4, 0.0, 0.0, -0.4, -0.5, 3.0, 0.0, 0.0,
                0.0, 0.0, 0.0, 1.0, 0.0,
            ],
            multiply,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_compose_as_pixijs_multiplies() {
        let mut m = ColorMatrix::default();
        m.brightness(0.5, false);
        assert_eq!(m.matrix[0], 0.5);
        m.brightness(0.5, true);
        assert_eq!(m.matrix[0], 0.25);
        assert_eq!(m.matrix[18], 1.0);
        // Hue 0 is the identity; 360 nearly so.
        let mut h = ColorMatrix::default();
        h.hue(0.0, false);
        for (a, b) in h.matrix.iter().zip(IDENTITY) {
            assert!((a - b).abs() < 1e-6);
        }
        // Contrast offsets go through multiply's fifth column.
        let mut c = ColorMatrix::default();
        c.contrast(1.0, false).brightness(2.0, true);
        assert_eq!(c.matrix[4], -0.5);
        assert_eq!(c.matrix[0], 4.0);
        let mut n = ColorMatrix::default();
        n.negative(false).negative(true);
        assert_eq!(n.matrix[0], 1.0);
        assert_eq!(n.matrix[3], 0.0);
        m.reset();
        assert_eq!(m.matrix, IDENTITY);
    }
}
