use crate::components::movement::{SeenRanks, moved};
use crate::i18n::{Say, tr};
use domain::board::Prize;
use domain::view::Entry;
use leptos::prelude::*;

/// The medal of the `zone`th prize line (best ranks first): gold, silver, bronze, then a plain
/// prize mark.
pub fn medal(zone: usize) -> &'static str {
    ["gold", "silver", "bronze"].get(zone).copied().unwrap_or("prize")
}

/// The prize lines, best ranks first: a line's place in it is its zone.
pub fn prize_zones(mut prizes: Vec<Prize>) -> Vec<Prize> {
    prizes.sort_by_key(|p| p.from_rank);
    prizes
}

/// The zone (in [`prize_zones`] order) and prize a rank wins, if any.
pub fn zone_of(zones: &[Prize], rank: u64) -> Option<(usize, &Prize)> {
    zones.iter().enumerate().find(|(_, p)| (p.from_rank..=p.to_rank).contains(&rank))
}

/// A member's avatar, `size` pixels square, when the profile's URL is https; else nothing.
/// An http image would be mixed content on the page, and the policy's `img-src` (`'self' data:
/// https:`, server/src/security.rs) refuses it anyway: not shown rather than shown broken. The
/// URL is untrusted text, only ever an attribute value (escaped). Decorative (`alt=""`): the
/// member's name stands beside it. The size is set in the markup so the row never moves when
/// the image arrives; no referrer, so the host platform's servers do not learn which page shows it.
pub fn avatar(url: Option<&str>, size: u32) -> Option<AnyView> {
    let url = url.filter(|u| u.starts_with("https://"))?.to_owned();
    Some(
        view! {
            <img
                class="avatar"
                src=url
                alt=""
                width=size
                height=size
                loading="lazy"
                decoding="async"
                referrerpolicy="no-referrer"
            />
        }
        .into_any(),
    )
}

