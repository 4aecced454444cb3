use super::*;

#[test]
fn a_merge_weights_each_bucket_and_orders_ties_as_redis_does() {
    let mut rules = HotRules::new(HotSpec { weights: Some(vec![0.5, 2.0]), ..spec(60, 2, 180) }).unwrap();
    let bucket = |pairs: &[(&str, f64)]| pairs.iter().map(|(m, s)| (m.to_string(), *s)).collect::<Vec<_>>();
    let old = bucket(&[("a", 4.0), ("b", 2.0), ("c", 1.0)]);
    let new = bucket(&[("b", 1.0), ("d", 1.0), ("e", 0.5)]);

    let mut merge = WindowMerge::default();
    let (old, new) = (merge.intern(old), merge.intern(new));
    // Bucket 7 kept (closed), bucket 8 fresh (live): the window is 7..=8.
    merge.keep(7, old.clone());
    let fresh = [(8, new.clone())];
    // a 2, b 1 + 2, c 0.5, d 2, e 1: ties at 2 go to the later member name first.
    assert_eq!(merge.top(&rules, 8, &fresh, 4), bucket(&[("b", 3.0), ("d", 2.0), ("a", 2.0), ("e", 1.0)]));

    rules.aggregate = Aggregate::Max;
    assert_eq!(
        merge.top(&rules, 8, &fresh, 10),
        bucket(&[("d", 2.0), ("b", 2.0), ("a", 2.0), ("e", 1.0), ("c", 0.5)])
    );
    assert!(WindowMerge::default().top(&rules, 8, &[], 3).is_empty());
    // The heat counts every member merged, listed or not: a list cut short sums below 1.
    let (top, heat) = merge.top_and_heat(&rules, 8, &fresh, 1);
    let mut entries = rank_changes(None, &top);
    heat_shares(&mut entries, heat);
    assert!(heat > top[0].1 && entries[0].share < 1.0 && entries[0].share > 0.0, "{heat} {entries:?}");

    // One bucket later the old one is out of the window; the new one now weighs 0.5.
    rules.aggregate = Aggregate::Sum;
    merge.keep(8, new);
    merge.forget_before(8);
    assert_eq!(merge.kept(7), None);
    assert_eq!(merge.top(&rules, 9, &[], 10), bucket(&[("d", 0.5), ("b", 0.5), ("e", 0.25)]));
}

#[test]
fn members_that_left_the_window_are_interned_afresh() {
    let rules = HotRules::new(spec(60, 2, 180)).unwrap();
    let mut merge = WindowMerge::default();
    for bucket in 0..10i64 {
        let entries = (0..1000).map(|i| (format!("m{bucket}-{i}"), 1.0 + i as f64)).collect();
        let interned = merge.intern(entries);
        merge.keep(bucket, interned);
        merge.forget_before(bucket - 1);
    }
    // Two buckets of 1000 members kept; the names of the eight before them were let go.
    assert!(merge.interned() <= 4000, "{} names interned", merge.interned());
    let top = merge.top(&rules, 9, &[], 2);
    assert_eq!(top, [("m9-999".to_string(), 1000.0), ("m8-999".to_string(), 1000.0)]);
}

#[test]
fn a_filter_is_checked_when_set_and_compares_members_without_case() {
    let blocked = |terms: &[&str]| HotFilter {
        blocked_members: terms.iter().map(|t| t.to_string()).collect(),
        ..HotFilter::default()
    };
    assert_eq!(blocked(&["Air Fryer "]).checked().unwrap().blocked_members, ["air fryer"]);
    for (filter, error) in [
        (blocked(&["a", "A"]), "listed twice"),
        (blocked(&["<b>"]), "may not contain"),
        (blocked(&[" "]), "blank"),
        (HotFilter { min_actor_age_seconds: Some(0), ..HotFilter::default() }, "min_actor_age_seconds"),
    ] {
        assert!(filter.clone().checked().unwrap_err().contains(error), "{filter:?}");
    }
    let many: Vec<String> = (0..=MAX_BLOCKED).map(|i| format!("t{i}")).collect();
    let too_many = HotFilter { blocked_members: many, ..HotFilter::default() };
    assert!(too_many.checked().unwrap_err().contains("at most"));
    // A spec with a bad filter is refused like any other bad rule.
    let spec = HotSpec { filter: Some(blocked(&["x", "x"])), ..spec(60, 2, 180) };
    assert!(HotRules::new(spec).unwrap_err().contains("twice"));

    let now = jiff::Timestamp::from_second(1_800_000_000).unwrap();
    let member = HotMember::parse("Air Fryer").unwrap();
    let facts = |results, age_s: Option<i64>| HitFacts {
        results,
        actor_created_at: age_s.map(|s| now - jiff::SignedDuration::from_secs(s)),
    };
    let filter = HotFilter {
        count_only_with_results: true,
        blocked_members: vec!["robot".into()],
        min_actor_age_seconds: Some(60),
    }
    .checked()
    .unwrap();
    assert!(filter.check(&member, facts(Some(1), Some(60)), now).is_ok());
    assert!(filter.check(&member, facts(Some(0), Some(60)), now).is_err());
    assert!(filter.check(&member, facts(Some(1), Some(59)), now).is_err());
    assert!(filter.check(&HotMember::parse("ROBOT").unwrap(), facts(Some(1), Some(60)), now).is_err());
    // The default counts everything, facts or not.
    assert!(HotFilter::default().check(&member, HitFacts::default(), now).is_ok());
}

