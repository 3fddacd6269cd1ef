//! Fixed-point geometry on the court floor, on the `fixed` crate's types.
//!
//! Two formats (docs/ntba.md says why these):
//!
//! - [`Len`] (`I20F12`, 32 bits): every length, position, height, speed per
//!   tick and acceleration per tick², and dimensionless ratios such as the
//!   components of a unit vector. A step is 1/4096 m; the range is ±524 km.
//! - [`Sq`] (`I40F24`, 64 bits): the exact product of two `Len`s (squared
//!   distances, dot products), so comparing distances never loses a bit.
//!
//! Every operation here is integer arithmetic on the raw bits (the `fixed`
//! crate's `+`, `-`, `*`, `/`, `wide_mul` and fixed-to-fixed conversions);
//! nothing goes through a float.

use core::ops::{Add, Neg, Sub};
use fixed::types::{I20F12, I40F24};

/// A length in metres (also a speed per tick, an acceleration per tick², or
/// a ratio): 20 integer bits and 12 fractional bits.
pub(crate) type Len = I20F12;

/// The product of two [`Len`]s, exact: 40 integer bits, 24 fractional.
pub(crate) type Sq = I40F24;

/// A length written in metres as a decimal literal, `m!(3.05)` or
/// `m!(-1.5)`: the `fixed` crate parses it at compile time (an inline
/// `const`), rounding to the nearest step of [`Len`].
macro_rules! m {
    (-$v:literal) => {
        const { $crate::math::Len::lit(concat!("-", stringify!($v))) }
    };
    ($v:literal) => {
        const { $crate::math::Len::lit(stringify!($v)) }
    };
}
pub(crate) use m;

/// A point or vector on the court floor, in metres.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct V2 {
    /// Along the court's length (0 = the left baseline).
    pub x: Len,
    /// Across the court (0 = the top sideline).
    pub y: Len,
}

impl Add for V2 {
    type Output = V2;
    /// Component-wise sum (wrapping: positions are pinned to the court long
    /// before a component could overflow).
    fn add(self, o: V2) -> V2 {
        V2::new(self.x.wrapping_add(o.x), self.y.wrapping_add(o.y))
    }
}

impl Sub for V2 {
    type Output = V2;
    /// Component-wise difference (wrapping, as for the sum).
    fn sub(self, o: V2) -> V2 {
        V2::new(self.x.wrapping_sub(o.x), self.y.wrapping_sub(o.y))
    }
}

impl Neg for V2 {
    type Output = V2;
    fn neg(self) -> V2 {
        V2::new(self.x.wrapping_neg(), self.y.wrapping_neg())
    }
}

impl V2 {
    /// The zero vector.
    pub(crate) const ZERO: V2 = V2::new(Len::ZERO, Len::ZERO);

    /// The point (x, y).
    #[must_use]
    pub(crate) const fn new(x: Len, y: Len) -> Self {
        V2 { x, y }
    }

    /// The squared length, exact.
    pub(crate) fn len2(self) -> Sq {
        self.x.wide_mul(self.x) + self.y.wide_mul(self.y)
    }

    /// The dot product, exact.
    pub(crate) fn dot(self, o: V2) -> Sq {
        self.x.wide_mul(o.x) + self.y.wide_mul(o.y)
    }

    /// The length, rounded down to a step of [`Len`].
    pub(crate) fn len(self) -> Len {
        sqrt(self.len2())
    }

    /// This vector resized to length `l` (zero stays zero). Each component
    /// is `c × l ÷ |self|` from the exact product, rounded towards zero, so
    /// a vector and its mirror image resize to mirror images.
    pub(crate) fn with_len(self, l: Len) -> V2 {
        let d = self.len();
        if d == Len::ZERO {
            return V2::ZERO;
        }
        V2::new(mul_div(self.x, l, d), mul_div(self.y, l, d))
    }

    /// This vector (a unit vector, usually) times the length `l`, rounded
    /// towards zero.
    pub(crate) fn times(self, l: Len) -> V2 {
        V2::new(narrow(self.x.wide_mul(l)), narrow(self.y.wide_mul(l)))
    }

    /// `self × num ÷ den`, component-wise, rounding towards zero (a zero
    /// `den` gives zero).
    pub(crate) fn scale(self, num: i32, den: i32) -> V2 {
        if den == 0 {
            return V2::ZERO;
        }
        V2::new(self.x * num / den, self.y * num / den)
    }
}

/// Distance between two floor points.
pub(crate) fn dist(a: V2, b: V2) -> Len {
    (a - b).len()
}

/// `a × b ÷ c` from the exact product, rounded towards zero (`c` ≠ 0).
pub(crate) fn mul_div(a: Len, b: Len, c: Len) -> Len {
    // The product's raw bits are a·b in steps of 2⁻²⁴; dividing them by the
    // whole number of steps in `c` (a 64-bit integer division, which rounds
    // towards zero) leaves a·b÷c in steps of 2⁻¹²: the raw bits of the
    // result. Dividing `Sq` by `Sq` would widen to a 128-bit division (a
    // library call in wasm32).
    let q = a.wide_mul(b) / i64::from(c.to_bits());
    Len::from_bits(q.to_bits() as i32)
}

/// A wide value back to a [`Len`], rounded towards zero (the `fixed`
/// crate's conversion rounds towards minus infinity; rounding the magnitude
/// keeps left and right, up and down, symmetric).
fn narrow(v: Sq) -> Len {
    let m: Len = v.abs().to_num();
    if v.is_negative() {
        -m
    } else {
        m
    }
}

