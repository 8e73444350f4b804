//! A stepped game played with RLCard's actions ([`crate::engine::rlcard`]):
//! one action of RLCard is the play (or the draw) and the decisions RLCard
//! answers without asking (the colour it names, the UNO call, the drawn
//! card played).

use super::{StepError, Stepper};
use crate::engine::encode::{DecisionKind, ACT_KEEP, ACT_PLAY_DRAWN};
use crate::engine::rlcard::{action, follow_up, mask, planes, ACTIONS};
use crate::engine::strategy::Strategy;

impl<S: Strategy> Stepper<'_, S> {
    /// Answers the decisions in hand that RLCard answers without asking, up
    /// to the next play decision or the end; an error for a decision RLCard
    /// does not have.
    pub fn rlcard_settle(&mut self) -> Result<(), StepError> {
        self.rlcard_follow(None, None)
    }

    fn rlcard_follow(
        &mut self,
        seat: Option<u8>,
        mut named: Option<crate::engine::cards::Color>,
    ) -> Result<(), StepError> {
        while let Some(s) = self.stop {
            if s.decision.kind == DecisionKind::Play {
                return Ok(());
            }
            let mine = seat == Some(s.decision.seat);
            let this = if mine { named } else { None };
            // The action's colour names the wild it played, once: a later
            // wild of the same seat in this loop (a drawn one played on a
            // turn that asked nothing, under `ask_forced = false`) gets the
            // encoding's own choice.
            if mine && s.decision.kind == DecisionKind::Color {
                named = None;
            }
            match follow_up(s.decision.kind, this, &self.features()) {
                // A drawn card it cannot play (asked under `ask_forced`) is kept.
                Some(ACT_PLAY_DRAWN) if s.decision.cards.is_empty() => self.step(ACT_KEEP)?,
                Some(a) => self.step(a)?,
                None => {
                    return Err(StepError::Unsupported(format!(
                        "the RLCard encoding has no action for the {} decision this rule set asks (RLCard's rules have no stacking, challenge, swap or jump-in)",
                        s.decision.kind.name()
                    )))
                }
            }
        }
        Ok(())
    }

    /// RLCard's legal actions now, as a mask ([`ACTIONS`] long; all zero
    /// when the game is over).
    pub fn rlcard_mask(&self, out: &mut [i8]) {
        mask(self.legal(), out);
    }

    /// RLCard's planes of the deciding seat ([`crate::engine::rlcard::OBS_LEN`]
    /// long, flat).
    pub fn rlcard_planes(&self, out: &mut [f32]) {
        planes(&self.features(), out);
    }

    /// Plays RLCard's action `a` and the decisions RLCard answers without
    /// asking, up to the next play decision or the end. An action outside
    /// the mask is refused, or, with the sanction on, handed to the engine as
    /// the illegal play it is (the wrong-card sanction).
    pub fn step_rlcard(&mut self, a: usize) -> Result<(), StepError> {
        self.check_rlcard(a)?;
        self.step_rlcard_checked(a)
    }

    /// [`Stepper::step_rlcard`] for an action [`Stepper::check_rlcard`]
    /// already accepted (a batch checks every game's action first), so the
    /// mask is not built a second time.
    pub fn step_rlcard_checked(&mut self, a: usize) -> Result<(), StepError> {
        let stop = self.stop.ok_or(StepError::Over)?;
        let (engine_action, named) = action(a);
        self.step(engine_action)?;
        self.rlcard_follow(Some(stop.decision.seat), named)
    }

    /// Whether [`Stepper::step_rlcard`] would take RLCard's action `a` now:
    /// `Ok`, or the error it would return before moving (the game is over;
    /// the action is outside the mask, and not a play the sanction applies
    /// to when it is on). Changes nothing, so a batch can check every
    /// action before stepping any game. (A decision RLCard does not have,
    /// met after the action, is an error only [`Stepper::step_rlcard`] finds.)
    pub fn check_rlcard(&self, a: usize) -> Result<(), StepError> {
        let stop = self.stop.ok_or(StepError::Over)?;
        let mut m = [0i8; ACTIONS];
        self.rlcard_mask(&mut m);
        if a >= ACTIONS || (m[a] == 0 && !self.sanction) {
            return Err(StepError::Illegal {
                action: a,
                seat: stop.decision.seat,
                kind: "play (RLCard encoding)",
                legal: (0..ACTIONS).filter(|&i| m[i] == 1).collect(),
            });
        }
        if m[a] == 0 {
            self.check(action(a).0)?;
        }
        Ok(())
    }
}
