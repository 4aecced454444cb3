use super::*;

fn p(from_rank: u64, to_rank: u64) -> Prize {
    Prize { from_rank, to_rank, prize: format!("{from_rank}-{to_rank}") }
}

#[test]
fn prize_tables_refuse_overlaps_and_empty_ranges() {
    assert!(check_prizes(&[p(1, 1), p(2, 3), p(4, 10)]).is_ok());
    assert!(check_prizes(&[p(4, 10), p(1, 4)]).unwrap_err().contains("overlap"));
    assert!(check_prizes(&[p(0, 1)]).is_err());
    assert!(check_prizes(&[p(3, 2)]).is_err());
}

pub(super) fn draft() -> BoardDraft {
    BoardDraft {
        slug: "weekly".into(),
        title: "Weekly".into(),
        cadence: "weekly".into(),
        time_zone: "Asia/Shanghai".into(),
        operator: "incr".into(),
        tie_policy: "first_reached".into(),
        max_points: 1_000_000,
        ..BoardDraft::default()
    }
}

#[test]
fn a_draft_names_the_field_it_refuses() {
    assert!(draft().parse().is_ok());
    let over_budget = BoardDraft { max_points: 10_000_000_000, ..draft() };
    let e = over_budget.parse().unwrap_err();
    assert_eq!(e.field, "max_points");
    assert!(e.message.contains("2^53"), "{e}");
    let e = BoardDraft { time_zone: "Mars/Olympus".into(), ..draft() }.parse().unwrap_err();
    assert_eq!(e.field, "time_zone");
    let e = BoardDraft { prizes: vec![p(1, 3), p(3, 4)], ..draft() }.parse().unwrap_err();
    assert_eq!((e.field.as_str(), e.message.contains("overlap")), ("prizes", true));
    for k in [0, -1, MAX_KEEP_TOP + 1] {
        let e = BoardDraft { keep_top: Some(k), ..draft() }.parse().unwrap_err();
        assert_eq!(e.field, "keep_top", "{k}");
    }
    for days in [-1, MAX_RANKING_TTL_DAYS + 1] {
        let e = BoardDraft { ranking_ttl_days: Some(days), ..draft() }.parse().unwrap_err();
        assert_eq!(e.field, "ranking_ttl_days", "{days}");
    }
    let bounded = BoardDraft { keep_top: Some(1000), ..draft() }.parse().unwrap();
    assert_eq!((bounded.keep_top, bounded.ranking_ttl_days), (Some(1000), DEFAULT_RANKING_TTL_DAYS));
    assert_eq!(draft().parse().unwrap().keep_top, None);
    let dims = Some(vec!["province".to_owned(), "class".to_owned()]);
    let segmented = BoardDraft { segments: dims.clone(), ..draft() }.parse().unwrap();
    assert_eq!(segmented.segments, ["province", "class"]);
    let e = BoardDraft { segments: dims, keep_top: Some(10), ..draft() }.parse().unwrap_err();
    assert_eq!(e.field, "segments");
    let e = BoardDraft { segments: Some(vec!["A".into()]), ..draft() }.parse().unwrap_err();
    assert_eq!(e.field, "segments");
}

#[test]
fn segment_prize_lines_read_back_what_they_write() {
    let tables = SegmentPrizes::from([
        ("class".to_owned(), vec![Prize { from_rank: 1, to_rank: 1, prize: "Star".into() }]),
        ("province".to_owned(), vec![Prize { from_rank: 1, to_rank: 3, prize: "Medal".into() }]),
    ]);
    let text = segment_prize_lines(&tables);
    assert_eq!(text, "class 1: Star\nprovince 1-3: Medal");
    assert_eq!(parse_segment_prize_lines(&text).unwrap(), tables);
    assert_eq!(parse_segment_prize_lines("province").unwrap_err().field, "segment_prizes");
    assert_eq!(parse_segment_prize_lines("province gold").unwrap_err().field, "segment_prizes");
    let settings = BoardSettings::of(&draft().parse().unwrap());
    let e = settings.with_segment_prizes(&["class".into()], tables).unwrap_err();
    assert_eq!(e.field, "segment_prizes");
}

#[test]
fn segment_prizes_name_declared_dimensions_and_are_prize_tables() {
    let gold = || vec![Prize { from_rank: 1, to_rank: 1, prize: "gold".into() }];
    let dims = Some(vec!["province".to_owned()]);
    let tables = |dim: &str, prizes: Vec<Prize>| Some(SegmentPrizes::from([(dim.to_owned(), prizes)]));
    let b = BoardDraft { segments: dims.clone(), segment_prizes: tables("province", gold()), ..draft() };
    assert_eq!(b.parse().unwrap().segment_prizes["province"], gold());
    let b = BoardDraft { segments: dims.clone(), segment_prizes: tables("class", gold()), ..draft() };
    let e = b.parse().unwrap_err();
    assert_eq!(e.field, "segment_prizes");
    assert!(e.message.contains("\"class\""), "{}", e.message);
    let overlapping = [gold(), gold()].concat();
    let b = BoardDraft { segments: dims, segment_prizes: tables("province", overlapping), ..draft() };
    assert_eq!(b.parse().unwrap_err().field, "segment_prizes");
}

#[test]
fn a_draft_chooses_its_order_and_unit_or_gets_the_defaults() {
    let b = draft().parse().unwrap();
    assert_eq!((b.sort(), b.unit), (Sort::Desc, Unit::Points));
    let asc = BoardDraft { sort: Some("asc".into()), unit: Some(" ms ".into()), ..draft() };
    let b = asc.parse().unwrap();
    assert_eq!((b.sort(), b.unit), (Sort::Asc, Unit::Ms));
    let e = BoardDraft { sort: Some("up".into()), ..draft() }.parse().unwrap_err();
    assert_eq!(e.field, "sort");
    assert!(e.message.contains("desc, asc"), "{e}");
    let e = BoardDraft { unit: Some("seconds".into()), ..draft() }.parse().unwrap_err();
    assert_eq!(e.field, "unit");
}

#[test]
fn prize_lines_read_ranks_and_ranges() {
    let prizes = parse_prize_lines("1: Gold\n\n 2-3 : Silver medal \n").unwrap();
    assert_eq!(
        prizes,
        vec![
            Prize { from_rank: 1, to_rank: 1, prize: "Gold".into() },
            Prize { from_rank: 2, to_rank: 3, prize: "Silver medal".into() },
        ]
    );
    assert_eq!(parse_prize_lines(&prize_lines(&prizes)).unwrap(), prizes);
    assert_eq!(parse_prize_lines("first: Gold").unwrap_err().field, "prizes");
    assert_eq!(parse_prize_lines("1 Gold").unwrap_err().field, "prizes");
}
