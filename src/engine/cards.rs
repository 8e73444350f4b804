//! Vocabulary: colours, faces, card kinds, physical cards and [`CardSet`].
//!
//! Tokens print and parse exactly as in docs/rules.md section 1: `red-7`,
//! `blue-draw2`, `green-skip`, `yellow-reverse`, `wild`, `wild-draw4`,
//! `wild-downpour1`, `wild-downpour2`, `wild-ohana`, `wild-swap`, `wild-custom`.

use std::fmt;
use std::str::FromStr;

/// One of the four card colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Color {
    Red = 0,
    Yellow = 1,
    Green = 2,
    Blue = 3,
}

impl Color {
    /// All colours in their canonical order.
    pub const ALL: [Color; 4] = [Color::Red, Color::Yellow, Color::Green, Color::Blue];

    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    #[inline]
    pub fn from_index(i: usize) -> Color {
        Color::ALL[i & 3]
    }

    pub fn name(self) -> &'static str {
        match self {
            Color::Red => "red",
            Color::Yellow => "yellow",
            Color::Green => "green",
            Color::Blue => "blue",
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Color {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "red" => Ok(Color::Red),
            "yellow" => Ok(Color::Yellow),
            "green" => Ok(Color::Green),
            "blue" => Ok(Color::Blue),
            _ => Err(format!(
                "unknown colour '{s}' (valid: red, yellow, green, blue)"
            )),
        }
    }
}

/// The printed face of a card: a number, a coloured action or a wild kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Face {
    Number(u8),
    Skip,
    Reverse,
    Draw2,
    Wild,
    WildDraw4,
    WildDownpour1,
    WildDownpour2,
    WildOhana,
    WildSwap,
    WildCustom,
}

/// Number of distinct faces (10 numbers + 3 actions + 7 wild kinds).
pub const NUM_FACES: usize = 20;

impl Face {
    /// Every face in canonical order.
    pub const ALL: [Face; NUM_FACES] = [
        Face::Number(0),
        Face::Number(1),
        Face::Number(2),
        Face::Number(3),
        Face::Number(4),
        Face::Number(5),
        Face::Number(6),
        Face::Number(7),
        Face::Number(8),
        Face::Number(9),
        Face::Skip,
        Face::Reverse,
        Face::Draw2,
        Face::Wild,
        Face::WildDraw4,
        Face::WildDownpour1,
        Face::WildDownpour2,
        Face::WildOhana,
        Face::WildSwap,
        Face::WildCustom,
    ];

    /// Dense index in `0..NUM_FACES`.
    #[inline]
    pub fn index(self) -> usize {
        match self {
            Face::Number(n) => n as usize,
            Face::Skip => 10,
            Face::Reverse => 11,
            Face::Draw2 => 12,
            Face::Wild => 13,
            Face::WildDraw4 => 14,
            Face::WildDownpour1 => 15,
            Face::WildDownpour2 => 16,
            Face::WildOhana => 17,
            Face::WildSwap => 18,
            Face::WildCustom => 19,
        }
    }

    /// True for the faces that carry no colour.
    #[inline]
    pub fn is_wild(self) -> bool {
        self.index() >= 13
    }

    /// The token of the face: `7`, `skip`, `draw2`, `wild`, `wild-draw4`, ...
    pub fn token(self) -> &'static str {
        const T: [&str; NUM_FACES] = [
            "0",
            "1",
            "2",
            "3",
            "4",
            "5",
            "6",
            "7",
            "8",
            "9",
            "skip",
            "reverse",
            "draw2",
            "wild",
            "wild-draw4",
            "wild-downpour1",
            "wild-downpour2",
            "wild-ohana",
            "wild-swap",
            "wild-custom",
        ];
        T[self.index()]
    }

    /// Parses a face token (`7`, `skip`, `wild-ohana`, ...).
    pub fn parse(s: &str) -> Option<Face> {
        Face::ALL.iter().copied().find(|f| f.token() == s)
    }

    /// Printed points of the face (numbers face value, actions 20, wilds 50).
    pub fn default_points(self) -> u16 {
        match self {
            Face::Number(n) => n as u16,
            Face::Skip | Face::Reverse | Face::Draw2 => 20,
            _ => 50,
        }
    }
}

/// A kind of card: a face with a colour, or a wild face.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Kind {
    pub color: Option<Color>,
    pub face: Face,
}

impl Kind {
    pub fn new(color: Option<Color>, face: Face) -> Kind {
        Kind { color, face }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.color {
            Some(c) => write!(f, "{}-{}", c.name(), self.face.token()),
            None => f.write_str(self.face.token()),
        }
    }
}

