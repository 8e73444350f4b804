//! The other seats of `unolab play`, watched for a fault as it happens.
//!
//! The engine asks a seat for its fault after each round, so a broken
//! external program (a command that exits at once, a program that breaks
//! the protocol) was reported only when the round ended: the person played
//! a whole round against a seat answering legal defaults. [`watched`] asks
//! after every decision and round-start notice instead and keeps the first
//! fault in a shared [`Broken`], which the person's next prompt reads: the
//! game ends there, with the fault.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use unolab::agents::{HookAt, Hooked};
use unolab::{Observation, Seat, Strategy};

/// The first fault of a watched seat, as the error that ends the game.
pub type Broken = Arc<Mutex<Option<String>>>;

/// `inner` at seat `seat`, recording its fault in `broken` (the first one
/// of the table only) as soon as it has one, unless the person is `gone`:
/// leaving ends the table's programs, whose faults are then no failure.
pub fn watched(inner: Seat, seat: u8, broken: Broken, gone: Arc<AtomicBool>) -> Seat {
    Seat::custom(Hooked {
        inner,
        hook: move |s: &mut Seat, obs: &Observation, _: HookAt| {
            if gone.load(Ordering::Relaxed) {
                return;
            }
            if let Some(f) = s.fault() {
                let mut b = broken.lock().unwrap_or_else(|p| p.into_inner());
                if b.is_none() {
                    *b = Some(format!(
                        "strategy '{}' at seat {seat} failed in round {}: {f}",
                        s.name(),
                        obs.round()
                    ));
                }
            }
        },
    })
}