fn spec(bucket: u64, buckets: u64, ttl: u64) -> HotSpec {
    HotSpec { bucket_seconds: bucket, window_buckets: buckets, ttl_seconds: ttl, ..HotSpec::default() }
}

#[test]
fn the_ttl_must_cover_one_and_a_half_windows() {
    assert!(HotRules::new(spec(3600, 24, 36 * 3600)).is_ok());
    let err = HotRules::new(spec(3600, 24, 36 * 3600 - 1)).unwrap_err();
    assert!(err.contains("1.5 × the window (86400 s)"), "{err}");
    // Odd windows round the bound up, never down.
    assert!(HotRules::new(spec(1, 3, 4)).is_err());
    assert!(HotRules::new(spec(1, 3, 5)).is_ok());
}

#[test]
fn out_of_range_definitions_are_refused_with_the_field_named() {
    for (s, field) in [
        (spec(0, 1, 10), "bucket_seconds"),
        (spec(86_401, 1, 200_000), "bucket_seconds"),
        (spec(60, 0, 100), "window_buckets"),
        (spec(60, 289, 60 * 289 * 2), "window_buckets"),
        (spec(86_400, 288, 400 * 86_400), "ttl_seconds"),
        (HotSpec { max_members: Some(0), ..spec(60, 10, 900) }, "max_members"),
        (HotSpec { snapshot_seconds: Some(0), ..spec(60, 10, 900) }, "snapshot_seconds"),
        (HotSpec { actor_cap: Some(0), ..spec(60, 10, 900) }, "actor_cap"),
    ] {
        let err = HotRules::new(s).unwrap_err();
        assert!(err.contains(field), "{field}: {err}");
    }
}

#[test]
fn weights_must_match_the_window_and_be_positive() {
    let two = |w: Vec<f64>| HotSpec { weights: Some(w), ..spec(60, 2, 180) };
    assert!(HotRules::new(two(vec![0.5, 1.0])).is_ok());
    assert!(HotRules::new(two(vec![1.0])).unwrap_err().contains("one weight per bucket"));
    assert!(HotRules::new(two(vec![0.0, 1.0])).is_err());
    assert!(HotRules::new(two(vec![f64::NAN, 1.0])).is_err());
    let actions = |a: &[(&str, f64)]| HotSpec {
        action_weights: Some(a.iter().map(|(k, v)| (k.to_string(), *v)).collect()),
        ..spec(60, 2, 180)
    };
    assert!(HotRules::new(actions(&[("search", 1.0), ("order", 10.0)])).is_ok());
    assert!(HotRules::new(actions(&[("Search", 1.0)])).is_err());
    assert!(HotRules::new(actions(&[("click", -3.0)])).is_err());
}

#[test]
fn best_scores_are_merged_with_max_never_sum() {
    let best = |aggregate| HotSpec { write_mode: Some(WriteMode::Best), aggregate, ..spec(60, 2, 180) };
    assert!(HotRules::new(best(Some(Aggregate::Sum))).unwrap_err().contains("aggregate max"));
    assert_eq!(HotRules::new(best(None)).unwrap().aggregate, Aggregate::Max);
    assert_eq!(HotRules::new(spec(60, 2, 180)).unwrap().aggregate, Aggregate::Sum);
}

#[test]
fn a_hit_is_worth_its_value_times_its_action() {
    let rules = HotRules::new(HotSpec {
        action_weights: Some([("search".into(), 1.0), ("order".into(), 10.0)].into()),
        ..spec(60, 2, 180)
    })
    .unwrap();
    assert_eq!(rules.hit_score(None, None), Ok(1.0));
    assert_eq!(rules.hit_score(Some(2.0), Some("order")), Ok(20.0));
    assert!(rules.hit_score(None, Some("like")).unwrap_err().contains("order, search"));
    assert!(rules.hit_score(Some(0.0), None).is_err());
    assert!(rules.hit_score(Some(f64::INFINITY), None).is_err());
}

