//! The index subcommands: create, load, query, pairs, delete, stats, verify,
//! upgrade.

use clap::{Args, ValueEnum};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use stemmata::load::sources;
use stemmata::relate::{Relation, Side, TranslationShape};
use stemmata::{
    Clusters, Document, Error, Hit, Index, LoadEvent, LoadOptions, Mode, PairsOptions,
    QueryOptions, Reader, Relationship, Result, Score, WordRange,
};

use crate::messages::{count, no_index};
use crate::output::{bar, print_json, print_load_outcome, refuse_inside_index, tsv_field};

/// Options shared by the scored commands.
#[derive(Args, Clone, Copy)]
pub struct ScoreArgs {
    /// Score: order (default: share of the common unique words aligned in
    /// order beyond chance), coverage (in-order share of the shorter book
    /// beyond chance), its, cs, or containment.
    #[arg(long, default_value = "order", value_parser = parse_score)]
    pub score: Score,
    /// Report only scores at or above this [default: the score's threshold:
    /// order 0.05, coverage 0.05, its 0.72, cs 0.12, containment 0.2]; every
    /// score is between 0 and 1.
    #[arg(long, allow_negative_numbers = true)]
    pub min_score: Option<f64>,
    /// Candidates: exact (unique-word postings; provably every book the
    /// score admits) or approximate (min-hash and simhash band tables only;
    /// faster and lighter on large indexes, may miss faint relations).
    #[arg(long, default_value = "exact", value_parser = parse_mode)]
    pub mode: Mode,
    /// Exact mode: skip, when counting common words, the words unique in
    /// more than this many books; they still count toward every bound, so
    /// answers do not change, only the work [default: max(1000, half the
    /// books)].
    #[arg(long, value_name = "BOOKS")]
    pub frequent_word_cap: Option<u32>,
}

impl ScoreArgs {
    /// A reader of `index` with the chosen frequent-word cap.
    pub fn reader(&self, index: &Index) -> Result<stemmata::Reader> {
        let reader = index.reader()?;
        Ok(match self.frequent_word_cap {
            Some(cap) => reader.with_frequent_word_cap(cap),
            None => reader,
        })
    }

    /// The threshold: `--min-score`, which must lie in the score's range
    /// (every score is between 0 and 1; coverage is clamped at 0), or the
    /// score's default.
    pub fn min_score(&self) -> Result<f64> {
        let Some(min) = self.min_score else {
            return Ok(self.score.default_threshold());
        };
        if !(0.0..=1.0).contains(&min) {
            return Err(Error::InvalidArgument(format!(
                "--min-score {min}: {} scores range from 0 to 1",
                self.score
            )));
        }
        Ok(min)
    }
}

/// Options of the commands that can search across languages.
#[derive(Args, Clone, Copy)]
pub struct TranslationArgs {
    /// Also find translations: each book's unique words translated into the
    /// languages the index's dictionaries join its own to (`stemmata
    /// dictionary add`), against the books of those languages. Translation
    /// results say "relation": "translation" in JSON and "translation" in
    /// the relation column. Books whose language is `und` take no part.
    #[arg(long)]
    pub translations: bool,
    /// Report only translations scoring at or above this [default: the
    /// score's translation threshold: order 0.02, coverage 0.02, its
    /// 0.49, cs 0.023, containment 0.05].
    #[arg(long, allow_negative_numbers = true, requires = "translations")]
    pub translation_min_score: Option<f64>,
    /// Do not join two languages that no dictionary joins through English
    /// (German and French through eng-deu and eng-fra dictionaries, say):
    /// search only the language pairs a dictionary joins.
    #[arg(long, requires = "translations")]
    pub no_pivot: bool,
}

impl TranslationArgs {
    /// The translation threshold for `score`: `--translation-min-score`,
    /// between 0 and 1, or the score's default.
    pub fn min_score(&self, score: Score) -> Result<f64> {
        let Some(min) = self.translation_min_score else {
            return Ok(score.translation_threshold());
        };
        if !(0.0..=1.0).contains(&min) {
            return Err(Error::InvalidArgument(format!(
                "--translation-min-score {min}: {score} scores range from 0 to 1"
            )));
        }
        Ok(min)
    }
}

/// Where candidates came from: unique-word postings (exact mode: entries
/// scanned, and the query's words skipped as frequent when it is one query)
/// or each band table (approximate mode).
fn candidate_sources(
    sources: Option<&stemmata::SourceCounts>,
    entries_scanned: u64,
    frequent_words: Option<u64>,
) -> String {
    match (sources, frequent_words) {
        (None, Some(frequent)) if frequent > 0 => format!(
            " sharing a unique word ({entries_scanned} posting entries scanned; {frequent} of the query's words skipped as frequent, counted in bounds)"
        ),
        (None, _) => format!(" sharing a unique word ({entries_scanned} posting entries scanned)"),
        (Some(s), _) => format!(" ({s})"),
    }
}

