//! A season's weeks on its period console: each source period with its state, a link to its own
//! console. A season settles once every one of them is settled (docs/SEASONS.md).

use crate::api::seasons::read_season_weeks;
use crate::i18n::{Say, tr};
use leptos::prelude::*;

/// The season's weeks, or nothing on a board that is not a season.
#[component]
pub fn SeasonWeeks(slug: String, period: String) -> impl IntoView {
    let l = crate::i18n::locale();
    let weeks = Resource::new(move || (slug.clone(), period.clone()), |(b, p)| read_season_weeks(b, p));
    view! {
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                weeks.await.ok().flatten().map(|(source, weeks)| {
                    let settled = weeks.iter().filter(|w| matches!(w.state, domain::State::Settled | domain::State::Archived)).count();
                    let total = weeks.len();
                    view! {
                        <section id="season-weeks" data-testid="season-weeks">
                            <h2>{tr!(l, "season-weeks-heading", source = source.clone())}</h2>
                            <p class="hint">{tr!(l, "season-weeks-settled", settled = settled.to_string(), total = total.to_string())}</p>
                            <ul class="periods">
                                {weeks.into_iter().map(|w| view! {
                                    <li>
                                        <a href=format!("/admin/b/{source}/{}", w.period)>
                                            {tr!(l, "period-in-state", period = w.period.to_string(), state = l.state(w.state))}
                                        </a>
                                    </li>
                                }).collect_view()}
                            </ul>
                        </section>
                    }
                })
            })}
        </Suspense>
    }
}
