use super::*;
use crate::board::*;

fn source(sort: &str) -> Board {
    let draft = crate::board::prize_tests::draft();
    BoardDraft { tie_policy: "shared".into(), sort: Some(sort.into()), ..draft }.parse().unwrap()
}

fn draft(rule: SeasonRule) -> SeasonDraft {
    SeasonDraft {
        slug: "q1".into(),
        title: "Q1".into(),
        source: "weekly".into(),
        periods: None,
        from: Some("2027-01-01".into()),
        to: Some("2027-03-31".into()),
        rule,
        tie_policy: "first_reached".into(),
        prizes: Vec::new(),
        carry_over: None,
    }
}

#[test]
fn a_carry_over_widens_the_bounds_by_the_share_of_the_last_seasons_largest_total() {
    let last = draft(SeasonRule::Sum {}).parse(&source("desc")).unwrap();
    let own = draft(SeasonRule::Sum {}).parse(&source("desc")).unwrap().codec.bounds().1;
    let carry = Some(CarryOverDraft { from: "q1".into(), share_percent: 50, floor: 10 });
    let next = SeasonDraft { carry_over: carry.clone(), ..draft(SeasonRule::Sum {}) };
    let board = next.parse_carrying(&source("desc"), Some(&last)).unwrap();
    assert_eq!(board.codec.bounds().1, own + (last.codec.bounds().1 - 10) / 2);
    let next = SeasonDraft { carry_over: carry.clone(), ..draft(SeasonRule::Sum {}) };
    assert_eq!(next.parse(&source("desc")).unwrap_err().field, "carry_over");
    let next = SeasonDraft { carry_over: carry, ..draft(SeasonRule::Sum {}) };
    let plain = source("desc");
    assert!(next.parse_carrying(&source("desc"), Some(&plain)).unwrap_err().message.contains("not a season"));
}

#[test]
fn a_quarter_is_the_iso_weeks_that_start_in_it() {
    let board = draft(SeasonRule::Sum {}).parse(&source("desc")).unwrap();
    let season = board.season.as_ref().unwrap();
    assert_eq!(season.periods.len(), 13);
    assert_eq!(season.key().to_string(), "2027-W01..2027-W13");
    assert_eq!(board.cadence, Cadence::Season);
    assert_eq!(board.codec.bounds(), (0, 13_000_000));
    assert_eq!(board.period_at(jiff::Timestamp::UNIX_EPOCH), season.key());
    assert_eq!(PeriodKey::parse("2027-W01..2027-W13").unwrap(), season.key());
    assert_eq!(board.period_named("2027-W01..2027-W13").unwrap(), season.key());
    assert!(board.period_named("2027-W01..2027-W12").is_err(), "not the season's period");
    assert!(board.period_named("2027-W01").is_err(), "a week is not a season's period");
    assert!(!board.has_period(PeriodKey::parse("2027-W02..2027-W13").unwrap()));
}

#[test]
fn a_season_draft_names_the_field_it_refuses() {
    let field = |d: SeasonDraft, sort: &str| d.parse(&source(sort)).unwrap_err().field;
    assert_eq!(field(draft(SeasonRule::Sum {}), "asc"), "rule");
    assert_eq!(field(draft(SeasonRule::Best { k: 14 }), "desc"), "rule");
    let listed = |p: &[&str]| SeasonDraft {
        periods: Some(p.iter().map(|s| s.to_string()).collect()),
        from: None,
        to: None,
        ..draft(SeasonRule::Sum {})
    };
    assert_eq!(field(listed(&["2027-W02", "2027-W01"]), "desc"), "periods");
    assert_eq!(field(listed(&["2027-01"]), "desc"), "periods");
    assert_eq!(field(SeasonDraft { to: None, ..draft(SeasonRule::Sum {}) }, "desc"), "periods");
    assert!(listed(&["2027-W01", "2027-W03"]).parse(&source("desc")).is_ok());
    let placement = draft(SeasonRule::Placement { points: vec![25, 18, 15] });
    assert_eq!(placement.parse(&source("asc")).unwrap().codec.bounds(), (0, 25 * 13));
    let e = BoardDraft {
        cadence: "season".into(),
        ..BoardDraft { slug: "s".into(), title: "S".into(), ..BoardDraft::default() }
    }
    .parse()
    .unwrap_err();
    assert_eq!(e.field, "cadence");
}