impl FromStr for Kind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if let Some(face) = Face::parse(s) {
            if face.is_wild() {
                return Ok(Kind::new(None, face));
            }
        }
        if let Some((c, rest)) = s.split_once('-') {
            if let (Ok(color), Some(face)) = (c.parse::<Color>(), Face::parse(rest)) {
                if !face.is_wild() {
                    return Ok(Kind::new(Some(color), face));
                }
            }
        }
        Err(format!(
            "unknown card token '{s}' (expected e.g. red-7, blue-draw2, green-skip, yellow-reverse, wild, wild-draw4)"
        ))
    }
}

/// A physical card: its index in the rule set's deck (0..128).
pub type CardId = u8;

/// `1 << c` for every card, as a table: a variable 128-bit shift costs several
/// instructions on x86-64, a load costs one.
static BITS: [u128; 128] = {
    let mut t = [0u128; 128];
    let mut i = 0;
    while i < 128 {
        t[i] = 1u128 << i;
        i += 1;
    }
    t
};

/// The single-card mask of `c` (`c` is taken modulo 128, so no bounds check).
#[inline(always)]
fn bit(c: CardId) -> u128 {
    BITS[(c & 127) as usize]
}

/// A set of physical cards, one bit per card of the deck.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct CardSet(pub u128);

impl CardSet {
    pub const EMPTY: CardSet = CardSet(0);

    #[inline(always)]
    #[must_use]
    pub fn single(c: CardId) -> CardSet {
        CardSet(bit(c))
    }

    /// The set of the first `n` cards (0..n).
    #[must_use]
    pub fn first_n(n: usize) -> CardSet {
        if n >= 128 {
            CardSet(u128::MAX)
        } else {
            CardSet((1u128 << n) - 1)
        }
    }

    #[inline(always)]
    pub fn len(self) -> u32 {
        self.0.count_ones()
    }

    #[inline(always)]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    #[inline(always)]
    pub fn contains(self, c: CardId) -> bool {
        self.0 & bit(c) != 0
    }

    #[inline(always)]
    pub fn insert(&mut self, c: CardId) {
        self.0 |= bit(c);
    }

    #[inline(always)]
    pub fn remove(&mut self, c: CardId) {
        self.0 &= !bit(c);
    }

    /// Lowest card of the set.
    #[inline(always)]
    pub fn first(self) -> Option<CardId> {
        if self.0 == 0 {
            None
        } else {
            Some(self.0.trailing_zeros() as CardId)
        }
    }

    /// The `k`-th card of the set in increasing order, `None` when `k >= len`.
    #[inline]
    pub fn nth(self, k: u32) -> Option<CardId> {
        let lo = self.0 as u64;
        let lo_n = lo.count_ones();
        let (mut w, mut k, base) = if k < lo_n {
            (lo, k, 0)
        } else {
            ((self.0 >> 64) as u64, k - lo_n, 64)
        };
        if w.count_ones() <= k {
            return None;
        }
        while k > 0 {
            w &= w - 1;
            k -= 1;
        }
        Some((base + w.trailing_zeros()) as CardId)
    }

    /// As [`nth`](Self::nth) for a `k` below the set's size, without a
    /// data-dependent loop when `k < 4` (a random strategy's usual case: a loop
    /// whose length is random costs a mispredicted branch every time).
    #[inline(always)]
    pub fn nth_small(self, k: u32) -> Option<CardId> {
        #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
        return self.nth_pdep(k);
        #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
        return self.nth_select(k);
    }

    /// [`CardSet::nth_small`] without BMI2: for `k < 4` the four candidates are
    /// computed and one is selected, without a loop.
    #[cfg_attr(all(target_arch = "x86_64", target_feature = "bmi2"), allow(dead_code))]
    #[inline(always)]
    fn nth_select(self, k: u32) -> Option<CardId> {
        if k >= 4 {
            return self.nth(k);
        }
        let w0 = self.0;
        let w1 = w0 & w0.wrapping_sub(1);
        let w2 = w1 & w1.wrapping_sub(1);
        let w3 = w2 & w2.wrapping_sub(1);
        let w = [w0, w1, w2, w3][k as usize];
        if w == 0 {
            None
        } else {
            Some(w.trailing_zeros() as CardId)
        }
    }

    /// [`CardSet::nth`] with BMI2's parallel bit deposit: no loop, no branch
    /// on `k`. Used when the build targets a CPU that has it.
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    #[inline(always)]
    fn nth_pdep(self, k: u32) -> Option<CardId> {
        let lo = self.0 as u64;
        let hi = (self.0 >> 64) as u64;
        let c0 = lo.count_ones();
        let high = k >= c0;
        let word = if high { hi } else { lo };
        let kk = if high { k - c0 } else { k };
        if kk >= 64 {
            return None;
        }
        // SAFETY: this function is compiled only when the target has BMI2
        // (`target_feature = "bmi2"`), so the instruction exists.
        let b = unsafe { std::arch::x86_64::_pdep_u64(1u64 << kk, word) };
        if b == 0 {
            None
        } else {
            Some((b.trailing_zeros() + 64 * high as u32) as CardId)
        }
    }

