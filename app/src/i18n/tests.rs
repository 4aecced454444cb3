//! The catalogues against each other and against the code: a key a page names is in every
//! language, the languages have the same keys with the same arguments, no key is left unused,
//! and a contestants' page names no console key (the contestants' bundle has no console
//! catalogue).

use super::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Source files that only the console's build compiles (see `lib.rs`): they may name console keys.
/// An entry ending in `/` names every file in that folder.
const CONSOLE_FILES: &[&str] = &[
    "pages/console.rs",
    "pages/period_console/",
    "pages/member_console.rs",
    "pages/audit.rs",
    "pages/keys.rs",
    "pages/login.rs",
    "pages/hot_console.rs",
    "components/console.rs",
    "components/correction.rs",
    "components/season_weeks.rs",
    "api/admin.rs",
    "api/attention.rs",
    "api/console.rs",
    "api/corrections.rs",
    "api/hot_console.rs",
    "api/keys.rs",
    "api/seasons.rs",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Each message of a catalogue folder's `.ftl` files, with the `$arguments` its text names.
fn messages(dir: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut out = BTreeMap::new();
    let mut files: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    for file in files.iter().filter(|f| f.extension().is_some_and(|e| e == "ftl")) {
        let text = std::fs::read_to_string(file).unwrap();
        let mut current: Option<String> = None;
        for line in text.lines() {
            let starts_message = line.chars().next().is_some_and(|c| c.is_ascii_lowercase());
            if starts_message && let Some((id, _)) = line.split_once('=') {
                let id = id.trim().to_owned();
                assert!(out.insert(id.clone(), BTreeSet::new()).is_none(), "{id} twice in {}", dir.display());
                current = Some(id);
            }
            if let Some(id) = &current {
                let names = line.split('$').skip(1).map(|rest| {
                    rest.chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
                        .collect::<String>()
                });
                out.get_mut(id).unwrap().extend(names.filter(|n| !n.is_empty()));
            }
        }
    }
    out
}

/// Every Rust file under `src/`, by its path under `src/`.
fn sources() -> Vec<(String, String)> {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, base, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let name = path.strip_prefix(base).unwrap().to_string_lossy().replace('\\', "/");
                out.push((name, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(&root().join("src"), &root().join("src"), &mut out);
    out
}

/// The keys a source names: the literal after `tr!(<locale>, ` outside comments.
fn keys_named(source: &str) -> Vec<String> {
    let code: String =
        source.lines().filter(|l| !l.trim_start().starts_with("//")).flat_map(|l| [l, "\n"]).collect();
    code.split("tr!(")
        .skip(1)
        .filter_map(|call| {
            let after_comma = call.split_once(',')?.1.trim_start();
            let key = after_comma.strip_prefix('"')?.split('"').next()?;
            Some(key.to_owned())
        })
        .collect()
}

#[test]
fn every_language_has_every_key_with_the_same_arguments() {
    for catalogue in ["public", "console"] {
        let en = messages(&root().join("locales").join(catalogue).join("en"));
        let zh = messages(&root().join("locales").join(catalogue).join("zh-CN"));
        let (en_keys, zh_keys): (BTreeSet<_>, BTreeSet<_>) = (en.keys().collect(), zh.keys().collect());
        assert_eq!(
            en_keys.difference(&zh_keys).collect::<Vec<_>>(),
            Vec::<&&String>::new(),
            "{catalogue}: missing in zh-CN"
        );
        assert_eq!(
            zh_keys.difference(&en_keys).collect::<Vec<_>>(),
            Vec::<&&String>::new(),
            "{catalogue}: missing in en"
        );
        for (key, args) in &en {
            assert_eq!(args, &zh[key], "{catalogue}: {key} takes other arguments in zh-CN");
        }
    }
}

#[test]
fn every_key_named_is_in_its_catalogue_and_every_key_is_named() {
    let public = messages(&root().join("locales/public/en"));
    let console = messages(&root().join("locales/console/en"));
    let mut named = BTreeSet::new();
    for (file, source) in sources().iter().filter(|(file, _)| file != "i18n/tests.rs") {
        let console_file =
            CONSOLE_FILES.iter().any(|c| file == *c || (c.ends_with('/') && file.starts_with(c)));
        for key in keys_named(source) {
            let found = public.contains_key(&key) || (console_file && console.contains_key(&key));
            assert!(found, "{file} names {key}, which its catalogue lacks");
            named.insert(key);
        }
    }
    let unused: Vec<_> = public.keys().chain(console.keys()).filter(|k| !named.contains(*k)).collect();
    assert!(unused.is_empty(), "keys no page names: {unused:?}");
}

/// Every message of every catalogue parses and, given its arguments, reads as words in each
/// language: a message Fluent cannot parse is left out of its bundle and would read as its key.
#[test]
fn every_message_parses_and_reads_in_each_language() {
    use fluent_templates::fluent_bundle::FluentResource;
    for catalogue in ["public", "console"] {
        for lang in Locale::ALL.map(Locale::tag) {
            let dir = root().join("locales").join(catalogue).join(lang);
            for file in std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()) {
                if let Err((_, errors)) = FluentResource::try_new(std::fs::read_to_string(&file).unwrap()) {
                    panic!("{}: {errors:?}", file.display());
                }
            }
        }
        for (key, names) in messages(&root().join("locales").join(catalogue).join("en")) {
            let args: HashMap<Cow<'static, str>, FluentValue<'_>> =
                names.into_iter().map(|n| (Cow::Owned(n), arg("1"))).collect();
            for locale in Locale::ALL {
                assert_ne!(lookup(locale, &key, Some(&args)), key, "{catalogue}: {key} in {}", locale.tag());
            }
        }
    }
}

#[test]
fn lookups_fill_arguments_in_each_language() {
    assert_eq!(Locale::En.labelled(1_234, domain::Unit::Points), "1\u{202f}234 points");
    assert_eq!(Locale::ZhCn.labelled(1_234, domain::Unit::Points), "1,234 分");
    assert_eq!(Locale::ZhCn.labelled(1_234, domain::Unit::Ms), "1.234");
    assert_eq!(lookup(Locale::En, "no-such-key", None), "no-such-key");
}

#[cfg(feature = "ssr")]
#[test]
fn a_request_chooses_by_query_then_cookie_then_accept_language() {
    let of = |uri: &str, headers: &[(&str, &str)]| {
        let mut request = http::Request::builder().uri(uri);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        of_request(&request.body(()).unwrap().into_parts().0)
    };
    assert_eq!(of("/b/x", &[]), (Locale::En, false));
    assert_eq!(of("/b/x", &[("accept-language", "zh-CN,zh;q=0.9,en;q=0.8")]), (Locale::ZhCn, false));
    assert_eq!(of("/b/x", &[("accept-language", "fr-FR, en-GB;q=0.8, zh;q=0.5")]), (Locale::En, false));
    let zh_cookie = [("cookie", "a=1; lang=zh-CN"), ("accept-language", "en")];
    assert_eq!(of("/b/x", &zh_cookie), (Locale::ZhCn, false));
    assert_eq!(of("/b/x?show=20&lang=en", &zh_cookie), (Locale::En, true));
    assert_eq!(of("/b/x?lang=xx", &zh_cookie), (Locale::ZhCn, false));
    // As the switch's links write it (the router's query string encodes the hyphen).
    assert_eq!(of("/b/x?find=a&lang=zh%2DCN", &[]), (Locale::ZhCn, true));
}
