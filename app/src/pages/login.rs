use crate::api::admin::Login;
use leptos::prelude::*;
use leptos_meta::Title;

/// `/admin/login`: the console's sign-in form. A plain form post without JavaScript; with it, the
/// refusal ("wrong username or password", "too many failed logins") is shown in place.
#[component]
pub fn LoginPage() -> impl IntoView {
    let login = ServerAction::<Login>::new();
    let refused = move || login.value().get().and_then(Result::err).map(|e| e.to_string());
    view! {
        <Title text="Sign in"/>
        <h1>"Sign in"</h1>
        <ActionForm action=login attr:class="stacked">
            <label>"Username" <input type="text" name="username" autocomplete="username" required/></label>
            <label>
                "Password"
                <input type="password" name="password" autocomplete="current-password" required/>
            </label>
            <button type="submit">"Sign in"</button>
        </ActionForm>
        {move || refused().map(|e| view! { <p class="notice error" role="alert">{e}</p> })}
    }
}
