//! The per-cluster values of one arm over a block of games, and the exact
//! sums ([`RatioSums`], [`CrossSums`]) that take a whole block at once.

use serde::{Deserialize, Serialize};

/// The per-cluster counts every denominator is a multiple of (rows of
/// [`Block::base`]).
pub(crate) const BASE_ROUNDS: usize = 0;
pub(crate) const BASE_WON: usize = 1;
pub(super) const BASE_MATCHES: usize = 2;
pub(super) const BASES: usize = 3;

/// Games of one arm played back to back before the next arm plays the same
/// games: long enough that switching arms (another rule set's code and
/// tables) costs little, short enough that the per-game values of a block
/// fit in a small fixed buffer.
pub(super) const BLOCK: usize = 64;

/// The per-cluster values of one arm over a block of up to [`BLOCK`]
/// clusters, stored by column (`y[m][j]`: metric `m`, cluster `j` of the
/// block), so that the sums over a block are loops over contiguous arrays.
/// Denominators are not stored: the `x` of metric `m` is `coef · base[b][j]`
/// with `(b, coef) = x_of[m]`.
pub(super) struct Block {
    /// Numerators.
    pub(super) y: Vec<[i64; BLOCK]>,
    /// Rounds, won rounds and matches of each cluster.
    pub(super) base: [[i64; BLOCK]; BASES],
    // What `seal` records once the block is played:
    /// Clusters in the block (`0..used` of every column).
    used: usize,
    /// Whether every value is below [`SMALL`] in magnitude, so that the
    /// block's sums of products can be taken in `i64`.
    small: bool,
    /// Whether each numerator column holds anything but zeros.
    nonzero: Vec<bool>,
    /// `Σy` of each metric.
    sy: Vec<i128>,
    /// Whether each base is 1 in every cluster of the block (one round per
    /// game, or every round won): then a product with it is a plain sum.
    ones: [bool; BASES],
    /// `Σbase` and `Σbase²` of each base.
    sb: [(i128, i128); BASES],
}

/// Largest magnitude (exclusive) of the values whose block sums are taken in
/// `i64`: products stay below 2^52 and [`BLOCK`] of them below 2^58.
const SMALL: u64 = 1 << 26;
const _: () = assert!((BLOCK as u64) * SMALL * SMALL <= 1 << 62);

impl Block {
    pub(super) fn new(metrics: usize) -> Block {
        Block {
            y: vec![[0; BLOCK]; metrics],
            base: [[0; BLOCK]; BASES],
            used: 0,
            small: true,
            nonzero: vec![false; metrics],
            sy: vec![0; metrics],
            ones: [false; BASES],
            sb: [(0, 0); BASES],
        }
    }

    /// Empties clusters `0..used` before the block is played. (Column by
    /// column: a few short vector stores each, where one memset of the whole
    /// block would be `rep stos`, which valgrind counts byte by byte.)
    pub(super) fn clear(&mut self, used: usize) {
        for c in self.y.iter_mut().chain(&mut self.base) {
            c[..used].fill(0);
        }
    }

    /// Records what the sums need once clusters `0..used` are played.
    pub(super) fn seal(&mut self, used: usize) {
        let or = |c: &[i64; BLOCK]| c[..used].iter().fold(0u64, |m, &v| m | v.unsigned_abs());
        let mut all = 0;
        for (c, nz) in self.y.iter().zip(&mut self.nonzero) {
            let o = or(c);
            all |= o;
            *nz = o != 0;
        }
        for c in &self.base {
            all |= or(c);
        }
        let small = all < SMALL;
        self.small = small;
        self.used = used;
        for ((c, &nz), s) in self.y.iter().zip(&self.nonzero).zip(&mut self.sy) {
            *s = if nz { block_sum(&c[..used], small) } else { 0 };
        }
        for (b, c) in self.base.iter().enumerate() {
            let c = &c[..used];
            let n = used as i128;
            self.ones[b] = c.iter().all(|&v| v == 1);
            self.sb[b] = if self.ones[b] {
                (n, n)
            } else {
                (block_sum(c, small), block_dot(c, c, small))
            };
        }
    }

    /// `Σ y[m]·o.y[k]` (`o` may be this block).
    #[inline]
    fn y_y(&self, m: usize, o: &Block, k: usize) -> i128 {
        if self.nonzero[m] && o.nonzero[k] {
            let n = self.used;
            block_dot(&self.y[m][..n], &o.y[k][..n], self.small && o.small)
        } else {
            0
        }
    }

