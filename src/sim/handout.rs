//! Units of work handed out in order to every thread of a pool: the loop that
//! the runner, run shards, the lockstep runner, tournaments and `tune`'s
//! held-out evaluation share.
//!
//! Units are taken in order from one counter, and a unit taken is always
//! finished, so the units finished are a prefix of the list whenever the
//! handing out stops (between units) or a unit fails (the units below it
//! still finish). That is what makes an interrupted run's games, and the
//! failure a run reports, the same on any number of threads.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use rayon::ThreadPool;

/// Plays units `0..units` on every thread of `pool`. Each thread makes its
/// state with `init(thread index)`, then takes the next unit and calls
/// `work(&mut state, unit)`, until the units run out or `halt()` (read
/// before each unit) says to stop; then, still on that thread, it hands its
/// state to `finish` (which may put back what it borrowed, or drop a worker
/// whose programs take time to end, on every thread at once).
///
/// A unit that fails returns `Err((key, error))`, `key` being where it
/// failed (the game). No unit past the lowest failed one is taken, the units
/// below it still finish, and the error returned is the one of the lowest
/// key: the same failure whatever the threads. Otherwise what `finish`
/// made of every thread's state is returned, in thread order.
pub fn in_order<S, T, E>(
    pool: &ThreadPool,
    units: u64,
    halt: &(dyn Fn() -> bool + Sync),
    init: impl Fn(usize) -> S + Sync,
    work: impl Fn(&mut S, u64) -> Result<(), (u64, E)> + Sync,
    finish: impl Fn(S) -> T + Sync,
) -> Result<Vec<T>, E>
where
    T: Send,
    E: Send,
{
    let next = AtomicU64::new(0);
    let failed_unit = AtomicU64::new(u64::MAX);
    let failure: Mutex<Option<(u64, E)>> = Mutex::new(None);
    let states = pool.broadcast(|ctx| {
        let mut state = init(ctx.index());
        loop {
            if halt() {
                break;
            }
            let unit = next.fetch_add(1, Ordering::Relaxed);
            if unit >= units || unit > failed_unit.load(Ordering::Relaxed) {
                break;
            }
            if let Err((key, e)) = work(&mut state, unit) {
                let mut f = failure.lock().unwrap_or_else(|p| p.into_inner());
                if f.as_ref().is_none_or(|(k, _)| key < *k) {
                    *f = Some((key, e));
                }
                failed_unit.fetch_min(unit, Ordering::Relaxed);
                break;
            }
        }
        finish(state)
    });
    match failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        Some((_, e)) => Err(e),
        None => Ok(states),
    }
}

/// Why a unit of [`in_order`] did not finish, for work that may lose a unit
/// to an interrupt (see [`Folded`]).
#[derive(Debug)]
pub enum Unfinished<E> {
    /// It failed: the work fails with the lowest such unit's error.
    Failed(E),
    /// The work was interrupted and this unit could not finish: a program
    /// it played with was ended by the same signal (a batch scheduler's
    /// SIGTERM reaches every process of the job). The work ends with the
    /// units below it, as if the interrupt had come before this unit.
    Interrupted(E),
}

impl<E> Unfinished<E> {
    /// The error, for [`in_order`], of the unit starting at `start` that
    /// failed with `e` at key `at` (its game): left unfinished, keyed by its
    /// start, when it was [`cut_short`] (`cut`); else a failure keyed at
    /// `at`, so that the lowest game's failure is the one reported.
    pub fn keyed(cut: bool, start: u64, at: u64, e: E) -> (u64, Unfinished<E>) {
        if cut {
            (start, Unfinished::Interrupted(e))
        } else {
            (at, Unfinished::Failed(e))
        }
    }
}

/// Whether a unit that failed now was cut short by the interrupt: the work
/// was interrupted (`stop`), the unit played with a program (`programs`) and
/// a program was stopped by a signal. Any other failure, after an
/// interrupt or not, is one.
pub fn cut_short(programs: bool, stop: &AtomicBool) -> bool {
    programs && stop.load(Ordering::SeqCst) && crate::agents::external::stopped_by_signal()
}

/// The parts of finished units, folded into a total in unit order whatever
/// order the threads finish them in: the total holds units `0..n` for the
/// least `n` not yet finished. A part that comes before the units below it
/// waits (a few at most: the units run on a pool's threads in order).
///
/// With [`in_order`], a unit that failed or was [`Unfinished::Interrupted`]
/// stops the handing out above it while the units below it finish, so the
/// total then holds exactly the units below the lowest that did not finish;
/// the parts above it are dropped. That keeps an interrupted run's units a
/// prefix even when a unit in progress cannot finish.
pub struct Folded<A, P> {
    inner: Mutex<(u64, BTreeMap<u64, P>, A)>,
}

impl<A, P> Folded<A, P> {
    /// Nothing folded yet into `total`.
    pub fn new(total: A) -> Self {
        Folded {
            inner: Mutex::new((0, BTreeMap::new(), total)),
        }
    }

