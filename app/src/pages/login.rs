use crate::api::admin::Login;
use crate::i18n::tr;
use leptos::prelude::*;
use leptos_meta::Title;

/// `/admin/login`: the console's sign-in form. A plain form post without JavaScript; with it, the
/// refusal ("wrong username or password", "too many failed logins") is shown in place.
#[component]
pub fn LoginPage() -> impl IntoView {
    let login = ServerAction::<Login>::new();
    let refused = move || login.value().get().and_then(Result::err).map(|e| e.to_string());
    let l = crate::i18n::locale();
    view! {
        <Title text=tr!(l, "login-title")/>
        <h1>{tr!(l, "login-title")}</h1>
        <ActionForm action=login attr:class="stacked">
            <label>{tr!(l, "login-username")} <input type="text" name="username" autocomplete="username" required/></label>
            <label>
                {tr!(l, "login-password")}
                <input type="password" name="password" autocomplete="current-password" required/>
            </label>
            <button type="submit">{tr!(l, "login-submit")}</button>
        </ActionForm>
        {move || refused().map(|e| view! { <p class="notice error" role="alert">{e}</p> })}
    }
}