    /// `Σ y[m]·o.base[b]`.
    #[inline]
    fn y_base(&self, m: usize, o: &Block, b: usize) -> i128 {
        if o.ones[b] {
            self.sy[m]
        } else if self.nonzero[m] {
            let n = self.used;
            block_dot(&self.y[m][..n], &o.base[b][..n], self.small && o.small)
        } else {
            0
        }
    }

    /// The clusters where metric `m` with its denominator (`ca` times base
    /// `xa`) differs from `o`'s metric `k` with its own (`cb` times `xb`):
    /// where two arms played a deal alike, they do not.
    #[inline]
    fn differing(
        &self,
        (m, xa, ca): (usize, usize, i128),
        o: &Block,
        (k, xb, cb): (usize, usize, i128),
    ) -> u64 {
        let (ya, yb) = (&self.y[m], &o.y[k]);
        let (ba, bb) = (&self.base[xa], &o.base[xb]);
        (0..self.used)
            .filter(|&c| ya[c] != yb[c] || ca * ba[c] as i128 != cb * bb[c] as i128)
            .count() as u64
    }

    /// `Σ base[a]·o.base[b]`.
    #[inline]
    fn base_base(&self, a: usize, o: &Block, b: usize) -> i128 {
        if self.ones[a] {
            o.sb[b].0
        } else if o.ones[b] {
            self.sb[a].0
        } else {
            let n = self.used;
            block_dot(&self.base[a][..n], &o.base[b][..n], self.small && o.small)
        }
    }
}

/// `Σ a_j`, exactly (`small`: see [`block_dot`]).
#[inline]
fn block_sum(a: &[i64], small: bool) -> i128 {
    if small {
        a.iter().sum::<i64>() as i128
    } else {
        a.iter().map(|&v| v as i128).sum()
    }
}

/// `Σ a_j b_j` over at most [`BLOCK`] values, exactly: in `i64` when every
/// value is below [`SMALL`] in magnitude, in `i128` otherwise.
#[inline]
fn block_dot(a: &[i64], b: &[i64], small: bool) -> i128 {
    debug_assert!(a.len() <= BLOCK && b.len() == a.len());
    if small {
        a.iter().zip(b).map(|(&u, &v)| u * v).sum::<i64>() as i128
    } else {
        a.iter().zip(b).map(|(&u, &v)| u as i128 * v as i128).sum()
    }
}

/// Exact sums of one metric over clusters: `Σy, Σx, Σy², Σx², Σxy`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RatioSums {
    pub y: i128,
    pub x: i128,
    pub yy: i128,
    pub xx: i128,
    pub xy: i128,
}

impl RatioSums {
    /// Adds the clusters of a sealed block: numerators `y[m]`, denominators
    /// `coef · base[b]`.
    #[inline]
    pub(super) fn add_block(&mut self, blk: &Block, m: usize, (b, coef): (usize, i64)) {
        let c = coef as i128;
        self.y += blk.sy[m];
        self.x += c * blk.sb[b].0;
        self.yy += blk.y_y(m, blk, m);
        self.xx += c * c * blk.sb[b].1;
        self.xy += c * blk.y_base(m, blk, b);
    }
    pub(super) fn merge(&mut self, o: &RatioSums) {
        self.y += o.y;
        self.x += o.x;
        self.yy += o.yy;
        self.xx += o.xx;
        self.xy += o.xy;
    }
}

/// Exact cross sums of an arm's metric `a` and the baseline's metric `b`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrossSums {
    pub ya_yb: i128,
    pub ya_xb: i128,
    pub xa_yb: i128,
    pub xa_xb: i128,
    /// The clusters where the two differ (in the metric or its
    /// denominator): the paired difference's variance comes from these
    /// alone, and its degrees of freedom with it. `None` in a state saved
    /// before it was counted (2026-12-07).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub differ: Option<u64>,
}

impl Default for CrossSums {
    fn default() -> CrossSums {
        CrossSums {
            ya_yb: 0,
            ya_xb: 0,
            xa_yb: 0,
            xa_xb: 0,
            differ: Some(0),
        }
    }
}

