//! The random generator and the seeding contract: every game draws from two
//! generators derived from the master seed and the game's index alone, so the
//! same command gives the same numbers on any thread count or shard split.

use rand::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The random generator used everywhere in unolab: Xoshiro256++, the same
/// stream, behind a type that a strategy can draw from but not read,
/// print, copy or compare. A strategy is handed the game's one generator
/// (`&mut Rng`, shared by every seat): with its state printable
/// (`Debug`) a strategy could work the seed back to the table's generator
/// and so to every hand, and with a copy (`Clone`, `PartialEq`) count the
/// numbers the other seats drew since its last turn, which depends on
/// their hidden hands (the search agents audit, 2026-12-07).
///
/// A strategy can neither copy it:
/// ```compile_fail
/// let rng = <unolab::Rng as rand::SeedableRng>::seed_from_u64(1);
/// let copy = rng.clone();
/// ```
/// nor print it:
/// ```compile_fail
/// let rng = <unolab::Rng as rand::SeedableRng>::seed_from_u64(1);
/// let state = format!("{rng:?}");
/// ```
/// nor compare it:
/// ```compile_fail
/// use rand::SeedableRng;
/// let (a, b) = (unolab::Rng::seed_from_u64(1), unolab::Rng::seed_from_u64(1));
/// let same = a == b;
/// ```
/// but draws the same numbers as Xoshiro256++:
/// ```
/// use rand::{RngCore, SeedableRng};
/// let mut a = unolab::Rng::seed_from_u64(7);
/// let mut b = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
/// assert!((0..100).all(|_| a.next_u64() == b.next_u64()));
/// ```
pub struct Rng(Xoshiro256PlusPlus);

impl Rng {
    /// A copy, for the engine's own use (a game copied whole, a paired
    /// search's twin streams); not for strategies.
    #[inline]
    pub(crate) fn fork(&self) -> Rng {
        Rng(self.0.clone())
    }
}

impl RngCore for Rng {
    #[inline(always)]
    fn next_u32(&mut self) -> u32 {
        self.0.next_u32()
    }
    #[inline(always)]
    fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }
    #[inline]
    fn fill_bytes(&mut self, dst: &mut [u8]) {
        self.0.fill_bytes(dst)
    }
}

impl SeedableRng for Rng {
    type Seed = <Xoshiro256PlusPlus as SeedableRng>::Seed;
    #[inline]
    fn from_seed(seed: Self::Seed) -> Rng {
        Rng(Xoshiro256PlusPlus::from_seed(seed))
    }
    #[inline]
    fn seed_from_u64(state: u64) -> Rng {
        Rng(Xoshiro256PlusPlus::seed_from_u64(state))
    }
}

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
