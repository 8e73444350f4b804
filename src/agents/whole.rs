//! Whole numbers of a preset file's fields, read as each field allows
//! them: refused outside the field's own range with that range in the
//! message ("expected a whole number from 1 to 1000000"), where serde would
//! give the type's ("0 to 4294967295") and the checks after it a second,
//! different range.

use serde::de::{Deserializer, Error, Unexpected, Visitor};
use std::fmt;

/// A whole number from `LO` to `HI`, as a `T` (`deserialize_with`).
pub(crate) fn whole<'de, D, T, const LO: u64, const HI: u64>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<u64>,
{
    let n = d.deserialize_u64(Whole::<LO, HI>)?;
    T::try_from(n).map_err(|_| D::Error::custom(format!("{n} is out of range")))
}

/// [`whole`] of an optional field.
pub(crate) fn some_whole<'de, D, const LO: u64, const HI: u64>(
    d: D,
) -> Result<Option<u64>, D::Error>
where
    D: Deserializer<'de>,
{
    whole::<D, u64, LO, HI>(d).map(Some)
}

struct Whole<const LO: u64, const HI: u64>;

impl<'de, const LO: u64, const HI: u64> Visitor<'de> for Whole<LO, HI> {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if HI == u64::MAX {
            write!(f, "a whole number, {LO} or more")
        } else {
            write!(f, "a whole number from {LO} to {HI}")
        }
    }

    fn visit_u64<E: Error>(self, v: u64) -> Result<u64, E> {
        if (LO..=HI).contains(&v) {
            Ok(v)
        } else {
            Err(E::invalid_value(Unexpected::Unsigned(v), &self))
        }
    }

    fn visit_i64<E: Error>(self, v: i64) -> Result<u64, E> {
        match u64::try_from(v) {
            Ok(u) => self.visit_u64(u),
            Err(_) => Err(E::invalid_value(Unexpected::Signed(v), &self)),
        }
    }
}
