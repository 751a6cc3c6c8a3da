//! Wording shared by the commands' human output: counts with the noun in
//! the right number, and rates.

/// `n` and `noun`, the noun plural unless `n` is 1: `count(1, "book")` is
/// "1 book", `count(2, "page file")` "2 page files", `count(3, "sketch")`
/// "3 sketches".
pub fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else if ["s", "x", "ch", "sh"].iter().any(|end| noun.ends_with(end)) {
        format!("{n} {noun}es")
    } else {
        format!("{n} {noun}s")
    }
}

/// A rate per second, to one decimal below 100 and to the unit from 100 on:
/// "11.0/s", "0.5/s", "1235/s".
pub fn rate(per_sec: f64) -> String {
    let decimals = if per_sec.abs() >= 100.0 || !per_sec.is_finite() {
        0
    } else {
        1
    };
    format!("{per_sec:.decimals$}/s")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_put_the_noun_in_the_right_number() {
        assert_eq!(count(1, "book"), "1 book");
        assert_eq!(count(0, "book"), "0 books");
        assert_eq!(count(2, "page file"), "2 page files");
        assert_eq!(count(3, "dead sketch"), "3 dead sketches");
        assert_eq!(count(1, "byte"), "1 byte");
    }

    #[test]
    fn rates_have_at_most_one_decimal() {
        assert_eq!(rate(11.0434), "11.0/s");
        assert_eq!(rate(0.46), "0.5/s");
        assert_eq!(rate(1234.56), "1235/s");
        assert_eq!(rate(0.0), "0.0/s");
    }
}
