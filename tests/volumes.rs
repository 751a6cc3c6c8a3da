//! A small work bound inside a large volume: the volume is stored as parts,
//! the work is found in exact and approximate mode, by key, by text and in
//! all pairs, and every answer says which part of the volume and which of
//! its words hold the work, and its relation to the volume is a
//! containment. Stored without parts, the volume's whole-book
//! unique words keep a tenth of the work's (against two fifths in its
//! part), and the pair scores a sixth as much.

use stemmata::relate::{RelationClass, Side};
use stemmata::repr::unique_words::extract;
use stemmata::repr::ExtractOptions;
use stemmata::{Document, Index, Mode, PairsOptions, QueryOptions};
use stemmata_synth::{generate, SynthOptions};

/// Sixteen generated works of 20,000 words from one vocabulary (so the
/// small work's words recur across the volume, as a real language's do).
fn works() -> Vec<String> {
    originals(16, 20_000, 7)
}

/// The texts of `families` generated works of `words` words each, from the
/// vocabulary of `seed`, without editions or anthologies.
fn originals(families: usize, words: usize, seed: u64) -> Vec<String> {
    let options = SynthOptions {
        min_words: words,
        max_words: words,
        editions_per_family: (0, 0),
        anthology_share: 0.0,
        unrelated_books: 0,
        ..SynthOptions::with_families(families, seed)
    };
    generate(&options)
        .books
        .into_iter()
        .map(|b| b.text)
        .collect()
}

/// The first `words` words of `text`, by white space.
fn opening(text: &str, words: usize) -> String {
    text.split_whitespace()
        .take(words)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The small work (the opening 1,500 words of the sixteenth work) and a
/// volume of the other fifteen with it bound after the tenth; returns the
/// work, the volume and where the work starts in the volume, in words.
fn volume_and_work() -> (String, String, u32) {
    let works = works();
    let small = opening(&works[15], 1_500);
    let mut volume = String::new();
    let mut at = 0;
    for (i, work) in works[..15].iter().enumerate() {
        volume.push_str(work);
        volume.push('\n');
        if i == 9 {
            at = extract(&volume, &ExtractOptions::default()).words as u32;
            volume.push_str(&small);
            volume.push('\n');
        }
    }
    (small, volume, at)
}

/// Words of `text` as the index counts them.
fn words_of(text: &str) -> u32 {
    extract(text, &ExtractOptions::default()).words as u32
}

fn load(dir: &std::path::Path, parts: bool, volume: &str, small: &str) -> Index {
    let builder = Index::builder();
    let builder = if parts {
        builder
    } else {
        builder.parts(u32::MAX - 1, u32::MAX - 1)
    };
    let index = builder.create(dir).unwrap();
    // A book of another vocabulary: related to nothing here.
    let other = originals(1, 1_500, 99).swap_remove(0);
    let stats = index
        .load([
            Ok(Document::new("volume", volume.as_bytes())),
            Ok(Document::new("story", small.as_bytes())),
            Ok(Document::new("other", other.into_bytes())),
        ])
        .unwrap();
    assert!(stats.skipped.is_empty());
    index
}

#[test]
fn a_small_work_inside_a_volume_is_found_in_its_part_with_where_it_lies() {
    let (small, volume, at) = volume_and_work();
    let n = words_of(&small);
    let dir = tempfile::tempdir().unwrap();
    let index = load(dir.path(), true, &volume, &small);
    let reader = index.reader().unwrap();
    let info = reader.book("volume").unwrap();
    assert!(info.words > 300_000);
    assert!(info.parts > 10, "{info:?}");
    assert_eq!(reader.book("story").unwrap().parts, 1);

    for mode in [Mode::Exact, Mode::Approximate] {
        let options = QueryOptions::default().mode(mode);
        let by_text = reader.query_text(small.as_bytes(), &options).unwrap().hits;
        for hits in [
            reader.query_key("story", &options).unwrap().hits,
            by_text.into_iter().filter(|h| h.key != "story").collect(),
        ] {
            assert_eq!(hits.len(), 1, "{mode:?}: {hits:?}");
            let hit = &hits[0];
            assert_eq!(hit.key, "volume");
            assert!(hit.score >= 0.5, "{mode:?}: {hit:?}");
            // Inside its part, the story keeps most of its unique words.
            assert!(
                hit.overlap.lcs * 5 > hit.overlap.query_unique * 2,
                "{hit:?}"
            );
            // The part holds the story, and the matched words lie in it.
            let part = u64::from(hit.hit_part) * 16_384;
            assert!(part <= u64::from(at) && u64::from(at + n) <= part + 32_768);
            assert!(
                hit.hit_words.start >= at && hit.hit_words.end <= at + n,
                "{hit:?}"
            );
            assert!(hit.hit_words.end - hit.hit_words.start > n / 2, "{hit:?}");
            assert!(hit.query_words.end <= n && hit.query_part == 0);
        }
        // The volume's query finds the story from its part.
        let hits = reader.query_key("volume", &options).unwrap().hits;
        assert_eq!(
            hits.first().map(|h| h.key.as_str()),
            Some("story"),
            "{mode:?}"
        );
        assert!(hits[0].query_words.start >= at && hits[0].query_words.end <= at + n);

        let pairs = reader.pairs(&PairsOptions::default().mode(mode)).unwrap();
        let found: Vec<_> = pairs
            .pairs
            .iter()
            .map(|p| (p.a.key.as_str(), p.b.key.as_str()))
            .collect();
        assert_eq!(found, [("volume", "story")], "{mode:?}");
        let location = pairs.pairs[0].location;
        assert!(location.words_x.start >= at && location.words_x.end <= at + n);
    }
    // The portion map sees the story inside the volume too.
    let matched = reader.matched_positions("story", "volume").unwrap();
    assert!(matched.len() > 300);
    let inside = matched
        .iter()
        .filter(|&&(_, v)| v >= at && v < at + n)
        .count();
    assert!(
        inside * 20 >= matched.len() * 19,
        "{inside} of {}",
        matched.len()
    );
    // Its relation comes from the matched pair of parts: contained, with
    // the volume as its container, although it is 0.4% of the volume.
    let relation = reader.relation("volume", "story").unwrap();
    assert_eq!(relation.class, RelationClass::Contains, "{relation:#?}");
    assert_eq!(relation.container, Some(Side::A));
    assert_eq!(
        reader.relation("story", "volume").unwrap().container,
        Some(Side::B)
    );
    let unrelated = reader.relation("story", "other").unwrap();
    assert_eq!(unrelated.class, RelationClass::Unrelated, "{unrelated:#?}");
}

#[test]
fn without_parts_the_volume_keeps_few_of_the_small_works_words() {
    let (small, volume, _) = volume_and_work();
    let dir = tempfile::tempdir().unwrap();
    let index = load(dir.path(), false, &volume, &small);
    let reader = index.reader().unwrap();
    assert_eq!(reader.book("volume").unwrap().parts, 1);
    let hits = reader
        .query_key("story", &QueryOptions::default().min_score(0.0))
        .unwrap()
        .hits;
    let hit = hits.iter().find(|h| h.key == "volume").unwrap();
    // In a 300,000-word volume the story keeps a tenth of its unique words
    // or less (in its part, over two fifths), and scores a sixth as much.
    assert!(
        hit.overlap.lcs * 10 <= hit.overlap.query_unique * 11 / 10,
        "{hit:?}"
    );
    assert!(hit.score < 0.15, "{hit:?}");
}
