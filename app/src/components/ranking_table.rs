use domain::view::Entry;
use leptos::prelude::*;

/// Ranked entries as a table: competition ranks with a visible tie marker, names (untrusted
/// text, always rendered escaped), points.
#[component]
pub fn RankingTable(#[prop(into)] entries: Signal<Vec<Entry>>, caption: String) -> impl IntoView {
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
                <For each=move || entries.get() key=|e| e.member.clone() let:entry>
                    <tr data-rank=entry.rank data-member=entry.member.to_string()>
                        <td class="rank">
                            {entry.rank}
                            {entry.tied.then(|| view! { <span class="tie" title="Tied: same points, same rank">"="</span> })}
                        </td>
                        <th scope="row" class="name">{entry.name().to_owned()}</th>
                        <td class="points">{entry.points}</td>
                    </tr>
                </For>
            </tbody>
        </table>
    }
}
