//! The shape of a translation pair: whole (each book translates the other
//! whole), contained (one book holds a translation of the other, as a
//! volume holds one of its works), or partial (a stretch of each), told
//! from where the match lies in each book as [`classify_matched`] tells a
//! duplicate, a containment and an overlap apart.

use serde::Serialize;

use super::classify::{classify_matched, MatchSignals, MatchedBook, RelationClass};
use super::side::Side;

/// How much of each book a translation pair's match covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Shape {
    /// Each book translates (most of) the other.
    Whole,
    /// One book, the container, holds a translation of the other.
    Contained,
    /// A stretch of each.
    Partial,
}

impl Shape {
    /// Its name in output: `whole`, `contained`, `partial`.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Whole => "whole",
            Shape::Contained => "contained",
            Shape::Partial => "partial",
        }
    }
}

/// A translation pair's shape, with the container of a contained one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TranslationShape {
    /// The shape.
    pub shape: Shape,
    /// The book that holds the other, for [`Shape::Contained`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<Side>,
}

impl TranslationShape {
    /// The shape of a match spanning `a_range` of book A's `a_words` words
    /// and `b_range` of B's (`[start, end)` word positions).
    pub fn of(a_words: u32, a_range: [u32; 2], b_words: u32, b_range: [u32; 2]) -> Self {
        let signals = MatchSignals::new(
            MatchedBook::new(a_words, a_range),
            MatchedBook::new(b_words, b_range),
            1,
        );
        let relation = classify_matched(&signals);
        match relation.class {
            RelationClass::Duplicate => TranslationShape {
                shape: Shape::Whole,
                container: None,
            },
            RelationClass::Contains => TranslationShape {
                shape: Shape::Contained,
                container: relation.container,
            },
            _ => TranslationShape {
                shape: Shape::Partial,
                container: None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_follow_where_the_match_lies() {
        let whole = TranslationShape::of(30_000, [10, 29_800], 34_000, [40, 33_900]);
        assert_eq!((whole.shape, whole.container), (Shape::Whole, None));
        // A book of 5,000 words translated inside a volume of 800,000.
        let inside = TranslationShape::of(800_000, [300_000, 305_500], 5_000, [20, 4_990]);
        assert_eq!(inside.shape, Shape::Contained);
        assert_eq!(inside.container, Some(Side::A));
        let flipped = TranslationShape::of(5_000, [20, 4_990], 800_000, [300_000, 305_500]);
        assert_eq!(flipped.container, Some(Side::B));
        let partial = TranslationShape::of(30_000, [0, 9_000], 30_000, [20_000, 29_000]);
        assert_eq!(partial.shape, Shape::Partial);
        assert_eq!(
            serde_json::to_string(&inside).unwrap(),
            r#"{"shape":"contained","container":"a"}"#
        );
        assert_eq!(
            serde_json::to_string(&whole).unwrap(),
            r#"{"shape":"whole"}"#
        );
    }
}
