//! The languages the pages speak: English and Simplified Chinese. The words themselves are the
//! UI's catalogues (`app/locales`); what lives here is what both the server and the browser need
//! to agree on — a locale's tag, and how it writes numbers and instants.

use serde::{Deserialize, Serialize};

/// A language a page can be read in. English is the default and the fallback.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Locale {
    #[default]
    En,
    ZhCn,
}

impl Locale {
    pub const ALL: [Locale; 2] = [Locale::En, Locale::ZhCn];

    /// The BCP 47 tag: `<html lang>`, `?lang=`, the `lang` cookie and the catalogue's folder.
    pub fn tag(self) -> &'static str {
        match self {
            Locale::En => "en",
            Locale::ZhCn => "zh-CN",
        }
    }

    /// The language's name in itself, for the switch ("English", "中文").
    pub fn own_name(self) -> &'static str {
        match self {
            Locale::En => "English",
            Locale::ZhCn => "中文",
        }
    }

    /// The locale a tag asks for: any English (`en`, `en-GB`) or any Chinese (`zh`, `zh-CN`,
    /// `zh-Hans`, `zh-TW`: Simplified is the one written here), case-insensitive; else none.
    pub fn from_tag(tag: &str) -> Option<Locale> {
        let primary = tag.split(['-', '_']).next().unwrap_or_default();
        if primary.eq_ignore_ascii_case("en") {
            Some(Locale::En)
        } else if primary.eq_ignore_ascii_case("zh") {
            Some(Locale::ZhCn)
        } else {
            None
        }
    }

    /// Between groups of three digits: a narrow no-break space in English (`12 345`, the SI
    /// style, which no reader mistakes for a decimal point), a comma in Chinese (`12,345`).
    pub fn group_separator(self) -> char {
        match self {
            Locale::En => '\u{202f}',
            Locale::ZhCn => ',',
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_name_their_locale() {
        for locale in Locale::ALL {
            assert_eq!(Locale::from_tag(locale.tag()), Some(locale));
        }
        assert_eq!(Locale::from_tag("en-GB"), Some(Locale::En));
        assert_eq!(Locale::from_tag("ZH-hans-cn"), Some(Locale::ZhCn));
        assert_eq!(Locale::from_tag("zh_TW"), Some(Locale::ZhCn));
        assert_eq!(Locale::from_tag("fr"), None);
        assert_eq!(Locale::from_tag(""), None);
    }
}
