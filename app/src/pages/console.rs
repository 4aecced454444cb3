use crate::api::admin::{Logout, read_signed_in};
use crate::components::error_view::ErrorView;
use leptos::prelude::*;
use leptos_meta::Title;

/// `/admin`: the console's front page — who is signed in, and signing out.
#[component]
pub fn ConsolePage() -> impl IntoView {
    let who = Resource::new(|| (), |_| read_signed_in());
    let logout = ServerAction::<Logout>::new();
    view! {
        <Title text="Console"/>
        <h1>"Console"</h1>
        <Suspense fallback=|| view! { <p>"Loading…"</p> }>
            <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                {move || Suspend::new(async move {
                    who.await.map(|who| match who {
                        Some(actor) => view! {
                            <p data-testid="signed-in">"Signed in as " <strong>{actor}</strong></p>
                            <p><a href="/admin/keys" data-testid="keys-link">"Ingest keys"</a></p>
                            <ActionForm action=logout>
                                <button type="submit">"Sign out"</button>
                            </ActionForm>
                        }.into_any(),
                        None => view! {
                            <p data-testid="signed-out">
                                "You are not signed in. " <a href="/admin/login">"Sign in"</a>
                            </p>
                        }.into_any(),
                    })
                })}
            </ErrorBoundary>
        </Suspense>
    }
}