    #[inline(always)]
    pub fn iter(self) -> CardSetIter {
        CardSetIter(self.0)
    }
}

impl std::ops::BitOr for CardSet {
    type Output = CardSet;
    #[inline(always)]
    fn bitor(self, o: CardSet) -> CardSet {
        CardSet(self.0 | o.0)
    }
}
impl std::ops::BitAnd for CardSet {
    type Output = CardSet;
    #[inline(always)]
    fn bitand(self, o: CardSet) -> CardSet {
        CardSet(self.0 & o.0)
    }
}
impl std::ops::Sub for CardSet {
    type Output = CardSet;
    /// Set difference.
    #[inline(always)]
    fn sub(self, o: CardSet) -> CardSet {
        CardSet(self.0 & !o.0)
    }
}
impl std::ops::BitXor for CardSet {
    type Output = CardSet;
    #[inline(always)]
    fn bitxor(self, o: CardSet) -> CardSet {
        CardSet(self.0 ^ o.0)
    }
}
impl std::ops::BitOrAssign for CardSet {
    #[inline(always)]
    fn bitor_assign(&mut self, o: CardSet) {
        self.0 |= o.0;
    }
}
impl std::ops::BitAndAssign for CardSet {
    #[inline(always)]
    fn bitand_assign(&mut self, o: CardSet) {
        self.0 &= o.0;
    }
}
impl std::ops::SubAssign for CardSet {
    #[inline(always)]
    fn sub_assign(&mut self, o: CardSet) {
        self.0 &= !o.0;
    }
}

impl fmt::Debug for CardSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// Iterator over the cards of a [`CardSet`] in increasing order.
pub struct CardSetIter(u128);

impl Iterator for CardSetIter {
    type Item = CardId;
    #[inline(always)]
    fn next(&mut self) -> Option<CardId> {
        if self.0 == 0 {
            None
        } else {
            let c = self.0.trailing_zeros() as CardId;
            self.0 &= self.0 - 1;
            Some(c)
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for CardSetIter {}

impl FromIterator<CardId> for CardSet {
    fn from_iter<I: IntoIterator<Item = CardId>>(iter: I) -> Self {
        let mut s = CardSet::EMPTY;
        for c in iter {
            s.insert(c);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip() {
        for face in Face::ALL {
            if face.is_wild() {
                let k = Kind::new(None, face);
                assert_eq!(k.to_string().parse::<Kind>().unwrap(), k);
            } else {
                for c in Color::ALL {
                    let k = Kind::new(Some(c), face);
                    assert_eq!(k.to_string().parse::<Kind>().unwrap(), k);
                }
            }
        }
        assert_eq!(
            "red-7".parse::<Kind>().unwrap(),
            Kind::new(Some(Color::Red), Face::Number(7))
        );
        assert_eq!(
            "wild-draw4".parse::<Kind>().unwrap().to_string(),
            "wild-draw4"
        );
        assert_eq!("blue-draw2".parse::<Kind>().unwrap().face, Face::Draw2);
        assert!("red-wild".parse::<Kind>().is_err());
        assert!("purple-3".parse::<Kind>().is_err());
        assert!("red-10".parse::<Kind>().is_err());
        assert!("wild-red".parse::<Kind>().is_err());
    }

    #[test]
    fn nth_matches_iteration() {
        let mut x: u128 = 0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C834;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            for set in [
                CardSet(x),
                CardSet(x & (x >> 3)),
                CardSet(x & 0xF0F0),
                CardSet(x >> 100),
            ] {
                let v: Vec<CardId> = set.iter().collect();
                for k in 0..=v.len() as u32 + 1 {
                    assert_eq!(set.nth(k), v.get(k as usize).copied(), "{set:?} {k}");
                    assert_eq!(set.nth_small(k), v.get(k as usize).copied(), "{set:?} {k}");
                }
            }
        }
    }

    #[test]
    fn set_operations() {
        let a: CardSet = [1u8, 5, 64, 127].into_iter().collect();
        let b: CardSet = [5u8, 100].into_iter().collect();
        assert_eq!(a.len(), 4);
        assert_eq!((a | b).len(), 5);
        assert_eq!((a & b).iter().collect::<Vec<_>>(), vec![5]);
        assert_eq!((a - b).iter().collect::<Vec<_>>(), vec![1, 64, 127]);
        assert_eq!(a.nth(0), Some(1));
        assert_eq!(a.nth(2), Some(64));
        assert_eq!(a.nth(3), Some(127));
        assert_eq!(a.nth(4), None);
        assert_eq!(a.first(), Some(1));
        assert!(a.contains(127) && !a.contains(2));
        assert_eq!(CardSet::first_n(128).len(), 128);
        assert_eq!(CardSet::first_n(108).len(), 108);
    }
}