impl CrossSums {
    /// Adds the clusters of two sealed blocks of the same clusters: the arm's
    /// metric `i` (denominator `ca · xa`) and the baseline's metric `j`
    /// (denominator `cb · xb`).
    #[inline]
    pub(super) fn add_block(
        &mut self,
        (a, i, (xa, ca)): (&Block, usize, (usize, i64)),
        (b, j, (xb, cb)): (&Block, usize, (usize, i64)),
    ) {
        let (ca, cb) = (ca as i128, cb as i128);
        self.ya_yb += a.y_y(i, b, j);
        self.ya_xb += cb * a.y_base(i, b, xb);
        self.xa_yb += ca * b.y_base(j, a, xa);
        self.xa_xb += ca * cb * a.base_base(xa, b, xb);
        if let Some(d) = &mut self.differ {
            *d += a.differing((i, xa, ca), b, (j, xb, cb));
        }
    }
    pub(super) fn merge(&mut self, o: &CrossSums) {
        self.ya_yb += o.ya_yb;
        self.ya_xb += o.ya_xb;
        self.xa_yb += o.xa_yb;
        self.xa_xb += o.xa_xb;
        self.differ = self.differ.zip(o.differ).map(|(a, b)| a + b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng as _, SeedableRng};

    /// Per-cluster `(y, x)` of metric `m` read back from a block, as the
    /// sums define them.
    fn yx(b: &Block, m: usize, (base, coef): (usize, i64), j: usize) -> (i128, i128) {
        (b.y[m][j] as i128, coef as i128 * b.base[base][j] as i128)
    }

    /// Fills clusters `0..used` of a block: `kind` 0 small values, 1 values
    /// past [`SMALL`] (the `i128` path), 2 bases of 1 and some all-zero
    /// numerator columns (the shortcuts).
    fn fill(b: &mut Block, used: usize, kind: u32, rng: &mut rand_xoshiro::Xoshiro256PlusPlus) {
        b.clear(used);
        let top: i64 = if kind == 1 { 1 << 40 } else { 1 << 20 };
        for (m, c) in b.y.iter_mut().enumerate() {
            for v in &mut c[..used] {
                *v = if kind == 2 && m % 3 == 0 {
                    0
                } else {
                    rng.random_range(-top..top)
                };
            }
        }
        for c in b.base.iter_mut() {
            for v in &mut c[..used] {
                *v = if kind == 2 {
                    1
                } else {
                    rng.random_range(0..top)
                };
            }
        }
        b.seal(used);
    }

    #[test]
    fn block_sums_equal_the_per_cluster_sums() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(9);
        let x_of = [
            (BASE_ROUNDS, 1),
            (BASE_WON, 4),
            (BASE_MATCHES, 3),
            (BASE_ROUNDS, 2),
        ];
        let k = x_of.len();
        for (kind, used) in [(0, BLOCK), (1, BLOCK), (2, BLOCK), (0, 5), (1, 17), (2, 1)] {
            let (mut a, mut b) = (Block::new(k), Block::new(k));
            fill(&mut a, used, kind, &mut rng);
            fill(&mut b, used, if kind == 1 { 0 } else { kind }, &mut rng);
            assert_eq!(a.small, kind != 1);
            for m in 0..k {
                let mut got = RatioSums::default();
                got.add_block(&a, m, x_of[m]);
                let mut want = RatioSums::default();
                for j in 0..used {
                    let (y, x) = yx(&a, m, x_of[m], j);
                    want.merge(&RatioSums {
                        y,
                        x,
                        yy: y * y,
                        xx: x * x,
                        xy: x * y,
                    });
                }
                assert_eq!(got, want, "kind {kind}, {used} clusters, metric {m}");
                for n in 0..k {
                    let mut got = CrossSums::default();
                    got.add_block((&a, m, x_of[m]), (&b, n, x_of[n]));
                    let mut want = CrossSums::default();
                    for j in 0..used {
                        let ((ya, xa), (yb, xb)) = (yx(&a, m, x_of[m], j), yx(&b, n, x_of[n], j));
                        want.merge(&CrossSums {
                            ya_yb: ya * yb,
                            ya_xb: ya * xb,
                            xa_yb: xa * yb,
                            xa_xb: xa * xb,
                            differ: Some(u64::from((ya, xa) != (yb, xb))),
                        });
                    }
                    assert_eq!(got, want, "kind {kind}, {used} clusters, metrics {m} {n}");
                }
                // A metric against itself differs in no cluster.
                let mut same = CrossSums::default();
                same.add_block((&a, m, x_of[m]), (&a, m, x_of[m]));
                assert_eq!(same.differ, Some(0));
            }
        }
    }

    #[test]
    fn a_block_is_small_only_below_2_pow_26() {
        let mut b = Block::new(1);
        b.clear(2);
        b.y[0][1] = -((1 << 26) - 1);
        b.seal(2);
        assert!(b.small);
        b.y[0][1] = -(1 << 26);
        b.seal(2);
        assert!(!b.small);
        // Values past the clusters played are not read.
        b.y[0][1] = 0;
        b.base[BASE_WON][2] = 1 << 40;
        b.seal(2);
        assert!(b.small);
    }
}
