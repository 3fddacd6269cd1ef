//! Integer geometry helpers. Every length is in [`crate::UNITS_PER_METER`] units.

/// A point or vector on the court floor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct V2 {
    /// Along the court's length (0 = Home's baseline, left).
    pub x: i32,
    /// Across the court (0 = the top sideline).
    pub y: i32,
}

impl V2 {
    /// The point (x, y).
    #[must_use]
    pub const fn new(x: i32, y: i32) -> Self {
        V2 { x, y }
    }
    pub(crate) fn add(self, o: V2) -> V2 {
        V2::new(self.x.wrapping_add(o.x), self.y.wrapping_add(o.y))
    }
    pub(crate) fn sub(self, o: V2) -> V2 {
        V2::new(self.x.wrapping_sub(o.x), self.y.wrapping_sub(o.y))
    }
    pub(crate) fn len2(self) -> i64 {
        let x = i64::from(self.x);
        let y = i64::from(self.y);
        x * x + y * y
    }
    pub(crate) fn len(self) -> i32 {
        isqrt(self.len2())
    }
    /// This vector resized to length `l` (zero stays zero).
    pub(crate) fn with_len(self, l: i32) -> V2 {
        let d = i64::from(self.len());
        if d == 0 {
            return V2::default();
        }
        V2::new(
            (i64::from(self.x) * i64::from(l) / d) as i32,
            (i64::from(self.y) * i64::from(l) / d) as i32,
        )
    }
    /// `self * num / den`, component-wise, rounding towards zero.
    pub(crate) fn scale(self, num: i32, den: i32) -> V2 {
        if den == 0 {
            return V2::default();
        }
        V2::new(
            (i64::from(self.x) * i64::from(num) / i64::from(den)) as i32,
            (i64::from(self.y) * i64::from(num) / i64::from(den)) as i32,
        )
    }
}

/// Distance between two floor points.
pub(crate) fn dist(a: V2, b: V2) -> i32 {
    a.sub(b).len()
}

/// Integer square root of a non-negative value (negative gives 0).
pub(crate) fn isqrt(v: i64) -> i32 {
    if v <= 0 {
        return 0;
    }
    (v as u64).isqrt().min(i32::MAX as u64) as i32
}

/// Unit vectors (length 256) for the eight facings: 0 = +x (right), then
/// clockwise on screen (y grows downwards): 1 = down-right, 2 = down,
/// 3 = down-left, 4 = left, 5 = up-left, 6 = up, 7 = up-right.
pub(crate) const DIR8: [V2; 8] = [
    V2::new(256, 0),
    V2::new(181, 181),
    V2::new(0, 256),
    V2::new(-181, 181),
    V2::new(-256, 0),
    V2::new(-181, -181),
    V2::new(0, -256),
    V2::new(181, -181),
];

/// Unit vectors (length 256) for sixteen directions, 0 = +x, clockwise.
pub(crate) const DIR16: [V2; 16] = [
    V2::new(256, 0),
    V2::new(237, 98),
    V2::new(181, 181),
    V2::new(98, 237),
    V2::new(0, 256),
    V2::new(-98, 237),
    V2::new(-181, 181),
    V2::new(-237, 98),
    V2::new(-256, 0),
    V2::new(-237, -98),
    V2::new(-181, -181),
    V2::new(-98, -237),
    V2::new(0, -256),
    V2::new(98, -237),
    V2::new(181, -181),
    V2::new(237, -98),
];

/// The facing (0..8, see [`DIR8`]) closest to the direction (dx, dy), or
/// `None` for the zero vector.
pub(crate) fn facing_of(d: V2) -> Option<u8> {
    if d.x == 0 && d.y == 0 {
        return None;
    }
    let ax = i64::from(d.x).abs();
    let ay = i64::from(d.y).abs();
    // tan(67.5 degrees) is about 12/5: beyond it the direction is axial.
    let f = if ax * 5 > ay * 12 {
        if d.x > 0 {
            0
        } else {
            4
        }
    } else if ay * 5 > ax * 12 {
        if d.y > 0 {
            2
        } else {
            6
        }
    } else {
        match (d.x > 0, d.y > 0) {
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

    #[test]
    fn isqrt_is_exact_on_squares_and_floors_between() {
        for v in [0i64, 1, 4, 9, 1 << 20, 4096 * 4096 * 9] {
            let r = isqrt(v);
            assert_eq!(i64::from(r) * i64::from(r), v);
        }
        assert_eq!(isqrt(15), 3);
        assert_eq!(isqrt(-4), 0);
    }

    #[test]
    fn facings_match_the_table() {
        for (i, d) in DIR8.iter().enumerate() {
            assert_eq!(facing_of(*d), Some(i as u8));
        }
        assert_eq!(facing_of(V2::default()), None);
    }

    #[test]
    fn with_len_resizes() {
        let v = V2::new(3000, 4000).with_len(50);
        assert_eq!(v, V2::new(30, 40));
    }
}
