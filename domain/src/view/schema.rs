//! OpenAPI schemas of the ids, words and rows the read models carry, for the server's
//! `/api/v1/openapi.json`. They are written here, beside the one derive per read model, and built
//! from the types' own tables (`ALL`, `MAX_LEN`) so that a new word shows up by itself.

use super::VisibilityOutcome;
use crate::board::Prize;
use crate::hot::{Aggregate, WriteMode};
use crate::ids::{BoardSlug, EventId, MemberId};
use crate::kinds::{Cadence, Operator, Sort, TiePolicy, Unit};
use crate::lifecycle::State;
use crate::period::PeriodKey;
use crate::settlement::Standing;
use crate::write::Outcome;
use std::borrow::Cow;
use utoipa::openapi::{KnownFormat, ObjectBuilder, Ref, RefOr, Schema, SchemaFormat, Type};
use utoipa::{PartialSchema, ToSchema};

type Schemas = Vec<(String, RefOr<Schema>)>;

macro_rules! named_schema {
    ($ty:ty, $build:expr $(, children: $($child:ty),+)?) => {
        impl PartialSchema for $ty {
            fn schema() -> RefOr<Schema> {
                $build.build().into()
            }
        }

        impl ToSchema for $ty {
            fn name() -> Cow<'static, str> {
                Cow::Borrowed(stringify!($ty))
            }

            fn schemas(_schemas: &mut Schemas) {
                $($(_schemas.push((<$child>::name().into_owned(), <$child>::schema()));)+)?
            }
        }
    };
}

fn string(description: &str) -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::String).description(Some(description))
}

fn id(description: &str, max_len: usize, pattern: &str, example: &str) -> ObjectBuilder {
    string(description)
        .min_length(Some(1))
        .max_length(Some(max_len))
        .pattern(Some(pattern))
        .examples([example])
}

fn words<'a>(description: &str, words: impl IntoIterator<Item = &'a str>) -> ObjectBuilder {
    string(description).enum_values(Some(words))
}

fn integer(minimum: Option<i64>) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::Integer)
        .format(Some(SchemaFormat::KnownFormat(KnownFormat::Int64)))
        .minimum(minimum)
}

fn reference<T: ToSchema>() -> Ref {
    Ref::from_schema_name(T::name())
}

/// `PeriodInfo::state`: one of the lifecycle's states.
pub fn period_state() -> ObjectBuilder {
    words("The period's lifecycle state.", State::ALL.map(State::as_str))
}

