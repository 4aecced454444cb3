//! Segments: a board's declared dimensions (`province`, `class`) and a member's value in each.
//! One write ranks a member on the board and on one ranking per segment value it names (issue
//! 43). A dimension is not a shard: each value's ranking is a full ranking of its own.
//!
//! - [`check_dimensions`]: what a board may declare at creation (at most [`MAX_DIMENSIONS`],
//!   names `[a-z0-9_-]{1,32}`, no repeats).
//! - [`check_values`]: what a write may name — declared dimensions only, values shaped like
//!   member ids.
//! - [`Segment`]: one value of one dimension, as a read names it (`?segment=province:zj`).

use std::collections::BTreeMap;

/// The most dimensions a board may declare.
pub const MAX_DIMENSIONS: usize = 4;

/// A write's segment values, by dimension (ordered, so a write's values print the same way).
pub type Values = BTreeMap<String, String>;

/// Why a dimension name is not one.
fn dimension_refusal(name: &str) -> Option<String> {
    let ok = (1..=32).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-');
    (!ok).then(|| format!("segment dimension {name:?} must be 1-32 of a-z, 0-9, _ and -"))
}

/// Checks a board's declared dimensions.
pub fn check_dimensions(dims: &[String]) -> Result<(), String> {
    if dims.len() > MAX_DIMENSIONS {
        return Err(format!("a board declares at most {MAX_DIMENSIONS} segment dimensions"));
    }
    if let Some(refusal) = dims.iter().find_map(|d| dimension_refusal(d)) {
        return Err(refusal);
    }
    let mut sorted: Vec<&String> = dims.iter().collect();
    sorted.sort();
    if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("segment dimension {:?} is declared twice", w[0]));
    }
    Ok(())
}

/// Why a value is not one: values are shaped like member ids.
fn value_refusal(dim: &str, value: &str) -> Option<String> {
    crate::ids::MemberId::parse(value)
        .err()
        .map(|e| format!("segment value {value:?} of {dim:?}: {}", e.problem))
}

/// Checks a write's segment values against the board's declared dimensions.
pub fn check_values(declared: &[String], values: &Values) -> Result<(), String> {
    for (dim, value) in values {
        if !declared.contains(dim) {
            return Err(undeclared(declared, dim));
        }
        if let Some(refusal) = value_refusal(dim, value) {
            return Err(refusal);
        }
    }
    Ok(())
}

/// At most this many values on a profile: the dimensions of every board the member writes on.
pub const MAX_PROFILE_VALUES: usize = 16;

/// Checks the segment values a profile names: dimension names and values shaped as on boards, at
/// most [`MAX_PROFILE_VALUES`]. Which of them a board uses is its declared dimensions' business.
pub fn check_profile_values(values: &Values) -> Result<(), String> {
    if values.len() > MAX_PROFILE_VALUES {
        return Err(format!("a profile names at most {MAX_PROFILE_VALUES} segment values"));
    }
    match values.iter().find_map(|(dim, value)| dimension_refusal(dim).or_else(|| value_refusal(dim, value)))
    {
        Some(refusal) => Err(refusal),
        None => Ok(()),
    }
}

fn undeclared(declared: &[String], dim: &str) -> String {
    match declared.is_empty() {
        true => format!("segment dimension {dim:?} is not declared: this board has no segments"),
        false => format!("segment dimension {dim:?} is not declared (the board's: {})", declared.join(", ")),
    }
}

/// One value of one dimension: the ranking a read names.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Segment {
    pub dimension: String,
    pub value: String,
}

impl Segment {
    /// Parses `dim:value` (a value may itself hold `:`) against the board's dimensions.
    pub fn parse(declared: &[String], text: &str) -> Result<Self, String> {
        let (dim, value) = text
            .split_once(':')
            .ok_or_else(|| format!("segment {text:?} must be dimension:value (province:zj)"))?;
        Self::of(declared, dim, value)
    }

    /// A dimension and a value, checked against the board's dimensions.
    pub fn of(declared: &[String], dim: &str, value: &str) -> Result<Self, String> {
        if let Some(refusal) = dimension_refusal(dim) {
            return Err(refusal);
        }
        if !declared.iter().any(|d| d == dim) {
            return Err(undeclared(declared, dim));
        }
        if let Some(refusal) = value_refusal(dim, value) {
            return Err(refusal);
        }
        Ok(Self { dimension: dim.to_owned(), value: value.to_owned() })
    }
}

impl std::fmt::Display for Segment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.dimension, self.value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dims(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_board_declares_at_most_four_well_named_dimensions() {
        assert!(check_dimensions(&dims(&["province", "class", "school_2", "x-y"])).is_ok());
        assert!(check_dimensions(&dims(&["a", "b", "c", "d", "e"])).unwrap_err().contains("at most 4"));
        assert!(check_dimensions(&dims(&["Province"])).is_err());
        assert!(check_dimensions(&dims(&["a:b"])).is_err());
        assert!(check_dimensions(&dims(&[""])).is_err());
        assert!(check_dimensions(&dims(&[&"x".repeat(33)])).is_err());
        assert!(check_dimensions(&dims(&["a", "a"])).unwrap_err().contains("twice"));
    }

    #[test]
    fn writes_name_declared_dimensions_and_member_shaped_values() {
        let declared = dims(&["province", "class"]);
        let ok: Values = [("province".into(), "zj".into()), ("class".into(), "c-17".into())].into();
        assert!(check_values(&declared, &ok).is_ok());
        let odd: Values = [("city".into(), "hz".into())].into();
        assert!(check_values(&declared, &odd).unwrap_err().contains("not declared"));
        let bad: Values = [("province".into(), "z j".into())].into();
        assert!(check_values(&declared, &bad).is_err());
    }

    #[test]
    fn reads_name_a_segment_as_dimension_and_value() {
        let declared = dims(&["province"]);
        let s = Segment::parse(&declared, "province:team:a").unwrap();
        assert_eq!((s.dimension.as_str(), s.value.as_str()), ("province", "team:a"));
        assert_eq!(s.to_string(), "province:team:a");
        assert!(Segment::parse(&declared, "province").is_err());
        assert!(Segment::parse(&declared, "class:c1").is_err());
        assert!(Segment::parse(&declared, "province:").is_err());
        assert!(Segment::parse(&declared, "province:{x}").is_err());
    }
}
