//! The lab: experiments as files (arms, baseline, stopping rule) and the
//! one-line A/B comparison, on top of the lockstep runner in [`crate::sim`].

pub mod experiment;

pub use experiment::Experiment;
pub mod compare;
