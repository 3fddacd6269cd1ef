//! SplitMix64: the one seeded generator of the crate (rejoin tokens), also
//! offered to games for their own seeded choices (spawn points, bots).

/// SplitMix64 (Steele, Lea and Flood): a 64-bit state advanced by a
/// fixed odd constant and mixed; good enough for unguessable-looking
/// tokens when seeded from real randomness by the caller.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// Seeded.
    #[must_use]
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A float in `0..1`, from the top 24 bits of the next draw.
    pub fn unit(&mut self) -> f32 {
        #[allow(clippy::cast_precision_loss)]
        let v = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        v
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_sequence_is_pinned() {
        let mut r = super::SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }
}