    /// Unit `unit`'s part: folded now with `fold` if every unit below it is
    /// in, else kept until they are.
    pub fn add(&self, unit: u64, part: P, fold: impl Fn(&mut A, P)) {
        let mut g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let (next, waiting, total) = &mut *g;
        if unit != *next {
            waiting.insert(unit, part);
            return;
        }
        fold(total, part);
        *next += 1;
        while let Some(p) = waiting.remove(next) {
            fold(total, p);
            *next += 1;
        }
    }

    /// The total, and the number of units it holds (0 to that, less one).
    pub fn into_total(self) -> (A, u64) {
        let (next, _, total) = self.inner.into_inner().unwrap_or_else(|p| p.into_inner());
        (total, next)
    }
}

/// What [`in_order`] made of work whose units may be
/// [`Unfinished::Interrupted`]: the threads' states and no error when every
/// unit taken finished; no state and `e` when the lowest unit that did not
/// finish was interrupted (`e` says why; the work ends with the units below
/// it, which only a [`Folded`] holds then); the error of the lowest failed
/// unit when that came first.
pub fn interrupted_or_failed<T, E>(
    r: Result<Vec<T>, Unfinished<E>>,
) -> Result<(Vec<T>, Option<E>), E> {
    match r {
        Ok(states) => Ok((states, None)),
        Err(Unfinished::Interrupted(e)) => Ok((Vec::new(), Some(e))),
        Err(Unfinished::Failed(e)) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    fn pool(threads: usize) -> ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    }

    #[test]
    fn every_unit_is_played_once_on_any_threads() {
        for threads in [1, 2, 3, 5] {
            let states = in_order::<Vec<u64>, Vec<u64>, ()>(
                &pool(threads),
                100,
                &|| false,
                |_| Vec::new(),
                |s, u| {
                    s.push(u);
                    Ok(())
                },
                |s| s,
            )
            .unwrap();
            assert_eq!(states.len(), threads);
            let mut all: Vec<u64> = states.concat();
            all.sort_unstable();
            assert_eq!(all, (0..100).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_halt_leaves_a_prefix_of_the_units_finished() {
        for threads in [1, 2, 4] {
            let halted = AtomicBool::new(false);
            let states = in_order::<Vec<u64>, Vec<u64>, ()>(
                &pool(threads),
                1000,
                &|| halted.load(Ordering::Relaxed),
                |_| Vec::new(),
                |s, u| {
                    if u == 40 {
                        halted.store(true, Ordering::Relaxed);
                    }
                    s.push(u);
                    Ok(())
                },
                |s| s,
            )
            .unwrap();
            let mut all: Vec<u64> = states.concat();
            all.sort_unstable();
            assert!(all.len() >= 41 && all.len() < 1000, "{}", all.len());
            assert_eq!(all, (0..all.len() as u64).collect::<Vec<_>>());
        }
    }

    #[test]
    fn the_failure_returned_is_the_lowest_keys_on_any_threads() {
        for threads in [1, 2, 4, 7] {
            // Units 30 and 70 fail; 70 fails at once and 30 slowly, so that
            // with several threads 70's failure is often recorded first.
            let r = in_order::<(), (), String>(
                &pool(threads),
                100,
                &|| false,
                |_| (),
                |_, u| match u {
                    30 => {
                        std::thread::sleep(std::time::Duration::from_millis(20));
                        Err((u * 10, format!("unit {u}")))
                    }
                    70 => Err((u * 10, format!("unit {u}"))),
                    _ => Ok(()),
                },
                |_| (),
            );
            assert_eq!(r.unwrap_err(), "unit 30", "{threads} threads");
        }
    }

    /// A unit interrupted while the units above it finish on other threads:
    /// the total holds exactly the units below it, on any threads; a failure
    /// below the interrupted unit still fails the work, one above it does
    /// not.
    #[test]
    fn an_interrupted_unit_leaves_the_units_below_it_folded() {
        for threads in [1, 2, 4] {
            for failed in [None, Some(30), Some(80)] {
                let folded = Folded::new(Vec::new());
                let r = in_order::<(), (), Unfinished<u64>>(
                    &pool(threads),
                    200,
                    &|| false,
                    |_| (),
                    |_, u| {
                        if u == 57 {
                            std::thread::sleep(std::time::Duration::from_millis(30));
                            return Err((u, Unfinished::Interrupted(u)));
                        }
                        if Some(u) == failed {
                            return Err((u, Unfinished::Failed(u)));
                        }
                        folded.add(u, u, |t: &mut Vec<u64>, p| t.push(p));
                        Ok(())
                    },
                    |_| (),
                );
                let (total, n) = folded.into_total();
                match failed {
                    Some(30) => assert_eq!(interrupted_or_failed(r).unwrap_err(), 30),
                    _ => {
                        assert_eq!(interrupted_or_failed(r).unwrap().1, Some(57));
                        assert_eq!(total, (0..57).collect::<Vec<_>>(), "{threads} threads");
                        assert_eq!(n, 57);
                    }
                }
            }
        }
    }
}