named_schema!(BoardSlug, id("A board's slug.", BoardSlug::MAX_LEN, "^[a-z0-9-]+$", "weekly-study"));
named_schema!(
    MemberId,
    id("The host platform's stable member id.", MemberId::MAX_LEN, "^[A-Za-z0-9_.:@-]+$", "u1001")
);
named_schema!(
    EventId,
    id("An event's or a submission's id, unique per board.", EventId::MAX_LEN, "^[!-~]+$", "order-42")
);
named_schema!(
    PeriodKey,
    string("An ISO week (`2026-W34`), a day (`2026-08-20`) or a month (`2026-08`) in the board's time zone.")
        .pattern(Some(r"^\d{4}-(W\d{2}|\d{2}|\d{2}-\d{2})$"))
        .examples(["2026-W34"])
);
named_schema!(
    Cadence,
    words("How long one period of a board lasts.", Cadence::ALL.iter().map(|c| c.as_str()))
);
named_schema!(
    Operator,
    words("How a write changes a member's score.", Operator::ALL.iter().map(|o| o.as_str()))
);
named_schema!(TiePolicy, words("How equal points are ranked.", TiePolicy::ALL.iter().map(|t| t.as_str())));
named_schema!(
    Sort,
    words(
        "Which end of the points ranks first: `desc` (more is better) or `asc` (less is better: times, strokes).",
        Sort::ALL.iter().map(|s| s.as_str())
    )
);
named_schema!(
    Unit,
    words(
        "What a board's points stand for, for display: `points`, or `ms` (milliseconds, shown as durations).",
        Unit::ALL.iter().map(|u| u.as_str())
    )
);
named_schema!(
    Outcome,
    words("What a write did; each operator answers some of these.", Outcome::ALL.iter().map(|o| o.as_str()))
);
named_schema!(
    WriteMode,
    words(
        "How a hit changes a member's score in the current bucket.",
        WriteMode::ALL.iter().map(|m| m.as_str())
    )
);
named_schema!(
    Aggregate,
    words("How the window's buckets are merged.", Aggregate::ALL.iter().map(|a| a.as_str()))
);
named_schema!(
    VisibilityOutcome,
    words(
        "What a hide or an unhide did (`already_…`: the member was so before; nothing changed).",
        VisibilityOutcome::ALL.iter().map(|o| o.as_str())
    )
);
named_schema!(
    Prize,
    ObjectBuilder::new()
        .description(Some("Ranks `from_rank..=to_rank` win `prize`."))
        .property("from_rank", integer(Some(1)).maximum(Some(i64::MAX)))
        .required("from_rank")
        .property("to_rank", integer(Some(1)).maximum(Some(i64::MAX)))
        .required("to_rank")
        .property(
            "prize",
            ObjectBuilder::new().schema_type(Type::String).pattern(Some(r"\S")).max_length(Some(200)),
        )
        .required("prize")
);
named_schema!(
    Standing,
    ObjectBuilder::new()
        .description(Some("One line of the standings."))
        .property("rank", integer(Some(1)))
        .required("rank")
        .property("member", reference::<MemberId>())
        .required("member")
        .property("points", integer(None))
        .required("points")
        .property("prize", ObjectBuilder::new().schema_type(Type::String)),
    children: MemberId
);

#[cfg(test)]
mod tests {
    use super::*;
    use utoipa::openapi::schema::Object;

    fn object<T: PartialSchema>() -> Object {
        match T::schema() {
            RefOr::T(Schema::Object(o)) => o,
            _ => panic!("not an object schema"),
        }
    }

    /// The hand-written row schemas name exactly the fields serde writes, and require those
    /// it always writes.
    fn assert_shape<T: PartialSchema + serde::Serialize>(full: T, minimal: T) {
        let schema = object::<T>();
        let keys = |v: &T| -> Vec<String> {
            serde_json::to_value(v).unwrap().as_object().unwrap().keys().cloned().collect()
        };
        let mut properties: Vec<String> = schema.properties.keys().cloned().collect();
        properties.sort();
        let mut written = keys(&full);
        written.sort();
        assert_eq!(written, properties);
        let mut required = schema.required.clone();
        required.sort();
        let mut always = keys(&minimal);
        always.sort();
        assert_eq!(always, required);
    }

    #[test]
    fn row_schemas_match_their_serialized_fields() {
        let prize = Prize { from_rank: 1, to_rank: 3, prize: "a cup".into() };
        assert_shape(prize.clone(), prize);
        let member = MemberId::parse("u1").unwrap();
        let standing = |prize: Option<String>| Standing { rank: 1, member: member.clone(), points: 5, prize };
        assert_shape(standing(Some("a cup".into())), standing(None));
    }

    #[test]
    fn word_schemas_list_every_word() {
        let listed = |o: Object| o.enum_values.unwrap().len();
        assert_eq!(listed(object::<Cadence>()), Cadence::ALL.len());
        assert_eq!(listed(object::<Operator>()), Operator::ALL.len());
        assert_eq!(listed(object::<TiePolicy>()), TiePolicy::ALL.len());
        assert_eq!(listed(object::<Sort>()), Sort::ALL.len());
        assert_eq!(listed(object::<Unit>()), Unit::ALL.len());
        assert_eq!(listed(object::<Outcome>()), Outcome::ALL.len());
        assert_eq!(listed(object::<VisibilityOutcome>()), VisibilityOutcome::ALL.len());
        for outcome in VisibilityOutcome::ALL {
            assert_eq!(serde_json::to_value(outcome).unwrap(), outcome.as_str());
        }
    }
}