/// Ranked entries as a table: competition ranks with a visible tie marker, names (untrusted
/// text, always rendered escaped) linking to the member page after the member's https avatar
/// ([`avatar`]), points. `highlight` marks one
/// member (find me); `moved_up` marks members who just moved up (the live table). With
/// `prizes`, each row that wins a prize has its medal beside the rank and a line marks each
/// prize boundary (`tr.prize-edge`: the first row of a zone, and the first row past the last);
/// with `seen` (the ranks of the visitor's last visit), ↑N / ↓N says how each member moved.
#[component]
pub fn RankingTable(
    #[prop(into)] entries: Signal<Vec<Entry>>,
    caption: String,
    /// `/b/{board}/{period}`: member links go to `{base}/m/{member}`.
    base: String,
    #[prop(optional, into)] highlight: Option<String>,
    #[prop(optional, into)] moved_up: Option<Signal<Vec<String>>>,
    #[prop(optional)] prizes: Vec<Prize>,
    #[prop(default = None)] seen: Option<Signal<SeenRanks>>,
    /// What the points stand for: `ms` shows them as durations (`domain::format`).
    #[prop(default = domain::Unit::Points)]
    unit: domain::Unit,
) -> impl IntoView {
    // In the rows' island, the page's `<html lang>`.
    let l = crate::i18n::locale();
    let zones = prize_zones(prizes);
    // Each row with its zone and whether a boundary lies above it (between shown rows).
    let rows = move || {
        let mut above: Option<Option<usize>> = None;
        entries
            .get()
            .into_iter()
            .map(|entry| {
                let zone = zone_of(&zones, entry.rank).map(|(i, p)| (i, p.prize.clone()));
                let index = zone.as_ref().map(|z| z.0);
                let edge = above.is_some_and(|a| a != index);
                above = Some(index);
                (entry, zone, edge)
            })
            .collect::<Vec<_>>()
    };
    view! {
        <table class="ranking">
            <caption>{caption}</caption>
            <thead>
                <tr>
                    <th scope="col" class="rank">{tr!(l, "ranking-rank")}</th>
                    <th scope="col">{tr!(l, "ranking-member")}</th>
                    <th scope="col" class="points">
                        {match unit {
                            domain::Unit::Ms => tr!(l, "ranking-time"),
                            domain::Unit::Points => tr!(l, "ranking-points"),
                        }}
                    </th>
                </tr>
            </thead>
            <tbody>
                // Keyed by what a row shows, so a row whose rank, points or zone change is drawn again.
                <For
                    each=rows
                    key=|(e, zone, edge)| (e.member.clone(), e.rank, e.points, e.tied, e.display_name.clone(), e.avatar_url.clone(), zone.clone(), *edge)
                    let:row
                >
                    {
                        let (entry, zone, edge) = row;
                        let me = highlight.as_deref() == Some(entry.member.as_str());
                        let member = entry.member.to_string();
                        let just_moved_up = {
                            let member = member.clone();
                            move || moved_up.is_some_and(|m| m.with(|m| m.contains(&member)))
                        };
                        let rank = entry.rank;
                        let movement = move || {
                            let by = seen.and_then(|s| s.with(|s| moved(s, &member, rank)))?;
                            let places = by.unsigned_abs();
                            let shown = l.number(places as i64);
                            let (class, arrow, words) = if by > 0 {
                                ("up", '↑', tr!(l, "ranking-moved-up", places = places, shown = shown))
                            } else {
                                ("down", '↓', tr!(l, "ranking-moved-down", places = places, shown = shown))
                            };
                            Some(view! {
                                <span class=format!("move {class}") data-move=by title=tr!(l, "ranking-since-last-visit")>
                                    <span aria-hidden="true">{format!("{arrow}{places}")}</span>
                                    <span class="visually-hidden">{words}</span>
                                </span>
                            })
                        };
                        let kind = zone.as_ref().map(|(i, _)| medal(*i));
                        let prize = zone.map(|(_, p)| p);
                        let prize_attr = prize.clone();
                        view! {
                            <tr
                                data-rank=entry.rank
                                data-member=entry.member.to_string()
                                data-zone=kind
                                data-prize=prize_attr
                                class:me=me
                                class:moved-up=just_moved_up
                                class:prize-edge=edge
                                aria-current=me.then_some("true")
                            >
                                <td class="rank">
                                    {entry.rank}
                                    {entry.tied.then(|| view! { <span class="tie" title=tr!(l, "ranking-tied")>"="</span> })}
                                    {kind.zip(prize).map(|(kind, prize)| view! {
                                        <span class=format!("medal medal-{kind}") title=prize.clone() aria-hidden="true"></span>
                                        <span class="visually-hidden">{tr!(l, "ranking-wins", prize = prize)}</span>
                                    }.into_any())}
                                    {movement}
                                </td>
                                <th scope="row" class="name">
                                    {avatar(entry.avatar_url.as_deref(), 24)}
                                    <a href=format!("{base}/m/{}", entry.member)>{entry.name().to_owned()}</a>
                                </th>
                                <td class="points">{l.points(entry.points, unit)}</td>
                            </tr>
                        }
                        // Erased: the row's full type is too deep for the compiler's limits.
                        .into_any()
                    }
                </For>
            </tbody>
        </table>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prize(from_rank: u64, to_rank: u64, prize: &str) -> Prize {
        Prize { from_rank, to_rank, prize: prize.into() }
    }

    #[test]
    fn zones_go_best_ranks_first_and_each_has_its_medal() {
        let zones = prize_zones(vec![prize(4, 10, "Sticker"), prize(1, 1, "Gold"), prize(2, 3, "Silver")]);
        assert_eq!(zone_of(&zones, 1).map(|(i, p)| (medal(i), p.prize.as_str())), Some(("gold", "Gold")));
        assert_eq!(zone_of(&zones, 3).map(|(i, _)| medal(i)), Some("silver"));
        assert_eq!(zone_of(&zones, 10).map(|(i, _)| medal(i)), Some("bronze"));
        assert_eq!(zone_of(&zones, 11), None);
        assert_eq!(medal(3), "prize");
    }

    #[test]
    fn only_an_https_avatar_is_shown_at_its_size_decorative_and_without_a_referrer() {
        let html = avatar(Some("https://avatars.example/u.png?s=1&t=\"x\""), 24).unwrap().to_html();
        for attribute in [
            r#"class="avatar""#,
            r#"src="https://avatars.example/u.png?s=1&amp;t=&quot;x&quot;""#,
            r#"alt="""#,
            r#"width="24""#,
            r#"height="24""#,
            r#"loading="lazy""#,
            r#"decoding="async""#,
            r#"referrerpolicy="no-referrer""#,
        ] {
            assert!(html.contains(attribute), "{attribute} in {html}");
        }
        assert!(html.starts_with("<img "), "{html}");
        assert!(avatar(Some("https://a.example/b.png"), 48).unwrap().to_html().contains(r#"width="48""#));
        // Mixed content, refused by the policy: nothing rather than a broken image.
        assert!(avatar(Some("http://avatars.example/u.png"), 24).is_none());
        assert!(avatar(Some("HTTPS://avatars.example/u.png"), 24).is_none());
        assert!(avatar(Some("javascript:alert(1)"), 24).is_none());
        assert!(avatar(None, 24).is_none());
    }

    #[test]
    fn a_move_is_said_in_places_in_each_language() {
        use crate::i18n::Locale;
        let up = |l: Locale, places: u64| {
            tr!(l, "ranking-moved-up", places = places, shown = l.number(places as i64))
        };
        assert_eq!(up(Locale::En, 1), ", up 1 place since your last visit");
        assert_eq!(up(Locale::En, 3), ", up 3 places since your last visit");
        assert_eq!(up(Locale::ZhCn, 3), "，自你上次访问以来上升 3 名");
        let down = tr!(Locale::En, "ranking-moved-down", places = 2u64, shown = "2");
        assert_eq!(down, ", down 2 places since your last visit");
    }
}
