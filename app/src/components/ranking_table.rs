use crate::components::charts::grouped;
use domain::view::Entry;
use leptos::prelude::*;

/// Ranked entries as a table: competition ranks with a visible tie marker, names (untrusted
/// text, always rendered escaped) linking to the member page, points. `highlight` marks one
/// member (find me); `moved_up` marks members who just moved up (the live table).
#[component]
pub fn RankingTable(
    #[prop(into)] entries: Signal<Vec<Entry>>,
    caption: String,
    /// `/b/{board}/{period}`: member links go to `{base}/m/{member}`.
    base: String,
    #[prop(optional, into)] highlight: Option<String>,
    #[prop(optional, into)] moved_up: Option<Signal<Vec<String>>>,
) -> impl IntoView {
    view! {
        <table class="ranking">
            <caption>{caption}</caption>
            <thead>
                <tr>
                    <th scope="col" class="rank">"Rank"</th>
                    <th scope="col">"Member"</th>
                    <th scope="col" class="points">"Points"</th>
                </tr>
            </thead>
            <tbody>
                // Keyed by what a row shows, so a row whose rank or points change is drawn again.
                <For each=move || entries.get() key=|e| (e.member.clone(), e.rank, e.points, e.tied, e.display_name.clone()) let:entry>
                    {
                        let me = highlight.as_deref() == Some(entry.member.as_str());
                        let member = entry.member.to_string();
                        let moved = move || moved_up.is_some_and(|m| m.with(|m| m.contains(&member)));
                        view! {
                            <tr
                                data-rank=entry.rank
                                data-member=entry.member.to_string()
                                class:me=me
                                class:moved-up=moved
                                aria-current=me.then_some("true")
                            >
                                <td class="rank">
                                    {entry.rank}
                                    {entry.tied.then(|| view! { <span class="tie" title="Tied: same points, same rank">"="</span> })}
                                </td>
                                <th scope="row" class="name">
                                    <a href=format!("{base}/m/{}", entry.member)>{entry.name().to_owned()}</a>
                                </th>
                                <td class="points">{grouped(entry.points)}</td>
                            </tr>
                        }
                    }
                </For>
            </tbody>
        </table>
    }
}