#[test]
fn the_window_reads_as_words() {
    let rising: Vec<f64> = (1..=24).map(|i| f64::from(i) / 24.0).collect();
    let day = HotRules::new(HotSpec { weights: Some(rising), ..spec(3600, 24, 36 * 3600) }).unwrap();
    assert_eq!(day.describe(), "last 24 hours, newer counts more");
    assert_eq!(HotRules::new(spec(60, 10, 900)).unwrap().describe(), "last 10 minutes");
    assert_eq!(HotRules::new(spec(86_400, 7, 11 * 86_400)).unwrap().describe(), "last 7 days");
    let best = HotSpec { write_mode: Some(WriteMode::Best), ..spec(1, 30, 45) };
    assert_eq!(HotRules::new(best).unwrap().describe(), "best score in the last 30 seconds");
}

#[test]
fn members_are_trimmed_terms_without_odd_characters() {
    assert_eq!(HotMember::parse("  洗地机 ").unwrap().as_str(), "洗地机");
    assert!(HotMember::parse("robot vacuum").is_ok());
    assert!(HotMember::parse("u1001").is_ok());
    assert_eq!(HotMember::parse("   ").unwrap_err(), "member is blank");
    assert!(HotMember::parse("<script>").is_err());
    assert!(HotMember::parse("a\u{0}b").is_err());
    assert!(HotMember::parse(&"词".repeat(65)).is_err());
    assert!(HotMember::parse(&"词".repeat(64)).is_ok());
}

fn ranked(members: &[&str]) -> Vec<(String, f64)> {
    members.iter().enumerate().map(|(i, m)| (m.to_string(), 10.0 - i as f64)).collect()
}

fn marks(list: &[HotEntry]) -> Vec<(u32, &str, i64, bool)> {
    list.iter().map(|e| (e.rank, e.member.as_str(), e.change, e.new)).collect()
}

#[test]
fn snapshots_show_places_gained_and_new_entries() {
    let previous = rank_changes(None, &ranked(&["a", "b", "c"]));
    assert!(previous.iter().all(|e| !e.new && e.change == 0), "nothing to compare the first list with");
    let list = rank_changes(Some(&previous), &ranked(&["c", "a", "d"]));
    assert_eq!(marks(&list), [(1, "c", 2, false), (2, "a", -1, false), (3, "d", 0, true)]);
}

#[test]
fn a_list_that_did_not_move_keeps_the_marks_of_its_last_move() {
    let first = rank_changes(None, &ranked(&["a", "b", "c"]));
    let moved = rank_changes(Some(&first), &ranked(&["c", "a", "d"]));
    // The next snapshots find the same order (scores may differ): the marks stay.
    let mut still = moved.clone();
    for _ in 0..3 {
        let scores: Vec<(String, f64)> =
            ranked(&["c", "a", "d"]).into_iter().map(|(m, s)| (m, s * 2.0)).collect();
        still = rank_changes(Some(&still), &scores);
    }
    assert_eq!(marks(&still), marks(&moved));
    assert_eq!(still[0].score, 20.0, "scores are the new list's");
    // Once the order changes, every entry is compared with the list before afresh.
    let again = rank_changes(Some(&still), &ranked(&["a", "c", "d"]));
    assert_eq!(marks(&again), [(1, "a", 1, false), (2, "c", -1, false), (3, "d", 0, false)]);
    // A list that only grows or shrinks has moved too.
    let grown = rank_changes(Some(&again), &ranked(&["a", "c", "d", "e"]));
    assert_eq!(
        marks(&grown),
        [(1, "a", 0, false), (2, "c", 0, false), (3, "d", 0, false), (4, "e", 0, true)]
    );
    let shrunk = rank_changes(Some(&grown), &ranked(&["a", "c", "d"]));
    assert!(shrunk.iter().all(|e| e.change == 0 && !e.new), "{shrunk:?}");
}

#[test]
fn window_words_are_the_parts_of_the_english_description() {
    let words = HotRules::new(spec(60, 10, 900)).unwrap().window_words();
    assert_eq!(
        words,
        WindowWords { count: 10, unit: SpanUnit::Minute, best: false, weighting: Weighting::Even }
    );
    let falling = HotSpec { weights: Some(vec![2.0, 1.0]), ..spec(3600, 2, 3 * 3600) };
    let falling = HotRules::new(falling).unwrap();
    assert_eq!(falling.window_words().weighting, Weighting::ByAge);
    assert_eq!(falling.describe(), "last 2 hours, weighted by age");
    let max = HotSpec { aggregate: Some(Aggregate::Max), ..spec(86_400, 1, 2 * 86_400) };
    assert_eq!(HotRules::new(max).unwrap().describe(), "best score in the last 24 hours");
    assert_eq!(HotRules::new(spec(1, 1, 2)).unwrap().describe(), "last 1 second");
    assert_eq!(HotRules::new(spec(60, 1, 90)).unwrap().describe(), "last 60 seconds");
    assert_eq!(HotRules::new(spec(3600, 1, 5400)).unwrap().describe(), "last 60 minutes");
}