/// The square root of an exact product of lengths (a squared distance),
/// rounded down; negative gives zero. It is the integer square root of the
/// raw bits: √(r × 2⁻²⁴) = √r × 2⁻¹², a whole number of [`Len`] steps.
pub(crate) fn sqrt(v: Sq) -> Len {
    let r = v.to_bits();
    if r <= 0 {
        return Len::ZERO;
    }
    Len::from_bits((r as u64).isqrt().min(i32::MAX as u64) as i32)
}

/// cos 45°, cos 22.5° and sin 22.5°, to the nearest step.
const C45: Len = m!(0.70710678);
const C22: Len = m!(0.92387953);
const S22: Len = m!(0.38268343);
const ONE: Len = Len::ONE;
const ZERO: Len = Len::ZERO;

const fn unit(x: Len, y: Len) -> V2 {
    V2::new(x, y)
}

const fn neg(v: Len) -> Len {
    v.strict_neg()
}

/// Unit vectors for the eight facings: 0 = +x (right), then clockwise on
/// screen (y grows downwards): 1 = down-right, 2 = down, 3 = down-left,
/// 4 = left, 5 = up-left, 6 = up, 7 = up-right.
pub(crate) const DIR8: [V2; 8] = [
    unit(ONE, ZERO),
    unit(C45, C45),
    unit(ZERO, ONE),
    unit(neg(C45), C45),
    unit(neg(ONE), ZERO),
    unit(neg(C45), neg(C45)),
    unit(ZERO, neg(ONE)),
    unit(C45, neg(C45)),
];

/// Unit vectors for sixteen directions, 0 = +x, clockwise.
pub(crate) const DIR16: [V2; 16] = [
    unit(ONE, ZERO),
    unit(C22, S22),
    unit(C45, C45),
    unit(S22, C22),
    unit(ZERO, ONE),
    unit(neg(S22), C22),
    unit(neg(C45), C45),
    unit(neg(C22), S22),
    unit(neg(ONE), ZERO),
    unit(neg(C22), neg(S22)),
    unit(neg(C45), neg(C45)),
    unit(neg(S22), neg(C22)),
    unit(ZERO, neg(ONE)),
    unit(S22, neg(C22)),
    unit(C45, neg(C45)),
    unit(C22, neg(S22)),
];

/// The facing (0..8, see [`DIR8`]) closest to the direction `d`, or `None`
/// for the zero vector.
pub(crate) fn facing_of(d: V2) -> Option<u8> {
    if d == V2::ZERO {
        return None;
    }
    let ax = Sq::from(d.x.abs());
    let ay = Sq::from(d.y.abs());
    let pos_x = d.x > Len::ZERO;
    let pos_y = d.y > Len::ZERO;
    // tan(67.5 degrees) is about 12/5: beyond it the direction is axial.
    let f = if ax * 5 > ay * 12 {
        if pos_x {
            0
        } else {
            4
        }
    } else if ay * 5 > ax * 12 {
        if pos_y {
            2
        } else {
            6
        }
    } else {
        match (pos_x, pos_y) {
            (true, true) => 1,
            (false, true) => 3,
            (false, false) => 5,
            (true, false) => 7,
        }
    };
    Some(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(v: i32) -> Len {
        Len::from_num(v)
    }

    #[test]
    fn sqrt_is_exact_on_squares_and_floors_between() {
        for v in [0, 1, 3, 4096, 24] {
            let l = Len::from_bits(v);
            assert_eq!(sqrt(l.wide_mul(l)), l);
        }
        // 15 steps² lies between 3² and 4²: the root rounds down to 3.
        assert_eq!(sqrt(Sq::from_bits(15)), Len::from_bits(3));
        assert_eq!(sqrt(-Sq::ONE), Len::ZERO);
        assert_eq!(V2::new(m(3), m(4)).len(), m(5));
    }

    #[test]
    fn facings_match_the_table() {
        for (i, d) in DIR8.iter().enumerate() {
            assert_eq!(facing_of(*d), Some(i as u8));
        }
        assert_eq!(facing_of(V2::ZERO), None);
    }

    #[test]
    fn unit_vectors_have_length_one() {
        for d in DIR8.iter().chain(DIR16.iter()) {
            let err = (d.len() - Len::ONE).abs();
            assert!(err <= m!(0.0005), "{d:?} has length {}", d.len());
        }
    }

    #[test]
    fn literals_round_to_the_nearest_step() {
        assert_eq!(m!(3.05).to_bits(), 12_493, "3.05 × 4096 = 12,492.8");
        assert_eq!(m!(0.23).to_bits(), 942, "0.23 × 4096 = 942.08");
        assert_eq!(m!(-1.5), -Len::lit("1.5"));
        assert_eq!(m!(24), Len::from_num(24));
    }

    #[test]
    fn with_len_resizes_and_mirrors() {
        let v = V2::new(m(3), m(4)).with_len(m(10));
        assert_eq!(v, V2::new(m(6), m(8)));
        // Rounding towards zero: a mirrored vector gives the mirrored result.
        let a = V2::new(m(1), m(1)).with_len(Len::lit("0.09"));
        let b = V2::new(m(-1), m(-1)).with_len(Len::lit("0.09"));
        assert_eq!(b, -a);
        assert_eq!(V2::ZERO.with_len(m(1)), V2::ZERO);
    }

    #[test]
    fn times_and_scale_round_towards_zero() {
        let d = DIR8[1];
        assert_eq!(d.times(m(2)), -((-d).times(m(2))));
        let v = V2::new(Len::from_bits(-1), Len::from_bits(1));
        assert_eq!(v.scale(3, 4), V2::ZERO, "a glide comes to a stop");
        assert_eq!(v.scale(1, 0), V2::ZERO);
    }
}
