//! 64-bit FNV-1a over canonical bytes, for state hashes.

/// A 64-bit FNV-1a hasher over canonical bytes.
///
/// Write every field that affects the simulation, in a fixed order, with an
/// explicit width: integers are written little-endian at their declared
/// width, and there is deliberately no method for `usize` (its width differs
/// between wasm32 and x86_64, a classic source of false desyncs). Convert to
/// `u32` or `u64` first.
///
/// Unlike `std::hash::Hasher` implementations this is fixed by specification,
/// so the same state hashes the same on every machine and in every release.
///
/// ```
/// use lockstep::Fnv1a;
/// let mut h = Fnv1a::new();
/// h.write_u32(7);
/// h.write_i16(-3);
/// h.write_bool(true);
/// assert_eq!(h.finish(), {
///     let mut g = Fnv1a::new();
///     g.write_bytes(&[7, 0, 0, 0, 0xfd, 0xff, 1]);
///     g.finish()
/// });
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fnv1a(u64);

impl Fnv1a {
    /// The FNV-1a 64-bit offset basis.
    pub const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    /// The FNV-1a 64-bit prime.
    pub const PRIME: u64 = 0x0000_0100_0000_01b3;

    /// A hasher in its initial state.
    #[must_use]
    pub const fn new() -> Self {
        Fnv1a(Self::OFFSET_BASIS)
    }

    /// Feeds raw bytes.
    pub fn write_bytes(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(Self::PRIME);
        }
        self.0 = h;
    }

    /// Feeds one byte.
    pub fn write_u8(&mut self, v: u8) {
        self.write_bytes(&[v]);
    }
    /// Feeds a `bool` as one byte, 0 or 1.
    pub fn write_bool(&mut self, v: bool) {
        self.write_u8(u8::from(v));
    }
    /// Feeds an `i8` as one byte.
    pub fn write_i8(&mut self, v: i8) {
        self.write_bytes(&v.to_le_bytes());
    }
    /// Feeds a `u16`, little-endian.
    pub fn write_u16(&mut self, v: u16) {
        self.write_bytes(&v.to_le_bytes());
    }
    /// Feeds an `i16`, little-endian.
    pub fn write_i16(&mut self, v: i16) {
        self.write_bytes(&v.to_le_bytes());
    }
    /// Feeds a `u32`, little-endian.
    pub fn write_u32(&mut self, v: u32) {
        self.write_bytes(&v.to_le_bytes());
    }
    /// Feeds an `i32`, little-endian.
    pub fn write_i32(&mut self, v: i32) {
        self.write_bytes(&v.to_le_bytes());
    }
    /// Feeds a `u64`, little-endian.
    pub fn write_u64(&mut self, v: u64) {
        self.write_bytes(&v.to_le_bytes());
    }
    /// Feeds an `i64`, little-endian.
    pub fn write_i64(&mut self, v: i64) {
        self.write_bytes(&v.to_le_bytes());
    }

    /// The hash of everything written so far.
    #[must_use]
    pub const fn finish(&self) -> u64 {
        self.0
    }
}

impl Default for Fnv1a {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::Fnv1a;

    fn fnv(bytes: &[u8]) -> u64 {
        let mut h = Fnv1a::new();
        h.write_bytes(bytes);
        h.finish()
    }

    #[test]
    fn matches_published_fnv1a_64_vectors() {
        // Test vectors from the FNV reference (Fowler/Noll/Vo).
        assert_eq!(fnv(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn integers_are_little_endian_at_declared_width() {
        let mut a = Fnv1a::new();
        a.write_u32(0x0102_0304);
        assert_eq!(a.finish(), fnv(&[4, 3, 2, 1]));
        let mut b = Fnv1a::new();
        b.write_i64(-1);
        assert_eq!(b.finish(), fnv(&[0xff; 8]));
    }

    #[test]
    fn order_matters() {
        let mut a = Fnv1a::new();
        a.write_u8(1);
        a.write_u8(2);
        let mut b = Fnv1a::new();
        b.write_u8(2);
        b.write_u8(1);
        assert_ne!(a.finish(), b.finish());
    }
}