fn parse_mode(s: &str) -> std::result::Result<Mode, String> {
    match s {
        "exact" => Ok(Mode::Exact),
        "approximate" | "approx" => Ok(Mode::Approximate),
        other => Err(format!("unknown mode {other:?}: use exact or approximate")),
    }
}

fn parse_score(s: &str) -> std::result::Result<Score, String> {
    s.parse().map_err(|e: Error| e.to_string())
}

fn io_error(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

#[derive(Args)]
pub struct CreateArgs {
    /// Directory for the new index (created if missing).
    pub dir: PathBuf,
    /// M: words occurring at most M times in a book enter its unique-word sequence.
    #[arg(long, default_value_t = 1)]
    pub max_term_freq: u32,
    /// Seed of the 32-bit word hash.
    #[arg(long, default_value_t = stemmata::repr::DEFAULT_HASH_SEED)]
    pub hash_seed: u64,
    /// Window of the alphabetical-list guard in unique words (0 turns it off).
    #[arg(long, default_value_t = 64)]
    pub alpha_window: u32,
    /// A book with more words than this is a volume, stored as overlapping
    /// parts so that a short work bound inside it can be found.
    #[arg(long, default_value_t = stemmata::repr::parts::DEFAULT_VOLUME_WORDS)]
    pub volume_words: u32,
    /// Words in a volume's part (even, 16 to --volume-words); parts start
    /// every half part.
    #[arg(long, default_value_t = stemmata::repr::parts::DEFAULT_PART_WORDS)]
    pub part_words: u32,
    /// Print the created index's options as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(serde::Serialize)]
struct Created<'a> {
    index: &'a Path,
    hash_seed: u64,
    max_term_freq: u32,
    alpha_window: u32,
    volume_words: u32,
    part_words: u32,
}

pub fn create(args: CreateArgs) -> Result<ExitCode> {
    let index = Index::builder()
        .max_term_freq(args.max_term_freq)
        .hash_seed(args.hash_seed)
        .alpha_window(args.alpha_window)
        .parts(args.volume_words, args.part_words)
        .create(&args.dir)?;
    if args.json {
        let options = index.options();
        print_json(&Created {
            index: &args.dir,
            hash_seed: options.hash_seed,
            max_term_freq: options.max_term_freq,
            alpha_window: options.alpha_window,
            volume_words: index.part_options().volume_words,
            part_words: index.part_options().part_words,
        })?;
    } else {
        outln!("created index {}", args.dir.display())?;
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Clone, Copy, ValueEnum)]
pub enum InputFormat {
    /// By extension: directories and .txt files are text, .jsonl/.json are JSON Lines.
    Auto,
    /// Plain text files (key = file stem).
    Txt,
    /// JSON Lines: {"key", "title", "author", "language", "text"} or "pages": [..].
    Jsonl,
}

#[derive(Args)]
pub struct LoadArgs {
    /// The index directory.
    pub index: PathBuf,
    /// Input files or directories of .txt files.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// How to read the inputs.
    #[arg(long, value_enum, default_value = "auto")]
    pub format: InputFormat,
    /// Titles, authors and languages from this tab-separated file: a header
    /// line naming a `key` (or `id`) column and any of `title`, `author`,
    /// `language`; its values replace those of the texts for the keys it lists.
    #[arg(long, value_name = "TSV")]
    pub metadata: Option<PathBuf>,
    /// Create the index if the directory holds none.
    #[arg(long)]
    pub create: bool,
    /// Worker threads for feature extraction [default: all cores].
    #[arg(long, value_parser = crate::input::parse_threads)]
    pub threads: Option<usize>,
    /// Books per catalog commit.
    #[arg(long, default_value_t = 1000)]
    pub batch_books: usize,
    /// Also store the books as passages (runs of 2,048 words), which
    /// translation search needs to find a translated work inside a volume,
    /// even when the index holds no dictionary yet [default: when it holds
    /// one].
    #[arg(long, conflicts_with = "no_passages")]
    pub passages: bool,
    /// Do not store passages, even when the index holds a dictionary.
    #[arg(long)]
    pub no_passages: bool,
    /// Exit with status 2 when any document was skipped.
    #[arg(long)]
    pub strict: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Print the load statistics as JSON.
    #[arg(long)]
    pub json: bool,
}

type DocumentIter = Box<dyn Iterator<Item = Result<Document>>>;

fn input_documents(path: &Path, format: InputFormat) -> Result<(DocumentIter, u64)> {
    let is_json = match format {
        InputFormat::Jsonl => true,
        InputFormat::Txt => false,
        InputFormat::Auto => path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("jsonl") || e.eq_ignore_ascii_case("json")),
    };
    let metadata = std::fs::metadata(path).map_err(io_error(path))?;
    if metadata.is_dir() {
        let files = sources::text_file_paths(path)?;
        if files.is_empty() {
            eprintln!(
                "warning: {}: no .txt or .text files in this directory or its subdirectories",
                path.display()
            );
        }
        let bytes = files
            .iter()
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| m.len())
            .sum();
        let documents = files.into_iter().map(|file| sources::read_text_file(&file));
        Ok((Box::new(documents), bytes))
    } else if is_json {
        Ok((Box::new(sources::json_lines(path)?), metadata.len()))
    } else {
        let document = sources::read_text_file(path);
        Ok((Box::new(std::iter::once(document)), metadata.len()))
    }
}

