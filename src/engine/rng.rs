//! The random generator and the seeding contract: every game draws from two
//! generators derived from the master seed and the game's index alone, so the
//! same command gives the same numbers on any thread count or shard split.

use rand::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The random generator used everywhere in unolab.
pub type Rng = Xoshiro256PlusPlus;

/// A uniform integer in `0..n` (`n > 0`) by Lemire's multiply-and-reject method:
/// exact (no modulo bias) and almost never divides.
#[inline(always)]
pub fn below(rng: &mut Rng, n: u32) -> u32 {
    debug_assert!(n > 0);
    let mut m = (rng.next_u32() as u64) * (n as u64);
    if (m as u32) < n {
        let t = n.wrapping_neg() % n;
        while (m as u32) < t {
            m = (rng.next_u32() as u64) * (n as u64);
        }
    }
    (m >> 32) as u32
}

/// SplitMix64 finaliser: a bijective mix of a 64-bit value.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The two generators of game `index` under a master seed: one for the table
/// (shuffles, dealer, UNO catches) and one for the strategies. They depend on
/// the master seed and the index alone, so results do not depend on threads.
pub fn game_rngs(master: u64, index: u64) -> (Rng, Rng) {
    let base = mix64(master ^ mix64(index.wrapping_mul(0xD6E8_FEB8_6659_FD93)));
    (
        Rng::seed_from_u64(mix64(base ^ 0x5EED_7AB1E)),
        Rng::seed_from_u64(mix64(base ^ 0xA6E7_5EED)),
    )
}

/// The seating generator of game (or deal) `index`: a third stream of the
/// game's seed, apart from the table's and the strategies' (see
/// [`game_rngs`]), so that drawing a seating never shifts a deal or a
/// decision.
pub fn seating_rng(master: u64, index: u64) -> Rng {
    let base = mix64(master ^ mix64(index.wrapping_mul(0xD6E8_FEB8_6659_FD93)));
    Rng::seed_from_u64(mix64(base ^ 0x5EA7_1A60_0D5E))
}
