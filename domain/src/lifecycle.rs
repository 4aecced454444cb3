//! The period lifecycle: `open → frozen → settled → archived`, plus `frozen → open` (reopen).
//!
//! Every transition is idempotent: asking for a state the period already reached along the main
//! line answers [`Step::Already`] and changes nothing (a retried freeze, a settle of a period that
//! was archived since). Anything else that does not follow an arrow is refused with the current
//! state, so callers can say why.
//!
//! A public freeze's stepwise reveal picks its next member here too ([`next_to_reveal`]): the
//! lowest placed of the frozen board whose live standing differs, so the winners come last.

use crate::ids::MemberId;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The member the next step of a stepwise reveal (contest mode, `engine::public`) makes public,
/// the resolver's way: of the members whose live standing differs from the public one
/// (`pending`), the lowest placed in the public view — `public` holds each viewed member's
/// encoded score; a member the view does not hold is below everyone, and equal scores are
/// ordered as the projection orders them (the higher member id first) — so the board fills in
/// from the bottom of the frozen board upward, one member per step, and the winners come last.
pub fn next_to_reveal<'a>(
    public: &std::collections::HashMap<&MemberId, i64>,
    pending: impl IntoIterator<Item = &'a MemberId>,
) -> Option<&'a MemberId> {
    pending.into_iter().min_by_key(|m| (public.get(m).copied(), *m))
}

/// A period's state. Ordered along the main line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Writes apply (until the period's end + grace).
    Open,
    /// Writes are kept as late for review; revocations and corrections still apply.
    Frozen,
    /// Final standings, prizes and rewards are recorded; nothing changes any more.
    Settled,
    /// Served from the stored standings; the projection is gone.
    Archived,
}

impl State {
    pub const ALL: [State; 4] = [State::Open, State::Frozen, State::Settled, State::Archived];

    pub fn as_str(self) -> &'static str {
        match self {
            State::Open => "open",
            State::Frozen => "frozen",
            State::Settled => "settled",
            State::Archived => "archived",
        }
    }

    pub fn parse(s: &str) -> Option<State> {
        State::ALL.into_iter().find(|state| state.as_str() == s)
    }

    /// Whether the totals may still change (by revocation, correction or an accepted late write).
    pub fn is_adjustable(self) -> bool {
        matches!(self, State::Open | State::Frozen)
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What an admin (or the scheduler) asks of a period.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transition {
    Freeze,
    Reopen,
    Settle,
    Archive,
}

impl Transition {
    pub const ALL: [Transition; 4] =
        [Transition::Freeze, Transition::Reopen, Transition::Settle, Transition::Archive];

    pub fn as_str(self) -> &'static str {
        match self {
            Transition::Freeze => "freeze",
            Transition::Reopen => "reopen",
            Transition::Settle => "settle",
            Transition::Archive => "archive",
        }
    }

    pub fn parse(s: &str) -> Option<Transition> {
        Transition::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// The state this transition leads to.
    pub fn target(self) -> State {
        match self {
            Transition::Freeze => State::Frozen,
            Transition::Reopen => State::Open,
            Transition::Settle => State::Settled,
            Transition::Archive => State::Archived,
        }
    }
}

/// What a transition does to a period in a given state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Move to the target state.
    Move(State),
    /// The period is already there (or past it on the main line): nothing changes.
    Already,
}

/// The transition cannot happen from the current state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("cannot {} a period that is {current}", transition.as_str())]
pub struct InvalidTransition {
    pub transition: Transition,
    pub current: State,
}

/// Decides a transition. Arrows: open→frozen, frozen→open, frozen→settled, settled→archived.
pub fn step(current: State, transition: Transition) -> Result<Step, InvalidTransition> {
    use State::*;
    use Transition::*;
    let invalid = Err(InvalidTransition { transition, current });
    match (current, transition) {
        (Open, Freeze) | (Frozen, Settle) | (Settled, Archive) | (Frozen, Reopen) => {
            Ok(Step::Move(transition.target()))
        }
        (Open, Reopen) => Ok(Step::Already),
        // Reopening a settled or archived period would silently change a published result.
        (Settled | Archived, Reopen) => invalid,
        (Open, Settle | Archive) | (Frozen, Archive) => invalid,
        (_, Freeze | Settle | Archive) => Ok(Step::Already),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reveal_goes_from_the_bottom_of_the_frozen_board_up_one_member_a_step() {
        let id = |s: &str| MemberId::parse(s).unwrap();
        let (ada, bob, cy, dee, new) = (id("ada"), id("bob"), id("cy"), id("dee"), id("new"));
        // The frozen board: ada 50, cy 30 and bob 30 (tied: the higher id placed first), dee 10.
        let public = std::collections::HashMap::from([(&ada, 50), (&bob, 30), (&cy, 30), (&dee, 10)]);
        // A member the view does not hold (points only after the freeze) is below everyone.
        assert_eq!(next_to_reveal(&public, [&ada, &new, &dee]), Some(&new));
        // Else the lowest placed, whoever they overtake live: dee before ada.
        assert_eq!(next_to_reveal(&public, [&ada, &dee]), Some(&dee));
        // In a tie, the row placed lower first (the projection puts the higher id above).
        assert_eq!(next_to_reveal(&public, [&cy, &bob]), Some(&bob));
        // The winner comes last; nothing pending, nothing to reveal.
        assert_eq!(next_to_reveal(&public, [&ada]), Some(&ada));
        assert_eq!(next_to_reveal(&public, []), None);
    }

    #[test]
    fn the_arrows_move_and_repeats_change_nothing() {
        use State::*;
        use Transition::*;
        assert_eq!(step(Open, Freeze), Ok(Step::Move(Frozen)));
        assert_eq!(step(Frozen, Reopen), Ok(Step::Move(Open)));
        assert_eq!(step(Frozen, Settle), Ok(Step::Move(Settled)));
        assert_eq!(step(Settled, Archive), Ok(Step::Move(Archived)));
        assert_eq!(step(Frozen, Freeze), Ok(Step::Already));
        assert_eq!(step(Open, Reopen), Ok(Step::Already));
        assert_eq!(step(Settled, Settle), Ok(Step::Already));
        assert_eq!(step(Archived, Settle), Ok(Step::Already));
        assert_eq!(step(Archived, Freeze), Ok(Step::Already));
        assert_eq!(step(Archived, Archive), Ok(Step::Already));
    }

    #[test]
    fn impossible_transitions_name_the_current_state() {
        use State::*;
        use Transition::*;
        for (state, t) in
            [(Open, Settle), (Open, Archive), (Frozen, Archive), (Settled, Reopen), (Archived, Reopen)]
        {
            let e = step(state, t).unwrap_err();
            assert_eq!(e.current, state);
            assert!(e.to_string().contains(state.as_str()), "{e}");
        }
    }

    #[test]
    fn every_pair_is_decided_and_moves_only_along_an_arrow() {
        for state in State::ALL {
            for t in Transition::ALL {
                if let Ok(Step::Move(to)) = step(state, t) {
                    assert_eq!(to, t.target());
                    assert!(to == State::Open || to > state, "{state} -> {to}");
                }
            }
        }
        for s in State::ALL {
            assert_eq!(State::parse(s.as_str()), Some(s));
        }
    }
}