/// Whether any of `inputs` yields a document (readable or not); each is
/// left with its first item peeked, not consumed.
fn any_documents(inputs: &mut [std::iter::Peekable<DocumentIter>]) -> bool {
    inputs
        .iter_mut()
        .any(|documents| documents.peek().is_some())
}

fn open_or_create(dir: &Path, create: bool) -> Result<Index> {
    match Index::open(dir) {
        Err(Error::NotAnIndex(_) | Error::IncompleteIndex(_)) if create => Index::create(dir),
        other => other,
    }
}

pub fn load(args: LoadArgs) -> Result<ExitCode> {
    // Read first: a bad metadata file leaves the index as it was.
    let metadata = match &args.metadata {
        Some(path) => crate::metadata::Metadata::read(path)?,
        None => crate::metadata::Metadata::default(),
    };
    let mut inputs = Vec::new();
    let mut total_bytes = 0;
    for path in &args.inputs {
        let (documents, bytes) = input_documents(path, args.format)?;
        inputs.push(documents);
        total_bytes += bytes;
    }
    let mut inputs: Vec<_> = inputs.into_iter().map(Iterator::peekable).collect();
    if !any_documents(&mut inputs) {
        eprintln!(
            "error: no documents to load in {}: a directory gives its .txt and .text files \
             (subdirectories included), a .jsonl or .json file its lines",
            args.inputs
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        return Ok(ExitCode::from(2));
    }
    // Opened for writing only now: an input refused above leaves the
    // catalog's bytes as they were.
    let index =
        open_or_create(&args.index, args.create).map_err(|e| no_index(e, &args.index, true))?;
    let mut options = LoadOptions::default().batch_books(args.batch_books);
    if let Some(threads) = args.threads {
        options.threads = threads;
    }
    if args.passages || args.no_passages {
        options = options.passages(args.passages);
    }
    let progress = bar(total_bytes, "loading", args.quiet || args.json);
    progress.set_style(
        indicatif::ProgressStyle::with_template(
            "{msg:>10} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec}, eta {eta})",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    let mut loader = index.bulk_loader(options)?;
    let report = progress.clone();
    loader.on_progress(move |event| match event {
        LoadEvent::Added { bytes, .. } => report.inc(*bytes),
        LoadEvent::Skipped {
            source_name,
            reason,
        } => report.suspend(|| eprintln!("skipped {source_name}: {reason}")),
        LoadEvent::DuplicateKey {
            key,
            source_name,
            earlier_source_name,
        } => report.suspend(|| {
            eprintln!(
                "warning: key {}: {source_name} replaces {earlier_source_name} of this load (the later document wins)",
                stemmata::keys::display_key(key)
            )
        }),
        LoadEvent::InvalidUtf8 {
            source_name,
            invalid_sequences,
            decoded_as,
        } => report.suspend(|| {
            eprintln!(
                "warning: {source_name}: {invalid_sequences} invalid UTF-8 sequences; loaded as {decoded_as}"
            )
        }),
        LoadEvent::Committed { books } => report.set_message(count(*books, "book")),
        _ => {}
    });
    for documents in inputs {
        loader.extend(documents.map(|document| document.map(|d| metadata.apply(d))))?;
    }
    let stats = loader.finish()?;
    progress.finish_and_clear();
    let secs = stats.elapsed.as_secs_f64().max(1e-9);
    let summary = format!(
        "loaded {} ({:.1} MB, {}) in {:.2} s ({:.1} MB/s); {} replaced, {}, {} skipped, {} with invalid UTF-8",
        count(stats.books, "book"),
        stats.bytes as f64 / 1e6,
        count(stats.words, "word"),
        secs,
        stats.bytes as f64 / 1e6 / secs,
        stats.replaced,
        count(stats.duplicate_keys.len() as u64, "duplicate key"),
        stats.skipped.len(),
        stats.invalid_utf8_documents,
    );
    print_load_outcome(&stats, args.json, &summary)?;
    Ok(if args.strict && !stats.skipped.is_empty() {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}

#[derive(Args)]
#[command(group(clap::ArgGroup::new("book").required(true).args(["key", "text"])))]
pub struct QueryArgs {
    /// The index directory.
    pub index: PathBuf,
    /// Key of a stored book to find relatives of.
    #[arg(long)]
    pub key: Option<String>,
    /// A text file to find relatives of (not stored).
    #[arg(long)]
    pub text: Option<PathBuf>,
    /// How many hits at most (0 = all above the threshold).
    #[arg(long, short = 'k', default_value_t = 10)]
    pub top_k: usize,
    #[command(flatten)]
    pub score: ScoreArgs,
    #[command(flatten)]
    pub translation: TranslationArgs,
    /// Print how many books each planner stage kept.
    #[arg(long)]
    pub explain: bool,
    /// Also tell how each hit relates to the query (duplicate, contains,
    /// overlap, unrelated), from the portion map of their unique words
    /// (a translation hit stays "translation").
    #[arg(long)]
    pub relations: bool,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The query's book: stored under a key, or a new text.
enum QueryBook<'a> {
    Stored(&'a str),
    Text(Vec<u8>),
}

/// The relation of each hit to the query (a = the query, b = the hit);
/// `None` for a translation hit, whose texts are not comparable word by
/// word.
fn hit_relations(
    reader: &Reader,
    query: &QueryBook,
    hits: &[Hit],
    score: Score,
) -> Result<Vec<Option<Relation>>> {
    match query {
        QueryBook::Stored(key) => reader.hit_relations_of_key(key, hits, score),
        QueryBook::Text(text) => reader.hit_relations_of_text(text, hits, score),
    }
}

/// The result as JSON: what was asked (`query`: the key, or the text's
/// file; `score_name`), the hits, each with its relation when there are
/// some, and the explain counts.
fn query_json(
    query: serde_json::Value,
    score: stemmata::Score,
    result: &stemmata::QueryResult,
    relations: Option<&[Option<Relation>]>,
) -> Result<serde_json::Value> {
    let to_json = |e: serde_json::Error| Error::InvalidArgument(format!("cannot write JSON: {e}"));
    let mut value = serde_json::to_value(result).map_err(to_json)?;
    value["query"] = query;
    value["score_name"] = score.name().into();
    if let (Some(relations), Some(hits)) = (relations, value["hits"].as_array_mut()) {
        for (hit, relation) in hits.iter_mut().zip(relations) {
            if let Some(relation) = relation {
                hit["relation"] = serde_json::to_value(relation).map_err(to_json)?;
            }
        }
    }
    Ok(value)
}

pub fn query(args: QueryArgs) -> Result<ExitCode> {
    let index = Index::open_read_only(&args.index).map_err(|e| no_index(e, &args.index, false))?;
    let reader = args
        .score
        .reader(&index)?
        .with_pivot_translations(!args.translation.no_pivot);
    let options = QueryOptions::with_score(args.score.score)
        .mode(args.score.mode)
        .top_k(args.top_k)
        .min_score(args.score.min_score()?)
        .translations(args.translation.translations)
        .translation_min_score(args.translation.min_score(args.score.score)?);
    let (result, query) = match (&args.key, &args.text) {
        (Some(key), _) => (reader.query_key(key, &options)?, QueryBook::Stored(key)),
        (None, Some(path)) => {
            let text = std::fs::read(path).map_err(io_error(path))?;
            crate::input::decode_text(path, &text)?;
            (reader.query_text(&text, &options)?, QueryBook::Text(text))
        }
        (None, None) => unreachable!("clap requires --key or --text"),
    };
    let relations = if args.relations {
        Some(hit_relations(&reader, &query, &result.hits, options.score)?)
    } else if args.translation.translations {
        Some(vec![None; result.hits.len()])
    } else {
        None
    };
    if args.json {
        let asked = match (&args.key, &args.text) {
            (Some(key), _) => serde_json::json!({ "key": key }),
            (None, Some(path)) => serde_json::json!({ "text": path.display().to_string() }),
            (None, None) => serde_json::Value::Null,
        };
        print_json(&query_json(
            asked,
            options.score,
            &result,
            relations.as_deref(),
        )?)?;
        return Ok(ExitCode::SUCCESS);
    }
    if result.hits.is_empty() {
        outln!("no book scores {} ≥ {}", options.score, options.min_score)?;
    } else {
        outln!(
            "{:>4}  {:>7}  {:>6} {:>6}  {:<24} {:<4} {:<19} {:<19} {}title",
            "rank",
            options.score.name(),
            "lcs",
            "common",
            "key",
            "lang",
            "query words",
            "hit words",
            if relations.is_some() {
                format!("{:<32} ", "relation")
            } else {
                String::new()
            }
        )?;
    }
    for (rank, hit) in result.hits.iter().enumerate() {
        let title = hit.title.as_str();
        let relation = relations.as_ref().map_or(String::new(), |r| {
            let label = match (&r[rank], hit.relation) {
                (Some(r), _) => crate::output::relation_label(r, "query", "hit"),
                (None, Some(_)) => match hit.translation_shape {
                    Some(TranslationShape {
                        container: Some(side),
                        ..
                    }) => format!(
                        "translation, {} ⊃ {}",
                        if side == Side::A { "query" } else { "hit" },
                        if side == Side::A { "hit" } else { "query" }
                    ),
                    Some(shape) => format!("translation, {}", shape.shape.name()),
                    None => "translation".to_string(),
                },
                (None, None) => "-".to_string(),
            };
            format!("{label:<32} ")
        });
        outln!(
            "{:>4}  {:>7.4}  {:>6} {:>6}  {:<24} {:<4} {:<19} {:<19} {relation}{}",
            rank + 1,
            hit.score,
            hit.overlap.lcs,
            hit.overlap.common,
            tsv_field(&hit.key),
            tsv_field(&hit.language),
            hit.query_words.to_string(),
            hit.hit_words.to_string(),
            tsv_field(title)
        )?;
    }
    if args.explain {
        let e = &result.explain;
        outln!(
            "explain ({} mode): {} books{} → {} candidates{} → {} within bound → {} aligned (LCS runs avoided: {}) → {} hits in {:.2} ms",
            e.mode.name(),
            e.books,
            if e.part_pairs == e.books {
                String::new()
            } else {
                format!(" ({} pairs of parts)", e.part_pairs)
            },
            e.candidates,
            candidate_sources(e.sources.as_ref(), e.entries_scanned, Some(e.frequent_words)),
            e.within_bound,
            e.lcs_runs,
            e.lcs_avoided,
            e.hits,
            e.elapsed.as_secs_f64() * 1e3
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Clone, Copy, ValueEnum)]
pub enum PairsFormat {
    /// Tab-separated with a header line; a backslash or control character
    /// in a key is escaped (\\, \t, \n, \r, \u{..}).
    Tsv,
    /// One JSON object per line.
    Jsonl,
}

#[derive(Args)]
pub struct PairsArgs {
    /// The index directory.
    pub index: PathBuf,
    #[command(flatten)]
    pub score: ScoreArgs,
    #[command(flatten)]
    pub translation: TranslationArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "tsv")]
    pub format: PairsFormat,
    /// Same as --format jsonl.
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// Write pairs here instead of standard output (not inside the index).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Worker threads [default: all cores].
    #[arg(long, value_parser = crate::input::parse_threads)]
    pub threads: Option<usize>,
    /// Incremental: only pairs with at least one book of internal id ID or
    /// more (the books of a load that printed "first id ID"); pairs among
    /// older books are not redone.
    #[arg(long, value_name = "ID")]
    pub from_id: Option<u32>,
    /// Also write clusters of related books (connected components over the
    /// pairs) to this file (not inside the index), as TSV: cluster, size,
    /// key; largest cluster first.
    #[arg(long)]
    pub clusters: Option<PathBuf>,
    /// Also tell how the books of each pair relate (duplicate, contains,
    /// overlap, unrelated), from the portion map of their unique words: TSV
    /// gets the columns relation, confidence and container (the key of the
    /// book that contains the other, or -), JSON a "relation" object.
    #[arg(long)]
    pub relations: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Writes the clusters as TSV: cluster number (from 1), size, key. Keys are
/// sorted within a cluster and clusters by size, then first key, so the file
/// does not depend on the order books were loaded in.
fn write_clusters(path: &Path, clusters: &mut Clusters) -> Result<usize> {
    let groups = stemmata::batch::clusters_by_key(
        clusters
            .groups()
            .iter()
            .map(|group| group.iter().map(|book| book.key.as_str()).collect())
            .collect(),
    );
    let mut out = BufWriter::new(File::create(path).map_err(io_error(path))?);
    let mut write = || -> std::io::Result<()> {
        writeln!(out, "cluster\tsize\tkey")?;
        for (number, group) in groups.iter().enumerate() {
            for key in group {
                writeln!(out, "{}\t{}\t{}", number + 1, group.len(), tsv_field(key))?;
            }
        }
        out.flush()
    };
    write().map_err(io_error(path))?;
    Ok(groups.len())
}

#[derive(serde::Serialize)]
struct PairLine<'a> {
    a: &'a str,
    b: &'a str,
    a_language: &'a str,
    b_language: &'a str,
    score: f64,
    lcs: u32,
    common: u32,
    a_unique: u32,
    b_unique: u32,
    /// Where the match lies: each book's part and word range.
    a_part: u32,
    b_part: u32,
    a_words: WordRange,
    b_words: WordRange,
    #[serde(skip_serializing_if = "Option::is_none")]
    relation: Option<PairRelation>,
    /// A translation pair's shape and container.
    #[serde(flatten)]
    translation_shape: Option<TranslationShape>,
}

impl PairLine<'_> {
    /// The key of the book `side` names, `-` for none.
    fn container(&self, side: Option<Side>) -> &str {
        match side {
            Some(Side::A) => self.a,
            Some(Side::B) => self.b,
            None => "-",
        }
    }
}

/// A pair's relation in output: `"translation"` for a translation pair,
/// else the classifier's (with `--relations`).
#[derive(serde::Serialize)]
#[serde(untagged)]
enum PairRelation {
    Found(Relationship),
    Classified(Relation),
}

/// The TSV columns of a pair's relation, after a tab, or nothing.
fn relation_columns(line: &PairLine, columns: bool) -> String {
    let relation = match &line.relation {
        None if columns => return "\t-\t-\t-".to_string(),
        None => return String::new(),
        Some(PairRelation::Found(_)) => {
            let container = line.translation_shape.and_then(|shape| shape.container);
            return format!("\ttranslation\t-\t{}", tsv_field(line.container(container)));
        }
        Some(PairRelation::Classified(relation)) => relation,
    };
    let container = line.container(relation.container);
    format!(
        "\t{}\t{:.4}\t{}",
        relation.class,
        relation.confidence,
        tsv_field(container)
    )
}

pub fn pairs(mut args: PairsArgs) -> Result<ExitCode> {
    if args.json {
        args.format = PairsFormat::Jsonl;
    }
    for path in args.output.iter().chain(&args.clusters) {
        refuse_inside_index(path, &args.index)?;
    }
    let index = Index::open_read_only(&args.index).map_err(|e| no_index(e, &args.index, false))?;
    let reader = args
        .score
        .reader(&index)?
        .with_pivot_translations(!args.translation.no_pivot);
    let mut options = PairsOptions::with_score(args.score.score);
    options.min_score = args.score.min_score()?;
    options.mode = args.score.mode;
    if let Some(threads) = args.threads {
        options.threads = threads;
    }
    options.from_id = args.from_id;
    options.translations = args.translation.translations;
    options.translation_min_score = args.translation.min_score(options.score)?;
    let out_path = args.output.clone().unwrap_or_else(|| "<stdout>".into());
    let mut out: Box<dyn Write> = match &args.output {
        Some(path) => Box::new(BufWriter::new(File::create(path).map_err(io_error(path))?)),
        None => Box::new(BufWriter::new(std::io::stdout().lock())),
    };
    let write_error = |source| Error::Io {
        path: out_path.clone(),
        source,
    };
    if matches!(args.format, PairsFormat::Tsv) {
        writeln!(
            out,
            "a\tb\tscore\tlcs\tcommon\ta_unique\tb_unique{}\ta_part\ta_words\tb_part\tb_words{}",
            if args.relations || args.translation.translations {
                "\trelation\tconfidence\tcontainer"
            } else {
                ""
            },
            if args.translation.translations {
                "\ta_language\tb_language\tshape"
            } else {
                ""
            }
        )
        .map_err(write_error)?;
    }
    let books = reader.books();
    let probed = books
        .iter()
        .filter(|b| args.from_id.is_none_or(|id| b.id >= id))
        .count();
    let progress = bar(probed as u64, "pairs", args.quiet);
    let mut clusters = Clusters::new(&reader);
    let stats = reader.for_each_pair(
        &options,
        |pair| {
            clusters.add(&pair);
            let (a, b) = (&pair.a.key, &pair.b.key);
            let relation =
                match pair.relation {
                    Some(found) => Some(PairRelation::Found(found)),
                    None if args.relations => Some(PairRelation::Classified(
                        reader.relation_under(a, b, options.score, options.min_score)?,
                    )),
                    None => None,
                };
            let line = PairLine {
                a,
                b,
                a_language: &pair.a.language,
                b_language: &pair.b.language,
                score: pair.score,
                lcs: pair.overlap.lcs,
                common: pair.overlap.common,
                a_unique: pair.overlap.len_x,
                b_unique: pair.overlap.len_y,
                a_part: pair.location.part_x,
                b_part: pair.location.part_y,
                a_words: pair.location.words_x,
                b_words: pair.location.words_y,
                relation,
                translation_shape: pair.translation_shape(),
            };
            match args.format {
                PairsFormat::Tsv => writeln!(
                    out,
                    "{}\t{}\t{:.6}\t{}\t{}\t{}\t{}{}\t{}\t{}-{}\t{}\t{}-{}{}",
                    tsv_field(line.a),
                    tsv_field(line.b),
                    line.score,
                    line.lcs,
                    line.common,
                    line.a_unique,
                    line.b_unique,
                    relation_columns(&line, args.relations || args.translation.translations),
                    line.a_part,
                    line.a_words.start,
                    line.a_words.end,
                    line.b_part,
                    line.b_words.start,
                    line.b_words.end,
                    if args.translation.translations {
                        format!(
                            "\t{}\t{}\t{}",
                            tsv_field(line.a_language),
                            tsv_field(line.b_language),
                            line.translation_shape.map_or("-", |t| t.shape.name())
                        )
                    } else {
                        String::new()
                    },
                ),
                PairsFormat::Jsonl => serde_json::to_writer(&mut out, &line)
                    .map_err(std::io::Error::from)
                    .and_then(|_| writeln!(out)),
            }
            .map_err(write_error)
        },
        |done| progress.set_position(done),
    )?;
    out.flush().map_err(write_error)?;
    progress.finish_and_clear();
    if let Some(path) = &args.clusters {
        let count = write_clusters(path, &mut clusters)?;
        if !args.quiet {
            eprintln!("{count} clusters written to {}", path.display());
        }
    }
    if !args.quiet {
        eprintln!(
            "{} pairs with {} ≥ {} from {} books ({} mode): {} pairs considered, {} candidates{}, {} within bound, {} aligned, in {:.2} s",
            stats.found,
            options.score,
            options.min_score,
            stats.books,
            stats.mode.name(),
            stats.pairs_considered,
            stats.candidates,
            candidate_sources(stats.sources.as_ref(), stats.entries_scanned, None),
            stats.within_bound,
            stats.lcs_runs,
            stats.elapsed.as_secs_f64()
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Args)]
pub struct DeleteArgs {
    /// The index directory.
    pub index: PathBuf,
    /// Keys of the books to delete.
    #[arg(required = true)]
    pub keys: Vec<String>,
    /// Print the counts as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn delete(args: DeleteArgs) -> Result<ExitCode> {
    let index = Index::open(&args.index).map_err(|e| no_index(e, &args.index, false))?;
    let keys: Vec<&str> = args.keys.iter().map(String::as_str).collect();
    let reader = index.reader()?;
    let mut seen = std::collections::HashSet::new();
    let not_found: Vec<&str> = keys
        .iter()
        .copied()
        .filter(|key| reader.book(key).is_err() && seen.insert(*key))
        .collect();
    drop(reader);
    let stats = index.delete_books(&keys)?;
    let deleted = stats.deleted;
    for warning in &stats.warnings {
        eprintln!("warning: {warning}");
    }
    if args.json {
        print_json(&serde_json::json!({
            "deleted": deleted,
            "asked": keys.len(),
            "not_found": not_found,
            "warnings": stats.warnings,
        }))?;
    } else {
        let missing = if not_found.is_empty() {
            String::new()
        } else {
            let listed: Vec<String> = not_found
                .iter()
                .map(|key| stemmata::keys::display_key(key))
                .collect();
            format!("; not found: {}", listed.join(", "))
        };
        outln!(
            "deleted {deleted} of {}{missing}",
            count(keys.len() as u64, "book")
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Args)]
pub struct StatsArgs {
    /// The index directory.
    pub index: PathBuf,
    /// Print as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn stats(args: StatsArgs) -> Result<ExitCode> {
    let index = Index::open_read_only(&args.index).map_err(|e| no_index(e, &args.index, false))?;
    let stats = index.stats()?;
    let dictionaries = index.dictionaries()?;
    if args.json {
        let mut value = serde_json::to_value(&stats)
            .map_err(|e| Error::InvalidArgument(format!("cannot write JSON: {e}")))?;
        if let Some(object) = value.as_object_mut() {
            object.insert(
                "dictionary_list".into(),
                serde_json::to_value(&dictionaries)
                    .map_err(|e| Error::InvalidArgument(format!("cannot write JSON: {e}")))?,
            );
        }
        print_json(&value)?;
    } else {
        outln!("books          {}", stats.books)?;
        outln!("words          {}", stats.words)?;
        outln!("unique words   {}", stats.unique_words)?;
        outln!(
            "barrels        {} ({}, {} live)",
            stats.barrels,
            count(stats.barrel_bytes, "byte"),
            stats.live_record_bytes
        )?;
        outln!(
            "segments       {} ({})",
            stats.segments,
            count(stats.segment_bytes, "byte")
        )?;
        outln!(
            "page files     {} ({})",
            stats.page_files,
            count(stats.page_file_bytes, "byte")
        )?;
        outln!("catalog        {}", count(stats.catalog_bytes, "byte"))?;
        if !stats.languages.is_empty() {
            let languages: Vec<String> = stats
                .languages
                .iter()
                .map(|(language, books)| format!("{language} {books}"))
                .collect();
            outln!("languages      {}", languages.join(", "))?;
        }
        outln!(
            "dictionaries   {} ({})",
            stats.dictionaries,
            count(stats.dictionary_bytes, "byte")
        )?;
        for d in &dictionaries {
            outln!("  {}", crate::dictionary_cmds::describe(d))?;
        }
        if stats.image_books > 0 {
            outln!(
                "word images    {} in {} ({})",
                stats.word_images,
                count(stats.image_books, "book"),
                count(stats.image_book_bytes, "byte")
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Args)]
pub struct VerifyArgs {
    /// The index directory.
    pub index: PathBuf,
    /// Print as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn verify(args: VerifyArgs) -> Result<ExitCode> {
    let index = Index::open_read_only(&args.index).map_err(|e| no_index(e, &args.index, false))?;
    let stats = index.verify()?;
    if args.json {
        print_json(&stats)?;
    } else {
        outln!(
            "ok: catalog ({}) intact; {}, {}, {} checked; {} ({}, {}, {}); {} with page signatures, {} ({}, {})",
            count(stats.catalog_bytes, "byte"),
            count(stats.books, "book"),
            count(stats.records, "record"),
            count(stats.bytes, "barrel byte"),
            count(stats.segments, "segment"),
            count(stats.segment_bytes, "byte"),
            count(stats.sketched_books, "sketched book"),
            count(stats.dead_sketches, "dead sketch"),
            count(stats.paged_books, "book"),
            count(stats.page_files, "page file"),
            count(stats.page_file_bytes, "byte"),
            count(stats.page_records, "record")
        )?;
        if stats.dictionaries > 0 {
            outln!(
                "ok: {} ({}) checked",
                dictionaries(stats.dictionaries),
                count(stats.dictionary_bytes, "byte")
            )?;
        }
        if stats.image_books > 0 {
            outln!(
                "ok: {} of word images, vocabulary and search file ({}) checked",
                count(stats.image_books, "book"),
                count(stats.image_bytes, "byte")
            )?;
        }
        if !stats.unlisted_files.is_empty() {
            let names: Vec<String> = stats
                .unlisted_files
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            outln!(
                "note: {} the catalog does not list, left by a writer that stopped (readers never read them; the next writer removes them): {}",
                count(names.len() as u64, "file"),
                names.join(", ")
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub const UPGRADE_ABOUT: &str = "\
Upgrade an index written by an older stemmata to the current format, in place.

Formats 1 to 4 keep the catalog (catalog.redb) in the file format of an \
older release of its database engine, which this build does not open: every \
command on such an index says to run `stemmata upgrade`. The upgrade converts \
a copy of the catalog; for a format-3 index it also moves the page signatures \
kept in the catalog into page files (pages/NNNNNN.pgs); it sets the format \
version, compacts and syncs the copy, and then renames it over the catalog. \
That rename is the only moment the index changes: stopped before it, the \
index is as it was and the upgrade can be run again. Sequences and sketches \
are kept as they are. Formats 3 and 4 become the current format; a format-1 \
or format-2 index gets a catalog this build reads and stays read-only (load \
its collection into a new index to add books). Formats 5 to 8 are upgraded in \
place by one catalog transaction (formats 5 and 6 also get one segment \
holding every book's unique words and postings, written before it). An index \
of the current format is left as it is. The index must not be open in another \
process.";

#[derive(Args)]
pub struct UpgradeArgs {
    /// The index directory.
    pub index: PathBuf,
    /// Print what was done as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn upgrade(args: UpgradeArgs) -> Result<ExitCode> {
    let stats = Index::upgrade_in_place(&args.index)?;
    for warning in &stats.warnings {
        eprintln!("warning: {warning}");
    }
    if args.json {
        print_json(&stats)?;
    } else if stats.from_version == stats.to_version {
        outln!("already format {}: nothing to do", stats.to_version)?;
    } else if !stats.catalog_converted {
        outln!(
            "upgraded from format {} to {} in place; catalog {} -> {} bytes",
            stats.from_version,
            stats.to_version,
            stats.catalog_bytes_before,
            stats.catalog_bytes_after
        )?;
    } else {
        outln!(
            "upgraded from format {} to {}: catalog converted; page signatures of {} books moved to {} page files ({} bytes); catalog {} -> {} bytes",
            stats.from_version,
            stats.to_version,
            stats.paged_books,
            stats.page_files,
            stats.page_file_bytes,
            stats.catalog_bytes_before,
            stats.catalog_bytes_after
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// "1 dictionary", "2 dictionaries".
fn dictionaries(n: u64) -> String {
    if n == 1 {
        "1 dictionary".to_string()
    } else {
        format!("{n} dictionaries")
    }
}
